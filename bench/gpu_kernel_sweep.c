/* gpu_kernel_sweep: times the tuning alternatives of our own batch-norm and
 * light elementwise kernels (jv_gpu_batchnorm_plan_tune,
 * jv_gpu_elementwise_plan_tune) on the ResNet-50 shapes of the H200 trace
 * (tests/data/nv_h200_resnet50_train.json.gz: bf16, channels_last, batch 64)
 * next to a copy of the same device, and checks that every alternative
 * computes what the default computes. CUDA only (the device tool's GPUs).
 *
 * Each alternative of each op: outputs compared with the default's on the
 * same inputs (every OUT and INOUT element; max |a - b| over max |b| of the
 * operand, at most 2^-7 for bf16 outputs, 1e-5 for fp32); then timed hot,
 * cold (2 x L2 written before each sample, untimed: the L2 then holds dirty
 * lines the op writes back) and clean (2 x L2 read before each sample: the
 * L2 holds clean lines only), CUDA events, median of --runs samples. Bytes are the family model's (jv_desc_model), the
 * same the replay judges "% of copy" with; copy is the baseline copy kernel over two 1 GiB fp32 arrays, hot, median of
 * 10, in the same run.
 *
 * usage: gpu_kernel_sweep [--quick] [--runs N] [--csv FILE] [--case I] [--ncu] [--corrupt]
 *   --quick    small shapes, 3 samples (the ctest: agreement only)
 *   --case I   only case I (0-based, in the order printed)
 *   --ncu      each alternative run once, unchecked and untimed: for a profiler (ncu) to time its kernels
 *   --corrupt  changes one output element of every alternative before the
 *              comparison: every comparison must then fail (the check's own test)
 * Exit: 0 all alternatives agree (--corrupt: every changed output was caught),
 * 1 otherwise or a CUDA error, 2 usage, 77 no CUDA device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "batchnorm_gpu.h"
#include "elementwise_gpu.h"
#include "jv_family.h"
#include "jv_opcall.h"
#include "jv_tensor.h"

#define BF "\"c10::BFloat16\""
#define FL "\"float\""

typedef struct {
    const char *what, *op, *dims, *types, *strides, *conc;
} sweep_case;

/* channels_last strides of [64, C, H, W] and the trace-form text of each op */
#define BN_FWD(C, H, W)                                                                                                \
    {                                                                                                                  \
        "batch_norm fwd bf16[64," #C "," #H "," #W "]cl", "aten::native_batch_norm",                                   \
            "[[64, " #C ", " #H ", " #W "], [" #C "], [" #C "], [" #C "], [" #C "], [], [], []]",                      \
            "[" BF ", " FL ", " FL ", " FL ", " FL ", \"Scalar\", \"Scalar\", \"Scalar\"]",                            \
            "[[" #H "*" #W "*" #C ", 1, " #W "*" #C ", " #C "], [1], [1], [1], [1], [], [], []]",                      \
            "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.1\", \"1e-05\"]"                                             \
    }
#define BN_BWD(C, H, W)                                                                                                \
    {                                                                                                                  \
        "batch_norm bwd bf16[64," #C "," #H "," #W "]cl", "aten::native_batch_norm_backward",                          \
            "[[64, " #C ", " #H ", " #W "], [64, " #C ", " #H ", " #W "], [" #C "], [" #C "], [" #C "], [" #C          \
            "], [" #C "], [], [], []]",                                                                                \
            "[" BF ", " BF ", " FL ", " FL ", " FL ", " FL ", " FL ", \"float\", \"float\", \"ScalarList\"]",          \
            "[[" #H "*" #W "*" #C ", 1, " #W "*" #C ", " #C "], [" #H "*" #W "*" #C ", 1, " #W "*" #C ", " #C          \
            "], [1], [1], [1], [1], [1], [], [], []]",                                                                 \
            "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1e-05\", \"[True, True, True]\"]"                  \
    }
