/* jv_faulty_backend.c: the fault-injecting wrapper backend (see jv_faulty_backend.h). */
#include "jv_faulty_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_dtype.h"
#include "jv_tensor.h"

typedef struct {
    const jv_backend *inner;
    void *ictx;
    jv_fault mode;
    jv_faulty_stats stats;
} faulty_ctx;

/* a prepared plan of the wrapped backend and the launches made with it */
typedef struct {
    void *inner;
    int64_t launches;
} faulty_plan;

const char *jv_fault_name(jv_fault f) {
    switch (f) {
    case JV_FAULT_NONE: return "none";
    case JV_FAULT_TILE_ZERO: return "tile-zero";
    case JV_FAULT_SPIKE: return "spike-8rms";
    case JV_FAULT_UNWRITTEN: return "unwritten";
    case JV_FAULT_TRANSPOSE: return "transpose";
    case JV_FAULT_SHIFT: return "shift";
    case JV_FAULT_STALE: return "stale";
    case JV_FAULT_NOISE: return "noise-2^-10";
    case JV_FAULT_COUNT: break;
    }
    return "?";
}

void jv_faulty_get_stats(const void *ctx, jv_faulty_stats *s) {
    *s = ((const faulty_ctx *)ctx)->stats;
}

/* ---- forwarding ---- */

static jv_status f_open(int device, void **ctx, jv_err *err) {
    (void)device;
    *ctx = NULL;
    JV_FAIL(err, JV_ERR_NOTFOUND, "faulty backend: made with jv_faulty_wrap, not opened");
}
static void f_close(void *ctx) {
    free(ctx);
}
static jv_status f_props(void *c, jv_device_props *p, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->props(f->ictx, p, e);
}
static jv_status f_alloc(void *c, size_t n, void **d, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->alloc(f->ictx, n, d, e);
}
static void f_free(void *c, void *d) {
    faulty_ctx *f = c;
    f->inner->free(f->ictx, d);
}
static jv_status f_upload(void *c, void *d, const void *s, size_t n, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->upload(f->ictx, d, s, n, e);
}
static jv_status f_download(void *c, void *d, const void *s, size_t n, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->download(f->ictx, d, s, n, e);
}
static jv_status f_fill(void *c, void *d, int b, size_t n, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->fill(f->ictx, d, b, n, e);
}
static jv_status f_sync(void *c, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->sync(f->ictx, e);
}
static jv_status f_tstart(void *c, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->timer_start(f->ictx, e);
}
static jv_status f_tstop(void *c, double *s, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->timer_stop(f->ictx, s, e);
}
static jv_status f_prepare(void *c, const jv_desc *d, const jv_operands *o, int variant, void **plan, char *impl,
                           size_t cap, jv_err *e) {
    faulty_ctx *f = c;
    *plan = NULL;
    faulty_plan *p = calloc(1, sizeof *p);
    if (!p) JV_FAIL(e, JV_ERR_NOMEM, "faulty backend: host out of memory for a plan");
    jv_status st = f->inner->prepare(f->ictx, d, o, variant, &p->inner, impl, cap, e);
    if (st != JV_OK) {
        free(p);
        return st;
    }
    *plan = p;
    return JV_OK;
}
static void f_release(void *c, void *plan) {
    faulty_ctx *f = c;
    faulty_plan *p = plan;
    if (!p) return;
    f->inner->release(f->ictx, p->inner);
    free(p);
}
static jv_status f_baseline(void *c, jv_base_kernel k, const float *a, const float *b, float *o, int64_t n, float s,
                            jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->baseline(f->ictx, k, a, b, o, n, s, e);
}
static void f_range_push(void *c, const char *name) {
    faulty_ctx *f = c;
    f->inner->range_push(f->ictx, name);
}
static void f_range_pop(void *c) {
    faulty_ctx *f = c;
    f->inner->range_pop(f->ictx);
}
static jv_status f_clocks(void *c, jv_clocks *k, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->clocks(f->ictx, k, e);
}
static jv_status f_set_option(void *c, const char *key, const char *value, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->set_option(f->ictx, key, value, e);
}
static jv_status f_flush(void *c, jv_err *e) {
    faulty_ctx *f = c;
    return f->inner->flush_cache(f->ictx, e);
}

