/* jv_repro: assembling reproducer commands from the families' hooks (see jv_repro.h). */
#include "jv_repro.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_family.h"

static const char NVIDIA_NOTE[] =
    "NVIDIA: no vendor command-line tool takes these options (cuBLASLt and cuDNN are libraries; their samples "
    "take no shapes, strides or layouts), so the reproducer there is the PyTorch snippet below, or "
    "`jarvis-replay PACKAGE --op %d --iterations 1` under nsys / ncu.\n";

/* the snippet's helper: storage spanning a strided view, filled as jarvis-replay fills it */
static const char PY_HEAD[] = "import torch\n"
                              "\n"
                              "_dev = 'cuda'  # the GPU of a CUDA or a ROCm build of PyTorch\n"
                              "\n"
                              "\n"
                              "def _make(shape, strides, dtype, init):\n"
                              "    # storage spanning the strided view, filled like jarvis-replay fills it\n"
                              "    n = 1\n"
                              "    for s, st in zip(shape, strides):\n"
                              "        n = 0 if s == 0 or n == 0 else n + (s - 1) * st\n"
                              "    base = torch.empty(n if n > 0 else 1, dtype=dtype, device=_dev)\n"
                              "    if init != 'none':\n"
                              "        if dtype == torch.bool or init == 'mask':\n"
                              "            base.random_(0, 2)\n"
                              "        elif not dtype.is_floating_point:\n"
                              "            base.random_(1 if init == 'positive' else -4, 5)\n"
                              "        elif init == 'positive':\n"
                              "            base.uniform_(0.5, 1.5)\n"
                              "        else:\n"
                              "            base.normal_()\n"
                              "    return base.as_strided(shape, strides)\n"
                              "\n"
                              "\n";

void jv_repro_opts_default(jv_repro_opts *o) {
    o->iters = 100;
    o->cold_iters = 10;
}

/* 1 for a Python keyword or a name the snippet gives a meaning of its own (torch, r) */
static int reserved_name(const char *s) {
    static const char *const K[] = {"False",   "None",     "True",     "and",    "as",   "assert", "async",  "await",
                                    "break",   "class",    "continue", "def",    "del",  "elif",   "else",   "except",
                                    "finally", "for",      "from",     "global", "if",   "import", "in",     "is",
                                    "lambda",  "nonlocal", "not",      "or",     "pass", "raise",  "return", "try",
                                    "while",   "with",     "yield",    "torch",  "r",    NULL};
    for (int i = 0; K[i]; i++)
        if (!strcmp(s, K[i])) return 1;
    return 0;
}

/* 1 when s is a Python identifier the snippet may define (not a keyword, not one of its own names) */
static int py_name_ok(const char *s) {
    if (!isalpha((unsigned char)s[0])) return 0; /* a leading '_' is the snippet's own */
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_')) return 0;
    return !reserved_name(s);
}

/* appends a shell word: as is when it holds only safe characters, else single-quoted */
static void sh_word(jv_strbuf *b, const char *w) {
    int safe = w[0] != 0;
    for (const char *p = w; *p; p++)
        safe &= isalnum((unsigned char)*p) || strchr("_.+-=/,:", *p) != NULL;
    if (safe) {
        jv_sb_puts(b, w);
        return;
    }
    jv_sb_puts(b, "'");
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            jv_sb_puts(b, "'\\''");
        else
            jv_sb_append(b, p, 1);
    }
    jv_sb_puts(b, "'");
}

static void py_tuple(jv_strbuf *b, const int64_t *v, int n) {
    jv_sb_puts(b, "(");
    for (int i = 0; i < n; i++)
        jv_sb_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
    jv_sb_puts(b, n == 1 ? ",)" : ")");
}

static const char *init_name(jv_init i) {
    switch (i) {
    case JV_INIT_POSITIVE: return "positive";
    case JV_INIT_MASK: return "mask";
    case JV_INIT_NONE: return "none";
    case JV_INIT_INDEX: return "index";
    default: return "normal";
    }
}

