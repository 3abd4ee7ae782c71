/* jv_trace: the in-memory form of a profiler trace: compact event records
 * with interned strings, read by one streaming pass over the file
 * (jv_trace_load). Only what the analyses need is kept; the raw text of a
 * cpu op's shape arguments is kept verbatim (interned) for lazy parsing. */
#ifndef JV_TRACE_H
#define JV_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jv_bits.h"
#include "jv_flow.h"
#include "jv_intern.h"
#include "jv_status.h"

/* What an event is, from its category (all eras' names map here). */
typedef enum {
    JV_K_OTHER = 0,  /* anything else kept (Trace spans, overhead, ...) */
    JV_K_CPU_OP,     /* cpu_op, Operator */
    JV_K_USER_ANNOT, /* user_annotation */
    JV_K_PYTHON,     /* python_function */
    JV_K_RUNTIME,    /* cuda_runtime, Runtime (also HIP launches) */
    JV_K_DRIVER,     /* cuda_driver */
    JV_K_SYNC,       /* cuda_sync */
    JV_K_KERNEL,     /* kernel, Kernel */
    JV_K_MEMCPY,     /* gpu_memcpy, Memcpy */
    JV_K_MEMSET,     /* gpu_memset, Memset */
    JV_K_GPU_ANNOT,  /* gpu_user_annotation */
    JV_K_COUNT
} jv_kind;

/* 1 for kernel, memcpy and memset events: the GPU work that is timed. */
static inline int jv_kind_is_gpu(jv_kind k) {
    return k == JV_K_KERNEL || k == JV_K_MEMCPY || k == JV_K_MEMSET;
}
/* 1 for host events that enter the call tree. */
static inline int jv_kind_is_host(jv_kind k) {
    return k == JV_K_CPU_OP || k == JV_K_USER_ANNOT || k == JV_K_PYTHON || k == JV_K_RUNTIME || k == JV_K_DRIVER ||
           k == JV_K_SYNC;
}
/* Short lower-case name of a kind, as the current Kineto category spells it. */
const char *jv_kind_name(jv_kind k);

enum { JV_NONE32 = 0xFFFFFFFFu };
/* The time range of a trace (jv_trace_load refuses more): |ts| and |ts + dur| under 2^62 ns
 * (about 146 years; 4.6e15 us), and the durations of all events summed under 2^62 ns. */
#define JV_TIME_LIMIT_NS (INT64_C(1) << 62)
/* The largest traceEvents entry, or top-level member other than traceEvents, that jv_trace_load reads
 * (bytes of JSON text): it bounds the read window, so one long string or value never grows memory further. */
enum { JV_TRACE_MAX_VALUE = 64 << 20 };
#define JV_NONE64 INT64_MIN

/* A duration of JV_DUR_BIG ns (2^32 - 1, 4.29 s) or more is not kept in jv_event.dur_ but in
 * jv_trace.long_dur (read through jv_ev_dur). */
#define JV_DUR_BIG UINT32_MAX

/* A start that lies 2^31 ns or more before, or 2^31 - 1 ns or more after, the start of the first event of its
 * block of 64 is not kept in jv_event.ts_ but in jv_trace.long_ts (read through jv_ev_ts). */
#define JV_TS_FAR UINT32_MAX

/* What a complete event shares with others: its name, thread, kind and, for a cpu op or user annotation, its shape
 * arguments, for a kernel, memcpy or memset its stream and device. Each distinct key is kept once (jv_trace.keys, in
 * order of first appearance) and an event holds its index: a trace has few of them (198 for the 679,932 events of
 * bench/'s generated trace), so that an event needs 12 bytes and neither an op nor a GPU event a record of its own.
 * jv_trace_load refuses more than 2^24 threads. */
typedef struct {
    uint32_t name;        /* interned name */
    uint32_t thread : 24; /* index into jv_trace.threads */
    uint32_t kind : 8;    /* jv_kind */
    uint32_t arg;         /* a cpu op's or user annotation's index into jv_trace.sigs (jv_ev_sig), a GPU event's into
                             jv_trace.gpu (jv_ev_gpu), else 0 */
} jv_evkey;
_Static_assert(sizeof(jv_evkey) == 12, "jv_evkey is 12 bytes");

