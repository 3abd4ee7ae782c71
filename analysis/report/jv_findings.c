/* jv_findings: category_findings/<cat>_findings.md from the digest and its
 * findings (model/jv_findings_model.h, decided in jv_digest_finish): the
 * category's significance, per-op efficiency against the roofline and the
 * trace's elementwise baseline, verdicts, the two optimization paths and an
 * impact projection; convolution layout conversions and kernel sizes, batch
 * norm implementation and bandwidth, elementwise fusion candidates, GEMM
 * shapes. A printer: it formats what the model decided. */
#include "jv_findings.h"

#include <math.h>
#include <string.h>

#include "jv_findings_model.h"
#include "jv_output.h"
#include "jv_standalone.h"
#include "jv_tensor.h"

#define TOP_ROWS 15 /* rows in a per-op table */

static const jv_dcat CATS[] = {JV_DCAT_GEMM, JV_DCAT_CONV, JV_DCAT_BN, JV_DCAT_EW};

/* The type of a row's first argument: "bf16", "fp16", "fp32", "fp64", else its recorded type ("long int"),
 * "" when unknown. */
static const char *type_name(const jv_drow *r, const jv_frow *x) {
    return x->dtype != JV_DT_UNKNOWN ? jv_dtype_short(x->dtype) : r->type0;
}

/* The name of a layout in the findings. */
static const char *layout_name(const jv_flayout *l) {
    switch (l->kind) {
    case JV_FLAYOUT_UNKNOWN: return "unknown";
    case JV_FLAYOUT_NO_STRIDES: return "unknown (no strides)";
    case JV_FLAYOUT_CONTIGUOUS:
        return l->ndim == 4 ? "NCHW (contiguous)" : l->ndim == 5 ? "NCDHW (contiguous)" : "contiguous";
    case JV_FLAYOUT_CHANNELS_LAST: return "channels_last";
    case JV_FLAYOUT_OTHER: break;
    }
    return jv_layout_name(l->layout);
}

/* ---------- per-category writer ---------- */

