/* actmul_repro.c: the reproducer hook of the gated activations (jv_family.repro): the PyTorch expression
 * of the op's definition over the input's two halves (vLLM's and AITER's own kernels are not PyTorch's; the
 * expression runs PyTorch's silu / gelu and mul kernels on both vendors). No AMD vendor tool runs it. */
#include <stdio.h>

#include "actmul.h"

void jv_actmul_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    (void)o, (void)ops;
    const jv_actmul_desc *g = jv_actmul_of(d);
    jv_repro_no_amd(r, "no AMD vendor tool runs gated activations (%s is the serving stack's own kernel)", g->name);
    const char *fn = g->act == JV_ACTMUL_SILU ? "silu" : "gelu";
    const char *approx = g->act == JV_ACTMUL_GELU_TANH ? ", approximate='tanh'" : "";
    char cast[64] = "";
    if (g->out.dtype != g->in.dtype) {
        const char *t = jv_repro_torch_dtype(g->out.dtype);
        if (!t) {
            r->overflow = 1;
            return;
        }
        snprintf(cast, sizeof cast, ".to(%s)", t);
    }
    const long long w = (long long)g->width;
    if (g->act_second)
        jv_repro_py(r, "r = (input[..., :%lld] * torch.nn.functional.%s(input[..., %lld:]%s))%s", w, fn, w, approx,
                    cast);
    else
        jv_repro_py(r, "r = (torch.nn.functional.%s(input[..., :%lld]%s) * input[..., %lld:])%s", fn, w, approx, w,
                    cast);
}
