/* jv_findings: category_findings/<cat>_findings.md from the digest: the
 * category's significance, per-op efficiency against the roofline and the
 * trace's elementwise baseline, verdicts, the two optimization paths and an
 * impact projection; convolution layout conversions and kernel sizes, batch
 * norm implementation and bandwidth, elementwise fusion candidates, GEMM
 * shapes. The findings it collects feed the standalone reports. */
#include "jv_findings.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jv_output.h"
#include "jv_standalone.h"
#include "jv_tensor.h"

#define TOP_ROWS        15  /* rows in a per-op table */
#define TOP_IMPACT      5   /* ops with an impact projection */
#define SIGNIFICANT_PCT 1.0 /* an op is significant from this share of GPU kernel time (%) */

static const jv_dcat CATS[] = {JV_DCAT_GEMM, JV_DCAT_CONV, JV_DCAT_BN, JV_DCAT_EW};
static const double TARGETS[] = {20, 50, 80};

/* The type of a row's first argument: "bf16", "fp16", "fp32", "fp64", else its recorded type ("long int"),
 * "" when unknown. */
static const char *first_type(const jv_drow *r) {
    const jv_doperand *o = r->noperands > 0 ? &r->operands[0] : NULL;
    jv_dtype dt = o && o->kind == JV_ARG_TENSOR ? o->t.dtype : JV_DT_UNKNOWN;
    switch (dt) {
    case JV_DT_BF16:
    case JV_DT_F16:
    case JV_DT_F32:
    case JV_DT_F64: return jv_dtype_short(dt);
    default: return r->type0;
    }
}

/* Argument k of a row as a tensor, or NULL. */
static const jv_tensor *operand_tensor(const jv_drow *r, int k) {
    return k < r->noperands && r->operands[k].kind == JV_ARG_TENSOR ? &r->operands[k].t : NULL;
}

/* The shape of a row's first argument ("(512, 64, 56, 56)"), "?" when it is not a tensor. */
static const char *first_shape(const jv_drow *r, char *buf, size_t cap) {
    const jv_tensor *t = operand_tensor(r, 0);
    if (!t) {
        snprintf(buf, cap, "?");
        return buf;
    }
    size_t l = 0;
    buf[l++] = '(';
    buf[l] = 0;
    for (int i = 0; i < t->ndim && l + 24 < cap; i++)
        l += (size_t)snprintf(buf + l, cap - l, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    snprintf(buf + l, cap - l, "%s)", t->ndim == 1 ? "," : "");
    return buf;
}

/* The memory layout of argument k of a row from its shape and strides. */
static const char *layout_of(const jv_drow *r, int k) {
    const jv_tensor *t = operand_tensor(r, k);
    if (!t || t->ndim < 3) return "unknown";
    if (!t->has_strides) return "unknown (no strides)";
    jv_layout l = jv_tensor_layout(t);
    if (l == JV_LAYOUT_CONTIGUOUS)
        return t->ndim == 4 ? "NCHW (contiguous)" : t->ndim == 5 ? "NCDHW (contiguous)" : "contiguous";
    if (l == JV_LAYOUT_CHANNELS_LAST) return "channels_last";
    return jv_layout_name(l);
}

/* The typed value of the row's perf-model param key (NaN when absent or not a number). */
static double param_num(const jv_drow *r, const char *key) {
    for (int k = 0; k < r->nparams; k++)
        if (!strcmp(r->pvals[k].name, key)) return r->pvals[k].value;
    return NAN;
}

/* appends a finding; on failure sets *nomem (the caller reports it) */
static void finding_add(jv_finding_list *l, int *nomem, jv_dcat cat, const char *anchor, const char *title,
                        double time_us, double gain_us, const char *issue, const char *action, const char *impact) {
    if (JV_RESERVE(l->v, l->cap, l->n + 1) != JV_OK) {
        *nomem = 1;
        return;
    }
    jv_finding *f = &l->v[l->n++];
    memset(f, 0, sizeof *f);
    f->cat = cat;
    snprintf(f->anchor, sizeof f->anchor, "%s", anchor);
    snprintf(f->title, sizeof f->title, "%s", title);
    snprintf(f->issue, sizeof f->issue, "%s", issue);
    snprintf(f->action, sizeof f->action, "%s", action);
    snprintf(f->impact, sizeof f->impact, "%s", impact);
    f->time_us = time_us;
    f->gain_us = gain_us;
}

/* ---------- per-category writer ---------- */

typedef struct {
    const jv_digest *d;
    jv_dcat cat;
    FILE *f;
    jv_finding_list *out;
    size_t idx[TOP_IMPACT]; /* significant rows with an impact projection */
    int nimp;
    int nomem; /* a finding could not be stored */
} cctx;

static void achieved_cell(FILE *f, const jv_row_eval *e) {
    if (isnan(e->achieved))
        fputs("n/a", f);
    else if (e->memory_bound)
        fprintf(f, "%.3f TB/s", e->achieved);
    else
        fprintf(f, "%.1f TFLOPS/s", e->achieved);
}

static void pct_cell(FILE *f, double v) {
    if (isnan(v))
        fputs("n/a", f);
    else
        fprintf(f, "%.1f %%", v);
}

static void write_ops_table(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    fprintf(f, "<a id=\"ops\"></a>\n\n## Per-op efficiency\n\n");
    fprintf(f,
            "Rows by kernel time (all rows: [%s_ops.csv](../category_data/%s_ops.csv)). %% of peak = Pct Roofline "
            "(roofline time / kernel time, mean over calls); vs baseline = achieved TB/s / the trace's elementwise "
            "baseline (memory-bound rows).\n\n",
            jv_dcat_name(c->cat), jv_dcat_name(c->cat));
    fprintf(f,
            "| # | Op | Input Dims | Type | Calls | Time | Share of category | Achieved | %% of peak | vs baseline | "
            "Band | Verdict | UID | Replay op |\n");
    fprintf(f, "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|\n");
    int shown = 0;
    size_t more = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c->cat) continue;
        if (shown >= TOP_ROWS) {
            more++;
            continue;
        }
        const jv_row_eval e = r->eval;
        char tb[32];
        fprintf(f, "| %d | ", ++shown);
        jv_md_code(f, r->name, 70, 1);
        fputs(" | ", f);
        jv_md_code(f, r->dims, 80, 1);
        fprintf(f, " | %s | %u | %s | %.1f %% | ", first_type(r), r->count, jv_md_time(tb, sizeof tb, r->time_us),
                d->cat_us[c->cat] > 0 ? 100.0 * r->time_us / d->cat_us[c->cat] : 0.0);
        achieved_cell(f, &e);
        fputs(" | ", f);
        pct_cell(f, e.pct);
        fputs(" | ", f);
        if (isnan(e.vs_base))
            fputs("n/a", f);
        else
            fprintf(f, "%.2fx", e.vs_base);
        fprintf(f, " | %s | %s | %u | ", e.band[0] ? e.band : "n/a", e.verdict, r->uid);
        if (r->replay_op >= 0)
            fprintf(f, "%d |\n", r->replay_op);
        else
            fputs("not packaged |\n", f);
    }
    if (!shown) fprintf(f, "| - | none | | | | | | | | | | | | |\n");
    if (more)
        fprintf(f, "\n%zu more rows in [%s_ops.csv](../category_data/%s_ops.csv).\n", more, jv_dcat_name(c->cat),
                jv_dcat_name(c->cat));
    double bp = jv_baseline_pct_of_hbm(d);
    fprintf(f,
            "\nVerdicts, first that applies: *launch-bound*: roofline time < %.1f µs (a nominal launch) and median "
            "kernel < %.0f µs; *near peak* >= %.0f %% of roofline; *layout overhead*: layout-conversion kernels >= "
            "%.0f %% of the op's time; *hardware-limited*: memory-bound at >= %.1fx the trace's elementwise baseline; "
            "*kernel issue*: < %.0f %% of roofline",
            JV_JUDGE_LAUNCH_NOMINAL_US, JV_JUDGE_LAUNCH_RUNS * JV_JUDGE_LAUNCH_NOMINAL_US, 100 * JV_JUDGE_NEAR_EFF,
            100 * JV_JUDGE_LAYOUT_SHARE, JV_JUDGE_CEILING, 100 * JV_JUDGE_KERNEL_EFF);
    if (!isnan(bp)) fprintf(f, " while simple ops of this trace reach %.1f %% of HBM peak", bp);
    fprintf(f, "; *below peak*: the rest.\n\n");
}

