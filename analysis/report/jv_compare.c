/* jv_compare: the comparative analysis (REFERENCE.md section 8). Rows of the
 * target's and the reference's unified_perf_summary are matched by op name
 * (vendor variants normalised: cuDNN/MIOpen, SDPA backends, launch calls) and
 * shapes, never by kernel name across vendors; each pair gets its time ratio and the ratio
 * the two GPUs' roofline numbers lead one to expect. The fair and rough
 * markdown reports are in jv_compare_report.c. */
#include "jv_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_escape.h"
#include "jv_output.h"
#include "jv_sort.h"

/* ---------- name normalisation ---------- */

typedef struct {
    const char *name;
    const char *canon;
    int nargs; /* leading arguments compared (0: all); the variants differ in the trailing ones */
} canon_entry;

/* Ops that are the same computation under vendor- or backend-specific names.
 * nargs: only the leading tensor arguments carry the same meaning and shape
 * on every variant (e.g. miopen_convolution has a bias argument that
 * cudnn_convolution lacks; the SDPA backends differ after q, k, v). */
static const canon_entry CANON[] = {
    {"aten::cudnn_convolution", "convolution (cuDNN/MIOpen)", 2},
    {"aten::miopen_convolution", "convolution (cuDNN/MIOpen)", 2},
    {"aten::cudnn_convolution_transpose", "convolution_transpose (cuDNN/MIOpen)", 2},
    {"aten::miopen_convolution_transpose", "convolution_transpose (cuDNN/MIOpen)", 2},
    {"aten::cudnn_convolution_relu", "convolution_relu (cuDNN/MIOpen)", 2},
    {"aten::miopen_convolution_relu", "convolution_relu (cuDNN/MIOpen)", 2},
    {"aten::cudnn_convolution_add_relu", "convolution_add_relu (cuDNN/MIOpen)", 2},
    {"aten::miopen_convolution_add_relu", "convolution_add_relu (cuDNN/MIOpen)", 2},
    {"aten::cudnn_batch_norm", "batch_norm (cuDNN/MIOpen/native)", 5},
    {"aten::miopen_batch_norm", "batch_norm (cuDNN/MIOpen/native)", 5},
    {"aten::native_batch_norm", "batch_norm (cuDNN/MIOpen/native)", 5},
    {"aten::_native_batch_norm_legit", "batch_norm (cuDNN/MIOpen/native)", 5},
    {"aten::_native_batch_norm_legit_no_training", "batch_norm (cuDNN/MIOpen/native)", 5},
    {"aten::cudnn_batch_norm_backward", "batch_norm_backward (cuDNN/MIOpen/native)", 3},
    {"aten::miopen_batch_norm_backward", "batch_norm_backward (cuDNN/MIOpen/native)", 3},
    {"aten::native_batch_norm_backward", "batch_norm_backward (cuDNN/MIOpen/native)", 3},
    {"aten::scaled_dot_product_attention", "scaled_dot_product_attention (any backend)", 3},
    {"aten::_scaled_dot_product_flash_attention", "scaled_dot_product_attention (any backend)", 3},
    {"aten::_scaled_dot_product_efficient_attention", "scaled_dot_product_attention (any backend)", 3},
    {"aten::_scaled_dot_product_cudnn_attention", "scaled_dot_product_attention (any backend)", 3},
    {"aten::_scaled_dot_product_flash_attention_backward", "scaled_dot_product_attention_backward (any backend)", 4},
    {"aten::_scaled_dot_product_efficient_attention_backward", "scaled_dot_product_attention_backward (any backend)",
     4},
    {"aten::_scaled_dot_product_cudnn_attention_backward", "scaled_dot_product_attention_backward (any backend)", 4},
    {"cudaLaunchKernel", "kernel launch (runtime API)", 0},
    {"hipLaunchKernel", "kernel launch (runtime API)", 0},
    {"cudaLaunchKernelExC", "kernel launch (runtime API)", 0},
    {"hipLaunchKernelExC", "kernel launch (runtime API)", 0},
    {"cuLaunchKernel", "kernel launch (module/driver API)", 0},
    {"cuLaunchKernelEx", "kernel launch (module/driver API)", 0},
    {"hipModuleLaunchKernel", "kernel launch (module/driver API)", 0},
    {"hipExtModuleLaunchKernel", "kernel launch (module/driver API)", 0},
    {"hipExtLaunchKernel", "kernel launch (module/driver API)", 0},
    {"cudaGraphLaunch", "graph launch", 0},
    {"hipGraphLaunch", "graph launch", 0},
    {"cudaMemcpyAsync", "memcpy (async)", 0},
    {"hipMemcpyAsync", "memcpy (async)", 0},
    {"cudaMemsetAsync", "memset (async)", 0},
    {"hipMemsetAsync", "memset (async)", 0},
};

