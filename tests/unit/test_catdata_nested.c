/* Unit test of analysis/report/jv_catdata's call trees with nested example ops, which the perf instances of a real
 * trace do not make (an outer op claims the kernels below it) but jv_catdata_write must handle: a digest is given
 * rows whose examples are ops of one 250-deep chain (depths 0, 1, 2, 100, 150, 240, 249: the upper ones hold more
 * than the 300-node cap, the lower ones their whole subtree, so the pass adds events below full examples), two rows
 * naming one example, one example not in the trace and one row of category other. Each written subtree (node set,
 * depths, count, count left out) is checked against a plain walk of every event's parent chain, the O(n x depth)
 * reference.
 * Usage: test_catdata_nested */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jv_callstack.h"
#include "jv_catdata.h"
#include "jv_check.h"
#include "jv_digest.h"
#include "jv_tree.h"

enum { DEPTH = 250, CAP = 300 };

/* the chain: op j (uid 3j) holds launch j (3j + 1) and op j + 1; kernel j (3j + 2) hangs under launch j */
static int write_trace(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "{\"traceEvents\": [");
    for (int j = 0; j < DEPTH; j++)
        fprintf(
            f,
            "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 100, \"ts\": %d, "
            "\"dur\": %d, \"args\": {\"Input Dims\": [[%d, 3], [3, 3]], \"Input type\": [\"float\", \"float\"]}},"
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, "
            "\"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}},"
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5, "
            "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}}",
            j ? "," : "", 1000 + 10 * j, 20 * DEPTH - 10 * j, j + 1, 1001 + 10 * j, j + 1, 1000 + 20 * DEPTH + 10 * j,
            j + 1);
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

static jv_drow row(uint32_t uid, jv_dcat cat) {
    jv_drow r;
    memset(&r, 0, sizeof r);
    r.name = r.op_name = "aten::mm";
    r.op_category = r.family = r.dims = r.types = r.strides = r.concrete = r.type0 = r.params = "";
    r.cat = cat;
    r.family_id = r.model = -1;
    r.uid = uid;
    r.replay_op = -1;
    return r;
}

typedef struct {
    uint32_t uid, depth;
} node;

static int cmp_node(const void *a, const void *b) {
    const node *x = a, *y = b;
    return (x->uid > y->uid) - (x->uid < y->uid);
}

/* the reference: the first CAP descendants of event ex in event order, with their depths below it */
static size_t reference(const jv_trace *tr, const jv_tree *t, uint32_t ex, node *out, size_t *left_out) {
    size_t n = 0;
    *left_out = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        uint32_t depth = 1;
        for (uint32_t a = t->parent[i]; a != JV_NONE32; a = t->parent[a], depth++)
            if (a == ex) {
                if (n < CAP)
                    out[n++] = (node){jv_trace_uid(tr, i), depth};
                else
                    ++*left_out;
                break;
            }
    }
    qsort(out, n, sizeof *out, cmp_node);
    return n;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

int main(void) {
    char dir[] = "/tmp/jv_catdata_nested.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char trace[256], out[256], path[512];
    snprintf(trace, sizeof trace, "%s/chain.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    CHECK(write_trace(trace));
    jv_err err;
    jv_err_clear(&err);
    jv_load_opts lo = {.threads = 1};
    jv_trace tr;
    jv_tree t;
    jv_hw hw;
    jv_digest d;
    int loaded = jv_trace_load(trace, &lo, &tr, &err) == JV_OK;
    CHECK_MSG(loaded, "%s", err.msg);
    if (!loaded) return 1;
    CHECK(tr.nev == 3 * DEPTH);
    CHECK(jv_tree_build(&tr, 0, 1, &t, &err) == JV_OK);
    CHECK(jv_hw_resolve("H100", &hw, &err) == JV_OK);
    CHECK(jv_digest_init(&d, trace, &tr, &hw, "test", &err) == JV_OK);
    static const int depths[] = {0, 1, 2, 100, 150, 240, 249};
    size_t nd = sizeof depths / sizeof depths[0];
    for (size_t k = 0; k < nd; k++) {
        jv_drow r = row(3u * (uint32_t)depths[k], k % 2 ? JV_DCAT_GEMM : JV_DCAT_EW);
        CHECK(jv_digest_add_row(&d, &r, &err) == JV_OK);
    }
    jv_drow extra[] = {row(3u * 100, JV_DCAT_GEMM), row(999999, JV_DCAT_GEMM), row(3u * 50, JV_DCAT_OTHER)};
    for (size_t k = 0; k < 3; k++)
        CHECK(jv_digest_add_row(&d, &extra[k], &err) == JV_OK);
    jv_status st = jv_catdata_write(&d, &tr, &t, out, &err);
    CHECK_MSG(st == JV_OK, "%s", err.msg);

    node want[CAP], got[CAP];
    size_t nrows_seen = 0, full = 0, open = 0;
    const char *cats[] = {"gemm", "elementwise"};
    for (size_t c = 0; st == JV_OK && c < 2; c++) {
        snprintf(path, sizeof path, "%s/category_data/%s_tree_data.json", out, cats[c]);
        char *text = slurp(path);
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        free(text);
        CHECK_MSG(doc != NULL, "%s parses", path);
        const cJSON *ops = cJSON_GetObjectItemCaseSensitive(doc, "ops"), *o;
        cJSON_ArrayForEach(o, ops) {
            nrows_seen++;
            uint32_t uid = (uint32_t)cJSON_GetObjectItemCaseSensitive(o, "ex_UID")->valuedouble;
            int found = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "found"));
            uint32_t ev = jv_trace_find_uid(&tr, uid);
            CHECK_MSG(found == (ev != JV_NONE32), "example %u: found", uid);
            if (ev == JV_NONE32) continue;
            size_t left, nw = reference(&tr, &t, ev, want, &left), ng = 0;
            const cJSON *sub = cJSON_GetObjectItemCaseSensitive(o, "subtree"), *x;
            cJSON_ArrayForEach(x, sub) {
                if (ng < CAP)
                    got[ng] = (node){(uint32_t)cJSON_GetObjectItemCaseSensitive(x, "uid")->valuedouble,
                                     (uint32_t)cJSON_GetObjectItemCaseSensitive(x, "depth")->valuedouble};
                ng++;
            }
            qsort(got, ng < CAP ? ng : CAP, sizeof *got, cmp_node);
            double lo_json = cJSON_GetObjectItemCaseSensitive(o, "subtree_nodes_left_out")->valuedouble;
            CHECK_MSG(ng == nw && memcmp(got, want, nw * sizeof *want) == 0,
                      "example %u: %zu nodes written, %zu expected (or a node or depth differs)", uid, ng, nw);
            CHECK_MSG(cJSON_GetObjectItemCaseSensitive(o, "subtree_nodes")->valuedouble == (double)nw &&
                          lo_json == (double)left,
                      "example %u: left out %.0f, expected %zu", uid, lo_json, left);
            full += left > 0;
            open += left == 0 && nw > 0;
        }
        cJSON_Delete(doc);
    }
    /* every row of the two categories seen (the one of category other is not), and both kinds of example */
    CHECK_MSG(nrows_seen == nd + 2, "%zu rows in the tree data", nrows_seen);
    CHECK_MSG(full == 5 && open == 3, "%zu full examples (4 + the shared one), %zu whole ones", full, open);

    jv_digest_free(&d);
    jv_tree_free(&t);
    jv_trace_free(&tr);
    if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
