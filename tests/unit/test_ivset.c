/* test_ivset: analysis/model/jv_ivset against the sort-and-sweep union
 * (jv_iv_union_len) on random intervals: added one by one (overlapping,
 * touching, nested, empty), merged smaller into larger in random trees, and
 * the union read after every step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_ivset.h"
#include "jv_timeline.h"

#include "jv_check.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* the union of iv[0..n) by sort and sweep (a copy: jv_iv_union_len sorts in place) */
static int64_t sweep(const jv_iv *iv, size_t n) {
    jv_iv *c = malloc((n ? n : 1) * sizeof *c);
    if (!c) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (iv[i].end > iv[i].start) c[m++] = iv[i];
    int64_t len = jv_iv_union_len(c, m);
    free(c);
    return len;
}

static void test_adds(void) {
    for (int round = 0; round < 200; round++) {
        jv_ivpool p;
        jv_ivpool_init(&p);
        jv_ivset set = {0, 0, 0};
        size_t n = 1 + rnd(300);
        uint32_t span = 10 + rnd(5000);
        jv_iv iv[300];
        int ok = 1;
        for (size_t i = 0; i < n; i++) {
            int64_t s = rnd(span), d = rnd(4) == 0 ? 0 : rnd(span / 8 + 1);
            iv[i] = (jv_iv){s, s + d};
            CHECK(jv_ivset_add(&p, &set, s, s + d) == JV_OK);
            if (set.len != sweep(iv, i + 1)) ok = 0;
        }
        CHECK_MSG(ok, "round %d: the set's union differs from the sweep's", round);
        CHECK(set.count >= 1 || set.len == 0);
        jv_ivpool_free(&p);
    }
    /* touching intervals become one; an empty or reversed interval adds nothing */
    jv_ivpool p;
    jv_ivpool_init(&p);
    jv_ivset set = {0, 0, 0};
    CHECK(jv_ivset_add(&p, &set, 0, 5) == JV_OK && jv_ivset_add(&p, &set, 5, 10) == JV_OK);
    CHECK(set.len == 10 && set.count == 1);
    CHECK(jv_ivset_add(&p, &set, 20, 20) == JV_OK && jv_ivset_add(&p, &set, 30, 25) == JV_OK);
    CHECK(set.len == 10 && set.count == 1);
    CHECK(jv_ivset_add(&p, &set, 12, 15) == JV_OK && set.len == 13 && set.count == 2);
    CHECK(jv_ivset_add(&p, &set, -5, 40) == JV_OK && set.len == 45 && set.count == 1); /* absorbs both */
    jv_ivpool_free(&p);
}

/* random forests: each node's intervals merged up smaller into larger, each node's union checked against the
 * sweep over its subtree's intervals */
static void test_merges(void) {
    enum { NODES = 400, PER = 6 };
    for (int round = 0; round < 40; round++) {
        int parent[NODES];
        jv_iv own[NODES][PER];
        int nown[NODES];
        for (int x = 0; x < NODES; x++) {
            parent[x] = x == 0 || rnd(8) == 0 ? -1 : (int)rnd((uint32_t)x); /* parents before children */
            nown[x] = (int)rnd(PER + 1);
            for (int k = 0; k < nown[x]; k++) {
                int64_t s = rnd(100000);
                own[x][k] = (jv_iv){s, s + rnd(3000)};
            }
        }
        jv_ivpool p;
        jv_ivpool_init(&p);
        jv_ivset sets[NODES];
        memset(sets, 0, sizeof sets);
        for (int x = 0; x < NODES; x++)
            for (int k = 0; k < nown[x]; k++)
                CHECK(jv_ivset_add(&p, &sets[x], own[x][k].start, own[x][k].end) == JV_OK);
        int ok = 1;
        static jv_iv all[NODES * PER];
        for (int x = NODES - 1; x >= 0; x--) { /* children (larger indices) first */
            size_t m = 0;
            for (int y = 0; y < NODES; y++) {
                int a = y;
                while (a != -1 && a != x)
                    a = parent[a];
                if (a == x)
                    for (int k = 0; k < nown[y]; k++)
                        all[m++] = own[y][k];
            }
            if (sets[x].len != sweep(all, m)) ok = 0;
            if (parent[x] >= 0) {
                CHECK(jv_ivset_merge(&p, &sets[parent[x]], &sets[x]) == JV_OK);
                if (sets[x].count || sets[x].len || sets[x].root) ok = 0; /* the source is left empty */
            }
        }
        CHECK_MSG(ok, "round %d: a subtree's union differs from the sweep's", round);
        jv_ivpool_free(&p);
    }
}

/* a chain 100000 deep with one interval per node: merged bottom-up in O(n log^2 n), not O(n depth) */
static void test_chain(void) {
    enum { N = 100000 };
    jv_ivpool p;
    jv_ivpool_init(&p);
    jv_ivset acc = {0, 0, 0};
    int64_t want = 0;
    for (int x = N - 1; x >= 0; x--) {
        jv_ivset own = {0, 0, 0};
        CHECK(jv_ivset_add(&p, &own, (int64_t)x * 10, (int64_t)x * 10 + 7) == JV_OK);
        CHECK(jv_ivset_merge(&p, &own, &acc) == JV_OK);
        acc = own;
        want += 7;
    }
    CHECK(acc.len == want && acc.count == N);
    CHECK(p.used <= N + 2); /* freed nodes are reused: one live node per interval */
    jv_ivpool_free(&p);
}

/* a cleared set is empty and its nodes are reused: 50 rounds of 1000 disjoint intervals, added and cleared, never
 * take more than 1000 nodes; a set added after a clear has only its own union */
static void test_clear(void) {
    jv_ivpool p;
    jv_ivpool_init(&p);
    int ok = 1;
    for (int round = 0; round < 50; round++) {
        jv_ivset set = {0, 0, 0};
        for (int64_t k = 0; k < 1000; k++)
            CHECK(jv_ivset_add(&p, &set, k * 10 + round, k * 10 + round + 3) == JV_OK);
        if (set.len != 3000 || set.count != 1000) ok = 0;
        jv_ivset_clear(&p, &set);
        if (set.len || set.count || set.root) ok = 0;
    }
    CHECK_MSG(ok, "a set's union before or after its clear is wrong");
    CHECK_MSG(p.used <= 1001, "%u nodes used for 1000 live intervals: the cleared nodes are not reused", p.used);
    jv_ivpool_free(&p);
}

int main(void) {
    test_adds();
    test_clear();
    test_merges();
    test_chain();
    printf("test_ivset: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
