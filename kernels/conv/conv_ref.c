/* conv_ref: the replay operands and the CPU reference of the convolution family.
 *
 * Every call is computed as one direct convolution C between an "A-space"
 * tensor [N, CA, sa...] and a "B-space" tensor [N, CB, sb...] with a weight
 * W [CB, CA/G, k...] (G = groups, g = cb / (CB/G)):
 *   B[n, cb, b] = sum_{ci < CA/G, k} W[cb, ci, k] * A[n, g*CA/G + ci, b*stride - pad + k*dil]
 * (positions outside [0, sa) read zero; "same" padding needs nothing more:
 * its extra right pad only adds zeros past the end). Then
 *   normal forward:      A = input, B = out: B = C(A) (+ bias)
 *   transposed forward:  B = input, A = out: A = C^T(B) (+ bias), the adjoint
 *                        of C w.r.t. its input, sa including output_padding
 *   normal backward:     grad_input = C^T(grad_out), grad_weight = corr(B = grad_out, A = input)
 *   transposed backward: grad_input = C(grad_out),   grad_weight = corr(B = input, A = grad_out)
 *   grad_bias = sum of grad_out over N and the spatial dims.
 * Spatial dims are padded in front to three (size 1, kernel 1, stride 1) so
 * one loop nest serves 1d, 2d and 3d. All sums run in double. A full run
 * gathers one batch entry of each operand at a time into contiguous double
 * planes, computes with tight loops and scatters with rounding; a sampled run
 * reads each term through the operand's strides. Both add the same terms in
 * the same order, so a sampled element equals the full run's bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

/* ---- operands ---- */

static int replay_dtype(jv_dtype t) {
    return t == JV_DT_F32 || t == JV_DT_F16 || t == JV_DT_BF16 || t == JV_DT_F64;
}

/* A dense tensor of the given shape: channels_last (NHWC / NDHWC) when cl and
 * the rank is 4 or 5, else row-major. */
static jv_tensor dense_tensor(const int64_t *shape, int ndim, jv_dtype dt, int cl) {
    jv_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = ndim;
    t.dtype = dt;
    for (int i = 0; i < ndim; i++)
        t.shape[i] = shape[i];
    if (cl && (ndim == 4 || ndim == 5)) {
        int64_t run = shape[1] > 0 ? shape[1] : 1;
        t.strides[1] = 1;
        for (int i = ndim - 1; i >= 2; i--) {
            t.strides[i] = run;
            run *= shape[i] > 0 ? shape[i] : 1;
        }
        t.strides[0] = run;
    } else {
        jv_tensor_set_contiguous(&t);
    }
    t.has_strides = 1;
    return t;
}

jv_status jv_conv_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const jv_conv_desc *g = jv_conv_of(d);
    out->n = 0;
    int nr = g->nd + 2;
    if (!replay_dtype(g->x.dtype))
        JV_FAIL(err, JV_ERR_FORMAT, "conv replay supports float32, float16, bfloat16 and float64 inputs, not '%s'",
                g->x.dtype == JV_DT_UNKNOWN ? "unknown" : jv_dtype_trace_name(g->x.dtype));
    if (g->w.dtype != g->x.dtype)
        JV_FAIL(err, JV_ERR_FORMAT, "conv: input (%s) and weight (%s) dtypes differ, which PyTorch refuses",
                jv_dtype_short(g->x.dtype), jv_dtype_short(g->w.dtype));
    int x_cl = g->layout == JV_LAYOUT_CHANNELS_LAST, w_cl = g->w_layout == JV_LAYOUT_CHANNELS_LAST;
    if (g->op != JV_CONV_BACKWARD) {
        if (g->has_bias && g->bias.dtype != g->x.dtype)
            JV_FAIL(err, JV_ERR_FORMAT, "conv: bias dtype (%s) differs from the input's (%s)",
                    jv_dtype_short(g->bias.dtype), jv_dtype_short(g->x.dtype));
        JV_CHECK(jv_operands_add(out, "input", &g->x, JV_ROLE_IN, JV_INIT_NORMAL, err));
        JV_CHECK(jv_operands_add(out, "weight", &g->w, JV_ROLE_IN, JV_INIT_NORMAL, err));
        if (g->has_bias) JV_CHECK(jv_operands_add(out, "bias", &g->bias, JV_ROLE_IN, JV_INIT_NORMAL, err));
        jv_tensor o = dense_tensor(g->out, nr, g->dtype, x_cl);
        JV_CHECK(jv_operands_add(out, "out", &o, JV_ROLE_OUT, JV_INIT_NONE, err));
        return JV_OK;
    }
    if (!g->output_mask[0] && !g->output_mask[1] && !g->output_mask[2])
        JV_FAIL(err, JV_ERR_FORMAT, "convolution_backward: output_mask computes nothing");
    jv_tensor go;
    if (g->has_grad_out) {
        go = g->grad_out;
        if (go.dtype != g->x.dtype)
            JV_FAIL(err, JV_ERR_FORMAT, "convolution_backward: grad_output dtype (%s) differs from the input's (%s)",
                    jv_dtype_short(go.dtype), jv_dtype_short(g->x.dtype));
    } else {
        go = dense_tensor(g->out, nr, g->x.dtype, x_cl);
    }
    JV_CHECK(jv_operands_add(out, "grad_output", &go, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, "input", &g->x, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, "weight", &g->w, JV_ROLE_IN, JV_INIT_NORMAL, err));
    if (g->output_mask[0]) {
        jv_tensor t = dense_tensor(g->x.shape, nr, g->x.dtype, x_cl);
        JV_CHECK(jv_operands_add(out, "grad_input", &t, JV_ROLE_OUT, JV_INIT_NONE, err));
    }
    if (g->output_mask[1]) {
        jv_tensor t = dense_tensor(g->w.shape, nr, g->w.dtype, w_cl);
        JV_CHECK(jv_operands_add(out, "grad_weight", &t, JV_ROLE_OUT, JV_INIT_NONE, err));
    }
    if (g->output_mask[2]) {
        jv_tensor t = dense_tensor(&g->c_out, 1, go.dtype, 0);
        JV_CHECK(jv_operands_add(out, "grad_bias", &t, JV_ROLE_OUT, JV_INIT_NONE, err));
    }
    return JV_OK;
}