/* A complete ('X') event. 12 bytes: its name, thread, kind and shape arguments or stream and device are
 * jv_trace.keys[key] (read them with jv_ev_name, jv_ev_thread, jv_ev_kind, jv_ev_sig and jv_ev_gpu); the start is 32
 * bits above a base per block of 64 events (jv_trace.ts_base) with an escape (JV_TS_FAR) to jv_trace.long_ts, and the
 * duration is 32 bits with an escape (JV_DUR_BIG) to jv_trace.long_dur: read them with jv_ev_ts and jv_ev_dur; the
 * index in traceEvents (TraceLens' UID) is not stored: jv_trace_uid derives it from one bit per traceEvents entry; nor
 * is the index into op_ids, gpu_ids or launch_corr: jv_ev_aux counts the earlier events of its class (jv_trace.auxb).
 */
typedef struct {
    uint32_t ts_;  /* start - ts_base[i / 64] (ns, modulo 2^64) when below JV_TS_FAR; read it with jv_ev_ts */
    uint32_t dur_; /* duration, ns, when below JV_DUR_BIG; read it with jv_ev_dur */
    uint32_t key;  /* index into jv_trace.keys: name, thread, kind, shape arguments or stream and device */
} jv_event;
_Static_assert(sizeof(jv_event) == 12, "jv_event is 12 bytes");

/* The records of 64 events (ev[64 b] .. ev[64 b + 63]) that give each its index into op_ids, gpu_ids or
 * launch_corr: bit k of bits[c] is set when ev[64 b + k] is of class c (0 ops, 1 GPU, 2 launch), base[c] counts
 * the events of class c before ev[64 b]. */
typedef struct {
    uint64_t bits[3];
    uint32_t base[3];
} jv_auxblock;

/* A value of event ev that its record cannot hold, kept beside the records in a table ascending by ev: a
 * duration of JV_DUR_BIG ns or more (jv_trace.long_dur), or a start JV_TS_FAR ns or more from its block's base
 * (jv_trace.long_ts, ns as in the file). */
typedef struct {
    uint32_t ev; /* index into jv_trace.ev */
    int64_t v;
} jv_evside;

/* The ids of a cpu op (or user annotation) that only the call tree reads (jv_tree_build, the call stack):
 * kept apart from jv_evkey so that jv_trace_drop_flows can free them. */
typedef struct {
    int32_t ext; /* External id (or 2021's "external id"), JV_NONE32I when absent or beyond 32 bits */
    int32_t seq; /* Sequence number, JV_NONE32I when absent or beyond 32 bits */
} jv_opids;

#define JV_NONE32I INT32_MIN
/* Narrows an id read as int64 (JV_NONE64 when absent) to the 32-bit form of jv_opids. */
static inline int32_t jv_id32(int64_t v) {
    return v > INT32_MIN && v <= INT32_MAX ? (int32_t)v : JV_NONE32I;
}

/* The four shape arguments of an op as raw JSON text (interned ids; 0 = absent). */
typedef struct {
    uint32_t dims, types, strides, concrete;
} jv_sig;

/* GPU-side arguments of a kernel, memcpy or memset. */
typedef struct {
    int32_t stream; /* args.stream, else the number in tid, else -1 */
    int32_t device; /* args.device, else pid */
} jv_gpuargs;

/* A correlation id as kept (jv_gpuids.corr_, jv_trace.launch_corr_): the id itself when it lies in
 * [0, JV_CORR_FAR), JV_CORR_NONE when absent, JV_CORR_FAR when the id (negative, or JV_CORR_FAR or more) is in
 * the side table jv_trace.long_corr. Read it with jv_trace_corr. */
#define JV_CORR_NONE UINT32_MAX
#define JV_CORR_FAR  (UINT32_MAX - 1)

/* The ids of a kernel, memcpy or memset that only linking reads (jv_tree_build; freed by jv_trace_drop_flows).
 * 8 bytes: there is one per GPU event. */
typedef struct {
    uint32_t corr_; /* correlation (JV_CORR_NONE, JV_CORR_FAR): read it with jv_trace_corr */
    int32_t ext;    /* External id / external id, JV_NONE32I when absent or beyond 32 bits */
} jv_gpuids;

/* Collective metadata of a cpu op (record_param_comms) or a kernel (NCCL kernels of newer traces), as the
 * profiler records it in args; only events that carry one of these keys get a record. */
typedef struct {
    uint32_t ev;                   /* index of the event in jv_trace.ev */
    uint32_t coll;                 /* interned "Collective name" (0: absent) */
    uint32_t pg;                   /* "Process Group Name", else "Process Group ID" as text (0: absent) */
    uint32_t pg_ranks;             /* "Process Group Ranks" as its raw JSON text (0: absent) */
    uint32_t dtype;                /* "dtype" ("Float", "BFloat16", ...; 0: absent) */
    int32_t group_size;            /* "Group size", -1 when absent */
    int64_t in_nelems, out_nelems; /* "In msg nelems", "Out msg nelems", JV_NONE64 when absent */
} jv_commargs;

