/* Unit test of analysis/model/jv_findings_model: the typed findings of a digest, checked on the structs (never on
 * markdown). A synthetic digest with one row per decision (a skinny slow GEMM, an NCHW convolution with layout
 * conversions around NHWC kernels, a native bf16 batch norm without affine weight below the elementwise baseline, a
 * batch norm without a model that runs cuDNN, the baseline's add) and, when the fixture is given, the digest of
 * tests/data/nv_h200_resnet50_train.json.gz through the whole model (trace, tree, perf table, digest). Then memcpy
 * and memset (issue 19): the one classification (jv_transfer_of), transfer rows kept out of the roofline, the
 * verdicts, the findings and the elementwise baseline, and a baseline that needs enough large ops.
 * Usage: test_model_findings [FIXTURE_TRACE] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jv_check.h"
#include "jv_digest.h"
#include "jv_findings_model.h"
#include "jv_perf.h"
#include "jv_test_digest.h"
#include "jv_transfer.h"

/* a equals b up to rounding */
static int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static jv_tensor tensor4(jv_dtype dt, int64_t n, int64_t c, int64_t h, int64_t w) {
    jv_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = 4;
    t.shape[0] = n, t.shape[1] = c, t.shape[2] = h, t.shape[3] = w;
    t.dtype = dt;
    jv_tensor_set_contiguous(&t);
    t.has_strides = 1;
    return t;
}

/* a row with the fields every row needs; the caller sets the rest */
static jv_drow row(const char *op, jv_dcat cat, int family, double time_us, uint32_t count, double roof_us,
                   jv_bound bound) {
    jv_drow r;
    memset(&r, 0, sizeof r);
    r.name = r.op_name = op;
    r.op_category = r.family = r.dims = r.types = r.strides = r.concrete = r.type0 = r.params = "";
    r.cat = cat;
    r.family_id = family;
    r.model = family >= 0 ? family : -1;
    r.time_us = time_us;
    r.count = count;
    r.median_us = time_us / count;
    r.roof_us = roof_us;
    r.bound = bound;
    r.flops = r.bytes = NAN;
    r.replay_op = -1;
    jv_desc_facts(NULL, &r.facts);                              /* nothing said */
    if (roof_us > 0) r.pct = 100.0 * count * roof_us / time_us; /* one size for all calls */
    return r;
}

static void kernel(jv_drow *r, const char *name, int layout, double us) {
    jv_dkernel *k = &r->kernels[r->nkernels++];
    k->name = name;
    k->layout = layout;
    k->total_us = us;
    k->count = r->count;
    r->nkernels_all = r->nkernels;
    if (layout) r->layout_us += us;
}

static const jv_dfinding *find_kind(const jv_dfindings *f, jv_find_kind k, jv_dcat c) {
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].kind == k && f->v[i].cat == c) return &f->v[i];
    return NULL;
}

/* the index of the digest row named op */
static int row_of(const jv_digest *d, const char *op) {
    for (size_t i = 0; i < d->nrows; i++)
        if (!strcmp(d->rows[i].op_name, op)) return (int)i;
    return -1;
}

