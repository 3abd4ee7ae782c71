/* jv_fleet_out: the fleet report as JSON, markdown and a console summary (jv_fleet.h). Printers only: every
 * figure comes from jv_fleet_analyze. Units: bandwidth GB/s (1e9 bytes/s), GEMM TFLOP/s, op times us. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_escape.h"
#include "jv_fleet.h"
#include "jv_output.h"

#define JV_FLEET_MD_RANK_COLUMNS 16 /* fleet.md shows each op's time per rank up to this many ranks */

#define BAND_RULE                                                                                                      \
    "a rank is flagged on a metric when its value is more than exp(h) times above or below the median, "               \
    "h = max(k * MAD(ln), ln(1 + min_band)), MAD(ln) the median of |ln(value / median)| over the ranks that "          \
    "measured it (at least 3)"

/* the unit a metric is printed in, and the factor from its stored value (bytes/s, FLOP/s, seconds) */
static const char *unit_of(int kind, double *scale) {
    switch (kind) {
    case JV_FM_BW: *scale = 1e-9; return "GB/s";
    case JV_FM_FLOPS: *scale = 1e-12; return "TFLOP/s";
    default: *scale = 1e6; return "us";
    }
}

/* value / median as "how many times slower": a time over its median, a rate's median over it */
static double slowness(const jv_fleet_metric *m, double v) {
    if (!(v > 0) || !(m->median > 0)) return NAN;
    return m->kind == JV_FM_TIME ? v / m->median : m->median / v;
}

static cJSON *num_or_null(double v) {
    return isnan(v) || isinf(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static void add_num(cJSON *o, const char *k, double v) {
    cJSON_AddItemToObject(o, k, num_or_null(v));
}

static cJSON *rank_json(const jv_fleet *f, int r) {
    const jv_fleet_rank *x = &f->ranks[r];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", r);
    cJSON_AddStringToObject(o, "host", x->host);
    cJSON_AddNumberToObject(o, "local_rank", x->local_rank);
    cJSON_AddNumberToObject(o, "device", x->device);
    cJSON_AddStringToObject(o, "device_name", x->device_name);
    cJSON_AddStringToObject(o, "backend", x->backend);
    cJSON_AddStringToObject(o, "driver", x->driver);
    cJSON_AddStringToObject(o, "arch", x->arch);
    cJSON_AddStringToObject(o, "uuid", x->uuid);
    cJSON_AddStringToObject(o, "pci", x->pci);
    if (f->same_gpu[r] >= 0) cJSON_AddNumberToObject(o, "same_gpu_as_rank", f->same_gpu[r]);
    cJSON_AddBoolToObject(o, "is_gpu", x->is_gpu);
    cJSON_AddNumberToObject(o, "compute_units", x->compute_units);
    cJSON_AddStringToObject(o, "cpus", x->cpus);
    cJSON_AddStringToObject(o, "state", jv_fleet_state_str((jv_fleet_state)x->state));
    cJSON_AddNumberToObject(o, "exit_status", x->rc);
    cJSON_AddStringToObject(o, "error", x->error);
    add_num(o, "wall_s", x->wall_s);
    if (x->test_extra) cJSON_AddNumberToObject(o, "test_extra_runs", x->test_extra);
    cJSON *b = cJSON_AddObjectToObject(o, "baseline_GBps");
    for (int k = 0; k < JV_BASE_COUNT; k++)
        add_num(b, jv_base_name((jv_base_kernel)k), x->base_done && x->bw[k] > 0 ? x->bw[k] * 1e-9 : NAN);
    cJSON *g = cJSON_AddObjectToObject(o, "gemm");
    cJSON_AddStringToObject(g, "dtype", x->gemm_dtype);
    cJSON_AddNumberToObject(g, "n", (double)x->gemm_n);
    add_num(g, "tflops", x->gemm_done ? x->gemm_flops * 1e-12 : NAN);
    add_num(o, "op_time_vs_median", f->score[r]);
    cJSON *slow = cJSON_AddArrayToObject(o, "slow_on"), *fast = cJSON_AddArrayToObject(o, "fast_on");
    for (int i = 0; i < f->nmetrics; i++) {
        if (f->m[i].flag[r] > 0) cJSON_AddItemToArray(slow, cJSON_CreateString(f->m[i].name));
        if (f->m[i].flag[r] < 0) cJSON_AddItemToArray(fast, cJSON_CreateString(f->m[i].name));
    }
    cJSON_AddBoolToObject(o, "flagged", f->slow[r] || f->fast[r]);
    cJSON *ops = cJSON_AddArrayToObject(o, "ops");
    for (int j = 0; f->ops[r] && j < x->n_ops; j++) {
        const jv_fleet_op *p = &f->ops[r][j];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "index", p->index);
        cJSON_AddNumberToObject(e, "variant", p->variant);
        cJSON_AddStringToObject(e, "label", p->label);
        cJSON_AddStringToObject(e, "status", jv_res_status_str((jv_res_status)p->status));
        add_num(e, "hot_us", p->hot_s > 0 ? p->hot_s * 1e6 : NAN);
        add_num(e, "cold_us", p->cold_s > 0 ? p->cold_s * 1e6 : NAN);
        cJSON_AddItemToArray(ops, e);
    }
    return o;
}

static cJSON *metric_json(const jv_fleet *f, const jv_fleet_metric *m) {
    double sc;
    const char *unit = unit_of(m->kind, &sc);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", m->name);
    cJSON_AddStringToObject(o, "kind", m->kind == JV_FM_TIME ? "time" : "rate");
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddNumberToObject(o, "n", m->n);
    add_num(o, "median", m->median * sc);
    add_num(o, "mad_ln", m->mad_ln);
    add_num(o, "band_lo", m->lo * sc);
    add_num(o, "band_hi", m->hi * sc);
    cJSON *v = cJSON_AddArrayToObject(o, "values"), *out = cJSON_AddArrayToObject(o, "outside");
    for (int r = 0; r < f->nranks; r++) {
        cJSON_AddItemToArray(v, num_or_null(m->value[r] * sc));
        if (!m->flag[r]) continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "rank", r);
        add_num(e, "value", m->value[r] * sc);
        add_num(e, "times_slower", slowness(m, m->value[r]));
        cJSON_AddStringToObject(e, "side", m->flag[r] > 0 ? "slow" : "fast");
        cJSON_AddItemToArray(out, e);
    }
    return o;
}

