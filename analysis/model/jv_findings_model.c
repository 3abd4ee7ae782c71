/* jv_findings_model: the findings of a digest, decided from its typed rows (operands, params, evaluation), its
 * baseline and fusion candidates; the family-specific facts (a batch norm's library, NHWC convolution kernels)
 * come from the families' findings hooks. */
#include "jv_findings_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jv_category.h"

static const double TARGETS[JV_FIND_NTARGETS] = {20, 50, 80};

#define MAX_FUSION_FINDINGS 3 /* fusion candidates with a finding, at most (the largest) */

/* Argument k of a row as a tensor, or NULL. */
static const jv_tensor *operand_tensor(const jv_drow *r, int k) {
    return k < r->noperands && r->operands[k].kind == JV_ARG_TENSOR ? &r->operands[k].t : NULL;
}

static jv_flayout layout_of(const jv_drow *r, int k) {
    jv_flayout l = {JV_FLAYOUT_UNKNOWN, JV_LAYOUT_CONTIGUOUS, 0};
    const jv_tensor *t = operand_tensor(r, k);
    if (!t || t->ndim < 3) return l;
    l.ndim = t->ndim;
    if (!t->has_strides) {
        l.kind = JV_FLAYOUT_NO_STRIDES;
        return l;
    }
    l.layout = jv_tensor_layout(t);
    l.kind = l.layout == JV_LAYOUT_CONTIGUOUS      ? JV_FLAYOUT_CONTIGUOUS
             : l.layout == JV_LAYOUT_CHANNELS_LAST ? JV_FLAYOUT_CHANNELS_LAST
                                                   : JV_FLAYOUT_OTHER;
    return l;
}

/* The family whose findings hook reads the row's names: its own, or (a row without a model) the family that
 * reports under the row's category; NULL for none. */
static const jv_family *hook_family(const jv_drow *r) {
    const jv_family *f = jv_family_get(r->family_id);
    if (f) return f;
    if (r->cat == JV_DCAT_OTHER) return NULL;
    for (int i = 0; i < jv_family_count(); i++)
        if (jv_dcat_of(i, NULL, NULL) == r->cat) return jv_family_get(i);
    return NULL;
}

static jv_impl_info impl_of(const jv_drow *r) {
    jv_impl_info none = {JV_IMPL_UNKNOWN, 0};
    const jv_family *f = hook_family(r);
    if (!f || !f->findings.impl) return none;
    const char *names[JV_DROW_KERNELS];
    for (int k = 0; k < r->nkernels; k++)
        names[k] = r->kernels[k].name;
    return f->findings.impl(r->op_name, names, r->nkernels);
}

static void row_facts(const jv_drow *r, jv_frow *x) {
    memset(x, 0, sizeof *x);
    x->M = x->N = x->K = x->B = NAN;
    const jv_tensor *t0 = operand_tensor(r, 0);
    jv_dtype dt = t0 ? t0->dtype : JV_DT_UNKNOWN;
    x->dtype = dt == JV_DT_BF16 || dt == JV_DT_F16 || dt == JV_DT_F32 || dt == JV_DT_F64 ? dt : JV_DT_UNKNOWN;
    x->layout = layout_of(r, 0);
    x->compute_bound = r->bound == JV_BOUND_COMPUTE;
    x->backward = r->bwd || (r->family_id < 0 && jv_op_is_backward(r->op_name));
    x->impl = JV_IMPL_UNKNOWN;
    const jv_family_facts *f = &r->facts;
    if (r->cat == JV_DCAT_CONV) {
        if (f->kh > 0) {
            x->has_ksize = 1;
            x->kh = f->kh;
            x->kw = f->kw;
            x->large_kernel = x->kh >= 5 || x->kw >= 5;
        }
    } else if (r->cat == JV_DCAT_BN) {
        x->impl = impl_of(r).impl;
        x->training = f->training;
        x->no_affine = x->impl == JV_IMPL_NATIVE && f->no_affine;
    } else if (r->cat == JV_DCAT_GEMM) {
        x->M = f->m;
        x->N = f->n;
        x->K = f->k;
        x->B = f->batch;
        x->skinny = !isnan(x->M) && !isnan(x->N) && (x->M <= 32 || x->N <= 32);
        x->small = !isnan(r->flops) && r->flops < 1e9;
    }
}