/* ---- geometry and views ---- */

typedef struct {
    int64_t n, ca, cb, cag, cbg; /* batch; A and B channels; per group */
    int64_t sa[3], sb[3], k[3], st[3], pad[3], dil[3];
    int64_t SA, SB, K; /* elements of one A plane, B plane, kernel */
} geom;

/* An operand seen as 5-d [N, C, s0, s1, s2] (a weight as [CB, CA/G, k0, k1, k2]). */
typedef struct {
    jv_dtype dt;
    void *base;
    int64_t st[5];
} view;

/* *out = v[0] * v[1] * v[2] (each >= 0); 0 when that overflows int64. */
static int prod3(const int64_t *v, int64_t *out) {
    int64_t p = 1;
    for (int i = 0; i < 3; i++) {
        if (v[i] < 0 || (v[i] > 0 && p > INT64_MAX / v[i])) return 0;
        p *= v[i];
    }
    *out = p;
    return 1;
}

/* The A/B geometry of a conv; 0 when a plane size overflows. */
static int geom_of(const jv_conv_desc *g, geom *m) {
    int off = JV_CONV_MAX_SPATIAL - g->nd;
    memset(m, 0, sizeof *m);
    m->n = g->n;
    m->ca = g->transposed ? g->c_out : g->c_in;
    m->cb = g->transposed ? g->c_in : g->c_out;
    m->cag = m->ca / g->groups;
    m->cbg = m->cb / g->groups;
    for (int i = 0; i < 3; i++) {
        m->sa[i] = m->sb[i] = m->k[i] = m->st[i] = m->dil[i] = 1;
        m->pad[i] = 0;
    }
    for (int i = 0; i < g->nd; i++) {
        int j = off + i;
        int64_t xs = g->x.shape[2 + i], os = g->out[2 + i];
        m->sa[j] = g->transposed ? os : xs;
        m->sb[j] = g->transposed ? xs : os;
        m->k[j] = g->w.shape[2 + i];
        m->st[j] = g->stride[i];
        m->pad[j] = g->padding[i];
        m->dil[j] = g->dilation[i];
    }
    /* an empty operand bounds no product: refuse sizes whose plane would not fit int64 */
    return prod3(m->sa, &m->SA) && prod3(m->sb, &m->SB) && prod3(m->k, &m->K);
}

static view view_of(const jv_operand *o, void *base) {
    view v;
    memset(&v, 0, sizeof v);
    v.dt = o->t.dtype;
    v.base = base;
    int sp = o->t.ndim - 2; /* spatial dims; the front ones of the 3 stay at stride 0 (size 1) */
    v.st[0] = o->t.strides[0];
    v.st[1] = o->t.strides[1];
    for (int i = 0; i < sp; i++)
        v.st[2 + (3 - sp) + i] = o->t.strides[2 + i];
    return v;
}

static int64_t voff(const view *v, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
    return a * v->st[0] + b * v->st[1] + c * v->st[2] + d * v->st[3] + e * v->st[4];
}

static double vload(const view *v, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
    return jv_dtype_load(v->dt, v->base, voff(v, a, b, c, d, e));
}

