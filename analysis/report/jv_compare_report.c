/* jv_compare_report: the comparative reports of jv_compare (see
 * jv_compare.c for the row matching): the fair and the rough markdown
 * reports, written by jv_compare_write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_compare.h"
#include "jv_escape.h"
#include "jv_findings_model.h"
#include "jv_output.h"
#include "jv_quality_md.h"
#include "jv_row_eval.h"
#include "jv_sort.h"
#include "jv_standalone.h"

/* Writes s as markdown text, "unknown" when empty. */
static void md_text(FILE *f, const char *s) {
    if (!s || !*s)
        fputs("unknown", f);
    else
        jv_md_text(f, s);
}

/* Formats v with prec decimals into b ("n/a" for NaN). */
static const char *fnum(char *b, size_t cap, double v, int prec) {
    if (!isfinite(v))
        snprintf(b, cap, "n/a");
    else
        snprintf(b, cap, "%.*f", prec, v);
    return b;
}

#define NB       40
#define FN(v, p) fnum((char[NB]){0}, NB, (v), (p))

/* a row's roofline bound as the comparison writes it ("none" without a roofline) */
static const char *bound_text(jv_bound b) {
    return b != JV_BOUND_NONE ? jv_bound_name(b) : "none";
}

static const char *bound_word(jv_cmp_bound b) {
    static const char *const W[] = {"unknown", "memory", "compute", "mixed"};
    return W[b];
}

static const char *dev_of(const jv_digest *d) {
    if (d->device && d->device[0]) return d->device;
    if (d->has_hw) return d->hw.name;
    return "unknown device";
}

static const char *flag_word(int flag) {
    return flag < 0 ? "unknown" : flag ? "flagged" : "no";
}

/* The vendor library (or kernel source) a row's op runs through on a side. */
static const char *library_of(const jv_digest *d, const jv_drow *r) {
    int amd = d->is_amd;
    int native = 0;
    for (int k = 0; k < r->nkernels; k++)
        if (strstr(r->kernels[k].name, "at::native")) native = 1;
    if (r->cat == JV_DCAT_GEMM) return amd ? "hipBLASLt / rocBLAS" : "cuBLAS / cuBLASLt";
    if (r->cat == JV_DCAT_CONV) return amd ? "MIOpen" : "cuDNN";
    if (r->cat == JV_DCAT_BN) return native ? "PyTorch's native batch-norm kernels" : amd ? "MIOpen" : "cuDNN";
    const jv_family *f = jv_family_get(r->family_id);
    if (f && f->findings.library_nvidia) return amd ? f->findings.library_amd : f->findings.library_nvidia;
    return "PyTorch's kernels for this op";
}

static const char *profiler_of(const jv_digest *d) {
    return d->is_amd ? "rocprof" : "Nsight Compute";
}

/* ---------- fair report ---------- */

typedef struct {
    const jv_digest *T, *R;
    const jv_cmp *c;
    size_t *by_diff;   /* pair indices by |diff_us|, largest first */
    size_t *by_excess; /* flagged pair indices by excess time, largest first */
    size_t nexcess;
    uint8_t *detailed; /* per pair: has a detail section in the fair report */
} rctx;

/* the peak policy paragraph (jv_peak_policy_text) */
static void write_policy(FILE *f, const jv_digest *T, const jv_digest *R) {
    char pol[1024];
    jv_md_text(f, jv_peak_policy_text(pol, sizeof pol, T, R));
    fputs("\n\n", f);
}

static void pct_cell(FILE *f, double part, double whole) {
    if (whole > 0)
        fprintf(f, "%.1f %%", 100 * part / whole);
    else
        fputs("n/a", f);
}

static void ratio_cell(FILE *f, double a, double b) {
    if (b > 0 && isfinite(a))
        fprintf(f, "%.3f", a / b);
    else
        fputs("n/a", f);
}

