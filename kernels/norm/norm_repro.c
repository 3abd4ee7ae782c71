/* norm_repro.c: the reproducer hook of the replayed RMS norms (jv_family.repro): PyTorch's
 * torch.nn.functional.rms_norm over the call's normalized shape (vLLM's kernels are not PyTorch's; the
 * expression runs PyTorch's on both vendors); fused_add_rms_norm as residual.add_(input) then
 * input.copy_(rms_norm(residual)). No AMD vendor tool line. */
#include <stdio.h>

#include "norm.h"

void jv_norm_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    (void)o, (void)ops;
    const jv_norm_desc *g = jv_norm_of(d);
    if (!jv_norm_replayable(g)) {
        r->overflow = 1;
        return;
    }
    jv_repro_no_amd(r, "no AMD vendor tool line for RMS norm (%s)",
                    g->vllm ? "vLLM's own kernel" : "PyTorch's own kernels");
    char shape[200], eps[40];
    size_t l = (size_t)snprintf(shape, sizeof shape, "[");
    for (int i = 0; i < g->normalized_ndim && l < sizeof shape; i++)
        l += (size_t)snprintf(shape + l, sizeof shape - l, "%s%lld", i ? ", " : "", (long long)g->normalized_shape[i]);
    if (l < sizeof shape) l += (size_t)snprintf(shape + l, sizeof shape - l, "]");
    if (l >= sizeof shape) {
        r->overflow = 1;
        return;
    }
    if (g->eps > 0)
        jv_repro_pyfloat(eps, sizeof eps, g->eps);
    else
        snprintf(eps, sizeof eps, "None");
    const char *w = g->has_weight ? "weight" : "None";
    if (g->op == JV_NORM_SERVING_ADD_RMS_NORM) {
        jv_repro_py(r, "residual.add_(input)");
        jv_repro_py(r, "input.copy_(torch.nn.functional.rms_norm(residual, %s, %s, %s))", shape, w, eps);
        return;
    }
    jv_repro_py(r, "r = torch.nn.functional.rms_norm(input, %s, %s, %s)", shape, w, eps);
}
