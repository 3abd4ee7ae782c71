/* jv_findings_model: the findings of one digest, decided once (jv_digest_finish, for the target and a reference
 * alike) and held by it (jv_digest.findings). Per row: the facts the findings read from its typed call (dtype,
 * layout, kernel size, batch norm implementation and mode, GEMM shape). Per category: the counts and sums its
 * findings file states, its significant rows with their impact projections, its efficiency. Then the findings
 * proper: each a kind, what it refers to (a row or a fusion candidate, by index), the numbers behind it and its
 * recommendation, and their ranking by projected saving. The printers (report/jv_findings.c, jv_standalone.c)
 * format these; they decide nothing and parse nothing. */
#ifndef JV_FINDINGS_MODEL_H
#define JV_FINDINGS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "jv_digest.h"
#include "jv_dtype.h"
#include "jv_family.h"
#include "jv_status.h"
#include "jv_tensor.h"

#define JV_FIND_SIGNIFICANT_PCT 1.0  /* a row is significant from this share of GPU kernel time (%) */
#define JV_FIND_TOP_IMPACT      5    /* significant rows per category with an impact projection */
#define JV_FIND_NTARGETS        3    /* target efficiencies of a projection: 20, 50 and 80 % of peak */
#define JV_FIND_SLOW_PER_CAT    2    /* per-op recommendations per category, at most */
#define JV_FIND_MAX_RECS        12   /* recommendations of the fair report, at most */
#define JV_FIND_LARGE_PCT       10.0 /* an op from this share of GPU kernel time is always covered (%) */
#define JV_FIND_MAX_LARGE       10   /* such ops: at most 10 by construction */
#define JV_FIND_COVERED_SHARE   0.95 /* a finding whose time is this much in a larger recommendation is dropped */
#define JV_FIND_COMM_PART_SHARE 0.01 /* a part of the exposed communication from this share of it is advised apart */

/* How far a recommendation's projected saving can be trusted, and why (the printers name the evidence):
 * high: a measured pattern whose saving is a lower bound (eager attention: the ops between the products);
 * medium: measured time whose saving is an upper bound or rests on a measured ceiling (timeline items, layout
 * conversions, fusion at one kernel per instance, batch norm at the trace's elementwise baseline);
 * low: a projection from the roofline (an op at 50 % of the peak policy's peak). */
typedef enum { JV_CONF_HIGH = 0, JV_CONF_MEDIUM, JV_CONF_LOW } jv_confidence;

/* "high", "medium", "low". */
const char *jv_confidence_name(jv_confidence c);

/* The memory layout of a row's first argument, as the findings name it. */
typedef enum {
    JV_FLAYOUT_UNKNOWN = 0,   /* not a tensor of 3 or more dims */
    JV_FLAYOUT_NO_STRIDES,    /* no strides recorded */
    JV_FLAYOUT_CONTIGUOUS,    /* row-major dense: NCHW with 4 dims, NCDHW with 5 */
    JV_FLAYOUT_CHANNELS_LAST, /* NHWC / NDHWC in memory */
    JV_FLAYOUT_OTHER          /* another layout (jv_flayout.layout) */
} jv_flayout_kind;

typedef struct {
    jv_flayout_kind kind;
    jv_layout layout; /* JV_FLAYOUT_OTHER: which (jv_layout_name) */
    int ndim;
} jv_flayout;