static void metrics_table(FILE *f, const rctx *x) {
    const jv_digest *T = x->T, *R = x->R;
    const jv_cmp *c = x->c;
    fputs("| Metric | Target: ", f);
    md_text(f, dev_of(T));
    fputs(" | Reference: ", f);
    md_text(f, dev_of(R));
    fputs(" | Target / reference |\n|---|---|---|---|\n", f);
    fputs("| Trace | ", f);
    jv_md_code(f, T->trace_name, 80, 1);
    fputs(" | ", f);
    jv_md_code(f, R->trace_name, 80, 1);
    fputs(" |  |\n", f);
    fputs("| Roofline GPU | ", f);
    md_text(f, T->has_hw ? T->hw.name : "none");
    fputs(" | ", f);
    md_text(f, R->has_hw ? R->hw.name : "none");
    fputs(" |  |\n", f);
    if (T->has_hw && R->has_hw) {
        fprintf(f, "| HBM bandwidth (roofline) | %g GB/s | %g GB/s | ", T->hw.mem_bw_gbps, R->hw.mem_bw_gbps);
        ratio_cell(f, T->hw.mem_bw_gbps, R->hw.mem_bw_gbps);
        fputs(" |\n", f);
    }
    fprintf(f, "| GPU kernel time (sum of all ops) | %.3f ms | %.3f ms | ", T->total_us / 1e3, R->total_us / 1e3);
    ratio_cell(f, T->total_us, R->total_us);
    fputs(" |\n", f);
    fprintf(f, "| GPU timeline total | %.3f ms | %.3f ms | ", T->tl.total / 1e6, R->tl.total / 1e6);
    ratio_cell(f, (double)T->tl.total, (double)R->tl.total);
    fputs(" |\n", f);
    struct {
        const char *name;
        int64_t t, r;
    } tl[] = {{"Computation (share of timeline)", T->tl.computation, R->tl.computation},
              {"Idle (share of timeline)", T->tl.idle, R->tl.idle},
              {"Exposed communication", T->tl.exposed_comm, R->tl.exposed_comm},
              {"Exposed memcpy", T->tl.exposed_memcpy, R->tl.exposed_memcpy}};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++) {
        if (i >= 2 && !tl[i].t && !tl[i].r) continue;
        fprintf(f, "| %s | ", tl[i].name);
        pct_cell(f, (double)tl[i].t, (double)T->tl.total);
        fputs(" | ", f);
        pct_cell(f, (double)tl[i].r, (double)R->tl.total);
        fputs(" |  |\n", f);
    }
    for (int k = 0; k < JV_DCAT_COUNT; k++) {
        fprintf(f, "| %s (share of kernel time) | %.3f ms (", jv_dcat_title((jv_dcat)k), T->cat_us[k] / 1e3);
        pct_cell(f, T->cat_us[k], T->total_us);
        fprintf(f, ") | %.3f ms (", R->cat_us[k] / 1e3);
        pct_cell(f, R->cat_us[k], R->total_us);
        fputs(") | ", f);
        ratio_cell(f, T->cat_us[k], R->cat_us[k]);
        fputs(" |\n", f);
    }
    fprintf(f, "| Ops (unified rows) | %zu | %zu |  |\n", T->nrows, R->nrows);
    fprintf(f, "| Matched pairs | %zu | %zu |  |\n", c->npairs, c->npairs);
    fprintf(f, "| Matching coverage (matched / GPU kernel time) | %s %% | %s %% |  |\n", FN(c->t_coverage, 2),
            FN(c->r_coverage, 2));
    double ft = 0;
    for (size_t i = 0; i < c->npairs; i++)
        if (c->pairs[i].flag == 1) ft += T->rows[c->pairs[i].t].time_us;
    fprintf(f, "| Flagged pairs (per-call ratio > %.2f × expected) | %zu (%.3f ms of target time) |  |  |\n",
            JV_CMP_FLAG_FACTOR, c->nflagged, ft / 1e3);
}

static void pair_title(FILE *f, const rctx *x, size_t i) {
    const jv_drow *t = &x->T->rows[x->c->pairs[i].t];
    jv_md_code(f, t->name, 80, 0);
    fputs(" ", f);
    jv_md_code(f, t->dims, 100, 0);
}

static void deltas_table(FILE *f, const rctx *x, size_t top) {
    const jv_cmp *c = x->c;
    fputs("| Rank | Op | Input Dims | Target (ms) | Reference (ms) | Difference (ms) | Ratio per call | "
          "Expected ratio | Bound | Flag | Detail |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (size_t k = 0; k < top && k < c->npairs; k++) {
        size_t i = x->by_diff[k];
        const jv_cmp_pair *p = &c->pairs[i];
        const jv_drow *t = &x->T->rows[p->t], *r = &x->R->rows[p->r];
        fprintf(f, "| %zu | ", k + 1);
        jv_md_code(f, t->name, 60, 1);
        if (p->renamed) {
            fputs(" / ", f);
            jv_md_code(f, r->name, 60, 1);
        }
        fputs(" | ", f);
        jv_md_code(f, t->dims, 70, 1);
        fprintf(f, " | %.3f | %.3f | %+.3f | %s | %s | %s | %s | [pair %zu](#pair-%zu) |\n", t->time_us / 1e3,
                r->time_us / 1e3, p->diff_us / 1e3, FN(p->ratio_call, 3), FN(p->expected, 3), bound_word(p->bound),
                flag_word(p->flag), i + 1, i + 1);
    }
}

