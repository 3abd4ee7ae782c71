/* jv_verdict: the verdict of a replayed op (see jv_verdict.h). */
#include "jv_verdict.h"

#include "conv/conv.h"
#include "jv_family.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *jv_figure_str(jv_figure f) {
    switch (f) {
    case JV_FIG_HOT: return "hot";
    case JV_FIG_GRAPH: return "graph";
    case JV_FIG_COLD: return "cold";
    case JV_FIG_COLD_NO_GAP: return "cold, launch gap removed";
    default: return "-";
    }
}

const char *jv_figure_short(jv_figure f) {
    return f == JV_FIG_COLD_NO_GAP ? "cold-gap" : jv_figure_str(f);
}

double jv_launch_gap_s(const jv_op_result *r) {
    double g = r->hot.median_s - r->graph_s;
    return r->graph_s > 0 && g > 0 ? g : 0;
}

jv_figure jv_figure_of(const jv_op_result *r, double *time_s) {
    *time_s = 0;
    int hot = r->hot.samples > 0 && r->hot.median_s > 0, cold = r->cold.samples > 0 && r->cold.median_s > 0;
    int graph = r->graph_s > 0;
    if (cold && graph && !r->cold.held) { /* held cold samples are device time already */
        double gap = hot ? jv_launch_gap_s(r) : 0;
        double t = r->cold.median_s - gap;
        *time_s = t > r->graph_s ? t : r->graph_s;
        return gap > 0 ? JV_FIG_COLD_NO_GAP : JV_FIG_COLD;
    }
    if (cold) {
        *time_s = r->cold.median_s;
        return JV_FIG_COLD;
    }
    if (graph) {
        *time_s = r->graph_s;
        return JV_FIG_GRAPH;
    }
    if (hot) {
        *time_s = r->hot.median_s;
        return JV_FIG_HOT;
    }
    return JV_FIG_NONE;
}

/* the measured FLOP ceiling of the op's dtype where one was measured (the
 * CPU's bf16 GEMM), else the GEMM's carried to the op's compute spec
 * through the datasheet ratio */
static double flops_ceiling_for(const jv_op_result *r, const jv_baseline *b, const jv_hw *ds) {
    if (!b->gemm_done) return 0;
    if (b->gemm_alt_done && r->perf.dtype == b->gemm_alt.perf.dtype) return b->flops_ceiling_alt; /* measured */
    if (!ds) return b->flops_ceiling;
    char want[32], have[32];
    jv_perf_compute_spec(&r->perf, want, sizeof want);
    jv_perf_compute_spec(&b->gemm.perf, have, sizeof have);
    double pw = jv_hw_datasheet_peak(ds, want), ph = jv_hw_datasheet_peak(ds, have);
    if (pw > 0 && ph > 0) return b->flops_ceiling * pw / ph;
    return b->flops_ceiling;
}

void jv_verdict_of(const jv_op_result *r, const jv_baseline *b, const jv_hw *ds, const jv_device_props *p,
                   jv_verdict *v) {
    memset(v, 0, sizeof *v);
    v->eff = v->eff_datasheet = v->traced_over_replay = v->achieved_bw = NAN;
    double tm;
    jv_figure fig = jv_figure_of(r, &tm);
    if (r->status != JV_RES_OK || fig == JV_FIG_NONE || tm <= 0) return;
    v->figure = fig;
    v->cache = fig == JV_FIG_COLD || fig == JV_FIG_COLD_NO_GAP ? "cold" : "hot";
    v->time_s = tm;
    double bytes = r->perf.bytes, flops = r->perf.flops;
    if (!isnan(bytes)) v->achieved_bw = bytes / v->time_s;
    v->achieved_flops = flops / v->time_s;
    if (r->traced_median_us > 0) v->traced_over_replay = r->traced_median_us * 1e-6 / v->time_s;
    v->bw_ceiling = b && b->done ? b->bw_ceiling : 0;
    v->flops_ceiling = b ? flops_ceiling_for(r, b, ds) : 0;
    double tb = v->bw_ceiling > 0 && !isnan(bytes) ? bytes / v->bw_ceiling : 0;
    double tf = v->flops_ceiling > 0 ? flops / v->flops_ceiling : 0;
    v->bound_s = tb > tf ? tb : tf;
    v->limiter = tf > tb ? "compute" : "memory";
    if (v->bound_s > 0) v->eff = v->bound_s / v->time_s;
    if (ds) {
        char spec[32];
        jv_perf_compute_spec(&r->perf, spec, sizeof spec);
        double pf = spec[0] ? jv_hw_datasheet_peak(ds, spec) * 1e12 : 0, pb = ds->mem_bw_gbps * 1e9;
        double db = pb > 0 && !isnan(bytes) ? bytes / pb : 0, df = pf > 0 ? flops / pf : 0;
        double dt = db > df ? db : df;
        if (dt > 0) v->eff_datasheet = dt / v->time_s;
    }
    int layout = 0;
    if (r->traced_kernels[0]) {
        char buf[sizeof r->traced_kernels];
        snprintf(buf, sizeof buf, "%s", r->traced_kernels);
        for (char *save = NULL, *k = strtok_r(buf, ";", &save); k; k = strtok_r(NULL, ";", &save))
            if (jv_is_layout_kernel(k)) layout = 1;
    }
    jv_judge_in in = jv_judge_in_none();
    in.time_us = v->time_s * 1e6;
    in.bound_us = v->bound_s * 1e6;
    in.eff = v->eff;
    in.launch_us = p->launch_us;
    in.layout_seen = layout; /* their share is unknown: the replay ran the op without them */
    v->kind = jv_judge(&in);
    switch (v->kind) {
    case JV_JUDGE_LAUNCH:
        snprintf(v->why, sizeof v->why,
                 "its roofline time %.2f us is under one launch (%.2f us) and it ran in %.2f us: too small to fill "
                 "the device",
                 v->bound_s * 1e6, p->launch_us, v->time_s * 1e6);
        break;
    case JV_JUDGE_NEAR:
        snprintf(v->why, sizeof v->why, "%.0f %% of the measured %s roofline (%.2f us of %.2f us)", 100 * v->eff,
                 v->limiter, v->bound_s * 1e6, v->time_s * 1e6);
        break;
    case JV_JUDGE_LAYOUT:
        snprintf(v->why, sizeof v->why,
                 "layout-conversion kernels ran with it in the trace; %.0f %% of the measured %s roofline",
                 100 * v->eff, v->limiter);
        break;
    case JV_JUDGE_NONE: snprintf(v->why, sizeof v->why, "no measured ceiling (baseline not run)"); break;
    default: /* kernel issue, below peak (hardware-limited needs a second ceiling replay does not have) */
        snprintf(v->why, sizeof v->why,
                 "%.0f %% of the measured %s roofline: simple kernels reach %.2f TB/s%s%.1f TFLOP/s on this device",
                 100 * v->eff, v->limiter, v->bw_ceiling / 1e12, v->flops_ceiling > 0 ? " and " : "",
                 v->flops_ceiling / 1e12);
    }
}
