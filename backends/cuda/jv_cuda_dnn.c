/* jv_cuda_dnn: convolution and batch norm on cuDNN 9's legacy API (see
 * jv_cuda_dnn.h). Descriptors come from the replay operands' dims and
 * strides (3-d tensors get a trailing dim of 1: cuDNN wants 4 or more);
 * a transposed conv runs as the data gradient of the normal conv its
 * weight describes, as PyTorch does. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm/batchnorm.h"
#include "conv/conv.h"
#include "conv/conv_gpu.h"
#include "jv_cuda_dnn.h"
#include "jv_cuda_pure.h"
#include "jv_gpu_lib.h"
#include "jv_tensor.h"

#define DNN_FAIL_CALL(err, what, call, s)                                                                              \
    jv_err_set(err, JV_ERR_INTERNAL, __FILE__, __LINE__, "cuda backend: %s: %s failed: %s", what, #call,               \
               cudnnGetErrorString(s))

#define DNN_CALL(err, what, call)                                                                                      \
    do {                                                                                                               \
        cudnnStatus_t dnn_s_ = (call);                                                                                 \
        if (dnn_s_ != CUDNN_STATUS_SUCCESS) return DNN_FAIL_CALL(err, what, call, dnn_s_);                             \
    } while (0)

static int dnn_type(jv_dtype d, cudnnDataType_t *t) {
    switch (d) {
    case JV_DT_F32: *t = CUDNN_DATA_FLOAT; return 1;
    case JV_DT_F16: *t = CUDNN_DATA_HALF; return 1;
    case JV_DT_BF16: *t = CUDNN_DATA_BFLOAT16; return 1;
    case JV_DT_F64: *t = CUDNN_DATA_DOUBLE; return 1;
    default: return 0;
    }
}

/* A descriptor as set: dims, strides, dtype, filter format (-1: a tensor). */
typedef struct {
    int nd;
    int dims[JV_MAX_DIMS];
    int strides[JV_MAX_DIMS];
    int dt;
    int fmt;
} desc_rec;

