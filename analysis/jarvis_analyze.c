/* jarvis-analyze: reads a PyTorch profiler trace and writes the perf report
 * (CSV sheets and one xlsx workbook) to OUTDIR, or prints the call stack of
 * one event. */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_callstack.h"
#include "jv_catdata.h"
#include "jv_comm_evidence.h"
#include "jv_compare.h"
#include "jv_digest.h"
#include "jv_findings.h"
#include "jv_findings_model.h"
#include "jv_html.h"
#include "jv_hw.h"
#include "jv_input.h"
#include "jv_limits.h"
#include "jv_memstage.h"
#include "jv_multirank.h"
#include "jv_ops.h"
#include "jv_output.h"
#include "jv_perf.h"
#include "jv_perf_sheet.h"
#include "jv_progress.h"
#include "jv_publish.h"
#include "jv_replay_pkg.h"
#include "jv_report.h"
#include "jv_stats.h"
#include "jv_timelines.h"
#include "jv_trace.h"
#include "jv_tree.h"

#include "jarvis_analyze.h"

static void usage(FILE *f) {
    fputs("usage: jarvis-analyze TRACE -o OUTDIR [--reference REF_TRACE] [options]\n"
          "       jarvis-analyze TRACE... | FOLDER | 'GLOB' -o OUTDIR [--jobs N] [options]   (one job, one trace per "
          "rank)\n"
          "       jarvis-analyze TRACE --call-stack UID\n"
          "\n"
          "Reads a PyTorch profiler (Kineto) trace, plain or gzip'd JSON, and writes the perf report\n"
          "sheets to OUTDIR/perf_report_csvs/ and OUTDIR/perf_report.xlsx (TraceLens' sheet and column\n"
          "names): GPU timeline, op summaries, unified_perf_summary with FLOPs/bytes models and rooflines,\n"
          "per-family sheets (GEMM, CONV_fwd/bwd, SDPA_fwd/bwd, Normalization, Unary/BinaryElementwise,\n"
          "Reduce_fwd/bwd, Softmax_fwd/bwd), kernel_summary; and OUTDIR/replay_package.zip (replay IR of\n"
          "the GEMM, convolution, batch-norm and elementwise ops, for jarvis-replay); the category data and\n"
          "findings (OUTDIR/category_data/, metadata/, category_findings/), the standalone reports\n"
          "(standalone_analysis_fair.md, _rough.md) and OUTDIR/report.html (plots, opens from disk).\n"
          "\n"
          "options:\n"
          "  -o, --output DIR        output directory (created when missing)\n"
          "  --reference REF_TRACE   also compare TRACE with REF_TRACE (another run, another GPU):\n"
          "                          comparative_analysis_fair.md, _rough.md and a comparison sheet\n"
          "  --micro-idle-us N       split GPU idle time into gaps under N us (micro) and the rest (macro)\n"
          "  --gpu-arch NAME|FILE    GPU for the roofline: a built-in name (MI300X, MI325X, MI355X, MI210,\n"
          "                          H100 SXM, H100 PCIe, H200, B200, A100 80GB, A100 40GB, V100 SXM2 32GB),\n"
          "                          a JSON file with the same keys, or 'none'; default: chosen from the\n"
          "                          trace's deviceProperties\n"
          "  --replay-top N          replay package: the N distinct ops with the most GPU time (default 50;\n"
          "                          0: all)\n"
          "  --replay-min-percent P  replay package: only ops with at least P %% of GPU kernel time\n"
          "  --include-unlinked      count GPU events whose launch is outside the trace in gpu_timeline\n"
          "  --max-memory SIZE       memory budget (e.g. 4G): the process's address space is capped there, so\n"
          "                          a trace too large for it ends in a clear out-of-memory error, exit 1\n"
          "  --jobs N                several traces: analyse N ranks at once (threads; default: the CPUs, at most\n"
          "                          8); memory is about N times that of one trace\n"
          "  --call-stack UID        print the parent chain and subtree of the event with index UID in\n"
          "                          traceEvents (ops with Input Dims/type, kernels with durations)\n"
          "  -q, --quiet             no progress and no summary (warnings and errors still print)\n"
          "  -h, --help              this help\n"
          "  -V, --version           version\n"
          "\n"
          "\n"
          "Several traces (files, a folder of *.json / *.json.gz, or a quoted glob): the traces of one job, one per\n"
          "rank (the rank from the trace's distributedInfo.rank, else the order given). Each rank is analysed as\n"
          "one trace into OUTDIR/rank<k>/; OUTDIR gets the cross-rank view: collectives matched across ranks\n"
          "(skew, straggler, bus bandwidth), overlap and idle time per rank: perf_report_csvs/ (coll_analysis,\n"
          "nccl_implicit_sync, straggler_summary, rank_summary, idle_time_breakdown), perf_report.xlsx,\n"
          "multirank_report.md and report.html.\n"
          "\n"
          "exit status: 0 success, 1 failure (bad or unreadable trace, write error), 2 bad usage\n",
          f);
}