static void recommendations(FILE *f, const rctx *x) {
    const jv_digest *T = x->T, *R = x->R;
    const jv_cmp *c = x->c;
    int n = 0;
    for (size_t k = 0; k < x->nexcess && k < 5; k++) {
        size_t i = x->by_excess[k];
        const jv_cmp_pair *p = &c->pairs[i];
        const jv_drow *t = &T->rows[p->t];
        fprintf(f, "%d. **", ++n);
        jv_md_code(f, t->name, 70, 0);
        fputs("** ", f);
        jv_md_code(f, t->dims, 90, 0);
        fprintf(f, "\n   - **Issue**: %.2f µs per call on ", p->t_call_us);
        md_text(f, dev_of(T));
        fprintf(f, " against %.2f µs on ", p->r_call_us);
        md_text(f, dev_of(R));
        fprintf(f, ": ratio %.3f where the hardware (%s-bound) leads one to expect %.3f (%.2f × the expectation)",
                p->ratio_call, bound_word(p->bound), p->expected, p->vs_expected);
        if (p->question)
            fprintf(f, "; a slowdown of %.0f %% that is a kernel-selection question for %s on the target", p->delta_pct,
                    library_of(T, t));
        fputs(".\n   - **Action**: ", f);
        if (t->replay_op >= 0)
            fprintf(f,
                    "replay the op on both GPUs (`jarvis-replay replay_package.zip --op %d`) and profile it "
                    "with %s and %s to see which kernels the libraries choose for these shapes",
                    t->replay_op, profiler_of(T), profiler_of(R));
        else
            fprintf(f,
                    "profile the op on both GPUs with %s and %s (it is not in the replay package) to see which "
                    "kernels run for these shapes",
                    profiler_of(T), profiler_of(R));
        fputs(".\n", f);
        fprintf(f,
                "   - **Impact**: at the expected ratio the target would spend %.3f ms instead of %.3f ms on it, "
                "%.3f ms (%.1f %% of the target's GPU kernel time) less. [Detail](#pair-%zu)\n",
                (t->time_us - p->excess_us) / 1e3, t->time_us / 1e3, p->excess_us / 1e3,
                T->total_us > 0 ? 100 * p->excess_us / T->total_us : 0.0, i + 1);
        fputs("   - **Confidence**: medium: both times measured; the saving assumes the target reaches the "
              "reference's time scaled by the hardware ratio (",
              f);
        md_text(f, p->basis);
        fputs(")\n", f);
    }
    int low_t = isfinite(c->t_coverage) && c->t_coverage < 95, low_r = isfinite(c->r_coverage) && c->r_coverage < 95;
    if (low_t || low_r) {
        fprintf(f, "%d. **Unmatched GPU time**\n", ++n);
        fprintf(f,
                "   - **Issue**: %.3f ms of the target's and %.3f ms of the reference's GPU kernel time have no "
                "counterpart by op name and shapes (coverage %s %% and %s %%).\n",
                (T->total_us - c->t_matched_us) / 1e3, (R->total_us - c->r_matched_us) / 1e3, FN(c->t_coverage, 2),
                FN(c->r_coverage, 2));
        fputs("   - **Action**: check whether both traces ran the same model code and inputs (the unmatched rows "
              "may be different ops or shapes), or whether the vendors' op variants need a further name rule.\n",
              f);
        fputs("   - **Impact**: the comparison speaks only for the matched part until then. "
              "[Detail](comparative_analysis_rough.md#unmatched-target)\n",
              f);
    }
    if (!n) {
        fprintf(f,
                "1. **No matched op exceeds its hardware expectation**\n"
                "   - **Issue**: none of the %zu matched pairs with a known expectation has a per-call ratio above "
                "%.2f × the expected one.\n"
                "   - **Action**: none from this comparison; look at the largest differences for where the time "
                "goes on each side.\n"
                "   - **Impact**: none expected. [Detail](#largest-differences)\n",
                c->npairs, JV_CMP_FLAG_FACTOR);
    }
}

/* the target's ops with >= JV_FIND_LARGE_PCT of its kernel time: the flagged pair recommended above, or its
 * ratio against the expectation; and what the target's own report recommends for it */
static void large_ops(FILE *f, const rctx *x) {
    const jv_digest *T = x->T;
    const jv_dfindings *fx = jv_digest_findings(T);
    if (!fx->nlarge) return;
    fprintf(f, "\nOps with at least %.0f %% of the target's GPU kernel time:\n\n", JV_FIND_LARGE_PCT);
    for (int i = 0; i < fx->nlarge; i++) {
        uint32_t row = fx->large[i].row;
        const jv_drow *t = &T->rows[row];
        fputs("- ", f);
        jv_md_code(f, t->name, 70, 0);
        fputc(' ', f);
        jv_md_code(f, t->dims, 90, 0);
        fprintf(f, " (%.3f ms, %.1f %%): ", t->time_us / 1e3, T->total_us > 0 ? 100 * t->time_us / T->total_us : 0.0);
        int32_t pi = x->c->pair_of_t[row];
        int place = -1;
        for (size_t k = 0; pi >= 0 && k < x->nexcess && k < 5; k++)
            if (x->by_excess[k] == (size_t)pi) place = (int)k;
        if (place >= 0) {
            fprintf(f, "recommendation %d above; ", place + 1);
        } else if (pi >= 0) {
            const jv_cmp_pair *p = &x->c->pairs[pi];
            if (p->flag >= 0)
                fprintf(f, "ratio %.3f against an expected %.3f (%s); ", p->ratio_call, p->expected,
                        p->flag ? "flagged" : "within the rule");
            else
                fprintf(f, "ratio %.3f, no hardware expectation; ", p->ratio_call);
        } else {
            fputs("unmatched; ", f);
        }
        fputs("on the target alone: ", f);
        jv_print_large_cover(f, T, i, "standalone_analysis_fair.md");
        fputc('\n', f);
    }
}

static void side_kernels(FILE *f, const jv_drow *r) {
    for (int k = 0; k < r->nkernels && k < 3; k++) {
        if (k) fputs("<br>", f);
        jv_md_code(f, r->kernels[k].name, 70, 1);
        fprintf(f, " (%.1f µs)", r->kernels[k].total_us);
    }
    if (r->nkernels_all > 3) fprintf(f, "<br>%d more", r->nkernels_all - 3);
    if (!r->nkernels) fputs("n/a", f);
}