static jv_status tensor_desc(cudnnTensorDescriptor_t *td, const jv_tensor *t, int channels_last, desc_rec *rec,
                             const char *what, jv_err *err) {
    desc_rec r;
    memset(&r, 0, sizeof r);
    cudnnDataType_t dt;
    r.nd = jv_gpu_dnn_dims(t, channels_last, r.dims, r.strides);
    if (!r.nd || !dnn_type(t->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: a tensor cuDNN cannot describe (%d dims, %s)", what, t->ndim,
                jv_dtype_short(t->dtype));
    r.dt = (int)dt;
    r.fmt = -1;
    DNN_CALL(err, what, cudnnCreateTensorDescriptor(td));
    DNN_CALL(err, what, cudnnSetTensorNdDescriptor(*td, dt, r.nd, r.dims, r.strides));
    if (rec) *rec = r;
    return JV_OK;
}

/* prefer_cl: when the weight is dense in both layouts (1x1 kernels, depthwise
 * [C, 1, k...]), describe it in the conv's memory format: the bytes are the
 * same and cuDNN's NHWC kernels want an NHWC filter. */
static jv_status filter_desc(cudnnFilterDescriptor_t *fd, const jv_tensor *t, int prefer_cl, desc_rec *rec,
                             const char *what, jv_err *err) {
    desc_rec r;
    memset(&r, 0, sizeof r);
    cudnnDataType_t dt;
    r.nd = jv_gpu_dnn_dims(t, 0, r.dims, r.strides);
    if (!r.nd || !dnn_type(t->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: a filter cuDNN cannot describe", what);
    cudnnTensorFormat_t f;
    int nchw = jv_gpu_dense_in(t, 0), nhwc = t->ndim >= 3 && jv_gpu_dense_in(t, 1);
    if (nhwc && (prefer_cl || !nchw))
        f = CUDNN_TENSOR_NHWC;
    else if (nchw)
        f = CUDNN_TENSOR_NCHW;
    else
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: the weight is neither dense NCHW nor dense channels_last",
                what);
    r.dt = (int)dt;
    r.fmt = (int)f;
    memset(r.strides, 0, sizeof r.strides); /* a filter is dims and format only */
    DNN_CALL(err, what, cudnnCreateFilterDescriptor(fd));
    DNN_CALL(err, what, cudnnSetFilterNdDescriptor(*fd, dt, f, r.nd, r.dims));
    if (rec) *rec = r;
    return JV_OK;
}

/* ---- convolution ---- */

typedef enum { STEP_FWD, STEP_BWD_DATA, STEP_BWD_FILTER, STEP_BWD_BIAS, STEP_ADD_BIAS } step_kind;

typedef struct {
    step_kind kind;
    int in0, in1, out; /* FWD: x, w -> y; BWD_DATA: w, dy -> dx; BWD_FILTER: x, dy -> dw; bias: src -> dst */
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    cudnnMathType_t math; /* the math type the chosen algorithm was ranked with (set before running it) */
    size_t ws;
} conv_step;

struct jv_cuda_conv {
    cudnnConvolutionDescriptor_t conv;
    cudnnTensorDescriptor_t td[JV_MAX_OPERANDS]; /* per operand (NULL: a filter or unused) */
    cudnnFilterDescriptor_t fd[JV_MAX_OPERANDS];
    cudnnTensorDescriptor_t bias_td; /* [1, C, 1, 1]: the bias of a forward conv (STEP_ADD_BIAS) */
    jv_tensor dy;                    /* STEP_BWD_BIAS: grad_output, strides explicit (our kernel reduces it) */
    conv_step steps[3];
    int nsteps;
    int f64;
    cudnnMathType_t math; /* the math type asked for (TF32 / tensor-op policy) */
    const char *name;
    int search;      /* 1: rank algorithms by running them (cudnnFind*), 0: by the heuristic (cudnnGet*_v7) */
    size_t ws_limit; /* the backend's cuDNN workspace: algorithms needing more are not chosen */
    desc_rec rec[JV_MAX_OPERANDS];                 /* descriptors as set, for the algorithm cache's keys */
    int64_t conv_key[4 + 3 * JV_CONV_MAX_SPATIAL]; /* dtype, groups, spatial dims, pad / stride / dilation */
    int conv_key_n;
};

void jv_cuda_conv_describe(const jv_cuda_conv *p, char *buf, size_t cap) {
    if (!buf || cap == 0) return;
    size_t n = (size_t)snprintf(buf, cap, "%s", p->search ? "cuDNN searched" : "cuDNN");
    for (int i = 0; i < p->nsteps && n < cap; i++) {
        const conv_step *s = &p->steps[i];
        const char *what = s->kind == STEP_FWD          ? "fwd"
                           : s->kind == STEP_BWD_DATA   ? "bwd data"
                           : s->kind == STEP_BWD_FILTER ? "bwd filter"
                                                        : NULL;
        if (!what) continue; /* the bias steps: our kernel or cudnnAddTensor */
        int algo = s->kind == STEP_FWD ? (int)s->fwd : s->kind == STEP_BWD_DATA ? (int)s->bwd_data : (int)s->bwd_filter;
        n += (size_t)snprintf(buf + n, cap - n, "%s %s algo %d%s ws %zu", i ? "," : ":", what, algo,
                              s->math == CUDNN_DEFAULT_MATH ? "" : " tensor op", s->ws);
    }
}

void jv_cuda_conv_free(jv_cuda_conv *p) {
    if (!p) return;
    for (int i = 0; i < JV_MAX_OPERANDS; i++) {
        if (p->td[i]) cudnnDestroyTensorDescriptor(p->td[i]);
        if (p->fd[i]) cudnnDestroyFilterDescriptor(p->fd[i]);
    }
    if (p->bias_td) cudnnDestroyTensorDescriptor(p->bias_td);
    if (p->conv) cudnnDestroyConvolutionDescriptor(p->conv);
    free(p);
}

/* 1 when a ranked algorithm is usable: it ran, fits the workspace, and its math type
 * keeps the precision asked for (fp32 / fp64 data: no FP32 -> FP16
 * down-conversion; FMA asked for: no tensor-op math, i.e. no TF32). */
static int perf_ok(const jv_cuda_conv *p, cudnnStatus_t st, size_t mem, cudnnMathType_t m) {
    if (st != CUDNN_STATUS_SUCCESS || mem > p->ws_limit) return 0;
    if (p->math != CUDNN_TENSOR_OP_MATH && m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return 0;
    if (p->math == CUDNN_FMA_MATH && m == CUDNN_TENSOR_OP_MATH) return 0;
    return 1;
}

/* The math type to run a ranked algorithm with: its own (as PyTorch does),
 * except that an FMA request stays FMA (DEFAULT would let fp32 use TF32). */
static cudnnMathType_t run_math(const jv_cuda_conv *p, cudnnMathType_t m) {
    return p->math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : m;
}

/* The smallest workspace among the algorithms that ran (for the refusal's message). */
#define MIN_RAN_MEM(perf, ret, out)                                                                                    \
    do {                                                                                                               \
        (out) = 0;                                                                                                     \
        for (int k_ = 0; k_ < (ret); k_++)                                                                             \
            if ((perf)[k_].status == CUDNN_STATUS_SUCCESS && ((out) == 0 || (perf)[k_].memory < (out)))                \
                (out) = (perf)[k_].memory;                                                                             \
    } while (0)

static jv_status no_algo(const jv_cuda_conv *p, const char *dir, int ran, size_t min_mem, jv_err *err) {
    if (ran && min_mem > p->ws_limit)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "cuda backend: %s: no cuDNN %s algorithm fits the %zu MiB workspace (the smallest needs %zu MiB)",
                p->name, dir, p->ws_limit >> 20, (min_mem + (1u << 20) - 1) >> 20);
    JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: cuDNN has no %s algorithm for this configuration", p->name, dir);
}

/* Ranks the algorithms of step s (cudnnFind* or the heuristic) and keeps the
 * first usable one. */
static jv_status rank_step(cudnnHandle_t h, jv_cuda_conv *p, conv_step *s, jv_err *err) {
    const char *what = p->name;
    int ret = 0;
    size_t min_mem = 0;
    /* steps share the descriptor: rank every step under the requested math type */
    DNN_CALL(err, what, cudnnSetConvolutionMathType(p->conv, p->math));
    if (s->kind == STEP_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        DNN_CALL(
            err, what,
            (p->search ? cudnnFindConvolutionForwardAlgorithm : cudnnGetConvolutionForwardAlgorithm_v7)(
                h, p->td[s->in0], p->fd[s->in1], p->conv, p->td[s->out], CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &ret, perf));
        int i = 0;
        while (i < ret && !perf_ok(p, perf[i].status, perf[i].memory, perf[i].mathType))
            i++;
        MIN_RAN_MEM(perf, ret, min_mem);
        if (i == ret) return no_algo(p, "forward", ret > 0, min_mem, err);
        s->fwd = perf[i].algo, s->math = run_math(p, perf[i].mathType);
        DNN_CALL(err, what, cudnnSetConvolutionMathType(p->conv, s->math));
        DNN_CALL(err, what,
                 cudnnGetConvolutionForwardWorkspaceSize(h, p->td[s->in0], p->fd[s->in1], p->conv, p->td[s->out],
                                                         s->fwd, &s->ws));
    } else if (s->kind == STEP_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        DNN_CALL(err, what,
                 (p->search ? cudnnFindConvolutionBackwardDataAlgorithm : cudnnGetConvolutionBackwardDataAlgorithm_v7)(
                     h, p->fd[s->in0], p->td[s->in1], p->conv, p->td[s->out], CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                     &ret, perf));
        int i = 0;
        while (i < ret && !perf_ok(p, perf[i].status, perf[i].memory, perf[i].mathType))
            i++;
        MIN_RAN_MEM(perf, ret, min_mem);
        if (i == ret) return no_algo(p, "backward-data", ret > 0, min_mem, err);
        s->bwd_data = perf[i].algo, s->math = run_math(p, perf[i].mathType);
        DNN_CALL(err, what, cudnnSetConvolutionMathType(p->conv, s->math));
        DNN_CALL(err, what,
                 cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->fd[s->in0], p->td[s->in1], p->conv, p->td[s->out],
                                                              s->bwd_data, &s->ws));
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        DNN_CALL(
            err, what,
            (p->search ? cudnnFindConvolutionBackwardFilterAlgorithm : cudnnGetConvolutionBackwardFilterAlgorithm_v7)(
                h, p->td[s->in0], p->td[s->in1], p->conv, p->fd[s->out], CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &ret,
                perf));
        int i = 0;
        while (i < ret && !perf_ok(p, perf[i].status, perf[i].memory, perf[i].mathType))
            i++;
        MIN_RAN_MEM(perf, ret, min_mem);
        if (i == ret) return no_algo(p, "backward-filter", ret > 0, min_mem, err);
        s->bwd_filter = perf[i].algo, s->math = run_math(p, perf[i].mathType);
        DNN_CALL(err, what, cudnnSetConvolutionMathType(p->conv, s->math));
        DNN_CALL(err, what,
                 cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p->td[s->in0], p->td[s->in1], p->conv, p->fd[s->out],
                                                                s->bwd_filter, &s->ws));
    }
    if (s->ws > p->ws_limit) /* the size query disagrees with the ranking: refuse rather than overrun */
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "cuda backend: %s: the chosen cuDNN algorithm needs %zu bytes of workspace, more than %zu", what, s->ws,
                p->ws_limit);
    return JV_OK;
}

