/* jv_runner: one op from IR entry to verified, timed result (see jv_runner.h). */
#include "jv_runner.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_progress.h" /* jv_now */
#include "jv_sampling.h"

const char *jv_res_status_str(jv_res_status s) {
    switch (s) {
    case JV_RES_OK: return "ok";
    case JV_RES_WRONG: return "WRONG";
    case JV_RES_SKIPPED: return "skipped";
    case JV_RES_REFUSED: return "refused";
    case JV_RES_ERROR: return "error";
    case JV_RES_NOT_RUN: return "not run";
    }
    return "?";
}

void jv_run_opts_default(jv_run_opts *o, const jv_device_props *p) {
    memset(o, 0, sizeof *o);
    o->cache_hot = 1;
    o->cache_cold = 1;
    o->seed = 20261121;
    o->verify_samples = 4096;
    o->verify_lines = 2;
    o->verify_last = 1;
    o->graph = 1;                 /* used where the backend has graph_time */
    o->timing.target_rsd = 0.005; /* nvbench's 0.5 % */
    o->timing.min_samples = 10;
    o->timing.max_samples = 1000;
    if (p->is_gpu) {
        o->timing.warmup_s = 0.02;
        o->timing.min_sample_s = 100e-6;
        o->timing.max_time_s = 1.0;
    } else {
        o->timing.warmup_s = 0.002;
        o->timing.min_sample_s = 1e-3;
        o->timing.max_time_s = 0.25;
        o->timing.min_samples = 5;
    }
    /* a full double-precision reference on the host above this would take seconds, longer than the timing
     * (--time-limit) itself: such outputs are checked on a block-covering sample (jv_sampling.h) */
    o->verify_max_flops = 2e9;
}

