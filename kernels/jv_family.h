/* jv_family: the interface every op family implements, and the registry that
 * lists them (jv_registry.c). A family recognises op names, parses a call
 * (jv_opcall: from trace args or replay IR) into its descriptor, and owns the
 * one FLOPs/bytes model of the op that analysis reports and replay measures
 * against, its ATen schemas (for writing replay IR), its report category and
 * its findings data, and its CPU reference. Adding a family = one folder in
 * kernels/ plus one line in kernels/families.def (CONTRIBUTING.md). */
#ifndef JV_FAMILY_H
#define JV_FAMILY_H

#include <stddef.h>

#include "jv_opcall.h"
#include "jv_repro_cmd.h"
#include "jv_status.h"
#include "jv_tensor.h"

/* The family ids, one per line of families.def, in its order: JV_FAM_GEMM is
 * family 0 of the registry (jv_family_get(JV_FAM_GEMM)). Code outside
 * kernels/ that must treat one family specially (a backend's vendor-library
 * path) switches on these, never on a family's name. A test build's own
 * families (tests/kernels/test_families.def) come after JV_FAM_COUNT. */
typedef enum {
#define JV_FAMILY(name, NAME) JV_FAM_##NAME,
#include "families.def"
#undef JV_FAMILY
    JV_FAM_COUNT
} jv_family_id;

/* The report category a family's rows are summarised under (category_data/,
 * metadata/, category_findings/ and the standalone / comparative analyses).
 * JV_REPORT_OTHER (0, the default): none of the four seeded categories. */
typedef enum {
    JV_REPORT_OTHER = 0,
    JV_REPORT_GEMM,
    JV_REPORT_CONV,
    JV_REPORT_BATCHNORM,
    JV_REPORT_ELEMENTWISE
} jv_report_cat;

/* How strongly an op name belongs to a family. A kernel is attributed to the
 * outermost op with a model on its call chain, except that a weak op (a
 * composite such as aten::linear or aten::softmax) is used only when no op
 * with a model lies between it and the kernel. */
typedef enum { JV_MATCH_NONE = 0, JV_MATCH_STRONG, JV_MATCH_WEAK } jv_match;

/* The model's numbers for one call. */
typedef struct {
    double flops;   /* floating-point (or integer) operations */
    double bytes;   /* minimal bytes moved to and from memory; NAN when a dtype size is unknown */
    jv_dtype dtype; /* the dtype that sets the compute peak */
    int matrix;     /* 1: matrix units (tensor cores / MFMA); 0: vector units */
} jv_perf;

/* One "param: X" column of a family sheet. Text is Python's str() of the
 * value, as TraceLens prints it; numeric params also carry num. */
typedef struct {
    const char *name; /* column name without the "param: " prefix */
    int is_num;
    double num;
    char text[200];
} jv_param;

#define JV_MAX_PARAMS 20
typedef struct {
    int n;
    jv_param p[JV_MAX_PARAMS];
} jv_params;

/* ---- replay operands ---- */

/* How a replay uses a tensor. */
typedef enum {
    JV_ROLE_IN = 0, /* read only */
    JV_ROLE_OUT,    /* written only: poisoned before a run, every element checked */
    JV_ROLE_INOUT   /* read then written (in-place ops, running statistics) */
} jv_role;

/* How a replay fills a tensor before the run. */
typedef enum {
    JV_INIT_NORMAL = 0, /* seeded random normal N(0, 1) */
    JV_INIT_POSITIVE,   /* seeded random uniform in [0.5, 1.5] (variances, inverse stds) */
    JV_INIT_MASK,       /* seeded random 0 or 1 (bool masks, conditions) */
    JV_INIT_NONE,       /* not read: an OUT tensor (poisoned) */
    JV_INIT_INDEX       /* element i of the storage holds i (positions 0..n-1 of a rotary embedding) */
} jv_init;

/* One tensor of a replay. t always has strides (has_strides = 1), all >= 0;
 * its storage spans jv_tensor_extent(&t) elements. An OUT or INOUT tensor
 * has no zero stride on a dim of size > 1 (no element written twice). */
