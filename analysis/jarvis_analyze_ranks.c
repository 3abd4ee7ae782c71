/* jarvis_analyze_ranks: jarvis-analyze on the traces of one job (several files, a folder or a glob; one per
 * rank): the ranks analysed in threads into OUTDIR/rank<k>/, then the cross-rank view (jv_multirank), each
 * rank's reports with the waits measured across the job, and the job's reports (jarvis_analyze.h). */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jv_comm_evidence.h"
#include "jv_digest.h"
#include "jv_findings.h"
#include "jv_findings_model.h"
#include "jv_html.h"
#include "jv_multirank.h"
#include "jv_multirank_report.h"
#include "jv_output.h"
#include "jv_publish.h"

#include "jarvis_analyze.h"

void jv_pathlist_free(jv_pathlist *pl) {
    for (size_t i = 0; i < pl->n; i++)
        free(pl->v[i]);
    free(pl->v);
    memset(pl, 0, sizeof *pl);
}

jv_status jv_pathlist_add(jv_pathlist *pl, const char *p, jv_err *err) {
    if (JV_RESERVE(pl->v, pl->cap, pl->n + 1) != JV_OK || !(pl->v[pl->n] = strdup(p)))
        JV_FAIL(err, JV_ERR_NOMEM, "out of memory listing the traces");
    pl->n++;
    return JV_OK;
}

static int cmp_path(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int trace_name(const char *n) {
    size_t k = strlen(n);
    return n[0] != '.' && ((k > 5 && !strcmp(n + k - 5, ".json")) || (k > 8 && !strcmp(n + k - 8, ".json.gz")));
}

/* The traces an argument names: a folder's *.json and *.json.gz (sorted by name), the files of a glob the
 * shell did not expand (sorted), or the argument itself. */
jv_status jv_pathlist_expand(const char *arg, jv_pathlist *pl, jv_err *err) {
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(arg);
        if (!d) JV_FAIL(err, JV_ERR_IO, "%s: cannot read the folder: %s", arg, strerror(errno));
        size_t first = pl->n;
        jv_status s = JV_OK;
        struct dirent *e;
        while (s == JV_OK && (e = readdir(d)))
            if (trace_name(e->d_name)) {
                char p[4096];
                if ((size_t)snprintf(p, sizeof p, "%s/%s", arg, e->d_name) >= sizeof p) continue;
                s = jv_pathlist_add(pl, p, err);
            }
        closedir(d);
        JV_CHECK(s);
        if (pl->n == first) JV_FAIL(err, JV_ERR_FORMAT, "%s: a directory without traces (*.json, *.json.gz)", arg);
        qsort(pl->v + first, pl->n - first, sizeof *pl->v, cmp_path);
        return JV_OK;
    }
    if (stat(arg, &st) != 0 && strpbrk(arg, "*?[")) {
        glob_t g;
        int rc = glob(arg, 0, NULL, &g);
        if (rc == GLOB_NOMATCH) JV_FAIL(err, JV_ERR_IO, "%s: no such file, and no file matches it as a pattern", arg);
        if (rc) JV_FAIL(err, JV_ERR_IO, "%s: cannot expand the pattern", arg);
        jv_status s = JV_OK;
        for (size_t i = 0; i < g.gl_pathc && s == JV_OK; i++)
            s = jv_pathlist_add(pl, g.gl_pathv[i], err); /* glob sorts */
        globfree(&g);
        return s;
    }
    return jv_pathlist_add(pl, arg, err);
}

typedef struct {
    const jv_analyze_cli *c;
    const char *path;
    char dir[4096]; /* the rank's folder in the stage: .input<i> while analysed, rank<k> once numbered */
    jv_rank_view rv;
    jv_digest *dg; /* its model, kept until the job's measured waits are in (rank_reports); NULL once its reports
                    * are written (a rank without communication kernels: rank_run) */
    jv_status st;
    jv_err err;
} rank_task;

typedef struct {
    rank_task *t;
    size_t n, next;
    pthread_mutex_t mu; /* next */
    const jv_job *job;  /* NULL: the ranks are analysed (rank_run); else their reports written (rank_finish) */
} rank_pool;

