/* jv_ops: kernel launchers and the op tables built on them (TraceLens'
 * ops_summary, ops_summary_by_category, ops_unique_args, kernel_summary).
 * A launcher is the op a GPU event is attributed to (jv_tree.launcher);
 * its direct kernel time is the union of its own GPU events' busy intervals,
 * its subtree time the union over every GPU event below it. */
#ifndef JV_OPS_H
#define JV_OPS_H

#include "jv_category.h"
#include "jv_trace.h"
#include "jv_tree.h"

/* A launcher row: 32 bytes (a training trace has tens of thousands). */
typedef struct {
    uint32_t ev;        /* the launcher event */
    uint32_t ndirect;   /* direct GPU events (>= 1): gpu_list[gpu_begin] is the first, in file order */
    uint32_t gpu_begin; /* range in jv_launchers.gpu_list */
    uint8_t cat;        /* jv_opcat of the launcher (read it with jv_launcher_category) */
    int64_t direct_ns, subtree_ns;
} jv_launcher;
_Static_assert(sizeof(jv_launcher) <= 32, "a launcher row is at most 32 bytes");

/* The category name (jv_opcat_name) of row r: one static pointer per category. */
static inline const char *jv_launcher_category(const jv_launcher *r) {
    return jv_opcat_name((jv_opcat)r->cat);
}

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
