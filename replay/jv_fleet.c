/* jv_fleet: the records, the launcher's size, a rank's CPU slice and the fleet statistics (jv_fleet.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#include "jv_fleet.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "jv_timing.h" /* jv_timing_stats: the one median */

const char *jv_fleet_state_str(jv_fleet_state s) {
    switch (s) {
    case JV_FLEET_OK: return "ok";
    case JV_FLEET_FAILED_OPS: return "failed ops";
    case JV_FLEET_FAILED: return "FAILED";
    case JV_FLEET_MISSING: return "MISSING";
    }
    return "?";
}

static int env_int(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    return (*end || errno || n <= 0 || n > 1 << 24) ? 0 : (int)n;
}

int jv_fleet_launch_size(char *var, size_t cap, int *certain) {
    static const char *const SURE[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};
    if (cap) var[0] = 0;
    *certain = 0;
    for (size_t i = 0; i < sizeof SURE / sizeof SURE[0]; i++) {
        int n = env_int(SURE[i]);
        if (n) {
            snprintf(var, cap, "%s", SURE[i]);
            *certain = 1;
            return n;
        }
    }
    int n = env_int("SLURM_NTASKS");
    if (n) snprintf(var, cap, "SLURM_NTASKS");
    return n;
}

uint64_t jv_fleet_mask_hash(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the CPU numbers in the mask */
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            h ^= (uint64_t)c + 1;
            h *= 1099511628211ull;
        }
    return h;
}

/* "0-3" or "0,2,5" (ranges joined) of the CPUs in set */
static void cpus_str(const cpu_set_t *set, char *buf, size_t cap) {
    size_t l = 0;
    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && l < cap; c++) {
        if (!CPU_ISSET(c, set)) continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        int w = e > c ? snprintf(buf + l, cap - l, "%s%d-%d", l ? "," : "", c, e)
                      : snprintf(buf + l, cap - l, "%s%d", l ? "," : "", c);
        if (w < 0) break;
        l += (size_t)w;
        c = e;
    }
}

jv_status jv_fleet_pin(int lr, int ls, int split, int *shared, char *desc, size_t cap, jv_err *err) {
    cpu_set_t set, mine;
    *shared = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        JV_FAIL(err, JV_ERR_IO, "fleet: cannot read the CPU affinity mask: %s", strerror(errno));
    int n = CPU_COUNT(&set);
    if (n < 1) JV_FAIL(err, JV_ERR_IO, "fleet: the CPU affinity mask is empty");
    CPU_ZERO(&mine);
    int lo = 0, hi = n; /* positions in the mask kept */
    if (split && ls > 1) {
        if (ls > n) {
            *shared = 1;
            lo = lr % n;
            hi = lo + 1;
        } else {
            lo = (int)((long long)lr * n / ls);
            hi = (int)((long long)(lr + 1) * n / ls);
        }
    }
    int pos = 0, kept = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        if (pos >= lo && pos < hi) {
            CPU_SET(c, &mine);
            kept++;
        }
        pos++;
    }
    if (split && ls > 1 && sched_setaffinity(0, sizeof mine, &mine) != 0)
        JV_FAIL(err, JV_ERR_IO, "fleet: cannot set the CPU affinity of local rank %d: %s", lr, strerror(errno));
#ifdef _OPENMP
    omp_set_num_threads(kept);
#endif
    char list[64];
    cpus_str(&mine, list, sizeof list);
    snprintf(desc, cap, "cpus %s, %d thread%s%s", list, kept, kept == 1 ? "" : "s",
             !split   ? " (bound by the launcher)"
             : ls > n ? " (oversubscribed: ranks share CPUs)"
                      : "");
    return JV_OK;
}