/* The normalised name of op and how many leading arguments to compare (0: all). */
static const char *canon_of(const char *op, int *nargs) {
    for (size_t i = 0; i < sizeof CANON / sizeof CANON[0]; i++)
        if (!strcmp(op, CANON[i].name)) {
            *nargs = CANON[i].nargs;
            return CANON[i].canon;
        }
    *nargs = 0;
    return op;
}

/* Length of the prefix of a Python tuple repr s ("((1, 2), (3,), ())") that
 * holds its first n top-level elements; all of s when n <= 0 or s is not a tuple. */
static size_t lead_args(const char *s, int n) {
    size_t len = strlen(s);
    if (n <= 0 || s[0] != '(') return len;
    int depth = 0, k = 0;
    char q = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (q) {
            if (c == '\\' && i + 1 < len)
                i++;
            else if (c == q)
                q = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            q = c;
        else if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) return len;
        } else if (c == ',' && depth == 1 && ++k == n)
            return i;
    }
    return len;
}

/* Input Dims missing: no shapes recorded for the row. */
static int dims_missing(const jv_drow *r) {
    return !r->dims[0] || !strcmp(r->dims, "()");
}

/* ---------- keys and buckets ---------- */

typedef struct {
    const char *key;
    uint32_t row;
} kentry;

static int cmp_kentry(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const kentry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return (x->row > y->row) - (x->row < y->row);
}

/* Joins n parts (part i: its first lens[i] bytes) with the unit separator into the arena. */
static const char *key_join(jv_arena *a, const char *const *parts, const size_t *lens, int n) {
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += lens[i] + 1;
    char *k = jv_arena_alloc(a, total + 1);
    if (!k) return NULL;
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        memcpy(k + o, parts[i], lens[i]);
        o += lens[i];
        k[o++] = '\x1f';
    }
    k[o] = 0;
    return k;
}

/* The key of row r for pass p, or "" when the row takes no part in that pass. */
static const char *key_of(jv_arena *a, const jv_drow *r, jv_cmp_pass p) {
    int nargs;
    const char *cn = canon_of(r->op_name, &nargs);
    if ((p == JV_CMP_SYNTHETIC || p == JV_CMP_SAME_VENDOR) != (r->synthetic != 0)) return "";
    char cnt[24];
    const char *parts[5] = {cn, r->dims, r->types, r->strides, r->concrete};
    size_t lens[5] = {strlen(cn), lead_args(r->dims, nargs), lead_args(r->types, nargs), lead_args(r->strides, nargs),
                      nargs ? 0 : strlen(r->concrete)};
    switch (p) {
    case JV_CMP_SIGNATURE: return key_join(a, parts, lens, 5);
    case JV_CMP_DIMS: return key_join(a, parts, lens, 2);
    case JV_CMP_NAME_COUNT:
        snprintf(cnt, sizeof cnt, "%u", r->count);
        parts[1] = cnt;
        lens[1] = strlen(cnt);
        return key_join(a, parts, lens, 2);
    case JV_CMP_SYNTHETIC: return key_join(a, parts, lens, 2);
    case JV_CMP_SAME_VENDOR: /* the row name holds the parent op and the kernel */
        parts[0] = r->name;
        lens[0] = strlen(r->name);
        return key_join(a, parts, lens, 2);
    }
    return "";
}

const char *jv_cmp_pass_name(jv_cmp_pass p) {
    switch (p) {
    case JV_CMP_SIGNATURE: return "signature";
    case JV_CMP_DIMS: return "dims";
    case JV_CMP_NAME_COUNT: return "name+count";
    case JV_CMP_SYNTHETIC: return "synthetic";
    case JV_CMP_SAME_VENDOR: return "kernel (same vendor)";
    }
    return "?";
}

