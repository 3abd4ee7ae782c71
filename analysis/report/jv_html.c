/* jv_html: OUTDIR/report.html, the page people look at: one self-contained
 * HTML5 file (inline CSS and SVG, no script, no external URL) drawn from the
 * digest: header facts, GPU timeline, top ops, roofline, category tables,
 * fusion candidates, layout conversions, the reference trace beside it. */
#include "jv_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jv_html_int.h"
#include "jv_output.h"
#include "jv_quality_md.h"
#include "jv_row_eval.h"
#include "jv_standalone.h"

#define CAT_ROWS    25 /* rows per category table */
#define FUSION_ROWS 15
#define LAYOUT_ROWS 10

/* one colour per category: gemm, convolution, batch norm, elementwise, other */
const char *const jv_html_cat_color[JV_DCAT_COUNT] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#9d9d9d"};

/* 1 when OUTDIR/rel exists (links point only at files that were written). */
static int exists(const char *outdir, const char *rel) {
    char p[4096];
    struct stat st;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", outdir, rel) >= sizeof p) return 0;
    return stat(p, &st) == 0;
}

/* A link to OUTDIR/rel when it exists, else the label as plain text. */
static void link(FILE *f, const char *outdir, const char *rel, const char *label) {
    if (exists(outdir, rel)) {
        fputs("<a href=\"", f);
        jv_html_esc(f, rel);
        fputs("\">", f);
        jv_html_esc(f, label);
        fputs("</a>", f);
    } else {
        jv_html_esc(f, label);
    }
}

/* ---------- page frame ---------- */

const char jv_html_css[] =
    ":root{--fg:#1d2530;--muted:#5b6675;--line:#e2e6eb;--bg:#f4f6f8;--card:#fff;--accent:#2f6fae}\n"
    "*{box-sizing:border-box}\n"
    "html{-webkit-text-size-adjust:100%}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
    "\"Helvetica Neue\",Arial,\"Noto Sans\",\"Liberation Sans\",\"DejaVu Sans\",sans-serif}\n"
    "main{max-width:1100px;margin:0 auto;padding:24px 20px 40px}\n"
    "a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}\n"
    "header.top{padding:4px 0 14px}\n"
    ".brand{font-size:12px;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}\n"
    "h1{font-size:26px;margin:2px 0 2px;font-weight:650}\n"
    ".trace{font-size:15px;color:var(--muted);margin:0 0 12px;word-break:break-all}\n"
    "h2{font-size:18px;margin:0 0 10px;font-weight:650}\n"
    "h3{font-size:15px;margin:18px 0 6px;font-weight:650}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 19px;margin:16px 0}\n"
    "dl.facts{display:grid;grid-template-columns:170px 1fr;gap:3px 14px;margin:0;font-size:13.5px}\n"
    "dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}\n"
    ".cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:14px 0 0}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px}\n"
    ".card .k{font-size:12px;color:var(--muted)}.card .v{font-size:22px;font-weight:650}"
    ".card .s{font-size:12px;color:var(--muted)}\n"
    "nav.toc{font-size:13px;margin:10px 0 0}nav.toc a{margin-right:14px}\n"
    "p.note{color:var(--muted);font-size:13px;margin:6px 0}\n"
    "table{border-collapse:collapse;width:100%;font-size:12.5px;margin:4px 0 6px}\n"
    "th,td{padding:4px 7px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
    "th{color:var(--muted);font-weight:600;background:#fafbfc;white-space:nowrap}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.total td{font-weight:600;border-top:1px solid #c9d0d8}\n"
    "table.fixed{table-layout:fixed}table.fixed td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    "table.fixed th{white-space:normal;vertical-align:bottom}\n"
    ".mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"Liberation Mono\",\"DejaVu Sans Mono\",monospace;"
    "font-size:11.5px}\n"
    ".legend{font-size:12.5px;margin:6px 0 2px}.legend span.it{margin-right:16px;white-space:nowrap}\n"
    ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}\n"
    ".band{display:inline-block;padding:0 6px;border-radius:9px;font-size:11px;white-space:nowrap}\n"
    ".band.excellent{background:#dcefdc;color:#23632b}.band.good{background:#e6f0d6;color:#4a6317}"
    ".band.acceptable{background:#fbedd0;color:#7a5410}.band.investigate{background:#f8dcdc;color:#8a2424}\n"
    "svg{display:block;max-width:100%;height:auto;font-family:inherit}\n"
    "svg text{font-size:12px;fill:#1d2530}svg .ax{font-size:11.5px;fill:#5b6675}\n"
    "svg text.halo{paint-order:stroke;stroke:#fcfdfe;stroke-width:3px;stroke-linejoin:round}\n"
    ".cols{display:grid;grid-template-columns:1fr 1fr;gap:16px}\n"
    "ul.outs{margin:4px 0;padding-left:20px}\n"
    "footer{color:var(--muted);font-size:12px;text-align:center;margin-top:20px}\n";

