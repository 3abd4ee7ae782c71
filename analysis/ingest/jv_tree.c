/* jv_tree: sort host events per thread, nest them with a stack, link GPU work. */
#include "jv_tree.h"

#include "jv_sort.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int jv_contains_nocase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n) return 1;
    }
    return 0;
}

int jv_is_comm_kernel(const char *name) {
    /* the collective libraries (NCCL, RCCL, MSCCL/MSCCL++), NVSHMEM, expert-parallel dispatch/combine
     * (DeepEP: deep_ep::, and the dpsk::ep:: build of it), and the custom all-reduce / all-gather /
     * reduce-scatter / all-to-all kernels of serving stacks (vLLM's cross_device_reduce, TensorRT-LLM's
     * allReduceKernel, ...) */
    static const char *const COMM[] = {
        "nccl",      "rccl",       "msccl",     "nvshmem",    "deep_ep::",     "dpsk::ep::",     "cross_device_reduce",
        "allreduce", "all_reduce", "allgather", "all_gather", "reducescatter", "reduce_scatter", "alltoall",
        "all_to_all"};
    for (size_t i = 0; i < sizeof COMM / sizeof COMM[0]; i++)
        if (jv_contains_nocase(name, COMM[i])) return 1;
    return 0;
}

/* host events sorted by (thread, ts, longer first, uid); the events are in uid order */
static int cmp_host(const void *a, const void *b, void *ctx) {
    const jv_trace *tr = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const jv_event *x = &tr->ev[i], *y = &tr->ev[j];
    if (jv_ev_thread(tr, x) != jv_ev_thread(tr, y)) return jv_ev_thread(tr, x) < jv_ev_thread(tr, y) ? -1 : 1;
    if (jv_ev_ts(tr, x) != jv_ev_ts(tr, y)) return jv_ev_ts(tr, x) < jv_ev_ts(tr, y) ? -1 : 1;
    int64_t dx = jv_ev_dur(tr, x), dy = jv_ev_dur(tr, y);
    if (dx != dy) return dx > dy ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* Ops and launch calls always; python functions and user annotations only on
 * request: their times are recorded by other clocks and often end a few us
 * after the ops inside them, which would break the nesting of those ops. */
static int in_tree(jv_kind k, int with_python) {
    return k == JV_K_CPU_OP || k == JV_K_RUNTIME || k == JV_K_DRIVER ||
           (with_python && (k == JV_K_USER_ANNOT || k == JV_K_PYTHON));
}

/* The nesting state that one batch of host events hands on to the next: the stack of open events (*depth of
 * them, of thread cur_thread). */
typedef struct {
    uint32_t *stack;
    size_t cap, depth;
    uint32_t cur_thread;
} nest_state;

/* Nests the host events idx[0..n), sorted by cmp_host and following the events nested before with ns. */
static jv_status nest_sorted(const jv_trace *tr, jv_tree *t, const uint32_t *idx, size_t n, nest_state *ns,
                             jv_err *err) {
    jv_status s = JV_OK;
    size_t depth = ns->depth;
    uint32_t cur_thread = ns->cur_thread, **stack = &ns->stack;
    size_t *cap_stack = &ns->cap;
    for (size_t k = 0; s == JV_OK && k < n; k++) {
        uint32_t i = idx[k];
        const jv_event *e = &tr->ev[i];
        if (jv_ev_thread(tr, e) != cur_thread) {
            depth = 0;
            cur_thread = jv_ev_thread(tr, e);
        }
        int64_t end = jv_ev_end(tr, e);
        while (depth && jv_ev_ts(tr, e) >= jv_ev_end(tr, &tr->ev[(*stack)[depth - 1]]))
            depth--;
        if (depth) {
            const jv_event *top = &tr->ev[(*stack)[depth - 1]];
            int64_t top_end = jv_ev_end(tr, top);
            if (end > top_end) {
                /* ends after its parent: under 1 us of overlap it is a sibling of the top;
                   otherwise the nesting is broken and the event stays a root */
                if (top_end - jv_ev_ts(tr, e) < 1000 && depth >= 2) {
                    depth--;
                } else {
                    t->counts.dropped_overlap++;
                    continue;
                }
            }
        }
        t->parent[i] = depth ? (*stack)[depth - 1] : JV_NONE32;
        if (depth >= JV_TREE_MAX_DEPTH) {
            char key[2][64];
            const jv_thread *th = &tr->threads[jv_ev_thread(tr, e)];
            return jv_err_set(err, JV_ERR_LIMIT, __FILE__, __LINE__,
                              "event %u (\"%.80s\", pid %s, tid %s) nests %d levels deep: the call tree is limited to "
                              "%d levels (the deepest of the fixture traces: 53)",
                              jv_trace_uid(tr, i), jv_trace_str(tr, jv_ev_name(tr, e)),
                              jv_trace_key_str(tr, th->pid, key[0], sizeof key[0]),
                              jv_trace_key_str(tr, th->tid, key[1], sizeof key[1]), (int)depth + 1, JV_TREE_MAX_DEPTH);
        }
        if ((s = JV_RESERVE(*stack, *cap_stack, depth + 1)) != JV_OK) break;
        (*stack)[depth++] = i;
    }
    ns->depth = depth;
    ns->cur_thread = cur_thread;
    return s;
}

/* The host events are sorted and nested a batch at a time, in the order of one sort of them all, the nesting
 * state handed on from batch to batch: a batch is a run of consecutive units, a unit being a thread's events, or,
 * for a thread with more than an eighth of all host events, the events of one of HOST_BUCKETS equal ranges of
 * its start times (monotone in ts: a bucket's events sort before the next bucket's). Batches hold at most an
 * eighth of the host events unless one unit alone has more (a burst); the index holds the largest batch and the
 * sort's scratch half of that, not the busiest thread's events. */
enum { HOST_BATCHES = 8, HOST_BUCKETS = 64 };

/* The start-time buckets of a thread: split 0 (one unit), or 1 with the first start lo and the scale */
typedef struct {
    int64_t lo, hi;
    double scale;
    uint32_t split, first_unit;
} host_thread;

/* the unit of host event e of thread th */
static uint32_t unit_of(const jv_trace *tr, const host_thread *th, const jv_event *e) {
    if (!th->split) return th->first_unit;
    size_t b = (size_t)((double)(jv_ev_ts(tr, e) - th->lo) * th->scale);
    return th->first_unit + (uint32_t)(b < HOST_BUCKETS ? b : HOST_BUCKETS - 1);
}

/* The end of the batch that starts at unit u: units are added while the batch holds at most cap host events (the
 * first unit always, however many it holds); *m gets the batch's events. */
static size_t batch_end(const uint32_t *ucnt, size_t nunits, size_t u, size_t cap, size_t *m) {
    *m = 0;
    while (u < nunits && (*m == 0 || *m + ucnt[u] <= cap))
        *m += ucnt[u++];
    return u;
}

static jv_status build_host(const jv_trace *tr, jv_tree *t, int with_python, jv_err *err) {
    size_t nth = tr->nthreads ? tr->nthreads : 1, n = 0, nunits = 0;
    uint32_t *cnt = calloc(nth, sizeof *cnt); /* host events per thread, then per unit */
    host_thread *ht = calloc(nth, sizeof *ht);
    uint32_t *ucnt = NULL, *idx = NULL;
    nest_state ns = {NULL, 0, 0, JV_NONE32};
    jv_status s = cnt && ht ? JV_OK : JV_ERR_NOMEM;
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (!in_tree(jv_ev_kind(tr, e), with_python)) continue;
        host_thread *h = &ht[jv_ev_thread(tr, e)];
        const int64_t ts = jv_ev_ts(tr, e);
        if (!cnt[jv_ev_thread(tr, e)]++ || ts < h->lo) h->lo = ts;
        if (cnt[jv_ev_thread(tr, e)] == 1 || ts > h->hi) h->hi = ts;
        n++;
    }
    const size_t cap = n / HOST_BATCHES ? n / HOST_BATCHES : 1;
    for (size_t th = 0; s == JV_OK && th < tr->nthreads; th++) {
        ht[th].first_unit = (uint32_t)nunits;
        ht[th].split = cnt[th] > cap && ht[th].hi > ht[th].lo;
        if (ht[th].split) ht[th].scale = HOST_BUCKETS / ((double)(ht[th].hi - ht[th].lo) + 1.0);
        nunits += ht[th].split ? HOST_BUCKETS : 1;
    }
    if (s == JV_OK && !(ucnt = calloc(nunits ? nunits : 1, sizeof *ucnt))) s = JV_ERR_NOMEM;
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (in_tree(jv_ev_kind(tr, e), with_python)) ucnt[unit_of(tr, &ht[jv_ev_thread(tr, e)], e)]++;
    }
    /* the batches (runs of units) and the largest of them */
    size_t most = 1;
    for (size_t u = 0; s == JV_OK && u < nunits;) {
        size_t m;
        u = batch_end(ucnt, nunits, u, cap, &m);
        if (m > most) most = m;
    }
    if (s == JV_OK && !(idx = malloc(most * sizeof *idx))) s = JV_ERR_NOMEM;
    for (size_t ua = 0, th_a = 0; s == JV_OK && ua < nunits;) {
        size_t want; /* the batch's events: the scan below stops once it has them */
        const size_t ub = batch_end(ucnt, nunits, ua, cap, &want);
        while (th_a + 1 < tr->nthreads && ht[th_a + 1].first_unit <= ua) /* the threads of units ua .. ub - 1 */
            th_a++;
        size_t th_b = th_a;
        while (th_b + 1 < tr->nthreads && ht[th_b + 1].first_unit < ub)
            th_b++;
        size_t m = 0;
        for (size_t i = 0; i < tr->nev && m < want; i++) {
            const jv_event *e = &tr->ev[i];
            if (jv_ev_thread(tr, e) < th_a || jv_ev_thread(tr, e) > th_b || !in_tree(jv_ev_kind(tr, e), with_python))
                continue;
            const uint32_t u = unit_of(tr, &ht[jv_ev_thread(tr, e)], e);
            if (u >= ua && u < ub) idx[m++] = (uint32_t)i;
        }
        s = jv_sort_stable(idx, m, sizeof *idx, cmp_host, (void *)tr);
        if (s == JV_OK) s = nest_sorted(tr, t, idx, m, &ns, err);
        ua = ub;
    }
    free(ns.stack);
    free(idx);
    free(ucnt);
    free(ht);
    free(cnt);
    return s;
}

