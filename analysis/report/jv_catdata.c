/* jv_catdata: per category, the rows (csv), the call trees of their example
 * ops (json) and the metadata (json). The subtrees come from one pass over
 * all events that memoizes each event's nearest example op above it (6 bytes
 * an event while it runs), so no whole-trace children array is built. */
#include "jv_catdata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jv_callstack.h"
#include "jv_map.h"
#include "jv_output.h"
#include "jv_pyrepr.h"
#include "jv_sort.h"
#include "jv_stats.h"
#include "jv_strbuf.h"
#include "jv_tree.h"

#define SUBTREE_CAP 300 /* nodes kept per example subtree (the rest are counted) */

static const jv_dcat CATS[] = {JV_DCAT_GEMM, JV_DCAT_CONV, JV_DCAT_BN, JV_DCAT_EW};

/* kernels of a row as a Python list of dicts: [{'name': ..., 'count': n, 'total_us': t, 'layout': False}, ...] */
static char *kernels_text(const jv_drow *r) {
    jv_strbuf b = JV_STRBUF_INIT;
    int ok = jv_sb_puts(&b, "[");
    for (int k = 0; ok && k < r->nkernels; k++) {
        char *q = jv_pyrepr_quote(r->kernels[k].name);
        char num[40];
        ok = q && jv_sb_printf(&b, "%s{'name': %s, 'count': %u, 'total_us': %s, 'layout': %s}", k ? ", " : "", q,
                               r->kernels[k].count, jv_fmt_pyfloat(num, sizeof num, r->kernels[k].total_us),
                               r->kernels[k].layout ? "True" : "False");
        free(q);
    }
    if (ok && r->nkernels_all > r->nkernels) ok = jv_sb_printf(&b, ", '... %d more'", r->nkernels_all - r->nkernels);
    if (ok) ok = jv_sb_puts(&b, "]");
    if (!ok) {
        jv_sb_free(&b);
        return NULL;
    }
    return jv_sb_take(&b);
}

static jv_status write_ops_csv(const jv_digest *d, jv_dcat cat, const char *path, jv_err *err) {
    static const char *const H[] = {"name",
                                    "op category",
                                    "Input Dims",
                                    "Input type",
                                    "Input Strides",
                                    "Concrete Inputs",
                                    "ex_UID",
                                    "operation_count",
                                    "GFLOPS",
                                    "Data Moved (MB)",
                                    "FLOPS/Byte",
                                    "Compute Spec",
                                    "Roofline Bound",
                                    "TB/s_mean",
                                    "TFLOPS/s_mean",
                                    "Kernel Time (µs)_sum",
                                    "Kernel Time (µs)_mean",
                                    "Kernel Time (µs)_median",
                                    "Kernel Time (µs)_min",
                                    "Kernel Time (µs)_max",
                                    "Roofline Time (µs)_first",
                                    "Pct Roofline_mean",
                                    "Efficiency Band",
                                    "Percentage (%)",
                                    "perf_params",
                                    "family",
                                    "kernels",
                                    "distinct kernels",
                                    "layout conversion (µs)",
                                    "replay_op",
                                    "share of category (%)",
                                    "transfer",
                                    "transfer (µs)",
                                    NULL};
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    jv_csv_header(&o, H);
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != cat) continue;
        char *ks = kernels_text(r);
        if (!ks) {
            jv_out_abort(&o);
            JV_FAIL(err, JV_ERR_NOMEM, "out of memory writing %s", path);
        }
        jv_csv_str(&o, r->name);
        jv_csv_str(&o, r->op_category);
        jv_csv_str(&o, r->dims);
        jv_csv_str(&o, r->types);
        jv_csv_str(&o, r->strides);
        jv_csv_str(&o, r->concrete);
        jv_csv_int(&o, r->uid);
        jv_csv_int(&o, r->count);
        jv_csv_num(&o, r->flops / 1e9);
        jv_csv_num(&o, r->bytes / (1024.0 * 1024.0));
        jv_csv_num(&o, r->fpb);
        jv_csv_str(&o, r->spec);
        jv_csv_str(&o, jv_bound_name(r->bound));
        jv_csv_num(&o, r->tbs);
        jv_csv_num(&o, r->tflops);
        jv_csv_num(&o, r->time_us);
        jv_csv_num(&o, r->mean_us);
        jv_csv_num(&o, r->median_us);
        jv_csv_num(&o, r->min_us);
        jv_csv_num(&o, r->max_us);
        jv_csv_num(&o, r->roof_us);
        jv_csv_num(&o, r->pct);
        jv_csv_str(&o, jv_efficiency_band(r->pct));
        jv_csv_num(&o, r->percent);
        jv_csv_str(&o, r->params);
        jv_csv_str(&o, r->family);
        jv_csv_str(&o, ks);
        jv_csv_int(&o, r->nkernels_all);
        jv_csv_num(&o, r->layout_us);
        jv_csv_int(&o, r->replay_op);
        jv_csv_num(&o, d->cat_us[cat] > 0 ? 100.0 * r->time_us / d->cat_us[cat] : NAN);
        jv_csv_str(&o, jv_transfer_name(r->transfer));
        jv_csv_num(&o, r->transfer_us);
        jv_csv_end(&o);
        free(ks);
    }
    return jv_out_commit(&o, err);
}

