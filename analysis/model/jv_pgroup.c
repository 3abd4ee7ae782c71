/* jv_pgroup: the grouping of op instances (unified_perf_summary rows, family-sheet groups), their metrics and
 * statistics, and jv_digest_build: the digest rows, one per unified_perf_summary row. */
#include "jv_pgroup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/conv.h"
#include "jv_category.h"
#include "jv_digest.h"
#include "jv_map.h"
#include "jv_opcall.h"
#include "jv_pyrepr.h"
#include "jv_sort.h"
#include "jv_strbuf.h"

#define US(ns) ((double)(ns) / 1e3)
/* ---------- per-instance metrics ---------- */

jv_xfer jv_inst_transfer(const jv_trace *tr, const jv_perf_table *pt, const jv_perf_inst *in) {
    double ns[JV_XFER_COUNT] = {0};
    for (uint32_t q = 0; q < in->kn; q++) {
        const jv_event *ke = &tr->ev[pt->kernels[in->kbegin + q]];
        ns[jv_transfer_of(jv_ev_kind(tr, ke), jv_trace_str(tr, jv_ev_name(tr, ke)))] += (double)jv_ev_dur(tr, ke);
    }
    return jv_transfer_mostly(ns);
}

void jv_inst_metrics_of(const jv_trace *tr, const jv_perf_table *pt, const jv_perf_inst *in, const jv_hw *hw,
                        jv_inst_metrics *m) {
    m->gflops = m->mb = m->fpb = m->tbs = m->tflops = m->roof_us = m->pct = NAN;
    m->bound = JV_BOUND_NONE;
    m->spec[0] = 0;
    m->xfer = jv_inst_transfer(tr, pt, in);
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
    if (!hw || !m->spec[0] || m->xfer != JV_XFER_NONE) return; /* a transfer is not judged against HBM */
    double peak = jv_hw_peak(hw, m->spec);
    if (isnan(peak) || isnan(p->bytes) || !(p->flops > 0)) return;
    double cu = p->flops / (peak * 1e12) * 1e6, mu = p->bytes / (hw->mem_bw_gbps * 1e9) * 1e6;
    m->roof_us = cu > mu ? cu : mu;
    m->bound = cu >= mu ? JV_BOUND_COMPUTE : JV_BOUND_MEMORY;
    if (t_us > 0) m->pct = m->roof_us / t_us * 100;
}

void jv_pgroup_metrics(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, const jv_hw *hw,
                       jv_inst_metrics *m) {
    const jv_perf_inst *in = &g->pt->inst[gr->first];
    jv_inst_metrics_of(g->tr, g->pt, in, hw, m);
    for (size_t k = 0; k < gr->n && m->xfer != JV_XFER_NONE; k++)
        if (&g->pt->inst[idx[gr->begin + k]] != in)
            jv_inst_metrics_of(g->tr, g->pt, &g->pt->inst[idx[gr->begin + k]], hw, m);
}

/* ---------- grouping helpers ---------- */

uint32_t jv_inst_uid(const jv_trace *tr, const jv_perf_inst *in) {
    return jv_trace_uid(tr, in->kernel != JV_NONE32 ? in->kernel : in->ev);
}

uint32_t jv_inst_sig(const jv_trace *tr, const jv_perf_inst *in) {
    const jv_event *e = &tr->ev[in->ev];
    return jv_ev_sig(tr, e) /* 0 unless an op or annotation */;
}

const char *jv_or_unknown(const char *s) {
    return s && *s ? s : "Unknown";
}

jv_status jv_thread_ranks(const jv_trace *tr, uint32_t **rank) {
    size_t n = tr->nthreads;
    *rank = malloc((n ? 3 * n : 1) * sizeof **rank);
    const char **str = malloc((n ? n : 1) * sizeof *str);
    uint32_t *r = malloc((n ? n : 1) * sizeof *r);
    jv_status s = *rank && str && r ? JV_OK : JV_ERR_NOMEM;
    for (int part = 0; part < 3 && s == JV_OK; part++) {
        for (size_t t = 0; t < n; t++) {
            const jv_thread *th = &tr->threads[t];
            str[t] = jv_or_unknown(part == 0   ? jv_trace_process_name(tr, th->pid)
                                   : part == 1 ? jv_trace_process_labels(tr, th->pid)
                                               : jv_trace_str(tr, th->name));
        }
        s = jv_str_ranks(str, n, r);
        for (size_t t = 0; s == JV_OK && t < n; t++)
            (*rank)[3 * t + (size_t)part] = r[t];
    }
    free(str);
    free(r);
    if (s != JV_OK) {
        free(*rank);
        *rank = NULL;
    }
    return s;
}

