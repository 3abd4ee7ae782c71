/* jv_gpu_common: the GPU backends' vendor-neutral logic (see jv_gpu_common.h). */
#include "jv_gpu_common.h"

#include <stdio.h>

#include "jv_progress.h" /* jv_now */
#include "jv_sort.h"     /* jv_median_sort */

#define LAUNCH_N      1000 /* empty launches per sample: below the launch queue's depth, so queueing never blocks */
#define LAUNCH_REPS   5    /* samples; the median is kept */
#define LAUNCH_WARMUP 100

int jv_gpu_code_find(const jv_gpu_code_name *table, size_t n, int code, const char **name) {
    if (name) *name = NULL;
    for (size_t i = 0; i < n; i++)
        if (table[i].code == code) {
            if (name) *name = table[i].name;
            return 1;
        }
    return 0;
}

jv_status jv_gpu_mark_broken(char *msg, size_t cap, const char *backend, int device, const char *dev_name,
                             const char *errname, const char *errtext, jv_err *err) {
    snprintf(msg, cap,
             "%s backend: device %d (%s) is unusable after %s (%s), first seen as: %.200s; nothing more can run on "
             "it in this process",
             backend, device, dev_name, errname, errtext, err && err->code != JV_OK ? err->msg : "?");
    if (err) jv_err_clear(err);
    JV_FAIL(err, JV_ERR_DEVICE, "%s", msg);
}

size_t jv_gpu_workspace_bytes(size_t free_bytes, size_t want, size_t floor) {
    size_t share = free_bytes / 16;
    if (share >= want) return want;
    share &= ~(((size_t)1 << 20) - 1);
    return share > floor ? share : floor;
}

size_t jv_gpu_flush_bytes(long long llc_bytes) {
    return llc_bytes > 0 ? 2 * (size_t)llc_bytes : 0;
}

jv_status jv_gpu_own_prepare(const char *backend, const jv_gpu_kernel *k, const jv_desc *d, const jv_operands *ops,
                             int variant, int sms, size_t ws_bytes, void **own_plan, char *impl, size_t impl_cap,
                             jv_err *err) {
    const char *fam = jv_family_get(d->family)->name;
    *own_plan = NULL;
    if (!k) JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: no own device kernel for this family", backend, fam);
    if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: no such variant %d", backend, fam, variant);
    char why[200];
    if (!k->supported(d, ops, why, sizeof why))
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: not supported by our kernel: %s", backend, fam, why);
    size_t need = 0;
    JV_CHECK(k->plan(d, ops, sms, own_plan, &need, err));
    if (need > ws_bytes) {
        k->release(*own_plan);
        *own_plan = NULL;
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s backend: %s: our kernel needs %zu bytes of workspace, more than %zu", backend,
                fam, need, ws_bytes);
    }
    snprintf(impl, impl_cap, "jarvis kernel");
    return JV_OK;
}

jv_status jv_gpu_measure_launch(const jv_gpu_launch_probe *p, int64_t clock_khz, double *launch_us,
                                double *host_launch_us, jv_err *err) {
    int64_t khz = clock_khz > 0 ? clock_khz : 2000000; /* 2 GHz: only sizes the spin */
    for (int i = 0; i < LAUNCH_WARMUP; i++)
        JV_CHECK(p->noop(p->ctx, err));
    JV_CHECK(p->sync(p->ctx, err));
    double dev[LAUNCH_REPS], host[LAUNCH_REPS];
    int n = LAUNCH_N, retries = 0;
    int64_t spin_ms = 20;
    for (int r = 0; r < LAUNCH_REPS;) {
        JV_CHECK(p->spin(p->ctx, khz * spin_ms, err));
        JV_CHECK(p->start(p->ctx, err));
        double t0 = jv_now();
        for (int i = 0; i < n; i++)
            JV_CHECK(p->noop(p->ctx, err));
        double t1 = jv_now();
        int done = 0; /* the spin no longer held the stream when the host finished */
        JV_CHECK(p->started(p->ctx, &done, err));
        double ms = 0;
        JV_CHECK(p->stop(p->ctx, &ms, err));
        if (done && retries < 6) {
            retries++;
            spin_ms *= 2;
            if (n > 64) n /= 2;
            continue;
        }
        dev[r] = ms * 1e3 / n;
        host[r] = (t1 - t0) * 1e6 / n;
        r++;
    }
    *launch_us = jv_median_sort(dev, LAUNCH_REPS);
    *host_launch_us = jv_median_sort(host, LAUNCH_REPS);
    return JV_OK;
}
