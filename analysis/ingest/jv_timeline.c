/* jv_timeline: union/intersection of interval sets. */
#include "jv_timeline.h"
#include "jv_arena.h"
#include "jv_sort.h"

#include <stdlib.h>
#include <string.h>

static int cmp_iv(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const jv_iv *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

size_t jv_iv_merge(jv_iv *iv, size_t n) {
    if (n == 0) return 0;
    jv_sort_inplace(iv, n, sizeof *iv, cmp_iv, NULL); /* (start, end): a total order; no scratch copy */
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (iv[i].start <= iv[m].end) {
            if (iv[i].end > iv[m].end) iv[m].end = iv[i].end;
        } else {
            iv[++m] = iv[i];
        }
    }
    return m + 1;
}

int64_t jv_iv_len(const jv_iv *iv, size_t n) {
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += iv[i].end - iv[i].start;
    return s;
}

int64_t jv_iv_union_len(jv_iv *iv, size_t n) {
    return jv_iv_len(iv, jv_iv_merge(iv, n));
}

/* The merged union of two merged lists a and b, read one interval at a time (no list is built). */
typedef struct {
    const jv_iv *a, *b;
    size_t na, nb, i, j;
} union_iter;

/* the next interval of the union into *out; 0 at the end */
static int union_next(union_iter *u, jv_iv *out) {
    if (u->i == u->na && u->j == u->nb) return 0;
    int from_a = u->j == u->nb || (u->i < u->na && u->a[u->i].start <= u->b[u->j].start);
    *out = from_a ? u->a[u->i++] : u->b[u->j++];
    for (;;) { /* take in every interval of either list that starts at or before the end so far */
        if (u->i < u->na && u->a[u->i].start <= out->end) {
            if (u->a[u->i].end > out->end) out->end = u->a[u->i].end;
            u->i++;
        } else if (u->j < u->nb && u->b[u->j].start <= out->end) {
            if (u->b[u->j].end > out->end) out->end = u->b[u->j].end;
            u->j++;
        } else {
            return 1;
        }
    }
}

/* the length of the intersection of merged list x with the union of merged lists a and b (b may be empty: then
 * with a), read on the fly: no union list is built */
static int64_t overlap_union(const jv_iv *x, size_t nx, const jv_iv *a, size_t na, const jv_iv *b, size_t nb) {
    union_iter u = {a, b, na, nb, 0, 0};
    jv_iv y;
    int64_t s = 0;
    size_t i = 0;
    int more = union_next(&u, &y);
    while (i < nx && more) {
        int64_t lo = x[i].start > y.start ? x[i].start : y.start;
        int64_t hi = x[i].end < y.end ? x[i].end : y.end;
        if (hi > lo) s += hi - lo;
        if (x[i].end < y.end)
            i++;
        else
            more = union_next(&u, &y);
    }
    return s;
}

int64_t jv_iv_overlap(const jv_iv *a, size_t na, const jv_iv *b, size_t nb) {
    return overlap_union(a, na, b, nb, NULL, 0); /* the union of b and of nothing */
}

/* a \ b for merged lists into out (capacity na + nb): merged */
static size_t iv_subtract(const jv_iv *a, size_t na, const jv_iv *b, size_t nb, jv_iv *out) {
    size_t n = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        int64_t s = a[i].start, e = a[i].end;
        while (j < nb && b[j].end <= s)
            j++;
        for (size_t k = j; k < nb && b[k].start < e; k++) {
            if (b[k].start > s) out[n++] = (jv_iv){s, b[k].start};
            if (b[k].end > s) s = b[k].end;
            if (s >= e) break;
        }
        if (s < e) out[n++] = (jv_iv){s, e};
    }
    return n;
}

/* the class of a host event named name for jv_idle_cause (JV_IDLE_HOST: none of the named ones); runtime: the
 * event is a runtime or driver call */
static jv_idle_cause idle_class(int runtime, const char *name) {
    if (strstr(name, "DataLoader")) return JV_IDLE_DATA;
    if (runtime && (strstr(name, "Synchronize") || !strcmp(name, "cudaMemcpy") || !strcmp(name, "hipMemcpy")))
        return JV_IDLE_SYNC;
    if (!strcmp(name, "aten::item") || !strcmp(name, "aten::_local_scalar_dense")) return JV_IDLE_SYNC;
    if (!strncmp(name, "Optimizer.", 10)) return JV_IDLE_OPTIM;
    return JV_IDLE_HOST;
}

/* the length of merged list x inside the gaps between the merged busy intervals busy[0..nb): x within
 * [first start, last end] less x within busy (the gaps and busy partition that span) */
