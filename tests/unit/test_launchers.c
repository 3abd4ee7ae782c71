/* test_launchers: analysis/model/jv_ops' launcher table on random traces of nested ops (up to 7 deep, launchers
 * above launchers), launches outside any op, overlapping kernels on two streams, zero-length kernels and NCCL
 * kernels (out of the direct lists, in the subtree times). Each row's subtree time is checked against the union
 * of the GPU events found by walking every linked GPU event's parent chain (the O(n x depth) reference), its
 * direct time against the union of the GPU events it launched, the rows against the launchers the tree names,
 * their ts order, and jv_launchers_find for every event.
 * Usage: test_launchers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_check.h"
#include "jv_ops.h"
#include "jv_timeline.h"
#include "jv_tree.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

typedef struct {
    FILE *f;
    int n;    /* events written */
    int corr; /* correlation ids used */
} gen;

static void sep(gen *g) {
    fprintf(g->f, "%s", g->n++ ? ",\n" : "");
}

/* a launch at ts (2 us) and its kernel: an NCCL one now and then, a zero-length one now and then */
static void launch(gen *g, long ts) {
    int c = ++g->corr;
    sep(g);
    fprintf(g->f,
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, "
            "\"ts\": %ld, \"dur\": 2, \"args\": {\"correlation\": %d}}",
            ts, c);
    long ks = 100000 + (long)rnd(400000), kd = rnd(8) == 0 ? 0 : 1 + (long)rnd(3000);
    const char *name = rnd(10) == 0 ? "ncclDevKernel_AllReduce" : rnd(2) ? "gemm_kernel" : "elementwise_kernel";
    int stream = 7 + (int)rnd(2);
    sep(g);
    fprintf(
        g->f,
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %ld, \"dur\": %ld, "
        "\"args\": {\"device\": 0, \"stream\": %d, \"correlation\": %d}}",
        name, stream, ks, kd, stream, c);
}

/* ops and launches one after another in [lo, hi), ops holding more of them down to depth 7 */
static void fill(gen *g, long lo, long hi, int depth) {
    static const char *const ops[] = {"aten::mm", "aten::add", "aten::linear", "aten::relu", "aten::copy_"};
    long ts = lo + 1 + (long)rnd(3);
    while (ts + 4 < hi) {
        if (depth < 7 && rnd(3) != 0) {
            long room = hi - ts - 1, dur = 4 + (long)rnd((uint32_t)(room < 400 ? room - 3 : 400));
            if (ts + dur >= hi) break;
            sep(g);
            fprintf(g->f,
                    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": %ld, "
                    "\"dur\": %ld}",
                    ops[rnd(5)], ts, dur);
            fill(g, ts, ts + dur, depth + 1);
            ts += dur + 1 + (long)rnd(3);
        } else {
            launch(g, ts);
            ts += 3 + (long)rnd(3);
        }
    }
}

static int write_trace(const char *path) {
    gen g = {fopen(path, "w"), 0, 0};
    if (!g.f) return 0;
    fprintf(g.f, "{\"traceEvents\": [\n");
    fill(&g, 0, 20000, 0);
    fprintf(g.f, "]}\n");
    return fclose(g.f) == 0;
}

static int64_t union_len(jv_iv *iv, size_t n) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (iv[i].end > iv[i].start) iv[m++] = iv[i];
    return jv_iv_union_len(iv, m);
}

static int is_nccl(const jv_trace *tr, uint32_t i) {
    return strstr(jv_trace_str(tr, jv_ev_name(tr, &tr->ev[i])), "nccl") != NULL;
}