/* the python block of op index idx */
static jv_status python_block(const jv_ir_op *op, const jv_operands *ops, const jv_repro *r, const jv_repro_opts *o,
                              jv_strbuf *b, jv_err *err) {
    jv_sb_puts(b, "```python\n");
    jv_sb_puts(b, PY_HEAD);
    jv_sb_printf(b, "# op %d: %s\n", op->index, op->op_name);
    for (int i = 0; i < ops->n; i++) {
        const jv_operand *x = &ops->o[i];
        if (x->role == JV_ROLE_OUT && !(r->need_out & (1u << i))) continue;
        const char *dt = jv_repro_torch_dtype(x->t.dtype);
        if (!py_name_ok(x->name) || !dt)
            JV_FAIL(err, JV_ERR_FORMAT, "op %d (%s): operand '%s' %s", op->index, op->op_name, x->name,
                    dt ? "is no Python name the snippet can use" : "has a dtype PyTorch has no name for here");
        jv_sb_printf(b, "%s = _make(", x->name);
        py_tuple(b, x->t.shape, x->t.ndim);
        jv_sb_puts(b, ", ");
        py_tuple(b, x->t.strides, x->t.ndim);
        jv_sb_printf(b, ", %s, '%s')", dt, init_name(x->init));
        jv_layout l = jv_tensor_layout(&x->t);
        if (l != JV_LAYOUT_CONTIGUOUS) jv_sb_printf(b, "  # %s", jv_layout_name(l));
        jv_sb_puts(b, "\n");
    }
    jv_sb_puts(b, "\n\ndef _run():\n");
    for (const char *p = r->torch; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        jv_sb_puts(b, "    ");
        jv_sb_append(b, p, n);
        jv_sb_puts(b, "\n");
        p += n + (nl ? 1 : 0);
    }
    jv_sb_printf(b,
                 "\n\nfor _ in range(%d):  # warm-up\n"
                 "    _run()\n"
                 "torch.cuda.synchronize()\n"
                 "_t0 = torch.cuda.Event(enable_timing=True)\n"
                 "_t1 = torch.cuda.Event(enable_timing=True)\n"
                 "_t0.record()\n"
                 "for _ in range(%d):\n"
                 "    _run()\n"
                 "_t1.record()\n"
                 "torch.cuda.synchronize()\n"
                 "print('op %d %s: %%.2f us per call' %% (_t0.elapsed_time(_t1) * 1000 / %d))\n"
                 "```\n",
                 o->cold_iters, o->iters, op->index, op->op_name, o->iters);
    return JV_OK;
}

jv_status jv_repro_op(const jv_ir_op *op, const jv_repro_opts *o, jv_strbuf *out, jv_err *err) {
    jv_desc d;
    jv_operands ops;
    jv_err e = {0};
    if (jv_desc_parse(&op->call, &d, &e) != JV_OK)
        JV_FAIL(err, JV_ERR_FORMAT, "op %d (%s): cannot parse the call: %s", op->index, op->op_name, e.msg);
    const jv_family *f = jv_family_get(d.family);
    if (!f->repro)
        JV_FAIL(err, JV_ERR_FORMAT, "op %d (%s): the %s family has no reproducer", op->index, op->op_name, f->name);
    if (jv_desc_operands(&d, &ops, &e) != JV_OK)
        JV_FAIL(err, JV_ERR_FORMAT, "op %d (%s): not replayable: %s", op->index, op->op_name, e.msg);
    jv_repro *r = calloc(1, sizeof *r);
    if (!r) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
    f->repro(&d, &ops, o, r);
    jv_status st = JV_OK;
    jv_strbuf b = JV_STRBUF_INIT;
    if (r->overflow || !r->torch[0]) {
        st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                        "op %d (%s): the %s family gives no reproducer for this call", op->index, op->op_name, f->name);
        goto done;
    }
    jv_sb_printf(&b, "## op %d: %s (%s)\n\n", op->index, op->op_name, f->name);
    if (r->ncmd > 0) {
        jv_sb_puts(&b, "AMD (ROCm):\n\n```sh\n");
        for (int i = 0; i < r->ncmd; i++) {
            const jv_repro_cmd *c = &r->cmd[i];
            if (c->title[0]) jv_sb_printf(&b, "# %s\n", c->title);
            sh_word(&b, c->tool);
            if (c->sub[0]) jv_sb_puts(&b, " "), sh_word(&b, c->sub);
            for (int k = 0; k < c->nargs; k++) {
                jv_sb_puts(&b, " ");
                sh_word(&b, c->arg[k].opt);
                if (c->arg[k].val[0]) jv_sb_puts(&b, " "), sh_word(&b, c->arg[k].val);
            }
            jv_sb_puts(&b, "\n");
        }
        jv_sb_puts(&b, "```\n\n");
    } else {
        jv_sb_printf(&b, "AMD (ROCm): %s.\n\n", r->amd_none[0] ? r->amd_none : "no vendor tool line");
    }
    jv_sb_printf(&b, NVIDIA_NOTE, op->index);
    jv_sb_puts(&b, "\nPyTorch (the same snippet on CUDA and ROCm builds):\n\n");
    st = python_block(op, &ops, r, o, &b, err);
    if (st == JV_OK) jv_sb_puts(&b, "\n");
    if (st == JV_OK && (b.bad || !jv_sb_append(out, b.buf, b.len)))
        st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