static int64_t idle_overlap(const jv_iv *busy, size_t nb, const jv_iv *x, size_t nx) {
    if (nb == 0) return 0;
    int64_t lo = busy[0].start, hi = busy[nb - 1].end, in = 0;
    for (size_t i = 0; i < nx; i++) {
        int64_t s = x[i].start > lo ? x[i].start : lo, e = x[i].end < hi ? x[i].end : hi;
        if (e > s) in += e - s;
    }
    return in - jv_iv_overlap(busy, nb, x, nx);
}

/* A direct-mapped cache of one small value per key (an interned name id, or one with a flag bit), so that a
 * pass over the events classifies each distinct name once, not each event. */
enum { NAME_CACHE = 1024 };
typedef struct {
    uint64_t key[NAME_CACHE];
    uint8_t val[NAME_CACHE];
} name_cache;

static void name_cache_init(name_cache *c) {
    memset(c->key, 0xFF, sizeof c->key); /* no key is all ones: name ids are 32 bits */
}

/* the value slot of key; *hit is 0 when the slot held another key (it is key's now: the caller fills it) */
static uint8_t *name_cache_slot(name_cache *c, uint64_t key, int *hit) {
    size_t i = (size_t)(key ^ key >> 11) & (NAME_CACHE - 1);
    *hit = c->key[i] == key;
    c->key[i] = key;
    return &c->val[i];
}

/* out->idle_cause from the merged busy list busy[0..nb) and the host events. Memory: the named classes' events
 * (few), and the root host events alone for "any host work" (a nested event lies inside its root) */
static jv_status idle_causes(const jv_trace *tr, const jv_tree *t, const jv_iv *busy, size_t nb, jv_gpu_timeline *out) {
    jv_iv *cls[JV_IDLE_NONE] = {0}, *acc = NULL, *tmp = NULL;
    size_t n[JV_IDLE_NONE] = {0}, cap[JV_IDLE_NONE] = {0};
    jv_status st = JV_OK;
    name_cache cc; /* each distinct (name, runtime or not) classified once */
    name_cache_init(&cc);
    for (size_t i = 0; i < tr->nev && st == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        jv_kind k = jv_ev_kind(tr, e);
        if (!jv_kind_is_host(k) || jv_ev_dur(tr, e) <= 0) continue;
        jv_iv iv = {jv_ev_ts(tr, e), jv_ev_end(tr, e)};
        int rt = k == JV_K_RUNTIME || k == JV_K_DRIVER;
        int hit;
        uint8_t *cls_of = name_cache_slot(&cc, (uint64_t)jv_ev_name(tr, e) << 1 | (uint64_t)rt, &hit);
        if (!hit) *cls_of = (uint8_t)idle_class(rt, jv_trace_str(tr, jv_ev_name(tr, e)));
        jv_idle_cause c = (jv_idle_cause)*cls_of;
        if (c != JV_IDLE_HOST && (st = JV_RESERVE(cls[c], cap[c], n[c] + 1)) == JV_OK) cls[c][n[c]++] = iv;
        if (st == JV_OK && (!t->parent || t->parent[i] == JV_NONE32) &&
            (st = JV_RESERVE(cls[JV_IDLE_HOST], cap[JV_IDLE_HOST], n[JV_IDLE_HOST] + 1)) == JV_OK)
            cls[JV_IDLE_HOST][n[JV_IDLE_HOST]++] = iv;
    }
    size_t named = n[JV_IDLE_DATA] + n[JV_IDLE_SYNC] + n[JV_IDLE_OPTIM];
    if (st == JV_OK && (!(acc = malloc((named + 1) * sizeof *acc)) || !(tmp = malloc((2 * named + 1) * sizeof *tmp))))
        st = JV_ERR_NOMEM;
    if (st == JV_OK) {
        /* each named class less the ones before it (acc: their union so far), then its overlap with the gaps */
        size_t na = 0;
        int64_t sum = 0;
        for (int c = 0; c < JV_IDLE_HOST; c++) {
            size_t m = jv_iv_merge(cls[c], n[c]);
            size_t nd = iv_subtract(cls[c], m, acc, na, tmp);
            out->idle_cause[c] = idle_overlap(busy, nb, tmp, nd);
            sum += out->idle_cause[c];
            if (m) memcpy(acc + na, cls[c], m * sizeof *acc);
            na = jv_iv_merge(acc, na + m);
        }
        /* any host work covers the named classes: the rest of what it covers is other host work */
        size_t m = jv_iv_merge(cls[JV_IDLE_HOST], n[JV_IDLE_HOST]);
        int64_t host = idle_overlap(busy, nb, cls[JV_IDLE_HOST], m);
        out->idle_cause[JV_IDLE_HOST] = host > sum ? host - sum : 0;
        out->idle_cause[JV_IDLE_NONE] = out->idle - sum - out->idle_cause[JV_IDLE_HOST];
    }
    free(acc);
    free(tmp);
    for (int c = 0; c < JV_IDLE_NONE; c++)
        free(cls[c]);
    return st;
}

