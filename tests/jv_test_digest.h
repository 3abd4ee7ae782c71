/* jv_test_digest: the whole model of one trace for the model tests (test_model_findings, test_fusion): the trace
 * read on one scanning thread, its call tree, GPU timelines, perf table and finished digest for the GPU named by
 * gpu, built in the order jarvis-analyze builds them. Static, for the test program's own CHECK counters: include
 * once per program, after jv_check.h. */
#ifndef JV_TEST_DIGEST_H
#define JV_TEST_DIGEST_H

#include <string.h>

#include "jv_digest.h"
#include "jv_perf.h"
#include "jv_timelines.h"
#include "jv_tree.h"

/* Builds them all from the trace at path; 0 (a failed check, nothing to free) when it cannot be read, else 1 with
 * every later step checked: free them with jv_test_digest_free. */
static __attribute__((unused)) int jv_test_digest(const char *path, const char *gpu, jv_trace *tr, jv_tree *t,
                                                  jv_perf_table *pt, jv_timelines *tls, jv_digest *d) {
    jv_err err;
    jv_err_clear(&err);
    memset(pt, 0, sizeof *pt);
    jv_load_opts lo = {0};
    if (jv_trace_load(path, &lo, tr, &err) != JV_OK) {
        CHECK_MSG(0, "%s: %s", path, err.msg);
        return 0;
    }
    CHECK(jv_tree_build(tr, 0, 1, t, &err) == JV_OK);
    jv_hw hw;
    CHECK(jv_hw_resolve(gpu, &hw, &err) == JV_OK);
    jv_timeline_opts to = {0, 0, 0};
    CHECK(jv_timelines_compute(tr, t, &to, tls) == JV_OK);
    CHECK(jv_perf_build(tr, t, pt, &err) == JV_OK);
    CHECK(jv_digest_init(d, path, tr, &hw, "test", &err) == JV_OK);
    CHECK(jv_digest_build(tr, pt, d, &err) == JV_OK);
    CHECK_MSG(jv_digest_finish(d, tr, t, pt, tls, &err) == JV_OK, "%s", err.msg);
    return 1;
}

/* Frees what jv_test_digest built. */
static __attribute__((unused)) void jv_test_digest_free(jv_trace *tr, jv_tree *t, jv_perf_table *pt, jv_timelines *tls,
                                                        jv_digest *d) {
    jv_digest_free(d);
    jv_timelines_free(tls);
    jv_perf_free(pt);
    jv_tree_free(t);
    jv_trace_free(tr);
}

#endif
