/* jv_replay_out: what jarvis-replay writes: the console table (fixed width,
 * '#'-prefixed header and footer lines as nccl-tests print them), Google
 * Benchmark JSON or CSV (REFERENCE.md section 7; compare.py reads two of
 * them), and a markdown report of the verdicts with the numbers behind them.
 * Files are written through a temporary name and renamed. */
#ifndef JV_REPLAY_OUT_H
#define JV_REPLAY_OUT_H

#include <stdio.h>

#include "jv_baseline.h"
#include "jv_hw.h"
#include "jv_runner.h"
#include "jv_verdict.h"

/* One replay run: what was measured and where. */
typedef struct {
    const char *package;    /* the input path */
    const char *executable; /* argv[0] */
    int device;
    jv_device_props props;
    const jv_hw *ds;          /* datasheet of the device, or NULL */
    const char *trace_device; /* the traced GPU (from the manifest), or NULL */
    const char *trace_file;   /* the traced file name (manifest), or NULL */
    const jv_baseline *base;  /* measured ceilings (base->done 0: not run) */
    const jv_op_result *res;
    const jv_verdict *ver;
    int n;
    const jv_run_opts *opts;
    char date[40];       /* ISO 8601 local time of the run */
    const char *stopped; /* the run stopped on a sticky device error: the message; NULL otherwise */
} jv_replay_run;

/* Prints the console table. */
void jv_out_console(FILE *f, const jv_replay_run *run);

/* Writes Google Benchmark JSON (csv 0) or CSV (csv 1) to path: one entry per
 * baseline kernel, per op and cache mode; ops that did not run or failed
 * verification carry error_occurred / error_message. */
jv_status jv_out_gbench(const char *path, int csv, const jv_replay_run *run, jv_err *err);

/* Writes the markdown report to path. */
jv_status jv_out_markdown(const char *path, const jv_replay_run *run, jv_err *err);

#endif
