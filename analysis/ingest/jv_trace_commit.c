/* jv_trace_commit: a parsed traceEvents entry into the trace's compact records
 * (see jv_trace_reader.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_trace_reader.h"

static jv_status thread_index(reader *r, int64_t pid, int64_t tid, uint32_t *out) {
    jv_trace *tr = r->tr;
    size_t i = r->pv->last_thread;
    if (i < tr->nthreads && tr->threads[i].pid == pid && tr->threads[i].tid == tid) {
        *out = (uint32_t)i;
        return JV_OK;
    }
    /* hashed: the (pid, tid) bytes interned give a unique id (a trace may hold many threads) */
    int64_t key2[2] = {pid, tid};
    uint32_t h, idx;
    JV_CHECK(jv_intern_add(&tr->strings, (const char *)key2, sizeof key2, &h));
    if (jv_map_get(&r->pv->thread_of_key, h, &idx)) {
        r->pv->last_thread = idx;
        *out = idx;
        return JV_OK;
    }
    if (tr->nthreads >= (1u << 24)) JV_FAIL(r->err, JV_ERR_LIMIT, "%s: more than 16M distinct threads", r->path);
    JV_CHECK(JV_RESERVE(tr->threads, tr->cap_threads, tr->nthreads + 1));
    tr->threads[tr->nthreads] = (jv_thread){pid, tid, 0};
    JV_CHECK(jv_map_put(&r->pv->thread_of_key, h, (uint32_t)tr->nthreads));
    r->pv->last_thread = tr->nthreads;
    *out = (uint32_t)tr->nthreads++;
    return JV_OK;
}

static int same_key(const jv_evkey *a, const jv_evkey *b) {
    return a->name == b->name && a->thread == b->thread && a->kind == b->kind && a->arg == b->arg;
}

/* The index into tr->keys of want, added when new. */
static jv_status event_key(reader *r, const jv_evkey *want, uint32_t *out) {
    jv_trace *tr = r->tr;
    trace_priv *pv = r->pv;
    uint32_t *slot =
        &pv->key_cache[(want->name * 0x9E3779B1u + want->thread * 31u + want->kind + want->arg * 7u) >> 26];
    if (*slot && same_key(&tr->keys[*slot - 1], want)) {
        *out = *slot - 1;
        return JV_OK;
    }
    /* the key's 12 bytes interned: id i + 1 is key i (id 0 is the empty string) */
    const uint32_t words[3] = {want->name, want->thread | (uint32_t)want->kind << 24, want->arg};
    uint32_t id;
    JV_CHECK(jv_intern_add(&pv->key_ids, (const char *)words, sizeof words, &id));
    if (id > tr->nkeys) { /* new: nkeys <= nev < UINT32_MAX - 1 */
        JV_CHECK(JV_RESERVE(tr->keys, tr->cap_keys, tr->nkeys + 1));
        tr->keys[tr->nkeys++] = *want;
    }
    *slot = id;
    *out = id - 1;
    return JV_OK;
}

static jv_status process_index(reader *r, int64_t pid, size_t *out) {
    jv_trace *tr = r->tr;
    uint32_t idx;
    if (jv_map_get(&r->pv->proc_of_pid, pid, &idx)) { /* pid keys are unique int64: no collision */
        *out = idx;
        return JV_OK;
    }
    if (tr->nprocs >= (1u << 24)) JV_FAIL(r->err, JV_ERR_LIMIT, "%s: more than 16M distinct processes", r->path);
    JV_CHECK(JV_RESERVE(tr->procs, tr->cap_procs, tr->nprocs + 1));
    tr->procs[tr->nprocs] = (jv_process){pid, 0, 0};
    JV_CHECK(jv_map_put(&r->pv->proc_of_pid, pid, (uint32_t)tr->nprocs));
    *out = tr->nprocs++;
    return JV_OK;
}

