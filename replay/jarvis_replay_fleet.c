/* jarvis_replay_fleet: jarvis-replay under mpirun or srun (built with JV_MPI only): each rank replays on its
 * local device, rank 0 gathers the typed records and writes the fleet report (jarvis_replay.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jv_fleet.h"
#include "jv_fleet_mpi.h"
#include "jv_output.h"   /* jv_mkdir_p */
#include "jv_progress.h" /* jv_now */

#include "jarvis_replay.h"

/* A test-only variable of the fleet tests: JV_FLEET_TEST_<what>=RANK[:N]; 1 when it names rank `rank` (*n its
 * N, default 1) */
static int test_hook(const char *what, int rank, int *n) {
    char name[64];
    snprintf(name, sizeof name, "JV_FLEET_TEST_%s", what);
    const char *v = getenv(name);
    *n = 1;
    if (!v || !*v) return 0;
    char *end;
    long r = strtol(v, &end, 10);
    if (*end == ':') *n = (int)strtol(end + 1, NULL, 10);
    return r == rank && *n >= 1;
}

int jv_replay_fleet(jv_replay_cli *c, const char *argv0, int *argc, char ***argv, const char *launcher) {
    jv_fleet_mpi w;
    jv_err err = {0};
    if (jv_fleet_mpi_init(argc, argv, &w, 60, &err) != JV_OK) {
        fprintf(stderr, "jarvis-replay: %s\n", err.msg);
        jv_fleet_mpi_abort(1);
    }
    char who[64], dir[4096], bench[4200], report[4200], pin[96] = "";
    snprintf(who, sizeof who, "jarvis-replay: rank %d", w.rank);
    const char *out = c->out ? c->out : "jarvis-fleet";
    snprintf(dir, sizeof dir, "%s/rank%d", out, w.rank);
    snprintf(bench, sizeof bench, "%s/replay.json", dir);
    snprintf(report, sizeof report, "%s/report.md", dir);
    jv_fleet_rank me;
    memset(&me, 0, sizeof me);
    me.rank = w.rank;
    me.size = w.size;
    me.local_rank = w.local_rank;
    me.local_size = w.local_size;
    snprintf(me.host, sizeof me.host, "%s", w.host);
    jv_fleet_op *ops = NULL;
    int hang = 0, failx = 0, extra = 0;
    const double t0 = jv_now();
    if (jv_mkdir_p(dir, &err) != JV_OK) {
        fprintf(stderr, "%s: -o %s: %s\n", who, out, err.msg);
        jv_fleet_rank_fill(&me, NULL, NULL, 1, err.msg, 0);
    } else if (test_hook("FAIL", w.rank, &failx)) {
        jv_fleet_rank_fill(&me, NULL, NULL, 1, "test: made to fail by JV_FLEET_TEST_FAIL", 0);
    } else {
        int shared = 0;
        if (jv_fleet_pin(w.local_rank, w.local_size, w.split, &shared, pin, sizeof pin, &err) != JV_OK)
            fprintf(stderr, "%s: warning: %s: its threads share the node's CPUs with the other ranks\n", who, err.msg);
        if (!test_hook("SLOW", w.rank, &extra)) extra = 0;
        jv_replay_cli rc = *c;
        rc.bench_out = bench;
        rc.bench_fmt = "json";
        rc.report = report;
        rc.quiet = 1; /* N console tables would interleave: rank 0 prints the fleet's */
        /* ranks sharing a CPU: median samples that span several time slices (the fastest sample wants short
         * ones: one that no other process interrupted) */
        double min_sample = shared && !c->fleet_best ? JV_FLEET_SHARED_SAMPLE_S : 0;
        /* a GPU: the local rank's, or --device N on every rank (a launcher that shows each rank its own GPU
         * alone, as device 0); the host: device 0 */
        jv_replay_env env = {
            who, c->device_given ? c->device : w.local_rank, c->device, extra, min_sample, c->fleet_best, &me, &ops};
        jv_replay_one(&rc, argv0, &env);
        snprintf(me.cpus, sizeof me.cpus, "%s", pin);
    }
    me.wall_s = jv_now() - t0;
    while (test_hook("HANG", w.rank, &hang)) /* test only: a rank that never reports */
        sleep(1);
    /* how long rank 0 waits for the others: twice its own replay, at least a minute; when its own replay could
     * not run, its time says nothing of the others': at least 10 minutes */
    const double wait_s = c->fleet_timeout > 0          ? c->fleet_timeout
                          : me.state == JV_FLEET_FAILED ? fmax(600, 2 * me.wall_s)
                                                        : fmax(60, 2 * me.wall_s);
    if (w.rank != 0) {
        int fleet_rc = 1;
        /* rank 0 may take longer than this rank: it is given four times the wait, and a minute to write */
        if (jv_fleet_mpi_send(&w, &me, ops, jv_now() + 4 * wait_s + 60, &fleet_rc, &err) != JV_OK) {
            fprintf(stderr, "%s: %s: aborting the job\n", who, err.msg);
            free(ops);
            jv_fleet_mpi_abort(1);
        }
        free(ops);
        jv_fleet_mpi_finalize(&w);
        return fleet_rc;
    }
    /* rank 0 */
    jv_fleet_rank *recs = calloc((size_t)w.size, sizeof *recs);
    jv_fleet_op **all = calloc((size_t)w.size, sizeof *all);
    int missing = 0, rc = 1;
    jv_fleet f;
    memset(&f, 0, sizeof f);
    if (!recs || !all || jv_fleet_mpi_collect(&w, &me, ops, jv_now() + wait_s, recs, all, &missing, &err) != JV_OK ||
        jv_fleet_analyze(&f, recs, (const jv_fleet_op *const *)all, w.size, c->fleet_k, c->fleet_min_band,
                         c->fleet_best, &err) != JV_OK) {
        fprintf(stderr, "%s: %s\n", who, recs && all ? err.msg : "out of memory");
        jv_fleet_mpi_abort(1);
    }
    char date[40] = "", per_rank[4200], jpath[4200], mpath[4200];
    time_t now = time(NULL);
    struct tm tmv;
    if (localtime_r(&now, &tmv)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", &tmv);
    snprintf(per_rank, sizeof per_rank, "%s/rank<k>/replay.json and report.md", out);
    jv_fleet_meta meta = {c->package ? c->package : "(none: --peak)", date, c->peak, wait_s, per_rank, launcher};
    snprintf(jpath, sizeof jpath, "%s/fleet.json", out);
    snprintf(mpath, sizeof mpath, "%s/fleet.md", out);
    rc = f.failed ? 1 : 0;
    if (jv_fleet_write_json(jpath, &f, &meta, &err) != JV_OK || jv_fleet_write_md(mpath, &f, &meta, &err) != JV_OK) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        rc = 1;
    }
    if (!c->quiet) jv_fleet_console(stdout, &f, &meta);
    fflush(stdout);
    if (!c->quiet) fprintf(stderr, "%s: wrote %s and %s\n", who, jpath, mpath);
    jv_fleet_free(&f);
    for (int r = 0; r < w.size; r++)
        free(all[r]);
    free(all);
    free(recs);
    free(ops);
    if (missing) {
        fprintf(stderr, "%s: %d rank%s did not report within %.0f s (named in %s): aborting the job\n", who, missing,
                missing == 1 ? "" : "s", wait_s, mpath);
        jv_fleet_mpi_abort(1);
    }
    if (jv_fleet_mpi_finish(&w, rc, jv_now() + wait_s, &err) != JV_OK) {
        fprintf(stderr, "%s: %s: aborting the job\n", who, err.msg);
        jv_fleet_mpi_abort(1);
    }
    jv_fleet_mpi_finalize(&w);
    return rc;
}