static uint64_t thread_ts_key(uint32_t thread, int64_t ts) {
    return ((uint64_t)thread * 0x9e3779b97f4a7c15ull) ^ (uint64_t)ts;
}

static int64_t pid_of(const jv_trace *tr, uint32_t i) {
    return tr->threads[jv_ev_thread(tr, &tr->ev[i])].pid;
}

/* 1 for the kinds whose aux indexes launch_corr_ */
static int is_launch_kind(jv_kind k) {
    return k == JV_K_RUNTIME || k == JV_K_DRIVER;
}

static int is_launch(const jv_trace *tr, const jv_event *e) {
    return is_launch_kind(jv_ev_kind(tr, e)) && tr->launch_corr_[jv_ev_aux(tr, e)] != JV_CORR_NONE;
}

/* host_of: GPU pid -> the host process (pid) that launched its GPU events linked so far; JV_NONE32 marks a GPU
 * pid whose events were launched by more than one process. Values are thread indices of a launch. */
static jv_status gpu_hosts(const jv_trace *tr, const jv_tree *t, jv_map *host_of) {
    jv_status s = JV_OK;
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        uint32_t l = t->parent[i], have;
        if (!jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i])) || l == JV_NONE32) continue;
        uint32_t th = jv_ev_thread(tr, &tr->ev[l]);
        if (!jv_map_get(host_of, pid_of(tr, (uint32_t)i), &have))
            s = jv_map_put(host_of, pid_of(tr, (uint32_t)i), th);
        else if (have != JV_NONE32 && tr->threads[have].pid != tr->threads[th].pid)
            s = jv_map_put(host_of, pid_of(tr, (uint32_t)i), JV_NONE32);
    }
    return s;
}

