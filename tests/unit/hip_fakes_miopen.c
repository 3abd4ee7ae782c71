/* hip_fakes_miopen: fake MIOpen on host memory (tensor dims and strides, the
 * convolution's pads, strides, dilations, groups and mode, immediate-mode
 * solutions and their workspace, ForwardBias as OpTensor(Add, alpha, y, alpha,
 * b, beta, y), BackwardBias, batch norm with the documented statistics, the
 * Find API of hip_fakes.h: each algorithm offered run once on the operands
 * handed over, results sorted by simulated time; the found algorithm's run),
 * refusing mismatched dims, an uncompiled solution, an algorithm not found or
 * a short workspace. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_fakes.h"
#include "jv_dtype.h"

static jv_dtype dt_mi(int t) {
    return t == JV_MIOPEN_FLOAT      ? JV_DT_F32
           : t == JV_MIOPEN_HALF     ? JV_DT_F16
           : t == JV_MIOPEN_BFLOAT16 ? JV_DT_BF16
                                     : JV_DT_F64;
}

/* ---- fake MIOpen ---- */

typedef struct {
    int dt, nd;
    int dims[JV_MAX_DIMS], strides[JV_MAX_DIMS];
} f_tensor;
typedef struct {
    int sp, mode, groups;
    int pad[3], str[3], dil[3];
} f_conv;

static int mi_create(void **h, void *s) {
    memset(F.found, 0, sizeof F.found); /* a new handle has found nothing yet */
    *h = FAKE_STREAM;
    return s == FAKE_STREAM ? 0 : 3;
}
static int mi_destroy(void *h) {
    return h == FAKE_STREAM ? 0 : 3;
}
static int mi_set_stream(void *h, void *s) {
    (void)h;
    return s == FAKE_STREAM ? 0 : 3;
}
static int mi_version(size_t *a, size_t *b, size_t *c) {
    *a = 3, *b = 4, *c = 0;
    return 0;
}
static int mi_tensor_create(void **d) {
    *d = calloc(1, sizeof(f_tensor));
    return *d ? 0 : 4;
}
static int mi_tensor_set(void *d, int dt, int nd, const int *dims, const int *strides) {
    f_tensor *t = d;
    if (nd < 1 || nd > JV_MAX_DIMS) return 3;
    t->dt = dt, t->nd = nd;
    int run = 1;
    for (int i = nd - 1; i >= 0; i--) {
        t->dims[i] = dims[i];
        t->strides[i] = F.drop_strides ? run : strides[i];
        run *= dims[i];
    }
    return 0;
}
static int mi_tensor_destroy(void *d) {
    free(d);
    return 0;
}
static int mi_conv_create(void **d) {
    *d = calloc(1, sizeof(f_conv));
    if (*d) ((f_conv *)*d)->groups = 1;
    return *d ? 0 : 4;
}
static int mi_conv_init(void *d, int sp, const int *pad, const int *str, const int *dil, int mode) {
    f_conv *c = d;
    if (sp < 1 || sp > 3) return 3;
    c->sp = sp, c->mode = mode;
    for (int i = 0; i < sp; i++)
        c->pad[i] = pad[i], c->str[i] = str[i], c->dil[i] = F.ignore_dilation ? 1 : dil[i];
    return 0;
}
static int mi_conv_groups(void *d, int g) {
    ((f_conv *)d)->groups = g;
    return g >= 1 ? 0 : 3;
}
static int mi_conv_destroy(void *d) {
    free(d);
    return 0;
}

/* the element of logical multi-index idx */
static int64_t t_off(const f_tensor *t, const int *idx) {
    int64_t o = 0;
    for (int i = 0; i < t->nd; i++)
        o += (int64_t)idx[i] * t->strides[i];
    return o;
}

