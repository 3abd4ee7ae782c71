/* test_ingest_compact: the compact forms of ingest. jv_flow: endpoints written with jv_flows_add read back
 * equal by jv_flow_next, in order, for extreme values (INT64_MIN/MAX ids and ts, differences that wrap, the
 * largest thread) and random ones. jv_upset: on random forests, the members are exactly the start events and
 * their ancestors (against a plain walk), and jv_upset_ix numbers them 0 .. n-1 in event order. jv_event (16
 * bytes): on a generated trace of complete events among metadata, flow, instant, counter, timeless and
 * non-object entries, jv_trace_uid gives each event's index in traceEvents and jv_trace_find_uid maps every
 * index back (JV_NONE32 for the entries that are no event), jv_trace_aux gives each op, GPU event and launch
 * the index of its record (JV_NONE32 for the others), jv_ev_ts every start (negative ones too; blocks of 64 with
 * starts at and around the escape's edges, 2^31 ns before and 2^31 - 1 ns after the block's first start, and
 * far apart, so that exactly the starts beyond those edges are in the side table long_ts), and
 * jv_ev_dur every duration, those at and around the 32-bit escape (2^32 - 2, - 1, 2^32 ns) and beyond (2^40, 2^61 ns)
 * among them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_flow.h"
#include "jv_trace.h"
#include "jv_tree.h"

#include <unistd.h>

#include "jv_check.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t as_i64(uint64_t u) {
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void test_flows(void) {
    enum { N = 5000 };
    jv_flow *want = malloc(N * sizeof *want);
    CHECK(want != NULL);
    if (!want) return;
    static const int64_t edge[] = {INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MIN + 1, INT64_MAX - 1};
    size_t ne = sizeof edge / sizeof edge[0];
    jv_flows f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < N; i++) {
        jv_flow e;
        if (i < ne * ne) { /* every pair of edge values, as id and ts, after every other */
            e.id = edge[i % ne];
            e.ts = edge[i / ne];
        } else if (i % 3) { /* a Kineto-like run: ids and times that grow a little */
            e.id = as_i64((uint64_t)want[i - 1].id + rnd64() % 4); /* wrapping, as the encoder's differences */
            e.ts = as_i64((uint64_t)want[i - 1].ts + rnd64() % 100000);
        } else {
            e.id = as_i64(rnd64());
            e.ts = as_i64(rnd64());
        }
        e.thread = i % 7 == 0 ? (1u << 24) - 1 : (uint32_t)(rnd64() % 1000);
        e.phase = rnd64() % 2 ? 's' : 'f';
        want[i] = e;
        CHECK(jv_flows_add(&f, &e) == JV_OK);
    }
    CHECK(f.n == N);
    jv_flow_iter it;
    jv_flow got;
    jv_flow_iter_init(&it, &f);
    size_t k = 0, bad = 0;
    while (jv_flow_next(&it, &got)) {
        if (k >= N || got.id != want[k].id || got.ts != want[k].ts || got.thread != want[k].thread ||
            got.phase != want[k].phase)
            bad++;
        k++;
    }
    CHECK_MSG(k == N && bad == 0, "flows: %zu read back, %zu differ", k, bad);
    CHECK(f.len < (size_t)N * 30); /* at most 30 bytes each */
    jv_flows_free(&f);
    CHECK(f.bytes == NULL && f.n == 0);
    jv_flow_iter_init(&it, &f); /* an empty set reads nothing */
    CHECK(!jv_flow_next(&it, &got));
    free(want);
}

static void test_upset(void) {
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + rnd64() % 3000;
        uint32_t *parent = malloc(n * sizeof *parent);
        uint8_t *in = calloc(n, 1);
        CHECK(parent && in);
        if (!parent || !in) return;
        for (size_t i = 0; i < n; i++) /* a forest: parents come before children */
            parent[i] = i == 0 || rnd64() % 5 == 0 ? JV_NONE32 : (uint32_t)(rnd64() % i);
        jv_trace tr;
        memset(&tr, 0, sizeof tr);
        tr.nev = n;
        jv_tree t;
        memset(&t, 0, sizeof t);
        t.parent = parent;
        jv_upset u;
        CHECK(jv_upset_init(&u, &tr) == JV_OK);
        size_t starts = rnd64() % (n / 4 + 2);
        for (size_t s = 0; s < starts; s++) {
            uint32_t x = rnd64() % 10 == 0 ? JV_NONE32 : (uint32_t)(rnd64() % n);
            jv_upset_add(&u, &t, x);
            for (; x != JV_NONE32; x = parent[x])
                in[x] = 1;
        }
        jv_upset_seal(&u);
        size_t members = 0, bad = 0;
        for (size_t i = 0; i < n; i++) {
            if (jv_upset_has(&u, (uint32_t)i) != in[i]) bad++;
            if (in[i] && jv_upset_ix(&u, (uint32_t)i) != members++) bad++;
        }
        CHECK_MSG(bad == 0 && u.n == members, "upset round %d: %zu wrong, n %zu of %zu", round, bad, u.n, members);
        jv_upset_free(&u);
        free(parent);
        free(in);
    }
}