static void test_synthetic(void) {
    jv_err err;
    jv_err_clear(&err);
    jv_hw hw;
    CHECK(jv_hw_resolve("H100", &hw, &err) == JV_OK);
    jv_trace tr;
    memset(&tr, 0, sizeof tr);
    jv_digest d;
    CHECK(jv_digest_init(&d, "synthetic.json", &tr, &hw, "test", &err) == JV_OK);

    /* a skinny, small GEMM at 10 % of its roofline: a kernel issue, the largest saving */
    jv_drow g = row("aten::mm", JV_DCAT_GEMM, JV_FAM_GEMM, 4000, 10, 40, JV_BOUND_COMPUTE);
    snprintf(g.spec, sizeof g.spec, "matrix_bf16");
    g.flops = 2.0 * 16 * 4096 * 4096;
    g.percent = 40;
    g.facts.m = 16, g.facts.n = 4096, g.facts.k = 4096;
    kernel(&g, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 4000);
    CHECK(jv_digest_add_row(&d, &g, &err) == JV_OK);

    /* an NCHW convolution (3x3) at 75 %: conversions around NHWC kernels */
    jv_drow c = row("aten::convolution", JV_DCAT_CONV, JV_FAM_CONV, 2000, 10, 150, JV_BOUND_COMPUTE);
    snprintf(c.spec, sizeof c.spec, "matrix_bf16");
    c.flops = 1e10;
    c.percent = 20;
    c.noperands = 2;
    c.operands[0].kind = c.operands[1].kind = JV_ARG_TENSOR;
    c.operands[0].t = tensor4(JV_DT_BF16, 8, 64, 56, 56);
    c.operands[1].t = tensor4(JV_DT_BF16, 64, 64, 3, 3);
    c.facts.kh = c.facts.kw = 3; /* what the conv family reads from that weight */
    kernel(&c, "sm90_xmma_fprop_implicit_gemm_bf16_nhwc_kernel", 0, 1700);
    kernel(&c, "void nchwToNhwcKernel<__nv_bfloat16>(int, int)", 1, 300);
    CHECK(jv_digest_add_row(&d, &c, &err) == JV_OK);

    /* native batch norm, bf16, no affine weight, training, far below the baseline */
    jv_drow b = row("aten::native_batch_norm", JV_DCAT_BN, JV_FAM_BATCHNORM, 1500, 10, 30, JV_BOUND_MEMORY);
    b.bytes = 6e6;
    b.flops = 1e7;
    b.tbs = 10 * b.bytes / 1500e-6 / 1e12;
    b.percent = 15;
    b.noperands = 2;
    b.operands[0].kind = JV_ARG_TENSOR;
    b.operands[0].t = tensor4(JV_DT_BF16, 8, 64, 56, 56);
    b.operands[1].kind = JV_ARG_NONE;
    b.facts.training = 1, b.facts.no_affine = 1; /* what the batch norm family reads from the call */
    kernel(&b, "void at::native::batch_norm_collect_statistics_kernel<float>(int)", 0, 1500);
    CHECK(jv_digest_add_row(&d, &b, &err) == JV_OK);

    /* batch norm without a model: the batch norm family's hook still names its library */
    jv_drow bc = row("aten::cudnn_batch_norm", JV_DCAT_BN, -1, 10, 1, 0, JV_BOUND_NONE);
    bc.percent = 0.1;
    bc.concrete = "['', '', 'True']";
    kernel(&bc, "bn_fw_tr_1C11_kernel_NCHW", 0, 10);
    CHECK(jv_digest_add_row(&d, &bc, &err) == JV_OK);

    /* the elementwise baseline: 100 adds of 8 MB in 1 ms = 0.8 TB/s, at 50 % of the roofline */
    jv_drow a = row("aten::add", JV_DCAT_EW, JV_FAM_BINARY, 1000, 100, 5, JV_BOUND_MEMORY);
    a.bytes = 8e6;
    a.flops = 1e6;
    a.tbs = 0.8;
    a.percent = 10;
    kernel(&a, "vectorized_elementwise_kernel", 0, 1000);
    CHECK(jv_digest_add_row(&d, &a, &err) == JV_OK);

    jv_drow o = row("aten::foo", JV_DCAT_OTHER, -1, 1500, 1, 0, JV_BOUND_NONE);
    o.percent = 15;
    CHECK(jv_digest_add_row(&d, &o, &err) == JV_OK);

    jv_tree t;
    memset(&t, 0, sizeof t);
    jv_perf_table pt;
    memset(&pt, 0, sizeof pt);
    jv_timeline_opts to = {0, 0, 0};
    jv_timelines tls;
    CHECK(jv_timelines_compute(&tr, &t, &to, &tls) == JV_OK);
    CHECK_MSG(jv_digest_finish(&d, &tr, &t, &pt, &tls, &err) == JV_OK, "%s", err.msg);
    const jv_dfindings *f = jv_digest_findings(&d);
    CHECK(f != NULL);
    if (!f) {
        jv_digest_free(&d);
        return;
    }
    CHECK(f->nrows == d.nrows);
    CHECK(near(d.baseline.tbs, 0.8));
    int ig = row_of(&d, "aten::mm"), ic = row_of(&d, "aten::convolution"), ib = row_of(&d, "aten::native_batch_norm"),
        ibc = row_of(&d, "aten::cudnn_batch_norm");
    CHECK(ig >= 0 && ic >= 0 && ib >= 0 && ibc >= 0);
    if (ig < 0 || ic < 0 || ib < 0 || ibc < 0) {
        jv_digest_free(&d);
        return;
    }

    /* row facts */
    const jv_frow *xg = &f->rows[ig], *xc = &f->rows[ic], *xb = &f->rows[ib], *xbc = &f->rows[ibc];
    CHECK(xg->skinny && xg->small && xg->M == 16 && xg->N == 4096 && xg->K == 4096 && isnan(xg->B));
    CHECK(xg->compute_bound && !xg->backward);
    CHECK(xc->layout.kind == JV_FLAYOUT_CONTIGUOUS && xc->layout.ndim == 4);
    CHECK(xc->has_ksize && xc->kh == 3 && xc->kw == 3 && !xc->large_kernel);
    CHECK(xb->impl == JV_IMPL_NATIVE && xb->dtype == JV_DT_BF16 && xb->training && xb->no_affine);
    CHECK(xbc->impl == JV_IMPL_CUDNN); /* no model: the family reporting batch norm reads the op name */
    CHECK(xbc->training == -1);        /* no model: unknown (not guessed from the concrete inputs' text) */

    /* categories */
    CHECK(f->gemm.small_rows == 1 && f->gemm.small_us == 4000);
    CHECK(f->conv.nchw == 1 && f->conv.channels_last == 0 && f->conv.other == 0);
    CHECK(f->conv.nhwc_kernels == 1); /* the conv family's hook: an NHWC compute kernel, the transpose aside */
    CHECK(f->conv.layout_us == 300 && !f->conv.internal);
    CHECK(f->conv.ksize[JV_KSIZE_SMALL].rows == 1 && f->conv.ksize[JV_KSIZE_LARGE].rows == 0 &&
          f->conv.ksize[JV_KSIZE_UNKNOWN].rows == 0);
    CHECK(near(f->conv.ksize[JV_KSIZE_SMALL].eff, 75));
    CHECK(f->bn.rows == 2 && f->bn.native == 1 && f->bn.bf16 == 1 && f->bn.no_affine == 1 && !f->bn.why_other);
    CHECK(f->bn.has_bw && near(f->bn.tbs, 0.04) && f->bn.below_base);
    CHECK(near(f->bn.base_us, 75) && near(f->bn.gain_us, 1425));
    CHECK(near(f->cat[JV_DCAT_GEMM].eff, 10));
    CHECK(isnan(f->cat[JV_DCAT_OTHER].eff));

    /* the GEMM row is significant, with its projections */
    const jv_fcat *fg = &f->cat[JV_DCAT_GEMM];
    CHECK(fg->nsig == 1 && fg->sig[0].row == (uint32_t)ig);
    CHECK(!fg->sig[0].proj[0].above && near(fg->sig[0].proj[0].time_us, 2000) &&
          near(fg->sig[0].proj[0].gain_us, 2000));
    CHECK(near(fg->sig[0].proj[1].gain_us, 3200) && near(fg->sig[0].proj[2].gain_us, 3500));
    CHECK(f->cat[JV_DCAT_CONV].nsig == 1 && f->cat[JV_DCAT_CONV].sig[0].finding < 0); /* 75 %: no per-op finding */
    CHECK(f->cat[JV_DCAT_CONV].sig[0].proj[0].above && f->cat[JV_DCAT_CONV].sig[0].proj[1].above &&
          !f->cat[JV_DCAT_CONV].sig[0].proj[2].above);

    /* the findings: GEMM per-op, conv layout, batch norm bandwidth (which covers the batch norm op: no per-op one) */
    CHECK(f->n == 3);
    const jv_dfinding *slow = find_kind(f, JV_FIND_SLOW_OP, JV_DCAT_GEMM);
    CHECK(slow && slow->row == ig && slow->sig == 0 && slow->reco == JV_RECO_PROFILE && near(slow->gain_us, 3200));
    CHECK(!find_kind(f, JV_FIND_SLOW_OP, JV_DCAT_BN));
    const jv_dfinding *lay = find_kind(f, JV_FIND_CONV_LAYOUT, JV_DCAT_CONV);
    CHECK(lay && lay->reco == JV_RECO_CHANNELS_LAST && lay->gain_us == 300 && f->conv.finding == (int)(lay - f->v));
    const jv_dfinding *bw = find_kind(f, JV_FIND_BN_BANDWIDTH, JV_DCAT_BN);
    CHECK(bw && bw->reco == JV_RECO_FOLD_OR_COMPILE && near(bw->gain_us, 1425) && near(bw->share, 1425 / 100.1));
    /* ranked by saving */
    CHECK(f->nrank == 3 && f->v[f->rank[0]].kind == JV_FIND_SLOW_OP && f->v[f->rank[1]].kind == JV_FIND_BN_BANDWIDTH &&
          f->v[f->rank[2]].kind == JV_FIND_CONV_LAYOUT);
    /* no timeline: the ranking is the five categories (each >= 1 % of kernel time), the recommendations the
     * findings */
    CHECK(!f->tl.timeline_first && f->nranking == 5 && !f->ranking[0].is_timeline &&
          f->ranking[0].item == JV_DCAT_GEMM);
    CHECK(f->nrecs == 3 && !f->recs[0].is_timeline && f->recs[0].item == f->rank[0] && f->recs[2].item == f->rank[2]);

    /* a timeline at 80 % computation: its items rank first; idle 12 % and exposed memcpy 3 % are recommended
     * (>= 1 % while computation < 95 %), exposed communication 0.5 % is not */
    d.tl.total = 1000000, d.tl.computation = 800000, d.tl.idle = 120000, d.tl.exposed_memcpy = 30000;
    d.tl.exposed_comm = 5000;
    CHECK(jv_findings_compute(&d, &err) == JV_OK);
    f = jv_digest_findings(&d);
    CHECK(f->tl.timeline_first && near(f->tl.computation_pct, 80) && near(f->tl.share[JV_TL_IDLE], 12));
    CHECK(f->tl.recommend[JV_TL_IDLE] && f->tl.recommend[JV_TL_EXPOSED_MEMCPY] && !f->tl.recommend[JV_TL_EXPOSED_COMM]);
    CHECK(f->nranking == 7 && f->ranking[0].is_timeline && f->ranking[0].item == JV_TL_IDLE &&
          f->ranking[1].item == JV_TL_EXPOSED_MEMCPY && !f->ranking[2].is_timeline);
    /* one list by projected saving (µs): the findings (3200, 1425, 300) before idle (120) and memcpy (30), even
     * with the timeline ranked first; each with its confidence */
    CHECK(f->nrecs == 5 && !f->recs[0].is_timeline && f->recs[3].is_timeline && f->recs[3].item == JV_TL_IDLE &&
          f->recs[4].is_timeline && f->recs[4].item == JV_TL_EXPOSED_MEMCPY);
    for (int i = 0; i + 1 < f->nrecs; i++)
        CHECK(f->recs[i].gain_us >= f->recs[i + 1].gain_us);
    CHECK(near(f->recs[3].gain_us, 120) && f->recs[3].conf == JV_CONF_MEDIUM);
    CHECK(f->recs[0].conf == JV_CONF_LOW && f->v[f->recs[0].item].kind == JV_FIND_SLOW_OP);
    /* at 97 % computation the timeline goes after the kernel items, and only items >= 5 % are recommended */
    d.tl.computation = 970000, d.tl.idle = 60000, d.tl.exposed_memcpy = 30000;
    CHECK(jv_findings_compute(&d, &err) == JV_OK);
    f = jv_digest_findings(&d);
    CHECK(!f->tl.timeline_first && f->tl.recommend[JV_TL_IDLE] && !f->tl.recommend[JV_TL_EXPOSED_MEMCPY]);
    CHECK(f->nrecs == 4 && !f->recs[0].is_timeline && f->recs[3].is_timeline && f->recs[3].item == JV_TL_IDLE);
    CHECK(f->nranking == 7 && !f->ranking[0].is_timeline && f->ranking[5].is_timeline && f->ranking[6].is_timeline);
    jv_digest_free(&d);
}

