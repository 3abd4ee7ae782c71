/* jv_digest: rows come from jv_digest_build (jv_pgroup.c); finish adds the totals, the
 * trace's elementwise baseline, the timeline and the fusion candidates. */
#include "jv_digest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_findings_model.h"
#include "jv_map.h"
#include "jv_perf.h"
#include "jv_sort.h"
#include "jv_stats.h"
#include "jv_strbuf.h"

const char *jv_dcat_name(jv_dcat c) {
    static const char *const N[] = {"gemm", "convolution", "batchnorm", "elementwise", "other"};
    return c >= 0 && c < JV_DCAT_COUNT ? N[c] : "other";
}

const char *jv_dcat_title(jv_dcat c) {
    static const char *const N[] = {"GEMM", "Convolution", "Batch norm", "Elementwise", "Other"};
    return c >= 0 && c < JV_DCAT_COUNT ? N[c] : "Other";
}

void jv_digest_cat_order(const jv_digest *d, jv_dcat order[JV_DCAT_COUNT]) {
    for (int c = 0; c < JV_DCAT_COUNT; c++)
        order[c] = (jv_dcat)c;
    for (int a = 1; a < JV_DCAT_COUNT; a++)
        for (int b = a; b > 0 && d->cat_us[order[b]] > d->cat_us[order[b - 1]]; b--) {
            jv_dcat t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
}

jv_dcat jv_dcat_of(int family, const char *op_category, const char *op_name) {
    const jv_family *f = jv_family_get(family);
    if (f) {
        switch (f->report) {
        case JV_REPORT_GEMM: return JV_DCAT_GEMM;
        case JV_REPORT_CONV: return JV_DCAT_CONV;
        case JV_REPORT_BATCHNORM: return JV_DCAT_BN;
        case JV_REPORT_ELEMENTWISE: return JV_DCAT_EW;
        case JV_REPORT_OTHER: break;
        }
        return JV_DCAT_OTHER;
    }
    /* rows without a model: by TraceLens' op category */
    if (!op_category) return JV_DCAT_OTHER;
    if (!strcmp(op_category, "GEMM")) return JV_DCAT_GEMM;
    if (!strncmp(op_category, "CONV_", 5)) return JV_DCAT_CONV;
    if (!strncmp(op_category, "NORM_", 5) && op_name && strstr(op_name, "batch_norm")) return JV_DCAT_BN;
    if (!strcmp(op_category, "elementwise")) return JV_DCAT_EW;
    return JV_DCAT_OTHER;
}

jv_status jv_digest_init(jv_digest *d, const char *path, const jv_trace *tr, const jv_hw *hw, const char *hw_why,
                         jv_err *err) {
    memset(d, 0, sizeof *d);
    jv_arena_init(&d->arena);
    const char *base = strrchr(path, '/');
    d->trace = jv_digest_str(d, path);
    d->trace_name = jv_digest_str(d, base ? base + 1 : path);
    d->device = jv_digest_str(d, tr->ndevices ? tr->devices[0].name : "");
    d->hw_why = jv_digest_str(d, hw_why);
    if (!d->trace || !d->trace_name || !d->device || !d->hw_why) {
        jv_digest_free(d);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
    }
    d->file_bytes = tr->counts.file_bytes;
    d->events = tr->counts.events_total;
    d->ndevices = (int)tr->ndevices;
    d->is_amd = tr->is_amd;
    if (hw) {
        d->has_hw = 1;
        d->sheet_hw = d->hw = *hw;
        d->peaks = jv_hw_policy(hw, NULL);
        jv_hw_apply_policy(&d->hw, d->peaks);
        d->sheet_differs = jv_hw_roofs_differ(&d->hw, &d->sheet_hw);
    }
    d->baseline.tbs = NAN;
    return JV_OK;
}

const char *jv_digest_str(jv_digest *d, const char *s) {
    if (!s) s = "";
    return jv_arena_strndup(&d->arena, s, strlen(s));
}

jv_status jv_digest_add_row(jv_digest *d, const jv_drow *r, jv_err *err) {
    if (JV_RESERVE(d->rows, d->cap_rows, d->nrows + 1) != JV_OK)
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
    d->rows[d->nrows] = *r;
    d->rows[d->nrows].sheet_pos = (uint32_t)d->nrows;
    d->nrows++;
    return JV_OK;
}

void jv_digest_free(jv_digest *d) {
    jv_findings_free(d->findings);
    free(d->comm.busy);
    free(d->rows);
    free(d->sheet_order);
    free(d->fusion);
    free(d->attention);
    jv_arena_free(&d->arena);
    memset(d, 0, sizeof *d);
}

void jv_digest_set_replay(jv_digest *d, const int32_t *op_of_model, size_t nmodels) {
    for (size_t i = 0; i < d->nrows; i++) {
        jv_drow *r = &d->rows[i];
        if (r->model >= 0 && (size_t)r->model < nmodels) r->replay_op = op_of_model[r->model];
    }
}

static int cmp_rows(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const jv_drow *x = a, *y = b;
    if (x->time_us != y->time_us) return x->time_us > y->time_us ? -1 : 1;
    return (x->uid > y->uid) - (x->uid < y->uid);
}

/* the simple ops whose achieved bandwidth is the trace's own elementwise ceiling (REFERENCE.md section 8) */
static int is_baseline_op(const char *n) {
    static const char *const B[] = {"aten::add", "aten::add_", "aten::mul", "aten::mul_", "aten::copy_", NULL};
    for (int i = 0; B[i]; i++)
        if (!strcmp(n, B[i])) return 1;
    return 0;
}

static void baseline_of(jv_digest *d) {
    jv_dbaseline *b = &d->baseline;
    uint32_t candidates = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        if (r->synthetic || !is_baseline_op(r->op_name) || !(r->bytes > 0) || !(r->time_us > 0)) continue;
        if (r->transfer_us > 0) { /* a copy_ run as memcpy: the copy engine or the host link, not a kernel */
            b->transfer_rows++;
            b->transfer_us += r->time_us;
            continue;
        }
        candidates++;
        if (r->bytes < JV_BASE_CALL_BYTES) {
            b->small_rows++;
            continue;
        }
        b->rows++;
        b->calls += r->count;
        b->bytes += r->bytes * r->count;
        b->time_us += r->time_us;
    }
    b->state = !candidates                                                                        ? JV_BASE_NO_OPS
               : b->calls >= JV_BASE_MIN_CALLS && b->bytes >= JV_BASE_MIN_BYTES && b->time_us > 0 ? JV_BASE_OK
                                                                                                  : JV_BASE_TOO_FEW;
    b->tbs = b->state == JV_BASE_OK ? b->bytes / (b->time_us * 1e-6) / 1e12 : NAN;
}