static int parse_cli(int argc, char **argv, jv_analyze_cli *c) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {"micro-idle-us", required_argument, 0, 1},
                                         {"include-unlinked", no_argument, 0, 2},
                                         {"call-stack", required_argument, 0, 3},
                                         {"gpu-arch", required_argument, 0, 4},
                                         {"replay-top", required_argument, 0, 5},
                                         {"replay-min-percent", required_argument, 0, 6},
                                         {"reference", required_argument, 0, 7},
                                         {"max-memory", required_argument, 0, 8},
                                         {"jobs", required_argument, 0, 9},
                                         {0, 0, 0, 0}};
    memset(c, 0, sizeof *c);
    c->call_stack_uid = -1;
    c->replay_top = 50;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:qhV", opts, NULL)) != -1) {
        char *end;
        switch (ch) {
        case 'o': c->outdir = optarg; break;
        case 'q': c->quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("jarvis-analyze %s (gzip'd traces: %s)\n", JV_VERSION, jv_input_decoder()); return 0;
        case 1:
            errno = 0;
            c->micro_idle_us = strtod(optarg, &end);
            if (errno || *end || c->micro_idle_us <= 0 || c->micro_idle_us > 1e12) {
                fprintf(stderr, "jarvis-analyze: --micro-idle-us needs a positive number of microseconds, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 2: c->include_unlinked = 1; break;
        case 3:
            errno = 0;
            c->call_stack_uid = strtoll(optarg, &end, 10);
            if (errno || *end || c->call_stack_uid < 0 || c->call_stack_uid > 0xFFFFFFFEll) {
                fprintf(stderr, "jarvis-analyze: --call-stack needs an event index (UID), got '%s'\n", optarg);
                return 2;
            }
            break;
        case 4:
            if (!strcmp(optarg, "none"))
                c->no_roofline = 1;
            else
                c->gpu_arch = optarg;
            break;
        case 5: {
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || v < 0 || v > 1000000) {
                fprintf(stderr, "jarvis-analyze: --replay-top wants a count >= 0, got '%s'\n", optarg);
                return 2;
            }
            c->replay_top = (int)v;
            break;
        }
        case 6:
            errno = 0;
            c->replay_min_percent = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(c->replay_min_percent >= 0) || c->replay_min_percent > 100) {
                fprintf(stderr, "jarvis-analyze: --replay-min-percent wants 0..100, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 7: c->reference = optarg; break;
        case 8:
            if ((c->max_memory = jv_parse_size(optarg)) <= 0) {
                fprintf(stderr, "jarvis-analyze: --max-memory wants a size such as 4G or 512M, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 9: {
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || v < 1 || v > 256) {
                fprintf(stderr, "jarvis-analyze: --jobs wants a count from 1 to 256, got '%s'\n", optarg);
                return 2;
            }
            c->jobs = (int)v;
            break;
        }
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "jarvis-analyze: missing TRACE\n");
        usage(stderr);
        return 2;
    }
    c->trace = argv[optind];
    c->args = argv + optind;
    c->nargs = argc - optind;
    if (c->nargs > 1 && (c->reference || c->call_stack_uid >= 0)) {
        fprintf(stderr, "jarvis-analyze: %s takes one TRACE, got %d\n", c->reference ? "--reference" : "--call-stack",
                c->nargs);
        return 2;
    }
    if (c->reference && c->call_stack_uid >= 0) {
        fprintf(stderr, "jarvis-analyze: --reference and --call-stack do not go together\n");
        return 2;
    }
    if (!c->outdir && c->call_stack_uid < 0) {
        fprintf(stderr, "jarvis-analyze: missing -o OUTDIR\n");
        usage(stderr);
        return 2;
    }
    if (c->outdir && !c->outdir[0] && c->call_stack_uid < 0) {
        fprintf(stderr, "jarvis-analyze: -o \"\": the output folder needs a name\n");
        return 2;
    }
    return -1; /* go on */
}