/* memcpy / memset: which events are transfers (the event category first, then the runtime's names) */
static void test_transfer_classes(void) {
    CHECK(jv_transfer_of(JV_K_MEMCPY, "Memcpy HtoD (Pageable -> Device)") == JV_XFER_HTOD);
    CHECK(jv_transfer_of(JV_K_MEMCPY, "Memcpy DtoH (Device -> Pinned)") == JV_XFER_DTOH);
    CHECK(jv_transfer_of(JV_K_MEMCPY, "Memcpy DtoD (Device -> Device)") == JV_XFER_DTOD);
    CHECK(jv_transfer_of(JV_K_MEMCPY, "Memcpy PtoP (Device -> Device)") == JV_XFER_PTOP);
    CHECK(jv_transfer_of(JV_K_MEMCPY, "") == JV_XFER_MEMCPY && jv_transfer_of(JV_K_MEMCPY, NULL) == JV_XFER_MEMCPY);
    CHECK(jv_transfer_of(JV_K_MEMSET, "Memset (Device)") == JV_XFER_MEMSET);
    /* AMD's runtime blit kernels and rocprof's copy records are kernels by category */
    CHECK(jv_transfer_of(JV_K_KERNEL, "__amd_rocclr_copyBuffer.kd") == JV_XFER_DTOD);
    CHECK(jv_transfer_of(JV_K_KERNEL, "__amd_rocclr_fillBufferAligned.kd") == JV_XFER_MEMSET);
    CHECK(jv_transfer_of(JV_K_KERNEL, "CopyHostToDevice") == JV_XFER_HTOD);
    CHECK(jv_transfer_of(JV_K_KERNEL, "CopyDeviceToHost") == JV_XFER_DTOH);
    /* kernels that copy are kernels: direct_copy_kernel, CatArrayBatchedCopy, triton ..._to_copy, a routing memset */
    CHECK(jv_transfer_of(JV_K_KERNEL, "void at::native::elementwise_kernel<128, 4, direct_copy_kernel_cuda>") ==
          JV_XFER_NONE);
    CHECK(jv_transfer_of(JV_K_KERNEL, "void at::native::CatArrayBatchedCopy<float>") == JV_XFER_NONE);
    CHECK(jv_transfer_of(JV_K_KERNEL, "triton_poi_fused__to_copy_1") == JV_XFER_NONE);
    CHECK(jv_transfer_of(JV_K_KERNEL, "_combined_routing_memset") == JV_XFER_NONE);
    CHECK(jv_transfer_of(JV_K_CPU_OP, "Memcpy HtoD") == JV_XFER_NONE); /* not a GPU event */
    CHECK(jv_transfer_is_host(JV_XFER_HTOD) && jv_transfer_is_host(JV_XFER_DTOH) && !jv_transfer_is_host(JV_XFER_DTOD));
    /* "mostly": the transfers together at least half of the time, the largest kind named */
    double t[JV_XFER_COUNT] = {0};
    CHECK(jv_transfer_mostly(t) == JV_XFER_NONE);
    t[JV_XFER_NONE] = 10, t[JV_XFER_MEMSET] = 4, t[JV_XFER_DTOD] = 5;
    CHECK(jv_transfer_mostly(t) == JV_XFER_NONE); /* 9 of 19 */
    t[JV_XFER_HTOD] = 2;
    CHECK(jv_transfer_mostly(t) == JV_XFER_DTOD); /* 11 of 21 */
    t[JV_XFER_NONE] = 0.9;                        /* a memset alone is a memset */
    t[JV_XFER_DTOD] = t[JV_XFER_HTOD] = 0;
    CHECK(jv_transfer_mostly(t) == JV_XFER_MEMSET);
}