void jv_fleet_rank_fill(jv_fleet_rank *r, const jv_device_props *props, const jv_baseline *base, int rc,
                        const char *error, int n_ops) {
    if (props) {
        snprintf(r->device_name, sizeof r->device_name, "%s", props->name);
        snprintf(r->backend, sizeof r->backend, "%s", props->backend);
        snprintf(r->driver, sizeof r->driver, "%s", props->driver);
        snprintf(r->arch, sizeof r->arch, "%s", props->arch);
        r->is_gpu = props->is_gpu;
        r->compute_units = props->compute_units;
        snprintf(r->uuid, sizeof r->uuid, "%s", props->uuid);
        snprintf(r->pci, sizeof r->pci, "%s", props->pci);
    }
    if (base && base->done) {
        r->base_done = 1;
        for (int k = 0; k < JV_BASE_COUNT; k++) {
            r->bw[k] = base->bw[k];
            r->bw_best[k] = base->t[k].min_s > 0 ? base->bytes[k] / base->t[k].min_s : 0;
            r->base_verified[k] = base->verified[k];
        }
    }
    if (base && base->gemm_done && base->gemm.status == JV_RES_OK) {
        r->gemm_done = 1;
        r->gemm_flops = base->flops_ceiling;
        r->gemm_flops_best = base->gemm.hot.min_s > 0 ? base->gemm.perf.flops / base->gemm.hot.min_s : 0;
        r->gemm_n = (long long)base->gemm_n;
        snprintf(r->gemm_dtype, sizeof r->gemm_dtype, "%s", jv_dtype_short(base->gemm.perf.dtype));
    }
    r->rc = rc;
    r->n_ops = n_ops;
    if (error && *error) {
        r->state = JV_FLEET_FAILED;
        snprintf(r->error, sizeof r->error, "%s", error);
    } else {
        r->state = rc ? JV_FLEET_FAILED_OPS : JV_FLEET_OK;
    }
}

void jv_fleet_ops_fill(jv_fleet_op *ops, const jv_op_result *res, int n) {
    for (int i = 0; i < n; i++) {
        jv_fleet_op *o = &ops[i];
        const jv_op_result *x = &res[i];
        memset(o, 0, sizeof *o);
        o->index = x->index;
        o->variant = x->variant;
        o->status = (int)x->status;
        o->hot_s = x->hot.samples > 0 ? x->hot.median_s : 0;
        o->cold_s = x->cold.samples > 0 ? x->cold.median_s : 0;
        o->hot_min_s = x->hot.samples > 0 ? x->hot.min_s : 0;
        o->cold_min_s = x->cold.samples > 0 ? x->cold.min_s : 0;
        o->flops = x->perf.flops;
        o->bytes = x->perf.bytes;
        snprintf(o->label, sizeof o->label, "%s", x->label);
    }
}

/* ---- statistics ---- */

/* the median of the non-NaN values of v[0..n) and the MAD of their logarithms, median |ln(v / median)| (a
 * relative spread: times and rates are positive and compared as ratios), tmp: n doubles; returns how many
 * values there were */
static int median_mad_ln(const double *v, int n, double *tmp, double *med, double *mad_ln) {
    int m = 0;
    double mean, rsd;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i])) tmp[m++] = v[i];
    *med = *mad_ln = NAN;
    if (!m) return 0;
    jv_timing_stats(tmp, m, med, &mean, &rsd);
    for (int i = 0; i < m; i++)
        tmp[i] = fabs(log(tmp[i] / *med));
    jv_timing_stats(tmp, m, mad_ln, &mean, &rsd);
    return m;
}

/* appends a metric with per-rank arrays; NULL when out of memory */
static jv_fleet_metric *add_metric(jv_fleet *f, int *cap, int kind, int op) {
    if (f->nmetrics == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        jv_fleet_metric *m = realloc(f->m, (size_t)nc * sizeof *m);
        if (!m) return NULL;
        f->m = m;
        *cap = nc;
    }
    jv_fleet_metric *x = &f->m[f->nmetrics];
    memset(x, 0, sizeof *x);
    x->value = malloc((size_t)f->nranks * sizeof *x->value);
    x->flag = calloc((size_t)f->nranks, sizeof *x->flag);
    if (!x->value || !x->flag) {
        free(x->value);
        free(x->flag);
        return NULL;
    }
    for (int r = 0; r < f->nranks; r++)
        x->value[r] = NAN;
    x->kind = kind;
    x->op = op;
    f->nmetrics++;
    return x;
}

