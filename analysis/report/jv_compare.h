/* jv_compare: the comparative analysis of a target trace against a
 * reference trace (REFERENCE.md section 8): ops matched across platforms
 * (by op name and shapes, never by kernel name), deltas, and the delta the
 * hardware ratio leads one to expect. */
#ifndef JV_COMPARE_H
#define JV_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "jv_digest.h"
#include "jv_sheet.h"

/* How a pair was matched (passes run in this order over the rows still unmatched). */
typedef enum {
    JV_CMP_SIGNATURE = 1, /* normalised op name + Input Dims + Input type + Input Strides (+ Concrete Inputs) */
    JV_CMP_DIMS,          /* normalised op name + Input Dims (types, strides, concrete ignored) */
    JV_CMP_NAME_COUNT,    /* normalised op name + call count, where one side has no Input Dims */
    JV_CMP_SYNTHETIC,     /* "op->kernel (Synthetic Op)" rows: parent op + Input Dims, one such row on each side */
    JV_CMP_SAME_VENDOR    /* synthetic rows of two traces of the same vendor: parent op, kernel name and Input Dims */
} jv_cmp_pass;
#define JV_CMP_NPASS 6 /* size of arrays indexed by jv_cmp_pass */

/* Short name of a pass: "signature", "dims", "name+count", "synthetic", "kernel (same vendor)". */
const char *jv_cmp_pass_name(jv_cmp_pass p);

/* The bound a pair is judged by: both sides' roofline agree (memory or
 * compute), they disagree (mixed), or either side has none (unknown). */
typedef enum { JV_CMP_UNKNOWN = 0, JV_CMP_MEMORY, JV_CMP_COMPUTE, JV_CMP_MIXED } jv_cmp_bound;

/* Flag rule: the per-call time ratio exceeds the expected ratio by more than this factor. */
#define JV_CMP_FLAG_FACTOR 1.25

/* One matched pair: rows t (of the target digest) and r (of the reference). */
typedef struct {
    size_t t, r;
    jv_cmp_pass pass;
    int renamed;                 /* the op names differ (vendor or implementation variants normalised) */
    double t_call_us, r_call_us; /* time per call */
    double ratio_call;           /* t_call_us / r_call_us (NaN when r_call_us is 0) */
    double ratio_total;          /* target time / reference time */
    double delta_pct;            /* (ratio_call - 1) * 100 */
    double diff_us;              /* target time - reference time (totals) */
    jv_cmp_bound bound;
    double expected;    /* expected ratio of per-call times from the hardware; NaN when unknown */
    char basis[192];    /* how expected was computed ("HBM 3350 / 5300 GB/s") */
    double vs_expected; /* ratio_call / expected */
    int flag;           /* 1: vs_expected > JV_CMP_FLAG_FACTOR; 0: not; -1: unknown (no expected ratio) */
    int question;       /* 1: a large unexpected slowdown (kernel-selection question) */
    int tiny_bgemm;     /* a tiny batched GEMM (bmm/baddbmm under 10 µs per call on either side) */
    double excess_us;   /* target time beyond the expected ratio (t count * (t_call - expected * r_call)) */
} jv_cmp_pair;

/* The matching of two digests. */
typedef struct {
    jv_cmp_pair *pairs; /* in target row order (largest target time first) */
    size_t npairs;
    int32_t *pair_of_t; /* per target row: its pair, -1 when unmatched */
    int32_t *pair_of_r; /* per reference row: its pair, -1 when unmatched */
    double t_matched_us, r_matched_us;
    double t_coverage, r_coverage;   /* matched time / total time (%), NaN for an empty side */
    size_t pass_pairs[JV_CMP_NPASS]; /* pairs per pass (index = jv_cmp_pass) */
    double pass_t_us[JV_CMP_NPASS], pass_r_us[JV_CMP_NPASS];
    size_t nflagged, nquestions;
} jv_cmp;

/* Matches the rows of target against those of ref and computes each pair's
 * ratios and hardware expectation. Free with jv_cmp_free (also after an
 * error). JV_ERR_NOMEM when out of memory. */
jv_status jv_cmp_build(const jv_digest *target, const jv_digest *ref, jv_cmp *out, jv_err *err);

/* Frees what jv_cmp_build allocated. Safe on a zeroed jv_cmp. */
void jv_cmp_free(jv_cmp *c);

/* Writes the "comparison" sheet (CSV and workbook) of target vs ref into
 * book: one row per matched pair, then the unmatched rows of each side. */
jv_status jv_compare_sheet(const jv_digest *target, const jv_digest *ref, jv_book *book, jv_err *err);

/* Writes OUTDIR/comparative_analysis_fair.md and OUTDIR/comparative_analysis_rough.md
 * (temporary names, renamed; on error neither is left behind). */
jv_status jv_compare_write(const jv_digest *target, const jv_digest *ref, const char *outdir, jv_err *err);

#endif
