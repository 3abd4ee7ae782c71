/* jv_enclose: the enclosing-event index (jv_enclose.h). */
#include "jv_enclose.h"

#include <stdlib.h>

#include "jv_sort.h"

static int cmp_thread_ts(const void *a, const void *b, void *ctx) {
    const jv_trace *tr = ctx;
    const jv_event *x = &tr->ev[*(const uint32_t *)a], *y = &tr->ev[*(const uint32_t *)b];
    if (jv_ev_thread(tr, x) != jv_ev_thread(tr, y)) return jv_ev_thread(tr, x) < jv_ev_thread(tr, y) ? -1 : 1;
    return (jv_ev_ts(tr, x) > jv_ev_ts(tr, y)) - (jv_ev_ts(tr, x) < jv_ev_ts(tr, y));
}

jv_status jv_enclose_build(const jv_trace *tr, int (*keep)(const jv_trace *tr, size_t i, void *ctx), void *ctx,
                           jv_enclose *out) {
    out->ev = NULL;
    out->n = 0;
    size_t cap = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        if (!keep(tr, i, ctx)) continue;
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            uint32_t *na = realloc(out->ev, nc * sizeof *na);
            if (!na) {
                jv_enclose_free(out);
                return JV_ERR_NOMEM;
            }
            out->ev = na;
            cap = nc;
        }
        out->ev[out->n++] = (uint32_t)i;
    }
    jv_status s = out->n > 1 ? jv_sort_stable(out->ev, out->n, sizeof *out->ev, cmp_thread_ts, (void *)tr) : JV_OK;
    if (s != JV_OK) jv_enclose_free(out);
    return s;
}

uint32_t jv_enclose_find(const jv_enclose *x, const jv_trace *tr, uint32_t ev, int look,
                         int (*accept)(const char *name)) {
    if (!x->n) return JV_NONE32;
    const jv_event *e = &tr->ev[ev];
    size_t lo = 0, hi = x->n; /* the first indexed event after (thread, ts) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const jv_event *a = &tr->ev[x->ev[mid]];
        if (jv_ev_thread(tr, a) < jv_ev_thread(tr, e) ||
            (jv_ev_thread(tr, a) == jv_ev_thread(tr, e) && jv_ev_ts(tr, a) <= jv_ev_ts(tr, e)))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo, seen = 0; k-- > 0 && seen < (size_t)look; seen++) {
        const jv_event *a = &tr->ev[x->ev[k]];
        if (jv_ev_thread(tr, a) != jv_ev_thread(tr, e)) break;
        if (jv_ev_end(tr, a) >= jv_ev_end(tr, e) && (!accept || accept(jv_trace_str(tr, jv_ev_name(tr, a)))))
            return x->ev[k];
    }
    return JV_NONE32;
}

void jv_enclose_free(jv_enclose *x) {
    free(x->ev);
    x->ev = NULL;
    x->n = 0;
}