/* ---- damage ---- */

/* the operand a fault damages: the first OUT, else the first INOUT; -1 when none */
static int target_operand(const jv_operands *ops) {
    for (int i = 0; i < ops->n; i++)
        if (ops->o[i].role == JV_ROLE_OUT) return i;
    for (int i = 0; i < ops->n; i++)
        if (ops->o[i].role == JV_ROLE_INOUT) return i;
    return -1;
}

/* damages the n logical elements of t in the host copy h of its storage (vals: scratch of n doubles) */
static void damage(jv_fault mode, const jv_tensor *t, unsigned char *h, int64_t n, double *vals) {
    jv_dtype dt = t->dtype;
    size_t es = jv_dtype_size(dt);
    int nd = t->ndim;
    int64_t rows = nd >= 2 ? t->shape[nd - 2] : 1, cols = nd >= 1 ? t->shape[nd - 1] : n;
    switch (mode) {
    case JV_FAULT_TILE_ZERO:
        if (nd >= 2 && rows >= 8 && cols >= 8) {
            int64_t slice = (n / (rows * cols)) / 2, r0 = (rows - 8) / 2, c0 = (cols - 8) / 2;
            for (int64_t r = 0; r < 8; r++)
                for (int64_t k = 0; k < 8; k++) {
                    int64_t l = (slice * rows + r0 + r) * cols + c0 + k;
                    jv_dtype_store(dt, h, jv_tensor_offset_at(t, l), 0.0);
                }
        } else {
            int64_t m = n < 64 ? n : 64, l0 = (n - m) / 2;
            for (int64_t l = l0; l < l0 + m; l++)
                jv_dtype_store(dt, h, jv_tensor_offset_at(t, l), 0.0);
        }
        break;
    case JV_FAULT_SPIKE: {
        double ss = 0;
        int64_t fin = 0;
        for (int64_t l = 0; l < n; l++) {
            double v = jv_dtype_load(dt, h, jv_tensor_offset_at(t, l));
            if (isfinite(v)) ss += v * v, fin++;
        }
        double rms = fin ? sqrt(ss / (double)fin) : 0.0;
        int64_t off = jv_tensor_offset_at(t, n / 2);
        jv_dtype_store(dt, h, off, jv_dtype_load(dt, h, off) + 8.0 * rms);
        break;
    }
    case JV_FAULT_UNWRITTEN: memset(h + (size_t)jv_tensor_offset_at(t, n / 2) * es, 0xFF, es); break;
    case JV_FAULT_TRANSPOSE:
    case JV_FAULT_SHIFT: {
        for (int64_t l = 0; l < n; l++)
            vals[l] = jv_dtype_load(dt, h, jv_tensor_offset_at(t, l));
        int64_t k = rows < cols ? rows : cols;
        for (int64_t l = 0; l < n; l++) {
            int64_t from;
            if (mode == JV_FAULT_SHIFT)
                from = (l + 1) % n;
            else if (nd >= 2 && k >= 2) {
                int64_t base = l - l % (rows * cols), r = (l % (rows * cols)) / cols, c = l % cols;
                from = r < k && c < k ? base + c * cols + r : l;
            } else
                from = n - 1 - l;
            jv_dtype_store(dt, h, jv_tensor_offset_at(t, l), vals[from]);
        }
        break;
    }
    case JV_FAULT_NOISE:
        for (int64_t l = 0; l < n; l++) {
            uint64_t z = (uint64_t)l * 0x9E3779B97F4A7C15ull; /* r in [-1, 1) from the index */
            z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
            const double r = (double)(z >> 11) * 0x1p-52 - 1.0;
            const int64_t off = jv_tensor_offset_at(t, l);
            jv_dtype_store(dt, h, off, jv_dtype_load(dt, h, off) * (1.0 + 0x1p-10 * r));
        }
        break;
    default: break;
    }
}

