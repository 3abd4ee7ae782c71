/* Unit tests for core/ (interning, maps, number and Python-repr formatting)
 * and the interval arithmetic and op categories of analysis/; the bit count of core/jv_bits.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_bits.h"
#include "jv_category.h"
#include "jv_dtype.h"
#include "jv_escape.h"
#include "jv_intern.h"
#include "jv_map.h"
#include "jv_output.h"
#include "jv_pyrepr.h"
#include "jv_sha256.h"
#include "jv_sort.h"
#include "jv_strbuf.h"
#include "jv_tensor.h"
#include "jv_timeline.h"

#include "jv_check.h"

static void expect_str(const char *got, const char *want, int line) {
    if (!strcmp(got, want))
        passed++;
    else {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: got '%s', want '%s'\n", __FILE__, line, got, want);
    }
}
#define EXPECT_STR(g, w) expect_str((g), (w), __LINE__)

static void test_intern(void) {
    jv_intern t;
    CHECK(jv_intern_init(&t) == JV_OK);
    uint32_t a, b, c, d;
    CHECK(jv_intern_add(&t, "aten::mm", 8, &a) == JV_OK);
    CHECK(jv_intern_add(&t, "aten::mm", 8, &b) == JV_OK);
    CHECK(a == b && a != 0);
    CHECK(jv_intern_add(&t, "aten::m", 7, &c) == JV_OK && c != a);
    CHECK(jv_intern_find(&t, "", 0, &d) && d == 0);
    /* many strings force rehashing; ids stay stable */
    char buf[32];
    uint32_t first = 0;
    for (int i = 0; i < 50000; i++) {
        snprintf(buf, sizeof buf, "k%d", i);
        uint32_t id;
        CHECK(jv_intern_add(&t, buf, strlen(buf), &id) == JV_OK || 1);
        if (i == 0) first = id;
    }
    CHECK(jv_intern_find(&t, "k0", 2, &d) && d == first);
    CHECK(!strcmp(jv_intern_str(&t, a), "aten::mm") && jv_intern_len(&t, a) == 8);
    /* embedded NUL bytes are part of the key */
    CHECK(jv_intern_add(&t, "a\0b", 3, &a) == JV_OK && jv_intern_add(&t, "a\0c", 3, &b) == JV_OK && a != b);
    jv_intern_free(&t);
}

/* jv_sort_inplace against qsort (byte for byte: the orders are total) on random arrays with many ties, sorted,
 * reversed, all-equal and organ-pipe inputs (quicksort's bad cases: the heapsort fallback), and elements of
 * 16 and 72 bytes (the swap's 64-byte chunks); jv_sort_stable (its merge through a half-size buffer) by the key
 * alone on the same inputs, against qsort by (key, input index). */
typedef struct {
    int64_t k, v;
} sort16;
typedef struct {
    int64_t k, v;
    char pad[56];
} sort72;

static int cmp16(const void *a, const void *b) {
    const sort16 *x = a, *y = b;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}
static int cmp16_ctx(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return cmp16(a, b);
}
static int cmp16_key_ctx(const void *a, const void *b, void *ctx) { /* the key alone: ties for the stable sort */
    (void)ctx;
    const sort16 *x = a, *y = b;
    return (x->k > y->k) - (x->k < y->k);
}
static int cmp72(const void *a, const void *b) {
    const sort72 *x = a, *y = b;
    int c = cmp16(a, b);
    return c ? c : memcmp(x->pad, y->pad, sizeof x->pad);
}
static int cmp72_ctx(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return cmp72(a, b);
}

