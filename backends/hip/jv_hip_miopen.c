/* jv_hip_miopen: the HIP backend's convolutions and batch norms on MIOpen (by default the algorithm MIOpen's Find
 * returns without exhaustive search, as PyTorch runs it; conv-algo immediate: immediate mode's first solution that
 * fits the workspace; conv-algo best: an exhaustive Find's fastest, as PyTorch's benchmark mode), through the table
 * jv_hip_vendor.c loads (see jv_hip_vendor.h). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm/batchnorm.h"
#include "conv/conv.h"
#include "gemm/gemm.h"
#include "jv_gpu_lib.h"
#include "jv_gpu_search.h"
#include "jv_hip_vendor.h"
#include "jv_tensor.h"

static const char *mi_status(int s) {
    static const char *const N[] = {"miopenStatusSuccess",        "miopenStatusNotInitialized",
                                    "miopenStatusInvalidValue",   "miopenStatusBadParm",
                                    "miopenStatusAllocFailed",    "miopenStatusInternalError",
                                    "miopenStatusNotImplemented", "miopenStatusUnknownError",
                                    "miopenStatusUnsupportedOp",  "miopenStatusGpuOperationsSkipped",
                                    "miopenStatusVersionMismatch"};
    return s >= 0 && s < (int)(sizeof N / sizeof N[0]) ? N[s] : "unknown miopenStatus_t";
}

#define MI_CALL(err, name, call)                                                                                       \
    do {                                                                                                               \
        int mi_s_ = (call);                                                                                            \
        if (mi_s_ != JV_MIOPEN_STATUS_SUCCESS)                                                                         \
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: %s failed: %s (%d)", name, #call, mi_status(mi_s_),        \
                    mi_s_);                                                                                            \
    } while (0)

/* ---- convolution ---- */

typedef enum { STEP_FWD, STEP_BWD_DATA, STEP_BWD_W, STEP_ADD_BIAS, STEP_BWD_BIAS } step_kind;

/* what Find chose for one direction of one configuration (cached per configuration in jv_hipv.conv_cache) */
typedef struct {
    int algo;      /* the direction's miopenConv*Algorithm_t */
    size_t ws;     /* its workspace bytes (Find's memory) */
    int offered;   /* results Find returned */
    int ran;       /* of them, those within the workspace */
    double ms;     /* MIOpen's time of the chosen one */
    int next_algo; /* the runner-up (next_ms 0: none) */
    double next_ms;
} conv_found;

/* one MIOpen call; x, w, y are the operands in the roles of the normal convolution y = conv(x, w) (FWD computes y,
 * BWD_DATA x from y, BWD_W w from x and y); bias steps: x the bias (or grad_bias), y the output (or grad_output) */
typedef struct {
    step_kind kind;
    int x, w, y;
    uint64_t id;
    int algo;
    size_t ws;
    int found; /* 1: f holds Find's choice, run by miopenConvolution{Forward,BackwardData,BackwardWeights} */
    conv_found f;
} conv_step;

struct jv_hipv_conv {
    int as_gemm;
    int gn;
    jv_hipv_gemm *g[2];
    int gsrc[2][3];
    void *conv;
    void *td[JV_MAX_OPERANDS];
    void *bias_td;
    conv_step steps[4];
    int nsteps;
    const char *name;
    int64_t key[12]; /* the convolution descriptor's values (spatial dims, pads, strides, dilations, groups, layout) */
    int key_n;
};

void jv_hipv_conv_free(const jv_hipv *v, jv_hipv_conv *p) {
    if (!p) return;
    for (int i = 0; i < p->gn; i++)
        jv_hipv_gemm_free(v, p->g[i]);
    for (int i = 0; i < JV_MAX_OPERANDS; i++)
        if (p->td[i]) v->mi.tensor_destroy(p->td[i]);
    if (p->bias_td) v->mi.tensor_destroy(p->bias_td);
    if (p->conv) v->mi.conv_destroy(p->conv);
    free(p);
}

static int mi_type(jv_dtype d, int *t) {
    switch (d) {
    case JV_DT_F32: *t = JV_MIOPEN_FLOAT; return 1;
    case JV_DT_F16: *t = JV_MIOPEN_HALF; return 1;
    case JV_DT_BF16: *t = JV_MIOPEN_BFLOAT16; return 1;
    default: return 0;
    }
}

