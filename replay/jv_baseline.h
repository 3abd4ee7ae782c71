/* jv_baseline: the measured ceilings of a device, taken first in every run:
 * the elementwise suite (copy, scale, add, triad and a read-only dot
 * reduction over fp32 arrays much larger than the last-level cache) gives the
 * bandwidth ceiling; a large GEMM gives the compute ceiling. --peak runs only
 * these and compares them with the datasheet (hardware validation). */
#ifndef JV_BASELINE_H
#define JV_BASELINE_H

#include <stdint.h>

#include "backend.h"
#include "jv_runner.h"
#include "jv_timing.h"

typedef struct {
    int done;  /* the suite ran */
    int64_t n; /* fp32 elements per array */
    jv_timing t[JV_BASE_COUNT];
    double bytes[JV_BASE_COUNT]; /* bytes one run moves */
    double bw[JV_BASE_COUNT];    /* achieved bytes/s (median time) */
    int verified[JV_BASE_COUNT]; /* the result matched the host computation */
    double bw_ceiling;           /* best of copy, scale, add, triad (bytes/s): read+write traffic */
    int gemm_done;               /* the compute ceiling was measured */
    jv_op_result gemm;           /* the GEMM run (verified, hot) */
    int64_t gemm_n;
    double flops_ceiling; /* FLOP/s of the GEMM (its dtype: gemm.perf.dtype) */
    /* on a device without a datasheet (the CPU), a second GEMM in bf16 after the fp32 one, kept when it ran
     * on the same implementation: the bf16 ceiling is measured, not carried by a datasheet ratio */
    int gemm_alt_done;
    jv_op_result gemm_alt;
    double flops_ceiling_alt;
} jv_baseline;

/* Name of a baseline kernel ("copy", "scale", "add", "triad", "dot"). */
const char *jv_base_name(jv_base_kernel k);

/* Runs the bandwidth suite with arrays of array_bytes each (0: a size for
 * the device: 1 GiB on a GPU when memory allows, else 4x the last-level
 * cache and at least 64 MiB), then (gemm_n > 0) an n^3 GEMM of dtype
 * gemm_dtype, and on a CPU with an fp32 gemm_dtype also a bf16 one
 * (gemm_alt, kept when the backend ran it with the same implementation). JV_OK with b->done 0 when the arrays do not
 * fit; an error status when the backend fails (message in err). */
jv_status jv_baseline_run(const jv_backend *be, void *ctx, const jv_device_props *p, const jv_run_opts *o,
                          int64_t array_bytes, int64_t gemm_n, jv_dtype gemm_dtype, jv_baseline *b, jv_err *err);

#endif