static int64_t floor_div(int64_t a, int64_t b) { /* b > 0 */
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The b in [*lo, *hi) with 0 <= b < nb and 0 <= b*st + off < size. */
static void brange(int64_t off, int64_t st, int64_t size, int64_t nb, int64_t *lo, int64_t *hi) {
    int64_t l = -floor_div(off, st); /* ceil(-off / st) */
    int64_t h = floor_div(size - 1 - off, st) + 1;
    if (l < 0) l = 0;
    if (h > nb) h = nb;
    if (h < l) h = l;
    *lo = l;
    *hi = h;
}

/* Copies the 5-d block of v at (a0, ...) of sizes sz into dst (row-major), as doubles. */
static void gather(const view *v, int64_t a0, const int64_t sz[5], double *dst) {
    int64_t i = 0;
    for (int64_t a = 0; a < sz[0]; a++)
        for (int64_t b = 0; b < sz[1]; b++)
            for (int64_t c = 0; c < sz[2]; c++)
                for (int64_t d = 0; d < sz[3]; d++) {
                    int64_t o = voff(v, a0 + a, b, c, d, 0);
                    for (int64_t e = 0; e < sz[4]; e++)
                        dst[i++] = jv_dtype_load(v->dt, v->base, o + e * v->st[4]);
                }
}

/* The inverse of gather: stores src (rounded to v's dtype) into the block. */
static void scatter(const view *v, int64_t a0, const int64_t sz[5], const double *src) {
    int64_t i = 0;
    for (int64_t a = 0; a < sz[0]; a++)
        for (int64_t b = 0; b < sz[1]; b++)
            for (int64_t c = 0; c < sz[2]; c++)
                for (int64_t d = 0; d < sz[3]; d++) {
                    int64_t o = voff(v, a0 + a, b, c, d, 0);
                    for (int64_t e = 0; e < sz[4]; e++)
                        jv_dtype_store(v->dt, v->base, o + e * v->st[4], src[i++]);
                }
}

/* Allocates n doubles (at least one), zeroed; NULL on overflow or failure. */
static double *dalloc(int64_t n) {
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) return NULL;
    return calloc(n > 0 ? (size_t)n : 1, sizeof(double));
}

/* ---- full computation on one batch entry (contiguous double planes) ---- */

/* adj 0: B += C(A); adj 1: A += C^T(B), the same terms scattered the other way.
 * B [CB][SB], A [CA][SA], W [CB][CA/G][K]. */
static void map_slice(const geom *m, double *restrict A, const double *restrict W, double *restrict B, int adj) {
    for (int64_t cb = 0; cb < m->cb; cb++) {
        int64_t grp = cb / m->cbg;
        double *bp = B + cb * m->SB;
        for (int64_t ci = 0; ci < m->cag; ci++) {
            double *ap = A + (grp * m->cag + ci) * m->SA;
            const double *wp = W + (cb * m->cag + ci) * m->K;
            for (int64_t k0 = 0; k0 < m->k[0]; k0++) {
                int64_t o0 = k0 * m->dil[0] - m->pad[0], l0, h0;
                brange(o0, m->st[0], m->sa[0], m->sb[0], &l0, &h0);
                for (int64_t k1 = 0; k1 < m->k[1]; k1++) {
                    int64_t o1 = k1 * m->dil[1] - m->pad[1], l1, h1;
                    brange(o1, m->st[1], m->sa[1], m->sb[1], &l1, &h1);
                    for (int64_t k2 = 0; k2 < m->k[2]; k2++) {
                        int64_t o2 = k2 * m->dil[2] - m->pad[2], l2, h2, s2 = m->st[2];
                        brange(o2, s2, m->sa[2], m->sb[2], &l2, &h2);
                        double wv = wp[(k0 * m->k[1] + k1) * m->k[2] + k2];
                        for (int64_t b0 = l0; b0 < h0; b0++) {
                            int64_t a0 = b0 * m->st[0] + o0;
                            for (int64_t b1 = l1; b1 < h1; b1++) {
                                int64_t a1 = b1 * m->st[1] + o1;
                                double *restrict br = bp + (b0 * m->sb[1] + b1) * m->sb[2];
                                double *restrict ar = ap + (a0 * m->sa[1] + a1) * m->sa[2] + o2;
                                if (adj && s2 == 1)
                                    for (int64_t b2 = l2; b2 < h2; b2++)
                                        ar[b2] += wv * br[b2];
                                else if (adj)
                                    for (int64_t b2 = l2; b2 < h2; b2++)
                                        ar[b2 * s2] += wv * br[b2];
                                else if (s2 == 1)
                                    for (int64_t b2 = l2; b2 < h2; b2++)
                                        br[b2] += wv * ar[b2];
                                else
                                    for (int64_t b2 = l2; b2 < h2; b2++)
                                        br[b2] += wv * ar[b2 * s2];
                            }
                        }
                    }
                }
            }
        }
    }
}