static void check_trace(const char *path, int round) {
    jv_err err;
    jv_err_clear(&err);
    jv_load_opts lo = {.threads = 1};
    jv_trace tr;
    jv_tree t;
    int loaded = jv_trace_load(path, &lo, &tr, &err) == JV_OK;
    CHECK_MSG(loaded, "%s", err.msg);
    if (!loaded) return;
    CHECK(jv_tree_build(&tr, 0, 1, &t, &err) == JV_OK);
    jv_launchers l;
    CHECK(jv_launchers_build(&tr, &t, &l) == JV_OK);
    jv_iv *iv = malloc((tr.nev + 1) * sizeof *iv);
    uint8_t *is_launcher = calloc(tr.nev + 1, 1);
    CHECK(iv && is_launcher);
    if (!iv || !is_launcher) return;
    size_t nlaunchers = 0, nested = 0;
    for (size_t i = 0; i < tr.nev; i++) {
        const jv_event *e = &tr.ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(&tr, e)) || is_nccl(&tr, (uint32_t)i)) continue;
        uint32_t ln = t.launcher[jv_ev_aux(&tr, e)];
        if (ln != JV_NONE32 && !is_launcher[ln]) {
            is_launcher[ln] = 1;
            nlaunchers++;
        }
    }
    CHECK_MSG(l.n == nlaunchers, "round %d: %zu rows for %zu launchers", round, l.n, nlaunchers);
    int sub_ok = 1, dir_ok = 1, find_ok = 1, order_ok = 1;
    for (size_t r = 0; r < l.n; r++) {
        const jv_launcher *row = &l.rows[r];
        /* the subtree: every linked GPU event with row->ev on its parent chain */
        size_t m = 0, md = 0;
        for (size_t i = 0; i < tr.nev; i++) {
            const jv_event *e = &tr.ev[i];
            if (!jv_kind_is_gpu(jv_ev_kind(&tr, e))) continue;
            for (uint32_t a = t.parent[i]; a != JV_NONE32; a = t.parent[a])
                if (a == row->ev) {
                    iv[m++] = (jv_iv){jv_ev_ts(&tr, e), jv_ev_end(&tr, e)};
                    break;
                }
        }
        if (union_len(iv, m) != row->subtree_ns) sub_ok = 0;
        for (size_t i = 0; i < tr.nev; i++) {
            const jv_event *e = &tr.ev[i];
            if (jv_kind_is_gpu(jv_ev_kind(&tr, e)) && !is_nccl(&tr, (uint32_t)i) &&
                t.launcher[jv_ev_aux(&tr, e)] == row->ev)
                iv[md++] = (jv_iv){jv_ev_ts(&tr, e), jv_ev_end(&tr, e)};
        }
        if (md != row->ndirect || union_len(iv, md) != row->direct_ns) dir_ok = 0;
        for (uint32_t a = t.parent[row->ev]; a != JV_NONE32; a = t.parent[a])
            if (is_launcher[a]) {
                nested++;
                break;
            }
        if (r > 0) {
            const jv_event *p = &tr.ev[l.rows[r - 1].ev], *q = &tr.ev[row->ev];
            if (jv_ev_ts(&tr, p) > jv_ev_ts(&tr, q) ||
                (jv_ev_ts(&tr, p) == jv_ev_ts(&tr, q) && l.rows[r - 1].ev > row->ev))
                order_ok = 0;
        }
    }
    for (size_t i = 0; i < tr.nev; i++) {
        const jv_launcher *row = jv_launchers_find(&l, (uint32_t)i);
        if (is_launcher[i] ? !row || row->ev != i : row != NULL) find_ok = 0;
    }
    CHECK_MSG(sub_ok, "round %d: a row's subtree time differs from the parent-chain walk's", round);
    CHECK_MSG(dir_ok, "round %d: a row's direct time or count differs", round);
    CHECK_MSG(find_ok, "round %d: jv_launchers_find misses a launcher or finds a non-launcher", round);
    CHECK_MSG(order_ok, "round %d: the rows are not in (ts, event) order", round);
    CHECK_MSG(nested > 0, "round %d: no launcher below another (the test lost its point)", round);
    free(iv);
    free(is_launcher);
    jv_launchers_free(&l);
    jv_tree_free(&t);
    jv_trace_free(&tr);
}

int main(void) {
    char path[] = "/tmp/jv_test_launchers.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    close(fd);
    for (int round = 0; round < 12; round++) {
        if (!write_trace(path)) {
            CHECK_MSG(0, "cannot write %s", path);
            break;
        }
        check_trace(path, round);
    }
    remove(path);
    printf("test_launchers: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