static jv_status mi_tensor(const jv_hipv *v, void **td, const jv_tensor *t, int cl, const char *what, jv_err *err) {
    int dims[JV_MAX_DIMS], strides[JV_MAX_DIMS], dt;
    int nd = jv_gpu_dnn_dims(t, cl, dims, strides);
    if (!nd || !mi_type(t->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: a tensor MIOpen cannot describe (%d dims, %s)", what, t->ndim,
                jv_dtype_short(t->dtype));
    MI_CALL(err, what, v->mi.tensor_create(td));
    MI_CALL(err, what, v->mi.tensor_set(*td, dt, nd, dims, strides));
    return JV_OK;
}

/* the first solution MIOpen offers for step s that fits ws_limit, compiled now */
static jv_status pick_solution(const jv_hipv *v, jv_hipv_conv *p, conv_step *s, size_t ws_limit, jv_err *err) {
    jv_miopen_solution sol[16];
    size_t n = 0;
    void *a = NULL, *b = NULL, *c = NULL;
    jv_miopen_get_solution_fn get = NULL;
    jv_miopen_compile_fn comp = NULL;
    const char *dir = "Forward";
    if (s->kind == STEP_FWD) /* (w, x, conv, y) */
        get = v->mi.fwd_get_solution, comp = v->mi.fwd_compile, a = p->td[s->w], b = p->td[s->x], c = p->td[s->y];
    else if (s->kind == STEP_BWD_DATA) /* (dy, w, conv, dx) */
        get = v->mi.bwd_data_get_solution, comp = v->mi.bwd_data_compile, a = p->td[s->y], b = p->td[s->w],
        c = p->td[s->x], dir = "BackwardData";
    else /* (dy, x, conv, dw) */
        get = v->mi.bwd_w_get_solution, comp = v->mi.bwd_w_compile, a = p->td[s->y], b = p->td[s->x], c = p->td[s->w],
        dir = "BackwardWeights";
    memset(sol, 0, sizeof sol);
    int ms = get(v->mi_h, a, b, p->conv, c, sizeof sol / sizeof sol[0], &n, sol);
    if (ms != JV_MIOPEN_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: miopenConvolution%sGetSolution failed: %s (%d)", p->name, dir,
                mi_status(ms), ms);
    size_t i = 0;
    while (i < n && sol[i].workspace_size > ws_limit)
        i++;
    if (i == n)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "hip backend: %s: MIOpen offers no %s solution within the %zu MiB workspace (%zu offered)", p->name,
                dir, ws_limit >> 20, n);
    s->id = sol[i].solution_id, s->algo = sol[i].algorithm, s->ws = sol[i].workspace_size;
    ms = comp(v->mi_h, a, b, p->conv, c, s->id);
    if (ms != JV_MIOPEN_STATUS_SUCCESS)
        JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: miopenConvolution%sCompileSolution failed: %s (%d)", p->name,
                dir, mi_status(ms), ms);
    return JV_OK;
}

#define MI_FIND_MAX 8 /* results asked of Find: more than MIOpen's algorithms of any direction (6) */

/* miopenConv*Algorithm_t's name for algorithm a of a step of kind k ("unknown" for a value not in miopen.h) */
static const char *algo_name(step_kind k, int a) {
    switch (a) {
    case 0: return "GEMM";
    case 1: return "Direct";
    case 2: return k == STEP_BWD_W ? "unknown" : "FFT";
    case 3: return "Winograd";
    case 4: return k == STEP_BWD_DATA ? "TransposeGEMM" : "unknown";
    case 5: return "ImplicitGEMM";
    default: return "unknown";
    }
}

static void key_tensor(jv_gpu_key *k, const jv_tensor *t) {
    jv_gpu_key_add(k, t->ndim);
    jv_gpu_key_add(k, t->dtype);
    for (int i = 0; i < t->ndim; i++) {
        jv_gpu_key_add(k, t->shape[i]);
        jv_gpu_key_add(k, t->strides[i]);
    }
}

/* Step s's algorithm by MIOpen's Find on scratch copies of its three operands and v->ws (ws_limit bytes), from
 * v->conv_cache when this configuration was searched before in this mode. JV_HIPV_CONV_BEST: exhaustive, up to
 * MI_FIND_MAX results, the fastest within ws_limit (jv_gpu_fastest) kept and the runner-up named; else (the
 * default, as PyTorch's chooseAlgorithm with benchmark off) not exhaustive and 1 result asked: the one returned. */