static void key_rec(jv_gpu_key *k, const desc_rec *r) {
    jv_gpu_key_add(k, r->nd);
    jv_gpu_key_add(k, r->dt);
    jv_gpu_key_add(k, r->fmt);
    for (int i = 0; i < r->nd; i++) {
        jv_gpu_key_add(k, r->dims[i]);
        jv_gpu_key_add(k, r->strides[i]);
    }
}

/* Chooses step s's algorithm: from the cache when this configuration was
 * ranked before in this context, else ranked now and cached. */
static jv_status plan_step(cudnnHandle_t h, jv_cuda_conv *p, conv_step *s, jv_cuda_conv_cache *cache, jv_err *err) {
    s->math = p->math;
    if (s->kind == STEP_BWD_BIAS || s->kind == STEP_ADD_BIAS) {
        s->ws = 0;
        return JV_OK;
    }
    jv_gpu_key k;
    memset(&k, 0, sizeof k);
    jv_gpu_key_add(&k, s->kind);
    jv_gpu_key_add(&k, p->search);
    jv_gpu_key_add(&k, p->math);
    jv_gpu_key_add(&k, (int64_t)p->ws_limit);
    for (int i = 0; i < p->conv_key_n; i++)
        jv_gpu_key_add(&k, p->conv_key[i]);
    key_rec(&k, &p->rec[s->in0]);
    key_rec(&k, &p->rec[s->in1]);
    key_rec(&k, &p->rec[s->out]);
    const jv_cuda_conv_choice *hit = cache ? jv_cuda_conv_cache_find(cache, &k) : NULL;
    if (hit) {
        if (s->kind == STEP_FWD) s->fwd = (cudnnConvolutionFwdAlgo_t)hit->algo;
        if (s->kind == STEP_BWD_DATA) s->bwd_data = (cudnnConvolutionBwdDataAlgo_t)hit->algo;
        if (s->kind == STEP_BWD_FILTER) s->bwd_filter = (cudnnConvolutionBwdFilterAlgo_t)hit->algo;
        s->math = (cudnnMathType_t)hit->math;
        s->ws = hit->ws;
        return JV_OK;
    }
    JV_CHECK(rank_step(h, p, s, err));
    jv_cuda_conv_choice v;
    v.algo = s->kind == STEP_FWD ? (int)s->fwd : s->kind == STEP_BWD_DATA ? (int)s->bwd_data : (int)s->bwd_filter;
    v.math = (int)s->math;
    v.ws = s->ws;
    return cache ? jv_cuda_conv_cache_put(cache, &k, &v, err) : JV_OK;
}