static void test_sort_inplace(void) {
    static const size_t sizes[] = {0, 1, 2, 3, 16, 17, 100, 1000, 40000};
    uint64_t r = 12345;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        sort16 *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
        sort72 *c = malloc((n + 1) * sizeof *c), *d = malloc((n + 1) * sizeof *d);
        CHECK(a && b && c && d);
        if (!a || !b || !c || !d) return;
        for (int pattern = 0; pattern < 6; pattern++) {
            for (size_t i = 0; i < n; i++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                int64_t k = pattern == 0   ? (int64_t)(r % 50)                 /* many ties */
                            : pattern == 1 ? (int64_t)(r >> 1)                 /* few ties */
                            : pattern == 2 ? (int64_t)i                        /* sorted */
                            : pattern == 3 ? (int64_t)(n - i)                  /* reversed */
                            : pattern == 4 ? 7                                 /* all equal */
                                           : (int64_t)(i < n / 2 ? i : n - i); /* organ pipe */
                a[i] = (sort16){k, pattern == 4 ? 0 : (int64_t)(r % 3)};
                memset(&c[i], 0, sizeof c[i]);
                c[i].k = a[i].k;
                c[i].v = a[i].v;
                c[i].pad[55] = (char)(r % 2);
            }
            memcpy(b, a, n * sizeof *a);
            memcpy(d, c, n * sizeof *c);
            jv_sort_inplace(a, n, sizeof *a, cmp16_ctx, NULL);
            if (n) qsort(b, n, sizeof *b, cmp16);
            CHECK_MSG(!n || !memcmp(a, b, n * sizeof *a), "jv_sort_inplace 16 B: n %zu pattern %d", n, pattern);
            /* jv_sort_stable by the key alone keeps the input order of ties: as qsort by (key, input index) */
            for (size_t i = 0; i < n; i++) /* the input again (c is not sorted yet), numbered */
                a[i] = (sort16){c[i].k, (int64_t)i};
            memcpy(b, a, n * sizeof *a);
            CHECK(jv_sort_stable(a, n, sizeof *a, cmp16_key_ctx, NULL) == JV_OK);
            if (n) qsort(b, n, sizeof *b, cmp16);
            CHECK_MSG(!n || !memcmp(a, b, n * sizeof *a), "jv_sort_stable 16 B: n %zu pattern %d", n, pattern);
            jv_sort_inplace(c, n, sizeof *c, cmp72_ctx, NULL);
            if (n) qsort(d, n, sizeof *d, cmp72);
            CHECK_MSG(!n || !memcmp(c, d, n * sizeof *c), "jv_sort_inplace 72 B: n %zu pattern %d", n, pattern);
        }
        free(a);
        free(b);
        free(c);
        free(d);
    }
}

/* jv_str_ranks against strcmp, pair by pair: the rank order is strcmp's sign for every pair (equal strings equal
 * ranks), and the ranks are dense (0 .. distinct - 1). Strings of a 3-letter alphabet, 0-4 long: many duplicates,
 * prefixes of one another ("" < "a" < "ab"), and bytes above 0x7f (strcmp compares them as unsigned char). */
static void test_str_ranks(void) {
    static const size_t sizes[] = {0, 1, 2, 17, 300};
    static const char alpha[] = {'a', 'b', (char)0xc3};
    uint64_t r = 777;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        char(*buf)[8] = calloc(n + 1, sizeof *buf);
        const char **s = malloc((n + 1) * sizeof *s);
        uint32_t *rank = malloc((n + 1) * sizeof *rank);
        CHECK(buf && s && rank);
        if (!buf || !s || !rank) return;
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            size_t len = (size_t)(r % 5);
            for (size_t k = 0; k < len; k++)
                buf[i][k] = alpha[(r >> (8 + 2 * k)) % 3];
            s[i] = buf[i];
        }
        CHECK(jv_str_ranks(s, n, rank) == JV_OK);
        int bad = 0;
        uint32_t maxr = 0;
        size_t distinct = 0;
        for (size_t i = 0; i < n; i++) {
            int first = 1;
            for (size_t j = 0; j < n; j++) {
                int c = strcmp(s[i], s[j]), d = (rank[i] > rank[j]) - (rank[i] < rank[j]);
                bad += (c > 0) - (c < 0) != d;
                if (j < i && !c) first = 0;
            }
            distinct += first;
            if (rank[i] > maxr) maxr = rank[i];
        }
        CHECK_MSG(!bad, "jv_str_ranks: n %zu: %d pairs out of strcmp's order", n, bad);
        CHECK_MSG(!n || maxr + 1 == distinct, "jv_str_ranks: n %zu: ranks 0..%u for %zu distinct strings", n,
                  (unsigned)maxr, distinct);
        free(buf);
        free(s);
        free(rank);
    }
}

/* jv_median_sort against a stable reference (qsort of value and position pairs), byte for byte: random values
 * with many ties, -0.0 beside 0.0 (equal, told apart by their bytes: a stable sort keeps their order), sorted and
 * reversed runs; sizes across the insertion-sort cutoff and the stack buffer (256). */
typedef struct {
    double v;
    size_t pos;
} dpos;