/* Sorted keys of the unmatched rows of one side for pass p. */
static jv_status side_keys(jv_arena *a, const jv_digest *d, const int32_t *pair_of, jv_cmp_pass p, kentry **out,
                           size_t *n) {
    *out = NULL;
    *n = 0;
    if (!d->nrows) return JV_OK;
    kentry *k = malloc(d->nrows * sizeof *k);
    if (!k) return JV_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        if (pair_of[i] >= 0) continue;
        const char *key = key_of(a, &d->rows[i], p);
        if (!key) {
            free(k);
            return JV_ERR_NOMEM;
        }
        if (!key[0]) continue;
        k[m].key = key;
        k[m].row = (uint32_t)i;
        m++;
    }
    if (jv_sort_stable(k, m, sizeof *k, cmp_kentry, NULL) != JV_OK) {
        free(k);
        return JV_ERR_NOMEM;
    }
    *out = k;
    *n = m;
    return JV_OK;
}

static jv_status add_pair(jv_cmp *c, size_t *cap, size_t t, size_t r, jv_cmp_pass p) {
    if (JV_RESERVE(c->pairs, *cap, c->npairs + 1) != JV_OK) return JV_ERR_NOMEM;
    jv_cmp_pair *x = &c->pairs[c->npairs];
    memset(x, 0, sizeof *x);
    x->t = t;
    x->r = r;
    x->pass = p;
    c->pair_of_t[t] = (int32_t)c->npairs;
    c->pair_of_r[r] = (int32_t)c->npairs;
    c->npairs++;
    return JV_OK;
}

/* Pairs one bucket (rows with equal keys): equal call counts first, then in
 * time order. The synthetic pass pairs only a bucket of one row on each side
 * (several kernels under one parent cannot be told apart without kernel names). */
static jv_status pair_bucket(const jv_digest *T, const jv_digest *R, jv_cmp *c, size_t *cap, const kentry *a, size_t na,
                             const kentry *b, size_t nb, jv_cmp_pass p) {
    if (p == JV_CMP_SYNTHETIC) {
        if (na != 1 || nb != 1) return JV_OK;
        const jv_drow *x = &T->rows[a[0].row], *y = &R->rows[b[0].row];
        if (dims_missing(x) && dims_missing(y) && x->count != y->count) return JV_OK;
        return add_pair(c, cap, a[0].row, b[0].row, p);
    }
    for (int sweep = 0; sweep < 2; sweep++)
        for (size_t i = 0; i < na; i++) {
            if (c->pair_of_t[a[i].row] >= 0) continue;
            const jv_drow *x = &T->rows[a[i].row];
            for (size_t j = 0; j < nb; j++) {
                if (c->pair_of_r[b[j].row] >= 0) continue;
                const jv_drow *y = &R->rows[b[j].row];
                if (sweep == 0 && x->count != y->count) continue;
                if (p == JV_CMP_NAME_COUNT && !dims_missing(x) && !dims_missing(y)) continue;
                JV_CHECK(add_pair(c, cap, a[i].row, b[j].row, p));
                break;
            }
        }
    return JV_OK;
}

static jv_status run_pass(const jv_digest *T, const jv_digest *R, jv_cmp *c, size_t *cap, jv_cmp_pass p) {
    jv_arena a;
    jv_arena_init(&a);
    kentry *ka = NULL, *kb = NULL;
    size_t na, nb;
    jv_status s = side_keys(&a, T, c->pair_of_t, p, &ka, &na);
    if (s == JV_OK) s = side_keys(&a, R, c->pair_of_r, p, &kb, &nb);
    size_t i = 0, j = 0;
    while (s == JV_OK && i < na && j < nb) {
        int d = strcmp(ka[i].key, kb[j].key);
        if (d < 0)
            i++;
        else if (d > 0)
            j++;
        else {
            size_t i1 = i, j1 = j;
            while (i1 < na && !strcmp(ka[i1].key, ka[i].key))
                i1++;
            while (j1 < nb && !strcmp(kb[j1].key, kb[j].key))
                j1++;
            s = pair_bucket(T, R, c, cap, ka + i, i1 - i, kb + j, j1 - j, p);
            i = i1;
            j = j1;
        }
    }
    free(ka);
    free(kb);
    jv_arena_free(&a);
    return s;
}