/* A (pid, tid) pair. Keys: the number when numeric (also "123"), otherwise
 * JV_STRKEY_BASE + the interned id of the text. */
#define JV_STRKEY_BASE (INT64_C(1) << 62)
typedef struct {
    int64_t pid, tid;
    uint32_t name; /* thread_name from 'M' events, 0 when none */
} jv_thread;

typedef struct {
    int64_t pid;
    uint32_t name;   /* process_name */
    uint32_t labels; /* process_labels */
} jv_process;

/* One GPU from deviceProperties / computeProperties. */
typedef struct {
    int id;
    char name[128];
    double total_mem_bytes;
    int cc_major, cc_minor;
    int num_sms;
    int warp_size;
} jv_device;

/* What the reader saw and skipped (for warnings and reports). */
typedef struct {
    uint64_t events_total;   /* entries in traceEvents */
    uint64_t x_events;       /* complete events kept */
    uint64_t instant_events; /* 'i' / 'I' events (not kept) */
    uint64_t meta_events;    /* 'M' events */
    uint64_t flow_events;    /* 's' / 'f' */
    uint64_t other_phase;    /* other phases (counters, async b/e, ...) */
    uint64_t bad_time;       /* X events without a usable ts/dur (skipped) */
    uint64_t negative_dur;   /* X events with dur < 0 (kept with dur 0) */
    uint64_t non_object;     /* traceEvents entries that are not objects */
    uint64_t bad_utf8;       /* strings with invalid UTF-8, repaired with U+FFFD */
    uint64_t uncompressed_bytes;
    uint64_t file_bytes;
} jv_trace_counts;

typedef struct {
    jv_intern strings;
    jv_event *ev;
    size_t nev, cap_ev;
    jv_evkey *keys; /* the distinct keys of ev (jv_evkey), in order of first appearance */
    size_t nkeys, cap_keys;
    size_t nops;      /* cpu ops and user annotations */
    jv_opids *op_ids; /* nops of them (freed by jv_trace_drop_flows) */
    size_t cap_op_ids;
    jv_gpuargs *gpu; /* the distinct (stream, device) pairs of the GPU events, in order of first appearance */
    size_t ngpuargs, cap_gpu;
    size_t ngpu;        /* kernels, memcpys and memsets */
    jv_gpuids *gpu_ids; /* ngpu of them (freed by jv_trace_drop_flows) */
    size_t cap_gpu_ids;
    uint32_t *launch_corr_;     /* correlation of RUNTIME/DRIVER events as kept (jv_trace_corr reads it) */
    size_t nlaunch, cap_launch; /* (freed by jv_trace_drop_flows) */
    jv_evside *long_corr;       /* the correlation ids kept as JV_CORR_FAR, ascending by ev (jv_trace_corr) */
    size_t nlong_corr, cap_long_corr;
    jv_evside *long_dur; /* durations of JV_DUR_BIG ns or more, ascending by ev (jv_ev_dur) */
    size_t nlong_dur, cap_long_dur;
    int64_t *ts_base; /* per block of 64 events: the start of its first event - 2^31 ns (jv_ev_ts) */
    size_t cap_ts_base;
    jv_evside *long_ts; /* the starts of the events whose ts_ is JV_TS_FAR, ascending by ev (jv_ev_ts) */
    size_t nlong_ts, cap_long_ts;
    uint64_t *kept; /* bit u: traceEvents entry u is an event of ev (jv_trace_uid); nkept_words words */
    size_t nkept_words, cap_kept;
    uint32_t *kept_at; /* the index in traceEvents of ev[64 k] */
    size_t cap_kept_at;
    jv_auxblock *auxb; /* (nev + 63) / 64 of them: jv_ev_aux */
    size_t cap_auxb;
    jv_commargs *comm; /* ascending by ev */
    size_t ncomm, cap_comm;
    jv_flows flows; /* launch flow endpoints (autograd fwdbwd flows are not kept), file order */
    jv_sig *sigs;
    size_t nsigs, cap_sigs;
    jv_thread *threads;
    size_t nthreads, cap_threads;
    jv_process *procs;
    size_t nprocs, cap_procs;
    jv_device *devices;
    size_t ndevices;
    int has_base_time;      /* baseTimeNanoseconds present */
    int bare_array;         /* the file was a bare array of events */
    int device_props_key;   /* 0 none, 1 deviceProperties, 2 computeProperties */
    char *distributed_info; /* raw JSON text of distributedInfo, or NULL */
    char *runtime_version;  /* e.g. "cuda 12.4" or "hip 6.2", or NULL */
    int is_amd;             /* AMD/ROCm trace (hip/roctracer/rocprofiler keys or hip* launches) */
    jv_trace_counts counts;
    /* the file's SHA-256 (jv_load_opts.hash_file): read it through jv_trace_file_sha256 */
    char file_sha256_[65];          /* taken as the file was read, else "" */
    uint64_t file_sha256_bytes_;    /* the bytes read */
    struct jv_filehash *file_hash_; /* or being taken in the background (a plain file) */
    void *priv_;                    /* reader-internal lookup tables */
} jv_trace;