static jv_status sig_index(reader *r, const ev_tmp *e, uint32_t *out) {
    jv_trace *tr = r->tr;
    if (!e->dims && !e->types && !e->strides && !e->concrete) {
        *out = 0; /* sig 0: no shape arguments */
        return JV_OK;
    }
    /* combine the four ids into one key; collisions are resolved by comparing */
    uint32_t key4[4] = {e->dims, e->types, e->strides, e->concrete};
    uint32_t h;
    JV_CHECK(jv_intern_add(&tr->strings, (const char *)key4, sizeof key4, &h));
    uint32_t idx;
    if (jv_map_get(&r->pv->sig_of_text, h, &idx)) {
        *out = idx;
        return JV_OK;
    }
    JV_CHECK(JV_RESERVE(tr->sigs, tr->cap_sigs, tr->nsigs + 1));
    tr->sigs[tr->nsigs] = (jv_sig){e->dims, e->types, e->strides, e->concrete};
    idx = (uint32_t)tr->nsigs++;
    JV_CHECK(jv_map_put(&r->pv->sig_of_text, h, idx));
    *out = idx;
    return JV_OK;
}

static int32_t stream_of(const jv_trace *tr, const ev_tmp *e) {
    if (e->stream != JV_NONE64) return (int32_t)e->stream;
    if (e->tid != JV_NONE64 && e->tid < JV_STRKEY_BASE) return (int32_t)e->tid;
    if (e->tid >= JV_STRKEY_BASE) { /* "stream 7" */
        const char *t = jv_trace_str(tr, (uint32_t)(e->tid - JV_STRKEY_BASE));
        const char *d = strpbrk(t, "0123456789");
        if (d) return (int32_t)strtol(d, NULL, 10);
    }
    return -1;
}

/* Marks traceEvents entry uid as the event tr->ev[tr->nev] (jv_trace_uid reads the marks). */
static jv_status keep_uid(jv_trace *tr, uint64_t uid) {
    size_t w = (size_t)(uid >> 6);
    if (w >= tr->nkept_words) {
        JV_CHECK(JV_RESERVE(tr->kept, tr->cap_kept, w + 1));
        memset(tr->kept + tr->nkept_words, 0, (w + 1 - tr->nkept_words) * sizeof *tr->kept);
        tr->nkept_words = w + 1;
    }
    tr->kept[w] |= UINT64_C(1) << (uid & 63);
    if (!(tr->nev & 63)) {
        JV_CHECK(JV_RESERVE(tr->kept_at, tr->cap_kept_at, (tr->nev >> 6) + 1));
        tr->kept_at[tr->nev >> 6] = (uint32_t)uid;
    }
    return JV_OK;
}

/* Records the class (jv_kind_aux_class) of the event tr->ev[tr->nev] for jv_trace_aux. */
static jv_status note_aux(jv_trace *tr, int cls) {
    size_t b = tr->nev >> 6;
    if (!(tr->nev & 63)) {
        JV_CHECK(JV_RESERVE(tr->auxb, tr->cap_auxb, b + 1));
        jv_auxblock *x = &tr->auxb[b];
        for (int c = 0; c < 3; c++) {
            x->bits[c] = 0;
            x->base[c] = b ? tr->auxb[b - 1].base[c] + jv_popcount64(tr->auxb[b - 1].bits[c]) : 0;
        }
    }
    if (cls >= 0) tr->auxb[b].bits[cls] |= UINT64_C(1) << (tr->nev & 63);
    return JV_OK;
}

/* Sets e->ts_ of the event tr->ev[tr->nev] that starts at ts (|ts| < JV_TIME_LIMIT_NS): the offset from its
 * block's base (the first event of a block sets the base 2^31 ns before its start), or JV_TS_FAR with ts in
 * tr->long_ts. */
static jv_status note_ts(jv_trace *tr, int64_t ts, jv_event *e) {
    size_t b = tr->nev >> 6;
    if (!(tr->nev & 63)) {
        JV_CHECK(JV_RESERVE(tr->ts_base, tr->cap_ts_base, b + 1));
        tr->ts_base[b] = ts - (INT64_C(1) << 31);
    }
    uint64_t off = (uint64_t)ts - (uint64_t)tr->ts_base[b]; /* the difference modulo 2^64: exact below 2^32 */
    if (off < JV_TS_FAR) {
        e->ts_ = (uint32_t)off;
        return JV_OK;
    }
    JV_CHECK(JV_RESERVE(tr->long_ts, tr->cap_long_ts, tr->nlong_ts + 1));
    tr->long_ts[tr->nlong_ts++] = (jv_evside){(uint32_t)tr->nev, ts};
    e->ts_ = JV_TS_FAR;
    return JV_OK;
}

/* The kept form (JV_CORR_NONE, JV_CORR_FAR) of the correlation id corr of the event tr->ev[tr->nev]; an id that 32
 * bits cannot hold goes to tr->long_corr. */
