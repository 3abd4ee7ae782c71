/* jv_sort: top-down merge sort on bytes; insertion sort for short runs; introsort in place. */
#include "jv_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void sort_rec(char *a, char *tmp, size_t n, size_t sz, jv_cmp_ctx cmp, void *ctx) {
    if (n < 2) return;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            memcpy(tmp, a + i * sz, sz);
            size_t j = i;
            while (j > 0 && cmp(a + (j - 1) * sz, tmp, ctx) > 0) {
                memcpy(a + j * sz, a + (j - 1) * sz, sz);
                j--;
            }
            memcpy(a + j * sz, tmp, sz);
        }
        return;
    }
    size_t h = n / 2;
    sort_rec(a, tmp, h, sz, cmp, ctx);
    sort_rec(a + h * sz, tmp, n - h, sz, cmp, ctx);
    if (cmp(a + (h - 1) * sz, a + h * sz, ctx) <= 0) return;
    /* the left run moves to tmp and the two merge into a from the front: the k-th output goes below the right
       run's next unread element (k = i + j - h < j), and what is left of the right run is in place already */
    memcpy(tmp, a, h * sz);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (cmp(a + j * sz, tmp + i * sz, ctx) < 0)
            memcpy(a + k++ * sz, a + j++ * sz, sz);
        else
            memcpy(a + k++ * sz, tmp + i++ * sz, sz);
    }
    memcpy(a + k * sz, tmp + i * sz, (h - i) * sz);
}

jv_status jv_sort_stable(void *base, size_t n, size_t size, jv_cmp_ctx cmp, void *ctx) {
    if (n < 2) return JV_OK;
    if (n > SIZE_MAX / size) return JV_ERR_NOMEM;
    char *tmp = malloc(n / 2 * size); /* the left run of a merge: at most half */
    if (!tmp) return JV_ERR_NOMEM;
    sort_rec(base, tmp, n, size, cmp, ctx);
    free(tmp);
    return JV_OK;
}

static void swap_el(char *a, char *b, size_t sz) {
    char t[64];
    while (sz) {
        size_t k = sz < sizeof t ? sz : sizeof t;
        memcpy(t, a, k);
        memcpy(a, b, k);
        memcpy(b, t, k);
        a += k, b += k, sz -= k;
    }
}

static void sift_down(char *a, size_t root, size_t n, size_t sz, jv_cmp_ctx cmp, void *ctx) {
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && cmp(a + c * sz, a + (c + 1) * sz, ctx) < 0) c++;
        if (cmp(a + root * sz, a + c * sz, ctx) >= 0) return;
        swap_el(a + root * sz, a + c * sz, sz);
        root = c;
    }
}

static void intro_rec(char *a, size_t n, size_t sz, jv_cmp_ctx cmp, void *ctx, unsigned depth) {
    while (n > 16) {
        if (depth-- == 0) { /* heapsort */
            for (size_t i = n / 2; i-- > 0;)
                sift_down(a, i, n, sz, cmp, ctx);
            for (size_t e = n; e-- > 1;) {
                swap_el(a, a + e * sz, sz);
                sift_down(a, 0, e, sz, cmp, ctx);
            }
            return;
        }
        /* the median of the first, middle and last elements as the pivot, moved to a[0] */
        char *lo = a, *mi = a + (n / 2) * sz, *hi = a + (n - 1) * sz;
        if (cmp(mi, lo, ctx) < 0) swap_el(mi, lo, sz);
        if (cmp(hi, mi, ctx) < 0) {
            swap_el(hi, mi, sz);
            if (cmp(mi, lo, ctx) < 0) swap_el(mi, lo, sz);
        }
        swap_el(lo, mi, sz);
        /* Hoare partition around a[0]: a[1..j] <= pivot <= a[j+1..n-1]; a[0] stops the downward scan */
        size_t i = 0, j = n;
        for (;;) {
            do
                i++;
            while (i < n && cmp(a + i * sz, a, ctx) < 0);
            do
                j--;
            while (cmp(a + j * sz, a, ctx) > 0);
            if (i >= j) break;
            swap_el(a + i * sz, a + j * sz, sz);
        }
        swap_el(a, a + j * sz, sz);
        /* the smaller side by recursion, the larger by the loop: O(log n) stack */
        size_t nl = j, nr = n - j - 1;
        if (nl < nr) {
            intro_rec(a, nl, sz, cmp, ctx, depth);
            a += (j + 1) * sz;
            n = nr;
        } else {
            intro_rec(a + (j + 1) * sz, nr, sz, cmp, ctx, depth);
            n = nl;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cmp(a + (j - 1) * sz, a + j * sz, ctx) > 0; j--)
            swap_el(a + (j - 1) * sz, a + j * sz, sz);
}

void jv_sort_inplace(void *base, size_t n, size_t size, jv_cmp_ctx cmp, void *ctx) {
    unsigned depth = 0;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    if (n > 1) intro_rec(base, n, size, cmp, ctx, depth);
}

static int cmp_str_ix(const void *a, const void *b, void *ctx) {
    const char *const *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(s[x], s[y]);
    if (c) return c;
    return (x > y) - (x < y); /* a total order: the sort may be in place */
}

jv_status jv_str_ranks(const char *const *s, size_t n, uint32_t *rank) {
    if (n == 0) return JV_OK;
    if (n > UINT32_MAX || n > SIZE_MAX / sizeof(uint32_t)) return JV_ERR_NOMEM;
    uint32_t *ix = malloc(n * sizeof *ix);
    if (!ix) return JV_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        ix[i] = (uint32_t)i;
    jv_sort_inplace(ix, n, sizeof *ix, cmp_str_ix, (void *)s);
    uint32_t r = 0;
    rank[ix[0]] = 0;
    for (size_t k = 1; k < n; k++) {
        if (strcmp(s[ix[k - 1]], s[ix[k]])) r++;
        rank[ix[k]] = r;
    }
    free(ix);
    return JV_OK;
}

/* A stable merge sort of doubles (no NaN): equal values keep their order, as glibc's qsort (a merge sort) kept
 * them, so a -0.0 and a 0.0 come out where they came before; compared inline, not through a function pointer. */
static void dsort_ins(double *v, size_t n) {
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void dsort_rec(double *v, double *tmp, size_t n) {
    if (n <= 24) {
        dsort_ins(v, n);
        return;
    }
    size_t h = n / 2;
    dsort_rec(v, tmp, h);
    dsort_rec(v + h, tmp, n - h);
    if (!(v[h - 1] > v[h])) return;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = v[j] < v[i] ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    memcpy(v, tmp, j * sizeof *v); /* v[j..n) is in place */
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double jv_median_sort(double *v, size_t n) {
    if (!n) return 0;
    double stack[256], *tmp = n <= 256 ? stack : malloc(n * sizeof *tmp);
    if (tmp) {
        dsort_rec(v, tmp, n);
        if (tmp != stack) free(tmp);
    } else {
        qsort(v, n, sizeof *v, cmp_double); /* out of memory: qsort (its own fallback) */
    }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