jv_status jv_str_ptr_ranks(const char *const *s, size_t n, uint32_t *rank) {
    const char **d = NULL; /* the distinct pointers */
    size_t nd = 0, cap = 0, last = 0;
    jv_status st = JV_OK;
    for (size_t i = 0; i < n && st == JV_OK; i++) {
        size_t k = last < nd && d[last] == s[i] ? last : 0;
        while (k < nd && d[k] != s[i])
            k++;
        if (k == nd) {
            if ((st = JV_RESERVE(d, cap, nd + 1)) != JV_OK) break;
            d[nd++] = s[i];
        }
        rank[i] = (uint32_t)k; /* the slot, for now */
        last = k;
    }
    uint32_t *r = st == JV_OK ? malloc((nd ? nd : 1) * sizeof *r) : NULL;
    if (st == JV_OK && !r) st = JV_ERR_NOMEM;
    if (st == JV_OK) st = jv_str_ranks(d, nd, r);
    for (size_t i = 0; st == JV_OK && i < n; i++)
        rank[i] = r[rank[i]];
    free(r);
    free(d);
    return st;
}

/* The unified grouping key's strings as ranks: the instances' categories (cat_rank, by instance) and their
 * threads' process name, labels and thread name (thr_rank, jv_thread_ranks). */
typedef struct {
    const jv_pgctx *g;
    const uint32_t *cat_rank, *thr_rank;
} ukey_ctx;

/* orders instances by the unified grouping key (name, synthetic kernel, category, process, label, thread, args),
 * the strings compared by their ranks (the order of strcmp); 0 = same jv_pgroup */
static int unified_key_cmp(const ukey_ctx *u, uint32_t x, uint32_t y) {
    const jv_trace *tr = u->g->tr;
    const jv_perf_inst *ix = &u->g->pt->inst[x], *iy = &u->g->pt->inst[y];
    const jv_event *ex = &tr->ev[ix->ev], *ey = &tr->ev[iy->ev];
    if (jv_ev_name(tr, ex) != jv_ev_name(tr, ey)) return jv_ev_name(tr, ex) < jv_ev_name(tr, ey) ? -1 : 1;
    uint32_t kx = ix->kernel == JV_NONE32 ? 0 : jv_ev_name(tr, &tr->ev[ix->kernel]) + 1;
    uint32_t ky = iy->kernel == JV_NONE32 ? 0 : jv_ev_name(tr, &tr->ev[iy->kernel]) + 1;
    if (kx != ky) return kx < ky ? -1 : 1;
    if (u->cat_rank[x] != u->cat_rank[y]) return u->cat_rank[x] < u->cat_rank[y] ? -1 : 1;
    if (jv_ev_thread(tr, ex) != jv_ev_thread(tr, ey)) {
        const uint32_t *tx = &u->thr_rank[3 * (size_t)jv_ev_thread(tr, ex)],
                       *ty = &u->thr_rank[3 * (size_t)jv_ev_thread(tr, ey)];
        for (int k = 0; k < 3; k++)
            if (tx[k] != ty[k]) return tx[k] < ty[k] ? -1 : 1;
    }
    uint32_t sx = jv_inst_sig(tr, ix), sy = jv_inst_sig(tr, iy);
    return (sx > sy) - (sx < sy);
}

static int cmp_unified(const void *a, const void *b, void *ctx) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = unified_key_cmp(ctx, x, y);
    return c ? c : (x > y) - (x < y);
}

int jv_pgroup_cmp(const void *a, const void *b) {
    const jv_pgroup *x = a, *y = b;
    if (x->ksum != y->ksum) return x->ksum > y->ksum ? -1 : 1;
    return (x->uid_first > y->uid_first) - (x->uid_first < y->uid_first);
}