/* 0 when x, w, y and c make a normal cross-correlation (the shapes MIOpen would accept) */
static int conv_check(const f_conv *c, const f_tensor *x, const f_tensor *w, const f_tensor *y) {
    if (c->mode != JV_MIOPEN_CONVOLUTION) return 6;
    if (x->nd != w->nd || x->nd != y->nd || c->sp != x->nd - 2) return 3;
    if (x->dt != w->dt || x->dt != y->dt) return 3;
    int g = c->groups;
    if (x->dims[0] != y->dims[0] || y->dims[1] != w->dims[0] || w->dims[1] * g != x->dims[1] || w->dims[0] % g)
        return 3;
    for (int i = 0; i < c->sp; i++) {
        int s = x->dims[2 + i], r = w->dims[2 + i];
        int o = (s + 2 * c->pad[i] - c->dil[i] * (r - 1) - 1) / c->str[i] + 1;
        if (o != y->dims[2 + i]) return 3;
    }
    return 0;
}

/* dir 0: y = conv(x, w); 1: x = conv^T(y, w); 2: w = grad(x, y); naive, in double */
static int naive_conv(int dir, const f_conv *c, const f_tensor *xd, void *x, const f_tensor *wd, void *w,
                      const f_tensor *yd, void *y) {
    int s = conv_check(c, xd, wd, yd);
    if (s) return s;
    const f_tensor *od = dir == 0 ? yd : dir == 1 ? xd : wd;
    void *ob = dir == 0 ? y : dir == 1 ? x : w;
    int64_t on = 1;
    for (int i = 0; i < od->nd; i++)
        on *= od->dims[i];
    double *acc = calloc((size_t)on, sizeof *acc);
    if (!acc) return 4;
    int sp = c->sp, g = c->groups, kpg = wd->dims[0] / g, cpg = wd->dims[1];
    int64_t osz = 1, rsz = 1;
    for (int i = 0; i < sp; i++)
        osz *= yd->dims[2 + i], rsz *= wd->dims[2 + i];
    jv_dtype dt = dt_mi(xd->dt);
    for (int n = 0; n < xd->dims[0]; n++)
        for (int k = 0; k < wd->dims[0]; k++)
            for (int64_t oi = 0; oi < osz; oi++) {
                int o[3], yi[JV_MAX_DIMS] = {n, k};
                for (int64_t t = oi, i = sp - 1; i >= 0; i--)
                    o[i] = (int)(t % yd->dims[2 + i]), t /= yd->dims[2 + i];
                for (int i = 0; i < sp; i++)
                    yi[2 + i] = o[i];
                double yv = dir ? jv_dtype_load(dt, y, t_off(yd, yi)) : 0;
                for (int ci = 0; ci < cpg; ci++)
                    for (int64_t ri = 0; ri < rsz; ri++) {
                        int r[3], xi[JV_MAX_DIMS] = {n, (k / kpg) * cpg + ci}, wi[JV_MAX_DIMS] = {k, ci}, in = 1;
                        for (int64_t t = ri, i = sp - 1; i >= 0; i--)
                            r[i] = (int)(t % wd->dims[2 + i]), t /= wd->dims[2 + i];
                        for (int i = 0; i < sp; i++) {
                            xi[2 + i] = o[i] * c->str[i] - c->pad[i] + r[i] * c->dil[i];
                            wi[2 + i] = r[i];
                            in &= xi[2 + i] >= 0 && xi[2 + i] < xd->dims[2 + i];
                        }
                        if (!in) continue;
                        const int *oidx = dir == 0 ? yi : dir == 1 ? xi : wi;
                        int64_t li = 0; /* logical row-major index in the output */
                        for (int i = 0; i < od->nd; i++)
                            li = li * od->dims[i] + oidx[i];
                        if (dir == 0)
                            acc[li] += jv_dtype_load(dt, x, t_off(xd, xi)) * jv_dtype_load(dt, w, t_off(wd, wi));
                        else if (dir == 1)
                            acc[li] += yv * jv_dtype_load(dt, w, t_off(wd, wi));
                        else
                            acc[li] += yv * jv_dtype_load(dt, x, t_off(xd, xi));
                    }
            }
    for (int64_t li = 0; li < on; li++) {
        int idx[JV_MAX_DIMS] = {0};
        for (int64_t t = li, i = od->nd - 1; i >= 0; i--)
            idx[i] = (int)(t % od->dims[i]), t /= od->dims[i];
        jv_dtype_store(dt, ob, t_off(od, idx), acc[li]);
    }
    free(acc);
    return 0;
}

