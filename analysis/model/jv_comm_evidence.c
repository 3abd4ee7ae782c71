/* jv_comm_evidence: the exposed communication of one trace split by what its collectives were doing (DDP buffer
 * broadcasts, waiting for other ranks, the rest), with the figures behind each part. */
#include "jv_comm_evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_intern.h"

/* host events whose span marks a broadcast launched inside them as DDP's buffer sync in forward, or (never) as
 * DDP's constructor */
static const char *const DDP_SYNC[] = {"DistributedDataParallel.forward", "_sync_buffers", "_sync_module_buffers",
                                       "_broadcast_coalesced"};
static const char *const DDP_INIT[] = {"_sync_params_and_buffers", "_sync_module_states",
                                       "DistributedDataParallel.__init__"};

static int name_in(const char *n, const char *const *set, size_t k) {
    for (size_t i = 0; i < k; i++)
        if (strstr(n, set[i])) return 1;
    return 0;
}

/* what a name is, decided once per distinct name (a direct-mapped cache on its interned id) */
enum { NAME_CACHE = 1024, N_SYNC = 1, N_INIT = 2, N_COMM = 4 };
typedef struct {
    uint32_t id[NAME_CACHE];
    uint8_t cls[NAME_CACHE];
} name_cache;

static uint8_t name_class(const jv_trace *tr, name_cache *c, uint32_t name) {
    uint32_t slot = name & (NAME_CACHE - 1);
    if (c->id[slot] != name) {
        const char *n = jv_trace_str(tr, name);
        c->id[slot] = name;
        c->cls[slot] = (uint8_t)((name_in(n, DDP_SYNC, sizeof DDP_SYNC / sizeof *DDP_SYNC) ? N_SYNC : 0) |
                                 (name_in(n, DDP_INIT, sizeof DDP_INIT / sizeof *DDP_INIT) ? N_INIT : 0) |
                                 (jv_is_comm_kernel(n) ? N_COMM : 0));
    }
    return c->cls[slot];
}

int jv_comm_is_ddp_name(const char *name) {
    return strstr(name, "DistributedDataParallel") || name_in(name, DDP_SYNC, sizeof DDP_SYNC / sizeof *DDP_SYNC);
}

typedef struct {
    uint32_t thread;
    int64_t s, e;
    int init; /* a constructor span */
} span;

/* 1 when the launch of kernel event ev lies inside a DDP buffer-sync span of its thread and inside no constructor
 * span */
static int in_ddp_sync(const jv_trace *tr, const jv_tree *t, uint32_t ev, const span *sp, size_t nsp) {
    uint32_t l = t->parent[ev];
    if (l == JV_NONE32) return 0;
    const jv_event *le = &tr->ev[l];
    int sync = 0;
    for (size_t k = 0; k < nsp; k++) {
        if (sp[k].thread != jv_ev_thread(tr, le) || sp[k].s > jv_ev_ts(tr, le) || sp[k].e < jv_ev_end(tr, le)) continue;
        if (sp[k].init) return 0;
        sync = 1;
    }
    return sync;
}

/* the bandwidth of bytes moved in dur_ns by a collective of kind over n ranks (GB/s): bus bandwidth when n is
 * known, else algorithm bandwidth */
static double bw_of(jv_coll_kind kind, double bytes, int64_t dur_ns, int n) {
    if (!(dur_ns > 0) || isnan(bytes) || kind == JV_COLL_BARRIER) return NAN;
    double alg = bytes / (double)dur_ns;
    return n > 0 ? alg * jv_coll_busbw_factor(kind, n) : alg;
}

typedef struct {
    jv_coll_kind kind;
    double bytes;
    int gs;
    int64_t ts, dur;
} sized_call;

