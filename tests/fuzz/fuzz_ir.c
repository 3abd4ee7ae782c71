/* fuzz_ir: libFuzzer target for the replay IR reader. Each input is the bytes
 * of an IR file (not NUL-terminated). It goes through jv_ir_parse as
 * jarvis-replay uses it; every op that parses is then handed to its family
 * (jv_desc_parse, the model and params, jv_desc_operands) and written back
 * with jv_ir_entry.
 *
 * Invariants checked beyond "no crash, no sanitizer report":
 *   - a failed parse sets an error whose message names the source;
 *   - an entry the writer produces from a parsed call is read back by the
 *     reader into a call with the same argument count and kinds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jv_family.h"
#include "jv_ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rewrite(const jv_opcall *c) {
    void *entry = NULL;
    jv_err err;
    jv_err_clear(&err);
    if (jv_ir_entry(c, &entry, &err) != JV_OK) return;
    char *one = cJSON_PrintUnformatted(entry);
    cJSON_Delete(entry);
    if (!one) return;
    size_t len = strlen(one) + 3;
    char *file = malloc(len);
    if (!file) {
        free(one);
        return;
    }
    snprintf(file, len, "[%s]", one);
    free(one);
    jv_ir back;
    jv_err_clear(&err);
    jv_status st = jv_ir_parse(file, strlen(file), "rewrite", &back, &err);
    if (st != JV_OK) {
        fprintf(stderr, "the writer's entry does not read back: %s\n%s\n", err.msg, file);
        abort();
    }
    const jv_opcall *b = &back.ops[0].call;
    if (back.n != 1 || b->nargs != c->nargs) abort();
    for (int i = 0; i < c->nargs; i++) {
        /* an unrecorded value is written as null and reads back as None */
        int same = b->args[i].kind == c->args[i].kind ||
                   (c->args[i].kind == JV_ARG_VALUE && !c->args[i].value[0] && b->args[i].kind == JV_ARG_NONE);
        if (!same) {
            fprintf(stderr, "argument %d changed kind %d -> %d\n%s\n", i, (int)c->args[i].kind, (int)b->args[i].kind,
                    file);
            abort();
        }
    }
    jv_ir_free(&back);
    free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    jv_ir ir;
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_ir_parse((const char *)data, size, "fuzz.json", &ir, &err);
    if (st != JV_OK) {
        if (!strstr(err.msg, "fuzz.json") && st != JV_ERR_NOMEM) {
            fprintf(stderr, "error message without the source: %s\n", err.msg);
            abort();
        }
        return 0;
    }
    for (int i = 0; i < ir.n; i++) {
        const jv_opcall *c = &ir.ops[i].call;
        jv_desc d;
        jv_err e;
        jv_err_clear(&e);
        if (jv_desc_parse(c, &d, &e) == JV_OK) {
            jv_perf p;
            jv_params ps;
            jv_desc_model(&d, &p);
            jv_desc_params(&d, &ps);
            jv_operands ops;
            jv_err_clear(&e);
            (void)jv_desc_operands(&d, &ops, &e);
        }
        check_rewrite(c);
    }
    jv_ir_free(&ir);
    return 0;
}
