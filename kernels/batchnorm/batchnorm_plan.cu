/* batchnorm_plan.cu: host-side planning of the batch-norm device kernels
 * (batchnorm.cu): operand lookup, layout checks, the vector width, the grid
 * geometry and the workspace sizes of a call. */
extern "C" {
#include "batchnorm.h"
#include "jv_family.h"
}

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batchnorm_internal.h"

namespace jv_bn {

namespace {

int set_why(char *why, size_t cap, const char *msg) {
    if (why && cap) snprintf(why, cap, "%s", msg);
    return 0;
}

int dt_code(jv_dtype t) {
    switch (t) {
    case JV_DT_F32: return DT_F32;
    case JV_DT_F16: return DT_F16;
    case JV_DT_BF16: return DT_BF16;
    default: return -1;
    }
}

const jv_operand *find_op(const jv_operands *ops, const char *name, int *index) {
    for (int i = 0; i < ops->n; i++)
        if (!strcmp(ops->o[i].name, name)) {
            if (index) *index = i;
            return &ops->o[i];
        }
    return NULL;
}

/* 1 when t (x's shape) is dense NCHW: row-major strides on every dim of size > 1 */
bool is_nchw(const jv_tensor *t) {
    if (!t->has_strides) return true;
    long long s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] > 1 && t->strides[d] != s) return false;
        s *= t->shape[d];
    }
    return true;
}

/* 1 when t is dense channels_last: C innermost, then the spatial dims from the last, then N */
bool is_nhwc(const jv_tensor *t) {
    if (!t->has_strides) return t->ndim == 2 || jv_tensor_numel(t) <= 1;
    long long s = 1;
    if (t->shape[1] > 1 && t->strides[1] != 1) return false;
    s = t->shape[1];
    for (int d = t->ndim - 1; d >= 2; d--) {
        if (t->shape[d] > 1 && t->strides[d] != s) return false;
        s *= t->shape[d];
    }
    return t->shape[0] <= 1 || t->strides[0] == s;
}

bool same_shape(const jv_tensor *a, const jv_tensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

size_t align256(size_t b) {
    return (b + 255) & ~(size_t)255;
}

} // namespace

/* Fills p; 0 with a reason in why when the call is not supported. scalar:
 * no vector accesses (for buffers that are not 16-byte aligned). */
int make_plan(const jv_desc *d, const jv_operands *ops, int sms, int scalar, plan *p, char *why, size_t cap) {
    memset(p, 0, sizeof *p);
    if (!d || !ops) return set_why(why, cap, "no descriptor or operands");
    if (d->family < 0 || d->family >= jv_family_count() || jv_family_get(d->family) != &jv_batchnorm_family)
        return set_why(why, cap, "not a batch-norm call");
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    p->g = g;
    int *slots[] = {&p->ix,  &p->iw,  &p->ib,  &p->irm, &p->irv, &p->iout,
                    &p->ism, &p->isv, &p->idy, &p->idx, &p->igw, &p->igb};
    const char *names[] = {"input",     "weight",      "bias",     "running_mean", "running_var", "out",
                           "save_mean", "save_invstd", "grad_out", "grad_input",   "grad_weight", "grad_bias"};
    for (int i = 0; i < 12; i++) {
        *slots[i] = -1;
        find_op(ops, names[i], slots[i]);
    }
    if (p->ix < 0) return set_why(why, cap, "no 'input' operand");
    const jv_tensor *x = &ops->o[p->ix].t;
    if (x->ndim < 2) return set_why(why, cap, "input has fewer than 2 dims");
    p->dt = dt_code(x->dtype);
    if (p->dt < 0) return set_why(why, cap, "input dtype is not fp32, fp16 or bf16");
    long long numel = jv_tensor_numel(x);
    if (numel < 0) return set_why(why, cap, "input size overflows");
    p->N = x->shape[0];
    p->C = x->shape[1];
    p->HW = 1;
    for (int i = 2; i < x->ndim; i++) {
        if (x->shape[i] < 0 || (x->shape[i] > 0 && p->HW > 0x7fffffffffffffffLL / x->shape[i]))
            return set_why(why, cap, "input size overflows");
        p->HW *= x->shape[i];
    }
    p->M = p->C > 0 ? p->N * p->HW : 0; /* numel fits int64, so does N*HW when C > 0 */
    if (p->C > 0x7fffffffLL) return set_why(why, cap, "too many channels");
    /* per-channel operands: [C], fp32 or x's dtype */
    int vecs[] = {p->iw, p->ib, p->irm, p->irv, p->ism, p->isv, p->igw, p->igb};
    for (int i = 0; i < 8; i++) {
        if (vecs[i] < 0) continue;
        const jv_tensor *t = &ops->o[vecs[i]].t;
        if (t->ndim != 1 || t->shape[0] != p->C) return set_why(why, cap, "a per-channel operand does not hold C");
        if (t->dtype != JV_DT_F32 && t->dtype != x->dtype)
            return set_why(why, cap, "a per-channel operand is neither fp32 nor the input's dtype");
    }
    if ((p->irm < 0) != (p->irv < 0)) return set_why(why, cap, "running_mean and running_var come together");
    /* layout: channels_last when it fits and HW > 1 or C > 1 calls for rows of C */
    bool nchw = is_nchw(x), nhwc = is_nhwc(x);
    if (!nchw && !nhwc) return set_why(why, cap, "input layout is neither dense NCHW nor channels_last");
    p->nhwc = nhwc && (!nchw || (p->HW == 1 && p->C > 1));
    /* the other big tensors: same shape, dtype and layout as x */
    int bigs[] = {p->iout, p->idy, p->idx};
    for (int i = 0; i < 3; i++) {
        if (bigs[i] < 0) continue;
        const jv_tensor *t = &ops->o[bigs[i]].t;
        if (!same_shape(t, x)) return set_why(why, cap, "out / grad_out / grad_input is not of the input's shape");
        if (t->dtype != x->dtype)
            return set_why(why, cap, "out / grad_out / grad_input dtype differs from the input's");
        if (p->nhwc ? !is_nhwc(t) : !is_nchw(t))
            return set_why(why, cap, "out / grad_out / grad_input layout differs from the input's");
    }
    if (!g->bwd) {
        if (p->iout < 0) return set_why(why, cap, "no 'out' operand");
        if (!g->training && p->irm < 0) return set_why(why, cap, "eval batch norm without running statistics");
        if (g->training && p->M == 0 && p->C > 0) return set_why(why, cap, "training batch norm over an empty batch");
    } else {
        if (p->idy < 0) return set_why(why, cap, "no 'grad_out' operand");
        if (g->training && (p->ism < 0 || p->isv < 0))
            return set_why(why, cap, "training backward without save_mean / save_invstd");
        if (!g->training && p->irm < 0) return set_why(why, cap, "eval backward without running statistics");
    }
    if (sms < 1) sms = 1;
    /* vector width: 16 bytes when the contiguous run (HW or C) allows, 8 for 2-byte types, else scalars */
    int esz = p->dt == DT_F32 ? 4 : 2;
    int vmax = 16 / esz;
    long long run = p->nhwc ? p->C : p->HW;
    p->V = 1;
    if (!scalar && run > 0) {
        if (run % vmax == 0)
            p->V = vmax;
        else if (vmax == 8 && run % 4 == 0)
            p->V = 4; /* fp16 / bf16 in 8-byte vectors (HW = 14x14, C = 100, ...) */
    }
    p->big = p->M > 0 && p->C > 0;
    p->sms = sms;
    /* the workspace holds the partials of either geometry (wide: more groups per channel) */
    if (!set_geometry(p, 1)) return set_why(why, cap, "grid too large");
    long long g_wide = p->geom.G;
    if (!set_geometry(p, JV_BN_DEFAULT_WIDE)) return set_why(why, cap, "grid too large");
    long long G = p->geom.G > g_wide ? p->geom.G : g_wide;
    p->lean = JV_BN_DEFAULT_LEAN;
    p->coef_bytes = align256((size_t)(p->C > 0 ? p->C : 1) * 4 * sizeof(float));
    p->part_bytes = align256((size_t)(p->C > 0 ? p->C : 1) * (size_t)(G > 0 ? G : 1) * 3 * sizeof(float));
    return 1;
}

