/* Unit tests of the conv family's replay operands and CPU reference
 * (kernels/conv/conv_ref.c), through the registry (jv_desc_parse,
 * jv_desc_operands, jv_desc_reference) on calls built from trace texts
 * (the helpers: test_ref_conv.h; the identities on random data, layouts,
 * low precision and sampled runs: test_ref_conv_identities.c):
 *   - hand-computed cases (arithmetic in the comments): a 1-channel 4x4 with a
 *     2x2 kernel, stride 2, padding 1 (forward, bias, and its three grads);
 *     groups=2 with dilation 2 in 2d (with bias) and 1d; a 3d case; a 1d
 *     transposed conv with output_padding and with padding; "same" padding
 *     with even kernels;
 *   - "same" padding with even kernels against a direct loop;
 *   - an unbatched conv2d equals the batched call;
 *   - the operand lists (names, shapes, strides, roles) and their refusals. */
#include "test_ref_conv.h"
/* ---- hand-computed cases ---- */

static void test_hand_4x4(void) {
    /* x = 1..16 as 4x4, w = [[1, 2], [3, 4]], stride 2, padding 1: out 3x3,
     * out[oy][ox] = sum w[ky][kx] * x[2oy-1+ky][2ox-1+kx]:
     *   [0][0] = x00*w11 = 4;  [0][1] = x01*w10 + x02*w11 = 6 + 12 = 18;  [0][2] = x03*w10 = 12
     *   [1][0] = x10*w01 + x20*w11 = 10 + 36 = 46;  [1][1] = 6 + 14 + 30 + 44 = 94;  [1][2] = x13*w00 + x23*w10 = 44
     *   [2][0] = x30*w01 = 26;  [2][1] = x31*w00 + x32*w01 = 44;  [2][2] = x33*w00 = 16 */
    static const double X[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, W[4] = {1, 2, 3, 4};
    static const double OUT[9] = {4, 18, 12, 46, 94, 44, 26, 44, 16};
    spec p = {.nd = 2, .x = {1, 1, 4, 4}, .w = {1, 1, 2, 2}, .stride = {2, 2}, .pad = {1, 1}};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(c.ops.n == 3);
    int ix = opi(&c, "input"), iw = opi(&c, "weight"), io = opi(&c, "out");
    CHECK(ix == 0 && iw == 1 && io == 2);
    CHECK(c.ops.o[io].t.ndim == 4 && c.ops.o[io].t.shape[2] == 3 && c.ops.o[io].t.shape[3] == 3);
    set_all(&c, ix, X);
    set_all(&c, iw, W);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 9; k++)
        CHECK_EQ(at(&c, io, k), OUT[k]);
    call_free(&c);

    /* with a bias of 0.5: every output + 0.5 */
    p.bias = 1;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(c.ops.n == 4 && opi(&c, "bias") == 2 && opi(&c, "out") == 3);
    set_all(&c, 0, X);
    set_all(&c, 1, W);
    fill_const(&c, 2, 0.5);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 9; k++)
        CHECK_EQ(at(&c, 3, k), OUT[k] + 0.5);
    call_free(&c);

    /* backward with grad_out = ones:
     * grad_input[iy][ix] = w[(iy+1)%2][(ix+1)%2] (each input position is hit by exactly one tap):
     *   rows 4 3 4 3 / 2 1 2 1 / 4 3 4 3 / 2 1 2 1;
     * grad_weight[ky][kx] = sum of x over iy in 2oy-1+ky, ix in 2ox-1+kx (inside):
     *   w00: x11+x13+x31+x33 = 6+8+14+16 = 44;  w01: x10+x12+x30+x32 = 5+7+13+15 = 40;
     *   w10: x01+x03+x21+x23 = 2+4+10+12 = 28;  w11: x00+x02+x20+x22 = 1+3+9+11 = 24;
     * grad_bias = 9 (nine outputs). */
    static const double GI[16] = {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1}, GW[4] = {44, 40, 28, 24};
    p.bias = 0;
    const int64_t go[4] = {1, 1, 3, 3};
    CHECK(build_bwd(&c, &p, go, "[True, True, True]") == JV_OK);
    CHECK(c.ops.n == 6);
    CHECK(opi(&c, "grad_output") == 0 && opi(&c, "input") == 1 && opi(&c, "weight") == 2);
    CHECK(opi(&c, "grad_input") == 3 && opi(&c, "grad_weight") == 4 && opi(&c, "grad_bias") == 5);
    fill_const(&c, 0, 1.0);
    set_all(&c, 1, X);
    set_all(&c, 2, W);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 16; k++)
        CHECK_EQ(at(&c, 3, k), GI[k]);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(at(&c, 4, k), GW[k]);
    CHECK_EQ(at(&c, 5, 0), 9);
    call_free(&c);
}