static jv_status find_step(const jv_hipv *v, jv_hipv_conv *p, conv_step *s, const jv_operands *ops, size_t ws_limit,
                           jv_err *err) {
    /* Find's operand order: forward (x, w, y), backward data (dy, w, dx), backward weights (dy, x, dw) */
    int o[3];
    jv_miopen_find_fn find;
    const char *dir;
    if (s->kind == STEP_FWD)
        o[0] = s->x, o[1] = s->w, o[2] = s->y, find = v->mi.fwd_find, dir = "Forward";
    else if (s->kind == STEP_BWD_DATA)
        o[0] = s->y, o[1] = s->w, o[2] = s->x, find = v->mi.bwd_data_find, dir = "BackwardData";
    else
        o[0] = s->y, o[1] = s->x, o[2] = s->w, find = v->mi.bwd_w_find, dir = "BackwardWeights";
    const int exhaustive = v->conv_mode == JV_HIPV_CONV_BEST, want = exhaustive ? MI_FIND_MAX : 1;
    const char *opt = exhaustive ? "conv-algo best" : "conv-algo heuristic";
    jv_gpu_key key;
    memset(&key, 0, sizeof key);
    jv_gpu_key_add(&key, exhaustive);
    jv_gpu_key_add(&key, s->kind);
    jv_gpu_key_add(&key, (int64_t)ws_limit);
    for (int i = 0; i < p->key_n; i++)
        jv_gpu_key_add(&key, p->key[i]);
    for (int i = 0; i < 3; i++)
        key_tensor(&key, &ops->o[o[i]].t);
    const conv_found *had = v->conv_cache ? jv_gpu_cache_find(v->conv_cache, &key) : NULL;
    if (!had) {
        if (!v->rt.alloc || !v->rt.free || !v->rt.upload || !v->rt.zero || !v->ws)
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: %s: no device scratch to search on", p->name, opt);
        void *buf[3] = {0};
        jv_status st = JV_OK;
        for (int i = 0; i < 3 && st == JV_OK; i++)
            st = jv_hipv_scratch(v, p->name, opt, ops, o[i], i == 2, &buf[i], err);
        jv_miopen_perf perf[MI_FIND_MAX];
        memset(perf, 0, sizeof perf);
        int ret = 0, ms = JV_MIOPEN_STATUS_SUCCESS;
        if (st == JV_OK)
            ms = find(v->mi_h, p->td[o[0]], buf[0], p->td[o[1]], buf[1], p->conv, p->td[o[2]], buf[2], want, &ret, perf,
                      v->ws, ws_limit, exhaustive != 0);
        if (st == JV_OK && v->rt.sync && v->rt.sync(v->rt.ctx, v->stream))
            st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "hip backend: %s: %s: stream sync failed",
                            p->name, opt);
        for (int i = 0; i < 3; i++)
            if (buf[i]) v->rt.free(v->rt.ctx, buf[i]);
        JV_CHECK(st);
        if (ms != JV_MIOPEN_STATUS_SUCCESS)
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: miopenFindConvolution%sAlgorithm failed: %s (%d)", p->name,
                    dir, mi_status(ms), ms);
        if (ret > want) ret = want;
        double t[MI_FIND_MAX] = {0};
        conv_found f;
        memset(&f, 0, sizeof f);
        f.offered = ret < 0 ? 0 : ret;
        for (int i = 0; i < f.offered; i++)
            if (perf[i].memory <= ws_limit && perf[i].time > 0) t[i] = perf[i].time, f.ran++;
        /* not exhaustive: the one result, as PyTorch takes it (its time may be a database's or none) */
        int b = exhaustive ? jv_gpu_fastest(t, f.offered) : f.offered == 1 && perf[0].memory <= ws_limit ? 0 : -1;
        if (b < 0)
            JV_FAIL(err, JV_ERR_NOTFOUND,
                    "hip backend: %s: %s: MIOpen's Find returned no %s algorithm within the %zu MiB "
                    "workspace (%d returned)",
                    p->name, opt, dir, ws_limit >> 20, f.offered);
        f.algo = perf[b].algo, f.ws = perf[b].memory, f.ms = perf[b].time;
        t[b] = 0;
        int n = jv_gpu_fastest(t, f.offered);
        if (n >= 0) f.next_algo = perf[n].algo, f.next_ms = t[n];
        if (v->conv_cache) JV_CHECK(jv_gpu_cache_put(v->conv_cache, &key, &f, sizeof f, err));
        s->f = f;
    } else {
        s->f = *had;
    }
    s->found = 1, s->algo = s->f.algo, s->ws = s->f.ws;
    return JV_OK;
}