/* two solutions per direction: the first needs more workspace than any plan offers, the second 4096 bytes */
#define SOL_ID(dir) (200u + (unsigned)(dir))
static int get_sol(int dir, size_t max, size_t *count, jv_miopen_solution *s) {
    F.get_solutions[dir]++;
    if (max < 2) return 3;
    memset(s, 0, 2 * sizeof *s);
    s[0].workspace_size = (size_t)1 << 40, s[0].solution_id = 100u + (unsigned)dir, s[0].algorithm = 1;
    s[1].workspace_size = 4096, s[1].solution_id = SOL_ID(dir), s[1].algorithm = 5;
    *count = 2;
    return 0;
}
static int fwd_get(void *h, void *w, void *x, void *c, void *y, size_t max, size_t *n, jv_miopen_solution *s) {
    (void)h;
    int e = conv_check(c, x, w, y);
    return e ? e : get_sol(0, max, n, s);
}
static int bwd_data_get(void *h, void *dy, void *w, void *c, void *dx, size_t max, size_t *n, jv_miopen_solution *s) {
    (void)h;
    int e = conv_check(c, dx, w, dy);
    return e ? e : get_sol(1, max, n, s);
}
static int bwd_w_get(void *h, void *dy, void *x, void *c, void *dw, size_t max, size_t *n, jv_miopen_solution *s) {
    (void)h;
    int e = conv_check(c, x, dw, dy);
    return e ? e : get_sol(2, max, n, s);
}
static int compile_dir(int dir, uint64_t id) {
    if (id != SOL_ID(dir)) return 3;
    F.compiled[dir] = 1;
    return 0;
}
static int fwd_compile(void *h, void *a, void *b, void *c, void *d, uint64_t id) {
    (void)h, (void)a, (void)b, (void)c, (void)d;
    return compile_dir(0, id);
}
static int bwd_data_compile(void *h, void *a, void *b, void *c, void *d, uint64_t id) {
    (void)h, (void)a, (void)b, (void)c, (void)d;
    return compile_dir(1, id);
}
static int bwd_w_compile(void *h, void *a, void *b, void *c, void *d, uint64_t id) {
    (void)h, (void)a, (void)b, (void)c, (void)d;
    return compile_dir(2, id);
}
static int imm_ok(int dir, void *ws, size_t ws_bytes, uint64_t id) {
    F.mi_calls++;
    return F.compiled[dir] && id == SOL_ID(dir) && ws && ws_bytes >= 4096;
}
static int fwd_imm(void *h, void *wd, const void *w, void *xd, const void *x, void *c, void *yd, void *y, void *ws,
                   size_t wsb, uint64_t id) {
    (void)h;
    if (!imm_ok(0, ws, wsb, id)) return 3;
    return naive_conv(0, c, xd, (void *)x, wd, (void *)w, yd, y);
}
static int bwd_data_imm(void *h, void *dyd, const void *dy, void *wd, const void *w, void *c, void *dxd, void *dx,
                        void *ws, size_t wsb, uint64_t id) {
    (void)h;
    if (!imm_ok(1, ws, wsb, id)) return 3;
    return naive_conv(1, c, dxd, dx, wd, (void *)w, dyd, (void *)dy);
}
static int bwd_w_imm(void *h, void *dyd, const void *dy, void *xd, const void *x, void *c, void *dwd, void *dw,
                     void *ws, size_t wsb, uint64_t id) {
    (void)h;
    if (!imm_ok(2, ws, wsb, id)) return 3;
    return naive_conv(2, c, xd, (void *)x, dwd, dw, dyd, (void *)dy);
}
/* ---- the Find API (see hip_fakes.h) ---- */

