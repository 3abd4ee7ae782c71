/* jv_standalone: the fair report (summary, recommendations, links to the
 * category findings, appendix) and the rough one (working notes with the raw
 * tables and the calculations), from the digest and its findings
 * (model/jv_findings_model.h). */
#include "jv_standalone.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_comm_advice.h"
#include "jv_escape.h"
#include "jv_findings_model.h"
#include "jv_output.h"
#include "jv_quality_md.h"

#define TOP_OPS 20 /* rows of the rough report's top-ops table */

static double ms(int64_t ns) {
    return (double)ns / 1e6;
}
static double pct_of(double a, double b) {
    return b > 0 ? 100.0 * a / b : 0.0;
}

static int has_findings_file(jv_dcat c) {
    return c != JV_DCAT_OTHER;
}

/* what the reports call each timeline item, and the action they recommend for it */
static const struct {
    const char *what, *action;
} TL_TEXT[JV_TL_COUNT] = {
    [JV_TL_IDLE] = {"GPU idle",
                    "Look at the host side of the gaps in the trace (Perfetto): synchronisations (`cuda_sync` / "
                    "`hipDeviceSynchronize`), data loading, Python overhead between launches; CUDA / HIP graphs or "
                    "torch.compile shorten launch gaps."},
    [JV_TL_EXPOSED_COMM] = {"Exposed communication", "Overlap communication with computation (bucketing, async "
                                                     "collectives); check the collectives' sizes."},
    [JV_TL_EXPOSED_MEMCPY] = {"Exposed memcpy", "Use pinned host memory and non_blocking copies on a side stream; "
                                                "move copies out of the step."},
};

/* the idle recommendation's action by what the host was doing (jv_ftimeline.idle_top); JV_IDLE_HOST: TL_TEXT's */
static const char *const IDLE_ACTION[JV_IDLE_COUNT] = {
    [JV_IDLE_DATA] = "The GPU waits for input batches (the idle time is mostly inside the DataLoader's iterator): more "
                     "DataLoader workers (`num_workers`), `pin_memory=True` with non-blocking copies, "
                     "`persistent_workers` and `prefetch_factor`; or decode and augment on the GPU.",
    [JV_IDLE_SYNC] = "The host waits for the GPU, then launches late (the idle time is mostly under synchronisations: "
                     "`...Synchronize`, `.item()`, a blocking memcpy): take `.item()` / `.cpu()` and explicit "
                     "synchronize calls out of the step (log metrics every N steps), copy with `non_blocking=True`.",
    [JV_IDLE_OPTIM] = "The idle time is mostly under the optimizer: a fused or foreach optimizer "
                      "(`torch.optim.AdamW(fused=True)`, `foreach=True`) replaces its many small launches.",
    [JV_IDLE_NONE] = "No host event covers most of the idle time: the host was not profiled there (another thread or "
                     "process), or waited outside the profiled code; profile the whole step (`with_stack=True`, every "
                     "thread) to see what it did.",
};

/* the exposed-memcpy recommendation's action by the direction of most copy time (jv_ftimeline.memcpy_top);
 * host copies and copies of unknown direction: TL_TEXT's */
static const char *memcpy_action(jv_xfer x) {
    switch (x) {
    case JV_XFER_DTOD:
        return "The copy time is mostly device to device (`.contiguous()`, `.clone()`, `copy_` between tensors on one "
               "GPU): avoid the copies (views, in-place ops, the layout the next op wants), or run them on a side "
               "stream; pinned host memory does not apply to them.";
    case JV_XFER_PTOP:
        return "The copy time is mostly peer to peer (between GPUs): overlap the copies with computation on a side "
               "stream, or let the collective library move the data.";
    default: return NULL;
    }
}

/* a list appended by issue_cat ends with a full stop, not its last comma */
static void issue_end_list(jv_rec_text *r, int n) {
    if (n > 0 && (size_t)n < sizeof r->issue && r->issue[n - 1] == ',') r->issue[n - 1] = '.';
}