/* the significant rows of the category (share of GPU kernel time >= SIGNIFICANT_PCT, with a roofline, below 80 %) */
static void pick_significant(cctx *c) {
    const jv_digest *d = c->d;
    c->nimp = 0;
    for (size_t i = 0; i < d->nrows && c->nimp < TOP_IMPACT; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c->cat || r->percent < SIGNIFICANT_PCT) continue;
        const jv_row_eval e = r->eval;
        if (!e.has_roof || e.eff >= 80) continue;
        c->idx[c->nimp++] = i;
    }
}

/* time of row r at target efficiency t (%): count * roofline time / (t/100) */
static double time_at(const jv_drow *r, double t) {
    return r->count * r->roof_us / (t / 100.0);
}

static void write_impact(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    fprintf(f, "<a id=\"impact\"></a>\n\n## Impact projection\n\n");
    if (!c->nimp) {
        fprintf(f,
                "No op of this category has both a roofline and >= %.0f %% of GPU kernel time below 80 %% "
                "efficiency: nothing to project.\n\n",
                SIGNIFICANT_PCT);
        return;
    }
    fprintf(f,
            "Op time at a target efficiency = calls x roofline time / target; saving = time now - that time; "
            "share = saving / all GPU kernel time (%.3f ms). Efficiency now = calls x roofline time / kernel time.\n\n",
            d->total_us / 1e3);
    for (int k = 0; k < c->nimp; k++) {
        const jv_drow *r = &d->rows[c->idx[k]];
        const jv_row_eval e = r->eval;
        char tb[32];
        fprintf(f, "<a id=\"impact-%d\"></a>\n\n### %d. ", k + 1, k + 1);
        jv_md_code(f, r->name, 70, 0);
        fprintf(f, " ");
        jv_md_code(f, r->dims, 60, 0);
        fprintf(f, "\n\nNow %s in %u calls (roofline time %.3f µs per call, efficiency %.1f %%, %s).\n\n",
                jv_md_time(tb, sizeof tb, r->time_us), r->count, r->roof_us, e.eff,
                e.memory_bound ? "memory-bound" : "compute-bound");
        fprintf(f, "| Target (%% of peak) | Op time (µs) | Saving (ms) | Saving (%% of GPU kernel time) |\n");
        fprintf(f, "|---:|---:|---:|---:|\n");
        for (size_t t = 0; t < sizeof TARGETS / sizeof TARGETS[0]; t++) {
            if (e.eff >= TARGETS[t]) {
                fprintf(f, "| %.0f %% | already above | - | - |\n", TARGETS[t]);
                continue;
            }
            double nt = time_at(r, TARGETS[t]), g = r->time_us - nt;
            fprintf(f, "| %.0f %% | %.1f | %.3f | %.2f %% |\n", TARGETS[t], nt, g / 1e3,
                    d->total_us > 0 ? 100.0 * g / d->total_us : 0.0);
        }
        fputc('\n', f);
    }
}

