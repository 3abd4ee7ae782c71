/* jv_quality: what a trace did not record, counted once per trace (jv_digest.quality, filled by
 * jv_digest_finish), and why a row has no perf model (jv_drow.nomodel). The reports print a "Trace quality"
 * section from it: each count with what it means for the conclusions. */
#ifndef JV_QUALITY_H
#define JV_QUALITY_H

#include <stdint.h>

/* Why a row has no FLOPs/bytes model. A row with a reason is not modelled: no GFLOPS, no roofline, no verdict. */
typedef enum {
    JV_NOMODEL_NONE = 0,   /* modelled: FLOPs or bytes known */
    JV_NOMODEL_UNKNOWN_OP, /* no op family reads the op (also a kernel row without an op of its own) */
    JV_NOMODEL_NO_SHAPES,  /* a family reads the op, but the trace recorded no Input Dims (record_shapes off) */
    JV_NOMODEL_NO_DTYPES,  /* Input Dims recorded, but no argument type (an empty Input type) */
    JV_NOMODEL_REFUSED,    /* the family could not model the recorded call (arguments it does not take) */
    JV_NOMODEL_GRAPH,      /* a kernel a CUDA / HIP graph replayed: the trace records the kernel, not the call */
    JV_NOMODEL_DATA,       /* an op whose output size depends on data the trace does not record (aten::index's
                              index tensors, the values of nonzero / masked_select / unique) */
    JV_NOMODEL_SEQLENS,    /* serving attention over a paged or packed KV cache: its work is set by the requests'
                              sequence lengths, which are tensor values the trace does not record */
    JV_NOMODEL_NO_OP,      /* a kernel launched by a runtime call outside any recorded op (hipLaunchKernel->k): no
                              op, so no arguments, were recorded for it */
    JV_NOMODEL_GENERATED,  /* a torch.compile template kernel (triton_tem_) whose work its generated code sets (fused
                              attention's block mask and score modification, an unnamed template), not its arguments */
    JV_NOMODEL_COUNT
} jv_nomodel;

/* Short text of a reason ("no perf model for the op", ...); "" for JV_NOMODEL_NONE. */
const char *jv_nomodel_str(jv_nomodel why);

/* A count of rows or events and their GPU time (µs). */
typedef struct {
    uint64_t n;
    double us;
} jv_qcount;

typedef struct {
    /* rows (unified_perf_summary) of ops, synthetic kernel rows aside */
    jv_qcount no_shapes;                    /* the op's call recorded no Input Dims */
    jv_qcount no_dtypes;                    /* Input Dims but no argument type */
    jv_qcount unmodelled[JV_NOMODEL_COUNT]; /* rows by reason ([JV_NOMODEL_NONE]: the modelled rows) */
    /* GPU events (kernel, memcpy, memset) */
    uint64_t gpu_events;
    jv_qcount unlinked;         /* no launch found in the trace (launched before the window, or graph replays) */
    jv_qcount graph_launches;   /* cudaGraphLaunch / hipGraphLaunch calls; us: the GPU time of the events they own */
    jv_qcount graph_unrecorded; /* such calls that own no GPU event: their kernels were not recorded */
    jv_qcount before_launch;    /* GPU events that start before their launch call ends: host and GPU clocks disagree */
    uint64_t host_overlap;      /* host events that end after their enclosing event (kept as roots) */
    uint64_t bad_time;          /* events without a usable ts/dur (skipped) */
    int no_device_props;        /* no deviceProperties / computeProperties in the trace */
    int unnamed_device;         /* device properties, but the first device has no name */
} jv_trace_quality;

#endif