/* a digest of rows rs through jv_digest_finish (no trace, tree or timeline) */
static int digest_of(jv_digest *d, const jv_hw *hw, const jv_drow *rs, int n) {
    jv_err err;
    jv_err_clear(&err);
    jv_trace tr;
    memset(&tr, 0, sizeof tr);
    if (jv_digest_init(d, "synthetic.json", &tr, hw, "test", &err) != JV_OK) return 0;
    for (int i = 0; i < n; i++)
        if (jv_digest_add_row(d, &rs[i], &err) != JV_OK) return 0;
    jv_tree t;
    memset(&t, 0, sizeof t);
    jv_perf_table pt;
    memset(&pt, 0, sizeof pt);
    jv_timeline_opts to = {0, 0, 0};
    jv_timelines tls;
    if (jv_timelines_compute(&tr, &t, &to, &tls) != JV_OK) return 0; /* an empty trace: nothing allocated */
    return jv_digest_finish(d, &tr, &t, &pt, &tls, &err) == JV_OK && jv_digest_findings(d);
}

/* an elementwise row of count calls moving bytes each in time_us, at pct % of its (memory) roofline */
static jv_drow ew_row(const char *op, double time_us, uint32_t count, double bytes, double pct, double percent) {
    jv_drow r = row(op, JV_DCAT_EW, JV_FAM_BINARY, time_us, count, time_us / count * pct / 100, JV_BOUND_MEMORY);
    r.bytes = bytes;
    r.flops = bytes / 8;
    r.tbs = count * bytes / (time_us * 1e-6) / 1e12;
    r.percent = percent;
    return r;
}