/* The fair and rough reports, findings and html page of digest dg into dir. */
static jv_status rank_write(const jv_digest *dg, const char *dir, jv_err *err) {
    JV_CHECK(jv_findings_write(dg, dir, err));
    return jv_html_write(dg, NULL, dir, err);
}

/* One rank: the sheets, package and category data of one trace into its folder, its model (k->dg) for its reports
 * and its view for the cross-rank outputs. A rank without communication kernels has no collective the job can
 * measure (jv_comm_measured leaves it as it is): its reports are written at once and its model freed, so it keeps
 * only its view. */
static void rank_run(rank_task *k) {
    jv_analyze_cli cs = *k->c;
    cs.stage = k->dir;
    cs.trace = k->path;
    cs.quiet = 1; /* threads print nothing: one line per rank is printed in rank order at the end */
    jv_err_clear(&k->err);
    k->dg = calloc(1, sizeof *k->dg);
    k->st =
        k->dg ? jv_mkdir_p(k->dir, &k->err) : jv_err_set(&k->err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
    if (k->st == JV_OK) k->st = jv_analyze_one(&cs, k->path, 1, NULL, k->dg, &k->rv, &k->err);
    if (k->st == JV_OK && !k->rv.ncalls) {
        k->st = rank_write(k->dg, k->dir, &k->err);
        jv_digest_free(k->dg);
        free(k->dg);
        k->dg = NULL;
    }
}

/* The reports of rank r (job index) into dir: its exposed-communication evidence takes the waits measured across
 * the job's ranks (jv_comm_measured), then its findings are computed again and written with its html page. */
static jv_status rank_reports(jv_digest *dg, const jv_job *job, int r, const char *dir, jv_err *err) {
    JV_CHECK(jv_comm_measured(&dg->comm, job, r, err));
    if (dg->comm.measured) JV_CHECK(jv_findings_compute(dg, err));
    return rank_write(dg, dir, err);
}

/* The reports of task k, job index r, once the job is built (its folder is k->dir), then its model freed. */
static void rank_finish(rank_task *k, const jv_job *job, int r) {
    if (!k->dg) return; /* written by rank_run */
    k->st = rank_reports(k->dg, job, r, k->dir, &k->err);
    jv_digest_free(k->dg);
    free(k->dg);
    k->dg = NULL;
}

static void *rank_worker(void *arg) {
    rank_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n) return NULL;
        if (p->job)
            rank_finish(&p->t[i], p->job, (int)i);
        else
            rank_run(&p->t[i]);
    }
}

/* Runs the pool's tasks on nthreads threads (this one included) and returns once all are done. */
static void pool_run(rank_pool *p, size_t nthreads) {
    pthread_t th[256];
    size_t started = 0;
    p->next = 0;
    for (; started + 1 < nthreads && started < sizeof th / sizeof *th; started++)
        if (pthread_create(&th[started], NULL, rank_worker, p)) break;
    rank_worker(p); /* this thread works too */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

/* The first failed task's status and error into *err (JV_OK when none failed). */
static jv_status pool_status(const rank_task *t, size_t n, jv_err *err) {
    for (size_t i = 0; i < n; i++)
        if (t[i].st != JV_OK) {
            *err = t[i].err;
            return t[i].st;
        }
    return JV_OK;
}

static int cmp_task_rank(const void *a, const void *b) {
    const rank_task *x = a, *y = b;
    return (x->rv.rank > y->rv.rank) - (x->rv.rank < y->rv.rank);
}

/* The rank numbers: distributedInfo.rank when every trace has one and no two agree, else the order given. */
static void assign_ranks(const jv_analyze_cli *c, rank_task *t, size_t n) {
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        ok = t[i].rv.rank >= 0;
        for (size_t j = 0; j < i && ok; j++)
            ok = t[i].rv.rank != t[j].rv.rank;
    }
    if (!ok) {
        int some = 0;
        for (size_t i = 0; i < n; i++)
            some |= t[i].rv.rank >= 0;
        if (some)
            fprintf(stderr,
                    "jarvis-analyze: warning: the traces' distributedInfo.rank values are missing or repeated: ranks "
                    "numbered in the order given\n");
        for (size_t i = 0; i < n; i++)
            t[i].rv.rank = (int)i;
        return;
    }
    (void)c;
    qsort(t, n, sizeof *t, cmp_task_rank);
}