/* W[cb][ci][k] += sum_b B[cb][b] * A[g*CA/G + ci][b*st - pad + k*dil], one running sum per element. */
static void wgrad_slice(const geom *m, const double *restrict A, const double *restrict B, double *restrict W) {
    for (int64_t cb = 0; cb < m->cb; cb++) {
        int64_t grp = cb / m->cbg;
        const double *bp = B + cb * m->SB;
        for (int64_t ci = 0; ci < m->cag; ci++) {
            const double *ap = A + (grp * m->cag + ci) * m->SA;
            double *wp = W + (cb * m->cag + ci) * m->K;
            for (int64_t k0 = 0; k0 < m->k[0]; k0++) {
                int64_t o0 = k0 * m->dil[0] - m->pad[0], l0, h0;
                brange(o0, m->st[0], m->sa[0], m->sb[0], &l0, &h0);
                for (int64_t k1 = 0; k1 < m->k[1]; k1++) {
                    int64_t o1 = k1 * m->dil[1] - m->pad[1], l1, h1;
                    brange(o1, m->st[1], m->sa[1], m->sb[1], &l1, &h1);
                    for (int64_t k2 = 0; k2 < m->k[2]; k2++) {
                        int64_t o2 = k2 * m->dil[2] - m->pad[2], l2, h2, s2 = m->st[2];
                        brange(o2, s2, m->sa[2], m->sb[2], &l2, &h2);
                        int64_t wi = (k0 * m->k[1] + k1) * m->k[2] + k2;
                        double acc = wp[wi];
                        for (int64_t b0 = l0; b0 < h0; b0++) {
                            int64_t a0 = b0 * m->st[0] + o0;
                            for (int64_t b1 = l1; b1 < h1; b1++) {
                                int64_t a1 = b1 * m->st[1] + o1;
                                const double *br = bp + (b0 * m->sb[1] + b1) * m->sb[2];
                                int64_t ai = (a0 * m->sa[1] + a1) * m->sa[2] + o2;
                                for (int64_t b2 = l2; b2 < h2; b2++)
                                    acc += br[b2] * ap[ai + b2 * s2];
                            }
                        }
                        wp[wi] = acc;
                    }
                }
            }
        }
    }
}

/* ---- one element (sampled runs): the same terms in the same order ---- */

/* B[n, cb, b] of C(A) (no bias). */
static double fwd_elem(const geom *m, const view *A, const view *W, const int64_t c[5]) {
    int64_t n = c[0], cb = c[1], grp = cb / m->cbg;
    double acc = 0;
    for (int64_t ci = 0; ci < m->cag; ci++)
        for (int64_t k0 = 0; k0 < m->k[0]; k0++) {
            int64_t a0 = c[2] * m->st[0] - m->pad[0] + k0 * m->dil[0];
            if (a0 < 0 || a0 >= m->sa[0]) continue;
            for (int64_t k1 = 0; k1 < m->k[1]; k1++) {
                int64_t a1 = c[3] * m->st[1] - m->pad[1] + k1 * m->dil[1];
                if (a1 < 0 || a1 >= m->sa[1]) continue;
                for (int64_t k2 = 0; k2 < m->k[2]; k2++) {
                    int64_t a2 = c[4] * m->st[2] - m->pad[2] + k2 * m->dil[2];
                    if (a2 < 0 || a2 >= m->sa[2]) continue;
                    acc += vload(W, cb, ci, k0, k1, k2) * vload(A, n, grp * m->cag + ci, a0, a1, a2);
                }
            }
        }
    return acc;
}

/* The B index that reaches A position a through kernel tap k, or -1. */
static int64_t b_of(const geom *m, int i, int64_t a, int64_t k) {
    int64_t t = a + m->pad[i] - k * m->dil[i];
    if (t < 0 || t % m->st[i]) return -1;
    t /= m->st[i];
    return t < m->sb[i] ? t : -1;
}

/* A[n, ca, a] of C^T(B) (no bias). */
static double adj_elem(const geom *m, const view *B, const view *W, const int64_t c[5]) {
    int64_t n = c[0], grp = c[1] / m->cag, ci = c[1] % m->cag;
    double acc = 0;
    for (int64_t cb = grp * m->cbg; cb < (grp + 1) * m->cbg; cb++)
        for (int64_t k0 = 0; k0 < m->k[0]; k0++) {
            int64_t b0 = b_of(m, 0, c[2], k0);
            if (b0 < 0) continue;
            for (int64_t k1 = 0; k1 < m->k[1]; k1++) {
                int64_t b1 = b_of(m, 1, c[3], k1);
                if (b1 < 0) continue;
                for (int64_t k2 = 0; k2 < m->k[2]; k2++) {
                    int64_t b2 = b_of(m, 2, c[4], k2);
                    if (b2 < 0) continue;
                    acc += vload(W, cb, ci, k0, k1, k2) * vload(B, n, cb, b0, b1, b2);
                }
            }
        }
    return acc;
}