/* ---------- tree data ---------- */

typedef struct {
    uint32_t ev;    /* event index */
    uint32_t depth; /* steps below the example */
} tnode;

typedef struct {
    uint32_t ev;  /* the example's event index (JV_NONE32 when the UID is not in the trace) */
    tnode *nodes; /* subtree (the example excluded), up to SUBTREE_CAP */
    size_t n, cap;
    uint64_t left_out;
    /* collect_subtrees' bookkeeping, for the row that owns the example event (the first row naming it) */
    uint32_t up, dist; /* the nearest example row strictly above ev and the steps to it (JV_NONE32: none) */
    uint64_t desc;     /* events below ev */
} texample;

static int add_repr(cJSON *o, const jv_trace *tr, const char *key, uint32_t raw) {
    if (!raw) return 1;
    char *s = NULL;
    if (jv_pyrepr(jv_trace_str(tr, raw), jv_intern_len(&tr->strings, raw), &s) == JV_OK) {
        int ok = cJSON_AddStringToObject(o, key, s) != NULL;
        free(s);
        return ok;
    }
    free(s);
    /* not valid JSON: the raw text as it is */
    return cJSON_AddStringToObject(o, key, jv_trace_str(tr, raw)) != NULL;
}

/* one node: uid, name, kind, dur; shapes for ops; device and stream for GPU events */
static cJSON *node_json(const jv_trace *tr, const jv_tree *t, uint32_t i, int depth) {
    const jv_event *e = &tr->ev[i];
    jv_kind k = jv_ev_kind(tr, e);
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    int ok = cJSON_AddNumberToObject(o, "uid", jv_trace_uid(tr, i)) &&
             cJSON_AddStringToObject(o, "name", jv_trace_str(tr, jv_ev_name(tr, e))) &&
             cJSON_AddStringToObject(o, "kind", jv_kind_name(k)) &&
             cJSON_AddNumberToObject(o, "dur_us", (double)jv_ev_dur(tr, e) / 1e3);
    if (ok && depth >= 0) {
        ok = cJSON_AddNumberToObject(o, "depth", depth) != NULL;
        uint32_t p = t->parent[i];
        if (ok && depth > 0 && p != JV_NONE32)
            ok = cJSON_AddNumberToObject(o, "parent_uid", jv_trace_uid(tr, p)) != NULL;
    }
    if (ok && (k == JV_K_CPU_OP || k == JV_K_USER_ANNOT)) { /* every op and annotation has its record */
        const jv_sig *s = &tr->sigs[jv_ev_sig(tr, e)];
        ok = add_repr(o, tr, "Input Dims", s->dims) && add_repr(o, tr, "Input type", s->types);
    }
    if (ok && jv_kind_is_gpu(k)) { /* and every GPU event */
        const jv_gpuargs *g = jv_ev_gpu(tr, e);
        ok = cJSON_AddNumberToObject(o, "device", g->device) && cJSON_AddNumberToObject(o, "stream", g->stream);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* dfs_order's sort: child slots by (parent event, start time, later slot first), so that a parent's children
 * are one run in the order dfs_order visits them */
typedef struct {
    const jv_trace *tr;
    const jv_tree *t;
    const texample *x;
} kid_ctx;

static int cmp_kid(const void *a, const void *b, void *ctx) {
    const kid_ctx *k = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint32_t ei = k->x->nodes[i].ev, ej = k->x->nodes[j].ev;
    uint32_t pi = k->t->parent[ei], pj = k->t->parent[ej];
    if (pi != pj) return pi < pj ? -1 : 1;
    int64_t ti = jv_ev_ts(k->tr, &k->tr->ev[ei]), tj = jv_ev_ts(k->tr, &k->tr->ev[ej]);
    if (ti != tj) return ti < tj ? -1 : 1;
    return i > j ? -1 : i < j;
}

/* the subtree nodes of x in depth-first order (children by start time, the later slot first among equal
 * starts); nodes whose parent was left out by the cap follow at the end in slot order. O(n log n). */
static jv_status dfs_order(const jv_trace *tr, const jv_tree *t, const texample *x, uint32_t *order) {
    size_t n = x->n, no = 0;
    uint8_t *done = calloc(n ? n : 1, 1);
    uint32_t *kids = malloc((n ? n : 1) * sizeof *kids);
    uint32_t *stack = malloc((n + 1) * sizeof *stack); /* holds node slots; n = the example */
    jv_status s = done && kids && stack ? JV_OK : JV_ERR_NOMEM;
    for (size_t c = 0; s == JV_OK && c < n; c++)
        kids[c] = (uint32_t)c;
    kid_ctx kc = {tr, t, x};
    if (s == JV_OK) s = jv_sort_stable(kids, n, sizeof *kids, cmp_kid, &kc);
    size_t ns = 0;
    if (s == JV_OK) stack[ns++] = (uint32_t)n;
    while (ns) {
        uint32_t cur = stack[--ns];
        uint32_t cur_ev = cur == n ? x->ev : x->nodes[cur].ev;
        if (cur != n) order[no++] = cur;
        /* the run of cur's children in kids: push it reversed so that its first pops first */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (t->parent[x->nodes[kids[mid]].ev] < cur_ev)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t end = lo;
        while (end < n && t->parent[x->nodes[kids[end]].ev] == cur_ev)
            end++;
        for (size_t k = end; k > lo; k--) {
            done[kids[k - 1]] = 1;
            stack[ns++] = kids[k - 1];
        }
    }
    for (size_t c = 0; s == JV_OK && c < n; c++)
        if (!done[c]) order[no++] = (uint32_t)c;
    free(done);
    free(kids);
    free(stack);
    return s;
}

static cJSON *example_json(const jv_digest *d, const jv_drow *r, size_t rowno, const jv_trace *tr, const jv_tree *t,
                           const texample *x) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    int ok = cJSON_AddNumberToObject(o, "row", (double)rowno) && cJSON_AddNumberToObject(o, "ex_UID", r->uid) &&
             cJSON_AddStringToObject(o, "name", r->name) && cJSON_AddStringToObject(o, "Input Dims", r->dims) &&
             cJSON_AddStringToObject(o, "Input type", r->types) &&
             cJSON_AddNumberToObject(o, "Kernel Time (µs)_sum", r->time_us) &&
             cJSON_AddNumberToObject(o, "operation_count", r->count);
    (void)d;
    if (ok && x->ev == JV_NONE32) {
        ok = cJSON_AddBoolToObject(o, "found", 0) != NULL;
        if (!ok) goto fail;
        return o;
    }
    ok = ok && cJSON_AddBoolToObject(o, "found", 1);
    cJSON *chain = ok ? cJSON_AddArrayToObject(o, "parent_chain") : NULL;
    ok = chain != NULL;
    /* the chain, root first: its events gathered leaf first, then added in reverse (O(depth)) */
    size_t depth = 0;
    for (uint32_t a = t->parent[x->ev]; a != JV_NONE32; a = t->parent[a])
        depth++;
    uint32_t *up = ok ? malloc((depth ? depth : 1) * sizeof *up) : NULL;
    ok = up != NULL;
    size_t nu = 0;
    for (uint32_t a = t->parent[x->ev]; ok && a != JV_NONE32; a = t->parent[a])
        up[nu++] = a;
    while (ok && nu > 0) {
        cJSON *nj = node_json(tr, t, up[--nu], -1);
        ok = nj && cJSON_AddItemToArray(chain, nj);
    }
    free(up);
    cJSON *self = ok ? node_json(tr, t, x->ev, -1) : NULL;
    ok = self && cJSON_AddItemToObject(o, "op", self);
    cJSON *sub = ok ? cJSON_AddArrayToObject(o, "subtree") : NULL;
    ok = sub != NULL;
    uint32_t *order = ok ? malloc((x->n ? x->n : 1) * sizeof *order) : NULL;
    ok = order && dfs_order(tr, t, x, order) == JV_OK;
    double kernel_us = 0;
    uint32_t nkern = 0;
    for (size_t k = 0; ok && k < x->n; k++) {
        const tnode *nd = &x->nodes[order[k]];
        cJSON *nj = node_json(tr, t, nd->ev, (int)nd->depth);
        ok = nj && cJSON_AddItemToArray(sub, nj);
        if (jv_kind_is_gpu(jv_ev_kind(tr, &tr->ev[nd->ev]))) {
            kernel_us += (double)jv_ev_dur(tr, &tr->ev[nd->ev]) / 1e3;
            nkern++;
        }
    }
    free(order);
    ok = ok && cJSON_AddNumberToObject(o, "subtree_nodes", (double)x->n) &&
         cJSON_AddNumberToObject(o, "subtree_nodes_left_out", (double)x->left_out) &&
         cJSON_AddNumberToObject(o, "subtree_gpu_events", nkern) &&
         cJSON_AddNumberToObject(o, "subtree_gpu_us", kernel_us);
    if (ok) return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

#define DIST_UNKNOWN UINT16_MAX

typedef struct {
    const jv_trace *tr;
    const jv_tree *t;
    texample *xs;
    const jv_map *slot;  /* example event -> its row (the first row naming it) */
    const jv_upset *up;  /* the events that incl and dist_incl cover: every parent, every example, all above them */
    uint32_t *incl;      /* per member (jv_upset_ix): the nearest example row at or above it (JV_NONE32: none) */
    uint16_t *dist_incl; /* per member: the steps up to that row's event (DIST_UNKNOWN until resolved); the depth of
                            the tree (JV_TREE_MAX_DEPTH, plus a launch and a kernel) keeps it far below 2^16 - 1 */
    uint32_t *stack;     /* resolve()'s climb */
    size_t cap;
    uint32_t *rorder; /* example rows in the order their events were resolved: every row after the rows above it */
    size_t nr;
} sub_ctx;

/* incl and dist_incl of member i and of its unresolved ancestors, each resolved once (top down, no recursion):
 * O(n) over all events together */
static jv_status resolve(sub_ctx *c, uint32_t i) {
    size_t n = 0;
    uint32_t p = i;
    for (; p != JV_NONE32 && c->dist_incl[jv_upset_ix(c->up, p)] == DIST_UNKNOWN; p = c->t->parent[p]) {
        JV_CHECK(JV_RESERVE(c->stack, c->cap, n + 1));
        c->stack[n++] = p;
    }
    while (n > 0) {
        uint32_t q = c->stack[--n], pq = c->t->parent[q], r, qi = jv_upset_ix(c->up, q);
        uint32_t pi = pq == JV_NONE32 ? 0 : jv_upset_ix(c->up, pq);
        uint32_t above = pq == JV_NONE32 ? JV_NONE32 : c->incl[pi];
        uint32_t steps = pq == JV_NONE32 ? 0 : c->dist_incl[pi] + 1u;
        if (jv_map_get(c->slot, q, &r)) {
            c->xs[r].up = above;
            c->xs[r].dist = steps;
            c->rorder[c->nr++] = r;
            c->incl[qi] = r;
            c->dist_incl[qi] = 0;
        } else {
            if (steps >= DIST_UNKNOWN) return JV_ERR_LIMIT; /* a deeper tree than jv_tree builds */
            c->incl[qi] = above;
            c->dist_incl[qi] = (uint16_t)steps;
        }
    }
    return JV_OK;
}

/* The subtrees of every example op of the four categories, in one pass over all events in index order: each
 * event's nearest example row above it is memoized (resolve), and the event is added to the examples above it,
 * nearest first, up to the first whose subtree is full: every node an example gets, the examples above it get
 * too until they are full, so above a full example all are full. The events left out of an example are counted
 * afterwards from the number of its descendants. O(n + the nodes kept), not O(n x depth). The memo covers only
 * the events a climb can pass (a jv_upset of every parent and every example: 6 bytes each), not the leaves. */
static jv_status collect_subtrees(const jv_digest *d, const jv_trace *tr, const jv_tree *t, texample *xs,
                                  jv_map *slot) {
    size_t nslot = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        xs[i].ev = JV_NONE32;
        if (d->rows[i].cat == JV_DCAT_OTHER) continue;
        uint32_t ev = jv_trace_find_uid(tr, d->rows[i].uid);
        xs[i].ev = ev;
        if (ev != JV_NONE32) {
            JV_CHECK(jv_map_put_first(slot, ev, (uint32_t)i));
            nslot++;
        }
    }
    if (!slot->count) return JV_OK;
    jv_upset up;
    JV_CHECK(jv_upset_init(&up, tr));
    for (size_t i = 0; i < tr->nev; i++)
        jv_upset_add(&up, t, t->parent[i]);
    for (size_t i = 0; i < d->nrows; i++)
        jv_upset_add(&up, t, xs[i].ev);
    jv_upset_seal(&up);
    sub_ctx c = {tr,
                 t,
                 xs,
                 slot,
                 &up,
                 malloc((up.n ? up.n : 1) * sizeof *c.incl),
                 malloc((up.n ? up.n : 1) * sizeof *c.dist_incl),
                 NULL,
                 0,
                 malloc(nslot * sizeof *c.rorder),
                 0};
    jv_status s = c.incl && c.dist_incl && c.rorder ? JV_OK : JV_ERR_NOMEM;
    if (s == JV_OK) memset(c.dist_incl, 0xff, up.n * sizeof *c.dist_incl);
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        /* a member is resolved with the members above it (as every event once was); a leaf's parent is a member */
        uint32_t p = t->parent[i];
        if (jv_upset_has(&up, (uint32_t)i) && (s = resolve(&c, (uint32_t)i)) != JV_OK) break;
        if (p == JV_NONE32) continue;
        const uint32_t pi = jv_upset_ix(&up, p);
        if (c.dist_incl[pi] == DIST_UNKNOWN && (s = resolve(&c, p)) != JV_OK) break;
        if (c.incl[pi] == JV_NONE32) continue;
        uint32_t r = c.incl[pi], depth = c.dist_incl[pi] + 1u;
        xs[r].desc++; /* i is a direct descendant of row r; the rows above get it through r below */
        for (; r != JV_NONE32 && xs[r].n < SUBTREE_CAP; r = xs[r].up) {
            texample *x = &xs[r];
            if ((s = JV_RESERVE(x->nodes, x->cap, x->n + 1)) != JV_OK) break;
            x->nodes[x->n++] = (tnode){(uint32_t)i, depth};
            depth += x->dist;
        }
    }
    /* descendants: each row's to the row above it, the lower rows first */
    for (size_t k = c.nr; s == JV_OK && k-- > 0;) {
        texample *x = &xs[c.rorder[k]];
        if (x->up != JV_NONE32) xs[x->up].desc += x->desc;
        x->left_out = x->desc - x->n;
    }
    free(c.incl);
    free(c.dist_incl);
    free(c.stack);
    free(c.rorder);
    jv_upset_free(&up);
    JV_CHECK(s);
    /* rows that share an example (a synthetic row's parent op) share its subtree: copy it */
    for (size_t i = 0; i < d->nrows; i++) {
        uint32_t r;
        if (xs[i].ev == JV_NONE32 || !jv_map_get(slot, xs[i].ev, &r) || r == i) continue;
        const texample *src = &xs[r];
        if (src->n) {
            xs[i].nodes = malloc(src->n * sizeof *xs[i].nodes);
            if (!xs[i].nodes) return JV_ERR_NOMEM;
            memcpy(xs[i].nodes, src->nodes, src->n * sizeof *xs[i].nodes);
        }
        xs[i].n = xs[i].cap = src->n;
        xs[i].left_out = src->left_out;
    }
    return JV_OK;
}

