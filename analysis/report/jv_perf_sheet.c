/* jv_perf_sheet: the perf sheets of the op instances (model/jv_perf.c): unified_perf_summary and the family
 * sheets, with roofline columns when a GPU is known. */
#include "jv_perf_sheet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"
#include "jv_category.h"
#include "jv_opcall.h"
#include "jv_output.h"
#include "jv_pyrepr.h"
#include "jv_sort.h"
#include "jv_stats.h"
#include "jv_strbuf.h"

#define US(ns) ((double)(ns) / 1e3)

/* ---------- per-instance metrics ---------- */

typedef struct {
    double gflops, mb, fpb; /* NaN when unknown */
    double tbs, tflops;     /* per instance */
    double roof_us, pct;    /* NaN without a roofline */
    const char *bound;      /* NULL without a roofline */
    char spec[32];
} inst_metrics;

static void metrics_of(const jv_perf_table *pt, const jv_perf_inst *in, const jv_hw *hw, inst_metrics *m) {
    m->gflops = m->mb = m->fpb = m->tbs = m->tflops = m->roof_us = m->pct = NAN;
    m->bound = NULL;
    m->spec[0] = 0;
    if (in->model < 0 || !pt->models[in->model].ok) return;
    const jv_perf *p = &pt->models[in->model].perf;
    double t_us = US(in->busy_ns);
    m->gflops = p->flops / 1e9;
    if (t_us > 0) m->tflops = (m->gflops / 1e3) / (t_us / 1e6);
    if (!isnan(p->bytes)) {
        m->mb = p->bytes / (1024.0 * 1024.0);
        if (p->bytes > 0) m->fpb = p->flops / p->bytes;
        if (t_us > 0) m->tbs = (p->bytes / 1e12) / (t_us / 1e6);
    }
    jv_perf_compute_spec(p, m->spec, sizeof m->spec);
    if (!hw || !m->spec[0]) return;
    double peak = jv_hw_peak(hw, m->spec);
    if (isnan(peak) || isnan(p->bytes) || !(p->flops > 0)) return;
    double cu = p->flops / (peak * 1e12) * 1e6, mu = p->bytes / (hw->mem_bw_gbps * 1e9) * 1e6;
    m->roof_us = cu > mu ? cu : mu;
    m->bound = cu >= mu ? "COMPUTE_BOUND" : "MEMORY_BOUND";
    if (t_us > 0) m->pct = m->roof_us / t_us * 100;
}

/* ---------- grouping helpers ---------- */

typedef struct {
    const jv_trace *tr;
    const jv_perf_table *pt;
    const char **cat; /* per instance */
    char **ptext;     /* per model: params text (family sheets) */
} gctx;

static uint32_t inst_uid(const jv_trace *tr, const jv_perf_inst *in) {
    return tr->ev[in->kernel != JV_NONE32 ? in->kernel : in->ev].uid;
}

static uint32_t inst_sig(const jv_trace *tr, const jv_perf_inst *in) {
    const jv_event *e = &tr->ev[in->ev];
    return e->kind == JV_K_CPU_OP || e->kind == JV_K_USER_ANNOT ? tr->ops[e->aux].sig : 0;
}

static const char *or_unknown(const char *s) {
    return s && *s ? s : "Unknown";
}

/* orders instances by the unified grouping key (name, synthetic kernel,
 * category, process, label, thread, args); 0 = same group */
static int unified_key_cmp(const gctx *g, uint32_t x, uint32_t y) {
    const jv_trace *tr = g->tr;
    const jv_perf_inst *ix = &g->pt->inst[x], *iy = &g->pt->inst[y];
    const jv_event *ex = &tr->ev[ix->ev], *ey = &tr->ev[iy->ev];
    if (ex->name != ey->name) return ex->name < ey->name ? -1 : 1;
    uint32_t kx = ix->kernel == JV_NONE32 ? 0 : tr->ev[ix->kernel].name + 1;
    uint32_t ky = iy->kernel == JV_NONE32 ? 0 : tr->ev[iy->kernel].name + 1;
    if (kx != ky) return kx < ky ? -1 : 1;
    int c = strcmp(g->cat[x], g->cat[y]);
    if (c) return c;
    if (ex->thread != ey->thread) {
        const jv_thread *tx = &tr->threads[ex->thread], *ty = &tr->threads[ey->thread];
        if ((c = strcmp(or_unknown(jv_trace_process_name(tr, tx->pid)),
                        or_unknown(jv_trace_process_name(tr, ty->pid)))))
            return c;
        if ((c = strcmp(or_unknown(jv_trace_process_labels(tr, tx->pid)),
                        or_unknown(jv_trace_process_labels(tr, ty->pid)))))
            return c;
        if ((c = strcmp(or_unknown(jv_trace_str(tr, tx->name)), or_unknown(jv_trace_str(tr, ty->name))))) return c;
    }
    uint32_t sx = inst_sig(tr, ix), sy = inst_sig(tr, iy);
    return (sx > sy) - (sx < sy);
}