done:
    jv_sb_free(&b);
    free(r);
    return st;
}

static const char DOC_HEAD[] =
    "# Reproducer commands\n"
    "\n"
    "For each op of this package (its index N as `jarvis-replay --list` shows it; `jarvis-replay PACKAGE --op N "
    "--print-repro` prints one section): the command line of the AMD vendor tool that runs the same op with the "
    "traced shapes, strides, dtypes and layout (hipblaslt-bench and rocblas-bench for GEMM, MIOpenDriver for "
    "convolution and batch norm), and a PyTorch snippet that runs it on a CUDA or a ROCm build of PyTorch "
    "(tensors with the traced shapes, strides and dtypes, the op call with its scalar arguments, %d warm-up and %d "
    "timed calls between device events, the time per call printed).\n"
    "\n"
    "The vendor tools' options are the ones their sources document (hipBLASLt clients/benchmarks/client.cpp, "
    "rocBLAS rocblas-bench, MIOpen driver/conv_driver.hpp and driver/bn_driver.hpp). GEMM lines use PyTorch's "
    "own mapping onto the column-major libraries: m = N, n = M, the tool's A is PyTorch's B. The vendor tools "
    "fill tensors with their own data and time with their own loop; the PyTorch snippet fills them as "
    "jarvis-replay does.\n"
    "\n"
    "NVIDIA has no vendor command-line tool that takes these options (cuBLASLt and cuDNN are libraries): the "
    "PyTorch snippet is the reproducer there.\n"
    "\n";

jv_status jv_repro_doc(const jv_ir *ir, const jv_repro_opts *o, size_t max_bytes, char **text, jv_err *err) {
    *text = NULL;
    jv_strbuf b = JV_STRBUF_INIT;
    jv_sb_printf(&b, DOC_HEAD, o->cold_iters, o->iters);
    int left = -1;
    for (int i = 0; i < ir->n; i++) {
        jv_strbuf s = JV_STRBUF_INIT;
        jv_err e = {0};
        jv_status st = jv_repro_op(&ir->ops[i], o, &s, &e);
        if (st == JV_ERR_NOMEM) {
            jv_sb_free(&s);
            jv_sb_free(&b);
            JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
        }
        if (st != JV_OK) {
            jv_sb_free(&s);
            jv_sb_printf(&s, "## op %d: %s\n\nNo reproducer: %s.\n\n", ir->ops[i].index, ir->ops[i].op_name, e.msg);
        }
        if (max_bytes > 0 && b.len + s.len + 400 > max_bytes) {
            jv_sb_free(&s);
            left = i;
            break;
        }
        jv_sb_append(&b, s.buf ? s.buf : "", s.len);
        jv_sb_free(&s);
    }
    if (left >= 0)
        jv_sb_printf(&b,
                     "## ops %d to %d\n\nLeft out to keep this file under %zu bytes: `jarvis-replay PACKAGE --op N "
                     "--print-repro` prints op N's lines.\n",
                     left, ir->n - 1, max_bytes);
    char *t = jv_sb_take(&b);
    if (!t) JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
    *text = t;
    return JV_OK;
}
