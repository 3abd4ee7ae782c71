/* elementwise_plan.cu: the host side of the elementwise kernels (see
 * elementwise.cu): which calls they run, and the plan of one call: the path
 * (dense, inner-vector, strided), the per-slot access, the merged geometry
 * and the grids. Host code only; a .cu for the shared device types. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_gpu.h"

extern "C" {
#include "elementwise.h"
#include "jv_family.h"
}
#include "elementwise_gpu.h"

#include "elementwise_launch.h"
#include "elementwise_plan.h"

/* Where each operand slot is and which operand is written: the reference's
 * mapping (jv_elementwise_slots). */
typedef struct {
    int slot[3]; /* operand index of in[k] when it is a tensor, else -1 */
    int out;     /* operand index of the output */
    int n;       /* operands listed */
} ew_map;

static void why_set(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why_set(char *why, size_t cap, const char *fmt, ...) {
    if (!why || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}

/* Checks that this file runs call d over ops (the descriptor's own operands
 * when ops is NULL) and fills m; 0 with the reason in why otherwise. */
static int check_call(const jv_desc *d, const jv_operands *ops, ew_map *m, char *why, size_t cap) {
    if (!d) {
        why_set(why, cap, "elementwise: no call");
        return 0;
    }
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    const char *name = g->name ? g->name : "elementwise";
    if ((unsigned)g->op >= (unsigned)JV_EW_OP_COUNT || g->arity < 0 || g->arity > 3) {
        why_set(why, cap, "%s: not a parsed elementwise call", name);
        return 0;
    }
    if (g->op >= JV_EW_UPSAMPLE_NEAREST1D && g->op <= JV_EW_UPSAMPLE_NEAREST3D) {
        why_set(why, cap, "%s: upsample_nearest has no GPU kernel", name);
        return 0;
    }
    jv_operands want;
    jv_err e;
    jv_err_clear(&e);
    if (jv_elementwise_slots(d, m->slot, &m->out, &want, &e) != JV_OK) {
        why_set(why, cap, "%s", e.msg);
        return 0;
    }
    m->n = want.n;
    if (!ops) ops = &want;
    if (m->n != want.n || ops->n != want.n) {
        why_set(why, cap, "%s: %d operands given, %d expected", name, ops->n, want.n);
        return 0;
    }
    for (int i = 0; i < ops->n; i++) {
        const jv_tensor *t = &ops->o[i].t;
        if (!jv_tensor_same_shape(t, &want.o[i].t) || !t->has_strides || t->ndim > JV_MAX_DIMS) {
            why_set(why, cap, "%s: operand %d ('%s') does not have the call's shape or has no strides", name, i,
                    want.o[i].name);
            return 0;
        }
        for (int dd = 0; dd < t->ndim; dd++)
            if (t->strides[dd] < 0) {
                why_set(why, cap, "%s: operand %d ('%s') has a negative stride", name, i, want.o[i].name);
                return 0;
            }
    }
    const jv_tensor *out = &ops->o[m->out].t;
    const int odt = jv_elementwise_storage(out->dtype);
    if (odt < 0 || odt == EW_U8) {
        why_set(why, cap, "%s: output dtype %s has no GPU kernel (fp32, fp16, bf16, bool)", name,
                jv_dtype_short(out->dtype));
        return 0;
    }
    for (int dd = 0; dd < out->ndim; dd++)
        if (out->shape[dd] > 1 && out->strides[dd] == 0) {
            why_set(why, cap, "%s: the output has a zero stride (overlapping writes)", name);
            return 0;
        }
    int64_t bst[JV_MAX_DIMS];
    for (int k = 0; k < 3; k++) {
        if (m->slot[k] < 0) continue;
        const jv_operand *o = &ops->o[m->slot[k]];
        if (jv_elementwise_storage(o->t.dtype) < 0) {
            why_set(why, cap, "%s: operand '%s' dtype %s has no GPU kernel (fp32, fp16, bf16, bool, uint8)", name,
                    o->name, jv_dtype_short(o->t.dtype));
            return 0;
        }
        if (!jv_elementwise_broadcast_strides(&o->t, out, bst)) {
            why_set(why, cap, "%s: operand '%s' does not broadcast to the output", name, o->name);
            return 0;
        }
    }
    return 1;
}

extern "C" int jv_gpu_elementwise_supported(const jv_desc *d, const jv_operands *ops, char *why, size_t cap) {
    ew_map m;
    if (!check_call(d, ops, &m, why, cap)) return 0;
    why_set(why, cap, "%s", "");
    return 1;
}

/* 1 for the ops of ew_apply_light (elementwise.cu): cheap math on at most
 * one tensor, so a kernel with a small register file and more loads in
 * flight serves them (keep in step with that switch) */
static int light_op(const ew_params &p) {
    switch (p.s.op) {
    case JV_EW_ADD:
    case JV_EW_SUB:
    case JV_EW_RSUB:
    case JV_EW_MUL:
    case JV_EW_RELU:
    case JV_EW_NEG:
    case JV_EW_ABS:
    case JV_EW_CLAMP:
    case JV_EW_CLAMP_MIN:
    case JV_EW_CLAMP_MAX:
    case JV_EW_HARDTANH:
    case JV_EW_LEAKY_RELU:
    case JV_EW_COPY:
    case JV_EW_CLONE:
    case JV_EW_CONTIGUOUS:
    case JV_EW_TO:
    case JV_EW_FILL:
    case JV_EW_ZERO: return 1;
    case JV_EW_POW: return p.s.powk != JV_EW_POWK_ANY;
    default: return 0;
    }
}

/* Strided launch over the merged dims; I is the index type. */
template <typename I>
static void fill_geom(ew_geom<I> *gm, int nd, const int64_t *shape, const int64_t *ost,
                      const int64_t (*st)[JV_MAX_DIMS]) {
    memset(gm, 0, sizeof *gm);
    gm->nd = nd;
    for (int i = 0; i < nd; i++) {
        gm->shape[i] = (I)shape[i];
        gm->ost[i] = (I)ost[i];
        for (int k = 0; k < 3; k++)
            gm->st[k][i] = (I)st[k][i];
    }
}

/* Fills the plan of a checked call (the geometry of the dense or strided path). */
static void plan_fill(jv_gpu_elementwise_plan *pl, const jv_desc *d, const jv_operands *ops, const ew_map &m, int sms) {
    (void)sms; /* the grids cover the work in tiles (grid_tiles) */
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    const jv_tensor *out = &ops->o[m.out].t;
    const int64_t n = jv_tensor_numel(out);
    ew_params &p = pl->p;
    memset(&p, 0, sizeof p);
    pl->out_op = m.out;
    pl->n = n;
    p.out_dt = jv_elementwise_storage(out->dtype);
    jv_elementwise_scalars(g, out->dtype, m.slot[1] >= 0, &p.s);

    /* per stream (0: the output, 1..3: the slots) strides over the output's dims */
    int64_t bst[4][JV_MAX_DIMS];
    memset(bst, 0, sizeof bst);
    for (int dd = 0; dd < out->ndim; dd++)
        bst[0][dd] = out->strides[dd];
    int is_tensor[4] = {1, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        pl->slot_op[k] = m.slot[k];
        if (m.slot[k] < 0) {
            p.kind[k] = EW_CONST; /* its value: p.s.cval[k] */
            continue;
        }
        const jv_tensor *t = &ops->o[m.slot[k]].t;
        jv_elementwise_broadcast_strides(t, out, bst[k + 1]); /* check_call checked that it broadcasts */
        p.dt[k] = jv_elementwise_storage(t->dtype);
        is_tensor[k + 1] = 1;
    }

    /* dense path: a dense output, each tensor slot with its strides and dtype or a single element */
    int fast = p.out_dt != EW_BOOL && jv_tensor_dense(out);
    for (int k = 0; k < 3 && fast; k++) {
        if (!is_tensor[k + 1]) continue;
        int same = p.dt[k] == p.out_dt, single = 1;
        for (int dd = 0; dd < out->ndim; dd++) {
            if (out->shape[dd] <= 1) continue;
            if (bst[k + 1][dd] != out->strides[dd]) same = 0;
            if (bst[k + 1][dd] != 0) single = 0;
        }
        if (same)
            p.kind[k] = EW_DENSE;
        else if (single)
            p.kind[k] = EW_SINGLE;
        else
            fast = 0;
    }
    pl->fast = fast;
    if (fast) {
        pl->V = p.out_dt == EW_F32 ? 4 : 8;
        pl->grid_vec = grid_tiles(n / pl->V, EW_DENSE_UNROLL);
        pl->grid_scalar = grid_tiles(n, 1);
        pl->light = light_op(p) && p.kind[1] != EW_DENSE && p.kind[2] != EW_DENSE;
        pl->light_u = EW_LIGHT_UNROLL;
        pl->grid_light = grid_tiles(n / pl->V, pl->light_u);
        return;
    }

    /* strided path: dims of size > 1 in the output's memory order (outermost
     * first), merged where every stream is contiguous across them */
    for (int k = 0; k < 3; k++)
        p.kind[k] = is_tensor[k + 1] ? EW_STRIDED : EW_CONST;
    int64_t shape[JV_MAX_DIMS], mst[4][JV_MAX_DIMS];
    const int nd = jv_elementwise_merge_dims(out, 4, (const int64_t(*)[JV_MAX_DIMS])bst, shape, mst);
    /* 32-bit index math when the element count and every offset fit */
    int small = n <= INT32_MAX;
    for (int s = 0; s < 4 && small; s++) {
        int64_t span = 0;
        for (int i = 0; i < nd; i++)
            span += (shape[i] - 1) * mst[s][i];
        if (span > INT32_MAX) small = 0;
    }
    pl->small = small;
    pl->grid = grid_tiles(n, 1);
    if (small)
        fill_geom(&pl->g32, nd, shape, mst[0], mst + 1);
    else
        fill_geom(&pl->g64, nd, shape, mst[0], mst + 1);

    /* inner-vector kernel: the innermost dim a multiple of 8 elements, contiguous in the output and in each
     * tensor slot or broadcast along it, every row of a contiguous stream starting at a multiple of 8 */
    const int in = nd - 1;
    int inner8 = shape[in] % 8 == 0 && mst[0][in] == 1;
    for (int s = 0; s < 4 && inner8; s++) {
        if (s > 0 && !is_tensor[s]) continue;
        if (mst[s][in] != 0 && mst[s][in] != 1) inner8 = 0;
        if (s > 0) p.vin[s - 1] = mst[s][in] == 1;
        for (int i = 0; i < in && inner8; i++)
            if (mst[s][in] == 1 && mst[s][i] % 8 != 0) inner8 = 0;
    }
    if (!inner8) {
        p.vin[0] = p.vin[1] = p.vin[2] = 0;
        return;
    }
    pl->inner8 = 1;
    pl->nvec = n / 8;
    pl->grid8 = grid_tiles(pl->nvec, 1);
    shape[in] /= 8;
    for (int s = 0; s < 4; s++)
        mst[s][in] *= 8;
    if (small)
        fill_geom(&pl->v32, nd, shape, mst[0], mst + 1);
    else
        fill_geom(&pl->v64, nd, shape, mst[0], mst + 1);
}

extern "C" jv_status jv_gpu_elementwise_plan_create(const jv_desc *d, const jv_operands *ops, int sms,
                                                    jv_gpu_elementwise_plan **out, jv_err *err) {
    *out = NULL;
    ew_map m;
    char why[256];
    if (!ops || !check_call(d, ops, &m, why, sizeof why))
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s", ops ? why : "elementwise: no operands");
    if (jv_tensor_numel(&ops->o[m.out].t) < 0) JV_FAIL(err, JV_ERR_NOTFOUND, "elementwise: the output size overflows");
    jv_gpu_elementwise_plan *pl = static_cast<jv_gpu_elementwise_plan *>(calloc(1, sizeof *pl));
    if (!pl) JV_FAIL(err, JV_ERR_NOMEM, "elementwise: out of memory for a plan");
    plan_fill(pl, d, ops, m, sms);
    *out = pl;
    return JV_OK;
}

extern "C" void jv_gpu_elementwise_plan_tune(jv_gpu_elementwise_plan *pl, int light_unroll) {
    if (!pl || !pl->light) return;
    pl->light_u = light_unroll == 2 || light_unroll == 4 || light_unroll == 8 ? light_unroll : EW_LIGHT_UNROLL;
    pl->grid_light = grid_tiles(pl->n / pl->V, pl->light_u);
}

extern "C" void jv_gpu_elementwise_plan_free(jv_gpu_elementwise_plan *pl) {
    free(pl);
}