/* The findings' facts of one row (jv_dfindings.rows[i] belongs to jv_digest.rows[i]). */
typedef struct {
    jv_dtype dtype;    /* the first argument's dtype when it is bf16, fp16, fp32 or fp64, else JV_DT_UNKNOWN (the
                          findings then show the recorded type, jv_drow.type0) */
    jv_flayout layout; /* of the first argument */
    int compute_bound; /* the row's bound is COMPUTE_BOUND */
    int backward;      /* a backward op (its model, or its name) */
    /* convolution: the weight's spatial size (argument 1, of a backward op argument 2) */
    int has_ksize, kh, kw;
    int large_kernel; /* has_ksize and kh or kw >= 5 */
    /* batch norm */
    jv_impl impl;  /* from the family's findings hook: native, cuDNN, MIOpen or unknown */
    int training;  /* batch norm: 1 training, 0 eval (the family's parsed call), -1 unknown (no family parses it) */
    int no_affine; /* a native row without an affine weight (cuDNN and MIOpen need weight and bias) */
    /* GEMM: M, N, K and batch B from the model's params (NaN when absent) */
    double M, N, K, B;
    int skinny; /* min(M, N) <= 32 */
    int small;  /* < 1 GFLOP per call */
} jv_frow;

/* The projected time of a row at one target efficiency: calls x roofline time / target. */
typedef struct {
    double target;  /* % of peak */
    int above;      /* the row is already at or above it (time_us, gain_us unset) */
    double time_us; /* op time at the target */
    double gain_us; /* time now - time_us */
    double share;   /* gain_us as % of all GPU kernel time */
} jv_fproj;

/* A significant row: >= JV_FIND_SIGNIFICANT_PCT of GPU kernel time, with a roofline, below 80 % efficiency. */
typedef struct {
    uint32_t row; /* index into jv_digest.rows */
    jv_fproj proj[JV_FIND_NTARGETS];
    int finding; /* its per-op finding (index into jv_dfindings.v), -1 none */
} jv_fsig;

/* The efficiency groups of convolutions by kernel size. */
typedef enum { JV_KSIZE_LARGE = 0, JV_KSIZE_SMALL, JV_KSIZE_UNKNOWN, JV_KSIZE_COUNT } jv_ksize;

typedef struct {
    int rows, compute_bound;
    double time_us;
    double roof_us;      /* Σ calls x roofline time over its rows with a roofline */
    double roof_time_us; /* Σ time over those rows */
    double eff;          /* 100 roof_us / roof_time_us, NaN without such rows */
} jv_fksize;

/* What one category's findings state. */
typedef struct {
    int nsig;
    jv_fsig sig[JV_FIND_TOP_IMPACT]; /* by kernel time, largest first */
    /* Σ calls x roofline time / Σ time over the rows with a roofline and a time: the category's efficiency */
    double roof_us, roof_time_us;
    double eff; /* %, NaN when no row has both */
} jv_fcat;

/* Convolution: layout conversions and kernel sizes. */
typedef struct {
    double layout_us;                /* layout-conversion kernels under convolution rows */
    int nchw, channels_last, other;  /* rows by input layout (NCHW: contiguous 4-d or 5-d) */
    int nhwc_kernels;                /* the convolution kernels run NHWC (the family's findings hook) */
    jv_fksize ksize[JV_KSIZE_COUNT]; /* by kernel size */
    int finding;                     /* the layout finding (index into jv_dfindings.v), -1 none */
    int internal;                    /* conversions run while no input is NCHW: the library converts internally */
} jv_fconv;

/* Batch norm: implementation and bandwidth. */
typedef struct {
    int rows, native, bf16, channels_last, fp64, no_affine;
    double native_us;
    /* why native rows are native, as far as the trace shows */
    int why_cl;    /* AMD and channels_last rows: MIOpen refuses channels_last */
    int why_fp64;  /* AMD and double rows: MIOpen refuses double */
    int why_other; /* more native rows than the reasons explain */
    /* bandwidth over the rows with a bytes model and a time */
    int has_bw;
    double bytes, time_us, tbs;
    double pct_hbm; /* tbs as % of the roofline GPU's HBM, NaN without one */
    double vs_base; /* tbs / the trace's elementwise baseline, NaN without one */
    int below_base; /* the baseline is faster */
    double base_us; /* below_base: the same bytes at the baseline */
    double gain_us; /* below_base: time_us - base_us */
    double share;   /* below_base: gain_us as % of GPU kernel time */
    int finding;    /* the bandwidth finding (index into jv_dfindings.v), -1 none */
} jv_fbn;

