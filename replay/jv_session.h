/* jv_session: the op loop of a jarvis-replay run, out of main so that a test
 * can drive it with a test backend: every op of a replay IR (and every
 * implementation the backend offers) replayed, verified, timed and judged in
 * order; a sticky device error (JV_ERR_DEVICE) stops the run at once, and the
 * ops after it are marked not run. */
#ifndef JV_SESSION_H
#define JV_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include "backend.h"
#include "jv_baseline.h"
#include "jv_hw.h"
#include "jv_ir.h"
#include "jv_runner.h"
#include "jv_verdict.h"

/* Where and with what a session runs. */
typedef struct {
    const jv_backend *be;
    void *ctx;
    const jv_device_props *props;
    jv_run_opts *o;          /* o->variant is set per result and left 0 */
    const jv_baseline *base; /* the measured ceilings (NULL or not done: none) */
    const jv_hw *ds;         /* datasheet, or NULL */
    FILE *log;               /* progress (unless o->quiet) and per-op problems; NULL: silent */
    double deadline;         /* jv_now() after which no op starts (0: none; --deadline) */
} jv_session_cfg;

/* A selection of ops by index (--op LIST): at most JV_OPSEL_MAX ranges [lo, hi]; n == 0 selects every op. */
enum { JV_OPSEL_MAX = 64 };
typedef struct {
    int n;
    int lo[JV_OPSEL_MAX], hi[JV_OPSEL_MAX];
} jv_opsel;

/* Adds the ops that text names to sel: comma-separated parts, each "N" or "N-M" (0 <= N <= M <= 100000000),
 * e.g. "3,7,10-12". JV_ERR_USAGE, err naming the part, on an empty part, a part that is not such a number or
 * range, M < N, or more than JV_OPSEL_MAX ranges in sel; sel is then unchanged. */
jv_status jv_opsel_parse(jv_opsel *sel, const char *text, jv_err *err);

/* 1 when op i is in sel (every op when sel is NULL or empty), else 0. */
int jv_opsel_has(const jv_opsel *sel, int i);

/* The largest op index sel names; -1 when it names none (every op selected). */
int jv_opsel_max(const jv_opsel *sel);

/* What a session produced. */
typedef struct {
    jv_op_result *res; /* one per op and implementation, in order (malloc'd) */
    jv_verdict *ver;
    int n, cap;
    int failed;           /* 1: a result was WRONG, refused, an error or not run */
    int stopped;          /* 1: a sticky device error stopped the run */
    int stop_op;          /* the op it happened at (-1: before the ops, in the baseline) */
    char stop_label[200]; /* that op's label ("" in the baseline) */
    int not_run;          /* ops marked not run after the stop or the deadline */
    jv_err stop_err;      /* the device error */
    int late;             /* 1: the deadline passed before every op ran (the rest not run, s->failed) */
} jv_session;

/* Replays the ops of ir (only those of sel; every op when sel is NULL or empty) into s (zeroed by the
 * caller or by jv_session_free). On JV_ERR_DEVICE from an op, that op's result
 * is JV_RES_ERROR, every later op gets one JV_RES_NOT_RUN result and nothing
 * more reaches the backend (s->stopped, s->stop_*). Once cfg->deadline has
 * passed, the ops not yet started get JV_RES_NOT_RUN results too (s->late).
 * Returns JV_OK, stopped or not; JV_ERR_NOMEM when the results do not fit in
 * memory. */
jv_status jv_session_ops(jv_session *s, const jv_session_cfg *cfg, const jv_ir *ir, const jv_opsel *sel, jv_err *err);

/* Records a stop by device error e at op `at` (-1: the baseline; label its
 * label or NULL) and appends a JV_RES_NOT_RUN result for every op of ir from
 * index `from` on (only those of sel, as in jv_session_ops). JV_ERR_NOMEM when they do not fit. */
jv_status jv_session_stop(jv_session *s, const jv_ir *ir, const jv_opsel *sel, int from, int at, const char *label,
                          const jv_err *e, jv_err *err);

/* The message of a stopped session, naming the device, the op and the error:
 * "the device context is unusable after op 3 (aten::mm ...) on DEVICE: ERROR;
 * 2 ops not run; results so far written to WHERE". */
void jv_session_stop_message(const jv_session *s, const char *device, const char *written, char *buf, size_t cap);

/* Frees the results and zeroes s. */
void jv_session_free(jv_session *s);

#endif