static void detail(FILE *f, const rctx *x, size_t i) {
    const jv_digest *T = x->T, *R = x->R;
    const jv_cmp_pair *p = &x->c->pairs[i];
    const jv_drow *t = &T->rows[p->t], *r = &R->rows[p->r];
    fprintf(f, "<a id=\"pair-%zu\"></a>\n\n### Pair %zu: ", i + 1, i + 1);
    pair_title(f, x, i);
    fputs("\n\n| | Target: ", f);
    md_text(f, dev_of(T));
    fputs(" | Reference: ", f);
    md_text(f, dev_of(R));
    fputs(" |\n|---|---|---|\n| Op | ", f);
    jv_md_code(f, t->name, 90, 1);
    fputs(" | ", f);
    jv_md_code(f, r->name, 90, 1);
    fputs(" |\n| Input Dims | ", f);
    jv_md_code(f, t->dims, 120, 1);
    fputs(" | ", f);
    jv_md_code(f, r->dims, 120, 1);
    fputs(" |\n| Input type | ", f);
    jv_md_code(f, t->types, 120, 1);
    fputs(" | ", f);
    jv_md_code(f, r->types, 120, 1);
    fprintf(f, " |\n| Calls | %u | %u |\n", t->count, r->count);
    fprintf(f, "| Kernel time | %.3f ms | %.3f ms |\n", t->time_us / 1e3, r->time_us / 1e3);
    fprintf(f, "| Per call | %.2f µs | %.2f µs |\n", p->t_call_us, p->r_call_us);
    fprintf(f, "| Achieved | %s TB/s, %s TFLOPS/s | %s TB/s, %s TFLOPS/s |\n", FN(t->tbs, 3), FN(t->tflops, 2),
            FN(r->tbs, 3), FN(r->tflops, 2));
    fprintf(f, "| FLOPS/Byte | %s | %s |\n", FN(t->fpb, 1), FN(r->fpb, 1));
    fputs("| Roofline bound, compute spec | ", f);
    md_text(f, bound_text(t->bound));
    fputs(", ", f);
    md_text(f, t->spec[0] ? t->spec : "none");
    fputs(" | ", f);
    md_text(f, bound_text(r->bound));
    fputs(", ", f);
    md_text(f, r->spec[0] ? r->spec : "none");
    fprintf(f, " |\n| Pct of roofline (mean) | %s%s | %s%s |\n", FN(t->pct, 1), isnan(t->pct) ? "" : " %",
            FN(r->pct, 1), isnan(r->pct) ? "" : " %");
    fputs("| Kernels (largest 3) | ", f);
    side_kernels(f, t);
    fputs(" | ", f);
    side_kernels(f, r);
    fputs(" |\n\n", f);
    fprintf(f,
            "Matched by the %s pass%s. Per-call ratio %s (delta %s %%, total ratio %s); bound: %s; expected "
            "ratio %s",
            jv_cmp_pass_name(p->pass), p->renamed ? " (op names normalised: a vendor or backend variant)" : "",
            FN(p->ratio_call, 3), FN(p->delta_pct, 1), FN(p->ratio_total, 3), bound_word(p->bound), FN(p->expected, 3));
    if (p->basis[0]) fprintf(f, " (%s)", p->basis);
    fprintf(f, "; actual / expected %s: %s.", FN(p->vs_expected, 2),
            p->flag < 0 ? "no hardware expectation (no roofline bound on one side)"
            : p->flag   ? "flagged"
                        : "within the rule");
    if (p->question)
        fprintf(f,
                " The slowdown (%s %%%s) is large and unexpected: which kernel %s picks for these shapes on the "
                "target is a question for that library, not a conclusion of this report.",
                FN(p->delta_pct, 0), p->tiny_bgemm ? ", a tiny batched GEMM: threshold 5×" : "", library_of(T, t));
    if (t->pct < 10 && r->pct < 10)
        fprintf(f,
                " Both sides run at under 10 %% of their roofline (%s %% and %s %%): the time is far from what "
                "bandwidth or FLOPS bound, so the hardware ratio says little about it.",
                FN(t->pct, 1), FN(r->pct, 1));
    fputs(" Why a kernel takes the time it does (occupancy, memory access pattern, cache behaviour) is not in a "
          "trace",
          f);
    if (t->replay_op >= 0)
        fprintf(f, ": replay it with `jarvis-replay replay_package.zip --op %d` and profile it with %s.\n\n",
                t->replay_op, profiler_of(T));
    else
        fprintf(f, ": profile it with %s (the op is not in the replay package).\n\n", profiler_of(T));
}