#define CLAMP(C, H, W)                                                                                                 \
    {                                                                                                                  \
        "clamp_min_ bf16[64," #C "," #H "," #W "]cl", "aten::clamp_min_", "[[64, " #C ", " #H ", " #W "], []]",        \
            "[" BF ", \"Scalar\"]", "[[" #H "*" #W "*" #C ", 1, " #W "*" #C ", " #C "], []]", "[\"\", \"0\"]"          \
    }

/* jv_opcall_from_trace takes numbers, not products: the stride texts above are expanded here */
static const sweep_case FULL[] = {
    BN_FWD(256, 56, 56), BN_FWD(512, 28, 28),  BN_FWD(64, 112, 112), BN_FWD(128, 56, 56), BN_BWD(256, 56, 56),
    BN_BWD(512, 28, 28), BN_BWD(64, 112, 112), BN_BWD(128, 56, 56),  CLAMP(256, 56, 56),  CLAMP(512, 28, 28),
};
static const sweep_case QUICK[] = {
    BN_FWD(64, 16, 16),
    BN_BWD(64, 16, 16),
    CLAMP(64, 16, 16),
};

/* the stride texts with "a*b*c" products evaluated (in place into out) */
static void expand_products(const char *in, char *out, size_t cap) {
    size_t o = 0;
    for (const char *p = in; *p && o + 24 < cap;) {
        if (*p >= '0' && *p <= '9') {
            char *end;
            long long v = strtoll(p, &end, 10);
            while (*end == '*')
                v *= strtoll(end + 1, &end, 10);
            o += (size_t)snprintf(out + o, cap - o, "%lld", v);
            p = end;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = 0;
}

#define CU(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "gpu_kernel_sweep: %s: %s\n", #call, cudaGetErrorString(e_));                              \
            return -1;                                                                                                 \
        }                                                                                                              \
    } while (0)

typedef struct {
    int sms;
    size_t l2;
    void *flush;
    size_t flush_bytes;
    float *dot; /* the clean flush's one-float result */
    cudaEvent_t e0, e1;
    int runs;
    int corrupt;
    int ncu;
    FILE *csv;
    double copy_bps;
} sweep;

/* one tuning alternative of a family's kernel */
typedef struct {
    const char *name;
    jv_gpu_batchnorm_tuning bn; /* batch norm */
    int unroll;                 /* elementwise: light_unroll */
} alt;

/* the first of each list is the reference the others are checked against (batch norm: a block per channel in
 * the finalize kernels and a prep kernel in the backward) */
static const alt BN_ALTS[] = {{"block", {0, 0}, 0}, {"lean", {1, 0}, 0}, {"lean+wide", {1, 1}, 0}};
static const alt EW_ALTS[] = {{"u4", {0, 0}, 4}, {"u8", {0, 0}, 8}, {"u2", {0, 0}, 2}};

typedef struct {
    const jv_desc *d;
    const jv_operands *ops;
    void *bufs[JV_MAX_OPERANDS];
    void *host_in[JV_MAX_OPERANDS]; /* IN / INOUT contents */
    size_t bytes[JV_MAX_OPERANDS];
    void *ws;
    size_t ws_bytes;
    jv_gpu_batchnorm_plan *bn;
    jv_gpu_elementwise_plan *ew;
} op_state;

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static float rng_unit(uint64_t *s) {
    return (float)((rng_next(s) >> 40) * (1.0 / 16777216.0));
}

static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static float from_bits(const void *base, size_t i, jv_dtype dt) {
    if (dt == JV_DT_F32) return ((const float *)base)[i];
    uint32_t u = (uint32_t)((const uint16_t *)base)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* host contents of the IN / INOUT operands: N(0,1)-ish (sum of uniforms) or [0.5, 1.5] */
static int fill_host(op_state *s) {
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < s->ops->n; i++) {
        const jv_operand *o = &s->ops->o[i];
        if (o->role == JV_ROLE_OUT) continue;
        size_t n = (size_t)jv_tensor_extent(&o->t), esz = jv_dtype_size(o->t.dtype);
        s->host_in[i] = malloc(n * esz);
        if (!s->host_in[i]) return -1;
        for (size_t k = 0; k < n; k++) {
            float v = o->init == JV_INIT_POSITIVE
                          ? 0.5f + rng_unit(&seed)
                          : (rng_unit(&seed) + rng_unit(&seed) + rng_unit(&seed) - 1.5f) * 2.0f + 0.25f;
            if (esz == 4)
                ((float *)s->host_in[i])[k] = v;
            else
                ((uint16_t *)s->host_in[i])[k] = to_bf16(v);
        }
    }
    return 0;
}