/* GEMM: skinny and small rows. */
typedef struct {
    int small_rows; /* skinny or small */
    double small_us;
} jv_fgemm;

/* One fusion candidate's projection (jv_dfindings.fusion[i] belongs to jv_digest.fusion[i]). */
typedef struct {
    double fused_us; /* instances x elementwise time / elementwise kernels */
    double gain_us;  /* ew_us - fused_us */
    double share;    /* gain_us as % of GPU kernel time */
    int norm;        /* the module is a normalization (a fused RMSNorm / LayerNorm kernel applies) */
} jv_ffusion;

/* What a finding is about. */
typedef enum {
    JV_FIND_SLOW_OP = 0,  /* a significant op below 50 % of its roofline (row, sig) */
    JV_FIND_CONV_LAYOUT,  /* layout conversions around convolutions with NCHW inputs */
    JV_FIND_BN_BANDWIDTH, /* batch norm below the trace's elementwise baseline */
    JV_FIND_FUSION,       /* instances of a module or parent op running several elementwise kernels (fusion) */
    JV_FIND_ATTENTION     /* eager attention: matmul -> softmax -> matmul in a module (jv_dattention) */
} jv_find_kind;

/* What a finding recommends. */
typedef enum {
    JV_RECO_PROFILE = 0,     /* the kernel team replays the op (or reproduces its shape) and profiles it */
    JV_RECO_CHANNELS_LAST,   /* run the model in channels_last */
    JV_RECO_FOLD_OR_COMPILE, /* fold BN into the convolution (inference), torch.compile or channels_last (training) */
    JV_RECO_FUSE,            /* fuse each instance into one kernel */
    JV_RECO_SDPA             /* one fused attention kernel (scaled_dot_product_attention) */
} jv_reco;

/* One finding. */
typedef struct {
    jv_find_kind kind;
    jv_dcat cat;
    jv_reco reco;
    int32_t row;    /* JV_FIND_SLOW_OP: index into jv_digest.rows, else -1 */
    int sig;        /* JV_FIND_SLOW_OP: its place among the category's significant rows (0: the first), else -1 */
    int32_t fusion; /* JV_FIND_FUSION: index into jv_digest.fusion; JV_FIND_ATTENTION: into jv_digest.attention;
                       else -1 */
    double time_us; /* the GPU time it concerns */
    double gain_us; /* the projected saving: the ranking key (its basis depends on the kind); less the share of its
                     * time already in a larger recommendation (overlap_us), so no kernel time is counted twice */
    double share;   /* gain_us as % of all GPU kernel time */
    jv_confidence conf;
    double target_pct;    /* JV_FIND_SLOW_OP: the efficiency its saving is projected at: 50 (% of peak), or for an op
                           * with >= JV_FIND_LARGE_PCT of kernel time already above 50 %, 70 (near peak) */
    double overlap_us;    /* of the rows' time it concerns: already claimed by larger findings (0: none) */
    int32_t overlap_with; /* the finding (index into v) that claimed most of it, -1 none */
    int covered;          /* 1: >= JV_FIND_COVERED_SHARE of its time is in a larger finding: not recommended */
} jv_dfinding;

/* The GPU-timeline items the reports rank and recommend on. */
typedef enum { JV_TL_IDLE = 0, JV_TL_EXPOSED_COMM, JV_TL_EXPOSED_MEMCPY, JV_TL_COUNT } jv_tl_item;