/* path B and the per-op finding of each significant op below 50 % */
static void write_path_b(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    fprintf(f, "<a id=\"path-b\"></a>\n\n### B: kernel only (same model code)\n\n");
    int any = 0, nrec = 0, covered = 0;
    for (size_t i = 0; i < c->out->n; i++)
        if (c->out->v[i].cat == c->cat && !strcmp(c->out->v[i].anchor, "bandwidth")) covered = 1;
    for (int k = 0; k < c->nimp; k++) {
        const jv_drow *r = &d->rows[c->idx[k]];
        const jv_row_eval e = r->eval;
        char tb[32], kb[160];
        fprintf(f, "- ");
        jv_md_code(f, r->name, 70, 0);
        fprintf(f, " (%s, %.1f %% of peak, %s): kernels ", jv_md_time(tb, sizeof tb, r->time_us), e.pct, e.verdict);
        for (int q = 0; q < r->nkernels && q < 3; q++) {
            if (q) fputs(", ", f);
            jv_md_code(f, jv_md_kernel_short(r->kernels[q].name, kb, sizeof kb), 50, 0);
        }
        if (r->replay_op >= 0)
            fprintf(f, "; replay: `jarvis-replay ../replay_package.zip --op %d`", r->replay_op);
        else
            fputs("; not in the replay package", f);
        fprintf(f, "; call stack: `jarvis-analyze %s --call-stack %u`.\n", d->trace, r->uid);
        any = 1;
        /* a recommendation for the two largest such ops of the category, unless a category-wide one covers them */
        double g50 = r->time_us - time_at(r, 50);
        int actionable = e.judgement != JV_JUDGE_HW_LIMITED && e.judgement != JV_JUDGE_LAUNCH &&
                         e.judgement != JV_JUDGE_NEAR && d->total_us > 0 && g50 >= 0.005 * d->total_us;
        if (e.eff < 50 && nrec < 2 && !covered && actionable) {
            char issue[512], action[640], impact[384], shp[96];
            double g = r->time_us - time_at(r, 50);
            nrec++;
            snprintf(issue, sizeof issue, "`%.60s` on `%s`: %s in %u calls at %.1f %% of the %s roofline (%s)", r->name,
                     first_shape(r, shp, sizeof shp), jv_md_time(tb, sizeof tb, r->time_us), r->count, e.pct,
                     e.memory_bound ? "memory" : "compute", e.verdict);
            if (r->replay_op >= 0)
                snprintf(action, sizeof action,
                         "Kernel team: replay it (`jarvis-replay replay_package.zip --op %d`) and profile the replay "
                         "(Nsight Compute / rocprof); compare with the elementwise baseline and vendor-library "
                         "alternatives.",
                         r->replay_op);
            else
                snprintf(action, sizeof action,
                         "Kernel team: reproduce the shape (`jarvis-analyze %s --call-stack %u`) and profile it "
                         "(Nsight Compute / rocprof).",
                         d->trace, r->uid);
            snprintf(impact, sizeof impact, "%.2f ms (%.1f %% of GPU kernel time) at 50 %% of peak", g / 1e3,
                     d->total_us > 0 ? 100.0 * g / d->total_us : 0.0);
            char anchor[32];
            snprintf(anchor, sizeof anchor, "impact-%d", k + 1);
            char title[96];
            snprintf(title, sizeof title, "%s below 50 %% of peak: %.50s", jv_dcat_title(c->cat), r->name);
            finding_add(c->out, &c->nomem, c->cat, anchor, title, r->time_us, g, issue, action, impact);
        }
    }
    if (!any) fprintf(f, "No significant op below 80 %% efficiency.\n");
    fprintf(f,
            "\nA trace shows kernel names, durations, shapes and achieved rates; it cannot show occupancy, cache hit "
            "rates, coalescing or bank conflicts: profile the replayed op to find out why a kernel is slow.\n\n");
}