/* the op of rank r matching the reference op (same entry, implementation and label), or NULL */
static const jv_fleet_op *op_of(const jv_fleet *f, int r, int j, const jv_fleet_op *want) {
    const jv_fleet_op *o = f->ops[r];
    int n = f->ranks[r].n_ops;
    if (!o) return NULL;
    if (j < n && o[j].index == want->index && o[j].variant == want->variant && !strcmp(o[j].label, want->label))
        return &o[j];
    for (int i = 0; i < n; i++)
        if (o[i].index == want->index && o[i].variant == want->variant && !strcmp(o[i].label, want->label))
            return &o[i];
    return NULL;
}

static int ran(const jv_fleet_rank *r) {
    return r->state == JV_FLEET_OK || r->state == JV_FLEET_FAILED_OPS;
}

jv_status jv_fleet_analyze(jv_fleet *f, const jv_fleet_rank *ranks, const jv_fleet_op *const *ops, int nranks, double k,
                           double min_band, int best, jv_err *err) {
    memset(f, 0, sizeof *f);
    f->best = best;
    f->nranks = nranks;
    f->ranks = ranks;
    f->ops = ops;
    f->k = k;
    f->min_band = min_band;
    f->ref = -1;
    int cap = 0;
    double *tmp = malloc((size_t)(nranks > 0 ? nranks : 1) * sizeof *tmp);
    f->slow = calloc((size_t)nranks + 1, sizeof *f->slow);
    f->fast = calloc((size_t)nranks + 1, sizeof *f->fast);
    f->score = malloc(((size_t)nranks + 1) * sizeof *f->score);
    f->node = calloc((size_t)nranks + 1, sizeof *f->node);
    f->node_flagged = calloc((size_t)nranks + 1, sizeof *f->node_flagged);
    f->same_gpu = calloc((size_t)nranks + 1, sizeof *f->same_gpu);
    if (!tmp || !f->slow || !f->fast || !f->score || !f->node || !f->node_flagged || !f->same_gpu) goto nomem;
    for (int r = 0; r < nranks; r++) {
        f->score[r] = NAN;
        if (ranks[r].state != JV_FLEET_OK) f->failed++;
        if (ran(&ranks[r]) && ops[r] && (f->ref < 0 || ranks[r].n_ops > ranks[f->ref].n_ops)) f->ref = r;
    }
    /* the baseline kernels and the GEMM */
    for (int b = 0; b <= JV_BASE_COUNT; b++) {
        jv_fleet_metric *m = add_metric(f, &cap, b < JV_BASE_COUNT ? JV_FM_BW : JV_FM_FLOPS, -1);
        if (!m) goto nomem;
        const char *dt = "";
        long long gn = 0;
        for (int r = 0; r < nranks; r++) {
            const jv_fleet_rank *x = &ranks[r];
            if (!ran(x)) continue;
            double bw = b < JV_BASE_COUNT ? (best ? x->bw_best[b] : x->bw[b]) : 0;
            double fl = best ? x->gemm_flops_best : x->gemm_flops;
            if (b < JV_BASE_COUNT && x->base_done && x->base_verified[b] && bw > 0) m->value[r] = bw;
            if (b == JV_BASE_COUNT && x->gemm_done && fl > 0) {
                m->value[r] = fl;
                dt = x->gemm_dtype;
                gn = x->gemm_n;
            }
        }
        if (b < JV_BASE_COUNT)
            snprintf(m->name, sizeof m->name, "baseline %s", jv_base_name((jv_base_kernel)b));
        else
            snprintf(m->name, sizeof m->name, "GEMM %s %lld^3", dt, gn);
    }
    /* the ops of the reference rank's list */
    for (int j = 0; f->ref >= 0 && j < ranks[f->ref].n_ops; j++) {
        const jv_fleet_op *want = &ops[f->ref][j];
        int hot = 0, any = 0;
        for (int r = 0; r < nranks; r++) {
            const jv_fleet_op *o = ran(&ranks[r]) ? op_of(f, r, j, want) : NULL;
            if (o && o->status == JV_RES_OK && (o->hot_s > 0 || o->cold_s > 0)) {
                any = 1;
                hot |= o->hot_s > 0;
            }
        }
        if (!any) continue;
        jv_fleet_metric *m = add_metric(f, &cap, JV_FM_TIME, j);
        if (!m) goto nomem;
        snprintf(m->name, sizeof m->name, "op %d %.200s (%s)", want->index, want->label, hot ? "hot" : "cold");
        for (int r = 0; r < nranks; r++) {
            const jv_fleet_op *o = ran(&ranks[r]) ? op_of(f, r, j, want) : NULL;
            double v = !o || o->status != JV_RES_OK ? 0
                       : hot                        ? (best ? o->hot_min_s : o->hot_s)
                                                    : (best ? o->cold_min_s : o->cold_s);
            if (v > 0) m->value[r] = v;
        }
    }
    /* the bands and the flags */
    for (int i = 0; i < f->nmetrics; i++) {
        jv_fleet_metric *m = &f->m[i];
        m->n = median_mad_ln(m->value, nranks, tmp, &m->median, &m->mad_ln);
        m->lo = m->hi = NAN;
        if (m->n < JV_FLEET_MIN_RANKS) continue;
        /* a band of ratios: 20x slower is as far out as 20x faster, and a noisy fleet can still flag a rate
         * (a band of differences, median +- k MAD, starts at 0 once k MAD passes the median: no rate below it
         * could be flagged however low) */
        double h = fmax(k * m->mad_ln, log1p(min_band));
        m->lo = m->median * exp(-h);
        m->hi = m->median * exp(h);
        for (int r = 0; r < nranks; r++) {
            double v = m->value[r];
            if (isnan(v) || (v >= m->lo && v <= m->hi)) continue;
            int high = v > m->hi;
            m->flag[r] = (signed char)((high == (m->kind == JV_FM_TIME)) ? 1 : -1); /* a long time or a low rate */
            if (m->flag[r] > 0)
                f->slow[r]++;
            else
                f->fast[r]++;
        }
    }
    for (int r = 0; r < nranks; r++) {
        double lsum = 0;
        int n = 0;
        for (int i = 0; i < f->nmetrics; i++) {
            const jv_fleet_metric *m = &f->m[i];
            if (m->kind != JV_FM_TIME || isnan(m->value[r]) || !(m->median > 0)) continue;
            lsum += log(m->value[r] / m->median);
            n++;
        }
        if (n) f->score[r] = exp(lsum / n);
        if (f->slow[r] || f->fast[r]) f->flagged++;
    }
    /* the nodes: a node is flagged when every rank of it is (its GPUs alike: power, cooling, host, network) */
    for (int r = 0; r < nranks; r++) {
        f->node[r] = -1;
        if (ranks[r].state == JV_FLEET_MISSING) continue;
        for (int q = 0; q < r && f->node[r] < 0; q++)
            if (f->node[q] >= 0 && !strcmp(ranks[q].host, ranks[r].host)) f->node[r] = f->node[q];
        if (f->node[r] < 0) f->node[r] = f->nnodes++;
    }
    for (int r = 0; r < nranks; r++) { /* two ranks on one GPU: same host, same UUID or PCI address */
        const jv_fleet_rank *a = &ranks[r];
        f->same_gpu[r] = -1;
        for (int q = 0; q < nranks && f->same_gpu[r] < 0 && ran(a); q++) {
            const jv_fleet_rank *b = &ranks[q];
            if (q == r || !ran(b) || strcmp(a->host, b->host)) continue;
            if ((a->uuid[0] && !strcmp(a->uuid, b->uuid)) || (a->pci[0] && !strcmp(a->pci, b->pci))) f->same_gpu[r] = q;
        }
    }
    for (int i = 0; i < f->nnodes && f->nnodes > 1; i++) {
        int all = 1;
        for (int r = 0; r < nranks; r++)
            if (f->node[r] == i && !f->slow[r] && !f->fast[r]) all = 0;
        f->node_flagged[i] = all;
    }
    free(tmp);
    return JV_OK;
nomem:
    free(tmp);
    jv_fleet_free(f);
    JV_FAIL(err, JV_ERR_NOMEM, "fleet statistics: out of memory for %d ranks", nranks);
}

void jv_fleet_free(jv_fleet *f) {
    for (int i = 0; i < f->nmetrics; i++) {
        free(f->m[i].value);
        free(f->m[i].flag);
    }
    free(f->m);
    free(f->slow);
    free(f->fast);
    free(f->score);
    free(f->node);
    free(f->node_flagged);
    free(f->same_gpu);
    memset(f, 0, sizeof *f);
}