static void test_transfer_rows(void) {
    jv_err err;
    jv_err_clear(&err);
    jv_hw hw;
    CHECK(jv_hw_resolve("H100", &hw, &err) == JV_OK);
    jv_drow rs[4];
    /* a pageable HtoD copy_: 1 call, 1.2 GB in 8.1 ms (0.15 TB/s); the perf table gave it no roofline */
    rs[0] = ew_row("aten::copy_", 8100, 1, 1.2e9, 0, 30);
    rs[0].roof_us = rs[0].pct = NAN;
    rs[0].bound = JV_BOUND_NONE;
    kernel(&rs[0], "Memcpy HtoD (Pageable -> Device)", 0, 8100);
    rs[0].transfer = JV_XFER_HTOD, rs[0].transfer_us = 8100;
    /* a DtoD copy_ that still carries a roofline at 1 % (the row rule alone must keep it out) */
    rs[1] = ew_row("aten::copy_", 4000, 40, 8e6, 1, 15);
    kernel(&rs[1], "Memcpy DtoD (Device -> Device)", 0, 4000);
    rs[1].transfer = JV_XFER_DTOD, rs[1].transfer_us = 4000;
    rs[1].uid = 2;
    /* 10 adds of 8 MiB in 40 µs: 2.1 TB/s, the baseline (80 MiB, 10 calls) */
    rs[2] = ew_row("aten::add", 40, 10, 8388608, 60, 1);
    kernel(&rs[2], "vectorized_elementwise_kernel", 0, 40);
    rs[2].uid = 3;
    /* a memory-bound op at 10 % of roofline: a kernel issue against a baseline */
    rs[3] = ew_row("aten::gelu", 3000, 10, 4e8, 10, 20);
    kernel(&rs[3], "gelu_kernel", 0, 3000);
    rs[3].uid = 4;
    jv_digest d;
    CHECK(digest_of(&d, &hw, rs, 4));
    if (!d.findings) {
        jv_digest_free(&d);
        return;
    }
    const jv_dbaseline *b = &d.baseline;
    CHECK(b->state == JV_BASE_OK && b->rows == 1 && b->calls == 10 && near(b->tbs, 83886080 / 40e-6 / 1e12));
    CHECK(b->transfer_rows == 2 && b->transfer_us == 12100 && b->small_rows == 0);
    int ih = row_of(&d, "aten::copy_"), ig = row_of(&d, "aten::gelu");
    CHECK(ih >= 0 && ig >= 0);
    const jv_dfindings *f = jv_digest_findings(&d);
    for (size_t i = 0; i < d.nrows; i++) {
        const jv_drow *r = &d.rows[i];
        if (r->transfer == JV_XFER_NONE) continue;
        /* no roofline, no verdict, no share of the category's efficiency, no projection, no finding */
        CHECK(!r->eval.has_roof && r->eval.judgement == JV_JUDGE_NONE && isnan(r->eval.pct) && isnan(r->eval.vs_base));
        CHECK(!strncmp(r->eval.verdict, "not judged: ", 12));
        for (int k = 0; k < f->cat[JV_DCAT_EW].nsig; k++)
            CHECK(f->cat[JV_DCAT_EW].sig[k].row != (uint32_t)i);
        for (size_t k = 0; k < f->n; k++)
            CHECK(f->v[k].kind != JV_FIND_SLOW_OP || f->v[k].row != (int32_t)i);
    }
    CHECK(!strcmp(d.rows[0].eval.verdict, "not judged: a host transfer"));
    CHECK(!strcmp(d.rows[1].eval.verdict, "not judged: a memcpy"));
    CHECK(d.rows[ig].eval.judgement == JV_JUDGE_KERNEL && near(d.rows[ig].eval.vs_base, d.rows[ig].tbs / b->tbs));
    const jv_dfinding *slow = find_kind(f, JV_FIND_SLOW_OP, JV_DCAT_EW);
    CHECK(slow && slow->row == ig && f->cat[JV_DCAT_EW].nsig == 2); /* gelu and the add: the copies are out */
    jv_digest_free(&d);

    /* too few large ops: 7 adds of 8 MiB (under 8 calls), then 20 adds of 2 MiB (40 MiB, under 64): no baseline,
     * no vs baseline and no hardware-limited verdict; memcpy-only add/mul/copy_ rows: no ops at all */
    rs[2] = ew_row("aten::add", 28, 7, 8388608, 60, 1);
    kernel(&rs[2], "vectorized_elementwise_kernel", 0, 28);
    CHECK(digest_of(&d, &hw, &rs[2], 2));
    CHECK(d.baseline.state == JV_BASE_TOO_FEW && isnan(d.baseline.tbs) && d.baseline.calls == 7);
    for (size_t i = 0; i < d.nrows; i++)
        CHECK(isnan(d.rows[i].eval.vs_base) && d.rows[i].eval.judgement != JV_JUDGE_HW_LIMITED);
    jv_digest_free(&d);
    rs[2] = ew_row("aten::mul", 80, 20, 2097152, 60, 1);
    kernel(&rs[2], "vectorized_elementwise_kernel", 0, 80);
    CHECK(digest_of(&d, &hw, &rs[2], 1));
    CHECK(d.baseline.state == JV_BASE_TOO_FEW && isnan(d.baseline.tbs) && d.baseline.rows == 1);
    jv_digest_free(&d);
    rs[2] = ew_row("aten::add", 8, 2, 4096, 1, 1); /* small adds only: none moves 1 MiB */
    kernel(&rs[2], "vectorized_elementwise_kernel", 0, 8);
    CHECK(digest_of(&d, &hw, &rs[2], 1));
    CHECK(d.baseline.state == JV_BASE_TOO_FEW && d.baseline.small_rows == 1 && d.baseline.rows == 0);
    jv_digest_free(&d);
    CHECK(digest_of(&d, &hw, rs, 2)); /* only the copies */
    CHECK(d.baseline.state == JV_BASE_NO_OPS && isnan(d.baseline.tbs) && d.baseline.transfer_rows == 2);
    jv_digest_free(&d);
}