/* Find for direction dir over the operands in the roles of y = conv(x, w) */
static int find_dir(int dir, void *c, void *xd, void *x, void *wd, void *w, void *yd, void *y, int req, int *ret,
                    jv_miopen_perf *perf, void *ws, size_t wsb, bool exhaustive) {
    static const int ALGO[4] = HIPF_FIND_ALGOS;
    int e = conv_check(c, xd, wd, yd);
    if (e) return e;
    F.find_calls[dir]++;
    F.find_exhaustive = exhaustive;
    F.find_req = req;
    if (req < 1 || F.find_n < 1 || F.find_n > 4) return 3;
    jv_miopen_perf r[4];
    int n = 0;
    for (int k = 0; k < F.find_n; k++) {
        if (F.find_ws[k] > wsb || (F.find_ws[k] && !ws)) continue;
        F.find_tried[dir][k]++;
        e = naive_conv(dir, c, xd, x, wd, w, yd, y); /* the run on the operands handed over */
        if (e) return e;
        F.found[dir][k] = 1;
        r[n].algo = ALGO[k], r[n].time = (float)F.find_ms[k], r[n].memory = F.find_ws[k];
        for (int i = n++; i > 0 && r[i].time < r[i - 1].time; i--) {
            jv_miopen_perf t = r[i];
            r[i] = r[i - 1], r[i - 1] = t;
        }
    }
    *ret = n < req ? n : req;
    memcpy(perf, r, (size_t)*ret * sizeof *perf);
    return 0;
}
static int fwd_find(void *h, void *xd, const void *x, void *wd, const void *w, void *c, void *yd, void *y, int req,
                    int *ret, jv_miopen_perf *perf, void *ws, size_t wsb, bool ex) {
    (void)h;
    return find_dir(0, c, xd, (void *)x, wd, (void *)w, yd, y, req, ret, perf, ws, wsb, ex);
}
static int bwd_data_find(void *h, void *dyd, const void *dy, void *wd, const void *w, void *c, void *dxd, void *dx,
                         int req, int *ret, jv_miopen_perf *perf, void *ws, size_t wsb, bool ex) {
    (void)h;
    return find_dir(1, c, dxd, dx, wd, (void *)w, dyd, (void *)dy, req, ret, perf, ws, wsb, ex);
}
static int bwd_w_find(void *h, void *dyd, const void *dy, void *xd, const void *x, void *c, void *dwd, void *dw,
                      int req, int *ret, jv_miopen_perf *perf, void *ws, size_t wsb, bool ex) {
    (void)h;
    return find_dir(2, c, xd, (void *)x, dwd, dw, dyd, (void *)dy, req, ret, perf, ws, wsb, ex);
}
/* a found algorithm of direction dir with its workspace, alpha 1 and beta 0 */
static int run_ok(int dir, const void *alpha, int algo, const void *beta, void *ws, size_t wsb) {
    static const int ALGO[4] = HIPF_FIND_ALGOS;
    float a, b;
    memcpy(&a, alpha, 4), memcpy(&b, beta, 4);
    F.mi_calls++;
    for (int k = 0; k < 4; k++)
        if (ALGO[k] == algo && F.found[dir][k] && wsb >= F.find_ws[k] && (ws || !F.find_ws[k]) && a == 1 && b == 0) {
            F.run_algo[dir] = algo;
            return 1;
        }
    return 0;
}
static int fwd_run(void *h, const void *alpha, void *xd, const void *x, void *wd, const void *w, void *c, int algo,
                   const void *beta, void *yd, void *y, void *ws, size_t wsb) {
    (void)h;
    if (!run_ok(0, alpha, algo, beta, ws, wsb)) return 3;
    return naive_conv(0, c, xd, (void *)x, wd, (void *)w, yd, y);
}
static int bwd_data_run(void *h, const void *alpha, void *dyd, const void *dy, void *wd, const void *w, void *c,
                        int algo, const void *beta, void *dxd, void *dx, void *ws, size_t wsb) {
    (void)h;
    if (!run_ok(1, alpha, algo, beta, ws, wsb)) return 3;
    return naive_conv(1, c, dxd, dx, wd, (void *)w, dyd, (void *)dy);
}
static int bwd_w_run(void *h, const void *alpha, void *dyd, const void *dy, void *xd, const void *x, void *c, int algo,
                     const void *beta, void *dwd, void *dw, void *ws, size_t wsb) {
    (void)h;
    if (!run_ok(2, alpha, algo, beta, ws, wsb)) return 3;
    return naive_conv(2, c, xd, (void *)x, dwd, dw, dyd, (void *)dy);
}