static void test_hand_groups_dilation(void) {
    /* 2d, groups 2, dilation 2, no padding: x [1, 2, 3, 3] (ch0 = 1..9, ch1 = 10..18),
     * w [2, 1, 2, 2] = ch0 [[1, 2], [3, 4]], ch1 [[0, 1], [1, 0]], bias [0.5, -1]: out [1, 2, 1, 1]
     * reads the corners: ch0 1*1 + 3*2 + 7*3 + 9*4 + 0.5 = 64.5; ch1 12 + 16 - 1 = 27. */
    spec p = {.nd = 2, .x = {1, 2, 3, 3}, .w = {2, 1, 2, 2}, .dil = {2, 2}, .groups = 2, .bias = 1};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    for (int k = 0; k < 18; k++)
        put(&c, 0, k, k + 1);
    static const double W[8] = {1, 2, 3, 4, 0, 1, 1, 0}, B[2] = {0.5, -1};
    set_all(&c, 1, W);
    set_all(&c, 2, B);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(numel(&c, 3) == 2);
    CHECK_EQ(at(&c, 3, 0), 64.5);
    CHECK_EQ(at(&c, 3, 1), 27);
    call_free(&c);

    /* 1d, groups 2, dilation 2: x [1, 2, 5] = ch0 [1, 2, 3, 4, 5], ch1 [2, 1, 0, -1, 3];
     * w [2, 1, 2] = ch0 [1, 10], ch1 [3, -1]: out length 5 - 2 = 3,
     * ch0[o] = x0[o] + 10 x0[o+2] = 31, 42, 53;  ch1[o] = 3 x1[o] - x1[o+2] = 6, 4, -3 */
    spec q = {.nd = 1, .x = {1, 2, 5}, .w = {2, 1, 2}, .dil = {2}, .groups = 2};
    CHECK(build_fwd(&c, &q) == JV_OK);
    static const double X1[10] = {1, 2, 3, 4, 5, 2, 1, 0, -1, 3}, W1[4] = {1, 10, 3, -1};
    static const double O1[6] = {31, 42, 53, 6, 4, -3};
    set_all(&c, 0, X1);
    set_all(&c, 1, W1);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(numel(&c, 2) == 6);
    for (int k = 0; k < 6; k++)
        CHECK_EQ(at(&c, 2, k), O1[k]);
    call_free(&c);
}

static void test_hand_3d(void) {
    /* x [1, 1, 2, 2, 2] = 1..8, w [1, 1, 2, 2, 2] = 1..8, padding 1: out [1, 1, 3, 3, 3];
     * out[0,0,0] = x000 * w111 = 8; out[1,1,1] = sum x_i w_i = 1+4+...+64 = 204;
     * out[2,2,2] = x111 * w000 = 8; out[0,0,1] = x000 * w110 + x001 * w111 = 7 + 16 = 23;
     * out[1,0,0] = x000 * w011 + x100 * w111 = 1*4 + 5*8 = 44. */
    spec p = {.nd = 3, .x = {1, 1, 2, 2, 2}, .w = {1, 1, 2, 2, 2}, .pad = {1, 1, 1}};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    for (int k = 0; k < 8; k++) {
        put(&c, 0, k, k + 1);
        put(&c, 1, k, k + 1);
    }
    CHECK(run(&c, NULL) == JV_OK);
    CHECK(numel(&c, 2) == 27);
    CHECK_EQ(at(&c, 2, 0), 8);
    CHECK_EQ(at(&c, 2, 13), 204);
    CHECK_EQ(at(&c, 2, 26), 8);
    CHECK_EQ(at(&c, 2, 1), 23);
    CHECK_EQ(at(&c, 2, 9), 44);
    call_free(&c);
}