static void write_header(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    const char *cn = jv_dcat_name(c->cat);
    char tb[32];
    fprintf(f, "<a id=\"top\"></a>\n\n# %s findings: %s\n\n", jv_dcat_title(c->cat), d->trace_name);
    fprintf(f,
            "Part of the [standalone analysis](../standalone_analysis_fair.md). Inputs: "
            "[%s_ops.csv](../category_data/%s_ops.csv), [%s_tree_data.json](../category_data/%s_tree_data.json), "
            "[%s_metadata.json](../metadata/%s_metadata.json).\n\n",
            cn, cn, cn, cn, cn, cn);
    fprintf(f, "<a id=\"significance\"></a>\n\n## Significance\n\n");
    double cat = d->cat_us[c->cat], busy = (double)d->tl.busy / 1e3;
    fprintf(f, "| Metric | Value |\n|---|---|\n");
    fprintf(f, "| %s kernel time | %s |\n", jv_dcat_title(c->cat), jv_md_time(tb, sizeof tb, cat));
    fprintf(f, "| Share of GPU kernel time (%.3f ms) | %.1f %% |\n", d->total_us / 1e3,
            d->total_us > 0 ? 100.0 * cat / d->total_us : 0.0);
    if (busy > 0) fprintf(f, "| Share of GPU busy time (%.3f ms) | %.1f %% |\n", busy / 1e3, 100.0 * cat / busy);
    fprintf(f, "| Rows (distinct op and shapes) | %u |\n", d->cat_rows[c->cat]);
    if (d->has_hw) {
        fprintf(f, "| Roofline GPU | %s: HBM %.2f TB/s", d->hw.name, d->hw.mem_bw_gbps / 1e3);
        char seen[8][32];
        int ns = 0;
        for (size_t i = 0; i < d->nrows && ns < 8; i++) {
            const jv_drow *r = &d->rows[i];
            if (r->cat != c->cat || !r->spec[0]) continue;
            int dup = 0;
            for (int s = 0; s < ns; s++)
                dup |= !strcmp(seen[s], r->spec);
            if (dup) continue;
            snprintf(seen[ns++], sizeof seen[0], "%s", r->spec);
            double p = jv_hw_peak(&d->hw, r->spec);
            if (!isnan(p)) fprintf(f, ", %s %.0f TFLOPS/s", r->spec, p);
        }
        fprintf(f, " (%s peaks) |\n", d->hw.roof_is_max_achievable ? "max-achievable" : "datasheet");
    } else {
        fprintf(f, "| Roofline GPU | none (%s): no %% of peak |\n", d->hw_why);
    }
    double bp = jv_baseline_pct_of_hbm(d);
    if (!isnan(d->baseline.tbs))
        fprintf(f, "| Elementwise baseline (add/mul/copy_, %s) | %.3f TB/s%s |\n",
                d->baseline.small_only ? "all sizes: none moves >= 1 MiB per call" : ">= 1 MiB per call",
                d->baseline.tbs, isnan(bp) ? "" : "");
    else
        fprintf(f, "| Elementwise baseline | none (no add/mul/copy_ op with a model in this trace) |\n");
    if (!isnan(bp)) fprintf(f, "| Baseline vs HBM peak | %.1f %% |\n", bp);
    fputc('\n', f);
}

/* ---------- convolution ---------- */

static int conv_weight_k(const jv_drow *r, int *kh, int *kw) {
    const jv_tensor *w = operand_tensor(r, strstr(r->op_name, "backward") ? 2 : 1);
    if (!w || w->ndim < 3) return 0;
    *kh = (int)w->shape[2];
    *kw = w->ndim >= 4 ? (int)w->shape[3] : 1;
    return 1;
}