static int cmp_unified(const void *a, const void *b, void *ctx) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = unified_key_cmp(ctx, x, y);
    return c ? c : (x > y) - (x < y);
}

typedef struct {
    size_t begin, n; /* range in the sorted instance index array */
    double ksum;     /* Kernel Time (µs)_sum */
    uint32_t uid_first;
    uint32_t first; /* instance with the smallest uid */
} group;

static int cmp_group(const void *a, const void *b) {
    const group *x = a, *y = b;
    if (x->ksum != y->ksum) return x->ksum > y->ksum ? -1 : 1;
    return (x->uid_first > y->uid_first) - (x->uid_first < y->uid_first);
}

static void finish_group(const gctx *g, const uint32_t *idx, group *gr) {
    gr->ksum = 0;
    gr->uid_first = UINT32_MAX;
    for (size_t k = gr->begin; k < gr->begin + gr->n; k++) {
        const jv_perf_inst *in = &g->pt->inst[idx[k]];
        gr->ksum += US(in->busy_ns);
        uint32_t u = inst_uid(g->tr, in);
        if (u < gr->uid_first) gr->uid_first = u, gr->first = idx[k];
    }
}

/* a raw JSON args text in Python form (tuples or lists); *s is malloc'd (NULL
 * when the form could not be made: the raw text is returned then) */
static const char *pyargs_text(const jv_trace *tr, uint32_t raw, int lists, char **s) {
    *s = NULL;
    if (!raw) return "";
    const char *txt = jv_trace_str(tr, raw);
    size_t n = jv_intern_len(&tr->strings, raw);
    jv_status st = lists ? jv_pyrepr_list(txt, n, s) : jv_pyrepr(txt, n, s);
    return st == JV_OK ? *s : txt;
}

static void sheet_pyargs(jv_sheet *o, const jv_trace *tr, uint32_t raw, int lists) {
    if (!raw) {
        jv_sheet_empty(o);
        return;
    }
    char *s;
    jv_sheet_str(o, pyargs_text(tr, raw, lists, &s));
    free(s);
}

/* statistics columns "mean, median, std, min, max" (order as given by which) */
static void put_stats(jv_sheet *o, const jv_stats *s, const char *which) {
    for (const char *w = which; *w; w++) {
        switch (*w) {
        case 'a': jv_sheet_num(o, s->mean); break;
        case 'm': jv_sheet_num(o, s->median); break;
        case 's': jv_sheet_num(o, s->std); break;
        case 'l': jv_sheet_num(o, s->min); break;
        case 'h': jv_sheet_num(o, s->max); break;
        case 'S': jv_sheet_num(o, s->sum); break;
        }
    }
}

/* collect per-instance values of a group; kind: 0 kernel µs, 1 cpu µs, 2 TB/s, 3 TFLOPS/s, 4 pct roofline */
static jv_stats group_stats(const gctx *g, const uint32_t *idx, const group *gr, const jv_hw *hw, int kind, int ddof,
                            double *buf) {
    for (size_t k = 0; k < gr->n; k++) {
        const jv_perf_inst *in = &g->pt->inst[idx[gr->begin + k]];
        inst_metrics m;
        switch (kind) {
        case 0: buf[k] = US(in->busy_ns); break;
        case 1: buf[k] = US(g->tr->ev[in->ev].dur); break;
        default: metrics_of(g->pt, in, hw, &m); buf[k] = kind == 2 ? m.tbs : kind == 3 ? m.tflops : m.pct;
        }
    }
    return jv_stats_of(buf, gr->n, ddof);
}

static int kernel_summary_of(const gctx *g, const uint32_t *idx, const group *gr, char **full, char **trunc) {
    jv_klist *rows = malloc((gr->n ? gr->n : 1) * sizeof *rows);
    if (!rows) return 0;
    for (size_t k = 0; k < gr->n; k++) {
        const jv_perf_inst *in = &g->pt->inst[idx[gr->begin + k]];
        rows[k].ev = g->pt->kernels + in->kbegin;
        rows[k].n = in->kn;
    }
    int ok = jv_kernel_details(g->tr, rows, gr->n, 1, full, trunc);
    free(rows);
    return ok;
}

/* params of model mi (parsed again: cheap, once per output group) */
static int params_of(const jv_trace *tr, const jv_perf_model *m, jv_params *ps) {
    jv_opcall call;
    jv_err e;
    jv_err_clear(&e);
    ps->n = 0;
    if (jv_perf_call_of(tr, m->name, m->sig, &call, &e) != JV_OK) return 0;
    jv_desc d;
    int ok = jv_desc_parse(&call, &d, &e) == JV_OK;
    if (ok) jv_desc_params(&d, ps);
    jv_opcall_free(&call);
    return ok;
}