/* the host process of GPU event g from host_of; 0 when it cannot be told (none, or several) */
static int host_pid(const jv_trace *tr, const jv_map *host_of, uint32_t g, int64_t *pid) {
    uint32_t th;
    if (!jv_map_get(host_of, pid_of(tr, g), &th) || th == JV_NONE32) return 0;
    *pid = tr->threads[th].pid;
    return 1;
}

/* Links GPU events without a correlation id through flow pairs: the 'f' end sits on the GPU event (same thread
 * and ts), the 's' start on the launch. Flow ids count per process, as correlation ids do: an id whose starts
 * are in more than one process is followed only from the process that launched the other work of the GPU
 * event's device (link_shared_ids' rule); without one such process it stays unlinked, and is counted. */
/* The thread and ts of a flow start, in link_by_flows' table of the starts it follows. */
typedef struct {
    int64_t ts;
    uint32_t thread;
} flow_start;

/* Appends the start fl to *starts and puts its index in *k. */
static jv_status add_start(flow_start **starts, size_t *n, size_t *cap, const jv_flow *fl, uint32_t *k) {
    JV_CHECK(JV_RESERVE(*starts, *cap, *n + 1));
    (*starts)[*n] = (flow_start){fl->ts, fl->thread};
    *k = (uint32_t)(*n)++;
    return JV_OK;
}