static jv_status write_tree_json(const jv_digest *d, jv_dcat cat, const jv_trace *tr, const jv_tree *t,
                                 const texample *xs, const char *path, jv_err *err) {
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    cJSON *head = cJSON_CreateObject();
    char *ht = NULL;
    if (head && cJSON_AddStringToObject(head, "trace", d->trace_name) &&
        cJSON_AddStringToObject(head, "category", jv_dcat_name(cat)) &&
        cJSON_AddNumberToObject(head, "rows", d->cat_rows[cat]) &&
        cJSON_AddNumberToObject(head, "max_subtree_nodes", SUBTREE_CAP) &&
        cJSON_AddStringToObject(head, "note",
                                "per row of category_data/<cat>_ops.csv: its example op (ex_UID), the parent chain "
                                "(root first) and the subtree in depth-first order (kernels with device, stream and "
                                "duration); python_function events are not in the tree; see jarvis-analyze TRACE "
                                "--call-stack UID"))
        ht = cJSON_PrintUnformatted(head);
    cJSON_Delete(head);
    if (!ht) {
        jv_out_abort(&o);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory writing %s", path);
    }
    /* the head object without its closing brace, then "ops": [ one object a line ] */
    size_t hl = strlen(ht);
    ht[hl - 1] = 0;
    fprintf(o.f, "%s,\"ops\":[", ht);
    free(ht);
    int first = 1;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->cat != cat) continue;
        cJSON *x = example_json(d, r, i, tr, t, &xs[i]);
        char *txt = x ? cJSON_PrintUnformatted(x) : NULL;
        cJSON_Delete(x);
        if (!txt) {
            jv_out_abort(&o);
            JV_FAIL(err, JV_ERR_NOMEM, "out of memory writing %s", path);
        }
        fprintf(o.f, "%s\n%s", first ? "" : ",", txt);
        first = 0;
        free(txt);
    }
    fprintf(o.f, "\n]}\n");
    return jv_out_commit(&o, err);
}