static jv_status conv_miopen(const jv_hipv *v, const jv_conv_desc *g, const jv_operands *ops, size_t ws_limit,
                             jv_hipv_conv *p, jv_err *err) {
    const char *what = p->name;
    int dt;
    if (!mi_type(g->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: no MIOpen convolution for %s (PyTorch runs it natively)", what,
                jv_dtype_short(g->dtype));
    if (g->pad_mode == JV_CONV_PAD_SAME)
        for (int i = 0; i < g->nd; i++)
            if ((g->dilation[i] * (g->w.shape[2 + i] - 1)) % 2)
                JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: padding='same' with an even kernel pads asymmetrically",
                        what);
    if (g->groups < 1 || g->groups > INT_MAX)
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: groups %lld", what, (long long)g->groups);
    int sp = g->nd < 2 ? 2 : g->nd;
    int pad[JV_CONV_MAX_SPATIAL], str[JV_CONV_MAX_SPATIAL], dil[JV_CONV_MAX_SPATIAL];
    for (int i = 0; i < sp; i++) {
        pad[i] = 0, str[i] = 1, dil[i] = 1;
        if (i < g->nd) {
            if (g->padding[i] > INT_MAX || g->stride[i] > INT_MAX || g->dilation[i] > INT_MAX)
                JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: conv parameters exceed int", what);
            pad[i] = (int)g->padding[i], str[i] = (int)g->stride[i], dil[i] = (int)g->dilation[i];
        }
    }
    p->key[p->key_n++] = sp;
    for (int i = 0; i < sp; i++)
        p->key[p->key_n++] = pad[i], p->key[p->key_n++] = str[i], p->key[p->key_n++] = dil[i];
    p->key[p->key_n++] = g->groups;
    MI_CALL(err, what, v->mi.conv_create(&p->conv));
    MI_CALL(err, what, v->mi.conv_init_nd(p->conv, sp, pad, str, dil, JV_MIOPEN_CONVOLUTION));
    MI_CALL(err, what, v->mi.conv_set_groups(p->conv, (int)g->groups));
    /* the memory format as PyTorch's miopen_conv_suggest_memory_format: channels_last for a 4-d / 5-d weight when
     * the input or the weight suggests it */
    int ix = jv_operands_find(ops, "input"), iw = jv_operands_find(ops, "weight"), ib = jv_operands_find(ops, "bias"),
        io = jv_operands_find(ops, "out"), igo = jv_operands_find(ops, "grad_output"),
        igi = jv_operands_find(ops, "grad_input"), igw = jv_operands_find(ops, "grad_weight"),
        igb = jv_operands_find(ops, "grad_bias");
    if (ix < 0 || iw < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: operands missing", what);
    int cl = 0;
    if (ops->o[iw].t.ndim == 4 || ops->o[iw].t.ndim == 5)
        cl = jv_tensor_suggest_channels_last(&ops->o[iw].t) ||
             (ops->o[ix].t.ndim == ops->o[iw].t.ndim && jv_tensor_suggest_channels_last(&ops->o[ix].t));
    p->key[p->key_n++] = cl;
    for (int i = 0; i < ops->n; i++)
        if (i != ib && i != igb) JV_CHECK(mi_tensor(v, &p->td[i], &ops->o[i].t, cl, what, err));
    int bias_of = -1; /* the [C] vector: forward bias or grad_bias */
    if (g->op != JV_CONV_BACKWARD) {
        if (io < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: operands missing", what);
        conv_step s = {0};
        if (!g->transposed)
            s.kind = STEP_FWD, s.x = ix, s.w = iw, s.y = io;
        else /* the data gradient of the normal conv its weight describes, as PyTorch runs it */
            s.kind = STEP_BWD_DATA, s.y = ix, s.w = iw, s.x = io;
        p->steps[p->nsteps++] = s;
        if (ib >= 0) {
            conv_step b = {0};
            b.kind = STEP_ADD_BIAS, b.x = ib, b.y = io;
            p->steps[p->nsteps++] = b;
            bias_of = ib;
        }
    } else {
        if (igo < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: operands missing", what);
        if (igi >= 0) {
            conv_step s = {0};
            if (!g->transposed)
                s.kind = STEP_BWD_DATA, s.y = igo, s.w = iw, s.x = igi;
            else
                s.kind = STEP_FWD, s.x = igo, s.w = iw, s.y = igi;
            p->steps[p->nsteps++] = s;
        }
        if (igw >= 0) {
            conv_step s = {0};
            s.kind = STEP_BWD_W, s.w = igw;
            if (!g->transposed)
                s.x = ix, s.y = igo;
            else
                s.x = igo, s.y = ix;
            p->steps[p->nsteps++] = s;
        }
        if (igb >= 0) {
            conv_step s = {0};
            s.kind = STEP_BWD_BIAS, s.x = igb, s.y = igo;
            p->steps[p->nsteps++] = s;
            bias_of = igb;
        }
    }
    if (bias_of >= 0) {
        const jv_tensor *bt = &ops->o[bias_of].t;
        if (bt->dtype == JV_DT_BF16)
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: MIOpen's convolution bias %s refuses bf16", what,
                    bias_of == igb ? "gradient" : "add");
        if (bt->ndim != 1 || bt->shape[0] < 1 || bt->shape[0] > INT_MAX)
            JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: %s: the bias is not a [C] vector", what);
        jv_tensor b4;
        memset(&b4, 0, sizeof b4);
        b4.ndim = g->nd + 2 < 4 ? 4 : g->nd + 2;
        for (int i = 0; i < b4.ndim; i++)
            b4.shape[i] = 1;
        b4.shape[1] = bt->shape[0];
        b4.dtype = bt->dtype;
        jv_tensor_set_contiguous(&b4);
        JV_CHECK(mi_tensor(v, &p->bias_td, &b4, cl, what, err));
    }
    for (int i = 0; i < p->nsteps; i++)
        if (p->steps[i].kind <= STEP_BWD_W)
            JV_CHECK(v->conv_mode == JV_HIPV_CONV_IMMEDIATE ? pick_solution(v, p, &p->steps[i], ws_limit, err)
                                                            : find_step(v, p, &p->steps[i], ops, ws_limit, err));
    return JV_OK;
}

jv_status jv_hipv_conv_plan(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, int as_gemm, size_t ws_limit,
                            jv_hipv_conv **out, char *impl, size_t impl_cap, jv_err *err) {
    const jv_conv_desc *g = jv_conv_of(d);
    *out = NULL;
    if (impl_cap) impl[0] = 0;
    jv_conv_gemm cg;
    char why[200];
    if (as_gemm && !jv_conv_as_gemm(d, ops, &cg, why, sizeof why))
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: conv: not a pointwise convolution as GEMMs: %s", why);
    if (!as_gemm && !v->mi_h)
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: conv: not replayed: no MIOpen (%s)",
                v->mi_lib.why[0] ? v->mi_lib.why : "not loaded");
    jv_hipv_conv *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "hip backend: conv plan: out of memory");
    p->as_gemm = as_gemm;
    p->name = g->op == JV_CONV_BACKWARD ? "aten::convolution_backward"
              : g->transposed           ? "transposed convolution"
                                        : "aten::convolution";
    jv_status st = JV_OK;
    if (as_gemm) {
        for (int i = 0; i < cg.n && st == JV_OK; i++) {
            jv_desc md;
            jv_operands mops;
            st = jv_gemm_desc_mm(&md, &cg.step[i].a, &cg.step[i].b, err);
            if (st == JV_OK) st = jv_gemm_operands(&md, &mops, err);
            char gi[160] = "";
            if (st == JV_OK) st = jv_hipv_gemm_plan(v, &md, &mops, ws_limit, &p->g[i], gi, sizeof gi, err);
            if (st == JV_OK && i == 0 && impl_cap)
                snprintf(impl, impl_cap, "%s 1x1 conv GEMM: %s", jv_hipv_gemm_lib(p->g[0]), gi);
            if (st == JV_OK) {
                p->gn = i + 1;
                memcpy(p->gsrc[i], cg.step[i].src, sizeof p->gsrc[i]);
            }
        }
    } else {
        st = conv_miopen(v, g, ops, ws_limit, p, err);
        if (st == JV_OK && impl_cap) {
            size_t n = (size_t)snprintf(impl, impl_cap, "%s",
                                        v->conv_mode == JV_HIPV_CONV_IMMEDIATE ? "MIOpen immediate"
                                        : v->conv_mode == JV_HIPV_CONV_BEST    ? "MIOpen Find exhaustive"
                                                                               : "MIOpen Find");
            for (int i = 0; i < p->nsteps && n < impl_cap; i++) {
                const conv_step *s = &p->steps[i];
                const char *w = s->kind == STEP_FWD        ? "fwd"
                                : s->kind == STEP_BWD_DATA ? "bwd data"
                                : s->kind == STEP_BWD_W    ? "bwd weights"
                                : s->kind == STEP_ADD_BIAS ? "bias"
                                                           : "bwd bias";
                if (s->found && v->conv_mode != JV_HIPV_CONV_BEST) { /* the one result Find returned */
                    const conv_found *f = &s->f;
                    n += (size_t)snprintf(impl + n, impl_cap - n, "%s %s %s ws %zu: %.1f us", i ? ";" : ":", w,
                                          algo_name(s->kind, f->algo), f->ws, f->ms * 1e3);
                } else if (s->found) { /* short: a backward's two directions fit jv_result.impl (192) */
                    const conv_found *f = &s->f;
                    n += (size_t)snprintf(impl + n, impl_cap - n, "%s %s %s ws %zu, searched %d, best of %d: %.1f us",
                                          i ? ";" : ":", w, algo_name(s->kind, f->algo), f->ws, f->offered, f->ran,
                                          f->ms * 1e3);
                    if (f->next_ms > 0 && n < impl_cap)
                        n += (size_t)snprintf(impl + n, impl_cap - n, " (%s %.1f)", algo_name(s->kind, f->next_algo),
                                              f->next_ms * 1e3);
                } else if (s->kind <= STEP_BWD_W)
                    n += (size_t)snprintf(impl + n, impl_cap - n, "%s %s solution %llu algo %d ws %zu", i ? "," : ":",
                                          w, (unsigned long long)s->id, s->algo, s->ws);
                else
                    n += (size_t)snprintf(impl + n, impl_cap - n, "%s %s", i ? "," : ":", w);
            }
        }
    }
    if (st != JV_OK) {
        jv_hipv_conv_free(v, p);
        return st;
    }
    *out = p;
    return JV_OK;
}

