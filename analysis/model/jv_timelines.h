/* jv_timelines: the GPU timelines of one trace, computed once (jv_timeline_compute) for every reader: the digest
 * (d->tl), the gpu_timeline and gpu_timeline_by_device sheets, kernel_summary's percent of total time and a
 * rank's view (jv_rank_collect). They all used the same options but the idle causes, which only add fields:
 * the all-devices timeline is computed once with them. */
#ifndef JV_TIMELINES_H
#define JV_TIMELINES_H

#include "jv_timeline.h"

typedef struct {
    jv_timeline_opts opts; /* as given (opts.idle_causes ignored: all.idle_cause is always filled) */
    jv_gpu_timeline all;   /* all devices merged, with the idle causes (opts.idle_causes = 1) */
    int *devs;             /* the distinct devices of the GPU events, ascending (jv_timeline_devices) */
    jv_gpu_timeline *dev;  /* dev[i]: device devs[i] alone, without idle causes (events 0: none counted) */
    size_t ndev;
} jv_timelines;

/* Computes out from trace tr and its tree t: equal, field by field, to jv_timeline_compute(tr, t, opts', -1)
 * with opts'.idle_causes = 1 for out->all, and jv_timeline_compute(tr, t, opts', devs[i]) with
 * opts'.idle_causes = 0 for out->dev[i]; with one device dev[0] is out->all less its idle causes (the same
 * events), not a second pass. JV_ERR_NOMEM on failure (out freed). */
jv_status jv_timelines_compute(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *opts, jv_timelines *out);

/* Frees what jv_timelines_compute allocated; out is zeroed (freeing twice is harmless). */
void jv_timelines_free(jv_timelines *out);

#endif
