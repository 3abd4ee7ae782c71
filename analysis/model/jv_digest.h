/* jv_digest: one analysed trace in compact form: what the category data,
 * the findings, the standalone and comparative reports and the HTML page
 * read. A digest owns its strings (an arena), so it outlives the trace: a
 * reference trace is read, digested and freed before the target is read.
 *
 * Rows are the rows of unified_perf_summary (every GPU kernel counted once),
 * ordered by kernel time, largest first; all times are in µs. */
#ifndef JV_DIGEST_H
#define JV_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "jv_arena.h"
#include "jv_comm_evidence.h"
#include "jv_family.h"
#include "jv_hw.h"
#include "jv_judge.h"
#include "jv_opcall.h"
#include "jv_quality.h"
#include "jv_stats.h"
#include "jv_timelines.h"
#include "jv_trace.h"
#include "jv_transfer.h"
#include "jv_tree.h"

struct jv_dfindings_; /* jv_findings_model.h */

/* The categories with data and findings of their own (REFERENCE.md section 8). */
typedef enum { JV_DCAT_GEMM = 0, JV_DCAT_CONV, JV_DCAT_BN, JV_DCAT_EW, JV_DCAT_OTHER, JV_DCAT_COUNT } jv_dcat;

/* File-name form of a category: "gemm", "convolution", "batchnorm", "elementwise", "other". */
const char *jv_dcat_name(jv_dcat c);
/* Title form: "GEMM", "Convolution", "Batch norm", "Elementwise", "Other". */
const char *jv_dcat_title(jv_dcat c);

/* One distinct GPU kernel of a row, with its total time over the row's calls. */
typedef struct {
    const char *name;
    double total_us;
    uint32_t count;
    int layout;   /* 1: a layout conversion (jv_is_layout_kernel) */
    jv_xfer xfer; /* a memcpy or memset (jv_transfer_of), JV_XFER_NONE for a kernel */
} jv_dkernel;

#define JV_DROW_KERNELS  8
#define JV_DROW_OPERANDS 8

/* One argument of a row's call, typed (from jv_opcall: the trace's args as the perf model reads them). */
typedef struct {
    jv_arg_kind kind; /* JV_ARG_NONE for an absent optional (Tensor? = None) */
    jv_tensor t;      /* JV_ARG_TENSOR: shape, strides (has_strides), dtype */
} jv_doperand;

/* The efficiency of one row against the roofline and the trace's elementwise baseline. */
typedef struct {
    int has_roof;           /* roofline time and peak known */
    int memory_bound;       /* also 1 for a transfer row (jv_drow.transfer): achieved is then its TB/s */
    double peak;            /* TB/s (memory-bound) or TFLOPS/s (compute-bound); NaN without roofline */
    double achieved;        /* mean achieved TB/s or TFLOPS/s */
    double pct;             /* Pct Roofline_mean (%) */
    double eff;             /* aggregate efficiency (%): count * roofline time / kernel time */
    double vs_base;         /* achieved TB/s / the trace's elementwise baseline TB/s (memory-bound rows), else NaN */
    const char *band;       /* excellent / good / acceptable / investigate, "" without roofline */
    jv_judgement judgement; /* the verdict (hw/jv_judge.h); JV_JUDGE_NONE for no model / no roofline */
    const char *verdict;    /* its name (jv_judge_str), or "no model", "no roofline", or for a transfer row (no
                             * roofline, no verdict) "not judged: a host transfer" / "... a memcpy" / "... a memset" */
} jv_row_eval;

