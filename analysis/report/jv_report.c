/* jv_report: the CSV sheets. Numbers are printed in shortest round-trip form;
 * times follow TraceLens' units (µs for _sum columns, ms for _ms columns). */
#include "jv_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_category.h"
#include "jv_memstage.h"
#include "jv_output.h"
#include "jv_pgroup.h"
#include "jv_pyrepr.h"
#include "jv_sheet.h"
#include "jv_sort.h"
#include "jv_stats.h"

#define US(ns) ((double)(ns) / 1e3)
#define MS(ns) ((double)(ns) / 1e6)

/* ---------- gpu_timeline ---------- */

static void timeline_rows(jv_sheet *o, const jv_gpu_timeline *g, const jv_timeline_opts *to, const char *dev) {
    struct {
        const char *name;
        int64_t v;
    } rows[] = {{"computation_time", g->computation},
                {"exposed_comm_time", g->exposed_comm},
                {"exposed_memcpy_time", g->exposed_memcpy},
                {"busy_time", g->busy},
                {"idle_time", g->idle},
                {"micro_idle_time", g->micro_idle},
                {"macro_idle_time", g->macro_idle},
                {"total_time", g->total},
                {"total_comm_time", g->total_comm},
                {"total_memcpy_time", g->total_memcpy}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int split = to->micro_idle_ns > 0;
        if (split && i == 4) continue;
        if (!split && (i == 5 || i == 6)) continue;
        if (dev) jv_sheet_str(o, dev);
        jv_sheet_str(o, rows[i].name);
        jv_sheet_num(o, MS(rows[i].v));
        jv_sheet_num(o, g->total ? 100.0 * (double)rows[i].v / (double)g->total : 0.0);
        jv_sheet_end(o);
    }
}

static jv_status write_timeline(const jv_report_opts *ro, jv_err *err) {
    const jv_timelines *tl = ro->timelines;
    jv_sheet o;
    JV_CHECK(jv_sheet_open(&o, ro->book, "gpu_timeline", err));
    static const char *const hdr[] = {"type", "time ms", "percent", NULL};
    jv_sheet_header(&o, hdr);
    timeline_rows(&o, &tl->all, &tl->opts, NULL);
    JV_CHECK(jv_sheet_commit(&o, err));
    if (tl->ndev <= 1) return JV_OK;
    JV_CHECK(jv_sheet_open(&o, ro->book, "gpu_timeline_by_device", err));
    static const char *const hdr2[] = {"device", "type", "time ms", "percent", NULL};
    jv_sheet_header(&o, hdr2);
    for (size_t i = 0; i < tl->ndev; i++) {
        if (!tl->dev[i].events) continue;
        char d[16];
        snprintf(d, sizeof d, "%d", tl->devs[i]);
        timeline_rows(&o, &tl->dev[i], &tl->opts, d);
    }
    return jv_sheet_commit(&o, err);
}

/* ---------- ops_summary and ops_summary_by_category ---------- */

typedef struct {
    const char *key;     /* op name or category */
    const char *cats[4]; /* distinct categories (ops_summary) */
    int ncats;
    double direct_us, subtree_us;
    size_t count;
    uint32_t first; /* order of first appearance */
} group;