/* ---------- header ---------- */

/* The distinct compute specs of rows [0, n) that have one (at most max). */
static int specs_of(const jv_digest *d, size_t n, const char **out, int max) {
    int k = 0;
    for (size_t i = 0; i < n && i < d->nrows; i++) {
        const char *s = d->rows[i].spec;
        if (!s[0]) continue;
        int seen = 0;
        for (int j = 0; j < k; j++)
            if (!strcmp(out[j], s)) seen = 1;
        if (!seen && k < max) out[k++] = s;
    }
    return k;
}

/* the trace-quality line of the facts (jv_quality_md.h): the modelled share, then each nonzero count */
static void write_quality(FILE *f, const jv_digest *d) {
    const jv_trace_quality *q = &d->quality;
    jv_qline ls[JV_QLINES_MAX];
    int n = jv_quality_lines(d, ls);
    char b1[64];
    fprintf(f,
            "<dl class=\"facts\" id=\"trace-quality\">\n<dt>Trace quality</dt><dd>%llu of %zu rows modelled (%s %% of "
            "kernel time)",
            (unsigned long long)q->unmodelled[JV_NOMODEL_NONE].n, d->nrows,
            jv_html_fnum(b1, sizeof b1, jv_html_pct_of(q->unmodelled[JV_NOMODEL_NONE].us, d->total_us), 1));
    if (!n) fputs("; no issue found", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s%llu", i ? "; " : ". ", (unsigned long long)ls[i].n);
        if (ls[i].of) fprintf(f, " of %llu", (unsigned long long)ls[i].of);
        fputc(' ', f);
        jv_html_esc(f, ls[i].what);
        if (isfinite(ls[i].us) && ls[i].us > 0) fprintf(f, ", %s ms of GPU time", jv_html_fms(b1, sizeof b1, ls[i].us));
        fputs(" <span class=\"note\">(", f);
        jv_html_esc(f, ls[i].means);
        fputs(")</span>", f);
    }
    fputs("</dd>\n</dl>\n", f);
}

/* the fair report's first three recommendations, as it states them, on the first screen */
static void write_recs(FILE *f, const jv_digest *d) {
    jv_rec_text r[3];
    int n = jv_standalone_recs(d, r, 3);
    fputs("<section id=\"recommendations\"><h2>Top recommendations</h2>\n", f);
    if (!n) {
        fputs("<p>No issue with a projected saving was found.</p>\n</section>\n", f);
        return;
    }
    fputs("<ol class=\"recs\">\n", f);
    for (int i = 0; i < n; i++)
        jv_html_rec(f, &r[i], 0);
    fputs("</ol>\n<p class=\"note\">All of them, ranked, with their evidence: <a "
          "href=\"standalone_analysis_fair.md\">standalone_analysis_fair.md</a>.</p>\n</section>\n",
          f);
}