jv_status jv_hipv_conv_run(const jv_hipv *v, const jv_hipv_conv *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err) {
    if (p->as_gemm) {
        for (int i = 0; i < p->gn; i++) {
            void *b[3] = {bufs[p->gsrc[i][0]], bufs[p->gsrc[i][1]], bufs[p->gsrc[i][2]]};
            JV_CHECK(jv_hipv_gemm_run(v, p->g[i], b, ws, ws_bytes, err));
        }
        return JV_OK;
    }
    const float one = 1.0f, zero = 0.0f;
    for (int i = 0; i < p->nsteps; i++) {
        const conv_step *s = &p->steps[i];
        if (s->ws > ws_bytes)
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: %s: workspace %zu bytes, needs %zu", p->name, ws_bytes, s->ws);
        switch (s->kind) {
        case STEP_FWD:
            if (s->found) {
                MI_CALL(err, p->name,
                        v->mi.fwd_run(v->mi_h, &one, p->td[s->x], bufs[s->x], p->td[s->w], bufs[s->w], p->conv, s->algo,
                                      &zero, p->td[s->y], bufs[s->y], ws, s->ws));
                break;
            }
            MI_CALL(err, p->name,
                    v->mi.fwd_immediate(v->mi_h, p->td[s->w], bufs[s->w], p->td[s->x], bufs[s->x], p->conv, p->td[s->y],
                                        bufs[s->y], ws, s->ws, s->id));
            break;
        case STEP_BWD_DATA:
            if (s->found) {
                MI_CALL(err, p->name,
                        v->mi.bwd_data_run(v->mi_h, &one, p->td[s->y], bufs[s->y], p->td[s->w], bufs[s->w], p->conv,
                                           s->algo, &zero, p->td[s->x], bufs[s->x], ws, s->ws));
                break;
            }
            MI_CALL(err, p->name,
                    v->mi.bwd_data_immediate(v->mi_h, p->td[s->y], bufs[s->y], p->td[s->w], bufs[s->w], p->conv,
                                             p->td[s->x], bufs[s->x], ws, s->ws, s->id));
            break;
        case STEP_BWD_W:
            if (s->found) {
                MI_CALL(err, p->name,
                        v->mi.bwd_w_run(v->mi_h, &one, p->td[s->y], bufs[s->y], p->td[s->x], bufs[s->x], p->conv,
                                        s->algo, &zero, p->td[s->w], bufs[s->w], ws, s->ws));
                break;
            }
            MI_CALL(err, p->name,
                    v->mi.bwd_w_immediate(v->mi_h, p->td[s->y], bufs[s->y], p->td[s->x], bufs[s->x], p->conv,
                                          p->td[s->w], bufs[s->w], ws, s->ws, s->id));
            break;
        case STEP_ADD_BIAS: /* alpha 1, beta 0: y += b (the only values MIOpen supports) */
            MI_CALL(err, p->name,
                    v->mi.fwd_bias(v->mi_h, &one, p->bias_td, bufs[s->x], &zero, p->td[s->y], bufs[s->y]));
            break;
        case STEP_BWD_BIAS:
            MI_CALL(err, p->name,
                    v->mi.bwd_bias(v->mi_h, &one, p->td[s->y], bufs[s->y], &zero, p->bias_td, bufs[s->x]));
            break;
        }
    }
    return JV_OK;
}

