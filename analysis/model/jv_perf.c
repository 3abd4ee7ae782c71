/* jv_perf: op instances and their models (the sheets: report/jv_perf_sheet.c). */
#include "jv_perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"
#include "jv_category.h"
#include "jv_enclose.h"
#include "jv_opcall.h"
#include "jv_output.h"
#include "jv_pyrepr.h"
#include "jv_sort.h"
#include "jv_stats.h"

#define US(ns) ((double)(ns) / 1e3)

/* ---------- building instances ---------- */

typedef struct {
    const jv_trace *tr;
    jv_map fam;        /* name id -> 1 + family*4 + jv_match, 0 never stored */
    jv_map comm;       /* name id -> 1 + is_comm */
    jv_enclose annots; /* the user_annotation events some family reads (jv_family.annotation) */
    jv_upset up;     /* the GPU events' ops (jv_tree_op_of_gpu) and the events above them: top's and inst_of's index */
    uint32_t *top;   /* per member of up: its outermost strongly matched cpu_op ancestor-or-self, JV_NONE32 when
                        none, TOP_UNKNOWN until computed (each computed once: O(n) for all kernels together) */
    uint32_t *stack; /* top_strong's climb */
    size_t cap;
} build_ctx;

#define TOP_UNKNOWN (JV_NONE32 - 1)

static jv_status family_of(build_ctx *b, uint32_t name, int *fam, jv_match *how) {
    uint32_t v;
    if (!jv_map_get(&b->fam, name, &v)) {
        jv_match m;
        int f = jv_family_find(jv_trace_str(b->tr, name), &m);
        v = f < 0 ? 1u : 1u + (uint32_t)f * 4u + (uint32_t)m;
        JV_CHECK(jv_map_put(&b->fam, name, v));
    }
    v -= 1;
    if (v == 0) {
        *fam = -1;
        *how = JV_MATCH_NONE;
    } else {
        *fam = (int)(v / 4);
        *how = (jv_match)(v % 4);
    }
    return JV_OK;
}

static jv_status is_comm(build_ctx *b, uint32_t name, int *out) {
    uint32_t v;
    if (!jv_map_get(&b->comm, name, &v)) {
        v = 1u + (uint32_t)(jv_is_comm_kernel(jv_trace_str(b->tr, name)) != 0);
        JV_CHECK(jv_map_put(&b->comm, name, v));
    }
    *out = v == 2;
    return JV_OK;
}

static int cmp_kernel_ts(const void *a, const void *b, void *ctx) {
    const jv_trace *tr = ctx;
    int64_t x = jv_ev_ts(tr, &tr->ev[*(const uint32_t *)a]), y = jv_ev_ts(tr, &tr->ev[*(const uint32_t *)b]);
    return (x > y) - (x < y);
}

static int64_t busy_of(const jv_trace *tr, const uint32_t *k, uint32_t n) {
    int64_t total = 0, cs = 0, ce = 0;
    int open = 0;
    for (uint32_t i = 0; i < n; i++) {
        const jv_event *e = &tr->ev[k[i]];
        int64_t s = jv_ev_ts(tr, e), en = jv_ev_end(tr, e);
        if (open && s <= ce) {
            if (en > ce) ce = en;
        } else {
            if (open) total += ce - cs;
            cs = s, ce = en, open = 1;
        }
    }
    if (open) total += ce - cs;
    return total;
}

/* (contract in jv_perf.h) */
jv_status jv_perf_call_of(const jv_trace *tr, uint32_t name, uint32_t sig, jv_opcall *call, jv_err *err) {
    const jv_sig *sg = &tr->sigs[sig];
    return jv_opcall_from_trace(call, jv_trace_str(tr, name), sg->dims ? jv_trace_str(tr, sg->dims) : NULL,
                                sg->types ? jv_trace_str(tr, sg->types) : NULL,
                                sg->strides ? jv_trace_str(tr, sg->strides) : NULL,
                                sg->concrete ? jv_trace_str(tr, sg->concrete) : NULL, err);
}

/* (contract in jv_perf.h) */
jv_status jv_perf_model_call(const jv_trace *tr, const jv_perf_model *m, jv_opcall *call, jv_err *err) {
    jv_status s = jv_perf_call_of(tr, m->name, m->sig, call, err);
    if (s == JV_OK && m->annot) call->annotation = jv_trace_str(tr, m->annot);
    return s;
}

/* a user_annotation that some family reads (jv_family.annotation) */
static int read_annotation(const jv_trace *tr, size_t i, void *ctx) {
    (void)ctx;
    if (jv_ev_kind(tr, &tr->ev[i]) != JV_K_USER_ANNOT) return 0;
    const char *name = jv_trace_str(tr, jv_ev_name(tr, &tr->ev[i]));
    for (int f = 0; f < jv_family_count(); f++)
        if (jv_family_get(f)->annotation && jv_family_get(f)->annotation(name)) return 1;
    return 0;
}

