/* jv_perf_sheet: the perf sheets of the op instances (model/jv_perf.c): unified_perf_summary (printed from the
 * digest's rows: model/jv_pgroup.c groups and computes them) and the family sheets (printed from model/jv_fsheet.c's
 * typed rows), with roofline columns when a GPU is known. Nothing is computed here. */
#include "jv_perf_sheet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_fsheet.h"
#include "jv_output.h"
#include "jv_pgroup.h"
#include "jv_stats.h"

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
        jv_sheet_str(&o, "No Model Reason");
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
            if (hw) jv_sheet_str(&o, jv_bound_name(r->sheet_bound));
            jv_sheet_num(&o, r->tbs_s.mean);
            jv_sheet_num(&o, r->tbs_s.std);
            jv_sheet_num(&o, r->tfl_s.mean);
            jv_sheet_num(&o, r->tfl_s.std);
            put_stats(&o, &r->kt, "asS");
            put_stats(&o, &r->cpu, "mlh");
            put_stats(&o, &r->tbs_s, "mlh");
            put_stats(&o, &r->tfl_s, "mlh");
            if (hw) {
                jv_sheet_num(&o, r->sheet_roof_us);
                put_stats(&o, &r->sheet_pct_s, "amslh");
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
            jv_sheet_str(&o, jv_nomodel_str(r->nomodel));
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    return s;
}

/* ---------- family sheets ---------- */

/* one family sheet from its typed rows (model/jv_fsheet.c) */
static jv_status write_family_sheet(const jv_fsheet *fs, const jv_hw *hw, jv_book *book, jv_err *err) {
    if (!fs->nrows) return JV_OK;
    jv_sheet o;
    jv_status s = jv_sheet_open(&o, book, fs->name, err);
    if (s != JV_OK) return s;
    jv_sheet_str(&o, "name");
    char col[64];
    for (int k = 0; k < fs->ncols; k++) {
        snprintf(col, sizeof col, "param: %s", fs->cols[k]);
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
                                     NULL};
    for (const char *const *h = h1; *h; h++)
        jv_sheet_str(&o, *h);
    if (fs->has_region) jv_sheet_str(&o, "compiled_region_first"); /* jarvis' own column */
    jv_sheet_str(&o, "Compute Spec");
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
    for (size_t i = 0; i < fs->nrows; i++) {
        const jv_frow *r = &fs->rows[i];
        jv_sheet_str(&o, r->name);
        for (int k = 0; k < fs->ncols; k++) {
            const jv_param *hit = NULL;
            for (int q = 0; q < r->params->n && !hit; q++)
                if (!strcmp(r->params->p[q].name, fs->cols[k])) hit = &r->params->p[q];
            if (!hit)
                jv_sheet_empty(&o);
            else if (hit->is_num && hit->num == floor(hit->num) && fabs(hit->num) < 9e15 && !strchr(hit->text, '.'))
                jv_sheet_int(&o, (long long)hit->num);
            else if (hit->is_num)
                jv_sheet_num(&o, hit->num);
            else
                jv_sheet_str(&o, hit->text);
        }
        jv_sheet_num(&o, r->m.gflops);
        jv_sheet_num(&o, r->m.mb);
        jv_sheet_num(&o, r->m.fpb);
        put_stats(&o, &r->tbs, "amslh");
        put_stats(&o, &r->tfl, "amslh");
        jv_sheet_str(&o, r->process_name);
        jv_sheet_str(&o, r->process_label);
        jv_sheet_str(&o, r->thread_name);
        if (fs->has_region) jv_sheet_str(&o, r->region ? r->region : "");
        jv_sheet_str(&o, r->m.spec);
        if (hw) {
            jv_sheet_num(&o, r->m.roof_us);
            jv_sheet_str(&o, jv_bound_name(r->m.bound));
            put_stats(&o, &r->pct, "amslh");
        }
        jv_sheet_str(&o, r->kfull ? r->kfull : "");
        jv_sheet_str(&o, r->ktrunc ? r->ktrunc : "");
        for (int k = 0; k < 4; k++) {
            if (r->args[k])
                jv_sheet_str(&o, r->args[k]);
            else
                jv_sheet_empty(&o);
        }
        put_stats(&o, &r->kt, "amslhS");
        jv_sheet_int(&o, (long long)r->count);
        jv_sheet_int(&o, r->uid);
        if (hw) jv_sheet_str(&o, jv_efficiency_band(r->band_pct));
        jv_sheet_end(&o);
    }
    return jv_sheet_commit(&o, err);
}

jv_status jv_perf_write(const jv_trace *tr, const jv_perf_table *pt, jv_book *book, const jv_digest *dg, jv_err *err) {
    const jv_hw *hw = dg->has_hw ? &dg->sheet_hw : NULL, *judge = dg->has_hw && dg->sheet_differs ? &dg->hw : hw;
    jv_params *ps = jv_fsheet_params(tr, pt);
    jv_enclose regions;
    if (!ps || jv_fsheet_regions(tr, &regions) != JV_OK) {
        free(ps);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (perf sheets)");
    }
    jv_status s = write_unified(dg, hw, book, err);
    /* family sheets in registry order, one at a time (built by the model, printed here); families sharing a
     * sheet write it once */
    for (int f = 0; f < jv_family_count() && s == JV_OK; f++) {
        const jv_family *fam = jv_family_get(f);
        int seen = 0;
        for (int e = 0; e < f; e++)
            if (!strcmp(jv_family_get(e)->sheet, fam->sheet)) seen = 1;
        if (seen) continue;
        for (int part = 0; part < (fam->split ? 2 : 1) && s == JV_OK; part++) {
            char name[64];
            if (fam->split)
                snprintf(name, sizeof name, "%s_%s", fam->sheet, part ? "bwd" : "fwd");
            else
                snprintf(name, sizeof name, "%s", fam->sheet);
            jv_fsheet fs;
            s = jv_fsheet_build(tr, pt, hw, judge, ps, &regions, fam->sheet, name, fam->split ? part : -1, &fs, err);
            if (s == JV_OK) s = write_family_sheet(&fs, hw, book, err);
            jv_fsheet_free(&fs);
        }
    }
    jv_enclose_free(&regions);
    free(ps);
    return s;
}
