/* axpy: a toy op family, compiled only into the test build (CONTRIBUTING.md,
 * "Add an op family", worked example). jarvis_test::axpy(Tensor x, Tensor y,
 * *, Scalar alpha=1) -> Tensor computes out = alpha * x + y elementwise on two
 * tensors of one shape and dtype. Everything the family is lives in this
 * folder; it is registered by one line of tests/kernels/test_families.def. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "jv_family.h"

typedef struct {
    jv_tensor x, y;
    double alpha;
} axpy_desc;

static jv_match axpy_match(const char *op) {
    return op && !strcmp(op, "jarvis_test::axpy") ? JV_MATCH_STRONG : JV_MATCH_NONE;
}

static jv_status axpy_parse(const jv_opcall *c, jv_desc *d, jv_err *err) {
    const jv_tensor *x = jv_opcall_tensor(c, 0), *y = jv_opcall_tensor(c, 1);
    if (!x || !y) JV_FAIL(err, JV_ERR_FORMAT, "%s: needs two tensors", c->name);
    if (x->ndim != y->ndim || memcmp(x->shape, y->shape, sizeof x->shape[0] * (size_t)x->ndim) || x->dtype != y->dtype)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: x and y differ in shape or dtype", c->name);
    axpy_desc *a = (axpy_desc *)d->data;
    a->x = *x;
    a->y = *y;
    if (!jv_opcall_double(c, 2, 1.0, 1, &a->alpha)) JV_FAIL(err, JV_ERR_FORMAT, "%s: alpha is not a number", c->name);
    return JV_OK;
}

/* 2 FLOPs per element; reads x and y, writes out */
static void axpy_model(const jv_desc *d, jv_perf *p) {
    const axpy_desc *a = (const axpy_desc *)d->data;
    double n = jv_numel_d(&a->x);
    p->flops = 2 * n;
    p->bytes = 3 * n * jv_bpe(a->x.dtype);
    p->dtype = a->x.dtype;
    p->matrix = 0;
}

static void axpy_params(const jv_desc *d, jv_params *out) {
    const axpy_desc *a = (const axpy_desc *)d->data;
    jv_param_tuple(out, "shape", a->x.shape, a->x.ndim);
    jv_param_float(out, "alpha", a->alpha);
}

static jv_status axpy_operands(const jv_desc *d, jv_operands *out, jv_err *err) {
    const axpy_desc *a = (const axpy_desc *)d->data;
    jv_tensor o = a->x;
    o.has_strides = 0;
    JV_CHECK(jv_operands_add(out, "x", &a->x, JV_ROLE_IN, JV_INIT_NORMAL, err));
    JV_CHECK(jv_operands_add(out, "y", &a->y, JV_ROLE_IN, JV_INIT_NORMAL, err));
    return jv_operands_add(out, "out", &o, JV_ROLE_OUT, JV_INIT_NONE, err);
}

/* out = alpha * x + y in double, rounded once to the storage dtype */
static jv_status axpy_reference(const jv_desc *d, const jv_operands *ops, void *const *bufs, const jv_sample *s,
                                jv_err *err) {
    (void)err;
    const axpy_desc *a = (const axpy_desc *)d->data;
    const jv_tensor *x = &ops->o[0].t, *y = &ops->o[1].t, *o = &ops->o[2].t;
    int64_t n = s ? s->n : jv_tensor_numel(o);
    for (int64_t k = 0; k < n; k++) {
        int64_t i = s ? s->idx[k] : k;
        double v = a->alpha * jv_dtype_load(x->dtype, bufs[0], jv_tensor_offset_at(x, i)) +
                   jv_dtype_load(y->dtype, bufs[1], jv_tensor_offset_at(y, i));
        jv_dtype_store(o->dtype, bufs[2], jv_tensor_offset_at(o, i), v);
    }
    return JV_OK;
}

static const char *const AXPY_SCHEMAS[] = {
    "jarvis_test::axpy(Tensor x, Tensor y, *, Scalar alpha=1) -> Tensor",
    NULL,
};

const jv_family jv_axpy_family = {
    .name = "axpy",
    .sheet = "Axpy",
    .category = "elementwise",
    .match = axpy_match,
    .parse = axpy_parse,
    .model = axpy_model,
    .params = axpy_params,
    .operands = axpy_operands,
    .reference = axpy_reference,
    .schemas = AXPY_SCHEMAS,
    .report = JV_REPORT_ELEMENTWISE,
};