void jv_pgroup_finish(const jv_pgctx *g, const uint32_t *idx, jv_pgroup *gr) {
    gr->ksum = 0;
    gr->uid_first = UINT32_MAX;
    for (size_t k = gr->begin; k < gr->begin + gr->n; k++) {
        const jv_perf_inst *in = &g->pt->inst[idx[k]];
        gr->ksum += US(in->busy_ns);
        uint32_t u = jv_inst_uid(g->tr, in);
        if (u < gr->uid_first) gr->uid_first = u, gr->first = idx[k];
    }
}

/* a raw JSON args text in Python form (tuples or lists); *s is malloc'd (NULL
 * when the form could not be made: the raw text is returned then) */
const char *jv_pyargs_text(const jv_trace *tr, uint32_t raw, int lists, char **s) {
    *s = NULL;
    if (!raw) return "";
    const char *txt = jv_trace_str(tr, raw);
    size_t n = jv_intern_len(&tr->strings, raw);
    jv_status st = lists ? jv_pyrepr_list(txt, n, s) : jv_pyrepr(txt, n, s);
    return st == JV_OK ? *s : txt;
}
/* collect per-instance values of a group; kind: 0 kernel µs, 1 cpu µs, 2 TB/s, 3 TFLOPS/s, 4 pct roofline */
jv_stats jv_pgroup_stats(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, const jv_hw *hw, int kind,
                         int ddof, double *buf) {
    for (size_t k = 0; k < gr->n; k++) {
        const jv_perf_inst *in = &g->pt->inst[idx[gr->begin + k]];
        jv_inst_metrics m;
        switch (kind) {
        case 0: buf[k] = US(in->busy_ns); break;
        case 1: buf[k] = US(jv_ev_dur(g->tr, &g->tr->ev[in->ev])); break;
        default:
            jv_inst_metrics_of(g->tr, g->pt, in, hw, &m);
            buf[k] = kind == 2 ? m.tbs : kind == 3 ? m.tflops : m.pct;
        }
    }
    return jv_stats_of(buf, gr->n, ddof);
}

