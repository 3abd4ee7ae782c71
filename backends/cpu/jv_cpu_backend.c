/* jv_cpu_backend: the CPU backend. "Device" memory is host memory and the
 * timer the monotonic clock. GEMM, convolution and batch norm run on oneDNN
 * (matmul, convolution, batch normalization: jv_cpu_dnnl.h), as PyTorch's CPU
 * path does, on every core; a family with its own CPU kernel (kernels/
 * cpu_kernels.def, jv_cpu_kernel.h: the elementwise families, impl "OpenMP
 * elementwise (dense)" or "(strided)") runs it. A call neither can run is
 * refused with the reason (as the CUDA backend refuses what it has no kernel
 * for): the references in kernels/ verify, they are never timed as a
 * backend. The baseline kernels
 * are STREAM's loops on every core. Its launch cost is measured at open (a
 * call through a function pointer); flush_cache writes over a buffer twice
 * the size of the last-level cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "jv_cpu_dnnl.h"
#include "jv_cpu_kernel.h"
#include "jv_progress.h" /* jv_now */

typedef struct {
    struct timespec t0;
    int timing;
    double launch_us;    /* measured at open: one call of an empty run through a function pointer */
    uint64_t *flush_buf; /* the cache-flush buffer (allocated at the first flush) */
    size_t flush_words;
    int flush_failed;     /* 1: it could not be allocated: flush_cache says so every time */
    unsigned flush_round; /* varies what the flush writes */
#ifdef JV_HAVE_DNNL
    jv_cpu_dnnl dnnl; /* engine and stream */
#endif
} cpu_ctx;

/* How a prepared op runs. */
typedef enum { CPU_GEMM = 1, CPU_CONV, CPU_BN, CPU_OWN } cpu_kind;

typedef struct {
    cpu_kind kind;
    const jv_cpu_kernel *kernel; /* CPU_OWN: the family's own CPU kernel (jv_cpu_kernel.h) */
    void *own;                   /* its plan */
#ifdef JV_HAVE_DNNL
    jv_cpu_gemm *gemm;
    jv_cpu_conv *conv;
    jv_cpu_bn *bn;
#endif
} cpu_plan;

/* an empty run, called through a function pointer as the runner calls a launch */
static jv_status cpu_empty_run(void *arg, int set, jv_err *err) {
    (void)err;
    if (arg) ((volatile int *)arg)[0] = set;
    return JV_OK;
}

/* microseconds per call of an empty run through a function pointer: the best of 5 rounds of 10000 calls
 * (on the CPU, queueing a run is running it: device and host launch costs are the same) */
static double measure_launch_us(void) {
    jv_be_run_fn volatile fn = cpu_empty_run;
    volatile int sink = 0;
    double best = 0;
    for (int round = 0; round < 5; round++) {
        double t0 = jv_now();
        for (int i = 0; i < 10000; i++)
            (void)fn((void *)&sink, i, NULL);
        double t = (jv_now() - t0) / 10000 * 1e6;
        if (round == 0 || t < best) best = t;
    }
    return best;
}

static jv_status cpu_open(int device, void **ctx, jv_err *err) {
    *ctx = NULL;
    if (device != 0)
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: device %d does not exist (the CPU is device 0)", device);
    cpu_ctx *c = calloc(1, sizeof *c);
    if (!c) JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: out of memory");
    c->launch_us = measure_launch_us();
#ifdef JV_HAVE_DNNL
    jv_status st = jv_cpu_dnnl_open(&c->dnnl, err);
    if (st != JV_OK) {
        free(c);
        return st;
    }
#endif
    *ctx = c;
    return JV_OK;
}

static void cpu_close(void *ctx) {
    cpu_ctx *c = ctx;
    if (!c) return;
#ifdef JV_HAVE_DNNL
    jv_cpu_dnnl_close(&c->dnnl);
#endif
    free(c->flush_buf);
    free(c);
}

/* First "model name" line of /proc/cpuinfo, or "" */
static void cpu_model(char *buf, size_t cap) {
    buf[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            const char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                snprintf(buf, cap, "%s", p);
                buf[strcspn(buf, "\n")] = 0;
            }
            break;
        }
    }
    fclose(f);
}

/* Size of the largest cache level sysfs lists for cpu0 (bytes), or 0. */
static int64_t cpu_llc(void) {
    int64_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(buf, sizeof buf, f)) {
            char *end;
            long long v = strtoll(buf, &end, 10);
            if (*end == 'K')
                v *= 1024;
            else if (*end == 'M')
                v *= 1024 * 1024;
            if (v > best) best = v;
        }
        fclose(f);
    }
    return best;
}