/* W[cb, ci, k] of corr(B, A). */
static double wgrad_elem(const geom *m, const view *A, const view *B, const int64_t c[5]) {
    int64_t cb = c[0], ca = (cb / m->cbg) * m->cag + c[1];
    int64_t lo[3], hi[3], o[3];
    for (int i = 0; i < 3; i++) {
        o[i] = c[2 + i] * m->dil[i] - m->pad[i];
        brange(o[i], m->st[i], m->sa[i], m->sb[i], &lo[i], &hi[i]);
    }
    double acc = 0;
    for (int64_t n = 0; n < m->n; n++)
        for (int64_t b0 = lo[0]; b0 < hi[0]; b0++)
            for (int64_t b1 = lo[1]; b1 < hi[1]; b1++)
                for (int64_t b2 = lo[2]; b2 < hi[2]; b2++)
                    acc += vload(B, n, cb, b0, b1, b2) *
                           vload(A, n, ca, b0 * m->st[0] + o[0], b1 * m->st[1] + o[1], b2 * m->st[2] + o[2]);
    return acc;
}

/* sum over n and the spatial dims of G[n, ch, ...] (sp: G's spatial sizes). */
static double bsum_elem(const view *G, int64_t n, const int64_t sp[3], int64_t ch) {
    double acc = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t a = 0; a < sp[0]; a++)
            for (int64_t b = 0; b < sp[1]; b++)
                for (int64_t c = 0; c < sp[2]; c++)
                    acc += vload(G, i, ch, a, b, c);
    return acc;
}

/* ---- drivers ---- */

/* What to compute of one output: everything (idx NULL) or n logical elements. */
typedef struct {
    const jv_tensor *t; /* the output operand's tensor */
    const int64_t *idx;
    int64_t n;
} pick;

/* Logical index li of the output t as a 5-d coordinate (spatial padded in front). */
static void coord5(const jv_tensor *t, int64_t li, int64_t c[5]) {
    int64_t idx[JV_MAX_DIMS];
    jv_tensor_unravel(t, li, idx);
    int sp = t->ndim - 2;
    c[0] = idx[0];
    c[1] = idx[1];
    c[2] = c[3] = c[4] = 0;
    for (int i = 0; i < sp; i++)
        c[2 + (3 - sp) + i] = idx[2 + i];
}

static jv_status nomem(jv_err *err) {
    JV_FAIL(err, JV_ERR_NOMEM, "conv reference: out of memory for its double buffers");
}

/* Gathers the whole weight [CB][CA/G][K] as doubles into *out. */
static jv_status gather_weight(const geom *m, const view *W, double **out, jv_err *err) {
    const int64_t sz[5] = {m->cb, m->cag, m->k[0], m->k[1], m->k[2]};
    *out = dalloc(m->cb * m->cag * m->K);
    if (!*out) return nomem(err);
    gather(W, 0, sz, *out);
    return JV_OK;
}

/* adj 0: dst = C(src), src the A side and dst the B side; adj 1: dst = C^T(src),
 * src the B side and dst the A side. A bias is added over dst's channels. */
static jv_status run_map(const geom *m, int adj, const view *src, const view *W, const view *bias, const view *dst,
                         const pick *p, jv_err *err) {
    if (p->idx) {
        double *v = dalloc(p->n);
        if (!v && p->n) return nomem(err);
            /* the elements in parallel (each its own sum, in the same order as one thread), stored after: a
             * sample may name an element twice */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16)
#endif
        for (int64_t i = 0; i < p->n; i++) {
            int64_t c[5];
            coord5(p->t, p->idx[i], c);
            v[i] = adj ? adj_elem(m, src, W, c) : fwd_elem(m, src, W, c);
            if (bias) v[i] += vload(bias, 0, c[1], 0, 0, 0);
        }
        for (int64_t i = 0; i < p->n; i++) {
            int64_t c[5];
            coord5(p->t, p->idx[i], c);
            jv_dtype_store(dst->dt, dst->base, voff(dst, c[0], c[1], c[2], c[3], c[4]), v[i]);
        }
        free(v);
        return JV_OK;
    }
    if (m->n == 0) return JV_OK; /* an empty batch: nothing to write (and no plane size to trust) */
    const int64_t sza[5] = {1, m->ca, m->sa[0], m->sa[1], m->sa[2]};
    const int64_t szb[5] = {1, m->cb, m->sb[0], m->sb[1], m->sb[2]};
    const int64_t *szs = adj ? szb : sza, *szd = adj ? sza : szb;
    const int64_t cs = adj ? m->cb : m->ca, ss = adj ? m->SB : m->SA;
    const int64_t cd = adj ? m->ca : m->cb, sd = adj ? m->SA : m->SB;
    double *w = NULL, *in = dalloc(cs * ss), *out = dalloc(cd * sd);
    jv_status st = (in && out) ? gather_weight(m, W, &w, err) : nomem(err);
    if (st == JV_OK) {
        for (int64_t n = 0; n < m->n; n++) {
            gather(src, n, szs, in);
            memset(out, 0, (size_t)(cd * sd) * sizeof *out);
            if (adj)
                map_slice(m, out, w, in, 1);
            else
                map_slice(m, in, w, out, 0);
            if (bias)
                for (int64_t ch = 0; ch < cd; ch++) {
                    double bv = vload(bias, 0, ch, 0, 0, 0);
                    for (int64_t j = 0; j < sd; j++)
                        out[ch * sd + j] += bv;
                }
            scatter(dst, n, szd, out);
        }
    }
    free(in);
    free(out);
    free(w);
    return st;
}

