/* bench_scan: the speed of the jv_json cursor alone (issue 21: a plain trace scanned at >= 1 GB/s), apart from
 * reading, hashing and the trace's records. The trace (plain or gzip'd) is read into memory once; then, REPS
 * times each, jv_json_skip validates the whole document (every string, number and nesting level, as the trace
 * reader's cursor does) and, as the peer measured in the same run, memchr reads every byte for one that is not
 * there (the floor: touching the bytes once). Prints the minimum and median CPU time of each and MB/s
 * (10^6 bytes a second of CPU time).
 *
 * usage: bench_scan TRACE [REPS]   (REPS default 5; exit 0, 1 when the trace cannot be read or the cursor rejects
 * it, 2 bad usage, 77 (skipped) when TRACE does not exist: the fixture traces are absent) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jv_input.h"
#include "jv_json.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the whole (decompressed) file into *buf; JV_OK or the reader's error */
static jv_status slurp(const char *path, char **buf, size_t *n, jv_err *err) {
    jv_input *in;
    JV_CHECK(jv_input_open(path, 0, &in, err));
    size_t cap = (size_t)1 << 24, len = 0;
    char *b = malloc(cap);
    jv_status s = b ? JV_OK : JV_ERR_NOMEM;
    for (size_t got = 1; s == JV_OK && got > 0;) {
        if (len == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                s = JV_ERR_NOMEM;
                break;
            }
            b = nb;
            cap *= 2;
        }
        s = jv_input_read(in, b + len, cap - len, &got, err);
        len += got;
    }
    jv_input_close(in);
    if (s != JV_OK) {
        free(b);
        return s == JV_ERR_NOMEM ? jv_err_set(err, s, __FILE__, __LINE__, "%s: out of memory", path) : s;
    }
    *buf = b;
    *n = len;
    return JV_OK;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_scan TRACE [REPS]\n");
        return 2;
    }
    int reps = argc == 3 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "bench_scan: REPS must be 1..1000\n");
        return 2;
    }
    if (access(argv[1], F_OK) != 0) {
        printf("bench_scan: %s is absent: skipped\n", argv[1]);
        return 77;
    }
    jv_err err;
    jv_err_clear(&err);
    char *buf = NULL;
    size_t n = 0;
    if (slurp(argv[1], &buf, &n, &err) != JV_OK) {
        fprintf(stderr, "bench_scan: %s\n", err.msg);
        return 1;
    }
    double *t_scan = malloc(sizeof(double) * (size_t)reps), *t_peer = malloc(sizeof(double) * (size_t)reps);
    if (!t_scan || !t_peer) {
        fprintf(stderr, "bench_scan: out of memory\n");
        return 1;
    }
    int rc = 0;
    size_t misses = 0;
    for (int r = 0; r < reps && !rc; r++) {
        double t0 = cpu_now();
        jv_jcur c;
        jv_json_init(&c, buf, buf + n, 1);
        jv_jres x = jv_json_skip(&c, NULL, NULL);
        const char *rest = jv_json_skip_ws(c.p, buf + n);
        t_scan[r] = cpu_now() - t0;
        if (x != JV_J_OK || rest != buf + n) {
            fprintf(stderr, "bench_scan: %s: the cursor stopped at byte %zu: %s\n", argv[1],
                    (size_t)((x == JV_J_OK ? rest
                              : c.err_p    ? c.err_p
                                           : c.p) -
                             buf),
                    x == JV_J_OK ? "data after the document"
                    : c.err      ? c.err
                                 : "error");
            rc = 1;
        }
        t0 = cpu_now();
        misses += memchr(buf, 0x01, n) == NULL; /* 0x01 cannot stand unescaped in valid JSON */
        t_peer[r] = cpu_now() - t0;
    }
    if (!rc) {
        qsort(t_scan, (size_t)reps, sizeof *t_scan, cmp_double);
        qsort(t_peer, (size_t)reps, sizeof *t_peer, cmp_double);
        double mb = (double)n / 1e6;
        printf("bench_scan: %s: %zu bytes of JSON, %d runs (memchr found no 0x01 in %zu)\n", argv[1], n, reps, misses);
        printf("  jv_json_skip (validating cursor): CPU min %.3f s (%.0f MB/s), median %.3f s (%.0f MB/s)\n", t_scan[0],
               mb / t_scan[0], t_scan[reps / 2], mb / t_scan[reps / 2]);
        printf("  memchr (peer: every byte read once): CPU min %.3f s (%.0f MB/s), median %.3f s (%.0f MB/s)\n",
               t_peer[0], mb / t_peer[0], t_peer[reps / 2], mb / t_peer[reps / 2]);
        printf("  ratio cursor / memchr (medians): %.1f\n", t_scan[reps / 2] / t_peer[reps / 2]);
    }
    free(t_scan);
    free(t_peer);
    free(buf);
    return rc;
}