/* ---------- expectations ---------- */

static jv_cmp_bound bound_of(const jv_drow *r) {
    if (r->bound == JV_BOUND_MEMORY) return JV_CMP_MEMORY;
    if (r->bound == JV_BOUND_COMPUTE) return JV_CMP_COMPUTE;
    return JV_CMP_UNKNOWN;
}

static int is_bgemm(const char *op) {
    return !strcmp(op, "aten::bmm") || !strcmp(op, "aten::baddbmm");
}

static void pair_metrics(const jv_digest *T, const jv_digest *R, jv_cmp_pair *p) {
    const jv_drow *x = &T->rows[p->t], *y = &R->rows[p->r];
    int n1, n2;
    p->renamed = strcmp(x->op_name, y->op_name) != 0 && !strcmp(canon_of(x->op_name, &n1), canon_of(y->op_name, &n2));
    p->t_call_us = x->count ? x->time_us / x->count : NAN;
    p->r_call_us = y->count ? y->time_us / y->count : NAN;
    p->ratio_call = p->r_call_us > 0 ? p->t_call_us / p->r_call_us : NAN;
    p->ratio_total = y->time_us > 0 ? x->time_us / y->time_us : NAN;
    p->delta_pct = (p->ratio_call - 1) * 100;
    p->diff_us = x->time_us - y->time_us;
    p->expected = NAN;
    p->basis[0] = 0;
    jv_cmp_bound bt = bound_of(x), br = bound_of(y);
    if (!T->has_hw || !R->has_hw || bt == JV_CMP_UNKNOWN || br == JV_CMP_UNKNOWN)
        p->bound = JV_CMP_UNKNOWN;
    else
        p->bound = bt == br ? bt : JV_CMP_MIXED;
    /* the work of one call on each side: equal for equal shapes and dtypes; when the dims pass paired
     * different dtypes, the expectation scales with the bytes (or FLOPs) each side moves */
    double wb = x->bytes > 0 && y->bytes > 0 ? x->bytes / y->bytes : 1.0;
    double wf = x->flops > 0 && y->flops > 0 ? x->flops / y->flops : 1.0;
    if (p->bound == JV_CMP_MEMORY && T->hw.mem_bw_gbps > 0 && R->hw.mem_bw_gbps > 0) {
        p->expected = R->hw.mem_bw_gbps / T->hw.mem_bw_gbps;
        int n = snprintf(p->basis, sizeof p->basis, "HBM %g GB/s (reference) / %g GB/s (target)", R->hw.mem_bw_gbps,
                         T->hw.mem_bw_gbps);
        if (wb != 1.0) {
            p->expected *= wb;
            if (n > 0 && (size_t)n < sizeof p->basis)
                snprintf(p->basis + n, sizeof p->basis - (size_t)n, " × bytes per call %.4g", wb);
        }
    } else if (p->bound == JV_CMP_COMPUTE) {
        /* one peak policy on both sides: each side's policy peaks when the two agree, else datasheet on both */
        int same = T->peaks == R->peaks;
        double pr = same ? jv_hw_peak(&R->hw, y->spec) : jv_hw_datasheet_peak(&R->hw, y->spec);
        double pt = same ? jv_hw_peak(&T->hw, x->spec) : jv_hw_datasheet_peak(&T->hw, x->spec);
        if (pr > 0 && pt > 0) {
            p->expected = pr / pt;
            int n;
            if (!strcmp(x->spec, y->spec))
                n = snprintf(p->basis, sizeof p->basis, "%s %g (reference) / %g (target) TFLOPS", x->spec, pr, pt);
            else
                n = snprintf(p->basis, sizeof p->basis, "%s %g (reference) / %s %g (target) TFLOPS", y->spec, pr,
                             x->spec, pt);
            if (wf != 1.0) {
                p->expected *= wf;
                if (n > 0 && (size_t)n < sizeof p->basis)
                    snprintf(p->basis + n, sizeof p->basis - (size_t)n, " × FLOPs per call %.4g", wf);
            }
        }
    } else if (p->bound == JV_CMP_MIXED && x->roof_us > 0 && y->roof_us > 0) {
        p->expected = x->roof_us / y->roof_us;
        snprintf(p->basis, sizeof p->basis, "roofline time %.4g µs (target) / %.4g µs (reference)", x->roof_us,
                 y->roof_us);
    }
    p->vs_expected = p->ratio_call / p->expected;
    p->flag = isfinite(p->vs_expected) ? p->vs_expected > JV_CMP_FLAG_FACTOR : -1;
    p->tiny_bgemm = is_bgemm(x->op_name) && is_bgemm(y->op_name) && (p->t_call_us < 10 || p->r_call_us < 10);
    p->question = p->flag == 1 && (p->tiny_bgemm ? p->ratio_call > 5 : p->ratio_call > 2);
    p->excess_us = p->flag >= 0 ? x->time_us - p->expected * p->r_call_us * x->count : NAN;
}