typedef struct {
    char name[24]; /* ATen argument name ("self", "weight", "out", "grad_input") */
    jv_tensor t;
    jv_role role;
    jv_init init;
} jv_operand;

#define JV_MAX_OPERANDS 12
typedef struct {
    int n;
    jv_operand o[JV_MAX_OPERANDS];
} jv_operands;

/* A subset of one operand's elements, by row-major logical index (see
 * jv_tensor_offset_at), for sampled verification of big ops. */
typedef struct {
    int operand; /* index in jv_operands */
    int64_t n;
    const int64_t *idx; /* n logical indices, each in [0, numel) */
} jv_sample;

/* A parsed call of some family: the family's own struct lives in data. */
#define JV_DESC_BYTES 1024
#ifdef __cplusplus /* device sources (.cu) include the family headers as C++ */
#define JV_ALIGNAS(n) alignas(n)
#else
#define JV_ALIGNAS(n) _Alignas(n)
#endif
typedef struct {
    int family; /* index in the registry */
    int bwd;    /* 1 for a backward op: its rows go to <sheet>_bwd when the sheet splits */
    JV_ALIGNAS(16) unsigned char data[JV_DESC_BYTES];
} jv_desc;

/* The implementation a traced op ran through, as its op and kernel names tell. */
typedef enum {
    JV_IMPL_UNKNOWN = 0, /* the names do not say */
    JV_IMPL_NATIVE,      /* PyTorch's own (at::native) kernels */
    JV_IMPL_CUDNN,
    JV_IMPL_MIOPEN
} jv_impl;

/* What a family reads from a traced op's names (jv_family_findings.impl). */
typedef struct {
    jv_impl impl; /* JV_IMPL_UNKNOWN when the family does not say */
    int nhwc;     /* 1: the op's compute kernels (layout conversions aside) run NHWC */
} jv_impl_info;

/* What a parsed call tells the findings beyond its model (jv_family_findings.facts), typed; each member
 * keeps its "not said" value unless the family sets it. */
typedef struct {
    int kh, kw;            /* convolution: the weight's kernel height and width (kw 1 for 1-D); 0: not said */
    int training;          /* batch norm: 1 batch statistics, 0 running statistics; -1: not said */
    int no_affine;         /* batch norm: 1 when the call passes no affine weight; 0: passes one or not said */
    double m, n, k, batch; /* GEMM: its dims (batch 1 for a plain matrix product); NaN: not said */
} jv_family_facts;

/* The findings hook: what the findings and the comparative analysis say about
 * a family's ops beyond its category. */
typedef struct {
    /* The library or backend the family's ops run through, named where a
     * comparison says why two sides differ ("the SDPA backend (flash /
     * memory-efficient attention kernels)"); NULL: said by report category. */
    const char *library_nvidia, *library_amd;
    /* What the names of a traced op (op) and of its kernels (kernels[0..n), the largest first) say about its
     * implementation; the family's own knowledge of its libraries' kernel names. NULL: nothing (unknown). */
    jv_impl_info (*impl)(const char *op, const char *const *kernels, int n);
    /* Sets the members of out that a parsed call of the family tells (out holds the "not said" values).
     * NULL: nothing. */
    void (*facts)(const jv_desc *d, jv_family_facts *out);
} jv_family_findings;

/* Why an op of a family cannot be sized from a trace when its model refuses the recorded call. */
typedef enum {
    JV_UNSIZED_NO = 0,    /* the model needs only what a call records */
    JV_UNSIZED_SEQLENS,   /* its work follows the requests' sequence lengths, tensor values (serving attention) */
    JV_UNSIZED_GENERATED, /* its work is set by generated code the trace does not hold (a compiled template) */
} jv_unsized;

/* One op family. Every family initialises it with designated initializers;
 * absent members are 0 / NULL (no replay, report category other, ...). */