static void write_header(FILE *f, const jv_digest *d, const jv_digest *ref) {
    char b1[64], b2[64];
    fputs("<header class=\"top\"><div class=\"brand\">jarvis-analyze</div><h1>GPU performance report</h1>"
          "<p class=\"trace\">",
          f);
    jv_html_esc(f, d->trace_name);
    fputs("</p>\n<dl class=\"facts\">\n<dt>Device</dt><dd>", f);
    if (d->device && d->device[0])
        jv_html_esc(f, d->device);
    else
        fputs("unknown (no deviceProperties in the trace)", f);
    if (d->devices_with_gpu > 1) fprintf(f, " (%d devices with GPU work, merged)", d->devices_with_gpu);
    fputs("</dd>\n<dt>Roofline GPU</dt><dd>", f);
    if (d->has_hw) {
        fputs("<b>", f);
        jv_html_esc(f, d->hw.name);
        fprintf(f, "</b> &middot; HBM %s GB/s", jv_html_fnum(b1, sizeof b1, d->hw.mem_bw_gbps, 0));
        if (d->hw_why && d->hw_why[0]) {
            fputs(" &middot; <span class=\"note\">", f);
            jv_html_esc(f, d->hw_why);
            fputs("</span>", f);
        }
    } else {
        fputs("none: ", f);
        jv_html_esc(f, d->hw_why && d->hw_why[0] ? d->hw_why : "no GPU matched");
        fputs(" (pass <span class=\"mono\">--gpu-arch NAME</span> for the roofline)", f);
    }
    fputs("</dd>\n", f);
    if (d->has_hw) {
        const char *sp[MAX_SPECS];
        int ns = specs_of(d, d->nrows, sp, MAX_SPECS);
        fputs("<dt>Peaks used</dt><dd>", f);
        int any = 0;
        for (int i = 0; i < ns; i++) {
            double p = jv_hw_peak(&d->hw, sp[i]);
            if (!isfinite(p)) continue;
            fprintf(f, "%s<span class=\"mono\">", any ? "; " : "");
            jv_html_esc(f, sp[i]);
            fprintf(f, "</span> %s TFLOP/s", jv_html_frate(b1, sizeof b1, p));
            any = 1;
        }
        if (!any)
            fputs("none (no op with a compute spec)</dd>\n", f);
        else
            fprintf(f, "%s</dd>\n", d->hw.roof_is_max_achievable ? " (max achievable)" : " (datasheet)");
    }
    char pol[1024];
    fputs("<dt>Peak policy</dt><dd class=\"policy\">", f);
    jv_html_esc(f, jv_peak_policy_text(pol, sizeof pol, d, ref) + strlen("Peak policy: "));
    fputs("</dd>\n", f);
    fprintf(f, "<dt>GPU time</dt><dd>%s ms on the GPU timeline; %s ms of kernel time in %zu ops</dd>\n</dl>\n",
            jv_html_fms(b1, sizeof b1, (double)d->tl.total / 1e3), jv_html_fms(b2, sizeof b2, d->total_us), d->nrows);
    write_quality(f, d);

    /* four headline numbers */
    int top = 0;
    for (int c = 1; c < JV_DCAT_COUNT; c++)
        if (d->cat_us[c] > d->cat_us[top]) top = c;
    fputs("<div class=\"cards\">", f);
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">GPU timeline</div><div class=\"v\">%s ms</div>"
            "<div class=\"s\">first to last GPU event</div></div>",
            jv_html_fms(b1, sizeof b1, (double)d->tl.total / 1e3));
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">Computation</div><div class=\"v\">%s %%</div>"
            "<div class=\"s\">of the timeline (&gt; 95 %% is the goal)</div></div>",
            jv_html_fnum(b1, sizeof b1, jv_html_pct_of((double)d->tl.computation, (double)d->tl.total), 1));
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">Idle</div><div class=\"v\">%s %%</div>"
            "<div class=\"s\">%s ms with no GPU work</div></div>",
            jv_html_fnum(b1, sizeof b1, jv_html_pct_of((double)d->tl.idle, (double)d->tl.total), 1),
            jv_html_fms(b2, sizeof b2, (double)d->tl.idle / 1e3));
    fprintf(f, "<div class=\"card\"><div class=\"k\">Largest category</div><div class=\"v\">");
    if (d->total_us > 0) {
        jv_html_esc(f, jv_dcat_title((jv_dcat)top));
        fprintf(f, "</div><div class=\"s\">%s %% of kernel time</div></div>",
                jv_html_fnum(b1, sizeof b1, jv_html_pct_of(d->cat_us[top], d->total_us), 1));
    } else {
        fputs("&ndash;</div><div class=\"s\">no kernel time</div></div>", f);
    }
    fputs("</div>\n</header>\n", f);
}

/* ---------- category tables ---------- */

static void band_cell(FILE *f, double pct) {
    const char *b = jv_efficiency_band(pct);
    if (b[0])
        fprintf(f, "<td><span class=\"band %s\">%s</span></td>", b, b);
    else
        fputs("<td></td>", f);
}