/* a param value inside a Python dict: strings quoted, the rest as printed */
static int param_is_literal(const jv_param *p) {
    const char *t = p->text;
    return p->is_num || t[0] == '(' || t[0] == '[' || t[0] == '{' || !strcmp(t, "True") || !strcmp(t, "False") ||
           !strcmp(t, "None");
}

/* ---------- unified_perf_summary ---------- */

/* what a unified_perf_summary row's cells were computed from, handed on to the digest */
typedef struct {
    const char *name, *params;
    const char *args[4];   /* Input Dims, Input type, Input Strides, Concrete Inputs (Python repr) */
    const inst_metrics *m; /* of the example instance */
    const jv_stats *kt, *tbs, *tfl, *pct;
    double percent;
} urow;

/* the row of group gr for the digest: strings copied into it */
static jv_status digest_row(const gctx *g, const uint32_t *idx, const group *gr, const urow *u, jv_digest *dg,
                            jv_err *err) {
    const jv_trace *tr = g->tr;
    const jv_perf_table *pt = g->pt;
    const jv_perf_inst *in = &pt->inst[gr->first];
    const jv_perf_model *pm = in->model >= 0 && pt->models[in->model].ok ? &pt->models[in->model] : NULL;
    const inst_metrics *m = u->m;
    const jv_stats *kt = u->kt;
    jv_drow r;
    memset(&r, 0, sizeof r);
    r.name = jv_digest_str(dg, u->name);
    r.op_name = jv_digest_str(dg, jv_trace_str(tr, tr->ev[in->ev].name));
    r.op_category = jv_digest_str(dg, g->cat[gr->first]);
    r.family = jv_digest_str(dg, pm ? jv_family_get(pm->family)->name : "");
    r.family_id = pm ? pm->family : -1;
    r.cat = jv_dcat_of(r.family_id, r.op_category, r.op_name);
    r.bwd = pm ? pm->bwd : 0;
    r.synthetic = in->kernel != JV_NONE32;
    r.dims = jv_digest_str(dg, u->args[0]);
    r.types = jv_digest_str(dg, u->args[1]);
    r.strides = jv_digest_str(dg, u->args[2]);
    r.concrete = jv_digest_str(dg, u->args[3]);
    r.params = jv_digest_str(dg, u->params);
    /* the call's first arguments, typed: read from the trace's args as the perf model reads them (never from
     * the Python text above); a call whose args are not the JSON lists the profiler writes has none */
    jv_opcall call;
    jv_err cerr;
    jv_err_clear(&cerr);
    jv_status cs = jv_perf_call_of(tr, tr->ev[in->ev].name, inst_sig(tr, in), &call, &cerr);
    if (cs == JV_OK) {
        r.noperands = call.nargs < JV_DROW_OPERANDS ? call.nargs : JV_DROW_OPERANDS;
        for (int k = 0; k < r.noperands; k++) {
            r.operands[k].kind = call.args[k].kind;
            r.operands[k].t = call.args[k].t;
        }
    }
    r.type0 = jv_digest_str(dg, cs == JV_OK && call.nargs > 0 ? call.args[0].type : "");
    jv_opcall_free(&call);
    if (cs == JV_ERR_NOMEM) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
    r.uid = gr->uid_first;
    r.count = (uint32_t)gr->n;
    r.time_us = kt->sum;
    r.mean_us = kt->mean;
    r.median_us = kt->median;
    r.min_us = kt->min;
    r.max_us = kt->max;
    r.flops = pm ? pm->perf.flops : NAN;
    r.bytes = pm ? pm->perf.bytes : NAN;
    r.fpb = m->fpb;
    r.tbs = u->tbs->mean;
    r.tflops = u->tfl->mean;
    snprintf(r.spec, sizeof r.spec, "%s", m->spec);
    r.roof_us = m->roof_us;
    r.pct = u->pct->mean;
    r.bound = m->bound ? m->bound : "";
    r.percent = u->percent;
    r.model = pm ? in->model : -1;
    r.replay_op = -1;
    /* distinct kernels by total time; layout conversions among them */
    jv_map slot;
    jv_map_init(&slot);
    jv_dkernel *ks = NULL;
    uint32_t *knames = NULL;
    size_t nk = 0, capk = 0, capn = 0;
    jv_status s = JV_OK;
    for (size_t k = gr->begin; k < gr->begin + gr->n && s == JV_OK; k++) {
        const jv_perf_inst *ik = &pt->inst[idx[k]];
        for (uint32_t q = 0; q < ik->kn && s == JV_OK; q++) {
            const jv_event *ke = &tr->ev[pt->kernels[ik->kbegin + q]];
            uint32_t sl;
            if (!jv_map_get(&slot, ke->name, &sl)) {
                if ((s = JV_RESERVE(ks, capk, nk + 1)) != JV_OK || (s = JV_RESERVE(knames, capn, nk + 1)) != JV_OK)
                    break;
                sl = (uint32_t)nk++;
                memset(&ks[sl], 0, sizeof ks[sl]);
                knames[sl] = ke->name;
                ks[sl].layout = jv_is_layout_kernel(jv_trace_str(tr, ke->name));
                if ((s = jv_map_put(&slot, ke->name, sl)) != JV_OK) break;
            }
            ks[sl].total_us += US(ke->dur);
            ks[sl].count++;
            if (ks[sl].layout) r.layout_us += US(ke->dur);
        }
    }
    jv_map_free(&slot);
    /* the largest JV_DROW_KERNELS, by total time (selection) */
    r.nkernels_all = (int)nk;
    for (int k = 0; s == JV_OK && k < JV_DROW_KERNELS && (size_t)k < nk; k++) {
        size_t best = (size_t)k;
        for (size_t q = (size_t)k + 1; q < nk; q++)
            if (ks[q].total_us > ks[best].total_us) best = q;
        jv_dkernel t = ks[k];
        ks[k] = ks[best];
        ks[best] = t;
        uint32_t tn = knames[k];
        knames[k] = knames[best];
        knames[best] = tn;
        r.kernels[k] = ks[k];
        r.kernels[k].name = jv_digest_str(dg, jv_trace_str(tr, knames[k]));
        if (!r.kernels[k].name) s = JV_ERR_NOMEM;
        r.nkernels = k + 1;
    }
    free(ks);
    free(knames);
    if (s != JV_OK || !r.name || !r.op_name || !r.op_category || !r.family || !r.dims || !r.types || !r.strides ||
        !r.concrete || !r.params || !r.type0)
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
    return jv_digest_add_row(dg, &r, err);
}