static double share_of(const jv_digest *d, double us) {
    return d->total_us > 0 ? 100.0 * us / d->total_us : 0.0;
}

/* time of row r at target efficiency t (%): count * roofline time / (t/100) */
static double time_at(const jv_drow *r, double t) {
    return r->count * r->roof_us / (t / 100.0);
}

static jv_status add_finding(jv_dfindings *f, size_t *cap, const jv_dfinding *x, jv_err *err) {
    if (JV_RESERVE(f->v, *cap, f->n + 1) != JV_OK) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (findings)");
    f->v[f->n++] = *x;
    return JV_OK;
}

const char *jv_confidence_name(jv_confidence c) {
    switch (c) {
    case JV_CONF_HIGH: return "high";
    case JV_CONF_MEDIUM: return "medium";
    default: return "low";
    }
}

/* the confidence of a finding's saving, by what it rests on (jv_confidence) */
static jv_confidence conf_of(jv_find_kind kind) {
    switch (kind) {
    case JV_FIND_ATTENTION: return JV_CONF_HIGH; /* measured pattern, lower bound */
    case JV_FIND_SLOW_OP: return JV_CONF_LOW;    /* roofline projection */
    default: return JV_CONF_MEDIUM;              /* measured time, upper bound or measured ceiling */
    }
}

static jv_dfinding finding_of(jv_find_kind kind, jv_dcat cat, jv_reco reco, double time_us, double gain_us,
                              double share) {
    jv_dfinding x = {kind, cat, reco, -1, -1, -1, time_us, gain_us, share, conf_of(kind), 50, 0, -1, 0};
    return x;
}

/* the significant rows of category c with their projections; the category's efficiency */
static void category_facts(const jv_digest *d, jv_dcat c, jv_fcat *fc) {
    memset(fc, 0, sizeof *fc);
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != c) continue;
        if (!isnan(r->roof_us) && r->roof_us > 0 && r->time_us > 0) {
            fc->roof_us += r->count * r->roof_us;
            fc->roof_time_us += r->time_us;
        }
        if (fc->nsig >= JV_FIND_TOP_IMPACT || r->percent < JV_FIND_SIGNIFICANT_PCT) continue;
        if (!r->eval.has_roof || r->eval.eff >= 80) continue;
        jv_fsig *s = &fc->sig[fc->nsig++];
        s->row = (uint32_t)i;
        s->finding = -1;
        for (int t = 0; t < JV_FIND_NTARGETS; t++) {
            jv_fproj *p = &s->proj[t];
            p->target = TARGETS[t];
            p->above = r->eval.eff >= TARGETS[t];
            if (p->above) continue;
            p->time_us = time_at(r, TARGETS[t]);
            p->gain_us = r->time_us - p->time_us;
            p->share = share_of(d, p->gain_us);
        }
    }
    fc->eff = fc->roof_time_us > 0 ? 100.0 * fc->roof_us / fc->roof_time_us : NAN;
}

