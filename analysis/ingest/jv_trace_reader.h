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
#include "jv_json.h"
#include "jv_map.h"
#include "jv_progress.h"
#include "jv_trace.h"

typedef struct {
    jv_map sig_of_text;     /* interned combined text -> sig index */
    jv_map proc_of_pid;     /* pid key -> process index */
    jv_map thread_of_key;   /* interned id of the (pid, tid) bytes -> thread index */
    size_t last_thread;     /* cache for thread lookups */
    jv_map gpuargs_of;      /* (stream, device) of a GPU event, packed in 64 bits -> index into jv_trace.gpu */
    size_t last_gpuargs;    /* cache for gpuargs lookups */
    jv_intern key_ids;      /* the jv_evkey of each key as 12 bytes: id k + 1 is tr->keys[k] (event_key) */
    uint32_t key_cache[64]; /* direct-mapped cache in front of key_ids: a key's index + 1 (0: empty) */
    int64_t dur_sum;        /* durations of the events kept so far (< JV_TIME_LIMIT_NS) */
} trace_priv;

/* A string of an entry whose interning waits for the committing thread (the two-thread scan, jv_trace_pipe.c):
 * its bytes are copied out of the window into the batch, and the ev_tmp member it fills is named by offset. */
typedef struct {
    uint32_t field;  /* offset of the ev_tmp member: a uint32_t id, or (key) an int64_t pid/tid/id key */
    uint8_t key;     /* 1: the member gets JV_STRKEY_BASE + the id */
    uint8_t escaped; /* the bytes hold JSON escapes (decoded before interning) */
    size_t off, n;   /* the bytes: jv_defer.bytes[off, off + n) */
    uint64_t err_at; /* the byte of the trace that an interning failure names (as the one-thread scan) */
} jv_defer_req;

typedef struct {
    jv_defer_req *req;
    size_t nreq, cap_req;
    char *bytes;
    size_t nbytes, cap_bytes;
    size_t mark_req, mark_bytes; /* where the entry being parsed began: a retry after a refill rewinds here */
} jv_defer;

typedef struct ev_tmp_ ev_tmp;

/* The decompressed stream cut into segments for the K-thread scan (jv_trace_pipe.c). */
typedef struct jv_segstore jv_segstore;

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
    int threads;        /* 1: the traceEvents array is scanned on the calling thread alone */
    jv_defer *defer;    /* the scanning thread of the two-thread scan: strings are recorded here, not interned */
    ev_tmp *cur_ev;     /* the entry being parsed (the base of jv_defer_req.field) */
    jv_segstore *store; /* set: refill reads the segments of the K-thread scan, not in (jv_segstore_read) */
    uint64_t own_end;   /* a scanner's segment ends here: past it, refills read a little at a time */
    int borrowed;       /* a scanner's window is its segment in the store (read only): refill moves to own */
    char *own;          /* then the scanner's own window, own_cap bytes (at least a segment and a step) */
    size_t own_cap;
    int gave_up;       /* a scanner's last entry ran too far past its segment (jv_segstore_read) */
    uint64_t bad_mark; /* counts.bad_utf8 before the entry being parsed: a retry after a refill rewinds here */
} reader;

/* One traceEvents entry as parsed, before it becomes records. */
struct ev_tmp_ {
    char ph;
    jv_kind kind;
    int launch_flow; /* cat is ac2g / async / async_cpu_to_gpu */
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
};

/* Commits entry e into r->tr: an 'X' or 'i' event (with its thread, process, stream and argument signature),
 * a flow endpoint, or the process / thread names of an 'M' event. JV_ERR_NOMEM or JV_ERR_LIMIT in r->err. */
jv_status jv_trace_commit_event(reader *r, const ev_tmp *e);

/* Reads the next traceEvents entry into *e (*end = 1 instead when the array closes); *first as for
 * jv_json_element. With r->defer set, the entry's strings are recorded there rather than interned. Errors in
 * r->err, as the one-thread scan reports them. Defined in jv_trace.c. */
jv_status jv_trace_read_entry(reader *r, int *first, ev_tmp *e, int *end);

/* Interns the n recorded strings q of entry e (bytes: their jv_defer.bytes) into r->tr, in order, and sets the
 * members they name. An interning failure is reported as the one-thread scan reports it. In jv_trace.c. */
jv_status jv_trace_apply_defer(reader *r, ev_tmp *e, const jv_defer_req *q, size_t n, const char *bytes);

/* The scanning side of the two-thread scan (r->defer set): records the string p[0..n) (escaped: with JSON
 * escapes) for member dst of r->cur_ev (key: a pid/tid/id key) instead of interning it, and writes a stand-in
 * there (0 for an empty string, as the string table's id of "", else 1) that jv_trace_apply_defer replaces.
 * err_p: the window byte an interning failure will name. JV_J_BAD with c->err when out of memory. */
jv_jres jv_defer_add(reader *r, jv_jcur *c, const char *p, size_t n, int escaped, void *dst, int key,
                     const char *err_p);

/* Scans the rest of the traceEvents array on two threads (jv_trace_pipe.c) into r->tr: 1 with *st the
 * status, or 0 (nothing read) when the second thread cannot be started. */
int jv_trace_read_events_piped(reader *r, jv_status *st);

/* Reads up to cap bytes of the stream at r->base + r->len from r->store (reading the next segment from the
 * input when none holds them) into dst; *got = 0 at the end of the stream. An input error is reported where the
 * one-thread scan meets it: when a byte past the last one read before it is asked for. In jv_trace_pipe.c. */
jv_status jv_segstore_read(reader *r, char *dst, size_t cap, size_t *got);

/* Frees a segment store (NULL is allowed). */
void jv_segstore_free(jv_segstore *s);

/* Scans the rest of the traceEvents array on k >= 2 scanning threads (jv_trace_pipe.c): segments of the stream
 * parsed ahead from a guessed entry boundary, verified where the previous segment's last entry ends and taken
 * in file order (a segment whose guess was wrong is scanned again on this thread); strings interned and entries
 * committed here, as by the one-thread scan. 1 with *st the status (r then reads the rest of the document from
 * r->store), or 0 (nothing read) when no scanning thread can be started. */
int jv_trace_read_events_split(reader *r, int k, jv_status *st);

/* The scanning threads the traceEvents array gets: JV_SCAN_THREADS when set (1: the two-thread scan), else the
 * CPUs this process may run on (sched_getaffinity), at most 8. In jv_trace_pipe.c. */
int jv_trace_scan_threads(void);

#endif