static void test_hand_transposed(void) {
    /* conv_transpose1d: x [1, 1, 2] = [1, 2], w [1, 1, 3] = [1, 10, 100], stride 2:
     * out[2i + k] += x[i] w[k]: [1, 10, 100+2, 20, 200]; output_padding 1 adds a 6th
     * position that no tap reaches; bias 0.25 is added everywhere. */
    spec p = {.nd = 1, .x = {1, 1, 2}, .w = {1, 1, 3}, .stride = {2}, .opad = {1}, .transposed = 1, .bias = 1};
    static const double X[2] = {1, 2}, W[3] = {1, 10, 100}, OUT[6] = {1, 10, 102, 20, 200, 0};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(numel(&c, 3) == 6);
    set_all(&c, 0, X);
    set_all(&c, 1, W);
    fill_const(&c, 2, 0.25);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 6; k++)
        CHECK_EQ(at(&c, 3, k), OUT[k] + 0.25);
    call_free(&c);

    /* padding 1 crops one position at each end: length (2-1)*2 - 2 + 2 + 1 = 3: [10, 102, 20] */
    spec q = {.nd = 1,
              .x = {1, 1, 2},
              .w = {1, 1, 3},
              .stride = {2},
              .pad = {1},
              .transposed = 1,
              .name = "aten::conv_transpose1d"};
    CHECK(build_fwd(&c, &q) == JV_OK);
    CHECK(numel(&c, 2) == 3);
    set_all(&c, 0, X);
    set_all(&c, 1, W);
    CHECK(run(&c, NULL) == JV_OK);
    CHECK_EQ(at(&c, 2, 0), 10);
    CHECK_EQ(at(&c, 2, 1), 102);
    CHECK_EQ(at(&c, 2, 2), 20);
    call_free(&c);
}

static void test_hand_same(void) {
    /* conv1d padding="same", x = [1, 2, 3, 4]:
     * k = 4, w = [1, 10, 100, 1000]: total pad 3 = 1 left + 2 right,
     *   out[i] = sum_k w[k] x[i-1+k] = 3210, 4321, 432, 43;
     * k = 2, w = [1, 10]: total pad 1 = 0 left + 1 right: out[i] = x[i] + 10 x[i+1] = 21, 32, 43, 4. */
    static const double X[4] = {1, 2, 3, 4}, W4[4] = {1, 10, 100, 1000}, W2[2] = {1, 10};
    static const double O4[4] = {3210, 4321, 432, 43}, O2[4] = {21, 32, 43, 4};
    spec p = {.name = "aten::conv1d", .nd = 1, .x = {1, 1, 4}, .w = {1, 1, 4}, .padstr = "same"};
    call c;
    CHECK(build_fwd(&c, &p) == JV_OK);
    CHECK(numel(&c, 2) == 4);
    set_all(&c, 0, X);
    set_all(&c, 1, W4);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(at(&c, 2, k), O4[k]);
    call_free(&c);
    p.w[2] = 2;
    CHECK(build_fwd(&c, &p) == JV_OK);
    set_all(&c, 0, X);
    set_all(&c, 1, W2);
    CHECK(run(&c, NULL) == JV_OK);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(at(&c, 2, k), O2[k]);
    call_free(&c);
}

/* conv2d padding="same" with even kernels and dilation against a direct loop
 * (left pad d(k-1)/2, the odd remainder on the right). */