static jv_status link_by_flows(const jv_trace *tr, jv_tree *t) {
    jv_map gpu_at, launch_at, start_of, shared, host_of;
    jv_intern keys; /* (pid, flow id) bytes -> key id, for the starts of shared ids; start_in: key id -> start */
    jv_map start_in;
    jv_map_init(&gpu_at);
    jv_map_init(&launch_at);
    jv_map_init(&start_of);
    jv_map_init(&shared);
    jv_map_init(&host_of);
    jv_map_init(&start_in);
    flow_start *starts = NULL; /* the starts that start_of and start_in point at (the flows are read in order) */
    size_t nstarts = 0, cap_starts = 0;
    size_t want = 0;
    /* nothing to do (and no maps to build) when every GPU event is linked already */
    for (size_t i = 0; i < tr->nev && !want; i++)
        want = jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i])) && t->parent[i] == JV_NONE32;
    if (!want || !tr->flows.n) return JV_OK;
    jv_status s = jv_intern_init(&keys);
    want = 0;
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        jv_kind k = jv_ev_kind(tr, e);
        if (jv_kind_is_gpu(k) && t->parent[i] == JV_NONE32) {
            s = jv_map_put_first(&gpu_at, (int64_t)thread_ts_key(jv_ev_thread(tr, e), jv_ev_ts(tr, e)), (uint32_t)i);
            want++;
        } else if (k == JV_K_RUNTIME || k == JV_K_DRIVER) {
            s = jv_map_put_first(&launch_at, (int64_t)thread_ts_key(jv_ev_thread(tr, e), jv_ev_ts(tr, e)), (uint32_t)i);
        }
    }
    jv_flow_iter it;
    jv_flow fl;
    jv_flow_iter_init(&it, &tr->flows);
    while (s == JV_OK && want && jv_flow_next(&it, &fl)) {
        uint32_t st, v;
        if (fl.phase != 's') continue;
        if (!jv_map_get(&start_of, fl.id, &st)) {
            if ((s = add_start(&starts, &nstarts, &cap_starts, &fl, &st)) == JV_OK)
                s = jv_map_put(&start_of, fl.id, st);
        } else if (tr->threads[starts[st].thread].pid != tr->threads[fl.thread].pid &&
                   !jv_map_get(&shared, fl.id, &v)) {
            s = jv_map_put(&shared, fl.id, 1);
            t->counts.shared_flow_ids++;
        }
    }
    jv_flow_iter_init(&it, &tr->flows);
    while (s == JV_OK && shared.count && jv_flow_next(&it, &fl)) {
        uint32_t v, id, st;
        if (fl.phase != 's' || !jv_map_get(&shared, fl.id, &v)) continue;
        int64_t key[2] = {tr->threads[fl.thread].pid, fl.id};
        s = jv_intern_add(&keys, (const char *)key, sizeof key, &id);
        if (s == JV_OK && !jv_map_get(&start_in, id, &st) &&
            (s = add_start(&starts, &nstarts, &cap_starts, &fl, &st)) == JV_OK)
            s = jv_map_put(&start_in, id, st);
    }
    /* pass 1: ids of one process; pass 2: shared ids, by the host process the first pass and correlation tell */
    for (int pass = 0; pass < 2 && s == JV_OK && want; pass++) {
        if (pass == 1) {
            if (!shared.count) break;
            s = gpu_hosts(tr, t, &host_of);
        }
        jv_flow_iter_init(&it, &tr->flows);
        while (s == JV_OK && jv_flow_next(&it, &fl)) {
            uint32_t g, st, l, v, id;
            if (fl.phase != 'f') continue;
            if (!jv_map_get(&gpu_at, (int64_t)thread_ts_key(fl.thread, fl.ts), &g)) continue;
            if (t->parent[g] != JV_NONE32) continue;
            if (jv_ev_thread(tr, &tr->ev[g]) != fl.thread || jv_ev_ts(tr, &tr->ev[g]) != fl.ts)
                continue; /* hash collision */
            int is_shared = shared.count && jv_map_get(&shared, fl.id, &v);
            if (is_shared != pass) continue;
            if (!is_shared) {
                if (!jv_map_get(&start_of, fl.id, &st)) continue;
            } else {
                int64_t key[2] = {0, fl.id};
                if (!host_pid(tr, &host_of, g, &key[0])) {
                    t->counts.shared_flow_unlinked++;
                    continue;
                }
                if ((s = jv_intern_add(&keys, (const char *)key, sizeof key, &id)) != JV_OK) break;
                if (!jv_map_get(&start_in, id, &st)) {
                    t->counts.shared_flow_unlinked++;
                    continue;
                }
            }
            const flow_start *sf = &starts[st];
            if (!jv_map_get(&launch_at, (int64_t)thread_ts_key(sf->thread, sf->ts), &l)) continue;
            t->parent[g] = l;
            t->counts.by_flow++;
        }
    }
    free(starts);
    jv_intern_free(&keys);
    jv_map_free(&gpu_at);
    jv_map_free(&launch_at);
    jv_map_free(&start_of);
    jv_map_free(&shared);
    jv_map_free(&host_of);
    jv_map_free(&start_in);
    return s;
}

