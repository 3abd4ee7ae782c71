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

int64_t jv_iv_overlap(const jv_iv *a, size_t na, const jv_iv *b, size_t nb) {
    int64_t s = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t lo = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (hi > lo) s += hi - lo;
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return s;
}

/* merged union of two merged lists into dst (capacity na + nb) */
static size_t union2(const jv_iv *a, size_t na, const jv_iv *b, size_t nb, jv_iv *dst) {
    memcpy(dst, a, na * sizeof *a);
    memcpy(dst + na, b, nb * sizeof *b);
    return jv_iv_merge(dst, na + nb);
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
        jv_kind k = (jv_kind)e->kind;
        if (!jv_kind_is_host(k) || jv_ev_dur(tr, e) <= 0) continue;
        jv_iv iv = {jv_ev_ts(tr, e), jv_ev_end(tr, e)};
        int rt = k == JV_K_RUNTIME || k == JV_K_DRIVER;
        int hit;
        uint8_t *cls_of = name_cache_slot(&cc, (uint64_t)e->name << 1 | (uint64_t)rt, &hit);
        if (!hit) *cls_of = (uint8_t)idle_class(rt, jv_trace_str(tr, e->name));
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

jv_status jv_timeline_compute(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *o, int dev,
                              jv_gpu_timeline *out) {
    memset(out, 0, sizeof *out);
    out->device = dev;
    size_t n = 0;
    for (size_t i = 0; i < tr->nev; i++)
        n += jv_kind_is_gpu((jv_kind)tr->ev[i].kind);
    /* one buffer of 2n: computation grows from the front, communication from the
       back of the first half, memcpy from the back of the second; the free second
       half serves the unions */
    jv_iv *buf = malloc((2 * n + 2) * sizeof *buf);
    if (!buf) return JV_ERR_NOMEM;
    jv_iv *comp = buf, *tmp = buf + n + 1;
    jv_iv *comm_end = buf + n + 1, *mem_end = buf + 2 * n + 2;
    size_t nc = 0, nk = 0, nm = 0;
    name_cache cc; /* each distinct kernel name classified once */
    name_cache_init(&cc);
    for (size_t i = 0; i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        jv_kind k = (jv_kind)e->kind;
        if (!jv_kind_is_gpu(k)) continue;
        if (dev >= 0 && tr->gpu[jv_ev_aux(tr, e)].device != dev) continue;
        if (!o->include_unlinked && t->parent[i] == JV_NONE32) continue;
        jv_iv iv = {jv_ev_ts(tr, e), jv_ev_end(tr, e)};
        const char *name = jv_trace_str(tr, e->name);
        int hit;
        uint8_t *comm = name_cache_slot(&cc, e->name, &hit);
        if (!hit) *comm = (uint8_t)jv_is_comm_kernel(name);
        if (k == JV_K_MEMCPY || !strncmp(name, "__amd_rocclr_copyBuffer", 23))
            *(mem_end - ++nm) = iv;
        else if (k == JV_K_KERNEL && *comm)
            *(comm_end - ++nk) = iv;
        else
            comp[nc++] = iv;
        out->events++;
    }
    if (out->events == 0) {
        free(buf);
        return JV_OK;
    }
    /* move communication and memcpy intervals to their own spots: comm right after
       comp in the first half, mem at the start of the second half */
    jv_iv *comm = comp + nc, *mem = tmp;
    memmove(comm, comm_end - nk, nk * sizeof *comm);
    memmove(mem, mem_end - nm, nm * sizeof *mem);
    nc = jv_iv_merge(comp, nc);
    memmove(comp + nc, comm, nk * sizeof *comm); /* keep comm adjacent to the merged comp */
    comm = comp + nc;
    nk = jv_iv_merge(comm, nk);
    nm = jv_iv_merge(mem, nm);
    /* mem lives at tmp; move it to the end of the second half so tmp is free for unions */
    jv_iv *mem2 = mem_end - nm;
    memmove(mem2, mem, nm * sizeof *mem);
    mem = mem2;
    out->computation = jv_iv_len(comp, nc);
    out->total_comm = jv_iv_len(comm, nk);
    out->total_memcpy = jv_iv_len(mem, nm);
    out->exposed_comm = out->total_comm - jv_iv_overlap(comm, nk, comp, nc);
    size_t nck = union2(comp, nc, comm, nk, tmp);
    out->exposed_memcpy = out->total_memcpy - jv_iv_overlap(mem, nm, tmp, nck);
    /* all = (comp U comm) U mem; reuse comp+comm storage which is free now */
    size_t na = union2(tmp, nck, mem, nm, comp);
    out->busy = jv_iv_len(comp, na);
    out->first_start = comp[0].start;
    out->total = comp[na - 1].end - comp[0].start;
    out->idle = out->total - out->busy;
    jv_status st = JV_OK;
    if (o->idle_causes && dev < 0) st = idle_causes(tr, t, comp, na, out);
    for (size_t i = 1; i < na; i++) { /* the gaps between the merged busy intervals */
        int64_t gap = comp[i].start - comp[i - 1].end;
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
    for (size_t g = 0; g < tr->ngpu; g++) {
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
