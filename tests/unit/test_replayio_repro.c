/* test_replayio_repro: ir/jv_repro and the families' reproducer hooks, without the tools: every replayed family
 * has a hook; a GEMM entry's section holds the hipblaslt-bench and rocblas-bench lines with PyTorch's mapping
 * (m = N, n = M), the NVIDIA note and a python block; an op that cannot be reproduced is an error naming it, and
 * a line in the whole document; the document stops at its byte cap naming the ops left out; the hook helpers
 * (Python floats, dtypes, MIOpen sub-command suffixes, overflow). The vendor options themselves are checked by
 * tests/integration/test_repro.py. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_check.h"
#include "jv_family.h"
#include "jv_ir.h"
#include "jv_repro.h"

static const char IR[] =
    "[{\"op_name\": \"aten::mm\", \"replay_ir\": {\"list_pos_args\": ["
    "{\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [8, 4], \"dtype\": \"c10::BFloat16\","
    " \"strides\": [1, 8]}},"
    "{\"arg_name\": \"mat2\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [4, 2], \"dtype\": \"c10::BFloat16\","
    " \"strides\": [2, 1]}}], \"list_kwargs\": []}},"
    "{\"op_name\": \"aten::mm\", \"replay_ir\": {\"list_pos_args\": ["
    "{\"arg_name\": \"self\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [8, 4], \"dtype\": \"c10::BFloat16\"}},"
    "{\"arg_name\": \"mat2\", \"arg_type\": \"Tensor\", \"value\": {\"shape\": [5, 2], \"dtype\": \"c10::BFloat16\"}}],"
    " \"list_kwargs\": []}}]";

int main(void) {
    /* every replayed family of the build has a reproducer hook */
    for (int i = 0; i < JV_FAM_COUNT; i++) {
        const jv_family *f = jv_family_get(i);
        CHECK_MSG(!f->operands || f->repro, "family %s is replayed but has no .repro", f->name);
    }

    jv_ir ir = {0};
    jv_err err = {0};
    CHECK(jv_ir_parse(IR, sizeof IR - 1, "test", &ir, &err) == JV_OK);
    jv_repro_opts o;
    jv_repro_opts_default(&o);
    CHECK(o.iters == 100 && o.cold_iters == 10);
    if (ir.n == 2) {
        jv_strbuf b = JV_STRBUF_INIT;
        CHECK(jv_repro_op(&ir.ops[0], &o, &b, &err) == JV_OK);
        const char *t = b.buf ? b.buf : "";
        CHECK(!strncmp(t, "## op 0: aten::mm (gemm)\n", 25));
        /* out[8, 2] = A[8, 4] (column-major: a transposed view) @ B[4, 2]: m = 2, n = 8, the tool's B is A^T */
        CHECK_MSG(strstr(t, "\nhipblaslt-bench --transA N --transB T -m 2 -n 8 -k 4 ") != NULL, "%s", t);
        CHECK(strstr(t, "--lda 2 --b_type bf16_r --ldb 8 ") != NULL);
        CHECK(strstr(t, "\nrocblas-bench -f gemm_ex --transposeA N --transposeB T -m 2 -n 8 -k 4 ") != NULL);
        CHECK(strstr(t, "--iters 100 --cold_iters 10\n") != NULL);
        CHECK(strstr(t, "NVIDIA: no vendor command-line tool") != NULL);
        CHECK(strstr(t, "self = _make((8, 4), (1, 8), torch.bfloat16, 'normal')  # transposed\n") != NULL);
        CHECK(strstr(t, "\n    r = torch.mm(self, mat2)\n") != NULL);
        CHECK(strstr(t, "out = _make") == NULL); /* mm's out is not read or written by the call */
        jv_sb_free(&b);

        /* op 1 does not multiply: an error naming it, nothing appended */
        jv_err e = {0};
        CHECK(jv_repro_op(&ir.ops[1], &o, &b, &e) == JV_ERR_FORMAT);
        CHECK(b.len == 0 && strstr(e.msg, "op 1 (aten::mm)") != NULL);
        jv_sb_free(&b);

        char *doc = NULL;
        CHECK(jv_repro_doc(&ir, &o, 0, &doc, &err) == JV_OK);
        CHECK(doc && strstr(doc, "# Reproducer commands\n") == doc);
        CHECK(doc && strstr(doc, "## op 0: aten::mm (gemm)\n") && strstr(doc, "## op 1: aten::mm\n\nNo reproducer: "));
        free(doc);
        CHECK(jv_repro_doc(&ir, &o, 2000, &doc, &err) == JV_OK);
        CHECK(doc && strlen(doc) <= 2000 && strstr(doc, "## ops 0 to 1\n") && !strstr(doc, "## op 0:"));
        free(doc);
    }
    jv_ir_free(&ir);

    /* the hook helpers */
    char buf[64];
    CHECK(!strcmp(jv_repro_pyfloat(buf, sizeof buf, 1e-5), "1e-05"));
    CHECK(!strcmp(jv_repro_pyfloat(buf, sizeof buf, 2), "2.0"));
    CHECK(!strcmp(jv_repro_pyfloat(buf, sizeof buf, -INFINITY), "float('-inf')"));
    CHECK(!strcmp(jv_repro_pyfloat(buf, sizeof buf, NAN), "float('nan')"));
    CHECK(!strcmp(jv_repro_torch_dtype(JV_DT_BF16), "torch.bfloat16") && jv_repro_torch_dtype(JV_DT_UNKNOWN) == NULL);
    CHECK(!strcmp(jv_repro_miopen_suffix(JV_DT_F32), "") && !strcmp(jv_repro_miopen_suffix(JV_DT_BF16), "bfp16"));
    CHECK(jv_repro_miopen_suffix(JV_DT_F64) == NULL);
    jv_repro *r = calloc(1, sizeof *r);
    if (r) {
        for (int i = 0; i < JV_REPRO_MAX_CMDS; i++)
            CHECK(jv_repro_cmd_add(r, "tool", "", "") != NULL);
        CHECK(!r->overflow && jv_repro_cmd_add(r, "tool", "", "") == NULL && r->overflow);
        r->overflow = 0;
        jv_repro_cmd *c = &r->cmd[0];
        for (int i = 0; i < JV_REPRO_MAX_ARGS; i++)
            jv_repro_opt(r, c, "-x", "%d", i);
        CHECK(!r->overflow && c->nargs == JV_REPRO_MAX_ARGS && !strcmp(c->arg[47].val, "47"));
        jv_repro_opt(r, c, "-y", NULL);
        CHECK(r->overflow && c->nargs == JV_REPRO_MAX_ARGS);
        r->overflow = 0;
        jv_repro_opt(r, &r->cmd[1], "--long", "%0100d", 1); /* a value over 39 characters */
        CHECK(r->overflow);
        r->overflow = 0;
        for (int i = 0; i < 200 && !r->overflow; i++)
            jv_repro_py(r, "x%d = torch.empty(1)", i);
        CHECK(r->overflow && strlen(r->torch) < sizeof r->torch && r->torch[strlen(r->torch) - 1] == '\n');
        free(r);
    }
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