/* Correlation ids count per process: when two processes' launches share an id, a GPU event with that id
 * is linked only within the process its device's other (unambiguous) GPU events were launched from; without
 * such a process (none, or more than one) it stays unlinked. by_corr maps an id to its first launch. */
static jv_status link_shared_ids(const jv_trace *tr, jv_tree *t, const jv_map *shared) {
    jv_intern keys; /* (pid, corr) bytes -> id; launch_of: id -> launch */
    jv_map launch_of, host_of;
    jv_map_init(&launch_of);
    jv_map_init(&host_of);
    jv_status s = jv_intern_init(&keys);
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        uint32_t v, id;
        if (!is_launch(tr, e)) continue;
        const int64_t corr = jv_trace_corr(tr, (uint32_t)i);
        if (jv_map_get(shared, corr, &v)) {
            int64_t key[2] = {pid_of(tr, (uint32_t)i), corr};
            s = jv_intern_add(&keys, (const char *)key, sizeof key, &id);
            if (s == JV_OK) s = jv_map_put_first(&launch_of, id, (uint32_t)i);
        }
    }
    /* so far only the unambiguous ids are linked: they tell each device's host process */
    if (s == JV_OK) s = gpu_hosts(tr, t, &host_of);
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        uint32_t v, id, l;
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
        const int64_t corr = jv_trace_corr(tr, (uint32_t)i);
        if (corr == JV_NONE64 || !jv_map_get(shared, corr, &v)) continue;
        int64_t key[2] = {0, corr};
        if (host_pid(tr, &host_of, (uint32_t)i, &key[0])) {
            s = jv_intern_add(&keys, (const char *)key, sizeof key, &id);
            if (s == JV_OK && jv_map_get(&launch_of, id, &l)) {
                t->parent[i] = l;
                t->counts.by_correlation++;
                continue;
            }
        }
        t->counts.shared_id_unlinked++;
    }
    jv_intern_free(&keys);
    jv_map_free(&launch_of);
    jv_map_free(&host_of);
    return s;
}

