/* jv_trace_access: reading a loaded trace (the side tables of long durations and far starts, the traceEvents
 * index of an event and back, process and thread names) and freeing it. The reader that builds it is
 * jv_trace.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_trace.h"
#include "jv_trace_reader.h"

/* the value of event i in the side table a[0..n) (ascending by ev), 0 where it has none */
static int64_t side_find(const jv_evside *a, size_t n, uint32_t i) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].ev < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].ev == i ? a[lo].v : 0;
}

int64_t jv_trace_long_dur(const jv_trace *tr, uint32_t i) {
    return side_find(tr->long_dur, tr->nlong_dur, i);
}

int64_t jv_trace_long_ts(const jv_trace *tr, uint32_t i) {
    return side_find(tr->long_ts, tr->nlong_ts, i);
}

int64_t jv_trace_long_corr(const jv_trace *tr, uint32_t i) {
    return side_find(tr->long_corr, tr->nlong_corr, i);
}

uint32_t jv_trace_uid(const jv_trace *tr, uint32_t i) {
    /* ev[i] is set bit number i % 64 (from 0) at or after the bit of ev[i - i % 64] */
    uint32_t u = tr->kept_at[i >> 6], r = i & 63;
    size_t w = u >> 6;
    uint64_t word = tr->kept[w] & (~UINT64_C(0) << (u & 63));
    for (;;) {
        uint32_t c = jv_popcount64(word);
        if (r < c) break;
        r -= c;
        word = tr->kept[++w];
    }
    while (r--)
        word &= word - 1;
    return (uint32_t)(w * 64 + (size_t)__builtin_ctzll(word));
}

uint32_t jv_trace_find_uid(const jv_trace *tr, uint32_t uid) {
    size_t w = uid >> 6;
    if (w >= tr->nkept_words || !(tr->kept[w] >> (uid & 63) & 1)) return JV_NONE32;
    /* the last sample at or before uid, then the set bits from it up to uid */
    size_t lo = 0, hi = (tr->nev + 63) / 64;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->kept_at[mid] <= uid)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t u = tr->kept_at[lo];
    size_t n = 0;
    for (size_t x = u >> 6; x < w; x++)
        n += (size_t)jv_popcount64(tr->kept[x] & (x == u >> 6 ? ~UINT64_C(0) << (u & 63) : ~UINT64_C(0)));
    uint64_t last = tr->kept[w] & ((UINT64_C(1) << (uid & 63)) - 1);
    if (w == u >> 6) last &= ~UINT64_C(0) << (u & 63);
    n += (size_t)jv_popcount64(last);
    return (uint32_t)(lo * 64 + n);
}

jv_status jv_trace_file_sha256(const jv_trace *tr, char hex[65], uint64_t *bytes, jv_err *err) {
    if (tr->file_hash_) return jv_filehash_result(tr->file_hash_, tr->file_sha256_bytes_, hex, bytes, err);
    memcpy(hex, tr->file_sha256_, sizeof tr->file_sha256_);
    *bytes = tr->file_sha256_bytes_;
    return JV_OK;
}

void jv_trace_free(jv_trace *tr) {
    jv_filehash_free(tr->file_hash_);
    trace_priv *pv = tr->priv_;
    if (pv) {
        jv_map_free(&pv->sig_of_text);
        jv_map_free(&pv->proc_of_pid);
        jv_map_free(&pv->thread_of_key);
        jv_intern_free(&pv->key_ids);
        jv_map_free(&pv->gpuargs_of);
        free(pv);
    }
    jv_intern_free(&tr->strings);
    free(tr->ev);
    free(tr->keys);
    free(tr->long_dur);
    free(tr->ts_base);
    free(tr->long_ts);
    free(tr->kept);
    free(tr->kept_at);
    free(tr->auxb);
    free(tr->op_ids);
    free(tr->gpu);
    free(tr->gpu_ids);
    free(tr->launch_corr_);
    free(tr->long_corr);
    jv_flows_free(&tr->flows);
    free(tr->comm);
    free(tr->sigs);
    free(tr->threads);
    free(tr->procs);
    free(tr->devices);
    free(tr->distributed_info);
    free(tr->runtime_version);
    memset(tr, 0, sizeof *tr);
}

void jv_trace_drop_flows(jv_trace *tr) {
    jv_flows_free(&tr->flows);
    free(tr->launch_corr_);
    tr->launch_corr_ = NULL;
    tr->nlaunch = tr->cap_launch = 0;
    free(tr->long_corr);
    tr->long_corr = NULL;
    tr->nlong_corr = tr->cap_long_corr = 0;
    free(tr->op_ids);
    tr->op_ids = NULL;
    tr->cap_op_ids = 0;
    free(tr->gpu_ids);
    tr->gpu_ids = NULL;
    tr->cap_gpu_ids = 0;
}

const char *jv_trace_key_str(const jv_trace *tr, int64_t key, char *buf, size_t cap) {
    if (key == JV_NONE64)
        snprintf(buf, cap, "%s", "");
    else if (key >= JV_STRKEY_BASE)
        snprintf(buf, cap, "%s", jv_trace_str(tr, (uint32_t)(key - JV_STRKEY_BASE)));
    else
        snprintf(buf, cap, "%lld", (long long)key);
    return buf;
}

const char *jv_trace_process_name(const jv_trace *tr, int64_t pid) {
    for (size_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].pid == pid) return jv_trace_str(tr, tr->procs[i].name);
    return "";
}

const char *jv_trace_process_labels(const jv_trace *tr, int64_t pid) {
    for (size_t i = 0; i < tr->nprocs; i++)
        if (tr->procs[i].pid == pid) return jv_trace_str(tr, tr->procs[i].labels);
    return "";
}
