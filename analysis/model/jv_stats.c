/* jv_stats: column statistics and kernel summaries. */
#include "jv_stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_output.h"
#include "jv_pyrepr.h"
#include "jv_sort.h"
#include "jv_strbuf.h"

jv_stats jv_stats_of(double *v, size_t n, int ddof) {
    jv_stats s = {NAN, NAN, NAN, NAN, NAN, 0, 0};
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) v[m++] = v[i];
    s.n = m;
    if (m == 0) return s;
    for (size_t i = 0; i < m; i++)
        s.sum += v[i];
    s.mean = s.sum / (double)m;
    double ss = 0;
    for (size_t i = 0; i < m; i++)
        ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.std = m > (size_t)ddof ? sqrt(ss / (double)(m - (size_t)ddof)) : NAN;
    s.median = jv_median_sort(v, m);
    s.min = v[0];
    s.max = v[m - 1];
    return s;
}

typedef struct {
    const char *name;
    int stream;
    jv_stats st;
    size_t pos;
} kentry;

static int cmp_kentry(const void *a, const void *b) {
    const kentry *x = a, *y = b;
    if (x->st.sum != y->st.sum) return x->st.sum < y->st.sum ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* heap[0..n) a max-heap by cmp_kentry: sift the entry at i down */
static void kheap_down(kentry *heap, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, big = i;
        if (l < n && cmp_kentry(&heap[l], &heap[big]) > 0) big = l;
        if (r < n && cmp_kentry(&heap[r], &heap[big]) > 0) big = r;
        if (big == i) return;
        kentry t = heap[i];
        heap[i] = heap[big];
        heap[big] = t;
        i = big;
    }
}

int jv_kernel_details(const jv_trace *tr, const jv_klist *rows, size_t n, int sorted, char **full, char **trunc) {
    *full = *trunc = NULL;
    const jv_klist *tmpl = NULL;
    for (size_t i = 0; i < n && !tmpl; i++)
        if (rows[i].n) tmpl = &rows[i];
    jv_strbuf fb = JV_STRBUF_INIT, tb = JV_STRBUF_INIT;
    if (!tmpl) return jv_sb_puts(&fb, "[]") && (*full = jv_sb_take(&fb)) != NULL;
    /* the cell lists at most JV_KERNEL_DETAILS_MAX kernels (the caller warns): unsorted, the first ones; sorted,
       the first ones of the order cmp_kentry gives (a total order), kept in a bounded max-heap while all are
       summed, so that memory and time stay O(MAX) and O(n log MAX) for a launch of millions of kernels */
    size_t nall = tmpl->n, nk = nall < JV_KERNEL_DETAILS_MAX ? nall : JV_KERNEL_DETAILS_MAX;
    double *durs = malloc((n ? n : 1) * sizeof *durs);
    kentry *ke = malloc(nk * sizeof *ke);
    int ok = durs && ke;
    size_t nheap = 0;
    for (size_t k = 0; ok && k < (sorted ? nall : nk); k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (rows[i].n == nall) durs[m++] = (double)jv_ev_dur(tr, &tr->ev[rows[i].ev[k]]) / 1e3;
        const jv_event *e = &tr->ev[tmpl->ev[k]];
        kentry x = {jv_trace_str(tr, jv_ev_name(tr, e)), jv_ev_gpu(tr, e)->stream, jv_stats_of(durs, m, 0), k};
        if (!sorted) {
            ke[k] = x;
        } else if (nheap < nk) { /* sift up */
            size_t c = nheap++;
            while (c > 0 && cmp_kentry(&ke[(c - 1) / 2], &x) < 0) {
                ke[c] = ke[(c - 1) / 2];
                c = (c - 1) / 2;
            }
            ke[c] = x;
        } else if (cmp_kentry(&x, &ke[0]) < 0) {
            ke[0] = x;
            kheap_down(ke, nheap, 0);
        }
    }
    if (ok && sorted) qsort(ke, nk, sizeof *ke, cmp_kentry);
    ok = ok && jv_sb_puts(&fb, "[") && jv_sb_puts(&tb, "[");
    for (size_t k = 0; ok && k < nk; k++) {
        const jv_stats *st = &ke[k].st;
        char *qn = jv_pyrepr_quote(ke[k].name);
        char tn[80];
        if (strlen(ke[k].name) > 64)
            snprintf(tn, sizeof tn, "%.64s...", ke[k].name);
        else
            snprintf(tn, sizeof tn, "%s", ke[k].name);
        char *qt = jv_pyrepr_quote(tn);
        char b[7][48];
        ok = qn && qt &&
             jv_sb_printf(&fb,
                          "%s{'name': %s, 'stream': %d, 'count': %zu, 'total_duration_us': %s, "
                          "'mean_duration_us': %s, 'median_duration_us': %s, 'std_dev_duration_us': %s, "
                          "'min_duration_us': %s, 'max_duration_us': %s}",
                          k ? ", " : "", qn, ke[k].stream, st->n, jv_fmt_pyfloat(b[0], 48, st->sum),
                          jv_fmt_pyfloat(b[1], 48, st->mean), jv_fmt_pyfloat(b[2], 48, st->median),
                          jv_fmt_pyfloat(b[3], 48, st->std), jv_fmt_pyfloat(b[4], 48, st->min),
                          jv_fmt_pyfloat(b[5], 48, st->max)) &&
             jv_sb_printf(&tb, "%s{'name': %s, 'stream': %d, 'mean_duration_us': %s}", k ? ", " : "", qt, ke[k].stream,
                          jv_fmt_pyfloat(b[6], 48, nearbyint(st->mean * 100) / 100));
        free(qn);
        free(qt);
    }
    ok = ok && jv_sb_puts(&fb, "]") && jv_sb_puts(&tb, "]");
    free(durs);
    free(ke);
    if (ok) {
        *full = jv_sb_take(&fb);
        *trunc = jv_sb_take(&tb);
        ok = *full && *trunc;
    }
    if (!ok) {
        jv_sb_free(&fb);
        jv_sb_free(&tb);
        free(*full);
        free(*trunc);
        *full = *trunc = NULL;
    }
    return ok;
}