static void write_categories(FILE *f, const jv_digest *d, const char *outdir) {
    char b1[64], b2[64], b3[64];
    fputs("<section id=\"categories\"><h2>Categories</h2>\n<table><thead><tr><th>Category</th><th class=\"n\">Rows</th>"
          "<th class=\"n\">Kernel time (ms)</th><th class=\"n\">Share</th><th style=\"width:40%\"></th><th>Findings"
          "</th></tr></thead><tbody>\n",
          f);
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        double p = jv_html_pct_of(d->cat_us[c], d->total_us);
        fprintf(f,
                "<tr class=\"cat-total\" data-cat=\"%s\" data-us=\"%s\"><td><span class=\"sw\" "
                "style=\"background:%s\"></span>",
                jv_dcat_name((jv_dcat)c), jv_html_frt(b3, sizeof b3, d->cat_us[c]), jv_html_cat_color[c]);
        jv_html_esc(f, jv_dcat_title((jv_dcat)c));
        fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td>", d->cat_rows[c],
                jv_html_fms(b1, sizeof b1, d->cat_us[c]), jv_html_fnum(b2, sizeof b2, p, 1));
        fprintf(f,
                "<td><svg width=\"300\" height=\"12\" viewBox=\"0 0 300 12\"><rect x=\"0\" y=\"1\" width=\"%.1f\" "
                "height=\"10\" rx=\"2\" fill=\"%s\"/></svg></td><td>",
                3 * p, jv_html_cat_color[c]);
        if (c != JV_DCAT_OTHER) {
            char rel[128];
            snprintf(rel, sizeof rel, "category_findings/%s_findings.md", jv_dcat_name((jv_dcat)c));
            if (exists(outdir, rel)) link(f, outdir, rel, rel);
        }
        fputs("</td></tr>\n", f);
    }
    fprintf(f,
            "<tr class=\"total\"><td>All</td><td class=\"n\">%zu</td><td class=\"n\">%s</td><td class=\"n\">100 %%"
            "</td><td></td><td></td></tr>\n</tbody></table>\n",
            d->nrows, jv_html_fms(b1, sizeof b1, d->total_us));

    /* the elementwise baseline of this trace */
    const jv_dbaseline *bl = &d->baseline;
    fputs("<p class=\"note\"><b>Elementwise baseline of this trace</b>: ", f);
    if (bl->state == JV_BASE_OK) {
        fprintf(f,
                "%s TB/s (all bytes over all kernel time of %u simple add/mul/copy rows, %llu calls, each moving at "
                "least 1 MiB per call",
                jv_html_frate(b1, sizeof b1, bl->tbs), bl->rows, (unsigned long long)bl->calls);
        jv_print_baseline_transfers(f, d);
        fputs(")", f);
        if (d->has_hw && d->hw.mem_bw_gbps > 0)
            fprintf(f, ", %s %% of the HBM bandwidth",
                    jv_html_fnum(b2, sizeof b2, jv_html_pct_of(bl->tbs * 1e3, d->hw.mem_bw_gbps), 1));
        fputs(". What simple ops reach on this GPU in this run: the yardstick for memory-bound ops.", f);
    } else {
        jv_print_no_baseline(f, d);
        fputs(".", f);
    }
    fputs("</p>\n", f);

    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        if (!d->cat_rows[c]) continue;
        fprintf(f, "<h3 id=\"cat-%s\"><span class=\"sw\" style=\"background:%s\"></span>", jv_dcat_name((jv_dcat)c),
                jv_html_cat_color[c]);
        jv_html_esc(f, jv_dcat_title((jv_dcat)c));
        fprintf(f, " <span class=\"note\">&middot; %s ms &middot; %s %% of kernel time &middot; %u rows</span></h3>\n",
                jv_html_fms(b1, sizeof b1, d->cat_us[c]),
                jv_html_fnum(b2, sizeof b2, jv_html_pct_of(d->cat_us[c], d->total_us), 1), d->cat_rows[c]);
        fputs("<table class=\"fixed\"><colgroup><col style=\"width:38px\"><col style=\"width:250px\"><col>"
              "<col style=\"width:52px\"><col style=\"width:76px\"><col style=\"width:60px\"><col style=\"width:68px\">"
              "<col style=\"width:74px\"><col style=\"width:92px\"><col style=\"width:92px\"></colgroup>\n"
              "<thead><tr><th class=\"n\">#</th><th>Op</th><th>Shapes</th><th class=\"n\">Calls</th>"
              "<th class=\"n\">Time (ms)</th><th class=\"n\">Share</th><th class=\"n\">TB/s</th>"
              "<th class=\"n\">TFLOP/s</th><th class=\"n\">% of roofline</th><th>Band</th></tr></thead><tbody>\n",
              f);
        size_t shown = 0;
        double rest_us = 0;
        for (size_t i = 0; i < d->nrows; i++) {
            const jv_drow *r = &d->rows[i];
            if ((int)r->cat != c) continue;
            if (shown == CAT_ROWS) {
                rest_us += r->time_us;
                continue;
            }
            shown++;
            fprintf(f, "<tr><td class=\"n\">%zu</td><td title=\"", i + 1);
            jv_html_esc(f, r->name);
            if (r->nkernels > 0) {
                fputs("&#10;kernel: ", f);
                jv_html_esc(f, r->kernels[0].name);
            }
            fputs("\">", f);
            jv_html_label(f, r->name, 60);
            fputs("</td><td class=\"mono\" title=\"", f);
            jv_html_esc(f, r->dims);
            if (r->types[0]) {
                fputs("&#10;", f);
                jv_html_esc(f, r->types);
            }
            fputs("\">", f);
            jv_html_esc_cut(f, r->dims, 80);
            fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td>", r->count,
                    jv_html_fms(b1, sizeof b1, r->time_us), jv_html_fnum(b2, sizeof b2, r->percent, 1));
            fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>",
                    jv_html_frate(b1, sizeof b1, r->tbs), jv_html_frate(b2, sizeof b2, r->tflops),
                    jv_html_fnum(b3, sizeof b3, r->pct, 1));
            band_cell(f, r->pct);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
        if (d->cat_rows[c] > shown) {
            fprintf(f, "<p class=\"note\">and %zu more rows (%s ms)", (size_t)d->cat_rows[c] - shown,
                    jv_html_fms(b1, sizeof b1, rest_us));
            char rel[128];
            snprintf(rel, sizeof rel, "category_data/%s_ops.csv", jv_dcat_name((jv_dcat)c));
            if (exists(outdir, rel)) {
                fputs(": all of them in ", f);
                link(f, outdir, rel, rel);
            } else {
                fputs(": all of them in ", f);
                link(f, outdir, "perf_report_csvs/unified_perf_summary.csv",
                     "perf_report_csvs/unified_perf_summary.csv");
            }
            fputs(".</p>\n", f);
        }
    }
    fputs("<p class=\"note\">TB/s and TFLOP/s: achieved, mean over the calls, from the op's FLOPs/bytes model and its "
          "kernel time. % of roofline: the roofline time over the kernel time; bands &gt; 80 % excellent, 60-80 good, "
          "40-60 acceptable, &lt; 40 investigate (against the peak policy's peaks, stated at the top). Empty where "
          "the op has no model or no roofline GPU is known. Units: <span class=\"mono\">Data Moved (MB)</span> in "
          "perf_report and category_data holds MiB (2<sup>20</sup> bytes), as TraceLens writes it; TB/s and GB/s are "
          "decimal (10<sup>12</sup>, 10<sup>9</sup> bytes/s).</p>\n"
          "</section>\n",
          f);
}

