/* jv_verify: a device output against the CPU reference (see jv_verify.h). */
#include "jv_verify.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double jv_verify_tol(jv_dtype dt) {
    switch (dt) {
    case JV_DT_F64: return 1e-9;
    case JV_DT_F32: return 1e-3; /* cuDNN and PyTorch run fp32 convolutions in TF32 by default */
    case JV_DT_F16: return 2e-3;
    case JV_DT_BF16: return 1.6e-2;
    default: return 0; /* integers and bool: exact */
    }
}

double jv_verify_tol_for(jv_dtype dt, double acc_len, double fp32_tol) {
    const double k = acc_len > 1 ? acc_len : 1;
    switch (dt) {
    case JV_DT_F64: return fmax(jv_verify_tol(dt), JV_VERIFY_ACC * 0x1p-53 * sqrt(k));
    case JV_DT_F32: return fp32_tol > 0 ? fp32_tol : fmax(1e-5, JV_VERIFY_ACC * 0x1p-24 * sqrt(k));
    case JV_DT_F16:
    case JV_DT_BF16: return fmax(jv_verify_tol(dt), JV_VERIFY_ACC * 0x1p-24 * sqrt(k));
    default: return 0; /* integers and bool: exact */
    }
}

/* 1 when every byte of the element is the 0xFF poison */
static int poisoned(const void *base, int64_t off, size_t es) {
    const unsigned char *p = (const unsigned char *)base + (size_t)off * es;
    for (size_t i = 0; i < es; i++)
        if (p[i] != 0xFF) return 0;
    return 1;
}

/* elements of dev holding the poison, over the whole output */
static int64_t poison_all(const jv_tensor *t, const void *dev, size_t es) {
    int64_t numel = jv_tensor_numel(t), u = 0;
    if (jv_tensor_extent(t) == numel) { /* dense: every storage element is one element */
        for (int64_t k = 0; k < numel; k++)
            u += poisoned(dev, k, es);
        return u;
    }
    for (int64_t k = 0; k < numel; k++)
        u += poisoned(dev, jv_tensor_offset_at(t, k), es);
    return u;
}

int jv_verify_output(const jv_operand *o, const void *dev, const void *ref, const int64_t *idx, int64_t n,
                     jv_verify *v) {
    return jv_verify_output_scan(o, dev, ref, idx, n, 0, v);
}