static int cmp_dpos(const void *a, const void *b) {
    const dpos *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static void test_median_sort(void) {
    static const size_t sizes[] = {1, 2, 7, 24, 25, 100, 256, 257, 5000};
    uint64_t r = 99;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        double *a = malloc(n * sizeof *a);
        dpos *ref = malloc(n * sizeof *ref);
        CHECK(a && ref);
        if (!a || !ref) return;
        for (int pattern = 0; pattern < 4; pattern++) {
            for (size_t i = 0; i < n; i++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                double x = pattern == 0   ? (double)(r % 7) - 3.0              /* ties, negatives */
                           : pattern == 1 ? ((r >> 3) % 2 ? -0.0 : 0.0)        /* only zeros of both signs */
                           : pattern == 2 ? (double)i + ((r % 3) ? 0.0 : -0.0) /* sorted */
                                          : (double)(n - i) * 0.5;             /* reversed */
                if (pattern == 0 && r % 5 == 0) x = (r >> 9) % 2 ? -0.0 : 0.0;
                a[i] = x;
                ref[i] = (dpos){x, i};
            }
            qsort(ref, n, sizeof *ref, cmp_dpos);
            double med = jv_median_sort(a, n);
            int bad = 0;
            for (size_t i = 0; i < n; i++)
                bad += memcmp(&a[i], &ref[i].v, sizeof a[i]) != 0;
            double want = n % 2 ? ref[n / 2].v : (ref[n / 2 - 1].v + ref[n / 2].v) / 2;
            CHECK_MSG(!bad, "jv_median_sort: n %zu pattern %d: %d values out of the stable order", n, pattern, bad);
            CHECK_MSG(!memcmp(&med, &want, sizeof med), "jv_median_sort: n %zu pattern %d: median %g, want %g", n,
                      pattern, med, want);
        }
        free(a);
        free(ref);
    }
}

static void test_map(void) {
    jv_map m;
    jv_map_init(&m);
    uint32_t v;
    CHECK(!jv_map_get(&m, 5, &v));
    for (int64_t k = -1000; k < 100000; k += 3)
        CHECK(jv_map_put(&m, k * 7919, (uint32_t)(k + 1000)) == JV_OK || 1);
    CHECK(jv_map_get(&m, -1000 * 7919, &v) && v == 0);
    CHECK(jv_map_get(&m, 2 * 7919, &v) && v == 1002);
    CHECK(!jv_map_get(&m, 3 * 7919, &v));
    CHECK(jv_map_put_first(&m, 2 * 7919, 9) == JV_OK && jv_map_get(&m, 2 * 7919, &v) && v == 1002);
    CHECK(jv_map_put(&m, 2 * 7919, 9) == JV_OK && jv_map_get(&m, 2 * 7919, &v) && v == 9);
    CHECK(jv_map_put(&m, INT64_MIN, 1) == JV_OK && jv_map_get(&m, INT64_MIN, &v) && v == 1);
    jv_map_free(&m);
}

static void test_pyfloat(void) {
    char b[48];
    /* the spellings Python's repr(float) uses */
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 1.0), "1.0");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 0.1), "0.1");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 1e-05), "1e-05");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 0.0001), "0.0001");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 123456789012345678.0), "1.2345678901234568e+17");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 1e16), "1e+16");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 9999999999999998.0), "9999999999999998.0");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, -2.5), "-2.5");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 5.8069411764705885), "5.8069411764705885");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 0.30719775390625), "0.30719775390625");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 0.0), "0.0");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, NAN), "nan");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, -INFINITY), "-inf");
    EXPECT_STR(jv_fmt_pyfloat(b, sizeof b, 3.0e-310), "3e-310");
}

static void repr_case(const char *json, const char *want, int line) {
    char *s = NULL;
    if (jv_pyrepr(json, strlen(json), &s) != JV_OK) {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: jv_pyrepr rejected %s\n", __FILE__, line, json);
        return;
    }
    expect_str(s, want, line);
    free(s);
}
#define REPR(j, w) repr_case((j), (w), __LINE__)

static void test_pyrepr(void) {
    /* exactly as TraceLens' CSVs spell trace arguments */
    REPR("[[512], [141, 512], [512, 512], [], []]", "((512,), (141, 512), (512, 512), (), ())");
    REPR("[\"c10::BFloat16\", \"Scalar\", \"\"]", "('c10::BFloat16', 'Scalar', '')");
    REPR("[\"\", \"1\", \"1e-05\", \"True\"]", "('', '1', '1e-05', 'True')");
    REPR("[]", "()");
    REPR("[[[1, 2], [3]], 4]", "(((1, 2), (3,)), 4)");
    REPR("[1.5, 1e-05, 2.0, true, false, null]", "(1.5, 1e-05, 2.0, True, False, None)");
    REPR("[\"it's\"]", "(\"it's\",)");
    REPR("[\"a\\\"b'c\"]", "('a\"b\\'c',)");
    REPR("[\"tab\\there\"]", "('tab\\there',)");
    char *s = NULL;
    CHECK(jv_pyrepr("[1,", 3, &s) == JV_ERR_FORMAT && s == NULL);
    CHECK(jv_pyrepr("[1] x", 5, &s) == JV_ERR_FORMAT);
    char *q = jv_pyrepr_quote("void k<float>(int)");
    EXPECT_STR(q, "'void k<float>(int)'");
    free(q);
}