/* b->annots: the user_annotation events that some family reads. User annotations are not in the call tree
 * (jv_tree_build without python events), so calls find theirs by time. */
static jv_status collect_annotations(build_ctx *b) {
    int any = 0;
    for (int f = 0; f < jv_family_count(); f++)
        any |= jv_family_get(f)->annotation != NULL;
    return any ? jv_enclose_build(b->tr, read_annotation, NULL, &b->annots) : JV_OK;
}

/* the innermost annotation on ev's thread whose interval holds ev and that family fam reads
 * (jv_family.annotation), as its interned name, among the 4 latest to start at or before ev (steps do not nest,
 * so a few suffice); 0 when none */
static uint32_t annotation_of(const build_ctx *b, uint32_t ev, int fam) {
    int (*reads)(const char *) = jv_family_get(fam)->annotation;
    if (!reads) return 0;
    uint32_t a = jv_enclose_find(&b->annots, b->tr, ev, 4, reads);
    return a == JV_NONE32 ? 0 : jv_ev_name(b->tr, &b->tr->ev[a]);
}

/* the model of (name, sig): parsed once per distinct pair; a call sized by an annotation around it, once per
 * instance */
static jv_status model_of(build_ctx *b, jv_perf_table *pt, jv_map *idx, size_t *cap, uint32_t ev, int fam,
                          int32_t *out) {
    const jv_trace *tr = b->tr;
    const jv_event *e = &tr->ev[ev];
    uint32_t sig = jv_ev_kind(tr, e) == JV_K_CPU_OP ? jv_ev_sig(tr, e) : 0;
    int64_t key = ((int64_t)jv_ev_name(tr, e) << 32) | sig;
    uint32_t mi, annot = annotation_of(b, ev, fam);
    if (!annot && jv_map_get(idx, key, &mi)) {
        *out = (int32_t)mi;
        return JV_OK;
    }
    if (pt->nmodels == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        jv_perf_model *nm = realloc(pt->models, nc * sizeof *nm);
        if (!nm) return JV_ERR_NOMEM;
        pt->models = nm;
        *cap = nc;
    }
    jv_perf_model *m = &pt->models[pt->nmodels];
    memset(m, 0, sizeof *m);
    m->name = jv_ev_name(tr, e);
    m->sig = sig;
    m->annot = annot;
    m->family = fam;
    jv_desc_facts(NULL, &m->facts);
    jv_opcall call;
    jv_err perr;
    jv_err_clear(&perr);
    jv_status s = jv_perf_model_call(tr, m, &call, &perr);
    if (s == JV_ERR_NOMEM) return s;
    if (s == JV_OK) {
        jv_desc d;
        s = jv_desc_parse(&call, &d, &perr);
        if (s == JV_OK) {
            jv_desc_model(&d, &m->perf);
            m->ok = 1;
            m->bwd = d.bwd;
            jv_desc_facts(&d, &m->facts);
        }
    }
    jv_opcall_free(&call);
    mi = (uint32_t)pt->nmodels++;
    if (!annot) JV_CHECK(jv_map_put(idx, key, mi));
    *out = (int32_t)mi;
    return JV_OK;
}

#define KL_GET(kl, i) (((kl)[(i) >> 3] >> ((i)&7)) & 1)
#define KL_SET(kl, i) ((kl)[(i) >> 3] |= (uint8_t)(1u << ((i)&7)))

/* b->top[o], computed for o and the unknown ancestors it passes on the way up (each once); o may be JV_NONE32 */
static jv_status top_strong(build_ctx *b, const jv_tree *t, uint32_t o, uint32_t *out) {
    size_t n = 0;
    uint32_t p = o;
    for (; p != JV_NONE32 && b->top[jv_upset_ix(&b->up, p)] == TOP_UNKNOWN; p = t->parent[p]) {
        if (n == b->cap) {
            size_t nc = b->cap ? b->cap * 2 : 64;
            uint32_t *ns = realloc(b->stack, nc * sizeof *ns);
            if (!ns) return JV_ERR_NOMEM;
            b->stack = ns;
            b->cap = nc;
        }
        b->stack[n++] = p;
    }
    uint32_t above = p == JV_NONE32 ? JV_NONE32 : b->top[jv_upset_ix(&b->up, p)];
    while (n > 0) { /* from the highest unknown node down: the outermost match above wins, else the node itself */
        uint32_t q = b->stack[--n];
        if (above == JV_NONE32 && jv_ev_kind(b->tr, &b->tr->ev[q]) == JV_K_CPU_OP) {
            int f;
            jv_match how;
            JV_CHECK(family_of(b, jv_ev_name(b->tr, &b->tr->ev[q]), &f, &how));
            if (how == JV_MATCH_STRONG) above = q;
        }
        b->top[jv_upset_ix(&b->up, q)] = above;
    }
    *out = o == JV_NONE32 ? JV_NONE32 : b->top[jv_upset_ix(&b->up, o)];
    return JV_OK;
}