static void hw_table(FILE *f, const rctx *x) {
    const jv_digest *T = x->T, *R = x->R;
    fputs("| | Target | Reference |\n|---|---|---|\n| Device (trace) | ", f);
    md_text(f, dev_of(T));
    fputs(" | ", f);
    md_text(f, dev_of(R));
    fputs(" |\n| Roofline GPU | ", f);
    md_text(f, T->has_hw ? T->hw.name : "none");
    fputs(" | ", f);
    md_text(f, R->has_hw ? R->hw.name : "none");
    fputs(" |\n| How it was chosen | ", f);
    md_text(f, T->hw_why);
    fputs(" | ", f);
    md_text(f, R->hw_why);
    fputs(" |\n", f);
    if (!T->has_hw && !R->has_hw) return;
    fputs("| HBM bandwidth | ", f);
    if (T->has_hw) fprintf(f, "%g GB/s", T->hw.mem_bw_gbps);
    fputs(" | ", f);
    if (R->has_hw) fprintf(f, "%g GB/s", R->hw.mem_bw_gbps);
    fputs(" |\n| Memory, last-level cache | ", f);
    if (T->has_hw) fprintf(f, "%g GB, %g MB", T->hw.memory_gb, T->hw.llc_mb);
    fputs(" | ", f);
    if (R->has_hw) fprintf(f, "%g GB, %g MB", R->hw.memory_gb, R->hw.llc_mb);
    fputs(" |\n| Roofline peaks are | ", f);
    if (T->has_hw) fputs(T->hw.roof_is_max_achievable ? "max achievable" : "datasheet", f);
    fputs(" | ", f);
    if (R->has_hw) fputs(R->hw.roof_is_max_achievable ? "max achievable" : "datasheet", f);
    fputs(" |\n", f);
    /* the compute specs the matched rows use */
    char seen[16][32];
    int ns = 0;
    for (size_t i = 0; i < x->c->npairs && ns < 16; i++) {
        const char *sp[2] = {T->rows[x->c->pairs[i].t].spec, R->rows[x->c->pairs[i].r].spec};
        for (int k = 0; k < 2 && ns < 16; k++) {
            if (!sp[k][0]) continue;
            int dup = 0;
            for (int j = 0; j < ns; j++)
                dup |= !strcmp(seen[j], sp[k]);
            if (!dup) snprintf(seen[ns++], sizeof seen[0], "%s", sp[k]);
        }
    }
    for (int j = 0; j < ns; j++) {
        fprintf(f, "| %s peak (roofline; datasheet) | ", seen[j]);
        if (T->has_hw)
            fprintf(f, "%s; %s TFLOPS", FN(jv_hw_peak(&T->hw, seen[j]), 1),
                    FN(jv_hw_datasheet_peak(&T->hw, seen[j]), 1));
        fputs(" | ", f);
        if (R->has_hw)
            fprintf(f, "%s; %s TFLOPS", FN(jv_hw_peak(&R->hw, seen[j]), 1),
                    FN(jv_hw_datasheet_peak(&R->hw, seen[j]), 1));
        fputs(" |\n", f);
    }
    if (T->has_hw && R->has_hw && T->peaks != R->peaks)
        fputs("| Note | The two roofline tables are of different kinds (max achievable on one side, datasheet on the "
              "other): compute-bound expectations use the datasheet peaks of both sides. |  |\n",
              f);
    fputs("| Source | ", f);
    md_text(f, T->has_hw ? T->hw.source : "");
    fputs(" | ", f);
    md_text(f, R->has_hw ? R->hw.source : "");
    fputs(" |\n", f);
}

static void rules_text(FILE *f) {
    fputs("- Rows are the rows of each trace's `unified_perf_summary` (every GPU kernel counted once). Kernel names "
          "differ between vendors and are never used to match.\n"
          "- Op names are normalised first: `aten::cudnn_convolution` = `aten::miopen_convolution` (and the "
          "transpose, relu and add_relu variants; input and weight shapes compared), `aten::cudnn_batch_norm` = "
          "`aten::miopen_batch_norm` = `aten::native_batch_norm` (and `_native_batch_norm_legit*`; the five tensor "
          "arguments compared), their backward ops (first three arguments), the SDPA backends "
          "(`_scaled_dot_product_flash_attention`, `_efficient_attention`, `_cudnn_attention`; q, k, v compared; "
          "backward: the first four arguments), and launch calls (`cudaLaunchKernel` = `hipLaunchKernel`, "
          "`cudaGraphLaunch` = `hipGraphLaunch`, `cuLaunchKernel` = `hipModuleLaunchKernel` = "
          "`hipExtModuleLaunchKernel`, memcpy and memset calls).\n"
          "- Pass 1, signature: normalised name, Input Dims, Input type, Input Strides and Concrete Inputs all "
          "equal.\n"
          "- Pass 2, dims: normalised name and Input Dims equal (types, strides and concrete inputs ignored).\n"
          "- Pass 3, name+count: normalised name and call count equal, where at least one side has no Input Dims "
          "(shapes not recorded).\n"
          "- Synthetic rows (`op->kernel (Synthetic Op)`: kernels not attributed to an op of their own) match "
          "only by parent op name and Input Dims when that parent has exactly one such row on each side (and, "
          "without shapes, equal call counts); across vendors several kernels under one parent cannot be told "
          "apart (kernel names differ), so they stay unmatched.\n"
          "- Pass 5, kernel (same vendor): only when both traces come from the same vendor (two runs, two GPUs "
          "of one vendor), the synthetic rows left match by parent op, kernel name and Input Dims.\n"
          "- Within a pass, rows with equal keys pair by equal call count first, then in order of time.\n"
          "- Coverage = matched rows' kernel time / all rows' kernel time, per side.\n",
          f);
    fprintf(f,
            "- Ratio = target time / reference time, per call (used for delta and flag) and in total. Bound: both "
            "sides' roofline bound (memory or compute); mixed when they differ; unknown when either side has no "
            "roofline GPU or no perf model for the op. Expected ratio: memory-bound: reference HBM bandwidth / "
            "target HBM bandwidth; compute-bound: reference peak / target peak of the op's compute spec (the "
            "peak policy's peaks, the same kind on both sides); mixed: target roofline time / reference roofline "
            "time. When the two rows' perf "
            "models give different bytes (or FLOPs) per call (a dtype change found by the dims pass), the "
            "expectation is multiplied by target bytes / reference bytes (FLOPs for compute-bound).\n"
            "- Flag: per-call ratio / expected ratio > %.2f. A flagged pair whose per-call ratio exceeds 2 (delta "
            "> 100 %%), or 5 for a tiny batched GEMM (`aten::bmm` / `aten::baddbmm` under 10 µs per call on either "
            "side), is called out as a kernel-selection question for the vendor library.\n",
            JV_CMP_FLAG_FACTOR);
}