/* reads operand i back, damages it and writes it back, through the wrapped backend */
static jv_status corrupt(faulty_ctx *f, const jv_operands *ops, void *const *bufs, jv_err *err) {
    int i = target_operand(ops);
    if (i < 0) return JV_OK;
    const jv_tensor *t = &ops->o[i].t;
    int64_t n = jv_tensor_numel(t), ext = jv_tensor_extent(t);
    size_t es = jv_dtype_size(t->dtype);
    if (n <= 0 || ext <= 0 || es == 0 || !jv_dtype_is_numeric(t->dtype)) return JV_OK;
    size_t bytes = (size_t)ext * es;
    unsigned char *h = malloc(bytes), *before = malloc(bytes);
    double *vals = malloc((size_t)n * sizeof *vals);
    jv_status st = JV_OK;
    if (!h || !before || !vals) {
        st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "faulty backend: host out of memory for '%s'",
                        ops->o[i].name);
        goto done;
    }
    JV_CHECK_GOTO(f->inner->sync(f->ictx, err), st, done);
    JV_CHECK_GOTO(f->inner->download(f->ictx, h, bufs[i], bytes, err), st, done);
    memcpy(before, h, bytes);
    damage(f->mode, t, h, n, vals);
    JV_CHECK_GOTO(f->inner->upload(f->ictx, bufs[i], h, bytes, err), st, done);
    int64_t changed = 0;
    for (int64_t l = 0; l < n; l++) {
        size_t off = (size_t)jv_tensor_offset_at(t, l) * es;
        if (memcmp(h + off, before + off, es)) changed++;
    }
    snprintf(f->stats.target, sizeof f->stats.target, "%s", ops->o[i].name);
    f->stats.corrupted++;
    if (changed > f->stats.changed) f->stats.changed = changed; /* an INOUT output damaged again may not change */
done:
    free(h);
    free(before);
    free(vals);
    return st;
}

static jv_status f_launch(void *c, void *plan, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    faulty_ctx *f = c;
    faulty_plan *p = plan;
    if (f->mode == JV_FAULT_STALE && p->launches > 0) {
        p->launches++;
        f->stats.skipped++;
        int i = target_operand(o);
        if (i >= 0) snprintf(f->stats.target, sizeof f->stats.target, "%s", o->o[i].name);
        return JV_OK;
    }
    JV_CHECK(f->inner->launch(f->ictx, p->inner, d, o, b, e));
    p->launches++;
    if (f->mode == JV_FAULT_NONE || f->mode == JV_FAULT_STALE) return JV_OK;
    return corrupt(f, o, b, e);
}

jv_status jv_faulty_wrap(jv_backend *out, const jv_backend *inner, void *inner_ctx, jv_fault mode, void **ctx,
                         jv_err *err) {
    *ctx = NULL;
    if ((int)mode < 0 || mode >= JV_FAULT_COUNT) JV_FAIL(err, JV_ERR_USAGE, "faulty backend: no fault mode %d", mode);
    faulty_ctx *f = calloc(1, sizeof *f);
    if (!f) JV_FAIL(err, JV_ERR_NOMEM, "faulty backend: host out of memory");
    f->inner = inner;
    f->ictx = inner_ctx;
    f->mode = mode;
    memset(out, 0, sizeof *out);
    out->name = inner->name;
    out->open = f_open;
    out->close = f_close;
    out->props = f_props;
    out->alloc = f_alloc;
    out->free = f_free;
    out->upload = f_upload;
    out->download = f_download;
    out->fill = f_fill;
    out->sync = f_sync;
    out->timer_start = f_tstart;
    out->timer_stop = f_tstop;
    out->prepare = f_prepare;
    out->launch = f_launch;
    out->release = f_release;
    out->baseline = f_baseline;
    out->range_push = inner->range_push ? f_range_push : NULL;
    out->range_pop = inner->range_pop ? f_range_pop : NULL;
    out->graph_time = NULL;
    out->clocks = inner->clocks ? f_clocks : NULL;
    out->set_option = inner->set_option ? f_set_option : NULL;
    out->flush_cache = inner->flush_cache ? f_flush : NULL;
    *ctx = f;
    return JV_OK;
}
