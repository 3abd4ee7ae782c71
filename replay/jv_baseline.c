/* jv_baseline: the elementwise suite and the GEMM ceiling (see jv_baseline.h). */
#include "jv_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_ir.h"

const char *jv_base_name(jv_base_kernel k) {
    static const char *const N[JV_BASE_COUNT] = {"copy", "scale", "add", "triad", "dot"};
    return (unsigned)k < JV_BASE_COUNT ? N[k] : "?";
}

typedef struct {
    const jv_backend *be;
    void *ctx;
    jv_base_kernel k;
    float *a, *b, *c;
    int64_t n;
} base_arg;

static jv_status base_run(void *arg, int set, jv_err *err) {
    (void)set;
    base_arg *x = arg;
    return x->be->baseline(x->ctx, x->k, x->a, x->b, x->c, x->n, 0.5f, err);
}

/* checks a strided sample of c (dot: c[0]) against the host computation */
static int base_check(jv_base_kernel k, const float *ha, const float *hb, const float *hc, int64_t n) {
    if (k == JV_BASE_DOT) {
        double s = 0, sa = 0;
        for (int64_t i = 0; i < n; i++) {
            s += (double)ha[i] * hb[i];
            sa += fabs((double)ha[i] * hb[i]);
        }
        return fabs(hc[0] - s) <= 1e-4 * sa + 1e-6; /* fp32 reduction order */
    }
    int64_t step = n / 4099 + 1;
    for (int64_t i = 0; i < n; i += step) {
        double e;
        switch (k) {
        case JV_BASE_COPY: e = ha[i]; break;
        case JV_BASE_SCALE: e = 0.5 * ha[i]; break;
        case JV_BASE_ADD: e = (double)ha[i] + hb[i]; break;
        default: e = (double)ha[i] + 0.5 * hb[i]; break;
        }
        if (fabs(hc[i] - e) > 1e-6 * (fabs(e) + 1)) return 0;
    }
    return 1;
}

/* an n^3 GEMM of dtype dt into *res; its FLOP/s in *flops (0 when it did not run and verify) */
static jv_status gemm_ceiling(const jv_backend *be, void *ctx, const jv_device_props *p, const jv_run_opts *o,
                              int64_t n, jv_dtype dt, jv_op_result *res, double *flops, jv_err *err) {
    char dims[128], types[128], strides[128];
    snprintf(dims, sizeof dims, "[[%lld, %lld], [%lld, %lld]]", (long long)n, (long long)n, (long long)n, (long long)n);
    snprintf(types, sizeof types, "[\"%s\", \"%s\"]", jv_dtype_trace_name(dt), jv_dtype_trace_name(dt));
    snprintf(strides, sizeof strides, "[[%lld, 1], [%lld, 1]]", (long long)n, (long long)n);
    jv_ir_op op;
    memset(&op, 0, sizeof op);
    op.op_name = (char *)"aten::mm";
    op.index = -1;
    JV_CHECK(jv_opcall_from_trace(&op.call, op.op_name, dims, types, strides, "[\"\", \"\"]", err));
    jv_run_opts go = *o;
    go.cache_cold = 0;
    go.cache_hot = 1;
    go.max_bytes = 0;
    jv_status st = jv_run_op(be, ctx, p, &go, &op, res, err);
    jv_opcall_free(&op.call);
    JV_CHECK(st);
    *flops = 0;
    if (res->status == JV_RES_OK && res->hot.samples > 0 && res->hot.median_s > 0)
        *flops = res->perf.flops / res->hot.median_s;
    return JV_OK;
}

