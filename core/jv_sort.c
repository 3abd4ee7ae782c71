/* jv_sort: top-down merge sort on bytes; insertion sort for short runs. */
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
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        const char *src = cmp(a + j * sz, a + i * sz, ctx) < 0 ? a + j++ * sz : a + i++ * sz;
        memcpy(tmp + k++ * sz, src, sz);
    }
    memcpy(tmp + k * sz, a + i * sz, (h - i) * sz);
    k += h - i;
    memcpy(tmp + k * sz, a + j * sz, (n - j) * sz);
    memcpy(a, tmp, n * sz);
}

jv_status jv_sort_stable(void *base, size_t n, size_t size, jv_cmp_ctx cmp, void *ctx) {
    if (n < 2) return JV_OK;
    if (n > SIZE_MAX / size) return JV_ERR_NOMEM;
    char *tmp = malloc(n * size);
    if (!tmp) return JV_ERR_NOMEM;
    sort_rec(base, tmp, n, size, cmp, ctx);
    free(tmp);
    return JV_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double jv_median_sort(double *v, size_t n) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
