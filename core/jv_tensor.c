/* jv_tensor: shape arithmetic with overflow checks. */
#include "jv_tensor.h"

#include <string.h>

int64_t jv_tensor_numel(const jv_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) {
        int64_t d = t->shape[i];
        if (d < 0) return -1;
        if (d && n > INT64_MAX / d) return -1;
        n *= d;
    }
    return n;
}

void jv_tensor_set_contiguous(jv_tensor *t) {
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        t->strides[i] = s;
        if (t->shape[i] > 1 && s <= INT64_MAX / t->shape[i]) s *= t->shape[i];
    }
    t->has_strides = 1;
}

int64_t jv_tensor_extent(const jv_tensor *t) {
    int64_t n = jv_tensor_numel(t);
    if (n <= 0 || !t->has_strides) return n;
    int64_t e = 1;
    for (int i = 0; i < t->ndim; i++) {
        int64_t s = t->strides[i] < 0 ? -t->strides[i] : t->strides[i];
        int64_t d = t->shape[i] - 1;
        if (d && s > (INT64_MAX - e) / d) return -1;
        e += d * s;
    }
    return e;
}

/* 1 when, visiting dims in the given order from innermost to outermost, each
 * stride equals the product of the inner sizes (dims of size 1 are free) */
static int dense_in_order(const jv_tensor *t, const int *order) {
    int64_t expect = 1;
    for (int k = 0; k < t->ndim; k++) {
        int i = order[k];
        if (t->shape[i] == 1) continue;
        if (t->strides[i] != expect) return 0;
        expect *= t->shape[i];
    }
    return 1;
}

jv_layout jv_tensor_layout(const jv_tensor *t) {
    if (!t->has_strides || t->ndim == 0) return JV_LAYOUT_CONTIGUOUS;
    int order[JV_MAX_DIMS];
    for (int k = 0; k < t->ndim; k++)
        order[k] = t->ndim - 1 - k;
    if (dense_in_order(t, order)) return JV_LAYOUT_CONTIGUOUS;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] > 1 && t->strides[i] == 0) return JV_LAYOUT_BROADCAST;
    }
    if (t->ndim == 4 || t->ndim == 5) {
        /* channels innermost, then the spatial dims innermost-first, then N */
        int k = 0;
        order[k++] = 1;
        for (int i = t->ndim - 1; i >= 2; i--)
            order[k++] = i;
        order[k++] = 0;
        if (dense_in_order(t, order)) return JV_LAYOUT_CHANNELS_LAST;
    }
    if (t->ndim >= 2) {
        for (int k = 0; k < t->ndim; k++)
            order[k] = t->ndim - 1 - k;
        order[0] = t->ndim - 2;
        order[1] = t->ndim - 1;
        if (dense_in_order(t, order)) return JV_LAYOUT_TRANSPOSED;
    }
    return JV_LAYOUT_STRIDED;
}

const char *jv_layout_name(jv_layout l) {
    switch (l) {
    case JV_LAYOUT_CONTIGUOUS: return "contiguous";
    case JV_LAYOUT_CHANNELS_LAST: return "channels_last";
    case JV_LAYOUT_TRANSPOSED: return "transposed";
    case JV_LAYOUT_BROADCAST: return "broadcast";
    case JV_LAYOUT_STRIDED: return "strided";
    }
    return "strided";
}

int jv_tensor_broadcast(const jv_tensor *a, const jv_tensor *b, jv_tensor *out) {
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    jv_tensor r;
    memset(&r, 0, sizeof r);
    r.ndim = n;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) return 0;
        r.shape[i] = da == 1 ? db : da;
    }
    jv_tensor_set_contiguous(&r);
    *out = r;
    return 1;
}

/* Stride of dim i: the traced one, or the row-major one when t has none. */
static int64_t stride_of(const jv_tensor *t, int i) {
    if (t->has_strides) return t->strides[i];
    int64_t s = 1;
    for (int j = t->ndim - 1; j > i; j--)
        s *= t->shape[j];
    return s;
}

int64_t jv_tensor_offset(const jv_tensor *t, const int64_t *idx) {
    int64_t off = 0;
    for (int i = 0; i < t->ndim; i++)
        off += idx[i] * stride_of(t, i);
    return off;
}

void jv_tensor_unravel(const jv_tensor *t, int64_t i, int64_t *idx) {
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = i % n;
        i /= n;
    }
}

int64_t jv_tensor_offset_at(const jv_tensor *t, int64_t i) {
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
        off += (i % n) * stride_of(t, d);
        i /= n;
    }
    return off;
}

int jv_tensor_suggest_channels_last(const jv_tensor *t) {
    static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    if (!t->has_strides || (t->ndim != 4 && t->ndim != 5)) return 0;
    const int *order = t->ndim == 4 ? order4 : order5;
    if (t->strides[1] == 0) return 0; /* a trivial C dim: NCHW */
    int64_t min = 0;
    for (int k = 0; k < t->ndim; k++) {
        int d = order[k];
        if (t->shape[d] == 0 || t->strides[d] < min) return 0;
        if (d == 0 && min == t->strides[1]) return 0; /* N111 with equal strides: ambiguous, NCHW */
        min = t->strides[d];
        if (t->shape[d] > 1) min *= t->shape[d];
    }
    return 1;
}

void jv_tensor_cudnn_strides(const jv_tensor *t, int channels_last, int64_t *out) {
    int order[JV_MAX_DIMS], k = 0, nd = t->ndim;
    if (nd <= 0) return;
    for (int i = 0; i < nd; i++)
        out[i] = stride_of(t, i);
    if (nd == 1) {
        order[k++] = 0;
    } else {
        if (channels_last) order[k++] = 1;
        for (int d = nd - 1; d > 1; d--)
            order[k++] = d;
        if (!channels_last) order[k++] = 1;
        order[k++] = 0;
    }
    int64_t z = 1;
    for (int j = 0; j < k; j++) {
        int d = order[j];
        if (t->shape[d] == 1)
            out[d] = z;
        else
            z *= t->shape[d];
    }
}

int jv_tensor_same_shape(const jv_tensor *a, const jv_tensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}

int jv_tensor_tail_dense(const jv_tensor *t, int k) {
    int64_t want = 1;
    for (int i = t->ndim - 1; i >= t->ndim - k && i >= 0; i--) {
        if (t->shape[i] != 1 && t->strides[i] != want) return 0;
        want *= t->shape[i];
    }
    return 1;
}

int jv_tensor_dense(const jv_tensor *t) {
    int order[JV_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 0) return 1;
        order[d] = d;
    }
    for (int i = 1; i < t->ndim; i++) /* the dims by stride, innermost first (insertion sort) */
        for (int j = i; j > 0 && t->strides[order[j]] < t->strides[order[j - 1]]; j--) {
            int s = order[j];
            order[j] = order[j - 1];
            order[j - 1] = s;
        }
    return dense_in_order(t, order);
}