static jv_status write_fair(const rctx *x, const char *path, jv_err *err) {
    const jv_digest *T = x->T, *R = x->R;
    const jv_cmp *c = x->c;
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    fputs("# Comparative analysis: ", f);
    md_text(f, dev_of(T));
    fputs(" (target) and ", f);
    md_text(f, dev_of(R));
    fputs(" (reference)\n\n", f);
    fputs("Target: ", f);
    jv_md_code(f, T->trace_name, 120, 0);
    fputs(". Reference: ", f);
    jv_md_code(f, R->trace_name, 120, 0);
    fputs(". Ratios are target / reference: above 1.0 the target takes longer. Raw tables, unmatched rows and "
          "calculations: [rough report](comparative_analysis_rough.md).\n\n",
          f);
    write_policy(f, T, R);
    fputs("<a id=\"executive-summary\"></a>\n\n## Executive summary\n\n", f);
    metrics_table(f, x);
    fprintf(f,
            "\nOf %zu matched pairs, %zu take longer on the target than the hardware ratio leads one to expect by "
            "more than %.2f×",
            c->npairs, c->nflagged, JV_CMP_FLAG_FACTOR);
    if (c->nquestions) fprintf(f, ", %zu of them by enough to be a kernel-selection question", c->nquestions);
    size_t unknown = 0;
    for (size_t i = 0; i < c->npairs; i++)
        unknown += c->pairs[i].flag < 0;
    fprintf(f,
            "; %zu pairs have no hardware expectation (no roofline bound on a side). Largest differences by "
            "absolute time: ",
            unknown);
    for (size_t k = 0; k < 3 && k < c->npairs; k++) {
        size_t i = x->by_diff[k];
        if (k) fputs(", ", f);
        jv_md_code(f, T->rows[c->pairs[i].t].name, 60, 0);
        fprintf(f, " (%+.3f ms)", c->pairs[i].diff_us / 1e3);
    }
    fputs(c->npairs ? ".\n\n" : "none.\n\n", f);

    fputs("<a id=\"largest-differences\"></a>\n\n## Largest differences\n\n", f);
    fputs("Ranked by the absolute difference of total kernel time; positive: the target spends more.\n\n", f);
    deltas_table(f, x, 10);

    fputs("\n<a id=\"recommendations\"></a>\n\n## Recommendations\n\n", f);
    fputs("Flagged pairs, by the time the target spends beyond the hardware expectation.\n\n", f);
    recommendations(f, x);
    large_ops(f, x);

    fputs("\n<a id=\"detailed-analysis\"></a>\n\n## Detailed analysis\n\n", f);
    for (size_t i = 0; i < c->npairs; i++)
        if (x->detailed[i]) detail(f, x, i);

    jv_quality_md(f, x->T, "trace-quality-target", "Trace quality: target", 0);
    jv_quality_md(f, x->R, "trace-quality-reference", "Trace quality: reference", 0);
    fputs("<a id=\"appendix\"></a>\n\n## Appendix\n\n### Hardware\n\n", f);
    hw_table(f, x);
    fputs("\n<a id=\"matching-rules\"></a>\n\n### Matching rules\n\n", f);
    rules_text(f);
    fputs("\n### Replay\n\nThe target's replay package is `replay_package.zip` next to this report "
          "(`jarvis-replay replay_package.zip --op N`, N as given per pair); the reference has none here: run "
          "`jarvis-analyze` on the reference trace for its own.\n",
          f);
    return jv_out_commit(&o, err);
}

/* ---------- rough report ---------- */

static void unmatched_table(FILE *f, const jv_digest *d, const int32_t *po) {
    fputs("| Op | Input Dims | Input type | Calls | Kernel time (µs) | Share of its trace |\n"
          "|---|---|---|---|---|---|\n",
          f);
    size_t n = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        if (po[i] >= 0) continue;
        const jv_drow *r = &d->rows[i];
        fputs("| ", f);
        jv_md_code(f, r->name, 90, 1);
        fputs(" | ", f);
        jv_md_code(f, r->dims, 90, 1);
        fputs(" | ", f);
        jv_md_code(f, r->types, 60, 1);
        fprintf(f, " | %u | %.3f | ", r->count, r->time_us);
        pct_cell(f, r->time_us, d->total_us);
        fputs(" |\n", f);
        n++;
    }
    if (!n) fputs("| none |  |  |  |  |  |\n", f);
}

