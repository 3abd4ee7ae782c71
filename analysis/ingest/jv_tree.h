/* jv_tree: the host call tree and GPU linking. Host events of each (pid, tid)
 * nest by time; each kernel, memcpy and memset is linked to its launch event
 * (by correlation id, else by an ac2g/async flow pair, else by the 2021
 * "external id" of its op), and through the launch to the CPU op that issued it. */
#ifndef JV_TREE_H
#define JV_TREE_H

#include "jv_map.h"
#include "jv_trace.h"

typedef struct {
    uint64_t gpu_events;           /* kernel + memcpy + memset events */
    uint64_t by_correlation;       /* linked to a launch by correlation id */
    uint64_t by_flow;              /* linked by a flow pair (no correlation in args) */
    uint64_t by_external_id;       /* linked straight to a cpu op by external id (2021 traces) */
    uint64_t unlinked;             /* launch not in the trace window */
    uint64_t with_cpu_op;          /* linked GPU events whose launch has a cpu op above it */
    uint64_t graph_launches;       /* launch events that own more than one GPU event */
    uint64_t graph_kernels;        /* GPU events owned by such launches */
    uint64_t dropped_overlap;      /* host events that overlap their parent's end (kept as roots) */
    uint64_t cpu_ops;              /* cpu_op events */
    uint64_t cpu_ops_with_shapes;  /* cpu ops that carry Input Dims */
    uint64_t shared_ids;           /* correlation ids that launches of more than one process carry */
    uint64_t shared_id_unlinked;   /* GPU events with such an id whose process could not be told */
    uint64_t shared_flow_ids;      /* launch flow ids whose starts are in more than one process */
    uint64_t shared_flow_unlinked; /* GPU events at the end of such a flow whose process could not be told */
} jv_link_counts;

typedef struct {
    uint32_t *parent;   /* per event: host parent, or for GPU events the launch (or op) event; JV_NONE32 = none */
    uint32_t *launcher; /* per GPU event (index jv_ev_aux): the op it is attributed to, JV_NONE32 when unlinked */
    jv_map fwd_of_seq;  /* Sequence number -> forward op event index */
    jv_link_counts counts;
} jv_tree;

/* The deepest nesting of host events the tree accepts (the deepest of the 38 fixture traces, Python
 * functions included, is 53): it bounds every walk up the tree, so no analysis is quadratic in the depth. */
enum { JV_TREE_MAX_DEPTH = 256 };

/* Builds the tree and links GPU events for tr. The analysis tree holds cpu ops
 * and runtime/driver calls (as TraceLens'); with_python adds python_function
 * and user_annotation events (for call-stack queries). JV_ERR_NOMEM, or JV_ERR_LIMIT
 * for nesting deeper than JV_TREE_MAX_DEPTH (the message names the event; the caller adds the
 * file), on failure (tree freed). threads: 1 builds it on the calling thread; else the host tree and the GPU
 * links are built at once on two threads where a second can be started (the same tree either way). */
jv_status jv_tree_build(const jv_trace *tr, int with_python, int threads, jv_tree *t, jv_err *err);

/* Frees the tree. */
void jv_tree_free(jv_tree *t);

/* The op of GPU event i (an index into tr->ev): its parent when that is a cpu op, else the nearest cpu op above its
 * launch reached through python functions and user annotations only; JV_NONE32 when unlinked or none. Climbs at
 * most JV_TREE_MAX_DEPTH events (computed when asked: no per-GPU-event array). */
uint32_t jv_tree_op_of_gpu(const jv_trace *tr, const jv_tree *t, uint32_t i);

/* 1 when GPU event i (an index into tr->ev) is linked to a launch or op. */
static inline int jv_tree_gpu_linked(const jv_tree *t, const jv_trace *tr, uint32_t i) {
    return t->parent[i] != JV_NONE32 && jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i]));
}

/* A set of events, closed upwards in the tree when built with jv_upset_add (some start events and every event above
 * them) or any events with jv_upset_add_one, with each
 * member's rank among the members (jv_upset_ix), so that a stage's per-node arrays are sized by the members
 * rather than by every event: the launchers and perf instances above GPU events are a third of the events of
 * a training trace. 1 bit + 4 bytes per 64 events for the set itself. */
typedef struct {
    uint64_t *bits; /* member x: bit x % 64 of bits[x / 64] */
    uint32_t *rank; /* per word: the members in the words before it (after jv_upset_seal) */
    size_t nwords;
    size_t n; /* members (after jv_upset_seal) */
} jv_upset;

/* An empty set over the events of tr. JV_ERR_NOMEM (u freed) on failure. */
jv_status jv_upset_init(jv_upset *u, const jv_trace *tr);

/* Adds x and every event above it in t (x may be JV_NONE32: nothing). Before jv_upset_seal only. */
void jv_upset_add(jv_upset *u, const jv_tree *t, uint32_t x);

/* Adds x alone, not the events above it (x may be JV_NONE32: nothing). Before jv_upset_seal only. */
void jv_upset_add_one(jv_upset *u, uint32_t x);

/* Ends the adding: the ranks and u->n. */
void jv_upset_seal(jv_upset *u);

/* Frees the set. */
void jv_upset_free(jv_upset *u);

/* 1 when event x is a member. */
static inline int jv_upset_has(const jv_upset *u, uint32_t x) {
    return (int)(u->bits[x >> 6] >> (x & 63) & 1);
}

/* The rank of member x among the members (in event order), after jv_upset_seal: 0 .. u->n - 1. */
static inline uint32_t jv_upset_ix(const jv_upset *u, uint32_t x) {
    uint64_t below = u->bits[x >> 6] & ((UINT64_C(1) << (x & 63)) - 1);
    return u->rank[x >> 6] + jv_popcount64(below);
}

/* 1 for a communication kernel: NCCL / RCCL / MSCCL, NVSHMEM, DeepEP dispatch and combine, custom all-reduce,
 * all-gather, reduce-scatter and all-to-all kernels (by name, any case; the list in jv_tree.c). */
int jv_is_comm_kernel(const char *name);

/* 1 for the name of a graph launch call: cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch and their variants
 * ("GraphLaunch" anywhere in the name, any case). The call tree and the trace-quality checks use this one test. */
int jv_is_graph_launch_name(const char *name);

/* 1 when an event name contains needle, ignoring ASCII case. */
int jv_contains_nocase(const char *hay, const char *needle);

#endif