/* The walk geometry of p (V, nhwc, sizes and sms set): channels_last blocks hold up to 32 channel vectors
 * (a warp along a row; wide: 64, two warps, so that a block reads 1 KiB of every row of 512 bf16 channels),
 * G blocks per channel block fill PER_SM blocks per multiprocessor. 0 when the grid is too large. */
int set_geometry(plan *p, int wide) {
    p->wide = wide;
    int txmax = wide ? 64 : 32;
    geo &q = p->geom;
    q.nhwc = p->nhwc;
    q.N = p->N;
    q.C = p->C;
    q.tx = 1;
    q.tx_log2 = 0;
    long long cblocks, work; /* channel blocks; row steps of one block to cover a channel block */
    if (!p->nhwc) {
        q.HWv = p->HW / p->V;
        cblocks = p->C;
        work = p->big ? (p->N * q.HWv + BLOCK - 1) / BLOCK : 0;
    } else {
        q.R = p->M;
        q.Cv = p->C / p->V;
        while (q.tx < txmax && q.tx < q.Cv) {
            q.tx <<= 1;
            q.tx_log2++;
        }
        cblocks = (q.Cv + q.tx - 1) / q.tx;
        long long ty = BLOCK >> q.tx_log2;
        work = p->big ? (q.R + ty - 1) / ty : 0;
    }
    long long target = (long long)p->sms * PER_SM;
    long long G = p->big ? (target + cblocks - 1) / cblocks : 0;
    if (G > work) G = work;
    if (p->big && G < 1) G = 1;
    if (p->big && cblocks * G > 0x7fffffffLL) return 0;
    q.G = G;
    q.step_n = q.step_s = 0;
    if (!p->nhwc && p->big) {
        long long step = G * BLOCK;
        q.step_n = step / q.HWv;
        q.step_s = step - q.step_n * q.HWv;
    }
    return 1;
}

/* the per-channel operand i without its address (dtype and stride) */
pvec pv_of(const jv_operands *ops, int i) {
    pvec r;
    r.p = NULL;
    r.dt = DT_F32;
    r.stride = 1;
    if (i < 0) return r;
    r.dt = dt_code(ops->o[i].t.dtype);
    if (r.dt < 0) r.dt = DT_F32; /* make_plan admits fp32 or x's dtype only */
    r.stride = ops->o[i].t.has_strides ? ops->o[i].t.strides[0] : 1;
    return r;
}

/* r with the address of operand i (NULL when absent) */
pvec pv_at(pvec r, void *const *bufs, int i) {
    r.p = i >= 0 ? bufs[i] : NULL;
    return r;
}

} // namespace jv_bn
