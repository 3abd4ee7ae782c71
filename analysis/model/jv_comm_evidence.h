/* jv_comm_evidence: what one trace shows about its exposed communication, so that the advice follows the evidence
 * (issue 19, item 6): the timeline's exposed communication split by what the collectives were doing, the first
 * part that covers a moment winning:
 * - DDP buffer broadcasts: broadcast kernels launched inside DistributedDataParallel's forward buffer sync (a host
 *   event named `DistributedDataParallel.forward`, `_sync_buffers`, `_sync_module_buffers` or
 *   `_broadcast_coalesced` around the launch; not one inside DDP's constructor, `_sync_params_and_buffers` /
 *   `_sync_module_states`), typically batch-norm running statistics: `broadcast_buffers=False` removes them;
 * - waiting: a collective (of a known kind that moves data: not a barrier) at least JV_COMM_WAIT_RATIO times as
 *   long as the fastest instance of the same kind, message size and group size in the trace moves the same bytes, so
 * the time beyond the fastest one is spent waiting for the other ranks (skew, a straggler, load imbalance); that time
 * is taken at the kernel's start (a collective kernel spins until its peers arrive, then moves the data);
 * - the rest: transfers and collectives whose size or peers the trace does not show. A size of at least
 *   JV_COMM_XFER_MIN_BYTES whose instances all run within JV_COMM_WAIT_RATIO of the fastest moves data at the same
 *   rate every time: evidence for the bandwidth (links, topology) rather than a late rank (a rank late by the same
 *   time at every call looks the same in one trace: the multi-rank analysis measures the skew).
 * Computed once per trace (jv_digest_finish) from the collectives' metadata (jv_coll_collect). In a multi-rank run
 * the waiting part is then replaced by the wait measured across the ranks (jv_comm_measured). */
#ifndef JV_COMM_EVIDENCE_H
#define JV_COMM_EVIDENCE_H

#include <stdint.h>

#include "jv_multirank.h"
#include "jv_timeline.h"
#include "jv_trace.h"
#include "jv_tree.h"

#define JV_COMM_WAIT_RATIO 2.0 /* an instance this many times as long as the fastest of its size waits */
#define JV_COMM_XFER_MIN_BYTES                                                                                         \
    1048576.0 /* a message from this size is bandwidth-bound, a smaller one latency-bound:                             \
               * only such sizes are evidence that the time is the transfer */

typedef enum { JV_COMM_DDP_BUFFERS = 0, JV_COMM_WAIT, JV_COMM_REST, JV_COMM_PARTS } jv_comm_part;

/* One collective kind and message size of the trace (kind, bytes and group size equal), DDP buffer broadcasts
 * apart: its instances' figures. */
typedef struct {
    jv_coll_kind kind;
    double bytes;   /* the message nccl-tests counts (jv_coll_bytes) */
    int group_size; /* -1 when not recorded */
    uint32_t n;     /* instances (0: no such group) */
    uint32_t slow;  /* instances >= JV_COMM_WAIT_RATIO x the fastest */
    double best_us, worst_us, sum_us;
    double wait_us;           /* over the slow instances: duration - the fastest's */
    double best_bw, worst_bw; /* GB/s (1e9 B/s) of the fastest and slowest instance: bus bandwidth (nccl-tests'
                               * factor of the kind and group size), or algorithm bandwidth when the group size is
                               * not recorded (busbw 0); NAN for a barrier */
    int busbw;
} jv_dcoll;

typedef struct {
    int64_t exposed[JV_COMM_PARTS]; /* ns; they sum to the timeline's exposed_comm */
    uint32_t calls;                 /* communication kernels on the timeline */
    uint32_t sized;                 /* ... with a known message size */
    uint32_t ddp_calls;             /* DDP buffer broadcasts */
    double ddp_us, ddp_bytes;       /* their kernel time and bytes */
    uint32_t wait_calls;            /* slow instances (JV_COMM_WAIT) */
    double wait_us;                 /* their time beyond the fastest of their size, exposed or not */
    jv_dcoll wait_top;              /* the kind and size with the most waiting (n = 0: none) */
    jv_dcoll xfer_top;              /* the kind and size of >= JV_COMM_XFER_MIN_BYTES with >= 2 instances, none slow,
                                     * with the most time (n = 0: none): the evidence that the time is transfer */
    jv_iv *busy;                    /* computation and DDP broadcasts on the timeline, merged, within the spans of
                                     * the trace's communication kernels (linked or not): what a measured wait is
                                     * exposed against (malloc'd; freed with the digest) */
    size_t nbusy;
    int64_t exposed_comm; /* the timeline's exposed communication (ns) that exposed[] splits */
    /* the arrival skew measured across the ranks of a job (jv_comm_measured); measured 0: this trace alone */
    int measured;
    int m_rank, m_nranks, m_straggler; /* this rank, the job's ranks, the rank most often last (-1: none) */
    size_t m_ncoll, m_last;            /* its matched collectives, those it arrived last at */
    double m_wait_us;                  /* its wait for the last arrival summed over them (jv_rank_wait.wait_total) */
    int64_t m_exposed;                 /* the part of that wait outside busy (ns), before the cap by exposed_comm */
} jv_dcomm;

/* 1 for a name of DistributedDataParallel itself (its nn.Module class, its forward) or of its buffer sync
 * (DDP_SYNC in jv_comm_evidence.c): elementwise kernels under it are DDP's own (the buffers' flatten and unflatten
 * copies around the broadcast), not model code that fusing would speed up. */
int jv_comm_is_ddp_name(const char *name);

/* Fills out from trace tr and its tree t: the collectives on the timeline of opts (linked ones unless
 * include_unlinked; all devices), with exposed_comm the timeline's exposed communication (ns) that the parts
 * split. JV_ERR_NOMEM on failure. */
jv_status jv_comm_evidence(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *opts, int64_t exposed_comm,
                           jv_dcomm *out, jv_err *err);

/* Replaces the waiting part of c (jv_comm_evidence of the trace of rank r, a job index of job) by the wait measured
 * across the ranks: per matched collective, from the rank's kernel start to the last rank's start (clipped to its
 * kernel), summed (jv_rank_wait.wait_total); the part of it outside c->busy becomes c->exposed[JV_COMM_WAIT] (at
 * most what DDP's part leaves of the exposed communication; the rest takes the difference) and c->measured, m_*
 * are set. Nothing changes when the job matched no collective of the rank. JV_ERR_NOMEM on failure. */
jv_status jv_comm_measured(jv_dcomm *c, const jv_job *job, int r, jv_err *err);

#endif