static jv_status conv_plan_body(cudnnHandle_t h, const jv_conv_desc *g, const jv_operands *ops, jv_cuda_conv *p,
                                jv_cuda_conv_cache *cache, jv_err *err) {
    const char *what = p->name;
    cudnnDataType_t dt;
    if (!dnn_type(g->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: no cuDNN convolution for %s", what, jv_dtype_short(g->dtype));
    p->f64 = dt == CUDNN_DATA_DOUBLE;
    if (g->pad_mode == JV_CONV_PAD_SAME)
        for (int i = 0; i < g->nd; i++)
            if ((g->dilation[i] * (g->w.shape[2 + i] - 1)) % 2)
                JV_FAIL(err, JV_ERR_NOTFOUND,
                        "cuda backend: %s: padding='same' with an even kernel pads asymmetrically (cuDNN cannot)",
                        what);
    if (g->groups < 1 || g->groups > INT_MAX)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: groups %lld", what, (long long)g->groups);
    int sp = g->nd < 2 ? 2 : g->nd;
    int pad[JV_CONV_MAX_SPATIAL], str[JV_CONV_MAX_SPATIAL], dil[JV_CONV_MAX_SPATIAL];
    for (int i = 0; i < sp; i++) {
        pad[i] = 0, str[i] = 1, dil[i] = 1;
        if (i < g->nd) {
            if (g->padding[i] > INT_MAX || g->stride[i] > INT_MAX || g->dilation[i] > INT_MAX)
                JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: conv parameters exceed int", what);
            pad[i] = (int)g->padding[i], str[i] = (int)g->stride[i], dil[i] = (int)g->dilation[i];
        }
    }
    DNN_CALL(err, what, cudnnCreateConvolutionDescriptor(&p->conv));
    DNN_CALL(err, what,
             cudnnSetConvolutionNdDescriptor(p->conv, sp, pad, str, dil, CUDNN_CROSS_CORRELATION,
                                             p->f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    DNN_CALL(err, what, cudnnSetConvolutionGroupCount(p->conv, (int)g->groups));
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    if (dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16)
        math = CUDNN_TENSOR_OP_MATH;
    else if (dt == CUDNN_DATA_FLOAT && g->allow_tf32 == 0)
        math = CUDNN_FMA_MATH; /* no TF32 */
    p->math = math;
    DNN_CALL(err, what, cudnnSetConvolutionMathType(p->conv, math));
    p->conv_key_n = 0;
    p->conv_key[p->conv_key_n++] = dt;
    p->conv_key[p->conv_key_n++] = g->groups;
    p->conv_key[p->conv_key_n++] = sp;
    for (int i = 0; i < sp; i++) {
        p->conv_key[p->conv_key_n++] = pad[i];
        p->conv_key[p->conv_key_n++] = str[i];
        p->conv_key[p->conv_key_n++] = dil[i];
    }

    /* the memory format, as PyTorch's cudnn_conv_suggest_memory_format: channels_last (3d) for a 4-d (5-d)
     * weight when the input or the weight suggests it, never for double */
    int x_op = jv_operands_find(ops, "input"), w_op = jv_operands_find(ops, "weight");
    int cl = 0;
    if (!p->f64 && w_op >= 0 && (ops->o[w_op].t.ndim == 4 || ops->o[w_op].t.ndim == 5))
        cl = jv_tensor_suggest_channels_last(&ops->o[w_op].t) ||
             (x_op >= 0 && ops->o[x_op].t.ndim == ops->o[w_op].t.ndim &&
              jv_tensor_suggest_channels_last(&ops->o[x_op].t));
    /* descriptors: weights as filters, everything else as tensors (size-1 strides canonical in that format) */
    for (int i = 0; i < ops->n; i++) {
        const jv_operand *o = &ops->o[i];
        if (!strcmp(o->name, "weight") || !strcmp(o->name, "grad_weight"))
            JV_CHECK(filter_desc(&p->fd[i], &o->t, cl, &p->rec[i], what, err));
        else if (strcmp(o->name, "bias") && strcmp(o->name, "grad_bias"))
            JV_CHECK(tensor_desc(&p->td[i], &o->t, cl, &p->rec[i], what, err));
    }
    int ix = jv_operands_find(ops, "input"), iw = jv_operands_find(ops, "weight"), ib = jv_operands_find(ops, "bias"),
        io = jv_operands_find(ops, "out");
    int igo = jv_operands_find(ops, "grad_output"), igi = jv_operands_find(ops, "grad_input"),
        igw = jv_operands_find(ops, "grad_weight");
    int igb = jv_operands_find(ops, "grad_bias");
    int bias_src = -1, bias_dst = -1;
    if (g->op != JV_CONV_BACKWARD) {
        if (ix < 0 || iw < 0 || io < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: operands missing", what);
        conv_step s = {0};
        if (!g->transposed)
            s.kind = STEP_FWD, s.in0 = ix, s.in1 = iw, s.out = io;
        else
            s.kind = STEP_BWD_DATA, s.in0 = iw, s.in1 = ix, s.out = io;
        p->steps[p->nsteps++] = s;
        if (ib >= 0) {
            conv_step b = {0};
            b.kind = STEP_ADD_BIAS, b.in0 = ib, b.out = io;
            p->steps[p->nsteps++] = b;
            bias_src = ib, bias_dst = io;
        }
    } else {
        if (igo < 0 || ix < 0 || iw < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: operands missing", what);
        if (igi >= 0) {
            conv_step s = {0};
            if (!g->transposed)
                s.kind = STEP_BWD_DATA, s.in0 = iw, s.in1 = igo, s.out = igi;
            else
                s.kind = STEP_FWD, s.in0 = igo, s.in1 = iw, s.out = igi;
            p->steps[p->nsteps++] = s;
        }
        if (igw >= 0) {
            conv_step s = {0};
            s.kind = STEP_BWD_FILTER;
            if (!g->transposed)
                s.in0 = ix, s.in1 = igo;
            else
                s.in0 = igo, s.in1 = ix;
            s.out = igw;
            p->steps[p->nsteps++] = s;
        }
        if (igb >= 0) {
            conv_step s = {0};
            s.kind = STEP_BWD_BIAS, s.in0 = igo, s.out = igb;
            p->steps[p->nsteps++] = s;
            bias_src = igo, bias_dst = igb;
        }
    }
    if (bias_src >= 0 && bias_dst == igb) {
        /* grad_bias: our kernel (jv_gpu_conv_bias_grad; cuDNN's cudnnConvolutionBackwardBias refuses bf16) over
         * grad_output's own dims and strides, into a [C] vector of grad_output's dtype */
        const jv_tensor *bt = &ops->o[igb].t, *dy = &ops->o[igo].t;
        if (bt->ndim != 1 || bt->shape[0] < 1 || dy->ndim < 2 || dy->ndim > JV_GPU_CONV_MAX_DIMS ||
            bt->shape[0] != dy->shape[1])
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: the bias gradient is not a [C] vector of grad_output's C",
                    what);
        if (bt->dtype != dy->dtype)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: grad_bias %s for grad_output %s (one dtype expected)",
                    what, jv_dtype_short(bt->dtype), jv_dtype_short(dy->dtype));
        p->dy = *dy;
        if (!p->dy.has_strides) jv_tensor_set_contiguous(&p->dy);
        for (int i = 0; i < p->dy.ndim; i++)
            if (p->dy.strides[i] < 0)
                JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: grad_output has a negative stride", what);
    } else if (bias_src >= 0) {
        /* the bias as [1, C, 1, ...] over the output's dims (cudnnAddTensor broadcasts it into the output's
         * own descriptor, whatever the output's strides) */
        const jv_tensor *bt = &ops->o[bias_src].t; /* [C] */
        if (bt->ndim != 1 || bt->shape[0] > INT_MAX || bt->shape[0] < 1)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: the bias is not a [C] vector", what);
        jv_tensor b4;
        memset(&b4, 0, sizeof b4);
        b4.ndim = g->nd + 2 < 4 ? 4 : g->nd + 2;
        for (int i = 0; i < b4.ndim; i++)
            b4.shape[i] = 1;
        b4.shape[1] = bt->shape[0];
        b4.dtype = bt->dtype;
        jv_tensor_set_contiguous(&b4);
        desc_rec r;
        if (!jv_gpu_dnn_dims(&b4, cl, r.dims, r.strides))
            JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: %s: the bias is too large for cuDNN", what);
        DNN_CALL(err, what, cudnnCreateTensorDescriptor(&p->bias_td));
        DNN_CALL(err, what, cudnnSetTensorNdDescriptor(p->bias_td, dt, b4.ndim, r.dims, r.strides));
    }
    for (int i = 0; i < p->nsteps; i++)
        JV_CHECK(plan_step(h, p, &p->steps[i], cache, err));
    return JV_OK;
}

jv_status jv_cuda_conv_plan(cudnnHandle_t h, const jv_desc *d, const jv_operands *ops, int search, size_t ws_limit,
                            jv_cuda_conv_cache *cache, jv_cuda_conv **out, jv_err *err) {
    const jv_conv_desc *g = jv_conv_of(d);
    *out = NULL;
    jv_cuda_conv *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: conv plan: out of memory");
    p->name = g->op == JV_CONV_BACKWARD ? "aten::convolution_backward"
              : g->transposed           ? "transposed convolution"
                                        : "aten::convolution";
    p->search = search;
    p->ws_limit = ws_limit;
    jv_status st = conv_plan_body(h, g, ops, p, cache, err);
    if (st != JV_OK) {
        jv_cuda_conv_free(p);
        return st;
    }
    *out = p;
    return JV_OK;
}

jv_status jv_cuda_conv_run(cudnnHandle_t h, const jv_cuda_conv *p, void *const *bufs, void *ws, size_t ws_bytes,
                           jv_err *err) {
    float one_f = 1.0f, zero_f = 0.0f;
    double one_d = 1.0, zero_d = 0.0;
    const void *one = p->f64 ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = p->f64 ? (const void *)&zero_d : (const void *)&zero_f;
    const char *what = p->name;
    for (int i = 0; i < p->nsteps; i++) {
        const conv_step *s = &p->steps[i];
        if (s->ws > ws_bytes)
            JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: workspace %zu bytes, needs %zu", what, ws_bytes, s->ws);
        if (s->kind == STEP_FWD || s->kind == STEP_BWD_DATA || s->kind == STEP_BWD_FILTER)
            DNN_CALL(err, what, cudnnSetConvolutionMathType(p->conv, s->math));
        switch (s->kind) {
        case STEP_FWD:
            DNN_CALL(err, what,
                     cudnnConvolutionForward(h, one, p->td[s->in0], bufs[s->in0], p->fd[s->in1], bufs[s->in1], p->conv,
                                             s->fwd, ws, s->ws, zero, p->td[s->out], bufs[s->out]));
            break;
        case STEP_BWD_DATA:
            DNN_CALL(err, what,
                     cudnnConvolutionBackwardData(h, one, p->fd[s->in0], bufs[s->in0], p->td[s->in1], bufs[s->in1],
                                                  p->conv, s->bwd_data, ws, s->ws, zero, p->td[s->out], bufs[s->out]));
            break;
        case STEP_BWD_FILTER:
            DNN_CALL(err, what,
                     cudnnConvolutionBackwardFilter(h, one, p->td[s->in0], bufs[s->in0], p->td[s->in1], bufs[s->in1],
                                                    p->conv, s->bwd_filter, ws, s->ws, zero, p->fd[s->out],
                                                    bufs[s->out]));
            break;
        case STEP_BWD_BIAS: {
            cudaStream_t stream = NULL;
            DNN_CALL(err, what, cudnnGetStream(h, &stream));
            int code = jv_gpu_conv_bias_grad(p->dy.dtype, bufs[s->in0], p->dy.ndim, p->dy.shape, p->dy.strides,
                                             bufs[s->out], stream);
            if (code != 0)
                JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: %s: jv_gpu_conv_bias_grad failed: %s", what,
                        cudaGetErrorString((cudaError_t)code));
            break;
        }
        case STEP_ADD_BIAS:
            DNN_CALL(err, what, cudnnAddTensor(h, one, p->bias_td, bufs[s->in0], one, p->td[s->out], bufs[s->out]));
            break;
        }
    }
    return JV_OK;
}

/* ---- batch norm ---- */

struct jv_cuda_bn {
    cudnnBatchNormMode_t mode;
    cudnnTensorDescriptor_t xd, yd, bnd; /* yd: out (forward) or grad_out / grad_input (backward) */
    int bwd, training, f64;
    double momentum, eps;
    int ix, iy, iw, ib, irm, irv, ism, isv, idy, idx, idw, idb;
    size_t dx_bytes, p_bytes; /* scratch for grads output_mask leaves out */
};

void jv_cuda_bn_free(jv_cuda_bn *p) {
    if (!p) return;
    if (p->xd) cudnnDestroyTensorDescriptor(p->xd);
    if (p->yd) cudnnDestroyTensorDescriptor(p->yd);
    if (p->bnd) cudnnDestroyTensorDescriptor(p->bnd);
    free(p);
}

int jv_cuda_bn_possible(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    int ix = jv_operands_find(ops, "input"), idy = jv_operands_find(ops, "grad_out");
    jv_dtype x = g->x.dtype;
    jv_dtype pdt = x == JV_DT_F64 ? JV_DT_F64 : JV_DT_F32;
    const char *r = NULL;
    if (x != JV_DT_F32 && x != JV_DT_F16 && x != JV_DT_F64)
        r = "PyTorch runs bf16 (and non-float) batch norm natively";
    else if (ix < 0 || (g->bwd && idy < 0))
        r = "operands missing";
    else if (!g->has_weight || g->weight_dtype != pdt)
        r = "cuDNN batch norm needs a weight of the statistics dtype (fp32; fp64 for double)";
    else if (!g->bwd && (!g->has_bias || g->bias_dtype != pdt))
        r = "cuDNN batch norm needs a bias of the statistics dtype";
    else if (g->has_running && g->running_dtype != pdt)
        r = "cuDNN batch norm needs running statistics of the statistics dtype";
    else if (g->x.ndim < 3 || g->x.ndim > 5)
        r = "PyTorch uses cuDNN batch norm only for 3-d to 5-d inputs";
    else if ((g->training && g->x.shape[0] > 880801) || (!g->training && g->x.shape[0] > 65535))
        r = "the batch exceeds cuDNN's limit";
    else if (g->n >= INT32_MAX)
        r = "more than 2^31 elements";
    else if (g->eps < CUDNN_BN_MIN_EPSILON)
        r = "eps below cuDNN's minimum";
    else if (g->bwd && !g->training)
        r = "PyTorch runs the eval backward natively";
    else if (g->bwd && (!g->has_saved || g->stat_dtype != pdt))
        r = "cuDNN backward needs save_mean / save_invstd of the statistics dtype";
    else if (!g->bwd && g->training && g->stat_dtype != pdt)
        r = "cuDNN returns save_mean / save_invstd in the statistics dtype only";
    else if (!(jv_gpu_dense_in(&ops->o[ix].t, 0) || jv_gpu_dense_in(&ops->o[ix].t, 1)))
        r = "the input is neither dense NCHW nor dense channels_last";
    else if (g->bwd && memcmp(ops->o[idy].t.strides, ops->o[ix].t.strides, sizeof(int64_t) * (size_t)g->x.ndim))
        r = "grad_out's strides differ from the input's (PyTorch would copy it first)";
    if (r) {
        snprintf(why, cap, "%s", r);
        return 0;
    }
    return 1;
}

int jv_cuda_bn_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    if (jv_batchnorm_of(d)->impl == JV_BN_IMPL_NATIVE) {
        snprintf(why, cap, "traced on PyTorch's native kernels");
        return 0;
    }
    return jv_cuda_bn_possible(d, ops, why, cap);
}

#define BN_ALIGN(v) (((v) + 255) / 256 * 256)

jv_status jv_cuda_bn_plan(const jv_desc *d, const jv_operands *ops, size_t ws_limit, jv_cuda_bn **out, jv_err *err) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    char why[160];
    *out = NULL;
    if (!jv_cuda_bn_possible(d, ops, why, sizeof why))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cuda backend: batch norm not on cuDNN: %s", why);
    jv_cuda_bn *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cuda backend: batch norm plan: out of memory");
    p->bwd = g->bwd, p->training = g->training, p->f64 = g->x.dtype == JV_DT_F64;
    p->momentum = g->momentum, p->eps = g->eps;
    p->ix = jv_operands_find(ops, "input"), p->iy = jv_operands_find(ops, "out"),
    p->iw = jv_operands_find(ops, "weight");
    p->ib = jv_operands_find(ops, "bias"), p->irm = jv_operands_find(ops, "running_mean"),
    p->irv = jv_operands_find(ops, "running_var");
    p->ism = jv_operands_find(ops, "save_mean"), p->isv = jv_operands_find(ops, "save_invstd"),
    p->idy = jv_operands_find(ops, "grad_out");
    p->idx = jv_operands_find(ops, "grad_input"), p->idw = jv_operands_find(ops, "grad_weight"),
    p->idb = jv_operands_find(ops, "grad_bias");
    const char *what = g->bwd ? "batch norm backward (cuDNN)" : "batch norm (cuDNN)";
    jv_status st = JV_OK;
    /* PyTorch's getCudnnBatchNormMode over input.suggest_memory_format() */
    const jv_tensor *xt = &ops->o[p->ix].t;
    p->mode = (cudnnBatchNormMode_t)jv_cuda_bn_mode(g->training, jv_tensor_suggest_channels_last(xt), xt->ndim);
    if (p->ix < 0 || p->iw < 0 || (!g->bwd && (p->iy < 0 || p->ib < 0)) ||
        (g->bwd && (p->idy < 0 || p->ism < 0 || p->isv < 0)) || (!g->training && (p->irm < 0 || p->irv < 0))) {
        st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__, "cuda backend: %s: operands missing", what);
        goto fail;
    }
    /* each descriptor with its size-1 strides canonical in its own suggested memory format, as
     * PyTorch's TensorDescriptor(t, 4) */
    const jv_tensor *yt = &ops->o[g->bwd ? p->idy : p->iy].t;
    JV_CHECK_GOTO(tensor_desc(&p->xd, xt, jv_tensor_suggest_channels_last(xt), NULL, what, err), st, fail);
    JV_CHECK_GOTO(tensor_desc(&p->yd, yt, jv_tensor_suggest_channels_last(yt), NULL, what, err), st, fail);
    cudnnStatus_t ds = cudnnCreateTensorDescriptor(&p->bnd);
    if (ds == CUDNN_STATUS_SUCCESS) ds = cudnnDeriveBNTensorDescriptor(p->bnd, p->xd, p->mode);
    if (ds != CUDNN_STATUS_SUCCESS) {
        st = DNN_FAIL_CALL(err, what, cudnnDeriveBNTensorDescriptor, ds);
        goto fail;
    }
    if (g->bwd) {
        /* cuDNN writes all three grads: scratch for those output_mask leaves out (dx has x's layout) */
        const jv_tensor *x = &ops->o[p->ix].t;
        if (p->idx < 0) p->dx_bytes = BN_ALIGN((size_t)jv_tensor_extent(x) * jv_dtype_size(x->dtype));
        p->p_bytes = BN_ALIGN((size_t)g->c * (p->f64 ? 8 : 4));
        if (p->dx_bytes + 2 * p->p_bytes > ws_limit) {
            st = jv_err_set(err, JV_ERR_NOTFOUND, __FILE__, __LINE__,
                            "cuda backend: %s: the grads output_mask leaves out need %zu MiB of scratch, more than the "
                            "%zu MiB workspace",
                            what, (p->dx_bytes + 2 * p->p_bytes + (1u << 20) - 1) >> 20, ws_limit >> 20);
            goto fail;
        }
    }
    *out = p;
    return JV_OK;
fail:
    jv_cuda_bn_free(p);
    return st;
}