static jv_status cpu_props(void *ctx, jv_device_props *p, jv_err *err) {
    cpu_ctx *c = ctx;
    (void)err;
    memset(p, 0, sizeof *p);
    char model[100];
    cpu_model(model, sizeof model);
    snprintf(p->name, sizeof p->name, "CPU: %s", model[0] ? model : "unknown model");
    snprintf(p->backend, sizeof p->backend, "cpu");
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(p->driver, sizeof p->driver, "%.20s %.40s", u.sysname, u.release);
        snprintf(p->arch, sizeof p->arch, "%.31s", u.machine);
    }
    long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0) p->memory_bytes = (int64_t)pages * psz;
    if (avail > 0 && psz > 0) p->free_bytes = (int64_t)avail * psz;
    p->llc_bytes = cpu_llc();
#ifdef _OPENMP
    p->compute_units = omp_get_max_threads(); /* oneDNN and the baseline use every thread */
#else
    p->compute_units = 1;
#endif
    p->launch_us = c->launch_us; /* measured at open */
    p->host_launch_us = c->launch_us;
    return JV_OK;
}

/* bytes of the flush buffer: twice the last-level cache (64 MiB when sysfs does not tell) */
static size_t flush_bytes(void) {
    int64_t llc = cpu_llc();
    return llc > 0 ? 2 * (size_t)llc : (size_t)64 << 20;
}

/* Evicts the last-level cache: a read-modify-write of every cache line of a buffer twice its size (plain
 * stores: a memset this large may use non-temporal stores, which leave the cache as it was). */
static jv_status cpu_flush_cache(void *ctx, jv_err *err) {
    cpu_ctx *c = ctx;
    if (!c->flush_buf && !c->flush_failed) {
        size_t b = flush_bytes();
        c->flush_buf = aligned_alloc(64, b);
        if (c->flush_buf) {
            memset(c->flush_buf, 0, b);
            c->flush_words = b / sizeof *c->flush_buf;
        } else {
            c->flush_failed = 1;
        }
    }
    if (!c->flush_buf)
        JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: cannot allocate the %zu MiB cache-flush buffer: no flush",
                flush_bytes() >> 20);
    c->flush_round++;
    volatile uint64_t *w = c->flush_buf;
    for (size_t i = 0; i < c->flush_words; i += 8)
        w[i] += c->flush_round; /* one word per 64-byte line */
    return JV_OK;
}

static jv_status cpu_alloc(void *ctx, size_t bytes, void **dptr, jv_err *err) {
    (void)ctx;
    size_t n = (bytes + 63) / 64 * 64;
    *dptr = n ? aligned_alloc(64, n) : NULL;
    if (n && !*dptr) JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: cannot allocate %zu bytes", bytes);
    return JV_OK;
}

static void cpu_free(void *ctx, void *dptr) {
    (void)ctx;
    free(dptr);
}

static jv_status cpu_copy(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    (void)ctx;
    (void)err;
    if (bytes) memcpy(dst, src, bytes);
    return JV_OK;
}

static jv_status cpu_fill(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err) {
    (void)ctx;
    (void)err;
    if (bytes) memset(dptr, byte, bytes);
    return JV_OK;
}

static jv_status cpu_sync(void *ctx, jv_err *err) {
    (void)ctx;
    (void)err;
    return JV_OK;
}

static jv_status cpu_timer_start(void *ctx, jv_err *err) {
    cpu_ctx *c = ctx;
    if (clock_gettime(CLOCK_MONOTONIC, &c->t0)) JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: clock_gettime failed");
    c->timing = 1;
    return JV_OK;
}

static jv_status cpu_timer_stop(void *ctx, double *seconds, jv_err *err) {
    cpu_ctx *c = ctx;
    struct timespec t1;
    if (!c->timing) JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: timer stopped without a start");
    if (clock_gettime(CLOCK_MONOTONIC, &t1)) JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: clock_gettime failed");
    c->timing = 0;
    *seconds = (double)(t1.tv_sec - c->t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - c->t0.tv_nsec);
    return JV_OK;
}

static void cpu_release(void *ctx, void *plan) {
    (void)ctx;
    cpu_plan *p = plan;
    if (!p) return;
    if (p->kernel) p->kernel->release(p->own);
#ifdef JV_HAVE_DNNL
    jv_cpu_gemm_free(p->gemm);
    jv_cpu_conv_free(p->conv);
    jv_cpu_bn_free(p->bn);
#endif
    free(p);
}

/* oneDNN for GEMM, convolution and batch norm; a family's own CPU kernel where it has one; JV_ERR_NOTFOUND
 * naming the reason for a call neither runs (the runner reports it refused) */
