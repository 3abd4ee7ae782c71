/* jv_quality: the trace-quality counts of a digest and each row's reason for having no model (jv_quality.h). */
#include "jv_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"
#include "jv_digest.h"
#include "jv_family.h"

#define US(ns) ((double)(ns) / 1e3)

const char *jv_nomodel_str(jv_nomodel why) {
    switch (why) {
    case JV_NOMODEL_UNKNOWN_OP: return "no perf model for the op";
    case JV_NOMODEL_NO_SHAPES: return "no input shapes recorded";
    case JV_NOMODEL_NO_DTYPES: return "no input dtypes recorded";
    case JV_NOMODEL_REFUSED: return "the op's model could not read the recorded call";
    case JV_NOMODEL_GRAPH: return "replayed by a graph: no call recorded";
    case JV_NOMODEL_DATA: return "output size set by data the trace does not record";
    case JV_NOMODEL_SEQLENS: return "attention sized by sequence lengths the trace does not record";
    case JV_NOMODEL_NO_OP: return "launched outside any recorded op: no call recorded";
    case JV_NOMODEL_GENERATED: return "a compiled template whose generated code sets its work";
    default: return "";
    }
}

/* 1 for a kernel-launch runtime or driver call (cudaLaunchKernel, hipLaunchKernel, hipModuleLaunchKernel,
 * cuLaunchKernel, hipExtModuleLaunchKernel, ...): a synthetic row under one is a kernel no op launched */
static int is_kernel_launch(const char *name) {
    return jv_contains_nocase(name, "LaunchKernel");
}

/* ops the trace cannot size that no family reads: aten::index takes a list of index tensors whose shapes the
 * profiler does not record; nonzero, masked_select and unique return as many elements as the data selects. A
 * family's own such ops say why through jv_family.unsized (serving attention: sequence lengths; compiled
 * templates: generated code). */
static const char *const DATA_SIZED[] = {"aten::index",    "aten::nonzero",    "aten::masked_select",
                                         "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive"};

/* the reason op cannot be sized from a trace (DATA_SIZED, or its family's jv_family.unsized), JV_NOMODEL_NONE
 * when it can */
static jv_nomodel unsizable(const char *op) {
    for (size_t i = 0; i < sizeof DATA_SIZED / sizeof DATA_SIZED[0]; i++)
        if (!strcmp(op, DATA_SIZED[i])) return JV_NOMODEL_DATA;
    jv_match how;
    const int f = jv_family_find(op, &how);
    const jv_family *fam = f >= 0 ? jv_family_get(f) : NULL;
    switch (fam && fam->unsized ? fam->unsized(op) : JV_UNSIZED_NO) {
    case JV_UNSIZED_SEQLENS: return JV_NOMODEL_SEQLENS;
    case JV_UNSIZED_GENERATED: return JV_NOMODEL_GENERATED;
    case JV_UNSIZED_NO: break;
    }
    return JV_NOMODEL_NONE;
}

/* why row r has no FLOPs/bytes model (JV_NOMODEL_NONE: it has one) */
static jv_nomodel why_of(const jv_drow *r) {
    int has = !(r->model < 0 && isnan(r->flops)) && !(isnan(r->flops) && isnan(r->bytes));
    if (has) return JV_NOMODEL_NONE;
    if (r->synthetic && r->op_name && jv_is_graph_launch_name(r->op_name)) return JV_NOMODEL_GRAPH;
    if (r->synthetic && r->op_name && is_kernel_launch(r->op_name)) return JV_NOMODEL_NO_OP;
    /* an unsizable op, a family's model of it refused (serving attention without its step annotation), or its
     * own kernels (a synthetic row under it: it also called kernel-launching ops) */
    if (r->op_name) {
        jv_nomodel why = unsizable(r->op_name);
        if (why != JV_NOMODEL_NONE) return why;
    }
    if (r->synthetic || (!r->has_model && r->family_id < 0)) return JV_NOMODEL_UNKNOWN_OP;
    if (!(r->args_present & 1u)) return JV_NOMODEL_NO_SHAPES;
    if (r->no_dtypes) return JV_NOMODEL_NO_DTYPES;
    return JV_NOMODEL_REFUSED;
}

