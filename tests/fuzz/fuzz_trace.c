/* fuzz_trace: libFuzzer target for the trace reader and the call tree.
 * Each input is the bytes of a trace file (plain or gzip'd JSON). It goes
 * through the public API exactly as jarvis-analyze uses it: jv_trace_load on
 * a path (an in-memory file from memfd_create, or a temporary file), then
 * jv_tree_build, then everything is freed.
 *
 * Invariants checked beyond "no crash, no sanitizer report":
 *   - a failed load sets an error whose message names the file;
 *   - a successful load has every event's thread index in range.
 * With JV_FUZZ_DEEP=1 in the environment the op grouping, the GPU timeline
 * and the call-stack printer run too. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jv_callstack.h"
#include "jv_ops.h"
#include "jv_timeline.h"
#include "jv_trace.h"
#include "jv_tree.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int g_fd = -1;
static char g_path[4096];
static int g_deep;
static FILE *g_null;

static void cleanup(void) {
    if (g_fd >= 0) close(g_fd);
    if (strncmp(g_path, "/proc/", 6) != 0 && g_path[0]) unlink(g_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    g_deep = getenv("JV_FUZZ_DEEP") && getenv("JV_FUZZ_DEEP")[0] == '1';
#ifdef MFD_CLOEXEC
    g_fd = memfd_create("jv_fuzz_trace", MFD_CLOEXEC);
    if (g_fd >= 0) snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
#endif
    if (g_fd < 0 || access(g_path, R_OK) != 0) {
        if (g_fd >= 0) close(g_fd);
        const char *dir = getenv("TMPDIR");
        snprintf(g_path, sizeof g_path, "%s/jv_fuzz_trace.XXXXXX", dir && dir[0] ? dir : "/tmp");
        g_fd = mkstemp(g_path);
        if (g_fd < 0) {
            fprintf(stderr, "fuzz_trace: cannot create a temporary file: %s\n", strerror(errno));
            abort();
        }
    }
    atexit(cleanup);
    return 0;
}

static void put_input(const uint8_t *data, size_t size) {
    if (ftruncate(g_fd, 0) != 0) abort();
    size_t off = 0;
    while (off < size) {
        ssize_t w = pwrite(g_fd, data + off, size - off, (off_t)off);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            abort();
        }
        off += (size_t)w;
    }
}

static void deep_checks(const jv_trace *tr, const jv_tree *t, int with_python) {
    jv_launchers l = {0};
    if (jv_launchers_build(tr, t, &l) == JV_OK) jv_launchers_free(&l);
    jv_timeline_opts to = {1, 1000, 0};
    jv_gpu_timeline tl;
    (void)jv_timeline_compute(tr, t, &to, -1, &tl);
    int *devs = NULL;
    size_t nd = 0;
    if (jv_timeline_devices(tr, &devs, &nd) == JV_OK) {
        for (size_t i = 0; i < nd && i < 4; i++)
            (void)jv_timeline_compute(tr, t, &to, devs[i], &tl);
        free(devs);
    }
    if (!g_null) g_null = fopen("/dev/null", "w");
    if (g_null && tr->nev && with_python) { /* as jarvis-analyze --call-stack: a tree with python events */
        jv_err err;
        jv_err_clear(&err);
        (void)jv_callstack_print(g_null, tr, t, jv_trace_uid(tr, (uint32_t)(tr->nev / 2)), 200, &err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (8u << 20)) return 0; /* keep single runs fast */
    if (!g_path[0]) LLVMFuzzerInitialize(NULL, NULL);
    put_input(data, size);

    jv_trace tr;
    jv_err err;
    jv_err_clear(&err);
    jv_load_opts lo = {0};
    jv_status s = jv_trace_load(g_path, &lo, &tr, &err);
    if (s != JV_OK) {
        if (err.code == JV_OK || !err.msg[0] || !strstr(err.msg, g_path)) {
            fprintf(stderr, "fuzz_trace: load failed (%s) without a message naming the file: '%s'\n", jv_status_str(s),
                    err.msg);
            abort();
        }
        return 0;
    }
    for (size_t i = 0; i < tr.nev; i++) {
        const jv_event *e = &tr.ev[i];
        if (e->key >= tr.nkeys || jv_ev_thread(&tr, e) >= tr.nthreads ||
            (jv_kind_is_gpu(jv_ev_kind(&tr, e)) && tr.keys[e->key].arg >= tr.ngpuargs) ||
            jv_ev_sig(&tr, e) >= tr.nsigs) {
            fprintf(stderr, "fuzz_trace: event %zu has key %u of %zu, thread %u of %zu\n", i, e->key, tr.nkeys,
                    e->key < tr.nkeys ? jv_ev_thread(&tr, e) : 0u, tr.nthreads);
            abort();
        }
    }
    int with_python = (int)(size & 1);
    jv_tree t;
    jv_err_clear(&err);
    if (jv_tree_build(&tr, with_python, 1, &t, &err) == JV_OK) {
        if (g_deep) deep_checks(&tr, &t, with_python);
        jv_tree_free(&t);
    }
    jv_trace_free(&tr);
    return 0;
}