int jv_pgroup_kernels(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, char **full, char **trunc) {
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
int jv_perf_params_of(const jv_trace *tr, const jv_perf_model *m, jv_params *ps) {
    jv_opcall call;
    jv_err e;
    jv_err_clear(&e);
    ps->n = 0;
    if (jv_perf_model_call(tr, m, &call, &e) != JV_OK) return 0;
    jv_desc d;
    int ok = jv_desc_parse(&call, &d, &e) == JV_OK;
    if (ok) jv_desc_params(&d, ps);
    jv_opcall_free(&call);
    return ok;
}

/* a param value inside a Python dict: strings quoted, the rest as printed */
int jv_param_is_literal(const jv_param *p) {
    const char *t = p->text;
    return p->is_num || t[0] == '(' || t[0] == '[' || t[0] == '{' || !strcmp(t, "True") || !strcmp(t, "False") ||
           !strcmp(t, "None");
}
/* ---------- unified_perf_summary ---------- */

/* what a unified_perf_summary row's cells were computed from, handed on to the digest */
typedef struct {
    const char *name, *params;
    const char *args[4];      /* Input Dims, Input type, Input Strides, Concrete Inputs (Python repr) */
    const jv_inst_metrics *m; /* of the example instance */
    const jv_stats *kt, *tbs, *tfl, *pct, *cpu;
    const jv_inst_metrics *sm;  /* of the example instance against the sheet GPU (TraceLens' peaks) */
    const jv_stats *spct;       /* Pct Roofline against the sheet GPU */
    const char *kfull, *ktrunc; /* kernel_details_summary, trunc_kernel_details */
    double percent, cum;
} urow;

/* the row of group gr for the digest: strings copied into it */
static jv_status digest_row(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, const urow *u, jv_digest *dg,
                            jv_err *err) {
    const jv_trace *tr = g->tr;
    const jv_perf_table *pt = g->pt;
    const jv_perf_inst *in = &pt->inst[gr->first];
    const jv_perf_model *pm = in->model >= 0 && pt->models[in->model].ok ? &pt->models[in->model] : NULL;
    const jv_inst_metrics *m = u->m;
    const jv_stats *kt = u->kt;
    jv_drow r;
    memset(&r, 0, sizeof r);
    r.name = jv_digest_str(dg, u->name);
    r.op_name = jv_digest_str(dg, jv_trace_str(tr, jv_ev_name(tr, &tr->ev[in->ev])));
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
    jv_status cs = jv_perf_call_of(tr, jv_ev_name(tr, &tr->ev[in->ev]), jv_inst_sig(tr, in), &call, &cerr);
    if (pm)
        r.facts = pm->facts; /* read from this call when the model parsed it */
    else
        jv_desc_facts(NULL, &r.facts);
    if (cs == JV_OK) {
        r.noperands = call.nargs < JV_DROW_OPERANDS ? call.nargs : JV_DROW_OPERANDS;
        for (int k = 0; k < r.noperands; k++) {
            r.operands[k].kind = call.args[k].kind;
            r.operands[k].t = call.args[k].t;
        }
    }
    r.type0 = jv_digest_str(dg, cs == JV_OK && call.nargs > 0 ? call.args[0].type : "");
    /* dims recorded, but not one argument's type (2021 TensorBoard-plugin traces): no dtype to model with */
    int ntyped = 0;
    for (int k = 0; cs == JV_OK && k < call.nargs; k++)
        ntyped += call.args[k].type && call.args[k].type[0];
    r.no_dtypes = !r.synthetic && cs == JV_OK && call.nargs > 0 && ntyped == 0 && tr->sigs[jv_inst_sig(tr, in)].dims;
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
    snprintf(r.spec, sizeof r.spec, "%.*s", (int)sizeof r.spec - 1, m->spec);
    r.roof_us = m->roof_us;
    r.pct = u->pct->mean;
    r.bound = m->bound;
    r.percent = u->percent;
    r.model = pm ? in->model : -1;
    r.replay_op = -1;
    /* the cells of unified_perf_summary that nothing else reads */
    const jv_thread *th = &tr->threads[jv_ev_thread(tr, &tr->ev[in->ev])];
    const jv_sig *sg = &tr->sigs[jv_inst_sig(tr, in)];
    r.process_name = jv_digest_str(dg, jv_or_unknown(jv_trace_process_name(tr, th->pid)));
    r.process_label = jv_digest_str(dg, jv_or_unknown(jv_trace_process_labels(tr, th->pid)));
    r.thread_name = jv_digest_str(dg, jv_or_unknown(jv_trace_str(tr, th->name)));
    r.args_present = (sg->dims ? 1u : 0u) | (sg->types ? 2u : 0u) | (sg->strides ? 4u : 0u) | (sg->concrete ? 8u : 0u);
    r.has_model = in->model >= 0;
    r.has_params = u->params != NULL;
    r.gflops = m->gflops;
    r.mb = m->mb;
    r.cpu = *u->cpu;
    r.kt = *kt;
    r.tbs_s = *u->tbs;
    r.tfl_s = *u->tfl;
    r.pct_s = *u->pct;
    r.sheet_roof_us = u->sm->roof_us;
    r.sheet_bound = u->sm->bound;
    r.sheet_pct_s = *u->spct;
    r.kernel_details = jv_digest_str(dg, u->kfull);
    r.trunc_kernel_details = jv_digest_str(dg, u->ktrunc);
    r.cum_percent = u->cum;
    r.band = dg->has_hw ? jv_efficiency_band(u->pct->mean) : "";
    if (!r.process_name || !r.process_label || !r.thread_name || !r.kernel_details || !r.trunc_kernel_details)
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
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
            if (!jv_map_get(&slot, jv_ev_name(tr, ke), &sl)) {
                if ((s = JV_RESERVE(ks, capk, nk + 1)) != JV_OK || (s = JV_RESERVE(knames, capn, nk + 1)) != JV_OK)
                    break;
                sl = (uint32_t)nk++;
                memset(&ks[sl], 0, sizeof ks[sl]);
                knames[sl] = jv_ev_name(tr, ke);
                ks[sl].layout = jv_is_layout_kernel(jv_trace_str(tr, jv_ev_name(tr, ke)));
                ks[sl].xfer = jv_transfer_of(jv_ev_kind(tr, ke), jv_trace_str(tr, jv_ev_name(tr, ke)));
                if ((s = jv_map_put(&slot, jv_ev_name(tr, ke), sl)) != JV_OK) break;
            }
            ks[sl].total_us += US(jv_ev_dur(tr, ke));
            ks[sl].count++;
            if (ks[sl].layout) r.layout_us += US(jv_ev_dur(tr, ke));
        }
    }
    jv_map_free(&slot);
    /* memcpy / memset time; the row is a transfer when they take at least half of its GPU time */
    double xfer_us[JV_XFER_COUNT] = {0};
    for (size_t k = 0; k < nk && s == JV_OK; k++)
        xfer_us[ks[k].xfer] += ks[k].total_us;
    for (int x = JV_XFER_NONE + 1; x < JV_XFER_COUNT; x++)
        r.transfer_us += xfer_us[x];
    r.transfer = jv_transfer_mostly(xfer_us);
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