jv_status jv_cuda_bn_run(cudnnHandle_t h, const jv_cuda_bn *p, void *const *bufs, void *ws, size_t ws_bytes,
                         jv_err *err) {
    float one_f = 1.0f, zero_f = 0.0f;
    double one_d = 1.0, zero_d = 0.0;
    const void *one = p->f64 ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = p->f64 ? (const void *)&zero_d : (const void *)&zero_f;
#define BUF(i) ((i) >= 0 ? bufs[i] : NULL)
    if (!p->bwd && p->training) {
        DNN_CALL(err, "batch norm training forward (cuDNN)",
                 cudnnBatchNormalizationForwardTraining(h, p->mode, one, zero, p->xd, bufs[p->ix], p->yd, bufs[p->iy],
                                                        p->bnd, bufs[p->iw], bufs[p->ib], p->momentum, BUF(p->irm),
                                                        BUF(p->irv), p->eps, BUF(p->ism), BUF(p->isv)));
    } else if (!p->bwd) {
        DNN_CALL(err, "batch norm eval forward (cuDNN)",
                 cudnnBatchNormalizationForwardInference(h, p->mode, one, zero, p->xd, bufs[p->ix], p->yd, bufs[p->iy],
                                                         p->bnd, bufs[p->iw], bufs[p->ib], bufs[p->irm], bufs[p->irv],
                                                         p->eps));
    } else {
        if (p->dx_bytes + 2 * p->p_bytes > ws_bytes)
            JV_FAIL(err, JV_ERR_INTERNAL, "cuda backend: batch norm backward: workspace too small");
        char *w = ws;
        void *dx = p->idx >= 0 ? bufs[p->idx] : w;
        void *dw = p->idw >= 0 ? bufs[p->idw] : w + p->dx_bytes;
        void *db = p->idb >= 0 ? bufs[p->idb] : w + p->dx_bytes + p->p_bytes;
        /* dx has the input's strides (jv_batchnorm_operands), so x's descriptor describes it */
        DNN_CALL(err, "batch norm backward (cuDNN)",
                 cudnnBatchNormalizationBackward(h, p->mode, one, zero, one, zero, p->xd, bufs[p->ix], p->yd,
                                                 bufs[p->idy], p->xd, dx, p->bnd, bufs[p->iw], dw, db, p->eps,
                                                 bufs[p->ism], bufs[p->isv]));
    }
#undef BUF
    return JV_OK;
}