static int cmp_group(const void *a, const void *b) {
    const group *x = a, *y = b;
    if (x->direct_us != y->direct_us) return x->direct_us > y->direct_us ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static jv_status group_rows(const jv_trace *tr, const jv_launchers *l, int by_category, group **out, size_t *nout) {
    group *g = calloc(l->n ? l->n : 1, sizeof *g);
    if (!g) return JV_ERR_NOMEM;
    size_t n = 0;
    jv_map idx;
    jv_map_init(&idx);
    jv_status s = JV_OK;
    for (size_t r = 0; r < l->n && s == JV_OK; r++) {
        const jv_launcher *row = &l->rows[r];
        const char *key = by_category ? jv_launcher_category(row) : jv_trace_str(tr, jv_ev_name(tr, &tr->ev[row->ev]));
        int64_t k =
            by_category ? (int64_t)(intptr_t)jv_launcher_category(row) : (int64_t)jv_ev_name(tr, &tr->ev[row->ev]);
        uint32_t gi;
        if (!jv_map_get(&idx, k, &gi)) {
            gi = (uint32_t)n++;
            g[gi].key = key;
            g[gi].first = (uint32_t)r;
            s = jv_map_put(&idx, k, gi);
        }
        g[gi].direct_us += US(row->direct_ns);
        g[gi].subtree_us += US(row->subtree_ns);
        g[gi].count++;
        int c;
        for (c = 0; c < g[gi].ncats && strcmp(g[gi].cats[c], jv_launcher_category(row)); c++) {
        }
        if (c == g[gi].ncats && c < 4) g[gi].cats[g[gi].ncats++] = jv_launcher_category(row);
    }
    jv_map_free(&idx);
    if (s != JV_OK) {
        free(g);
        return s;
    }
    qsort(g, n, sizeof *g, cmp_group);
    *out = g;
    *nout = n;
    return JV_OK;
}

static jv_status write_ops_summary(const jv_trace *tr, const jv_launchers *l, const jv_report_opts *ro, jv_err *err) {
    group *g;
    size_t n;
    if (group_rows(tr, l, 0, &g, &n) != JV_OK) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (ops_summary)");
    double total = 0, cum = 0;
    for (size_t i = 0; i < n; i++)
        total += g[i].direct_us;
    jv_sheet o;
    jv_status s = jv_sheet_open(&o, ro->book, "ops_summary", err);
    if (s == JV_OK) {
        static const char *const hdr[] = {"name",
                                          "total_direct_kernel_time_sum",
                                          "total_subtree_kernel_time_sum",
                                          "total_direct_kernel_time_ms",
                                          "total_subtree_kernel_time_ms",
                                          "Count",
                                          "Categories",
                                          "Percentage (%)",
                                          "Cumulative Percentage (%)",
                                          NULL};
        jv_sheet_header(&o, hdr);
        for (size_t i = 0; i < n; i++) {
            char cats[160] = "[";
            for (int c = 0; c < g[i].ncats; c++) {
                size_t len = strlen(cats);
                snprintf(cats + len, sizeof cats - len, "%s'%s'", c ? ", " : "", g[i].cats[c]);
            }
            strncat(cats, "]", sizeof cats - strlen(cats) - 1);
            double pct = total > 0 ? 100.0 * g[i].direct_us / total : 0;
            cum += pct;
            jv_sheet_str(&o, g[i].key);
            jv_sheet_num(&o, g[i].direct_us);
            jv_sheet_num(&o, g[i].subtree_us);
            jv_sheet_num(&o, g[i].direct_us / 1e3);
            jv_sheet_num(&o, g[i].subtree_us / 1e3);
            jv_sheet_int(&o, (long long)g[i].count);
            jv_sheet_str(&o, cats);
            jv_sheet_num(&o, pct);
            jv_sheet_num(&o, cum);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    free(g);
    if (s != JV_OK) return s;

    if (group_rows(tr, l, 1, &g, &n) != JV_OK) JV_FAIL(err, JV_ERR_NOMEM, "out of memory (ops_summary_by_category)");
    s = jv_sheet_open(&o, ro->book, "ops_summary_by_category", err);
    if (s == JV_OK) {
        static const char *const hdr[] = {
            "op category", "Count", "total_direct_kernel_time_ms", "Percentage (%)", "Cumulative Percentage (%)", NULL};
        jv_sheet_header(&o, hdr);
        cum = 0;
        for (size_t i = 0; i < n; i++) {
            double pct = total > 0 ? 100.0 * g[i].direct_us / total : 0;
            cum += pct;
            jv_sheet_str(&o, g[i].key);
            jv_sheet_int(&o, (long long)g[i].count);
            jv_sheet_num(&o, g[i].direct_us / 1e3);
            jv_sheet_num(&o, pct);
            jv_sheet_num(&o, cum);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    free(g);
    return s;
}

/* ---------- ops_unique_args ---------- */

/* What a row's key is made from (ua_key_of): the rows sort as 4-byte indices, their keys made when compared */
typedef struct {
    const jv_trace *tr;
    const jv_launchers *l;
    const uint32_t *cat_rank; /* by row */
    const uint32_t *thr_rank; /* by thread, 3 each (jv_thread_ranks) */
} ua_ctx;

/* The key of a row: its strings as ranks in strcmp order (jv_str_ptr_ranks, jv_thread_ranks) */
typedef struct {
    uint32_t row;
    uint32_t name, sig;
    uint32_t cat;        /* rank of the op category */
    const uint32_t *thr; /* ranks of the process name, process labels and thread name (each "Unknown" when
                            empty) */
} ua_key;

static const char *or_unknown(const char *s) {
    return s && *s ? s : "Unknown";
}

/* 0 when x and y are of one group */
static int ua_key_cmp(const ua_key *x, const ua_key *y) {
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    if (x->thr != y->thr)
        for (int k = 0; k < 3; k++)
            if (x->thr[k] != y->thr[k]) return x->thr[k] < y->thr[k] ? -1 : 1;
    if (x->sig != y->sig) return x->sig < y->sig ? -1 : 1;
    return 0;
}

static ua_key ua_key_of(const ua_ctx *c, uint32_t r) {
    const jv_trace *tr = c->tr;
    const jv_event *e = &tr->ev[c->l->rows[r].ev];
    return (ua_key){r, jv_ev_name(tr, e), jv_ev_sig(tr, e) /* 0 unless an op or annotation */, c->cat_rank[r],
                    &c->thr_rank[3 * (size_t)jv_ev_thread(tr, e)]};
}

/* The index table of a group hash (open addressing: a group's index + 1, 0 empty): doubled (from 256) and
 * refilled with groups 0 .. n-1 when one more would make it over half full; hash(ctx, q, cap) places group q in
 * a table of cap slots. JV_ERR_NOMEM leaves it as it was. */
static jv_status gtab_room(uint32_t **table, size_t *tcap, size_t n, size_t (*hash)(const void *, size_t, size_t),
                           const void *ctx) {
    if ((n + 1) * 2 <= *tcap) return JV_OK;
    size_t nc = *tcap ? *tcap * 2 : 256;
    uint32_t *nt = calloc(nc, sizeof *nt);
    if (!nt) return JV_ERR_NOMEM;
    for (size_t q = 0; q < n; q++) {
        size_t i = hash(ctx, q, nc);
        while (nt[i])
            i = (i + 1) & (nc - 1);
        nt[i] = (uint32_t)q + 1;
    }
    free(*table);
    *table = nt;
    *tcap = nc;
    return JV_OK;
}

/* The groups of ops_unique_args made through a hash table (open addressing: a group's index + 1, 0 empty; at most
 * half full), so that memory goes by the groups, not by the rows: first[g], the first row of group g (its key). */
typedef struct {
    uint32_t *first;
    size_t n, cap;
    uint32_t *table;
    size_t tcap; /* a power of two */
} ua_groups;

static size_t ua_hash(const ua_key *k, size_t tcap) {
    const uint64_t m = 0x9e3779b97f4a7c15ull;
    uint64_t h = k->name;
    h = (h * m) ^ k->cat;
    for (int q = 0; q < 3; q++)
        h = (h * m) ^ k->thr[q];
    h = (h * m) ^ k->sig;
    h *= m;
    return (size_t)(h ^ h >> 29) & (tcap - 1);
}

typedef struct {
    const ua_ctx *c;
    const ua_groups *gs;
} ua_rehash;

static size_t ua_hash_group(const void *ctx, size_t q, size_t cap) {
    const ua_rehash *x = ctx;
    const ua_key k = ua_key_of(x->c, x->gs->first[q]);
    return ua_hash(&k, cap);
}

/* *g: the group of row r (made, with r its first row, when its key is new) */
static jv_status ua_group_of(const ua_ctx *c, ua_groups *gs, uint32_t r, uint32_t *g) {
    const ua_rehash rh = {c, gs};
    JV_CHECK(gtab_room(&gs->table, &gs->tcap, gs->n, ua_hash_group, &rh));
    const ua_key k = ua_key_of(c, r);
    size_t i = ua_hash(&k, gs->tcap);
    for (; gs->table[i]; i = (i + 1) & (gs->tcap - 1)) {
        const ua_key x = ua_key_of(c, gs->first[gs->table[i] - 1]);
        if (!ua_key_cmp(&x, &k)) {
            *g = gs->table[i] - 1;
            return JV_OK;
        }
    }
    JV_CHECK(JV_RESERVE(gs->first, gs->cap, gs->n + 1));
    gs->first[gs->n] = r;
    gs->table[i] = (uint32_t)++gs->n;
    *g = (uint32_t)gs->n - 1;
    return JV_OK;
}

typedef struct {
    size_t begin, n; /* range in perm (write_unique_args): the group's rows in row order */
    double direct_sum;
    uint32_t ex_uid;
} ua_group;

static int cmp_ua_group(const void *a, const void *b) {
    const ua_group *x = a, *y = b;
    if (x->direct_sum != y->direct_sum) return x->direct_sum > y->direct_sum ? -1 : 1;
    return (x->ex_uid > y->ex_uid) - (x->ex_uid < y->ex_uid);
}

static void csv_pyrepr(jv_sheet *o, const jv_trace *tr, uint32_t raw) {
    if (!raw) {
        jv_sheet_empty(o);
        return;
    }
    char *s = NULL;
    if (jv_pyrepr(jv_trace_str(tr, raw), jv_intern_len(&tr->strings, raw), &s) == JV_OK)
        jv_sheet_str(o, s);
    else
        jv_sheet_str(o, jv_trace_str(tr, raw));
    free(s);
}

/* kernel_details_summary and trunc_kernel_details of one group (unsorted, as TraceLens' ops_unique_args) */
static void kernel_details(jv_sheet *o, const jv_trace *tr, const jv_launchers *l, const uint32_t *perm, size_t n) {
    jv_klist *rows = malloc((n ? n : 1) * sizeof *rows);
    char *full = NULL, *trunc = NULL;
    if (rows) {
        for (size_t i = 0; i < n; i++) {
            const jv_launcher *row = &l->rows[perm[i]];
            rows[i].ev = l->gpu_list + row->gpu_begin;
            rows[i].n = row->ndirect;
        }
        jv_kernel_details(tr, rows, n, 0, &full, &trunc);
    }
    jv_sheet_str(o, full ? full : "");
    jv_sheet_str(o, trunc ? trunc : "");
    free(full);
    free(trunc);
    free(rows);
}

static jv_status write_unique_args(const jv_trace *tr, const jv_launchers *l, const jv_report_opts *ro, jv_err *err) {
    uint32_t *group_of = malloc((l->n ? l->n : 1) * sizeof *group_of);
    const char **cat = malloc((l->n ? l->n : 1) * sizeof *cat);
    uint32_t *cat_rank = malloc((l->n ? l->n : 1) * sizeof *cat_rank), *thr_rank = NULL, *perm = NULL;
    ua_group *groups = NULL;
    ua_groups gs = {0};
    double *v = NULL;
    jv_status s = group_of && cat && cat_rank ? JV_OK : JV_ERR_NOMEM;
    for (size_t r = 0; s == JV_OK && r < l->n; r++)
        cat[r] = jv_launcher_category(&l->rows[r]);
    if (s == JV_OK) s = jv_str_ptr_ranks(cat, l->n, cat_rank);
    if (s == JV_OK) s = jv_thread_ranks(tr, &thr_rank);
    free(cat);
    const ua_ctx uc = {tr, l, cat_rank, thr_rank};
    for (size_t r = 0; s == JV_OK && r < l->n; r++)
        s = ua_group_of(&uc, &gs, (uint32_t)r, &group_of[r]);
    free(gs.table);
    const size_t ng = gs.n;
    size_t most = 0;
    if (s == JV_OK) {
        groups = malloc((ng ? ng : 1) * sizeof *groups);
        perm = malloc((l->n ? l->n : 1) * sizeof *perm);
        if (!groups || !perm) s = JV_ERR_NOMEM;
    }
    if (s == JV_OK) {
        /* perm: the rows by group, in row order within one (a counting sort); each group's range, sum, example */
        for (size_t g = 0; g < ng; g++)
            groups[g] = (ua_group){0, 0, 0, jv_trace_uid(tr, l->rows[gs.first[g]].ev)};
        for (size_t r = 0; r < l->n; r++)
            groups[group_of[r]].n++;
        for (size_t g = 0, at = 0; g < ng; g++) {
            groups[g].begin = at;
            at += groups[g].n;
            most = groups[g].n > most ? groups[g].n : most;
            groups[g].n = 0;
        }
        for (size_t r = 0; r < l->n; r++) {
            ua_group *g = &groups[group_of[r]];
            perm[g->begin + g->n++] = (uint32_t)r;
            g->direct_sum += US(l->rows[r].direct_ns);
        }
        if (!(v = malloc((most ? most : 1) * sizeof *v))) s = JV_ERR_NOMEM;
    }
    free(group_of);
    free(gs.first);
    if (s != JV_OK) {
        free(perm);
        free(groups);
        free(v);
        free(cat_rank);
        free(thr_rank);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (ops_unique_args)");
    }
    qsort(groups, ng, sizeof *groups, cmp_ua_group);
    double total = 0, cum = 0;
    for (size_t i = 0; i < ng; i++)
        total += groups[i].direct_sum;
    jv_sheet o;
    s = jv_sheet_open(&o, ro->book, "ops_unique_args", err);
    if (s == JV_OK) {
        static const char *const hdr[] = {"name",
                                          "op category",
                                          "process_name",
                                          "process_label",
                                          "thread_name",
                                          "Input Dims",
                                          "Input type",
                                          "Input Strides",
                                          "Concrete Inputs",
                                          "operation_count",
                                          "total_direct_kernel_time_mean",
                                          "total_subtree_kernel_time_mean",
                                          "total_direct_kernel_time_median",
                                          "total_subtree_kernel_time_median",
                                          "total_direct_kernel_time_std",
                                          "total_subtree_kernel_time_std",
                                          "total_direct_kernel_time_min",
                                          "total_subtree_kernel_time_min",
                                          "total_direct_kernel_time_max",
                                          "total_subtree_kernel_time_max",
                                          "total_direct_kernel_time_sum",
                                          "total_subtree_kernel_time_sum",
                                          "ex_UID",
                                          "kernel_details_summary",
                                          "trunc_kernel_details",
                                          "Percentage (%)",
                                          "Cumulative Percentage (%)",
                                          NULL};
        jv_sheet_header(&o, hdr);
        for (size_t gi = 0; gi < ng; gi++) {
            const ua_group *g = &groups[gi];
            const ua_key k0 = ua_key_of(&uc, perm[g->begin]);
            const jv_sig *sg = &tr->sigs[k0.sig];
            const jv_thread *th = &tr->threads[jv_ev_thread(tr, &tr->ev[l->rows[k0.row].ev])];
            jv_sheet_str(&o, jv_trace_str(tr, k0.name));
            jv_sheet_str(&o, jv_launcher_category(&l->rows[k0.row]));
            jv_sheet_str(&o, or_unknown(jv_trace_process_name(tr, th->pid)));
            jv_sheet_str(&o, or_unknown(jv_trace_process_labels(tr, th->pid)));
            jv_sheet_str(&o, or_unknown(jv_trace_str(tr, th->name)));
            csv_pyrepr(&o, tr, sg->dims);
            csv_pyrepr(&o, tr, sg->types);
            csv_pyrepr(&o, tr, sg->strides);
            csv_pyrepr(&o, tr, sg->concrete);
            jv_sheet_int(&o, (long long)g->n);
            jv_stats sd, ss;
            for (size_t k = 0; k < g->n; k++)
                v[k] = US(l->rows[perm[g->begin + k]].direct_ns);
            sd = jv_stats_of(v, g->n, 1);
            for (size_t k = 0; k < g->n; k++)
                v[k] = US(l->rows[perm[g->begin + k]].subtree_ns);
            ss = jv_stats_of(v, g->n, 1);
            double pairs[6][2] = {{sd.mean, ss.mean}, {sd.median, ss.median}, {sd.std, ss.std},
                                  {sd.min, ss.min},   {sd.max, ss.max},       {sd.sum, ss.sum}};
            for (int p = 0; p < 6; p++) {
                jv_sheet_num(&o, pairs[p][0]);
                jv_sheet_num(&o, pairs[p][1]);
            }
            jv_sheet_int(&o, g->ex_uid);
            kernel_details(&o, tr, l, perm + g->begin, g->n);
            double pct = total > 0 ? 100.0 * g->direct_sum / total : 0;
            cum += pct;
            jv_sheet_num(&o, pct);
            jv_sheet_num(&o, cum);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    free(perm);
    free(cat_rank);
    free(groups);
    free(v);
    free(thr_rank);
    return s;
}

/* ---------- kernel_summary ---------- */

/* A group of TraceLens' groupby (category, parent op, kernel name, stream): its key, first as slots of its strings
 * (ks_strs), then as their ranks in strcmp order (jv_str_ranks), so that the sort compares integers; and its
 * kernels' durations, added in event order as they come (the sum, minimum and maximum of jv_stats_of, without its
 * sort for the median, which this sheet does not show; the durations are never NaN). */
typedef struct {
    uint32_t cat, parent, kname;
    int32_t stream;
    uint32_t n;
    double sum, mn, mx;
} ks_group;

/* by kernel time, largest first; ties in the groupby's order (the keys of two groups differ) */
static int cmp_ks_group(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const ks_group *x = a, *y = b;
    if (x->sum != y->sum) return x->sum > y->sum ? -1 : 1;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    if (x->kname != y->kname) return x->kname < y->kname ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* The groups and a hash table of them (open addressing: a group's index + 1, 0 empty; at most half full), so that
 * memory goes by the groups, not by the kernels. */
typedef struct {
    ks_group *g;
    size_t n, cap;
    uint32_t *table;
    size_t tcap; /* a power of two */
} ks_groups;

static size_t ks_hash(uint32_t cat, uint32_t parent, uint32_t kname, int32_t stream, size_t tcap) {
    uint64_t h = cat;
    h = (h * 0x9e3779b97f4a7c15ull) ^ parent;
    h = (h * 0x9e3779b97f4a7c15ull) ^ kname;
    h = (h * 0x9e3779b97f4a7c15ull) ^ (uint32_t)stream;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ h >> 29) & (tcap - 1);
}

static size_t ks_hash_group(const void *ctx, size_t q, size_t cap) {
    const ks_group *g = &((const ks_groups *)ctx)->g[q];
    return ks_hash(g->cat, g->parent, g->kname, g->stream, cap);
}

/* adds duration us to the group of the key (made when new) */
static jv_status ks_add(ks_groups *gs, uint32_t cat, uint32_t parent, uint32_t kname, int32_t stream, double us) {
    JV_CHECK(gtab_room(&gs->table, &gs->tcap, gs->n, ks_hash_group, gs));
    size_t i = ks_hash(cat, parent, kname, stream, gs->tcap);
    ks_group *g = NULL;
    for (; gs->table[i]; i = (i + 1) & (gs->tcap - 1)) {
        ks_group *x = &gs->g[gs->table[i] - 1];
        if (x->cat == cat && x->parent == parent && x->kname == kname && x->stream == stream) {
            g = x;
            break;
        }
    }
    if (!g) {
        JV_CHECK(JV_RESERVE(gs->g, gs->cap, gs->n + 1));
        g = &gs->g[gs->n];
        *g = (ks_group){cat, parent, kname, stream, 0, 0, INFINITY, -INFINITY};
        gs->table[i] = (uint32_t)++gs->n;
    }
    g->n++;
    g->sum += us;
    g->mn = us < g->mn ? us : g->mn;
    g->mx = us > g->mx ? us : g->mx;
    return JV_OK;
}

/* The distinct strings of kernel_summary's keys: names (interned ids, slot_of_id; slot 0 is "", the parent of
 * kernels without one) and categories (pointers to constant strings, told apart by address), each slot with
 * its string; ranks (jv_str_ranks) replace the slots once all are known. */
typedef struct {
    uint32_t *slot_of_id; /* by interned id: the name's slot, JV_NONE32 not yet seen */
    const char **names;   /* by slot */
    uint32_t *cat_alone;  /* by name slot: the category slot of an op without a launcher row, JV_NONE32 unknown */
    uint32_t *cat_host;   /* by name slot: the category slot of a kernel under that host event, JV_NONE32 unknown */
    size_t nnames, cap_names, cap_alone, cap_host;
    const char **cats; /* by category slot */
    size_t ncats, cap_cats;
    uint32_t last_op;              /* the op of the last jv_launchers_find (the kernels of one op come together) */
    const jv_launcher *last_found; /* its row */
} ks_strs;

static jv_status ks_name(ks_strs *k, const jv_trace *tr, uint32_t id, uint32_t *slot) {
    if (k->slot_of_id[id] == JV_NONE32) {
        if (JV_RESERVE(k->names, k->cap_names, k->nnames + 1) != JV_OK ||
            JV_RESERVE(k->cat_alone, k->cap_alone, k->nnames + 1) != JV_OK ||
            JV_RESERVE(k->cat_host, k->cap_host, k->nnames + 1) != JV_OK)
            return JV_ERR_NOMEM;
        k->names[k->nnames] = jv_trace_str(tr, id);
        k->cat_alone[k->nnames] = k->cat_host[k->nnames] = JV_NONE32;
        k->slot_of_id[id] = (uint32_t)k->nnames++;
    }
    *slot = k->slot_of_id[id];
    return JV_OK;
}

static jv_status ks_cat(ks_strs *k, const char *cat, uint32_t *slot) {
    size_t c;
    for (c = 0; c < k->ncats && k->cats[c] != cat; c++) {
    }
    if (c == k->ncats) {
        if (JV_RESERVE(k->cats, k->cap_cats, k->ncats + 1) != JV_OK) return JV_ERR_NOMEM;
        k->cats[k->ncats++] = cat;
    }
    *slot = (uint32_t)c;
    return JV_OK;
}

static void ks_strs_free(ks_strs *k) {
    free(k->slot_of_id);
    free(k->names);
    free(k->cat_alone);
    free(k->cat_host);
    free(k->cats);
}

/* The key of kernel event i as slots of its strings (ks_strs: made when new): *cat, *parent, *kname; *has_op: its
 * GPU event has an op. */
static jv_status ks_key_of(const jv_trace *tr, const jv_tree *t, const jv_launchers *l, ks_strs *k, uint32_t i,
                           uint32_t *cat, uint32_t *parent, uint32_t *kname, int *has_op) {
    const jv_event *e = &tr->ev[i];
    const uint32_t op = jv_tree_op_of_gpu(tr, t, i);
    *has_op = op != JV_NONE32;
    JV_CHECK(ks_name(k, tr, jv_ev_name(tr, e), kname));
    if (op != JV_NONE32) {
        if (op != k->last_op) {
            k->last_op = op;
            k->last_found = jv_launchers_find(l, op);
        }
        const jv_launcher *row = k->last_found;
        JV_CHECK(ks_name(k, tr, jv_ev_name(tr, &tr->ev[op]), parent));
        if (row) return ks_cat(k, jv_launcher_category(row), cat);
        uint32_t *c = &k->cat_alone[*parent];
        if (*c == JV_NONE32) JV_CHECK(ks_cat(k, jv_op_category(k->names[*parent], NULL), c));
        *cat = *c;
    } else if (t->parent[i] != JV_NONE32) {
        JV_CHECK(ks_name(k, tr, jv_ev_name(tr, &tr->ev[t->parent[i]]), parent));
        uint32_t *c = &k->cat_host[*parent];
        if (*c == JV_NONE32) {
            const char *p = k->names[*parent];
            JV_CHECK(ks_cat(
                k, jv_contains_nocase(p, "cudagraph") || jv_contains_nocase(p, "graphlaunch") ? "graph" : "runtime",
                c));
        }
        *cat = *c;
    } else {
        *parent = 0; /* "" */
        return ks_cat(k, "", cat);
    }
    return JV_OK;
}

static jv_status write_kernel_summary(const jv_trace *tr, const jv_tree *t, const jv_launchers *l,
                                      const jv_report_opts *ro, jv_err *err) {
    const jv_gpu_timeline *tl = &ro->timelines->all;
    ks_strs k = {0};
    k.last_op = JV_NONE32;
    ks_groups gs = {0};
    k.slot_of_id = malloc((tr->strings.count ? tr->strings.count : 1) * sizeof *k.slot_of_id);
    jv_status s = k.slot_of_id ? JV_OK : JV_ERR_NOMEM;
    for (size_t i = 0; s == JV_OK && i < tr->strings.count; i++)
        k.slot_of_id[i] = JV_NONE32;
    if (s == JV_OK && JV_RESERVE(k.names, k.cap_names, 1) == JV_OK &&
        JV_RESERVE(k.cat_alone, k.cap_alone, 1) == JV_OK && JV_RESERVE(k.cat_host, k.cap_host, 1) == JV_OK) {
        k.names[0] = ""; /* slot 0: no parent */
        k.cat_alone[0] = k.cat_host[0] = JV_NONE32;
        k.nnames = 1;
    } else {
        s = JV_ERR_NOMEM;
    }
    /* pass 1: the slots of every key's strings */
    int any_op = 0, has_op;
    double all = 0;
    uint32_t cat, parent, kname;
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        if (jv_ev_kind(tr, &tr->ev[i]) != JV_K_KERNEL) continue;
        all += US(jv_ev_dur(tr, &tr->ev[i]));
        s = ks_key_of(tr, t, l, &k, (uint32_t)i, &cat, &parent, &kname, &has_op);
        any_op |= has_op;
    }
    /* slots to ranks; by rank, a string of that rank (the strings of one rank are equal) */
    uint32_t *name_rank = NULL, *cat_rank = NULL;
    const char **name_of = NULL, **cat_of = NULL;
    if (s == JV_OK) {
        name_rank = malloc(k.nnames * sizeof *name_rank);
        cat_rank = malloc((k.ncats ? k.ncats : 1) * sizeof *cat_rank);
        name_of = malloc(k.nnames * sizeof *name_of);
        cat_of = malloc((k.ncats ? k.ncats : 1) * sizeof *cat_of);
        if (!name_rank || !cat_rank || !name_of || !cat_of) s = JV_ERR_NOMEM;
    }
    if (s == JV_OK) s = jv_str_ranks(k.names, k.nnames, name_rank);
    if (s == JV_OK) s = jv_str_ranks(k.cats, k.ncats, cat_rank);
    if (s == JV_OK) {
        for (size_t i = 0; i < k.nnames; i++)
            name_of[name_rank[i]] = k.names[i];
        for (size_t i = 0; i < k.ncats; i++)
            cat_of[cat_rank[i]] = k.cats[i];
    }
    /* pass 2: every kernel into the group of its key's ranks (the slots all known now), in event order */
    for (size_t i = 0; s == JV_OK && i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (jv_ev_kind(tr, e) != JV_K_KERNEL) continue;
        if ((s = ks_key_of(tr, t, l, &k, (uint32_t)i, &cat, &parent, &kname, &has_op)) != JV_OK) break;
        s = ks_add(&gs, cat_rank[cat], name_rank[parent], name_rank[kname], jv_ev_gpu(tr, e)->stream,
                   US(jv_ev_dur(tr, e)));
    }
    free(name_rank);
    free(cat_rank);
    free(gs.table);
    if (s != JV_OK) {
        free(gs.g);
        free(name_of);
        free(cat_of);
        ks_strs_free(&k);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (kernel_summary)");
    }
    jv_sort_inplace(gs.g, gs.n, sizeof *gs.g, cmp_ks_group, NULL); /* a total order (the keys differ) */
    jv_sheet o;
    s = jv_sheet_open(&o, ro->book, "kernel_summary", err);
    if (s == JV_OK) {
        static const char *const hdr[] = {"Parent op category",
                                          "Parent cpu_op",
                                          "Kernel name",
                                          "Kernel stream",
                                          "Kernel duration (µs)_sum",
                                          "Kernel duration (µs)_count",
                                          "Kernel duration (µs)_mean",
                                          "Kernel duration (µs)_min",
                                          "Kernel duration (µs)_max",
                                          "Percent of kernels time (%)",
                                          "Percent of total time (%)",
                                          NULL};
        for (const char *const *h = hdr; *h; h++)
            if (any_op || h != &hdr[1]) jv_sheet_str(&o, *h);
        jv_sheet_end(&o);
        for (size_t gi = 0; gi < gs.n; gi++) {
            const ks_group *g = &gs.g[gi];
            jv_sheet_str(&o, cat_of[g->cat]);
            if (any_op) jv_sheet_str(&o, name_of[g->parent]);
            jv_sheet_str(&o, name_of[g->kname]);
            jv_sheet_int(&o, g->stream);
            jv_sheet_num(&o, g->sum);
            jv_sheet_int(&o, (long long)g->n);
            jv_sheet_num(&o, g->sum / (double)g->n);
            jv_sheet_num(&o, g->mn);
            jv_sheet_num(&o, g->mx);
            jv_sheet_num(&o, all > 0 ? 100.0 * g->sum / all : 0);
            jv_sheet_num(&o, tl->total > 0 ? 100.0 * g->sum / US(tl->total) : 0);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    free(gs.g);
    free(name_of);
    free(cat_of);
    ks_strs_free(&k);
    return s;
}

jv_status jv_report_write_ops(const jv_trace *tr, const jv_launchers *l, const jv_report_opts *o, jv_err *err) {
    JV_CHECK(write_timeline(o, err));
    JV_CHECK(write_ops_summary(tr, l, o, err));
    return write_unique_args(tr, l, o, err);
}

jv_status jv_report_write_kernels(const jv_trace *tr, const jv_tree *t, const jv_launchers *l, const jv_report_opts *o,
                                  jv_err *err) {
    return write_kernel_summary(tr, t, l, o, err);
}

static void launcher_job_run(jv_launcher_job *j) {
    jv_launchers l = {0};
    if (j->tl_opts) {
        j->tls_st = jv_timelines_compute(j->tr, j->t, j->tl_opts, j->tls);
        jv_mem_stage("timelines");
        if (j->running_) pthread_mutex_lock(&j->mu_);
        j->tls_done_ = 1;
        if (j->running_) {
            pthread_cond_signal(&j->cv_);
            pthread_mutex_unlock(&j->mu_);
        }
        if (j->tls_st != JV_OK) return;
    }
    j->launchers_st = jv_launchers_build(j->tr, j->t, &l);
    jv_mem_stage("launcher table");
    if (j->launchers_st != JV_OK) return;
    j->nlaunchers = l.n;
    for (size_t i = 0; i < l.n; i++)
        if (l.rows[i].ndirect > JV_KERNEL_DETAILS_MAX) {
            j->nbig++;
            j->most_direct = l.rows[i].ndirect > j->most_direct ? l.rows[i].ndirect : j->most_direct;
        }
    if (j->o) {
        j->st = jv_report_write_ops(j->tr, &l, j->o, &j->err);
        jv_mem_stage("op sheets");
        if (j->st == JV_OK) j->st = jv_report_write_kernels(j->tr, j->t, &l, j->o, &j->err);
        jv_mem_stage("kernel sheet");
    }
    jv_launchers_free(&l);
}

static void *launcher_job_main(void *arg) {
    launcher_job_run(arg);
    return NULL;
}

void jv_launcher_job_start(jv_launcher_job *j) {
    /* the results are set here, before the thread starts: jv_launcher_job_timelines reads tls_st while it runs */
    jv_err_clear(&j->err);
    j->st = j->launchers_st = j->tls_st = JV_OK;
    j->nlaunchers = j->nbig = 0;
    j->most_direct = 0;
    j->tls_done_ = 0;
    j->running_ = 0;
    if (j->threaded && pthread_mutex_init(&j->mu_, NULL) == 0) {
        if (pthread_cond_init(&j->cv_, NULL) == 0) {
            j->running_ = 1; /* before the thread starts: launcher_job_run reads it */
            if (pthread_create(&j->thread_, NULL, launcher_job_main, j) != 0) {
                j->running_ = 0;
                pthread_cond_destroy(&j->cv_);
            }
        }
        if (!j->running_) pthread_mutex_destroy(&j->mu_);
    }
    if (!j->running_) launcher_job_run(j);
}

jv_status jv_launcher_job_timelines(jv_launcher_job *j) {
    if (!j->tl_opts) return JV_OK;
    if (j->running_) {
        pthread_mutex_lock(&j->mu_);
        while (!j->tls_done_)
            pthread_cond_wait(&j->cv_, &j->mu_);
        pthread_mutex_unlock(&j->mu_);
    }
    return j->tls_st;
}

void jv_launcher_job_join(jv_launcher_job *j) {
    if (j->running_) {
        pthread_join(j->thread_, NULL);
        pthread_cond_destroy(&j->cv_);
        pthread_mutex_destroy(&j->mu_);
    }
    j->running_ = 0;
}