static void test_intervals(void) {
    /* hand-computed: [0,10) [5,15) [20,30) [30,35) [40,41) -> [0,15) [20,35) [40,41): 15 + 15 + 1 */
    jv_iv a[] = {{20, 30}, {0, 10}, {40, 41}, {5, 15}, {30, 35}};
    size_t n = jv_iv_merge(a, 5);
    CHECK(n == 3);
    CHECK(a[0].start == 0 && a[0].end == 15 && a[1].start == 20 && a[1].end == 35);
    CHECK(jv_iv_len(a, n) == 31);
    jv_iv b[] = {{12, 22}, {34, 50}};
    /* overlap of [0,15)[20,35)[40,41) with [12,22)[34,50): 3 + 2 + 1 + 1 = 7 */
    CHECK(jv_iv_overlap(a, n, b, 2) == 7);
    jv_iv c[] = {{0, 5}, {0, 5}, {1, 2}};
    CHECK(jv_iv_union_len(c, 3) == 5);
    CHECK(jv_iv_union_len(c, 0) == 0);
}

static void test_category(void) {
    EXPECT_STR(jv_op_category("aten::addmm", NULL), "GEMM");
    EXPECT_STR(jv_op_category("aten::cudnn_convolution", NULL), "CONV_fwd");
    EXPECT_STR(jv_op_category("aten::convolution_backward", NULL), "CONV_bwd");
    EXPECT_STR(jv_op_category("aten::native_batch_norm", NULL), "NORM_fwd");
    EXPECT_STR(jv_op_category("aten::cudnn_batch_norm_backward", NULL), "NORM_bwd");
    EXPECT_STR(jv_op_category("aten::native_layer_norm_backward", NULL), "NORM_bwd");
    EXPECT_STR(jv_op_category("aten::_scaled_dot_product_flash_attention", NULL), "SDPA_fwd");
    EXPECT_STR(jv_op_category("aten::_scaled_dot_product_flash_attention_backward", NULL), "SDPA_bwd");
    EXPECT_STR(jv_op_category("aten::add_", NULL), "elementwise");
    EXPECT_STR(jv_op_category("aten::sum", NULL), "reduce");
    EXPECT_STR(jv_op_category("aten::fill_", "void at::native::vectorized_elementwise_kernel<4, F>(int)"),
               "elementwise");
    EXPECT_STR(jv_op_category("aten::argmax", "void at::native::reduce_kernel<512, 1>(R)"), "reduce");
    EXPECT_STR(jv_op_category("aten::index", "void indexing_kernel(int)"), "other");
    EXPECT_STR(jv_op_category("triton_poi_fused_add_0", NULL), "triton");
}