static void test_same_2d(void) {
    spec p = {.name = "aten::conv2d",
              .nd = 2,
              .x = {2, 3, 6, 7},
              .w = {4, 3, 4, 2},
              .dil = {1, 3},
              .padstr = "same",
              .bias = 1};
    call c;
    uint64_t seed = 0x1234567u;
    CHECK(build_fwd(&c, &p) == JV_OK);
    for (int i = 0; i < 3; i++)
        fill_rand(&c, i, &seed);
    CHECK(run(&c, NULL) == JV_OK);
    const jv_tensor *o = &c.ops.o[3].t;
    CHECK(o->shape[0] == 2 && o->shape[1] == 4 && o->shape[2] == 6 && o->shape[3] == 7);
    int64_t pl0 = 1 * (4 - 1) / 2, pl1 = 3 * (2 - 1) / 2; /* 1 and 1 (right: 2 and 2) */
    double maxerr = 0;
    for (int64_t n = 0; n < 2; n++)
        for (int64_t co = 0; co < 4; co++)
            for (int64_t y = 0; y < 6; y++)
                for (int64_t x = 0; x < 7; x++) {
                    double s = at(&c, 2, co);
                    for (int64_t ci = 0; ci < 3; ci++)
                        for (int64_t ky = 0; ky < 4; ky++)
                            for (int64_t kx = 0; kx < 2; kx++) {
                                int64_t iy = y - pl0 + ky, ix = x - pl1 + 3 * kx;
                                if (iy < 0 || iy >= 6 || ix < 0 || ix >= 7) continue;
                                s += at(&c, 1, ((co * 3 + ci) * 4 + ky) * 2 + kx) *
                                     at(&c, 0, ((n * 3 + ci) * 6 + iy) * 7 + ix);
                            }
                    double got = at(&c, 3, ((n * 4 + co) * 6 + y) * 7 + x);
                    if (fabs(got - s) > maxerr) maxerr = fabs(got - s);
                }
    CHECK_NEAR(maxerr, 0, 1e-13);
    call_free(&c);
}
/* ---- unbatched ---- */

static void test_unbatched(void) {
    spec u = {.name = "aten::conv2d",
              .nd = 2,
              .unbatched = 1,
              .x = {3, 5, 6},
              .w = {2, 3, 3, 3},
              .pad = {1, 1},
              .bias = 1,
              .stride = {1, 2}};
    spec b = {.nd = 2, .x = {1, 3, 5, 6}, .w = {2, 3, 3, 3}, .pad = {1, 1}, .bias = 1, .stride = {1, 2}};
    uint64_t seed = 5;
    call cu, cb;
    CHECK(build_fwd(&cu, &u) == JV_OK);
    CHECK(build_fwd(&cb, &b) == JV_OK);
    CHECK(jv_conv_of(&cu.d)->unbatched == 1);
    const jv_tensor *x = &cu.ops.o[0].t, *o = &cu.ops.o[3].t;
    CHECK(x->ndim == 4 && x->shape[0] == 1 && x->shape[1] == 3);
    CHECK(o->ndim == 4 && o->shape[0] == 1 && o->shape[1] == 2 && o->shape[2] == 5 && o->shape[3] == 3);
    for (int i = 0; i < 3; i++) {
        fill_rand(&cb, i, &seed);
        copy_op(&cu, i, &cb, i);
    }
    CHECK(run(&cu, NULL) == JV_OK);
    CHECK(run(&cb, NULL) == JV_OK);
    CHECK(same_values(&cu, 3, &cb, 3));
    call_free(&cu);
    call_free(&cb);
}

/* ---- operand lists and refusals ---- */

