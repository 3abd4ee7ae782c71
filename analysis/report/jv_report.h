/* jv_report: writes the part-1 perf report sheets into a jv_book (CSV files
 * and xlsx worksheets) with TraceLens' sheet and column names:
 * gpu_timeline (+ gpu_timeline_by_device with several GPUs), ops_summary,
 * ops_summary_by_category, ops_unique_args, kernel_summary. */
#ifndef JV_REPORT_H
#define JV_REPORT_H

#include <pthread.h>

#include "jv_ops.h"
#include "jv_sheet.h"
#include "jv_timelines.h"

typedef struct {
    jv_book *book;                 /* where sheets go */
    const jv_timelines *timelines; /* the trace's GPU timelines (jv_timelines_compute; read only) */
} jv_report_opts;

/* Writes gpu_timeline (+ gpu_timeline_by_device: o->timelines), ops_summary,
 * ops_summary_by_category and ops_unique_args. Each CSV file is written under
 * a temporary name and renamed, so a failure leaves no half-written sheet. */
jv_status jv_report_write_ops(const jv_trace *tr, const jv_launchers *l, const jv_report_opts *o, jv_err *err);

/* Writes kernel_summary (after the perf sheets, as TraceLens orders them). */
jv_status jv_report_write_kernels(const jv_trace *tr, const jv_tree *t, const jv_launchers *l, const jv_report_opts *o,
                                  jv_err *err);

/* The launcher sheets as one job that can run beside the model (jv_perf_build, jv_digest_*: they read the same
 * trace and tree and never the launcher table or the book): computes the GPU timelines first when tl_opts is
 * not NULL (into *tls, which o->timelines then points at; the model waits for them with
 * jv_launcher_job_timelines), builds the launcher table of tr and t, writes ops_summary ...
 * (jv_report_write_ops) and kernel_summary (jv_report_write_kernels) into o->book when o is not NULL (a
 * reference trace: the table's counts alone), then frees the table. The caller fills the inputs, calls
 * jv_launcher_job_start, touches neither the book, *tls (before jv_launcher_job_timelines) nor the job until
 * jv_launcher_job_join, then reads the results. The outputs are the same on one thread or two. */
typedef struct {
    /* inputs */
    const jv_trace *tr;
    const jv_tree *t;
    const jv_report_opts *o;         /* NULL: no sheets */
    const jv_timeline_opts *tl_opts; /* not NULL: compute the timelines (into tls) first */
    jv_timelines *tls;               /* with tl_opts: zeroed; the timelines, or zeroed when tls_st is not JV_OK */
    int threaded;                    /* 1: on a second thread (jv_launcher_job_start falls back to this one when it
                                        cannot start one) */
    /* results (after jv_launcher_job_join) */
    jv_status tls_st;       /* jv_timelines_compute's status (JV_ERR_NOMEM); nothing else was done */
    jv_status launchers_st; /* jv_launchers_build's status (JV_ERR_NOMEM); the sheets were not written */
    jv_status st;           /* the sheets' status, err its message */
    jv_err err;
    size_t nlaunchers;    /* rows of the launcher table */
    size_t nbig;          /* rows with more than JV_KERNEL_DETAILS_MAX direct GPU events */
    uint64_t most_direct; /* the most direct GPU events of one such row */
    /* private */
    pthread_t thread_;
    pthread_mutex_t mu_;
    pthread_cond_t cv_;
    int running_, tls_done_;
} jv_launcher_job;

/* Starts j (on a thread when j->threaded, else runs it to the end here). */
void jv_launcher_job_start(jv_launcher_job *j);

/* Waits for j's timelines (at once when it ran on the caller's thread or has no tl_opts) and returns
 * j->tls_st; *j->tls may be read from then on. */
jv_status jv_launcher_job_timelines(jv_launcher_job *j);

/* Waits for j to end (at once when it ran on the caller's thread). */
void jv_launcher_job_join(jv_launcher_job *j);

#endif
