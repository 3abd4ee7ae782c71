/* hip_fakes: fake hipBLASLt, rocBLAS and MIOpen tables whose functions run on
 * host memory, for the HIP backend's vendor-library tests (test_hip_vendor:
 * GEMM and the loader; test_hip_miopen: convolution and batch norm on MIOpen).
 * Each fake interprets what it is handed the way the library documents it and
 * refuses what the library would refuse. The fakes' state F is one object per
 * test program (each program links its own hip_fakes.c and
 * hip_fakes_miopen.c); nothing of it is in the product. */
#ifndef HIP_FAKES_H
#define HIP_FAKES_H

#include <stddef.h>

#include "jv_hip_vendor.h"

/* ---- the fakes' state (per test program) ---- */
typedef struct {
    int flip_transa;     /* hipBLASLt: record TRANSA inverted (a swapped transpose in the mapping) */
    int ignore_dilation; /* MIOpen: take every dilation as 1 */
    int drop_strides;    /* MIOpen: describe every tensor as contiguous (the strides lost) */
    int lt_version;      /* what hipblasLtGetVersion says (0: 1000, i.e. 0.10.0) */
    int lt_calls, rb_calls, mi_calls, copies;
    /* gemm-algo best: the heuristic offers lt_algos candidates (0: one), candidate i costing lt_cost[i] ms of the
     * simulated device clock the fake events read; lt_refuse = i + 1: candidate i does not launch (-1: none
     * does); lt_big_ws = i + 1: candidate i wants more workspace than there is */
    int lt_algos, lt_refuse, lt_big_ws;
    double lt_cost[JV_GPU_GEMM_CANDIDATES];
    int lt_runs[JV_GPU_GEMM_CANDIDATES], lt_last; /* launches per candidate; the last one launched */
    double clock_ms, t0_ms;                       /* the simulated device clock; the start event's reading */
    int compiled[3];                              /* MIOpen: immediate-mode solutions compiled per direction */
    int get_solutions[3]; /* MIOpen: miopenConvolution*GetSolution calls per direction (immediate mode) */
    /* MIOpen's Find (the default, conv-algo heuristic, not exhaustive; conv-algo best, exhaustive): it offers the first
     * find_n of HIPF_FIND_ALGOS (per direction), algorithm k taking find_ms[k] ms and find_ws[k] bytes of workspace
     * (one over the workspace given is not considered, as MIOpen does); each considered one is run once per Find
     * (find_tried) on the operands handed over; results come sorted, fastest first, at most the number asked (find_req:
     * the last call's). The run calls accept only an algorithm Find returned on this handle (found), with its
     * workspace, alpha 1 and beta 0, and record it (run_algo). */
    int find_n;
    double find_ms[4];
    size_t find_ws[4];
    int find_calls[3], find_tried[3][4], find_exhaustive, find_req, found[3][4], run_algo[3];
} hipf_state;

/* the algorithms the fake Find offers, as MIOpen's enums number them: GEMM 0, Direct 1, Winograd 3, ImplicitGEMM 5
 * (the same values in the three directions) */
#define HIPF_FIND_ALGOS                                                                                                \
    { 0, 1, 3, 5 }

extern hipf_state F;
extern int hipf_stream_token;
#define FAKE_STREAM ((void *)&hipf_stream_token)
#define FAKE_WS     ((size_t)1 << 20)

/* A vendor set of the fakes (hipBLASLt, rocBLAS, MIOpen each present or not; absent ones say "absent in this
 * test"), opened on FAKE_STREAM with a fake runtime on host memory (copies, scratch, events over F.clock_ms). */
void fake_vendor(jv_hipv *v, int lt, int rb, int mi);

/* The fake MIOpen table (hip_fakes_miopen.c). */
void hipf_miopen_api(jv_miopen_api *a);

#endif