static jv_status write_unified(const gctx *g, const jv_hw *hw, jv_book *book, jv_digest *dg, jv_err *err) {
    const jv_trace *tr = g->tr;
    const jv_perf_table *pt = g->pt;
    size_t n = pt->ninst;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    group *groups = malloc((n ? n : 1) * sizeof *groups);
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!idx || !groups || !buf) {
        free(idx);
        free(groups);
        free(buf);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (unified_perf_summary)");
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    jv_status s = jv_sort_stable(idx, n, sizeof *idx, cmp_unified, (void *)g);
    size_t ng = 0;
    for (size_t i = 0; i < n && s == JV_OK;) {
        size_t j = i + 1;
        while (j < n && !unified_key_cmp(g, idx[i], idx[j]))
            j++;
        groups[ng].begin = i;
        groups[ng].n = j - i;
        finish_group(g, idx, &groups[ng]);
        ng++;
        i = j;
    }
    qsort(groups, ng, sizeof *groups, cmp_group);
    double total = 0, cum = 0;
    for (size_t i = 0; i < ng; i++)
        total += groups[i].ksum;
    jv_sheet o;
    if (s == JV_OK)
        s = jv_sheet_open(&o, book, "unified_perf_summary", err);
    else
        jv_err_set(err, s, __FILE__, __LINE__, "out of memory (unified_perf_summary)");
    if (s == JV_OK) {
        static const char *const h1[] = {"name",
                                         "op category",
                                         "process_name",
                                         "process_label",
                                         "thread_name",
                                         "Input Dims",
                                         "Input type",
                                         "Input Strides",
                                         "Concrete Inputs",
                                         "ex_UID",
                                         "operation_count",
                                         "total_duration_us",
                                         "mean_duration_us",
                                         "std_duration_us",
                                         "GFLOPS",
                                         "Data Moved (MB)",
                                         "FLOPS/Byte",
                                         "Compute Spec",
                                         NULL};
        for (const char *const *h = h1; *h; h++)
            jv_sheet_str(&o, *h);
        if (hw) jv_sheet_str(&o, "Roofline Bound");
        static const char *const h2[] = {"TB/s_mean",
                                         "TB/s_std",
                                         "TFLOPS/s_mean",
                                         "TFLOPS/s_std",
                                         "Kernel Time (µs)_mean",
                                         "Kernel Time (µs)_std",
                                         "Kernel Time (µs)_sum",
                                         "duration_us_median",
                                         "duration_us_min",
                                         "duration_us_max",
                                         "TB/s_median",
                                         "TB/s_min",
                                         "TB/s_max",
                                         "TFLOPS/s_median",
                                         "TFLOPS/s_min",
                                         "TFLOPS/s_max",
                                         NULL};
        for (const char *const *h = h2; *h; h++)
            jv_sheet_str(&o, *h);
        if (hw) {
            static const char *const h3[] = {"Roofline Time (µs)_first",
                                             "Pct Roofline_mean",
                                             "Pct Roofline_median",
                                             "Pct Roofline_std",
                                             "Pct Roofline_min",
                                             "Pct Roofline_max",
                                             NULL};
            for (const char *const *h = h3; *h; h++)
                jv_sheet_str(&o, *h);
        }
        static const char *const h4[] = {"Kernel Time (µs)_median",
                                         "Kernel Time (µs)_min",
                                         "Kernel Time (µs)_max",
                                         "kernel_details_summary",
                                         "trunc_kernel_details",
                                         "perf_params",
                                         "has_perf_model",
                                         "Percentage (%)",
                                         "Cumulative Percentage (%)",
                                         NULL};
        for (const char *const *h = h4; *h; h++)
            jv_sheet_str(&o, *h);
        if (hw) jv_sheet_str(&o, "Efficiency Band");
        jv_sheet_end(&o);
        for (size_t gi = 0; gi < ng; gi++) {
            const group *gr = &groups[gi];
            const jv_perf_inst *in = &pt->inst[gr->first];
            const jv_event *e = &tr->ev[in->ev];
            const jv_thread *th = &tr->threads[e->thread];
            char *nm = NULL;
            if (in->kernel != JV_NONE32) {
                jv_strbuf sb = JV_STRBUF_INIT;
                if (!jv_sb_printf(&sb, "%s->%s (Synthetic Op)", jv_trace_str(tr, e->name),
                                  jv_trace_str(tr, tr->ev[in->kernel].name)) ||
                    !(nm = jv_sb_take(&sb))) {
                    s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory (unified_perf_summary)");
                    break;
                }
            }
            const char *row_name = nm ? nm : jv_trace_str(tr, e->name);
            jv_sheet_str(&o, row_name);
            jv_sheet_str(&o, g->cat[gr->first]);
            jv_sheet_str(&o, or_unknown(jv_trace_process_name(tr, th->pid)));
            jv_sheet_str(&o, or_unknown(jv_trace_process_labels(tr, th->pid)));
            jv_sheet_str(&o, or_unknown(jv_trace_str(tr, th->name)));
            const jv_sig *sg = &tr->sigs[inst_sig(tr, in)];
            const uint32_t raw[4] = {sg->dims, sg->types, sg->strides, sg->concrete};
            urow u = {.name = row_name};
            char *atmp[4];
            for (int k = 0; k < 4; k++) { /* converted once: for the sheet and the digest */
                u.args[k] = pyargs_text(tr, raw[k], 0, &atmp[k]);
                if (raw[k])
                    jv_sheet_str(&o, u.args[k]);
                else
                    jv_sheet_empty(&o);
            }
            jv_sheet_int(&o, gr->uid_first);
            jv_sheet_int(&o, (long long)gr->n);
            jv_stats cpu = group_stats(g, idx, gr, hw, 1, 1, buf);
            jv_sheet_num(&o, cpu.sum);
            jv_sheet_num(&o, cpu.mean);
            jv_sheet_num(&o, cpu.std);
            inst_metrics m;
            metrics_of(pt, in, hw, &m);
            jv_sheet_num(&o, m.gflops);
            jv_sheet_num(&o, m.mb);
            jv_sheet_num(&o, m.fpb);
            jv_sheet_str(&o, m.spec);
            if (hw) jv_sheet_str(&o, m.bound ? m.bound : "");
            jv_stats tbs = group_stats(g, idx, gr, hw, 2, 1, buf);
            jv_stats tfl = group_stats(g, idx, gr, hw, 3, 1, buf);
            jv_stats kt = group_stats(g, idx, gr, hw, 0, 1, buf);
            jv_sheet_num(&o, tbs.mean);
            jv_sheet_num(&o, tbs.std);
            jv_sheet_num(&o, tfl.mean);
            jv_sheet_num(&o, tfl.std);
            put_stats(&o, &kt, "asS");
            put_stats(&o, &cpu, "mlh");
            put_stats(&o, &tbs, "mlh");
            put_stats(&o, &tfl, "mlh");
            jv_stats pct = {NAN, NAN, NAN, NAN, NAN, 0, 0};
            if (hw) {
                jv_sheet_num(&o, m.roof_us);
                pct = group_stats(g, idx, gr, hw, 4, 1, buf);
                put_stats(&o, &pct, "amslh");
            }
            put_stats(&o, &kt, "mlh");
            char *full = NULL, *trunc = NULL;
            kernel_summary_of(g, idx, gr, &full, &trunc);
            jv_sheet_str(&o, full ? full : "");
            jv_sheet_str(&o, trunc ? trunc : "");
            free(full);
            free(trunc);
            /* perf_params as a Python dict */
            char *params_text = NULL;
            jv_params ps;
            ps.n = 0;
            if (in->model >= 0 && pt->models[in->model].ok) params_of(tr, &pt->models[in->model], &ps);
            if (ps.n) {
                jv_strbuf sb = JV_STRBUF_INIT;
                int ok = jv_sb_puts(&sb, "{");
                for (int k = 0; ok && k < ps.n; k++) {
                    char *q = param_is_literal(&ps.p[k]) ? NULL : jv_pyrepr_quote(ps.p[k].text);
                    ok = jv_sb_printf(&sb, "%s'%s': %s", k ? ", " : "", ps.p[k].name, q ? q : ps.p[k].text);
                    free(q);
                }
                ok = ok && jv_sb_puts(&sb, "}");
                char *d = ok ? jv_sb_take(&sb) : NULL;
                ok = d != NULL;
                jv_sheet_str(&o, ok ? d : "");
                params_text = ok ? d : NULL;
                if (!ok) jv_sb_free(&sb);
            } else {
                jv_sheet_empty(&o);
            }
            jv_sheet_str(&o, in->model >= 0 ? "True" : "False");
            double p = total > 0 ? 100.0 * gr->ksum / total : 0;
            cum += p;
            jv_sheet_num(&o, p);
            jv_sheet_num(&o, cum);
            if (hw) jv_sheet_str(&o, jv_efficiency_band(pct.mean));
            jv_sheet_end(&o);
            if (dg) {
                u.params = params_text;
                u.m = &m;
                u.kt = &kt, u.tbs = &tbs, u.tfl = &tfl, u.pct = &pct;
                u.percent = p;
                s = digest_row(g, idx, gr, &u, dg, err);
            }
            for (int k = 0; k < 4; k++)
                free(atmp[k]);
            free(params_text);
            free(nm);
            if (s != JV_OK) break;
        }
        if (s == JV_OK)
            s = jv_sheet_commit(&o, err);
        else
            jv_sheet_abort(&o);
    }
    free(idx);
    free(groups);
    free(buf);
    return s;
}