typedef struct {
    const char *name;     /* "gemm" */
    const char *sheet;    /* family sheet name ("GEMM"); with split, "<sheet>_fwd" and "<sheet>_bwd" */
    int split;            /* 1: forward and backward sheets */
    const char *category; /* the op category of its rows ("GEMM", "CONV", "NORM", "elementwise", ...) */
    /* How op name belongs to the family. */
    jv_match (*match)(const char *op);
    /* 1 when name is a host annotation (user_annotation) whose text sizes the family's calls (a serving step's
     * sequence lengths); the analysis hands the nearest such annotation above a traced call to parse in
     * jv_opcall.annotation. NULL: the family reads no annotation. */
    int (*annotation)(const char *name);
    /* Why its op `op` cannot be sized from a trace when the model refuses a call (the reports say it per row).
     * NULL: JV_UNSIZED_NO for every op. */
    jv_unsized (*unsized)(const char *op);
    /* Parses call c into d->data (d->bwd set). JV_ERR_FORMAT, with the reason
     * in err, when the call cannot be modelled (missing shapes, unknown layout). */
    jv_status (*parse)(const jv_opcall *c, jv_desc *d, jv_err *err);
    /* The FLOPs/bytes model of a parsed call. */
    void (*model)(const jv_desc *d, jv_perf *p);
    /* The sheet's param columns for a parsed call (always the same names, in the same order). */
    void (*params)(const jv_desc *d, jv_params *out);
    /* Replay (NULL for a family that is not replayed). The tensors a replay of
     * a parsed call allocates, in a fixed order (jv_operands). JV_ERR_FORMAT,
     * with the reason in err, when this call cannot be replayed (an
     * unsupported dtype or variant). */
    jv_status (*operands)(const jv_desc *d, jv_operands *out, jv_err *err);
    /* The CPU reference: computes the OUT and INOUT operands from the IN and
     * INOUT ones, accumulating in double, for any strides and for fp32, fp16,
     * bf16 (and fp64) storage. bufs[i] is the storage base of ops->o[i]: its
     * element at multi-index idx is at offset jv_tensor_offset(&t, idx).
     * s NULL: every output element; else at least the elements s->idx of
     * operand s->operand (others may be left unwritten). JV_ERR_FORMAT when
     * the call is not supported. */
    jv_status (*reference)(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                           jv_err *err);
    /* 1 when the reference computes every output whatever s asks (its cost does not shrink with a sample,
     * as batch norm's statistics span the whole tensor): a verifier then runs it once, in full, and
     * compares every element rather than calling it once per sampled output. */
    int reference_full;
    /* The relative tolerance of its fp32 outputs where its kernels may legitimately compute in reduced
     * precision (TF32 convolutions, PyTorch's default for cuDNN) or reduce long rows in fp32 (batch norm's
     * statistics); 0: derived from the accumulation length, as exact fp32 arithmetic allows
     * (jv_verify_tol_for). */
    double fp32_tol;
    /* The ATen schemas of its ops (func: lines of native_functions.yaml, "mm.out(Tensor self, Tensor mat2, *,
     * Tensor(a!) out) -> Tensor(a!)"; without a namespace the op is aten::), NULL-terminated, the overloads of
     * one op in the order ir/ tries them. ir/ writes a call's replay IR entry with the first that fits it.
     * NULL: the family's ops are not written to replay IR. */
    const char *const *schemas;
    /* Why the family's ops are not replayed, when it has no operands (a package manifest says it per op);
     * NULL: "the <name> family has no replay yet". */
    const char *no_replay;
    /* The report category of its rows. */
    jv_report_cat report;
    /* The findings hook. */
    jv_family_findings findings;
    /* The reproducer hook (replayed families): fills r (zeroed by the caller) from a parsed call d and its
     * operands ops (as .operands lays them out) with the command lines of the AMD vendor tools that run the
     * same op (or r->amd_none saying why none does) and the PyTorch statement that runs it once
     * (jv_repro_cmd.h), with o's iteration counts. ir/jv_repro assembles them. NULL: no reproducer. */
    void (*repro)(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r);
} jv_family;

/* Number of registered families, and family i (0 <= i < count; NULL
 * otherwise). The table is kernels/jv_families.c (families.def); a test build
 * links its own (tests/kernels/), which adds the test families. */