/* ---------- fusion candidates and layout conversions ---------- */

static void write_fusion(FILE *f, const jv_digest *d) {
    char b1[64], b2[64], b3[64];
    fputs("<section id=\"fusion\"><h2>Fusion candidates</h2>\n", f);
    if (!d->nfusion) {
        fputs("<p class=\"note\">None: no module instance or parent op runs two or more elementwise kernels per "
              "instance on average.</p></section>\n",
              f);
        return;
    }
    fputs(
        "<table class=\"fixed\"><colgroup><col style=\"width:190px\"><col style=\"width:112px\">"
        "<col style=\"width:74px\"><col style=\"width:84px\"><col style=\"width:70px\"><col style=\"width:86px\">"
        "<col style=\"width:58px\"><col style=\"width:84px\"><col style=\"width:76px\"><col></colgroup>\n"
        "<thead><tr><th>Module or parent op</th><th>Found through</th><th class=\"n\">Instances</th>"
        "<th class=\"n\">Elementwise kernels</th><th class=\"n\">Per instance</th><th class=\"n\">Elementwise (ms)</th>"
        "<th class=\"n\">Share</th><th class=\"n\">All kernels (ms)</th><th class=\"n\">Example UID</th>"
        "<th>Elementwise ops</th></tr></thead><tbody>\n",
        f);
    for (size_t i = 0; i < d->nfusion && i < FUSION_ROWS; i++) {
        const jv_dfusion *u = &d->fusion[i];
        fputs("<tr><td title=\"", f);
        jv_html_esc(f, u->name);
        fputs("\">", f);
        jv_html_esc_cut(f, u->name, 40);
        fprintf(f, "</td><td>%s</td><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%s</td>",
                u->from_module ? "nn.Module" : "parent op", u->instances, u->ew_kernels,
                jv_html_fnum(b1, sizeof b1, u->instances ? (double)u->ew_kernels / u->instances : NAN, 1));
        fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s %%</td><td class=\"n\">%s</td><td class=\"n\">%u</td>",
                jv_html_fms(b1, sizeof b1, u->ew_us),
                jv_html_fnum(b2, sizeof b2, jv_html_pct_of(u->ew_us, d->total_us), 1),
                jv_html_fms(b3, sizeof b3, u->total_us), u->example_uid);
        fputs("<td class=\"mono\" title=\"", f);
        jv_html_esc(f, u->ops);
        fputs("\">", f);
        jv_html_esc_cut(f, u->ops, 60);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (d->nfusion > FUSION_ROWS)
        fprintf(f, "<p class=\"note\">and %zu more candidates (see the elementwise findings).</p>\n",
                d->nfusion - FUSION_ROWS);
    fputs("<p class=\"note\">Instances whose work is many small elementwise kernels: a fused kernel would read and "
          "write the data once. The elementwise time is the upper bound of what fusion saves (the fused kernel still "
          "moves its bytes once). <span class=\"mono\">jarvis-analyze TRACE --call-stack UID</span> shows an "
          "instance's kernels.</p>\n</section>\n",
          f);
}