static void test_dtype(void) {
    CHECK(jv_dtype_parse("c10::BFloat16") == JV_DT_BF16 && jv_dtype_size(JV_DT_BF16) == 2);
    CHECK(jv_dtype_parse("long int") == JV_DT_I64 && jv_dtype_parse("bool") == JV_DT_BOOL);
    CHECK(jv_dtype_size(JV_DT_BOOL) == 1 && jv_dtype_parse("Scalar") == JV_DT_UNKNOWN);
    CHECK(jv_dtype_parse("c10::Float8_e4m3fn") == JV_DT_F8E4M3 && jv_dtype_size(JV_DT_F8E4M3) == 1);
    CHECK(!strcmp(jv_dtype_short(JV_DT_F32), "fp32") && !strcmp(jv_dtype_trace_name(JV_DT_F16), "c10::Half"));
    /* bf16: 1.0 = 0x3f80; round to nearest even: 1 + 2^-8 ties to 1.0, 1 + 3*2^-8 rounds up */
    CHECK(jv_f32_to_bf16(1.0f) == 0x3f80 && jv_bf16_to_f32(0x3f80) == 1.0f);
    CHECK(jv_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80 && jv_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
    CHECK(isnan(jv_bf16_to_f32(jv_f32_to_bf16(NAN))));
    /* fp16: 1.0 = 0x3c00, 65504 max, 2^-24 smallest subnormal, overflow -> inf */
    CHECK(jv_f32_to_f16(1.0f) == 0x3c00 && jv_f16_to_f32(0x3c00) == 1.0f);
    CHECK(jv_f32_to_f16(65504.0f) == 0x7bff && jv_f32_to_f16(1e6f) == 0x7c00);
    CHECK(jv_f16_to_f32(0x0001) == 0x1p-24f && jv_f32_to_f16(0x1p-24f) == 0x0001);
    CHECK(jv_f16_to_f32(jv_f32_to_f16(-2.5f)) == -2.5f);
    int exact = 1;
    for (uint32_t h = 0; h < 0x7c00; h++)
        exact &= jv_f32_to_f16(jv_f16_to_f32((uint16_t)h)) == h;
    CHECK(exact);
}

static void test_tensor(void) {
    jv_tensor t = {4, {32, 64, 56, 56}, {200704, 3136, 56, 1}, 1, JV_DT_BF16};
    CHECK(jv_tensor_layout(&t) == JV_LAYOUT_CONTIGUOUS && jv_tensor_numel(&t) == 6422528);
    CHECK(jv_tensor_tail_dense(&t, 4) && jv_tensor_tail_dense(&t, 2) && jv_tensor_tail_dense(&t, 0));
    jv_tensor cl = {4, {32, 64, 56, 56}, {200704, 1, 3584, 64}, 1, JV_DT_BF16};
    CHECK(!jv_tensor_tail_dense(&cl, 1) && !jv_tensor_tail_dense(&cl, 4));
    jv_tensor rows = {2, {16, 1000}, {3000, 1}, 1, JV_DT_F32}; /* a column slice: rows apart, each row dense */
    CHECK(jv_tensor_tail_dense(&rows, 1) && !jv_tensor_tail_dense(&rows, 2));
    jv_tensor unit = {3, {4, 1, 8}, {8, 99, 1}, 1, JV_DT_F32}; /* a size-1 dim's stride does not matter */
    CHECK(jv_tensor_tail_dense(&unit, 3));
    CHECK(jv_tensor_layout(&cl) == JV_LAYOUT_CHANNELS_LAST && jv_tensor_extent(&cl) == 6422528);
    jv_tensor tr = {2, {1000, 512}, {1, 1000}, 1, JV_DT_F32};
    CHECK(jv_tensor_layout(&tr) == JV_LAYOUT_TRANSPOSED);
    jv_tensor bc = {2, {8, 16}, {0, 1}, 1, JV_DT_F32};
    CHECK(jv_tensor_layout(&bc) == JV_LAYOUT_BROADCAST && jv_tensor_extent(&bc) == 16);
    jv_tensor a = {3, {8, 1, 16}, {0}, 0, JV_DT_F32}, b = {2, {4, 1}, {0}, 0, JV_DT_F32}, o;
    CHECK(jv_tensor_broadcast(&a, &b, &o) && o.ndim == 3 && o.shape[0] == 8 && o.shape[1] == 4 && o.shape[2] == 16);
    jv_tensor c = {1, {3}, {1}, 1, JV_DT_F32};
    CHECK(!jv_tensor_broadcast(&a, &c, &o));
    jv_tensor big = {3, {INT64_MAX / 2, 4, 1}, {0}, 0, JV_DT_F32};
    CHECK(jv_tensor_numel(&big) == -1);
    /* dense: any permutation of a contiguous layout, size-1 dims free; not with overlaps, gaps or broadcasts */
    CHECK(jv_tensor_dense(&t) && jv_tensor_dense(&cl) && jv_tensor_dense(&tr) && !jv_tensor_dense(&bc));
    jv_tensor perm = {3, {4, 5, 6}, {1, 24, 4}, 1, JV_DT_F32}, one = {3, {4, 1, 6}, {6, 999, 1}, 1, JV_DT_F32};
    CHECK(jv_tensor_dense(&perm) && jv_tensor_dense(&one));
    jv_tensor ovl = {3, {2, 2, 2}, {1, 1, 5}, 1, JV_DT_F32}; /* extent == numel, yet two dims share a stride */
    CHECK(jv_tensor_extent(&ovl) == 8 && !jv_tensor_dense(&ovl));
    jv_tensor gap = {2, {4, 4}, {8, 1}, 1, JV_DT_F32}, empty = {2, {0, 4}, {4, 1}, 1, JV_DT_F32};
    CHECK(!jv_tensor_dense(&gap) && jv_tensor_dense(&empty));
    CHECK(jv_tensor_same_shape(&t, &cl) && !jv_tensor_same_shape(&t, &tr) && !jv_tensor_same_shape(&gap, &perm));
}

/* 1 when jv_tensor_cudnn_strides(t, cl) gives want (hand-computed from ATen's fixSizeOneDimStride) */
static int cudnn_strides_are(const jv_tensor *t, int cl, const int64_t *want) {
    int64_t got[JV_MAX_DIMS];
    jv_tensor_cudnn_strides(t, cl, got);
    for (int i = 0; i < t->ndim; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}

/* cuDNN's canonical strides on size-1 dims, and PyTorch's suggest_memory_format */
static void test_cudnn_strides(void) {
    /* NCHW, size-1 N and H with junk traced strides: each gets the product of the sizes inside it */
    jv_tensor a = {4, {1, 3, 1, 5}, {999, 5, 7, 1}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&a, 0, (const int64_t[]){15, 5, 5, 1}));
    /* NHWC, size-1 C: C is innermost, so its stride is 1 */
    jv_tensor b = {4, {2, 1, 4, 4}, {16, 77, 4, 1}, 1, JV_DT_F16};
    CHECK(cudnn_strides_are(&b, 1, (const int64_t[]){16, 1, 4, 1}));
    /* [N, C, 1, 1]: H and W take C under channels_last, 1 under contiguous; N of size 1 takes all */
    jv_tensor c = {4, {1, 8, 1, 1}, {8, 1, 8, 8}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&c, 1, (const int64_t[]){8, 1, 8, 8}));
    CHECK(cudnn_strides_are(&c, 0, (const int64_t[]){8, 1, 1, 1}));
    /* NCHW, size-1 W with a zero traced stride */
    jv_tensor d = {4, {4, 3, 2, 1}, {6, 2, 1, 0}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&d, 0, (const int64_t[]){6, 2, 1, 1}));
    /* NCHW with size-1 W under channels_last: W comes right after C */
    jv_tensor e = {4, {2, 3, 4, 1}, {12, 1, 3, 5}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&e, 1, (const int64_t[]){12, 1, 3, 3}));
    /* 5-d channels_last_3d (NDHWC) with size-1 D */
    jv_tensor f = {5, {2, 3, 1, 4, 5}, {60, 1, 0, 15, 3}, 1, JV_DT_BF16};
    CHECK(cudnn_strides_are(&f, 1, (const int64_t[]){60, 1, 60, 15, 3}));
    /* 5-d NCDHW with size-1 N and C */
    jv_tensor g = {5, {1, 1, 2, 3, 4}, {0, 0, 12, 4, 1}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&g, 0, (const int64_t[]){24, 24, 12, 4, 1}));
    /* 3-d, 1-d, and no strides (row-major first) */
    jv_tensor h = {3, {2, 1, 5}, {5, 3, 1}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&h, 0, (const int64_t[]){5, 5, 1}));
    jv_tensor i1 = {1, {1}, {42}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&i1, 0, (const int64_t[]){1}));
    jv_tensor ns = {3, {2, 1, 3}, {0}, 0, JV_DT_F32};
    CHECK(cudnn_strides_are(&ns, 0, (const int64_t[]){3, 3, 1}));
    /* dims of size > 1 keep their traced strides */
    jv_tensor pad = {4, {2, 3, 4, 5}, {100, 20, 5, 1}, 1, JV_DT_F32};
    CHECK(cudnn_strides_are(&pad, 0, (const int64_t[]){100, 20, 5, 1}));

    /* suggest_memory_format */
    jv_tensor cl = {4, {32, 64, 56, 56}, {200704, 1, 3584, 64}, 1, JV_DT_BF16};
    CHECK(jv_tensor_suggest_channels_last(&cl) == 1);
    jv_tensor nchw = {4, {32, 64, 56, 56}, {200704, 3136, 56, 1}, 1, JV_DT_BF16};
    CHECK(jv_tensor_suggest_channels_last(&nchw) == 0);
    jv_tensor nc11 = {4, {2, 8, 1, 1}, {8, 1, 8, 8}, 1, JV_DT_F32}; /* dense both ways: channels_last wins */
    CHECK(jv_tensor_suggest_channels_last(&nc11) == 1);
    jv_tensor nc11c = {4, {2, 8, 1, 1}, {8, 1, 1, 1}, 1, JV_DT_F32}; /* contiguous strides: NCHW */
    CHECK(jv_tensor_suggest_channels_last(&nc11c) == 0);
    jv_tensor n111 = {4, {4, 1, 1, 1}, {1, 1, 1, 1}, 1, JV_DT_F32}; /* ambiguous: NCHW */
    CHECK(jv_tensor_suggest_channels_last(&n111) == 0);
    jv_tensor zc = {4, {2, 3, 4, 4}, {48, 0, 12, 3}, 1, JV_DT_F32}; /* zero C stride: NCHW */
    CHECK(jv_tensor_suggest_channels_last(&zc) == 0);
    jv_tensor cl3 = {5, {2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}, 1, JV_DT_F16};
    CHECK(jv_tensor_suggest_channels_last(&cl3) == 1);
    jv_tensor c3 = {5, {2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, 1, JV_DT_F16};
    CHECK(jv_tensor_suggest_channels_last(&c3) == 0);
    jv_tensor r3 = {3, {2, 3, 4}, {12, 1, 3}, 1, JV_DT_F32};
    CHECK(jv_tensor_suggest_channels_last(&r3) == 0);
    jv_tensor nos = {4, {2, 3, 4, 4}, {0}, 0, JV_DT_F32};
    CHECK(jv_tensor_suggest_channels_last(&nos) == 0);
}

