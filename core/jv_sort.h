/* jv_sort: a stable merge sort with a context pointer (C11 has no qsort_r),
 * used where ties must keep file order; an in-place sort for large arrays
 * whose order has no ties between distinct elements (no scratch copy: glibc's
 * qsort allocates one as large as the array); and the one median of the project. */
#ifndef JV_SORT_H
#define JV_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

typedef int (*jv_cmp_ctx)(const void *a, const void *b, void *ctx);

/* Sorts n elements of size bytes at base by cmp, keeping the order of equal
 * elements. Allocates a scratch buffer of half the array; JV_ERR_NOMEM (base unchanged) on failure. */
jv_status jv_sort_stable(void *base, size_t n, size_t size, jv_cmp_ctx cmp, void *ctx);

/* Sorts v[0..n) ascending (no NaN), stably (equal values such as -0.0 and 0.0 keep their order, as with glibc's
 * merge-sort qsort), and returns its median: the middle value, or the mean of the two middle values for an even
 * n; 0 for n = 0. */
double jv_median_sort(double *v, size_t n);

/* Sorts n elements of size bytes at base by cmp in place, allocating nothing. Not stable: for orders in
 * which elements that compare equal are byte-identical (a total order), where the result is the one
 * sorted sequence. O(n log n) in the worst case (introsort: quicksort with a median of three, heapsort past
 * 2 log2 n levels, insertion sort for 16 elements or fewer). */
void jv_sort_inplace(void *base, size_t n, size_t size, jv_cmp_ctx cmp, void *ctx);

/* The dense ranks of n strings in strcmp order into rank[0..n): rank[i] < rank[j] exactly when
 * strcmp(s[i], s[j]) < 0, and equal ranks for equal strings; ranks run from 0 to the number of distinct strings
 * less one. For sorts that compared strings: comparing the ranks gives the same order. JV_ERR_NOMEM (rank
 * unset) on failure. */
jv_status jv_str_ranks(const char *const *s, size_t n, uint32_t *rank);

#endif
