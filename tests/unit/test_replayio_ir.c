/* Unit tests of jv_ir: calls as traces record them go through the IR writer
 * and back through the reader, and the family descriptors of both sides give
 * the same model numbers and params; the written entries have TraceLens'
 * form (names, types, kwargs, init); TraceLens-written entries parse; hostile
 * IR is refused with a message naming the entry. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_family.h"
#include "jv_ir.h"

#include "jv_check.h"

static int same_num(double a, double b) {
    return (isnan(a) && isnan(b)) || a == b;
}

/* two value texts mean the same: equal, or the same number ("1e-05" vs "1.0000000000000001e-05") */
static int same_value(const char *a, const char *b) {
    if (!strcmp(a, b)) return 1;
    double x, y;
    return jv_parse_double(a, &x) && jv_parse_double(b, &y) && x == y;
}

/* The written entry of the last round trip (owned here). */
static cJSON *last_entry;

/* The value of argument `name` in the last entry (positional or keyword). */
static const cJSON *arg_value(const char *name, int *kw) {
    const cJSON *ir = cJSON_GetObjectItemCaseSensitive(last_entry, "replay_ir");
    const char *lists[2] = {"list_pos_args", "list_kwargs"};
    for (int l = 0; l < 2; l++) {
        const cJSON *a;
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(ir, lists[l])) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "arg_name");
            if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) {
                if (kw) *kw = l;
                return cJSON_GetObjectItemCaseSensitive(a, "value");
            }
        }
    }
    return NULL;
}

/* The printed JSON of argument `name`'s value in the last entry ("" when missing; static buffer). */
static const char *arg_text(const char *name) {
    static char buf[512];
    const cJSON *v = arg_value(name, NULL);
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(buf, sizeof buf, "%s", s ? s : "");
    free(s);
    return buf;
}

/* trace texts -> jv_opcall -> IR entry -> text -> jv_ir_parse -> jv_opcall; both
 * calls agree argument by argument and both descriptors give the same model
 * numbers and params. Returns the round-tripped descriptor's perf. */
static jv_perf round_trip(const char *what, const char *name, const char *dims, const char *types, const char *strides,
                          const char *conc) {
    jv_perf none = {0, NAN, JV_DT_UNKNOWN, 0};
    jv_err err;
    jv_err_clear(&err);
    jv_opcall a;
    jv_status st = jv_opcall_from_trace(&a, name, dims, types, strides, conc, &err);
    CHECK_MSG(st == JV_OK, "%s: trace texts: %s", what, err.msg);
    if (st != JV_OK) return none;
    void *entry = NULL;
    st = jv_ir_entry(&a, &entry, &err);
    CHECK_MSG(st == JV_OK, "%s: jv_ir_entry: %s", what, err.msg);
    if (st != JV_OK) {
        jv_opcall_free(&a);
        return none;
    }
    cJSON_Delete(last_entry);
    last_entry = entry;
    char *one = cJSON_PrintUnformatted(entry);
    size_t len = strlen(one) + 3;
    char *file = malloc(len);
    snprintf(file, len, "[%s]", one);
    free(one);
    jv_ir ir;
    st = jv_ir_parse(file, strlen(file), "rt.json", &ir, &err);
    CHECK_MSG(st == JV_OK && ir.n == 1, "%s: jv_ir_parse: %s\n  %s", what, err.msg, file);
    free(file);
    if (st != JV_OK || ir.n != 1) {
        jv_opcall_free(&a);
        jv_ir_free(&ir);
        return none;
    }
    const jv_opcall *b = &ir.ops[0].call;
    CHECK_MSG(!strcmp(ir.ops[0].op_name, name) && !strcmp(b->name, name), "%s: op name", what);
    CHECK_MSG(a.nargs == b->nargs, "%s: %d vs %d arguments", what, a.nargs, b->nargs);
    for (int i = 0; i < a.nargs && i < b->nargs; i++) {
        const jv_arg *x = &a.args[i], *y = &b->args[i];
        CHECK_MSG(x->kind == y->kind, "%s: argument %d kind %d vs %d", what, i, (int)x->kind, (int)y->kind);
        if (x->kind == JV_ARG_TENSOR && y->kind == JV_ARG_TENSOR) {
            int same = x->t.ndim == y->t.ndim && x->t.dtype == y->t.dtype && y->t.has_strides;
            for (int k = 0; same && k < x->t.ndim; k++)
                same = x->t.shape[k] == y->t.shape[k] && x->t.strides[k] == y->t.strides[k];
            CHECK_MSG(same, "%s: argument %d tensor differs", what, i);
            CHECK_MSG(!strcmp(x->type, y->type), "%s: argument %d type '%s' vs '%s'", what, i, x->type, y->type);
        } else if (x->kind == JV_ARG_VALUE && y->kind == JV_ARG_VALUE) {
            CHECK_MSG(same_value(x->value, y->value), "%s: argument %d value '%s' vs '%s'", what, i, x->value,
                      y->value);
        }
    }
    jv_desc da, db;
    jv_err ea, eb;
    jv_err_clear(&ea);
    jv_err_clear(&eb);
    jv_status sa = jv_desc_parse(&a, &da, &ea), sb = jv_desc_parse(b, &db, &eb);
    CHECK_MSG(sa == JV_OK && sb == JV_OK, "%s: jv_desc_parse %d (%s) / %d (%s)", what, (int)sa, ea.msg, (int)sb,
              eb.msg);
    jv_perf pb = none;
    if (sa == JV_OK && sb == JV_OK) {
        jv_perf pa;
        jv_desc_model(&da, &pa);
        jv_desc_model(&db, &pb);
        CHECK_MSG(same_num(pa.flops, pb.flops) && same_num(pa.bytes, pb.bytes) && pa.dtype == pb.dtype &&
                      pa.matrix == pb.matrix,
                  "%s: model %.17g/%.17g vs %.17g/%.17g", what, pa.flops, pa.bytes, pb.flops, pb.bytes);
        CHECK_MSG(!isnan(pb.bytes) && pb.flops >= 0, "%s: a model with numbers", what);
        static jv_params qa, qb;
        jv_desc_params(&da, &qa);
        jv_desc_params(&db, &qb);
        CHECK_MSG(qa.n == qb.n && qa.n > 0, "%s: %d vs %d params", what, qa.n, qb.n);
        for (int i = 0; i < qa.n && i < qb.n; i++)
            CHECK_MSG(!strcmp(qa.p[i].name, qb.p[i].name) && !strcmp(qa.p[i].text, qb.p[i].text),
                      "%s: param %s '%s' vs %s '%s'", what, qa.p[i].name, qa.p[i].text, qb.p[i].name, qb.p[i].text);
    }
    jv_opcall_free(&a);
    jv_ir_free(&ir);
    return pb;
}