/* What the GPU timeline (all devices merged) says, decided once. */
typedef struct {
    double computation_pct;    /* computation as % of the timeline (0 without a timeline) */
    int timeline_first;        /* 1: the timeline items rank before the kernel items (a timeline, computation < 95 %) */
    int64_t ns[JV_TL_COUNT];   /* each item's time */
    double share[JV_TL_COUNT]; /* ... as % of the timeline */
    int recommend[JV_TL_COUNT]; /* 1: the item gets a recommendation (>= 5 %, or >= 1 % while computation < 95 %) */
    int idle_top;               /* jv_idle_cause with the most idle time: what the idle recommendation advises on */
    int memcpy_top;             /* jv_xfer with the most memcpy time (JV_XFER_NONE: no memcpy): what the exposed-memcpy
                                 * recommendation advises on */
    double stream_overlap_us;   /* the rows' summed kernel time beyond the GPU's busy time, when over 1 % of it:
                                 * kernels ran concurrently on several streams (0 otherwise) */
    double idle_share[JV_IDLE_COUNT]; /* each cause as % of the idle time */
    /* the exposed communication's parts with a recommendation of their own (jv_digest.comm: DDP buffer broadcasts,
     * waiting for other ranks; each >= JV_FIND_COMM_PART_SHARE of the exposed communication, when that item is
     * recommended); JV_COMM_REST: the rest, recommended as the exposed-communication item */
    int comm_recommend[JV_COMM_PARTS];
    int64_t comm_ns[JV_COMM_PARTS]; /* each recommendation's time: a part's exposed time; the rest's takes the parts
                                     * without a recommendation of their own */
} jv_ftimeline;

/* One entry of the bottleneck ranking: a timeline item (>= 1 % of the timeline) or an op category (>= 1 % of
 * kernel time), in the order the reports list them. */
typedef struct {
    int is_timeline;
    int item; /* jv_tl_item, or jv_dcat */
} jv_frank_entry;

/* One recommendation of the fair report: a timeline item or a ranked finding, in the order stated. */
typedef struct {
    int is_timeline;
    uint32_t item;  /* jv_tl_item, or an index into jv_dfindings.v */
    double gain_us; /* its projected saving (the timeline item's time: an upper bound), the ranking key */
    jv_confidence conf;
    int part; /* the exposed-communication item: the jv_comm_part it advises on (else JV_COMM_REST) */
} jv_frec;

/* An op with >= JV_FIND_LARGE_PCT of GPU kernel time, and what covers it. */
typedef struct {
    uint32_t row; /* index into jv_digest.rows */
    int rec;      /* the recommendation (index into jv_dfindings.recs) that claims its time (a memcpy row: the
                   * exposed-memcpy one), -1 none */
    int at_limit; /* no recommendation and its verdict is near peak or hardware-limited: no action */
} jv_flarge;

typedef struct jv_dfindings_ {
    jv_frow *rows; /* one per digest row */
    size_t nrows;
    jv_ffusion *fusion; /* one per fusion candidate */
    size_t nfusion;
    jv_fcat cat[JV_DCAT_COUNT];
    jv_fconv conv;
    jv_fbn bn;
    jv_fgemm gemm;
    jv_dfinding *v; /* in the order the category findings state them (GEMM, convolution, batch norm, elementwise) */
    size_t n;
    uint32_t *rank; /* the findings with a saving (gain_us > 0), largest first (indices into v) */
    size_t nrank;
    jv_ftimeline tl;
    jv_frank_entry ranking[JV_TL_COUNT + JV_DCAT_COUNT]; /* the bottleneck ranking */
    int nranking;
    jv_frec recs[JV_FIND_MAX_RECS]; /* the recommendations, timeline items and findings in one list, by projected
                                     * saving (µs), largest first */
    int nrecs;
    jv_flarge large[JV_FIND_MAX_LARGE]; /* the ops with >= JV_FIND_LARGE_PCT of kernel time, largest first */
    int nlarge;
} jv_dfindings;

/* Decides the findings of digest d (rows ordered, totals, baseline, evaluations and fusion candidates complete:
 * jv_digest_finish calls it last) into d->findings, replacing any. JV_ERR_NOMEM when out of memory. */
jv_status jv_findings_compute(jv_digest *d, jv_err *err);

/* Frees f and its arrays (NULL is fine). */
void jv_findings_free(jv_dfindings *f);

/* The findings of d (never NULL once jv_digest_finish succeeded). */
const jv_dfindings *jv_digest_findings(const jv_digest *d);

#endif