/* ---------- family sheets ---------- */

typedef struct {
    const gctx *g;
    const jv_params *ps; /* per model index, params */
} fctx;

/* orders instances by the family-sheet grouping key (name, param texts); 0 = same group */
static int family_key_cmp(const fctx *f, uint32_t x, uint32_t y) {
    const jv_perf_inst *ix = &f->g->pt->inst[x], *iy = &f->g->pt->inst[y];
    if (ix->model == iy->model) return 0;
    const jv_perf_model *mx = &f->g->pt->models[ix->model], *my = &f->g->pt->models[iy->model];
    if (mx->name != my->name) return mx->name < my->name ? -1 : 1;
    const jv_params *px = &f->ps[ix->model], *py = &f->ps[iy->model];
    if (px->n != py->n) return px->n < py->n ? -1 : 1;
    for (int k = 0; k < px->n; k++) {
        int c = strcmp(px->p[k].text, py->p[k].text);
        if (c) return c;
    }
    return 0;
}

static int cmp_family(const void *a, const void *b, void *ctx) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = family_key_cmp(ctx, x, y);
    return c ? c : (x > y) - (x < y);
}

/* 1 when instance in has a model whose family writes sheet `base` (bwd: -1 any, 0 fwd, 1 bwd) */
static int in_sheet(const jv_perf_table *pt, const jv_perf_inst *in, const char *base, int bwd) {
    if (in->model < 0 || !pt->models[in->model].ok) return 0;
    const jv_perf_model *m = &pt->models[in->model];
    return !strcmp(jv_family_get(m->family)->sheet, base) && (bwd < 0 || m->bwd == bwd);
}