#define T4(a, b, c, d) "[\"" a "\", \"" b "\", \"" c "\", \"" d "\"]"

static void test_gemm(void) {
    /* amd_mi250_minitoy_train: mm with a transposed first operand (strides [1, 128]) */
    jv_perf p = round_trip("mm transposed", "aten::mm", "[[128, 5], [5, 128]]", "[\"float\", \"float\"]",
                           "[[1, 128], [128, 1]]", "[\"\", \"\"]");
    CHECK(p.flops == 2.0 * 128 * 5 * 128);
    CHECK(!strcmp(arg_text("self"), "{\"shape\":[128,5],\"dtype\":\"float\",\"strides\":[1,128],\"init\":\"normal\"}"));
    CHECK(!strcmp(arg_text("mat2"), "{\"shape\":[5,128],\"dtype\":\"float\",\"strides\":[128,1],\"init\":\"normal\"}"));

    /* addmm (bias [128], weight transposed), beta and alpha keyword-only */
    p = round_trip("addmm", "aten::addmm", "[[128], [5, 128], [128, 128], [], []]",
                   "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", "[[1], [128, 1], [1, 128], [], []]",
                   "[\"\", \"\", \"\", \"1\", \"1\"]");
    CHECK(p.flops == 2.0 * 5 * 128 * 128 + 5 * 128);
    int kw = -1;
    const cJSON *beta = arg_value("beta", &kw);
    CHECK(beta && kw == 1 && cJSON_IsNumber(beta) && beta->valuedouble == 1);
    CHECK(!strcmp(arg_text("alpha"), "1"));
    CHECK(arg_value("mat1", &kw) && kw == 0);

    p = round_trip("bmm", "aten::bmm", "[[4, 8, 16], [4, 16, 32]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
                   "[[128, 16, 1], [512, 32, 1]]", "[\"\", \"\"]");
    CHECK(p.flops == 2.0 * 4 * 8 * 16 * 32 && p.bytes == (4.0 * 8 * 16 + 4 * 16 * 32 + 4 * 8 * 32) * 2);

    p = round_trip("linear", "aten::linear", "[[5, 128], [128, 128], [128]]", "[\"float\", \"float\", \"float\"]",
                   "[[128, 1], [128, 1], [1]]", "[\"\", \"\", \"\"]");
    CHECK(p.flops == 2.0 * 5 * 128 * 128 + 5 * 128);
    CHECK(!strcmp(arg_text("bias"), "{\"shape\":[128],\"dtype\":\"float\",\"strides\":[1],\"init\":\"normal\"}"));

    /* linear without a bias: None */
    round_trip("linear no bias", "aten::linear", "[[5, 128], [64, 128], []]", "[\"float\", \"float\", \"\"]",
               "[[128, 1], [128, 1], []]", "[\"\", \"\", \"\"]");
    CHECK(!strcmp(arg_text("bias"), "null"));
}