static int cmp_launch_corr(const void *a, const void *b, void *ctx) {
    const jv_trace *tr = ctx;
    int64_t x = jv_trace_corr(tr, *(const uint32_t *)a), y = jv_trace_corr(tr, *(const uint32_t *)b);
    return (x > y) - (x < y);
}

/* The first launch (lowest index) of correlation id corr in by_corr (launches by ascending id, then index), else
 * JV_NONE32. */
static uint32_t launch_of_corr(const jv_trace *tr, const uint32_t *by_corr, size_t n, int64_t corr) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (jv_trace_corr(tr, by_corr[mid]) < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && jv_trace_corr(tr, by_corr[lo]) == corr ? by_corr[lo] : JV_NONE32;
}

static jv_status link_gpu(const jv_trace *tr, jv_tree *t) {
    jv_map by_ext, shared;
    jv_map_init(&by_ext);
    jv_map_init(&shared); /* ids launched by more than one process */
    size_t nlaunch = 0;
    for (size_t i = 0; i < tr->nev; i++)
        nlaunch += is_launch(tr, &tr->ev[i]);
    /* the launches sorted by correlation id (a sorted index takes a quarter of a hash map's memory, and the ids
       come nearly in order): the first launch of an id links its GPU events; an id also launched from another
       process than its first launch's is shared (link_shared_ids) */
    uint32_t *by_corr = malloc((nlaunch ? nlaunch : 1) * sizeof *by_corr);
    if (!by_corr) return JV_ERR_NOMEM;
    nlaunch = 0;
    for (size_t i = 0; i < tr->nev; i++)
        if (is_launch(tr, &tr->ev[i])) by_corr[nlaunch++] = (uint32_t)i;
    jv_status s = jv_sort_stable(by_corr, nlaunch, sizeof *by_corr, cmp_launch_corr, (void *)tr);
    for (size_t k = 0, first = 0; k < nlaunch && s == JV_OK; k++) {
        int64_t corr = jv_trace_corr(tr, by_corr[k]);
        uint32_t v;
        if (!k || corr != jv_trace_corr(tr, by_corr[first]))
            first = k;
        else if (pid_of(tr, by_corr[first]) != pid_of(tr, by_corr[k]) && !jv_map_get(&shared, corr, &v)) {
            s = jv_map_put(&shared, corr, 1);
            t->counts.shared_ids++;
        }
    }
    size_t missing = 0;
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
        t->counts.gpu_events++;
        uint32_t l, v;
        int64_t corr = jv_trace_corr(tr, (uint32_t)i);
        if (corr != JV_NONE64 && shared.count && jv_map_get(&shared, corr, &v)) continue; /* below */
        if (corr != JV_NONE64 && (l = launch_of_corr(tr, by_corr, nlaunch, corr)) != JV_NONE32) {
            t->parent[i] = l;
            t->counts.by_correlation++;
        } else {
            missing++;
        }
    }
    free(by_corr);
    if (s == JV_OK && shared.count) s = link_shared_ids(tr, t, &shared);
    missing += t->counts.shared_id_unlinked;
    if (s == JV_OK && missing && tr->flows.n) s = link_by_flows(tr, t);
    /* 2021 traces: the GPU event's "external id" names the op */
    if (s == JV_OK && missing) {
        for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
            const jv_event *e = &tr->ev[i];
            if (jv_ev_kind(tr, e) != JV_K_CPU_OP) continue;
            const int32_t ext = tr->op_ids[jv_ev_aux(tr, e)].ext;
            if (ext != JV_NONE32I) s = jv_map_put_first(&by_ext, ext, (uint32_t)i);
        }
        for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
            const jv_event *e = &tr->ev[i];
            uint32_t op;
            if (!jv_kind_is_gpu(jv_ev_kind(tr, e)) || t->parent[i] != JV_NONE32) continue;
            const int32_t ext = tr->gpu_ids[jv_ev_aux(tr, e)].ext;
            if (ext != JV_NONE32I && jv_map_get(&by_ext, ext, &op)) {
                t->parent[i] = op;
                t->counts.by_external_id++;
            }
        }
    }
    jv_map_free(&by_ext);
    jv_map_free(&shared);
    return s;
}