static void write_conv(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    double cat = d->cat_us[c->cat], lay = 0;
    int nchw = 0, cl = 0, other = 0, nhwc_kernels = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c->cat) continue;
        lay += r->layout_us;
        const char *l = layout_of(r, 0);
        if (!strncmp(l, "NCHW", 4) || !strncmp(l, "NCDHW", 5))
            nchw++;
        else if (!strcmp(l, "channels_last"))
            cl++;
        else
            other++;
        for (int k = 0; k < r->nkernels; k++)
            if (!r->kernels[k].layout && jv_contains_nocase(r->kernels[k].name, "nhwc")) nhwc_kernels = 1;
    }
    char tb[32], kb[160];
    fprintf(f, "<a id=\"layout\"></a>\n\n## Layout conversions\n\n");
    fprintf(f,
            "Layout conversions: **%.1f µs** = **%.1f %%** of convolution time (%.1f %% of GPU kernel time). "
            "Kernels counted: `batched_transpose*`, `nchwToNhwc*`, `nhwcToNchw*`, `transpose_*` and other transposes "
            "launched by the convolution ops.\n\n",
            lay, cat > 0 ? 100.0 * lay / cat : 0.0, d->total_us > 0 ? 100.0 * lay / d->total_us : 0.0);
    fprintf(f,
            "Input layout of the convolution rows (from the strides of input 0): %d NCHW, %d channels_last, %d "
            "other or unknown.%s\n\n",
            nchw, cl, other,
            nhwc_kernels ? " The convolution kernels themselves are NHWC (`nhwc` in their names): the library converts "
                           "NCHW tensors around each call."
                         : "");
    if (lay > 0) {
        fprintf(f,
                "| # | Op | Input Dims | Input layout | Layout kernels | Layout time | Share of op time | Op time |\n");
        fprintf(f, "|---|---|---|---|---|---:|---:|---:|\n");
        int k = 0;
        for (size_t i = 0; i < d->nrows && k < TOP_ROWS; i++) {
            const jv_drow *r = &d->rows[i];
            if (r->cat != c->cat || r->layout_us <= 0) continue;
            fprintf(f, "| %d | ", ++k);
            jv_md_code(f, r->name, 60, 1);
            fputs(" | ", f);
            jv_md_code(f, r->dims, 60, 1);
            fprintf(f, " | %s | ", layout_of(r, 0));
            int nk = 0;
            for (int q = 0; q < r->nkernels; q++)
                if (r->kernels[q].layout) {
                    if (nk++) fputs(", ", f);
                    jv_md_code(f, jv_md_kernel_short(r->kernels[q].name, kb, sizeof kb), 60, 1);
                }
            fprintf(f, " | %.1f µs | %.1f %% | %s |\n", r->layout_us, 100.0 * r->layout_us / r->time_us,
                    jv_md_time(tb, sizeof tb, r->time_us));
        }
        fputc('\n', f);
    }
    if (d->layout_outside_us > 0)
        fprintf(f, "Layout-conversion kernels under other (non-convolution) ops: %.1f µs.\n\n", d->layout_outside_us);
    if (lay > 0 && nchw > 0) {
        char issue[512], action[640], impact[384];
        snprintf(issue, sizeof issue,
                 "Layout conversions around convolutions: %s = %.1f %% of convolution time; %d of %d convolution rows "
                 "take NCHW inputs%s",
                 jv_md_time(tb, sizeof tb, lay), cat > 0 ? 100.0 * lay / cat : 0.0, nchw, nchw + cl + other,
                 nhwc_kernels ? " while the kernels run NHWC" : "");
        snprintf(action, sizeof action,
                 "Run the model in channels_last: `model = model.to(memory_format=torch.channels_last)` and "
                 "`x = x.to(memory_format=torch.channels_last)`; re-profile and check that the transposes are gone.");
        snprintf(impact, sizeof impact, "up to %.2f ms (%.1f %% of GPU kernel time) if all conversions go", lay / 1e3,
                 d->total_us > 0 ? 100.0 * lay / d->total_us : 0.0);
        finding_add(c->out, &c->nomem, c->cat, "layout", "Layout conversions around convolutions", lay, lay, issue,
                    action, impact);
        fprintf(f,
                "Recommendation: channels_last (`model = model.to(memory_format=torch.channels_last)`, and the "
                "inputs with `x.to(memory_format=torch.channels_last)`): the conversions are at most %s.\n\n",
                jv_md_time(tb, sizeof tb, lay));
    } else if (lay > 0) {
        fprintf(f, "The inputs are not NCHW, yet conversions run: the library converts internally; a replay of the op "
                   "shows whether another algorithm avoids them.\n\n");
    }
    /* kernel sizes */
    fprintf(f, "<a id=\"kernel-size\"></a>\n\n## Large-kernel vs small-kernel convolutions\n\n");
    fprintf(f,
            "Spatial kernel size from the weight shape (Input Dims[1], backward: [2]). Expected (REFERENCE.md "
            "section 8): >= 5x5 compute-bound at 60-80 %% of peak; 1x1 and 3x3 memory-bound at 50-70 %% of HBM.\n\n");
    fprintf(f, "| Group | Rows | Compute-bound rows | Time | Share of convolution | Σ roofline time | Efficiency "
               "(Σ roofline / Σ time) |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (int g = 0; g < 3; g++) {
        int rows = 0, cb = 0;
        double t = 0, roof = 0, troof = 0;
        for (size_t i = 0; i < d->nrows; i++) {
            const jv_drow *r = &d->rows[i];
            if (r->cat != c->cat) continue;
            int kh, kw, grp;
            if (!conv_weight_k(r, &kh, &kw))
                grp = 2;
            else
                grp = (kh >= 5 || kw >= 5) ? 0 : 1;
            if (grp != g) continue;
            rows++;
            t += r->time_us;
            cb += !strcmp(r->bound, "COMPUTE_BOUND");
            if (!isnan(r->roof_us) && r->roof_us > 0) {
                roof += r->count * r->roof_us;
                troof += r->time_us;
            }
        }
        static const char *const G[] = {"Large (>= 5x5)", "Small (1x1, 3x3)", "Unknown weight shape"};
        if (g == 2 && !rows) continue;
        fprintf(f, "| %s | %d | %d | %s | %.1f %% | %.1f µs | ", G[g], rows, cb, jv_md_time(tb, sizeof tb, t),
                cat > 0 ? 100.0 * t / cat : 0.0, roof);
        if (troof > 0)
            fprintf(f, "%.1f %% |\n", 100.0 * roof / troof);
        else
            fputs("n/a |\n", f);
    }
    fputc('\n', f);
    fprintf(
        f, "<a id=\"paths\"></a>\n\n## Optimization paths\n\n### A: fusion or algorithmic (model code may change)\n\n");
    if (lay > 0)
        fprintf(f, "- channels_last removes the conversions measured [above](#layout) when the library has NHWC "
                   "kernels for these shapes.\n");
    fprintf(f, "- Fuse the convolution with the following batch norm and activation in inference (conv-BN folding, "
               "torch.compile); in training, torch.compile fuses BN + ReLU into fewer kernels.\n\n");
}

/* ---------- batch norm ---------- */

static const char *bn_impl(const jv_drow *r) {
    if (strstr(r->op_name, "cudnn_batch_norm")) return "cuDNN";
    if (strstr(r->op_name, "miopen_batch_norm")) return "MIOpen";
    for (int k = 0; k < r->nkernels; k++) {
        const char *n = r->kernels[k].name;
        if (strstr(n, "MIOpenBatchNorm") || strstr(n, "miopen")) return "MIOpen";
        if (strstr(n, "cudnn") || strstr(n, "bn_fw") || strstr(n, "bn_bw")) return "cuDNN";
        if (strstr(n, "at::native") && strstr(n, "batch_norm")) return "native (PyTorch)";
    }
    if (strstr(r->op_name, "native_batch_norm")) return "native (PyTorch)";
    return "unknown";
}