static void test_conv(void) {
    /* channels_last x and w, bias None (fp16): 2*288*131072 flops, 430080 bytes (test_family_conv) */
    jv_perf p =
        round_trip("convolution channels_last", "aten::convolution",
                   "[[8, 32, 16, 16], [64, 32, 3, 3], [], [], [], [], [], [], []]",
                   "[\"c10::Half\", \"c10::Half\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
                   "\"ScalarList\", \"Scalar\"]",
                   "[[8192, 1, 512, 32], [288, 1, 96, 32], [], [], [], [], [], [], []]",
                   "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]");
    CHECK(p.flops == 75497472.0 && p.bytes == 430080.0);
    CHECK(!strcmp(arg_text("bias"), "null"));
    CHECK(!strcmp(arg_text("stride"), "[1,1]"));
    CHECK(!strcmp(arg_text("transposed"), "false"));
    CHECK(!strcmp(arg_text("groups"), "1"));
    CHECK(!strcmp(arg_text("input"),
                  "{\"shape\":[8,32,16,16],\"dtype\":\"c10::Half\",\"strides\":[8192,1,512,32],\"init\":\"normal\"}"));

    /* resnet18 convolution_backward, output_mask [True, True, False] */
    round_trip("convolution_backward", "aten::convolution_backward",
               "[[512, 64, 56, 56], [512, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []]",
               "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"ScalarList\", "
               "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
               "[[200704, 3136, 56, 1], [200704, 3136, 56, 1], [576, 9, 3, 1], [], [], [], [], [], [], [], []]",
               "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\", "
               "\"[True, True, False]\"]");
    CHECK(!strcmp(arg_text("output_mask"), "[true,true,false]"));
    CHECK(!strcmp(arg_text("bias_sizes"), "[0]"));

    /* conv2d.padding: a str padding picks the overload */
    round_trip("conv2d same", "aten::conv2d", "[[1, 8, 16, 16], [8, 8, 3, 3], [], [], [], [], []]",
               "[\"float\", \"float\", \"\", \"ScalarList\", \"\", \"ScalarList\", \"Scalar\"]",
               "[[2048, 256, 16, 1], [72, 9, 3, 1], [], [], [], [], []]",
               "[\"\", \"\", \"\", \"[1, 1]\", \"same\", \"[1, 1]\", \"1\"]");
    CHECK(!strcmp(arg_text("padding"), "\"same\""));

    /* a trace without Input Strides: the IR carries the dense strides replay allocates */
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    void *e = NULL;
    CHECK(jv_opcall_from_trace(&c, "aten::conv2d", "[[1, 8, 16, 16], [8, 8, 3, 3], [], [], [], [], []]",
                               "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                               "\"Scalar\"]",
                               NULL, "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\"]", &err) == JV_OK);
    CHECK(jv_ir_entry(&c, &e, &err) == JV_OK);
    cJSON_Delete(last_entry);
    last_entry = e;
    CHECK(!strcmp(arg_text("input"),
                  "{\"shape\":[1,8,16,16],\"dtype\":\"float\",\"strides\":[2048,256,16,1],\"init\":\"normal\"}"));
    jv_opcall_free(&c);
}

#define BN_TYPES                                                                                                       \
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "     \
    "\"Scalar\", \"Scalar\"]"

static void test_batchnorm(void) {
    const char *dims = "[[512, 64, 56, 56], [64], [64], [64], [64], [], [], []]";
    const char *strides = "[[200704, 3136, 56, 1], [1], [1], [1], [1], [], [], []]";
    jv_perf tr = round_trip("native_batch_norm training", "aten::native_batch_norm", dims, BN_TYPES, strides,
                            "[\"\", \"\", \"\", \"\", \"\", \"True\", \"0.10000000000000001\", "
                            "\"1.0000000000000001e-05\"]");
    CHECK(!strcmp(arg_text("training"), "true") && !strcmp(arg_text("momentum"), "0.1") &&
          !strcmp(arg_text("eps"), "1e-05"));
    jv_perf ev = round_trip("native_batch_norm eval", "aten::native_batch_norm", dims, BN_TYPES, strides,
                            "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]");
    CHECK(tr.bytes > ev.bytes && tr.flops > ev.flops);
    /* a float that is integral stays a float: momentum 1.0 */
    round_trip("native_batch_norm momentum 1.", "aten::native_batch_norm", dims, BN_TYPES, strides,
               "[\"\", \"\", \"\", \"\", \"\", \"True\", \"1.\", \"1e-05\"]");
    CHECK(!strcmp(arg_text("momentum"), "1.0"));

    /* cudnn_batch_norm_backward with its uint8 reserveSpace (test_family_batchnorm) */
    jv_perf p = round_trip(
        "cudnn_batch_norm_backward", "aten::cudnn_batch_norm_backward",
        "[[8, 16, 32, 32], [8, 16, 32, 32], [16], [16], [16], [16], [16], [], [0]]",
        "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"unsigned char\"]",
        "[[16384, 1024, 32, 1], [16384, 1024, 32, 1], [1], [1], [1], [1], [1], [], [1]]",
        "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1.0000000000000001e-05\", \"\"]");
    CHECK(p.bytes == 2621760.0);
    CHECK(!strcmp(arg_text("reserveSpace"),
                  "{\"shape\":[0],\"dtype\":\"unsigned char\",\"strides\":[1],\"init\":\"zeros\"}"));

    /* native_batch_norm_backward (minitoy: weight given, no running stats) */
    round_trip("native_batch_norm_backward", "aten::native_batch_norm_backward",
               "[[1, 128, 32, 32], [1, 128, 32, 32], [128], [], [], [128], [128], [], [], []]",
               "[\"float\", \"float\", \"float\", \"\", \"\", \"float\", \"float\", \"Scalar\", \"Scalar\", "
               "\"ScalarList\"]",
               "[[131072, 1024, 32, 1], [131072, 1024, 32, 1], [1], [], [], [1], [1], [], [], []]",
               "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"1.0000000000000001e-05\", "
               "\"[True, False, False]\"]");
    CHECK(!strcmp(arg_text("running_mean"), "null"));
}