/* inputs uploaded again, outputs poisoned (0xff bytes: NaN in every float type) */
static int reset_operands(op_state *s) {
    for (int i = 0; i < s->ops->n; i++) {
        if (s->host_in[i])
            CU(cudaMemcpy(s->bufs[i], s->host_in[i], s->bytes[i], cudaMemcpyHostToDevice));
        else
            CU(cudaMemset(s->bufs[i], 0xff, s->bytes[i]));
    }
    return 0;
}

static int run_op(op_state *s) {
    int rc = s->bn ? jv_gpu_batchnorm_run(s->bn, s->bufs, s->ws, NULL) : jv_gpu_elementwise_run(s->ew, s->bufs, NULL);
    if (rc) {
        fprintf(stderr, "gpu_kernel_sweep: run: %s\n", cudaGetErrorString((cudaError_t)rc));
        return -1;
    }
    return 0;
}

static int tune(op_state *s, const alt *a) {
    if (s->bn) jv_gpu_batchnorm_plan_tune(s->bn, &a->bn);
    if (s->ew) jv_gpu_elementwise_plan_tune(s->ew, a->unroll);
    return 0;
}

/* the outputs of one run from fresh inputs: every OUT / INOUT operand, downloaded */
static int outputs(op_state *s, void **out) {
    if (reset_operands(s) || run_op(s)) return -1;
    CU(cudaDeviceSynchronize());
    for (int i = 0; i < s->ops->n; i++) {
        out[i] = NULL;
        if (s->ops->o[i].role == JV_ROLE_IN) continue;
        out[i] = malloc(s->bytes[i]);
        if (!out[i]) return -1;
        CU(cudaMemcpy(out[i], s->bufs[i], s->bytes[i], cudaMemcpyDeviceToHost));
    }
    return 0;
}

/* max over the outputs of max|a - b| / max|b|; NaN when an element is NaN in one and not the other */
static double disagreement(const op_state *s, void **a, void **b) {
    double worst = 0;
    for (int i = 0; i < s->ops->n; i++) {
        if (!a[i]) continue;
        jv_dtype dt = s->ops->o[i].t.dtype;
        size_t n = s->bytes[i] / jv_dtype_size(dt);
        double dmax = 0, bmax = 0;
        for (size_t k = 0; k < n; k++) {
            float x = from_bits(a[i], k, dt), y = from_bits(b[i], k, dt);
            if (isnan(x) != isnan(y)) return NAN;
            if (isnan(x)) continue;
            if (fabs(x - y) > dmax) dmax = fabs(x - y);
            if (fabs(y) > bmax) bmax = fabs(y);
        }
        double r = bmax > 0 ? dmax / bmax : dmax;
        if (r > worst) worst = r;
    }
    return worst;
}