static void warnings(const jv_analyze_cli *c, const char *p, const jv_trace *tr, const jv_tree *t) {
    const jv_link_counts *k = &t->counts;
    if (tr->counts.x_events == 0) fprintf(stderr, "jarvis-analyze: warning: %s: no complete (X) events\n", p);
    if (k->gpu_events == 0)
        fprintf(stderr, "jarvis-analyze: warning: %s: no kernel, memcpy or memset events: the GPU sheets are empty\n",
                p);
    if (k->cpu_ops == 0 && k->gpu_events)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: no CPU ops (GPU-only trace): GPU work is attributed to its runtime "
                "launch calls\n",
                p);
    else if (k->cpu_ops && k->cpu_ops_with_shapes == 0)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: none of %llu CPU ops carries Input Dims (recorded without "
                "record_shapes=True): ops_unique_args has no shapes\n",
                p, (unsigned long long)k->cpu_ops);
    if (k->unlinked)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: %llu of %llu GPU events are not linked to a launch (launched before "
                "the trace window?)%s\n",
                p, (unsigned long long)k->unlinked, (unsigned long long)k->gpu_events,
                c->include_unlinked ? "" : "; left out of gpu_timeline (see --include-unlinked)");
    if (k->shared_ids)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: %llu correlation ids are carried by the launches of more than one "
                "process: their GPU events were linked within the process that launched the other work of their "
                "device; %llu could not be told apart and are not linked by correlation\n",
                p, (unsigned long long)k->shared_ids, (unsigned long long)k->shared_id_unlinked);
    if (k->shared_flow_ids)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: %llu launch flow ids start in more than one process: their GPU events "
                "were linked within the process that launched the other work of their device; %llu could not be "
                "told apart and are not linked by flow\n",
                p, (unsigned long long)k->shared_flow_ids, (unsigned long long)k->shared_flow_unlinked);
    if (!tr->device_props_key)
        fprintf(stderr, "jarvis-analyze: warning: %s: no deviceProperties: the GPU model is unknown\n", p);
    if (tr->counts.bad_time)
        fprintf(stderr, "jarvis-analyze: warning: %s: %llu events without a usable ts/dur were skipped\n", p,
                (unsigned long long)tr->counts.bad_time);
    if (tr->counts.bad_utf8)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: %llu strings (names, arguments) hold invalid UTF-8: each invalid "
                "sequence is written as U+FFFD\n",
                p, (unsigned long long)tr->counts.bad_utf8);
    if (tr->counts.non_object)
        fprintf(stderr, "jarvis-analyze: warning: %s: %llu traceEvents entries are not objects (skipped)\n", p,
                (unsigned long long)tr->counts.non_object);
    if (k->dropped_overlap)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: %llu host events end after their enclosing event and were kept "
                "as roots\n",
                p, (unsigned long long)k->dropped_overlap);
}

/* jv_tree_build, with the file named in its error (the tree knows no file names). */
static jv_status tree_build(const char *path, const jv_trace *tr, int with_python, int threads, jv_tree *t,
                            jv_err *err) {
    jv_status s = jv_tree_build(tr, with_python, threads, t, err);
    if (s != JV_OK && err) {
        char msg[sizeof err->msg];
        int n = snprintf(msg, sizeof msg, "%s: ", path);
        if (n > 0 && (size_t)n < sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, "%.*s", 400, err->msg);
        memcpy(err->msg, msg, sizeof msg);
    }
    return s;
}

static void summary(const jv_analyze_cli *c, const jv_trace *tr, const jv_tree *t, size_t nlaunchers) {
    const jv_link_counts *k = &t->counts;
    printf("%s: %llu events (%llu complete), %llu GPU events: %llu linked to a launch (%llu by correlation, %llu "
           "by flow, %llu by external id), %llu unlinked",
           c->trace, (unsigned long long)tr->counts.events_total, (unsigned long long)tr->counts.x_events,
           (unsigned long long)k->gpu_events, (unsigned long long)(k->by_correlation + k->by_flow + k->by_external_id),
           (unsigned long long)k->by_correlation, (unsigned long long)k->by_flow, (unsigned long long)k->by_external_id,
           (unsigned long long)k->unlinked);
    if (k->graph_launches)
        printf("; %llu graph launches own %llu GPU events", (unsigned long long)k->graph_launches,
               (unsigned long long)k->graph_kernels);
    printf("\n%s: %zu launcher ops; wrote %s/perf_report_csvs/ and %s/perf_report.xlsx\n", c->trace, nlaunchers,
           c->outdir, c->outdir);
}

