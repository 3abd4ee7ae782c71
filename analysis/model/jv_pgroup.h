/* jv_pgroup: op instances of a perf table (jv_perf) grouped the way TraceLens groups them: the rows of
 * unified_perf_summary (jv_digest_build makes the digest rows from them) and the groups of the family sheets;
 * per-instance metrics (roofline) and the group statistics both read. */
#ifndef JV_PGROUP_H
#define JV_PGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "jv_hw.h"
#include "jv_perf.h"
#include "jv_stats.h"
#include "jv_trace.h"
#include "jv_transfer.h"

/* The metrics of one op instance. */
typedef struct {
    double gflops, mb, fpb; /* NaN when unknown */
    double tbs, tflops;     /* per instance */
    double roof_us, pct;    /* NaN without a roofline */
    jv_bound bound;         /* JV_BOUND_NONE without a roofline */
    char spec[32];
    jv_xfer xfer; /* the instance's GPU time is mostly memcpy/memset (jv_inst_transfer): then no roofline */
} jv_inst_metrics;

/* Whether instance in is mostly a transfer: jv_transfer_mostly over its GPU events' summed durations by
 * jv_transfer_of. */
jv_xfer jv_inst_transfer(const jv_trace *tr, const jv_perf_table *pt, const jv_perf_inst *in);

/* The metrics of instance in of trace tr (hw NULL: no roofline). An instance that is mostly a transfer
 * (jv_inst_transfer) has its bytes and achieved TB/s but no roofline: no roofline time, bound or Pct Roofline. */
void jv_inst_metrics_of(const jv_trace *tr, const jv_perf_table *pt, const jv_perf_inst *in, const jv_hw *hw,
                        jv_inst_metrics *m);

typedef struct {
    const jv_trace *tr;
    const jv_perf_table *pt;
    const char **cat; /* per instance: jv_op_category */
    char **ptext;     /* per model: params text (family sheets) */
} jv_pgctx;

/* A group of instances: a range of an instance index array sorted by the grouping key. */
typedef struct {
    size_t begin, n; /* range in the sorted instance index array */
    double ksum;     /* Kernel Time (µs)_sum */
    uint32_t uid_first;
    uint32_t first; /* instance with the smallest uid */
} jv_pgroup;

/* The metrics of group gr's example instance (gr->first), the group's "_first" cells; when that instance is mostly
 * memcpy/memset (jv_inst_transfer), another instance's that is not (the same model: the same roofline time), so a
 * row has the roofline of its model unless all its instances are transfers. */
void jv_pgroup_metrics(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, const jv_hw *hw,
                       jv_inst_metrics *m);

/* The UID of an instance (its kernel's for a synthetic one), its args signature (0 none). */
uint32_t jv_inst_uid(const jv_trace *tr, const jv_perf_inst *in);
uint32_t jv_inst_sig(const jv_trace *tr, const jv_perf_inst *in);
/* s, or "Unknown" when NULL or empty */
const char *jv_or_unknown(const char *s);

/* The grouping keys' strings of the threads as ranks in strcmp order (jv_str_ranks), for sorts that compared
 * the strings: (*rank)[3 t + 0, 1, 2] = the ranks among the threads of tr of thread t's process name, process
 * labels and thread name, each as jv_or_unknown gives it (*rank malloc'd, 3 tr->nthreads entries; the caller
 * frees it). JV_ERR_NOMEM (*rank NULL) on failure. */
jv_status jv_thread_ranks(const jv_trace *tr, uint32_t **rank);

/* rank[i] = the rank of s[i] among s[0..n) in strcmp order (jv_str_ranks), for strings that are few and repeated
 * by pointer (op categories): the pointers are told apart first, the strings compared once each. JV_ERR_NOMEM
 * (rank unset) on failure. */
jv_status jv_str_ptr_ranks(const char *const *s, size_t n, uint32_t *rank);

/* qsort order of groups: by ksum, largest first, then uid_first */
int jv_pgroup_cmp(const void *a, const void *b);
/* fills ksum, uid_first and first of gr (begin and n set) */
void jv_pgroup_finish(const jv_pgctx *g, const uint32_t *idx, jv_pgroup *gr);
/* statistics of a group's per-instance values; kind: 0 kernel µs, 1 cpu µs, 2 TB/s, 3 TFLOPS/s, 4 pct roofline;
 * buf holds gr->n values */
jv_stats jv_pgroup_stats(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, const jv_hw *hw, int kind,
                         int ddof, double *buf);
/* kernel_details summary texts of a group (jv_kernel_details, sorted); 0 when out of memory */
int jv_pgroup_kernels(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, char **full, char **trunc);

/* a raw JSON args text in Python form (tuples, or lists with lists); *s is malloc'd (NULL when the form could
 * not be made: the raw text is returned then) */
const char *jv_pyargs_text(const jv_trace *tr, uint32_t raw, int lists, char **s);
/* the params of model m (parsed again); 0 when they could not be made */
int jv_perf_params_of(const jv_trace *tr, const jv_perf_model *m, jv_params *ps);
/* a param value inside a Python dict: 1 printed as is, 0 quoted */
int jv_param_is_literal(const jv_param *p);
/* the op category (jv_op_category) of every instance of pt, into cat[pt->ninst] */
void jv_perf_categories(const jv_trace *tr, const jv_perf_table *pt, const char **cat);

#endif