static double tolerance(const op_state *s) {
    for (int i = 0; i < s->ops->n; i++)
        if (s->ops->o[i].role != JV_ROLE_IN && s->ops->o[i].t.dtype != JV_DT_F32) return 1.0 / 128;
    return 1e-5;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median seconds of sw->runs samples of fn; cold 1: the flush buffer written before each (untimed), so
 * that the L2 holds another buffer's dirty lines, which the op's first misses write back (as after a
 * kernel that wrote its output); cold 2 (clean): the flush buffer read before each, so that the L2 holds
 * clean lines only and the op moves its own bytes alone */
static int time_median(sweep *sw, op_state *s, int cold, double *med) {
    double t[64];
    int runs = sw->runs < 64 ? sw->runs : 64;
    for (int w = 0; w < 3; w++)
        if (run_op(s)) return -1;
    for (int r = 0; r < runs; r++) {
        if (cold == 1) CU(cudaMemsetAsync(sw->flush, r & 1 ? 0x5a : 0xa5, sw->flush_bytes, NULL));
        if (cold == 2) {
            int64_t n = (int64_t)(sw->flush_bytes / sizeof(float));
            if (jv_gpu_baseline(4, (const float *)sw->flush, (const float *)sw->flush, sw->dot, n, 1.0f, sw->sms, NULL))
                return -1;
        }
        CU(cudaEventRecord(sw->e0, NULL));
        if (run_op(s)) return -1;
        CU(cudaEventRecord(sw->e1, NULL));
        CU(cudaEventSynchronize(sw->e1));
        float ms = 0;
        CU(cudaEventElapsedTime(&ms, sw->e0, sw->e1));
        t[r] = ms * 1e-3;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    *med = t[runs / 2];
    return 0;
}

static void free_outputs(void **o, int n) {
    for (int i = 0; i < n; i++) {
        free(o[i]);
        o[i] = NULL;
    }
}

/* case c parsed into *call (release with jv_opcall_free, also on failure), *d and *ops; 0, or -1 with the
 * reason printed */
static int parse_call(const sweep_case *c, jv_opcall *call, jv_desc *d, jv_operands *ops) {
    char strides[512];
    expand_products(c->strides, strides, sizeof strides);
    jv_err err;
    memset(call, 0, sizeof *call);
    memset(d, 0, sizeof *d);
    jv_err_clear(&err);
    if (jv_opcall_from_trace(call, c->op, c->dims, c->types, strides, c->conc, &err) == JV_OK &&
        jv_desc_parse(call, d, &err) == JV_OK && jv_desc_operands(d, ops, &err) == JV_OK)
        return 0;
    fprintf(stderr, "gpu_kernel_sweep: %s: %s\n", c->what, err.msg);
    return -1;
}

/* 0 when case c parses into a call our batch-norm or elementwise kernel plans (printed otherwise) */
static int parse_case(const sweep_case *c) {
    char why[160] = "";
    jv_opcall call;
    jv_desc d;
    jv_operands ops;
    int ok = parse_call(c, &call, &d, &ops) == 0;
    if (ok && !jv_gpu_batchnorm_supported(&d, &ops, why, sizeof why) &&
        !jv_gpu_elementwise_supported(&d, &ops, why, sizeof why)) {
        ok = 0;
        fprintf(stderr, "gpu_kernel_sweep: %s: no own kernel: %s\n", c->what, why);
    }
    jv_opcall_free(&call);
    return ok ? 0 : -1;
}

/* one case: every alternative checked against the first, then timed; 0 agree (--corrupt: every change
 * caught), 1 not, -1 error */
static int sweep_case_run(sweep *sw, const sweep_case *c) {
    jv_opcall call;
    jv_desc d;
    jv_operands ops;
    jv_err err;
    jv_err_clear(&err);
    if (parse_call(c, &call, &d, &ops) != 0) {
        jv_opcall_free(&call);
        return -1;
    }
    jv_perf perf;
    jv_desc_model(&d, &perf);
    op_state s;
    memset(&s, 0, sizeof s);
    s.d = &d;
    s.ops = &ops;
    int bn = jv_gpu_batchnorm_supported(&d, &ops, err.msg, sizeof err.msg);
    const alt *alts = bn ? BN_ALTS : EW_ALTS;
    int nalts = bn ? (int)(sizeof BN_ALTS / sizeof BN_ALTS[0]) : (int)(sizeof EW_ALTS / sizeof EW_ALTS[0]);
    int result = -1;
    void *ref[JV_MAX_OPERANDS] = {0}, *got[JV_MAX_OPERANDS] = {0};
    if (bn ? jv_gpu_batchnorm_plan_create(&d, &ops, sw->sms, &s.bn, &s.ws_bytes, &err) != JV_OK
           : jv_gpu_elementwise_plan_create(&d, &ops, sw->sms, &s.ew, &err) != JV_OK) {
        fprintf(stderr, "gpu_kernel_sweep: %s: %s\n", c->what, err.msg);
        goto done;
    }
    for (int i = 0; i < ops.n; i++) {
        s.bytes[i] = (size_t)jv_tensor_extent(&ops.o[i].t) * jv_dtype_size(ops.o[i].t.dtype);
        if (cudaMalloc(&s.bufs[i], s.bytes[i] ? s.bytes[i] : 16) != cudaSuccess) goto done;
    }
    if (s.ws_bytes && cudaMalloc(&s.ws, s.ws_bytes) != cudaSuccess) goto done;
    if (fill_host(&s)) goto done;
    result = 0;
    if (sw->ncu) { /* one run of each alternative, nothing else on the device between them */
        if (reset_operands(&s)) result = -1;
        for (int a = 0; a < nalts && result == 0; a++) {
            tune(&s, &alts[a]);
            if (run_op(&s) || cudaDeviceSynchronize() != cudaSuccess) result = -1;
        }
        goto done;
    }
    for (int a = 0; a < nalts && result >= 0; a++) {
        double dis = 0, hot = 0, cold = 0, clean = 0;
        tune(&s, &alts[a]);
        /* the first alternative's outputs are the reference; with --corrupt it is compared with itself too */
        if (outputs(&s, a == 0 ? ref : got) || (a == 0 && sw->corrupt && outputs(&s, got))) {
            result = -1;
            break;
        }
        if (a > 0 || sw->corrupt) {
            if (sw->corrupt) /* the check's own test: one element of the first output changed */
                for (int i = 0; i < ops.n; i++)
                    if (got[i]) {
                        size_t esz = jv_dtype_size(ops.o[i].t.dtype), k = s.bytes[i] / esz / 2;
                        if (esz == 4)
                            ((float *)got[i])[k] += 1.0f + fabsf(((float *)got[i])[k]);
                        else
                            ((uint16_t *)got[i])[k] ^= 0x4000; /* exponent bit: a different magnitude */
                        break;
                    }
            dis = disagreement(&s, got, ref);
            free_outputs(got, ops.n);
        }
        int ok = !isnan(dis) && dis <= tolerance(&s);
        if (sw->corrupt ? ok : !ok) result = 1; /* --corrupt: every comparison must catch the change */
        if (time_median(sw, &s, 0, &hot) || time_median(sw, &s, 1, &cold) || time_median(sw, &s, 2, &clean)) {
            result = -1;
            break;
        }
        double bps = perf.bytes / cold;
        printf("%-40s %-12s %s (%.1e)  hot %8.2f us  cold %8.2f us  %6.3f TB/s  %5.1f %% of copy  clean %8.2f us  "
               "%5.1f %%\n",
               c->what, alts[a].name, ok ? "agrees  " : "DIFFERS ", dis, hot * 1e6, cold * 1e6, bps * 1e-12,
               100.0 * bps / sw->copy_bps, clean * 1e6, 100.0 * perf.bytes / clean / sw->copy_bps);
        if (sw->csv)
            fprintf(sw->csv, "\"%s\",%s,%d,%.3e,%.3f,%.3f,%.0f,%.4f,%.4f,%.3f,%.4f\n", c->what, alts[a].name, ok, dis,
                    hot * 1e6, cold * 1e6, perf.bytes, bps * 1e-12, bps / sw->copy_bps, clean * 1e6,
                    perf.bytes / clean / sw->copy_bps);
    }
done:
    free_outputs(ref, ops.n);
    free_outputs(got, ops.n);
    for (int i = 0; i < ops.n; i++) {
        if (s.bufs[i]) cudaFree(s.bufs[i]);
        free(s.host_in[i]);
    }
    if (s.ws) cudaFree(s.ws);
    jv_gpu_batchnorm_plan_free(s.bn);
    jv_gpu_elementwise_plan_free(s.ew);
    jv_opcall_free(&call);
    return result;
}

/* the copy bandwidth of this device (bytes read + written per second), hot, median of 10 */
static int copy_bandwidth(sweep *sw, int64_t n, double *bps) {
    float *a = NULL, *c = NULL;
    CU(cudaMalloc((void **)&a, (size_t)n * 4));
    CU(cudaMalloc((void **)&c, (size_t)n * 4));
    CU(cudaMemset(a, 0x3f, (size_t)n * 4));
    double t[10];
    for (int r = -2; r < 10; r++) {
        CU(cudaEventRecord(sw->e0, NULL));
        int rc = jv_gpu_baseline(0, a, NULL, c, n, 1.0f, sw->sms, NULL);
        if (rc) return -1;
        CU(cudaEventRecord(sw->e1, NULL));
        CU(cudaEventSynchronize(sw->e1));
        float ms = 0;
        CU(cudaEventElapsedTime(&ms, sw->e0, sw->e1));
        if (r >= 0) t[r] = ms * 1e-3;
    }
    qsort(t, 10, sizeof t[0], cmp_double);
    *bps = 2.0 * (double)n * 4 / t[5];
    CU(cudaFree(a));
    CU(cudaFree(c));
    return 0;
}

int main(int argc, char **argv) {
    sweep sw;
    memset(&sw, 0, sizeof sw);
    sw.runs = 21;
    int quick = 0;
    const char *csv = NULL;
    int only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
            sw.runs = 3;
        } else if (!strcmp(argv[i], "--ncu")) {
            sw.ncu = 1;
        } else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            only = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--corrupt")) {
            sw.corrupt = 1;
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            sw.runs = atoi(argv[++i]);
            if (sw.runs < 1) sw.runs = 1;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: gpu_kernel_sweep [--quick] [--runs N] [--csv FILE] [--case I] [--ncu] [--corrupt]\n");
            return 2;
        }
    }
    const sweep_case *cases = quick ? QUICK : FULL;
    int n = quick ? (int)(sizeof QUICK / sizeof QUICK[0]) : (int)(sizeof FULL / sizeof FULL[0]);
    for (int i = 0; i < n; i++) { /* every case parses and plans (anywhere, no device needed) */
        if (parse_case(&cases[i]) != 0) return 1;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("gpu_kernel_sweep: no CUDA device: skipped\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    int l2 = 0;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&sw.sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0) != cudaSuccess) {
        fprintf(stderr, "gpu_kernel_sweep: cannot read device 0's properties\n");
        return 1;
    }
    sw.l2 = (size_t)l2;
    sw.flush_bytes = 2 * sw.l2;
    if (cudaMalloc(&sw.flush, sw.flush_bytes) != cudaSuccess || cudaMalloc((void **)&sw.dot, 16) != cudaSuccess ||
        cudaMemset(sw.flush, 0, sw.flush_bytes) != cudaSuccess || cudaEventCreate(&sw.e0) != cudaSuccess ||
        cudaEventCreate(&sw.e1) != cudaSuccess) {
        fprintf(stderr, "gpu_kernel_sweep: cannot allocate the flush buffer or the events\n");
        return 1;
    }
    if (!sw.ncu && copy_bandwidth(&sw, quick ? (1 << 22) : (1 << 28), &sw.copy_bps)) return 1;
    printf("device %s, %d SMs, L2 %zu MiB; copy %.3f TB/s (hot, 2 x %s)\n", prop.name, sw.sms, sw.l2 >> 20,
           sw.copy_bps * 1e-12, quick ? "16 MiB" : "1 GiB");
    if (csv && !(sw.csv = fopen(csv, "w"))) {
        fprintf(stderr, "gpu_kernel_sweep: cannot write %s\n", csv);
        return 1;
    }
    if (sw.csv)
        fprintf(sw.csv, "op,alternative,agrees,disagreement,hot_us,cold_us,model_bytes,cold_tbps,of_copy,clean_us,"
                        "clean_of_copy\n");
    int differ = 0, errors = 0;
    for (int i = 0; i < n; i++) {
        if (only >= 0 && i != only) continue;
        int r = sweep_case_run(&sw, &cases[i]);
        if (r < 0) errors++;
        if (r > 0) differ++;
    }
    if (sw.csv) fclose(sw.csv);
    if (sw.corrupt)
        printf("gpu_kernel_sweep --corrupt: %d case(s), %d where a changed output went unnoticed, %d error(s)\n", n,
               differ, errors);
    else
        printf("gpu_kernel_sweep: %d case(s), %d with an alternative that differs, %d error(s)\n", n, differ, errors);
    return errors || differ ? 1 : 0;
}
