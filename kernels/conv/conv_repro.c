/* conv: the reproducer hook (jv_family.repro): the MIOpenDriver line and the PyTorch call.
 *
 * MIOpenDriver conv / convfp16 / convbfp16 (MIOpen's driver/conv_driver.hpp, AddCmdLineArgs): -n batch,
 * -c input channels, -H/-W input height/width, -k output channels, -y/-x filter height/width, -p/-q padding,
 * -u/-v strides, -l/-j dilations, -g groups, -m conv|trans, -Y/-X transposed output padding, -b bias,
 * -F 1 forward / 2 backward data / 4 backward weights (sums combine them), --in_layout / --fil_layout /
 * --out_layout NCHW|NHWC|NCDHW|NDHWC, -i iterations, -t 1 time, -V 0 no CPU verification; 3-D convolutions
 * take --spatial_dim 3 and the depth options by their long names (--in_d, --fil_d, --pad_d, --conv_stride_d,
 * --dilation_d, --trans_output_pad_d: their short letters are shell characters). A 1-D convolution runs as
 * a 2-D one of height 1, as PyTorch's MIOpen path does. */
#include <stdio.h>
#include <string.h>

#include "conv.h"

static void list3(char *buf, size_t cap, const int64_t *v, int n) {
    size_t l = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && l < cap; i++)
        l += (size_t)snprintf(buf + l, cap - l, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (l < cap) snprintf(buf + l, cap - l, "]");
}

static void torch_call(const jv_conv_desc *g, jv_repro *r) {
    char st[64], pa[64], di[64], op[64];
    list3(st, sizeof st, g->stride, g->nd);
    list3(pa, sizeof pa, g->padding, g->nd);
    list3(di, sizeof di, g->dilation, g->nd);
    list3(op, sizeof op, g->output_padding, g->nd);
    const char *tr = g->transposed ? "True" : "False";
    if (g->op == JV_CONV_BACKWARD) {
        char bs[32] = "None";
        if (g->output_mask[2]) snprintf(bs, sizeof bs, "[%lld]", (long long)g->c_out);
        if (g->pad_mode == JV_CONV_PAD_SAME)
            jv_repro_py(r, "# traced with padding='same': the left padding below (PyTorch pads one more on the right)");
        jv_repro_py(r,
                    "r = torch.ops.aten.convolution_backward(grad_output, input, weight, %s, %s, %s, %s, %s, %s, "
                    "%lld, [%s, %s, %s])",
                    bs, st, pa, di, tr, op, (long long)g->groups, g->output_mask[0] ? "True" : "False",
                    g->output_mask[1] ? "True" : "False", g->output_mask[2] ? "True" : "False");
    } else if (g->pad_mode == JV_CONV_PAD_SAME && !g->transposed) {
        jv_repro_py(r, "r = torch.nn.functional.conv%dd(input, weight, %s, %s, 'same', %s, %lld)", g->nd,
                    g->has_bias ? "bias" : "None", st, di, (long long)g->groups);
    } else {
        jv_repro_py(r, "r = torch.ops.aten.convolution(input, weight, %s, %s, %s, %s, %s, %s, %lld)",
                    g->has_bias ? "bias" : "None", st, pa, di, tr, op, (long long)g->groups);
    }
}

/* MIOpen's name of a tensor layout: NCHW / NHWC (NCDHW / NDHWC in 3-D); NULL for another layout */
static const char *layout_name(const jv_tensor *t, int nd) {
    jv_layout l = jv_tensor_layout(t);
    if (l == JV_LAYOUT_CONTIGUOUS) return nd == 3 ? "NCDHW" : "NCHW";
    if (l == JV_LAYOUT_CHANNELS_LAST && nd >= 2) return nd == 3 ? "NDHWC" : "NHWC";
    return NULL;
}

