/* rope_repro.c: the reproducer hook of the rotary embedding (jv_family.repro): positions set to 0..T-1 (as
 * the replay runs it), then the rotation in PyTorch arithmetic over a [tokens, heads, head_size] view of the
 * query and the key: the first and second halves of the rotated part (neox) or its even and odd elements
 * (gptj). vLLM's kernel is not PyTorch's; no AMD vendor tool runs it. */
#include <stdio.h>

#include "rope.h"

static void rotate_py(const jv_rope_desc *g, jv_repro *r, const char *t, int64_t heads) {
    const long long half = (long long)(g->rot / 2), rot = (long long)g->rot;
    jv_repro_py(r, "th = %s.view(-1, %lld, %lld)", t, (long long)heads, (long long)g->head_size);
    if (g->neox)
        jv_repro_py(r, "tx, ty = th[..., :%lld], th[..., %lld:%lld]", half, half, rot);
    else
        jv_repro_py(r, "tx, ty = th[..., 0:%lld:2], th[..., 1:%lld:2]", rot, rot);
    jv_repro_py(r, "nx, ny = tx * cos - ty * sin, ty * cos + tx * sin");
    jv_repro_py(r, "tx.copy_(nx)");
    jv_repro_py(r, "ty.copy_(ny)");
}

void jv_rope_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    (void)ops, (void)o;
    const jv_rope_desc *g = jv_rope_of(d);
    const long long half = (long long)(g->rot / 2);
    jv_repro_no_amd(r, "no AMD vendor tool runs a rotary embedding (_C::rotary_embedding is vLLM's own kernel)");
    jv_repro_py(r, "positions.copy_(torch.arange(positions.numel(), device=positions.device).view_as(positions))");
    jv_repro_py(r, "cs = cos_sin_cache[positions.flatten()].unsqueeze(1)");
    jv_repro_py(r, "cos, sin = cs[..., :%lld], cs[..., %lld:]", half, half);
    rotate_py(g, r, "query", g->heads_q);
    if (g->has_key) rotate_py(g, r, "key", g->heads_k);
}