/* the class of GPU event e (kind k) of tr for the timeline: 0 computation, 1 communication, 2 memcpy; cc caches
 * per kernel name 2 for a copy kernel's name, 1 for a collective's, else 0 */
static int gpu_class(const jv_trace *tr, const jv_event *e, jv_kind k, name_cache *cc) {
    if (k == JV_K_MEMCPY) return 2;
    int hit;
    uint8_t *v = name_cache_slot(cc, jv_ev_name(tr, e), &hit);
    if (!hit) {
        const char *name = jv_trace_str(tr, jv_ev_name(tr, e));
        *v = !strncmp(name, "__amd_rocclr_copyBuffer", 23) ? 2 : (uint8_t)jv_is_comm_kernel(name);
    }
    return *v == 2 ? 2 : *v == 1 && k == JV_K_KERNEL;
}

jv_status jv_timeline_compute(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *o, int dev,
                              jv_gpu_timeline *out) {
    memset(out, 0, sizeof *out);
    out->device = dev;
    /* the selected GPU events counted by class, then one buffer of them all: computation, then communication,
       then memcpy; each class is merged in place, and their union (busy) too once the exposed times are taken */
    size_t cnt[3] = {0, 0, 0}, at[3];
    jv_iv *buf = NULL;
    name_cache cc; /* each distinct kernel name classified once */
    name_cache_init(&cc);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < tr->nev; i++) {
            const jv_event *e = &tr->ev[i];
            jv_kind k = jv_ev_kind(tr, e);
            if (!jv_kind_is_gpu(k)) continue;
            if (dev >= 0 && jv_ev_gpu(tr, e)->device != dev) continue;
            if (!o->include_unlinked && t->parent[i] == JV_NONE32) continue;
            int c = gpu_class(tr, e, k, &cc);
            if (pass == 0)
                cnt[c]++;
            else
                buf[at[c]++] = (jv_iv){jv_ev_ts(tr, e), jv_ev_end(tr, e)};
        }
        out->events = cnt[0] + cnt[1] + cnt[2];
        if (out->events == 0) return JV_OK;
        if (pass == 0 && !(buf = malloc(out->events * sizeof *buf))) return JV_ERR_NOMEM;
        at[0] = 0, at[1] = cnt[0], at[2] = cnt[0] + cnt[1];
    }
    size_t nc = jv_iv_merge(buf, cnt[0]);
    jv_iv *comp = buf, *comm = buf + nc, *mem;
    memmove(comm, buf + cnt[0], cnt[1] * sizeof *comm); /* each merged list right after the one before */
    size_t nk = jv_iv_merge(comm, cnt[1]);
    mem = comm + nk;
    memmove(mem, buf + cnt[0] + cnt[1], cnt[2] * sizeof *mem);
    size_t nm = jv_iv_merge(mem, cnt[2]);
    out->computation = jv_iv_len(comp, nc);
    out->total_comm = jv_iv_len(comm, nk);
    out->total_memcpy = jv_iv_len(mem, nm);
    out->exposed_comm = out->total_comm - jv_iv_overlap(comm, nk, comp, nc);
    out->exposed_memcpy = out->total_memcpy - overlap_union(mem, nm, comp, nc, comm, nk);
    /* busy: the three lists, side by side in buf, merged into one */
    size_t na = nk || nm ? jv_iv_merge(buf, nc + nk + nm) : nc;
    const jv_iv *busy = buf;
    out->busy = jv_iv_len(busy, na);
    out->first_start = busy[0].start;
    out->total = busy[na - 1].end - busy[0].start;
    out->idle = out->total - out->busy;
    jv_status st = JV_OK;
    if (o->idle_causes && dev < 0) st = idle_causes(tr, t, busy, na, out);
    for (size_t i = 1; i < na; i++) { /* the gaps between the merged busy intervals */
        int64_t gap = busy[i].start - busy[i - 1].end;
        out->idle_gaps++;
        if (gap > out->idle_gap_max) out->idle_gap_max = gap;
        if (o->micro_idle_ns <= 0) continue;
        if (gap < o->micro_idle_ns)
            out->micro_idle += gap;
        else
            out->macro_idle += gap;
    }
    free(buf);
    return st;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

jv_status jv_timeline_devices(const jv_trace *tr, int **devs, size_t *n) {
    *devs = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t g = 0; g < tr->ngpuargs; g++) { /* in order of first appearance, as the devices' */
        int d = tr->gpu[g].device;
        size_t k;
        for (k = 0; k < *n && (*devs)[k] != d; k++) {
        }
        if (k < *n) continue;
        JV_CHECK(JV_RESERVE(*devs, cap, *n + 1));
        (*devs)[(*n)++] = d;
    }
    if (*n) qsort(*devs, *n, sizeof **devs, cmp_int);
    return JV_OK;
}