/* The kind of the event e, which must point into tr->ev (or be one of its copies). */
static inline jv_kind jv_ev_kind(const jv_trace *tr, const jv_event *e) {
    return (jv_kind)tr->keys[e->key].kind;
}
/* The interned name of the event e. */
static inline uint32_t jv_ev_name(const jv_trace *tr, const jv_event *e) {
    return tr->keys[e->key].name;
}
/* The thread (index into tr->threads) of the event e. */
static inline uint32_t jv_ev_thread(const jv_trace *tr, const jv_event *e) {
    return tr->keys[e->key].thread;
}
/* The shape arguments (index into tr->sigs) of the event e: 0 (none) unless it is a cpu op or user annotation. */
static inline uint32_t jv_ev_sig(const jv_trace *tr, const jv_event *e) {
    const jv_evkey *k = &tr->keys[e->key];
    return k->kind == JV_K_CPU_OP || k->kind == JV_K_USER_ANNOT ? k->arg : 0;
}
/* The stream and device of the event e, a kernel, memcpy or memset (jv_kind_is_gpu). */
static inline const jv_gpuargs *jv_ev_gpu(const jv_trace *tr, const jv_event *e) {
    return &tr->gpu[tr->keys[e->key].arg];
}

/* The duration (ns, >= 0) of tr->ev[i] when it is JV_DUR_BIG ns or more (binary search in tr->long_dur). */
int64_t jv_trace_long_dur(const jv_trace *tr, uint32_t i);

/* The start (ns) of tr->ev[i] when its ts_ is JV_TS_FAR (binary search in tr->long_ts). */
int64_t jv_trace_long_ts(const jv_trace *tr, uint32_t i);