/* training mode from the model's typed is_training; a row without it (no model) falls back on the recorded
 * concrete inputs, where the training flag is the one boolean batch norm's calls pass */
static int bn_training(const jv_drow *r) {
    double t = param_num(r, "is_training");
    if (!isnan(t)) return t != 0;
    return strstr(r->concrete, "'True'") != NULL;
}

static void write_bn(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    char tb[32], gb[32], kb[160];
    fprintf(f, "<a id=\"implementation\"></a>\n\n## Implementation\n\n");
    fprintf(f, "| # | Op | Input Dims | Type | Layout | Mode | Direction | Implementation | Kernels | Time |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---:|\n");
    int k = 0, n_native = 0, n_bf16 = 0, n_cl = 0, n_dbl = 0, n_noaff = 0, rows = 0;
    double t_native = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c->cat) continue;
        rows++;
        const char *impl = bn_impl(r), *ty_s = first_type(r), *lay = layout_of(r, 0);
        int native = !strncmp(impl, "native", 6);
        n_native += native;
        if (native) t_native += r->time_us;
        n_bf16 += !strcmp(ty_s, "bf16");
        n_dbl += !strcmp(ty_s, "fp64");
        n_cl += !strcmp(lay, "channels_last");
        if (native) { /* no affine weight (Input Dims[1], backward [2] is ()): cuDNN and MIOpen need weight and bias */
            int wi = strstr(r->op_name, "backward") ? 2 : 1;
            const jv_doperand *w = wi < r->noperands ? &r->operands[wi] : NULL;
            if (w && (w->kind == JV_ARG_NONE || (w->kind == JV_ARG_TENSOR && w->t.ndim == 0))) n_noaff++;
        }
        if (k >= TOP_ROWS) continue;
        fprintf(f, "| %d | ", ++k);
        jv_md_code(f, r->name, 60, 1);
        fputs(" | ", f);
        jv_md_code(f, r->dims, 50, 1);
        fprintf(f, " | %s | %s | %s | %s | %s | ", ty_s, lay, bn_training(r) ? "training" : "eval",
                (r->bwd || strstr(r->op_name, "backward")) ? "backward" : "forward", impl);
        for (int q = 0; q < r->nkernels && q < 2; q++) {
            if (q) fputs(", ", f);
            jv_md_code(f, jv_md_kernel_short(r->kernels[q].name, kb, sizeof kb), 60, 1);
        }
        fprintf(f, " | %s |\n", jv_md_time(tb, sizeof tb, r->time_us));
    }
    if (!k) fprintf(f, "| - | none | | | | | | | | |\n");
    fputc('\n', f);
    if (rows) {
        fprintf(f, "Why: %d of %d rows run PyTorch's native kernels (%s).", n_native, rows,
                jv_md_time(tb, sizeof tb, t_native));
        if (n_bf16)
            fprintf(f,
                    " %d rows have bf16 inputs: PyTorch uses cuDNN and MIOpen batch norm only for non-bf16 inputs, so "
                    "bf16 runs the native kernels on both vendors.",
                    n_bf16);
        if (d->is_amd && n_cl) fprintf(f, " %d rows are channels_last: MIOpen refuses channels_last.", n_cl);
        if (d->is_amd && n_dbl) fprintf(f, " %d rows are double: MIOpen refuses double.", n_dbl);
        if (n_noaff)
            fprintf(f,
                    " %d native rows have no affine weight and bias (Input Dims `()`): PyTorch's cuDNN and MIOpen "
                    "paths need both.",
                    n_noaff);
        if (n_native > n_bf16 + n_cl + n_dbl + n_noaff)
            fprintf(f, " For the other native rows the dtype allowed a vendor library; the trace does not show which "
                       "other condition (size limits, build options) made PyTorch pick the native path.");
        fprintf(f, "\n\n");
    }
    /* bandwidth */
    fprintf(f, "<a id=\"bandwidth\"></a>\n\n## Bandwidth (minimal-bytes model)\n\n");
    double bytes = 0, t = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c->cat || isnan(r->bytes) || !(r->time_us > 0)) continue;
        bytes += r->bytes * r->count;
        t += r->time_us;
    }
    if (!(t > 0)) {
        fprintf(f, "No batch norm row with a bytes model in this trace.\n\n");
        return;
    }
    double tbs = bytes / (t * 1e-6) / 1e12;
    fprintf(f,
            "Bytes per call are the minimal bytes of REFERENCE.md section 2 (forward training 3 N, inference 2 N, "
            "backward 5 N elements x bytes per element, plus O(C) parameters). All batch norm rows with a model: "
            "%.3f GB in %s = **%.3f TB/s**",
            bytes / 1e9, jv_md_time(tb, sizeof tb, t), tbs);
    if (d->has_hw)
        fprintf(f, " = %.1f %% of HBM (%.2f TB/s)", 100.0 * tbs * 1e3 / d->hw.mem_bw_gbps, d->hw.mem_bw_gbps / 1e3);
    if (!isnan(d->baseline.tbs))
        fprintf(f, " = %.2fx the trace's elementwise baseline (%.3f TB/s)", tbs / d->baseline.tbs, d->baseline.tbs);
    fprintf(f, ".\n\n");
    if (!isnan(d->baseline.tbs) && d->baseline.tbs > tbs) {
        double at_base = bytes / (d->baseline.tbs * 1e12) * 1e6, g = t - at_base;
        fprintf(f,
                "At the elementwise baseline the same bytes would take %s: %s less (%.1f %% of GPU kernel time).\n\n",
                jv_md_time(tb, sizeof tb, at_base), jv_md_time(gb, sizeof gb, g),
                d->total_us > 0 ? 100.0 * g / d->total_us : 0.0);
        if (d->total_us > 0 && 100.0 * t / d->total_us >= 5) {
            char issue[512], action[640], impact[384];
            snprintf(issue, sizeof issue,
                     "Batch norm moves its minimal bytes at %.3f TB/s, %.2fx the trace's elementwise baseline (%.3f "
                     "TB/s); %d of %d rows run PyTorch's native kernels%s",
                     tbs, tbs / d->baseline.tbs, d->baseline.tbs, n_native, rows,
                     n_bf16 ? " (bf16 inputs: no cuDNN/MIOpen path)" : "");
            snprintf(action, sizeof action,
                     "A: in inference fold BN into the convolution; in training try torch.compile (BN + ReLU fused) or "
                     "channels_last inputs, measured per shape with the replay package. B: the kernel team replays "
                     "the BN ops (`jarvis-replay replay_package.zip --op N`, see the findings) against the baseline.");
            snprintf(impact, sizeof impact,
                     "%.2f ms (%.1f %% of GPU kernel time) if BN reached the elementwise baseline", g / 1e3,
                     d->total_us > 0 ? 100.0 * g / d->total_us : 0.0);
            finding_add(c->out, &c->nomem, c->cat, "bandwidth", "Batch norm bandwidth", t, g, issue, action, impact);
        }
    }
    fprintf(
        f, "<a id=\"paths\"></a>\n\n## Optimization paths\n\n### A: fusion or algorithmic (model code may change)\n\n");
    fprintf(f, "- Inference: fold batch norm into the preceding convolution (no BN kernel left).\n");
    fprintf(f,
            "- Training: torch.compile fuses the normalize step with the activation; channels_last inputs select "
            "PyTorch's channels-last BN kernels%s.\n",
            n_bf16 ? "; a non-bf16 BN input (e.g. keeping BN in fp32 under autocast) makes cuDNN / MIOpen eligible, a "
                     "numerics and speed trade-off to measure"
                   : "");
    fputc('\n', f);
}