jv_status jv_baseline_run(const jv_backend *be, void *ctx, const jv_device_props *p, const jv_run_opts *o,
                          int64_t array_bytes, int64_t gemm_n, jv_dtype gemm_dtype, jv_baseline *b, jv_err *err) {
    memset(b, 0, sizeof *b);
    int64_t avail = p->free_bytes > 0 ? p->free_bytes : p->memory_bytes;
    if (array_bytes <= 0) {
        if (p->is_gpu)
            array_bytes = (int64_t)1 << 30;
        else {
            array_bytes = 4 * p->llc_bytes;
            if (array_bytes < ((int64_t)64 << 20)) array_bytes = (int64_t)64 << 20;
        }
        while (avail > 0 && 3 * array_bytes > avail / 2 && array_bytes > ((int64_t)1 << 20))
            array_bytes /= 2;
    }
    int64_t n = array_bytes / 4;
    if (n < 1024) n = 1024;
    b->n = n;
    size_t nb = (size_t)n * sizeof(float);
    float *ha = malloc(nb), *hb = malloc(nb), *hc = malloc(nb);
    void *da = NULL, *db = NULL, *dc = NULL;
    jv_status st = JV_OK;
    if (!ha || !hb || !hc) {
        st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "host out of memory for the baseline arrays");
        goto done;
    }
    jv_fill_host(ha, JV_DT_F32, n, JV_INIT_NORMAL, o->seed ^ 0xA11CEull);
    jv_fill_host(hb, JV_DT_F32, n, JV_INIT_NORMAL, o->seed ^ 0xB0Bull);
    {
        jv_err ae = {0};
        if (be->alloc(ctx, nb, &da, &ae) != JV_OK || be->alloc(ctx, nb, &db, &ae) != JV_OK ||
            be->alloc(ctx, nb, &dc, &ae) != JV_OK) {
            if (ae.code != JV_ERR_NOMEM) {
                *err = ae;
                st = ae.code;
            }
            goto done; /* does not fit: no suite */
        }
    }
    JV_CHECK_GOTO(be->upload(ctx, da, ha, nb, err), st, done);
    JV_CHECK_GOTO(be->upload(ctx, db, hb, nb, err), st, done);
    for (int k = 0; k < JV_BASE_COUNT; k++) {
        base_arg x = {be, ctx, (jv_base_kernel)k, da, db, dc, n};
        JV_CHECK_GOTO(be->fill(ctx, dc, 0xFF, nb, err), st, done);
        JV_CHECK_GOTO(base_run(&x, 0, err), st, done);
        JV_CHECK_GOTO(be->sync(ctx, err), st, done);
        JV_CHECK_GOTO(be->download(ctx, hc, dc, k == JV_BASE_DOT ? sizeof(float) : nb, err), st, done);
        b->verified[k] = base_check((jv_base_kernel)k, ha, hb, hc, n);
        jv_timing_opts to = o->timing;
        to.iterations = 0;
        JV_CHECK_GOTO(jv_time(be, ctx, &to, base_run, &x, 1, 0, &b->t[k], err), st, done);
        b->bytes[k] = (double)n * 4.0 * (k == JV_BASE_ADD || k == JV_BASE_TRIAD ? 3 : 2);
        if (b->t[k].median_s > 0) b->bw[k] = b->bytes[k] / b->t[k].median_s;
        if (k != JV_BASE_DOT && b->verified[k] && b->bw[k] > b->bw_ceiling) b->bw_ceiling = b->bw[k];
    }
    b->done = 1;
done:
    if (da) be->free(ctx, da);
    if (db) be->free(ctx, db);
    if (dc) be->free(ctx, dc);
    free(ha);
    free(hb);
    free(hc);
    if (st == JV_OK && gemm_n > 0) {
        b->gemm_n = gemm_n;
        st = gemm_ceiling(be, ctx, p, o, gemm_n, gemm_dtype, &b->gemm, &b->flops_ceiling, err);
        b->gemm_done = st == JV_OK && b->flops_ceiling > 0;
    }
    if (st == JV_OK && b->gemm_done && !p->is_gpu && gemm_dtype == JV_DT_F32) {
        st = gemm_ceiling(be, ctx, p, o, gemm_n, JV_DT_BF16, &b->gemm_alt, &b->flops_ceiling_alt, err);
        b->gemm_alt_done = st == JV_OK && b->flops_ceiling_alt > 0 && !strcmp(b->gemm_alt.impl, b->gemm.impl);
    }
    return st;
}