/* element access through strides, and load/store rounding per dtype */
static void test_elements(void) {
    jv_tensor cl = {4, {2, 3, 2, 2}, {12, 1, 6, 3}, 1, JV_DT_F32};
    int64_t idx[4] = {1, 2, 1, 0};
    CHECK(jv_tensor_offset(&cl, idx) == 12 + 2 + 6);
    CHECK(jv_tensor_offset_at(&cl, 1 * 12 + 2 * 4 + 1 * 2 + 0) == 20); /* same element by logical index */
    int64_t back[4];
    jv_tensor_unravel(&cl, 22, back);
    CHECK(back[0] == 1 && back[1] == 2 && back[2] == 1 && back[3] == 0);
    jv_tensor nos = {2, {3, 5}, {0}, 0, JV_DT_F32};
    CHECK(jv_tensor_offset_at(&nos, 7) == 7);
    unsigned char buf[16];
    jv_dtype_store(JV_DT_BF16, buf, 1, 1.00390625); /* 1 + 2^-8: a tie, rounds to even 1.0 */
    CHECK(jv_dtype_load(JV_DT_BF16, buf, 1) == 1.0);
    jv_dtype_store(JV_DT_BF16, buf, 1, 1.01171875); /* 1 + 3*2^-8: a tie, rounds up to 1 + 2^-6 */
    CHECK(jv_dtype_load(JV_DT_BF16, buf, 1) == 1.015625);
    jv_dtype_store(JV_DT_F16, buf, 0, 65520.0); /* overflows half: inf */
    CHECK(isinf(jv_dtype_load(JV_DT_F16, buf, 0)));
    jv_dtype_store(JV_DT_I8, buf, 2, -300.7);
    CHECK(jv_dtype_load(JV_DT_I8, buf, 2) == -128);
    jv_dtype_store(JV_DT_I32, buf, 1, -2.9);
    CHECK(jv_dtype_load(JV_DT_I32, buf, 1) == -2);
    jv_dtype_store(JV_DT_BOOL, buf, 5, 0.25);
    CHECK(jv_dtype_load(JV_DT_BOOL, buf, 5) == 1);
    CHECK(!jv_dtype_is_numeric(JV_DT_F8E4M3) && !jv_dtype_is_numeric(JV_DT_C64) && jv_dtype_is_numeric(JV_DT_U8));
    CHECK(isnan(jv_dtype_load(JV_DT_C64, buf, 0)));
}

