/* Unit tests of the GEMM family's replay operands and CPU reference
 * (kernels/gemm/gemm_ref.c): a hand-computed product, transposed operands
 * through strides, addmm/baddbmm alpha and beta with broadcast biases, bmm,
 * linear, matmul's shape rules, fp16/bf16 storage, sampled runs, refusals.
 * Calls are built as traces record them (jv_opcall_from_trace + jv_desc_parse).
 * The independent check is a naive triple loop over logical indices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "jv_test_replay.h"

/* Parses, gets operands, allocates; IN operands filled with value_at, outputs with poison. */
static int setup(replay *r, const char *name, const char *dims, const char *types, const char *strides,
                 const char *concrete, double poison) {
    if (!replay_open(r, name, dims, types, strides, concrete)) return 0;
    for (int i = 0; i < r->ops.n; i++) {
        int64_t n = jv_tensor_numel(&r->ops.o[i].t);
        for (int64_t l = 0; l < n; l++)
            set(r, i, l, r->ops.o[i].role == JV_ROLE_IN ? value_at((unsigned)(i + 1), l) : poison);
    }
    return 1;
}

/* logical element at multi-index idx of operand i, broadcasting idx (right-aligned, out's rank) */
static double get_bcast(const replay *r, int i, const int64_t *idx, int nd) {
    const jv_tensor *t = &r->ops.o[i].t;
    int64_t off = 0;
    for (int e = 0; e < t->ndim; e++) {
        int64_t v = idx[nd - t->ndim + e];
        if (t->shape[e] == 1) v = 0;
        off += v * t->strides[e];
    }
    return jv_dtype_load(t->dtype, r->bufs[i], off);
}

/* Naive batched product over logical indices: out[b..., i, j] = beta*bias + alpha*sum_k A[b..., i, k] B[b..., k, j]
 * for operands of rank >= 2 (A, B and bias broadcast by get_bcast); w_nk: B is a [N, K] weight. Returns the worst
 * |out - naive| / max(1, |naive|). */
static double naive_err(const replay *r, int ia, int ib, int ic, int io, double alpha, double beta, int w_nk) {
    const jv_tensor *o = &r->ops.o[io].t;
    int nd = o->ndim;
    int64_t k = r->ops.o[ia].t.shape[r->ops.o[ia].t.ndim - 1];
    int64_t numel = jv_tensor_numel(o), idx[JV_MAX_DIMS], ia_idx[JV_MAX_DIMS], ib_idx[JV_MAX_DIMS];
    double worst = 0;
    for (int64_t l = 0; l < numel; l++) {
        jv_tensor_unravel(o, l, idx);
        memcpy(ia_idx, idx, sizeof idx);
        memcpy(ib_idx, idx, sizeof idx);
        double acc = 0;
        for (int64_t q = 0; q < k; q++) {
            ia_idx[nd - 1] = q;
            double a = get_bcast(r, ia, ia_idx, nd), b;
            if (w_nk) {
                const jv_tensor *w = &r->ops.o[ib].t;
                b = jv_dtype_load(w->dtype, r->bufs[ib], idx[nd - 1] * w->strides[0] + q * w->strides[1]);
            } else {
                ib_idx[nd - 2] = q;
                b = get_bcast(r, ib, ib_idx, nd);
            }
            acc += a * b;
        }
        double want = alpha * acc + (ic >= 0 && beta != 0 ? beta * get_bcast(r, ic, idx, nd) : 0);
        double e = fabs(get(r, io, l) - want) / fmax(1.0, fabs(want));
        if (!(e <= worst)) worst = e; /* NaN sticks */
    }
    return worst;
}

/* ---- tests ---- */