static int is_execute(const jv_trace *tr, const jv_event *e) {
    return jv_ev_kind(tr, e) == JV_K_CPU_OP && !strcmp(jv_trace_str(tr, jv_ev_name(tr, e)), "execute");
}

int jv_is_graph_launch_name(const char *name) {
    return jv_contains_nocase(name, "GraphLaunch");
}

/* The op a GPU event is attributed to: nearest cpu_op above its launch
 * (python functions, annotations and "execute" wrappers are looked through);
 * the launch itself when no op is above it. Graph launches (a launch of more than one GPU event whose name names a
 * graph launch) are counted from a map of the graph-named launches' GPU events (none in most traces), not from a
 * count per launch. */
static jv_status find_launchers(const jv_trace *tr, jv_tree *t) {
    uint8_t *memo = calloc(tr->strings.count ? tr->strings.count : 1, 1);
    if (!memo) return JV_ERR_NOMEM;
    jv_map per_graph; /* a graph-named launch -> its GPU events so far */
    jv_map_init(&per_graph);
    jv_status s = JV_OK;
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
        uint32_t g = jv_ev_aux(tr, e), p = t->parent[i], k = 0;
        t->launcher[g] = JV_NONE32;
        if (p == JV_NONE32) {
            t->counts.unlinked++;
            continue;
        }
        if (is_launch_kind(jv_ev_kind(tr, &tr->ev[p])) &&
            jv_name_memo(tr, jv_ev_name(tr, &tr->ev[p]), memo, jv_is_graph_launch_name)) {
            jv_map_get(&per_graph, p, &k);
            if ((s = jv_map_put(&per_graph, p, k + 1)) != JV_OK) break;
            if (k == 1) { /* its second GPU event: a graph launch of two so far */
                t->counts.graph_launches++;
                t->counts.graph_kernels += 2;
            } else if (k > 1) {
                t->counts.graph_kernels++;
            }
        }
        if (jv_ev_kind(tr, &tr->ev[p]) == JV_K_CPU_OP) {
            t->launcher[g] = p;
            t->counts.with_cpu_op++;
            continue;
        }
        uint32_t launcher = p, op = JV_NONE32;
        for (uint32_t a = t->parent[p]; a != JV_NONE32; a = t->parent[a]) {
            const jv_event *ae = &tr->ev[a];
            if (jv_ev_kind(tr, ae) == JV_K_CPU_OP) {
                if (op == JV_NONE32) op = a; /* jv_tree_op_of_gpu */
                if (is_execute(tr, ae)) continue;
                launcher = a;
                break;
            }
            if (jv_ev_kind(tr, ae) == JV_K_PYTHON || jv_ev_kind(tr, ae) == JV_K_USER_ANNOT) continue;
            break;
        }
        t->launcher[g] = launcher;
        if (op != JV_NONE32) t->counts.with_cpu_op++;
    }
    jv_map_free(&per_graph);
    free(memo);
    return s;
}

uint32_t jv_tree_op_of_gpu(const jv_trace *tr, const jv_tree *t, uint32_t i) {
    const uint32_t p = t->parent[i];
    if (p == JV_NONE32) return JV_NONE32;
    if (jv_ev_kind(tr, &tr->ev[p]) == JV_K_CPU_OP) return p;
    uint32_t a = t->parent[p];
    for (int d = 0; a != JV_NONE32 && d < JV_TREE_MAX_DEPTH; d++, a = t->parent[a]) {
        const jv_kind k = jv_ev_kind(tr, &tr->ev[a]);
        if (k == JV_K_CPU_OP) return a;
        if (k != JV_K_PYTHON && k != JV_K_USER_ANNOT) break;
    }
    return JV_NONE32;
}