/* One unified_perf_summary row. NaN where unknown (no model, no roofline). */
typedef struct {
    const char *name;        /* as in the sheet: synthetic rows are "op->kernel (Synthetic Op)" */
    const char *op_name;     /* the op itself (for a synthetic row: its parent) */
    const char *op_category; /* TraceLens' op category ("GEMM", "CONV_fwd", "NORM_bwd", "elementwise", ...) */
    jv_dcat cat;
    const char *family; /* perf-model family ("gemm", "conv", "batchnorm", "unary", ...), "" without a model */
    int bwd;            /* backward op */
    int family_id;      /* its family (jv_family_get), -1 without a model */
    int synthetic;
    const char *dims, *types, *strides, *concrete; /* Python repr as in the sheet, "" when absent (display only) */
    int noperands;                                 /* the call's arguments kept (at most JV_DROW_OPERANDS) */
    jv_doperand operands[JV_DROW_OPERANDS];        /* the first arguments of the example instance's call */
    const char *type0;     /* the first argument's recorded type ("c10::BFloat16", "Scalar"), "" when none */
    const char *params;    /* perf_params (Python dict text), "" without a model (display only) */
    jv_family_facts facts; /* what the family reads from the example call (jv_desc_facts); "not said" values when
                            * no family parses it */
    uint32_t uid;          /* ex_UID: the example instance (for --call-stack) */
    uint32_t count;        /* operation_count */
    double time_us;        /* Kernel Time (µs)_sum */
    double mean_us, median_us, min_us, max_us;
    double flops, bytes; /* per call, from the perf model */
    double fpb;          /* FLOPS/Byte */
    double tbs, tflops;  /* achieved, mean over calls */
    char spec[32];       /* Compute Spec ("matrix_bf16"), "" when none */
    double roof_us;      /* roofline time of one call */
    double pct;          /* Pct Roofline_mean (%) */
    jv_bound bound;      /* JV_BOUND_NONE without a roofline (jv_bound_name: the sheets' text) */
    double percent;      /* share of all rows' kernel time (%) */
    double layout_us;    /* of time_us: layout-conversion kernels */
    double transfer_us;  /* summed durations of its memcpy / memset events */
    jv_xfer transfer;    /* the kind of most of that time when memcpy / memset take at least half of the row's summed
                          * GPU time, else JV_XFER_NONE; a transfer row has no roofline, verdict or baseline share */
    int nkernels;        /* distinct kernels kept (the largest JV_DROW_KERNELS) */
    int nkernels_all;    /* distinct kernels in all */
    jv_dkernel kernels[JV_DROW_KERNELS]; /* by total time, largest first */
    int32_t model;                       /* index into the perf table's models (-1 none); internal */
    int32_t replay_op; /* its entry in OUTDIR/replay_package.zip (jarvis-replay --op N), -1 when not in it */
    /* the rest of the row's unified_perf_summary cells (report/jv_perf_sheet.c prints them) */
    const char *process_name, *process_label, *thread_name; /* of the example instance, "Unknown" when none */
    unsigned args_present; /* bit k: dims, types, strides, concrete recorded (else an empty cell) */
    int has_model;         /* has_perf_model: the instance has a model (it may have failed) */
    int has_params;        /* params is a perf_params cell (else an empty cell) */
    double gflops, mb;     /* GFLOPS, Data Moved (MB) of one call (NaN unknown) */
    jv_stats cpu, kt;      /* duration_us (CPU op) and Kernel Time (µs) statistics */
    jv_stats tbs_s, tfl_s; /* TB/s, TFLOPS/s statistics */
    jv_stats pct_s;        /* Pct Roofline statistics (NaN without a roofline) */
    /* TraceLens' own columns of unified_perf_summary (Roofline Time (µs)_first, Roofline Bound, Pct Roofline_*),
     * against the sheet GPU (jv_digest.sheet_hw: TraceLens' peaks); equal to roof_us, bound and pct_s unless
     * jv_digest.sheet_differs. Nothing but the sheets reads them: every judgment uses the policy's fields above. */
    double sheet_roof_us;
    jv_bound sheet_bound;
    jv_stats sheet_pct_s;
    const char *kernel_details, *trunc_kernel_details; /* kernel_details_summary, trunc_kernel_details */
    double cum_percent;                                /* Cumulative Percentage (%) */
    const char *band;                                  /* Efficiency Band with a roofline, else "" */
    uint32_t sheet_pos;                                /* its row in unified_perf_summary (0: the first) */
    int no_dtypes;      /* its call recorded Input Dims but no argument type (an empty Input type) */
    jv_nomodel nomodel; /* why it has no FLOPs/bytes model (jv_digest_finish); JV_NOMODEL_NONE: modelled */
    /* the evaluation (jv_digest_finish): no model / no roofline, else the verdict of hw/jv_judge.h's rules
     * on the median kernel time, the roofline time of one call, Pct Roofline_mean, the nominal launch cost,
     * the share of layout-conversion kernels and (memory-bound rows) the trace's elementwise baseline as the
     * measured ceiling */
    jv_row_eval eval;
} jv_drow;

#define JV_DPATTERN_ROWS 16 /* rows kept per pattern (jv_drowset) */

/* The rows a pattern's kernel time comes from, each with the time of its instances in the pattern: the first
 * JV_DPATTERN_ROWS rows met (time in further rows is not listed). What the findings claim, so that no kernel's
 * time is counted in two recommendations. */
typedef struct {
    int n;
    uint32_t row[JV_DPATTERN_ROWS]; /* index into jv_digest.rows */
    double us[JV_DPATTERN_ROWS];
} jv_drowset;

/* A fusion candidate: a module (nn.Module events) or a parent op whose
 * instances each run several small elementwise kernels. */
