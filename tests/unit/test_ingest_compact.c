/* test_ingest_compact: the compact forms of ingest. jv_flow: endpoints written with jv_flows_add read back
 * equal by jv_flow_next, in order, for extreme values (INT64_MIN/MAX ids and ts, differences that wrap, the
 * largest thread) and random ones. jv_upset: on random forests, the members are exactly the start events and
 * their ancestors (against a plain walk), and jv_upset_ix numbers them 0 .. n-1 in event order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_flow.h"
#include "jv_tree.h"

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

int main(void) {
    test_flows();
    test_upset();
    printf("test_ingest_compact: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
