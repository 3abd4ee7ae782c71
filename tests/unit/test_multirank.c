/* test_multirank: analysis/model/jv_multirank: collective kinds from trace and kernel names, nccl-tests' bus
 * bandwidth factors, and the cross-rank matching on hand-made rank views: two process groups, a rank with one
 * call more, ties in start times (TraceLens' tie rules), skew, waits, comm latency and bandwidths by hand. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jv_multirank.h"

#include "jv_check.h"

static int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void kinds(void) {
    CHECK(jv_coll_kind_of("allreduce") == JV_COLL_ALLREDUCE);
    CHECK(jv_coll_kind_of("allreduce_coalesced") == JV_COLL_ALLREDUCE);
    CHECK(jv_coll_kind_of("nccl:all_reduce") == JV_COLL_ALLREDUCE);
    CHECK(jv_coll_kind_of("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)") ==
          JV_COLL_ALLREDUCE);
    CHECK(jv_coll_kind_of("_allgather_base") == JV_COLL_ALLGATHER);
    CHECK(jv_coll_kind_of("nccl:_all_gather_base") == JV_COLL_ALLGATHER);
    CHECK(jv_coll_kind_of("reduce_scatter_tensor_coalesced") == JV_COLL_REDUCESCATTER);
    CHECK(jv_coll_kind_of("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL") == JV_COLL_REDUCESCATTER);
    CHECK(jv_coll_kind_of("all_to_all") == JV_COLL_ALLTOALL);
    CHECK(jv_coll_kind_of("broadcast") == JV_COLL_BROADCAST);
    CHECK(jv_coll_kind_of("ncclKernel_Reduce_RING_LL_Sum_float") == JV_COLL_REDUCE);
    CHECK(jv_coll_kind_of("reduce") == JV_COLL_REDUCE);
    CHECK(jv_coll_kind_of("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t") == JV_COLL_SENDRECV);
    CHECK(jv_coll_kind_of("send") == JV_COLL_SENDRECV);
    CHECK(jv_coll_kind_of("barrier") == JV_COLL_BARRIER);
    CHECK(jv_coll_kind_of("gemm_kernel") == JV_COLL_UNKNOWN);
    CHECK(jv_coll_kind_of("") == JV_COLL_UNKNOWN);
    CHECK(near(jv_coll_busbw_factor(JV_COLL_ALLREDUCE, 8), 1.75));
    CHECK(near(jv_coll_busbw_factor(JV_COLL_ALLGATHER, 8), 0.875));
    CHECK(near(jv_coll_busbw_factor(JV_COLL_REDUCESCATTER, 4), 0.75));
    CHECK(near(jv_coll_busbw_factor(JV_COLL_ALLTOALL, 2), 0.5));
    CHECK(near(jv_coll_busbw_factor(JV_COLL_BROADCAST, 8), 1));
    CHECK(near(jv_coll_busbw_factor(JV_COLL_SENDRECV, 2), 1));
    CHECK(isnan(jv_coll_busbw_factor(JV_COLL_BARRIER, 8)));
    CHECK(isnan(jv_coll_busbw_factor(JV_COLL_UNKNOWN, 8)));
}

/* a call of rank view rv (strings interned in it) */
static jv_coll_call call(jv_rank_view *rv, const char *pg, const char *name, jv_coll_kind k, int64_t ts_us,
                         int64_t dur_us, int64_t nelems, int gs) {
    jv_coll_call c;
    memset(&c, 0, sizeof c);
    c.ts = ts_us * 1000;
    c.dur = dur_us * 1000;
    c.in_nelems = c.out_nelems = nelems;
    if (k == JV_COLL_ALLGATHER) c.out_nelems = nelems * gs;
    c.group_size = gs;
    c.kind = (uint8_t)k;
    c.elem_bytes = 4;
    jv_intern_add(&rv->strings, pg, strlen(pg), &c.pg);
    c.key = c.pg; /* a recorded process group is the communicator */
    jv_intern_add(&rv->strings, name, strlen(name), &c.name);
    jv_intern_add(&rv->strings, "Float", 5, &c.dtype);
    return c;
}