/* ---- batch norm ---- */

struct jv_hipv_bn {
    int mode;
    void *xd, *yd, *bnd;
    int bwd, training;
    double momentum, eps;
    int ix, iy, iw, ib, irm, irv, ism, isv, idy, idx, idw, idb;
    size_t dx_bytes, p_bytes;
};

void jv_hipv_bn_free(const jv_hipv *v, jv_hipv_bn *p) {
    if (!p) return;
    if (p->xd) v->mi.tensor_destroy(p->xd);
    if (p->yd) v->mi.tensor_destroy(p->yd);
    if (p->bnd) v->mi.tensor_destroy(p->bnd);
    free(p);
}

int jv_hipv_bn_possible(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    int ix = jv_operands_find(ops, "input"), idy = jv_operands_find(ops, "grad_out");
    jv_dtype x = g->x.dtype;
    const char *r = NULL;
    if (!v->mi_h)
        r = v->mi_lib.why[0] ? v->mi_lib.why : "MIOpen not loaded";
    else if (x != JV_DT_F32 && x != JV_DT_F16 && x != JV_DT_BF16)
        r = "MIOpen batch norm takes fp32, fp16 and bf16 inputs (PyTorch runs double natively)";
    else if (ix < 0 || (g->bwd && idy < 0))
        r = "operands missing";
    else if (!g->has_weight || g->weight_dtype != JV_DT_F32)
        r = "MIOpen batch norm needs an fp32 weight";
    else if (!g->bwd && (!g->has_bias || g->bias_dtype != JV_DT_F32))
        r = "MIOpen batch norm needs an fp32 bias";
    else if (g->has_running && g->running_dtype != JV_DT_F32)
        r = "MIOpen batch norm needs fp32 running statistics";
    else if (g->x.ndim < 3 || g->x.ndim > 5)
        r = "PyTorch uses MIOpen batch norm only for 3-d to 5-d inputs";
    else if (g->n >= INT32_MAX)
        r = "more than 2^31 elements";
    else if (g->bwd && !g->training)
        r = "PyTorch runs the eval backward natively";
    else if (g->bwd && (!g->has_saved || g->stat_dtype != JV_DT_F32))
        r = "MIOpen backward needs fp32 save_mean / save_invstd";
    else if (!g->bwd && g->training && g->stat_dtype != JV_DT_F32)
        r = "MIOpen returns save_mean / save_invstd in fp32 only";
    else if (!(jv_gpu_dense_in(&ops->o[ix].t, 0) || jv_gpu_dense_in(&ops->o[ix].t, 1)))
        r = "the input is neither dense NCHW nor dense channels_last";
    else if (g->bwd && memcmp(ops->o[idy].t.strides, ops->o[ix].t.strides, sizeof(int64_t) * (size_t)g->x.ndim))
        r = "grad_out's strides differ from the input's";
    if (r) {
        snprintf(why, cap, "%s", r);
        return 0;
    }
    return 1;
}

