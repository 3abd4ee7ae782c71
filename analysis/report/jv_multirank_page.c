/* jv_multirank_page: multirank_report.md and report.html of a job: per rank the GPU time, communication/
 * computation overlap and HTA's idle breakdown; the collectives per message size with skew, straggler and
 * bandwidths; the straggler summary; the most skewed collectives; and (html) one timeline row per rank. Both open
 * with the communication advice from the measured arrival skew: its texts made once (comm_advice), printed twice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_comm_advice.h"
#include "jv_html_int.h"
#include "jv_multirank_report.h"
#include "jv_output.h"

static const char *sv(const jv_coll_inst *in, uint32_t id) {
    return jv_intern_str(&in->rv0->strings, id);
}

/* the file name of a path */
static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static double pct(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* a number with prec decimals, "-" for NaN */
static const char *fnum(char *b, size_t cap, double v, int prec) {
    if (isnan(v) || isinf(v))
        snprintf(b, cap, "-");
    else
        snprintf(b, cap, "%.*f", prec, v);
    return b;
}

/* the ninst collectives' indexes by skew, largest first (at most k) */
static size_t most_skewed(const jv_job *job, size_t *idx, size_t k) {
    size_t n = 0;
    for (size_t i = 0; i < job->ninst; i++) {
        if (n == k && job->inst[i].skew_start <= job->inst[idx[k - 1]].skew_start) continue;
        size_t p = n < k ? n++ : k - 1;
        while (p > 0 && job->inst[idx[p - 1]].skew_start < job->inst[i].skew_start) {
            idx[p] = idx[p - 1];
            p--;
        }
        idx[p] = i;
    }
    return n;
}

static const char CLOCK_NOTE[] =
    "Skew compares the ranks' recorded kernel start times as they are: ranks on one node share its clock; "
    "ranks on different nodes are only as aligned as their hosts' clocks (NTP: tens of us to ms), so skew below "
    "that is noise there.";

/* ---------- markdown ---------- */

static const char ADVICE_NOTE[] =
    "From the measured arrival skew of the matched collectives, ranked by the time each could save on one rank; no "
    "time in both: a rank's wait ends where the last rank arrives, the transfer (comm latency) begins there.";

/* The communication advice from the measured arrival skew, into r[0..2) (zeroed here), ranked by the time each
 * could save on one rank: waiting for the last rank (a rank's wait over the collectives) and the transfers after it
 * (the comm latency summed over them). Returns how many. Texts are markdown: `code` spans, one [link](target). */
static int comm_advice(const jv_job *job, const char *const *rank_dirs, jv_rec_text r[2]) {
    memset(r, 0, 2 * sizeof *r);
    if (!job->ninst) return 0;
    char b1[64], b2[64], b3[64];
    int s = job->straggler, w = job->most_waiting, n = 0;
    const jv_coll_size *z = job->nsizes ? &job->sizes[0] : NULL;
    double wait_w = w >= 0 ? job->wait[w].wait_total / 1e3 : 0;
    int wait_first = wait_w > job->latency_us;
    for (int k = 0; k < 2; k++) {
        jv_rec_text *t = &r[n];
        if ((k == 0) == wait_first && w >= 0) {
            const jv_coll_inst *at = &job->inst[job->skew_max_at];
            snprintf(t->title, sizeof t->title, "Waiting for other ranks");
            snprintf(t->issue, sizeof t->issue,
                     "over %zu collectives the ranks wait %s us each on average for the last to arrive; rank %d waits "
                     "most, %s us; rank %d arrives last at %zu of them (the straggler); the largest skew is %s us "
                     "(%s_%u).",
                     job->ninst, fnum(b1, sizeof b1, job->wait_mean_us, 1), job->ranks[w].rank,
                     fnum(b2, sizeof b2, wait_w, 1), s >= 0 ? job->ranks[s].rank : -1,
                     s >= 0 ? job->wait[s].times_last : 0, fnum(b3, sizeof b3, job->skew_max / 1e3, 1),
                     job->groups[at->group], at->index);
            snprintf(t->action, sizeof t->action,
                     "find what delays rank %d before its collectives: compare [its report](%s/"
                     "standalone_analysis_fair.md) with the others' (more GPU work from uneven batches, sequence "
                     "lengths or embedding shards; its host: data loading, Python, garbage collection; its GPU "
                     "clocks), then even out the work; more bandwidth does not shorten a wait.",
                     s >= 0 ? job->ranks[s].rank : -1, rank_dirs[s >= 0 ? s : 0]);
            snprintf(t->impact, sizeof t->impact,
                     "up to %s us on rank %d (%s us per rank on average) if all ranks arrived together.",
                     fnum(b1, sizeof b1, wait_w, 1), job->ranks[w].rank, fnum(b2, sizeof b2, job->wait_mean_us, 1));
            snprintf(t->confidence, sizeof t->confidence,
                     "medium: measured arrival skew across ranks (one node shares a clock; across nodes skew under "
                     "the clocks' error, tens of us to ms with NTP, is noise).");
            t->gain_us = wait_w;
            n++;
        } else if ((k == 0) != wait_first && job->latency_us > 0) {
            int m = snprintf(t->issue, sizeof t->issue,
                             "after the last rank arrives, the %zu collectives take %s us (comm latency, summed)",
                             job->ninst, fnum(b1, sizeof b1, job->latency_us, 1));
            if (z)
                m = jv_rec_issue_cat(t, m,
                                     "; the most: %s of %s MiB, %zu call(s), %s us, at %s GB/s bus bandwidth "
                                     "(mean)",
                                     sv(z->first, z->first->c->name)[0] ? sv(z->first, z->first->c->name) : "-",
                                     fnum(b1, sizeof b1, z->first->full_bytes / 1048576.0, 3), z->count,
                                     fnum(b2, sizeof b2, z->lat_sum, 1), fnum(b3, sizeof b3, z->busbw_mean, 2));
            jv_rec_issue_cat(t, m, ".");
            snprintf(t->title, sizeof t->title, "Transfers");
            snprintf(t->action, sizeof t->action,
                     "this is data movement: overlap it with computation (bucketing, async collectives, fewer and "
                     "larger messages); if the bus bandwidth is below the interconnect's, check the links and "
                     "topology (nccl-tests, `nvidia-smi topo -m` / `rocm-smi --showtopo`).");
            snprintf(t->impact, sizeof t->impact, "up to %s us per rank if all of it overlapped.",
                     fnum(b1, sizeof b1, job->latency_us, 1));
            snprintf(t->confidence, sizeof t->confidence,
                     "medium: measured comm latency (the shortest duration of the ranks), an upper bound.");
            t->gain_us = job->latency_us;
            n++;
        }
    }
    return n;
}

/* the advice as the markdown report's section */
static void md_advice(FILE *f, const jv_job *job, const char *const *rank_dirs) {
    jv_rec_text r[2];
    int n = comm_advice(job, rank_dirs, r);
    if (!job->ninst) return;
    fprintf(f, "## Communication advice\n\n%s\n\n", ADVICE_NOTE);
    for (int i = 0; i < n; i++)
        fprintf(f, "- **%s.** Issue: %s Action: %s Impact: %s Confidence: %s\n", r[i].title, r[i].issue, r[i].action,
                r[i].impact, r[i].confidence);
    fputc('\n', f);
}

jv_status jv_multirank_md(const jv_job *job, const char *const *rank_dirs, const char *outdir, jv_err *err) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/multirank_report.md", outdir) >= sizeof path)
        JV_FAIL(err, JV_ERR_USAGE, "%s: output directory name too long", outdir);
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    char b1[64], b2[64], b3[64], b4[64], b5[64], b6[64], b7[64], b8[64], b9[64];
    fprintf(f, "# Multi-rank analysis: %d ranks\n\n", job->nranks);
    fprintf(f, "%zu collectives matched across ranks in %zu process group(s)", job->ninst, job->ngroups);
    if (job->unmatched)
        fprintf(f, "; %zu calls had no partner on every rank (ranks issued different counts)", job->unmatched);
    if (job->mismatched)
        fprintf(f, "; %zu matched collectives differ across ranks in kind or size (check the matching)",
                job->mismatched);
    fprintf(f, ".\n%s\n\n", CLOCK_NOTE);
    md_advice(f, job, rank_dirs);
    fputs("## Ranks\n\n"
          "Per rank, its GPU timeline (all devices of its trace merged); overlap = share of communication kernel "
          "time during which a computation kernel runs; idle by HTA's rule (gaps between consecutive GPU events of "
          "each stream, summed over streams): host wait (the next event was launched after the previous one "
          "ended), kernel wait (launched earlier, gap under 30 ns), other.\n\n"
          "| rank | trace | GPU span ms | computation % | comm ms | overlapped % | exposed comm ms | idle % | host "
          "wait ms | kernel wait ms | other ms | collectives |\n"
          "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
          f);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_view *rv = &job->ranks[r];
        const jv_gpu_timeline *t = &rv->tl;
        fprintf(
            f, "| %d | [%s](%s/standalone_analysis_fair.md) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %zu |\n",
            rv->rank, base_name(rv->path), rank_dirs[r], fnum(b1, sizeof b1, t->total / 1e6, 3),
            fnum(b2, sizeof b2, pct((double)t->computation, (double)t->total), 1),
            fnum(b3, sizeof b3, t->total_comm / 1e6, 3),
            fnum(b4, sizeof b4, t->total_comm > 0 ? pct((double)rv->comm_overlapped, (double)t->total_comm) : NAN, 1),
            fnum(b5, sizeof b5, t->exposed_comm / 1e6, 3),
            fnum(b6, sizeof b6, pct((double)t->idle, (double)t->total), 1), fnum(b7, sizeof b7, rv->idle_host / 1e6, 3),
            fnum(b8, sizeof b8, rv->idle_kernel / 1e6, 3), fnum(b9, sizeof b9, rv->idle_other / 1e6, 3), rv->ncalls);
    }
    fputs("\n## Collectives per message size\n\n"
          "Matched by order of issue per process group. comm latency = the shortest duration of the ranks (the "
          "time after the last arrival); skew = latest start - earliest start; straggler = the rank most often last "
          "to arrive; algbw = message / comm latency (GB/s = 1e9 B/s, as nccl-tests), busbw = algbw x 2(n-1)/n "
          "(all_reduce), (n-1)/n (all_gather, reduce_scatter, all_to_all), 1 (broadcast, reduce, send/recv).\n\n"
          "| group | collective | dtype | msg MB | count | comm latency us (mean) | skew us (mean / max) | "
          "straggler (times) | algbw GB/s | busbw GB/s | total ms |\n"
          "|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|\n",
          f);
    for (size_t i = 0; i < job->nsizes && i < 30; i++) {
        const jv_coll_size *z = &job->sizes[i];
        const jv_coll_inst *in = z->first;
        fprintf(f, "| %s | %s | %s | %s | %zu | %s | %s / %s | %d (%zu) | %s | %s | %s |\n",
                job->groups[in->group][0] ? job->groups[in->group] : "-",
                sv(in, in->c->name)[0] ? sv(in, in->c->name) : "-",
                sv(in, in->c->dtype)[0] ? sv(in, in->c->dtype) : "-",
                fnum(b1, sizeof b1, in->full_bytes / 1048576.0, 3), z->count, fnum(b2, sizeof b2, z->lat_mean, 1),
                fnum(b3, sizeof b3, z->skew_mean, 1), fnum(b4, sizeof b4, z->skew_max, 1),
                job->ranks[z->straggler].rank, z->straggler_times, fnum(b5, sizeof b5, z->algbw_mean, 2),
                fnum(b6, sizeof b6, z->busbw_mean, 2), fnum(b7, sizeof b7, z->lat_sum / 1e3, 3));
    }
    if (job->nsizes > 30) fprintf(f, "\n(%zu more rows in perf_report_csvs/coll_analysis.csv)\n", job->nsizes - 30);
    fputs(
        "\n## Straggler summary\n\n| rank | total wait us | mean wait us | arrived last | arrived first | comm kernel "
        "us |\n|---:|---:|---:|---:|---:|---:|\n",
        f);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_wait *w = &job->wait[r];
        fprintf(f, "| %d | %s | %s | %zu | %zu | %s |\n", job->ranks[r].rank,
                fnum(b1, sizeof b1, w->wait_total / 1e3, 1),
                fnum(b2, sizeof b2, w->ncoll ? w->wait_total / 1e3 / (double)w->ncoll : NAN, 1), w->times_last,
                w->times_first, fnum(b3, sizeof b3, w->dur_total / 1e3, 1));
    }
    size_t idx[10];
    size_t n = most_skewed(job, idx, 10);
    if (n) {
        fputs("\n## Most skewed collectives\n\n| collective_id | collective | skew us | earliest | straggler | comm "
              "latency us |\n|---|---|---:|---:|---:|---:|\n",
              f);
        for (size_t k = 0; k < n; k++) {
            const jv_coll_inst *in = &job->inst[idx[k]];
            const char *g = job->groups[in->group];
            fprintf(f, "| %s_%u | %s | %s | %d | %d | %s |\n", g, in->index,
                    sv(in, in->c->name)[0] ? sv(in, in->c->name) : "-", fnum(b1, sizeof b1, in->skew_start / 1e3, 1),
                    job->ranks[in->earliest].rank, job->ranks[in->straggler].rank,
                    fnum(b2, sizeof b2, in->comm_latency / 1e3, 1));
        }
    }
    fputs("\nSheets: perf_report_csvs/ (coll_analysis, nccl_implicit_sync, straggler_summary, rank_summary, "
          "idle_time_breakdown) and perf_report.xlsx; each rank's own report in rank<k>/.\n",
          f);
    return jv_out_commit(&o, err);
}