int jv_family_count(void);
const jv_family *jv_family_get(int i);

/* The family of op name, or -1; *how says strong or weak. */
int jv_family_find(const char *op, jv_match *how);

/* Parses c with the family of its name. JV_ERR_NOTFOUND when no family models
 * the name; JV_ERR_FORMAT (reason in err) when the call cannot be modelled. */
jv_status jv_desc_parse(const jv_opcall *c, jv_desc *d, jv_err *err);

/* The replay operands of a parsed descriptor. JV_ERR_NOTFOUND when its
 * family is not replayed; JV_ERR_FORMAT (reason in err) when the call is not. */
jv_status jv_desc_operands(const jv_desc *d, jv_operands *out, jv_err *err);

/* Runs the CPU reference of a parsed descriptor (see jv_family.reference). */
jv_status jv_desc_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err);

/* Appends an operand (name truncated to fit; strides filled row-major when t
 * has none). JV_ERR_LIMIT past JV_MAX_OPERANDS; JV_ERR_FORMAT when t has a
 * negative dim or stride, a dtype that is not numeric (jv_dtype_is_numeric),
 * or (OUT/INOUT) a zero stride on a dim of size > 1. */
jv_status jv_operands_add(jv_operands *ops, const char *name, const jv_tensor *t, jv_role role, jv_init init,
                          jv_err *err);

/* The index of the operand called name in ops, or -1. */
int jv_operands_find(const jv_operands *ops, const char *name);

/* Model numbers and params of a parsed descriptor. */
void jv_desc_model(const jv_desc *d, jv_perf *p);
void jv_desc_params(const jv_desc *d, jv_params *out);

/* The findings facts of a parsed descriptor (d NULL, or a family without the hook: every member "not said"). */
void jv_desc_facts(const jv_desc *d, jv_family_facts *out);

/* Compute spec of a model: the peak it runs against in the hardware table ("matrix_bf16",
 * "vector_fp32"), or "" when it has none. buf >= 32 bytes. */
const char *jv_perf_compute_spec(const jv_perf *p, char *buf, size_t cap);

/* ---- helpers shared by the families ---- */

/* Elements of t, as a double (exact below 2^53); 0 for a negative shape. */
double jv_numel_d(const jv_tensor *t);

/* Bytes per element of t's dtype as a double; NAN when unknown. */
double jv_bpe(jv_dtype d);

/* Appends a param with Python-str text (printf format). */
void jv_param_text(jv_params *ps, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends an integer param (text and number). */
void jv_param_int(jv_params *ps, const char *name, long long v);
/* Appends a float param printed as Python's repr. */
void jv_param_float(jv_params *ps, const char *name, double v);
/* Appends a bool param ("True"/"False"). */
void jv_param_bool(jv_params *ps, const char *name, int v);
/* Appends a shape or stride tuple "(a, b)" ("(a,)" for one, "()" for none);
 * NULL v prints None. */
void jv_param_tuple(jv_params *ps, const char *name, const int64_t *v, int n);
/* Appends a dtype tuple "('c10::BFloat16', None)"; NULL entries print None. */
void jv_param_dtypes(jv_params *ps, const char *name, const char *const *names, int n);

/* Appends the Normalization sheet's params (the batchnorm and norm families
 * share that sheet): op_shape, dtype_in_out, stride_input, stride_output,
 * num_channels, has_bias, is_affine, is_training, output_mask (the first
 * mask_len entries of mask; NULL mask prints None: a forward op). */
void jv_params_normalization(jv_params *ps, const jv_tensor *x, long long channels, int has_bias, int affine,
                             int training, const int *mask, int mask_len);

/* Formats a tuple like jv_param_tuple into buf (cap bytes). */
void jv_fmt_tuple(char *buf, size_t cap, const int64_t *v, int n);

/* Parses a Concrete Inputs int list of a conv-like param (stride, padding,
 * dilation): "[2, 2]" or "2" or "" (default def), a single value repeated to
 * nd dims. Returns 0 on a malformed text. */
int jv_parse_spatial(const char *s, int nd, long long def, long long *out);

#endif
