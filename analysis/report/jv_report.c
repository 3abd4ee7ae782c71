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
        const char *key = by_category ? row->category : jv_trace_str(tr, tr->ev[row->ev].name);
        int64_t k = by_category ? (int64_t)(intptr_t)row->category : (int64_t)tr->ev[row->ev].name;
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
        for (c = 0; c < g[gi].ncats && strcmp(g[gi].cats[c], row->category); c++) {
        }
        if (c == g[gi].ncats && c < 4) g[gi].cats[g[gi].ncats++] = row->category;
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

typedef struct {
    const jv_trace *tr;
    const jv_launchers *l;
} ua_ctx;

typedef struct {
    uint32_t row;
    uint32_t name, sig;
    const char *cat, *proc, *label, *thread;
} ua_key;

static const char *or_unknown(const char *s) {
    return s && *s ? s : "Unknown";
}

static int cmp_ua(const ua_key *x, const ua_key *y) {
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    int c;
    if ((c = strcmp(x->cat, y->cat))) return c;
    if ((c = strcmp(x->proc, y->proc))) return c;
    if ((c = strcmp(x->label, y->label))) return c;
    if ((c = strcmp(x->thread, y->thread))) return c;
    if (x->sig != y->sig) return x->sig < y->sig ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row); /* rows are in ts order */
}

static int cmp_ua_q(const void *a, const void *b) {
    return cmp_ua(a, b);
}