/* y = alpha*y + alpha*b + beta*y over y's elements, b [1, C, 1, ...] (MIOpen: OpTensor Add) */
static int mi_fwd_bias(void *h, const void *alpha, void *bd, const void *b, const void *beta, void *yd, void *y) {
    (void)h;
    const f_tensor *bt = bd, *yt = yd;
    if (dt_mi(yt->dt) == JV_DT_BF16) return 6; /* MIOpen refuses bf16 here */
    float a, be;
    memcpy(&a, alpha, 4), memcpy(&be, beta, 4);
    if (bt->dims[1] != yt->dims[1]) return 3;
    int64_t n = 1;
    for (int i = 0; i < yt->nd; i++)
        n *= yt->dims[i];
    jv_dtype dt = dt_mi(yt->dt);
    for (int64_t li = 0; li < n; li++) {
        int idx[JV_MAX_DIMS] = {0}, bi[JV_MAX_DIMS] = {0};
        for (int64_t t = li, i = yt->nd - 1; i >= 0; i--)
            idx[i] = (int)(t % yt->dims[i]), t /= yt->dims[i];
        bi[1] = idx[1];
        int64_t o = t_off(yt, idx);
        double v = jv_dtype_load(dt, y, o);
        jv_dtype_store(dt, y, o, a * v + a * jv_dtype_load(dt_mi(bt->dt), b, t_off(bt, bi)) + be * v);
    }
    return 0;
}
/* db = alpha * sum of dy over all but C + beta * db */
static int mi_bwd_bias(void *h, const void *alpha, void *dyd, const void *dy, const void *beta, void *dbd, void *db) {
    (void)h;
    const f_tensor *yt = dyd, *bt = dbd;
    if (dt_mi(yt->dt) == JV_DT_BF16) return 6;
    float a, be;
    memcpy(&a, alpha, 4), memcpy(&be, beta, 4);
    int64_t n = 1;
    for (int i = 0; i < yt->nd; i++)
        n *= yt->dims[i];
    double *sum = calloc((size_t)yt->dims[1], sizeof *sum);
    if (!sum) return 4;
    for (int64_t li = 0; li < n; li++) {
        int idx[JV_MAX_DIMS] = {0};
        for (int64_t t = li, i = yt->nd - 1; i >= 0; i--)
            idx[i] = (int)(t % yt->dims[i]), t /= yt->dims[i];
        sum[idx[1]] += jv_dtype_load(dt_mi(yt->dt), dy, t_off(yt, idx));
    }
    for (int c = 0; c < yt->dims[1]; c++) {
        int bi[JV_MAX_DIMS] = {0, c};
        int64_t o = t_off(bt, bi);
        double old = be != 0 ? jv_dtype_load(dt_mi(bt->dt), db, o) : 0;
        jv_dtype_store(dt_mi(bt->dt), db, o, a * sum[c] + be * old);
    }
    free(sum);
    return 0;
}

/* ---- fake MIOpen batch norm (spatial: statistics per channel over N and the spatial dims) ---- */