/* the SHA-256 of n bytes at p, fed in chunks of `chunk` bytes, by the portable code or the default choice */
static void sha256_of(const void *p, size_t n, size_t chunk, int portable, char hex[65]) {
    jv_sha256 s;
    jv_sha256_init(&s);
    if (portable) jv_sha256_use_portable(&s);
    for (size_t o = 0; o < n; o += chunk)
        jv_sha256_update(&s, (const char *)p + o, n - o < chunk ? n - o : chunk);
    jv_sha256_final(&s, hex);
}

/* FIPS 180-4 test vectors, through both the portable code and the default one (the SHA extensions where the CPU
 * has them), in one piece and byte by byte; then both on pseudo-random data of many lengths and chunkings */
static void test_sha256(void) {
    static const struct {
        const char *text;
        int repeat;
        const char *hex;
    } v[] = {
        {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    char hex[65];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t n = strlen(v[i].text) * (size_t)v[i].repeat;
        char *buf = malloc(n + 1);
        CHECK(buf != NULL);
        if (!buf) return;
        for (size_t k = 0; k < n; k++)
            buf[k] = v[i].text[k % strlen(v[i].text)];
        for (int portable = 0; portable < 2; portable++) {
            sha256_of(buf, n, n ? n : 1, portable, hex);
            CHECK_MSG(!strcmp(hex, v[i].hex), "vector %zu portable %d: %s", i, portable, hex);
            if (n <= 64 * 1024) {
                sha256_of(buf, n, 1, portable, hex); /* byte by byte */
                CHECK_MSG(!strcmp(hex, v[i].hex), "vector %zu bytewise portable %d: %s", i, portable, hex);
            }
        }
        free(buf);
    }
    unsigned char data[4099];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t k = 0; k < sizeof data; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[k] = (unsigned char)x;
    }
    static const size_t lens[] = {1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 4099};
    static const size_t chunks[] = {1, 7, 64, 100, 4099};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            char a[65], b[65];
            sha256_of(data, lens[i], chunks[c], 0, a);
            sha256_of(data, lens[i], chunks[c], 1, b);
            CHECK_MSG(!strcmp(a, b), "random %zu bytes in chunks of %zu: %s vs portable %s", lens[i], chunks[c], a, b);
        }
    jv_err err = {0};
    uint64_t size;
    CHECK(jv_sha256_file("/nonexistent/trace.json", hex, &size, &err) == JV_ERR_IO &&
          strstr(err.msg, "/nonexistent/trace.json"));
}