static void test_hand_2x3_3x2(void) {
    replay r;
    CHECK(setup(&r, "aten::mm", "[[2, 3], [3, 2]]", "[\"float\", \"float\"]", NULL, NULL, NAN));
    CHECK(r.ops.n == 3 && !strcmp(r.ops.o[0].name, "self") && !strcmp(r.ops.o[1].name, "mat2") &&
          !strcmp(r.ops.o[2].name, "out"));
    CHECK(r.ops.o[2].role == JV_ROLE_OUT && r.ops.o[2].init == JV_INIT_NONE && r.ops.o[0].init == JV_INIT_NORMAL);
    CHECK(r.ops.o[2].t.ndim == 2 && r.ops.o[2].t.shape[0] == 2 && r.ops.o[2].t.shape[1] == 2);
    CHECK(r.ops.o[2].t.strides[0] == 2 && r.ops.o[2].t.strides[1] == 1 && r.ops.o[2].t.dtype == JV_DT_F32);
    /* A = [[1,2,3],[4,5,6]], B = [[7,8],[9,10],[11,12]]: A@B = [[58,64],[139,154]] */
    for (int l = 0; l < 6; l++)
        set(&r, 0, l, l + 1), set(&r, 1, l, l + 7);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(get(&r, 2, 0) == 58 && get(&r, 2, 1) == 64 && get(&r, 2, 2) == 139 && get(&r, 2, 3) == 154);
    replay_free(&r);
}

static void test_transposed_strides(void) {
    /* A [37, 53] and B [53, 29], contiguous vs column-major views with the same logical values */
    replay c, t;
    CHECK(setup(&c, "aten::mm", "[[37, 53], [53, 29]]", "[\"float\", \"float\"]", "[[53, 1], [29, 1]]", NULL, NAN));
    CHECK(setup(&t, "aten::mm", "[[37, 53], [53, 29]]", "[\"float\", \"float\"]", "[[1, 37], [1, 53]]", NULL, NAN));
    const jv_gemm_desc *g = jv_gemm_of(&t.d);
    CHECK(g->trans_a && g->trans_b);
    /* the inputs keep their traced strides; out is contiguous */
    CHECK(t.ops.o[0].t.strides[0] == 1 && t.ops.o[0].t.strides[1] == 37 && t.ops.o[1].t.strides[1] == 53);
    CHECK(t.ops.o[2].t.strides[0] == 29 && t.ops.o[2].t.strides[1] == 1);
    CHECK(reference(&c, NULL) == JV_OK && reference(&t, NULL) == JV_OK);
    int same = 1;
    for (int64_t l = 0; l < 37 * 29; l++)
        same &= get(&c, 2, l) == get(&t, 2, l);
    CHECK(same);
    CHECK(naive_err(&t, 0, 1, -1, 2, 1, 1, 0) <= 1e-6); /* fp32 out: rounding only */
    CHECK(naive_err(&c, 0, 1, -1, 2, 1, 1, 0) <= 1e-6);
    replay_free(&c);
    replay_free(&t);
}

static void test_addmm(void) {
    /* addmm(bias [6], A [5, 7], B [7, 6], beta=2, alpha=0.5), fp64, B a transposed view */
    replay r;
    CHECK(setup(&r, "aten::addmm", "[[6], [5, 7], [7, 6], [], []]",
                "[\"double\", \"double\", \"double\", \"Scalar\", \"Scalar\"]", "[[1], [7, 1], [1, 7], [], []]",
                "[\"\", \"\", \"\", \"2\", \"0.5\"]", NAN));
    CHECK(r.ops.n == 4 && find(&r, "self") == 0 && find(&r, "mat1") == 1 && find(&r, "mat2") == 2 &&
          find(&r, "out") == 3);
    CHECK(r.ops.o[0].t.ndim == 1 && r.ops.o[0].t.shape[0] == 6);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 1, 2, 0, 3, 0.5, 2, 0) <= 1e-12);
    /* one element by hand: out[1][2] = 2*bias[2] + 0.5*sum_k A[1][k]*B[k][2] */
    double acc = 0;
    for (int q = 0; q < 7; q++)
        acc += value_at(2, 7 + q) * value_at(3, q * 6 + 2);
    CHECK_NEAR(get(&r, 3, 1 * 6 + 2), 2 * value_at(1, 2) + 0.5 * acc, 1e-12);
    /* a NaN bias with beta = 0 is ignored */
    replay_free(&r);
    CHECK(setup(&r, "aten::addmm", "[[5, 6], [5, 7], [7, 6], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"0\", \"1\"]",
                NAN));
    for (int64_t l = 0; l < 30; l++)
        set(&r, 0, l, NAN);
    CHECK(reference(&r, NULL) == JV_OK);
    int finite = 1;
    for (int64_t l = 0; l < 30; l++)
        finite &= isfinite(get(&r, 3, l));
    CHECK(finite);
    CHECK(naive_err(&r, 1, 2, 0, 3, 1, 0, 0) <= 1e-6);
    replay_free(&r);
    /* a [5, 1] column bias broadcast along N */
    CHECK(setup(&r, "aten::addmm", "[[5, 1], [5, 7], [7, 6], [], []]",
                "[\"double\", \"double\", \"double\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"-1\", \"3\"]", NAN));
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 1, 2, 0, 3, 3, -1, 0) <= 1e-12);
    replay_free(&r);
}

