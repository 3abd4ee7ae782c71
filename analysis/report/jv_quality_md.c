/* jv_quality_md: the trace-quality section (jv_quality_md.h). Prints the digest's counts; computes nothing. */
#include "jv_quality_md.h"

#include <math.h>

#include "jv_escape.h"

static void line(jv_qline *out, int *n, const char *what, uint64_t c, uint64_t of, double us, const char *means) {
    if (!c || *n >= JV_QLINES_MAX) return;
    out[*n] = (jv_qline){what, c, of, us, means};
    (*n)++;
}

int jv_quality_lines(const jv_digest *d, jv_qline out[JV_QLINES_MAX]) {
    const jv_trace_quality *q = &d->quality;
    int n = 0;
    uint64_t rows = d->nrows;
    line(out, &n, "Op rows without input shapes", q->no_shapes.n, rows, q->no_shapes.us,
         "no FLOPs or bytes: no % of roofline, verdict or saving for them (record with record_shapes=True)");
    line(out, &n, "Op rows with shapes but no dtypes", q->no_dtypes.n, rows, q->no_dtypes.us,
         "no bytes per element: these ops cannot be modelled, so they are left out of every efficiency figure");
    for (int w = 1; w < JV_NOMODEL_COUNT; w++) {
        static const char *what[JV_NOMODEL_COUNT] = {"",
                                                     "Rows not modelled: no perf model for the op",
                                                     "Rows not modelled: no input shapes recorded",
                                                     "Rows not modelled: no input dtypes recorded",
                                                     "Rows not modelled: the model could not read the call",
                                                     "Rows not modelled: kernels a graph replayed",
                                                     "Rows not modelled: output size set by data",
                                                     "Rows not modelled: attention sized by sequence lengths",
                                                     "Rows not modelled: kernels launched outside any op",
                                                     "Rows not modelled: compiled templates"};
        static const char *const GENERIC =
            "their time counts in the totals and categories, but in no roofline figure, verdict or saving";
        static const char *means[JV_NOMODEL_COUNT] = {
            [JV_NOMODEL_GRAPH] = "a CUDA / HIP graph launch records its kernels but not the calls that built the graph "
                                 "(no shapes, no dtypes): they cannot be modelled from this trace; profile the same "
                                 "step without graphs (eager mode, or a warm-up step before capture) to model them",
            [JV_NOMODEL_DATA] = "aten::index's index tensors (their shapes are not recorded) or the values nonzero, "
                                "masked_select and unique select decide how many elements these ops move: no trace "
                                "says; their time counts in the totals, not in any roofline figure",
            [JV_NOMODEL_SEQLENS] = "serving attention over a paged or packed KV cache does work set by each request's "
                                   "query and context lengths (block tables, cu_seqlens: tensor values, not "
                                   "recorded); jarvis, as TraceLens, sizes vLLM's unified attention and the varlen "
                                   "forwards from the step annotation around them "
                                   "(execute_<n>_context_<r>(sq..sk..sqsq..sqsk..)_generation_<r>(...)): these calls "
                                   "had none",
            [JV_NOMODEL_NO_OP] = "a runtime call launched these kernels with no PyTorch op around it (a library's or "
                                 "extension's own launch): the trace records no arguments for them, so nothing "
                                 "sizes them; their time counts in the totals, not in any roofline figure",
            [JV_NOMODEL_GENERATED] = "torch.compile templates (triton_tem_) other than a GEMM or a convolution, such "
                                     "as flex_attention's: their block mask and score modification are generated "
                                     "code, and the trace records the kernel's tensors, not what it computes on them "
                                     "(the kernel_file its launch names holds the code); their time counts in the "
                                     "totals, not in any roofline figure"};
        line(out, &n, what[w], q->unmodelled[w].n, rows, q->unmodelled[w].us, means[w] ? means[w] : GENERIC);
    }
    line(out, &n, "GPU events with no launcher", q->unlinked.n, q->gpu_events, q->unlinked.us,
         "attributed to no op and left out of gpu_timeline (unless --include-unlinked): launched before the trace "
         "window, or replayed by a graph");
    line(out, &n, "Graph launches whose kernels were not recorded", q->graph_unrecorded.n, q->graph_launches.n, NAN,
         "the replayed kernels are missing: their GPU time is in no op, category or timeline figure");
    line(out, &n, "GPU events that start before their launch call", q->before_launch.n, q->gpu_events,
         q->before_launch.us,
         "host and GPU clocks disagree: launch gaps and the host/GPU overlap are not reliable; kernel times are");
    line(out, &n, "Host events that end after their enclosing event", q->host_overlap, 0, NAN,
         "kept as roots: their GPU time is not attributed to the enclosing op");
    line(out, &n, "Events without a usable ts/dur (skipped)", q->bad_time, 0, NAN, "missing from every figure");
    line(out, &n, "No device properties", q->no_device_props, 0, NAN,
         "the traced GPU is unknown: no roofline GPU is chosen from the trace (pass --gpu-arch)");
    line(out, &n, "Device properties without a device name", q->unnamed_device, 0, NAN,
         "the roofline GPU is matched from the other properties, or not at all (pass --gpu-arch)");
    return n;
}

void jv_quality_md(FILE *f, const jv_digest *d, const char *id, const char *title, int rough) {
    const jv_trace_quality *q = &d->quality;
    fprintf(f, "<a id=\"%s\"></a>\n\n## %s\n\n", id, title);
    double mod_pct = d->total_us > 0 ? 100.0 * q->unmodelled[JV_NOMODEL_NONE].us / d->total_us : 0.0;
    fprintf(f, "Modelled rows (FLOPs or bytes known): %llu of %zu, %.1f %% of kernel time.\n\n",
            (unsigned long long)q->unmodelled[JV_NOMODEL_NONE].n, d->nrows, mod_pct);
    jv_qline ls[JV_QLINES_MAX];
    int n = jv_quality_lines(d, ls);
    if (!n) {
        fprintf(f, "No issue found.\n\n");
    } else {
        fprintf(f, "| What | Count | GPU time (µs) | What it means for the conclusions |\n|---|---:|---:|---|\n");
        for (int i = 0; i < n; i++) {
            fprintf(f, "| %s | %llu", ls[i].what, (unsigned long long)ls[i].n);
            if (ls[i].of) fprintf(f, " of %llu", (unsigned long long)ls[i].of);
            if (isnan(ls[i].us))
                fprintf(f, " | – ");
            else
                fprintf(f, " | %.1f ", ls[i].us);
            fprintf(f, "| %s |\n", ls[i].means);
        }
        fputc('\n', f);
    }
    if (!rough) return;
    if (q->graph_launches.n)
        fprintf(f,
                "Graph launches (cudaGraphLaunch / hipGraphLaunch): %llu, %llu of them with their kernels recorded "
                "(%.1f µs of GPU events).\n\n",
                (unsigned long long)q->graph_launches.n,
                (unsigned long long)(q->graph_launches.n - q->graph_unrecorded.n), q->graph_launches.us);
    int shown = 0;
    for (size_t i = 0; i < d->nrows && shown < 10; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->nomodel == JV_NOMODEL_NONE) continue;
        if (!shown)
            fprintf(f, "Largest rows not modelled:\n\n| Row | ex_UID | Time (µs) | Why |\n|---|---:|---:|---|\n");
        fputs("| ", f);
        jv_md_code(f, r->name, 70, 1);
        fprintf(f, " | %u | %.1f | %s |\n", r->uid, r->time_us, jv_nomodel_str(r->nomodel));
        shown++;
    }
    if (shown) fputc('\n', f);
}