/* ---------- fusion candidates ---------- */

typedef struct {
    int64_t ts, end;
    uint32_t thread;
    uint32_t id; /* module event index, or instance index for points */
    int is_point;
} sweep_item;

static int cmp_sweep(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const sweep_item *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->is_point != y->is_point) return x->is_point - y->is_point; /* modules first */
    if (x->end != y->end) return x->end > y->end ? -1 : 1;            /* outer first */
    return (x->id > y->id) - (x->id < y->id);
}

static const char MODULE_PREFIX[] = "nn.Module: ";

/* length of the module class in "nn.Module: Name_3" (the instance suffix dropped) */
static size_t module_class(const char *name, const char **cls) {
    const char *s = name + sizeof MODULE_PREFIX - 1;
    size_t n = strlen(s), k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k > 0 && k < n && s[k - 1] == '_') n = k - 1;
    *cls = s;
    return n;
}

typedef struct {
    uint32_t key; /* interned name of the module class or parent op */
    uint32_t instances, ew_kernels, example_uid;
    double ew_us, total_us;
    uint32_t ops[8];
    int nops, more_ops;
    jv_drowset rows; /* the rows of its elementwise ops */
} fgroup;

/* the sums of one holder event over its instances */
typedef struct {
    uint32_t ew_kernels;
    double ew_us, total_us;
    uint32_t ops[8];
    int nops, more_ops;
} fholder;

/* a holder's instances: perm[begin .. begin + n) in fusion_of */
typedef struct {
    uint32_t begin, n;
} hrun;