static void write_layout(FILE *f, const jv_digest *d) {
    char b1[64], b2[64], b3[64], b4[64];
    double lay = 0;
    size_t nl = 0;
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].cat == JV_DCAT_CONV && d->rows[i].layout_us > 0) lay += d->rows[i].layout_us, nl++;
    fputs("<section id=\"layout\"><h2>Layout conversions</h2>\n", f);
    if (!d->cat_rows[JV_DCAT_CONV]) {
        fputs("<p class=\"note\">No convolution in this trace.", f);
    } else {
        fprintf(f,
                "<p class=\"layout-sum\" data-us=\"%s\">Layout-conversion kernels (transposes, NCHW&harr;NHWC) "
                "inside convolution ops: <b>%s ms</b>, %s %% of the convolution time (%s ms), in %zu of %u "
                "convolution rows.",
                jv_html_frt(b3, sizeof b3, lay), jv_html_fms(b1, sizeof b1, lay),
                jv_html_fnum(b2, sizeof b2, jv_html_pct_of(lay, d->cat_us[JV_DCAT_CONV]), 1),
                jv_html_fms(b4, sizeof b4, d->cat_us[JV_DCAT_CONV]), nl, d->cat_rows[JV_DCAT_CONV]);
        if (lay > 0)
            fputs(" They convert between the model's memory format and the one the convolution kernels use; with "
                  "channels_last tensors (NHWC) they usually disappear.",
                  f);
    }
    if (d->layout_outside_us > 0)
        fprintf(f, " Outside convolutions: %s ms of layout-conversion kernels.",
                jv_html_fms(b1, sizeof b1, d->layout_outside_us));
    fputs("</p>\n", f);
    if (nl) {
        fputs("<table><thead><tr><th class=\"n\">#</th><th>Convolution op</th><th>Shapes</th>"
              "<th class=\"n\">Time (ms)</th><th class=\"n\">Layout (ms)</th><th class=\"n\">Layout share</th>"
              "<th>Layout kernel</th></tr></thead><tbody>\n",
              f);
        size_t shown = 0;
        for (size_t i = 0; i < d->nrows && shown < LAYOUT_ROWS; i++) {
            const jv_drow *r = &d->rows[i];
            if (r->cat != JV_DCAT_CONV || !(r->layout_us > 0)) continue;
            shown++;
            fprintf(f, "<tr><td class=\"n\">%zu</td><td title=\"", i + 1);
            jv_html_esc(f, r->name);
            fputs("\">", f);
            jv_html_label(f, r->name, 36);
            fputs("</td><td class=\"mono\" title=\"", f);
            jv_html_esc(f, r->dims);
            fputs("\">", f);
            jv_html_esc_cut(f, r->dims, 36);
            fprintf(f,
                    "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td><td class=\"mono\"",
                    jv_html_fms(b1, sizeof b1, r->time_us), jv_html_fms(b2, sizeof b2, r->layout_us),
                    jv_html_fnum(b3, sizeof b3, jv_html_pct_of(r->layout_us, r->time_us), 1));
            const char *kn = "";
            for (int k = 0; k < r->nkernels; k++)
                if (r->kernels[k].layout) {
                    kn = r->kernels[k].name;
                    break;
                }
            fputs(" title=\"", f);
            jv_html_esc(f, kn);
            fputs("\">", f);
            jv_html_label(f, kn, 40);
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
        if (nl > shown) fprintf(f, "<p class=\"note\">and %zu more rows with layout kernels.</p>\n", nl - shown);
    }
    fputs("</section>\n", f);
}

/* ---------- the reference trace ---------- */

