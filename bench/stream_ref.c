/* stream_ref.c: the STREAM reference figure for bench/bench_cpu.sh.
 *
 * STREAM's rules, our code. McCalpin's STREAM benchmark is neither packaged in Debian nor on PyPI, so this is
 * an independent implementation that follows STREAM's published run rules (no part of STREAM's source is
 * copied):
 *   - four kernels over arrays of double (STREAM's default element type):
 *       copy  c[i] = a[i]              counted as 2 arrays moved (16 bytes per element)
 *       scale b[i] = q * c[i]          2 arrays (16 bytes per element)
 *       add   c[i] = a[i] + b[i]       3 arrays (24 bytes per element)
 *       triad a[i] = b[i] + q * c[i]   3 arrays (24 bytes per element)
 *     (bytes are what the kernel names, read + written; write-allocate traffic is not counted, as in STREAM);
 *   - each array at least 4x the size of the last-level cache (sum over all of them);
 *   - each kernel run NTIMES = 10 times in the order copy, scale, add, triad; the first pass is left out of the
 *     statistics; the reported rate is bytes / the best (minimum) time; average and maximum are shown too;
 *   - the arrays are initialized in parallel with the same static schedule as the kernels (first touch), the
 *     loops are OpenMP `parallel for schedule(static)`, built with -O3 -march=native -fopenmp;
 *   - the results are checked at the end against the values the same sequence of kernels gives a scalar.
 * Rates are decimal: MB/s = 1e6 bytes/s, GB/s = 1e9 bytes/s.
 *
 * usage: stream_ref [--elements N] [--json FILE]
 *   --elements N  elements per array (default: 4x the last-level cache / 8 bytes, and at least 2^24 = 128 MiB)
 *   --json FILE   also write {"context": {...}, "kernels": [{"name", "bytes", "best_s", "avg_s", "max_s",
 *                 "best_bytes_per_second"}]} to FILE
 * Threads: OMP_NUM_THREADS (OpenMP's default otherwise). Exit status: 0 ran and verified, 1 a result was wrong
 * or an allocation or the output failed, 2 bad usage.
 *
 * Build: cc -O3 -march=native -fopenmp -o stream_ref bench/stream_ref.c
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NTIMES = 10, NKERNELS = 4 };

static const char *const names[NKERNELS] = {"copy", "scale", "add", "triad"};
static const int arrays_moved[NKERNELS] = {2, 2, 3, 3};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* bytes of the last-level cache: the largest cache sysfs lists for cpu0 (as the CPU backend reads it), else
 * sysconf's (glibc's figure can be wrong under a hypervisor: 320 MiB for a 32 MiB L3 on a KVM EPYC), else 32 MiB */
static long llc_bytes(void) {
    long best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        long v = 0;
        char unit = 0;
        if (fscanf(f, "%ld%c", &v, &unit) >= 1) {
            if (unit == 'K')
                v <<= 10;
            else if (unit == 'M')
                v <<= 20;
            if (v > best) best = v;
        }
        fclose(f);
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (best <= 0) best = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return best > 0 ? best : 32L << 20;
}

static double *alloc_array(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n * sizeof(double))) return NULL;
    return p;
}

/* the values a, b, c must hold after NTIMES passes, from the same sequence of kernels on scalars */
static int check(const double *a, const double *b, const double *c, size_t n, double q) {
    double ea = 1.0, eb = 2.0, ec = 0.0;
    ea = 2.0 * ea; /* the initialization pass */
    for (int k = 0; k < NTIMES; k++) {
        ec = ea;
        eb = q * ec;
        ec = ea + eb;
        ea = eb + q * ec;
    }
    double sa = 0, sb = 0, sc = 0;
#pragma omp parallel for schedule(static) reduction(+ : sa, sb, sc)
    for (size_t i = 0; i < n; i++) {
        sa += fabs(a[i] - ea);
        sb += fabs(b[i] - eb);
        sc += fabs(c[i] - ec);
    }
    const double tol = 1e-13;
    int ok = sa / (double)n <= tol * fabs(ea) && sb / (double)n <= tol * fabs(eb) && sc / (double)n <= tol * fabs(ec);
    if (!ok)
        fprintf(stderr, "stream_ref: results wrong: mean |error| a %g b %g c %g (expected %g %g %g)\n", sa / (double)n,
                sb / (double)n, sc / (double)n, ea, eb, ec);
    return ok;
}

