/* jv_cpu_dnnl: the oneDNN engine and stream of the CPU backend (see jv_cpu_dnnl.h). */
#include "jv_cpu_dnnl.h"

#ifdef JV_HAVE_DNNL
#include <string.h>

int jv_cpu_dnnl_type(jv_dtype dt, dnnl_data_type_t *out) {
    switch (dt) {
    case JV_DT_F32: *out = dnnl_f32; return 1;
    case JV_DT_BF16: *out = dnnl_bf16; return 1;
    case JV_DT_F16: *out = dnnl_f16; return 1;
    default: return 0;
    }
}

jv_status jv_cpu_dnnl_md(const jv_tensor *t, dnnl_memory_desc_t *md, const char *what, jv_err *err) {
    dnnl_data_type_t dt;
    if (!jv_cpu_dnnl_type(t->dtype, &dt))
        JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: unsupported dtype %s on this CPU", what,
                jv_dtype_short(t->dtype));
    dnnl_dims_t dims, strides;
    for (int i = 0; i < t->ndim; i++) {
        if (t->strides[i] < 0)
            JV_FAIL(err, JV_ERR_NOTFOUND, "cpu backend: %s: a negative stride oneDNN cannot describe", what);
        dims[i] = t->shape[i], strides[i] = t->strides[i];
    }
    JV_DNNL_CALL(err, what, dnnl_memory_desc_init_by_strides(md, t->ndim, dims, dt, strides));
    return JV_OK;
}

jv_status jv_cpu_dnnl_primitive(dnnl_primitive_desc_t pd, dnnl_primitive_t *prim, const char *what, jv_err *err) {
    dnnl_status_t st = dnnl_primitive_create(prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        *prim = NULL;
        JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: %s: oneDNN primitive: %s", what, jv_cpu_dnnl_status_str(st));
    }
    return JV_OK;
}

int jv_cpu_dnnl_is_ref(const_dnnl_primitive_desc_t pd) {
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, (void *)&impl) != dnnl_success || !impl) return 0;
    return !strncmp(impl, "ref", 3);
}

const char *jv_cpu_dnnl_status_str(dnnl_status_t s) {
    switch (s) {
    case dnnl_success: return "success";
    case dnnl_out_of_memory: return "out of memory";
    case dnnl_invalid_arguments: return "invalid arguments";
    case dnnl_unimplemented: return "unimplemented";
    case dnnl_iterator_ends: return "iterator ends";
    case dnnl_runtime_error: return "runtime error";
    case dnnl_not_required: return "not required";
    default: return "unknown status";
    }
}

jv_status jv_cpu_dnnl_open(jv_cpu_dnnl *x, jv_err *err) {
    memset(x, 0, sizeof *x);
    JV_DNNL_CALL(err, "oneDNN engine", dnnl_engine_create(&x->eng, dnnl_cpu, 0));
    dnnl_status_t s = dnnl_stream_create(&x->stream, x->eng, dnnl_stream_default_flags);
    if (s != dnnl_success) {
        dnnl_engine_destroy(x->eng);
        x->eng = NULL;
        JV_FAIL(err, JV_ERR_INTERNAL, "cpu backend: oneDNN stream: %s", jv_cpu_dnnl_status_str(s));
    }
    return JV_OK;
}

jv_status jv_cpu_dnnl_exec(const jv_cpu_dnnl *x, const jv_cpu_dnnl_step *steps, int n, void *const *bufs,
                           const char *what, jv_err *err) {
    for (int i = 0; i < n; i++) {
        const jv_cpu_dnnl_step *s = &steps[i];
        dnnl_exec_arg_t args[JV_CPU_DNNL_ARGS];
        for (int k = 0; k < s->nargs; k++) {
            if (s->a[k].op >= 0) JV_DNNL_CALL(err, what, dnnl_memory_set_data_handle(s->a[k].mem, bufs[s->a[k].op]));
            args[k].arg = s->a[k].arg, args[k].memory = s->a[k].mem;
        }
        JV_DNNL_CALL(err, what, dnnl_primitive_execute(s->prim, x->stream, s->nargs, args));
    }
    JV_DNNL_CALL(err, what, dnnl_stream_wait(x->stream));
    return JV_OK;
}

void jv_cpu_dnnl_close(jv_cpu_dnnl *x) {
    if (x->stream) dnnl_stream_destroy(x->stream);
    if (x->eng) dnnl_engine_destroy(x->eng);
    memset(x, 0, sizeof *x);
}
#endif