static void test_bmm_baddbmm(void) {
    replay r;
    CHECK(setup(&r, "aten::bmm", "[[3, 5, 7], [3, 7, 4]]", "[\"double\", \"double\"]", "[[35, 1, 5], [28, 4, 1]]", NULL,
                NAN)); /* A transposed per batch */
    CHECK(r.ops.n == 3 && find(&r, "self") == 0 && find(&r, "mat2") == 1);
    CHECK(r.ops.o[2].t.ndim == 3 && r.ops.o[2].t.shape[0] == 3 && r.ops.o[2].t.shape[1] == 5 &&
          r.ops.o[2].t.shape[2] == 4);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 0, 1, -1, 2, 1, 1, 0) <= 1e-12);
    replay_free(&r);
    /* baddbmm(self [5, 4] broadcast over the batch, beta -1, alpha 0.25) */
    CHECK(setup(&r, "aten::baddbmm", "[[5, 4], [3, 5, 7], [3, 7, 4], [], []]",
                "[\"double\", \"double\", \"double\", \"Scalar\", \"Scalar\"]", NULL,
                "[\"\", \"\", \"\", \"-1\", \"0.25\"]", NAN));
    CHECK(r.ops.n == 4 && find(&r, "self") == 0 && find(&r, "batch1") == 1 && find(&r, "batch2") == 2);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 1, 2, 0, 3, 0.25, -1, 0) <= 1e-12);
    /* by hand: out[2][3][1] = -bias[3][1] + 0.25*sum_k A[2][3][k]*B[2][k][1] */
    double acc = 0;
    for (int q = 0; q < 7; q++)
        acc += value_at(2, 2 * 35 + 3 * 7 + q) * value_at(3, 2 * 28 + q * 4 + 1);
    CHECK_NEAR(get(&r, 3, 2 * 20 + 3 * 4 + 1), -value_at(1, 3 * 4 + 1) + 0.25 * acc, 1e-12);
    replay_free(&r);
}

static void test_linear(void) {
    replay r;
    /* x [2, 3, 8] @ W[6, 8]^T + b[6] -> [2, 3, 6] */
    CHECK(
        setup(&r, "aten::linear", "[[2, 3, 8], [6, 8], [6]]", "[\"double\", \"double\", \"double\"]", NULL, NULL, NAN));
    CHECK(r.ops.n == 4 && find(&r, "input") == 0 && find(&r, "weight") == 1 && find(&r, "bias") == 2 &&
          find(&r, "out") == 3);
    const jv_tensor *o = &r.ops.o[3].t;
    CHECK(o->ndim == 3 && o->shape[0] == 2 && o->shape[1] == 3 && o->shape[2] == 6 && o->strides[0] == 18);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 0, 1, 2, 3, 1, 1, 1) <= 1e-12);
    /* by hand: out[1][2][4] = b[4] + sum_k x[1][2][k] * W[4][k] */
    double acc = value_at(3, 4);
    for (int q = 0; q < 8; q++)
        acc += value_at(1, 1 * 24 + 2 * 8 + q) * value_at(2, 4 * 8 + q);
    CHECK_NEAR(get(&r, 3, 1 * 18 + 2 * 6 + 4), acc, 1e-12);
    replay_free(&r);
    /* no bias, and a 1-D input: out [6] */
    CHECK(setup(&r, "aten::linear", "[[8], [6, 8], []]", "[\"float\", \"float\", \"\"]", NULL, NULL, NAN));
    CHECK(r.ops.n == 3 && find(&r, "bias") < 0 && r.ops.o[2].t.ndim == 1 && r.ops.o[2].t.shape[0] == 6);
    CHECK(reference(&r, NULL) == JV_OK);
    acc = 0;
    for (int q = 0; q < 8; q++)
        acc += value_at(1, q) * value_at(2, 5 * 8 + q);
    CHECK_NEAR(get(&r, 2, 5), acc, 1e-6);
    replay_free(&r);
}

