/* batchnorm_internal.h: what the batch-norm device code (batchnorm.cu) and
 * its host planning (batchnorm_plan.cu) share: the dtype codes, the launch
 * constants, the walk geometry, the per-channel arguments and the plan of a
 * call. C++ only (included by the .cu files); no device code. */
#ifndef JV_BATCHNORM_INTERNAL_H
#define JV_BATCHNORM_INTERNAL_H

extern "C" {
#include "batchnorm.h"
#include "jv_family.h"
}

#include <stddef.h>

namespace jv_bn {

enum { DT_F32 = 0, DT_F16 = 1, DT_BF16 = 2 };

/* A per-channel operand: base, dtype (DT_*), stride in elements; p NULL when absent. */
struct pvec {
    void *p;
    int dt;
    long long stride;
};

constexpr int BLOCK = 256; /* threads of the big kernels */
constexpr int PER_SM = 4;  /* resident blocks per multiprocessor the grid is sized for (one wave) */
constexpr int FIN = 256;   /* threads of the per-channel finalize kernels (few partials each: loads overlap) */

/* The defaults of jv_gpu_batchnorm_plan_tune (bench/gpu_kernel_sweep.c times the alternatives). */
#define JV_BN_DEFAULT_LEAN 1
#define JV_BN_DEFAULT_WIDE 0

/* What a big kernel needs to walk x (all counts in vectors of V elements). */
struct geo {
    int nhwc;
    long long N, C, HWv;      /* NCHW: batch, channels, vectors per plane */
    long long R, Cv;          /* NHWC: rows, channel vectors per row */
    long long G;              /* blocks per channel (block) group */
    int tx_log2, tx;          /* NHWC threads along channel vectors (NCHW: 0, 1) */
    long long step_n, step_s; /* NCHW: G*BLOCK split into planes and vectors */
};

/* Per-channel arguments of the finalize / prep kernels. */
struct chan_args {
    pvec w, b, rm, rv, sm, sv; /* weight, bias, running_mean/var, save_mean/invstd */
    pvec gw, gb;               /* grad_weight, grad_bias */
    long long C, G, M;         /* channels, partials per channel, values per channel */
    double eps, momentum;
    int training;
};

/* Everything a call needs, from the descriptor and the operands. */
struct plan {
    const jv_batchnorm_desc *g;
    int ix, iw, ib, irm, irv, iout, ism, isv, idy, idx, igw, igb; /* operand indices, -1 when absent */
    int dt;                                                       /* x's DT_* */
    long long N, C, HW, M;                                        /* M = N*HW values per channel */
    int nhwc, V;
    int big;  /* the big kernels run (M > 0 and C > 0) */
    int lean; /* jv_gpu_batchnorm_tuning */
    int wide; /* ... geometry: 64 channel vectors per channels_last block (set_geometry) */
    int sms;  /* multiprocessors the grid is sized for */
    geo geom;
    size_t coef_bytes, part_bytes;
};
/* Sets p's walk geometry for the tuning's width (batchnorm_plan.cu); 0 when the grid is too large. */
int set_geometry(plan *p, int wide);
/* Fills p; 0 with a reason in why when the call is not supported (batchnorm_plan.cu). */
int make_plan(const jv_desc *d, const jv_operands *ops, int sms, int scalar, plan *p, char *why, size_t cap);
/* the per-channel operand i without its address (dtype and stride) */
pvec pv_of(const jv_operands *ops, int i);
/* r with the address of operand i (NULL when absent) */
pvec pv_at(pvec r, void *const *bufs, int i);

} // namespace jv_bn

#endif