/* instance indices by their holder (ctx: holder by instance), then by index */
static int cmp_by_holder(const void *a, const void *b, void *ctx) {
    const uint32_t *holder = ctx;
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (holder[x] != holder[y]) return holder[x] < holder[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* runs by their first instance (ctx: perm; the instances are distinct) */
static int cmp_run_first(const void *a, const void *b, void *ctx) {
    const uint32_t *perm = ctx;
    const uint32_t x = perm[((const hrun *)a)->begin], y = perm[((const hrun *)b)->begin];
    return (x > y) - (x < y);
}

/* adds us of row (-1: none) to set s (rows beyond JV_DPATTERN_ROWS are not listed) */
static void rowset_add(jv_drowset *s, int32_t row, double us) {
    if (row < 0) return;
    for (int k = 0; k < s->n; k++)
        if (s->row[k] == (uint32_t)row) {
            s->us[k] += us;
            return;
        }
    if (s->n == JV_DPATTERN_ROWS) return;
    s->row[s->n] = (uint32_t)row;
    s->us[s->n++] = us;
}

/* the digest row of instance in (the first row of its perf model), -1 none */
static int32_t row_of_inst(const jv_perf_inst *in, const int32_t *row_of_model) {
    return in->kernel == JV_NONE32 && in->model >= 0 ? row_of_model[in->model] : -1;
}

static int is_ew_inst(const jv_perf_table *pt, const jv_perf_inst *in) {
    if (in->kernel != JV_NONE32 || in->model < 0 || !pt->models[in->model].ok) return 0;
    return jv_family_get(pt->models[in->model].family)->report == JV_REPORT_ELEMENTWISE;
}

static void add_op(uint32_t *ops, int *nops, int *more, uint32_t name) {
    for (int k = 0; k < *nops; k++)
        if (ops[k] == name) return;
    if (*nops < 8)
        ops[(*nops)++] = name;
    else
        *more = 1;
}

/* *h: the sums of one holder over its instances run[0..n) (in instance order): all their kernel time, and the
 * elementwise instances' kernels, time and distinct op names */
static void holder_sums(const jv_trace *tr, const jv_perf_table *pt, const uint32_t *run, size_t n, fholder *h) {
    memset(h, 0, sizeof *h);
    for (size_t k = 0; k < n; k++) {
        const jv_perf_inst *in = &pt->inst[run[k]];
        h->total_us += (double)in->busy_ns / 1e3;
        if (is_ew_inst(pt, in)) {
            h->ew_kernels += in->kn;
            h->ew_us += (double)in->busy_ns / 1e3;
            add_op(h->ops, &h->nops, &h->more_ops, jv_ev_name(tr, &tr->ev[in->ev]));
        }
    }
}

/* holder per perf instance: the innermost module event (by time on the same
 * thread), or the nearest non-elementwise ancestor op; JV_NONE32 when none */
static jv_status holders_by_module(const jv_trace *tr, const jv_perf_table *pt, uint32_t *holder, int *found) {
    size_t nmod = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (jv_ev_kind(tr, e) == JV_K_PYTHON &&
            !strncmp(jv_trace_str(tr, jv_ev_name(tr, e)), MODULE_PREFIX, sizeof MODULE_PREFIX - 1))
            nmod++;
    }
    *found = nmod > 0;
    if (!nmod) return JV_OK;
    size_t n = nmod + pt->ninst;
    sweep_item *it = malloc(n * sizeof *it);
    uint32_t *stack = malloc(nmod * sizeof *stack);
    if (!it || !stack) {
        free(it);
        free(stack);
        return JV_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (jv_ev_kind(tr, e) == JV_K_PYTHON &&
            !strncmp(jv_trace_str(tr, jv_ev_name(tr, e)), MODULE_PREFIX, sizeof MODULE_PREFIX - 1))
            it[k++] = (sweep_item){jv_ev_ts(tr, e), jv_ev_end(tr, e), jv_ev_thread(tr, e), (uint32_t)i, 0};
    }
    for (size_t i = 0; i < pt->ninst; i++) {
        const jv_perf_inst *in = &pt->inst[i];
        holder[i] = JV_NONE32;
        if (in->kernel != JV_NONE32) continue;
        const jv_event *e = &tr->ev[in->ev];
        it[k++] = (sweep_item){jv_ev_ts(tr, e), jv_ev_end(tr, e), jv_ev_thread(tr, e), (uint32_t)i, 1};
    }
    n = k;
    jv_status s = jv_sort_stable(it, n, sizeof *it, cmp_sweep, NULL);
    size_t ns = 0;
    uint32_t cur_thread = JV_NONE32;
    for (size_t i = 0; i < n && s == JV_OK; i++) {
        const sweep_item *x = &it[i];
        if (x->thread != cur_thread) ns = 0, cur_thread = x->thread;
        while (ns && jv_ev_end(tr, &tr->ev[stack[ns - 1]]) < x->ts)
            ns--;
        if (!x->is_point)
            stack[ns++] = x->id;
        else if (ns && jv_ev_end(tr, &tr->ev[stack[ns - 1]]) >= x->end)
            holder[x->id] = stack[ns - 1];
    }
    free(it);
    free(stack);
    return s;
}

#define HOLD_UNKNOWN (JV_NONE32 - 1)

/* 1 when event p can hold a fusion group: a cpu op or user annotation that is not an elementwise composite;
 * the answer per name memoized in known (name id -> 1 + answer) */
static jv_status can_hold(const jv_trace *tr, jv_map *known, uint32_t p, int *yes) {
    jv_kind k = jv_ev_kind(tr, &tr->ev[p]);
    if (k != JV_K_CPU_OP && k != JV_K_USER_ANNOT) {
        *yes = 0;
        return JV_OK;
    }
    uint32_t v;
    if (!jv_map_get(known, jv_ev_name(tr, &tr->ev[p]), &v)) {
        jv_match how;
        int fam = jv_family_find(jv_trace_str(tr, jv_ev_name(tr, &tr->ev[p])), &how);
        v = 1u + !(fam >= 0 && jv_family_get(fam)->report == JV_REPORT_ELEMENTWISE);
        JV_CHECK(jv_map_put(known, jv_ev_name(tr, &tr->ev[p]), v));
    }
    *yes = v == 2;
    return JV_OK;
}

/* holder[i] for each op instance: its nearest ancestor that can hold a fusion group (elementwise composites
 * are passed). Per event above an instance, that holder at or above it is memoized (each event resolved once,
 * top down, no recursion), so all instances together take O(n), not O(n x depth); the memo is sized by those
 * events (a jv_upset of the instances' parents: 4 bytes each), not by every event of the trace. */
static jv_status holders_by_parent(const jv_trace *tr, const jv_tree *t, const jv_perf_table *pt, uint32_t *holder) {
    jv_upset up;
    uint32_t *at = NULL, *stack = NULL;
    size_t cap = 0;
    jv_map known;
    jv_map_init(&known);
    jv_status s = jv_upset_init(&up, tr);
    if (s != JV_OK) return s;
    for (size_t i = 0; i < pt->ninst; i++)
        if (pt->inst[i].kernel == JV_NONE32) jv_upset_add(&up, t, t->parent[pt->inst[i].ev]);
    jv_upset_seal(&up);
    if (!(at = malloc((up.n ? up.n : 1) * sizeof *at))) s = JV_ERR_NOMEM;
    for (size_t k = 0; s == JV_OK && k < up.n; k++)
        at[k] = HOLD_UNKNOWN;
    for (size_t i = 0; s == JV_OK && i < pt->ninst; i++) {
        const jv_perf_inst *in = &pt->inst[i];
        holder[i] = JV_NONE32;
        if (in->kernel != JV_NONE32) continue;
        uint32_t top = t->parent[in->ev];
        size_t n = 0;
        for (; top != JV_NONE32 && at[jv_upset_ix(&up, top)] == HOLD_UNKNOWN; top = t->parent[top]) {
            if ((s = JV_RESERVE(stack, cap, n + 1)) != JV_OK) break;
            stack[n++] = top;
        }
        uint32_t above = top == JV_NONE32 ? JV_NONE32 : at[jv_upset_ix(&up, top)];
        while (s == JV_OK && n > 0) { /* from the highest unresolved event down */
            uint32_t q = stack[--n];
            int yes;
            if ((s = can_hold(tr, &known, q, &yes)) != JV_OK) break;
            if (yes) above = q;
            at[jv_upset_ix(&up, q)] = above;
        }
        if (s == JV_OK && t->parent[in->ev] != JV_NONE32) holder[i] = at[jv_upset_ix(&up, t->parent[in->ev])];
    }
    free(at);
    free(stack);
    jv_upset_free(&up);
    jv_map_free(&known);
    return s;
}

/* the family of instance in (-1 without a model); *bwd: a backward op */
static int inst_family(const jv_perf_table *pt, const jv_perf_inst *in, int *bwd) {
    *bwd = 0;
    if (in->kernel != JV_NONE32 || in->model < 0) return -1;
    *bwd = pt->models[in->model].bwd;
    return pt->models[in->model].family;
}

typedef struct {
    uint32_t inst;
    uint32_t holder;
    int64_t ts;
} ainst;

static int cmp_ainst(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const ainst *x = a, *y = b;
    if (x->holder != y->holder) return x->holder < y->holder ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->inst < y->inst ? -1 : x->inst > y->inst;
}

/* the group text of holder event h: its module class or op name (*len: its length) */
static const char *holder_text(const jv_trace *tr, uint32_t h, int by_module, size_t *len) {
    const char *n = jv_trace_str(tr, jv_ev_name(tr, &tr->ev[h]));
    if (!by_module) return *len = strlen(n), n;
    const char *cls;
    *len = module_class(n, &cls);
    return cls;
}

/* descending by a double member, equal ones in their order (jv_sort_stable) */
static int cmp_desc(double x, double y) {
    return x > y ? -1 : x < y;
}

static int cmp_between_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return cmp_desc(((const jv_dattention *)a)->between_us, ((const jv_dattention *)b)->between_us);
}