#define BN_ALIGN(v) (((v) + 255) / 256 * 256)

jv_status jv_hipv_bn_plan(const jv_hipv *v, const jv_desc *d, const jv_operands *ops, size_t ws_limit, jv_hipv_bn **out,
                          jv_err *err) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    char why[200];
    *out = NULL;
    if (!jv_hipv_bn_possible(v, d, ops, why, sizeof why))
        JV_FAIL(err, JV_ERR_NOTFOUND, "hip backend: batch norm not on MIOpen: %s", why);
    jv_hipv_bn *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "hip backend: batch norm plan: out of memory");
    p->bwd = g->bwd, p->training = g->training, p->momentum = g->momentum, p->eps = g->eps;
    p->ix = jv_operands_find(ops, "input"), p->iy = jv_operands_find(ops, "out");
    p->iw = jv_operands_find(ops, "weight"), p->ib = jv_operands_find(ops, "bias");
    p->irm = jv_operands_find(ops, "running_mean"), p->irv = jv_operands_find(ops, "running_var");
    p->ism = jv_operands_find(ops, "save_mean"), p->isv = jv_operands_find(ops, "save_invstd");
    p->idy = jv_operands_find(ops, "grad_out"), p->idx = jv_operands_find(ops, "grad_input");
    p->idw = jv_operands_find(ops, "grad_weight"), p->idb = jv_operands_find(ops, "grad_bias");
    const char *what = g->bwd ? "batch norm backward (MIOpen)" : "batch norm (MIOpen)";
    jv_status st = JV_OK;
    const jv_tensor *xt = &ops->o[p->ix].t;
    p->mode = xt->ndim == 2 ? JV_MIOPEN_BN_PER_ACTIVATION : JV_MIOPEN_BN_SPATIAL;
    if (p->iw < 0 || (!g->bwd && (p->iy < 0 || p->ib < 0)) || (g->bwd && (p->idy < 0 || p->ism < 0 || p->isv < 0)) ||
        (!g->training && (p->irm < 0 || p->irv < 0))) {
        st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__, "hip backend: %s: operands missing", what);
        goto fail;
    }
    const jv_tensor *yt = &ops->o[g->bwd ? p->idy : p->iy].t;
    JV_CHECK_GOTO(mi_tensor(v, &p->xd, xt, jv_tensor_suggest_channels_last(xt), what, err), st, fail);
    JV_CHECK_GOTO(mi_tensor(v, &p->yd, yt, jv_tensor_suggest_channels_last(yt), what, err), st, fail);
    int ms = v->mi.tensor_create(&p->bnd);
    if (ms == JV_MIOPEN_STATUS_SUCCESS) ms = v->mi.bn_derive(p->bnd, p->xd, p->mode);
    if (ms != JV_MIOPEN_STATUS_SUCCESS) {
        st = jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__,
                        "hip backend: %s: miopenDeriveBNTensorDescriptor failed: %s", what, mi_status(ms));
        goto fail;
    }
    if (g->bwd) {
        if (p->idx < 0) p->dx_bytes = BN_ALIGN((size_t)jv_tensor_extent(xt) * jv_dtype_size(xt->dtype));
        p->p_bytes = BN_ALIGN((size_t)g->c * 4);
        if (p->dx_bytes + 2 * p->p_bytes > ws_limit) {
            st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__,
                            "hip backend: %s: the grads output_mask leaves out need %zu MiB of scratch, more than the "
                            "%zu MiB workspace",
                            what, (p->dx_bytes + 2 * p->p_bytes + (1u << 20) - 1) >> 20, ws_limit >> 20);
            goto fail;
        }
    }
    *out = p;
    return JV_OK;