static void add(jv_qcount *c, double us) {
    c->n++;
    c->us += us;
}

/* (contract in jv_digest.h) */
jv_status jv_quality_compute(jv_digest *d, const jv_trace *tr, const jv_tree *t, jv_err *err) {
    jv_trace_quality *q = &d->quality;
    memset(q, 0, sizeof *q);
    for (size_t i = 0; i < d->nrows; i++) {
        jv_drow *r = &d->rows[i];
        r->nomodel = why_of(r);
        add(&q->unmodelled[r->nomodel], r->time_us);
        if (r->synthetic) continue;
        if (!(r->args_present & 1u))
            add(&q->no_shapes, r->time_us);
        else if (r->no_dtypes)
            add(&q->no_dtypes, r->time_us);
    }
    q->no_device_props = tr->ndevices == 0;
    q->unnamed_device = tr->ndevices > 0 && !tr->devices[0].name[0];
    q->bad_time = tr->counts.bad_time;
    q->host_overlap = t->counts.dropped_overlap;
    if (!tr->nev || !t->parent) return JV_OK;
    /* the graph-launch calls (runtime or driver events with GraphLaunch in the name: the test once per name), in
       event order, and per call the GPU time of the events it owns (NaN: owns none yet); a GPU event's parent is
       looked up among them by binary search (a per-event array was 9 bytes an event) */
    uint8_t *memo = calloc(tr->strings.count ? tr->strings.count : 1, 1); /* 0 unknown, 1 no, 2 yes */
    uint32_t *graph = NULL;
    double *owned = NULL;
    size_t ng = 0, capg = 0;
    jv_status s = memo ? JV_OK : JV_ERR_NOMEM;
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        jv_kind k = jv_ev_kind(tr, e);
        if (k != JV_K_RUNTIME && k != JV_K_DRIVER) continue;
        if (!jv_name_memo(tr, jv_ev_name(tr, e), memo, jv_is_graph_launch_name)) continue;
        if ((s = JV_RESERVE(graph, capg, ng + 1)) == JV_OK) graph[ng++] = (uint32_t)i;
    }
    if (s == JV_OK && !(owned = malloc((ng ? ng : 1) * sizeof *owned))) s = JV_ERR_NOMEM;
    if (s != JV_OK) {
        free(memo);
        free(graph);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (trace quality)");
    }
    for (size_t g = 0; g < ng; g++)
        owned[g] = NAN;
    for (size_t i = 0; i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
        q->gpu_events++;
        uint32_t p = t->parent[i];
        if (p == JV_NONE32) {
            add(&q->unlinked, US(jv_ev_dur(tr, e)));
            continue;
        }
        jv_kind pk = jv_ev_kind(tr, &tr->ev[p]);
        if (pk != JV_K_RUNTIME && pk != JV_K_DRIVER) continue;
        if (jv_ev_ts(tr, e) < jv_ev_ts(tr, &tr->ev[p])) add(&q->before_launch, US(jv_ev_dur(tr, e)));
        if (memo[jv_ev_name(tr, &tr->ev[p])] != 2) continue;
        size_t lo = 0, hi = ng; /* p is among graph[0..ng) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (graph[mid] < p)
                lo = mid + 1;
            else
                hi = mid;
        }
        owned[lo] = (isnan(owned[lo]) ? 0 : owned[lo]) + US(jv_ev_dur(tr, e));
    }
    for (size_t g = 0; g < ng; g++) {
        if (isnan(owned[g])) {
            add(&q->graph_launches, 0);
            add(&q->graph_unrecorded, 0);
        } else {
            add(&q->graph_launches, owned[g]);
        }
    }
    free(owned);
    free(graph);
    free(memo);
    return JV_OK;
}
