/* jv_ops: kernel launchers and the op tables built on them (TraceLens'
 * ops_summary, ops_summary_by_category, ops_unique_args, kernel_summary).
 * A launcher is the op a GPU event is attributed to (jv_tree.launcher);
 * its direct kernel time is the union of its own GPU events' busy intervals,
 * its subtree time the union over every GPU event below it. */
#ifndef JV_OPS_H
#define JV_OPS_H

#include "jv_trace.h"
#include "jv_tree.h"

typedef struct {
    uint32_t ev;        /* the launcher event */
    uint32_t ndirect;   /* direct GPU events */
    uint32_t first_gpu; /* first direct GPU event (file order) */
    uint32_t gpu_begin; /* range in jv_launchers.gpu_list */
    int64_t direct_ns, subtree_ns;
    const char *category; /* jv_op_category of the launcher */
} jv_launcher;

typedef struct {
    jv_launcher *rows; /* sorted by (ts, uid) */
    size_t n;
    uint32_t *gpu_list; /* direct GPU events of each row, file order */
    uint32_t *by_ev;    /* the row indices in launcher event order (jv_launchers_find's binary search) */
} jv_launchers;

/* Collects launchers; communication kernels are left out of direct lists (as
 * TraceLens does) but count in subtree times. JV_ERR_NOMEM on failure. */
jv_status jv_launchers_build(const jv_trace *tr, const jv_tree *t, jv_launchers *out);

/* Frees the launcher table. */
void jv_launchers_free(jv_launchers *l);

/* Returns the launcher row of event ev, or NULL when ev launched nothing. */
const jv_launcher *jv_launchers_find(const jv_launchers *l, uint32_t ev);

#endif