jv_status jv_fleet_write_json(const char *path, const jv_fleet *f, const jv_fleet_meta *meta, jv_err *err) {
    cJSON *root = cJSON_CreateObject();
    if (!root) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    cJSON_AddStringToObject(root, "jarvis", JV_VERSION);
    cJSON_AddStringToObject(root, "date", meta->date ? meta->date : "");
    cJSON_AddStringToObject(root, "package", meta->package ? meta->package : "");
    cJSON_AddStringToObject(root, "mode", meta->peak ? "peak" : "replay");
    cJSON_AddStringToObject(root, "launcher", meta->launcher ? meta->launcher : "");
    cJSON_AddStringToObject(root, "per_rank_outputs", meta->per_rank ? meta->per_rank : "");
    add_num(root, "timeout_s", meta->timeout_s);
    cJSON *band = cJSON_AddObjectToObject(root, "band");
    cJSON_AddNumberToObject(band, "k", f->k);
    cJSON_AddNumberToObject(band, "min_band", f->min_band);
    cJSON_AddNumberToObject(band, "min_ranks", JV_FLEET_MIN_RANKS);
    cJSON_AddStringToObject(band, "rule", BAND_RULE);
    cJSON_AddStringToObject(band, "figure", f->best ? "best sample" : "median sample");
    cJSON *sum = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddNumberToObject(sum, "ranks", f->nranks);
    cJSON_AddNumberToObject(sum, "nodes", f->nnodes);
    const char *lists[] = {"ok", "failed", "missing", "flagged"};
    cJSON *arr[4];
    for (int i = 0; i < 4; i++)
        arr[i] = cJSON_AddArrayToObject(sum, lists[i]);
    for (int r = 0; r < f->nranks; r++) {
        int st = f->ranks[r].state;
        int which = st == JV_FLEET_OK ? 0 : st == JV_FLEET_MISSING ? 2 : 1;
        cJSON_AddItemToArray(arr[which], cJSON_CreateNumber(r));
        if (f->slow[r] || f->fast[r]) cJSON_AddItemToArray(arr[3], cJSON_CreateNumber(r));
    }
    cJSON *ranks = cJSON_AddArrayToObject(root, "ranks");
    for (int r = 0; r < f->nranks; r++)
        cJSON_AddItemToArray(ranks, rank_json(f, r));
    cJSON *ms = cJSON_AddArrayToObject(root, "metrics");
    for (int i = 0; i < f->nmetrics; i++)
        cJSON_AddItemToArray(ms, metric_json(f, &f->m[i]));
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (int i = 0; i < f->nnodes; i++) {
        cJSON *o = cJSON_CreateObject(), *rl = NULL;
        for (int r = 0; r < f->nranks; r++)
            if (f->node[r] == i) {
                if (!rl) {
                    cJSON_AddStringToObject(o, "host", f->ranks[r].host);
                    rl = cJSON_AddArrayToObject(o, "ranks");
                }
                cJSON_AddItemToArray(rl, cJSON_CreateNumber(r));
            }
        cJSON_AddBoolToObject(o, "flagged", f->node_flagged[i]);
        cJSON_AddItemToArray(nodes, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    jv_out o;
    jv_status st = jv_out_open(&o, path, err);
    if (st == JV_OK) {
        fputs(text, o.f);
        fputc('\n', o.f);
        st = jv_out_commit(&o, err);
    }
    free(text);
    return st;
}

/* a value of metric m in its unit, "-" when none */
static void md_val(FILE *f, const jv_fleet_metric *m, double v) {
    double sc;
    unit_of(m->kind, &sc);
    if (isnan(v))
        fputs("-", f);
    else
        fprintf(f, "%.*f", m->kind == JV_FM_TIME ? 2 : m->kind == JV_FM_FLOPS ? 3 : 1, v * sc);
}

/* the metric of baseline kernel k, or of the GEMM (k == JV_BASE_COUNT): the first metrics, in that order */
static const jv_fleet_metric *base_metric(const jv_fleet *f, int k) {
    return k < f->nmetrics && k <= JV_BASE_COUNT ? &f->m[k] : NULL;
}

jv_status jv_fleet_write_md(const char *path, const jv_fleet *f, const jv_fleet_meta *meta, jv_err *err) {
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *out = o.f;
    int ok = 0, missing = 0;
    for (int r = 0; r < f->nranks; r++) {
        ok += f->ranks[r].state == JV_FLEET_OK;
        missing += f->ranks[r].state == JV_FLEET_MISSING;
    }
    fprintf(out, "# Fleet report\n\n");
    fputs("- Package: ", out);
    jv_md_code(out, meta->package ? meta->package : "", 300, 0);
    fprintf(out, "%s\n- Date: %s, jarvis %s; launched by %s\n", meta->peak ? " (--peak: hardware validation)" : "",
            meta->date ? meta->date : "", JV_VERSION, meta->launcher ? meta->launcher : "?");
    fprintf(out, "- Ranks: %d on %d node%s: %d ok, %d with failed ops or failed, %d missing; %d flagged\n", f->nranks,
            f->nnodes, f->nnodes == 1 ? "" : "s", ok, f->failed - missing, missing, f->flagged);
    fprintf(out,
            "- Band: k = %g, min_band = %g: %s. Slow: a longer op time, a lower bandwidth or TFLOP/s. Figure "
            "compared: each rank's %s.\n",
            f->k, f->min_band, BAND_RULE, f->best ? "fastest sample (--fleet-stat best)" : "median sample");
    fprintf(out, "- Rank 0 waits up to %.0f s for the others after its own replay. Each rank's own outputs: %s\n\n",
            meta->timeout_s, meta->per_rank ? meta->per_rank : "-");
    fprintf(out, "## GPUs\n\n| rank | host | local rank | device | name | state |");
    for (int k = 0; k <= JV_BASE_COUNT; k++) {
        const jv_fleet_metric *m = base_metric(f, k);
        double sc;
        if (m) fprintf(out, " %s %s |", m->name, unit_of(m->kind, &sc));
    }
    fprintf(out, " op time / median | flagged |\n|---:|---|---:|---:|---|---|");
    for (int k = 0; k <= JV_BASE_COUNT; k++)
        if (base_metric(f, k)) fputs("---:|", out);
    fputs("---:|---|\n", out);
    for (int r = 0; r < f->nranks; r++) {
        const jv_fleet_rank *x = &f->ranks[r];
        fprintf(out, "| %d | ", r);
        jv_md_text(out, x->host);
        fprintf(out, " | %d | %d | ", x->local_rank, x->device);
        jv_md_text(out, x->device_name);
        if (x->uuid[0] || x->pci[0]) {
            fputs(" (", out);
            jv_md_text(out, x->uuid[0] ? x->uuid : x->pci);
            fputs(")", out);
        }
        fprintf(out, " | %s |", jv_fleet_state_str((jv_fleet_state)x->state));
        for (int k = 0; k <= JV_BASE_COUNT; k++) {
            const jv_fleet_metric *m = base_metric(f, k);
            if (!m) continue;
            fputc(' ', out);
            md_val(out, m, m->value[r]);
            fputs(m->flag[r] > 0 ? " **slow**" : m->flag[r] < 0 ? " *fast*" : "", out);
            fputs(" |", out);
        }
        if (isnan(f->score[r]))
            fputs(" - |", out);
        else
            fprintf(out, " %.2f |", f->score[r]);
        if (f->slow[r] || f->fast[r])
            fprintf(out, " **%d slow, %d fast** |\n", f->slow[r], f->fast[r]);
        else
            fputs(" |\n", out);
    }
    fprintf(out, "\n## Flagged\n\n");
    if (!f->flagged) fprintf(out, "No GPU is outside the band on any metric.\n");
    for (int r = 0; r < f->nranks; r++) {
        if (!f->slow[r] && !f->fast[r]) continue;
        const jv_fleet_rank *x = &f->ranks[r];
        fprintf(out, "- **rank %d** (", r);
        jv_md_text(out, x->host);
        fprintf(out, ", device %d, ", x->device);
        jv_md_text(out, x->device_name);
        fprintf(out, "): slow on %d metric%s, fast on %d%s\n", f->slow[r], f->slow[r] == 1 ? "" : "s", f->fast[r],
                x->test_extra ? " (test: this rank ran every timed run extra times, JV_FLEET_TEST_SLOW)" : "");
        for (int i = 0; i < f->nmetrics; i++) {
            const jv_fleet_metric *m = &f->m[i];
            if (!m->flag[r]) continue;
            double sc;
            const char *unit = unit_of(m->kind, &sc);
            fputs("  - ", out);
            jv_md_text(out, m->name);
            fprintf(out, ": ");
            md_val(out, m, m->value[r]);
            fprintf(out, " %s vs median ", unit);
            md_val(out, m, m->median);
            double sl = slowness(m, m->value[r]);
            fprintf(out, " (%.2fx %s; band ", m->flag[r] > 0 ? sl : 1 / sl, m->flag[r] > 0 ? "slower" : "faster");
            md_val(out, m, m->lo);
            fputs(" to ", out);
            md_val(out, m, m->hi);
            fputs(")\n", out);
        }
    }
    for (int i = 0; i < f->nnodes; i++) {
        if (!f->node_flagged[i]) continue;
        for (int r = 0; r < f->nranks; r++)
            if (f->node[r] == i) {
                fputs("- **node ", out);
                jv_md_text(out, f->ranks[r].host);
                fputs("**: every GPU of it is flagged: look at the node (power, cooling, host, network)\n", out);
                break;
            }
    }
    for (int r = 0; r < f->nranks; r++)
        if (f->same_gpu[r] >= 0)
            fprintf(out,
                    "- rank %d runs on the same GPU as rank %d (same host and UUID or PCI address): both share it, "
                    "so their numbers are not the GPU's alone\n",
                    r, f->same_gpu[r]);
    if (f->failed) {
        fprintf(out, "\n## Failed and missing ranks\n\n");
        for (int r = 0; r < f->nranks; r++) {
            const jv_fleet_rank *x = &f->ranks[r];
            if (x->state == JV_FLEET_OK) continue;
            fprintf(out, "- rank %d (", r);
            jv_md_text(out, x->host[0] ? x->host : "?");
            fprintf(out, "): %s", jv_fleet_state_str((jv_fleet_state)x->state));
            if (x->error[0]) {
                fputs(": ", out);
                jv_md_text(out, x->error);
            }
            if (x->state == JV_FLEET_FAILED_OPS)
                for (int j = 0; f->ops[r] && j < x->n_ops; j++)
                    if (f->ops[r][j].status != JV_RES_OK && f->ops[r][j].status != JV_RES_SKIPPED) {
                        fprintf(out, "; op %d ", f->ops[r][j].index);
                        jv_md_code(out, f->ops[r][j].label, 80, 0);
                        fprintf(out, " %s", jv_res_status_str((jv_res_status)f->ops[r][j].status));
                    }
            fputs("\n", out);
        }
    }
    /* each op's time on each GPU: a column per rank while that reads (fleet.json has them all) */
    int ops_shown = 0;
    for (int i = 0; i < f->nmetrics; i++)
        ops_shown += f->m[i].kind == JV_FM_TIME;
    if (ops_shown) {
        fprintf(out, "\n## Op times per GPU (us, %s)\n\n", f->best ? "fastest sample" : "median sample");
        if (f->nranks > JV_FLEET_MD_RANK_COLUMNS) {
            fprintf(out,
                    "%d ranks: each rank's op times are in fleet.json (`ranks[].ops`); the medians and bands "
                    "below.\n",
                    f->nranks);
        } else {
            fputs("| op |", out);
            for (int r = 0; r < f->nranks; r++)
                fprintf(out, " rank %d |", r);
            fputs(" median |\n|---|", out);
            for (int r = 0; r <= f->nranks; r++)
                fputs("---:|", out);
            fputs("\n", out);
            for (int i = 0; i < f->nmetrics; i++) {
                const jv_fleet_metric *m = &f->m[i];
                if (m->kind != JV_FM_TIME) continue;
                fputs("| ", out);
                jv_md_text(out, m->name);
                fputs(" |", out);
                for (int r = 0; r < f->nranks; r++) {
                    fputc(' ', out);
                    md_val(out, m, m->value[r]);
                    fputs(m->flag[r] > 0 ? " **slow**" : m->flag[r] < 0 ? " *fast*" : "", out);
                    fputs(" |", out);
                }
                fputc(' ', out);
                md_val(out, m, m->median);
                fputs(" |\n", out);
            }
        }
    }
    fprintf(out, "\n## Metrics\n\n| metric | unit | ranks | median | MAD(ln) | band | outside |\n"
                 "|---|---|---:|---:|---:|---|---|\n");
    for (int i = 0; i < f->nmetrics; i++) {
        const jv_fleet_metric *m = &f->m[i];
        if (!m->n) continue;
        double sc;
        fputs("| ", out);
        jv_md_text(out, m->name);
        fprintf(out, " | %s | %d | ", unit_of(m->kind, &sc), m->n);
        md_val(out, m, m->median);
        fputs(" | ", out);
        fprintf(out, "%.3f | ", m->mad_ln);
        if (isnan(m->lo)) {
            fputs("- (too few ranks)", out);
        } else {
            md_val(out, m, m->lo);
            fputs(" to ", out);
            md_val(out, m, m->hi);
        }
        fputs(" |", out);
        int any = 0;
        for (int r = 0; r < f->nranks; r++)
            if (m->flag[r]) fprintf(out, "%s rank %d %s", any++ ? "," : "", r, m->flag[r] > 0 ? "slow" : "fast");
        fputs(" |\n", out);
    }
    return jv_out_commit(&o, err);
}

void jv_fleet_console(FILE *out, const jv_fleet *f, const jv_fleet_meta *meta) {
    const jv_fleet_metric *triad = base_metric(f, JV_BASE_TRIAD), *gemm = base_metric(f, JV_BASE_COUNT);
    fprintf(out, "# jarvis-replay fleet: %d ranks on %d node%s, %s%s\n", f->nranks, f->nnodes,
            f->nnodes == 1 ? "" : "s", meta->package ? meta->package : "", meta->peak ? " (--peak)" : "");
    fprintf(out, "# %4s %-20s %4s %-10s %12s %14s %10s  %s\n", "rank", "host", "dev", "state", "triad_GB/s",
            "gemm_TFLOP/s", "op_x_med", "flagged");
    for (int r = 0; r < f->nranks; r++) {
        const jv_fleet_rank *x = &f->ranks[r];
        double tv = triad ? triad->value[r] * 1e-9 : NAN, gv = gemm ? gemm->value[r] * 1e-12 : NAN;
        char sc[32] = "-";
        if (!isnan(f->score[r])) snprintf(sc, sizeof sc, "%.2f", f->score[r]);
        fprintf(out, "  %4d %-20.20s %4d %-10s %12.1f %14.3f %10s  %s\n", r, x->host[0] ? x->host : "?", x->device,
                jv_fleet_state_str((jv_fleet_state)x->state), tv, gv, sc, f->slow[r] || f->fast[r] ? "FLAGGED" : "");
    }
    for (int r = 0; r < f->nranks; r++) {
        if (f->slow[r] || f->fast[r]) {
            fprintf(out, "# rank %d: slow on %d metric%s, fast on %d:", r, f->slow[r], f->slow[r] == 1 ? "" : "s",
                    f->fast[r]);
            int shown = 0;
            for (int i = 0; i < f->nmetrics && shown < 4; i++)
                if (f->m[i].flag[r]) fprintf(out, "%s %.60s", shown++ ? ";" : "", f->m[i].name);
            fputs(shown < f->slow[r] + f->fast[r] ? "; ...\n" : "\n", out);
        }
        if (f->ranks[r].state == JV_FLEET_FAILED || f->ranks[r].state == JV_FLEET_MISSING)
            fprintf(out, "# rank %d %s: %s\n", r, jv_fleet_state_str((jv_fleet_state)f->ranks[r].state),
                    f->ranks[r].error);
    }
    fprintf(out, "# band: k = %g, min_band = %g; %d flagged, %d not ok\n", f->k, f->min_band, f->flagged, f->failed);
}