typedef struct {
    size_t begin, n; /* range in the sorted key array */
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
static void kernel_details(jv_sheet *o, const jv_trace *tr, const jv_launchers *l, const ua_key *keys, size_t n) {
    jv_klist *rows = malloc((n ? n : 1) * sizeof *rows);
    char *full = NULL, *trunc = NULL;
    if (rows) {
        for (size_t i = 0; i < n; i++) {
            const jv_launcher *row = &l->rows[keys[i].row];
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
    ua_key *keys = malloc((l->n ? l->n : 1) * sizeof *keys);
    ua_group *groups = malloc((l->n ? l->n : 1) * sizeof *groups);
    double *v = malloc((l->n ? l->n : 1) * sizeof *v);
    if (!keys || !groups || !v) {
        free(keys);
        free(groups);
        free(v);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (ops_unique_args)");
    }
    for (size_t r = 0; r < l->n; r++) {
        const jv_event *e = &tr->ev[l->rows[r].ev];
        const jv_thread *th = &tr->threads[e->thread];
        uint32_t sig = e->kind == JV_K_CPU_OP || e->kind == JV_K_USER_ANNOT ? tr->ops[jv_ev_aux(tr, e)].sig : 0;
        keys[r] = (ua_key){(uint32_t)r,
                           e->name,
                           sig,
                           l->rows[r].category,
                           or_unknown(jv_trace_process_name(tr, th->pid)),
                           or_unknown(jv_trace_process_labels(tr, th->pid)),
                           or_unknown(jv_trace_str(tr, th->name))};
    }
    qsort(keys, l->n, sizeof *keys, cmp_ua_q);
    size_t ng = 0;
    for (size_t i = 0; i < l->n;) {
        size_t j = i + 1;
        while (j < l->n && keys[j].name == keys[i].name && keys[j].sig == keys[i].sig &&
               !strcmp(keys[j].cat, keys[i].cat) && !strcmp(keys[j].proc, keys[i].proc) &&
               !strcmp(keys[j].label, keys[i].label) && !strcmp(keys[j].thread, keys[i].thread))
            j++;
        ua_group *g = &groups[ng++];
        g->begin = i;
        g->n = j - i;
        g->direct_sum = 0;
        for (size_t k = i; k < j; k++)
            g->direct_sum += US(l->rows[keys[k].row].direct_ns);
        g->ex_uid = jv_trace_uid(tr, l->rows[keys[i].row].ev);
        i = j;
    }
    qsort(groups, ng, sizeof *groups, cmp_ua_group);
    double total = 0, cum = 0;
    for (size_t i = 0; i < ng; i++)
        total += groups[i].direct_sum;
    jv_sheet o;
    jv_status s = jv_sheet_open(&o, ro->book, "ops_unique_args", err);
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
            const ua_key *k0 = &keys[g->begin];
            const jv_sig *sg = &tr->sigs[k0->sig];
            jv_sheet_str(&o, jv_trace_str(tr, k0->name));
            jv_sheet_str(&o, k0->cat);
            jv_sheet_str(&o, k0->proc);
            jv_sheet_str(&o, k0->label);
            jv_sheet_str(&o, k0->thread);
            csv_pyrepr(&o, tr, sg->dims);
            csv_pyrepr(&o, tr, sg->types);
            csv_pyrepr(&o, tr, sg->strides);
            csv_pyrepr(&o, tr, sg->concrete);
            jv_sheet_int(&o, (long long)g->n);
            jv_stats sd, ss;
            for (size_t k = 0; k < g->n; k++)
                v[k] = US(l->rows[keys[g->begin + k].row].direct_ns);
            sd = jv_stats_of(v, g->n, 1);
            for (size_t k = 0; k < g->n; k++)
                v[k] = US(l->rows[keys[g->begin + k].row].subtree_ns);
            ss = jv_stats_of(v, g->n, 1);
            double pairs[6][2] = {{sd.mean, ss.mean}, {sd.median, ss.median}, {sd.std, ss.std},
                                  {sd.min, ss.min},   {sd.max, ss.max},       {sd.sum, ss.sum}};
            for (int p = 0; p < 6; p++) {
                jv_sheet_num(&o, pairs[p][0]);
                jv_sheet_num(&o, pairs[p][1]);
            }
            jv_sheet_int(&o, g->ex_uid);
            kernel_details(&o, tr, l, keys + g->begin, g->n);
            double pct = total > 0 ? 100.0 * g->direct_sum / total : 0;
            cum += pct;
            jv_sheet_num(&o, pct);
            jv_sheet_num(&o, cum);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    free(keys);
    free(groups);
    free(v);
    return s;
}

/* ---------- kernel_summary ---------- */

typedef struct {
    const char *cat, *parent, *kname;
    int stream;
    uint32_t ev;
} ks_key;

static int cmp_ks(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const ks_key *x = a, *y = b;
    int c;
    if ((c = strcmp(x->cat, y->cat))) return c;
    if ((c = strcmp(x->parent, y->parent))) return c;
    if ((c = strcmp(x->kname, y->kname))) return c;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

typedef struct {
    size_t begin, n;
    double sum;
} ks_group;

static int cmp_ks_group(const void *a, const void *b) {
    const ks_group *x = a, *y = b;
    if (x->sum != y->sum) return x->sum > y->sum ? -1 : 1;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

static jv_status write_kernel_summary(const jv_trace *tr, const jv_tree *t, const jv_launchers *l,
                                      const jv_report_opts *ro, jv_err *err) {
    const jv_gpu_timeline *tl = &ro->timelines->all;
    size_t nk = 0;
    for (size_t i = 0; i < tr->nev; i++)
        nk += tr->ev[i].kind == JV_K_KERNEL;
    ks_key *keys = malloc((nk ? nk : 1) * sizeof *keys);
    ks_group *groups = malloc((nk ? nk : 1) * sizeof *groups);
    double *v = malloc((nk ? nk : 1) * sizeof *v);
    if (!keys || !groups || !v) {
        free(keys);
        free(groups);
        free(v);
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory (kernel_summary)");
    }
    int any_op = 0;
    nk = 0;
    double all = 0;
    for (size_t i = 0; i < tr->nev; i++) {
        const jv_event *e = &tr->ev[i];
        if (e->kind != JV_K_KERNEL) continue;
        ks_key *k = &keys[nk++];
        k->kname = jv_trace_str(tr, e->name);
        const uint32_t g = jv_ev_aux(tr, e);
        k->stream = tr->gpu[g].stream;
        k->ev = (uint32_t)i;
        all += US(jv_ev_dur(tr, e));
        uint32_t op = t->op_of_gpu[g];
        if (op != JV_NONE32) {
            any_op = 1;
            const jv_launcher *row = jv_launchers_find(l, op);
            k->parent = jv_trace_str(tr, tr->ev[op].name);
            k->cat = row ? row->category : jv_op_category(k->parent, NULL);
        } else if (t->parent[i] != JV_NONE32) {
            k->parent = jv_trace_str(tr, tr->ev[t->parent[i]].name);
            k->cat = jv_contains_nocase(k->parent, "cudagraph") || jv_contains_nocase(k->parent, "graphlaunch")
                         ? "graph"
                         : "runtime";
        } else {
            k->parent = "";
            k->cat = "";
        }
    }
    jv_sort_inplace(keys, nk, sizeof *keys, cmp_ks, NULL); /* a total order (ev last); qsort's copy was 2.9 MiB */
    size_t ng = 0;
    for (size_t i = 0; i < nk;) {
        size_t j = i + 1;
        while (j < nk && keys[j].stream == keys[i].stream && !strcmp(keys[j].kname, keys[i].kname) &&
               !strcmp(keys[j].parent, keys[i].parent) && !strcmp(keys[j].cat, keys[i].cat))
            j++;
        ks_group *g = &groups[ng++];
        g->begin = i;
        g->n = j - i;
        g->sum = 0;
        for (size_t k = i; k < j; k++)
            g->sum += US(jv_ev_dur(tr, &tr->ev[keys[k].ev]));
        i = j;
    }
    qsort(groups, ng, sizeof *groups, cmp_ks_group);
    jv_sheet o;
    jv_status s = jv_sheet_open(&o, ro->book, "kernel_summary", err);
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
        for (size_t gi = 0; gi < ng; gi++) {
            const ks_group *g = &groups[gi];
            const ks_key *k0 = &keys[g->begin];
            for (size_t k = 0; k < g->n; k++)
                v[k] = US(jv_ev_dur(tr, &tr->ev[keys[g->begin + k].ev]));
            jv_stats st = jv_stats_of(v, g->n, 0);
            jv_sheet_str(&o, k0->cat);
            if (any_op) jv_sheet_str(&o, k0->parent);
            jv_sheet_str(&o, k0->kname);
            jv_sheet_int(&o, k0->stream);
            jv_sheet_num(&o, st.sum);
            jv_sheet_int(&o, (long long)g->n);
            jv_sheet_num(&o, st.mean);
            jv_sheet_num(&o, st.min);
            jv_sheet_num(&o, st.max);
            jv_sheet_num(&o, all > 0 ? 100.0 * st.sum / all : 0);
            jv_sheet_num(&o, tl->total > 0 ? 100.0 * st.sum / US(tl->total) : 0);
            jv_sheet_end(&o);
        }
        s = jv_sheet_commit(&o, err);
    }
    free(keys);
    free(groups);
    free(v);
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
    jv_err_clear(&j->err);
    j->st = JV_OK;
    j->nlaunchers = j->nbig = 0;
    j->most_direct = 0;
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
    j->running_ = j->threaded && pthread_create(&j->thread_, NULL, launcher_job_main, j) == 0;
    if (!j->running_) launcher_job_run(j);
}

void jv_launcher_job_join(jv_launcher_job *j) {
    if (j->running_) pthread_join(j->thread_, NULL);
    j->running_ = 0;
}