static void test_elementwise(void) {
    /* add with a Scalar alpha (keyword-only in add.Tensor), int and float */
    round_trip("add alpha 2", "aten::add", "[[4, 8], [4, 8], []]", "[\"float\", \"float\", \"Scalar\"]",
               "[[8, 1], [8, 1], []]", "[\"\", \"\", \"2\"]");
    int kw = -1;
    CHECK(arg_value("alpha", &kw) && kw == 1 && !strcmp(arg_text("alpha"), "2"));
    round_trip("add alpha 0.5", "aten::add", "[[4, 8], [4, 8], []]", "[\"float\", \"float\", \"Scalar\"]",
               "[[8, 1], [8, 1], []]", "[\"\", \"\", \"0.5\"]");
    CHECK(!strcmp(arg_text("alpha"), "0.5"));
    /* add.Scalar: alpha is positional there */
    round_trip("add Scalar", "aten::add", "[[1], [], []]", "[\"long int\", \"Scalar\", \"Scalar\"]", "[[1], [], []]",
               "[\"\", \"1\", \"1\"]");
    CHECK(arg_value("alpha", &kw) && kw == 0 && !strcmp(arg_text("other"), "1"));

    /* add_ in place (resnet18) */
    jv_perf p = round_trip("add_", "aten::add_", "[[512, 512, 7, 7], [512, 512, 7, 7], []]",
                           "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                           "[[25088, 49, 7, 1], [25088, 49, 7, 1], []]", "[\"\", \"\", \"1\"]");
    CHECK(p.bytes == 512.0 * 512 * 49 * 2 * 3);
    CHECK(strstr(arg_text("self"), "\"init\":\"normal\"") != NULL);

    /* mul by a Python scalar: an int64 tensor times 2.0 is float32, times 2 stays int64, so the
     * scalar's Python type must survive the IR */
    jv_perf pf = round_trip("mul int64 * 2.", "aten::mul", "[[1000], []]", "[\"long int\", \"Scalar\"]", "[[1], []]",
                            "[\"\", \"2.\"]");
    CHECK(!strcmp(arg_text("other"), "2.0"));
    jv_perf pi = round_trip("mul int64 * 2", "aten::mul", "[[1000], []]", "[\"long int\", \"Scalar\"]", "[[1], []]",
                            "[\"\", \"2\"]");
    CHECK(!strcmp(arg_text("other"), "2"));
    CHECK(pf.bytes == 1000.0 * (8 + 4) && pi.bytes == 1000.0 * (8 + 8));
    round_trip("mul bf16 * 0.125", "aten::mul", "[[64, 64], []]", "[\"c10::BFloat16\", \"Scalar\"]", "[[64, 1], []]",
               "[\"\", \"0.125\"]");

    /* copy_ with a dtype cast: dst only written (init null), src read */
    p = round_trip("copy_ cast", "aten::copy_", "[[16, 559, 1024], [16, 559, 1024], []]",
                   "[\"float\", \"c10::BFloat16\", \"Scalar\"]", "[[572416, 1024, 1], [572416, 1024, 1], []]",
                   "[\"\", \"\", \"False\"]");
    CHECK(p.bytes == 16.0 * 559 * 1024 * 6);
    CHECK(strstr(arg_text("self"), "\"init\":null") != NULL && strstr(arg_text("src"), "\"normal\"") != NULL);
    CHECK(!strcmp(arg_text("non_blocking"), "false"));

    /* threshold_backward (resnet18) */
    p = round_trip("threshold_backward", "aten::threshold_backward", "[[512, 64, 56, 56], [512, 64, 56, 56], []]",
                   "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                   "[[200704, 3136, 56, 1], [200704, 3136, 56, 1], []]", "[\"\", \"\", \"0\"]");
    CHECK(p.bytes == 512.0 * 64 * 56 * 56 * 6);

    /* where: bool condition (init zeros: TraceLens' "normal" is for floating tensors), tensor and Scalar */
    round_trip("where self", "aten::where", "[[4, 8], [4, 8], [4, 8]]", "[\"bool\", \"float\", \"float\"]",
               "[[8, 1], [8, 1], [8, 1]]", "[\"\", \"\", \"\"]");
    CHECK(strstr(arg_text("condition"), "\"init\":\"zeros\"") != NULL);
    round_trip("where ScalarOther", "aten::where", "[[4, 8], [4, 8], []]", "[\"bool\", \"float\", \"Scalar\"]",
               "[[8, 1], [8, 1], []]", "[\"\", \"\", \"0.\"]");
    CHECK(!strcmp(arg_text("other"), "0.0"));

    /* fill_: self only written */
    p = round_trip("fill_", "aten::fill_", "[[512, 1000], []]", "[\"c10::BFloat16\", \"Scalar\"]", "[[1000, 1], []]",
                   "[\"\", \"0\"]");
    CHECK(p.bytes == 512.0 * 1000 * 2);
    CHECK(strstr(arg_text("self"), "\"init\":null") != NULL && !strcmp(arg_text("value"), "0"));

    /* gelu approximate (a str keyword) and an out= tensor (init null) */
    round_trip("gelu tanh", "aten::gelu", "[[2, 64], []]", "[\"float\", \"\"]", "[[64, 1], []]", "[\"\", \"tanh\"]");
    CHECK(arg_value("approximate", &kw) && kw == 1 && !strcmp(arg_text("approximate"), "\"tanh\""));
    round_trip("add out=", "aten::add", "[[4, 8], [4, 8], [], [4, 8]]", "[\"float\", \"float\", \"Scalar\", \"float\"]",
               "[[8, 1], [8, 1], [], [8, 1]]", "[\"\", \"\", \"1\", \"\"]");
    CHECK(arg_value("out", &kw) && kw == 1 && strstr(arg_text("out"), "\"init\":null") != NULL);

    /* aten::to.dtype_layout: ScalarType and Layout as codes, None as null, keyword-only */
    round_trip("to", "aten::to", "[[5, 128], [], [], [], [], [], [], []]",
               "[\"float\", \"Scalar\", \"Scalar\", \"\", \"\", \"Scalar\", \"Scalar\", \"\"]",
               "[[128, 1], [], [], [], [], [], [], []]",
               "[\"\", \"15\", \"0\", \"\", \"\", \"False\", \"False\", \"\"]");
    CHECK(!strcmp(arg_text("dtype"), "15") && !strcmp(arg_text("device"), "null") && arg_value("dtype", &kw) &&
          kw == 1);
}

/* Every op name of the gemm, conv, batchnorm and elementwise match tables has a schema. */
static void test_schema_table(void) {
    static const char *const OPS[] = {
        "aten::mm",
        "aten::addmm",
        "aten::bmm",
        "aten::baddbmm",
        "aten::_scaled_mm",
        "aten::linear",
        "aten::matmul",
        "vllm::rocm_unquantized_gemm",
        "aten::convolution",
        "aten::convolution_backward",
        "aten::_convolution",
        "aten::conv1d",
        "aten::conv2d",
        "aten::conv3d",
        "aten::conv_transpose1d",
        "aten::conv_transpose2d",
        "aten::conv_transpose3d",
        "aten::_convolution_mode",
        "aten::cudnn_convolution",
        "aten::cudnn_convolution_transpose",
        "aten::miopen_convolution",
        "aten::miopen_depthwise_convolution",
        "aten::miopen_convolution_transpose",
        "aten::batch_norm",
        "aten::_batch_norm_impl_index",
        "aten::native_batch_norm",
        "aten::cudnn_batch_norm",
        "aten::miopen_batch_norm",
        "aten::_native_batch_norm_legit",
        "aten::_native_batch_norm_legit_no_training",
        "aten::_batch_norm_with_update",
        "aten::_batch_norm_no_update",
        "aten::native_batch_norm_backward",
        "aten::batch_norm_backward",
        "aten::cudnn_batch_norm_backward",
        "aten::miopen_batch_norm_backward",
        "aten::copy_",
        "aten::copy",
        "aten::clone",
        "aten::contiguous",
        "aten::to",
        "aten::_to_copy",
        "aten::relu",
        "aten::relu_",
        "aten::gelu",
        "aten::gelu_",
        "aten::silu",
        "aten::silu_",
        "aten::sigmoid",
        "aten::sigmoid_",
        "aten::tanh",
        "aten::tanh_",
        "aten::neg",
        "aten::neg_",
        "aten::rsqrt",
        "aten::rsqrt_",
        "aten::sqrt",
        "aten::sqrt_",
        "aten::exp",
        "aten::exp_",
        "aten::log",
        "aten::log_",
        "aten::abs",
        "aten::abs_",
        "aten::reciprocal",
        "aten::reciprocal_",
        "aten::pow",
        "aten::pow_",
        "aten::clamp",
        "aten::clamp_",
        "aten::clamp_min",
        "aten::clamp_min_",
        "aten::clamp_max",
        "aten::clamp_max_",
        "aten::fill_",
        "aten::zero_",
        "aten::hardtanh",
        "aten::hardtanh_",
        "aten::leaky_relu",
        "aten::leaky_relu_",
        "aten::erf",
        "aten::erf_",
        "aten::sin",
        "aten::sin_",
        "aten::cos",
        "aten::cos_",
        "aten::nan_to_num",
        "aten::nan_to_num_",
        "aten::upsample_nearest1d",
        "aten::upsample_nearest2d",
        "aten::upsample_nearest3d",
        "aten::add",
        "aten::add_",
        "aten::sub",
        "aten::sub_",
        "aten::rsub",
        "aten::mul",
        "aten::mul_",
        "aten::div",
        "aten::div_",
        "aten::where",
        "aten::threshold_backward",
        "aten::sigmoid_backward",
        "aten::tanh_backward",
        "aten::gelu_backward",
        "aten::silu_backward",
        "aten::maximum",
        "aten::minimum",
        "aten::eq",
        "aten::eq_",
        "aten::ne",
        "aten::ne_",
        "aten::lt",
        "aten::lt_",
        "aten::le",
        "aten::le_",
        "aten::gt",
        "aten::gt_",
        "aten::ge",
        "aten::ge_",
        "aten::masked_fill",
        "aten::masked_fill_",
        "aten::addcmul",
        "aten::addcmul_",
        "aten::addcdiv",
        "aten::addcdiv_",
        "aten::lerp",
        "aten::lerp_",
    };
    int missing = 0;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++) {
        if (!jv_ir_has_schema(OPS[i])) {
            fprintf(stderr, "no schema for %s\n", OPS[i]);
            missing++;
        }
        /* every such name is one of the four families */
        jv_match how;
        CHECK_MSG(jv_family_find(OPS[i], &how) >= 0, "%s is in no family", OPS[i]);
    }
    CHECK(missing == 0);
    CHECK(!jv_ir_has_schema("aten::softmax") && !jv_ir_has_schema("aten::") && !jv_ir_has_schema(NULL));

    /* no schema: NOTFOUND; a call that fits no overload: FORMAT */
    jv_opcall c;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_opcall_from_trace(&c, "aten::_softmax", "[[4, 8], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]", NULL,
                               "[\"\", \"1\", \"False\"]", &err) == JV_OK);
    void *e = (void *)1;
    CHECK(jv_ir_entry(&c, &e, &err) == JV_ERR_NOTFOUND && e == NULL && strstr(err.msg, "aten::_softmax"));
    jv_opcall_free(&c);
    jv_err_clear(&err);
    CHECK(jv_opcall_from_trace(&c, "aten::mm", "[[4, 8], []]", "[\"float\", \"Scalar\"]", NULL, "[\"\", \"2\"]",
                               &err) == JV_OK);
    CHECK(jv_ir_entry(&c, &e, &err) == JV_ERR_FORMAT && strstr(err.msg, "aten::mm"));
    jv_opcall_free(&c);
    /* a tensor of a dtype the reader would refuse */
    jv_err_clear(&err);
    CHECK(jv_opcall_from_trace(&c, "aten::relu", "[[4]]", "[\"c10::Float4_e2m1fn_x2\"]", NULL, NULL, &err) == JV_OK);
    CHECK(jv_ir_entry(&c, &e, &err) == JV_ERR_FORMAT && strstr(err.msg, "Float4"));
    jv_opcall_free(&c);
    /* a tensor the reader would refuse: negative dim, storage past 2^50 bytes */
    jv_err_clear(&err);
    CHECK(jv_opcall_from_trace(&c, "aten::relu", "[[-1, 4]]", "[\"float\"]", NULL, NULL, &err) == JV_OK);
    CHECK(jv_ir_entry(&c, &e, &err) == JV_ERR_FORMAT && strstr(err.msg, "argument 'self'"));
    jv_opcall_free(&c);
    jv_err_clear(&err);
    CHECK(jv_opcall_from_trace(&c, "aten::relu", "[[4, 4]]", "[\"float\"]", "[[1125899906842624, 1]]", NULL, &err) ==
          JV_OK);
    CHECK(jv_ir_entry(&c, &e, &err) == JV_ERR_FORMAT && strstr(err.msg, "2^50"));
    jv_opcall_free(&c);
    /* a ScalarType recorded as a dtype name is written as its code */
    jv_err_clear(&err);
    CHECK(jv_opcall_from_trace(&c, "aten::to", "[[4], [], [], [], []]",
                               "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]", NULL,
                               "[\"\", \"c10::BFloat16\", \"False\", \"False\", \"\"]", &err) == JV_OK);
    CHECK(jv_ir_entry(&c, &e, &err) == JV_OK);
    cJSON_Delete(last_entry);
    last_entry = e;
    CHECK(!strcmp(arg_text("dtype"), "15") && !strcmp(arg_text("copy"), "false"));
    jv_opcall_free(&c);
    /* a Device or str whose text reads as a bool or a number is written back as a string, which the reader
     * takes for those types (fuzz_ir found "device": "False" written as false, which it refused) */
    const char *odd[] = {"\"False\"", "\"1.5\"", "\"cuda:0\""};
    for (int i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[{\"op_name\":\"aten::to\",\"replay_ir\":{\"list_pos_args\":["
                 "{\"arg_name\":\"self\",\"arg_type\":\"Tensor(a)\",\"value\":{\"shape\":[4],\"dtype\":"
                 "\"float\"}},{\"arg_name\":\"device\",\"arg_type\":\"Device\",\"value\":%s},"
                 "{\"arg_name\":\"dtype\",\"arg_type\":\"ScalarType\",\"value\":null}],\"list_kwargs\":[]}}]",
                 odd[i]);
        jv_ir ir;
        jv_err_clear(&err);
        jv_status st = jv_ir_parse(text, strlen(text), "device.json", &ir, &err);
        CHECK_MSG(st == JV_OK, "device %s: %s", odd[i], err.msg);
        if (st != JV_OK) continue;
        CHECK(jv_ir_entry(&ir.ops[0].call, &e, &err) == JV_OK);
        cJSON_Delete(last_entry);
        last_entry = e;
        CHECK_MSG(!strcmp(arg_text("device"), odd[i]), "device %s written as %s", odd[i], arg_text("device"));
        jv_ir_free(&ir);
    }
}

/* Entries as TraceLens writes them: Scalars as floats, no list_kwargs, "count", torch dtype names. */
static void test_tracelens_form(void) {
    const char *text =
        "[\n"
        " {\"op_name\": \"aten::mm\", \"count\": 12,\n"
        "  \"replay_ir\": {\"list_pos_args\": [\n"
        "   {\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [20, 2048],\n"
        "     \"dtype\": \"c10::BFloat16\", \"strides\": [2048, 1], \"init\": \"normal\"}},\n"
        "   {\"arg_name\": \"mat2\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [2048, 11264],\n"
        "     \"dtype\": \"c10::BFloat16\", \"strides\": [1, 2048], \"init\": \"normal\"}}]}},\n"
        " {\"op_name\": \"aten::add_\", \"replay_ir\": {\"list_pos_args\": [\n"
        "   {\"arg_name\": \"self\", \"arg_type\": \"Tensor(a!)\", \"value\": {\"shape\": [16], \"dtype\": \"float\",\n"
        "     \"strides\": [1]}},\n"
        "   {\"arg_name\": \"other\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [16], \"dtype\": \"float\",\n"
        "     \"strides\": [1]}}],\n"
        "  \"list_kwargs\": [{\"arg_name\": \"alpha\", \"arg_type\": \"Scalar\", \"value\": 1.0}]},\n"
        "  \"jarvis\": {\"count\": 3, \"kernel_time_median_us\": 2.5, \"category\": \"elementwise\",\n"
        "   \"kernels\": [\"k_a\", 7, \"k_b\"], \"pad\": [1, 2, 3]}},\n"
        " {\"op_name\": \"aten::convolution\", \"replay_ir\": {\"list_pos_args\": [\n"
        "   {\"arg_name\": \"input\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [10, 256, 14, 14],\n"
        "     \"dtype\": \"torch.bfloat16\", \"strides\": [50176, 196, 14, 1], \"init\": \"normal\"}},\n"
        "   {\"arg_name\": \"weight\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [256, 256, 3, 3],\n"
        "     \"dtype\": \"bfloat16\", \"strides\": [2304, 9, 3, 1], \"init\": \"normal\"}},\n"
        "   {\"arg_name\": \"bias\", \"arg_type\": \"Tensor?\", \"value\": null},\n"
        "   {\"arg_name\": \"stride\", \"arg_type\": \"SymInt[]\", \"value\": [2, 2]},\n"
        "   {\"arg_name\": \"padding\", \"arg_type\": \"SymInt[]\", \"value\": [1, 1]},\n"
        "   {\"arg_name\": \"dilation\", \"arg_type\": \"SymInt[]\", \"value\": [1, 1]},\n"
        "   {\"arg_name\": \"transposed\", \"arg_type\": \"bool\", \"value\": false},\n"
        "   {\"arg_name\": \"output_padding\", \"arg_type\": \"SymInt[]\", \"value\": [0, 0]},\n"
        "   {\"arg_name\": \"groups\", \"arg_type\": \"SymInt\", \"value\": 1}],\n"
        "  \"list_kwargs\": []}}\n"
        "]\n";
    jv_ir ir;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_ir_parse(text, strlen(text), "tracelens.json", &ir, &err);
    CHECK_MSG(st == JV_OK && ir.n == 3, "TraceLens IR: %s", err.msg);
    if (st != JV_OK) return;
    jv_desc d;
    jv_perf p;
    CHECK(jv_desc_parse(&ir.ops[0].call, &d, &err) == JV_OK);
    jv_desc_model(&d, &p);
    CHECK(p.flops == 2.0 * 20 * 2048 * 11264 && p.dtype == JV_DT_BF16);
    CHECK(!ir.ops[0].traced.present && ir.ops[0].traced.ex_uid == -1 && ir.ops[0].index == 0);
    /* alpha 1.0 arrives as a float Scalar */
    CHECK(ir.ops[1].call.nargs == 3 && !strcmp(ir.ops[1].call.args[2].value, "1.0") &&
          !strcmp(ir.ops[1].call.args[2].type, "Scalar"));
    CHECK(jv_desc_parse(&ir.ops[1].call, &d, &err) == JV_OK);
    jv_desc_model(&d, &p);
    CHECK(p.bytes == 16.0 * 4 * 3);
    const jv_ir_traced *tr = &ir.ops[1].traced;
    CHECK(tr->present && tr->count == 3 && tr->median_us == 2.5 && tr->total_us == 0 && tr->ex_uid == -1 &&
          !strcmp(tr->category, "elementwise") && !strcmp(tr->kernels, "k_a; k_b"));
    /* torch dtype spellings, None bias, bool and int lists */
    const jv_opcall *cv = &ir.ops[2].call;
    CHECK(cv->nargs == 9 && cv->args[0].t.dtype == JV_DT_BF16 && cv->args[1].t.dtype == JV_DT_BF16 &&
          !strcmp(cv->args[0].type, "c10::BFloat16") && cv->args[2].kind == JV_ARG_NONE &&
          !strcmp(cv->args[3].value, "[2, 2]") && !strcmp(cv->args[6].value, "False") &&
          !strcmp(cv->args[8].value, "1"));
    CHECK(jv_desc_parse(cv, &d, &err) == JV_OK);
    jv_desc_model(&d, &p);
    /* out 10x256x7x7; flops 2 * (256*9) * 10*256*49 */
    CHECK(p.flops == 2.0 * 256 * 9 * 10 * 256 * 49);
    jv_ir_free(&ir);
    CHECK(ir.n == 0 && ir.ops == NULL);

    /* an object wrapping the list, and a lone entry */
    const char *wrapped = "{\"version\": 1, \"kernels\": [\"k\"], \"ops\": [{\"op_name\": \"aten::relu\", "
                          "\"replay_ir\": {\"list_pos_args\":"
                          " [{\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [3],"
                          " \"dtype\": \"float\", \"strides\": [1]}}], \"list_kwargs\": []}}]}";
    jv_err_clear(&err);
    CHECK(jv_ir_parse(wrapped, strlen(wrapped), "w.json", &ir, &err) == JV_OK && ir.n == 1 &&
          ir.ops[0].call.args[0].t.shape[0] == 3);
    jv_ir_free(&ir);
    const char *lone = strstr(wrapped, "{\"op_name\"");
    size_t lone_len = strlen(lone) - 2; /* without the closing "]}" */
    jv_err_clear(&err);
    CHECK(jv_ir_parse(lone, lone_len, "lone.json", &ir, &err) == JV_OK && ir.n == 1);
    jv_ir_free(&ir);
    /* an empty list: no ops */
    jv_err_clear(&err);
    CHECK(jv_ir_parse(" [ ] ", 5, "empty.json", &ir, &err) == JV_OK && ir.n == 0);
    jv_ir_free(&ir);
    jv_ir_free(&ir); /* twice: safe */
}

/* A good entry then one whose self tensor is `bad` (a JSON value); the error must name entry 1. */
static void expect_bad_tensor(const char *what, const char *bad, const char *needle) {
    char text[1024];
    snprintf(text, sizeof text,
             "[{\"op_name\": \"aten::relu\", \"replay_ir\": {\"list_pos_args\": [{\"arg_name\": \"self\", "
             "\"arg_type\": \"Tensor\", \"value\": {\"shape\": [2], \"dtype\": \"float\", \"strides\": [1]}}]}},\n"
             " {\"op_name\": \"aten::relu\", \"replay_ir\": {\"list_pos_args\": [{\"arg_name\": \"self\", "
             "\"arg_type\": \"Tensor\", \"value\": %s}]}}]",
             bad);
    jv_ir ir;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_ir_parse(text, strlen(text), "bad.json", &ir, &err);
    CHECK_MSG(st == JV_ERR_FORMAT && strstr(err.msg, "bad.json") && strstr(err.msg, "entry 1 (aten::relu)") &&
                  strstr(err.msg, "argument 'self'") && strstr(err.msg, needle),
              "%s: status %d, message '%s'", what, (int)st, err.msg);
    CHECK(ir.n == 0 && ir.ops == NULL);
}

static void expect_bad(const char *what, const char *text, const char *needle) {
    jv_ir ir;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_ir_parse(text, strlen(text), "bad.json", &ir, &err);
    CHECK_MSG(st == JV_ERR_FORMAT && strstr(err.msg, "bad.json") && strstr(err.msg, needle),
              "%s: status %d, message '%s'", what, (int)st, err.msg);
    CHECK(ir.n == 0 && ir.ops == NULL);
}

static void test_hostile(void) {
    expect_bad("not JSON", "[{\"op_name\": ", "not valid JSON");
    expect_bad("garbage after", "[] x", "not valid JSON");
    expect_bad("not an array", "42", "not a replay IR");
    expect_bad("an object with no list", "{\"a\": 1}", "not a replay IR");
    expect_bad("entry not an object", "[{\"op_name\": \"aten::relu\", \"replay_ir\": {\"list_pos_args\": []}}, 7]",
               "entry 1: not an object");
    expect_bad("no op_name", "[{\"replay_ir\": {\"list_pos_args\": []}}]", "entry 0: no op_name");
    expect_bad("no replay_ir", "[{\"op_name\": \"aten::relu\"}]", "entry 0 (aten::relu): no replay_ir");
    expect_bad("no list_pos_args", "[{\"op_name\": \"aten::relu\", \"replay_ir\": {}}]", "list_pos_args");
    expect_bad("no arg_type", "[{\"op_name\": \"aten::relu\", \"replay_ir\": {\"list_pos_args\": [{\"value\": 1}]}}]",
               "entry 0 (aten::relu): argument '#0': no arg_type");
    expect_bad("a non-integer int",
               "[{\"op_name\": \"aten::add\", \"replay_ir\": {\"list_pos_args\": [{\"arg_name\": \"alpha\","
               " \"arg_type\": \"int\", \"value\": 1.5}]}}]",
               "argument 'alpha': not an integer");
    expect_bad("string for a bool",
               "[{\"op_name\": \"aten::x\", \"replay_ir\": {\"list_pos_args\": [{\"arg_name\": \"b\","
               " \"arg_type\": \"bool\", \"value\": \"yes\"}]}}]",
               "argument 'b'");

    expect_bad_tensor("negative dim", "{\"shape\": [-1, 4], \"dtype\": \"float\", \"strides\": [4, 1]}", "dim 0");
    expect_bad_tensor("dim 1e30", "{\"shape\": [2, 1e30], \"dtype\": \"float\"}", "dim 1");
    expect_bad_tensor("non-integer dim", "{\"shape\": [2.5], \"dtype\": \"float\"}", "dim 0");
    expect_bad_tensor("9 dims", "{\"shape\": [1, 1, 1, 1, 1, 1, 1, 1, 1], \"dtype\": \"float\"}", "9 dims");
    expect_bad_tensor("strides length", "{\"shape\": [2, 3], \"dtype\": \"float\", \"strides\": [1]}",
                      "1 strides for 2 dims");
    expect_bad_tensor("negative stride", "{\"shape\": [2, 3], \"dtype\": \"float\", \"strides\": [3, -1]}", "stride 1");
    expect_bad_tensor("unknown dtype", "{\"shape\": [2], \"dtype\": \"float128\", \"strides\": [1]}",
                      "unknown dtype 'float128'");
    expect_bad_tensor("no dtype", "{\"shape\": [2], \"strides\": [1]}", "dtype");
    expect_bad_tensor("storage > 2^50 (dims)", "{\"shape\": [1048576, 1048576, 2048], \"dtype\": \"float\"}", "2^50");
    expect_bad_tensor("storage > 2^50 (strides)",
                      "{\"shape\": [2, 2], \"dtype\": \"float\", \"strides\": [562949953421312, 1]}", "2^50");
    expect_bad_tensor("not a tensor", "[1, 2]", "not a tensor");
    /* just under the limit is fine: 2^48 floats = 2^50 bytes */
    const char *ok =
        "[{\"op_name\": \"aten::relu\", \"replay_ir\": {\"list_pos_args\": [{\"arg_name\": \"self\","
        " \"arg_type\": \"Tensor\", \"value\": {\"shape\": [262144, 1073741824], \"dtype\": \"float\"}}]}}]";
    jv_ir ir;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_ir_parse(ok, strlen(ok), "ok.json", &ir, &err) == JV_OK && ir.n == 1 &&
          ir.ops[0].call.args[0].t.shape[1] == 1073741824);
    jv_ir_free(&ir);
    /* more arguments than a call holds */
    char big[8192];
    size_t len = (size_t)snprintf(big, sizeof big, "[{\"op_name\": \"aten::x\", \"replay_ir\": {\"list_pos_args\": [");
    for (int i = 0; i < JV_MAX_ARGS + 1; i++)
        len += (size_t)snprintf(big + len, sizeof big - len,
                                "%s{\"arg_name\": \"a\", \"arg_type\": \"int\", "
                                "\"value\": %d}",
                                i ? ", " : "", i);
    snprintf(big + len, sizeof big - len, "]}}]");
    expect_bad("too many arguments", big, "entry 0 (aten::x): 33 arguments");
}

int main(void) {
    test_gemm();
    test_conv();
    test_batchnorm();
    test_elementwise();
    test_schema_table();
    test_tracelens_form();
    test_hostile();
    cJSON_Delete(last_entry);
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}