/* W = corr(B, A): the weight gradient of B = C(A). */
static jv_status run_wgrad(const geom *m, const view *A, const view *B, const view *W, const pick *p, jv_err *err) {
    if (p->idx) {
        double *v = dalloc(p->n);
        if (!v && p->n) return nomem(err);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4)
#endif
        for (int64_t i = 0; i < p->n; i++) {
            int64_t c[5];
            coord5(p->t, p->idx[i], c);
            v[i] = wgrad_elem(m, A, B, c);
        }
        for (int64_t i = 0; i < p->n; i++) {
            int64_t c[5];
            coord5(p->t, p->idx[i], c);
            jv_dtype_store(W->dt, W->base, voff(W, c[0], c[1], c[2], c[3], c[4]), v[i]);
        }
        free(v);
        return JV_OK;
    }
    /* with an empty batch the planes are not allocated (their sizes are not bounded by any operand) */
    double *a = m->n ? dalloc(m->ca * m->SA) : NULL, *b = m->n ? dalloc(m->cb * m->SB) : NULL;
    double *w = dalloc(m->cb * m->cag * m->K);
    jv_status st = ((a && b) || !m->n) && w ? JV_OK : nomem(err);
    if (st == JV_OK) {
        const int64_t sza[5] = {1, m->ca, m->sa[0], m->sa[1], m->sa[2]};
        const int64_t szb[5] = {1, m->cb, m->sb[0], m->sb[1], m->sb[2]};
        const int64_t szw[5] = {m->cb, m->cag, m->k[0], m->k[1], m->k[2]};
        for (int64_t n = 0; n < m->n; n++) {
            gather(A, n, sza, a);
            gather(B, n, szb, b);
            wgrad_slice(m, a, b, w);
        }
        scatter(W, 0, szw, w);
    }
    free(a);
    free(b);
    free(w);
    return st;
}

/* out[c] = sum of G[:, c, ...] (G has channels ch and spatial sizes sp). */
static void run_bsum(const view *G, int64_t n, int64_t ch, const int64_t sp[3], const view *out, const pick *p) {
    int64_t cnt = p->idx ? p->n : ch;
    for (int64_t i = 0; i < cnt; i++) {
        int64_t c = p->idx ? p->idx[i] : i;
        jv_dtype_store(out->dt, out->base, c * out->st[1], bsum_elem(G, n, sp, c));
    }
}