/* one family sheet: instances whose model's family writes sheet `base` (bwd: -1 any, 0 fwd, 1 bwd) */
static jv_status write_family_sheet(const gctx *g, const jv_hw *hw, jv_book *book, const char *base, const char *sheet,
                                    int bwd, const jv_params *ps, jv_err *err) {
    const jv_trace *tr = g->tr;
    const jv_perf_table *pt = g->pt;
    size_t n = 0;
    for (size_t i = 0; i < pt->ninst; i++)
        n += in_sheet(pt, &pt->inst[i], base, bwd);
    if (!n) return JV_OK;
    uint32_t *idx = malloc(n * sizeof *idx);
    group *groups = malloc(n * sizeof *groups);
    double *buf = malloc(n * sizeof *buf);
    if (!idx || !groups || !buf) {
        free(idx);
        free(groups);
        free(buf);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (%s)", sheet);
    }
    n = 0;
    for (size_t i = 0; i < pt->ninst; i++)
        if (in_sheet(pt, &pt->inst[i], base, bwd)) idx[n++] = (uint32_t)i;
    fctx f = {g, ps};
    jv_status s = jv_sort_stable(idx, n, sizeof *idx, cmp_family, &f);
    size_t ng = 0;
    for (size_t i = 0; i < n && s == JV_OK;) {
        size_t j = i + 1;
        while (j < n && !family_key_cmp(&f, idx[i], idx[j]))
            j++;
        groups[ng].begin = i;
        groups[ng].n = j - i;
        finish_group(g, idx, &groups[ng]);
        ng++;
        i = j;
    }
    qsort(groups, ng, sizeof *groups, cmp_group);
    jv_sheet o;
    if (s == JV_OK)
        s = jv_sheet_open(&o, book, sheet, err);
    else
        jv_err_set(err, s, __FILE__, __LINE__, "out of memory (%s)", sheet);
    if (s != JV_OK) {
        free(idx);
        free(groups);
        free(buf);
        return s;
    }
    /* header: param names of the first row, less columns that are nan in every row */
    const jv_params *p0 = &ps[pt->inst[idx[0]].model];
    int keep[JV_MAX_PARAMS];
    for (int k = 0; k < p0->n; k++) {
        keep[k] = 0;
        for (size_t gi = 0; gi < ng && !keep[k]; gi++) {
            const jv_params *pp = &ps[pt->inst[groups[gi].first].model];
            for (int q = 0; q < pp->n; q++)
                if (!strcmp(pp->p[q].name, p0->p[k].name) && strcmp(pp->p[q].text, "nan")) keep[k] = 1;
        }
    }
    jv_sheet_str(&o, "name");
    char col[64];
    for (int k = 0; k < p0->n; k++) {
        if (!keep[k]) continue;
        snprintf(col, sizeof col, "param: %s", p0->p[k].name);
        jv_sheet_str(&o, col);
    }
    static const char *const h1[] = {"GFLOPS_first",
                                     "Data Moved (MB)_first",
                                     "FLOPS/Byte_first",
                                     "TB/s_mean",
                                     "TB/s_median",
                                     "TB/s_std",
                                     "TB/s_min",
                                     "TB/s_max",
                                     "TFLOPS/s_mean",
                                     "TFLOPS/s_median",
                                     "TFLOPS/s_std",
                                     "TFLOPS/s_min",
                                     "TFLOPS/s_max",
                                     "process_name_first",
                                     "process_label_first",
                                     "thread_name_first",
                                     "Compute Spec",
                                     NULL};
    for (const char *const *h = h1; *h; h++)
        jv_sheet_str(&o, *h);
    if (hw) {
        static const char *const h2[] = {
            "Roofline Time (µs)_first", "Roofline Bound_first", "Pct Roofline_mean", "Pct Roofline_median",
            "Pct Roofline_std",         "Pct Roofline_min",     "Pct Roofline_max",  NULL};
        for (const char *const *h = h2; *h; h++)
            jv_sheet_str(&o, *h);
    }
    static const char *const h3[] = {"kernel_details__summarize_kernel_stats",
                                     "trunc_kernel_details",
                                     "Input Dims_first",
                                     "Input type_first",
                                     "Input Strides_first",
                                     "Concrete Inputs_first",
                                     "Kernel Time (µs)_mean",
                                     "Kernel Time (µs)_median",
                                     "Kernel Time (µs)_std",
                                     "Kernel Time (µs)_min",
                                     "Kernel Time (µs)_max",
                                     "Kernel Time (µs)_sum",
                                     "name_count",
                                     "UID_first",
                                     NULL};
    for (const char *const *h = h3; *h; h++)
        jv_sheet_str(&o, *h);
    if (hw) jv_sheet_str(&o, "Efficiency Band");
    jv_sheet_end(&o);
    for (size_t gi = 0; gi < ng; gi++) {
        const group *gr = &groups[gi];
        const jv_perf_inst *in = &pt->inst[gr->first];
        const jv_event *e = &tr->ev[in->ev];
        const jv_thread *th = &tr->threads[e->thread];
        const jv_params *pp = &ps[in->model];
        jv_sheet_str(&o, jv_trace_str(tr, e->name));
        for (int k = 0; k < p0->n; k++) {
            if (!keep[k]) continue;
            const jv_param *hit = NULL;
            for (int q = 0; q < pp->n && !hit; q++)
                if (!strcmp(pp->p[q].name, p0->p[k].name)) hit = &pp->p[q];
            if (!hit)
                jv_sheet_empty(&o);
            else if (hit->is_num && hit->num == floor(hit->num) && fabs(hit->num) < 9e15 && !strchr(hit->text, '.'))
                jv_sheet_int(&o, (long long)hit->num);
            else if (hit->is_num)
                jv_sheet_num(&o, hit->num);
            else
                jv_sheet_str(&o, hit->text);
        }
        inst_metrics m;
        metrics_of(pt, in, hw, &m);
        jv_sheet_num(&o, m.gflops);
        jv_sheet_num(&o, m.mb);
        jv_sheet_num(&o, m.fpb);
        jv_stats tbs = group_stats(g, idx, gr, hw, 2, 1, buf);
        put_stats(&o, &tbs, "amslh");
        jv_stats tfl = group_stats(g, idx, gr, hw, 3, 1, buf);
        put_stats(&o, &tfl, "amslh");
        jv_sheet_str(&o, or_unknown(jv_trace_process_name(tr, th->pid)));
        jv_sheet_str(&o, or_unknown(jv_trace_process_labels(tr, th->pid)));
        jv_sheet_str(&o, or_unknown(jv_trace_str(tr, th->name)));
        jv_sheet_str(&o, m.spec);
        jv_stats pct = {NAN, NAN, NAN, NAN, NAN, 0, 0};
        if (hw) {
            jv_sheet_num(&o, m.roof_us);
            jv_sheet_str(&o, m.bound ? m.bound : "");
            pct = group_stats(g, idx, gr, hw, 4, 1, buf);
            put_stats(&o, &pct, "amslh");
        }
        char *full = NULL, *trunc = NULL;
        kernel_summary_of(g, idx, gr, &full, &trunc);
        jv_sheet_str(&o, full ? full : "");
        jv_sheet_str(&o, trunc ? trunc : "");
        free(full);
        free(trunc);
        const jv_sig *sg = &tr->sigs[inst_sig(tr, in)];
        sheet_pyargs(&o, tr, sg->dims, 1);
        sheet_pyargs(&o, tr, sg->types, 1);
        sheet_pyargs(&o, tr, sg->strides, 1);
        sheet_pyargs(&o, tr, sg->concrete, 1);
        jv_stats kt = group_stats(g, idx, gr, hw, 0, 1, buf);
        put_stats(&o, &kt, "amslhS");
        jv_sheet_int(&o, (long long)gr->n);
        jv_sheet_int(&o, gr->uid_first);
        if (hw) jv_sheet_str(&o, jv_efficiency_band(pct.mean));
        jv_sheet_end(&o);
    }
    s = jv_sheet_commit(&o, err);
    free(idx);
    free(groups);
    free(buf);
    return s;
}