static int cmp_ew_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return cmp_desc(((const jv_dfusion *)a)->ew_us, ((const jv_dfusion *)b)->ew_us);
}

/* eager attention (jv_dattention): per holder, in time order, a GEMM-family op, a forward softmax, then a
 * GEMM-family op; grouped by holder name */
static jv_status attention_of(jv_digest *d, const jv_trace *tr, const jv_perf_table *pt, const uint32_t *holder,
                              int by_module, const int32_t *row_of_model) {
    size_t n = 0;
    ainst *v = malloc((pt->ninst ? pt->ninst : 1) * sizeof *v);
    if (!v) return JV_ERR_NOMEM;
    for (size_t i = 0; i < pt->ninst; i++)
        if (holder[i] != JV_NONE32 && pt->inst[i].kernel == JV_NONE32)
            v[n++] = (ainst){(uint32_t)i, holder[i], jv_ev_ts(tr, &tr->ev[pt->inst[i].ev])};
    jv_status s = jv_sort_stable(v, n, sizeof *v, cmp_ainst, NULL);
    size_t cap = 0;
    for (size_t i = 0; i < n && s == JV_OK;) {
        size_t end = i;
        while (end < n && v[end].holder == v[i].holder)
            end++;
        long a = -1, sm = -1; /* the last product, the softmax after it */
        size_t tn;
        const char *text = holder_text(tr, v[i].holder, by_module, &tn);
        size_t g = d->nattention; /* the holder's group, found at its first sequence */
        for (size_t p = i; p < end && s == JV_OK; p++) {
            int bwd, f = inst_family(pt, &pt->inst[v[p].inst], &bwd);
            if (f == JV_FAM_SOFTMAX && !bwd && a >= 0) sm = (long)p;
            if (f != JV_FAM_GEMM) continue;
            if (a < 0 || sm < 0) {
                a = (long)p;
                sm = -1;
                continue;
            }
            /* a product, a softmax, a product: one sequence */
            double total = 0, between = 0;
            for (size_t q = (size_t)a; q <= p; q++) {
                double us = (double)pt->inst[v[q].inst].busy_ns / 1e3;
                total += us;
                if (q != (size_t)a && q != p) between += us;
            }
            if (g == d->nattention)
                for (g = 0; g < d->nattention; g++)
                    if (strlen(d->attention[g].name) == tn && !memcmp(d->attention[g].name, text, tn)) break;
            if (g == d->nattention) {
                if ((s = jv_reserve((void **)&d->attention, &cap, d->nattention + 1, sizeof *d->attention)) != JV_OK)
                    break;
                const char *name = by_module ? jv_arena_strndup(&d->arena, text, tn) : jv_digest_str(d, text);
                if (!name) {
                    s = JV_ERR_NOMEM;
                    break;
                }
                const jv_event *ae = &tr->ev[pt->inst[v[a].inst].ev];
                const jv_sig *sg = jv_ev_kind(tr, ae) == JV_K_CPU_OP ? &tr->sigs[jv_ev_sig(tr, ae)] : NULL;
                jv_dattention x = {name,
                                   by_module,
                                   0,
                                   0,
                                   0,
                                   jv_trace_uid(tr, v[i].holder),
                                   jv_digest_str(d, sg && sg->dims ? jv_trace_str(tr, sg->dims) : ""),
                                   {0}};
                if (!x.dims) {
                    s = JV_ERR_NOMEM;
                    break;
                }
                d->attention[d->nattention++] = x;
            }
            jv_dattention *x = &d->attention[g];
            for (size_t q = (size_t)a; q <= p; q++)
                rowset_add(&x->rows, row_of_inst(&pt->inst[v[q].inst], row_of_model),
                           (double)pt->inst[v[q].inst].busy_ns / 1e3);
            x->sequences++;
            x->total_us += total;
            x->between_us += between;
            a = -1, sm = -1;
        }
        i = end;
    }
    free(v);
    /* the most time between the products first */
    if (s == JV_OK) s = jv_sort_stable(d->attention, d->nattention, sizeof *d->attention, cmp_between_desc, NULL);
    return s;
}