static int cmp_sized(const void *a, const void *b) {
    const sized_call *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
    if (x->gs != y->gs) return x->gs < y->gs ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* the figures of group g[0..n) (one kind, size and group size) and its waiting intervals appended to w */
static void group_of(const sized_call *g, size_t n, jv_dcoll *z, jv_iv *w, size_t *nw) {
    memset(z, 0, sizeof *z);
    z->kind = g[0].kind;
    z->bytes = g[0].bytes;
    z->group_size = g[0].gs;
    z->n = (uint32_t)n;
    z->busbw = g[0].gs > 0;
    int64_t best = g[0].dur, worst = g[0].dur;
    for (size_t i = 0; i < n; i++) {
        best = g[i].dur < best ? g[i].dur : best;
        worst = g[i].dur > worst ? g[i].dur : worst;
        z->sum_us += (double)g[i].dur / 1e3;
    }
    z->best_us = (double)best / 1e3;
    z->worst_us = (double)worst / 1e3;
    z->best_bw = bw_of(z->kind, z->bytes, best, z->group_size);
    z->worst_bw = bw_of(z->kind, z->bytes, worst, z->group_size);
    if (n < 2 || best <= 0) return;
    for (size_t i = 0; i < n; i++) {
        if ((double)g[i].dur < JV_COMM_WAIT_RATIO * (double)best) continue;
        z->slow++;
        z->wait_us += (double)(g[i].dur - best) / 1e3;
        w[(*nw)++] = (jv_iv){g[i].ts, g[i].ts + (g[i].dur - best)};
    }
}

/* The intersection of merged lists a[0..na) and b[0..nb), merged, into out (room for na + nb); returns its count. */
static size_t intersect(const jv_iv *a, size_t na, const jv_iv *b, size_t nb, jv_iv *out) {
    size_t n = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (s < e) out[n++] = (jv_iv){s, e};
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return n;
}

/* len(a) - overlap(a, b): the part of merged list a outside merged list b */
static int64_t outside(const jv_iv *a, size_t na, const jv_iv *b, size_t nb) {
    return jv_iv_len(a, na) - jv_iv_overlap(a, na, b, nb);
}

jv_status jv_comm_evidence(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *opts, int64_t exposed_comm,
                           jv_dcomm *out, jv_err *err) {
    memset(out, 0, sizeof *out);
    out->exposed[JV_COMM_REST] = exposed_comm;
    out->exposed_comm = exposed_comm;
    jv_intern strings;
    if (jv_intern_init(&strings) != JV_OK) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (communication evidence)");
    int rank, world;
    jv_dist_info(tr, &rank, &world);
    jv_coll_call *calls = NULL;
    size_t ncalls = 0, nsp = 0, cap_sp = 0, ngpu = 0;
    span *sp = NULL;
    sized_call *sc = NULL;
    jv_iv *comp = NULL, *ddp = NULL, *wait = NULL, *cd = NULL;
    jv_status st = jv_coll_collect(tr, t, world, &strings, &calls, &ncalls);
    name_cache cache;
    memset(cache.id, 0xFF, sizeof cache.id);
    for (size_t i = 0; i < tr->nev && st == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        ngpu += jv_kind_is_gpu(jv_ev_kind(tr, e));
        if (!jv_kind_is_host(jv_ev_kind(tr, e))) continue;
        uint8_t cls = name_class(tr, &cache, jv_ev_name(tr, e));
        int init = (cls & N_INIT) != 0;
        if (!init && !(cls & N_SYNC)) continue;
        if ((st = JV_RESERVE(sp, cap_sp, nsp + 1)) == JV_OK)
            sp[nsp++] = (span){jv_ev_thread(tr, e), jv_ev_ts(tr, e), jv_ev_end(tr, e), init};
    }
    if (st == JV_OK && (!(sc = malloc((ncalls + 1) * sizeof *sc)) || !(comp = malloc((ngpu + 1) * sizeof *comp)) ||
                        !(ddp = malloc((ncalls + 1) * sizeof *ddp)) || !(wait = malloc((ncalls + 1) * sizeof *wait)) ||
                        !(cd = malloc((ngpu + ncalls + 1) * sizeof *cd))))
        st = JV_ERR_NOMEM;
    size_t nsc = 0, nddp = 0, nwait = 0, ncomp = 0;
    for (size_t k = 0; k < ncalls && st == JV_OK; k++) {
        const jv_coll_call *c = &calls[k];
        if (!opts->include_unlinked && t->parent[c->ev] == JV_NONE32) continue;
        out->calls++;
        double bytes = jv_coll_bytes(c);
        if (!isnan(bytes)) out->sized++;
        if (c->kind == JV_COLL_BROADCAST && in_ddp_sync(tr, t, c->ev, sp, nsp)) {
            out->ddp_calls++;
            out->ddp_us += (double)c->dur / 1e3;
            if (!isnan(bytes)) out->ddp_bytes += bytes;
            ddp[nddp++] = (jv_iv){c->ts, c->ts + c->dur};
            continue;
        }
        if (isnan(bytes) || c->kind == JV_COLL_UNKNOWN || c->kind == JV_COLL_BARRIER) continue; /* no rate */
        sc[nsc++] = (sized_call){(jv_coll_kind)c->kind, bytes, c->group_size, c->ts, c->dur};
    }
    if (st == JV_OK) {
        qsort(sc, nsc, sizeof *sc, cmp_sized);
        for (size_t i = 0; i < nsc;) {
            size_t j = i + 1;
            while (j < nsc && sc[j].kind == sc[i].kind && sc[j].bytes == sc[i].bytes && sc[j].gs == sc[i].gs)
                j++;
            jv_dcoll z;
            group_of(sc + i, j - i, &z, wait, &nwait);
            out->wait_calls += z.slow;
            out->wait_us += z.wait_us;
            if (z.slow && z.wait_us > out->wait_top.wait_us) out->wait_top = z;
            if (!z.slow && z.n >= 2 && z.best_us > 0 && z.bytes >= JV_COMM_XFER_MIN_BYTES &&
                z.sum_us > out->xfer_top.sum_us)
                out->xfer_top = z;
            i = j;
        }
        /* the computation intervals, as the timeline takes them; only the communication kernels' figures read
         * them (x_ddp, x_wait, kept: all empty without one), so a trace without any skips this pass and its sort */
        for (size_t i = 0; i < tr->nev && ncalls; i++) {
            const jv_event *e = &tr->ev[i];
            jv_kind k = jv_ev_kind(tr, e);
            if (!jv_kind_is_gpu(k) || (!opts->include_unlinked && t->parent[i] == JV_NONE32)) continue;
            const char *name = jv_trace_str(tr, jv_ev_name(tr, e));
            if (k == JV_K_MEMCPY || !strncmp(name, "__amd_rocclr_copyBuffer", 23)) continue;
            if (k == JV_K_KERNEL && (name_class(tr, &cache, jv_ev_name(tr, e)) & N_COMM)) continue;
            comp[ncomp++] = (jv_iv){jv_ev_ts(tr, e), jv_ev_end(tr, e)};
        }
        ncomp = jv_iv_merge(comp, ncomp);
        nddp = jv_iv_merge(ddp, nddp);
        nwait = jv_iv_merge(wait, nwait);
        memcpy(cd, comp, ncomp * sizeof *cd);
        if (nddp) memcpy(cd + ncomp, ddp, nddp * sizeof *cd);
        size_t ncd = jv_iv_merge(cd, ncomp + nddp);
        int64_t x_ddp = outside(ddp, nddp, comp, ncomp), x_wait = outside(wait, nwait, cd, ncd);
        x_ddp = x_ddp < exposed_comm ? x_ddp : exposed_comm;
        x_wait = x_wait < exposed_comm - x_ddp ? x_wait : exposed_comm - x_ddp;
        out->exposed[JV_COMM_DDP_BUFFERS] = x_ddp;
        out->exposed[JV_COMM_WAIT] = x_wait;
        out->exposed[JV_COMM_REST] = exposed_comm - x_ddp - x_wait;
        /* kept for jv_comm_measured, whose waits lie inside the communication kernels (of every rank's view:
         * jv_coll_collect's calls, linked or not): only that part of the busy time, so what a rank keeps grows
         * with its collectives, not with its trace */
        jv_iv *spans = malloc((ncalls + 1) * sizeof *spans), *kept = malloc((ncd + ncalls + 1) * sizeof *kept);
        if (!spans || !kept) {
            free(spans), free(kept);
            st = JV_ERR_NOMEM;
        } else {
            for (size_t k = 0; k < ncalls; k++)
                spans[k] = (jv_iv){calls[k].ts, calls[k].ts + calls[k].dur};
            size_t ns = jv_iv_merge(spans, ncalls), nk = intersect(cd, ncd, spans, ns, kept);
            jv_iv *fit = realloc(kept, (nk + 1) * sizeof *kept);
            out->busy = fit ? fit : kept;
            out->nbusy = nk;
            free(spans);
        }
    }
    free(calls), free(sp), free(sc), free(comp), free(ddp), free(wait), free(cd);
    jv_intern_free(&strings);
    if (st != JV_OK) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (communication evidence)");
    return JV_OK;
}

jv_status jv_comm_measured(jv_dcomm *c, const jv_job *job, int r, jv_err *err) {
    if (r < 0 || r >= job->nranks || !job->wait[r].ncoll) return JV_OK;
    jv_iv *w = malloc((job->ninst + 1) * sizeof *w);
    if (!w) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (measured waits)");
    size_t nw = 0;
    for (size_t i = 0; i < job->ninst; i++) {
        const jv_coll_inst *in = &job->inst[i];
        if (in->ts[r] == JV_NONE64) continue;
        int64_t last = in->ts[in->straggler], end = in->ts[r] + in->dur[r];
        w[nw++] = (jv_iv){in->ts[r], last < end ? last : end};
    }
    nw = jv_iv_merge(w, nw);
    int64_t x = outside(w, nw, c->busy, c->nbusy), room = c->exposed_comm - c->exposed[JV_COMM_DDP_BUFFERS];
    free(w);
    c->measured = 1;
    c->m_rank = job->ranks[r].rank;
    c->m_nranks = job->nranks;
    c->m_straggler = job->straggler >= 0 ? job->ranks[job->straggler].rank : -1;
    c->m_ncoll = job->wait[r].ncoll;
    c->m_last = job->wait[r].times_last;
    c->m_wait_us = (double)job->wait[r].wait_total / 1e3;
    c->m_exposed = x;
    c->exposed[JV_COMM_WAIT] = x < room ? x : room;
    c->exposed[JV_COMM_REST] = room - c->exposed[JV_COMM_WAIT];
    return JV_OK;
}