static jv_status write_rough(const rctx *x, const char *path, jv_err *err) {
    const jv_digest *T = x->T, *R = x->R;
    const jv_cmp *c = x->c;
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    fputs("# Comparative analysis, rough notes: ", f);
    md_text(f, dev_of(T));
    fputs(" (target) and ", f);
    md_text(f, dev_of(R));
    fputs(" (reference)\n\nSummary and recommendations: [fair report](comparative_analysis_fair.md).\n\n", f);
    write_policy(f, T, R);
    fputs("## Process\n\n1. Both traces analysed into their unified perf rows (", f);
    fprintf(f, "%zu target rows, %.3f µs; %zu reference rows, %.3f µs).\n", T->nrows, T->total_us, R->nrows,
            R->total_us);
    fputs("2. Rows matched in passes (rules in [the fair report's appendix](comparative_analysis_fair.md#matching-"
          "rules)); kernel names only between two traces of the same vendor (pass 5).\n3. Per pair: time ratio, "
          "roofline bound of each side, expected ratio "
          "from the two GPUs, flag.\n\n",
          f);

    fputs("<a id=\"passes\"></a>\n\n## Matching passes\n\n| Pass | Pairs | Target time matched (µs) | Reference time "
          "matched (µs) |\n|---|---|---|---|\n",
          f);
    for (int p = JV_CMP_SIGNATURE; p <= JV_CMP_SAME_VENDOR; p++)
        fprintf(f, "| %s | %zu | %.3f | %.3f |\n", jv_cmp_pass_name((jv_cmp_pass)p), c->pass_pairs[p], c->pass_t_us[p],
                c->pass_r_us[p]);
    fprintf(f, "| all | %zu | %.3f | %.3f |\n\n", c->npairs, c->t_matched_us, c->r_matched_us);
    fprintf(f,
            "Coverage, target: %.3f µs matched / %.3f µs = %s %%. Coverage, reference: %.3f µs / %.3f µs = %s "
            "%%.\n\n",
            c->t_matched_us, T->total_us, FN(c->t_coverage, 2), c->r_matched_us, R->total_us, FN(c->r_coverage, 2));

    fputs("<a id=\"pairs\"></a>\n\n## Matched pairs\n\nIn order of target time. T: target, R: reference; times in "
          "µs.\n\n",
          f);
    fputs("| # | Pass | Target op | Reference op | Input Dims (T) | Calls T | Calls R | Time T | Time R | Per call T "
          "| Per call R | Ratio per call | Ratio total | Delta (%) | Bound T / R | Expected | Actual / expected | "
          "Flag |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < c->npairs; i++) {
        const jv_cmp_pair *p = &c->pairs[i];
        const jv_drow *t = &T->rows[p->t], *r = &R->rows[p->r];
        fprintf(f, "| %zu | %s | ", i + 1, jv_cmp_pass_name(p->pass));
        jv_md_code(f, t->name, 60, 1);
        fputs(" | ", f);
        if (strcmp(t->name, r->name))
            jv_md_code(f, r->name, 60, 1);
        else
            fputs("same", f);
        fputs(" | ", f);
        jv_md_code(f, t->dims, 70, 1);
        fprintf(f, " | %u | %u | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | %s / %s | %s | %s | %s%s |\n", t->count,
                r->count, t->time_us, r->time_us, p->t_call_us, p->r_call_us, FN(p->ratio_call, 3),
                FN(p->ratio_total, 3), FN(p->delta_pct, 1), bound_text(t->bound), bound_text(r->bound),
                FN(p->expected, 3), FN(p->vs_expected, 2), flag_word(p->flag),
                p->question ? ", kernel-selection question" : "");
    }
    if (!c->npairs) fputs("| none |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |\n", f);

    fputs("\n<a id=\"unmatched-target\"></a>\n\n## Unmatched rows of the target\n\n", f);
    unmatched_table(f, T, c->pair_of_t);
    fputs("\n<a id=\"unmatched-reference\"></a>\n\n## Unmatched rows of the reference\n\n", f);
    unmatched_table(f, R, c->pair_of_r);

    fputs("\n<a id=\"calculations\"></a>\n\n## Calculations\n\n", f);
    fputs("- per call = Kernel Time (µs)_sum / operation_count; ratio per call = per call T / per call R; delta = "
          "(ratio per call - 1) × 100 %; ratio total = time T / time R.\n"
          "- expected (memory-bound) = HBM bandwidth R / HBM bandwidth T; expected (compute-bound) = peak R / peak "
          "T of the compute spec (each × bytes T / bytes R, or FLOPs T / FLOPs R, when the perf models differ); "
          "expected (mixed) = roofline time T / roofline time R.\n",
          f);
    fprintf(f,
            "- actual / expected = ratio per call / expected; flagged when > %.2f; excess = time T - expected × "
            "per call R × calls T.\n",
            JV_CMP_FLAG_FACTOR);
    if (c->npairs) {
        size_t i = x->by_diff[0];
        const jv_cmp_pair *p = &c->pairs[i];
        const jv_drow *t = &T->rows[p->t], *r = &R->rows[p->r];
        fprintf(f, "\nWorked example, pair %zu (", i + 1);
        jv_md_code(f, t->name, 70, 0);
        fprintf(f, "): per call T = %.3f / %u = %.4f µs; per call R = %.3f / %u = %.4f µs; ratio = %s; ", t->time_us,
                t->count, p->t_call_us, r->time_us, r->count, p->r_call_us, FN(p->ratio_call, 4));
        fprintf(f, "bound %s; expected = %s%s%s; actual / expected = %s; %s.\n", bound_word(p->bound),
                FN(p->expected, 4), p->basis[0] ? " from " : "", p->basis, FN(p->vs_expected, 3), flag_word(p->flag));
    }

    fputc('\n', f);
    jv_quality_md(f, T, "trace-quality-target", "Trace quality: target", 1);
    jv_quality_md(f, R, "trace-quality-reference", "Trace quality: reference", 1);
    fputs("<a id=\"gaps\"></a>\n\n## Gaps and open questions\n\n", f);
    size_t unknown = 0, mixed = 0;
    double unknown_us = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        if (c->pairs[i].bound == JV_CMP_UNKNOWN) unknown++, unknown_us += T->rows[c->pairs[i].t].time_us;
        if (c->pairs[i].bound == JV_CMP_MIXED) mixed++;
    }
    fprintf(f,
            "- %zu pairs (%.3f µs of target time) have no expected ratio: an op without a perf model, or a side "
            "without a roofline GPU. Their ratios are shown but not judged.\n",
            unknown, unknown_us);
    fprintf(f,
            "- %zu pairs are memory-bound on one side and compute-bound on the other (mixed); their expectation "
            "is the ratio of the two roofline times.\n",
            mixed);
    fputs("- A trace shows kernel names, durations, shapes and achieved rates; it does not show occupancy, memory "
          "access patterns, bank conflicts or cache hit rates, so why a pair differs is an open question for a "
          "profiler (Nsight Compute, rocprof) run on the replayed op.\n",
          f);
    fputs("- Differences in call counts (different trace windows or iteration counts) are visible in the ratio "
          "total; the flag uses the per-call ratio.\n",
          f);
    return jv_out_commit(&o, err);
}