void jv_perf_categories(const jv_trace *tr, const jv_perf_table *pt, const char **cat) {
    /* jv_op_category once per (op name, first kernel name) pair: a map of the pairs to the instance that had the
       pair first (without the map, out of memory, once per instance) */
    jv_map memo;
    jv_map_init(&memo);
    int use_memo = jv_map_reserve(&memo, 1024) == JV_OK;
    for (size_t i = 0; i < pt->ninst; i++) {
        const jv_perf_inst *in = &pt->inst[i];
        uint32_t name = jv_ev_name(tr, &tr->ev[in->ev]),
                 first = in->kn ? jv_ev_name(tr, &tr->ev[pt->kernels[in->kbegin]]) : JV_NONE32;
        int64_t key = (int64_t)((uint64_t)name << 32 | first);
        uint32_t j;
        if (use_memo && jv_map_get(&memo, key, &j)) {
            cat[i] = cat[j];
            continue;
        }
        cat[i] = jv_op_category(jv_trace_str(tr, name), first != JV_NONE32 ? jv_trace_str(tr, first) : NULL);
        if (use_memo && jv_map_put(&memo, key, (uint32_t)i) != JV_OK) use_memo = 0;
    }
    jv_map_free(&memo);
}

/* perf_params of model mi as a Python dict (malloc'd); NULL without params (or out of memory: *nomem) */
static char *params_text_of(const jv_trace *tr, const jv_perf_table *pt, int32_t mi, jv_params *out, int *nomem) {
    jv_params ps;
    ps.n = 0;
    *nomem = 0;
    if (mi >= 0 && pt->models[mi].ok) jv_perf_params_of(tr, &pt->models[mi], &ps);
    *out = ps;
    if (!ps.n) return NULL;
    jv_strbuf sb = JV_STRBUF_INIT;
    int ok = jv_sb_puts(&sb, "{");
    for (int k = 0; ok && k < ps.n; k++) {
        char *q = jv_param_is_literal(&ps.p[k]) ? NULL : jv_pyrepr_quote(ps.p[k].text);
        ok = jv_sb_printf(&sb, "%s'%s': %s", k ? ", " : "", ps.p[k].name, q ? q : ps.p[k].text);
        free(q);
    }
    ok = ok && jv_sb_puts(&sb, "}");
    char *d = ok ? jv_sb_take(&sb) : NULL;
    if (!d) {
        jv_sb_free(&sb);
        *nomem = 1;
    }
    return d;
}