static jv_status note_corr(jv_trace *tr, int64_t corr, uint32_t *out) {
    if (corr == JV_NONE64) {
        *out = JV_CORR_NONE;
    } else if (corr >= 0 && corr < (int64_t)JV_CORR_FAR) {
        *out = (uint32_t)corr;
    } else {
        JV_CHECK(JV_RESERVE(tr->long_corr, tr->cap_long_corr, tr->nlong_corr + 1));
        tr->long_corr[tr->nlong_corr++] = (jv_evside){(uint32_t)tr->nev, corr};
        *out = JV_CORR_FAR;
    }
    return JV_OK;
}

/* The index into tr->gpu of the stream and device of GPU event e, added when new. */
static jv_status gpuargs_index(reader *r, const ev_tmp *e, uint32_t *out) {
    jv_trace *tr = r->tr;
    const int32_t dev = e->device != JV_NONE64                             ? (int32_t)e->device
                        : (e->pid != JV_NONE64 && e->pid < JV_STRKEY_BASE) ? (int32_t)e->pid
                                                                           : 0;
    const jv_gpuargs want = {stream_of(tr, e), dev};
    const size_t last = r->pv->last_gpuargs;
    if (last < tr->ngpuargs && tr->gpu[last].stream == want.stream && tr->gpu[last].device == want.device) {
        *out = (uint32_t)last;
        return JV_OK;
    }
    const int64_t key = (int64_t)(((uint64_t)(uint32_t)want.stream << 32) | (uint32_t)want.device); /* exact */
    uint32_t k;
    if (!jv_map_get(&r->pv->gpuargs_of, key, &k)) {
        JV_CHECK(JV_RESERVE(tr->gpu, tr->cap_gpu, tr->ngpuargs + 1));
        k = (uint32_t)tr->ngpuargs; /* <= ngpu < 2^32 */
        JV_CHECK(jv_map_put(&r->pv->gpuargs_of, key, k));
        tr->gpu[tr->ngpuargs++] = want;
    }
    r->pv->last_gpuargs = k;
    *out = k;
    return JV_OK;
}

