/* elementwise: the reproducer hook (jv_family.repro) of the unary and binary families: the PyTorch call.
 * No AMD vendor tool runs these ops (they are PyTorch's own kernels on both vendors). */
#include <stdio.h>
#include <string.h>

#include "elementwise.h"

/* Python text of operand slot k into buf: its variable, a number, or None */
static void slot_text(const jv_elementwise_desc *g, const jv_operands *ops, const int *slot, int k, char *buf,
                      size_t cap) {
    const jv_ew_operand *o = &g->in[k];
    if (o->kind == JV_EW_TENSOR && slot[k] >= 0)
        snprintf(buf, cap, "%s", ops->o[slot[k]].name);
    else if (o->kind != JV_EW_SCALAR)
        snprintf(buf, cap, "None");
    else if (o->t.dtype == JV_DT_BOOL)
        snprintf(buf, cap, "%s", o->value != 0 ? "True" : "False");
    else if (o->t.dtype == JV_DT_I64)
        snprintf(buf, cap, "%lld", (long long)o->value);
    else
        jv_repro_pyfloat(buf, cap, o->value);
}

void jv_elementwise_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    (void)o;
    const jv_elementwise_desc *g = jv_elementwise_of(d);
    jv_repro_no_amd(r, "no AMD vendor tool runs elementwise ops (they are PyTorch's own kernels on both vendors)");
    int slot[3], out = -1;
    jv_operands mine;
    jv_err e = {0};
    if (jv_elementwise_slots(d, slot, &out, &mine, &e) != JV_OK || mine.n != ops->n) {
        r->overflow = 1;
        return;
    }
    char a[3][64];
    for (int k = 0; k < 3; k++) {
        a[k][0] = 0;
        if (k < g->arity) slot_text(g, ops, slot, k, a[k], sizeof a[k]);
    }
    const char *base = g->name && !strncmp(g->name, "aten::", 6) ? g->name + 6 : g->name ? g->name : "";
    const char *odt = jv_repro_torch_dtype(g->out.dtype);
    switch (g->op) {
    case JV_EW_COPY:
        if (g->inplace) {
            r->need_out |= 1u << out;
            jv_repro_py(r, "self.copy_(%s)", a[0]);
        } else {
            jv_repro_py(r, "r = torch.ops.aten.copy(self, %s)", a[0]);
        }
        return;
    case JV_EW_FILL:
        r->need_out |= 1u << out;
        jv_repro_py(r, "self.fill_(%s)", a[0]);
        return;
    case JV_EW_ZERO:
        r->need_out |= 1u << out;
        jv_repro_py(r, "self.zero_()");
        return;
    case JV_EW_CLONE: jv_repro_py(r, "r = torch.clone(%s)", a[0]); return;
    case JV_EW_CONTIGUOUS: jv_repro_py(r, "r = %s.contiguous()", a[0]); return;
    case JV_EW_TO: jv_repro_py(r, "r = %s.to(%s)", a[0], odt ? odt : "None"); return;
    default: break;
    }
    /* torch.ops.aten.<op>(slots..., extra args): the packet picks the overload (Tensor / Scalar) */
    char call[600];
    size_t l = (size_t)snprintf(call, sizeof call, "torch.ops.aten.%s(", base);
    for (int k = 0; k < g->arity && l < sizeof call; k++)
        l += (size_t)snprintf(call + l, sizeof call - l, "%s%s", k ? ", " : "", a[k]);
    char v1[40], v2[40], v3[40];
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        if (l < sizeof call) l += (size_t)snprintf(call + l, sizeof call - l, __VA_ARGS__);                            \
    } while (0)
    switch (g->op) {
    case JV_EW_ADD:
    case JV_EW_SUB:
    case JV_EW_RSUB:
        if (g->alpha != 1) ADD(", alpha=%s", jv_repro_pyfloat(v1, sizeof v1, g->alpha));
        break;
    case JV_EW_DIV:
        if (g->rounding) ADD(", rounding_mode='%s'", g->rounding == 1 ? "trunc" : "floor");
        break;
    case JV_EW_THRESHOLD_BACKWARD: ADD(", %s", jv_repro_pyfloat(v1, sizeof v1, g->threshold)); break;
    case JV_EW_GELU:
    case JV_EW_GELU_BACKWARD:
        if (g->gelu_tanh) ADD(", approximate='tanh'");
        break;
    case JV_EW_LEAKY_RELU: ADD(", %s", jv_repro_pyfloat(v1, sizeof v1, g->slope)); break;
    case JV_EW_HARDTANH:
        ADD(", %s, %s", jv_repro_pyfloat(v1, sizeof v1, g->min), jv_repro_pyfloat(v2, sizeof v2, g->max));
        break;
    case JV_EW_ADDCMUL:
    case JV_EW_ADDCDIV:
        if (g->value != 1) ADD(", value=%s", jv_repro_pyfloat(v1, sizeof v1, g->value));
        break;
    case JV_EW_NAN_TO_NUM:
        ADD(", nan=%s", jv_repro_pyfloat(v1, sizeof v1, g->nan));
        if (g->has_posinf) ADD(", posinf=%s", jv_repro_pyfloat(v2, sizeof v2, g->posinf));
        if (g->has_neginf) ADD(", neginf=%s", jv_repro_pyfloat(v3, sizeof v3, g->neginf));
        break;
    case JV_EW_UPSAMPLE_NEAREST1D:
    case JV_EW_UPSAMPLE_NEAREST2D:
    case JV_EW_UPSAMPLE_NEAREST3D:
        ADD(", [");
        for (int i = g->out.ndim - g->spatial; i < g->out.ndim; i++)
            ADD("%s%lld", i > g->out.ndim - g->spatial ? ", " : "", (long long)g->out.shape[i]);
        ADD("]");
        break;
    default: break;
    }
    int outeq = !g->inplace && g->out_arg >= 0 && out >= 0;
    if (outeq) {
        r->need_out |= 1u << out;
        ADD(", out=%s", ops->o[out].name);
    }
    ADD(")");
#undef ADD
    if (l >= sizeof call) {
        r->overflow = 1;
        return;
    }
    jv_repro_py(r, "%s%s", g->inplace || outeq ? "" : "r = ", call);
}