/* Picks the GPU of the roofline for the trace at path: --gpu-arch, else
 * from deviceProperties. *hw_out is NULL without one; why says how. */
static jv_status choose_hw(const jv_analyze_cli *c, const char *path, const jv_trace *tr, jv_hw *hw,
                           const jv_hw **hw_out, char *why, size_t whycap, jv_err *err) {
    *hw_out = NULL;
    if (c->no_roofline) {
        snprintf(why, whycap, "--gpu-arch none");
        return JV_OK;
    }
    if (c->gpu_arch) {
        JV_CHECK(jv_hw_resolve(c->gpu_arch, hw, err));
        snprintf(why, whycap, "--gpu-arch %s", c->gpu_arch);
        if (!c->quiet) printf("%s: roofline GPU %s (--gpu-arch)\n", path, hw->name);
        *hw_out = hw;
        return JV_OK;
    }
    jv_hw_device dev; /* hw/ knows no trace: the first device, as the table matching sees it */
    memset(&dev, 0, sizeof dev);
    if (tr->ndevices) {
        const jv_device *d = &tr->devices[0];
        _Static_assert(sizeof dev.name == sizeof d->name, "device name sizes");
        memcpy(dev.name, d->name, sizeof dev.name);
        dev.total_mem_bytes = d->total_mem_bytes;
        dev.cc_major = d->cc_major;
        dev.cc_minor = d->cc_minor;
        dev.num_sms = d->num_sms;
    }
    if (jv_hw_auto(&dev, tr->ndevices ? 1 : 0, hw, why, whycap)) {
        if (!c->quiet) printf("%s: roofline GPU %s (%s)\n", path, hw->name, why);
        *hw_out = hw;
    } else if (!c->quiet) {
        printf("%s: no roofline columns: %s; pass --gpu-arch NAME\n", path, why);
    }
    return JV_OK;
}

/* The warning for launchers whose kernel_details cells are cut (after the job: the same text and place on one
 * thread or two). */
static void launcher_warning(const char *path, const jv_launcher_job *j) {
    if (j->launchers_st == JV_OK && j->nbig)
        fprintf(stderr,
                "jarvis-analyze: warning: %s: %zu ops launch more than %d GPU events each (at most %llu): their "
                "kernel_details cells list the first %d\n",
                path, j->nbig, JV_KERNEL_DETAILS_MAX, (unsigned long long)j->most_direct, JV_KERNEL_DETAILS_MAX);
}

/* Ends job j and returns its status: the timelines' first, the launcher table's next (as when they were made
 * before everything else), then the sheets'; s (the caller's own status, err its message) when the job
 * succeeded. */
static jv_status launcher_job_end(const char *path, jv_launcher_job *j, jv_status s, jv_err *err) {
    jv_launcher_job_join(j);
    if (j->tls_st != JV_OK)
        return jv_err_set(err, j->tls_st, __FILE__, __LINE__, "%s: out of memory (GPU timeline)", path);
    if (j->launchers_st != JV_OK) {
        jv_err_set(err, j->launchers_st, __FILE__, __LINE__, "%s: out of memory grouping kernels by op", path);
        return j->launchers_st;
    }
    launcher_warning(path, j);
    if (j->st != JV_OK) {
        if (err) *err = j->err;
        return j->st;
    }
    return s;
}

/* The model of the trace: the perf table, the digest (complete, replay entries included) and, for the target
 * (pkg not NULL), the replay package. The digest's end waits for job's timelines (tls). */