static jv_status conv_facts(const jv_digest *d, jv_dfindings *f, size_t *cap, jv_err *err) {
    jv_fconv *cv = &f->conv;
    cv->finding = -1;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        const jv_frow *x = &f->rows[i];
        if (r->cat != JV_DCAT_CONV) continue;
        cv->layout_us += r->layout_us;
        if (x->layout.kind == JV_FLAYOUT_CONTIGUOUS && (x->layout.ndim == 4 || x->layout.ndim == 5))
            cv->nchw++;
        else if (x->layout.kind == JV_FLAYOUT_CHANNELS_LAST)
            cv->channels_last++;
        else
            cv->other++;
        if (!cv->nhwc_kernels) cv->nhwc_kernels = impl_of(r).nhwc;
        jv_fksize *g = &cv->ksize[!x->has_ksize ? JV_KSIZE_UNKNOWN : x->large_kernel ? JV_KSIZE_LARGE : JV_KSIZE_SMALL];
        g->rows++;
        g->time_us += r->time_us;
        g->compute_bound += x->compute_bound;
        if (!isnan(r->roof_us) && r->roof_us > 0) {
            g->roof_us += r->count * r->roof_us;
            g->roof_time_us += r->time_us;
        }
    }
    for (int k = 0; k < JV_KSIZE_COUNT; k++) {
        jv_fksize *g = &cv->ksize[k];
        g->eff = g->roof_time_us > 0 ? 100.0 * g->roof_us / g->roof_time_us : NAN;
    }
    cv->internal = cv->layout_us > 0 && !cv->nchw;
    if (!(cv->layout_us > 0 && cv->nchw > 0)) return JV_OK;
    jv_dfinding x = finding_of(JV_FIND_CONV_LAYOUT, JV_DCAT_CONV, JV_RECO_CHANNELS_LAST, cv->layout_us, cv->layout_us,
                               share_of(d, cv->layout_us));
    cv->finding = (int)f->n;
    return add_finding(f, cap, &x, err);
}

static jv_status bn_facts(const jv_digest *d, jv_dfindings *f, size_t *cap, jv_err *err) {
    jv_fbn *b = &f->bn;
    b->finding = -1;
    b->tbs = b->pct_hbm = b->vs_base = NAN;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        const jv_frow *x = &f->rows[i];
        if (r->cat != JV_DCAT_BN) continue;
        b->rows++;
        int native = x->impl == JV_IMPL_NATIVE;
        b->native += native;
        if (native) b->native_us += r->time_us;
        b->bf16 += x->dtype == JV_DT_BF16;
        b->fp64 += x->dtype == JV_DT_F64;
        b->channels_last += x->layout.kind == JV_FLAYOUT_CHANNELS_LAST;
        b->no_affine += x->no_affine;
    }
    b->why_cl = d->is_amd && b->channels_last;
    b->why_fp64 = d->is_amd && b->fp64;
    b->why_other = b->native > b->bf16 + b->channels_last + b->fp64 + b->no_affine;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != JV_DCAT_BN || isnan(r->bytes) || !(r->time_us > 0)) continue;
        b->bytes += r->bytes * r->count;
        b->time_us += r->time_us;
    }
    b->has_bw = b->time_us > 0;
    if (!b->has_bw) return JV_OK;
    b->tbs = b->bytes / (b->time_us * 1e-6) / 1e12;
    if (d->has_hw) b->pct_hbm = 100.0 * b->tbs * 1e3 / d->hw.mem_bw_gbps;
    if (!isnan(d->baseline.tbs)) b->vs_base = b->tbs / d->baseline.tbs;
    b->below_base = !isnan(d->baseline.tbs) && d->baseline.tbs > b->tbs;
    if (!b->below_base) return JV_OK;
    b->base_us = b->bytes / (d->baseline.tbs * 1e12) * 1e6;
    b->gain_us = b->time_us - b->base_us;
    b->share = share_of(d, b->gain_us);
    if (!(d->total_us > 0 && 100.0 * b->time_us / d->total_us >= 5)) return JV_OK;
    jv_dfinding x =
        finding_of(JV_FIND_BN_BANDWIDTH, JV_DCAT_BN, JV_RECO_FOLD_OR_COMPILE, b->time_us, b->gain_us, b->share);
    b->finding = (int)f->n;
    return add_finding(f, cap, &x, err);
}

static void gemm_facts(const jv_digest *d, jv_dfindings *f) {
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        const jv_frow *x = &f->rows[i];
        if (r->cat != JV_DCAT_GEMM || !(x->skinny || x->small)) continue;
        f->gemm.small_rows++;
        f->gemm.small_us += r->time_us;
    }
}

