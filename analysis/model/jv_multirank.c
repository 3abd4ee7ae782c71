/* jv_multirank: a rank's collectives, overlap, idle breakdown and picture bins; the cross-rank matching. */
#include "jv_multirank.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"
#include "jv_dtype.h"
#include "jv_opcall.h"
#include "jv_sort.h"

/* ---------- collective kinds ---------- */

/* name lower-cased without '_', ':' and '-' into buf */
static void squash(const char *s, char *buf, size_t cap) {
    size_t n = 0;
    for (; *s && n + 1 < cap; s++) {
        char ch = *s;
        if (ch == '_' || ch == ':' || ch == '-' || ch == ' ') continue;
        buf[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    buf[n] = '\0';
}

jv_coll_kind jv_coll_kind_of(const char *name) {
    char b[256];
    squash(name ? name : "", b, sizeof b);
    static const struct {
        const char *key;
        jv_coll_kind k;
    } T[] = {{"allreduce", JV_COLL_ALLREDUCE}, {"reducescatter", JV_COLL_REDUCESCATTER},
             {"allgather", JV_COLL_ALLGATHER}, {"alltoall", JV_COLL_ALLTOALL},
             {"broadcast", JV_COLL_BROADCAST}, {"sendrecv", JV_COLL_SENDRECV},
             {"barrier", JV_COLL_BARRIER}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strstr(b, T[i].key)) return T[i].k;
    /* what is left: a plain reduce, send or recv (the name alone, or an NCCL kernel's) */
    const char *p = b;
    if (!strncmp(p, "nccl", 4) || !strncmp(p, "rccl", 4)) p += 4;
    if (!strncmp(p, "devkernel", 9)) p += 9;
    if (!strncmp(p, "kernel", 6)) p += 6;
    if (!strncmp(p, "reduce", 6)) return JV_COLL_REDUCE;
    if (!strncmp(p, "send", 4) || !strncmp(p, "recv", 4)) return JV_COLL_SENDRECV;
    return JV_COLL_UNKNOWN;
}

double jv_coll_busbw_factor(jv_coll_kind k, int n) {
    if (n < 1) return NAN;
    switch (k) {
    case JV_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
    case JV_COLL_ALLGATHER:
    case JV_COLL_REDUCESCATTER:
    case JV_COLL_ALLTOALL: return (double)(n - 1) / n;
    case JV_COLL_BROADCAST:
    case JV_COLL_REDUCE:
    case JV_COLL_SENDRECV: return 1.0;
    default: return NAN;
    }
}

const char *jv_coll_kind_name(jv_coll_kind k) {
    static const char *const N[JV_COLL_COUNT] = {"",          "allreduce", "allgather", "reducescatter", "alltoall",
                                                 "broadcast", "reduce",    "sendrecv",  "barrier"};
    return (unsigned)k < JV_COLL_COUNT ? N[k] : "";
}

double jv_coll_bytes(const jv_coll_call *c) {
    int64_t nel = c->kind == JV_COLL_ALLGATHER ? c->out_nelems : c->in_nelems;
    return c->elem_bytes && nel >= 0 ? (double)nel * c->elem_bytes : NAN;
}

/* bytes per element of a collective's dtype: c10's ScalarType names as record_param_comms writes them
 * ("Float", "BFloat16"), else an Input type ("float", "c10::Half") */
static int elem_bytes(const char *s) {
    static const struct {
        const char *n;
        int b;
    } T[] = {{"Float", 4}, {"Int", 4},    {"Long", 8}, {"BFloat16", 2}, {"Bool", 1},        {"Byte", 1},
             {"Char", 1},  {"Double", 8}, {"Half", 2}, {"Short", 2},    {"ComplexFloat", 8}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (!strcmp(s, T[i].n)) return T[i].b;
    if (!strncmp(s, "Float8", 6)) return 1;
    return (int)jv_dtype_size(jv_dtype_parse(s));
}

/* ---------- one rank ---------- */

static const jv_commargs *comm_of(const jv_trace *tr, uint32_t ev) {
    size_t lo = 0, hi = tr->ncomm;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tr->comm[mid].ev < ev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < tr->ncomm && tr->comm[lo].ev == ev ? &tr->comm[lo] : NULL;
}

static int cmp_annot(const void *a, const void *b, void *ctx) {
    const jv_trace *tr = ctx;
    const jv_event *x = &tr->ev[*(const uint32_t *)a], *y = &tr->ev[*(const uint32_t *)b];
    if (jv_ev_thread(tr, x) != jv_ev_thread(tr, y)) return jv_ev_thread(tr, x) < jv_ev_thread(tr, y) ? -1 : 1;
    return (jv_ev_ts(tr, x) > jv_ev_ts(tr, y)) - (jv_ev_ts(tr, x) < jv_ev_ts(tr, y));
}

/* the "nccl:<collective>" user annotation on launch's thread that encloses it, or JV_NONE32 (an[0..na): such
 * annotations by thread and start) */
static uint32_t annot_of(const jv_trace *tr, const uint32_t *an, size_t na, const jv_event *launch) {
    size_t lo = 0, hi = na;
    while (lo < hi) { /* first annotation after (thread, ts) */
        size_t mid = (lo + hi) / 2;
        const jv_event *m = &tr->ev[an[mid]];
        if (jv_ev_thread(tr, m) < jv_ev_thread(tr, launch) ||
            (jv_ev_thread(tr, m) == jv_ev_thread(tr, launch) && jv_ev_ts(tr, m) <= jv_ev_ts(tr, launch)))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo, steps = 0; k-- > 0 && steps < 8; steps++) {
        const jv_event *m = &tr->ev[an[k]];
        if (jv_ev_thread(tr, m) != jv_ev_thread(tr, launch)) break;
        if (jv_ev_end(tr, m) >= jv_ev_ts(tr, launch)) return an[k];
    }
    return JV_NONE32;
}

/* where a rank's calls keep their strings, and its distributedInfo.world_size (-1 when absent) */
typedef struct {
    jv_intern *strings;
    int world_size;
} call_sink;

static jv_status keep(call_sink *rv, const char *s, uint32_t *id) {
    return jv_intern_add(rv->strings, s, strlen(s), id);
}

/* the metadata of communication kernel i into c */
static jv_status call_meta(const jv_trace *tr, const jv_tree *t, const uint32_t *an, size_t na, uint32_t i,
                           call_sink *rv, jv_coll_call *c) {
    const jv_event *e = &tr->ev[i];
    const jv_commargs *ca = comm_of(tr, i);
    uint32_t op = t->parent ? jv_tree_op_of_gpu(tr, t, i) : JV_NONE32;
    for (int d = 0; !ca && op != JV_NONE32 && d < JV_TREE_MAX_DEPTH; d++, op = t->parent[op])
        ca = comm_of(tr, op);
    jv_coll_kind kind = JV_COLL_UNKNOWN;
    if (ca) {
        c->meta_from = JV_META_ARGS;
        if (ca->coll) {
            JV_CHECK(keep(rv, jv_trace_str(tr, ca->coll), &c->name));
            kind = jv_coll_kind_of(jv_trace_str(tr, ca->coll));
        }
        if (ca->pg) JV_CHECK(keep(rv, jv_trace_str(tr, ca->pg), &c->pg));
        if (ca->pg_ranks) JV_CHECK(keep(rv, jv_trace_str(tr, ca->pg_ranks), &c->pg_ranks));
        if (ca->dtype) {
            JV_CHECK(keep(rv, jv_trace_str(tr, ca->dtype), &c->dtype));
            c->elem_bytes = (uint8_t)elem_bytes(jv_trace_str(tr, ca->dtype));
        }
        c->group_size = ca->group_size;
        c->in_nelems = ca->in_nelems != JV_NONE64 ? ca->in_nelems : -1;
        c->out_nelems = ca->out_nelems != JV_NONE64 ? ca->out_nelems : -1;
    }
    /* older traces: the nccl:<collective> annotation around the launch names it and holds its tensor */
    uint32_t launch = t->parent[i];
    uint32_t a = JV_NONE32;
    if (launch != JV_NONE32 && na) {
        jv_kind lk = jv_ev_kind(tr, &tr->ev[launch]);
        if (lk == JV_K_RUNTIME || lk == JV_K_DRIVER) a = annot_of(tr, an, na, &tr->ev[launch]);
    }
    if (a != JV_NONE32) {
        const char *an_name = jv_trace_str(tr, jv_ev_name(tr, &tr->ev[a]));
        jv_coll_kind ak = jv_coll_kind_of(an_name);
        if (kind == JV_COLL_UNKNOWN) kind = ak;
        if (!c->name && ak != JV_COLL_UNKNOWN) JV_CHECK(keep(rv, jv_coll_kind_name(ak), &c->name));
        if (c->in_nelems < 0 || !c->dtype) {
            const jv_sig *sg = &tr->sigs[jv_ev_sig(tr, &tr->ev[a])];
            jv_opcall oc;
            jv_err ignore;
            if (sg->dims &&
                jv_opcall_from_trace(&oc, an_name, jv_trace_str(tr, sg->dims),
                                     sg->types ? jv_trace_str(tr, sg->types) : NULL, NULL, NULL, &ignore) == JV_OK) {
                const jv_tensor *x = jv_opcall_tensor(&oc, 0);
                if (x && c->in_nelems < 0) {
                    c->in_nelems = jv_tensor_numel(x);
                    if (!c->meta_from) c->meta_from = JV_META_ANNOTATION;
                }
                if (x && !c->dtype && oc.args[0].type[0]) {
                    jv_status s = keep(rv, oc.args[0].type, &c->dtype);
                    c->elem_bytes = (uint8_t)elem_bytes(oc.args[0].type);
                    if (s != JV_OK) {
                        jv_opcall_free(&oc);
                        return s;
                    }
                }
                jv_opcall_free(&oc);
            }
        }
        if (!c->meta_from) c->meta_from = JV_META_ANNOTATION;
    }
    if (kind == JV_COLL_UNKNOWN) {
        kind = jv_coll_kind_of(jv_trace_str(tr, jv_ev_name(tr, e)));
        if (kind != JV_COLL_UNKNOWN && !c->meta_from) c->meta_from = JV_META_KERNEL;
    }
    if (!c->name && kind != JV_COLL_UNKNOWN) JV_CHECK(keep(rv, jv_coll_kind_name(kind), &c->name));
    c->kind = (uint8_t)kind;
    /* the output of an annotation-sized gather or scatter follows from the group */
    if (c->out_nelems < 0 && c->in_nelems >= 0 && c->meta_from == JV_META_ANNOTATION) {
        int n = c->group_size > 0 ? c->group_size : rv->world_size;
        if (kind == JV_COLL_ALLGATHER && n > 0)
            c->out_nelems = c->in_nelems * n;
        else if (kind == JV_COLL_REDUCESCATTER && n > 0)
            c->out_nelems = c->in_nelems / n;
        else
            c->out_nelems = c->in_nelems;
    }
    if (c->group_size < 0 && !c->pg && rv->world_size > 0) c->group_size = rv->world_size;
    if (c->pg) {
        c->key = c->pg;
    } else {
        char k[32];
        snprintf(k, sizeof k, "stream %d", (int)c->stream);
        JV_CHECK(keep(rv, k, &c->key));
    }
    return JV_OK;
}

static int is_memcpy(const jv_trace *tr, const jv_event *e) {
    return jv_ev_kind(tr, e) == JV_K_MEMCPY ||
           !strncmp(jv_trace_str(tr, jv_ev_name(tr, e)), "__amd_rocclr_copyBuffer", 23);
}

/* adds merged list iv[0..n) into bins (shares of [first, last] slices) */
static void add_bins(const jv_iv *iv, size_t n, int64_t first, int64_t last, float *bins) {
    double w = (double)(last - first) / JV_RANK_BINS;
    if (w <= 0) return;
    for (size_t i = 0; i < n; i++) {
        double s = (iv[i].start - first) / w, e = (iv[i].end - first) / w;
        int b0 = (int)s, b1 = (int)e;
        if (b1 >= JV_RANK_BINS) b1 = JV_RANK_BINS - 1;
        for (int b = b0; b <= b1 && b < JV_RANK_BINS; b++) {
            double lo = s > b ? s : b, hi = e < b + 1 ? e : b + 1;
            if (hi > lo) bins[b] += (float)(hi - lo);
        }
    }
}

typedef struct {
    int32_t stream;
    int64_t ts, end, launch;
} gpu_ev;

static int cmp_gpu_ev(const void *a, const void *b) {
    const gpu_ev *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* HTA's idle breakdown per stream, and the picture bins */
static jv_status streams_and_bins(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *o, jv_rank_view *rv) {
    size_t n = 0;
    for (size_t i = 0; i < tr->nev; i++)
        n += jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i]));
    gpu_ev *g = malloc((n ? n : 1) * sizeof *g);
    jv_iv *comp = malloc((n ? n : 1) * sizeof *comp), *comm = malloc((n ? n : 1) * sizeof *comm);
    jv_status st = JV_OK;
    if (!g || !comp || !comm) st = JV_ERR_NOMEM;
    size_t ng = 0, nc = 0, nk = 0, cap_streams = 0;
    for (size_t i = 0; i < tr->nev && st == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e))) continue;
        uint32_t p = t->parent[i];
        int64_t launch = JV_NONE64;
        if (p != JV_NONE32 && (jv_ev_kind(tr, &tr->ev[p]) == JV_K_RUNTIME || jv_ev_kind(tr, &tr->ev[p]) == JV_K_DRIVER))
            launch = jv_ev_ts(tr, &tr->ev[p]);
        g[ng++] = (gpu_ev){jv_ev_gpu(tr, e)->stream, jv_ev_ts(tr, e), jv_ev_end(tr, e), launch};
        if (!o->include_unlinked && p == JV_NONE32) continue;
        jv_iv iv = {jv_ev_ts(tr, e), jv_ev_end(tr, e)};
        if (is_memcpy(tr, e)) continue;
        if (jv_ev_kind(tr, e) == JV_K_KERNEL && jv_is_comm_kernel(jv_trace_str(tr, jv_ev_name(tr, e))))
            comm[nk++] = iv;
        else
            comp[nc++] = iv;
    }
    if (st == JV_OK) {
        qsort(g, ng, sizeof *g, cmp_gpu_ev);
        for (size_t i = 0; i < ng; i++) {
            if (!i || g[i].stream != g[i - 1].stream) {
                JV_CHECK_GOTO(JV_RESERVE(rv->streams, cap_streams, rv->nstreams + 1), st, done);
                rv->streams[rv->nstreams++] = (jv_stream_idle){g[i].stream, 0, 0, 0};
                continue;
            }
            jv_stream_idle *si = &rv->streams[rv->nstreams - 1];
            int64_t prev_end = g[i - 1].end, gap = g[i].ts - prev_end;
            if (gap <= 0) continue; /* overlapping or back to back: no idle (HTA would count a negative gap) */
            if (g[i].launch != JV_NONE64 && g[i].launch > prev_end)
                si->host_wait += gap;
            else if (gap < JV_KERNEL_WAIT_NS)
                si->kernel_wait += gap;
            else
                si->other += gap;
        }
        for (size_t s = 0; s < rv->nstreams; s++) {
            rv->idle_host += rv->streams[s].host_wait;
            rv->idle_kernel += rv->streams[s].kernel_wait;
            rv->idle_other += rv->streams[s].other;
        }
        nc = jv_iv_merge(comp, nc);
        nk = jv_iv_merge(comm, nk);
        rv->first = rv->tl.first_start;
        rv->last = rv->tl.first_start + rv->tl.total;
        add_bins(comp, nc, rv->first, rv->last, rv->bin_comp);
        add_bins(comm, nk, rv->first, rv->last, rv->bin_comm);
        for (int b = 0; b < JV_RANK_BINS; b++) {
            rv->bin_comp[b] = rv->bin_comp[b] > 1 ? 1 : rv->bin_comp[b];
            rv->bin_comm[b] = rv->bin_comm[b] > 1 ? 1 : rv->bin_comm[b];
        }
    }