static jv_status fusion_of(jv_digest *d, const jv_trace *tr, const jv_tree *t, const jv_perf_table *pt) {
    uint32_t *holder = malloc((pt->ninst ? pt->ninst : 1) * sizeof *holder);
    if (!holder) return JV_ERR_NOMEM;
    int by_module = 0;
    jv_status s = holders_by_module(tr, pt, holder, &by_module);
    if (s != JV_OK) {
        free(holder);
        return s;
    }
    if (!by_module && (s = holders_by_parent(tr, t, pt, holder)) != JV_OK) {
        free(holder);
        return s;
    }
    /* the instances with a holder, by holder (instance order within one); the holders with elementwise kernels
       (their runs) in order of their first instance; each holder's sums recomputed from its run when needed
       (holder_sums), so that no table is kept per holder */
    uint32_t *perm = malloc((pt->ninst ? pt->ninst : 1) * sizeof *perm);
    uint32_t *group_of = malloc((pt->ninst ? pt->ninst : 1) * sizeof *group_of); /* by instance, JV_NONE32 none */
    hrun *runs = NULL;
    size_t nin = 0, nr = 0, capr = 0;
    if (!perm || !group_of) s = JV_ERR_NOMEM;
    for (size_t i = 0; s == JV_OK && i < pt->ninst; i++) {
        group_of[i] = JV_NONE32;
        if (holder[i] != JV_NONE32) perm[nin++] = (uint32_t)i;
    }
    if (s == JV_OK) jv_sort_inplace(perm, nin, sizeof *perm, cmp_by_holder, holder);
    for (size_t i = 0; s == JV_OK && i < nin;) {
        size_t j = i + 1;
        while (j < nin && holder[perm[j]] == holder[perm[i]])
            j++;
        fholder h;
        holder_sums(tr, pt, perm + i, j - i, &h);
        if (h.ew_kernels) {
            if ((s = JV_RESERVE(runs, capr, nr + 1)) != JV_OK) break;
            runs[nr++] = (hrun){(uint32_t)i, (uint32_t)(j - i)};
        }
        i = j;
    }
    if (s == JV_OK) jv_sort_inplace(runs, nr, sizeof *runs, cmp_run_first, perm);
    /* holders -> groups by module class (interned through the trace's names) or parent op name */
    jv_map gidx;
    jv_map_init(&gidx);
    fgroup *gs = NULL;
    size_t ng = 0, capg = 0;
    for (size_t r = 0; r < nr && s == JV_OK; r++) {
        fholder h;
        holder_sums(tr, pt, perm + runs[r].begin, runs[r].n, &h);
        const uint32_t hev = holder[perm[runs[r].begin]];
        const jv_event *he = &tr->ev[hev];
        uint32_t key = jv_ev_name(tr, he);
        if (by_module) {
            /* the class: an arena copy keyed by the first holder name that has it */
            const char *cls;
            size_t cn = module_class(jv_trace_str(tr, jv_ev_name(tr, he)), &cls);
            /* find a group with the same class text */
            key = JV_NONE32;
            for (size_t g = 0; g < ng; g++) {
                const char *gc;
                size_t gn = module_class(jv_trace_str(tr, gs[g].key), &gc);
                if (gn == cn && !memcmp(gc, cls, cn)) {
                    key = (uint32_t)g;
                    break;
                }
            }
            if (key == JV_NONE32) {
                if ((s = JV_RESERVE(gs, capg, ng + 1)) != JV_OK) break;
                memset(&gs[ng], 0, sizeof gs[ng]);
                gs[ng].key = jv_ev_name(tr, he);
                gs[ng].example_uid = jv_trace_uid(tr, hev);
                key = (uint32_t)ng++;
            }
        } else {
            uint32_t g;
            if (!jv_map_get(&gidx, key, &g)) {
                if ((s = JV_RESERVE(gs, capg, ng + 1)) != JV_OK) break;
                memset(&gs[ng], 0, sizeof gs[ng]);
                gs[ng].key = key;
                gs[ng].example_uid = jv_trace_uid(tr, hev);
                g = (uint32_t)ng++;
                if ((s = jv_map_put(&gidx, key, g)) != JV_OK) break;
            }
            key = g;
        }
        fgroup *g = &gs[key];
        g->instances++;
        g->ew_kernels += h.ew_kernels;
        g->ew_us += h.ew_us;
        g->total_us += h.total_us;
        for (int k = 0; k < h.nops; k++)
            add_op(g->ops, &g->nops, &g->more_ops, h.ops[k]);
        if (h.more_ops) g->more_ops = 1;
        for (uint32_t k = 0; k < runs[r].n; k++)
            group_of[perm[runs[r].begin + k]] = key;
    }
    free(perm);
    free(runs);
    /* the rows of each group's elementwise ops */
    int32_t *row_of_model = malloc((pt->nmodels ? pt->nmodels : 1) * sizeof *row_of_model);
    if (!row_of_model && s == JV_OK) s = JV_ERR_NOMEM;
    for (size_t m = 0; row_of_model && m < pt->nmodels; m++)
        row_of_model[m] = -1;
    for (size_t r = 0; row_of_model && r < d->nrows; r++)
        if (d->rows[r].model >= 0 && (size_t)d->rows[r].model < pt->nmodels && row_of_model[d->rows[r].model] < 0)
            row_of_model[d->rows[r].model] = (int32_t)r;
    for (size_t i = 0; i < pt->ninst && s == JV_OK; i++) {
        if (group_of[i] == JV_NONE32 || !is_ew_inst(pt, &pt->inst[i])) continue;
        rowset_add(&gs[group_of[i]].rows, row_of_inst(&pt->inst[i], row_of_model), (double)pt->inst[i].busy_ns / 1e3);
    }
    /* keep groups whose instances run at least two elementwise kernels each on average */
    for (size_t g = 0; g < ng && s == JV_OK; g++) {
        fgroup *x = &gs[g];
        if (x->ew_kernels < 2 * x->instances) continue;
        jv_dfusion f = {0};
        if (by_module) {
            const char *cls;
            size_t cn = module_class(jv_trace_str(tr, x->key), &cls);
            f.name = jv_arena_strndup(&d->arena, cls, cn);
        } else {
            f.name = jv_digest_str(d, jv_trace_str(tr, x->key));
        }
        f.from_module = by_module;
        f.instances = x->instances;
        f.ew_kernels = x->ew_kernels;
        f.ew_us = x->ew_us;
        f.total_us = x->total_us;
        f.example_uid = x->example_uid;
        f.rows = x->rows;
        jv_strbuf ops = JV_STRBUF_INIT;
        int ok = 1;
        for (int k = 0; ok && k < x->nops; k++)
            ok = jv_sb_printf(&ops, "%s%s", k ? ", " : "", jv_trace_str(tr, x->ops[k]));
        if (ok && x->more_ops) ok = jv_sb_puts(&ops, ", ...");
        f.ops = ok ? jv_digest_str(d, ops.buf ? ops.buf : "") : NULL;
        jv_sb_free(&ops);
        if (!f.name || !f.ops) {
            s = JV_ERR_NOMEM;
            break;
        }
        size_t cap = d->nfusion;
        if ((s = jv_reserve((void **)&d->fusion, &cap, d->nfusion + 1, sizeof *d->fusion)) != JV_OK) break;
        d->fusion[d->nfusion++] = f;
    }
    jv_map_free(&gidx);
    free(gs);
    free(group_of);
    if (s == JV_OK) s = attention_of(d, tr, pt, holder, by_module, row_of_model);
    free(row_of_model);
    free(holder);
    if (s != JV_OK) return s;
    /* largest elementwise time first */
    return jv_sort_stable(d->fusion, d->nfusion, sizeof *d->fusion, cmp_ew_desc, NULL);
}