static jv_status fusion_facts(const jv_digest *d, jv_dfindings *f, size_t *cap, jv_err *err) {
    for (size_t i = 0; i < d->nfusion; i++) {
        const jv_dfusion *x = &d->fusion[i];
        jv_ffusion *p = &f->fusion[i];
        p->fused_us = x->ew_kernels ? x->instances * x->ew_us / x->ew_kernels : x->ew_us;
        p->gain_us = x->ew_us - p->fused_us;
        p->share = share_of(d, p->gain_us);
        p->norm = strstr(x->name, "Norm") != NULL;
        if (!d->cat_rows[JV_DCAT_EW] || i >= MAX_FUSION_FINDINGS || !(d->total_us > 0) ||
            !(p->gain_us >= 0.005 * d->total_us))
            continue;
        if (jv_comm_is_ddp_name(x->name)) continue; /* DDP's own copies: no fusion advice (issue 19, item 6) */
        jv_dfinding y = finding_of(JV_FIND_FUSION, JV_DCAT_EW, JV_RECO_FUSE, x->ew_us, p->gain_us, p->share);
        y.fusion = (int32_t)i;
        JV_CHECK(add_finding(f, cap, &y, err));
    }
    return JV_OK;
}

/* eager attention patterns whose ops between the two products take >= 0.5 % of GPU kernel time: what one
 * fused attention kernel would save at least (those ops run on chip there) */
static jv_status attention_facts(const jv_digest *d, jv_dfindings *f, size_t *cap, jv_err *err) {
    for (size_t i = 0; i < d->nattention && i < MAX_FUSION_FINDINGS; i++) {
        const jv_dattention *x = &d->attention[i];
        if (!(d->total_us > 0) || !(x->between_us >= 0.005 * d->total_us)) continue;
        jv_dfinding y = finding_of(JV_FIND_ATTENTION, JV_DCAT_GEMM, JV_RECO_SDPA, x->total_us, x->between_us,
                                   share_of(d, x->between_us));
        y.fusion = (int32_t)i;
        JV_CHECK(add_finding(f, cap, &y, err));
    }
    return JV_OK;
}

/* the per-op findings of category c: its significant rows below 50 % of peak that a change of kernel would
 * speed up by >= 0.5 % of GPU kernel time, the two largest, unless a category-wide finding covers them */
static jv_status slow_ops(const jv_digest *d, jv_dcat c, jv_dfindings *f, size_t *cap, jv_err *err) {
    jv_fcat *fc = &f->cat[c];
    int covered = c == JV_DCAT_BN && f->bn.finding >= 0, nrec = 0;
    for (int k = 0; k < fc->nsig; k++) {
        const jv_drow *r = &d->rows[fc->sig[k].row];
        const jv_row_eval *e = &r->eval;
        /* the largest ops are always covered: past the per-category cap, in the categories without a findings
         * file (Other), and from 50 % of peak to near peak (projected at near peak) */
        int large = share_of(d, r->time_us) >= JV_FIND_LARGE_PCT;
        double target = large && e->eff >= 50 ? 100 * JV_JUDGE_NEAR_EFF : 50;
        double g50 = r->time_us - time_at(r, target);
        int actionable = e->judgement != JV_JUDGE_HW_LIMITED && e->judgement != JV_JUDGE_LAUNCH &&
                         e->judgement != JV_JUDGE_NEAR && d->total_us > 0 && g50 >= 0.005 * d->total_us;
        if (c == JV_DCAT_OTHER && !large) continue;
        if (!(e->eff < target && (nrec < JV_FIND_SLOW_PER_CAT || large) && !covered && actionable)) continue;
        nrec++;
        jv_dfinding x = finding_of(JV_FIND_SLOW_OP, c, JV_RECO_PROFILE, r->time_us, g50, share_of(d, g50));
        x.target_pct = target;
        x.row = (int32_t)fc->sig[k].row;
        x.sig = k;
        fc->sig[k].finding = (int)f->n;
        JV_CHECK(add_finding(f, cap, &x, err));
    }
    return JV_OK;
}