static void test_operands(void) {
    call c;
    /* input and weight dtypes differ: refused */
    CHECK(build_raw(&c, "aten::convolution", "[[1, 2, 4, 4], [2, 2, 1, 1], [], [], [], [], [], [], []]",
                    "[\"float\", \"c10::BFloat16\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]", NULL,
                    "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]") ==
          JV_ERR_FORMAT);
    call_free(&c);
    /* an integer input: refused */
    CHECK(build_raw(&c, "aten::convolution", "[[1, 2, 4, 4], [2, 2, 1, 1], [], [], [], [], [], [], []]",
                    "[\"long int\", \"long int\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]", NULL,
                    "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]") ==
          JV_ERR_FORMAT);
    call_free(&c);
    /* and the error names the reason */
    {
        jv_opcall oc;
        jv_err err;
        jv_desc d;
        jv_operands ops;
        jv_err_clear(&err);
        memset(&d, 0, sizeof d);
        CHECK(jv_opcall_from_trace(&oc, "aten::convolution", "[[1, 2, 4, 4], [2, 2, 1, 1]]",
                                   "[\"c10::Half\", \"float\"]", NULL, NULL, &err) == JV_OK);
        CHECK(jv_desc_parse(&oc, &d, &err) == JV_OK);
        jv_opcall_free(&oc);
        CHECK(jv_conv_operands(&d, &ops, &err) == JV_ERR_FORMAT);
        CHECK(strstr(err.msg, "dtypes differ") != NULL);
    }
    /* an output_mask that computes nothing: refused */
    spec p = {.nd = 2, .x = {2, 4, 6, 6}, .w = {8, 4, 3, 3}, .pad = {1, 1}, .dtype = "c10::BFloat16"};
    const int64_t go[4] = {2, 8, 6, 6};
    CHECK(build_bwd(&c, &p, go, "[False, False, False]") == JV_ERR_FORMAT);
    call_free(&c);
    /* mask [True, False, True]: grad_input and grad_bias only; grad_bias [C_out] in grad_out's dtype */
    CHECK(build_bwd(&c, &p, go, "[True, False, True]") == JV_OK);
    CHECK(c.ops.n == 5);
    CHECK(opi(&c, "grad_input") == 3 && opi(&c, "grad_bias") == 4 && opi(&c, "grad_weight") < 0);
    CHECK(c.ops.o[4].t.ndim == 1 && c.ops.o[4].t.shape[0] == 8 && c.ops.o[4].t.dtype == JV_DT_BF16);
    for (int i = 0; i < 3; i++)
        CHECK(c.ops.o[i].role == JV_ROLE_IN && c.ops.o[i].init == JV_INIT_NORMAL);
    for (int i = 3; i < 5; i++)
        CHECK(c.ops.o[i].role == JV_ROLE_OUT && c.ops.o[i].init == JV_INIT_NONE);
    call_free(&c);
    /* grad_output not traced: built from the output shape in the input's layout (channels_last here) */
    p.cl = 1;
    CHECK(build_bwd(&c, &p, NULL, "[True, True, False]") == JV_OK);
    CHECK(jv_conv_of(&c.d)->has_grad_out == 0);
    const jv_tensor *t = &c.ops.o[0].t;
    CHECK(!strcmp(c.ops.o[0].name, "grad_output"));
    CHECK(t->ndim == 4 && t->shape[1] == 8 && t->shape[2] == 6 && t->strides[1] == 1 && t->strides[3] == 8);
    CHECK(t->dtype == JV_DT_BF16);
    CHECK(c.ops.o[3].t.strides[1] == 1 && c.ops.o[4].t.strides[3] == 1); /* NHWC grad_input; OIHW grad_weight */
    uint64_t seed = 3;
    for (int i = 0; i < 3; i++)
        fill_rand(&c, i, &seed);
    CHECK(run(&c, NULL) == JV_OK);
    /* operands that are not this call's: refused */
    jv_operands bad = c.ops;
    bad.o[1].t.shape[2] = 5;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_desc_reference(&c.d, &bad, c.bufs, NULL, &err) == JV_ERR_FORMAT);
    bad = c.ops;
    bad.n = 4;
    CHECK(jv_desc_reference(&c.d, &bad, c.bufs, NULL, &err) == JV_ERR_FORMAT);
    call_free(&c);
}
int main(void) {
    test_hand_4x4();
    test_hand_groups_dilation();
    test_hand_3d();
    test_hand_transposed();
    test_hand_same();
    test_same_2d();
    test_unbatched();
    test_operands();
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}