/* ---------- orderings and the two files ---------- */

static int cmp_by_diff(const void *a, const void *b, void *ctx) {
    const jv_cmp *c = ctx;
    double x = fabs(c->pairs[*(const size_t *)a].diff_us), y = fabs(c->pairs[*(const size_t *)b].diff_us);
    return (x < y) - (x > y);
}

static int cmp_by_excess(const void *a, const void *b, void *ctx) {
    const jv_cmp *c = ctx;
    double x = c->pairs[*(const size_t *)a].excess_us, y = c->pairs[*(const size_t *)b].excess_us;
    return (x < y) - (x > y);
}

jv_status jv_compare_write(const jv_digest *T, const jv_digest *R, const char *outdir, jv_err *err) {
    jv_cmp c;
    rctx x = {T, R, &c, NULL, NULL, 0, NULL};
    jv_status s = jv_cmp_build(T, R, &c, err);
    if (s == JV_OK) {
        x.by_diff = malloc((c.npairs + 1) * sizeof *x.by_diff);
        x.by_excess = malloc((c.npairs + 1) * sizeof *x.by_excess);
        x.detailed = calloc(c.npairs + 1, 1);
        if (!x.by_diff || !x.by_excess || !x.detailed)
            s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory (comparison)");
    }
    if (s == JV_OK) {
        for (size_t i = 0; i < c.npairs; i++) {
            x.by_diff[i] = i;
            if (c.pairs[i].flag == 1 && c.pairs[i].excess_us > 0) x.by_excess[x.nexcess++] = i;
        }
        if (jv_sort_stable(x.by_diff, c.npairs, sizeof *x.by_diff, cmp_by_diff, &c) != JV_OK ||
            jv_sort_stable(x.by_excess, x.nexcess, sizeof *x.by_excess, cmp_by_excess, &c) != JV_OK)
            s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory (comparison)");
    }
    if (s == JV_OK) {
        for (size_t k = 0; k < 10 && k < c.npairs; k++)
            x.detailed[x.by_diff[k]] = 1;
        for (size_t k = 0; k < 5 && k < x.nexcess; k++)
            x.detailed[x.by_excess[k]] = 1;
        char fair[4096], rough[4096];
        snprintf(fair, sizeof fair, "%s/comparative_analysis_fair.md", outdir);
        snprintf(rough, sizeof rough, "%s/comparative_analysis_rough.md", outdir);
        s = write_fair(&x, fair, err);
        if (s == JV_OK) {
            s = write_rough(&x, rough, err);
            if (s != JV_OK) remove(fair);
        }
    }
    free(x.by_diff);
    free(x.by_excess);
    free(x.detailed);
    jv_cmp_free(&c);
    return s;
}