/* The start (ns) of the event e, which must point into tr->ev. */
static inline int64_t jv_ev_ts(const jv_trace *tr, const jv_event *e) {
    uint32_t i = (uint32_t)(e - tr->ev);
    if (e->ts_ == JV_TS_FAR) return jv_trace_long_ts(tr, i);
    uint64_t u = (uint64_t)tr->ts_base[i >> 6] + e->ts_; /* two's complement, modulo 2^64 */
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The class of a kind whose events have a record in op_ids (0), gpu_ids (1) or launch_corr (2); -1: none. */
static inline int jv_kind_aux_class(jv_kind k) {
    return k == JV_K_CPU_OP || k == JV_K_USER_ANNOT ? 0
           : jv_kind_is_gpu(k)                      ? 1
           : k == JV_K_RUNTIME || k == JV_K_DRIVER  ? 2
                                                    : -1;
}

/* The index of tr->ev[i]'s record in op_ids (CPU_OP, USER_ANNOT), gpu_ids (GPU kinds) or launch_corr (RUNTIME,
 * DRIVER); JV_NONE32 for the other kinds. */
static inline uint32_t jv_trace_aux(const jv_trace *tr, uint32_t i) {
    int c = jv_kind_aux_class(jv_ev_kind(tr, &tr->ev[i]));
    if (c < 0) return JV_NONE32;
    const jv_auxblock *b = &tr->auxb[i >> 6];
    return b->base[c] + jv_popcount64(b->bits[c] & ((UINT64_C(1) << (i & 63)) - 1));
}
/* jv_trace_aux of the event e, which must point into tr->ev. */
static inline uint32_t jv_ev_aux(const jv_trace *tr, const jv_event *e) {
    return jv_trace_aux(tr, (uint32_t)(e - tr->ev));
}

/* The correlation id of tr->ev[i] when its record holds JV_CORR_FAR (binary search in tr->long_corr). */
int64_t jv_trace_long_corr(const jv_trace *tr, uint32_t i);

/* The correlation id of tr->ev[i], a launch (RUNTIME, DRIVER) or a GPU event, as the file gives it; JV_NONE64
 * when it has none. Only until jv_trace_drop_flows. */
static inline int64_t jv_trace_corr(const jv_trace *tr, uint32_t i) {
    int c = jv_kind_aux_class(jv_ev_kind(tr, &tr->ev[i]));
    uint32_t a = jv_trace_aux(tr, i);
    uint32_t v = c == 1 ? tr->gpu_ids[a].corr_ : tr->launch_corr_[a];
    if (v < JV_CORR_FAR) return (int64_t)v;
    return v == JV_CORR_NONE ? JV_NONE64 : jv_trace_long_corr(tr, i);
}

/* The duration (ns, >= 0) of the event e, which must point into tr->ev. */
static inline int64_t jv_ev_dur(const jv_trace *tr, const jv_event *e) {
    return e->dur_ != JV_DUR_BIG ? (int64_t)e->dur_ : jv_trace_long_dur(tr, (uint32_t)(e - tr->ev));
}
/* The end (ts + duration, ns) of the event e, which must point into tr->ev. */
static inline int64_t jv_ev_end(const jv_trace *tr, const jv_event *e) {
    return jv_ev_ts(tr, e) + jv_ev_dur(tr, e);
}

/* The index in traceEvents (TraceLens' UID) of tr->ev[i] (i < tr->nev). */
uint32_t jv_trace_uid(const jv_trace *tr, uint32_t i);

/* The index into tr->ev of the event whose index in traceEvents is uid, else JV_NONE32. */
uint32_t jv_trace_find_uid(const jv_trace *tr, uint32_t uid);

typedef struct {
    int progress;  /* show progress on stderr (caller decides: tty and not --quiet) */
    int hash_file; /* 1: the SHA-256 of the file is taken (jv_trace_file_sha256): as it is read, or, for a plain
                      file where jv_hash_mode allows and threads is not 1, after the read (jv_filehash) */
    int threads;   /* 1: scan on the calling thread alone; else the traceEvents array is parsed on
                      jv_trace_scan_threads() scanning threads beside the calling one, which stores the records,
                      where they can be started (the same trace either way) */
    int trim;      /* 1: the heap the read freed is handed back to the system as it ends (glibc's malloc_trim). Only
                      for a caller that no other thread runs beside: where glibc does not provide malloc (a
                      sanitizer's, a preloaded one), the first malloc_trim sets glibc's heap up, and two at once
                      crash (a SEGV in mtrim under ASan with --jobs) */
} jv_load_opts;

/* Reads the trace at path into *tr (which is initialised here). Plain or
 * gzip'd JSON, an object with traceEvents or a bare array. Streams the file;
 * never builds a document tree. On error *tr is freed and err names the file
 * and the problem (with the byte offset for malformed JSON). */
jv_status jv_trace_load(const char *path, const jv_load_opts *opts, jv_trace *tr, jv_err *err);

/* The SHA-256 of the trace file (jv_load_opts.hash_file) into hex and the bytes it covers into *bytes: waits for
 * the background hash (jv_filehash_result) where there is one. hex "" and 0 when the file was not hashed. Errors
 * (the file changed while it was analysed, a read error) name the file; a second call gives the same. */
jv_status jv_trace_file_sha256(const jv_trace *tr, char hex[65], uint64_t *bytes, jv_err *err);

/* Frees everything held by tr (and stops its background hash). */
void jv_trace_free(jv_trace *tr);

/* Frees what only linking and the call tree read (jv_tree_build): the flow endpoints, the launches'
 * correlation ids (launch_corr_, long_corr) and the ids of the ops and GPU events (op_ids, gpu_ids), lowering peak
 * memory for the reports. */
void jv_trace_drop_flows(jv_trace *tr);

/* Text of an interned id. */
static inline const char *jv_trace_str(const jv_trace *tr, uint32_t id) {
    return jv_intern_str(&tr->strings, id);
}

/* 1 when the interned string id satisfies pred, which is called once per distinct string: memo holds one byte per
 * interned string (tr->strings.count of them, zeroed by the caller): 0 not tested yet, 1 no, 2 yes. */
static inline int jv_name_memo(const jv_trace *tr, uint32_t id, uint8_t *memo, int (*pred)(const char *name)) {
    if (!memo[id]) memo[id] = (uint8_t)(1 + (pred(jv_trace_str(tr, id)) != 0));
    return memo[id] == 2;
}

/* Writes a pid or tid key as text (number, or the original string) into buf. */
const char *jv_trace_key_str(const jv_trace *tr, int64_t key, char *buf, size_t cap);

/* Process and thread names (empty string when unknown). */
const char *jv_trace_process_name(const jv_trace *tr, int64_t pid);
const char *jv_trace_process_labels(const jv_trace *tr, int64_t pid);

#endif
