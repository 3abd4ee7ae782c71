/* jv_multirank: the traces of one job, one per rank. While a rank's trace is in memory, jv_rank_collect keeps
 * what the cross-rank view needs (its collective kernels with their metadata, the communication/computation
 * overlap, HTA's idle-time breakdown, a coarse busy timeline for the picture); the traces are then freed and
 * jv_job_build matches the collectives across ranks by their order of issue per process group and derives
 * arrival skew, straggler, duration and nccl-tests bandwidths, per collective and per message size. */
#ifndef JV_MULTIRANK_H
#define JV_MULTIRANK_H

#include <stddef.h>
#include <stdint.h>

#include "jv_intern.h"
#include "jv_timelines.h"
#include "jv_trace.h"
#include "jv_tree.h"

/* What a collective does, for the bus-bandwidth factor (nccl-tests' PERFORMANCE.md). */
typedef enum {
    JV_COLL_UNKNOWN = 0,
    JV_COLL_ALLREDUCE,     /* busbw = algbw * 2(n-1)/n */
    JV_COLL_ALLGATHER,     /* (n-1)/n; the message is the gathered output */
    JV_COLL_REDUCESCATTER, /* (n-1)/n */
    JV_COLL_ALLTOALL,      /* (n-1)/n */
    JV_COLL_BROADCAST,     /* 1 */
    JV_COLL_REDUCE,        /* 1 */
    JV_COLL_SENDRECV,      /* 1 */
    JV_COLL_BARRIER,       /* no data: no bandwidth */
    JV_COLL_COUNT
} jv_coll_kind;

/* The kind named by a collective name ("allreduce", "_allgather_base", "nccl:all_to_all",
 * "reduce_scatter_tensor_coalesced") or an NCCL/RCCL kernel name ("ncclKernel_AllReduce_RING_LL_Sum_float",
 * "ncclDevKernel_SendRecv"); JV_COLL_UNKNOWN for anything else. */
jv_coll_kind jv_coll_kind_of(const char *name);

/* nccl-tests' bus-bandwidth factor of kind for n ranks (0 for one rank on the (n-1)/n kinds); NAN for
 * JV_COLL_UNKNOWN, JV_COLL_BARRIER and n < 1. */
double jv_coll_busbw_factor(jv_coll_kind k, int n);

/* The canonical short name of a kind ("allreduce", ..., "" for unknown). */
const char *jv_coll_kind_name(jv_coll_kind k);

/* One collective kernel of a rank. Strings are ids in jv_rank_view.strings (0 = not recorded). */
typedef struct {
    int64_t ts, dur;               /* the kernel's start and duration, ns */
    int64_t in_nelems, out_nelems; /* -1 when not recorded */
    uint32_t name, pg, pg_ranks, dtype;
    uint32_t key;       /* the communicator it is matched in: pg, else "stream <n>" (one NCCL stream per group) */
    int32_t group_size; /* -1 when not recorded */
    int32_t stream;
    uint8_t kind;       /* jv_coll_kind */
    uint8_t elem_bytes; /* 0 when the dtype is unknown */
    uint8_t meta_from;  /* where the metadata came from: JV_META_* */
    uint8_t pad_;
    uint32_t ev; /* the kernel's event in its trace (meaningful while that trace is loaded) */
} jv_coll_call;

/* The message of call c that nccl-tests counts, in bytes: the gathered output for all_gather, the input otherwise;
 * NAN when its element count or dtype is not recorded. */
double jv_coll_bytes(const jv_coll_call *c);

enum { JV_META_NONE = 0, JV_META_ARGS, JV_META_ANNOTATION, JV_META_KERNEL };

/* HTA's idle-time breakdown of one stream (ns): the gaps between consecutive GPU events on it. */
typedef struct {
    int32_t stream;
    int64_t host_wait, kernel_wait, other;
} jv_stream_idle;

/* The picture's resolution: a rank's GPU span cut into this many equal slices. */
enum { JV_RANK_BINS = 400 };

typedef struct {
    const char *path;        /* the trace file (not owned) */
    int rank;                /* distributedInfo.rank, -1 when absent */
    int world_size;          /* distributedInfo.world_size, -1 when absent */
    jv_gpu_timeline tl;      /* the rank's GPU timeline, all devices merged (the gpu_timeline sheet's figures) */
    int64_t comm_overlapped; /* communication time during which a computation kernel runs (ns) */
    int64_t idle_host, idle_kernel, idle_other; /* HTA's breakdown summed over the streams (ns) */
    jv_stream_idle *streams;                    /* per stream, ascending */
    size_t nstreams;
    jv_coll_call *calls; /* the communication kernels, by start */
    size_t ncalls;
    jv_intern strings;
    int64_t first, last;          /* the span of the bins: first GPU event start, last end (ns) */
    float bin_comp[JV_RANK_BINS]; /* share of each slice busy with computation (0..1) */
    float bin_comm[JV_RANK_BINS]; /* share busy with communication not under computation */
} jv_rank_view;

/* Gaps shorter than this between two kernels of a stream whose second one was launched before the first one
 * ended are HTA's "kernel wait" (its consecutive_kernel_delay default, 30 ns). */
#define JV_KERNEL_WAIT_NS 30