static void test_matmul(void) {
    replay r;
    /* batched broadcast: [2, 1, 4, 3] @ [3, 3, 5] -> [2, 3, 4, 5] */
    CHECK(setup(&r, "aten::matmul", "[[2, 1, 4, 3], [3, 3, 5]]", "[\"double\", \"double\"]", NULL, NULL, NAN));
    CHECK(r.ops.n == 3 && find(&r, "self") == 0 && find(&r, "other") == 1);
    const jv_tensor *o = &r.ops.o[2].t;
    CHECK(o->ndim == 4 && o->shape[0] == 2 && o->shape[1] == 3 && o->shape[2] == 4 && o->shape[3] == 5);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 0, 1, -1, 2, 1, 1, 0) <= 1e-12);
    replay_free(&r);
    /* N-D @ 2-D: [2, 3, 4] @ [4, 5] -> [2, 3, 5] */
    CHECK(setup(&r, "aten::matmul", "[[2, 3, 4], [4, 5]]", "[\"double\", \"double\"]", NULL, NULL, NAN));
    CHECK(r.ops.o[2].t.ndim == 3 && r.ops.o[2].t.shape[2] == 5);
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(naive_err(&r, 0, 1, -1, 2, 1, 1, 0) <= 1e-12);
    replay_free(&r);
    /* 1-D @ 1-D: a 0-d dot product */
    CHECK(setup(&r, "aten::matmul", "[[6], [6]]", "[\"double\", \"double\"]", NULL, NULL, NAN));
    CHECK(r.ops.o[2].t.ndim == 0);
    CHECK(reference(&r, NULL) == JV_OK);
    double acc = 0;
    for (int q = 0; q < 6; q++)
        acc += value_at(1, q) * value_at(2, q);
    CHECK_NEAR(get(&r, 2, 0), acc, 1e-12);
    replay_free(&r);
    /* [4, 6] @ [6] -> [4] */
    CHECK(setup(&r, "aten::matmul", "[[4, 6], [6]]", "[\"double\", \"double\"]", NULL, NULL, NAN));
    CHECK(r.ops.o[2].t.ndim == 1 && r.ops.o[2].t.shape[0] == 4);
    CHECK(reference(&r, NULL) == JV_OK);
    acc = 0;
    for (int q = 0; q < 6; q++)
        acc += value_at(1, 3 * 6 + q) * value_at(2, q);
    CHECK_NEAR(get(&r, 2, 3), acc, 1e-12);
    replay_free(&r);
    /* [6] @ [2, 6, 5] -> [2, 5] */
    CHECK(setup(&r, "aten::matmul", "[[6], [2, 6, 5]]", "[\"double\", \"double\"]", NULL, NULL, NAN));
    CHECK(r.ops.o[2].t.ndim == 2 && r.ops.o[2].t.shape[0] == 2 && r.ops.o[2].t.shape[1] == 5);
    CHECK(reference(&r, NULL) == JV_OK);
    acc = 0;
    for (int q = 0; q < 6; q++)
        acc += value_at(1, q) * value_at(2, 1 * 30 + q * 5 + 2);
    CHECK_NEAR(get(&r, 2, 1 * 5 + 2), acc, 1e-12);
    replay_free(&r);
}