/* the tie-break of equal savings: the findings' anchors in text order (bandwidth, fusion, impact-1..5, layout) */
static int anchor_order(const jv_dfinding *x) {
    switch (x->kind) {
    case JV_FIND_BN_BANDWIDTH: return 0;
    case JV_FIND_FUSION: return 1;
    case JV_FIND_ATTENTION: return 1;
    case JV_FIND_SLOW_OP: return 2 + x->sig;
    case JV_FIND_CONV_LAYOUT: break;
    }
    return 2 + JV_FIND_TOP_IMPACT;
}

static int cmp_gain(const void *a, const void *b) {
    const jv_dfinding *x = *(const jv_dfinding *const *)a, *y = *(const jv_dfinding *const *)b;
    if (x->gain_us != y->gain_us) return x->gain_us > y->gain_us ? -1 : 1;
    return anchor_order(x) - anchor_order(y);
}

/* The rows whose kernel time finding x's saving draws on, with that time, into row/us (cap >= d->nrows and >=
 * JV_DPATTERN_ROWS); returns how many. */
static size_t claims_of(const jv_digest *d, const jv_dfinding *x, uint32_t *row, double *us) {
    size_t n = 0;
    const jv_drowset *set = NULL;
    switch (x->kind) {
    case JV_FIND_SLOW_OP:
        row[0] = (uint32_t)x->row;
        us[0] = d->rows[x->row].time_us;
        return 1;
    case JV_FIND_ATTENTION: set = &d->attention[x->fusion].rows; break;
    case JV_FIND_FUSION: set = &d->fusion[x->fusion].rows; break;
    case JV_FIND_BN_BANDWIDTH:
    case JV_FIND_CONV_LAYOUT:
        for (size_t i = 0; i < d->nrows; i++) {
            const jv_drow *r = &d->rows[i];
            double t = x->kind == JV_FIND_CONV_LAYOUT ? (r->cat == JV_DCAT_CONV ? r->layout_us : 0)
                                                      : (r->cat == JV_DCAT_BN && !isnan(r->bytes) ? r->time_us : 0);
            if (t > 0) row[n] = (uint32_t)i, us[n++] = t;
        }
        return n;
    }
    for (int k = 0; set && k < set->n; k++)
        row[n] = set->row[k], us[n++] = set->us[k];
    return n;
}

/* No kernel time in two recommendations: in the order of their savings, each finding claims the time of its rows
 * that no larger finding claimed; its saving shrinks by the share already claimed (overlap_us), and a finding
 * whose time is nearly all claimed (covered) is not recommended. */
static jv_status claim_time(const jv_digest *d, jv_dfindings *f, const jv_dfinding **sorted, jv_err *err) {
    size_t cap = d->nrows + JV_DPATTERN_ROWS;
    double *claimed = calloc(cap, sizeof *claimed), *us = malloc(cap * sizeof *us);
    int32_t *owner = malloc(cap * sizeof *owner);
    uint32_t *row = malloc(cap * sizeof *row);
    if (!claimed || !us || !owner || !row) {
        free(claimed), free(us), free(owner), free(row);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (findings)");
    }
    for (size_t i = 0; i < cap; i++)
        owner[i] = -1;
    for (size_t i = 0; i < f->n; i++) {
        jv_dfinding *x = &f->v[sorted[i] - f->v];
        if (!(x->gain_us > 0)) continue;
        size_t n = claims_of(d, x, row, us);
        double tot = 0, avail = 0, most = 0;
        for (size_t k = 0; k < n; k++) {
            double free_us = d->rows[row[k]].time_us - claimed[row[k]];
            double take = us[k] < free_us ? us[k] : free_us > 0 ? free_us : 0;
            tot += us[k];
            avail += take;
            if (us[k] - take > most && owner[row[k]] >= 0) most = us[k] - take, x->overlap_with = owner[row[k]];
        }
        if (tot > 0 && avail < tot * (1 - 1e-9)) {
            x->overlap_us = tot - avail;
            x->covered = avail <= (1 - JV_FIND_COVERED_SHARE) * tot;
            x->gain_us *= avail / tot;
            x->share = share_of(d, x->gain_us);
        }
        if (x->covered) continue;
        for (size_t k = 0; k < n; k++) {
            double free_us = d->rows[row[k]].time_us - claimed[row[k]];
            claimed[row[k]] += us[k] < free_us ? us[k] : free_us > 0 ? free_us : 0;
            if (owner[row[k]] < 0) owner[row[k]] = (int32_t)(x - f->v);
        }
    }
    free(claimed), free(us), free(owner), free(row);
    return JV_OK;
}

