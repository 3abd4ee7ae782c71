/* jv_ir_args: argument type kinds and tensor bounds of the replay IR
 * (jv_ir_args.h). */
#include "jv_ir_args.h"

#include <ctype.h>
#include <string.h>

void jv_ir_type_parse(const char *t, atype *o) {
    memset(o, 0, sizeof *o);
    char base[32];
    size_t n = 0;
    while (t[n] && (isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == ':') && n + 1 < sizeof base) {
        base[n] = t[n];
        n++;
    }
    base[n] = 0;
    int list = 0;
    for (const char *p = t + n; *p; p++) {
        if (*p == '(') {
            for (p++; *p && *p != ')'; p++)
                if (*p == '!') o->writes = 1;
            if (!*p) break;
        } else if (*p == '[') {
            list = 1;
        } else if (*p == '?') {
            o->optional = 1;
        }
    }
    static const struct {
        const char *name;
        akind one, many;
    } B[] = {
        {"Tensor", K_TENSOR, K_TENSORLIST},
        {"int", K_INT, K_INTLIST},
        {"SymInt", K_INT, K_INTLIST},
        {"float", K_FLOAT, K_FLOATLIST},
        {"bool", K_BOOL, K_BOOLLIST},
        {"Scalar", K_SCALAR, K_SCALARLIST},
        {"str", K_STR, K_OTHER},
        {"ScalarType", K_SCALARTYPE, K_OTHER},
        {"Layout", K_LAYOUT, K_OTHER},
        {"MemoryFormat", K_MEMFMT, K_OTHER},
        {"Device", K_DEVICE, K_OTHER},
        {"Generator", K_GENERATOR, K_OTHER},
    };
    o->k = K_OTHER;
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++)
        if (!strcmp(base, B[i].name)) o->k = list ? B[i].many : B[i].one;
}

const char *jv_ir_tensor_problem(jv_tensor *t) {
    if (t->ndim < 0 || t->ndim > JV_MAX_DIMS) return "a tensor with too many dims";
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0 || (double)t->shape[i] > IR_MAX_DIM) return "a dim that is negative or past 2^62";
        if (t->has_strides && (t->strides[i] < 0 || (double)t->strides[i] > IR_MAX_DIM))
            return "a stride that is negative or past 2^62";
    }
    if (!t->has_strides) {
        jv_tensor_set_contiguous(t);
        for (int i = 0; i < t->ndim; i++)
            if ((double)t->strides[i] > IR_MAX_DIM) return "a shape whose dense strides pass 2^62";
    }
    /* elements, and elements spanned in memory, times the element size (in doubles: no overflow) */
    double bpe = (double)jv_dtype_size(t->dtype), numel = 1, extent = 1;
    for (int i = 0; i < t->ndim; i++)
        numel *= (double)t->shape[i];
    if (numel * bpe > IR_MAX_BYTES) return "a tensor of more than 2^50 bytes";
    if (numel > 0) {
        for (int i = 0; i < t->ndim; i++)
            extent += ((double)t->shape[i] - 1) * (double)t->strides[i];
        if (extent * bpe > IR_MAX_BYTES) return "a tensor storage of more than 2^50 bytes";
    }
    return NULL;
}