static jv_status cpu_prepare(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                             size_t impl_cap, jv_err *err) {
    cpu_ctx *c = ctx;
    (void)c; /* unused without oneDNN */
    *plan = NULL;
    if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: one implementation per op");
    cpu_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(err, JV_ERR_NOMEM, "cpu backend: out of memory");
    jv_err le = {0}; /* why oneDNN refused a call of a family it runs ("" for the other families) */
    jv_status st = JV_ERR_NOTFOUND;
    const jv_cpu_kernel *k = jv_cpu_kernel_of(d->family);
    if (k) {
        st = k->plan(d, ops, &p->own, impl, impl_cap, &le);
        if (st == JV_OK) {
            p->kind = CPU_OWN;
            p->kernel = k;
            *plan = p;
            return JV_OK;
        }
        cpu_release(c, p);
        if (st != JV_ERR_NOTFOUND) return jv_err_set(err, st, le.file, le.line, "%s", le.msg);
        return jv_err_set(err, st, le.file, le.line, "cpu backend: no CPU kernel: %s", le.msg);
    }
#ifdef JV_HAVE_DNNL
    if (d->family == (int)JV_FAM_GEMM) {
        st = jv_cpu_gemm_plan(&c->dnnl, d, ops, &p->gemm, &le);
        if (st == JV_OK) p->kind = CPU_GEMM, snprintf(impl, impl_cap, "oneDNN matmul");
    } else if (d->family == (int)JV_FAM_CONV) {
        st = jv_cpu_conv_plan(&c->dnnl, d, ops, &p->conv, &le);
        if (st == JV_OK) p->kind = CPU_CONV, snprintf(impl, impl_cap, "oneDNN convolution");
    } else if (d->family == (int)JV_FAM_BATCHNORM) {
        st = jv_cpu_bn_plan(&c->dnnl, d, ops, &p->bn, &le);
        if (st == JV_OK) p->kind = CPU_BN, snprintf(impl, impl_cap, "oneDNN batch norm");
    }
    if (st == JV_OK) {
        *plan = p;
        return JV_OK;
    }
    cpu_release(c, p);
    if (st != JV_ERR_NOTFOUND) return jv_err_set(err, st, le.file, le.line, "%s", le.msg);
    if (le.msg[0]) return jv_err_set(err, st, le.file, le.line, "cpu backend: oneDNN cannot run it: %s", le.msg);
    JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: family '%s' has no CPU kernel", jv_family_get(d->family)->name);
#else
    cpu_release(c, p);
    JV_FAIL(err, JV_ERR_NOTFOUND,
            "cpu backend: family '%s' has no CPU kernel (built without oneDNN: install libdnnl-dev)",
            jv_family_get(d->family)->name);
#endif
}

static jv_status cpu_launch(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                            jv_err *err) {
    cpu_ctx *c = ctx;
    const cpu_plan *p = plan;
    (void)c;
    if (p && p->kind == CPU_OWN) return p->kernel->run(p->own, bufs, err);
#ifdef JV_HAVE_DNNL
    if (p && p->kind == CPU_GEMM) return jv_cpu_gemm_run(&c->dnnl, p->gemm, bufs, err);
    if (p && p->kind == CPU_CONV) return jv_cpu_conv_run(&c->dnnl, p->conv, bufs, err);
    if (p && p->kind == CPU_BN) return jv_cpu_bn_run(&c->dnnl, p->bn, bufs, err);
#endif
    (void)d, (void)ops, (void)bufs;
    JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: launch of an op it did not plan");
}

/* The baseline kernels as STREAM defines them, one thread per core (OpenMP, static schedule: each thread
 * streams its own contiguous part; vectorizable loops). */
static jv_status cpu_baseline(void *ctx, jv_base_kernel k, const float *a, const float *b, float *c, int64_t n, float s,
                              jv_err *err) {
    (void)ctx;
    switch (k) {
    case JV_BASE_COPY:
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i];
        break;
    case JV_BASE_SCALE:
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
        for (int64_t i = 0; i < n; i++)
            c[i] = s * a[i];
        break;
    case JV_BASE_ADD:
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        break;
    case JV_BASE_TRIAD:
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i] + s * b[i];
        break;
    case JV_BASE_DOT: {
        double t = 0; /* per-thread float partial sums of 8 lanes, merged in double */
#ifdef _OPENMP
#pragma omp parallel reduction(+ : t)
#endif
        {
            float acc[8] = {0};
            int64_t lo = 0, hi = n;
#ifdef _OPENMP
            int nt = omp_get_num_threads(), id = omp_get_thread_num();
            lo = n * id / nt;
            hi = n * (id + 1) / nt;
#endif
            int64_t i = lo;
            for (; i + 8 <= hi; i += 8)
                for (int j = 0; j < 8; j++)
                    acc[j] += a[i + j] * b[i + j];
            for (; i < hi; i++)
                acc[0] += a[i] * b[i];
            for (int j = 0; j < 8; j++)
                t += acc[j];
        }
        c[0] = (float)t;
        break;
    }
    default: JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: unknown baseline kernel %d", (int)k);
    }
    return JV_OK;
}

const jv_backend jv_cpu_backend = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .props = cpu_props,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .fill = cpu_fill,
    .sync = cpu_sync,
    .timer_start = cpu_timer_start,
    .timer_stop = cpu_timer_stop,
    .prepare = cpu_prepare,
    .launch = cpu_launch,
    .release = cpu_release,
    .baseline = cpu_baseline,
    .range_push = NULL,
    .range_pop = NULL,
    .flush_cache = cpu_flush_cache,
};