static void write_compare(FILE *f, const jv_digest *d, const jv_digest *ref, const char *outdir) {
    char b1[64], b2[64], b3[64];
    const jv_digest *dd[2] = {d, ref};
    fputs("<section id=\"compare\"><h2>Target and reference</h2>\n<table><thead><tr><th></th><th>Target</th>"
          "<th>Reference</th></tr></thead><tbody>\n<tr><td>Trace</td>",
          f);
    for (int k = 0; k < 2; k++) {
        fputs("<td class=\"mono\">", f);
        jv_html_esc(f, dd[k]->trace_name);
        fputs("</td>", f);
    }
    fputs("</tr>\n<tr><td>Device</td>", f);
    for (int k = 0; k < 2; k++) {
        fputs("<td>", f);
        jv_html_esc(f, dd[k]->device && dd[k]->device[0] ? dd[k]->device : "unknown");
        fputs("</td>", f);
    }
    fputs("</tr>\n<tr><td>Roofline GPU</td>", f);
    for (int k = 0; k < 2; k++) {
        fputs("<td>", f);
        if (dd[k]->has_hw) {
            jv_html_esc(f, dd[k]->hw.name);
            fprintf(f, " (HBM %s GB/s)", jv_html_fnum(b1, sizeof b1, dd[k]->hw.mem_bw_gbps, 0));
        } else {
            fputs("none", f);
        }
        fputs("</td>", f);
    }
    fputs("</tr>\n<tr><td>GPU timeline</td>", f);
    for (int k = 0; k < 2; k++)
        fprintf(f, "<td>%s ms</td>", jv_html_fms(b1, sizeof b1, (double)dd[k]->tl.total / 1e3));
    fputs("</tr>\n<tr><td>Kernel time</td>", f);
    for (int k = 0; k < 2; k++)
        fprintf(f, "<td class=\"cmp-ktime\" data-us=\"%s\">%s ms (%zu ops)</td>",
                jv_html_frt(b2, sizeof b2, dd[k]->total_us), jv_html_fms(b1, sizeof b1, dd[k]->total_us), dd[k]->nrows);
    fputs("</tr>\n</tbody></table>\n<h3>GPU timeline</h3>\n", f);
    fprintf(f,
            "<svg id=\"cmp-tl-svg\" width=\"%d\" height=\"92\" viewBox=\"0 0 %d 92\" role=\"img\" "
            "aria-label=\"GPU timeline of both traces\">\n",
            SVG_W, SVG_W);
    static const char *const who[2] = {"Target", "Reference"};
    for (int k = 0; k < 2; k++) {
        double y = 6 + 44.0 * k;
        fprintf(f,
                "<text x=\"0\" y=\"%.0f\" style=\"font-weight:600\">%s</text><text class=\"ax\" x=\"0\" "
                "y=\"%.0f\">%s ms</text>\n",
                y + 14, who[k], y + 29, jv_html_fms(b1, sizeof b1, (double)dd[k]->tl.total / 1e3));
        if (dd[k]->tl.total > 0)
            jv_html_tl_bar(f, &dd[k]->tl, 110, y, SVG_W - 110, 34, k ? "cmp-tl-ref" : "cmp-tl-target");
    }
    fputs("</svg>\n", f);
    for (int k = 0; k < 2; k++) {
        fprintf(f, "<div class=\"legend\"><b>%s</b>: ", who[k]);
        int64_t v[4];
        jv_html_tl_parts(&dd[k]->tl, v);
        for (int i = 0; i < 4; i++)
            fprintf(f, "<span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>%s %s ms (%s %%)</span>",
                    jv_html_tl_color[i], jv_html_tl_title[i], jv_html_fnum(b1, sizeof b1, (double)v[i] / 1e6, 3),
                    jv_html_fnum(b2, sizeof b2, jv_html_pct_of((double)v[i], (double)dd[k]->tl.total), 1));
        fputs("</div>\n", f);
    }
    fputs("<h3>Categories</h3>\n<table><thead><tr><th>Category</th><th class=\"n\">Target (ms)</th>"
          "<th class=\"n\">Share</th><th class=\"n\">Reference (ms)</th><th class=\"n\">Share</th>"
          "<th class=\"n\">Target / reference</th></tr></thead><tbody>\n",
          f);
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        fputs("<tr><td>", f);
        jv_html_esc(f, jv_dcat_title((jv_dcat)c));
        fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td>", jv_html_fms(b1, sizeof b1, d->cat_us[c]),
                jv_html_fnum(b2, sizeof b2, jv_html_pct_of(d->cat_us[c], d->total_us), 1));
        fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s %%</td><td class=\"n\">%s</td></tr>\n",
                jv_html_fms(b1, sizeof b1, ref->cat_us[c]),
                jv_html_fnum(b2, sizeof b2, jv_html_pct_of(ref->cat_us[c], ref->total_us), 1),
                ref->cat_us[c] > 0 ? jv_html_fnum(b3, sizeof b3, d->cat_us[c] / ref->cat_us[c], 2) : "\xe2\x80\x93");
    }
    fprintf(f,
            "<tr class=\"total\"><td>All</td><td class=\"n\">%s</td><td class=\"n\">100 %%</td><td class=\"n\">%s"
            "</td><td class=\"n\">100 %%</td><td class=\"n\">%s</td></tr>\n</tbody></table>\n",
            jv_html_fms(b1, sizeof b1, d->total_us), jv_html_fms(b2, sizeof b2, ref->total_us),
            ref->total_us > 0 ? jv_html_fnum(b3, sizeof b3, d->total_us / ref->total_us, 2) : "\xe2\x80\x93");
    fputs("<p class=\"note\">Per-op matching across the two traces, deltas and what the hardware ratio leads one to "
          "expect: ",
          f);
    link(f, outdir, "comparative_analysis_fair.md", "comparative_analysis_fair.md");
    fputs(" (process and raw tables: ", f);
    link(f, outdir, "comparative_analysis_rough.md", "comparative_analysis_rough.md");
    fputs(").</p>\n</section>\n", f);
}