jv_status jv_conv_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                            jv_err *err) {
    const jv_conv_desc *g = jv_conv_of(d);
    jv_operands want;
    JV_CHECK(jv_conv_operands(d, &want, err));
    if (!ops || !bufs) JV_FAIL(err, JV_ERR_INTERNAL, "conv reference: no operands");
    if (ops->n != want.n) JV_FAIL(err, JV_ERR_FORMAT, "conv reference: %d operands, expected %d", ops->n, want.n);
    for (int i = 0; i < ops->n; i++) {
        const jv_operand *o = &ops->o[i], *w = &want.o[i];
        if (strcmp(o->name, w->name) || o->t.ndim != w->t.ndim || o->role != w->role)
            JV_FAIL(err, JV_ERR_FORMAT, "conv reference: operand %d is '%s', expected '%s'", i, o->name, w->name);
        for (int k = 0; k < o->t.ndim; k++)
            if (o->t.shape[k] != w->t.shape[k] || (o->t.has_strides && o->t.strides[k] < 0))
                JV_FAIL(err, JV_ERR_FORMAT, "conv reference: operand '%s' has another shape or a negative stride",
                        o->name);
        if (!jv_dtype_is_numeric(o->t.dtype))
            JV_FAIL(err, JV_ERR_FORMAT, "conv reference: operand '%s' has a dtype it cannot read", o->name);
        if (!o->t.has_strides) JV_FAIL(err, JV_ERR_FORMAT, "conv reference: operand '%s' has no strides", o->name);
        if (!bufs[i] && jv_tensor_numel(&o->t) > 0)
            JV_FAIL(err, JV_ERR_FORMAT, "conv reference: operand '%s' has no buffer", o->name);
    }
    int sel = -1; /* the sampled output operand, or -1: everything */
    if (s && s->operand >= 0 && s->operand < ops->n && ops->o[s->operand].role != JV_ROLE_IN) {
        sel = s->operand;
        int64_t numel = jv_tensor_numel(&ops->o[sel].t);
        if (s->n < 0 || (s->n > 0 && !s->idx)) JV_FAIL(err, JV_ERR_FORMAT, "conv reference: malformed sample");
        for (int64_t i = 0; i < s->n; i++)
            if (s->idx[i] < 0 || s->idx[i] >= numel)
                JV_FAIL(err, JV_ERR_FORMAT, "conv reference: sample index %lld outside [0, %lld)", (long long)s->idx[i],
                        (long long)numel);
    }
    geom m;
    if (!geom_of(g, &m)) JV_FAIL(err, JV_ERR_FORMAT, "conv reference: spatial sizes overflow int64");

    view vs[JV_MAX_OPERANDS];
    pick pk[JV_MAX_OPERANDS];
    for (int i = 0; i < ops->n; i++) {
        if (ops->o[i].t.ndim >= 2) {
            vs[i] = view_of(&ops->o[i], bufs[i]);
        } else { /* bias / grad_bias [C]: the channel dim is dim 1 of the view */
            memset(&vs[i], 0, sizeof vs[i]);
            vs[i].dt = ops->o[i].t.dtype;
            vs[i].base = bufs[i];
            vs[i].st[1] = ops->o[i].t.ndim == 1 ? ops->o[i].t.strides[0] : 0;
        }
        pk[i].t = &ops->o[i].t;
        pk[i].idx = i == sel ? s->idx : NULL;
        pk[i].n = i == sel ? s->n : 0;
    }

    if (g->op != JV_CONV_BACKWARD) {
        int ix = jv_operands_find(ops, "input"), iw = jv_operands_find(ops, "weight"),
            ib = jv_operands_find(ops, "bias");
        int io = jv_operands_find(ops, "out");
        const view *bias = ib >= 0 ? &vs[ib] : NULL;
        if (!g->transposed) return run_map(&m, 0, &vs[ix], &vs[iw], bias, &vs[io], &pk[io], err);
        return run_map(&m, 1, &vs[ix], &vs[iw], bias, &vs[io], &pk[io], err);
    }
    int igo = jv_operands_find(ops, "grad_output"), ix = jv_operands_find(ops, "input"),
        iw = jv_operands_find(ops, "weight");
    int igi = jv_operands_find(ops, "grad_input"), igw = jv_operands_find(ops, "grad_weight");
    int igb = jv_operands_find(ops, "grad_bias");
    /* the A-space and B-space operands of C: grad_output lives where the forward's output does */
    const view *A = g->transposed ? &vs[igo] : &vs[ix], *B = g->transposed ? &vs[ix] : &vs[igo];
    if (igi >= 0 && (sel < 0 || sel == igi)) {
        if (g->transposed)
            JV_CHECK(run_map(&m, 0, &vs[igo], &vs[iw], NULL, &vs[igi], &pk[igi], err));
        else
            JV_CHECK(run_map(&m, 1, &vs[igo], &vs[iw], NULL, &vs[igi], &pk[igi], err));
    }
    if (igw >= 0 && (sel < 0 || sel == igw)) JV_CHECK(run_wgrad(&m, A, B, &vs[igw], &pk[igw], err));
    if (igb >= 0 && (sel < 0 || sel == igb)) {
        const int64_t *sp = g->transposed ? m.sa : m.sb;
        run_bsum(&vs[igo], m.n, g->c_out, sp, &vs[igb], &pk[igb]);
    }
    return JV_OK;
}

/* ---- a pointwise convolution as GEMMs ---- */

static int gemm_why(char *why, size_t cap, const char *msg) {
    if (why && cap) snprintf(why, cap, "%s", msg);
    return 0;
}

/* 1 when t [N, C, s...] is dense channels_last (C innermost, then the spatial dims from the last, then
 * N); strides of size-1 dims are free */
static int dense_cl(const jv_tensor *t) {
    if (t->ndim < 3) return 0;
    if (!t->has_strides) { /* row-major: channels_last only when nothing separates them */
        int64_t s = 1;
        for (int i = 2; i < t->ndim; i++)
            s *= t->shape[i];
        return s == 1 || t->shape[1] == 1;
    }
    if (t->shape[1] > 1 && t->strides[1] != 1) return 0;
    int64_t want = t->shape[1];
    for (int i = t->ndim - 1; i >= 2; i--) {
        if (t->shape[i] > 1 && t->strides[i] != want) return 0;
        want *= t->shape[i];
    }
    return t->shape[0] <= 1 || t->strides[0] == want;
}

