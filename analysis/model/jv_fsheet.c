/* jv_fsheet: the family sheets as typed rows (see jv_fsheet.h). */
#include "jv_fsheet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_sort.h"

jv_params *jv_fsheet_params(const jv_trace *tr, const jv_perf_table *pt) {
    jv_params *ps = malloc((pt->nmodels ? pt->nmodels : 1) * sizeof *ps);
    if (!ps) return NULL;
    for (size_t m = 0; m < pt->nmodels; m++) {
        ps[m].n = 0;
        if (pt->models[m].ok) jv_perf_params_of(tr, &pt->models[m], &ps[m]);
    }
    return ps;
}

typedef struct {
    const jv_pgctx *g;
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

/* a recorded args text in Python form, malloc'd; NULL when not recorded or out of memory (*nomem) */
static char *args_text(const jv_trace *tr, uint32_t raw, int *nomem) {
    if (!raw) return NULL;
    char *s = NULL;
    const char *t = jv_pyargs_text(tr, raw, 1, &s);
    if (s) return s;
    char *d = strdup(t);
    if (!d) *nomem = 1;
    return d;
}

/* the row of group gr */
static int fill_row(const jv_pgctx *g, const uint32_t *idx, const jv_pgroup *gr, const jv_hw *hw, const jv_hw *judge_hw,
                    const jv_params *ps, const jv_enclose *regions, double *buf, jv_frow *r) {
    const jv_trace *tr = g->tr;
    const jv_perf_table *pt = g->pt;
    const jv_perf_inst *in = &pt->inst[gr->first];
    const jv_event *e = &tr->ev[in->ev];
    const jv_thread *th = &tr->threads[jv_ev_thread(tr, e)];
    int nomem = 0;
    memset(r, 0, sizeof *r);
    r->name = jv_trace_str(tr, jv_ev_name(tr, e));
    r->params = &ps[in->model];
    jv_pgroup_metrics(g, idx, gr, hw, &r->m);
    r->tbs = jv_pgroup_stats(g, idx, gr, hw, 2, 1, buf);
    r->tfl = jv_pgroup_stats(g, idx, gr, hw, 3, 1, buf);
    r->process_name = jv_or_unknown(jv_trace_process_name(tr, th->pid));
    r->process_label = jv_or_unknown(jv_trace_process_labels(tr, th->pid));
    r->thread_name = jv_or_unknown(jv_trace_str(tr, th->name));
    uint32_t rg = jv_enclose_find(regions, tr, in->ev, 4, NULL);
    r->region = rg == JV_NONE32 ? NULL : jv_trace_str(tr, jv_ev_name(tr, &tr->ev[rg]));
    r->pct = (jv_stats){NAN, NAN, NAN, NAN, NAN, 0, 0};
    if (hw) r->pct = jv_pgroup_stats(g, idx, gr, hw, 4, 1, buf);
    r->band_pct = judge_hw && judge_hw != hw ? jv_pgroup_stats(g, idx, gr, judge_hw, 4, 1, buf).mean : r->pct.mean;
    jv_pgroup_kernels(g, idx, gr, &r->kfull, &r->ktrunc);
    const jv_sig *sg = &tr->sigs[jv_inst_sig(tr, in)];
    const uint32_t raw[4] = {sg->dims, sg->types, sg->strides, sg->concrete};
    for (int k = 0; k < 4; k++)
        r->args[k] = args_text(tr, raw[k], &nomem);
    r->kt = jv_pgroup_stats(g, idx, gr, hw, 0, 1, buf);
    r->count = (uint32_t)gr->n;
    r->uid = gr->uid_first;
    return !nomem;
}

static void free_row(jv_frow *r) {
    free(r->kfull);
    free(r->ktrunc);
    for (int k = 0; k < 4; k++)
        free(r->args[k]);
}

void jv_fsheet_free(jv_fsheet *s) {
    for (size_t i = 0; i < s->nrows; i++)
        free_row(&s->rows[i]);
    free(s->rows);
    s->rows = NULL;
    s->nrows = 0;
    s->ncols = 0;
}

static int is_region(const jv_trace *tr, size_t i, void *ctx) {
    (void)ctx;
    return jv_ev_kind(tr, &tr->ev[i]) == JV_K_CPU_OP &&
           !strncmp(jv_trace_str(tr, jv_ev_name(tr, &tr->ev[i])), "Torch-Compiled Region", 21);
}

jv_status jv_fsheet_regions(const jv_trace *tr, jv_enclose *out) {
    return jv_enclose_build(tr, is_region, NULL, out);
}

jv_status jv_fsheet_build(const jv_trace *tr, const jv_perf_table *pt, const jv_hw *hw, const jv_hw *judge_hw,
                          const jv_params *ps, const jv_enclose *regions, const char *base, const char *sheet, int bwd,
                          jv_fsheet *out, jv_err *err) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", sheet);
    size_t n = 0;
    for (size_t i = 0; i < pt->ninst; i++)
        n += in_sheet(pt, &pt->inst[i], base, bwd);
    if (!n) return JV_OK;
    uint32_t *idx = malloc(n * sizeof *idx);
    jv_pgroup *groups = malloc(n * sizeof *groups);
    double *buf = malloc(n * sizeof *buf);
    jv_status s = idx && groups && buf ? JV_OK : JV_ERR_NOMEM;
    jv_pgctx g = {tr, pt, NULL, NULL};
    fctx f = {&g, ps};
    size_t ng = 0;
    if (s == JV_OK) {
        n = 0;
        for (size_t i = 0; i < pt->ninst; i++)
            if (in_sheet(pt, &pt->inst[i], base, bwd)) idx[n++] = (uint32_t)i;
        s = jv_sort_stable(idx, n, sizeof *idx, cmp_family, &f);
    }
    for (size_t i = 0; i < n && s == JV_OK;) {
        size_t j = i + 1;
        while (j < n && !family_key_cmp(&f, idx[i], idx[j]))
            j++;
        groups[ng].begin = i;
        groups[ng].n = j - i;
        jv_pgroup_finish(&g, idx, &groups[ng]);
        ng++;
        i = j;
    }
    if (s == JV_OK) {
        qsort(groups, ng, sizeof *groups, jv_pgroup_cmp);
        out->rows = calloc(ng, sizeof *out->rows);
        if (!out->rows) s = JV_ERR_NOMEM;
    }
    for (size_t gi = 0; gi < ng && s == JV_OK; gi++) {
        int ok = fill_row(&g, idx, &groups[gi], hw, judge_hw, ps, regions, buf, &out->rows[gi]);
        out->nrows = gi + 1;
        out->has_region |= out->rows[gi].region != NULL;
        if (!ok) s = JV_ERR_NOMEM;
    }
    if (s == JV_OK) {
        /* param columns: the first row's params, less those nan in every row */
        const jv_params *p0 = out->rows[0].params;
        for (int k = 0; k < p0->n; k++) {
            int keep = 0;
            for (size_t gi = 0; gi < ng && !keep; gi++) {
                const jv_params *pp = out->rows[gi].params;
                for (int q = 0; q < pp->n; q++)
                    if (!strcmp(pp->p[q].name, p0->p[k].name) && strcmp(pp->p[q].text, "nan")) keep = 1;
            }
            if (keep) out->cols[out->ncols++] = p0->p[k].name;
        }
    }
    free(idx);
    free(groups);
    free(buf);
    if (s != JV_OK) {
        jv_fsheet_free(out);
        JV_FAIL(err, s, "out of memory (%s)", sheet);
    }
    return JV_OK;
}