/* The instance key of GPU event i: *op = the op event (claimed or launcher),
 * or *synth = the parent of a synthetic instance (an op or a launch call).
 * The claim is the outermost strongly matched cpu_op at or above the launcher L, else L itself when it is weakly
 * matched and launches no kernel-launching child. */
static jv_status target_of(build_ctx *b, const jv_tree *t, const uint8_t *kl, uint32_t i, uint32_t *target,
                           int *synthetic, int *fam) {
    const jv_trace *tr = b->tr;
    uint32_t L = jv_tree_op_of_gpu(tr, t, i), claim;
    int claim_fam = -1;
    jv_match how;
    JV_CHECK(top_strong(b, t, L, &claim));
    if (claim != JV_NONE32) {
        JV_CHECK(family_of(b, jv_ev_name(tr, &tr->ev[claim]), &claim_fam, &how));
    } else if (L != JV_NONE32 && jv_ev_kind(tr, &tr->ev[L]) == JV_K_CPU_OP && !KL_GET(kl, L)) {
        JV_CHECK(family_of(b, jv_ev_name(tr, &tr->ev[L]), &claim_fam, &how));
        if (how == JV_MATCH_WEAK)
            claim = L;
        else
            claim_fam = -1;
    }
    *synthetic = 0;
    *fam = claim_fam;
    if (claim != JV_NONE32)
        *target = claim;
    else if (L == JV_NONE32)
        *target = t->parent[i], *synthetic = 1;
    else if (KL_GET(kl, L))
        *target = L, *synthetic = 1;
    else
        *target = L;
    if (claim == JV_NONE32 && !*synthetic) {
        JV_CHECK(family_of(b, jv_ev_name(tr, &tr->ev[L]), fam, &how));
        if (how == JV_MATCH_WEAK) *fam = -1; /* a weak op that launches beside kernel-launching children */
    }
    return JV_OK;
}

/* 1 when GPU event i enters the perf tables (linked, not communication) */
static jv_status counted(build_ctx *b, const jv_tree *t, uint32_t i, int *yes) {
    const jv_trace *tr = b->tr;
    const jv_event *e = &tr->ev[i];
    *yes = 0;
    if (!jv_kind_is_gpu(jv_ev_kind(tr, e)) || !jv_tree_gpu_linked(t, tr, i)) return JV_OK;
    int c;
    JV_CHECK(is_comm(b, jv_ev_name(tr, e), &c));
    *yes = !c;
    return JV_OK;
}