static jv_status rank_findings(const jv_digest *d, jv_dfindings *f, jv_err *err) {
    const jv_dfinding **sorted = malloc((f->n ? f->n : 1) * sizeof *sorted);
    f->rank = malloc((f->n ? f->n : 1) * sizeof *f->rank);
    if (!sorted || !f->rank) {
        free(sorted);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (findings)");
    }
    for (size_t i = 0; i < f->n; i++)
        sorted[i] = &f->v[i];
    qsort(sorted, f->n, sizeof *sorted, cmp_gain);
    jv_status s = claim_time(d, f, sorted, err);
    qsort(sorted, f->n, sizeof *sorted, cmp_gain); /* by the savings left */
    for (size_t i = 0; i < f->n && s == JV_OK; i++)
        if (sorted[i]->gain_us > 0 && !sorted[i]->covered) f->rank[f->nrank++] = (uint32_t)(sorted[i] - f->v);
    free(sorted);
    return s;
}

/* the finding holding row i's time: the first recommended finding (in the recommendations' order) that claims it */
static int rec_of_row(const jv_digest *d, const jv_dfindings *f, size_t i, uint32_t *row, double *us) {
    for (int k = 0; k < f->nrecs; k++) {
        if (f->recs[k].is_timeline) continue;
        size_t n = claims_of(d, &f->v[f->recs[k].item], row, us);
        for (size_t j = 0; j < n; j++)
            if (row[j] == i && us[j] > 0) return k;
    }
    return -1;
}

/* the ops with >= JV_FIND_LARGE_PCT of kernel time and the recommendation covering each */
static jv_status large_ops(const jv_digest *d, jv_dfindings *f, jv_err *err) {
    size_t cap = d->nrows + JV_DPATTERN_ROWS;
    uint32_t *row = malloc(cap * sizeof *row);
    double *us = malloc(cap * sizeof *us);
    if (!row || !us) {
        free(row), free(us);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (findings)");
    }
    f->nlarge = 0;
    for (size_t i = 0; i < d->nrows && f->nlarge < JV_FIND_MAX_LARGE; i++) {
        const jv_drow *r = &d->rows[i];
        if (share_of(d, r->time_us) < JV_FIND_LARGE_PCT) continue;
        jv_flarge *l = &f->large[f->nlarge++];
        l->row = (uint32_t)i;
        l->rec = rec_of_row(d, f, i, row, us);
        for (int k = 0; k < f->nrecs && l->rec < 0 && r->transfer != JV_XFER_NONE && r->transfer != JV_XFER_MEMSET; k++)
            if (f->recs[k].is_timeline && f->recs[k].item == JV_TL_EXPOSED_MEMCPY) l->rec = k; /* a copy's time */
        l->at_limit = l->rec < 0 && (r->eval.judgement == JV_JUDGE_NEAR || r->eval.judgement == JV_JUDGE_HW_LIMITED);
    }
    free(row), free(us);
    return JV_OK;
}

