/* elementwise_plan.h: what the elementwise device code and its host-side
 * planning share (internal; included by elementwise.cu and elementwise_plan.cu
 * only, after jv_gpu.h): storage-type and slot codes, the kernels' parameters
 * and geometry, and the plan. */
#ifndef JV_ELEMENTWISE_PLAN_H
#define JV_ELEMENTWISE_PLAN_H

#include <stdint.h>

extern "C" {
#include "elementwise_scalars.h"
}

/* ---- storage types ---- */

enum {
    EW_F32 = JV_EW_ST_F32,
    EW_F16 = JV_EW_ST_F16,
    EW_BF16 = JV_EW_ST_BF16,
    EW_BOOL = JV_EW_ST_BOOL,
    EW_U8 = JV_EW_ST_U8
};

/* What an operand slot is on the device. */
enum {
    EW_CONST = 0, /* a Scalar or an absent operand: cval */
    EW_DENSE,     /* dense kernel: the output's strides and dtype */
    EW_SINGLE,    /* dense kernel: one element (offset 0), read once per thread */
    EW_STRIDED    /* strided kernel: a tensor with broadcast strides */
};

/* Everything a kernel needs besides geometry (passed by value). */
struct ew_params {
    void *out;
    const void *in[3];
    int out_dt;      /* EW_F32 / EW_F16 / EW_BF16 / EW_BOOL */
    int kind[3];     /* EW_CONST / EW_DENSE / EW_SINGLE / EW_STRIDED */
    int dt[3];       /* storage type of a tensor slot */
    jv_ew_scalars s; /* the op and its scalars (s.cval[k]: an EW_CONST slot's value) */
    int vin[3];      /* inner-vector kernel: 1 when slot k is contiguous along the innermost dim (else broadcast) */
};

/* Strided geometry: nd >= 1 merged dims (outermost first) and the strides of
 * the output and of the three slots per dim (0 where broadcast or constant). */
template <typename I> struct ew_geom {
    int nd;
    I shape[JV_MAX_DIMS];
    I ost[JV_MAX_DIMS];
    I st[3][JV_MAX_DIMS];
};

/* A planned call: everything but the buffer addresses (elementwise_gpu.h). */
struct jv_gpu_elementwise_plan {
    ew_params p;                    /* pointers left NULL; kind[] as the path below decides */
    int slot_op[3];                 /* operand index of slot k (-1: a constant) */
    int out_op;                     /* operand index of the output */
    int64_t n;                      /* output elements */
    int fast;                       /* the dense kernel (else the strided one) */
    int light;                      /* dense, slot 0 the only dense input, a light op: ew_dense1_kernel */
    unsigned grid_light;            /* light: its grid */
    int light_u;                    /* light: 16-byte vectors per thread and tile (2, 4 or 8) */
    int V;                          /* dense: elements per 16-byte vector */
    unsigned grid_vec, grid_scalar; /* dense: grids with and without vector accesses */
    unsigned grid;                  /* strided */
    int small;                      /* strided: 32-bit index math */
    ew_geom<uint32_t> g32;
    ew_geom<int64_t> g64;
    int inner8;            /* strided: the inner-vector kernel applies (else the scalar one) */
    int64_t nvec;          /* inner8: vectors of 8 */
    unsigned grid8;        /* inner8: its grid */
    ew_geom<uint32_t> v32; /* inner8: the geometry in vectors (32-bit when small) */
    ew_geom<int64_t> v64;
};

#endif