jv_status jv_digest_build(const jv_trace *tr, const struct jv_perf_table_ *pt, jv_digest *dg, jv_err *err) {
    const jv_hw *hw = dg->has_hw ? &dg->hw : NULL, *shw = dg->has_hw && dg->sheet_differs ? &dg->sheet_hw : NULL;
    size_t n = pt->ninst;
    const char **cat = malloc((n ? n : 1) * sizeof *cat);
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    jv_pgroup *groups = malloc((n ? n : 1) * sizeof *groups);
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!cat || !idx || !groups || !buf) {
        free(cat);
        free(idx);
        free(groups);
        free(buf);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (unified_perf_summary)");
    }
    jv_perf_categories(tr, pt, cat);
    jv_pgctx gc = {tr, pt, cat, NULL};
    const jv_pgctx *g = &gc;
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    /* the categories' ranks in buf (the statistics' scratch, not used before the groups are made) */
    uint32_t *cat_rank = (uint32_t *)(void *)buf, *thr_rank = NULL;
    _Static_assert(sizeof(double) >= sizeof(uint32_t), "buf holds the ranks");
    jv_status s = jv_str_ptr_ranks(cat, n, cat_rank);
    if (s == JV_OK) s = jv_thread_ranks(tr, &thr_rank);
    ukey_ctx uk = {g, cat_rank, thr_rank};
    if (s == JV_OK) s = jv_sort_stable(idx, n, sizeof *idx, cmp_unified, &uk); /* fewer comparisons than in place */
    size_t ng = 0;
    for (size_t i = 0; i < n && s == JV_OK;) {
        size_t j = i + 1;
        while (j < n && !unified_key_cmp(&uk, idx[i], idx[j]))
            j++;
        groups[ng].begin = i;
        groups[ng].n = j - i;
        jv_pgroup_finish(g, idx, &groups[ng]);
        ng++;
        i = j;
    }
    free(thr_rank);
    if (s != JV_OK) jv_err_set(err, s, __FILE__, __LINE__, "out of memory (unified_perf_summary)");
    qsort(groups, ng, sizeof *groups, jv_pgroup_cmp);
    double total = 0, cum = 0;
    for (size_t i = 0; i < ng; i++)
        total += groups[i].ksum;
    for (size_t gi = 0; gi < ng && s == JV_OK; gi++) {
        const jv_pgroup *gr = &groups[gi];
        const jv_perf_inst *in = &pt->inst[gr->first];
        const jv_event *e = &tr->ev[in->ev];
        char *nm = NULL;
        if (in->kernel != JV_NONE32) {
            jv_strbuf sb = JV_STRBUF_INIT;
            if (!jv_sb_printf(&sb, "%s->%s (Synthetic Op)", jv_trace_str(tr, jv_ev_name(tr, e)),
                              jv_trace_str(tr, jv_ev_name(tr, &tr->ev[in->kernel]))) ||
                !(nm = jv_sb_take(&sb))) {
                jv_sb_free(&sb);
                s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory (unified_perf_summary)");
                break;
            }
        }
        urow u = {.name = nm ? nm : jv_trace_str(tr, jv_ev_name(tr, e))};
        const jv_sig *sg = &tr->sigs[jv_inst_sig(tr, in)];
        const uint32_t raw[4] = {sg->dims, sg->types, sg->strides, sg->concrete};
        char *atmp[4];
        for (int k = 0; k < 4; k++)
            u.args[k] = jv_pyargs_text(tr, raw[k], 0, &atmp[k]);
        jv_stats cpu = jv_pgroup_stats(g, idx, gr, hw, 1, 1, buf);
        jv_inst_metrics m;
        jv_pgroup_metrics(g, idx, gr, hw, &m);
        jv_stats tbs = jv_pgroup_stats(g, idx, gr, hw, 2, 1, buf);
        jv_stats tfl = jv_pgroup_stats(g, idx, gr, hw, 3, 1, buf);
        jv_stats kt = jv_pgroup_stats(g, idx, gr, hw, 0, 1, buf);
        jv_stats pct = {NAN, NAN, NAN, NAN, NAN, 0, 0};
        if (hw) pct = jv_pgroup_stats(g, idx, gr, hw, 4, 1, buf);
        jv_inst_metrics sm = m; /* TraceLens' columns: the sheet GPU's peaks where they differ */
        jv_stats spct = pct;
        if (shw) {
            jv_pgroup_metrics(g, idx, gr, shw, &sm);
            spct = jv_pgroup_stats(g, idx, gr, shw, 4, 1, buf);
        }
        char *full = NULL, *trunc = NULL;
        jv_pgroup_kernels(g, idx, gr, &full, &trunc);
        int nomem;
        jv_params pv;
        char *params_text = params_text_of(tr, pt, in->model, &pv, &nomem);
        double p = total > 0 ? 100.0 * gr->ksum / total : 0;
        cum += p;
        u.params = params_text;
        u.m = &m;
        u.kt = &kt, u.tbs = &tbs, u.tfl = &tfl, u.pct = &pct, u.cpu = &cpu;
        u.sm = &sm, u.spct = &spct;
        u.kfull = full ? full : "";
        u.ktrunc = trunc ? trunc : "";
        u.percent = p;
        u.cum = cum;
        s = digest_row(g, idx, gr, &u, dg, err);
        if (s == JV_OK && nomem) dg->rows[dg->nrows - 1].has_params = 1; /* an empty cell as before: "" */
        free(full);
        free(trunc);
        for (int k = 0; k < 4; k++)
            free(atmp[k]);
        free(params_text);
        free(nm);
    }
    free(cat);
    free(idx);
    free(groups);
    free(buf);
    return s;
}