typedef struct {
    const jv_digest *d;
    const jv_dfindings *fx; /* the digest's findings */
    jv_dcat cat;
    FILE *f;
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
        fprintf(f, " | %s | %u | %s | %.1f %% | ", type_name(r, &c->fx->rows[i]), r->count,
                jv_md_time(tb, sizeof tb, r->time_us),
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
    fprintf(f, "; *below peak*: the rest.");
    if (d->baseline.state != JV_BASE_OK) {
        fputs(" This trace has no elementwise baseline (", f);
        jv_print_no_baseline(f, d);
        fputs("), so no row is judged hardware-limited and vs baseline is n/a.", f);
    }
    fputs(" Rows whose GPU time is mostly memcpy/memset are not judged against the HBM roofline: a host transfer "
          "runs over the host link, a device copy or memset on the copy engine or the runtime.\n\n",
          f);
}

static void write_impact(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    const jv_fcat *fc = &c->fx->cat[c->cat];
    fprintf(f, "<a id=\"impact\"></a>\n\n## Impact projection\n\n");
    if (!fc->nsig) {
        fprintf(f,
                "No op of this category has both a roofline and >= %.0f %% of GPU kernel time below 80 %% "
                "efficiency: nothing to project.\n\n",
                JV_FIND_SIGNIFICANT_PCT);
        return;
    }
    fprintf(f,
            "Op time at a target efficiency = calls x roofline time / target; saving = time now - that time; "
            "share = saving / all GPU kernel time (%.3f ms). Efficiency now = calls x roofline time / kernel time.\n\n",
            d->total_us / 1e3);
    for (int k = 0; k < fc->nsig; k++) {
        const jv_fsig *sg = &fc->sig[k];
        const jv_drow *r = &d->rows[sg->row];
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
        for (int t = 0; t < JV_FIND_NTARGETS; t++) {
            const jv_fproj *p = &sg->proj[t];
            if (p->above)
                fprintf(f, "| %.0f %% | already above | - | - |\n", p->target);
            else
                fprintf(f, "| %.0f %% | %.1f | %.3f | %.2f %% |\n", p->target, p->time_us, p->gain_us / 1e3, p->share);
        }
        fputc('\n', f);
    }
}

/* path B: the significant ops of the category, with their kernels and where to replay them */
static void write_path_b(cctx *c) {
    const jv_digest *d = c->d;
    FILE *f = c->f;
    fprintf(f, "<a id=\"path-b\"></a>\n\n### B: kernel only (same model code)\n\n");
    const jv_fcat *fc = &c->fx->cat[c->cat];
    int any = 0;
    for (int k = 0; k < fc->nsig; k++) {
        const jv_drow *r = &d->rows[fc->sig[k].row];
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
    if (d->baseline.state == JV_BASE_OK) {
        fprintf(f, "| Elementwise baseline (add/mul/copy_ kernels, >= 1 MiB per call) | %.3f TB/s", d->baseline.tbs);
        jv_print_baseline_transfers(f, d);
        fputs(" |\n", f);
    } else {
        fputs("| Elementwise baseline | ", f);
        jv_print_no_baseline(f, d);
        fputs(" |\n", f);
    }
    if (!isnan(bp)) fprintf(f, "| Baseline vs HBM peak | %.1f %% |\n", bp);
    fputc('\n', f);
}

/* ---------- convolution ---------- */

static void write_conv(cctx *c) {
    const jv_digest *d = c->d;
    const jv_fconv *cv = &c->fx->conv;
    FILE *f = c->f;
    double cat = d->cat_us[c->cat], lay = cv->layout_us;
    int nchw = cv->nchw, cl = cv->channels_last, other = cv->other, nhwc_kernels = cv->nhwc_kernels;
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
            fprintf(f, " | %s | ", layout_name(&c->fx->rows[i].layout));
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
    if (cv->finding >= 0) {
        fprintf(f,
                "Recommendation: channels_last (`model = model.to(memory_format=torch.channels_last)`, and the "
                "inputs with `x.to(memory_format=torch.channels_last)`): the conversions are at most %s.\n\n",
                jv_md_time(tb, sizeof tb, lay));
    } else if (cv->internal) {
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
    static const char *const G[] = {"Large (>= 5x5)", "Small (1x1, 3x3)", "Unknown weight shape"};
    for (int g = 0; g < JV_KSIZE_COUNT; g++) {
        const jv_fksize *k = &cv->ksize[g];
        if (g == JV_KSIZE_UNKNOWN && !k->rows) continue;
        fprintf(f, "| %s | %d | %d | %s | %.1f %% | %.1f µs | ", G[g], k->rows, k->compute_bound,
                jv_md_time(tb, sizeof tb, k->time_us), cat > 0 ? 100.0 * k->time_us / cat : 0.0, k->roof_us);
        if (!isnan(k->eff))
            fprintf(f, "%.1f %% |\n", k->eff);
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

static const char *impl_name(jv_impl i) {
    switch (i) {
    case JV_IMPL_NATIVE: return "native (PyTorch)";
    case JV_IMPL_CUDNN: return "cuDNN";
    case JV_IMPL_MIOPEN: return "MIOpen";
    case JV_IMPL_UNKNOWN: break;
    }
    return "unknown";
}

static void write_bn(cctx *c) {
    const jv_digest *d = c->d;
    const jv_fbn *b = &c->fx->bn;
    FILE *f = c->f;
    char tb[32], gb[32], kb[160];
    fprintf(f, "<a id=\"implementation\"></a>\n\n## Implementation\n\n");
    fprintf(f, "| # | Op | Input Dims | Type | Layout | Mode | Direction | Implementation | Kernels | Time |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---:|\n");
    int k = 0;
    for (size_t i = 0; i < d->nrows && k < TOP_ROWS; i++) {
        const jv_drow *r = &d->rows[i];
        const jv_frow *x = &c->fx->rows[i];
        if (r->cat != c->cat) continue;
        fprintf(f, "| %d | ", ++k);
        jv_md_code(f, r->name, 60, 1);
        fputs(" | ", f);
        jv_md_code(f, r->dims, 50, 1);
        fprintf(f, " | %s | %s | %s | %s | %s | ", type_name(r, x), layout_name(&x->layout),
                x->training > 0    ? "training"
                : x->training == 0 ? "eval"
                                   : "unknown",
                x->backward ? "backward" : "forward", impl_name(x->impl));
        for (int q = 0; q < r->nkernels && q < 2; q++) {
            if (q) fputs(", ", f);
            jv_md_code(f, jv_md_kernel_short(r->kernels[q].name, kb, sizeof kb), 60, 1);
        }
        fprintf(f, " | %s |\n", jv_md_time(tb, sizeof tb, r->time_us));
    }
    if (!k) fprintf(f, "| - | none | | | | | | | | |\n");
    fputc('\n', f);
    if (b->rows) {
        fprintf(f, "Why: %d of %d rows run PyTorch's native kernels (%s).", b->native, b->rows,
                jv_md_time(tb, sizeof tb, b->native_us));
        if (b->bf16)
            fprintf(f,
                    " %d rows have bf16 inputs: PyTorch uses cuDNN and MIOpen batch norm only for non-bf16 inputs, so "
                    "bf16 runs the native kernels on both vendors.",
                    b->bf16);
        if (b->why_cl) fprintf(f, " %d rows are channels_last: MIOpen refuses channels_last.", b->channels_last);
        if (b->why_fp64) fprintf(f, " %d rows are double: MIOpen refuses double.", b->fp64);
        if (b->no_affine)
            fprintf(f,
                    " %d native rows have no affine weight and bias (Input Dims `()`): PyTorch's cuDNN and MIOpen "
                    "paths need both.",
                    b->no_affine);
        if (b->why_other)
            fprintf(f, " For the other native rows the dtype allowed a vendor library; the trace does not show which "
                       "other condition (size limits, build options) made PyTorch pick the native path.");
        fprintf(f, "\n\n");
    }
    /* bandwidth */
    fprintf(f, "<a id=\"bandwidth\"></a>\n\n## Bandwidth (minimal-bytes model)\n\n");
    if (!b->has_bw) {
        fprintf(f, "No batch norm row with a bytes model in this trace.\n\n");
        return;
    }
    fprintf(f,
            "Bytes per call are the minimal bytes of REFERENCE.md section 2 (forward training 3 N, inference 2 N, "
            "backward 5 N elements x bytes per element, plus O(C) parameters). All batch norm rows with a model: "
            "%.3f GB in %s = **%.3f TB/s**",
            b->bytes / 1e9, jv_md_time(tb, sizeof tb, b->time_us), b->tbs);
    if (d->has_hw) fprintf(f, " = %.1f %% of HBM (%.2f TB/s)", b->pct_hbm, d->hw.mem_bw_gbps / 1e3);
    if (!isnan(b->vs_base))
        fprintf(f, " = %.2fx the trace's elementwise baseline (%.3f TB/s)", b->vs_base, d->baseline.tbs);
    fprintf(f, ".\n\n");
    if (d->baseline.state != JV_BASE_OK) {
        fputs("Not compared with an elementwise baseline: ", f);
        jv_print_no_baseline(f, d);
        fputs(".\n\n", f);
    }
    if (b->below_base)
        fprintf(f,
                "At the elementwise baseline the same bytes would take %s: %s less (%.1f %% of GPU kernel time).\n\n",
                jv_md_time(tb, sizeof tb, b->base_us), jv_md_time(gb, sizeof gb, b->gain_us), b->share);
    fprintf(
        f, "<a id=\"paths\"></a>\n\n## Optimization paths\n\n### A: fusion or algorithmic (model code may change)\n\n");
    fprintf(f, "- Inference: fold batch norm into the preceding convolution (no BN kernel left).\n");
    fprintf(f,
            "- Training: torch.compile fuses the normalize step with the activation; channels_last inputs select "
            "PyTorch's channels-last BN kernels%s.\n",
            b->bf16 ? "; a non-bf16 BN input (e.g. keeping BN in fp32 under autocast) makes cuDNN / MIOpen eligible, a "
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
            const jv_ffusion *p = &c->fx->fusion[i];
            fprintf(f, "| %zu | ", i + 1);
            jv_md_code(f, x->name, 60, 1);
            fprintf(f, " | %u | %u | %.1f | %s | %.1f µs | %s | %s | %.2f %% | ", x->instances, x->ew_kernels,
                    (double)x->ew_kernels / x->instances, jv_md_time(tb, sizeof tb, x->ew_us), x->ew_us / x->instances,
                    jv_md_time(t2, sizeof t2, p->fused_us), jv_md_time(t3, sizeof t3, p->gain_us), p->share);
            jv_md_code(f, x->ops, 90, 1);
            fprintf(f, " | %u |\n", x->example_uid);
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
    int k = 0;
    for (size_t i = 0; i < d->nrows && k < TOP_ROWS; i++) {
        const jv_drow *r = &d->rows[i];
        const jv_frow *x = &c->fx->rows[i];
        if (r->cat != c->cat) continue;
        double M = x->M, N = x->N, K = x->K, B = x->B;
        int skinny = x->skinny, sm = x->small;
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
    if (c->fx->gemm.small_rows)
        fprintf(f,
                "%d skinny or small GEMM rows take %s: they cannot fill the GPU; batching them (bmm, grouped GEMM) "
                "or fusing them into neighbours is path A.\n\n",
                c->fx->gemm.small_rows, jv_md_time(tb, sizeof tb, c->fx->gemm.small_us));
    fprintf(
        f, "<a id=\"paths\"></a>\n\n## Optimization paths\n\n### A: fusion or algorithmic (model code may change)\n\n");
    fprintf(f, "- Batch small GEMMs of the same shape (bmm / grouped GEMM), fuse bias and activation epilogues, keep "
               "dimensions multiples of 64 or 128.\n\n");
    if (!d->nattention) return;
    fprintf(f, "<a id=\"attention\"></a>\n\n### Eager attention\n\n");
    fprintf(f,
            "Modules (or parent ops) that compute attention op by op: a matrix product, a softmax, a matrix product, "
            "with only lighter ops between (scaling, masking, dropout, layout copies); the score matrix goes to "
            "memory and back. One fused kernel (`scaled_dot_product_attention`: flash or memory-efficient) keeps it "
            "on chip and saves at least the time between the products.\n\n");
    fprintf(f, "| Module / parent op | Sequences | Time (products included) | Between the products | First product's "
               "inputs | Call stack |\n|---|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < d->nattention; i++) {
        const jv_dattention *a = &d->attention[i];
        char t2[32];
        fprintf(f, "| `%s` | %u | %s | %s | %s | `jarvis-analyze %s --call-stack %u` |\n", a->name, a->sequences,
                jv_md_time(tb, sizeof tb, a->total_us), jv_md_time(t2, sizeof t2, a->between_us),
                a->dims[0] ? a->dims : "-", d->trace, a->example_uid);
    }
    fputc('\n', f);
}

/* ---------- driver ---------- */

static jv_status write_category(const jv_digest *d, jv_dcat cat, const char *outdir, jv_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/category_findings/%s_findings.md", outdir, jv_dcat_name(cat));
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    cctx c = {d, jv_digest_findings(d), cat, o.f};
    if (!d->cat_rows[cat]) {
        fprintf(o.f,
                "<a id=\"top\"></a>\n\n# %s findings: %s\n\nThis trace has no %s ops (0 of %zu rows of "
                "unified_perf_summary); see the [standalone analysis](../standalone_analysis_fair.md).\n",
                jv_dcat_title(cat), d->trace_name, jv_dcat_title(cat), d->nrows);
        return jv_out_commit(&o, err);
    }
    write_header(&c);
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
    return jv_out_commit(&o, err);
}

jv_status jv_findings_write(const jv_digest *d, const char *outdir, jv_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/category_findings", outdir);
    JV_CHECK(jv_mkdir_p(path, err));
    for (size_t c = 0; c < sizeof CATS / sizeof CATS[0]; c++)
        JV_CHECK(write_category(d, CATS[c], outdir, err));
    return jv_standalone_write(d, outdir, err);
}