/* ---------- html ---------- */

enum { LABEL_W = 64, ROW_H = 26, LANE_H = 10 };
static const char COMP_COLOR[] = "#3a7ca5", COMM_COLOR[] = "#e0a030";

/* one lane of a rank: runs of bins with the same share (tenths) as one rect each */
static void lane(FILE *f, const float *bins, double x0, double bw, double y, const char *color) {
    int b = 0;
    while (b < JV_RANK_BINS) {
        int q = (int)lrintf(bins[b] * 10);
        int e = b + 1;
        while (e < JV_RANK_BINS && (int)lrintf(bins[e] * 10) == q)
            e++;
        if (q > 0)
            fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" fill-opacity=\"%.1f\"/>\n",
                    x0 + b * bw, y, (e - b) * bw, LANE_H, color, q / 10.0);
        b = e;
    }
}

static void timeline_svg(FILE *f, const jv_job *job) {
    double span = (double)(job->t1 - job->t0), pw = SVG_W - LABEL_W - 10;
    int h = job->nranks * ROW_H + 30;
    char b1[64];
    fprintf(
        f, "<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"per-rank GPU timeline\">\n",
        SVG_W, h, SVG_W, h);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_view *rv = &job->ranks[r];
        double y = r * ROW_H + 4;
        fprintf(f, "<text class=\"ax\" x=\"4\" y=\"%.1f\">rank %d</text>\n", y + LANE_H + 3, rv->rank);
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"#eef1f4\"/>\n", LABEL_W, y, pw,
                2 * LANE_H + 1);
        if (!rv->tl.events || span <= 0) continue;
        double x0 = LABEL_W + pw * (double)(rv->first - job->t0) / span;
        double bw = pw * (double)(rv->last - rv->first) / span / JV_RANK_BINS;
        fprintf(f, "<g class=\"rank\" data-rank=\"%d\" data-first-us=\"%s\">\n", rv->rank,
                jv_html_frt(b1, sizeof b1, rv->first / 1e3));
        lane(f, rv->bin_comp, x0, bw, y, COMP_COLOR);
        lane(f, rv->bin_comm, x0, bw, y + LANE_H + 1, COMM_COLOR);
        fputs("</g>\n", f);
    }
    double yax = job->nranks * ROW_H + 16;
    for (int k = 0; k <= 4; k++) {
        double x = LABEL_W + pw * k / 4;
        fprintf(f, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s ms</text>\n", x, yax,
                k == 0   ? "start"
                : k == 4 ? "end"
                         : "middle",
                fnum(b1, sizeof b1, span / 1e6 * k / 4, 2));
    }
    fputs("</svg>\n", f);
}