double jv_baseline_pct_of_hbm(const jv_digest *d) {
    if (!d->has_hw || !(d->hw.mem_bw_gbps > 0) || isnan(d->baseline.tbs)) return NAN;
    return 100.0 * d->baseline.tbs * 1e3 / d->hw.mem_bw_gbps;
}

/* row r's evaluation (jv_drow.eval), once the baseline is known */
static void row_evaluate(const jv_digest *d, const jv_drow *r, jv_row_eval *e) {
    memset(e, 0, sizeof *e);
    e->peak = e->achieved = e->pct = e->eff = e->vs_base = NAN;
    e->band = "";
    e->memory_bound = r->bound == JV_BOUND_MEMORY;
    if (r->transfer != JV_XFER_NONE) { /* no HBM roofline, no kernel verdict: the hardware has no host-link figure */
        e->memory_bound = 1;           /* its rate is a bandwidth (achieved TB/s), judged against nothing */
        e->achieved = r->tbs;
        e->verdict = jv_transfer_is_host(r->transfer) ? "not judged: a host transfer"
                     : r->transfer == JV_XFER_MEMSET  ? "not judged: a memset"
                                                      : "not judged: a memcpy";
        return;
    }
    if (r->nomodel != JV_NOMODEL_NONE) {
        e->verdict = "no model";
        return;
    }
    e->has_roof = d->has_hw && !isnan(r->roof_us) && r->roof_us > 0 && r->time_us > 0 && r->bound != JV_BOUND_NONE;
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

jv_status jv_digest_finish(jv_digest *d, const jv_trace *tr, const jv_tree *t, const struct jv_perf_table_ *pt,
                           const jv_timelines *tls, jv_err *err) {
    if (jv_sort_stable(d->rows, d->nrows, sizeof *d->rows, cmp_rows, NULL) != JV_OK)
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
    free(d->sheet_order);
    d->sheet_order = malloc((d->nrows ? d->nrows : 1) * sizeof *d->sheet_order);
    if (!d->sheet_order) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (report digest)");
    for (size_t i = 0; i < d->nrows; i++)
        d->sheet_order[d->rows[i].sheet_pos] = (uint32_t)i;
    d->total_us = 0;
    for (int c = 0; c < JV_DCAT_COUNT; c++)
        d->cat_us[c] = 0, d->cat_rows[c] = 0;
    d->layout_outside_us = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const jv_drow *r = &d->rows[i];
        d->total_us += r->time_us;
        d->cat_us[r->cat] += r->time_us;
        d->cat_rows[r->cat]++;
        if (r->cat != JV_DCAT_CONV) d->layout_outside_us += r->layout_us;
    }
    JV_CHECK(jv_quality_compute(d, tr, t, err));
    baseline_of(d);
    for (size_t i = 0; i < d->nrows; i++)
        row_evaluate(d, &d->rows[i], &d->rows[i].eval);
    d->nspecs = 0;
    for (size_t i = 0; i < d->nrows && d->nspecs < JV_DIGEST_SPECS; i++) {
        const char *sp = d->rows[i].spec;
        int seen = !sp[0];
        for (int k = 0; k < d->nspecs && !seen; k++)
            seen = !strcmp(d->specs[k], sp);
        if (!seen) snprintf(d->specs[d->nspecs++], sizeof d->specs[0], "%s", sp);
    }
    const jv_timeline_opts to = tls->opts;
    d->tl = tls->all; /* with what the host did while the GPU idled: the idle recommendation's evidence */
    d->gpu_events = d->tl.events;
    JV_CHECK(jv_comm_evidence(tr, t, &to, d->tl.exposed_comm, &d->comm, err));
    /* the memcpy time by direction, over the timeline's events: what the exposed-memcpy advice rests on; and the
     * devices those events ran on (the first 64 device ids told apart; more count as one more) */
    uint64_t seen = 0;
    int beyond = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (!jv_kind_is_gpu(jv_ev_kind(tr, e)) || (!to.include_unlinked && t->parent[i] == JV_NONE32)) continue;
        int dev = jv_ev_gpu(tr, e)->device;
        if (dev >= 0 && dev < 64)
            seen |= 1ull << dev;
        else
            beyond = 1;
        jv_xfer x = jv_transfer_of(jv_ev_kind(tr, e), jv_trace_str(tr, jv_ev_name(tr, e)));
        if (x != JV_XFER_NONE && x != JV_XFER_MEMSET) d->memcpy_us[x] += (double)jv_ev_dur(tr, e) / 1e3;
    }
    for (int b = 0; b < 64; b++)
        d->devices_with_gpu += (int)(seen >> b & 1u);
    d->devices_with_gpu += beyond;
    if (fusion_of(d, tr, t, pt) != JV_OK) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (fusion candidates)");
    return jv_findings_compute(d, err);
}