int jv_verify_output_scan(const jv_operand *o, const void *dev, const void *ref, const int64_t *idx, int64_t n,
                          int scan_all, jv_verify *v) {
    const jv_tensor *t = &o->t;
    size_t es = jv_dtype_size(t->dtype);
    int64_t total = idx ? n : jv_tensor_numel(t);
    double num = 0, den = 0, maxabs = 0, sdev = 0, sref = 0, ssd = 0, ssr = 0, wsd = 0, wsr = 0, wref = 0;
    int64_t unwritten = 0, nans = 0, mism = 0, finite = 0;
    /* pass 1: poison, non-finite values, the relative L2 error, sums, the reference's RMS */
    for (int64_t k = 0; k < total; k++) {
        int64_t li = idx ? idx[k] : k, off = jv_tensor_offset_at(t, li);
        double w = (double)(li % JV_VERIFY_WMOD + 1);
        /* the poison pattern is a NaN for floats; an integer result may equal it (-1) */
        if (poisoned(dev, off, es) && (jv_dtype_is_float(t->dtype) || !poisoned(ref, off, es))) {
            unwritten++;
            continue;
        }
        double d = jv_dtype_load(t->dtype, dev, off), r = jv_dtype_load(t->dtype, ref, off);
        if (isnan(r) || isinf(r)) { /* the reference is not finite: the device must match exactly */
            if (!(isnan(r) && isnan(d)) && d != r) mism++;
            continue;
        }
        if (isnan(d)) {
            nans++;
            continue;
        }
        double e = fabs(d - r);
        if (isinf(d))
            mism++;
        else {
            num += e * e;
            if (e > maxabs) maxabs = e;
            sdev += fabs(d);
            ssd += d;
            wsd += w * d;
        }
        den += r * r;
        sref += fabs(r);
        ssr += r;
        wsr += w * r;
        wref += w * fabs(r);
        finite++;
    }
    double tol = jv_verify_tol_for(t->dtype, v->acc_len, v->fp32_tol);
    double rel = den > 0 ? sqrt(num / den) : sqrt(num);
    double rms = finite > 0 ? sqrt(den / (double)finite) : 0;
    /* pass 2: each element against the reference's scale, blocks of 64 elements */
    int64_t elem_bad = 0, block_bad = 0;
    double max_elem = 0, bnum = 0, bden = 0;
    int bn = 0;
    for (int64_t k = 0; k < total; k++) {
        int64_t off = jv_tensor_offset_at(t, idx ? idx[k] : k);
        if (!poisoned(dev, off, es) || !jv_dtype_is_float(t->dtype)) {
            double d = jv_dtype_load(t->dtype, dev, off), r = jv_dtype_load(t->dtype, ref, off);
            if (!isnan(r) && !isinf(r) && !isnan(d) && !isinf(d)) {
                double e = fabs(d - r), scale = fabs(r) + rms;
                double x = scale > 0 ? e / scale : (e > 0 ? INFINITY : 0);
                if (x > max_elem) max_elem = x;
                if (e > JV_VERIFY_ELEM * tol * scale) elem_bad++;
                bnum += e * e;
                bden += r * r;
                bn++;
            }
        }
        if (bn == 64 || (k == total - 1 && bn > 0)) {
            double floor2 = 0.01 * rms * rms * bn; /* a block of near-zeros is judged against a tenth of the RMS */
            double brel = sqrt(bnum / (bden > floor2 ? bden : floor2 > 0 ? floor2 : 1));
            if (brel > JV_VERIFY_BLOCK * tol) block_bad++;
            bnum = bden = 0;
            bn = 0;
        }
    }
    /* checksums: sum(|x|), sum(x) against sum(|r|), sum(w x) against sum(w |r|) */
    double srel = sref > 0 ? fabs(sdev - sref) / sref : (sdev > 0 ? INFINITY : 0);
    double s2 = sref > 0 ? fabs(ssd - ssr) / sref : (ssd != 0 ? INFINITY : 0);
    double s3 = wref > 0 ? fabs(wsd - wsr) / wref : (wsd != 0 ? INFINITY : 0);
    if (s2 > srel) srel = s2;
    if (s3 > srel) srel = s3;
    /* sampled: the poison anywhere in a float output (the sampled elements are among them) */
    if (scan_all && jv_dtype_is_float(t->dtype)) unwritten = poison_all(t, dev, es);
    int sum_bad = srel > JV_VERIFY_SUM * tol;
    v->checked += total;
    v->unwritten += unwritten;
    v->nan += nans + mism;
    v->elem_bad += elem_bad;
    v->block_bad += block_bad;
    v->sum_bad += sum_bad;
    if (max_elem > v->max_elem) v->max_elem = max_elem;
    if (srel > v->sum_rel) v->sum_rel = srel;
    int ok = unwritten == 0 && nans == 0 && mism == 0 && rel <= tol && elem_bad == 0 && block_bad == 0 && !sum_bad;
    /* rel_l2, tol and worst describe one output: the first that failed, else the one with the largest error */
    if ((!ok && !v->failed_output) || (!v->failed_output && (!v->done || rel >= v->rel_l2))) {
        v->rel_l2 = rel;
        v->tol = tol;
        snprintf(v->worst, sizeof v->worst, "%s", o->name);
    }
    if (!ok) v->failed_output = 1;
    v->sum_abs_dev += sdev;
    v->sum_abs_ref += sref;
    if (maxabs > v->max_abs) v->max_abs = maxabs;
    v->done = 1;
    return ok;
}
