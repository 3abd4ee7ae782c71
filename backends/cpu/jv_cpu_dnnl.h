/* jv_cpu_dnnl: the CPU backend's library side, oneDNN (as PyTorch's CPU path):
 * one engine and one in-order stream per backend context, and the plans of
 * the families oneDNN runs (GEMM: matmul; convolution: forward, backward data,
 * backward weights). Each plan maps the traced shapes, strides and dtypes to
 * oneDNN memory descriptors and runs synchronously on the stream (the run
 * returns when the results are in memory, so the backend's host timer times
 * it). Built when oneDNN is found (JV_HAVE_DNNL); without it the CPU backend
 * says so and runs no op. */
#ifndef JV_CPU_DNNL_H
#define JV_CPU_DNNL_H

#include <stddef.h>

#include "jv_family.h"
#include "jv_status.h"

#ifdef JV_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

/* The engine and stream of one backend context. */
typedef struct {
    dnnl_engine_t eng;
    dnnl_stream_t stream;
} jv_cpu_dnnl;

/* Opens the CPU engine and its stream. JV_ERR_INTERNAL naming oneDNN's status when it cannot. */
jv_status jv_cpu_dnnl_open(jv_cpu_dnnl *x, jv_err *err);
/* Releases them (safe on a zeroed x). */
void jv_cpu_dnnl_close(jv_cpu_dnnl *x);
/* The oneDNN data type of a storage dtype (fp32, bf16, fp16); 0 for any other. */
int jv_cpu_dnnl_type(jv_dtype dt, dnnl_data_type_t *out);
/* Tensor t's dims and strides as a oneDNN memory descriptor (no copy: any strided view). JV_ERR_NOTFOUND
 * naming what for a dtype oneDNN has no type for ("unsupported dtype <dt> on this CPU") or a negative stride. */
jv_status jv_cpu_dnnl_md(const jv_tensor *t, dnnl_memory_desc_t *md, const char *what, jv_err *err);
/* The primitive of pd, which it consumes (destroys). JV_ERR_INTERNAL naming what on failure (*prim NULL). */
jv_status jv_cpu_dnnl_primitive(dnnl_primitive_desc_t pd, dnnl_primitive_t *prim, const char *what, jv_err *err);
/* 1 when pd runs oneDNN's reference (scalar, loop-per-element) implementation. */
int jv_cpu_dnnl_is_ref(const_dnnl_primitive_desc_t pd);
/* oneDNN's status as text ("unimplemented", "invalid_arguments", ...). */
const char *jv_cpu_dnnl_status_str(dnnl_status_t s);

/* Calls a oneDNN function; on failure fails with JV_ERR_INTERNAL naming what and the status. */
#define JV_DNNL_CALL(err, what, call)                                                                                  \
    do {                                                                                                               \
        dnnl_status_t dn_s_ = (call);                                                                                  \
        if (dn_s_ != dnnl_success)                                                                                     \
            JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: %s failed: %s", what, #call,                               \
                    jv_cpu_dnnl_status_str(dn_s_));                                                                    \
    } while (0)

/* One primitive of a plan and its arguments: each argument's memory is over an operand's storage (op >= 0:
 * the handle is set to that operand's buffer every run) or fixed at plan time (op -1); own: the plan destroys
 * the memory. */
#define JV_CPU_DNNL_ARGS 10
typedef struct {
    int arg; /* DNNL_ARG_* */
    int op;  /* operand index, or -1 */
    int own; /* the plan destroys mem */
    dnnl_memory_t mem;
} jv_cpu_dnnl_arg;
typedef struct {
    dnnl_primitive_t prim;
    int nargs;
    jv_cpu_dnnl_arg a[JV_CPU_DNNL_ARGS];
} jv_cpu_dnnl_step;

/* Runs steps[0..n) in order on x's stream over the operand buffers bufs (one run of a plan at a time: the
 * memories are the plan's) and waits for them. Messages name what. */
jv_status jv_cpu_dnnl_exec(const jv_cpu_dnnl *x, const jv_cpu_dnnl_step *steps, int n, void *const *bufs,
                           const char *what, jv_err *err);

/* GEMM (aten::mm, addmm, bmm, baddbmm, matmul-as-mm ...) through oneDNN matmul: jv_cpu_gemm.c. */
typedef struct jv_cpu_gemm jv_cpu_gemm;
/* Plans parsed GEMM call d over ops (jv_desc_operands order, traced strides). JV_ERR_NOTFOUND with the reason
 * when oneDNN cannot run it here (an unsupported dtype on this CPU says "unsupported dtype <dt> on this CPU"),
 * JV_ERR_NOMEM. */
jv_status jv_cpu_gemm_plan(const jv_cpu_dnnl *x, const jv_desc *d, const jv_operands *ops, jv_cpu_gemm **out,
                           jv_err *err);
/* Runs it over host buffers bufs[i] (storage bases of ops->o[i]) and waits for the stream. */
jv_status jv_cpu_gemm_run(const jv_cpu_dnnl *x, const jv_cpu_gemm *p, void *const *bufs, jv_err *err);
/* Frees a plan (safe on NULL). */
void jv_cpu_gemm_free(jv_cpu_gemm *p);

/* Convolution (aten::convolution forward; convolution_backward: data, weights, bias) through oneDNN
 * convolution primitives: jv_cpu_conv.c. Same contract as the GEMM trio. */
typedef struct jv_cpu_conv jv_cpu_conv;
jv_status jv_cpu_conv_plan(const jv_cpu_dnnl *x, const jv_desc *d, const jv_operands *ops, jv_cpu_conv **out,
                           jv_err *err);
jv_status jv_cpu_conv_run(const jv_cpu_dnnl *x, const jv_cpu_conv *p, void *const *bufs, jv_err *err);
void jv_cpu_conv_free(jv_cpu_conv *p);

/* Batch norm (native_batch_norm, cudnn_batch_norm, batch_norm, their backward; training and inference)
 * through oneDNN batch normalization: jv_cpu_bn.c. Same contract as the GEMM trio; what oneDNN does not do
 * (PyTorch's running-statistics update with momentum and the unbiased variance, save_invstd) is done by the
 * plan's own loop over the channels. */
typedef struct jv_cpu_bn jv_cpu_bn;
jv_status jv_cpu_bn_plan(const jv_cpu_dnnl *x, const jv_desc *d, const jv_operands *ops, jv_cpu_bn **out, jv_err *err);
jv_status jv_cpu_bn_run(const jv_cpu_dnnl *x, const jv_cpu_bn *p, void *const *bufs, jv_err *err);
void jv_cpu_bn_free(jv_cpu_bn *p);

#endif /* JV_HAVE_DNNL */
#endif
