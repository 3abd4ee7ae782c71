/* jv_row_eval: the row evaluation and markdown helpers shared by the category
 * findings and the standalone reports. */
#include "jv_row_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *jv_md_kernel_short(const char *name, char *buf, size_t cap) {
    if (!strncmp(name, "void ", 5)) name += 5;
    size_t n = strcspn(name, "<(");
    if (n >= cap - 8) n = cap - 8;
    memcpy(buf, name, n);
    buf[n] = 0;
    if (name[n] == '<') strcat(buf, "<…>");
    return buf;
}

const char *jv_md_time(char *buf, size_t cap, double us) {
    if (isnan(us))
        snprintf(buf, cap, "n/a");
    else if (fabs(us) >= 1000)
        snprintf(buf, cap, "%.2f ms", us / 1e3);
    else
        snprintf(buf, cap, "%.1f µs", us);
    return buf;
}

double jv_baseline_pct_of_hbm(const jv_digest *d) {
    if (!d->has_hw || !(d->hw.mem_bw_gbps > 0) || isnan(d->baseline.tbs)) return NAN;
    return 100.0 * d->baseline.tbs * 1e3 / d->hw.mem_bw_gbps;
}

void jv_row_evaluate(const jv_digest *d, const jv_drow *r, jv_row_eval *e) {
    memset(e, 0, sizeof *e);
    e->peak = e->achieved = e->pct = e->eff = e->vs_base = NAN;
    e->band = "";
    e->memory_bound = !strcmp(r->bound, "MEMORY_BOUND");
    if (r->model < 0 && isnan(r->flops)) {
        e->verdict = "no model";
        return;
    }
    e->has_roof = d->has_hw && !isnan(r->roof_us) && r->roof_us > 0 && r->time_us > 0 && r->bound[0];
    if (!e->has_roof) {
        e->verdict = "no roofline";
        return;
    }
    if (e->memory_bound) {
        e->peak = d->hw.mem_bw_gbps / 1e3;
        e->achieved = r->tbs;
        if (!isnan(d->baseline.tbs) && d->baseline.tbs > 0) e->vs_base = r->tbs / d->baseline.tbs;
    } else {
        e->peak = jv_hw_peak(&d->hw, r->spec);
        e->achieved = r->tflops;
    }
    e->pct = r->pct;
    e->eff = 100.0 * r->count * r->roof_us / r->time_us;
    e->band = jv_efficiency_band(e->pct);
    jv_judge_in in = jv_judge_in_none(); /* the trace has no measured launch cost: the nominal one */
    in.time_us = r->median_us;
    in.bound_us = r->roof_us;
    in.eff = e->pct / 100;
    in.layout_share = r->layout_us / r->time_us;
    if (e->memory_bound) in.vs_ceiling = e->vs_base; /* the trace's elementwise baseline: its measured ceiling */
    e->judgement = jv_judge(&in);
    e->verdict = jv_judge_str(e->judgement);
}
