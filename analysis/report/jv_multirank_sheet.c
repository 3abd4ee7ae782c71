/* jv_multirank_sheet: the cross-rank sheets (csv + xlsx): coll_analysis (per collective and message size),
 * nccl_implicit_sync (per collective, TraceLens' columns), straggler_summary (TraceLens'), rank_summary and
 * HTA's idle_time_breakdown. Times in us, as TraceLens and HTA print them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_multirank_report.h"
#include "jv_sheet.h"

static const char *sv(const jv_coll_inst *in, uint32_t id) {
    return jv_intern_str(&in->rv0->strings, id);
}

/* ns as us, exact for epoch timestamps (ns beyond 2^53 lose digits as one double) */
static double us_of(int64_t ns) {
    return (double)(ns / 1000) + (double)(ns % 1000) / 1e3;
}

static double mib(int64_t nelems, int bytes) {
    return nelems >= 0 && bytes ? (double)nelems * bytes / 1048576.0 : NAN;
}

static void num_or_empty(jv_sheet *s, long long v) {
    if (v >= 0)
        jv_sheet_int(s, v);
    else
        jv_sheet_empty(s);
}

/* the group, name, sizes columns shared by coll_analysis and nccl_implicit_sync */
static void meta_cells(jv_sheet *s, const jv_job *job, const jv_coll_inst *in) {
    const jv_coll_call *c = in->c;
    (void)job;
    jv_sheet_str(s, sv(in, c->pg));
    jv_sheet_str(s, sv(in, c->pg_ranks));
    jv_sheet_str(s, sv(in, c->name));
    num_or_empty(s, c->group_size);
    jv_sheet_str(s, sv(in, c->dtype));
    num_or_empty(s, c->in_nelems);
    num_or_empty(s, c->out_nelems);
    jv_sheet_num(s, mib(c->in_nelems, c->elem_bytes));
    jv_sheet_num(s, mib(c->out_nelems, c->elem_bytes));
    jv_sheet_num(s, in->full_bytes / 1048576.0);
}

static jv_status coll_analysis(const jv_job *job, jv_book *b, jv_err *err) {
    static const char *const H[] = {"Process Group Name",
                                    "Process Group Ranks",
                                    "Collective name",
                                    "Group size",
                                    "dtype",
                                    "In msg nelems",
                                    "Out msg nelems",
                                    "In msg size (MB)",
                                    "Out msg size (MB)",
                                    "Full msg size (MB)",
                                    "dur_sum",
                                    "dur_mean",
                                    "dur_std",
                                    "dur_min",
                                    "dur_max",
                                    "operation_count",
                                    "count",
                                    "comm_latency_mean",
                                    "comm_latency_min",
                                    "comm_latency_max",
                                    "skew in start time_mean",
                                    "skew in start time_max",
                                    "skew in end time_mean",
                                    "avg_wait_time_mean",
                                    "algo bw (GB/s)_mean",
                                    "bus bw (GB/s)_mean",
                                    "bus bw (GB/s)_max",
                                    "straggler rank",
                                    "times arrived last",
                                    "Total comm latency (ms)",
                                    NULL};
    jv_sheet s;
    JV_CHECK(jv_sheet_open(&s, b, "coll_analysis", err));
    jv_sheet_header(&s, H);
    for (size_t i = 0; i < job->nsizes; i++) {
        const jv_coll_size *z = &job->sizes[i];
        meta_cells(&s, job, z->first);
        jv_sheet_num(&s, z->dur_sum);
        jv_sheet_num(&s, z->dur_mean);
        jv_sheet_num(&s, z->dur_std);
        jv_sheet_num(&s, z->dur_min);
        jv_sheet_num(&s, z->dur_max);
        jv_sheet_int(&s, (long long)z->kernels);
        jv_sheet_int(&s, (long long)z->count);
        jv_sheet_num(&s, z->lat_mean);
        jv_sheet_num(&s, z->lat_min);
        jv_sheet_num(&s, z->lat_max);
        jv_sheet_num(&s, z->skew_mean);
        jv_sheet_num(&s, z->skew_max);
        jv_sheet_num(&s, z->skew_end_mean);
        jv_sheet_num(&s, z->wait_mean);
        jv_sheet_num(&s, z->algbw_mean);
        jv_sheet_num(&s, z->busbw_mean);
        jv_sheet_num(&s, z->busbw_max);
        jv_sheet_int(&s, job->ranks[z->straggler].rank);
        jv_sheet_int(&s, (long long)z->straggler_times);
        jv_sheet_num(&s, z->lat_sum / 1e3);
        jv_sheet_end(&s);
    }
    return jv_sheet_commit(&s, err);
}