static void test_strbuf(void) {
    jv_strbuf b = JV_STRBUF_INIT;
    char *s = jv_sb_take(&b); /* nothing appended: "" */
    CHECK(s && !strcmp(s, ""));
    free(s);
    CHECK(jv_sb_puts(&b, "[") && jv_sb_append(&b, "ab", 1));
    for (int i = 0; i < 200; i++)
        CHECK(jv_sb_printf(&b, "%s%d", i ? ", " : "", i)); /* grows past 64 */
    CHECK(jv_sb_puts(&b, "]") && b.len == strlen(b.buf) && !strncmp(b.buf, "[a0, 1, 2", 9));
    CHECK(!strcmp(b.buf + b.len - 5, " 199]"));
    s = jv_sb_take(&b);
    CHECK(s && b.buf == NULL && b.len == 0 && strlen(s) > 600);
    free(s);
    jv_sb_free(&b);
}

/* what writer w writes for s, in a static buffer */
static const char *md(int code, const char *s, size_t max, int in_table) {
    static char out[256];
    memset(out, 0, sizeof out);
    FILE *f = fmemopen(out, sizeof out, "w");
    if (!f) return "";
    if (code)
        jv_md_code(f, s, max, in_table);
    else
        jv_md_text(f, s);
    fclose(f);
    return out;
}

static void test_escape(void) {
    EXPECT_STR(md(1, "aten::mm", 70, 1), "`aten::mm`");
    EXPECT_STR(md(1, "a|b", 70, 1), "`a\\|b`");   /* GFM: \| in a table cell, read as | */
    EXPECT_STR(md(1, "a|b", 70, 0), "`a|b`");     /* outside a table a | stays */
    EXPECT_STR(md(1, "a`b", 70, 0), "`` a`b ``"); /* fence longer than the longest run of ` */
    EXPECT_STR(md(1, "x``y`", 70, 0), "``` x``y` ```");
    EXPECT_STR(md(1, "a\nb\tc", 70, 0), "`a b c`");
    EXPECT_STR(md(1, "", 70, 1), "");
    EXPECT_STR(md(1, "", 70, 0), "(none)");
    EXPECT_STR(md(1, "abcdef", 3, 0), "`abc\xe2\x80\xa6`");
    EXPECT_STR(md(1, "ab\xc2\xb5", 3, 0), "`ab\xe2\x80\xa6`"); /* never cut inside a UTF-8 sequence */
    EXPECT_STR(md(0, "a_b*c|d\ne", 0, 0), "a\\_b\\*c\\|d e");
}

/* the one median (timing samples, fleet statistics, sheet columns): odd, even, one, none; unsorted input sorted */
static void test_median(void) {
    double a[] = {5, 1, 4, 2, 3}, b[] = {4, 1, 3, 2}, one[] = {7}, neg[] = {-1.5, 2.5};
    CHECK(jv_median_sort(a, 5) == 3 && a[0] == 1 && a[1] == 2 && a[4] == 5);
    CHECK(jv_median_sort(b, 4) == 2.5 && b[0] == 1 && b[3] == 4);
    CHECK(jv_median_sort(one, 1) == 7 && jv_median_sort(one, 0) == 0);
    CHECK(jv_median_sort(neg, 2) == 0.5);
}

/* jv_popcount64 (the instruction where the CPU has it) and jv_popcount64_swar (the path of CPUs without it,
 * which this machine may never take) against a bit-by-bit count: single bits, all-ones runs, and pseudo-random
 * words of every density. */
static void test_popcount(void) {
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    int bad_hw = 0, bad_swar = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t v;
        if (i < 64)
            v = UINT64_C(1) << i;
        else if (i < 129)
            v = i == 128 ? 0 : ~UINT64_C(0) >> (i - 64);
        else {
            x ^= x << 13; /* xorshift64 */
            x ^= x >> 7;
            x ^= x << 17;
            v = x;
            for (int k = 0; k < i % 4; k++) /* sparser words too: and with more random words */
                v &= x * UINT64_C(0xD1B54A32D192ED03) + (uint64_t)k;
        }
        uint32_t want = 0;
        for (uint64_t w = v; w; w >>= 1)
            want += (uint32_t)(w & 1);
        bad_hw += jv_popcount64(v) != want;
        bad_swar += jv_popcount64_swar(v) != want;
    }
    CHECK_MSG(!bad_hw, "jv_popcount64: %d of 20000 words miscounted", bad_hw);
    CHECK_MSG(!bad_swar, "jv_popcount64_swar: %d of 20000 words miscounted", bad_swar);
}

int main(void) {
    test_median();
    test_strbuf();
    test_escape();
    test_elements();
    test_sha256();
    test_dtype();
    test_tensor();
    test_cudnn_strides();
    test_intern();
    test_map();
    test_sort_inplace();
    test_str_ranks();
    test_median_sort();
    test_popcount();
    test_pyfloat();
    test_pyrepr();
    test_intervals();
    test_category();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
