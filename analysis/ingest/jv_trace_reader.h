/* jv_trace_reader: the state of the streaming trace reader, shared by its two
 * files (internal to analysis/ingest): jv_trace.c scans the JSON and parses
 * each traceEvents entry into an ev_tmp; jv_trace_commit.c turns an entry
 * into the trace's compact records (events, threads, processes, argument
 * signatures). */
#ifndef JV_TRACE_READER_H
#define JV_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "jv_input.h"
#include "jv_map.h"
#include "jv_progress.h"
#include "jv_trace.h"

typedef struct {
    jv_map sig_of_text;   /* interned combined text -> sig index */
    jv_map proc_of_pid;   /* pid key -> process index */
    jv_map thread_of_key; /* interned id of the (pid, tid) bytes -> thread index */
    size_t last_thread;   /* cache for thread lookups */
    int64_t dur_sum;      /* durations of the events kept so far (< JV_TIME_LIMIT_NS) */
} trace_priv;

typedef struct {
    jv_input *in;
    const char *path;
    char *buf;
    size_t cap, len, pos; /* window capacity, bytes held, parse position */
    uint64_t base;        /* absolute offset of buf[0] in the decompressed stream */
    int eof;
    char *scratch; /* unescape buffer */
    size_t scratch_cap;
    char *fix; /* invalid UTF-8 repaired (jv_utf8_repair) */
    size_t fix_cap;
    jv_progress prog;
    jv_trace *tr;
    trace_priv *pv;
    jv_err *err;
} reader;

/* One traceEvents entry as parsed, before it becomes records. */
typedef struct {
    char ph;
    jv_kind kind;
    int launch_flow; /* cat is ac2g / async / async_cpu_to_gpu */
    int fwdbwd_flow;
    uint32_t name;
    int64_t pid, tid, id;
    int has_ts, has_dur, bad_time;
    int64_t ts, dur;
    int64_t corr, ext, seq, stream, device;
    uint32_t dims, types, strides, concrete;
    uint32_t arg_name, arg_labels;           /* 'M' events */
    uint32_t coll, pg, pg_ranks, coll_dtype; /* collective metadata (jv_commargs) */
    int64_t group_size, in_nelems, out_nelems;
    int has_comm;
    int is_object;
} ev_tmp;

/* Commits entry e into r->tr: an 'X' or 'i' event (with its thread, process, stream and argument signature),
 * a flow endpoint, or the process / thread names of an 'M' event. JV_ERR_NOMEM or JV_ERR_LIMIT in r->err. */
jv_status jv_trace_commit_event(reader *r, const ev_tmp *e);

#endif