void jv_conv_repro(const jv_desc *d, const jv_operands *ops, const jv_repro_opts *o, jv_repro *r) {
    const jv_conv_desc *g = jv_conv_of(d);
    (void)ops;
    torch_call(g, r);

    const char *suf = jv_repro_miopen_suffix(g->dtype);
    if (!suf) {
        jv_repro_no_amd(r, "no MIOpenDriver line: %s data (its conv drivers take fp32, fp16 and bf16)",
                        jv_dtype_short(g->dtype));
        return;
    }
    const char *lx = layout_name(&g->x, g->nd), *lw = layout_name(&g->w, g->nd);
    int pointwise = 1; /* a 1x1 weight is laid out alike in both layouts: it takes the input's */
    for (int i = 0; i < g->nd; i++)
        pointwise &= g->w.shape[2 + i] == 1;
    if (pointwise && lx && lw && jv_tensor_dense(&g->w)) lw = lx;
    if (!lx || !lw) {
        jv_repro_no_amd(r,
                        "no MIOpenDriver line: the %s is neither contiguous nor channels_last (PyTorch copies it "
                        "into one of them first)",
                        lx ? "weight" : "input");
        return;
    }
    if (g->pad_mode == JV_CONV_PAD_SAME) {
        int odd = 0;
        for (int i = 0; i < g->nd; i++)
            odd |= (g->dilation[i] * (g->w.shape[2 + i] - 1)) % 2;
        if (odd) {
            jv_repro_no_amd(r, "no MIOpenDriver line: padding='same' with an odd total padding pads one more on the "
                               "right, which MIOpen's symmetric padding cannot express");
            return;
        }
    }
    int fwd = g->op != JV_CONV_BACKWARD;
    int flag = fwd ? 1 : (g->output_mask[0] ? 2 : 0) + (g->output_mask[1] ? 4 : 0);
    char sub[24], title[160];
    snprintf(sub, sizeof sub, "conv%s", suf);
    snprintf(title, sizeof title, "%s%s%s, %s", g->transposed ? "transposed " : "",
             fwd         ? "forward"
             : flag == 2 ? "backward data"
             : flag == 4 ? "backward weights"
             : flag == 6 ? "backward data and weights"
                         : "backward bias only",
             g->output_mask[2] || (fwd && g->has_bias) ? " with bias" : "", lx);
    if (flag == 0) { /* a backward computing only grad_bias: a reduction, no convolution */
        jv_repro_no_amd(r, "no MIOpenDriver line: this backward computes only grad_bias (a sum over N and space)");
        return;
    }
    jv_repro_cmd *c = jv_repro_cmd_add(r, "MIOpenDriver", sub, title);
    /* spatial dims as MIOpen's 2-D (a 1-D conv: height 1) or 3-D */
    int nd = g->nd, sd = nd == 3 ? 3 : 2;
    int64_t in_s[3], fil[3], pad[3], str[3], dil[3], opad[3];
    for (int i = 0; i < sd; i++)
        in_s[i] = fil[i] = str[i] = dil[i] = 1, pad[i] = opad[i] = 0;
    for (int i = 0; i < nd; i++) {
        int j = i + (sd - nd);
        in_s[j] = g->x.shape[2 + i];
        fil[j] = g->w.shape[2 + i];
        pad[j] = g->padding[i];
        str[j] = g->stride[i];
        dil[j] = g->dilation[i];
        opad[j] = g->transposed ? g->output_padding[i] : 0;
    }
    if (sd == 3) jv_repro_opt(r, c, "--spatial_dim", "3");
    jv_repro_opt(r, c, "-n", "%lld", (long long)g->n);
    jv_repro_opt(r, c, "-c", "%lld", (long long)g->c_in);
    if (sd == 3) jv_repro_opt(r, c, "--in_d", "%lld", (long long)in_s[0]);
    jv_repro_opt(r, c, "-H", "%lld", (long long)in_s[sd - 2]);
    jv_repro_opt(r, c, "-W", "%lld", (long long)in_s[sd - 1]);
    jv_repro_opt(r, c, "-k", "%lld", (long long)g->c_out);
    if (sd == 3) jv_repro_opt(r, c, "--fil_d", "%lld", (long long)fil[0]);
    jv_repro_opt(r, c, "-y", "%lld", (long long)fil[sd - 2]);
    jv_repro_opt(r, c, "-x", "%lld", (long long)fil[sd - 1]);
    if (sd == 3) jv_repro_opt(r, c, "--pad_d", "%lld", (long long)pad[0]);
    jv_repro_opt(r, c, "-p", "%lld", (long long)pad[sd - 2]);
    jv_repro_opt(r, c, "-q", "%lld", (long long)pad[sd - 1]);
    if (sd == 3) jv_repro_opt(r, c, "--conv_stride_d", "%lld", (long long)str[0]);
    jv_repro_opt(r, c, "-u", "%lld", (long long)str[sd - 2]);
    jv_repro_opt(r, c, "-v", "%lld", (long long)str[sd - 1]);
    if (sd == 3) jv_repro_opt(r, c, "--dilation_d", "%lld", (long long)dil[0]);
    jv_repro_opt(r, c, "-l", "%lld", (long long)dil[sd - 2]);
    jv_repro_opt(r, c, "-j", "%lld", (long long)dil[sd - 1]);
    jv_repro_opt(r, c, "-g", "%lld", (long long)g->groups);
    jv_repro_opt(r, c, "-m", "%s", g->transposed ? "trans" : "conv");
    if (g->transposed) {
        if (sd == 3) jv_repro_opt(r, c, "--trans_output_pad_d", "%lld", (long long)opad[0]);
        jv_repro_opt(r, c, "-Y", "%lld", (long long)opad[sd - 2]);
        jv_repro_opt(r, c, "-X", "%lld", (long long)opad[sd - 1]);
    }
    if (g->output_mask[2] || (fwd && g->has_bias)) jv_repro_opt(r, c, "-b", "1");
    jv_repro_opt(r, c, "-F", "%d", flag);
    jv_repro_opt(r, c, "--in_layout", "%s", lx);
    jv_repro_opt(r, c, "--fil_layout", "%s", lw);
    jv_repro_opt(r, c, "--out_layout", "%s", lx);
    jv_repro_opt(r, c, "-i", "%d", o->iters);
    jv_repro_opt(r, c, "-t", "1");
    jv_repro_opt(r, c, "-V", "0");
}
