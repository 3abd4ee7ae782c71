/* jv_null_backend: the smallest backend that replays an op, for the tests: it
 * proves the recipe "add a backend" (backends/README.md), one folder plus one
 * line in a backends.def. "Device" memory is host memory, the timer is the
 * monotonic clock, an op runs the family's CPU reference (backends hold no op
 * math); no baseline kernels, no cache flush, no graph timing, no clocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"

typedef struct {
    struct timespec t0;
} null_ctx;

static jv_status null_open(int device, void **ctx, jv_err *err) {
    *ctx = NULL;
    if (device != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "null backend: device %d does not exist (only device 0)", device);
    *ctx = calloc(1, sizeof(null_ctx));
    if (!*ctx) JV_FAIL(err, JV_ERR_NOMEM, "null backend: out of memory");
    return JV_OK;
}

static void null_close(void *ctx) {
    free(ctx);
}

static jv_status null_props(void *ctx, jv_device_props *p, jv_err *err) {
    (void)ctx;
    (void)err;
    memset(p, 0, sizeof *p);
    strcpy(p->name, "null: the test backend");
    strcpy(p->backend, "null");
    strcpy(p->driver, "none");
    strcpy(p->arch, "host");
    p->llc_bytes = 1 << 20;
    p->compute_units = 1;
    return JV_OK;
}

static jv_status null_alloc(void *ctx, size_t bytes, void **dptr, jv_err *err) {
    (void)ctx;
    *dptr = malloc(bytes ? bytes : 1);
    if (!*dptr) JV_FAIL(err, JV_ERR_NOMEM, "null backend: out of memory (%zu bytes)", bytes);
    return JV_OK;
}

static void null_free(void *ctx, void *dptr) {
    (void)ctx;
    free(dptr);
}

static jv_status null_copy(void *ctx, void *dst, const void *src, size_t bytes, jv_err *err) {
    (void)ctx;
    (void)err;
    memcpy(dst, src, bytes);
    return JV_OK;
}

static jv_status null_fill(void *ctx, void *dptr, int byte, size_t bytes, jv_err *err) {
    (void)ctx;
    (void)err;
    memset(dptr, byte, bytes);
    return JV_OK;
}

static jv_status null_sync(void *ctx, jv_err *err) {
    (void)ctx;
    (void)err;
    return JV_OK;
}

static jv_status null_timer_start(void *ctx, jv_err *err) {
    null_ctx *c = ctx;
    (void)err;
    clock_gettime(CLOCK_MONOTONIC, &c->t0);
    return JV_OK;
}

static jv_status null_timer_stop(void *ctx, double *seconds, jv_err *err) {
    null_ctx *c = ctx;
    struct timespec t1;
    (void)err;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - c->t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - c->t0.tv_nsec);
    return JV_OK;
}

static jv_status null_prepare(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan, char *impl,
                              size_t impl_cap, jv_err *err) {
    (void)ctx;
    (void)d;
    (void)ops;
    *plan = NULL;
    if (variant != 0) JV_FAIL(err, JV_ERR_NOTFOUND, "null backend: one implementation per op");
    snprintf(impl, impl_cap, "null reference");
    return JV_OK;
}

static jv_status null_launch(void *ctx, void *plan, const jv_desc *d, const jv_operands *ops, void *const *bufs,
                             jv_err *err) {
    (void)ctx;
    (void)plan;
    return jv_desc_reference(d, ops, bufs, NULL, err);
}

static void null_release(void *ctx, void *plan) {
    (void)ctx;
    (void)plan;
}

static jv_status null_baseline(void *ctx, jv_base_kernel k, const float *a, const float *b, float *c, int64_t n,
                               float s, jv_err *err) {
    (void)ctx, (void)a, (void)b, (void)c, (void)n, (void)s;
    JV_FAIL(err, JV_ERR_NOTFOUND, "null backend: no baseline kernels (kernel %d)", (int)k);
}

const jv_backend jv_null_backend = {
    .name = "null",
    .open = null_open,
    .close = null_close,
    .props = null_props,
    .alloc = null_alloc,
    .free = null_free,
    .upload = null_copy,
    .download = null_copy,
    .fill = null_fill,
    .sync = null_sync,
    .timer_start = null_timer_start,
    .timer_stop = null_timer_stop,
    .prepare = null_prepare,
    .launch = null_launch,
    .release = null_release,
    .baseline = null_baseline,
};
