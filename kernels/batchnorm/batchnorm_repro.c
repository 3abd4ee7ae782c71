/* batchnorm: the reproducer hook (jv_family.repro): the MIOpenDriver line and the PyTorch call.
 *
 * MIOpenDriver bnorm / bnormfp16 / bnormbfp16 (MIOpen's driver/bn_driver.hpp, AddCmdLineArgs, and
 * driver/dm_bnorm.cpp for the sub-commands): -n batch, -c channels, -H/-W height/width, -D depth (5-D),
 * --layout NCHW|NHWC|NCDHW|NDHWC, -m 1 spatial mode (per channel, as PyTorch's BatchNorm), -F 1 forward
 * training / 2 forward inference, -b 1 backward, -s 1 save (training forward) or use (backward) the batch
 * mean and inverse variance, -r 1 keep (training) or use (inference) the running statistics, -A 1 -B 0 (the
 * blend of the output: older drivers default to other values), -i iterations, -t 1 time, -V 0 no CPU
 * verification. The driver has no momentum or epsilon option (its own are used). A 2-D input [N, C] runs
 * as [N, C, 1, 1] and a 3-D one [N, C, L] as [N, C, L, 1]. */
#include <stdio.h>
#include <string.h>

#include "batchnorm.h"

static void torch_call(const jv_batchnorm_desc *g, const jv_operands *ops, jv_repro *r) {
    char mo[40], ep[40];
    jv_repro_pyfloat(mo, sizeof mo, g->momentum);
    jv_repro_pyfloat(ep, sizeof ep, g->eps);
#define OPT(nm) (jv_operands_find(ops, nm) >= 0 ? nm : "None")
    if (!g->bwd) {
        jv_repro_py(r, "r = torch.nn.functional.batch_norm(input, %s, %s, %s, %s, %s, %s, %s)", OPT("running_mean"),
                    OPT("running_var"), OPT("weight"), OPT("bias"), g->training ? "True" : "False", mo, ep);
        return;
    }
    if (g->impl == JV_BN_IMPL_CUDNN || g->impl == JV_BN_IMPL_MIOPEN)
        jv_repro_py(r,
                    "# traced through %s; PyTorch's own backward kernel below (the vendor one wants the forward's "
                    "reserve space)",
                    g->impl == JV_BN_IMPL_CUDNN ? "cuDNN" : "MIOpen");
    jv_repro_py(r,
                "r = torch.ops.aten.native_batch_norm_backward(grad_out, input, %s, %s, %s, %s, %s, %s, %s, "
                "[%s, %s, %s])",
                OPT("weight"), OPT("running_mean"), OPT("running_var"), OPT("save_mean"), OPT("save_invstd"),
                g->training ? "True" : "False", ep, g->output_mask[0] ? "True" : "False",
                g->output_mask[1] ? "True" : "False", g->output_mask[2] ? "True" : "False");
#undef OPT
}

void jv_batchnorm_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    const jv_batchnorm_desc *g = jv_batchnorm_of(d);
    torch_call(g, ops, r);

    const char *suf = jv_repro_miopen_suffix(g->x.dtype);
    if (!suf) {
        jv_repro_no_amd(r, "no MIOpenDriver line: %s data (its bnorm drivers take fp32, fp16 and bf16)",
                        jv_dtype_short(g->x.dtype));
        return;
    }
    if (g->bwd && !g->training) {
        jv_repro_no_amd(r, "no MIOpenDriver line: an inference-mode backward (MIOpen's backward is the training one)");
        return;
    }
    int nd = g->x.ndim;
    jv_layout l = jv_tensor_layout(&g->x);
    const char *lay = NULL;
    if (nd >= 2 && nd <= 5 && l == JV_LAYOUT_CONTIGUOUS)
        lay = nd == 5 ? "NCDHW" : "NCHW";
    else if ((nd == 4 || nd == 5) && l == JV_LAYOUT_CHANNELS_LAST)
        lay = nd == 5 ? "NDHWC" : "NHWC";
    if (!lay) {
        jv_repro_no_amd(r,
                        "no MIOpenDriver line: a %d-D input of %s layout (the driver takes NCHW, NHWC, NCDHW, "
                        "NDHWC)",
                        nd, jv_layout_name(l));
        return;
    }
    char sub[24], title[160];
    snprintf(sub, sizeof sub, "bnorm%s", suf);
    snprintf(title, sizeof title, "%s, spatial (per channel), %s%s",
             g->bwd        ? "backward (training)"
             : g->training ? "forward training"
                           : "forward inference",
             lay, suf[0] ? "; scale and bias fp32 in the driver" : "");
    jv_repro_cmd *c = jv_repro_cmd_add(r, "MIOpenDriver", sub, title);
    jv_repro_opt(r, c, "-n", "%lld", (long long)g->x.shape[0]);
    jv_repro_opt(r, c, "-c", "%lld", (long long)g->x.shape[1]);
    if (nd == 5) jv_repro_opt(r, c, "-D", "%lld", (long long)g->x.shape[2]);
    jv_repro_opt(r, c, "-H", "%lld", (long long)(nd >= 3 ? g->x.shape[nd == 5 ? 3 : 2] : 1));
    jv_repro_opt(r, c, "-W", "%lld", (long long)(nd >= 4 ? g->x.shape[nd - 1] : 1));
    jv_repro_opt(r, c, "--layout", "%s", lay);
    jv_repro_opt(r, c, "-m", "1");
    if (g->bwd) {
        jv_repro_opt(r, c, "-F", "0");
        jv_repro_opt(r, c, "-b", "1");
        jv_repro_opt(r, c, "-s", "1");
    } else if (g->training) {
        jv_repro_opt(r, c, "-F", "1");
        jv_repro_opt(r, c, "-s", "1");
        jv_repro_opt(r, c, "-r", "%d", g->has_running ? 1 : 0);
    } else {
        jv_repro_opt(r, c, "-F", "2");
        jv_repro_opt(r, c, "-r", "1");
    }
    jv_repro_opt(r, c, "-A", "1");
    jv_repro_opt(r, c, "-B", "0");
    jv_repro_opt(r, c, "-i", "%d", o->iters);
    jv_repro_opt(r, c, "-t", "1");
    jv_repro_opt(r, c, "-V", "0");
}
