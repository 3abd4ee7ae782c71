/* test_axpy: the test family of tests/kernels/axpy/ end to end, proving the
 * recipe "add an op family" (CONTRIBUTING.md): registered by one line of
 * tests/kernels/test_families.def, it is found by name, parsed from a trace
 * call, modelled, categorized, written to replay IR and read back, refused
 * by the CPU backend by name (it has no CPU kernel, and the backend never
 * times a reference), and replayed and verified by the runner on a test
 * backend whose launch is the family's CPU reference, with nothing outside
 * its folder naming it. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "jv_check.h"
#include "jv_digest.h"
#include "jv_family.h"
#include "jv_ir.h"
#include "jv_runner.h"
#include "jv_test_opts.h"

#define OP "jarvis_test::axpy"

/* the test backend: the CPU backend's memory and timer, the family's CPU reference as the kernel */
static jv_status prepare_reference(void *ctx, const jv_desc *d, const jv_operands *ops, int variant, void **plan,
                                   char *impl, size_t cap, jv_err *err) {
    (void)ctx, (void)d, (void)ops;
    *plan = NULL;
    if (variant > 0) JV_FAIL(err, JV_ERR_NOTFOUND, "no variant %d", variant);
    snprintf(impl, cap, "test reference");
    return JV_OK;
}
static jv_status launch_reference(void *c, void *p, const jv_desc *d, const jv_operands *o, void *const *b, jv_err *e) {
    (void)c, (void)p;
    return jv_desc_reference(d, o, b, NULL, e);
}

int main(void) {
    jv_err err;
    jv_err_clear(&err);

    /* registered after the product's families, found by its op name */
    jv_match how;
    int fam = jv_family_find(OP, &how);
    CHECK(fam >= JV_FAM_COUNT && fam < jv_family_count() && how == JV_MATCH_STRONG);
    CHECK(fam >= 0 && !strcmp(jv_family_get(fam)->name, "axpy"));
    CHECK(jv_family_find("aten::mm", NULL) == JV_FAM_GEMM); /* the product's ids are unchanged */

    /* parsed from a trace call (the four texts of a profiler event's args) and modelled */
    jv_opcall c;
    CHECK(jv_opcall_from_trace(&c, OP, "[[4, 8], [4, 8], []]", "[\"float\", \"float\", \"Scalar\"]",
                               "[[8, 1], [8, 1], []]", "[\"\", \"\", \"2\"]", &err) == JV_OK);
    jv_desc d;
    CHECK(jv_desc_parse(&c, &d, &err) == JV_OK && d.family == fam);
    jv_perf p;
    jv_desc_model(&d, &p);
    CHECK(p.flops == 2 * 32 && p.bytes == 3 * 32 * 4 && p.dtype == JV_DT_F32 && !p.matrix);
    jv_params ps;
    jv_desc_params(&d, &ps);
    CHECK(ps.n == 2 && !strcmp(ps.p[0].text, "(4, 8)") && !strcmp(ps.p[1].text, "2.0"));

    /* categorized: its report category, with no family name compared anywhere */
    CHECK(jv_dcat_of(fam, "", OP) == JV_DCAT_EW);

    /* written to replay IR from its own schema, and read back */
    void *entry = NULL;
    CHECK(jv_ir_entry(&c, &entry, &err) == JV_OK && entry);
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, entry);
    char *text = cJSON_PrintUnformatted(arr);
    CHECK(text && strstr(text, "\"arg_name\":\"x\"") && strstr(text, "\"list_kwargs\":[{\"arg_name\":\"alpha\""));
    jv_ir ir;
    CHECK(jv_ir_parse(text, strlen(text), "axpy.json", &ir, &err) == JV_OK && ir.n == 1);
    jv_desc d2;
    CHECK(ir.n == 1 && jv_desc_parse(&ir.ops[0].call, &d2, &err) == JV_OK && d2.family == fam);
    jv_perf p2;
    jv_desc_model(&d2, &p2);
    CHECK(p2.flops == p.flops && p2.bytes == p.bytes);

    /* refused by the CPU backend, then replayed and verified on the test backend */
    jv_backend test_be = jv_cpu_backend;
    test_be.prepare = prepare_reference;
    test_be.launch = launch_reference;
    const jv_backend *cpu = &jv_cpu_backend, *be = &test_be;
    void *ctx = NULL;
    CHECK(be->open(0, &ctx, &err) == JV_OK);
    jv_device_props props;
    CHECK(be->props(ctx, &props, &err) == JV_OK);
    jv_run_opts o;
    jv_test_fast_opts(&o, &props);
    o.cache_cold = 0;
    jv_op_result r;
    CHECK(ir.n == 1 && jv_run_op(cpu, ctx, &props, &o, &ir.ops[0], &r, &err) == JV_OK);
    CHECK(r.status == JV_RES_SKIPPED &&
          strstr(r.reason, "no kernel on this backend: cpu backend: family 'axpy' has no CPU kernel"));
    CHECK(ir.n == 1 && jv_run_op(be, ctx, &props, &o, &ir.ops[0], &r, &err) == JV_OK);
    CHECK(!strcmp(r.impl, "test reference"));
    CHECK(r.status == JV_RES_OK && r.verify.done && r.verify.checked == 32 && r.verify.unwritten == 0);
    CHECK(!strcmp(r.family_name, "axpy") && r.perf.flops == p.flops);
    if (failed) fprintf(stderr, "last error: %s\n", err.msg);

    be->close(ctx);
    jv_ir_free(&ir);
    free(text);
    cJSON_Delete(arr);
    jv_opcall_free(&c);
    printf("test_axpy: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
