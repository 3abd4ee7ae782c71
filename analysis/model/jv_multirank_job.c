/* jv_multirank_job: the collectives of all ranks matched by their order of issue per process group, with
 * TraceLens' skew and wait figures, nccl-tests' bandwidths, the per-message-size summary and the per-rank waits.
 *
 * Clocks: every start is compared as recorded. Ranks on one node share its clock (the GPU timestamps of one
 * host are on one timebase); ranks on different nodes are only as aligned as their hosts' clocks (NTP: tens of
 * us to ms), so cross-node skew below that is noise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"
#include "jv_multirank.h"
#include "jv_sort.h"

static const char *str_of(const jv_rank_view *rv, uint32_t id) {
    return jv_intern_str(&rv->strings, id);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the group index of a call's process group name in job->groups (sorted) */
static uint32_t group_of(const jv_job *job, const char *pg) {
    size_t lo = 0, hi = job->ngroups;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(job->groups[mid], pg);
        if (!c) return (uint32_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0; /* not reached: every name was collected */
}

static jv_status collect_groups(jv_job *job) {
    size_t cap = 0;
    for (int r = 0; r < job->nranks; r++) {
        const jv_rank_view *rv = &job->ranks[r];
        uint8_t *seen = calloc(rv->strings.count + 1, 1);
        if (!seen) return JV_ERR_NOMEM;
        jv_status st = JV_OK;
        for (size_t i = 0; i < rv->ncalls && st == JV_OK; i++) {
            uint32_t key = rv->calls[i].key;
            if (seen[key]) continue;
            seen[key] = 1;
            const char *pg = str_of(rv, key);
            size_t g;
            for (g = 0; g < job->ngroups && strcmp(job->groups[g], pg); g++) {
            }
            if (g < job->ngroups) continue;
            if ((st = JV_RESERVE(job->groups, cap, job->ngroups + 1)) == JV_OK &&
                !(job->groups[job->ngroups] = strdup(pg)))
                st = JV_ERR_NOMEM;
            if (st == JV_OK) job->ngroups++;
        }
        free(seen);
        JV_CHECK(st);
    }
    if (job->ngroups > 1) qsort(job->groups, job->ngroups, sizeof *job->groups, cmp_str);
    return JV_OK;
}

/* A rank's calls by group: order[start[g] .. start[g + 1]) are the indexes of group g's calls, by start. */
typedef struct {
    uint32_t *order;
    size_t *start;
} by_group;

static jv_status index_rank(const jv_job *job, const jv_rank_view *rv, by_group *bg) {
    uint32_t *gid = malloc((rv->strings.count + 1) * sizeof *gid);
    bg->order = malloc((rv->ncalls + 1) * sizeof *bg->order);
    bg->start = calloc(job->ngroups + 1, sizeof *bg->start);
    if (!gid || !bg->order || !bg->start) {
        free(gid);
        return JV_ERR_NOMEM;
    }
    memset(gid, 0xFF, (rv->strings.count + 1) * sizeof *gid);
    for (size_t i = 0; i < rv->ncalls; i++) {
        uint32_t key = rv->calls[i].key;
        if (gid[key] == UINT32_MAX) gid[key] = group_of(job, str_of(rv, key));
        bg->start[gid[key] + 1]++;
    }
    for (size_t g = 0; g < job->ngroups; g++)
        bg->start[g + 1] += bg->start[g];
    size_t *fill = malloc((job->ngroups + 1) * sizeof *fill);
    if (!fill) {
        free(gid);
        return JV_ERR_NOMEM;
    }
    memcpy(fill, bg->start, (job->ngroups + 1) * sizeof *fill);
    for (size_t i = 0; i < rv->ncalls; i++) /* stable: each group's calls stay by start */
        bg->order[fill[gid[rv->calls[i].key]]++] = (uint32_t)i;
    free(fill);
    free(gid);
    return JV_OK;
}

/* the ranks' disagreement on what collective k is */
static int differs(const jv_coll_call *a, const jv_coll_call *b) {
    return a->kind != b->kind || a->in_nelems != b->in_nelems || a->out_nelems != b->out_nelems;
}

static void inst_figures(jv_job *job, jv_coll_inst *in, const jv_coll_call *const *call) {
    int64_t smin = INT64_MAX, smax = INT64_MIN, emin = INT64_MAX, emax = INT64_MIN, lat = INT64_MAX;
    for (int r = 0; r < job->nranks; r++) {
        if (!call[r]) continue;
        int64_t s = call[r]->ts, e = s + call[r]->dur;
        if (s > smax) { /* ties: the lowest rank stays the straggler */
            smax = s;
            in->straggler = r;
        }
        if (s <= smin) { /* ties: the highest rank is the earliest (TraceLens' max over (wait, rank)) */
            smin = s;
            in->earliest = r;
        }
        emin = e < emin ? e : emin;
        emax = e > emax ? e : emax;
        lat = call[r]->dur < lat ? call[r]->dur : lat;
        if (differs(call[r], in->c)) in->meta_mismatch = 1;
    }
    in->skew_start = smax - smin;
    in->skew_end = emax - emin;
    in->comm_latency = lat;
    double w = 0;
    for (int r = 0; r < job->nranks; r++)
        if (call[r]) {
            int64_t wait = smax - call[r]->ts;
            w += (double)wait;
            job->wait[r].wait_total += wait;
            job->wait[r].ncoll++;
            job->wait[r].times_last += r == in->straggler;
            job->wait[r].times_first += r == in->earliest;
        }
    in->avg_wait = w / in->nranks;
    const jv_coll_call *c = in->c;
    in->full_bytes = in->algbw = in->busbw = NAN;
    in->full_bytes = jv_coll_bytes(c);
    if (!isnan(in->full_bytes) && in->comm_latency > 0 && c->kind != JV_COLL_BARRIER) {
        in->algbw = in->full_bytes / (double)in->comm_latency; /* bytes per ns = GB/s */
        int n = c->group_size > 0 ? c->group_size : in->nranks;
        in->busbw = in->algbw * jv_coll_busbw_factor((jv_coll_kind)c->kind, n);
    }
}

/* matches group g's calls across ranks: its k-th call on every rank that has one */
static jv_status match_group(jv_job *job, uint32_t g, size_t *cap_inst, const jv_coll_call **call, const by_group *bg) {
    size_t maxc = 0, minc = SIZE_MAX;
    for (int r = 0; r < job->nranks; r++) {
        size_t cnt = bg[r].start[g + 1] - bg[r].start[g];
        if (cnt > maxc) maxc = cnt;
        if (cnt && cnt < minc) minc = cnt;
    }
    for (int r = 0; r < job->nranks; r++) {
        size_t cnt = bg[r].start[g + 1] - bg[r].start[g];
        if (cnt) job->unmatched += cnt - minc;
    }
    for (size_t k = 0; k < maxc; k++) {
        jv_coll_inst in;
        memset(&in, 0, sizeof in);
        in.group = g;
        in.index = (uint32_t)k;
        for (int r = 0; r < job->nranks; r++) {
            const jv_rank_view *rv = &job->ranks[r];
            call[r] = NULL;
            if (bg[r].start[g] + k < bg[r].start[g + 1]) {
                call[r] = &rv->calls[bg[r].order[bg[r].start[g] + k]];
                if (!in.c) {
                    in.c = call[r];
                    in.rv0 = rv;
                }
                in.nranks++;
            }
        }
        JV_CHECK(JV_RESERVE(job->inst, *cap_inst, job->ninst + 1));
        in.ts = malloc(2 * (size_t)job->nranks * sizeof *in.ts);
        if (!in.ts) return JV_ERR_NOMEM;
        in.dur = in.ts + job->nranks;
        for (int r = 0; r < job->nranks; r++) {
            in.ts[r] = call[r] ? call[r]->ts : JV_NONE64;
            in.dur[r] = call[r] ? call[r]->dur : JV_NONE64;
        }
        inst_figures(job, &in, call);
        job->mismatched += (size_t)in.meta_mismatch;
        job->inst[job->ninst++] = in;
    }
    return JV_OK;
}

/* the per-message-size key: group, name, dtype, sizes */
static int cmp_size_key(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const jv_coll_inst *x = *(jv_coll_inst *const *)a, *y = *(jv_coll_inst *const *)b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    int c = strcmp(str_of(x->rv0, x->c->name), str_of(y->rv0, y->c->name));
    if (c) return c;
    c = strcmp(str_of(x->rv0, x->c->dtype), str_of(y->rv0, y->c->dtype));
    if (c) return c;
    if (x->c->in_nelems != y->c->in_nelems) return x->c->in_nelems < y->c->in_nelems ? -1 : 1;
    if (x->c->out_nelems != y->c->out_nelems) return x->c->out_nelems < y->c->out_nelems ? -1 : 1;
    return (x->c->group_size > y->c->group_size) - (x->c->group_size < y->c->group_size);
}

static int cmp_size_total(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const jv_coll_size *x = a, *y = b;
    if (x->lat_sum != y->lat_sum) return x->lat_sum > y->lat_sum ? -1 : 1;
    return 0;
}

/* one summary row over run[0..n) (same key) */
static jv_status size_row(jv_job *job, jv_coll_inst *const *run, size_t n, jv_coll_size *z) {
    memset(z, 0, sizeof *z);
    z->first = run[0];
    z->count = n;
    z->dur_min = INFINITY;
    z->dur_max = -INFINITY;
    z->lat_min = INFINITY;
    z->lat_max = -INFINITY;
    z->busbw_max = NAN;
    double sq = 0, ab = 0, bb = 0;
    size_t nbw = 0;
    size_t *last = calloc((size_t)job->nranks, sizeof *last);
    if (!last) return JV_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const jv_coll_inst *in = run[i];
        for (int r = 0; r < job->nranks; r++) {
            if (in->dur[r] == JV_NONE64) continue;
            double d = in->dur[r] / 1e3;
            z->kernels++;
            z->dur_sum += d;
            sq += d * d;
            z->dur_min = d < z->dur_min ? d : z->dur_min;
            z->dur_max = d > z->dur_max ? d : z->dur_max;
        }
        double l = in->comm_latency / 1e3;
        z->lat_sum += l;
        z->lat_min = l < z->lat_min ? l : z->lat_min;
        z->lat_max = l > z->lat_max ? l : z->lat_max;
        z->skew_mean += in->skew_start / 1e3;
        z->skew_max = in->skew_start / 1e3 > z->skew_max ? in->skew_start / 1e3 : z->skew_max;
        z->skew_end_mean += in->skew_end / 1e3;
        z->wait_mean += in->avg_wait / 1e3;
        if (!isnan(in->algbw)) {
            ab += in->algbw;
            nbw++;
        }
        if (!isnan(in->busbw)) {
            bb += in->busbw;
            z->busbw_max = isnan(z->busbw_max) || in->busbw > z->busbw_max ? in->busbw : z->busbw_max;
        }
        last[in->straggler]++;
    }
    z->dur_mean = z->kernels ? z->dur_sum / (double)z->kernels : NAN;
    z->dur_std = z->kernels > 1 ? sqrt(fmax(0, (sq - z->dur_sum * z->dur_mean) / (double)(z->kernels - 1))) : NAN;
    z->lat_mean = z->lat_sum / (double)n;
    z->skew_mean /= (double)n;
    z->skew_end_mean /= (double)n;
    z->wait_mean /= (double)n;
    z->algbw_mean = nbw ? ab / (double)nbw : NAN;
    z->busbw_mean = isnan(z->busbw_max) ? NAN : bb / (double)nbw;
    for (int r = 0; r < job->nranks; r++)
        if (last[r] > z->straggler_times) {
            z->straggler_times = last[r];
            z->straggler = r;
        }
    free(last);
    return JV_OK;
}