static jv_status build_model(const jv_analyze_cli *c, const char *path, const jv_trace *tr, const jv_tree *t,
                             jv_launcher_job *job, const jv_timelines *tls, const jv_hw *hw, const char *why,
                             jv_perf_table *pt, jv_replay_pkg *pkg, jv_digest *dg, jv_err *err) {
    JV_CHECK(jv_perf_build(tr, t, pt, err));
    jv_mem_stage("perf table");
    JV_CHECK(jv_digest_init(dg, path, tr, hw, why, err));
    JV_CHECK(jv_digest_build(tr, pt, dg, err));
    if (jv_launcher_job_timelines(job) != JV_OK) return JV_ERR_NOMEM; /* launcher_job_end says so */
    JV_CHECK(jv_digest_finish(dg, tr, t, pt, tls, err));
    jv_mem_stage("digest");
    if (!pkg) return JV_OK;
    jv_replay_pkg_opts rpo = {c->replay_top, c->replay_min_percent, path};
    JV_CHECK(jv_replay_pkg_build(tr, pt, &rpo, pkg, err));
    jv_digest_set_replay(dg, pkg->op_of_model, pkg->nmodels);
    return JV_OK;
}

/* The category data (jv_catdata_write) as a job beside the perf sheets and the commits: on a second thread when
 * threaded, else at catdata_job_end. It reads the finished digest, the trace and the tree; the perf sheets
 * and the commits read them too and write neither. */
typedef struct {
    const jv_digest *dg;
    const jv_trace *tr;
    const jv_tree *t;
    const char *dir;
    jv_status st;
    jv_err err;
    pthread_t thread;
    int running;
} catdata_job;

static void *catdata_main(void *arg) {
    catdata_job *j = arg;
    j->st = jv_catdata_write(j->dg, j->tr, j->t, j->dir, &j->err);
    return NULL;
}

static void catdata_job_start(catdata_job *j, int threaded) {
    j->st = JV_OK;
    jv_err_clear(&j->err);
    j->running = threaded && pthread_create(&j->thread, NULL, catdata_main, j) == 0;
}

/* Ends j (running it here when it had no thread) and returns s when s is not JV_OK (the category data came after
 * the sheets, whose error goes first), else the category data's status (err its message). */
static jv_status catdata_job_end(catdata_job *j, jv_status s, jv_err *err) {
    if (j->running) {
        pthread_join(j->thread, NULL);
        j->running = 0;
    } else if (s == JV_OK) {
        catdata_main(j);
    }
    if (s != JV_OK) return s;
    if (j->st != JV_OK && err) *err = j->err;
    return j->st;
}

/* The sheets, the package and the category data of the target (into OUTDIR), or only the digest of a reference
 * (target 0). The launcher table and its sheets (a jv_launcher_job) are made on a second thread while this one
 * builds the model, unless c->threads is 1; so are the GPU timelines first when to is not NULL (into *tls; else
 * *tls is given); the table is freed once its sheets are written. The category data is then written on a
 * second thread while this one writes the perf sheets and commits the book and the package. *nlaunchers gets
 * the table's rows. ref: the reference's digest for the comparison sheet, or NULL. */
static jv_status write_reports(const jv_analyze_cli *c, const char *path, int target, const jv_trace *tr,
                               const jv_tree *t, jv_timelines *tls, const jv_timeline_opts *to, const jv_digest *ref,
                               jv_digest *dg, size_t *nlaunchers, jv_err *err) {
    jv_launcher_job job = {.tr = tr, .t = t, .o = NULL, .tl_opts = to, .tls = tls, .threaded = c->threads != 1};
    jv_hw hwbuf;
    const jv_hw *hw;
    char why[256] = "";
    jv_status s = choose_hw(c, path, tr, &hwbuf, &hw, why, sizeof why, err);
    jv_book *book = NULL;
    char csvdir[4096], xlsx[4096];
    snprintf(csvdir, sizeof csvdir, "%s/perf_report_csvs", c->stage);
    snprintf(xlsx, sizeof xlsx, "%s/perf_report.xlsx", c->stage);
    if (s == JV_OK && target) s = jv_book_open(&book, csvdir, xlsx, err);
    jv_report_opts ro = {book, tls};
    job.o = book ? &ro : NULL;
    if (s != JV_OK) job.threaded = 0;
    jv_launcher_job_start(&job);
    jv_perf_table pt = {0};
    jv_replay_pkg pkg = {0};
    if (s == JV_OK) s = build_model(c, path, tr, t, &job, tls, hw, why, &pt, target ? &pkg : NULL, dg, err);
    s = launcher_job_end(path, &job, s, err);
    jv_mem_stage("model, sheets joined");
    *nlaunchers = job.nlaunchers;
    catdata_job cd = {.dg = dg, .tr = tr, .t = t, .dir = c->stage};
    if (s == JV_OK && target) catdata_job_start(&cd, c->threads != 1);
    if (s == JV_OK && target) s = jv_perf_write(tr, &pt, book, dg, err);
    if (s == JV_OK && target && ref) s = jv_compare_sheet(dg, ref, book, err);
    jv_perf_free(&pt);
    if (!target) return s;
    if (s != JV_OK) {
        catdata_job_end(&cd, s, err);
        jv_replay_pkg_free(&pkg);
        if (book) jv_book_abort(book);
        return s;
    }
    s = jv_book_commit(book, err); /* jv_xlsx has no global state: rank threads close their workbooks at once */
    if (s == JV_OK) s = jv_replay_pkg_commit(&pkg, c->stage, err);
    if (s == JV_OK && !c->quiet) {
        const jv_replay_pkg_summary *rs = &pkg.sum;
        printf("%s: replay package: %d ops, %.1f %% of %.0f us of GPU kernel time (%d distinct ops not in it: see "
               "manifest.json)\n",
               path, rs->ops, rs->total_us > 0 ? 100 * rs->replayed_us / rs->total_us : 0.0, rs->total_us,
               rs->not_replayed);
    }
    jv_replay_pkg_free(&pkg);
    jv_mem_stage("sheets written");
    s = catdata_job_end(&cd, s, err);
    jv_mem_stage("category data");
    return s;
}