static jv_status build(build_ctx *b, const jv_tree *t, jv_perf_table *pt, uint8_t *kl) {
    const jv_trace *tr = b->tr;
    size_t nev = tr->nev;
    int yes;
    /* pass 1: cpu ops that contain a kernel-launching cpu op */
    size_t ngpu = 0;
    for (size_t i = 0; i < nev; i++) {
        JV_CHECK(counted(b, t, (uint32_t)i, &yes));
        if (!yes) continue;
        ngpu++;
        uint32_t L = jv_tree_op_of_gpu(tr, t, (uint32_t)i);
        if (L == JV_NONE32) continue;
        for (uint32_t p = t->parent[L]; p != JV_NONE32; p = t->parent[p]) {
            if (jv_ev_kind(tr, &tr->ev[p]) != JV_K_CPU_OP) continue;
            if (KL_GET(kl, p)) break;
            KL_SET(kl, p);
        }
    }
    /* pass 2: instances (with their models) and kernel counts */
    size_t icap = 256;
    pt->inst = malloc(icap * sizeof *pt->inst);
    pt->kernels = malloc((ngpu ? ngpu : 1) * sizeof *pt->kernels);
    if (!pt->inst || !pt->kernels) return JV_ERR_NOMEM;
    /* inst_at: by jv_upset_ix, the instance of an op that owns kernels (targets are ops at or above a GPU event's
       op), JV_NONE32 for the others */
    uint32_t *inst_at = malloc((b->up.n ? b->up.n : 1) * sizeof *inst_at);
    if (!inst_at) return JV_ERR_NOMEM;
    for (size_t k = 0; k < b->up.n; k++)
        inst_at[k] = JV_NONE32;
    jv_map model_idx;
    jv_map_init(&model_idx);
    size_t mcap = 0;
    jv_status s = JV_OK;
    for (size_t i = 0; i < nev && s == JV_OK; i++) {
        if ((s = counted(b, t, (uint32_t)i, &yes)) != JV_OK || !yes) continue;
        uint32_t target, ii;
        int synth, fam;
        if ((s = target_of(b, t, kl, (uint32_t)i, &target, &synth, &fam)) != JV_OK) break;
        if (synth || (ii = inst_at[jv_upset_ix(&b->up, target)]) == JV_NONE32) {
            if (pt->ninst == icap) {
                jv_perf_inst *ni = realloc(pt->inst, icap * 2 * sizeof *ni);
                if (!ni) {
                    s = JV_ERR_NOMEM;
                    break;
                }
                pt->inst = ni;
                icap *= 2;
            }
            ii = (uint32_t)pt->ninst++;
            jv_perf_inst *in = &pt->inst[ii];
            memset(in, 0, sizeof *in);
            in->ev = target;
            in->kernel = synth ? (uint32_t)i : JV_NONE32;
            in->model = -1;
            if (!synth) {
                inst_at[jv_upset_ix(&b->up, target)] = ii;
                if (fam >= 0 && (s = model_of(b, pt, &model_idx, &mcap, target, fam, &in->model)) != JV_OK) break;
            }
        }
        pt->inst[ii].kn++;
    }
    jv_map_free(&model_idx);
    /* pass 3: the kernels of each instance, in file order, then by ts */
    if (s == JV_OK) {
        uint32_t off = 0;
        for (size_t k = 0; k < pt->ninst; k++) {
            pt->inst[k].kbegin = off;
            off += pt->inst[k].kn;
            pt->inst[k].kn = 0;
        }
        size_t syn = 0; /* synthetic instances come back in creation order */
        for (size_t i = 0; i < nev && s == JV_OK; i++) {
            if ((s = counted(b, t, (uint32_t)i, &yes)) != JV_OK || !yes) continue;
            uint32_t target, ii = 0;
            int synth, fam;
            if ((s = target_of(b, t, kl, (uint32_t)i, &target, &synth, &fam)) != JV_OK) break;
            if (synth) {
                while (syn < pt->ninst && pt->inst[syn].kernel != (uint32_t)i)
                    syn++;
                if (syn == pt->ninst) {
                    s = JV_ERR_INTERNAL;
                    break;
                }
                ii = (uint32_t)syn;
            } else if ((ii = inst_at[jv_upset_ix(&b->up, target)]) == JV_NONE32) {
                s = JV_ERR_INTERNAL;
                break;
            }
            jv_perf_inst *in = &pt->inst[ii];
            pt->kernels[in->kbegin + in->kn++] = (uint32_t)i;
        }
        pt->nkernels = ngpu;
    }
    free(inst_at);
    for (size_t k = 0; k < pt->ninst && s == JV_OK; k++) {
        jv_perf_inst *in = &pt->inst[k];
        if (in->kn > 1)
            s = jv_sort_stable(pt->kernels + in->kbegin, in->kn, sizeof(uint32_t), cmp_kernel_ts, (void *)tr);
        in->busy_ns = busy_of(tr, pt->kernels + in->kbegin, in->kn);
        if (in->model >= 0 && !pt->models[in->model].ok) pt->model_errors++;
    }
    return s;
}

jv_status jv_perf_build(const jv_trace *tr, const jv_tree *t, jv_perf_table *pt, jv_err *err) {
    memset(pt, 0, sizeof *pt);
    uint8_t *kl = calloc(tr->nev / 8 + 1, 1);
    if (!kl) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (perf instances)");
    build_ctx b = {.tr = tr};
    jv_map_init(&b.fam);
    jv_map_init(&b.comm);
    jv_status s = jv_upset_init(&b.up, tr);
    if (s == JV_OK) {
        for (size_t i = 0; i < tr->nev; i++)
            if (jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[i])))
                jv_upset_add(&b.up, t, jv_tree_op_of_gpu(tr, t, (uint32_t)i));
        jv_upset_seal(&b.up);
        if (!(b.top = malloc((b.up.n ? b.up.n : 1) * sizeof *b.top))) s = JV_ERR_NOMEM;
        for (size_t k = 0; s == JV_OK && k < b.up.n; k++)
            b.top[k] = TOP_UNKNOWN;
    }
    if (s == JV_OK) s = collect_annotations(&b);
    if (s == JV_OK) s = build(&b, t, pt, kl);
    jv_map_free(&b.fam);
    jv_map_free(&b.comm);
    jv_upset_free(&b.up);
    free(b.top);
    free(b.stack);
    jv_enclose_free(&b.annots);
    free(kl);
    if (s != JV_OK) {
        jv_perf_free(pt);
        JV_FAIL(err, s, "out of memory (perf instances)");
    }
    return JV_OK;
}

void jv_perf_free(jv_perf_table *pt) {
    free(pt->inst);
    free(pt->kernels);
    free(pt->models);
    memset(pt, 0, sizeof *pt);
}