/* ---------- elementwise ---------- */

static void write_ew(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    char tb[32], t2[32], t3[32];
    fprintf(f, "<a id=\"fusion\"></a>\n\n## Fusion candidates\n\n");
    if (!d->nfusion) {
        fprintf(f, "No module (nn.Module events) or parent op whose instances run two or more elementwise kernels on "
                   "average.\n\n");
    } else {
        fprintf(f,
                "Instances found through %s. Projected fused time assumes one fused kernel per instance that costs "
                "the mean time of one of its elementwise kernels (it reads the inputs and writes the output once "
                "instead of once per kernel): fused = instances x elementwise time / elementwise kernels.\n\n",
                d->fusion[0].from_module ? "nn.Module python events" : "the parent op of the elementwise kernels");
        fprintf(f,
                "| # | Module or parent | Instances | Elementwise kernels | Kernels per instance | Elementwise time "
                "| Per instance | Fused (projected) | Saving | Saving, %% of GPU kernel time | Ops | Example UID |\n");
        fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
        for (size_t i = 0; i < d->nfusion && i < TOP_ROWS; i++) {
            const jv_dfusion *x = &d->fusion[i];
            double fused = x->ew_kernels ? x->instances * x->ew_us / x->ew_kernels : x->ew_us, g = x->ew_us - fused;
            fprintf(f, "| %zu | ", i + 1);
            jv_md_code(f, x->name, 60, 1);
            fprintf(f, " | %u | %u | %.1f | %s | %.1f µs | %s | %s | %.2f %% | ", x->instances, x->ew_kernels,
                    (double)x->ew_kernels / x->instances, jv_md_time(tb, sizeof tb, x->ew_us), x->ew_us / x->instances,
                    jv_md_time(t2, sizeof t2, fused), jv_md_time(t3, sizeof t3, g),
                    d->total_us > 0 ? 100.0 * g / d->total_us : 0.0);
            jv_md_code(f, x->ops, 90, 1);
            fprintf(f, " | %u |\n", x->example_uid);
            if (i < 3 && d->total_us > 0 && g >= 0.005 * d->total_us) {
                char issue[512], action[640], impact[384];
                snprintf(issue, sizeof issue,
                         "`%.60s`: %u instances run %u elementwise kernels (%.1f per instance, %s in all): %.200s",
                         x->name, x->instances, x->ew_kernels, (double)x->ew_kernels / x->instances,
                         jv_md_time(tb, sizeof tb, x->ew_us), x->ops);
                snprintf(action, sizeof action,
                         "A: fuse each instance into one kernel (torch.compile on the module, or a hand-fused "
                         "kernel%s); call stack of one instance: `jarvis-analyze %s --call-stack %u`.",
                         strstr(x->name, "Norm") ? ", e.g. a fused RMSNorm / LayerNorm" : "", d->trace, x->example_uid);
                snprintf(impact, sizeof impact,
                         "%s (%.1f %% of GPU kernel time), assuming a fused kernel costs one of its kernels", t3,
                         100.0 * g / d->total_us);
                char title[96];
                snprintf(title, sizeof title, "Elementwise fusion: %.60s", x->name);
                finding_add(c->out, &c->nomem, c->cat, "fusion", title, x->ew_us, g, issue, action, impact);
            }
        }
        fputc('\n', f);
    }
    fprintf(
        f, "<a id=\"paths\"></a>\n\n## Optimization paths\n\n### A: fusion or algorithmic (model code may change)\n\n");
    fprintf(
        f,
        "- Fuse chains of elementwise ops (torch.compile, fused module kernels): the candidates [above](#fusion).\n");
    fprintf(f, "- Remove dtype casts (`aten::copy_` / `aten::to` between dtypes) where the model allows.\n\n");
}