static jv_status build_sizes(jv_job *job) {
    if (!job->ninst) return JV_OK;
    jv_coll_inst **p = malloc(job->ninst * sizeof *p);
    if (!p) return JV_ERR_NOMEM;
    for (size_t i = 0; i < job->ninst; i++)
        p[i] = &job->inst[i];
    jv_status st = jv_sort_stable(p, job->ninst, sizeof *p, cmp_size_key, NULL);
    size_t cap = 0;
    for (size_t i = 0; i < job->ninst && st == JV_OK;) {
        size_t j = i + 1;
        while (j < job->ninst && !cmp_size_key(&p[i], &p[j], NULL))
            j++;
        if ((st = JV_RESERVE(job->sizes, cap, job->nsizes + 1)) == JV_OK &&
            (st = size_row(job, p + i, j - i, &job->sizes[job->nsizes])) == JV_OK)
            job->nsizes++;
        i = j;
    }
    free(p);
    if (st == JV_OK && job->nsizes > 1)
        st = jv_sort_stable(job->sizes, job->nsizes, sizeof *job->sizes, cmp_size_total, NULL);
    return st;
}

jv_status jv_job_build(const jv_rank_view *ranks, int n, jv_job *job, jv_err *err) {
    memset(job, 0, sizeof *job);
    job->ranks = ranks;
    job->nranks = n;
    job->t0 = INT64_MAX;
    job->t1 = INT64_MIN;
    for (int r = 0; r < n; r++)
        if (ranks[r].tl.events) {
            job->t0 = ranks[r].first < job->t0 ? ranks[r].first : job->t0;
            job->t1 = ranks[r].last > job->t1 ? ranks[r].last : job->t1;
        }
    if (job->t0 > job->t1) job->t0 = job->t1 = 0;
    jv_status st = JV_OK;
    const jv_coll_call **call = malloc(((size_t)n + 1) * sizeof *call);
    by_group *bg = calloc((size_t)n + 1, sizeof *bg);
    job->wait = calloc((size_t)n + 1, sizeof *job->wait);
    if (!call || !bg || !job->wait) st = JV_ERR_NOMEM;
    for (int r = 0; r < n && st == JV_OK; r++)
        for (size_t i = 0; i < ranks[r].ncalls; i++)
            job->wait[r].dur_total += ranks[r].calls[i].dur;
    if (st == JV_OK) st = collect_groups(job);
    for (int r = 0; r < n && st == JV_OK; r++)
        st = index_rank(job, &ranks[r], &bg[r]);
    size_t cap_inst = 0;
    for (size_t g = 0; g < job->ngroups && st == JV_OK; g++)
        st = match_group(job, (uint32_t)g, &cap_inst, call, bg);
    if (st == JV_OK) st = build_sizes(job);
    job->most_waiting = -1;
    for (int r = 0; r < n && st == JV_OK; r++) {
        job->wait_mean_us += (double)job->wait[r].wait_total / 1e3 / n;
        if (job->wait[r].wait_total > 0 &&
            (job->most_waiting < 0 || job->wait[r].wait_total > job->wait[job->most_waiting].wait_total))
            job->most_waiting = r;
    }
    job->straggler = -1;
    for (int r = 0; r < n && st == JV_OK; r++)
        if (job->wait[r].times_last &&
            (job->straggler < 0 || job->wait[r].times_last > job->wait[job->straggler].times_last))
            job->straggler = r;
    job->skew_max = -1;
    for (size_t i = 0; i < job->ninst && st == JV_OK; i++) {
        job->latency_us += (double)job->inst[i].comm_latency / 1e3;
        if (job->inst[i].skew_start > job->skew_max) {
            job->skew_max = job->inst[i].skew_start;
            job->skew_max_at = i;
        }
    }
    for (int r = 0; bg && r < n; r++) {
        free(bg[r].order);
        free(bg[r].start);
    }
    free(call);
    free(bg);
    if (st != JV_OK) {
        jv_job_free(job);
        JV_FAIL(err, st, "out of memory matching the collectives of %d ranks", n);
    }
    return JV_OK;
}

void jv_job_free(jv_job *job) {
    for (size_t g = 0; g < job->ngroups; g++)
        free(job->groups[g]);
    free(job->groups);
    for (size_t i = 0; i < job->ninst; i++)
        free(job->inst[i].ts);
    free(job->inst);
    free(job->sizes);
    free(job->wait);
    memset(job, 0, sizeof *job);
}