/* ---------- links to the other outputs ---------- */

static void write_outputs(FILE *f, const char *outdir) {
    static const char *const outs[][2] = {
        {"standalone_analysis_fair.md", "the standalone report: summary, recommendations, detail"},
        {"standalone_analysis_rough.md", "the working notes: process, raw tables, calculations"},
        {"comparative_analysis_fair.md", "the comparison with the reference trace"},
        {"comparative_analysis_rough.md", "the comparison's working notes"},
        {"category_findings/gemm_findings.md", "GEMM findings"},
        {"category_findings/convolution_findings.md", "convolution findings"},
        {"category_findings/batchnorm_findings.md", "batch norm findings"},
        {"category_findings/elementwise_findings.md", "elementwise findings"},
        {"perf_report.xlsx", "the perf report workbook (TraceLens' sheets)"},
        {"perf_report_csvs/unified_perf_summary.csv", "the unified perf summary as CSV (one file per sheet there)"},
        {"replay_package.zip", "the replay package: jarvis-replay replay_package.zip --op N"},
    };
    fputs("<section id=\"outputs\"><h2>Other outputs</h2>\n<ul class=\"outs\">\n", f);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        if (!exists(outdir, outs[i][0])) continue;
        fputs("<li>", f);
        link(f, outdir, outs[i][0], outs[i][0]);
        fputs(" &ndash; ", f);
        jv_html_esc(f, outs[i][1]);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n<p class=\"note\">Files next to this page. What a trace cannot show (occupancy, cache behaviour, "
          "memory access patterns) needs a profiler: replay an op from the package under Nsight Compute or "
          "rocprof.</p>\n</section>\n",
          f);
}

/* ---------- the page ---------- */

jv_status jv_html_write(const jv_digest *d, const jv_digest *ref, const char *outdir, jv_err *err) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/report.html", outdir) >= sizeof path)
        JV_FAIL(err, JV_ERR_USAGE, "%s: output directory name too long", outdir);
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>GPU performance report: ",
          f);
    jv_html_esc(f, d->trace_name);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", jv_html_css);
    write_header(f, d, ref);
    write_recs(f, d);
    fputs("<nav class=\"toc\"><a href=\"#recommendations\">Recommendations</a><a href=\"#timeline\">Timeline</a><a "
          "href=\"#top-ops\">Top ops</a>"
          "<a href=\"#roofline\">Roofline</a><a href=\"#categories\">Categories</a><a href=\"#fusion\">Fusion</a>"
          "<a href=\"#layout\">Layout</a>",
          f);
    if (ref) fputs("<a href=\"#compare\">Reference</a>", f);
    fputs("<a href=\"#outputs\">Other outputs</a></nav>\n", f);
    jv_html_write_timeline(f, d);
    jv_html_write_top(f, d);
    jv_html_write_roofline(f, d);
    write_categories(f, d, outdir);
    write_fusion(f, d);
    write_layout(f, d);
    if (ref) write_compare(f, d, ref, outdir);
    write_outputs(f, outdir);
    fputs("<footer>Written by jarvis-analyze from ", f);
    jv_html_esc(f, d->trace_name);
    fputs(". One self-contained file: no script, no network access.</footer>\n</main>\n</body>\n</html>\n", f);
    return jv_out_commit(&o, err);
}