int main(int argc, char **argv) {
    size_t n = 0;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--elements") && i + 1 < argc) {
            char *end = NULL;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (!end || *end || v < 1024) goto usage;
            n = (size_t)v;
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            json = argv[++i];
        } else {
            goto usage;
        }
    }
    long llc = llc_bytes();
    if (!n) {
        n = (size_t)(4 * llc) / sizeof(double);
        if (n < ((size_t)1 << 24)) n = (size_t)1 << 24;
    }
    double *a = alloc_array(n), *b = alloc_array(n), *c = alloc_array(n);
    if (!a || !b || !c) {
        fprintf(stderr, "stream_ref: cannot allocate 3 x %zu doubles\n", n);
        return 1;
    }
    const double q = 3.0;
    int threads = 1;
#pragma omp parallel
#pragma omp master
    threads = omp_get_num_threads();

#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = 2.0 * a[i];

    double times[NKERNELS][NTIMES];
    for (int k = 0; k < NTIMES; k++) {
        double t = now_s();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            c[i] = a[i];
        times[0][k] = now_s() - t;
        t = now_s();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            b[i] = q * c[i];
        times[1][k] = now_s() - t;
        t = now_s();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        times[2][k] = now_s() - t;
        t = now_s();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + q * c[i];
        times[3][k] = now_s() - t;
    }

    double best[NKERNELS], avg[NKERNELS], worst[NKERNELS];
    for (int j = 0; j < NKERNELS; j++) {
        best[j] = 1e30;
        avg[j] = 0;
        worst[j] = 0;
        for (int k = 1; k < NTIMES; k++) { /* the first pass is left out */
            if (times[j][k] < best[j]) best[j] = times[j][k];
            if (times[j][k] > worst[j]) worst[j] = times[j][k];
            avg[j] += times[j][k] / (NTIMES - 1);
        }
    }
    int ok = check(a, b, c, n, q);

    printf("stream_ref (STREAM's rules, our code): %zu doubles per array (%.1f MiB each, %.1f x LLC of %.1f MiB), "
           "%d threads, best of %d passes\n",
           n, (double)n * sizeof(double) / (1 << 20), (double)n * sizeof(double) / (double)llc, (double)llc / (1 << 20),
           threads, NTIMES - 1);
    printf("%-8s %14s %12s %12s %12s\n", "Function", "Best Rate MB/s", "Avg time", "Min time", "Max time");
    for (int j = 0; j < NKERNELS; j++) {
        double bytes = (double)arrays_moved[j] * sizeof(double) * (double)n;
        printf("%-8s %14.1f %12.6f %12.6f %12.6f\n", names[j], 1e-6 * bytes / best[j], avg[j], best[j], worst[j]);
    }
    printf("%s\n", ok ? "Solution validates" : "Solution does NOT validate");

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f,
                "{\"context\": {\"executable\": \"bench/stream_ref.c\", \"rules\": \"STREAM's rules, our code\", "
                "\"element\": \"double\", \"elements\": %zu, \"llc_bytes\": %ld, \"threads\": %d, \"passes\": %d, "
                "\"statistic\": \"best of passes 2..%d\", \"validated\": %s},\n \"kernels\": [",
                n, llc, threads, NTIMES, NTIMES, ok ? "true" : "false");
        for (int j = 0; j < NKERNELS; j++) {
            double bytes = (double)arrays_moved[j] * sizeof(double) * (double)n;
            fprintf(f,
                    "%s\n  {\"name\": \"%s\", \"bytes\": %.0f, \"best_s\": %.9f, \"avg_s\": %.9f, \"max_s\": %.9f, "
                    "\"best_bytes_per_second\": %.1f}",
                    j ? "," : "", names[j], bytes, best[j], avg[j], worst[j], bytes / best[j]);
        }
        fprintf(f, "\n]}\n");
        if (fclose(f)) {
            perror(json);
            return 1;
        }
    }
    free(a);
    free(b);
    free(c);
    return ok ? 0 : 1;

usage:
    fprintf(stderr, "usage: stream_ref [--elements N] [--json FILE]\n");
    return 2;
}
