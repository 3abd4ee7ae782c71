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
 * among them. jv_flow's ts differences in whole microseconds at the int64 edges, and a Kineto run's size (3 bytes an
 * endpoint). Correlation ids kept in 32 bits with an escape to a side table: test_corr. The host tree sorted and
 * nested a batch of threads at a time: test_tree_batches. */
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
    /* with the whole-microsecond ones (differences in us) at the edges: INT64_MAX - 807 and INT64_MIN + 808 are
       the multiples of 1000 nearest the ends */
    static const int64_t edge[] = {
        INT64_MIN, INT64_MAX,       0, -1, 1, INT64_MIN + 1, INT64_MAX - 1, INT64_MAX - 807, INT64_MIN + 808, -1000,
        1000,      INT64_MIN + 1808};
    size_t ne = sizeof edge / sizeof edge[0];
    jv_flows f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < N; i++) {
        jv_flow e;
        if (i < ne * ne) { /* every pair of edge values, as id and ts, after every other */
            e.id = edge[i % ne];
            e.ts = edge[i / ne];
        } else if (i % 3) { /* a Kineto-like run: ids and times that grow a little (whole us, or not, or back) */
            e.id = as_i64((uint64_t)want[i - 1].id + rnd64() % 4); /* wrapping, as the encoder's differences */
            uint64_t d = i % 3 == 1 ? rnd64() % 100000 : (rnd64() % 100) * 1000;
            e.ts = as_i64((uint64_t)want[i - 1].ts + (i % 5 ? d : 0 - d));
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
    /* a Kineto run (a launch's 's' then its kernel's 'f', ids + 1, whole us apart, under 64 us) takes 3 bytes an
       endpoint: the ts difference in us fits one byte */
    for (size_t i = 0; i < 1000; i++) {
        jv_flow e = {(int64_t)(i / 2) + 5000, INT64_C(1689179601896088000) + (int64_t)(i / 2) * 37000 + (i % 2) * 21000,
                     i % 2 ? 9u : 3u, i % 2 ? 'f' : 's'};
        CHECK(jv_flows_add(&f, &e) == JV_OK);
    }
    CHECK_MSG(f.len <= 3 * 1000 + 2 * 30, "flows: a Kineto run of 1000 endpoints takes %zu bytes", f.len);
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

/* Closes f, loads the trace written to path (one thread) into *tr and removes the file; 1 when it loaded, else
 * 0 with a failed check naming what. */
static int load_written(FILE *f, const char *path, jv_trace *tr, const char *what) {
    CHECK(fclose(f) == 0);
    jv_err err;
    jv_err_clear(&err);
    jv_load_opts lo = {.threads = 1};
    int loaded = jv_trace_load(path, &lo, tr, &err) == JV_OK;
    CHECK_MSG(loaded, "%s: %s", what, err.msg);
    unlink(path);
    return loaded;
}

/* Opens the new temporary trace file named by template path (its XXXXXX replaced) for writing; NULL, a failed
 * check, when it cannot. */
static FILE *new_trace_file(char *path) {
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (!f && fd >= 0) close(fd);
    return f;
}

static void test_events(void) {
    enum { N = 20000 };
    char path[] = "/tmp/jv_evcompact.XXXXXX";
    FILE *f = new_trace_file(path);
    if (!f) return;
    uint32_t *want_uid = malloc(N * sizeof *want_uid);
    int64_t *want_dur = malloc(N * sizeof *want_dur), *want_ts = malloc(N * sizeof *want_ts);
    uint8_t *is_ev = calloc(N, 1);
    uint32_t *want_aux = malloc(N * sizeof *want_aux), nclass[3] = {0, 0, 0};
    /* name * 12 + tid * 4 + category, and the shape arguments of some cpu ops (Input Dims [[1]] .. [[7]]) or the
       stream and device of a kernel (7 pairs): 600 triples, 4800 keys at most */
    uint16_t *want_key = malloc(N * sizeof *want_key);
    uint8_t *want_dims = calloc(N, 1);
    uint8_t seen_key[600 * 8] = {0};
    size_t nkeys = 0;
    CHECK(f && want_uid && want_dur && want_ts && is_ev && want_aux && want_key && want_dims);
    if (!f || !want_uid || !want_dur || !want_ts || !is_ev || !want_aux || !want_key || !want_dims) return;
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
            /* an op's Input Dims [[1]] .. [[7]], or a kernel's stream 21 .. 27 on device 0 .. 2 */
            want_dims[nev] = c == 0 && u % 5 == 0 ? (uint8_t)(1 + u / 5 % 7) : c == 1 ? (uint8_t)(1 + u / 3 % 7) : 0;
            char args[64] = "";
            if (c == 0 && want_dims[nev])
                snprintf(args, sizeof args, ", \"args\": {\"Input Dims\": [[%u]]}", want_dims[nev]);
            if (c == 1)
                snprintf(args, sizeof args, ", \"args\": {\"stream\": %u, \"device\": %u}", 20u + want_dims[nev],
                         want_dims[nev] % 3u);
            fprintf(f,
                    "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op%u\", \"pid\": 1, \"tid\": %u, "
                    "\"ts\": %s%llu.%03llu, \"dur\": %lld.%03lld%s}",
                    cat[c], u % 50, u % 3, ts < 0 ? "-" : "", (unsigned long long)(ats / 1000),
                    (unsigned long long)(ats % 1000), (long long)(dur / 1000), (long long)(dur % 1000), args);
            want_ts[nev] = ts;
            want_key[nev] = (uint16_t)(u % 50 * 12 + u % 3 * 4 + c);
            nkeys += !seen_key[want_key[nev] * 8 + want_dims[nev]]++;
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
    jv_trace tr;
    int loaded = load_written(f, path, &tr, "events");
    if (loaded) {
        CHECK_MSG(tr.nev == nev && tr.counts.events_total == N, "events: %zu of %zu kept, %llu entries", tr.nev, nev,
                  (unsigned long long)tr.counts.events_total);
        size_t bad_uid = 0, bad_dur = 0, bad_find = 0, bad_aux = 0, bad_key = 0;
        for (size_t i = 0; i < tr.nev && i < nev; i++) {
            /* name, thread, kind, shape arguments, stream and device through the table of distinct keys (past its
               cache's 64) */
            static const jv_kind kind_of[] = {JV_K_CPU_OP, JV_K_KERNEL, JV_K_RUNTIME, JV_K_PYTHON};
            char nm[16];
            snprintf(nm, sizeof nm, "op%u", want_key[i] / 12u);
            const jv_event *e = &tr.ev[i];
            const int op = want_key[i] % 4 == 0, kernel = want_key[i] % 4 == 1;
            char dims[16] = "";
            if (op && want_dims[i]) snprintf(dims, sizeof dims, "[[%u]]", want_dims[i]);
            const uint32_t sig = jv_ev_sig(&tr, e);
            if (kernel &&
                (jv_ev_gpu(&tr, e)->stream != 20 + want_dims[i] || jv_ev_gpu(&tr, e)->device != want_dims[i] % 3))
                bad_key++;
            if (strcmp(jv_trace_str(&tr, jv_ev_name(&tr, e)), nm) || jv_ev_kind(&tr, e) != kind_of[want_key[i] % 4] ||
                sig >= tr.nsigs || (sig ? strcmp(jv_trace_str(&tr, tr.sigs[sig].dims), dims) : op && want_dims[i]) ||
                jv_ev_thread(&tr, e) >= tr.nthreads || tr.threads[jv_ev_thread(&tr, e)].tid != want_key[i] % 12 / 4)
                bad_key++;
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
        CHECK_MSG(bad_key == 0 && tr.nkeys == nkeys && nkeys > 600 && tr.ngpuargs == 7,
                  "events: %zu names, threads, kinds, shapes, streams or devices wrong; %zu keys, want %zu; %zu "
                  "(stream, device) pairs, want 7",
                  bad_key, tr.nkeys, nkeys, tr.ngpuargs);
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
    free(want_key);
    free(want_dims);
}

/* Correlation ids kept in 32 bits with an escape: launches and kernels whose ids lie at and around the edges (0,
 * 2^32 - 3 .. 2^32 + 1, negative, INT64_MAX, quoted) or are absent read back equal through jv_trace_corr, exactly
 * the ids outside [0, 2^32 - 2) are in the side table, and the call tree links each kernel to the launch of its id
 * (the ids 2^32 - 2 and 2^32 - 1, the escape's and the absent mark's, to theirs, not to each other's). */
static void test_corr(void) {
    static const int64_t edge[] = {0,
                                   1,
                                   (INT64_C(1) << 32) - 3,
                                   (INT64_C(1) << 32) - 2,
                                   (INT64_C(1) << 32) - 1,
                                   INT64_C(1) << 32,
                                   (INT64_C(1) << 32) + 1,
                                   -1,
                                   -(INT64_C(1) << 32) + 2,
                                   INT64_MAX,
                                   INT64_MIN + 1,
                                   INT64_C(1) << 31,
                                   JV_NONE64 /* absent */};
    enum { NE = sizeof edge / sizeof edge[0], REP = 40, N = NE * REP };
    char path[] = "/tmp/jv_corr.XXXXXX";
    FILE *f = new_trace_file(path);
    if (!f) return;
    /* launch k, then (after a few) its kernel: launches and kernels alternate out of step; each id once a round,
       rounds apart in time; ids far out differ per round (toward 0 by the round), the edges' own repeat (first launch)
     */
    int64_t want[2 * N];
    size_t nfar = 0;
    fputs("{\"traceEvents\": [\n", f);
    for (size_t k = 0; k < N; k++) {
        int64_t id = edge[k % NE];
        if (id != JV_NONE64 && (id > (INT64_C(1) << 33) || id < -2))
            id += id < 0 ? (int64_t)(k / NE) : -(int64_t)(k / NE);
        if (id != JV_NONE64 && (id < 0 || id >= (INT64_C(1) << 32) - 2)) nfar += 2;
        char num[64];
        if (id == JV_NONE64)
            snprintf(num, sizeof num, "%s", "null");
        else
            snprintf(num, sizeof num, k % 3 == 2 ? "\"%lld\"" : "%lld", (long long)id);
        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 5, \"tid\": "
                "5, \"ts\": %zu, \"dur\": 4, \"args\": {\"correlation\": %s}},\n",
                10 * k, num);
        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %zu, "
                "\"dur\": 3, \"args\": {\"correlation\": %s, \"stream\": 7}}%s\n",
                10 * k + 6, num, k + 1 < N ? "," : "");
        want[2 * k] = want[2 * k + 1] = id;
    }
    fputs("]}\n", f);
    jv_trace tr;
    int loaded = load_written(f, path, &tr, "corr");
    if (!loaded) return;
    CHECK_MSG(tr.nev == 2 * N, "corr: %zu events", tr.nev);
    size_t bad = 0, bad_link = 0, linked = 0;
    for (size_t i = 0; i < tr.nev && i < 2 * N; i++)
        if (jv_trace_corr(&tr, (uint32_t)i) != want[i]) bad++;
    CHECK_MSG(bad == 0 && tr.nlong_corr == nfar, "corr: %zu ids read back wrong, %zu in the side table, want %zu", bad,
              tr.nlong_corr, nfar);
    jv_tree t;
    jv_err err;
    jv_err_clear(&err);
    if (jv_tree_build(&tr, 0, 1, &t, &err) == JV_OK) {
        for (size_t k = 0; k < N && 2 * k + 1 < tr.nev; k++) {
            /* the first launch of the id: this round's, or the first round's for the edges that repeat */
            int64_t id = want[2 * k];
            size_t first = k;
            for (size_t j = 0; j < k; j++)
                if (want[2 * j] == id) {
                    first = j;
                    break;
                }
            uint32_t p = t.parent[2 * k + 1], wantp = id == JV_NONE64 ? JV_NONE32 : (uint32_t)(2 * first);
            if (p != wantp) bad_link++;
            linked += p != JV_NONE32;
        }
        CHECK_MSG(bad_link == 0 && linked == N - REP, "corr: %zu kernels linked wrong, %zu linked", bad_link, linked);
        jv_tree_free(&t);
    } else {
        CHECK_MSG(0, "corr: tree: %s", err.msg);
    }
    jv_trace_drop_flows(&tr);
    CHECK(tr.long_corr == NULL && tr.nlong_corr == 0 && tr.launch_corr_ == NULL && tr.gpu_ids == NULL);
    jv_trace_free(&tr);
}

/* A forest of host events on thread th under parent (generated index, or -1), inside [t0, t1] (us): children
 * within their parent (one may start with it), siblings one after another; after some events one that overlaps
 * their end (parent -2: dropped, a root). */
typedef struct {
    int64_t ts, dur;
    int thread, parent;
} gen_ev;

static void gen_forest(gen_ev *g, size_t *n, size_t cap, int th, int parent, int64_t t0, int64_t t1, int depth) {
    int64_t c = t0;
    while (*n < cap && depth < 6 && c + 2 <= t1 && rnd64() % 8) {
        int64_t len = 1 + (int64_t)(rnd64() % (uint64_t)(t1 - c));
        if (c + len > t1) len = t1 - c;
        size_t me = (*n)++;
        g[me] = (gen_ev){c, len, th, parent};
        gen_forest(g, n, cap, th, (int)me, c, c + len - 1, depth + 1);
        if (*n < cap && len >= 3 && rnd64() % 5 == 0) /* 1 us before its end, 1 us past it: broken nesting, a root */
            g[(*n)++] = (gen_ev){c + len - 1, 2, th, -2};
        c += len + (int64_t)(rnd64() % 3);
    }
}

/* The host tree built a batch of threads at a time (jv_tree.c, build_host): on threads of very different sizes
 * (some with no host events, one far larger than the others), written in shuffled order, every host event gets
 * the parent it was generated under. */
static void test_tree_batches(void) {
    enum { T = 23, CAP = 6000 };
    gen_ev *g = malloc(CAP * sizeof *g);
    size_t *perm = malloc(CAP * sizeof *perm), *pos = malloc(CAP * sizeof *pos);
    CHECK(g && perm && pos);
    if (!g || !perm || !pos) return;
    size_t n = 0;
    for (int th = 0; th < T; th++) {
        if (th % 5 == 3) continue;                                 /* no host events on this thread */
        size_t cap = th == 7 ? n + 2000 : n + 40 + (size_t)th * 9; /* thread 7: the most events */
        if (cap > CAP) cap = CAP;
        for (int64_t t = 1000; n < cap && t < 900000; t += 50000)
            gen_forest(g, &n, cap, th, -1, t, t + 40000, 0);
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) { /* file order: shuffled */
        size_t j = rnd64() % i, x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
    char path[] = "/tmp/jv_treeb.XXXXXX";
    FILE *f = new_trace_file(path);
    if (!f) return;
    fputs("{\"traceEvents\": [\n", f);
    for (size_t k = 0; k < n; k++) {
        const gen_ev *e = &g[perm[k]];
        pos[perm[k]] = k;
        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"e\", \"pid\": 1, \"tid\": %d, \"ts\": %lld, \"dur\": "
                "%lld}%s\n",
                k % 3 ? "cpu_op" : "cuda_runtime", 100 + e->thread, (long long)e->ts, (long long)e->dur,
                k + 1 < n ? "," : "");
    }
    fputs("]}\n", f);
    jv_trace tr;
    int loaded = load_written(f, path, &tr, "tree batches");
    if (loaded) {
        jv_tree t;
        jv_err err;
        jv_err_clear(&err);
        CHECK_MSG(tr.nev == n && jv_tree_build(&tr, 0, 1, &t, &err) == JV_OK, "tree batches: %zu events, %s", tr.nev,
                  err.msg);
        if (tr.nev == n) {
            size_t bad = 0, nested = 0, dropped = 0;
            for (size_t i = 0; i < n; i++) {
                uint32_t want = g[i].parent < 0 ? JV_NONE32 : (uint32_t)pos[g[i].parent];
                bad += t.parent[pos[i]] != want;
                nested += g[i].parent >= 0;
                dropped += g[i].parent == -2;
            }
            CHECK_MSG(bad == 0 && nested > n / 2 && dropped > 50 && t.counts.dropped_overlap == dropped,
                      "tree batches: %zu of %zu parents wrong (%zu nested), %llu dropped, want %zu", bad, n, nested,
                      (unsigned long long)t.counts.dropped_overlap, dropped);
            jv_tree_free(&t);
        }
        jv_trace_free(&tr);
    }
    free(g);
    free(perm);
    free(pos);
}

/* jv_tree_op_of_gpu: a kernel's op is its parent when that is a cpu op (a 2021 external-id link), else the nearest
 * cpu op above its launch through user annotations and python functions only; none above another kind of event, and
 * none for an unlinked kernel. */
static void test_op_of_gpu(void) {
    char path[] = "/tmp/jv_opofgpu.XXXXXX";
    FILE *f = new_trace_file(path);
    if (!f) return;
    static const char *const host[] = {
        /* an op, an annotation in it, the launch of kernel 1 in that */
        "\"cat\": \"cpu_op\", \"name\": \"op_a\", \"ts\": 0, \"dur\": 100",
        "\"cat\": \"user_annotation\", \"name\": \"ann\", \"ts\": 10, \"dur\": 50",
        "\"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 20, \"dur\": 5, \"args\": "
        "{\"correlation\": 1}",
        /* a python function, an op in it, a python function in that, the launch of kernel 2 */
        "\"cat\": \"python_function\", \"name\": \"py\", \"ts\": 300, \"dur\": 100",
        "\"cat\": \"cpu_op\", \"name\": \"op_d\", \"ts\": 310, \"dur\": 80",
        "\"cat\": \"python_function\", \"name\": \"inner\", \"ts\": 320, \"dur\": 40",
        "\"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 330, \"dur\": 5, \"args\": "
        "{\"correlation\": 2}",
        /* an op, a runtime call in it, the driver launch of kernel 3 in that: no op (the climb stops at the call) */
        "\"cat\": \"cpu_op\", \"name\": \"op_x\", \"ts\": 490, \"dur\": 100",
        "\"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"ts\": 500, \"dur\": 50",
        "\"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"ts\": 510, \"dur\": 5, \"args\": {\"correlation\": "
        "3}",
        /* an op that kernel 4 names by external id alone */
        "\"cat\": \"cpu_op\", \"name\": \"op_g\", \"ts\": 700, \"dur\": 50, \"args\": {\"External id\": 7}",
    };
    static const char *const gpu[] = {"\"correlation\": 1", "\"correlation\": 2", "\"correlation\": 3",
                                      "\"External id\": 7", "\"correlation\": 99"};
    static const char *const want[] = {"op_a", "op_d", NULL, "op_g", NULL};
    fputs("{\"traceEvents\": [\n", f);
    for (size_t k = 0; k < sizeof host / sizeof host[0]; k++)
        fprintf(f, "{\"ph\": \"X\", \"pid\": 1, \"tid\": 1, %s},\n", host[k]);
    for (size_t k = 0; k < sizeof gpu / sizeof gpu[0]; k++)
        fprintf(
            f,
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%zu\", \"pid\": 0, \"tid\": 7, \"ts\": %zu, \"dur\": 3, "
            "\"args\": {\"stream\": 7, %s}}%s\n",
            k, 1000 + 10 * k, gpu[k], k + 1 < sizeof gpu / sizeof gpu[0] ? "," : "");
    fputs("]}\n", f);
    jv_trace tr;
    if (!load_written(f, path, &tr, "op of GPU")) return;
    jv_tree t;
    jv_err err;
    jv_err_clear(&err);
    if (jv_tree_build(&tr, 1, 1, &t, &err) == JV_OK) {
        size_t k = 0, bad = 0;
        for (uint32_t i = 0; i < tr.nev; i++) {
            if (!jv_kind_is_gpu(jv_ev_kind(&tr, &tr.ev[i]))) continue;
            uint32_t op = jv_tree_op_of_gpu(&tr, &t, i);
            const char *got = op == JV_NONE32 ? NULL : jv_trace_str(&tr, jv_ev_name(&tr, &tr.ev[op]));
            int ok = k < 5 && (want[k] ? got && !strcmp(got, want[k]) : !got);
            CHECK_MSG(ok, "op of GPU: kernel %zu's op is %s, want %s", k, got ? got : "none",
                      k < 5 && want[k] ? want[k] : "none");
            bad += !ok;
            k++;
        }
        CHECK_MSG(k == 5 && bad == 0 && t.counts.with_cpu_op == 3, "op of GPU: %zu kernels, %zu wrong, %llu with an op",
                  k, bad, (unsigned long long)t.counts.with_cpu_op);
        jv_tree_free(&t);
    } else {
        CHECK_MSG(0, "op of GPU: tree: %s", err.msg);
    }
    jv_trace_free(&tr);
}

/* the one graph-launch name test of the call tree and the trace-quality checks */
static void test_graph_names(void) {
    static const char *const yes[] = {"cudaGraphLaunch",      "cuGraphLaunch",  "hipGraphLaunch", "hipGraphLaunch_spt",
                                      "cudaGraphLaunch_ptsz", "HIPGRAPHLAUNCH", "hipgraphlaunch"};
    static const char *const no[] = {
        "cudaLaunchKernel", "cudaGraphInstantiate", "hipGraphExecDestroy", "Graph", "GraphLaunc", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        CHECK_MSG(jv_is_graph_launch_name(yes[i]), "%s is a graph launch", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        CHECK_MSG(!jv_is_graph_launch_name(no[i]), "%s is not a graph launch", no[i]);
}

int main(void) {
    test_graph_names();
    test_events();
    test_corr();
    test_tree_batches();
    test_op_of_gpu();
    test_flows();
    test_upset();
    printf("test_ingest_compact: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