static void test_events(void) {
    enum { N = 20000 };
    char path[] = "/tmp/jv_evcompact.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    uint32_t *want_uid = malloc(N * sizeof *want_uid);
    int64_t *want_dur = malloc(N * sizeof *want_dur), *want_ts = malloc(N * sizeof *want_ts);
    uint8_t *is_ev = calloc(N, 1);
    uint32_t *want_aux = malloc(N * sizeof *want_aux), nclass[3] = {0, 0, 0};
    CHECK(f && want_uid && want_dur && want_ts && is_ev && want_aux);
    if (!f || !want_uid || !want_dur || !want_ts || !is_ev || !want_aux) return;
    static const int64_t edge[] = {(INT64_C(1) << 32) - 2, (INT64_C(1) << 32) - 1, INT64_C(1) << 32,
                                   (INT64_C(1) << 32) + 1, INT64_C(1) << 40,       INT64_C(1) << 61};
    size_t ne = sizeof edge / sizeof edge[0], nev = 0;
    int64_t block_t0 = 0;
    fputs("{\"traceEvents\": [\n", f);
    for (uint32_t u = 0; u < N; u++) {
        /* runs of non-events up to 300 long (several 64-bit words of marks), events in runs up to 200 */
        int ev = u < 5 ? 0 : (u / 1000) % 3 == 1 ? (rnd64() % 300 == 0) : (u / 1000) % 3 == 2 ? 1 : rnd64() % 2;
        if (u > 0) fputs(",\n", f);
        if (ev) {
            int64_t dur = nev < ne        ? edge[nev]
                          : nev % 97 == 0 ? edge[rnd64() % (ne - 1)]
                                          : (int64_t)(rnd64() % 5000000);
            /* the four classes of jv_kind_aux_class: ops, GPU events, launches, none */
            static const char *const cat[] = {"cpu_op", "kernel", "cuda_runtime", "python_function"};
            static const int cls[] = {0, 1, 2, -1};
            size_t c = rnd64() % 4;
            /* starts that fill both 32-bit halves, negative ones too (|ts| < 2^62 ns, ts + dur too) */
            int64_t ts;
            if (nev / 64 % 3 == 1) {
                /* a block of 64 whose starts lie at and around the 32-bit escape's edges about its first start
                   (2^31 ns before and 2^31 - 2 ns after it are kept in the record, one ns further is not): first
                   starts negative, positive and near 0 (so that the block's base is negative) */
                static const int64_t tsedge[] = {0,
                                                 -(INT64_C(1) << 31),
                                                 -(INT64_C(1) << 31) - 1,
                                                 (INT64_C(1) << 31) - 2,
                                                 (INT64_C(1) << 31) - 1,
                                                 INT64_C(1) << 31,
                                                 -1,
                                                 1,
                                                 INT64_C(1) << 32,
                                                 -(INT64_C(1) << 32),
                                                 (INT64_C(1) << 31) - 3,
                                                 -(INT64_C(1) << 31) + 1};
                if (nev % 64 == 0)
                    block_t0 = nev / 64 % 9 == 4   ? 1000 + (int64_t)(rnd64() % 1000)
                               : nev / 64 % 2 == 1 ? -(int64_t)(rnd64() % (UINT64_C(1) << 60))
                                                   : (int64_t)(rnd64() % (UINT64_C(1) << 60));
                ts = block_t0 + tsedge[nev % 64 % (sizeof tsedge / sizeof tsedge[0])];
            } else {
                ts = u % 3 == 0 ? (int64_t)u * 1001 : (int64_t)(rnd64() % (UINT64_C(1) << 61));
                if (u % 3 == 2) ts = -ts;
            }
            uint64_t ats = ts < 0 ? (uint64_t)0 - (uint64_t)ts : (uint64_t)ts;
            fprintf(f,
                    "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op%u\", \"pid\": 1, \"tid\": %u, "
                    "\"ts\": %s%llu.%03llu, \"dur\": %lld.%03lld}",
                    cat[c], u % 50, u % 3, ts < 0 ? "-" : "", (unsigned long long)(ats / 1000),
                    (unsigned long long)(ats % 1000), (long long)(dur / 1000), (long long)(dur % 1000));
            want_ts[nev] = ts;
            want_aux[nev] = cls[c] < 0 ? JV_NONE32 : nclass[cls[c]]++;
            want_uid[nev] = u;
            want_dur[nev++] = dur;
            is_ev[u] = 1;
        } else {
            switch (rnd64() % 6) {
            case 0: fprintf(f, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": %u}", u % 3); break;
            case 1: fprintf(f, "{\"ph\": \"s\", \"id\": %u, \"pid\": 1, \"tid\": 0, \"ts\": %u}", u, u); break;
            case 2: fprintf(f, "{\"ph\": \"i\", \"name\": \"mark\", \"pid\": 1, \"tid\": 0, \"ts\": %u}", u); break;
            case 3: fprintf(f, "{\"ph\": \"C\", \"name\": \"c\", \"pid\": 1, \"ts\": %u}", u); break;
            case 4: fputs("{\"ph\": \"X\", \"name\": \"timeless\", \"pid\": 1, \"tid\": 0, \"dur\": 1}", f); break;
            default: fputs("7", f); break;
            }
        }
    }
    fputs("\n]}\n", f);
    CHECK(fclose(f) == 0);
    jv_trace tr;
    jv_err err;
    jv_err_clear(&err);
    jv_load_opts lo = {0, 0, 1};
    int loaded = jv_trace_load(path, &lo, &tr, &err) == JV_OK;
    CHECK_MSG(loaded, "events: %s", err.msg);
    unlink(path);
    if (loaded) {
        CHECK_MSG(tr.nev == nev && tr.counts.events_total == N, "events: %zu of %zu kept, %llu entries", tr.nev, nev,
                  (unsigned long long)tr.counts.events_total);
        size_t bad_uid = 0, bad_dur = 0, bad_find = 0, bad_aux = 0;
        for (size_t i = 0; i < tr.nev && i < nev; i++) {
            if (jv_trace_uid(&tr, (uint32_t)i) != want_uid[i]) bad_uid++;
            if (jv_trace_aux(&tr, (uint32_t)i) != want_aux[i] || jv_ev_aux(&tr, &tr.ev[i]) != want_aux[i]) bad_aux++;
            if (jv_ev_dur(&tr, &tr.ev[i]) != want_dur[i] || jv_ev_ts(&tr, &tr.ev[i]) != want_ts[i] ||
                jv_ev_end(&tr, &tr.ev[i]) != want_ts[i] + want_dur[i])
                bad_dur++;
        }
        for (uint32_t u = 0, i = 0; u < N + 100; u++) {
            uint32_t got = jv_trace_find_uid(&tr, u);
            if (u < N && is_ev[u] ? got != i++ : got != JV_NONE32) bad_find++;
        }
        CHECK_MSG(bad_uid == 0 && bad_dur == 0 && bad_find == 0 && bad_aux == 0,
                  "events: %zu uids, %zu times, %zu finds, %zu record indices wrong", bad_uid, bad_dur, bad_find,
                  bad_aux);
        CHECK_MSG(tr.nops == nclass[0] && tr.ngpu == nclass[1] && tr.nlaunch == nclass[2],
                  "events: %zu ops, %zu GPU events, %zu launches", tr.nops, tr.ngpu, tr.nlaunch);
        /* the escape: exactly the durations of 2^32 - 1 ns and more are in the side table */
        size_t nlong = 0;
        for (size_t i = 0; i < nev; i++)
            nlong += want_dur[i] >= (INT64_C(1) << 32) - 1;
        CHECK_MSG(tr.nlong_dur == nlong && tr.ev[0].dur_ == UINT32_MAX - 1 && tr.ev[1].dur_ == JV_DUR_BIG,
                  "events: %zu long durations, want %zu", tr.nlong_dur, nlong);
        /* the start's escape: exactly the starts 2^31 ns or more before, or 2^31 - 1 ns or more after, the first
           start of their block of 64 are in the side table; the edge blocks hold 4 such starts in every 12 */
        size_t nfar = 0, bad_far = 0, edge_far = 0, edge_near = 0;
        for (size_t i = 0; i < nev && i < tr.nev; i++) {
            int64_t d = want_ts[i] - want_ts[i - i % 64]; /* |d| < 2^62 */
            int far = d < -(INT64_C(1) << 31) || d > (INT64_C(1) << 31) - 2;
            nfar += (size_t)far;
            if (far != (tr.ev[i].ts_ == JV_TS_FAR)) bad_far++;
            if (i / 64 % 3 == 1) {
                edge_far += (size_t)far;
                edge_near += (size_t)!far;
            }
        }
        CHECK_MSG(tr.nlong_ts == nfar && bad_far == 0 && edge_far > 0 && edge_near > edge_far,
                  "events: %zu far starts kept, want %zu; %zu escapes wrong (edge blocks: %zu far, %zu near)",
                  tr.nlong_ts, nfar, bad_far, edge_far, edge_near);
        jv_trace_free(&tr);
    }
    free(want_uid);
    free(want_dur);
    free(is_ev);
    free(want_aux);
    free(want_ts);
}

int main(void) {
    test_events();
    test_flows();
    test_upset();
    printf("test_ingest_compact: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
