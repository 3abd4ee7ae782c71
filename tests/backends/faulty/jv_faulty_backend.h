/* jv_faulty_backend.h: a test-only backend that wraps another one and corrupts
 * one output after each launch, to prove that jarvis-replay's verification
 * catches wrong results (tests/unit/test_faults.c). Every call is forwarded to
 * the wrapped backend; after a launch the wrapper reads the target output back
 * with the wrapped backend's download, damages it according to a jv_fault
 * mode and writes it back with upload, so the same wrapper works over the CPU
 * backend and over a GPU backend. Not registered in any backends.def: a test
 * builds it with jv_faulty_wrap. All state lives in the context. */
#ifndef JV_FAULTY_BACKEND_H
#define JV_FAULTY_BACKEND_H

#include <stdint.h>

#include "backend.h"

/* How the target output is damaged after a launch. The target is the first
 * operand of role JV_ROLE_OUT, or the first JV_ROLE_INOUT one when the op has
 * no OUT operand. Positions are row-major logical indices (jv_tensor_offset_at). */
typedef enum {
    JV_FAULT_NONE = 0,  /* forward only: the wrapped backend's results untouched */
    JV_FAULT_TILE_ZERO, /* one 8x8 tile over the last two dims zeroed (the middle one of the middle slice);
                         * under 2 dims or under 8 in either: min(64, numel) consecutive elements zeroed */
    JV_FAULT_SPIKE,     /* the middle element plus 8x the output's RMS */
    JV_FAULT_UNWRITTEN, /* the middle element back to the runner's 0xFF poison bytes */
    JV_FAULT_TRANSPOSE, /* the leading k x k square (k = min of the last two dims) of each slice over the last
                         * two dims transposed; under 2 dims or k < 2: the element order reversed */
    JV_FAULT_SHIFT,     /* shifted by one element: element l takes element (l + 1) mod numel */
    JV_FAULT_STALE,     /* every launch after the first of a prepared plan does nothing (the output keeps
                         * whatever it held) */
    JV_FAULT_NOISE,     /* every element times (1 + 2^-10 r), r in [-1, 1) from its index: the error of a kernel
                         * computing fp32 in TF32 or worse (a relative L2 error of about 5.6e-4; below the rounding
                         * of bf16 and fp16 outputs, which it leaves unchanged) */
    JV_FAULT_COUNT
} jv_fault;

/* A short name of a mode ("tile-zero", "spike", ...); "?" out of range. */
const char *jv_fault_name(jv_fault f);

/* Builds the table *out of a wrapper over inner and opens its context *ctx
 * over inner_ctx, an open context of inner that the caller keeps (out->close
 * frees the wrapper's context only). out->open returns JV_ERR_NOTFOUND (a
 * wrapper is made only this way); the optional functions are NULL where
 * inner's are, and graph_time is always NULL (the read-modify-write after a
 * launch cannot be captured into a device graph). JV_ERR_USAGE for a mode out
 * of range, JV_ERR_NOMEM when the context cannot be allocated. */
jv_status jv_faulty_wrap(jv_backend *out, const jv_backend *inner, void *inner_ctx, jv_fault mode, void **ctx,
                         jv_err *err);

/* What the wrapper did so far: the name of the operand it damaged last ("" when
 * none), the launches it damaged and the ones it skipped (JV_FAULT_STALE), and
 * the most elements whose stored bytes one damage changed (a later damage of an
 * in-place output, already damaged, may change none). */
typedef struct {
    char target[32];
    int64_t corrupted, skipped, changed;
} jv_faulty_stats;

/* Copies the wrapper's record into *s. ctx: a context from jv_faulty_wrap. */
void jv_faulty_get_stats(const void *ctx, jv_faulty_stats *s);

#endif