/* fp16 / bf16 storage: inputs are exact in the type (multiples of 1/8 in [-2, 2)), so the only error is the
 * rounding of out: at most half an ulp of the type plus fp32's on the way, bounded here by one ulp relative
 * (2^-8 for bf16, 2^-11 for fp16) of the exact product. */
static void test_half_storage(void) {
    static const struct {
        const char *types;
        double tol;
    } CASES[] = {{"[\"c10::BFloat16\", \"c10::BFloat16\"]", 1.0 / 256}, {"[\"c10::Half\", \"c10::Half\"]", 1.0 / 2048}};
    for (int c = 0; c < 2; c++) {
        replay r;
        CHECK(setup(&r, "aten::mm", "[[16, 40], [40, 12]]", CASES[c].types, "[[1, 16], [12, 1]]", NULL, NAN));
        CHECK(r.ops.o[2].t.dtype == r.ops.o[0].t.dtype);
        CHECK(reference(&r, NULL) == JV_OK);
        double worst = 0;
        int rounded = 1;
        for (int64_t i = 0; i < 16; i++)
            for (int64_t j = 0; j < 12; j++) {
                double acc = 0;
                for (int q = 0; q < 40; q++)
                    acc += value_at(1, i * 40 + q) * value_at(2, q * 12 + j);
                double got = get(&r, 2, i * 12 + j), e = fabs(got - acc) / fmax(fabs(acc), 1e-30);
                if (acc != 0 && !(e <= worst)) worst = e;
                /* the stored value is representable in the type (it round-trips) */
                rounded &=
                    jv_dtype_load(r.ops.o[2].t.dtype,
                                  &(uint16_t){c ? jv_f32_to_f16((float)got) : jv_f32_to_bf16((float)got)}, 0) == got;
            }
        CHECK(worst <= CASES[c].tol);
        CHECK(rounded);
        replay_free(&r);
    }
}

static void test_sampled(void) {
    /* the listed elements equal the full run's bit for bit; the others keep the poison */
    const double poison = -12345.0;
    replay f, s;
    const char *dims = "[[2, 33, 47], [2, 47, 29]]", *types = "[\"float\", \"float\"]";
    const char *strides = "[[1551, 1, 33], [1363, 29, 1]]"; /* A transposed, B contiguous */
    CHECK(setup(&f, "aten::bmm", dims, types, strides, NULL, poison));
    CHECK(setup(&s, "aten::bmm", dims, types, strides, NULL, poison));
    CHECK(reference(&f, NULL) == JV_OK);
    int64_t numel = 2 * 33 * 29, idx[64];
    for (int t = 0; t < 64; t++)
        idx[t] = (int64_t)((t * 977 + 13) % numel);
    idx[63] = numel - 1;
    jv_sample smp = {find(&s, "out"), 64, idx};
    CHECK(reference(&s, &smp) == JV_OK);
    char *listed = calloc((size_t)numel, 1);
    for (int t = 0; t < 64; t++)
        listed[idx[t]] = 1;
    int exact = 1, untouched = 1, n_listed = 0;
    for (int64_t l = 0; l < numel; l++) {
        if (listed[l]) {
            n_listed++;
            exact &= get(&s, 2, l) == get(&f, 2, l);
        } else {
            untouched &= get(&s, 2, l) == poison;
        }
    }
    CHECK(n_listed == 64);
    CHECK(exact);
    CHECK(untouched);
    CHECK(naive_err(&f, 0, 1, -1, 2, 1, 1, 0) <= 1e-6);
    free(listed);
    /* an index outside out is refused; a sample of another operand means every element */
    int64_t bad = numel;
    jv_sample sb = {2, 1, &bad};
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_desc_reference(&s.d, &s.ops, s.bufs, &sb, &err) == JV_ERR_FORMAT);
    jv_sample other = {0, 1, idx};
    replay_free(&s);
    CHECK(setup(&s, "aten::bmm", dims, types, strides, NULL, poison));
    CHECK(reference(&s, &other) == JV_OK);
    int all = 1;
    for (int64_t l = 0; l < numel; l++)
        all &= get(&s, 2, l) == get(&f, 2, l);
    CHECK(all);
    replay_free(&s);
    replay_free(&f);
    /* a sampled addmm with alpha/beta and a broadcast bias */
    CHECK(setup(&f, "aten::addmm", "[[1, 9], [11, 5], [5, 9], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"0.5\", \"2\"]",
                poison));
    CHECK(setup(&s, "aten::addmm", "[[1, 9], [11, 5], [5, 9], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"0.5\", \"2\"]",
                poison));
    CHECK(reference(&f, NULL) == JV_OK);
    int64_t one[2] = {0, 98};
    jv_sample s2 = {3, 2, one};
    CHECK(reference(&s, &s2) == JV_OK);
    CHECK(get(&s, 3, 0) == get(&f, 3, 0) && get(&s, 3, 98) == get(&f, 3, 98) && get(&s, 3, 1) == poison);
    CHECK(naive_err(&f, 1, 2, 0, 3, 2, 0.5, 0) <= 1e-6);
    replay_free(&s);
    replay_free(&f);
}

