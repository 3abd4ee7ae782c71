/* jv_sort: a stable merge sort with a context pointer (C11 has no qsort_r),
 * used where ties must keep file order; and the one median of the project. */
#ifndef JV_SORT_H
#define JV_SORT_H

#include <stddef.h>

#include "jv_status.h"

typedef int (*jv_cmp_ctx)(const void *a, const void *b, void *ctx);

/* Sorts n elements of size bytes at base by cmp, keeping the order of equal
 * elements. Allocates a scratch copy; JV_ERR_NOMEM (base unchanged) on failure. */
jv_status jv_sort_stable(void *base, size_t n, size_t size, jv_cmp_ctx cmp, void *ctx);

/* Sorts v[0..n) ascending (no NaN) and returns its median: the middle value, or the mean of the two middle values
 * for an even n; 0 for n = 0. */
double jv_median_sort(double *v, size_t n);

#endif