/* the recommendation of timeline item k (the exposed communication: its part p) */
static void timeline_rec(const jv_digest *d, const jv_ftimeline *tl, jv_tl_item k, int p, jv_rec_text *r) {
    memset(r, 0, sizeof *r);
    if (k == JV_TL_EXPOSED_COMM && p != JV_COMM_REST) {
        jv_comm_part_rec(d, tl, (jv_comm_part)p, r);
        return;
    }
    int split = k == JV_TL_EXPOSED_COMM && tl->comm_ns[JV_COMM_REST] != tl->ns[k];
    int64_t ns = split ? tl->comm_ns[JV_COMM_REST] : tl->ns[k];
    double share = split ? pct_of((double)ns, (double)d->tl.total) : tl->share[k];
    snprintf(r->title, sizeof r->title, "%s%s: %.1f %% of the GPU timeline", TL_TEXT[k].what,
             split ? ", other collectives" : "", share);
    int n =
        snprintf(r->issue, sizeof r->issue, "%s %.2f ms = %.1f %% of the %.2f ms GPU timeline; computation is %.1f %%.",
                 TL_TEXT[k].what, ms(tl->ns[k]), tl->share[k], ms(d->tl.total), tl->computation_pct);
    const char *action = TL_TEXT[k].action;
    char comm_action[768];
    if (k == JV_TL_EXPOSED_COMM) {
        n = jv_comm_rest_issue(d, tl, r, n);
        if (d->comm.xfer_top.n) {
            snprintf(comm_action, sizeof comm_action,
                     "%s The collectives move data at the bandwidth their size allows: if it is below the "
                     "interconnect's, check the links and topology (nccl-tests `%s`, `nvidia-smi topo -m` / "
                     "`rocm-smi --showtopo`).",
                     action, jv_nccl_test(d->comm.xfer_top.kind));
            action = comm_action;
        }
    }
    if (k == JV_TL_IDLE && d->tl.idle_gaps > 0) {
        static const char *what[JV_IDLE_COUNT] = {"data loading", "synchronisation", "optimizer", "other host work",
                                                  "no host event"};
        n = jv_rec_issue_cat(r, n,
                             " Over the %lld gaps (the longest %.2f ms), the host was in:", (long long)d->tl.idle_gaps,
                             ms(d->tl.idle_gap_max));
        for (int c = 0; c < JV_IDLE_COUNT; c++)
            if (d->tl.idle_cause[c] > 0)
                n = jv_rec_issue_cat(r, n, " %s %.2f ms (%.0f %%),", what[c], ms(d->tl.idle_cause[c]),
                                     tl->idle_share[c]);
        issue_end_list(r, n);
        if (tl->idle_top != JV_IDLE_HOST) action = IDLE_ACTION[tl->idle_top];
    }
    if (k == JV_TL_EXPOSED_MEMCPY && tl->memcpy_top != JV_XFER_NONE) {
        n = jv_rec_issue_cat(r, n, " Copy time by direction:");
        for (int x = 0; x < JV_XFER_COUNT; x++)
            if (d->memcpy_us[x] > 0)
                n = jv_rec_issue_cat(r, n, " %s %.2f ms,", jv_transfer_name((jv_xfer)x), d->memcpy_us[x] / 1e3);
        issue_end_list(r, n);
        if (memcpy_action((jv_xfer)tl->memcpy_top)) action = memcpy_action((jv_xfer)tl->memcpy_top);
    }
    snprintf(r->action, sizeof r->action, "%s", action);
    snprintf(r->impact, sizeof r->impact, "up to %.2f ms of the timeline (%.1f %%)", ms(ns), share);
    snprintf(r->link, sizeof r->link, "standalone_analysis_rough.md#timeline");
    snprintf(r->link_text, sizeof r->link_text, "GPU timeline (working notes)");
    snprintf(r->confidence, sizeof r->confidence,
             "%s: measured %s on the GPU timeline; the saving is an upper bound (all of it removed)",
             jv_confidence_name(JV_CONF_MEDIUM), k == JV_TL_IDLE ? "idle time" : "exposed time");
    r->gain_us = (double)ns / 1e3;
}

/* the evidence behind finding x's confidence (jv_confidence) */
static void finding_confidence(const jv_digest *d, const jv_dfinding *x, jv_rec_text *out) {
    const char *why = "";
    switch (x->kind) {
    case JV_FIND_ATTENTION:
        why = "a measured pattern (matmul -> softmax -> matmul in the trace); the saving is a lower bound, the "
              "measured time of the ops between the products";
        break;
    case JV_FIND_SLOW_OP:
        why = d->peaks == JV_PEAKS_MEASURED ? "a projection from the roofline (measured/max-achievable peaks)"
                                            : "a projection from the roofline (datasheet peaks)";
        break;
    case JV_FIND_CONV_LAYOUT:
        why = "measured layout-conversion kernels; the saving is an upper bound (all of them removed)";
        break;
    case JV_FIND_BN_BANDWIDTH:
        why = "measured batch norm time against the trace's measured elementwise baseline";
        break;
    case JV_FIND_FUSION:
        why = "measured elementwise kernels; the saving assumes a fused kernel costs one of them (an estimate)";
        break;
    }
    snprintf(out->confidence, sizeof out->confidence, "%s: %s", jv_confidence_name(x->conf), why);
}