jv_status jv_perf_write(const jv_trace *tr, const jv_perf_table *pt, const jv_hw *hw, jv_book *book, jv_digest *dg,
                        jv_err *err) {
    const char **cat = malloc((pt->ninst ? pt->ninst : 1) * sizeof *cat);
    jv_params *ps = malloc((pt->nmodels ? pt->nmodels : 1) * sizeof *ps);
    if (!cat || !ps) {
        free(cat);
        free(ps);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (perf sheets)");
    }
    for (size_t i = 0; i < pt->ninst; i++) {
        const jv_perf_inst *in = &pt->inst[i];
        const char *first = in->kn ? jv_trace_str(tr, tr->ev[pt->kernels[in->kbegin]].name) : NULL;
        cat[i] = jv_op_category(jv_trace_str(tr, tr->ev[in->ev].name), first);
    }
    for (size_t m = 0; m < pt->nmodels; m++) {
        ps[m].n = 0;
        if (pt->models[m].ok) params_of(tr, &pt->models[m], &ps[m]);
    }
    gctx g = {tr, pt, cat, NULL};
    jv_status s = write_unified(&g, hw, book, dg, err);
    /* family sheets in registry order; families sharing a sheet write it once */
    for (int f = 0; f < jv_family_count() && s == JV_OK; f++) {
        const jv_family *fam = jv_family_get(f);
        int seen = 0;
        for (int e = 0; e < f; e++)
            if (!strcmp(jv_family_get(e)->sheet, fam->sheet)) seen = 1;
        if (seen) continue;
        if (fam->split) {
            char name[64];
            snprintf(name, sizeof name, "%s_fwd", fam->sheet);
            s = write_family_sheet(&g, hw, book, fam->sheet, name, 0, ps, err);
            snprintf(name, sizeof name, "%s_bwd", fam->sheet);
            if (s == JV_OK) s = write_family_sheet(&g, hw, book, fam->sheet, name, 1, ps, err);
        } else {
            s = write_family_sheet(&g, hw, book, fam->sheet, fam->sheet, -1, ps, err);
        }
    }
    free(cat);
    free(ps);
    return s;
}