/* ---------- metadata ---------- */

static jv_status write_metadata(const jv_digest *d, jv_dcat cat, const char *path, jv_err *err) {
    cJSON *m = cJSON_CreateObject();
    int ok = m != NULL;
    const jv_gpu_timeline *tl = &d->tl;
    double cat_us = d->cat_us[cat];
    ok = ok && cJSON_AddStringToObject(m, "generator", "jarvis-analyze " JV_VERSION) &&
         cJSON_AddStringToObject(m, "trace", d->trace_name) && cJSON_AddStringToObject(m, "trace_path", d->trace) &&
         cJSON_AddStringToObject(m, "category", jv_dcat_name(cat)) &&
         cJSON_AddStringToObject(m, "platform",
                                 d->is_amd ? "AMD" : (d->ndevices || d->gpu_events ? "NVIDIA" : "unknown")) &&
         cJSON_AddStringToObject(m, "device", d->device) && cJSON_AddNumberToObject(m, "device_count", d->ndevices);
    if (ok && d->has_hw) {
        cJSON *h = cJSON_AddObjectToObject(m, "roofline_gpu");
        ok = h && cJSON_AddStringToObject(h, "name", d->hw.name) &&
             cJSON_AddStringToObject(h, "vendor", d->hw.vendor) && cJSON_AddStringToObject(h, "chosen", d->hw_why) &&
             cJSON_AddNumberToObject(h, "hbm_gbps", d->hw.mem_bw_gbps) &&
             cJSON_AddStringToObject(h, "peaks_are", d->hw.roof_is_max_achievable ? "max-achievable" : "datasheet");
        cJSON *pk = ok ? cJSON_AddObjectToObject(h, "peak_tflops") : NULL;
        ok = pk != NULL;
        for (size_t i = 0; ok && i < d->nrows; i++) {
            const jv_drow *r = &d->rows[i];
            if (r->cat != cat || !r->spec[0] || cJSON_GetObjectItemCaseSensitive(pk, r->spec)) continue;
            double p = jv_hw_peak(&d->hw, r->spec);
            ok =
                isnan(p) ? cJSON_AddNullToObject(pk, r->spec) != NULL : cJSON_AddNumberToObject(pk, r->spec, p) != NULL;
        }
    } else if (ok) {
        ok = cJSON_AddNullToObject(m, "roofline_gpu") && cJSON_AddStringToObject(m, "roofline_gpu_missing", d->hw_why);
    }
    ok = ok && cJSON_AddNumberToObject(m, "rows", d->cat_rows[cat]) &&
         cJSON_AddNumberToObject(m, "category_total_us", cat_us) &&
         cJSON_AddNumberToObject(m, "gpu_kernel_time_us", d->total_us) &&
         cJSON_AddNumberToObject(m, "share_of_gpu_kernel_time_pct",
                                 d->total_us > 0 ? 100.0 * cat_us / d->total_us : 0) &&
         cJSON_AddNumberToObject(m, "gpu_busy_time_us", (double)tl->busy / 1e3) &&
         cJSON_AddNumberToObject(m, "share_of_busy_time_pct",
                                 tl->busy > 0 ? 100.0 * cat_us / ((double)tl->busy / 1e3) : 0) &&
         cJSON_AddNumberToObject(m, "gpu_total_time_us", (double)tl->total / 1e3);
    if (ok && cat == JV_DCAT_CONV) {
        double lay = 0;
        for (size_t i = 0; i < d->nrows; i++)
            if (d->rows[i].cat == cat) lay += d->rows[i].layout_us;
        ok = cJSON_AddNumberToObject(m, "layout_conversion_us", lay) &&
             cJSON_AddNumberToObject(m, "layout_conversion_pct_of_category", cat_us > 0 ? 100.0 * lay / cat_us : 0);
    }
    if (ok) {
        const jv_dbaseline *b = &d->baseline;
        cJSON *bj = cJSON_AddObjectToObject(m, "elementwise_baseline");
        ok = bj && cJSON_AddStringToObject(bj, "ops", "aten::add, aten::add_, aten::mul, aten::mul_, aten::copy_") &&
             cJSON_AddNumberToObject(bj, "rows", b->rows) && cJSON_AddNumberToObject(bj, "calls", (double)b->calls) &&
             cJSON_AddNumberToObject(bj, "bytes", b->bytes) && cJSON_AddNumberToObject(bj, "time_us", b->time_us) &&
             (isnan(b->tbs) ? cJSON_AddNullToObject(bj, "tbs") != NULL
                            : cJSON_AddNumberToObject(bj, "tbs", b->tbs) != NULL) &&
             cJSON_AddStringToObject(bj, "state",
                                     b->state == JV_BASE_OK        ? "ok"
                                     : b->state == JV_BASE_TOO_FEW ? "too few large elementwise ops"
                                                                   : "no add/mul/copy_ kernel") &&
             cJSON_AddNumberToObject(bj, "min_call_bytes", JV_BASE_CALL_BYTES) &&
             cJSON_AddNumberToObject(bj, "min_calls", JV_BASE_MIN_CALLS) &&
             cJSON_AddNumberToObject(bj, "min_bytes", JV_BASE_MIN_BYTES) &&
             cJSON_AddNumberToObject(bj, "small_rows", b->small_rows) &&
             cJSON_AddNumberToObject(bj, "transfer_rows", b->transfer_rows) &&
             cJSON_AddNumberToObject(bj, "transfer_us", b->transfer_us);
        if (ok && d->has_hw && !isnan(b->tbs) && d->hw.mem_bw_gbps > 0)
            ok = cJSON_AddNumberToObject(bj, "pct_of_hbm", 100.0 * b->tbs * 1e3 / d->hw.mem_bw_gbps) != NULL;
    }
    char *txt = ok ? cJSON_Print(m) : NULL;
    cJSON_Delete(m);
    if (!txt) JV_FAIL(err, JV_ERR_NOMEM, "out of memory writing %s", path);
    jv_out o;
    jv_status s = jv_out_open(&o, path, err);
    if (s == JV_OK) {
        fprintf(o.f, "%s\n", txt);
        s = jv_out_commit(&o, err);
    }
    free(txt);
    return s;
}