/* ---------- GEMM ---------- */

static void write_gemm(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    char tb[32], kb[160];
    fprintf(f, "<a id=\"shapes\"></a>\n\n## Shapes\n\n");
    fprintf(f,
            "M, N, K (and batch B) from the perf model; *skinny*: min(M, N) <= 32; *small*: < 1 GFLOP per call.\n\n");
    fprintf(
        f,
        "| # | Op | B | M | N | K | GFLOP per call | Calls | Time | Achieved | %% of peak (spec) | Flag | Kernel |\n");
    fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    int k = 0, small = 0;
    double small_us = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c->cat) continue;
        double M = param_num(r, "M"), N = param_num(r, "N"), K = param_num(r, "K"), B = param_num(r, "B");
        int skinny = !isnan(M) && !isnan(N) && (M <= 32 || N <= 32), sm = !isnan(r->flops) && r->flops < 1e9;
        if (skinny || sm) {
            small++;
            small_us += r->time_us;
        }
        if (k >= TOP_ROWS) continue;
        const jv_row_eval e = r->eval;
        fprintf(f, "| %d | ", ++k);
        jv_md_code(f, r->name, 50, 1);
        fprintf(f, " | %.0f | %.0f | %.0f | %.0f | %.3f | %u | %s | ", isnan(B) ? 1 : B, M, N, K, r->flops / 1e9,
                r->count, jv_md_time(tb, sizeof tb, r->time_us));
        achieved_cell(f, &e);
        fputs(" | ", f);
        pct_cell(f, e.pct);
        fprintf(f, " (%s) | %s%s%s | ", r->spec[0] ? r->spec : "n/a", skinny ? "skinny" : "", skinny && sm ? ", " : "",
                sm ? "small" : "");
        if (r->nkernels) jv_md_code(f, jv_md_kernel_short(r->kernels[0].name, kb, sizeof kb), 70, 1);
        fputs(" |\n", f);
    }
    if (!k) fprintf(f, "| - | none | | | | | | | | | | | |\n");
    fputc('\n', f);
    if (small)
        fprintf(f,
                "%d skinny or small GEMM rows take %s: they cannot fill the GPU; batching them (bmm, grouped GEMM) "
                "or fusing them into neighbours is path A.\n\n",
                small, jv_md_time(tb, sizeof tb, small_us));
    fprintf(
        f, "<a id=\"paths\"></a>\n\n## Optimization paths\n\n### A: fusion or algorithmic (model code may change)\n\n");
    fprintf(f, "- Batch small GEMMs of the same shape (bmm / grouped GEMM), fuse bias and activation epilogues, keep "
               "dimensions multiples of 64 or 128.\n\n");
}

/* ---------- driver ---------- */

static jv_status write_category(const jv_digest *d, jv_dcat cat, const char *outdir, jv_finding_list *out,
                                jv_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/category_findings/%s_findings.md", outdir, jv_dcat_name(cat));
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    cctx c = {d, cat, o.f, out, {0}, 0, 0};
    if (!d->cat_rows[cat]) {
        fprintf(o.f,
                "<a id=\"top\"></a>\n\n# %s findings: %s\n\nThis trace has no %s ops (0 of %zu rows of "
                "unified_perf_summary); see the [standalone analysis](../standalone_analysis_fair.md).\n",
                jv_dcat_title(cat), d->trace_name, jv_dcat_title(cat), d->nrows);
        return jv_out_commit(&o, err);
    }
    write_header(&c);
    pick_significant(&c);
    write_ops_table(&c);
    if (cat == JV_DCAT_CONV)
        write_conv(&c);
    else if (cat == JV_DCAT_BN)
        write_bn(&c);
    else if (cat == JV_DCAT_EW)
        write_ew(&c);
    else
        write_gemm(&c);
    write_path_b(&c);
    write_impact(&c);
    if (c.nomem) {
        jv_out_abort(&o);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory writing %s", path);
    }
    return jv_out_commit(&o, err);
}

jv_status jv_findings_write(const jv_digest *d, const char *outdir, jv_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/category_findings", outdir);
    JV_CHECK(jv_mkdir_p(path, err));
    jv_finding_list fl = {0};
    jv_status s = JV_OK;
    for (size_t c = 0; s == JV_OK && c < sizeof CATS / sizeof CATS[0]; c++)
        s = write_category(d, CATS[c], outdir, &fl, err);
    if (s == JV_OK) s = jv_standalone_write(d, &fl, outdir, err);
    free(fl.v);
    return s;
}