/* the whole model on a fixture: ResNet-50 training on an H200 (bf16 autocast, channels_last) */
static void test_fixture(const char *path) {
    jv_trace tr;
    jv_tree t;
    jv_perf_table pt;
    jv_timelines tls;
    jv_digest d;
    if (!jv_test_digest(path, "H200", &tr, &t, &pt, &tls, &d)) return;
    const jv_dfindings *f = jv_digest_findings(&d);
    CHECK(f && f->nrows == d.nrows && f->nfusion == d.nfusion);
    if (f) {
        /* every batch norm row is typed: an implementation and a dtype from its call */
        int bn = 0, known = 0;
        for (size_t i = 0; i < d.nrows; i++)
            if (d.rows[i].cat == JV_DCAT_BN) {
                bn++;
                known += f->rows[i].impl != JV_IMPL_UNKNOWN && f->rows[i].dtype != JV_DT_UNKNOWN;
            }
        CHECK(bn > 0 && known == bn && f->bn.rows == bn);
        /* channels_last convolutions on NHWC kernels, no conversions: no layout finding */
        CHECK(f->conv.channels_last > 0 && f->conv.nchw == 0 && f->conv.nhwc_kernels && f->conv.finding < 0);
        /* bf16 batch norm runs the native kernels, below the baseline: the bandwidth finding covers its ops */
        CHECK(f->bn.native == bn && f->bn.bf16 == bn && f->bn.below_base && f->bn.finding >= 0);
        CHECK(!find_kind(f, JV_FIND_SLOW_OP, JV_DCAT_BN) && find_kind(f, JV_FIND_SLOW_OP, JV_DCAT_CONV));
        /* each finding points at what it is about; the ranking holds the findings with a saving, largest first */
        size_t with_gain = 0;
        for (size_t i = 0; i < f->n; i++) {
            const jv_dfinding *x = &f->v[i];
            with_gain += x->gain_us > 0;
            if (x->kind == JV_FIND_SLOW_OP)
                CHECK(x->row >= 0 && (size_t)x->row < d.nrows && d.rows[x->row].cat == x->cat &&
                      d.rows[x->row].eval.eff < 50 && f->cat[x->cat].sig[x->sig].row == (uint32_t)x->row);
            if (x->kind == JV_FIND_FUSION) CHECK(x->fusion >= 0 && (size_t)x->fusion < d.nfusion);
        }
        CHECK(f->nrank == with_gain);
        for (size_t i = 1; i < f->nrank; i++)
            CHECK(f->v[f->rank[i - 1]].gain_us >= f->v[f->rank[i]].gain_us);
    }
    jv_test_digest_free(&tr, &t, &pt, &tls, &d);
}

int main(int argc, char **argv) {
    test_synthetic();
    test_transfer_classes();
    test_transfer_rows();
    if (argc > 1) test_fixture(argv[1]);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
