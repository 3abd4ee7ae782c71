/* jv_timeline: busy-interval arithmetic and the GPU timeline breakdown
 * (TraceLens' gpu_timeline sheet): computation, exposed communication and
 * memcpy, busy, idle, for all GPUs merged and for each GPU (device). */
#ifndef JV_TIMELINE_H
#define JV_TIMELINE_H

#include "jv_trace.h"
#include "jv_tree.h"

typedef struct {
    int64_t start, end; /* ns */
} jv_iv;

/* Sorts iv[0..n) and merges overlapping or touching intervals in place;
 * returns the number of merged intervals. */
size_t jv_iv_merge(jv_iv *iv, size_t n);

/* Total length of a merged interval list. */
int64_t jv_iv_len(const jv_iv *iv, size_t n);

/* Length of the union of n intervals (iv is reordered). */
int64_t jv_iv_union_len(jv_iv *iv, size_t n);

/* Length of the intersection of two merged lists. */
int64_t jv_iv_overlap(const jv_iv *a, size_t na, const jv_iv *b, size_t nb);

/* What the host was doing while the GPU idled, by the host events over each idle gap, the first class that
 * covers a moment winning: the input pipeline (an event named ...DataLoader...), a synchronisation (a runtime
 * call ...Synchronize..., a blocking cudaMemcpy / hipMemcpy, aten::item / aten::_local_scalar_dense), the
 * optimizer (Optimizer.step / Optimizer.zero_grad...), any other host event, or none recorded. */
typedef enum { JV_IDLE_DATA = 0, JV_IDLE_SYNC, JV_IDLE_OPTIM, JV_IDLE_HOST, JV_IDLE_NONE, JV_IDLE_COUNT } jv_idle_cause;

typedef struct {
    int device;    /* -1 for all devices merged */
    size_t events; /* GPU events counted */
    int64_t computation, exposed_comm, exposed_memcpy, busy, idle, total, total_comm, total_memcpy; /* ns */
    int64_t micro_idle, macro_idle; /* idle split at the threshold (when one was given) */
    int64_t first_start;
    int64_t idle_cause[JV_IDLE_COUNT]; /* idle by what the host was doing (with opts.idle_causes; they sum to idle) */
    int64_t idle_gaps, idle_gap_max;   /* gaps between busy intervals, and the longest (ns) */
} jv_gpu_timeline;

typedef struct {
    int include_unlinked;  /* count GPU events whose launch is not in the trace (TraceLens: no) */
    int64_t micro_idle_ns; /* gaps shorter than this are micro idle; <= 0: no split */
    int idle_causes;       /* 1: also split the idle time by jv_idle_cause (all devices merged only) */
} jv_timeline_opts;

/* Computes the breakdown over the GPU events of device dev (-1 = all). An empty
 * selection gives all zeros with events = 0. JV_ERR_NOMEM on failure. */
jv_status jv_timeline_compute(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *o, int dev,
                              jv_gpu_timeline *out);

/* Lists the distinct devices of GPU events (ascending) into *devs (malloc'd). */
jv_status jv_timeline_devices(const jv_trace *tr, int **devs, size_t *n);

#endif
