/* jv_timelines: the GPU timelines of one trace, computed once. */
#include "jv_timelines.h"

#include <stdlib.h>
#include <string.h>

jv_status jv_timelines_compute(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *opts, jv_timelines *out) {
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    jv_timeline_opts o = *opts;
    o.idle_causes = 1;
    jv_status st = jv_timeline_compute(tr, t, &o, -1, &out->all);
    if (st == JV_OK) st = jv_timeline_devices(tr, &out->devs, &out->ndev);
    if (st == JV_OK && out->ndev && !(out->dev = calloc(out->ndev, sizeof *out->dev))) st = JV_ERR_NOMEM;
    o.idle_causes = 0;
    if (st == JV_OK && out->ndev == 1) { /* every GPU event is on this device: the same timeline */
        out->dev[0] = out->all;
        out->dev[0].device = out->devs[0];
        memset(out->dev[0].idle_cause, 0, sizeof out->dev[0].idle_cause);
    } else {
        for (size_t i = 0; i < out->ndev && st == JV_OK; i++)
            st = jv_timeline_compute(tr, t, &o, out->devs[i], &out->dev[i]);
    }
    if (st != JV_OK) jv_timelines_free(out);
    return st;
}

void jv_timelines_free(jv_timelines *out) {
    free(out->devs);
    free(out->dev);
    memset(out, 0, sizeof *out);
}