static void matching(void) {
    enum { N = 3 };
    jv_rank_view rv[N];
    jv_coll_call calls[N][4];
    memset(rv, 0, sizeof rv);
    for (int r = 0; r < N; r++) {
        jv_intern_init(&rv[r].strings);
        rv[r].rank = r;
    }
    /* group "0": two all_reduces of 1M floats (4 MiB) on all three ranks; rank 1 arrives last at the first (skew
     * 30 us) and ranks 0 and 2 tie last at the second (rank 0 is the straggler: the lowest); everyone ends
     * together, so the last arrival's duration is the comm latency */
    calls[0][0] = call(&rv[0], "0", "allreduce", JV_COLL_ALLREDUCE, 1000, 130, 1 << 20, 3);
    calls[1][0] = call(&rv[1], "0", "allreduce", JV_COLL_ALLREDUCE, 1030, 100, 1 << 20, 3);
    calls[2][0] = call(&rv[2], "0", "allreduce", JV_COLL_ALLREDUCE, 1010, 120, 1 << 20, 3);
    calls[0][1] = call(&rv[0], "0", "allreduce", JV_COLL_ALLREDUCE, 2050, 50, 1 << 20, 3);
    calls[1][1] = call(&rv[1], "0", "allreduce", JV_COLL_ALLREDUCE, 2000, 100, 1 << 20, 3);
    calls[2][1] = call(&rv[2], "0", "allreduce", JV_COLL_ALLREDUCE, 2050, 50, 1 << 20, 3);
    /* group "1": an all_gather of 1000 floats per rank between ranks 0 and 2 (interleaved in time with group
     * "0": matching is per group), and a third group-"0"-call on rank 2 alone (unmatched) */
    calls[0][2] = call(&rv[0], "1", "_allgather_base", JV_COLL_ALLGATHER, 1500, 10, 1000, 2);
    calls[2][2] = call(&rv[2], "1", "_allgather_base", JV_COLL_ALLGATHER, 1504, 6, 1000, 2);
    calls[2][3] = call(&rv[2], "0", "allreduce", JV_COLL_ALLREDUCE, 3000, 10, 1 << 20, 3);
    /* by start, as jv_rank_collect leaves them */
    jv_coll_call s0[] = {calls[0][0], calls[0][2], calls[0][1]};
    jv_coll_call s1[] = {calls[1][0], calls[1][1]};
    jv_coll_call s2[] = {calls[2][0], calls[2][2], calls[2][1], calls[2][3]};
    rv[0].calls = s0;
    rv[0].ncalls = 3;
    rv[1].calls = s1;
    rv[1].ncalls = 2;
    rv[2].calls = s2;
    rv[2].ncalls = 4;
    CHECK(rv[0].ncalls == 3 && rv[1].ncalls == 2 && rv[2].ncalls == 4);
    jv_job job;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_job_build(rv, N, &job, &err) == JV_OK);
    CHECK(job.ngroups == 2 && !strcmp(job.groups[0], "0") && !strcmp(job.groups[1], "1"));
    CHECK_MSG(job.ninst == 4, "ninst %zu", job.ninst);
    CHECK(job.unmatched == 1);
    const jv_coll_inst *a = &job.inst[0], *b = &job.inst[1], *c = &job.inst[2], *g = &job.inst[3];
    CHECK(a->group == 0 && a->index == 0 && a->nranks == 3);
    CHECK(a->skew_start == 30000 && a->straggler == 1 && a->earliest == 0);
    CHECK(a->comm_latency == 100000 && a->skew_end == 0);
    CHECK(near(a->avg_wait, (30000 + 0 + 20000) / 3.0));
    CHECK(near(a->full_bytes, 4194304));
    CHECK(near(a->algbw, 4194304 / 100000.0));           /* bytes per ns = GB/s: 41.94304 */
    CHECK(near(a->busbw, 4194304 / 100000.0 * 4 / 3.0)); /* x 2(n-1)/n, n = 3 */
    CHECK(b->skew_start == 50000 && b->straggler == 0 && b->earliest == 1);
    CHECK(b->comm_latency == 50000);
    CHECK(c->index == 2 && c->nranks == 1 && c->skew_start == 0 && c->straggler == 2);
    CHECK(g->group == 1 && g->nranks == 2 && g->skew_start == 4000 && g->straggler == 2 && g->earliest == 0);
    CHECK(near(g->full_bytes, 2000 * 4.0));            /* the gathered output */
    CHECK(near(g->busbw, 2000 * 4.0 / 6000 * 0.5));    /* (n-1)/n, n = 2 */
    CHECK(job.wait[0].wait_total == 30000 + 0 + 4000); /* a, b, g */
    CHECK(job.wait[1].wait_total == 0 + 50000);
    CHECK(job.wait[2].wait_total == 20000 + 0 + 0 + 0);
    CHECK(job.wait[0].times_last == 1 && job.wait[1].times_last == 1 && job.wait[2].times_last == 2);
    CHECK(job.wait[0].times_first == 2 && job.wait[1].times_first == 1 && job.wait[2].times_first == 1);
    /* the advice's figures: rank 2 most often last, the largest skew b's, rank 1 waits most (50 us) */
    CHECK(job.straggler == 2 && job.skew_max == 50000 && job.skew_max_at == 1 && job.most_waiting == 1);
    CHECK(near(job.wait_mean_us, (34 + 50 + 20) / 3.0));
    /* per message size: group "0" allreduce (3 collectives, 0.16 ms of latency) before group "1" */
    CHECK(job.nsizes == 2);
    if (job.nsizes == 2) {
        const jv_coll_size *z = &job.sizes[0];
        CHECK(z->count == 3 && z->kernels == 7);
        CHECK(near(z->lat_sum, 160) && near(z->skew_max, 50));
        CHECK(near(z->dur_sum, 130 + 100 + 120 + 50 + 100 + 50 + 10));
        CHECK(z->straggler_times == 1);
    }
    jv_job_free(&job);
    for (int r = 0; r < N; r++)
        jv_intern_free(&rv[r].strings);
}

int main(void) {
    kinds();
    matching();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
