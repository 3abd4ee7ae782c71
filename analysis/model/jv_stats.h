/* jv_stats: the statistics of report columns (pandas semantics: NaN-free
 * inputs, sample or population std) and TraceLens' kernel_details summary
 * of a group of op instances (kernels matched by position). */
#ifndef JV_STATS_H
#define JV_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "jv_trace.h"

typedef struct {
    double mean, median, std, min, max, sum;
    size_t n;
} jv_stats;

/* Statistics of v[0..n) (v is sorted in place). NaN entries are skipped.
 * ddof 1: sample std (NaN for one value); ddof 0: population std. With no
 * values every field is NaN and sum is 0. */
jv_stats jv_stats_of(double *v, size_t n, int ddof);

/* One op instance's GPU events (indices into tr->ev), in launch order. */
typedef struct {
    const uint32_t *ev;
    uint32_t n;
} jv_klist;

/* The most kernels one kernel_details cell lists (the most one op launches in the 38 fixture traces is 544,
 * a graph launch): one launch of millions of kernels would otherwise make cells, and memory, of gigabytes. */
enum { JV_KERNEL_DETAILS_MAX = 10000 };

/* Builds kernel_details_summary and trunc_kernel_details of a group: the
 * template is the first non-empty list; lists of another length are skipped;
 * per position: name, stream, count and duration statistics (µs, ddof 0).
 * With sorted, entries are ordered by (total duration, name, position); the first
 * JV_KERNEL_DETAILS_MAX entries are written (selected in a bounded heap: memory
 * O(JV_KERNEL_DETAILS_MAX), time O(kernels x log of it)). *full and
 * *trunc are malloc'd Python-repr texts ("[]" for no kernels; *trunc is NULL
 * then). Returns 0 when out of memory. */
int jv_kernel_details(const jv_trace *tr, const jv_klist *rows, size_t n, int sorted, char **full, char **trunc);

#endif