static int cmp_pair_t(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const jv_cmp_pair *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

void jv_cmp_free(jv_cmp *c) {
    free(c->pairs);
    free(c->pair_of_t);
    free(c->pair_of_r);
    memset(c, 0, sizeof *c);
}

jv_status jv_cmp_build(const jv_digest *T, const jv_digest *R, jv_cmp *c, jv_err *err) {
    memset(c, 0, sizeof *c);
    c->pair_of_t = malloc((T->nrows + 1) * sizeof *c->pair_of_t);
    c->pair_of_r = malloc((R->nrows + 1) * sizeof *c->pair_of_r);
    if (!c->pair_of_t || !c->pair_of_r) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (comparison)");
    for (size_t i = 0; i < T->nrows; i++)
        c->pair_of_t[i] = -1;
    for (size_t i = 0; i < R->nrows; i++)
        c->pair_of_r[i] = -1;
    size_t cap = 0;
    /* kernel names differ between vendors: only two traces of the same vendor are matched by them */
    static const jv_cmp_pass PASSES[] = {JV_CMP_SIGNATURE, JV_CMP_DIMS, JV_CMP_NAME_COUNT, JV_CMP_SYNTHETIC,
                                         JV_CMP_SAME_VENDOR};
    for (size_t k = 0; k < sizeof PASSES / sizeof PASSES[0]; k++)
        if ((PASSES[k] != JV_CMP_SAME_VENDOR || T->is_amd == R->is_amd) && run_pass(T, R, c, &cap, PASSES[k]) != JV_OK)
            JV_FAIL(err, JV_ERR_NOMEM, "out of memory (comparison)");
    if (jv_sort_stable(c->pairs, c->npairs, sizeof *c->pairs, cmp_pair_t, NULL) != JV_OK)
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (comparison)");
    for (size_t i = 0; i < c->npairs; i++) {
        jv_cmp_pair *p = &c->pairs[i];
        c->pair_of_t[p->t] = (int32_t)i;
        c->pair_of_r[p->r] = (int32_t)i;
        pair_metrics(T, R, p);
        c->t_matched_us += T->rows[p->t].time_us;
        c->r_matched_us += R->rows[p->r].time_us;
        c->pass_pairs[p->pass]++;
        c->pass_t_us[p->pass] += T->rows[p->t].time_us;
        c->pass_r_us[p->pass] += R->rows[p->r].time_us;
        if (p->flag == 1) c->nflagged++;
        if (p->question) c->nquestions++;
    }
    c->t_coverage = T->total_us > 0 ? 100 * c->t_matched_us / T->total_us : NAN;
    c->r_coverage = R->total_us > 0 ? 100 * c->r_matched_us / R->total_us : NAN;
    return JV_OK;
}

/* ---------- the comparison sheet ---------- */

static void sheet_flag(jv_sheet *s, int flag) {
    if (flag < 0)
        jv_sheet_empty(s);
    else
        jv_sheet_str(s, flag ? "yes" : "no");
}

static void sheet_side(jv_sheet *s, const jv_drow *x, const jv_drow *y) {
    const jv_drow *v[2] = {x, y};
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < 2; k++) {
            const jv_drow *r = v[k];
            if (!r) {
                jv_sheet_empty(s);
                continue;
            }
            switch (f) {
            case 0: jv_sheet_str(s, r->name); break;
            case 1: jv_sheet_str(s, r->dims); break;
            case 2: jv_sheet_str(s, r->types); break;
            case 3: jv_sheet_str(s, r->strides); break;
            case 4: jv_sheet_str(s, r->concrete); break;
            default: jv_sheet_int(s, r->uid); break;
            }
        }
    for (int f = 0; f < 3; f++)
        for (int k = 0; k < 2; k++) {
            const jv_drow *r = v[k];
            if (!r)
                jv_sheet_empty(s);
            else if (f == 0)
                jv_sheet_int(s, r->count);
            else if (f == 1)
                jv_sheet_num(s, r->time_us);
            else
                jv_sheet_num(s, r->count ? r->time_us / r->count : NAN);
        }
}

