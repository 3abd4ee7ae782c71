/* jv_verify: compares a device output with the CPU reference's (every element, or a sample of them: see
 * jv_sampling.h) and accumulates the figures of one op's verification. */
#ifndef JV_VERIFY_H
#define JV_VERIFY_H

#include <stdint.h>

#include "jv_family.h"

/* Verification of one run. */
typedef struct {
    /* inputs, set by the caller before the first output is compared */
    double acc_len;  /* the op's accumulation length (products summed per output element; <= 1: none) */
    double fp32_tol; /* the family's fp32 tolerance (jv_family.fp32_tol; 0: derived from acc_len) */
    /* results */
    int done;           /* verification ran */
    int sampled;        /* 1: a sample of output elements was checked (big op; see jv_sampling.h) */
    int64_t checked;    /* elements compared, over all outputs */
    double rel_l2;      /* worst relative L2 error over the outputs */
    double max_abs;     /* worst max |device - reference| */
    double tol;         /* the tolerance rel_l2 was held to (of the worst output's dtype) */
    double sum_abs_dev; /* sum(|x|) of the device outputs (checked elements) */
    double sum_abs_ref; /* the same over the reference */
    int64_t unwritten;  /* elements still holding the poison (sampled float outputs: anywhere in the output) */
    int64_t nan;        /* NaN in the device output where the reference has none */
    double max_elem;    /* worst per-element error |d - r| / (|r| + rms of the reference output) */
    int64_t elem_bad;   /* elements whose error exceeds JV_VERIFY_ELEM x tol of that scale */
    int64_t block_bad;  /* blocks of 64 checked elements whose relative L2 exceeds JV_VERIFY_BLOCK x tol */
    double sum_rel;     /* worst checksum error over the outputs: sum(|x|), sum(x) and sum(x * w) (see below) */
    int sum_bad;        /* outputs with a checksum off by more than JV_VERIFY_SUM x tol */
    int last;           /* 1: the outputs were verified again after the timed launches (OUT operands) */
    int failed_output;  /* 1: an output failed (worst names the first that did) */
    char worst[24];     /* the output with the worst error */
    /* sampled: the design of the first sampled output (jv_sample_plan) */
    int64_t samples;                /* elements spread over its blocks (the budget: verify_samples, fewer where
                                     * one element's reference is costly) */
    int64_t block_rows, block_cols; /* its blocks (rows x columns in memory order) */
    int all_blocks;                 /* 1: every block held >= 1 checked element; 0: every row and column block */
    int64_t full_rows, full_cols;   /* complete rows and columns checked */
} jv_verify;

/* How much worse than the relative-L2 tolerance of the dtype (jv_verify_tol) a single element (scaled by
 * |reference| + the output's reference RMS), a block of 64 checked elements, and the checksums may be. With
 * them a zeroed 8x8 tile, one element off by a few RMS, a shifted or transposed output fail even where the
 * relative L2 error over a large output stays under its tolerance. */
#define JV_VERIFY_ELEM  8.0
#define JV_VERIFY_BLOCK 4.0
#define JV_VERIFY_SUM   2.0

/* The position weight of the weighted checksum: element of logical index i weighs (i mod 97) + 1, so that a
 * permutation or shift of the checked elements moves it. */
#define JV_VERIFY_WMOD 97

/* Compares the checked elements of one output: dev and ref are host copies
 * of the operand's storage; idx NULL checks every logical element, else the
 * n logical indices idx. It passes when no element holds the poison, no NaN
 * or infinity differs from the reference, the relative L2 error is within
 * jv_verify_tol of the dtype, every element is within JV_VERIFY_ELEM x tol of
 * (|reference| + the reference's RMS), every block of 64 checked elements
 * (in the order given) has a relative L2 error within JV_VERIFY_BLOCK x tol
 * (its norm floored at a tenth of the RMS), and the checksums sum(|x|),
 * sum(x) and sum(x * w) (w: JV_VERIFY_WMOD) are within JV_VERIFY_SUM x tol of
 * the reference's sum(|r|), sum(w |r|). Accumulates into v (call with a
 * zeroed v first; the worst output is kept). Returns 1 when this output
 * passes. */
int jv_verify_output(const jv_operand *o, const void *dev, const void *ref, const int64_t *idx, int64_t n,
                     jv_verify *v);

/* jv_verify_output, and when scan_all is set and the dtype is a float one, also every element of dev
 * outside the sample is checked for the poison (no reference is needed for that): an unwritten element
 * anywhere fails the output. */
int jv_verify_output_scan(const jv_operand *o, const void *dev, const void *ref, const int64_t *idx, int64_t n,
                          int scan_all, jv_verify *v);

/* The relative L2 tolerance of an output dtype with no accumulation: its floor (1e-3 fp32, 2e-3 fp16,
 * 1.6e-2 bf16, 1e-9 fp64, 0 for integers and bool). */
double jv_verify_tol(jv_dtype dt);

/* The relative L2 tolerance of an output of dtype dt whose elements each sum acc_len products computed in
 * the output's accumulation type (fp32 for fp32/fp16/bf16, fp64 for fp64): the rounding of that sum grows as
 * sqrt(acc_len) units in the last place (random signs), so tol = max(floor, JV_VERIFY_ACC x u x
 * sqrt(acc_len)) with u = 2^-24 (2^-53 for fp64). The floors of fp16 and bf16 are their output rounding
 * (which dominates); fp32's floor is 1e-5 (libm's float functions against the double reference) unless
 * fp32_tol > 0 (a family whose kernels may compute in TF32 or reduce long rows in fp32), which is used as
 * is. */
double jv_verify_tol_for(jv_dtype dt, double acc_len, double fp32_tol);

#define JV_VERIFY_ACC 8.0

#endif