/* ---- seeded random data ---- */

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double unif(uint64_t *s) {
    return ((double)(splitmix(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Elements [lo, hi) of the fill; lo even. The generator is counter based: the
 * k-th splitmix draw (from 1) of a serial fill is splitmix of seed + (k-1)*G,
 * so any range starts from its own state and ranges can run in parallel. */
static void fill_range(void *buf, jv_dtype dt, int64_t lo, int64_t hi, jv_init init, uint64_t seed) {
    uint64_t s = seed + (uint64_t)lo * 0x9E3779B97F4A7C15ull; /* normal: 2 draws per pair, pair lo/2 */
    for (int64_t i = lo; i < hi; i++) {
        double v;
        if (init == JV_INIT_POSITIVE)
            v = 0.5 + unif(&s);
        else if (init == JV_INIT_MASK)
            v = (double)(splitmix(&s) >> 63);
        else if (init == JV_INIT_NONE)
            v = 0;
        else if (init == JV_INIT_INDEX)
            v = (double)i;
        else {
            /* Box-Muller, both values used */
            double u1 = unif(&s), u2 = unif(&s), r = sqrt(-2.0 * log(u1));
            v = r * cos(6.283185307179586 * u2);
            jv_dtype_store(dt, buf, i, v);
            if (++i >= hi) break;
            v = r * sin(6.283185307179586 * u2);
        }
        jv_dtype_store(dt, buf, i, v);
    }
}

void jv_fill_host(void *buf, jv_dtype dt, int64_t n, jv_init init, uint64_t seed) {
    enum { CHUNK = 1 << 18 }; /* even: a normal pair never straddles two chunks */
    const int64_t chunks = (n + CHUNK - 1) / CHUNK;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (chunks > 1)
#endif
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
        fill_range(buf, dt, lo, hi, init, seed);
    }
}

/* ---- one op ---- */

typedef struct {
    const jv_backend *be;
    void *ctx;
    void *plan;
    const jv_desc *d;
    const jv_operands *ops;
    void ***sets; /* sets[k][i]: device storage of operand i in set k */
} launch_arg;

static jv_status launch_set(void *arg, int set, jv_err *err) {
    launch_arg *a = arg;
    return a->be->launch(a->ctx, a->plan, a->d, a->ops, a->sets[set], err);
}

static void read_clocks(const jv_backend *be, void *ctx, jv_clocks *c) {
    memset(c, 0, sizeof *c);
    jv_err e = {0};
    if (be->clocks && be->clocks(ctx, c, &e) != JV_OK) memset(c, 0, sizeof *c);
}

/* throttling, judged on the clocks read under load: a power, thermal or hardware-slowdown reason in force,
 * or a lowest SM clock more than 10 % under the highest allowed one (the idle clock when that is unknown) */
static void note_throttle(jv_op_result *r) {
    jv_clocks *l = &r->clk_load;
    memset(l, 0, sizeof *l);
    jv_clocks_merge_load(l, &r->hot.load);
    jv_clocks_merge_load(l, &r->cold.load);
    r->throttled = 0;
    r->throttle[0] = 0;
    if (!l->known) return;
    unsigned bad = l->reasons & (JV_THROTTLE_POWER | JV_THROTTLE_THERMAL | JV_THROTTLE_HW_SLOWDOWN);
    double ref = l->sm_max_mhz > 0 ? l->sm_max_mhz : r->clk_start.known ? r->clk_start.sm_mhz : 0;
    int dropped = ref > 0 && l->sm_mhz < 0.9 * ref;
    if (!bad && !dropped) return;
    r->throttled = 1;
    snprintf(r->throttle, sizeof r->throttle, "SM clock under load %.0f MHz (allowed %.0f, idle %.0f)%s%s%s", l->sm_mhz,
             l->sm_max_mhz, r->clk_start.sm_mhz, bad & JV_THROTTLE_POWER ? "; power cap" : "",
             bad & JV_THROTTLE_THERMAL ? "; thermal" : "", bad & JV_THROTTLE_HW_SLOWDOWN ? "; hardware slowdown" : "");
}

int jv_graph_wanted(const jv_timing *hot, const jv_device_props *p, char *why, size_t cap) {
    if (cap) why[0] = 0;
    if (hot->samples == 0 || hot->median_s <= 0) return 0;
    double t = hot->median_s, launch = p->launch_us * 1e-6;
    if (launch > 0 && launch >= JV_GRAPH_LAUNCH_FRAC * t) {
        snprintf(why, cap, "the device's launch cost %.2f us is %.0f %% of the %.2f us hot median", p->launch_us,
                 100 * launch / t, t * 1e6);
        return 1;
    }
    if (hot->host_s > 0 && hot->host_s >= JV_GRAPH_HOST_FRAC * t) {
        snprintf(why, cap, "queueing a run takes the host %.2f us, %.0f %% of the %.2f us hot median",
                 hot->host_s * 1e6, 100 * hot->host_s / t, t * 1e6);
        return 1;
    }
    return 0;
}

/* a short op's device time without launch cost: runs captured in one graph, the graph replayed and timed */
static jv_status graph_time(const jv_backend *be, void *ctx, const jv_run_opts *o, launch_arg *la, jv_op_result *r,
                            jv_err *err) {
    double span = o->timing.min_sample_s > 1e-3 ? o->timing.min_sample_s : 1e-3; /* graph length: >= 1 ms */
    double per_run = span / r->hot.median_s;
    int runs = per_run < 10 ? 10 : per_run > 10000 ? 10000 : (int)per_run;
    jv_err ge = {0};
    double s = 0;
    jv_status st = be->graph_time(ctx, launch_set, la, runs, 11, &s, &ge);
    if (st == JV_ERR_NOTFOUND) { /* the capture was refused (a library call that cannot be captured) */
        snprintf(r->graph_note, sizeof r->graph_note, "%.150s", ge.msg);
        return JV_OK;
    }
    if (st != JV_OK) {
        *err = ge;
        return st;
    }
    r->graph_s = s;
    r->graph_runs = runs;
    return JV_OK;
}

static void fmt_bytes(char *buf, size_t cap, double b) {
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, cap, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, cap, "%.1f MiB", b / (1024.0 * 1024));
    else
        snprintf(buf, cap, "%.1f KiB", b / 1024.0);
}

/* "aten::mm bf16[64,128] bf16[128,256]T" from the read operands */
static void make_label(jv_op_result *r, const jv_operands *ops) {
    size_t cap = sizeof r->label, l = (size_t)snprintf(r->label, cap, "%s", r->op);
    for (int i = 0; i < ops->n && l < cap; i++) {
        const jv_operand *o = &ops->o[i];
        if (o->role == JV_ROLE_OUT) continue;
        l += (size_t)snprintf(r->label + l, cap - l, " %s[", jv_dtype_short(o->t.dtype));
        for (int k = 0; k < o->t.ndim && l < cap; k++)
            l += (size_t)snprintf(r->label + l, cap - l, "%s%lld", k ? "," : "", (long long)o->t.shape[k]);
        if (l < cap) l += (size_t)snprintf(r->label + l, cap - l, "]");
        jv_layout lay = jv_tensor_layout(&o->t);
        const char *suf = lay == JV_LAYOUT_CHANNELS_LAST ? "cl"
                          : lay == JV_LAYOUT_TRANSPOSED  ? "T"
                          : lay == JV_LAYOUT_STRIDED     ? "s"
                          : lay == JV_LAYOUT_BROADCAST   ? "b"
                                                         : "";
        if (*suf && l < cap) l += (size_t)snprintf(r->label + l, cap - l, "%s", suf);
    }
}

/* bytes of operand storage, or -1 on overflow */
static int64_t operand_bytes(const jv_operand *o) {
    int64_t e = jv_tensor_extent(&o->t);
    int64_t es = (int64_t)jv_dtype_size(o->t.dtype);
    if (e < 0 || es <= 0 || e > INT64_MAX / es) return -1;
    return e * es;
}

/* our "jarvis" keys of the entry (zero / empty for a TraceLens file) */
static void read_extra(const jv_ir_op *op, jv_op_result *r) {
    const jv_ir_traced *t = &op->traced;
    r->traced_count = t->count;
    r->traced_median_us = t->median_us;
    r->traced_total_us = t->total_us;
    r->ex_uid = t->ex_uid;
    snprintf(r->category, sizeof r->category, "%s", t->category);
    snprintf(r->traced_kernels, sizeof r->traced_kernels, "%s", t->kernels);
}

static void set_reason(jv_op_result *r, jv_res_status st, const char *prefix, const char *detail) {
    r->status = st;
    snprintf(r->reason, sizeof r->reason, "%s%s", prefix, detail);
}

#define JV_VERIFY_SAMPLE_S 0.5 /* host seconds of reference per sampled output, about (see verify_op) */
#define JV_VERIFY_PROBE    32  /* elements timed first to size the sample */
#define JV_VERIFY_LINES_S  0.5 /* host seconds of reference for the complete rows and columns, at most */

/* The sample of output `pass` (jv_sampling.h): o->verify_samples elements over its blocks, fewer (never under
 * 256) where one element's reference is costly, as a weight gradient's (a sum over the batch and the image):
 * JV_VERIFY_PROBE evenly spaced elements are timed and the sample sized to about JV_VERIFY_SAMPLE_S; plus
 * o->verify_lines complete rows and as many complete columns while they fit in JV_VERIFY_LINES_S more (the
 * longer lines dropped first). ref: scratch reference buffers the probe writes into. */
static jv_status sample_plan(const jv_run_opts *o, const jv_desc *d, const jv_operands *ops, int pass, void **ref,
                             int64_t **idx, jv_sample_plan *plan, jv_err *err) {
    const jv_tensor *t = &ops->o[pass].t;
    int64_t numel = jv_tensor_numel(t), budget = numel < o->verify_samples ? numel : o->verify_samples;
    if (budget < 1) budget = 1;
    jv_sample_view v;
    jv_sample_view_make(t, &v);
    int64_t fr = o->verify_lines, fc = o->verify_lines;
    if (numel > JV_VERIFY_PROBE) {
        int64_t probe[JV_VERIFY_PROBE];
        for (int k = 0; k < JV_VERIFY_PROBE; k++)
            probe[k] = (int64_t)((double)numel * ((double)k + 0.5) / JV_VERIFY_PROBE);
        jv_sample ps = {pass, JV_VERIFY_PROBE, probe};
        jv_err perr = {0};
        double t0 = jv_now();
        if (jv_desc_reference(d, ops, ref, &ps, &perr) == JV_OK) {
            double per = (jv_now() - t0) / JV_VERIFY_PROBE;
            if (per * (double)budget > JV_VERIFY_SAMPLE_S) {
                int64_t fit = (int64_t)(JV_VERIFY_SAMPLE_S / per);
                budget = fit < 256 ? 256 : fit;
            }
            while ((fr > 0 || fc > 0) && per * (double)(fr * v.cols + fc * v.rows) > JV_VERIFY_LINES_S) {
                if (fr > 0 && (v.cols >= v.rows || fc == 0))
                    fr--;
                else
                    fc--;
            }
        }
    }
    return jv_sample_plan_make(t, budget, fr, fc, o->seed ^ (0x5bd1e995ull * (uint64_t)(pass + 1)), idx, plan, err);
}

/* compares device outputs with the reference; sampled when the op is big */
/* Which outputs a check compares: every one (the first check); after the timed launches (last 1), the OUT
 * operands as the last timed launch left them; then (last 2) the INOUT ones, which every launch updated, as a
 * launch from their restored inputs leaves them */
enum { CHECK_FIRST = 0, CHECK_LAST_OUT = 1, CHECK_LAST_INOUT = 2 };
static int compared(jv_role role, int last) {
    return last == CHECK_LAST_OUT     ? role == JV_ROLE_OUT
           : last == CHECK_LAST_INOUT ? role == JV_ROLE_INOUT
                                      : role != JV_ROLE_IN;
}

/* compares device outputs with the reference; sampled when the op is big. last: the check after the timed
 * launches (OUT operands only; the verdict of the first check stays in r->verify, a failure here makes the
 * result WRONG all the same). keep: a full (unsampled) first check leaves its reference results there, and the
 * check after the timed launches compares with them instead of running the reference again; the caller frees
 * them. */
/* The accumulation length of an op: its FLOPs over 2 x the elements of its largest output (a GEMM's K, a
 * convolution's C_in/G x kh x kw; about 1 for elementwise ops), at least 1. */
static double acc_len(double flops, const jv_operands *ops) {
    int64_t most = 0;
    for (int i = 0; i < ops->n; i++) {
        if (ops->o[i].role != JV_ROLE_OUT && ops->o[i].role != JV_ROLE_INOUT) continue;
        int64_t n = jv_tensor_numel(&ops->o[i].t);
        if (n > most) most = n;
    }
    const double k = most > 0 && flops > 0 ? flops / (2.0 * (double)most) : 1;
    return k > 1 ? k : 1;
}

static jv_status verify_op(const jv_run_opts *o, const jv_desc *d, const jv_operands *ops, void **host_init,
                           void **host_dev, const int64_t *bytes, int reps, int last, void **keep, jv_op_result *r,
                           jv_err *err) {
    jv_status st = JV_OK;
    void *ref[JV_MAX_OPERANDS] = {0};
    int64_t *idx = NULL;
    jv_verify first = r->verify;
    memset(&r->verify, 0, sizeof r->verify);
    /* a reference that computes everything anyway (reference_full) runs once and every element is compared */
    const jv_family *fam = jv_family_get(d->family);
    r->verify.acc_len = acc_len(r->perf.flops, ops);
    r->verify.fp32_tol = fam ? fam->fp32_tol : 0;
    int sampled = r->perf.flops > o->verify_max_flops && reps == 1 && !(fam && fam->reference_full);
    r->verify.sampled = sampled;
    int nout = sampled ? ops->n : 1;
    int all_ok = 1;
    int kept = !sampled && keep[0]; /* the first check's full reference, held since */
    for (int pass = 0; pass < nout && kept; pass++)
        for (int i = 0; i < ops->n; i++)
            if (compared(ops->o[i].role, last) &&
                !jv_verify_output(&ops->o[i], host_dev[i], keep[i], NULL, 0, &r->verify))
                all_ok = 0;
    for (int pass = 0; pass < nout && !kept; pass++) {
        if (sampled && !compared(ops->o[pass].role, last)) continue;
        /* fresh reference buffers: inputs as uploaded, outputs poisoned */
        for (int i = 0; i < ops->n; i++) {
            if (!ref[i]) {
                ref[i] = malloc((size_t)bytes[i] ? (size_t)bytes[i] : 1);
                if (!ref[i]) {
                    st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "host out of memory for the reference");
                    goto done;
                }
            }
            if (ops->o[i].role == JV_ROLE_OUT)
                memset(ref[i], 0xFF, (size_t)bytes[i]);
            else
                memcpy(ref[i], host_init[i], (size_t)bytes[i]);
        }
        jv_sample smp, *sp = NULL;
        int64_t ns = 0;
        if (sampled) {
            free(idx);
            idx = NULL;
            jv_sample_plan plan;
            JV_CHECK_GOTO(sample_plan(o, d, ops, pass, ref, &idx, &plan, err), st, done);
            ns = plan.n;
            if (!r->verify.block_rows) { /* the design of the first sampled output */
                r->verify.samples = plan.budget;
                r->verify.block_rows = plan.block_rows;
                r->verify.block_cols = plan.block_cols;
                r->verify.all_blocks = plan.all_blocks;
                r->verify.full_rows = plan.full_rows;
                r->verify.full_cols = plan.full_cols;
            }
            smp.operand = pass;
            smp.idx = idx;
            smp.n = ns;
            sp = &smp;
        }
        jv_err rerr = {0};
        for (int k = 0; k < reps; k++) {
            if (jv_desc_reference(d, ops, ref, sp, &rerr) != JV_OK) {
                set_reason(r, JV_RES_REFUSED, "the CPU reference cannot run this op: ", rerr.msg);
                goto done;
            }
        }
        for (int i = 0; i < ops->n; i++) {
            if (!compared(ops->o[i].role, last) || (sampled && i != pass)) continue;
            if (!jv_verify_output_scan(&ops->o[i], host_dev[i], ref[i], sampled ? idx : NULL, ns, sampled, &r->verify))
                all_ok = 0;
        }
    }
    if (!all_ok) {
        r->status = JV_RES_WRONG;
        jv_verify *v = &r->verify;
        snprintf(r->reason, sizeof r->reason,
                 "verification failed%s: on '%s' rel L2 %.3g (tolerance %.3g); %lld of %lld checked elements beyond "
                 "%g x tolerance of their scale (worst %.3g), %lld blocks of 64 beyond %g x, checksums off by %.3g; "
                 "%lld unwritten, %lld NaN/mismatched non-finite",
                 last == CHECK_LAST_INOUT ? " on a launch from restored inputs after the timed launches"
                 : last                   ? " after the timed launches"
                                          : "",
                 v->worst, v->rel_l2, v->tol, (long long)v->elem_bad, (long long)v->checked, JV_VERIFY_ELEM,
                 v->max_elem, (long long)v->block_bad, JV_VERIFY_BLOCK, v->sum_rel, (long long)v->unwritten,
                 (long long)v->nan);
    }
    if (last) { /* the first check's figures stay; this one adds only its verdict */
        int failed = !all_ok;
        r->verify = first;
        r->verify.last = 1;
        if (failed) r->verify.failed_output = 1;
    }
done:
    if (st == JV_OK && !sampled && !last && ref[0]) { /* the full reference, for the check after the timed launches */
        memcpy(keep, ref, sizeof ref);
        memset(ref, 0, sizeof ref);
    }
    for (int i = 0; i < ops->n; i++)
        free(ref[i]);
    free(idx);
    return st;
}

int jv_describe_op(const jv_ir_op *op, jv_op_result *r, jv_desc *d, jv_operands *ops) {
    memset(r, 0, sizeof *r);
    r->index = op->index;
    r->family = -1;
    snprintf(r->op, sizeof r->op, "%s", op->op_name);
    snprintf(r->label, sizeof r->label, "%s", op->op_name);
    read_extra(op, r);
    jv_err e = {0};
    if (jv_desc_parse(&op->call, d, &e) != JV_OK) {
        set_reason(r, JV_RES_REFUSED, "cannot parse the call: ", e.msg);
        return 0;
    }
    r->family = d->family;
    snprintf(r->family_name, sizeof r->family_name, "%s", jv_family_get(d->family)->name);
    jv_desc_model(d, &r->perf);
    if (jv_desc_operands(d, ops, &e) != JV_OK) {
        set_reason(r, JV_RES_REFUSED, "not replayable: ", e.msg);
        return 0;
    }
    make_label(r, ops);
    for (int i = 0; i < ops->n; i++)
        if (ops->o[i].role != JV_ROLE_OUT) {
            r->layout = jv_tensor_layout(&ops->o[i].t);
            break;
        }
    int64_t set_bytes = 0;
    for (int i = 0; i < ops->n; i++) {
        int64_t b = operand_bytes(&ops->o[i]);
        if (b < 0 || set_bytes > INT64_MAX / 2 - b) {
            set_reason(r, JV_RES_REFUSED, "needs more bytes than int64 holds: operand ", ops->o[i].name);
            return 0;
        }
        set_bytes += (b + 255) / 256 * 256;
    }
    r->alloc_bytes = set_bytes;
    return 1;
}

int jv_op_variants(const jv_backend *be, void *ctx, const jv_ir_op *op) {
    jv_op_result r;
    jv_desc d;
    jv_operands ops;
    if (!jv_describe_op(op, &r, &d, &ops)) return 0;
    int n = 0;
    for (; n < 8; n++) {
        void *plan = NULL;
        char impl[48];
        jv_err e = {0};
        if (be->prepare(ctx, &d, &ops, n, &plan, impl, sizeof impl, &e) != JV_OK) break;
        be->release(ctx, plan);
    }
    return n;
}

jv_status jv_run_op(const jv_backend *be, void *ctx, const jv_device_props *props, const jv_run_opts *o,
                    const jv_ir_op *op, jv_op_result *r, jv_err *err_out) {
    jv_err le = {0}, *err = &le; /* a failure short of JV_ERR_DEVICE ends in r, not in err_out */
    jv_desc d;
    jv_operands ops;
    if (!jv_describe_op(op, r, &d, &ops)) return JV_OK;

    int64_t bytes[JV_MAX_OPERANDS], set_bytes = r->alloc_bytes;
    for (int i = 0; i < ops.n; i++)
        bytes[i] = operand_bytes(&ops.o[i]);
    char b1[32], b2[32];
    fmt_bytes(b1, sizeof b1, (double)set_bytes);
    if (o->max_bytes > 0 && set_bytes > o->max_bytes) {
        fmt_bytes(b2, sizeof b2, (double)o->max_bytes);
        r->status = JV_RES_SKIPPED;
        snprintf(r->reason, sizeof r->reason, "needs %s of tensors, over --max-bytes %s", b1, b2);
        return JV_OK;
    }
    int64_t avail = props->free_bytes > 0 ? props->free_bytes : props->memory_bytes;
    if (avail > 0 && set_bytes > avail / 10 * 9) {
        fmt_bytes(b2, sizeof b2, (double)avail);
        r->status = JV_RES_REFUSED;
        snprintf(r->reason, sizeof r->reason, "needs %s of tensors; %s has %s free", b1, props->name, b2);
        return JV_OK;
    }

    /* operand sets: 1 for hot runs; enough to span cold_bytes for cold ones (with a cache flush before
     * each cold sample, a sample queues one run per set; without one, the rotation alone evicts) */
    int nsets = 1;
    if (o->cache_cold && o->timing.iterations <= 0) {
        int64_t want = o->cold_bytes > 0 ? o->cold_bytes : 2 * props->llc_bytes;
        if (want < (8 << 20)) want = 8 << 20;
        int64_t k = set_bytes > 0 ? (want + set_bytes - 1) / set_bytes : 1;
        if (k < 2) k = 2;
        if (k > 256) k = 256;
        while (k > 1 && avail > 0 && k * set_bytes > avail / 2)
            k--;
        nsets = (int)k;
    }

    jv_status st = JV_OK;
    void *host_init[JV_MAX_OPERANDS] = {0}, *host_dev[JV_MAX_OPERANDS] = {0};
    void *keep[JV_MAX_OPERANDS] = {0}; /* the first check's full reference results (verify_op) */
    void ***sets = calloc((size_t)nsets, sizeof *sets);
    void *plan = NULL;
    int prepared = 0, ranged = 0;
    if (!sets) {
        set_reason(r, JV_RES_REFUSED, "host out of memory", "");
        return JV_OK;
    }
    for (int i = 0; i < ops.n; i++) {
        host_init[i] = malloc((size_t)bytes[i] ? (size_t)bytes[i] : 1);
        host_dev[i] = malloc((size_t)bytes[i] ? (size_t)bytes[i] : 1);
        if (!host_init[i] || !host_dev[i]) {
            set_reason(r, JV_RES_REFUSED, "host out of memory for the tensors: ", b1);
            goto done;
        }
        jv_fill_host(host_init[i], ops.o[i].t.dtype, jv_tensor_extent(&ops.o[i].t), ops.o[i].init,
                     o->seed ^ ((uint64_t)(op->index + 1) * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(i + 1) << 48));
    }
    for (int k = 0; k < nsets; k++) {
        sets[k] = calloc((size_t)ops.n, sizeof **sets);
        if (!sets[k]) {
            set_reason(r, JV_RES_REFUSED, "host out of memory", "");
            goto done;
        }
        for (int i = 0; i < ops.n; i++) {
            jv_err ae = {0};
            jv_status as = be->alloc(ctx, (size_t)bytes[i], &sets[k][i], &ae);
            if (as == JV_ERR_NOMEM) {
                if (k > 0) { /* fewer sets: cold runs rotate over what fits */
                    for (int j = 0; j < i; j++)
                        be->free(ctx, sets[k][j]);
                    free(sets[k]);
                    sets[k] = NULL;
                    nsets = k;
                    goto allocated;
                }
                set_reason(r, JV_RES_REFUSED, "out of device memory: ", ae.msg);
                goto done;
            }
            if (as != JV_OK) {
                st = as;
                le = ae;
                goto done;
            }
            if (ops.o[i].role == JV_ROLE_OUT)
                st = be->fill(ctx, sets[k][i], 0xFF, (size_t)bytes[i], err);
            else
                st = be->upload(ctx, sets[k][i], host_init[i], (size_t)bytes[i], err);
            if (st != JV_OK) goto done;
        }
    }
allocated:;
    jv_err pe = {0};
    r->variant = o->variant;
    jv_status ps = be->prepare(ctx, &d, &ops, o->variant, &plan, r->impl, sizeof r->impl, &pe);
    if (ps == JV_ERR_DEVICE) {
        st = ps;
        le = pe;
        goto done;
    }
    if (ps == JV_ERR_NOTFOUND) { /* the backend has no kernel for this call: not run, named, not a failure */
        set_reason(r, JV_RES_SKIPPED, "no kernel on this backend: ", pe.msg);
        goto done;
    }
    if (ps != JV_OK) {
        set_reason(r, JV_RES_REFUSED, "the backend cannot run this op: ", pe.msg);
        goto done;
    }
    prepared = 1;
    if (be->range_push) {
        be->range_push(ctx, r->label);
        ranged = 1;
    }
    launch_arg la = {be, ctx, plan, &d, &ops, sets};
    int reps = 1;
    if (o->timing.iterations > 0) { /* profiler mode: exactly K launches, then verify */
        JV_CHECK_GOTO(jv_time(be, ctx, &o->timing, launch_set, &la, 1, 0, &r->hot, err), st, done);
        reps = o->timing.iterations;
    } else {
        JV_CHECK_GOTO(be->launch(ctx, plan, &d, &ops, sets[0], err), st, done);
        JV_CHECK_GOTO(be->sync(ctx, err), st, done);
    }
    for (int i = 0; i < ops.n; i++)
        if (ops.o[i].role != JV_ROLE_IN)
            JV_CHECK_GOTO(be->download(ctx, host_dev[i], sets[0][i], (size_t)bytes[i], err), st, done);
    JV_CHECK_GOTO(verify_op(o, &d, &ops, host_init, host_dev, bytes, reps, CHECK_FIRST, keep, r, err), st, done);
    if (r->status != JV_RES_OK && r->status != JV_RES_WRONG) goto done;
    /* OUT operands poisoned again before the timed launches, so that the check after them sees what the last
     * launch on set 0 wrote (a kernel that does nothing after its first launch leaves the poison) */
    int nout_only = 0;
    for (int i = 0; i < ops.n; i++)
        nout_only += ops.o[i].role == JV_ROLE_OUT;
    int recheck = o->verify_last && o->timing.iterations <= 0 && r->status == JV_RES_OK && nout_only > 0;
    for (int k = 0; recheck && k < nsets; k++)
        for (int i = 0; i < ops.n; i++)
            if (ops.o[i].role == JV_ROLE_OUT)
                JV_CHECK_GOTO(be->fill(ctx, sets[k][i], 0xFF, (size_t)bytes[i], err), st, done);
    if (o->timing.iterations <= 0) {
        read_clocks(be, ctx, &r->clk_start);
        if (o->cache_hot) JV_CHECK_GOTO(jv_time(be, ctx, &o->timing, launch_set, &la, 1, 0, &r->hot, err), st, done);
        if (o->cache_cold && nsets > 0)
            JV_CHECK_GOTO(jv_time(be, ctx, &o->timing, launch_set, &la, nsets, 1, &r->cold, err), st, done);
        read_clocks(be, ctx, &r->clk_end);
        note_throttle(r);
        if (o->graph && be->graph_time && jv_graph_wanted(&r->hot, props, r->graph_why, sizeof r->graph_why))
            JV_CHECK_GOTO(graph_time(be, ctx, o, &la, r, err), st, done);
    }
    if (recheck && (r->hot.samples > 0 || r->cold.samples > 0)) {
        JV_CHECK_GOTO(be->sync(ctx, err), st, done);
        for (int i = 0; i < ops.n; i++)
            if (ops.o[i].role == JV_ROLE_OUT)
                JV_CHECK_GOTO(be->download(ctx, host_dev[i], sets[0][i], (size_t)bytes[i], err), st, done);
        JV_CHECK_GOTO(verify_op(o, &d, &ops, host_init, host_dev, bytes, 1, CHECK_LAST_OUT, keep, r, err), st, done);
    }
    /* INOUT operands: every timed launch updated them, so they are restored to their inputs on set 0 and launched
     * once more (a kernel that does nothing after its first launch leaves the inputs) */
    int ninout = 0;
    for (int i = 0; i < ops.n; i++)
        ninout += ops.o[i].role == JV_ROLE_INOUT;
    if (o->verify_last && o->timing.iterations <= 0 && r->status == JV_RES_OK && ninout > 0 &&
        (r->hot.samples > 0 || r->cold.samples > 0)) {
        JV_CHECK_GOTO(be->sync(ctx, err), st, done);
        for (int i = 0; i < ops.n; i++)
            if (ops.o[i].role == JV_ROLE_INOUT)
                JV_CHECK_GOTO(be->upload(ctx, sets[0][i], host_init[i], (size_t)bytes[i], err), st, done);
        JV_CHECK_GOTO(be->launch(ctx, plan, &d, &ops, sets[0], err), st, done);
        JV_CHECK_GOTO(be->sync(ctx, err), st, done);
        for (int i = 0; i < ops.n; i++)
            if (ops.o[i].role == JV_ROLE_INOUT)
                JV_CHECK_GOTO(be->download(ctx, host_dev[i], sets[0][i], (size_t)bytes[i], err), st, done);
        JV_CHECK_GOTO(verify_op(o, &d, &ops, host_init, host_dev, bytes, 1, CHECK_LAST_INOUT, keep, r, err), st, done);
    }
done:
    if (st != JV_OK) {
        if (!le.msg[0])
            jv_err_set(&le, st, __FILE__, __LINE__, "the %s backend failed (%s) on %s", be->name, jv_status_str(st),
                       props->name);
        r->status = JV_RES_ERROR;
        snprintf(r->reason, sizeof r->reason, "%s", le.msg);
    }
    if (ranged) be->range_pop(ctx);
    if (prepared) be->release(ctx, plan);
    for (int k = 0; k < nsets; k++) {
        if (!sets[k]) continue;
        for (int i = 0; i < ops.n; i++)
            if (sets[k][i]) be->free(ctx, sets[k][i]);
        free(sets[k]);
    }
    free(sets);
    for (int i = 0; i < ops.n; i++) {
        free(host_init[i]);
        free(host_dev[i]);
        free(keep[i]);
    }
    if (st == JV_ERR_DEVICE) return jv_err_set(err_out, st, le.file, le.line, "%s", le.msg);
    return JV_OK;
}
