/* jv_callstack: children lists are built on demand for the query. */
#include "jv_callstack.h"

#include <stdlib.h>
#include <string.h>

#include "jv_pyrepr.h"

static void print_repr(FILE *f, const jv_trace *tr, const char *label, uint32_t raw) {
    if (!raw) return;
    char *s = NULL;
    if (jv_pyrepr(jv_trace_str(tr, raw), jv_intern_len(&tr->strings, raw), &s) == JV_OK)
        fprintf(f, "  %s=%s", label, s);
    free(s);
}

static void print_event(FILE *f, const jv_trace *tr, const jv_tree *t, uint32_t i, int depth, const char *mark) {
    const jv_event *e = &tr->ev[i];
    jv_kind k = jv_ev_kind(tr, e);
    fprintf(f, "%s%*s[%u] %s  (%s, %.3f us", mark, depth * 2, "", jv_trace_uid(tr, i),
            jv_trace_str(tr, jv_ev_name(tr, e)), jv_kind_name(k), (double)jv_ev_dur(tr, e) / 1e3);
    if (jv_kind_is_gpu(k)) {
        const jv_gpuargs *g = jv_ev_gpu(tr, e);
        fprintf(f, ", device %d stream %d", g->device, g->stream);
    }
    fputc(')', f);
    if (k == JV_K_CPU_OP || k == JV_K_USER_ANNOT) {
        const jv_sig *s = &tr->sigs[jv_ev_sig(tr, e)];
        print_repr(f, tr, "Input Dims", s->dims);
        print_repr(f, tr, "Input type", s->types);
        int32_t seq = tr->op_ids[jv_ev_aux(tr, e)].seq;
        uint32_t fwd;
        if (seq != JV_NONE32I &&
            !strncmp(jv_trace_str(tr, jv_ev_name(tr, e)), "autograd::engine::evaluate_function:", 36) &&
            jv_map_get(&t->fwd_of_seq, seq, &fwd))
            fprintf(f, "  forward op: [%u] %s", jv_trace_uid(tr, fwd), jv_trace_str(tr, jv_ev_name(tr, &tr->ev[fwd])));
    }
    fputc('\n', f);
}

jv_status jv_callstack_print(FILE *f, const jv_trace *tr, const jv_tree *t, uint32_t uid, size_t max_lines,
                             jv_err *err) {
    uint32_t i = jv_trace_find_uid(tr, uid);
    if (i == JV_NONE32)
        JV_FAIL(err, JV_ERR_NOTFOUND,
                "UID %u is not a complete (ph \"X\") event of this trace (traceEvents holds %llu entries)", uid,
                (unsigned long long)tr->counts.events_total);
    /* chain: collect ancestors */
    size_t depth = 0, cap = 0;
    uint32_t *chain = NULL;
    for (uint32_t a = t->parent[i]; a != JV_NONE32; a = t->parent[a]) {
        if (JV_RESERVE(chain, cap, depth + 1) != JV_OK) {
            free(chain);
            JV_FAIL(err, JV_ERR_NOMEM, "out of memory");
        }
        chain[depth++] = a;
    }
    char th[64], pid[64];
    const jv_thread *thr = &tr->threads[jv_ev_thread(tr, &tr->ev[i])];
    fprintf(f, "# call stack of UID %u on pid %s tid %s\n# parent chain (root first):\n", uid,
            jv_trace_key_str(tr, thr->pid, pid, sizeof pid), jv_trace_key_str(tr, thr->tid, th, sizeof th));
    for (size_t d = depth; d-- > 0;)
        print_event(f, tr, t, chain[d], (int)(depth - 1 - d), "  ");
    free(chain);
    fprintf(f, "# the event and its subtree:\n");
    /* children: CSR built over the whole tree */
    uint32_t *start = calloc(tr->nev + 1, sizeof *start), *kids = malloc((tr->nev ? tr->nev : 1) * sizeof *kids);
    uint32_t *stack = NULL, *lvl = NULL;
    size_t cap_s = 0, cap_l = 0, ns = 0;
    jv_status s = JV_OK;
    if (!start || !kids) s = JV_ERR_NOMEM;
    for (size_t k = 0; s == JV_OK && k < tr->nev; k++)
        if (t->parent[k] != JV_NONE32) start[t->parent[k] + 1]++;
    for (size_t k = 0; s == JV_OK && k < tr->nev; k++)
        start[k + 1] += start[k];
    uint32_t *fill = s == JV_OK ? calloc(tr->nev ? tr->nev : 1, sizeof *fill) : NULL;
    if (s == JV_OK && !fill) s = JV_ERR_NOMEM;
    /* children in ts order: events are in file order; host children sorted by ts below */
    for (size_t k = 0; s == JV_OK && k < tr->nev; k++) {
        uint32_t p = t->parent[k];
        if (p != JV_NONE32) kids[start[p] + fill[p]++] = (uint32_t)k;
    }
    free(fill);
    size_t lines = 0;
    if (s == JV_OK && (s = JV_RESERVE(stack, cap_s, 1)) == JV_OK && (s = JV_RESERVE(lvl, cap_l, 1)) == JV_OK) {
        stack[0] = i;
        lvl[0] = 0;
        ns = 1;
    }
    while (s == JV_OK && ns) {
        uint32_t e = stack[--ns];
        uint32_t d = lvl[ns];
        if (lines++ >= max_lines) {
            fprintf(f, "# ... subtree truncated after %zu lines\n", max_lines);
            break;
        }
        print_event(f, tr, t, e, (int)d, "  ");
        uint32_t b = start[e], n = start[e + 1] - b;
        /* sort children by ts (small lists: insertion sort) */
        for (uint32_t x = 1; x < n; x++) {
            uint32_t v = kids[b + x], y = x;
            while (y > 0 && jv_ev_ts(tr, &tr->ev[kids[b + y - 1]]) > jv_ev_ts(tr, &tr->ev[v])) {
                kids[b + y] = kids[b + y - 1];
                y--;
            }
            kids[b + y] = v;
        }
        if ((s = JV_RESERVE(stack, cap_s, ns + n)) != JV_OK || (s = JV_RESERVE(lvl, cap_l, ns + n)) != JV_OK) break;
        for (uint32_t x = n; x-- > 0;) {
            stack[ns] = kids[b + x];
            lvl[ns++] = d + 1;
        }
    }
    free(start);
    free(kids);
    free(stack);
    free(lvl);
    if (s != JV_OK) JV_FAIL(err, s, "out of memory printing the call stack");
    return JV_OK;
}