static int bn_derive(void *bd, void *xd, int mode) {
    f_tensor *b = bd;
    const f_tensor *x = xd;
    if (mode != JV_MIOPEN_BN_SPATIAL) return 6;
    b->dt = x->dt == JV_MIOPEN_DOUBLE ? JV_MIOPEN_DOUBLE : JV_MIOPEN_FLOAT, b->nd = x->nd;
    for (int i = 0; i < x->nd; i++)
        b->dims[i] = i == 1 ? x->dims[1] : 1, b->strides[i] = i == 1 ? 1 : x->dims[1];
    return 0;
}
static int64_t per_channel(const f_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->nd; i++)
        n *= i == 1 ? 1 : t->dims[i];
    return n;
}
/* the offsets of channel c's elements of t in logical order (n = per_channel(t) of them) */
static void channel_offsets(const f_tensor *t, int c, int64_t *off) {
    int64_t n = per_channel(t);
    for (int64_t li = 0; li < n; li++) {
        int idx[JV_MAX_DIMS] = {0};
        for (int64_t r = li, i = t->nd - 1; i >= 0; i--) {
            if (i == 1) {
                idx[1] = c;
                continue;
            }
            idx[i] = (int)(r % t->dims[i]), r /= t->dims[i];
        }
        off[li] = t_off(t, idx);
    }
}
static int bn_args_ok(int mode, const void *alpha, const void *beta, const f_tensor *x, const f_tensor *y) {
    float a, b;
    memcpy(&a, alpha, 4), memcpy(&b, beta, 4);
    if (mode != JV_MIOPEN_BN_SPATIAL || a != 1 || b != 0 || x->nd != y->nd) return 0;
    for (int i = 0; i < x->nd; i++)
        if (x->dims[i] != y->dims[i]) return 0;
    return 1;
}
/* y = (x - mean) * inv * w + b over one channel's n elements at offsets ox (x) and oy (y) */
static void bn_normalize(jv_dtype dx, const void *x, const int64_t *ox, jv_dtype dy, void *y, const int64_t *oy,
                         int64_t n, double mean, double inv, double w, double b) {
    for (int64_t i = 0; i < n; i++)
        jv_dtype_store(dy, y, oy[i], (jv_dtype_load(dx, x, ox[i]) - mean) * inv * w + b);
}