jv_status jv_analyze_ranks(const jv_analyze_cli *cl, const jv_pathlist *in, jv_err *err) {
    jv_publish pub;
    JV_CHECK(jv_publish_begin(&pub, cl->outdir, err));
    jv_analyze_cli cs = *cl;
    cs.stage = pub.stage;
    size_t n = in->n;
    rank_task *t = calloc(n, sizeof *t);
    char **dirs = calloc(n, sizeof *dirs);
    jv_status s = t && dirs ? JV_OK : jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
    for (size_t i = 0; i < n && s == JV_OK; i++) {
        t[i].c = &cs;
        t[i].path = in->v[i];
        snprintf(t[i].dir, sizeof t[i].dir, "%s/.input%zu", pub.stage, i);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = cl->jobs > 0 ? (size_t)cl->jobs : cpus > 0 ? (size_t)(cpus < 8 ? cpus : 8) : 1;
    if (nthreads > n) nthreads = n;
    rank_pool pool = {t, n, 0, PTHREAD_MUTEX_INITIALIZER, NULL};
    if (s == JV_OK) {
        if (!cl->quiet) fprintf(stderr, "jarvis-analyze: %zu traces, %zu at a time\n", n, nthreads);
        pool_run(&pool, nthreads);
        s = pool_status(t, n, err);
    }
    if (s == JV_OK) {
        assign_ranks(cl, t, n);
        for (size_t i = 0; i < n && s == JV_OK; i++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/rank%d", pub.stage, t[i].rv.rank);
            if (rename(t[i].dir, dir))
                s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot rename %s: %s", cl->outdir, t[i].dir,
                               strerror(errno));
            else if (!(dirs[i] = malloc(24)))
                s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
            else {
                snprintf(dirs[i], 24, "rank%d", t[i].rv.rank);
                snprintf(t[i].dir, sizeof t[i].dir, "%s", dir); /* where rank_finish writes */
            }
        }
    }
    jv_rank_view *views = s == JV_OK ? calloc(n, sizeof *views) : NULL;
    if (s == JV_OK && !views) s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
    jv_job job = {0};
    if (s == JV_OK) {
        for (size_t i = 0; i < n; i++)
            views[i] = t[i].rv; /* moved: freed through views */
        for (size_t i = 0; i < n; i++)
            memset(&t[i].rv, 0, sizeof t[i].rv);
        s = jv_job_build(views, (int)n, &job, err);
    }
    if (s == JV_OK) { /* each rank's reports, with the waits measured across the job, on the same threads */
        pool.job = &job;
        pool_run(&pool, nthreads);
        s = pool_status(t, n, err);
    }
    if (s == JV_OK) s = jv_multirank_sheets(&job, pub.stage, err);
    if (s == JV_OK) s = jv_multirank_md(&job, (const char *const *)dirs, pub.stage, err);
    if (s == JV_OK) s = jv_multirank_html(&job, (const char *const *)dirs, pub.stage, err);
    if (s == JV_OK)
        s = jv_publish_commit(&pub, err);
    else
        jv_publish_abort(&pub, err);
    if (s == JV_OK && !cl->quiet) {
        for (size_t i = 0; i < n; i++)
            printf("%s: rank %d: %zu GPU events, %zu communication kernels: wrote %s/%s/\n", views[i].path,
                   views[i].rank, views[i].tl.events, views[i].ncalls, cl->outdir, dirs[i]);
        printf("%d ranks: %zu collectives matched in %zu process group(s)%s; wrote %s/perf_report_csvs/ "
               "(coll_analysis, nccl_implicit_sync, straggler_summary, rank_summary, idle_time_breakdown), "
               "%s/perf_report.xlsx, %s/multirank_report.md and %s/report.html\n",
               job.nranks, job.ninst, job.ngroups, job.unmatched ? " (some calls unmatched: see the report)" : "",
               cl->outdir, cl->outdir, cl->outdir, cl->outdir);
    }
    jv_job_free(&job);
    for (size_t i = 0; i < n; i++) {
        if (t) jv_rank_view_free(&t[i].rv);
        if (t && t[i].dg) jv_digest_free(t[i].dg);
        if (t) free(t[i].dg);
        if (views) jv_rank_view_free(&views[i]);
        if (dirs) free(dirs[i]);
    }
    free(views);
    free(dirs);
    free(t);
    return s;
}