/* Fills rv from the loaded trace, its tree and its timelines (jv_timelines_compute of the same tr and t: rv->tl is
 * tls->all, as the rank's gpu_timeline sheet; tls->opts.include_unlinked for the bins too).
 * rv->path = path. JV_ERR_NOMEM on failure (rv freed). */
jv_status jv_rank_collect(const jv_trace *tr, const jv_tree *t, const jv_timelines *tls, const char *path,
                          jv_rank_view *rv, jv_err *err);

/* The communication kernels of tr (jv_is_comm_kernel, linked or not), each with its metadata as jv_rank_view.calls
 * describes it (strings interned into strings; world_size: distributedInfo.world_size, -1 when absent, the group
 * size's fallback), by start, into *calls (malloc'd; the caller frees it) and *ncalls. JV_ERR_NOMEM on failure
 * (*calls NULL, *ncalls 0). */
jv_status jv_coll_collect(const jv_trace *tr, const jv_tree *t, int world_size, jv_intern *strings,
                          jv_coll_call **calls, size_t *ncalls);

/* distributedInfo.rank and world_size of tr, -1 each when absent. */
void jv_dist_info(const jv_trace *tr, int *rank, int *world);

/* Frees what rv holds (safe on a zeroed view). */
void jv_rank_view_free(jv_rank_view *rv);

/* One collective matched across ranks: the k-th call of a process group on every rank that has one. */
typedef struct {
    uint32_t group;        /* index into jv_job.groups */
    uint32_t index;        /* its order of issue in the group */
    const jv_coll_call *c; /* the call of the first participating rank (metadata) */
    const jv_rank_view *rv0;
    int nranks;           /* participating ranks */
    int64_t *ts, *dur;    /* per rank of the job (jv_job.nranks), JV_NONE64 where the rank has no such call */
    int64_t skew_start;   /* latest start - earliest start (ns) */
    int64_t skew_end;     /* latest end - earliest end */
    int64_t comm_latency; /* the shortest duration: the time after the last arrival (TraceLens' comm_latency) */
    double avg_wait;      /* mean over ranks of (latest start - start) (ns) */
    int straggler;        /* job index of the last to arrive (ties: the lowest rank) */
    int earliest;         /* job index of the first to arrive (ties: the highest rank, as TraceLens) */
    int meta_mismatch;    /* 1 when the ranks disagree on kind or message size */
    double full_bytes;    /* the message nccl-tests counts (the gathered output for all_gather); NAN unknown */
    double algbw, busbw;  /* GB/s (1e9 bytes/s) over comm_latency; NAN when unknown */
} jv_coll_inst;

/* Collectives of one (process group, name, dtype, message size): the per-message-size summary. */
typedef struct {
    const jv_coll_inst *first;
    size_t count;
    uint64_t kernels;                                     /* kernels across ranks */
    double dur_sum, dur_mean, dur_std, dur_min, dur_max;  /* over every rank's kernel, us */
    double lat_sum, lat_mean, lat_min, lat_max;           /* comm_latency, us */
    double skew_mean, skew_max, skew_end_mean, wait_mean; /* us */
    double algbw_mean, busbw_mean, busbw_max;             /* GB/s; NAN when unknown */
    int straggler;                                        /* job index most often last to arrive */
    size_t straggler_times;
} jv_coll_size;

/* A rank's collective waits (TraceLens' straggler_summary). */
typedef struct {
    int64_t wait_total; /* ns */
    size_t times_last, times_first, ncoll;
    int64_t dur_total; /* its communication kernels' time */
} jv_rank_wait;

typedef struct {
    const jv_rank_view *ranks; /* ascending rank (not owned) */
    int nranks;
    char **groups; /* the communicators (jv_coll_call.key), sorted */
    size_t ngroups;
    jv_coll_inst *inst; /* by group, then order of issue */
    size_t ninst;
    jv_coll_size *sizes; /* by total comm_latency, largest first */
    size_t nsizes;
    jv_rank_wait *wait; /* per job index */
    size_t unmatched;   /* calls of a rank past the shortest rank's count in a group */
    size_t mismatched;  /* matched collectives whose ranks disagree on kind or size */
    /* what the communication advice rests on (jv_job_build): the measured waits against the transfers */
    int most_waiting;    /* job index of the rank with the most wait (jv_rank_wait.wait_total), -1 when none */
    int straggler;       /* job index of the rank most often last to arrive over all collectives (ties: the lower
                          * job index), -1 when none */
    int64_t skew_max;    /* the largest arrival skew (jv_coll_inst.skew_start, ns), -1 when nothing matched */
    size_t skew_max_at;  /* its collective (index into inst; ties: the first) */
    double wait_mean_us; /* mean over ranks of their wait_total */
    double latency_us;   /* comm_latency summed over the matched collectives: the transfers after the last arrival */
    int64_t t0;          /* the earliest GPU event of all ranks (ns) */
    int64_t t1;          /* the latest end */
} jv_job;

/* Matches the collectives of ranks[0..n) (in job order: ascending rank) into *job. JV_ERR_NOMEM on failure (job
 * freed). */
jv_status jv_job_build(const jv_rank_view *ranks, int n, jv_job *job, jv_err *err);

/* Frees what job holds. */
void jv_job_free(jv_job *job);

#endif