/* The shape of a row's first argument ("(512, 64, 56, 56)"), "?" when it is not a tensor. */
static const char *first_shape(const jv_drow *r, char *buf, size_t cap) {
    const jv_tensor *t = r->noperands > 0 && r->operands[0].kind == JV_ARG_TENSOR ? &r->operands[0].t : NULL;
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

/* the recommendation of finding x: its title, issue, action and impact, and its anchor in the category findings */
static void finding_rec(const jv_digest *d, const jv_dfindings *fx, const jv_dfinding *x, jv_rec_text *out) {
    char tb[32], anchor[48] = "";
    memset(out, 0, sizeof *out);
    switch (x->kind) {
    case JV_FIND_SLOW_OP: {
        const jv_drow *r = &d->rows[x->row];
        const jv_row_eval *e = &r->eval;
        char shp[96];
        snprintf(anchor, sizeof anchor, "impact-%d", x->sig + 1);
        snprintf(out->title, sizeof out->title, "%s below %.0f %% of peak: %.50s", jv_dcat_title(x->cat), x->target_pct,
                 r->name);
        snprintf(out->issue, sizeof out->issue, "`%.60s` on `%s`: %s in %u calls at %.1f %% of the %s roofline (%s)",
                 r->name, first_shape(r, shp, sizeof shp), jv_md_time(tb, sizeof tb, r->time_us), r->count, e->pct,
                 e->memory_bound ? "memory" : "compute", e->verdict);
        if (r->replay_op >= 0)
            snprintf(out->action, sizeof out->action,
                     "Kernel team: replay it (`jarvis-replay replay_package.zip --op %d`) and profile the replay "
                     "(Nsight Compute / rocprof); compare with the elementwise baseline and vendor-library "
                     "alternatives.",
                     r->replay_op);
        else
            snprintf(out->action, sizeof out->action,
                     "Kernel team: reproduce the shape (`jarvis-analyze %s --call-stack %u`) and profile it "
                     "(Nsight Compute / rocprof).",
                     d->trace, r->uid);
        snprintf(out->impact, sizeof out->impact, "%.2f ms (%.1f %% of GPU kernel time) at %.0f %% of peak",
                 x->gain_us / 1e3, x->share, x->target_pct);
        break;
    }
    case JV_FIND_CONV_LAYOUT: {
        const jv_fconv *cv = &fx->conv;
        double cat = d->cat_us[JV_DCAT_CONV];
        snprintf(anchor, sizeof anchor, "layout");
        snprintf(out->title, sizeof out->title, "Layout conversions around convolutions");
        snprintf(out->issue, sizeof out->issue,
                 "Layout conversions around convolutions: %s = %.1f %% of convolution time; %d of %d convolution rows "
                 "take NCHW inputs%s",
                 jv_md_time(tb, sizeof tb, cv->layout_us), cat > 0 ? 100.0 * cv->layout_us / cat : 0.0, cv->nchw,
                 cv->nchw + cv->channels_last + cv->other, cv->nhwc_kernels ? " while the kernels run NHWC" : "");
        snprintf(out->action, sizeof out->action,
                 "Run the model in channels_last: `model = model.to(memory_format=torch.channels_last)` and "
                 "`x = x.to(memory_format=torch.channels_last)`; re-profile and check that the transposes are gone.");
        snprintf(out->impact, sizeof out->impact, "up to %.2f ms (%.1f %% of GPU kernel time) if all conversions go",
                 x->gain_us / 1e3, x->share);
        break;
    }
    case JV_FIND_BN_BANDWIDTH: {
        const jv_fbn *b = &fx->bn;
        snprintf(anchor, sizeof anchor, "bandwidth");
        snprintf(out->title, sizeof out->title, "Batch norm bandwidth");
        snprintf(out->issue, sizeof out->issue,
                 "Batch norm moves its minimal bytes at %.3f TB/s, %.2fx the trace's elementwise baseline (%.3f "
                 "TB/s); %d of %d rows run PyTorch's native kernels%s",
                 b->tbs, b->vs_base, d->baseline.tbs, b->native, b->rows,
                 b->bf16 ? " (bf16 inputs: no cuDNN/MIOpen path)" : "");
        snprintf(out->action, sizeof out->action,
                 "A: in inference fold BN into the convolution; in training try torch.compile (BN + ReLU fused) or "
                 "channels_last inputs, measured per shape with the replay package. B: the kernel team replays "
                 "the BN ops (`jarvis-replay replay_package.zip --op N`, see the findings) against the baseline.");
        snprintf(out->impact, sizeof out->impact,
                 "%.2f ms (%.1f %% of GPU kernel time) if BN reached the elementwise baseline", x->gain_us / 1e3,
                 x->share);
        break;
    }
    case JV_FIND_ATTENTION: {
        const jv_dattention *a = &d->attention[x->fusion];
        char tt[32];
        snprintf(anchor, sizeof anchor, "attention");
        snprintf(out->title, sizeof out->title, "Eager attention: %.70s", a->name);
        snprintf(out->issue, sizeof out->issue,
                 "`%.60s` computes attention op by op: %u matmul -> softmax -> matmul sequences (%s, %.1f %% of GPU "
                 "kernel time; first product's inputs %.80s), the score matrix written to memory and read back "
                 "between the ops",
                 a->name, a->sequences, jv_md_time(tb, sizeof tb, a->total_us), pct_of(a->total_us, d->total_us),
                 a->dims[0] ? a->dims : "not recorded");
        snprintf(out->action, sizeof out->action,
                 "Use one fused attention kernel: `torch.nn.functional.scaled_dot_product_attention` (flash or "
                 "memory-efficient), or `attn_implementation=\"sdpa\"` / `\"flash_attention_2\"` for a Hugging Face "
                 "model; call stack of one instance: `jarvis-analyze %s --call-stack %u`.",
                 d->trace, a->example_uid);
        snprintf(out->impact, sizeof out->impact,
                 "at least %s (%.1f %% of GPU kernel time): the ops between the products (softmax, scaling, masking, "
                 "layout copies), which the fused kernel does on chip (%s of products not counted)",
                 jv_md_time(tb, sizeof tb, x->gain_us), x->share,
                 jv_md_time(tt, sizeof tt, a->total_us - a->between_us));
        break;
    }
    case JV_FIND_FUSION: {
        const jv_dfusion *u = &d->fusion[x->fusion];
        const jv_ffusion *p = &fx->fusion[x->fusion];
        snprintf(anchor, sizeof anchor, "fusion");
        snprintf(out->title, sizeof out->title, "Elementwise fusion: %.60s", u->name);
        snprintf(out->issue, sizeof out->issue,
                 "`%.60s`: %u instances run %u elementwise kernels (%.1f per instance, %s in all): %.200s", u->name,
                 u->instances, u->ew_kernels, (double)u->ew_kernels / u->instances, jv_md_time(tb, sizeof tb, u->ew_us),
                 u->ops);
        snprintf(out->action, sizeof out->action,
                 "A: fuse each instance into one kernel (torch.compile on the module, or a hand-fused "
                 "kernel%s); call stack of one instance: `jarvis-analyze %s --call-stack %u`.",
                 p->norm ? ", e.g. a fused RMSNorm / LayerNorm" : "", d->trace, u->example_uid);
        snprintf(out->impact, sizeof out->impact,
                 "%s (%.1f %% of GPU kernel time), assuming a fused kernel costs one of its kernels",
                 jv_md_time(tb, sizeof tb, x->gain_us), x->share);
        break;
    }
    }
    if (has_findings_file(x->cat)) {
        snprintf(out->link, sizeof out->link, "category_findings/%s_findings.md#%s", jv_dcat_name(x->cat), anchor);
        snprintf(out->link_text, sizeof out->link_text, "%s findings", jv_dcat_title(x->cat));
    } else {
        snprintf(out->link, sizeof out->link, "standalone_analysis_rough.md#top-ops");
        snprintf(out->link_text, sizeof out->link_text, "top ops (working notes)");
    }
    finding_confidence(d, x, out);
    out->gain_us = x->gain_us;
}

static void write_metrics(FILE *f, const jv_digest *d) {
    const jv_gpu_timeline *tl = &d->tl;
    const jv_dfindings *fx = jv_digest_findings(d);
    double tot = (double)tl->total;
    fprintf(f, "| Metric | Value |\n|---|---|\n");
    fprintf(f, "| GPU timeline span | %.3f ms |\n", ms(tl->total));
    fprintf(f, "| Computation | %.3f ms (%.1f %%) |\n", ms(tl->computation), pct_of((double)tl->computation, tot));
    fprintf(f, "| Idle | %.3f ms (%.1f %%) |\n", ms(tl->idle), pct_of((double)tl->idle, tot));
    fprintf(f, "| Exposed communication | %.3f ms (%.1f %%) |\n", ms(tl->exposed_comm),
            pct_of((double)tl->exposed_comm, tot));
    fprintf(f, "| Exposed memcpy | %.3f ms (%.1f %%) |\n", ms(tl->exposed_memcpy),
            pct_of((double)tl->exposed_memcpy, tot));
    fprintf(f, "| GPU kernel time (Σ ops) | %.3f ms |\n", d->total_us / 1e3);
    if (fx->tl.stream_overlap_us > 0)
        fprintf(f,
                "| Streams overlap | the kernel time exceeds the GPU's busy time (%.3f ms) by %.3f ms: kernels ran "
                "concurrently on several streams, so shares of kernel time and of the timeline differ |\n",
                d->tl.busy / 1e6, fx->tl.stream_overlap_us / 1e3);
    jv_dcat order[JV_DCAT_COUNT];
    jv_digest_cat_order(d, order);
    for (int k = 0; k < JV_DCAT_COUNT; k++) {
        jv_dcat c = order[k];
        if (d->cat_us[c] <= 0) continue;
        fprintf(f, "| %s | %.3f ms (%.1f %% of kernel time) |\n", jv_dcat_title(c), d->cat_us[c] / 1e3,
                pct_of(d->cat_us[c], d->total_us));
    }
    double bp = jv_baseline_pct_of_hbm(d);
    if (d->baseline.state == JV_BASE_OK) {
        fprintf(f, "| Elementwise baseline (add/mul/copy_) | %.3f TB/s", d->baseline.tbs);
        if (!isnan(bp)) fprintf(f, " (%.1f %% of %.2f TB/s HBM)", bp, d->hw.mem_bw_gbps / 1e3);
        fprintf(f, " |\n");
    } else {
        fputs("| Elementwise baseline (add/mul/copy_) | ", f);
        jv_print_no_baseline(f, d);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

static void write_ranking(FILE *f, const jv_digest *d) {
    const jv_dfindings *fx = jv_digest_findings(d);
    fprintf(f, "Bottleneck ranking%s:\n\n", fx->tl.timeline_first ? " (computation < 95 %: the timeline first)" : "");
    for (int n = 0; n < fx->nranking; n++) {
        const jv_frank_entry *x = &fx->ranking[n];
        if (x->is_timeline) {
            fprintf(f,
                    "%d. %s: %.2f ms (%.1f %% of the timeline); see [GPU "
                    "timeline](standalone_analysis_rough.md#timeline)\n",
                    n + 1, TL_TEXT[x->item].what, ms(fx->tl.ns[x->item]), fx->tl.share[x->item]);
            continue;
        }
        jv_dcat c = (jv_dcat)x->item;
        double e = fx->cat[c].eff;
        fprintf(f, "%d. %s: %.2f ms (%.1f %% of kernel time)", n + 1, jv_dcat_title(c), d->cat_us[c] / 1e3,
                pct_of(d->cat_us[c], d->total_us));
        if (!isnan(e)) fprintf(f, ", efficiency %.1f %% of roofline", e);
        double lay = fx->conv.layout_us;
        if (c == JV_DCAT_CONV && lay > 0) fprintf(f, ", layout conversions %.2f ms", lay / 1e3);
        if (has_findings_file(c))
            fprintf(f, "; see [%s findings](category_findings/%s_findings.md#ops)\n", jv_dcat_title(c),
                    jv_dcat_name(c));
        else
            fprintf(f, "; see [top ops](standalone_analysis_rough.md#top-ops)\n");
    }
    if (!fx->nranking) fprintf(f, "Nothing to rank: the trace has no GPU kernel time.\n");
    fputc('\n', f);
}

static void write_appendix(FILE *f, const jv_digest *d) {
    fprintf(f, "<a id=\"appendix\"></a>\n\n## Appendix\n\n<a id=\"hardware\"></a>\n\n### Hardware\n\n");
    fprintf(f, "Trace device: %s (%d in deviceProperties), %s.\n\n", d->device[0] ? d->device : "unknown", d->ndevices,
            d->is_amd ? "AMD / ROCm" : "NVIDIA / CUDA (or unknown)");
    if (d->has_hw) {
        fprintf(f, "Roofline GPU: %s (%s), chosen because: %s.\n\n", d->hw.name, d->hw.vendor, d->hw_why);
        fprintf(f, "| Peak | Roofline value | Datasheet |\n|---|---:|---:|\n");
        fprintf(f, "| HBM bandwidth | %.2f TB/s | %.2f TB/s |\n", d->hw.mem_bw_gbps / 1e3, d->hw.mem_bw_gbps / 1e3);
        for (int k = 0; k < d->nspecs; k++) {
            const char *spec = d->specs[k];
            double p = jv_hw_peak(&d->hw, spec), q = jv_hw_datasheet_peak(&d->hw, spec);
            fprintf(f, "| %s | ", spec);
            if (isnan(p))
                fputs("n/a", f);
            else
                fprintf(f, "%.1f TFLOPS/s", p);
            fputs(" | ", f);
            if (isnan(q))
                fputs("n/a", f);
            else
                fprintf(f, "%.1f TFLOPS/s", q);
            fputs(" |\n", f);
        }
        fprintf(f, "\nThe roofline uses %s peaks. Pass `--gpu-arch NAME|FILE` to use another GPU's numbers.\n\n",
                d->hw.roof_is_max_achievable ? "max-achievable (measured) compute" : "datasheet");
    } else {
        fprintf(f, "No roofline GPU (%s): no %% of peak and no impact projections. Pass `--gpu-arch NAME|FILE`.\n\n",
                d->hw_why);
    }
    int nrep = 0;
    double trep = 0;
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].replay_op >= 0) {
            nrep++;
            trep += d->rows[i].time_us;
        }
    fprintf(f, "<a id=\"replay\"></a>\n\n### Replay package\n\n");
    fprintf(f,
            "`replay_package.zip` holds the replay IR of the top ops (shapes, strides, dtypes, the traced kernel "
            "names and times, the model's FLOPs and bytes) and a manifest; %d rows of this report (%.1f %% of GPU "
            "kernel time) are in it. Run all: `jarvis-replay replay_package.zip --device 0`; one op under a "
            "profiler: `jarvis-replay replay_package.zip --op N --iterations 1` (N is the Replay op column of the "
            "category findings).\n\n",
            nrep, pct_of(trep, d->total_us));
    fprintf(f, "<a id=\"limits\"></a>\n\n### What a trace cannot show\n\n");
    fprintf(f, "Kernel names, durations, shapes, achieved rates, efficiency and call stacks come from the trace. "
               "Occupancy, cache hit rates, memory coalescing, bank conflicts, clocks and the root cause of a slow "
               "kernel do not: replay the op and profile it (Nsight Compute, rocprof). Savings here are projections "
               "from the roofline, not measurements.\n");
}

/* the place (0-based) of finding k among the recommendations, -1 when it is not one */
static int rec_place(const jv_dfindings *fx, int32_t k) {
    for (int i = 0; k >= 0 && i < fx->nrecs; i++)
        if (!fx->recs[i].is_timeline && fx->recs[i].item == (uint32_t)k) return i;
    return -1;
}

/* the recommendations, in the model's order (at most JV_FIND_MAX_RECS) */
static int all_recs(const jv_digest *d, jv_rec_text *recs) {
    const jv_dfindings *fx = jv_digest_findings(d);
    int nr = 0;
    for (int i = 0; i < fx->nrecs; i++, nr++) {
        if (fx->recs[i].is_timeline) {
            timeline_rec(d, &fx->tl, (jv_tl_item)fx->recs[i].item, fx->recs[i].part, &recs[nr]);
            continue;
        }
        const jv_dfinding *x = &fx->v[fx->recs[i].item];
        finding_rec(d, fx, x, &recs[nr]);
        int w = rec_place(fx, x->overlap_with);
        if (x->overlap_us > 0 && w >= 0) {
            char tb[32];
            size_t l = strlen(recs[nr].impact);
            snprintf(recs[nr].impact + l, sizeof recs[nr].impact - l,
                     "; %s of its kernel time is in recommendation %d and counted there only, the saving scaled "
                     "to the rest",
                     jv_md_time(tb, sizeof tb, x->overlap_us), w + 1);
        }
    }
    return nr;
}

void jv_print_large_cover(FILE *f, const jv_digest *d, int i, const char *fair) {
    const jv_dfindings *fx = jv_digest_findings(d);
    const jv_flarge *l = &fx->large[i];
    const jv_drow *r = &d->rows[l->row];
    if (l->rec >= 0) {
        jv_rec_text recs[JV_FIND_MAX_RECS];
        int nr = all_recs(d, recs);
        fprintf(f, "[%srecommendation %d](%s#rec-%d)", fair[0] ? "standalone " : "", l->rec + 1, fair, l->rec + 1);
        if (l->rec < nr) fprintf(f, " (%s)", recs[l->rec].title);
        if (r->nomodel != JV_NOMODEL_NONE && r->transfer == JV_XFER_NONE)
            fprintf(f, "; the op itself not judged (%s)", jv_nomodel_str(r->nomodel));
    } else if (l->at_limit) {
        fprintf(f, "no action: at the hardware limit (%s, %.1f %% of the %s roofline)", r->eval.verdict, r->eval.pct,
                r->eval.memory_bound ? "memory" : "compute");
    } else if (r->eval.judgement == JV_JUDGE_LAUNCH) {
        fputs("no kernel action: launch-bound (its roofline time is under one launch); fewer, larger launches (CUDA "
              "graphs, batching) are the lever",
              f);
    } else if (r->eval.has_roof) {
        fprintf(f, "no recommendation: %s at %.1f %% of the %s roofline, %s", r->eval.verdict, r->eval.pct,
                r->eval.memory_bound ? "memory" : "compute",
                r->eval.pct >= 50 ? "above the 50 % of peak the projections aim at"
                                  : "its projected saving at 50 % of peak under 0.5 % of kernel time");
    } else if (r->nomodel != JV_NOMODEL_NONE && r->transfer == JV_XFER_NONE) {
        fprintf(f,
                "not judged (%s): no FLOPs or bytes model, so no roofline, verdict or recommendation; see [trace "
                "quality](%s#trace-quality)",
                jv_nomodel_str(r->nomodel), fair);
    } else {
        fprintf(f, "no recommendation: %s%s%s; see [trace quality](%s#trace-quality)",
                strncmp(r->eval.verdict, "not judged", 10) ? "not judged (" : "", r->eval.verdict,
                strncmp(r->eval.verdict, "not judged", 10) ? ")" : "", fair);
    }
}

/* the ops with >= JV_FIND_LARGE_PCT of kernel time: the recommendation that covers each, or why none */
static void write_large(FILE *f, const jv_digest *d) {
    const jv_dfindings *fx = jv_digest_findings(d);
    if (!fx->nlarge) return;
    fprintf(f, "Ops with at least %.0f %% of GPU kernel time:\n\n", JV_FIND_LARGE_PCT);
    for (int i = 0; i < fx->nlarge; i++) {
        const jv_drow *r = &d->rows[fx->large[i].row];
        char tb[32], shp[96];
        fprintf(f, "- `%.60s` on `%s` (%s, %.1f %%): ", r->name, first_shape(r, shp, sizeof shp),
                jv_md_time(tb, sizeof tb, r->time_us), pct_of(r->time_us, d->total_us));
        jv_print_large_cover(f, d, i, "");
        fputc('\n', f);
    }
    fputc('\n', f);
}

int jv_standalone_recs(const jv_digest *d, jv_rec_text *out, int max) {
    jv_rec_text recs[JV_FIND_MAX_RECS];
    int nr = all_recs(d, recs), n = nr < max ? nr : max;
    if (n > 0) memcpy(out, recs, (size_t)n * sizeof *out);
    return n > 0 ? n : 0;
}

/* the peak policy paragraph (jv_peak_policy_text) */
static void write_policy(FILE *f, const jv_digest *d) {
    char pol[1024];
    jv_md_text(f, jv_peak_policy_text(pol, sizeof pol, d, NULL));
    fputs("\n\n", f);
}

static jv_status write_fair(const jv_digest *d, const char *path, jv_err *err) {
    const jv_dfindings *fx = jv_digest_findings(d);
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    fprintf(f, "<a id=\"top\"></a>\n\n# Standalone analysis: %s\n\n", d->trace_name);
    fprintf(f,
            "Device %s; roofline GPU %s. Working notes with the raw tables and calculations: "
            "[standalone_analysis_rough.md](standalone_analysis_rough.md).\n\n",
            d->device[0] ? d->device : "unknown", d->has_hw ? d->hw.name : "none");
    write_policy(f, d);
    fprintf(f, "<a id=\"summary\"></a>\n\n## Executive summary\n\n");
    write_metrics(f, d);
    write_ranking(f, d);
    /* the recommendations, in the model's order */
    jv_rec_text recs[JV_FIND_MAX_RECS];
    int nr = all_recs(d, recs);
    fprintf(f, "<a id=\"recommendations\"></a>\n\n## Recommendations\n\n");
    if (!nr) fprintf(f, "No issue with a projected saving was found.\n\n");
    if (nr)
        fprintf(f, "One list, ranked by projected saving; no kernel's time is counted in two recommendations. "
                   "Confidence: high: a measured pattern, the saving a lower bound; medium: measured time, the "
                   "saving an upper bound or set by a measured ceiling; low: a projection from the roofline.\n\n");
    for (int i = 0; i < nr; i++) {
        fprintf(f, "<a id=\"rec-%d\"></a>\n\n### %d. %s\n\n", i + 1, i + 1, recs[i].title);
        fprintf(f,
                "- **Issue:** %s\n- **Action:** %s\n- **Impact:** %s\n- **Confidence:** %s\n- **Detail:** "
                "[%s](%s)\n\n",
                recs[i].issue, recs[i].action, recs[i].impact, recs[i].confidence, recs[i].link_text, recs[i].link);
    }
    write_large(f, d);
    fprintf(f, "<a id=\"detail\"></a>\n\n## Detailed analysis\n\n");
    fprintf(f, "| Category | Rows | Time | Share of kernel time | Efficiency (Σ roofline / Σ time) | Detail |\n");
    fprintf(f, "|---|---:|---:|---:|---:|---|\n");
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        double e = fx->cat[c].eff;
        fprintf(f, "| %s | %u | %.3f ms | %.1f %% | ", jv_dcat_title((jv_dcat)c), d->cat_rows[c], d->cat_us[c] / 1e3,
                pct_of(d->cat_us[c], d->total_us));
        if (isnan(e))
            fputs("n/a", f);
        else
            fprintf(f, "%.1f %%", e);
        if (has_findings_file((jv_dcat)c))
            fprintf(f, " | [%s_findings.md](category_findings/%s_findings.md) |\n", jv_dcat_name((jv_dcat)c),
                    jv_dcat_name((jv_dcat)c));
        else
            fprintf(f, " | [top ops](standalone_analysis_rough.md#top-ops) |\n");
    }
    fprintf(f, "\nGPU timeline, top ops, the calculations and the call stacks to look at: "
               "[working notes](standalone_analysis_rough.md). Perf report: `perf_report.xlsx` and "
               "`perf_report_csvs/`.\n\n");
    jv_quality_md(f, d, "trace-quality", "Trace quality", 0);
    write_appendix(f, d);
    return jv_out_commit(&o, err);
}