typedef struct {
    const char *name;     /* module class ("LayerNorm", "Qwen2RMSNorm") or parent op name */
    int from_module;      /* 1: found through nn.Module events; 0: repeated kernels under one parent op */
    uint32_t instances;   /* module instances (or parent events) holding elementwise kernels */
    uint32_t ew_kernels;  /* elementwise kernels in all instances */
    double ew_us;         /* their summed time */
    double total_us;      /* all kernel time in those instances (elementwise or not) */
    uint32_t example_uid; /* UID of one instance */
    const char *ops;      /* the distinct elementwise op names of the instances, ", "-joined */
    jv_drowset rows;      /* the rows of those elementwise ops, with their time in the instances */
} jv_dfusion;

/* Eager attention: in one module (or parent op), a matrix product, then a softmax, then a matrix product,
 * with only lighter ops between (scaling, masking, dropout): attention computed op by op, its score matrix
 * written to memory and read back, where one fused attention kernel (SDPA: flash / memory-efficient) keeps
 * it on chip. */
typedef struct {
    const char *name;     /* module class or parent op name */
    int from_module;      /* 1: found through nn.Module events */
    uint32_t sequences;   /* matmul -> softmax -> matmul sequences found */
    double total_us;      /* kernel time of their ops, first matrix product to last, inclusive */
    double between_us;    /* kernel time of the ops between the two products (softmax, scaling, masking) */
    uint32_t example_uid; /* UID of one holder instance */
    const char *dims;     /* the first product's Input Dims in one sequence */
    jv_drowset rows;      /* the rows of the sequences' ops (products included), with their time in them */
} jv_dattention;

/* What the elementwise baseline needs to be stated (REFERENCE.md section 8; README "Elementwise baseline"): rows of
 * aten::add/add_/mul/mul_/copy_ moving at least JV_BASE_CALL_BYTES per call, at least JV_BASE_MIN_CALLS calls and
 * JV_BASE_MIN_BYTES in all. Below that the kernels are launch-dominated (a 1 MiB add takes ~3 µs, mostly
 * launch latency) and the few calls say nothing about what the memory system can do. */
#define JV_BASE_CALL_BYTES 1048576.0  /* 1 MiB per call */
#define JV_BASE_MIN_CALLS  8          /* calls in all */
#define JV_BASE_MIN_BYTES  67108864.0 /* 64 MiB in all */

/* Whether a trace has an elementwise baseline. */
typedef enum {
    JV_BASE_OK = 0,  /* stated: tbs */
    JV_BASE_NO_OPS,  /* no add/mul/copy_ row with a bytes model and kernel time (memcpy/memset rows left out) */
    JV_BASE_TOO_FEW, /* such rows, but too few large ones (under JV_BASE_MIN_CALLS calls or JV_BASE_MIN_BYTES) */
} jv_base_state;

/* The elementwise baseline of one trace: simple add/mul/copy ops run as kernels (never memcpy / memset: a row
 * whose events include any is left out, jv_drow.transfer_us). */
typedef struct {
    jv_base_state state;
    uint32_t rows; /* rows that went in: candidates moving >= JV_BASE_CALL_BYTES per call */
    uint64_t calls;
    double bytes;           /* all their bytes */
    double time_us;         /* all their kernel time */
    double tbs;             /* bytes / time (TB/s); NaN unless state is JV_BASE_OK */
    uint32_t small_rows;    /* candidate rows under JV_BASE_CALL_BYTES per call (never in) */
    uint32_t transfer_rows; /* add/mul/copy_ rows left out because memcpy / memset events ran in them */
    double transfer_us;     /* their kernel time */
} jv_dbaseline;

#define JV_DIGEST_SPECS 16 /* distinct Compute Specs listed, at most */