fail:
    jv_hipv_bn_free(v, p);
    return st;
}

jv_status jv_hipv_bn_run(const jv_hipv *v, const jv_hipv_bn *p, void *const *bufs, void *ws, size_t ws_bytes,
                         jv_err *err) {
    float one = 1.0f, zero = 0.0f;
#define BUF(i) ((i) >= 0 ? bufs[i] : NULL)
    if (!p->bwd && p->training) {
        MI_CALL(err, "batch norm training forward (MIOpen)",
                v->mi.bn_fwd_train(v->mi_h, p->mode, &one, &zero, p->xd, bufs[p->ix], p->yd, bufs[p->iy], p->bnd,
                                   bufs[p->iw], bufs[p->ib], p->momentum, BUF(p->irm), BUF(p->irv), p->eps, BUF(p->ism),
                                   BUF(p->isv)));
    } else if (!p->bwd) {
        MI_CALL(err, "batch norm eval forward (MIOpen)",
                v->mi.bn_fwd_infer(v->mi_h, p->mode, &one, &zero, p->xd, bufs[p->ix], p->yd, bufs[p->iy], p->bnd,
                                   bufs[p->iw], bufs[p->ib], bufs[p->irm], bufs[p->irv], p->eps));
    } else {
        if (p->dx_bytes + 2 * p->p_bytes > ws_bytes)
            JV_FAIL(err, JV_ERR_INTERNAL, "hip backend: batch norm backward: workspace too small");
        char *w = ws;
        void *dx = p->idx >= 0 ? bufs[p->idx] : w;
        void *dw = p->idw >= 0 ? bufs[p->idw] : w + p->dx_bytes;
        void *db = p->idb >= 0 ? bufs[p->idb] : w + p->dx_bytes + p->p_bytes;
        /* dx has the input's strides (jv_batchnorm_operands): x's descriptor describes it */
        MI_CALL(err, "batch norm backward (MIOpen)",
                v->mi.bn_bwd(v->mi_h, p->mode, &one, &zero, &one, &zero, p->xd, bufs[p->ix], p->yd, bufs[p->idy], p->xd,
                             dx, p->bnd, bufs[p->iw], dw, db, p->eps, bufs[p->ism], bufs[p->isv]));
    }
#undef BUF
    return JV_OK;
}