static double pct_of(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* the timeline items, the bottleneck ranking and the recommendations' order (after rank_findings) */
static void timeline_and_ranking(const jv_digest *d, jv_dfindings *f) {
    const jv_gpu_timeline *g = &d->tl;
    jv_ftimeline *tl = &f->tl;
    tl->computation_pct = pct_of((double)g->computation, (double)g->total);
    tl->timeline_first = g->total > 0 && tl->computation_pct < 95;
    tl->ns[JV_TL_IDLE] = g->idle;
    tl->ns[JV_TL_EXPOSED_COMM] = g->exposed_comm;
    tl->ns[JV_TL_EXPOSED_MEMCPY] = g->exposed_memcpy;
    for (int i = 0; i < JV_TL_COUNT; i++) {
        tl->share[i] = pct_of((double)tl->ns[i], (double)g->total);
        tl->recommend[i] = g->total > 0 && (tl->share[i] >= 5 || (tl->computation_pct < 95 && tl->share[i] >= 1));
    }
    double busy_us = (double)g->busy / 1e3;
    tl->stream_overlap_us = busy_us > 0 && d->total_us > 1.01 * busy_us ? d->total_us - busy_us : 0;
    tl->memcpy_top = JV_XFER_NONE;
    for (int x = 0; x < JV_XFER_COUNT; x++)
        if (d->memcpy_us[x] > 0 && (tl->memcpy_top == JV_XFER_NONE || d->memcpy_us[x] > d->memcpy_us[tl->memcpy_top]))
            tl->memcpy_top = x;
    tl->idle_top = JV_IDLE_HOST; /* no split: the general advice */
    for (int c = 0; c < JV_IDLE_COUNT; c++) {
        tl->idle_share[c] = pct_of((double)g->idle_cause[c], (double)g->idle);
        if (g->idle_cause[c] > g->idle_cause[tl->idle_top]) tl->idle_top = c;
    }
    /* the ranking: timeline items >= 1 % of the timeline, categories >= 1 % of kernel time */
    jv_dcat order[JV_DCAT_COUNT];
    jv_digest_cat_order(d, order);
    f->nranking = 0;
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0) == tl->timeline_first) {
            for (int i = 0; i < JV_TL_COUNT; i++)
                if (tl->ns[i] > 0 && tl->share[i] >= 1)
                    f->ranking[f->nranking++] = (jv_frank_entry){.is_timeline = 1, .item = i};
        } else {
            for (int k = 0; k < JV_DCAT_COUNT; k++)
                if (d->cat_us[order[k]] > 0 && pct_of(d->cat_us[order[k]], d->total_us) >= 1)
                    f->ranking[f->nranking++] = (jv_frank_entry){.is_timeline = 0, .item = (int)order[k]};
        }
    }
    /* the exposed communication: its DDP-broadcast and waiting parts apart when they are large enough, the rest
     * as the item (no moment in two parts: jv_comm_evidence) */
    tl->comm_ns[JV_COMM_REST] = tl->ns[JV_TL_EXPOSED_COMM];
    for (int p = 0; p < JV_COMM_REST && tl->recommend[JV_TL_EXPOSED_COMM]; p++) {
        int64_t x = d->comm.exposed[p];
        if (!(x > 0 && (double)x >= JV_FIND_COMM_PART_SHARE * (double)tl->ns[JV_TL_EXPOSED_COMM])) continue;
        tl->comm_recommend[p] = 1;
        tl->comm_ns[p] = x;
        tl->comm_ns[JV_COMM_REST] -= x;
    }
    tl->comm_recommend[JV_COMM_REST] = tl->recommend[JV_TL_EXPOSED_COMM] && tl->comm_ns[JV_COMM_REST] > 0;
    /* the recommendations: the timeline items (measured time, an upper bound) and the ranked findings in one list
     * by projected saving (µs), at most JV_FIND_MAX_RECS; equal savings: the timeline items first */
    jv_frec all[JV_TL_COUNT + JV_COMM_PARTS + JV_FIND_MAX_RECS];
    int n = 0;
    for (int i = 0; i < JV_TL_COUNT; i++) {
        if (!tl->recommend[i]) continue;
        if (i != JV_TL_EXPOSED_COMM) {
            all[n++] = (jv_frec){1, (uint32_t)i, (double)tl->ns[i] / 1e3, JV_CONF_MEDIUM, JV_COMM_REST};
            continue;
        }
        for (int p = 0; p < JV_COMM_PARTS; p++)
            if (tl->comm_recommend[p])
                all[n++] = (jv_frec){1, (uint32_t)i, (double)tl->comm_ns[p] / 1e3, JV_CONF_MEDIUM, p};
    }
    for (size_t i = 0; i < f->nrank && i < JV_FIND_MAX_RECS; i++)
        all[n++] = (jv_frec){0, f->rank[i], f->v[f->rank[i]].gain_us, f->v[f->rank[i]].conf, JV_COMM_REST};
    f->nrecs = 0;
    for (int taken = 0; taken < n && f->nrecs < JV_FIND_MAX_RECS; taken++) { /* a selection: n is small */
        int best = -1;
        for (int i = 0; i < n; i++)
            if (all[i].gain_us >= 0 && (best < 0 || all[i].gain_us > all[best].gain_us)) best = i;
        if (best < 0) break;
        f->recs[f->nrecs++] = all[best];
        all[best].gain_us = -1;
    }
}