jv_status jv_compare_sheet(const jv_digest *T, const jv_digest *R, jv_book *book, jv_err *err) {
    jv_cmp c;
    jv_status s = jv_cmp_build(T, R, &c, err);
    if (s != JV_OK) {
        jv_cmp_free(&c);
        return s;
    }
    jv_sheet o;
    s = jv_sheet_open(&o, book, "comparison", err);
    if (s != JV_OK) {
        jv_cmp_free(&c);
        return s;
    }
    static const char *const hdr[] = {"match pass",
                                      "target name",
                                      "reference name",
                                      "target Input Dims",
                                      "reference Input Dims",
                                      "target Input type",
                                      "reference Input type",
                                      "target Input Strides",
                                      "reference Input Strides",
                                      "target Concrete Inputs",
                                      "reference Concrete Inputs",
                                      "target ex_UID",
                                      "reference ex_UID",
                                      "target operation_count",
                                      "reference operation_count",
                                      "target Kernel Time (µs)_sum",
                                      "reference Kernel Time (µs)_sum",
                                      "target time per call (µs)",
                                      "reference time per call (µs)",
                                      "ratio per call (target/reference)",
                                      "ratio total (target/reference)",
                                      "delta per call (%)",
                                      "time difference (µs)",
                                      "target bound",
                                      "reference bound",
                                      "bound",
                                      "expected ratio",
                                      "expected ratio basis",
                                      "actual / expected",
                                      "flag",
                                      "kernel-selection question",
                                      "name normalised",
                                      NULL};
    static const char *const BOUND[] = {"unknown", "memory", "compute", "mixed"};
    jv_sheet_header(&o, hdr);
    for (size_t i = 0; i < c.npairs; i++) {
        const jv_cmp_pair *p = &c.pairs[i];
        const jv_drow *x = &T->rows[p->t], *y = &R->rows[p->r];
        jv_sheet_str(&o, jv_cmp_pass_name(p->pass));
        sheet_side(&o, x, y);
        jv_sheet_num(&o, p->ratio_call);
        jv_sheet_num(&o, p->ratio_total);
        jv_sheet_num(&o, p->delta_pct);
        jv_sheet_num(&o, p->diff_us);
        jv_sheet_str(&o, jv_bound_name(x->bound));
        jv_sheet_str(&o, jv_bound_name(y->bound));
        jv_sheet_str(&o, BOUND[p->bound]);
        jv_sheet_num(&o, p->expected);
        jv_sheet_str(&o, p->basis);
        jv_sheet_num(&o, p->vs_expected);
        sheet_flag(&o, p->flag);
        jv_sheet_str(&o, p->question ? "yes" : "no");
        jv_sheet_str(&o, p->renamed ? "yes" : "no");
        jv_sheet_end(&o);
    }
    for (int side = 0; side < 2; side++) {
        const jv_digest *d = side ? R : T;
        const int32_t *po = side ? c.pair_of_r : c.pair_of_t;
        for (size_t i = 0; i < d->nrows; i++) {
            if (po[i] >= 0) continue;
            const jv_drow *r = &d->rows[i];
            jv_sheet_str(&o, side ? "unmatched (reference)" : "unmatched (target)");
            sheet_side(&o, side ? NULL : r, side ? r : NULL);
            for (int k = 0; k < 4; k++)
                jv_sheet_empty(&o);
            jv_sheet_str(&o, side ? "" : jv_bound_name(r->bound));
            jv_sheet_str(&o, side ? jv_bound_name(r->bound) : "");
            for (int k = 0; k < 6; k++)
                jv_sheet_empty(&o);
            jv_sheet_str(&o, "no");
            jv_sheet_end(&o);
        }
    }
    jv_cmp_free(&c);
    return jv_sheet_commit(&o, err);
}

/* ---------- markdown helpers ---------- */