/* the advice as the html page's section, on the first screen */
static void html_advice(FILE *f, const jv_job *job, const char *const *rank_dirs) {
    jv_rec_text r[2];
    int n = comm_advice(job, rank_dirs, r);
    if (!job->ninst) return;
    fputs("<section id=\"advice\"><h2>Communication advice</h2>\n<p class=\"note\">", f);
    jv_html_esc(f, ADVICE_NOTE);
    fputs("</p>\n", f);
    if (!n)
        fputs("<p>No communication time to save.</p>\n", f);
    else
        fputs("<ol class=\"recs\">\n", f);
    for (int i = 0; i < n; i++)
        jv_html_rec(f, &r[i], 1);
    fputs(n ? "</ol>\n</section>\n" : "</section>\n", f);
}

static void cell(FILE *f, const char *s) {
    fputs("<td class=\"n\">", f);
    jv_html_esc(f, s);
    fputs("</td>", f);
}

jv_status jv_multirank_html(const jv_job *job, const char *const *rank_dirs, const char *outdir, jv_err *err) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/report.html", outdir) >= sizeof path)
        JV_FAIL(err, JV_ERR_USAGE, "%s: output directory name too long", outdir);
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    char b1[64], b2[64], b3[64];
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Multi-rank report: %d "
            "ranks</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n",
            job->nranks, jv_html_css);
    fprintf(f,
            "<header class=\"top\"><div class=\"brand\">jarvis-analyze</div><h1>Multi-rank report</h1>"
            "<p class=\"trace\">%d ranks of one job</p>\n",
            job->nranks);
    int64_t ms = job->skew_max;
    int ts = job->straggler;
    fputs("<div class=\"cards\">", f);
    fprintf(f, "<div class=\"card\"><div class=\"k\">Ranks</div><div class=\"v\">%d</div></div>", job->nranks);
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">Collectives matched</div><div class=\"v\">%zu</div>"
            "<div class=\"s\">%zu group(s)</div></div>",
            job->ninst, job->ngroups);
    fprintf(f, "<div class=\"card\"><div class=\"k\">Largest arrival skew</div><div class=\"v\">%s us</div></div>",
            fnum(b1, sizeof b1, ms >= 0 ? ms / 1e3 : NAN, 1));
    if (ts >= 0)
        fprintf(f,
                "<div class=\"card\"><div class=\"k\">Most often last</div><div class=\"v\">rank %d</div>"
                "<div class=\"s\">%zu of %zu collectives</div></div>",
                job->ranks[ts].rank, job->wait[ts].times_last, job->wait[ts].ncoll);
    else
        fputs("<div class=\"card\"><div class=\"k\">Most often last</div><div class=\"v\">-</div></div>", f);
    fputs("</div>\n</header>\n", f);
    html_advice(f, job, rank_dirs);
    fputs("<section id=\"timeline\"><h2>Per-rank GPU timeline</h2>\n", f);
    fprintf(f,
            "<div class=\"legend\"><span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>computation "
            "(upper lane)</span><span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>communication "
            "(lower lane)</span><span class=\"it\"><span class=\"sw\" style=\"background:#eef1f4\"></span>idle</span>"
            "</div>\n",
            COMP_COLOR, COMM_COLOR);
    timeline_svg(f, job);
    fputs("<p class=\"note\">", f);
    jv_html_esc(f, CLOCK_NOTE);
    fputs(" Shade = share of each slice busy.</p>\n</section>\n", f);
    fputs("<section id=\"ranks\"><h2>Ranks</h2><table><tr><th>rank</th><th>trace</th><th class=\"n\">GPU span ms</th>"
          "<th class=\"n\">computation %</th><th class=\"n\">comm ms</th><th class=\"n\">overlapped %</th>"
          "<th class=\"n\">idle %</th><th class=\"n\">host wait ms</th><th class=\"n\">kernel wait ms</th>"
          "<th class=\"n\">other ms</th></tr>\n",
          f);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_view *rv = &job->ranks[r];
        const jv_gpu_timeline *t = &rv->tl;
        fprintf(f, "<tr><td>%d</td><td><a href=\"%s/report.html\" title=\"", rv->rank, rank_dirs[r]);
        jv_html_esc(f, rv->path);
        fputs("\">", f);
        jv_html_esc(f, base_name(rv->path));
        fputs("</a></td>", f);
        cell(f, fnum(b1, sizeof b1, t->total / 1e6, 3));
        cell(f, fnum(b1, sizeof b1, pct((double)t->computation, (double)t->total), 1));
        cell(f, fnum(b1, sizeof b1, t->total_comm / 1e6, 3));
        cell(f,
             fnum(b1, sizeof b1, t->total_comm > 0 ? pct((double)rv->comm_overlapped, (double)t->total_comm) : NAN, 1));
        cell(f, fnum(b1, sizeof b1, pct((double)t->idle, (double)t->total), 1));
        cell(f, fnum(b1, sizeof b1, rv->idle_host / 1e6, 3));
        cell(f, fnum(b1, sizeof b1, rv->idle_kernel / 1e6, 3));
        cell(f, fnum(b1, sizeof b1, rv->idle_other / 1e6, 3));
        fputs("</tr>\n", f);
    }
    fputs("</table><p class=\"note\">Overlapped: share of communication kernel time under a computation kernel. "
          "Idle by HTA's rule, per stream, summed: host wait, kernel wait (gap &lt; 30 ns), other.</p></section>\n",
          f);
    fputs("<section id=\"collectives\"><h2>Collectives per message size</h2><table><tr><th>group</th>"
          "<th>collective</th><th>dtype</th><th class=\"n\">msg MB</th><th class=\"n\">count</th>"
          "<th class=\"n\">comm latency us</th><th class=\"n\">skew us mean</th><th class=\"n\">skew us max</th>"
          "<th class=\"n\">straggler</th><th class=\"n\">algbw GB/s</th><th class=\"n\">busbw GB/s</th></tr>\n",
          f);
    for (size_t i = 0; i < job->nsizes && i < 30; i++) {
        const jv_coll_size *z = &job->sizes[i];
        const jv_coll_inst *in = z->first;
        fputs("<tr><td>", f);
        jv_html_esc(f, job->groups[in->group]);
        fputs("</td><td>", f);
        jv_html_esc(f, sv(in, in->c->name));
        fputs("</td><td>", f);
        jv_html_esc(f, sv(in, in->c->dtype));
        fputs("</td>", f);
        cell(f, fnum(b1, sizeof b1, in->full_bytes / 1048576.0, 3));
        snprintf(b2, sizeof b2, "%zu", z->count);
        cell(f, b2);
        cell(f, fnum(b1, sizeof b1, z->lat_mean, 1));
        cell(f, fnum(b1, sizeof b1, z->skew_mean, 1));
        cell(f, fnum(b1, sizeof b1, z->skew_max, 1));
        snprintf(b3, sizeof b3, "rank %d (%zu)", job->ranks[z->straggler].rank, z->straggler_times);
        cell(f, b3);
        cell(f, fnum(b1, sizeof b1, z->algbw_mean, 2));
        cell(f, fnum(b1, sizeof b1, z->busbw_mean, 2));
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n<section id=\"stragglers\"><h2>Straggler summary</h2><table><tr><th>rank</th>"
          "<th class=\"n\">total wait us</th><th class=\"n\">arrived last</th><th class=\"n\">arrived first</th>"
          "<th class=\"n\">comm kernel us</th></tr>\n",
          f);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_wait *w = &job->wait[r];
        fprintf(f, "<tr><td>%d</td>", job->ranks[r].rank);
        cell(f, fnum(b1, sizeof b1, w->wait_total / 1e3, 1));
        snprintf(b2, sizeof b2, "%zu", w->times_last);
        cell(f, b2);
        snprintf(b2, sizeof b2, "%zu", w->times_first);
        cell(f, b2);
        cell(f, fnum(b1, sizeof b1, w->dur_total / 1e3, 1));
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n<footer>Written by jarvis-analyze. One self-contained file: no script, no network "
          "access.</footer>\n</main>\n</body>\n</html>\n",
          f);
    return jv_out_commit(&o, err);
}