jv_status jv_analyze_one(const jv_analyze_cli *c, const char *path, int target, const jv_digest *ref, jv_digest *dg,
                         jv_rank_view *rv, jv_err *err) {
    jv_trace tr;
    jv_tree t;
    /* the target's file hash (its replay package's manifest) is taken while the file is read; the heap is trimmed
       after the read only where no other rank's thread may be reading too (rv: a rank of a job) */
    jv_load_opts lo = {
        .progress = !c->quiet && jv_progress_tty(), .hash_file = target, .threads = c->threads, .trim = rv == NULL};
    JV_CHECK(jv_trace_load(path, &lo, &tr, err));
    jv_mem_stage("trace read");
    jv_status s = tree_build(path, &tr, 0, c->threads, &t, err);
    jv_mem_stage("call tree, links");
    if (s != JV_OK) {
        jv_trace_free(&tr);
        return s;
    }
    jv_trace_drop_flows(&tr);
    jv_mem_stage("linking ids freed");
    warnings(c, path, &tr, &t);
    /* the GPU timelines, once, for the rank view, the sheets and the digest: here for the rank view, else on the
       launcher job's thread (write_reports) */
    jv_timeline_opts to = {c->include_unlinked, (int64_t)(c->micro_idle_us * 1e3 + 0.5), 0};
    jv_timelines tls = {0};
    if (rv) {
        if (jv_timelines_compute(&tr, &t, &to, &tls) != JV_OK)
            s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory (GPU timeline)", path);
        jv_mem_stage("timelines");
        if (s == JV_OK) s = jv_rank_collect(&tr, &t, &tls, path, rv, err);
    }
    size_t nlaunchers = 0;
    if (s == JV_OK) s = write_reports(c, path, target, &tr, &t, &tls, rv ? NULL : &to, ref, dg, &nlaunchers, err);
    jv_timelines_free(&tls);
    if (s == JV_OK && target && !c->quiet) summary(c, &tr, &t, nlaunchers);
    jv_tree_free(&t);
    jv_trace_free(&tr);
    return s;
}

/* --call-stack UID: the parent chain and subtree of one event */
static jv_status call_stack(const jv_analyze_cli *c, jv_err *err) {
    jv_trace tr;
    jv_tree t;
    jv_load_opts lo = {.progress = !c->quiet && jv_progress_tty(), .threads = c->threads};
    JV_CHECK(jv_trace_load(c->trace, &lo, &tr, err));
    jv_status s = tree_build(c->trace, &tr, 1, c->threads, &t, err);
    if (s == JV_OK) {
        s = jv_callstack_print(stdout, &tr, &t, (uint32_t)c->call_stack_uid, 5000, err);
        jv_tree_free(&t);
    }
    jv_trace_free(&tr);
    return s;
}

/* Writes every output into a private folder and publishes it as OUTDIR at the end (jv_publish): OUTDIR holds
 * the earlier run or this one, never a mix; a failed run leaves it as it was. */