/* ---------- rough ---------- */

static jv_status write_rough(const jv_digest *d, const char *path, jv_err *err) {
    const jv_dfindings *fx = jv_digest_findings(d);
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    const jv_gpu_timeline *tl = &d->tl;
    double tot = (double)tl->total;
    fprintf(f, "<a id=\"top\"></a>\n\n# Standalone analysis, working notes: %s\n\n", d->trace_name);
    fprintf(f,
            "The summary and recommendations are in [standalone_analysis_fair.md](standalone_analysis_fair.md).\n\n");
    write_policy(f, d);
    fprintf(f, "<a id=\"process\"></a>\n\n## Process\n\n");
    fprintf(
        f,
        "1. Read `%s`: %llu events, %llu GPU events counted in the timeline, %d device(s) in deviceProperties (%s).\n",
        d->trace, (unsigned long long)d->events, (unsigned long long)d->gpu_events, d->ndevices,
        d->device[0] ? d->device : "none named");
    fprintf(f, "2. GPU timeline (all devices merged): computation, exposed communication and memcpy, idle.\n");
    fprintf(f,
            "3. unified_perf_summary: %zu rows (op + shapes), every kernel counted once; categories GEMM, "
            "convolution, batch norm, elementwise, other.\n",
            d->nrows);
    fprintf(f, "4. Roofline: %s.\n", d->has_hw ? d->hw_why : "none");
    fprintf(f, "5. Elementwise baseline from simple add/mul/copy_ ops; per-op verdicts; category findings; impact "
               "projections; recommendations ranked by projected saving.\n\n");
    fprintf(f, "<a id=\"timeline\"></a>\n\n## GPU timeline\n\n| Type | Time (ms) | %% of span |\n|---|---:|---:|\n");
    struct {
        const char *n;
        int64_t v;
    } t[] = {{"computation", tl->computation},
             {"exposed_comm", tl->exposed_comm},
             {"exposed_memcpy", tl->exposed_memcpy},
             {"busy", tl->busy},
             {"idle", tl->idle},
             {"total", tl->total},
             {"total_comm", tl->total_comm},
             {"total_memcpy", tl->total_memcpy}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        fprintf(f, "| %s | %.3f | %.1f |\n", t[i].n, ms(t[i].v), pct_of((double)t[i].v, tot));
    fputc('\n', f);
    fprintf(f, "<a id=\"top-ops\"></a>\n\n## Top ops by kernel time\n\n");
    fprintf(f,
            "| # | Op | Category | Input Dims | Calls | Time (µs) | Median (µs) | Roofline (µs per call) | Bound | "
            "%% of peak | Verdict | UID | Replay op |\n|---|---|---|---|---:|---:|---:|---:|---|---:|---|---:|---:|\n");
    for (size_t i = 0; i < d->nrows && i < TOP_OPS; i++) {
        const jv_drow *r = &d->rows[i];
        const jv_row_eval e = r->eval;
        fprintf(f, "| %zu | ", i + 1);
        jv_md_code(f, r->name, 60, 1);
        fprintf(f, " | %s | ", jv_dcat_title(r->cat));
        jv_md_code(f, r->dims, 60, 1);
        fprintf(f, " | %u | %.1f | %.1f | ", r->count, r->time_us, r->median_us);
        if (isnan(r->roof_us))
            fputs("n/a", f);
        else
            fprintf(f, "%.2f", r->roof_us);
        fprintf(f, " | %s | ", r->bound != JV_BOUND_NONE ? jv_bound_name(r->bound) : "n/a");
        if (isnan(e.pct))
            fputs("n/a", f);
        else
            fprintf(f, "%.1f", e.pct);
        fprintf(f, " | %s | %u | ", e.verdict, r->uid);
        if (r->replay_op >= 0)
            fprintf(f, "%d |\n", r->replay_op);
        else
            fputs("- |\n", f);
    }
    if (!d->nrows) fprintf(f, "| - | no GPU kernels with an op | | | | | | | | | | | |\n");
    fputc('\n', f);
    fprintf(
        f,
        "<a id=\"categories\"></a>\n\n## Categories\n\n| Category | Rows | Time (µs) | Share (%%) | Σ roofline (µs) | "
        "Σ time with roofline (µs) | Efficiency (%%) |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        double roof = fx->cat[c].roof_us, tr = fx->cat[c].roof_time_us, e = fx->cat[c].eff;
        fprintf(f, "| %s | %u | %.1f | %.2f | %.1f | %.1f | ", jv_dcat_title((jv_dcat)c), d->cat_rows[c], d->cat_us[c],
                pct_of(d->cat_us[c], d->total_us), roof, tr);
        if (isnan(e))
            fputs("n/a |\n", f);
        else
            fprintf(f, "%.1f |\n", e);
    }
    fputc('\n', f);
    fprintf(f, "<a id=\"calculations\"></a>\n\n## Calculations\n\n");
    fprintf(f, "- Computation share = computation / span = %.3f ms / %.3f ms = %.1f %%.\n", ms(tl->computation),
            ms(tl->total), pct_of((double)tl->computation, tot));
    const jv_dbaseline *b = &d->baseline;
    if (b->state == JV_BASE_OK) {
        fprintf(f,
                "- Elementwise baseline = Σ bytes / Σ time over %u rows (%llu calls) of aten::add/add_/mul/mul_/copy_ "
                "kernels moving >= 1 MiB per call = %.0f B / %.1f µs = %.3f TB/s",
                b->rows, (unsigned long long)b->calls, b->bytes, b->time_us, b->tbs);
        double bp = jv_baseline_pct_of_hbm(d);
        if (!isnan(bp)) fprintf(f, "; / HBM %.2f TB/s = %.1f %%", d->hw.mem_bw_gbps / 1e3, bp);
        if (b->small_rows) fprintf(f, " (%u smaller rows left out)", b->small_rows);
        jv_print_baseline_transfers(f, d);
        fprintf(f, ".\n");
    } else {
        fputs("- ", f); /* "- no baseline: too few large elementwise ops (...)" */
        jv_print_no_baseline(f, d);
        fputs(".\n", f);
    }
    for (int c = 0; c < JV_DCAT_COUNT; c++)
        if (d->cat_us[c] > 0)
            fprintf(f, "- %s share = %.1f µs / %.1f µs = %.2f %%.\n", jv_dcat_title((jv_dcat)c), d->cat_us[c],
                    d->total_us, pct_of(d->cat_us[c], d->total_us));
    for (size_t i = 0; i < d->nrows && i < 3; i++) {
        const jv_drow *r = &d->rows[i];
        if (isnan(r->roof_us) || !(r->roof_us > 0)) continue;
        double e = 100.0 * r->count * r->roof_us / r->time_us;
        fprintf(f,
                "- Row %zu (`%.60s`): efficiency = calls x roofline / time = %u x %.3f µs / %.1f µs = %.1f %%; "
                "at 50 %%: %u x %.3f / 0.5 = %.1f µs",
                i + 1, r->name, r->count, r->roof_us, r->time_us, e, r->count, r->roof_us, r->count * r->roof_us / 0.5);
        if (e < 50) fprintf(f, ", saving %.1f µs", r->time_us - r->count * r->roof_us / 0.5);
        fprintf(f, ".\n");
    }
    for (size_t i = 0; i < d->nfusion && i < 3; i++) {
        const jv_dfusion *x = &d->fusion[i];
        const jv_ffusion *p = &fx->fusion[i];
        fprintf(f, "- Fusion `%s`: fused = instances x time / kernels = %u x %.1f µs / %u = %.1f µs; saving %.1f µs.\n",
                x->name, x->instances, x->ew_us, x->ew_kernels, p->fused_us, p->gain_us);
    }
    fputc('\n', f);
    fprintf(f, "<a id=\"call-stacks\"></a>\n\n## Call stacks to look at\n\n");
    for (size_t i = 0; i < d->nrows && i < 5; i++) {
        fprintf(f, "- `jarvis-analyze %s --call-stack %u`: ", d->trace, d->rows[i].uid);
        jv_md_code(f, d->rows[i].name, 70, 0);
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->nfusion && i < 3; i++) {
        fprintf(f, "- `jarvis-analyze %s --call-stack %u`: one instance of ", d->trace, d->fusion[i].example_uid);
        jv_md_code(f, d->fusion[i].name, 60, 0);
        fputc('\n', f);
    }
    if (!d->nrows && !d->nfusion) fprintf(f, "None: no op with GPU kernels.\n");
    fputc('\n', f);
    jv_quality_md(f, d, "trace-quality", "Trace quality", 1);
    fprintf(f, "<a id=\"gaps\"></a>\n\n## Gaps\n\n");
    int nomodel = 0, nrep = 0;
    double t_nomodel = 0, t_rep = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->nomodel != JV_NOMODEL_NONE) {
            nomodel++;
            t_nomodel += r->time_us;
        }
        if (r->replay_op >= 0) {
            nrep++;
            t_rep += r->time_us;
        }
    }
    fprintf(f, "- Rows without a perf model (no FLOPs/bytes, no %% of peak): %d, %.1f µs (%.1f %% of kernel time).\n",
            nomodel, t_nomodel, pct_of(t_nomodel, d->total_us));
    fprintf(f,
            "- Rows in the replay package: %d, %.1f %% of kernel time; the rest can only be judged from the trace.\n",
            nrep, pct_of(t_rep, d->total_us));
    if (!d->has_hw) fprintf(f, "- No roofline GPU: %s.\n", d->hw_why);
    if (!d->nrows) fprintf(f, "- The trace has no GPU kernels attributed to ops: no per-op analysis.\n");
    fprintf(f, "- GPU kernels whose launch is outside the trace window are not in the timeline (unless "
               "`--include-unlinked`); jarvis-analyze warns on the console when there are any.\n");
    fprintf(f, "- Not visible in a trace: occupancy, cache hit rates, coalescing, bank conflicts, clocks.\n\n");
    fprintf(f, "<a id=\"open-questions\"></a>\n\n## Open questions\n\n");
    if (tot > 0 && pct_of((double)tl->idle, tot) >= 5)
        fprintf(f,
                "- Is the idle time (%.1f %%) inside the training/inference steps or between profiler steps? "
                "Look at the host timeline of the largest gaps.\n",
                pct_of((double)tl->idle, tot));
    fprintf(f, "- Do the replayed ops reach the roofline on the device? Run `jarvis-replay replay_package.zip` on the "
               "target GPU and compare with the traced times.\n");
    if (fx->n)
        fprintf(f, "- The savings are projections (roofline or elementwise baseline); confirm each with a "
                   "change and a new trace.\n");
    return jv_out_commit(&o, err);
}

jv_status jv_standalone_write(const jv_digest *d, const char *outdir, jv_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/standalone_analysis_fair.md", outdir);
    JV_CHECK(write_fair(d, path, err));
    snprintf(path, sizeof path, "%s/standalone_analysis_rough.md", outdir);
    return write_rough(d, path, err);
}