jv_status jv_catdata_write(const jv_digest *d, const jv_trace *tr, const jv_tree *t, const char *outdir, jv_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/category_data", outdir);
    JV_CHECK(jv_mkdir_p(path, err));
    snprintf(path, sizeof path, "%s/metadata", outdir);
    JV_CHECK(jv_mkdir_p(path, err));
    texample *xs = calloc(d->nrows ? d->nrows : 1, sizeof *xs);
    jv_map slot;
    jv_map_init(&slot);
    if (!xs) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (category data)");
    jv_status s = collect_subtrees(d, tr, t, xs, &slot);
    jv_map_free(&slot);
    if (s != JV_OK)
        jv_err_set(err, s, __FILE__, __LINE__,
                   s == JV_ERR_NOMEM ? "out of memory (category data call trees)"
                                     : "a call tree deeper than 65534 levels (category data)");
    for (size_t c = 0; s == JV_OK && c < sizeof CATS / sizeof CATS[0]; c++) {
        const char *cn = jv_dcat_name(CATS[c]);
        snprintf(path, sizeof path, "%s/category_data/%s_ops.csv", outdir, cn);
        s = write_ops_csv(d, CATS[c], path, err);
        if (s != JV_OK) break;
        snprintf(path, sizeof path, "%s/category_data/%s_tree_data.json", outdir, cn);
        s = write_tree_json(d, CATS[c], tr, t, xs, path, err);
        if (s != JV_OK) break;
        snprintf(path, sizeof path, "%s/metadata/%s_metadata.json", outdir, cn);
        s = write_metadata(d, CATS[c], path, err);
    }
    for (size_t i = 0; i < d->nrows; i++)
        free(xs[i].nodes);
    free(xs);
    return s;
}