typedef struct {
    const char *trace;      /* path as given */
    const char *trace_name; /* base name */
    uint64_t file_bytes, events, gpu_events;
    double memcpy_us[JV_XFER_COUNT]; /* the memcpy events' GPU time by direction (jv_transfer_of; the timeline's
                                      * events: linked ones unless include_unlinked) */
    const char *device;              /* name of the first GPU in deviceProperties ("" unknown) */
    int ndevices;                    /* GPUs listed in deviceProperties (a node's, whatever ran) */
    int devices_with_gpu;            /* distinct devices the timeline's GPU events ran on */
    int is_amd;
    int has_hw;
    jv_hw hw;             /* the roofline GPU (when has_hw), its peaks the policy's (jv_hw_apply_policy): what every
                           * judgment, report and the rows' roof_us / pct / bound use */
    jv_peak_policy peaks; /* the policy of hw's peaks (jv_hw_policy of this side alone) */
    jv_hw sheet_hw;       /* the same GPU with TraceLens' peaks (max-achievable where the entry has them): only the
                           * sheets' TraceLens columns (jv_drow.sheet_*) use it */
    int sheet_differs;    /* 1 when sheet_hw's peaks differ from hw's (jv_hw_roofs_differ) */
    const char *hw_why;   /* how it was chosen */
    jv_gpu_timeline tl;   /* all devices merged */
    jv_dcomm comm;        /* its exposed communication split by what the collectives did (jv_comm_evidence.h) */
    double total_us;      /* sum of rows' time_us */
    double cat_us[JV_DCAT_COUNT];
    uint32_t cat_rows[JV_DCAT_COUNT];
    jv_drow *rows;
    size_t nrows;
    uint32_t *sheet_order; /* the rows in unified_perf_summary order (indices into rows) */
    jv_dfusion *fusion;    /* by ew_us, largest first */
    size_t nfusion;
    jv_dbaseline baseline;
    jv_trace_quality quality;        /* what the trace did not record (jv_digest_finish: jv_quality_compute) */
    double layout_outside_us;        /* layout-conversion kernels of rows that are not convolutions */
    char specs[JV_DIGEST_SPECS][32]; /* the distinct Compute Specs of the rows, in row order (the peaks they use) */
    int nspecs;
    /* the findings, decided in jv_digest_finish (jv_findings_model.h: jv_digest_findings) */
    struct jv_dfindings_ *findings;
    /* eager attention patterns (jv_digest_finish), the most time between the products first */
    jv_dattention *attention;
    size_t nattention;
    jv_arena arena;
    size_t cap_rows;
} jv_digest;

/* Starts an empty digest for trace (path) tr; hw may be NULL (no roofline),
 * hw_why says how it was chosen (or why there is none). hw is the entry as resolved: the digest keeps it as
 * sheet_hw and, with the peak policy applied (jv_hw_policy of hw alone), as hw. */
jv_status jv_digest_init(jv_digest *d, const char *path, const jv_trace *tr, const jv_hw *hw, const char *hw_why,
                         jv_err *err);

/* Copies string s into the digest's arena ("" for NULL). NULL when out of memory. */
const char *jv_digest_str(jv_digest *d, const char *s);

/* Appends a row (its strings must already live in the digest: jv_digest_str). */
jv_status jv_digest_add_row(jv_digest *d, const jv_drow *r, jv_err *err);

/* Appends the rows of trace tr's perf table pt (the rows of unified_perf_summary: op instances grouped as
 * TraceLens groups them, with their metrics and statistics against d's GPU: the policy's peaks, and TraceLens'
 * for the sheet_* columns; none without one) to d (jv_digest_init). jv_digest_finish completes it. Defined in
 * jv_pgroup.c, with the grouping. */
struct jv_perf_table_;
jv_status jv_digest_build(const jv_trace *tr, const struct jv_perf_table_ *pt, jv_digest *d, jv_err *err);

/* Sets every row's replay_op from the replay package's map of perf models to package ops (op_of_model[m]
 * for m < nmodels): a model step, done before any writer reads the digest. */
void jv_digest_set_replay(jv_digest *d, const int32_t *op_of_model, size_t nmodels);

/* Completes the digest once every row is in: the order by time, category
 * totals, the trace's elementwise baseline, each row's evaluation (eval), the
 * GPU timeline (tls->all, computed by jv_timelines_compute from the same tr and t), the fusion candidates (through the
 * tree; nn.Module python events when the trace has them; else elementwise kernels repeated under one parent op) and,
 * last, the findings (jv_findings_model.h). */
jv_status jv_digest_finish(jv_digest *d, const jv_trace *tr, const jv_tree *t, const struct jv_perf_table_ *pt,
                           const jv_timelines *tls, jv_err *err);

/* Sets every row's nomodel and counts d->quality from the rows, trace tr and its tree t (a zeroed trace and
 * tree: the rows' counts alone). Called by jv_digest_finish before the rows are evaluated. Defined in
 * jv_quality.c. JV_ERR_NOMEM on failure. */
jv_status jv_quality_compute(jv_digest *d, const jv_trace *tr, const jv_tree *t, jv_err *err);

/* The trace's elementwise baseline as % of the roofline GPU's HBM bandwidth; NaN when unknown. */
double jv_baseline_pct_of_hbm(const jv_digest *d);

/* Frees everything the digest holds. Safe on a zeroed digest. */
void jv_digest_free(jv_digest *d);

/* (The efficiency band of a Pct Roofline value, REFERENCE.md section 8, is hw/jv_judge.h's
 * jv_efficiency_band, with the verdict rules.) */

/* The categories ordered by kernel time, largest first (ties: enum order). */
void jv_digest_cat_order(const jv_digest *d, jv_dcat order[JV_DCAT_COUNT]);

/* The category of a row: its family's report category (family: a registry
 * index, jv_family.report), or without a model (family < 0) its op category. */
jv_dcat jv_dcat_of(int family, const char *op_category, const char *op_name);

#endif