done:
    free(g);
    free(comp);
    free(comm);
    return st;
}

void jv_dist_info(const jv_trace *tr, int *rank, int *world) {
    *rank = *world = -1;
    if (!tr->distributed_info) return;
    cJSON *d = cJSON_Parse(tr->distributed_info);
    if (!d) return;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(d, "rank");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(d, "world_size");
    if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9) *rank = (int)r->valuedouble;
    if (cJSON_IsNumber(w) && w->valuedouble >= 1 && w->valuedouble < 1e9) *world = (int)w->valuedouble;
    cJSON_Delete(d);
}

static int cmp_call(const void *a, const void *b) {
    const jv_coll_call *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

jv_status jv_coll_collect(const jv_trace *tr, const jv_tree *t, int world_size, jv_intern *strings,
                          jv_coll_call **calls, size_t *ncalls) {
    *calls = NULL;
    *ncalls = 0;
    call_sink sink = {strings, world_size};
    jv_status st = JV_OK;
    /* the nccl:<collective> annotations, by thread and start */
    uint32_t *an = NULL;
    size_t na = 0, cap_an = 0, cap_calls = 0;
    for (size_t i = 0; i < tr->nev && st == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (jv_ev_kind(tr, e) == JV_K_USER_ANNOT && !strncmp(jv_trace_str(tr, jv_ev_name(tr, e)), "nccl:", 5) &&
            (st = JV_RESERVE(an, cap_an, na + 1)) == JV_OK)
            an[na++] = (uint32_t)i;
    }
    if (st == JV_OK && na > 1) st = jv_sort_stable(an, na, sizeof *an, cmp_annot, (void *)tr);
    enum { CACHE = 1024 };
    uint32_t cache_id[CACHE];
    uint8_t cache_comm[CACHE];
    memset(cache_id, 0xFF, sizeof cache_id);
    for (size_t i = 0; i < tr->nev && st == JV_OK; i++) {
        const jv_event *e = &tr->ev[i];
        if (jv_ev_kind(tr, e) != JV_K_KERNEL) continue;
        uint32_t slot = jv_ev_name(tr, e) & (CACHE - 1);
        if (cache_id[slot] != jv_ev_name(tr, e)) {
            cache_id[slot] = jv_ev_name(tr, e);
            cache_comm[slot] = (uint8_t)jv_is_comm_kernel(jv_trace_str(tr, jv_ev_name(tr, e)));
        }
        if (!cache_comm[slot]) continue;
        if ((st = JV_RESERVE(*calls, cap_calls, *ncalls + 1)) != JV_OK) break;
        jv_coll_call *c = &(*calls)[(*ncalls)++];
        memset(c, 0, sizeof *c);
        c->ev = (uint32_t)i;
        c->ts = jv_ev_ts(tr, e);
        c->dur = jv_ev_dur(tr, e);
        c->in_nelems = c->out_nelems = -1;
        c->group_size = -1;
        c->stream = jv_ev_gpu(tr, e)->stream;
        st = call_meta(tr, t, an, na, (uint32_t)i, &sink, c);
    }
    free(an);
    if (st == JV_OK && *ncalls > 1) qsort(*calls, *ncalls, sizeof **calls, cmp_call);
    if (st != JV_OK) {
        free(*calls);
        *calls = NULL;
        *ncalls = 0;
    }
    return st;
}

jv_status jv_rank_collect(const jv_trace *tr, const jv_tree *t, const jv_timelines *tls, const char *path,
                          jv_rank_view *rv, jv_err *err) {
    memset(rv, 0, sizeof *rv);
    rv->path = path;
    jv_dist_info(tr, &rv->rank, &rv->world_size);
    jv_status st = jv_intern_init(&rv->strings);
    rv->tl = tls->all;
    if (st == JV_OK) rv->comm_overlapped = rv->tl.total_comm - rv->tl.exposed_comm;
    if (st == JV_OK) st = streams_and_bins(tr, t, &tls->opts, rv);
    if (st == JV_OK) st = jv_coll_collect(tr, t, rv->world_size, &rv->strings, &rv->calls, &rv->ncalls);
    if (st != JV_OK) {
        jv_rank_view_free(rv);
        JV_FAIL(err, st, "%s: out of memory collecting the rank's collectives", path);
    }
    return JV_OK;
}

void jv_rank_view_free(jv_rank_view *rv) {
    if (rv->strings.str) jv_intern_free(&rv->strings);
    free(rv->calls);
    free(rv->streams);
    const char *p = rv->path;
    memset(rv, 0, sizeof *rv);
    rv->path = p;
}