jv_status jv_trace_commit_event(reader *r, const ev_tmp *e) {
    jv_trace *tr = r->tr;
    jv_trace_counts *n = &tr->counts;
    n->events_total++;
    if (!e->is_object) {
        n->non_object++;
        return JV_OK;
    }
    switch (e->ph) {
    case 'X': break;
    case 'i':
    case 'I': n->instant_events++; return JV_OK;
    case 's':
    case 'f': {
        n->flow_events++;
        /* autograd fwdbwd flows are not kept: forward and backward ops are paired by Sequence number */
        if (!e->launch_flow || e->id == JV_NONE64 || !e->has_ts) return JV_OK;
        uint32_t th;
        JV_CHECK(thread_index(r, e->pid, e->tid, &th));
        jv_flow fl = {e->id, e->ts, th, (uint8_t)e->ph};
        return jv_flows_add(&tr->flows, &fl);
    }
    case 'M': {
        n->meta_events++;
        const char *nm = jv_trace_str(tr, e->name);
        if (!strcmp(nm, "process_name") || !strcmp(nm, "process_labels")) {
            size_t pi = 0;
            JV_CHECK(process_index(r, e->pid, &pi));
            if (nm[8] == 'n')
                tr->procs[pi].name = e->arg_name;
            else
                tr->procs[pi].labels = e->arg_labels;
        } else if (!strcmp(nm, "thread_name")) {
            uint32_t th;
            JV_CHECK(thread_index(r, e->pid, e->tid, &th));
            tr->threads[th].name = e->arg_name;
        }
        return JV_OK;
    }
    default: n->other_phase++; return JV_OK;
    }
    if (!e->has_ts || e->bad_time) {
        n->bad_time++;
        return JV_OK;
    }
    if (tr->nev >= UINT32_MAX - 1) JV_FAIL(r->err, JV_ERR_LIMIT, "%s: more than 4G events", r->path);
    if (n->events_total - 1 > UINT32_MAX)
        JV_FAIL(r->err, JV_ERR_LIMIT, "%s: more than 4G entries in traceEvents: event indices (UIDs) are 32 bits",
                r->path);
    /* Times are int64 nanoseconds. With every |ts|, ts + dur and the sum of all durations under 2^62, no
       end, difference, interval union or sum of durations computed later can overflow. */
    int64_t dur = e->has_dur && e->dur > 0 ? e->dur : 0;
    if (e->ts <= -JV_TIME_LIMIT_NS || e->ts >= JV_TIME_LIMIT_NS || dur >= JV_TIME_LIMIT_NS - e->ts ||
        dur >= JV_TIME_LIMIT_NS - r->pv->dur_sum)
        JV_FAIL(r->err, JV_ERR_LIMIT,
                "%s: event %llu (\"%s\", ts %lld ns, dur %lld ns): time out of range: ts and ts + dur must lie "
                "within +-2^62 ns (+-4.6e15 us) and the durations of all events must sum to less than 2^62 ns",
                r->path, (unsigned long long)(n->events_total - 1), jv_trace_str(tr, e->name), (long long)e->ts,
                (long long)dur);
    r->pv->dur_sum += dur;
    if (e->has_dur && e->dur < 0) n->negative_dur++;
    jv_event ev = {.dur_ = dur < JV_DUR_BIG ? (uint32_t)dur : JV_DUR_BIG};
    uint32_t thread, arg = 0;                           /* jv_evkey.arg */
    JV_CHECK(thread_index(r, e->pid, e->tid, &thread)); /* < 2^24 */
    if (e->kind == JV_K_CPU_OP || e->kind == JV_K_USER_ANNOT) JV_CHECK(sig_index(r, e, &arg));
    if (jv_kind_is_gpu(e->kind)) JV_CHECK(gpuargs_index(r, e, &arg));
    JV_CHECK(event_key(r, &(jv_evkey){e->name, thread, (uint32_t)e->kind, arg}, &ev.key));
    switch (e->kind) {
    case JV_K_CPU_OP:
    case JV_K_USER_ANNOT: {
        JV_CHECK(JV_RESERVE(tr->op_ids, tr->cap_op_ids, tr->nops + 1));
        tr->op_ids[tr->nops] = (jv_opids){jv_id32(e->ext), jv_id32(e->seq)};
        tr->nops++;
        break;
    }
    case JV_K_KERNEL:
    case JV_K_MEMCPY:
    case JV_K_MEMSET: {
        JV_CHECK(JV_RESERVE(tr->gpu_ids, tr->cap_gpu_ids, tr->ngpu + 1));
        uint32_t corr;
        JV_CHECK(note_corr(tr, e->corr, &corr));
        tr->gpu_ids[tr->ngpu] = (jv_gpuids){corr, jv_id32(e->ext)};
        tr->ngpu++;
        break;
    }
    case JV_K_RUNTIME:
    case JV_K_DRIVER: {
        JV_CHECK(JV_RESERVE(tr->launch_corr_, tr->cap_launch, tr->nlaunch + 1));
        JV_CHECK(note_corr(tr, e->corr, &tr->launch_corr_[tr->nlaunch]));
        tr->nlaunch++;
        if (!tr->is_amd) {
            const char *nm = jv_trace_str(tr, e->name);
            if (nm[0] == 'h' && nm[1] == 'i' && nm[2] == 'p') tr->is_amd = 1;
        }
        break;
    }
    default: break;
    }
    if (e->has_comm && (e->coll || e->pg || e->in_nelems != JV_NONE64)) {
        JV_CHECK(JV_RESERVE(tr->comm, tr->cap_comm, tr->ncomm + 1));
        int32_t gs = e->group_size > 0 && e->group_size <= INT32_MAX ? (int32_t)e->group_size : -1;
        tr->comm[tr->ncomm++] = (jv_commargs){(uint32_t)tr->nev, e->coll, e->pg,        e->pg_ranks,
                                              e->coll_dtype,     gs,      e->in_nelems, e->out_nelems};
    }
    JV_CHECK(JV_RESERVE(tr->ev, tr->cap_ev, tr->nev + 1));
    JV_CHECK(note_ts(tr, e->ts, &ev));
    JV_CHECK(keep_uid(tr, n->events_total - 1));
    JV_CHECK(note_aux(tr, jv_kind_aux_class(e->kind)));
    if (dur >= JV_DUR_BIG) {
        JV_CHECK(JV_RESERVE(tr->long_dur, tr->cap_long_dur, tr->nlong_dur + 1));
        tr->long_dur[tr->nlong_dur++] = (jv_evside){(uint32_t)tr->nev, dur};
    }
    tr->ev[tr->nev++] = ev;
    n->x_events++;
    return JV_OK;
}
