/* jv_comm_advice: the fair report's texts of the exposed-communication advice, chosen from its evidence
 * (model/jv_comm_evidence.h): DDP buffer broadcasts, collectives waiting for other ranks, and the rest with the
 * figures that say it is transfer. */
#include "jv_comm_advice.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static double ms(int64_t ns) {
    return (double)ns / 1e6;
}
static double pct_of(double a, double b) {
    return b > 0 ? 100.0 * a / b : 0.0;
}

int jv_rec_issue_cat(jv_rec_text *r, int n, const char *fmt, ...) {
    size_t cap = sizeof r->issue;
    if (n < 0 || (size_t)n >= cap) return n;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(r->issue + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return w < 0 ? n : (size_t)(n + w) < cap ? n + w : (int)cap - 1;
}

/* " of 7.82 MiB" for a collective's message (nothing when unknown) */
static const char *mib_of(char *b, size_t cap, double bytes) {
    if (isnan(bytes))
        snprintf(b, cap, "%s", "");
    else
        snprintf(b, cap, " of %.2f MiB", bytes / 1048576.0);
    return b;
}

/* "bus bandwidth" or "algorithm bandwidth (group size not recorded)" for a group's figures */
static const char *bw_name(const jv_dcoll *z) {
    return z->busbw ? "bus bandwidth" : "algorithm bandwidth (the group size is not recorded)";
}

const char *jv_nccl_test(jv_coll_kind k) {
    switch (k) {
    case JV_COLL_ALLREDUCE: return "all_reduce_perf";
    case JV_COLL_ALLGATHER: return "all_gather_perf";
    case JV_COLL_REDUCESCATTER: return "reduce_scatter_perf";
    case JV_COLL_ALLTOALL: return "alltoall_perf";
    case JV_COLL_BROADCAST: return "broadcast_perf";
    case JV_COLL_REDUCE: return "reduce_perf";
    case JV_COLL_SENDRECV: return "sendrecv_perf";
    default: return "all_reduce_perf";
    }
}

void jv_comm_part_rec(const jv_digest *d, const jv_ftimeline *tl, jv_comm_part p, jv_rec_text *r) {
    const jv_dcomm *c = &d->comm;
    double x = ms(tl->comm_ns[p]), sh = pct_of((double)tl->comm_ns[p], (double)d->tl.total);
    char mb[48];
    if (p == JV_COMM_DDP_BUFFERS) {
        snprintf(r->title, sizeof r->title, "DDP buffer broadcasts: %.1f %% of the GPU timeline", sh);
        snprintf(r->issue, sizeof r->issue,
                 "DistributedDataParallel broadcasts the module's buffers (typically batch-norm running statistics) "
                 "from rank 0 in every forward (`broadcast_buffers=True`, the default): %u broadcast kernels%s, "
                 "%.2f ms of kernel time, %.2f ms of it exposed = %.1f %% of the %.2f ms GPU timeline.",
                 c->ddp_calls, mib_of(mb, sizeof mb, c->ddp_bytes > 0 ? c->ddp_bytes : NAN), c->ddp_us / 1e3, x, sh,
                 ms(d->tl.total));
        snprintf(r->action, sizeof r->action,
                 "Construct DDP with `broadcast_buffers=False` when the buffers need not be equal on every rank at "
                 "every step (each rank's own batch-norm statistics are fine for training: sync them once before "
                 "evaluation or a checkpoint, or use SyncBatchNorm where the statistics must be shared); bucketing "
                 "and torch.compile do not remove these broadcasts.");
        snprintf(r->impact, sizeof r->impact, "up to %.2f ms of the timeline (%.1f %%): the broadcasts' exposed time",
                 x, sh);
        snprintf(r->confidence, sizeof r->confidence,
                 "%s: measured exposed time of the broadcast kernels launched inside DDP's forward buffer sync; the "
                 "saving is an upper bound (all of them removed)",
                 jv_confidence_name(JV_CONF_MEDIUM));
    } else if (c->measured) {
        snprintf(r->title, sizeof r->title, "Collectives waiting for other ranks: %.1f %% of the GPU timeline", sh);
        snprintf(r->issue, sizeof r->issue,
                 "Measured across the job's %d ranks (the multi-rank analysis): this rank, rank %d, waited %.1f µs in "
                 "total for the last rank to arrive at its %zu matched collectives (from its kernel's start to the "
                 "last rank's), %.2f ms of it exposed = %.1f %% of the %.2f ms GPU timeline; it arrived last at %zu "
                 "of them; rank %d arrives last most often (the straggler). The data moves only after the last "
                 "rank arrives, so this is waiting, not bandwidth.",
                 c->m_nranks, c->m_rank, c->m_wait_us, c->m_ncoll, x, sh, ms(d->tl.total), c->m_last, c->m_straggler);
        snprintf(r->action, sizeof r->action,
                 "Find what delays rank %d before its collectives (the job's multirank_report.md, beside this "
                 "folder, compares the ranks): more GPU work from uneven batches, sequence lengths or embedding "
                 "shards; its host (data loading, Python, garbage collection); its GPU clocks; then even out the "
                 "work. More bandwidth or other bucket sizes do not shorten a wait.",
                 c->m_straggler);
        snprintf(r->impact, sizeof r->impact, "up to %.2f ms of the timeline (%.1f %%) if every rank arrived together",
                 x, sh);
        snprintf(r->confidence, sizeof r->confidence,
                 "%s: measured arrival skew across ranks (one node shares a clock; across nodes skew under the "
                 "clocks' error, tens of µs to ms with NTP, is noise); the saving is an upper bound",
                 jv_confidence_name(JV_CONF_MEDIUM));
    } else {
        const jv_dcoll *z = &c->wait_top;
        snprintf(r->title, sizeof r->title, "Collectives waiting for other ranks: %.1f %% of the GPU timeline", sh);
        snprintf(r->issue, sizeof r->issue,
                 "%u collective call(s) took at least %.0fx as long as the fastest of the same kind and message "
                 "size in this trace: %.2f ms beyond the fastest, %.2f ms of it exposed = %.1f %% of the %.2f ms GPU "
                 "timeline. The most: %s%s, %u calls, %u of them slow: the fastest %.1f µs at %.3g GB/s %s, the "
                 "slowest %.1f µs at %.3g GB/s. The same bytes move in the fastest one's time, so the rest is "
                 "waiting for the other ranks (arrival skew, a straggler, load imbalance), not bandwidth.",
                 c->wait_calls, JV_COMM_WAIT_RATIO, c->wait_us / 1e3, x, sh, ms(d->tl.total),
                 jv_coll_kind_name(z->kind), mib_of(mb, sizeof mb, z->bytes), z->n, z->slow, z->best_us, z->best_bw,
                 bw_name(z), z->worst_us, z->worst_bw);
        snprintf(r->action, sizeof r->action,
                 "Find why ranks arrive late: analyse all ranks' traces together (`jarvis-analyze rank*.json -o "
                 "OUT`: the multi-rank report measures each collective's arrival skew and names the straggler); even "
                 "out the work per rank (batch or sequence lengths, embedding shards), and look at the straggler's "
                 "host (data loading, garbage collection, CPU contention) and GPU (clocks, throttling). More "
                 "bandwidth or other bucket sizes do not shorten a wait.");
        snprintf(r->impact, sizeof r->impact, "up to %.2f ms of the timeline (%.1f %%) if every rank arrived together",
                 x, sh);
        snprintf(r->confidence, sizeof r->confidence,
                 "%s: measured durations against the fastest instance of the same size in this trace; the saving is "
                 "an upper bound (one rank's trace shows the wait, not which rank was late)",
                 jv_confidence_name(JV_CONF_MEDIUM));
    }
    snprintf(r->link, sizeof r->link, "standalone_analysis_rough.md#timeline");
    snprintf(r->link_text, sizeof r->link_text, "GPU timeline (working notes)");
    r->gain_us = (double)tl->comm_ns[p] / 1e3;
}

int jv_comm_rest_issue(const jv_digest *d, const jv_ftimeline *tl, jv_rec_text *r, int n) {
    static const char *const what[JV_COMM_REST] = {"DDP buffer broadcasts", "waiting for other ranks"};
    const jv_dcomm *c = &d->comm;
    int split = 0, small = 0;
    for (int p = 0; p < JV_COMM_REST; p++) {
        split += tl->comm_recommend[p];
        small += !tl->comm_recommend[p] && c->exposed[p] > 0;
    }
    if (split) {
        n = jv_rec_issue_cat(r, n, " Recommended apart:");
        for (int p = 0, k = 0; p < JV_COMM_REST; p++)
            if (tl->comm_recommend[p])
                n = jv_rec_issue_cat(r, n, "%s %s %.2f ms", k++ ? "," : "", what[p], ms(tl->comm_ns[p]));
        n = jv_rec_issue_cat(r, n, "; this recommendation is the rest, %.2f ms.", ms(tl->comm_ns[JV_COMM_REST]));
    }
    if (small) {
        n = jv_rec_issue_cat(r, n, " Of it");
        for (int p = 0, k = 0; p < JV_COMM_REST; p++)
            if (!tl->comm_recommend[p] && c->exposed[p] > 0)
                n = jv_rec_issue_cat(r, n, "%s %s %.2f ms", k++ ? "," : "", what[p], ms(c->exposed[p]));
        n = jv_rec_issue_cat(r, n, " (under %.0f %% of the exposed communication: not advised apart).",
                             100 * JV_FIND_COMM_PART_SHARE);
    }
    const jv_dcoll *z = &c->xfer_top;
    if (z->n)
        n = jv_rec_issue_cat(
            r, n,
            " All %u calls of the %s%s run within %.0fx of the fastest (%.1f to %.1f µs, %.3g to %.3g GB/s "
            "%s): the same rate every time points to the bandwidth (links, topology) rather than to a late "
            "rank (a rank late by the same time at every call looks alike in one trace; the multi-rank "
            "analysis measures the skew).",
            z->n, jv_coll_kind_name(z->kind), mib_of((char[48]){0}, 48, z->bytes), JV_COMM_WAIT_RATIO, z->best_us,
            z->worst_us, z->worst_bw, z->best_bw, bw_name(z));
    return n;
}