static jv_status implicit_sync(const jv_job *job, jv_book *b, jv_err *err) {
    static const char *const H[] = {"collective_id",
                                    "Process Group Name",
                                    "Process Group Ranks",
                                    "Collective name",
                                    "Group size",
                                    "dtype",
                                    "In msg nelems",
                                    "Out msg nelems",
                                    "In msg size (MB)",
                                    "Out msg size (MB)",
                                    "Full msg size (MB)",
                                    "comm_latency",
                                    "skew in start time",
                                    "earliest arrival rank",
                                    "avg_wait_time",
                                    "skew in end time",
                                    "algo bw (GB/s)",
                                    "bus bw (GB/s)",
                                    NULL};
    jv_sheet s;
    JV_CHECK(jv_sheet_open(&s, b, "nccl_implicit_sync", err));
    for (size_t h = 0; H[h]; h++)
        jv_sheet_str(&s, H[h]);
    char name[64];
    for (int r = 0; r < job->nranks; r++) {
        snprintf(name, sizeof name, "rank_%d_ts", job->ranks[r].rank);
        jv_sheet_str(&s, name);
        snprintf(name, sizeof name, "rank_%d_dur", job->ranks[r].rank);
        jv_sheet_str(&s, name);
    }
    for (int r = 0; r < job->nranks; r++) {
        snprintf(name, sizeof name, "rank_%d_wait_time", job->ranks[r].rank);
        jv_sheet_str(&s, name);
    }
    jv_sheet_str(&s, "straggler rank");
    jv_sheet_str(&s, "ranks");
    jv_sheet_str(&s, "metadata mismatch");
    jv_sheet_end(&s);
    for (size_t i = 0; i < job->ninst; i++) {
        const jv_coll_inst *in = &job->inst[i];
        char id[160]; /* TraceLens': <group>_<index>, the index alone for one unnamed group */
        if (job->ngroups == 1 && !in->c->pg)
            snprintf(id, sizeof id, "%u", in->index);
        else
            snprintf(id, sizeof id, "%s_%u", job->groups[in->group], in->index);
        jv_sheet_str(&s, id);
        meta_cells(&s, job, in);
        jv_sheet_num(&s, in->comm_latency / 1e3);
        jv_sheet_num(&s, in->skew_start / 1e3);
        jv_sheet_int(&s, job->ranks[in->earliest].rank);
        jv_sheet_num(&s, in->avg_wait / 1e3);
        jv_sheet_num(&s, in->skew_end / 1e3);
        jv_sheet_num(&s, in->algbw);
        jv_sheet_num(&s, in->busbw);
        int64_t latest = in->ts[in->straggler];
        for (int r = 0; r < job->nranks; r++) {
            jv_sheet_num(&s, in->ts[r] == JV_NONE64 ? NAN : us_of(in->ts[r]));
            jv_sheet_num(&s, in->dur[r] == JV_NONE64 ? NAN : in->dur[r] / 1e3);
        }
        for (int r = 0; r < job->nranks; r++)
            jv_sheet_num(&s, in->ts[r] == JV_NONE64 ? NAN : (latest - in->ts[r]) / 1e3);
        jv_sheet_int(&s, job->ranks[in->straggler].rank);
        jv_sheet_int(&s, in->nranks);
        jv_sheet_int(&s, in->meta_mismatch);
        jv_sheet_end(&s);
    }
    return jv_sheet_commit(&s, err);
}

static jv_status straggler_summary(const jv_job *job, jv_book *b, jv_err *err) {
    static const char *const H[] = {"rank",
                                    "total_wait_time_us",
                                    "mean_wait_time_us",
                                    "times_arrived_last",
                                    "times_arrived_first",
                                    "pct_arrived_last",
                                    "num_collectives",
                                    "total_nccl_dur_us",
                                    NULL};
    jv_sheet s;
    JV_CHECK(jv_sheet_open(&s, b, "straggler_summary", err));
    jv_sheet_header(&s, H);
    /* ascending total wait (TraceLens' order: the straggler first), ties by rank */
    int *ord = malloc((size_t)job->nranks * sizeof *ord);
    if (!ord) {
        jv_sheet_abort(&s);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
    }
    for (int r = 0; r < job->nranks; r++) {
        int k = r;
        while (k > 0 && job->wait[ord[k - 1]].wait_total > job->wait[r].wait_total) {
            ord[k] = ord[k - 1];
            k--;
        }
        ord[k] = r;
    }
    for (int k = 0; k < job->nranks; k++) {
        const jv_rank_wait *w = &job->wait[ord[k]];
        jv_sheet_int(&s, job->ranks[ord[k]].rank);
        jv_sheet_num(&s, w->wait_total / 1e3);
        jv_sheet_num(&s, w->ncoll ? w->wait_total / 1e3 / (double)w->ncoll : NAN);
        jv_sheet_int(&s, (long long)w->times_last);
        jv_sheet_int(&s, (long long)w->times_first);
        jv_sheet_num(&s, w->ncoll ? 100.0 * (double)w->times_last / (double)w->ncoll : NAN);
        jv_sheet_int(&s, (long long)w->ncoll);
        jv_sheet_num(&s, w->dur_total / 1e3);
        jv_sheet_end(&s);
    }
    free(ord);
    return jv_sheet_commit(&s, err);
}