static jv_status run(const jv_analyze_cli *cl, jv_err *err) {
    if (cl->call_stack_uid >= 0) return call_stack(cl, err);
    jv_publish pub;
    JV_CHECK(jv_publish_begin(&pub, cl->outdir, err));
    jv_analyze_cli cs = *cl;
    cs.stage = pub.stage;
    const jv_analyze_cli *c = &cs;
    jv_digest ref = {0}, dg = {0};
    jv_status s = JV_OK;
    if (c->reference) s = jv_analyze_one(c, c->reference, 0, NULL, &ref, NULL, err);
    if (s == JV_OK) s = jv_analyze_one(c, c->trace, 1, c->reference ? &ref : NULL, &dg, NULL, err);
    if (s == JV_OK) s = jv_findings_write(&dg, c->stage, err);
    if (s == JV_OK && c->reference) s = jv_compare_write(&dg, &ref, c->stage, err);
    if (s == JV_OK) s = jv_html_write(&dg, c->reference ? &ref : NULL, c->stage, err);
    if (s == JV_OK)
        s = jv_publish_commit(&pub, err);
    else
        jv_publish_abort(&pub, err);
    if (s == JV_OK && !c->quiet)
        printf("%s: wrote %s/category_data/, %s/category_findings/, %s/standalone_analysis_{fair,rough}.md%s and "
               "%s/report.html\n",
               c->trace, c->outdir, c->outdir, c->outdir, c->reference ? ", comparative_analysis_{fair,rough}.md" : "",
               c->outdir);
    jv_digest_free(&dg);
    jv_digest_free(&ref);
    return s;
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
    /* glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), so that the later large
     * temporaries (per-stage arrays of 1-16 MiB) come from the brk heap, whose freed pages stay resident below
     * the blocks still in use: the peak RSS became the sum of the stages. A fixed threshold (which also turns
     * the adjustment off) gives every block of 128 KiB or more its own mapping, returned to the system when
     * freed: 72.8 -> 62.0 MiB peak on the 1M-event bench trace (bench/results/ingest-2026-11-26-rss.md). */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    jv_analyze_cli c;
    int rc = parse_cli(argc, argv, &c);
    if (rc >= 0) return rc;
    jv_err err;
    jv_err_clear(&err);
    const char *th = getenv("JV_ANALYZE_THREADS"); /* 1: one thread per trace (the outputs are the same) */
    c.threads = (th && !strcmp(th, "1")) || sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 1 : 2;
    if (c.max_memory > 0 && jv_memory_budget_set(c.max_memory, &err) != JV_OK) {
        fprintf(stderr, "jarvis-analyze: %s\n", err.msg);
        return err.code == JV_ERR_USAGE ? 2 : 1;
    }
    jv_pathlist in = {0};
    jv_status s = JV_OK;
    for (int i = 0; i < c.nargs && s == JV_OK; i++)
        s = c.nargs == 1 && c.call_stack_uid >= 0 ? jv_pathlist_add(&in, c.args[i], &err)
                                                  : jv_pathlist_expand(c.args[i], &in, &err);
    if (s != JV_OK) { /* a directory without traces, a pattern matching nothing: as a missing trace */
        fprintf(stderr, "jarvis-analyze: error: %s\n", err.msg);
        jv_pathlist_free(&in);
        return 1;
    }
    if (in.n > 1 && (c.reference || c.call_stack_uid >= 0)) {
        fprintf(stderr, "jarvis-analyze: %s takes one TRACE, got %zu\n", c.reference ? "--reference" : "--call-stack",
                in.n);
        jv_pathlist_free(&in);
        return 2;
    }
    if (in.n == 1) {
        if (strcmp(in.v[0], c.trace)) c.trace = in.v[0]; /* a folder or pattern that named one trace */
        s = run(&c, &err);
    } else {
        s = jv_analyze_ranks(&c, &in, &err);
    }
    if (s == JV_OK) {
        jv_pathlist_free(&in);
        return 0;
    }
    fprintf(stderr, "jarvis-analyze: error: %s\n", err.msg[0] ? err.msg : jv_status_str(s));
    if (s == JV_ERR_NOMEM && c.max_memory > 0)
        fprintf(
            stderr,
            "jarvis-analyze: %s: the memory budget (--max-memory %.0f MiB) was reached: raise it, or leave it out\n",
            c.trace, c.max_memory / 1048576.0);
    if (getenv("JARVIS_DEBUG") && err.file) fprintf(stderr, "jarvis-analyze: (raised at %s:%d)\n", err.file, err.line);
    jv_pathlist_free(&in);
    return 1;
}
