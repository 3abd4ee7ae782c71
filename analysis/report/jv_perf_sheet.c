/* jv_perf_sheet: the perf sheets of the op instances (model/jv_perf.c): unified_perf_summary (printed from the
 * digest's rows: model/jv_pgroup.c groups and computes them) and the family sheets, with roofline columns when a
 * GPU is known. */
#include "jv_perf_sheet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_output.h"
#include "jv_pgroup.h"
#include "jv_sort.h"
#include "jv_stats.h"
#include "jv_strbuf.h"

static void sheet_pyargs(jv_sheet *o, const jv_trace *tr, uint32_t raw, int lists) {
    if (!raw) {
        jv_sheet_empty(o);
        return;
    }
    char *s;
    jv_sheet_str(o, jv_pyargs_text(tr, raw, lists, &s));
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
/* ---------- unified_perf_summary ---------- */

/* unified_perf_summary from the digest's rows, in sheet order */
static jv_status write_unified(const jv_digest *dg, const jv_hw *hw, jv_book *book, jv_err *err) {
    jv_sheet o;
    jv_status s = jv_sheet_open(&o, book, "unified_perf_summary", err);
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
        for (size_t i = 0; i < dg->nrows; i++) {
            const jv_drow *r = &dg->rows[dg->sheet_order[i]];
            jv_sheet_str(&o, r->name);
            jv_sheet_str(&o, r->op_category);
            jv_sheet_str(&o, r->process_name);
            jv_sheet_str(&o, r->process_label);
            jv_sheet_str(&o, r->thread_name);
            const char *args[4] = {r->dims, r->types, r->strides, r->concrete};
            for (int k = 0; k < 4; k++) {
                if (r->args_present & (1u << k))
                    jv_sheet_str(&o, args[k]);
                else
                    jv_sheet_empty(&o);
            }
            jv_sheet_int(&o, r->uid);
            jv_sheet_int(&o, (long long)r->count);
            jv_sheet_num(&o, r->cpu.sum);
            jv_sheet_num(&o, r->cpu.mean);
            jv_sheet_num(&o, r->cpu.std);
            jv_sheet_num(&o, r->gflops);
            jv_sheet_num(&o, r->mb);
            jv_sheet_num(&o, r->fpb);
            jv_sheet_str(&o, r->spec);
            if (hw) jv_sheet_str(&o, r->bound);
            jv_sheet_num(&o, r->tbs_s.mean);
            jv_sheet_num(&o, r->tbs_s.std);
            jv_sheet_num(&o, r->tfl_s.mean);
            jv_sheet_num(&o, r->tfl_s.std);
            put_stats(&o, &r->kt, "asS");
            put_stats(&o, &r->cpu, "mlh");
            put_stats(&o, &r->tbs_s, "mlh");
            put_stats(&o, &r->tfl_s, "mlh");
            if (hw) {
                jv_sheet_num(&o, r->roof_us);
                put_stats(&o, &r->pct_s, "amslh");
            }
            put_stats(&o, &r->kt, "mlh");
            jv_sheet_str(&o, r->kernel_details);
            jv_sheet_str(&o, r->trunc_kernel_details);
            if (r->has_params)
                jv_sheet_str(&o, r->params);
            else
                jv_sheet_empty(&o);
            jv_sheet_str(&o, r->has_model ? "True" : "False");
            jv_sheet_num(&o, r->percent);
            jv_sheet_num(&o, r->cum_percent);
            if (hw) jv_sheet_str(&o, r->band);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    return s;
}

/* ---------- family sheets ---------- */

typedef struct {
    const jv_pgctx *g;
    const jv_params *ps; /* per model index, params */
} fctx;

/* orders instances by the family-sheet grouping key (name, param texts); 0 = same jv_pgroup */
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
static jv_status write_family_sheet(const jv_pgctx *g, const jv_hw *hw, jv_book *book, const char *base,
                                    const char *sheet, int bwd, const jv_params *ps, jv_err *err) {
    const jv_trace *tr = g->tr;
    const jv_perf_table *pt = g->pt;
    size_t n = 0;
    for (size_t i = 0; i < pt->ninst; i++)
        n += in_sheet(pt, &pt->inst[i], base, bwd);
    if (!n) return JV_OK;
    uint32_t *idx = malloc(n * sizeof *idx);
    jv_pgroup *groups = malloc(n * sizeof *groups);
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
        jv_pgroup_finish(g, idx, &groups[ng]);
        ng++;
        i = j;
    }
    qsort(groups, ng, sizeof *groups, jv_pgroup_cmp);
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
        const jv_pgroup *gr = &groups[gi];
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
        jv_inst_metrics m;
        jv_inst_metrics_of(pt, in, hw, &m);
        jv_sheet_num(&o, m.gflops);
        jv_sheet_num(&o, m.mb);
        jv_sheet_num(&o, m.fpb);
        jv_stats tbs = jv_pgroup_stats(g, idx, gr, hw, 2, 1, buf);
        put_stats(&o, &tbs, "amslh");
        jv_stats tfl = jv_pgroup_stats(g, idx, gr, hw, 3, 1, buf);
        put_stats(&o, &tfl, "amslh");
        jv_sheet_str(&o, jv_or_unknown(jv_trace_process_name(tr, th->pid)));
        jv_sheet_str(&o, jv_or_unknown(jv_trace_process_labels(tr, th->pid)));
        jv_sheet_str(&o, jv_or_unknown(jv_trace_str(tr, th->name)));
        jv_sheet_str(&o, m.spec);
        jv_stats pct = {NAN, NAN, NAN, NAN, NAN, 0, 0};
        if (hw) {
            jv_sheet_num(&o, m.roof_us);
            jv_sheet_str(&o, m.bound ? m.bound : "");
            pct = jv_pgroup_stats(g, idx, gr, hw, 4, 1, buf);
            put_stats(&o, &pct, "amslh");
        }
        char *full = NULL, *trunc = NULL;
        jv_pgroup_kernels(g, idx, gr, &full, &trunc);
        jv_sheet_str(&o, full ? full : "");
        jv_sheet_str(&o, trunc ? trunc : "");
        free(full);
        free(trunc);
        const jv_sig *sg = &tr->sigs[jv_inst_sig(tr, in)];
        sheet_pyargs(&o, tr, sg->dims, 1);
        sheet_pyargs(&o, tr, sg->types, 1);
        sheet_pyargs(&o, tr, sg->strides, 1);
        sheet_pyargs(&o, tr, sg->concrete, 1);
        jv_stats kt = jv_pgroup_stats(g, idx, gr, hw, 0, 1, buf);
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

jv_status jv_perf_write(const jv_trace *tr, const jv_perf_table *pt, const jv_hw *hw, jv_book *book,
                        const jv_digest *dg, jv_err *err) {
    const char **cat = malloc((pt->ninst ? pt->ninst : 1) * sizeof *cat);
    jv_params *ps = malloc((pt->nmodels ? pt->nmodels : 1) * sizeof *ps);
    if (!cat || !ps) {
        free(cat);
        free(ps);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (perf sheets)");
    }
    jv_perf_categories(tr, pt, cat);
    for (size_t m = 0; m < pt->nmodels; m++) {
        ps[m].n = 0;
        if (pt->models[m].ok) jv_perf_params_of(tr, &pt->models[m], &ps[m]);
    }
    jv_pgctx g = {tr, pt, cat, NULL};
    jv_status s = write_unified(dg, hw, book, err);
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