static void test_refusals(void) {
    jv_desc d;
    jv_operands ops;
    jv_err err;
    /* _scaled_mm (fp8) */
    CHECK(parse_call("aten::_scaled_mm", "[[256, 512], [512, 128], [], [], [], [], [], []]",
                     "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", \"\", "
                     "\"ScalarType\", \"Bool\"]",
                     NULL, "[\"\", \"\", \"\", \"\", \"\", \"\", \"15\", \"False\"]", &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT);
    CHECK(strstr(err.msg, "_scaled_mm") && strstr(err.msg, "fp8") && strstr(err.msg, "not replayed"));
    CHECK(ops.n == 0);
    /* integer storage */
    CHECK(parse_call("aten::mm", "[[4, 4], [4, 4]]", "[\"int\", \"int\"]", NULL, NULL, &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT && strstr(err.msg, "int"));
    /* a bias that does not broadcast */
    CHECK(parse_call("aten::addmm", "[[3], [4, 5], [5, 6], [], []]",
                     "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, NULL, &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_ERR_FORMAT && strstr(err.msg, "broadcast"));
    /* a reference over operands that do not fit the call */
    CHECK(parse_call("aten::mm", "[[4, 5], [5, 6]]", "[\"float\", \"float\"]", NULL, NULL, &d) == JV_OK);
    jv_err_clear(&err);
    CHECK(jv_desc_operands(&d, &ops, &err) == JV_OK);
    ops.o[2].t.shape[1] = 7;
    void *bufs[3] = {NULL, NULL, NULL};
    jv_err_clear(&err);
    CHECK(jv_desc_reference(&d, &ops, bufs, NULL, &err) == JV_ERR_FORMAT);
    snprintf(ops.o[2].name, sizeof ops.o[2].name, "result");
    jv_err_clear(&err);
    CHECK(jv_desc_reference(&d, &ops, bufs, NULL, &err) == JV_ERR_FORMAT && strstr(err.msg, "out"));
}

static void test_empty(void) {
    /* K = 0: out = beta*bias; M = 0: nothing to do */
    replay r;
    CHECK(setup(&r, "aten::addmm", "[[3], [2, 0], [0, 3], [], []]",
                "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, "[\"\", \"\", \"\", \"2\", \"1\"]",
                NAN));
    CHECK(reference(&r, NULL) == JV_OK);
    CHECK(get(&r, 3, 4) == 2 * value_at(1, 1));
    replay_free(&r);
    CHECK(setup(&r, "aten::mm", "[[0, 4], [4, 3]]", "[\"float\", \"float\"]", NULL, NULL, NAN));
    CHECK(reference(&r, NULL) == JV_OK);
    replay_free(&r);
}

int main(void) {
    test_hand_2x3_3x2();
    test_transposed_strides();
    test_addmm();
    test_bmm_baddbmm();
    test_linear();
    test_matmul();
    test_half_storage();
    test_sampled();
    test_refusals();
    test_empty();
    printf("%d checks passed\n", passed);
    if (failed) printf("%d checks failed\n", failed);
    return failed != 0;
}