static jv_status link_fwd_bwd(const jv_trace *tr, jv_tree *t) {
    jv_status s = JV_OK;
    for (size_t i = 0; i < tr->nev && s == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (jv_ev_kind(tr, e) != JV_K_CPU_OP) continue;
        t->counts.cpu_ops++;
        const uint32_t a = jv_ev_aux(tr, e);
        if (tr->sigs[jv_ev_sig(tr, e)].dims) t->counts.cpu_ops_with_shapes++;
        int32_t seq = tr->op_ids[a].seq;
        if (seq == JV_NONE32I) continue;
        if (!strncmp(jv_trace_str(tr, jv_ev_name(tr, e)), "autograd::engine::evaluate_function:", 36)) continue;
        /* the outermost forward op carrying the number: keep the earliest (it encloses the others) */
        uint32_t prev;
        if (jv_map_get(&t->fwd_of_seq, seq, &prev) && jv_ev_ts(tr, &tr->ev[prev]) <= jv_ev_ts(tr, e)) continue;
        s = jv_map_put(&t->fwd_of_seq, seq, (uint32_t)i);
    }
    return s;
}

/* The GPU links and the forward ops of sequence numbers: they read and write only GPU events' parents and
 * their own counts, so they run beside build_host. */
typedef struct {
    const jv_trace *tr;
    jv_tree *t;
    jv_status s;
} link_job;

static void *link_main(void *arg) {
    link_job *j = arg;
    j->s = link_gpu(j->tr, j->t);
    if (j->s == JV_OK) j->s = link_fwd_bwd(j->tr, j->t);
    return NULL;
}

jv_status jv_tree_build(const jv_trace *tr, int with_python, int threads, jv_tree *t, jv_err *err) {
    memset(t, 0, sizeof *t);
    jv_map_init(&t->fwd_of_seq);
    size_t n = tr->nev ? tr->nev : 1, ng = tr->ngpu ? tr->ngpu : 1;
    t->parent = malloc(n * sizeof *t->parent);
    t->launcher = malloc(ng * sizeof *t->launcher);
    jv_status s = JV_ERR_NOMEM;
    if (t->parent && t->launcher) {
        memset(t->parent, 0xFF, n * sizeof *t->parent);
        link_job j = {tr, t, JV_OK};
        pthread_t th;
        int threaded = threads != 1 && pthread_create(&th, NULL, link_main, &j) == 0;
        s = build_host(tr, t, with_python, err);
        if (threaded)
            pthread_join(th, NULL);
        else if (s == JV_OK)
            link_main(&j);
        if (s == JV_OK) s = j.s; /* build_host's error first, as on one thread */
        if (s == JV_OK) s = find_launchers(tr, t);
    }
    if (s != JV_OK) {
        jv_tree_free(t);
        JV_FAIL(err, s, "out of memory while building the call tree (%zu events)", tr->nev); /* unless set above */
    }
    return JV_OK;
}

void jv_tree_free(jv_tree *t) {
    free(t->parent);
    free(t->launcher);
    jv_map_free(&t->fwd_of_seq);
    memset(t, 0, sizeof *t);
}

jv_status jv_upset_init(jv_upset *u, const jv_trace *tr) {
    u->nwords = tr->nev / 64 + 1;
    u->n = 0;
    u->bits = calloc(u->nwords, sizeof *u->bits);
    u->rank = malloc(u->nwords * sizeof *u->rank);
    if (u->bits && u->rank) return JV_OK;
    jv_upset_free(u);
    return JV_ERR_NOMEM;
}

void jv_upset_add(jv_upset *u, const jv_tree *t, uint32_t x) {
    for (; x != JV_NONE32 && !jv_upset_has(u, x); x = t->parent[x]) /* each member climbed through once */
        u->bits[x >> 6] |= UINT64_C(1) << (x & 63);
}

void jv_upset_add_one(jv_upset *u, uint32_t x) {
    if (x != JV_NONE32) u->bits[x >> 6] |= UINT64_C(1) << (x & 63);
}

void jv_upset_seal(jv_upset *u) {
    size_t n = 0;
    for (size_t w = 0; w < u->nwords; w++) {
        u->rank[w] = (uint32_t)n;
        n += (size_t)jv_popcount64(u->bits[w]);
    }
    u->n = n;
}

void jv_upset_free(jv_upset *u) {
    free(u->bits);
    free(u->rank);
    memset(u, 0, sizeof *u);
}