static jv_status rank_summary(const jv_job *job, jv_book *b, jv_err *err) {
    static const char *const H[] = {"rank",
                                    "trace",
                                    "gpu_events",
                                    "first_start_us",
                                    "total_time_ms",
                                    "computation_time_ms",
                                    "total_comm_time_ms",
                                    "exposed_comm_time_ms",
                                    "comm_overlapped_pct",
                                    "idle_time_ms",
                                    "host_wait_ms",
                                    "kernel_wait_ms",
                                    "other_wait_ms",
                                    "collectives",
                                    NULL};
    jv_sheet s;
    JV_CHECK(jv_sheet_open(&s, b, "rank_summary", err));
    jv_sheet_header(&s, H);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_view *rv = &job->ranks[r];
        jv_sheet_int(&s, rv->rank);
        jv_sheet_str(&s, rv->path);
        jv_sheet_int(&s, (long long)rv->tl.events);
        jv_sheet_num(&s, rv->tl.events ? us_of(rv->tl.first_start) : NAN);
        jv_sheet_num(&s, rv->tl.total / 1e6);
        jv_sheet_num(&s, rv->tl.computation / 1e6);
        jv_sheet_num(&s, rv->tl.total_comm / 1e6);
        jv_sheet_num(&s, rv->tl.exposed_comm / 1e6);
        jv_sheet_num(&s, rv->tl.total_comm > 0 ? 100.0 * rv->comm_overlapped / rv->tl.total_comm : NAN);
        jv_sheet_num(&s, rv->tl.idle / 1e6);
        jv_sheet_num(&s, rv->idle_host / 1e6);
        jv_sheet_num(&s, rv->idle_kernel / 1e6);
        jv_sheet_num(&s, rv->idle_other / 1e6);
        jv_sheet_int(&s, (long long)rv->ncalls);
        jv_sheet_end(&s);
    }
    return jv_sheet_commit(&s, err);
}

static jv_status idle_breakdown(const jv_job *job, jv_book *b, jv_err *err) {
    static const char *const H[] = {"rank", "stream", "idle_category", "idle_time", "idle_time_ratio", NULL};
    static const char *const CAT[3] = {"host_wait", "kernel_wait", "other"};
    jv_sheet s;
    JV_CHECK(jv_sheet_open(&s, b, "idle_time_breakdown", err));
    jv_sheet_header(&s, H);
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_view *rv = &job->ranks[r];
        for (size_t k = 0; k < rv->nstreams; k++) {
            const jv_stream_idle *si = &rv->streams[k];
            int64_t v[3] = {si->host_wait, si->kernel_wait, si->other};
            int64_t tot = v[0] + v[1] + v[2];
            for (int c = 0; c < 3; c++) {
                jv_sheet_int(&s, rv->rank);
                jv_sheet_int(&s, si->stream);
                jv_sheet_str(&s, CAT[c]);
                jv_sheet_num(&s, v[c] / 1e3);
                jv_sheet_num(&s, tot > 0 ? (double)v[c] / (double)tot : NAN);
                jv_sheet_end(&s);
            }
        }
    }
    return jv_sheet_commit(&s, err);
}

jv_status jv_multirank_sheets(const jv_job *job, const char *outdir, jv_err *err) {
    char csvdir[4096], xlsx[4096];
    snprintf(csvdir, sizeof csvdir, "%s/perf_report_csvs", outdir);
    snprintf(xlsx, sizeof xlsx, "%s/perf_report.xlsx", outdir);
    jv_book *b;
    JV_CHECK(jv_book_open(&b, csvdir, xlsx, err));
    jv_status s = coll_analysis(job, b, err);
    if (s == JV_OK) s = implicit_sync(job, b, err);
    if (s == JV_OK) s = straggler_summary(job, b, err);
    if (s == JV_OK) s = rank_summary(job, b, err);
    if (s == JV_OK) s = idle_breakdown(job, b, err);
    if (s != JV_OK) {
        jv_book_abort(b);
        return s;
    }
    return jv_book_commit(b, err);
}