/* 1 when weight-shaped t [K, C, 1...] is rows of C, C innermost (size-1 dims free) */
static int rows_of_c(const jv_tensor *t, int64_t ci) {
    return !t->has_strides || ((t->shape[1] <= 1 || t->strides[1] == 1) && (t->shape[0] <= 1 || t->strides[0] == ci));
}

/* a 2-D view [r, c] with strides (sr, sc) in dtype dt */
static jv_tensor view2(int64_t r, int64_t c, int64_t sr, int64_t sc, jv_dtype dt) {
    jv_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = 2;
    t.shape[0] = r, t.shape[1] = c;
    t.strides[0] = sr, t.strides[1] = sc;
    t.has_strides = 1;
    t.dtype = dt;
    return t;
}

/* one step: a @ b writing conv operand dst, a and b read from conv operands sa and sb */
static void gemm_step(jv_conv_gemm_step *st, jv_tensor a, jv_tensor b, int sa, int sb, int dst) {
    st->a = a;
    st->b = b;
    st->src[0] = sa, st->src[1] = sb, st->src[2] = dst;
}

int jv_conv_as_gemm(const jv_desc *d, const jv_operands *ops, jv_conv_gemm *g, char *why, size_t cap) {
    memset(g, 0, sizeof *g);
    if (!d || !ops || d->family != JV_FAM_CONV) return gemm_why(why, cap, "not a convolution");
    const jv_conv_desc *c = jv_conv_of(d);
    if (c->transposed || c->groups != 1) return gemm_why(why, cap, "transposed or grouped");
    for (int i = 0; i < c->nd; i++) {
        if (c->w.ndim != c->nd + 2 || c->w.shape[2 + i] != 1) return gemm_why(why, cap, "kernel larger than 1");
        if (c->stride[i] != 1 || c->padding[i] != 0 || c->dilation[i] != 1)
            return gemm_why(why, cap, "stride, padding or dilation");
    }
    int bwd = c->op == JV_CONV_BACKWARD;
    if (bwd ? c->output_mask[2] : c->has_bias) return gemm_why(why, cap, "a bias or its gradient");
    int ix = jv_operands_find(ops, "input"), iw = jv_operands_find(ops, "weight");
    int iy = jv_operands_find(ops, bwd ? "grad_output" : "out");
    int igx = bwd ? jv_operands_find(ops, "grad_input") : -1, igw = bwd ? jv_operands_find(ops, "grad_weight") : -1;
    if (ix < 0 || iw < 0 || iy < 0 || (bwd && igx < 0 && igw < 0)) return gemm_why(why, cap, "operands missing");
    const jv_tensor *x = &ops->o[ix].t, *w = &ops->o[iw].t, *y = &ops->o[iy].t;
    jv_dtype dt = x->dtype;
    if (dt != JV_DT_F16 && dt != JV_DT_BF16) return gemm_why(why, cap, "not fp16 or bf16");
    int idx[] = {ix, iw, iy, igx, igw};
    for (int i = 0; i < 5; i++)
        if (idx[i] >= 0 && ops->o[idx[i]].t.dtype != dt) return gemm_why(why, cap, "operand dtypes differ");
    if (!dense_cl(x) || !dense_cl(y) || (igx >= 0 && !dense_cl(&ops->o[igx].t)))
        return gemm_why(why, cap, "data not dense channels_last");
    int64_t k = c->c_out, ci = c->c_in, m = c->n;
    for (int i = 0; i < c->nd; i++)
        m *= x->shape[2 + i];
    if (y->shape[1] != k || x->shape[1] != ci) return gemm_why(why, cap, "channels differ from the call");
    /* weight [K, C, 1...]: C innermost, rows of C (size-1 dims free); grad_weight is dense in w's layout */
    if (w->ndim < 2 || !rows_of_c(w, ci) || (igw >= 0 && !rows_of_c(&ops->o[igw].t, ci)))
        return gemm_why(why, cap, "weight not dense with C_in innermost");
    jv_tensor xm = view2(m, ci, ci, 1, dt), ym = view2(m, k, k, 1, dt);
    if (!bwd) {
        jv_tensor wt = view2(ci, k, 1, ci, dt);
        gemm_step(&g->step[0], xm, wt, ix, iw, iy);
        g->n = 1;
        return 1;
    }
    if (igx >= 0) {
        jv_tensor wm = view2(k, ci, ci, 1, dt);
        gemm_step(&g->step[g->n++], ym, wm, iy, iw, igx);
    }
    if (igw >= 0) {
        jv_tensor yt = view2(k, m, 1, k, dt);
        gemm_step(&g->step[g->n++], yt, xm, iy, ix, igw);
    }
    return 1;
}