static int bn_train(void *h, int mode, void *alpha, void *beta, void *xd, const void *x, void *yd, void *y, void *bd,
                    void *scale, void *bias, double mom, void *rm, void *rv, double eps, void *sm, void *siv) {
    (void)h, (void)bd;
    const f_tensor *xt = xd, *yt = yd;
    if (!bn_args_ok(mode, alpha, beta, xt, yt)) return 3;
    jv_dtype dx = dt_mi(xt->dt), dy = dt_mi(yt->dt);
    int64_t n = per_channel(xt);
    int64_t *ox = malloc((size_t)n * sizeof *ox), *oy = malloc((size_t)n * sizeof *oy);
    if (!ox || !oy) return free(ox), free(oy), 4;
    for (int c = 0; c < xt->dims[1]; c++) {
        channel_offsets(xt, c, ox);
        channel_offsets(yt, c, oy);
        double s = 0, q = 0;
        for (int64_t i = 0; i < n; i++)
            s += jv_dtype_load(dx, x, ox[i]);
        double mean = s / (double)n;
        for (int64_t i = 0; i < n; i++) {
            double e = jv_dtype_load(dx, x, ox[i]) - mean;
            q += e * e;
        }
        double var = q / (double)n, inv = 1 / sqrt(var + eps);
        bn_normalize(dx, x, ox, dy, y, oy, n, mean, inv, jv_dtype_load(JV_DT_F32, scale, c),
                     jv_dtype_load(JV_DT_F32, bias, c));
        if (rm) jv_dtype_store(JV_DT_F32, rm, c, (1 - mom) * jv_dtype_load(JV_DT_F32, rm, c) + mom * mean);
        if (rv)
            jv_dtype_store(JV_DT_F32, rv, c,
                           (1 - mom) * jv_dtype_load(JV_DT_F32, rv, c) + mom * var * (double)n / (double)(n - 1));
        if (sm) jv_dtype_store(JV_DT_F32, sm, c, mean);
        if (siv) jv_dtype_store(JV_DT_F32, siv, c, inv);
    }
    free(ox), free(oy);
    return 0;
}
static int bn_infer(void *h, int mode, void *alpha, void *beta, void *xd, const void *x, void *yd, void *y, void *bd,
                    void *scale, void *bias, void *mean, void *var, double eps) {
    (void)h, (void)bd;
    const f_tensor *xt = xd, *yt = yd;
    if (!bn_args_ok(mode, alpha, beta, xt, yt)) return 3;
    jv_dtype dx = dt_mi(xt->dt), dy = dt_mi(yt->dt);
    int64_t n = per_channel(xt);
    int64_t *ox = malloc((size_t)n * sizeof *ox), *oy = malloc((size_t)n * sizeof *oy);
    if (!ox || !oy) return free(ox), free(oy), 4;
    for (int c = 0; c < xt->dims[1]; c++) {
        channel_offsets(xt, c, ox);
        channel_offsets(yt, c, oy);
        bn_normalize(dx, x, ox, dy, y, oy, n, jv_dtype_load(JV_DT_F32, mean, c),
                     1 / sqrt(jv_dtype_load(JV_DT_F32, var, c) + eps), jv_dtype_load(JV_DT_F32, scale, c),
                     jv_dtype_load(JV_DT_F32, bias, c));
    }
    free(ox), free(oy);
    return 0;
}
static int bn_bwd(void *h, int mode, const void *ad, const void *bd_, const void *ap, const void *bp, void *xd,
                  const void *x, void *dyd, const void *dy, void *dxd, void *dx, void *bnd, const void *scale,
                  void *dscale, void *dbias, double eps, const void *sm, const void *siv) {
    (void)h, (void)bnd, (void)eps;
    const f_tensor *xt = xd, *yt = dyd, *gt = dxd;
    if (!bn_args_ok(mode, ad, bd_, xt, yt) || !bn_args_ok(mode, ap, bp, xt, gt) || !sm || !siv) return 3;
    jv_dtype tx = dt_mi(xt->dt), ty = dt_mi(yt->dt), tg = dt_mi(gt->dt);
    int64_t n = per_channel(xt);
    int64_t *ox = malloc((size_t)n * sizeof *ox), *oy = malloc((size_t)n * sizeof *oy),
            *og = malloc((size_t)n * sizeof *og);
    if (!ox || !oy || !og) return free(ox), free(oy), free(og), 4;
    for (int c = 0; c < xt->dims[1]; c++) {
        channel_offsets(xt, c, ox);
        channel_offsets(yt, c, oy);
        channel_offsets(gt, c, og);
        double mean = jv_dtype_load(JV_DT_F32, sm, c), inv = jv_dtype_load(JV_DT_F32, siv, c);
        double w = jv_dtype_load(JV_DT_F32, scale, c), sdy = 0, sdyx = 0;
        for (int64_t i = 0; i < n; i++) {
            double g = jv_dtype_load(ty, dy, oy[i]);
            sdy += g, sdyx += g * (jv_dtype_load(tx, x, ox[i]) - mean) * inv;
        }
        for (int64_t i = 0; i < n; i++) {
            double xh = (jv_dtype_load(tx, x, ox[i]) - mean) * inv, g = jv_dtype_load(ty, dy, oy[i]);
            jv_dtype_store(tg, dx, og[i], w * inv * (g - sdy / (double)n - xh * sdyx / (double)n));
        }
        jv_dtype_store(JV_DT_F32, dscale, c, sdyx);
        jv_dtype_store(JV_DT_F32, dbias, c, sdy);
    }
    free(ox), free(oy), free(og);
    return 0;
}

void hipf_miopen_api(jv_miopen_api *t) {
    jv_miopen_api a = {mi_create,        mi_destroy,        mi_set_stream,  mi_version,    mi_tensor_create,
                       mi_tensor_set,    mi_tensor_destroy, mi_conv_create, mi_conv_init,  mi_conv_groups,
                       mi_conv_destroy,  fwd_get,           fwd_compile,    fwd_imm,       bwd_data_get,
                       bwd_data_compile, bwd_data_imm,      bwd_w_get,      bwd_w_compile, bwd_w_imm,
                       mi_fwd_bias,      mi_bwd_bias,       bn_derive,      bn_train,      bn_infer,
                       bn_bwd,           fwd_find,          fwd_run,        bwd_data_find, bwd_data_run,
                       bwd_w_find,       bwd_w_run};
    *t = a;
}