/* the categories with findings files, in the order they are stated */
static const jv_dcat CATS[] = {JV_DCAT_GEMM, JV_DCAT_CONV, JV_DCAT_BN, JV_DCAT_EW};

static jv_status compute(const jv_digest *d, jv_dfindings *f, jv_err *err) {
    f->nrows = d->nrows;
    f->nfusion = d->nfusion;
    f->rows = calloc(d->nrows ? d->nrows : 1, sizeof *f->rows);
    f->fusion = calloc(d->nfusion ? d->nfusion : 1, sizeof *f->fusion);
    if (!f->rows || !f->fusion) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (findings)");
    for (size_t i = 0; i < d->nrows; i++)
        row_facts(&d->rows[i], &f->rows[i]);
    for (int c = 0; c < JV_DCAT_COUNT; c++)
        category_facts(d, (jv_dcat)c, &f->cat[c]);
    gemm_facts(d, f);
    size_t cap = 0;
    /* the order of the findings files: a category's own findings, then its per-op ones; none without rows */
    for (size_t k = 0; k < sizeof CATS / sizeof CATS[0]; k++) {
        jv_dcat c = CATS[k];
        if (c == JV_DCAT_CONV)
            JV_CHECK(conv_facts(d, f, &cap, err));
        else if (c == JV_DCAT_BN)
            JV_CHECK(bn_facts(d, f, &cap, err));
        else if (c == JV_DCAT_EW)
            JV_CHECK(fusion_facts(d, f, &cap, err));
        else if (c == JV_DCAT_GEMM)
            JV_CHECK(attention_facts(d, f, &cap, err));
        if (d->cat_rows[c]) JV_CHECK(slow_ops(d, c, f, &cap, err));
    }
    if (d->cat_rows[JV_DCAT_OTHER]) JV_CHECK(slow_ops(d, JV_DCAT_OTHER, f, &cap, err)); /* its largest ops only */
    JV_CHECK(rank_findings(d, f, err));
    timeline_and_ranking(d, f);
    return large_ops(d, f, err);
}

jv_status jv_findings_compute(jv_digest *d, jv_err *err) {
    jv_findings_free(d->findings);
    d->findings = calloc(1, sizeof *d->findings);
    if (!d->findings) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (findings)");
    jv_status s = compute(d, d->findings, err);
    if (s != JV_OK) {
        jv_findings_free(d->findings);
        d->findings = NULL;
    }
    return s;
}

void jv_findings_free(jv_dfindings *f) {
    if (!f) return;
    free(f->rows);
    free(f->fusion);
    free(f->v);
    free(f->rank);
    free(f);
}

const jv_dfindings *jv_digest_findings(const jv_digest *d) {
    return d->findings;
}
