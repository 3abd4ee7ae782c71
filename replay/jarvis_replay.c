/* jarvis-replay: replays the ops of a replay package (or a bare replay IR
 * file) on a device, verifies them against the CPU references, measures them
 * against the device's own measured ceilings, and prints / writes the
 * results. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "jv_backends.h"
#include "jv_baseline.h"
#include "jv_fleet.h"
#include "jv_hw.h"
#include "jv_ir.h"
#include "jv_limits.h"
#include "jv_output.h" /* jv_mkdir_p */
#include "jv_package.h"
#include "jv_progress.h" /* jv_now */
#include "jv_replay_out.h"
#include "jv_repro.h"
#include "jv_runner.h"
#include "jv_session.h"
#include "jv_verdict.h"

#include "jarvis_replay.h"

static void usage(FILE *f) {
    fputs("usage: jarvis-replay PACKAGE [--device N] [options]\n"
          "\n"
          "Replays the ops of PACKAGE (replay_package.zip from jarvis-analyze, or a bare replay_ir.json,\n"
          "ours or TraceLens') standalone on a device: each tensor with its traced shape, strides and\n"
          "dtype and seeded random data; each result verified against the CPU reference; timed with the\n"
          "device's timer (warm-up, samples until the spread is small, hot and cold cache); judged against\n"
          "the elementwise baseline and GEMM measured first on the same device.\n"
          "\n"
          "options:\n"
          "  --device N               device index (default 0)\n"
          "  --backend auto",
          f);
    for (int i = 0; i < jv_backends_count(); i++)
        fprintf(f, "|%s", jv_backends_get(i)->name);
    fputs("\n"
          "                           default auto: a GPU backend when one is built in and finds a device,\n"
          "                           else the CPU backend (it says so)\n"
          "  --list                   print the package's ops and exit\n"
          "  --op LIST                replay only these ops: ids in --list, comma-separated, ranges N-M\n"
          "                           (--op 3,7,10-12; repeatable)\n"
          "  --print-repro            print the reproducer commands of the --op ops (else of every op):\n"
          "                           the AMD vendor tool line (hipblaslt-bench / rocblas-bench, MIOpenDriver)\n"
          "                           and a PyTorch snippet, as the package's reproduce.md has them; opens no\n"
          "                           device\n"
          "  --iterations K           exactly K launches per op, no warm-up, hot cache (for a profiler:\n"
          "                           --op N --iterations 1 runs one op once)\n"
          "  --cache hot|cold|both    cache modes to time (default both)\n"
          "  --peak                   run only the baseline (copy, scale, add, triad, dot) and the GEMM\n"
          "                           ceiling, next to the device's datasheet (hardware validation)\n"
          "  --no-baseline            skip the baseline and GEMM ceiling (no efficiencies)\n"
          "  --baseline-bytes SIZE    bytes per baseline array (default 1 GiB on a GPU, else 4x the LLC)\n"
          "  --peak-gemm N            N of the N^3 GEMM ceiling (default 8192 bf16 on a GPU, 512 fp32 on\n"
          "                           the CPU; 0: none)\n"
          "  --max-bytes SIZE         skip ops whose tensors need more than SIZE (e.g. 64M, 2G)\n"
          "  --time-limit S           seconds of sampling per op and cache mode\n"
          "  --duty F                 share of the sampling time the device works (0 < F <= 1, default 1:\n"
          "                           samples back to back); below 1 it idles after each sample, so a\n"
          "                           power-capped GPU keeps the clock a training step gives its heavy ops\n"
          "  --deadline S             start no op after S seconds of wall time (from the start, baseline\n"
          "                           included); the ops left are reported not run and the outputs are\n"
          "                           written (to fit a run into a lease or a CI step)\n"
          "  --seed N                 seed of the random data (default 20261121)\n"
          "  --gpu-arch NAME|FILE     datasheet to compare with (default: chosen from the device)\n"
          "  --conv-algo heuristic|immediate|best   convolution algorithm: PyTorch's default (benchmark off):\n"
          "                           cuDNN's heuristic pick / MIOpen's Find without exhaustive search;\n"
          "                           immediate (HIP only): MIOpen's immediate-mode first solution\n"
          "                           (torch.backends.miopen.immediate=True); best: the fastest after running\n"
          "                           every algorithm (cudnn.benchmark=True; MIOpen's exhaustive Find)\n"
          "  --gemm-algo heuristic|best   GEMM algorithm: cuBLASLt's / hipBLASLt's heuristic first pick within\n"
          "                           32 MiB of workspace (PyTorch's default), or the fastest of its first 16 picks\n"
          "                           within the whole workspace, timed on the op's shapes\n"
          "  --no-graph               do not also time inside a device graph the ops whose launch cost is\n"
          "                           a noticeable part of their time (launch >= 5 % of the hot median, or\n"
          "                           host queueing >= 50 %)\n"
          "  --benchmark_out FILE     Google Benchmark results (compare.py reads two of them)\n"
          "  --benchmark_out_format json|csv   (default json)\n"
          "  --report FILE.md         markdown report of the verdicts and the numbers behind them\n"
          "  -o, --out OUT            a folder: OUT/replay.json (Google Benchmark) and OUT/report.md; under MPI\n"
          "                           OUT/fleet.json, OUT/fleet.md and each rank's own under OUT/rank<k>/\n"
          "                           (default under MPI: jarvis-fleet)\n"
          "  -q, --quiet              no console table\n"
          "  -h, --help, -V, --version\n"
          "\n"
          "fleet mode (a build with MPI, started by mpirun or srun: one rank per GPU, each on its node's\n"
          "device <local rank>; on the CPU backend each rank keeps its share of the node's CPUs): rank 0\n"
          "gathers every rank's results and writes one report, with the median of every metric over the ranks\n"
          "and the GPUs more than exp(h) times above or below it flagged, h = max(k * MAD(ln), ln(1 + F)),\n"
          "MAD(ln) the median of |ln(value / median)|:\n"
          "  --device N               under MPI: every rank on device N (a launcher that gives each rank its\n"
          "                           own GPU as device 0); default: the device of the rank's local rank\n"
          "  --fleet-k K              k of the band (default 3)\n"
          "  --fleet-min-band F       the band's least width: a ratio of 1 + F to the median (default 0.05)\n"
          "  --fleet-stat median|best the figure compared per rank: the median sample (default) or the fastest\n"
          "                           (STREAM's figure: robust where other processes share the host's CPUs;\n"
          "                           each op then samples for its whole --time-limit)\n"
          "  --fleet-timeout S        seconds rank 0 waits for the others after its own replay (default twice\n"
          "                           its own replay time, at least 60; 600 when its own could not run); ranks\n"
          "                           that did not report by then are named missing, the report is written\n"
          "                           and the job aborted (exit 1)\n"
          "\n"
          "exit status: 0 every op verified (or skipped by --max-bytes), 1 a wrong result, an op that could\n"
          "not run, a device context made unusable by an error (the run stops there: the results so far are\n"
          "written, the rest marked not run), or bad input, 2 bad usage; under MPI 0 when every rank\n"
          "succeeded (a flagged GPU is not a failure: the report says it)\n",
          f);
}

/* 1 when s is a number in (0, hi] (stored in *out) */
static int parse_double(const char *s, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v > 0) || v > hi) return 0;
    *out = v;
    return 1;
}

static int parse_long(const char *s, long long lo, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo) return 0;
    *out = v;
    return 1;
}

/* 0: run; 1: exit 0 (help, version); 2: usage error */
static int parse_cli(int argc, char **argv, jv_replay_cli *c) {
    static const struct option opts[] = {{"device", required_argument, 0, 1},
                                         {"backend", required_argument, 0, 2},
                                         {"list", no_argument, 0, 3},
                                         {"op", required_argument, 0, 4},
                                         {"iterations", required_argument, 0, 5},
                                         {"cache", required_argument, 0, 6},
                                         {"peak", no_argument, 0, 7},
                                         {"no-baseline", no_argument, 0, 8},
                                         {"baseline-bytes", required_argument, 0, 9},
                                         {"peak-gemm", required_argument, 0, 10},
                                         {"max-bytes", required_argument, 0, 11},
                                         {"time-limit", required_argument, 0, 12},
                                         {"seed", required_argument, 0, 13},
                                         {"benchmark_out", required_argument, 0, 14},
                                         {"benchmark_out_format", required_argument, 0, 15},
                                         {"report", required_argument, 0, 16},
                                         {"gpu-arch", required_argument, 0, 17},
                                         {"conv-algo", required_argument, 0, 18},
                                         {"no-graph", no_argument, 0, 19},
                                         {"deadline", required_argument, 0, 20},
                                         {"gemm-algo", required_argument, 0, 21},
                                         {"duty", required_argument, 0, 22},
                                         {"out", required_argument, 0, 23},
                                         {"fleet-k", required_argument, 0, 24},
                                         {"fleet-min-band", required_argument, 0, 25},
                                         {"fleet-timeout", required_argument, 0, 26},
                                         {"fleet-stat", required_argument, 0, 27},
                                         {"print-repro", no_argument, 0, 28},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    memset(c, 0, sizeof *c);
    c->backend = "auto";
    c->cache = "both";
    c->peak_gemm = -1;
    c->bench_fmt = "json";
    c->fleet_k = 3;
    c->fleet_min_band = 0.05;
    int ch;
    long long v;
    while ((ch = getopt_long(argc, argv, "qhVo:", opts, NULL)) != -1) {
        switch (ch) {
        case 1:
            if (!parse_long(optarg, 0, &v) || v > 1024) goto bad;
            c->device = (int)v;
            c->device_given = 1;
            break;
        case 'o':
        case 23:
            if (!*optarg) {
                fprintf(stderr, "jarvis-replay: empty name for -o (see --help)\n");
                return 2;
            }
            c->out = optarg;
            break;
        case 24:
            if (!parse_double(optarg, 1000, &c->fleet_k)) goto bad;
            break;
        case 25:
            if (!parse_double(optarg, 10, &c->fleet_min_band)) goto bad;
            break;
        case 26:
            if (!parse_double(optarg, 1e6, &c->fleet_timeout)) goto bad;
            break;
        case 27:
            if (strcmp(optarg, "median") && strcmp(optarg, "best")) goto bad;
            c->fleet_best = !strcmp(optarg, "best");
            break;
        case 2:
            if (strcmp(optarg, "auto") && !jv_backends_find(optarg)) goto bad;
            c->backend = optarg;
            break;
        case 3: c->list = 1; break;
        case 4: {
            jv_err e = {0};
            if (jv_opsel_parse(&c->ops, optarg, &e) != JV_OK) {
                fprintf(stderr, "jarvis-replay: %s (see --help)\n", e.msg);
                return 2;
            }
            break;
        }
        case 5:
            if (!parse_long(optarg, 1, &v) || v > 100000000) goto bad;
            c->iterations = (int)v;
            break;
        case 6:
            if (strcmp(optarg, "hot") && strcmp(optarg, "cold") && strcmp(optarg, "both")) goto bad;
            c->cache = optarg;
            break;
        case 7: c->peak = 1; break;
        case 8: c->no_baseline = 1; break;
        case 9:
            if ((c->baseline_bytes = jv_parse_size(optarg)) <= 0) goto bad;
            break;
        case 10:
            if (!parse_long(optarg, 0, &v) || v > 65536) goto bad;
            c->peak_gemm = v;
            break;
        case 11:
            if ((c->max_bytes = jv_parse_size(optarg)) <= 0) goto bad;
            break;
        case 12:
            if (!parse_double(optarg, 3600, &c->time_limit)) goto bad;
            break;
        case 22:
            if (!parse_double(optarg, 1, &c->duty)) goto bad;
            break;
        case 13:
            if (!parse_long(optarg, 0, &v)) goto bad;
            c->seed = (unsigned long long)v;
            c->has_seed = 1;
            break;
        case 14: c->bench_out = optarg; break;
        case 15:
            if (strcmp(optarg, "json") && strcmp(optarg, "csv")) goto bad;
            c->bench_fmt = optarg;
            break;
        case 16: c->report = optarg; break;
        case 17: c->gpu_arch = optarg; break;
        case 18:
            if (strcmp(optarg, "heuristic") && strcmp(optarg, "best")) goto bad;
            c->conv_algo = optarg;
            break;
        case 19: c->no_graph = 1; break;
        case 28: c->print_repro = 1; break;
        case 21:
            if (strcmp(optarg, "heuristic") && strcmp(optarg, "best")) goto bad;
            c->gemm_algo = optarg;
            break;
        case 20:
            if (!parse_double(optarg, 1e6, &c->deadline)) goto bad;
            break;
        case 'q': c->quiet = 1; break;
        case 'h': usage(stdout); return 1;
        case 'V': printf("jarvis-replay %s\n", JV_VERSION); return 1;
        default: usage(stderr); return 2;
        }
        continue;
    bad:
        fprintf(stderr, "jarvis-replay: bad value '%s' for --%s (see --help)\n", optarg, opts[ch - 1].name);
        return 2;
    }
    if (optind + 1 == argc) c->package = argv[optind];
    if (c->print_repro && !c->package) {
        fprintf(stderr, "jarvis-replay: --print-repro needs a PACKAGE (see --help)\n");
        return 2;
    }
    if (!c->package && !c->peak) {
        fprintf(stderr, "jarvis-replay: %s (see --help)\n",
                optind < argc ? "one package at a time" : "missing PACKAGE (or --peak)");
        return 2;
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "jarvis-replay: one package at a time (see --help)\n");
        return 2;
    }
    return 0;
}

/* prints a note of jv_backends_open (unless --quiet) */
static void backend_note(void *arg, const char *msg) {
    if (!((const jv_replay_cli *)arg)->quiet) fprintf(stderr, "jarvis-replay: %s\n", msg);
}

/* the traced device and file from the manifest (copied into buffers) */
/* what the package's manifest says of the trace (device, file); returns 1 when it lists its members' sizes and
 * SHA-256 (jv_package_load checked them), 0 when there is no such list */
static int read_manifest(const char *text, char *dev, size_t devcap, char *file, size_t filecap) {
    dev[0] = file[0] = 0;
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    if (!m) return 0;
    int listed = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(m, "members"));
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "trace");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(t, "file");
    if (cJSON_IsString(f)) snprintf(file, filecap, "%s", f->valuestring);
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(m, "devices");
    const cJSON *d0 = cJSON_GetArrayItem(devs, 0);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(d0, "name");
    if (cJSON_IsString(n)) snprintf(dev, devcap, "%s", n->valuestring);
    cJSON_Delete(m);
    return listed;
}

static void list_ops(const jv_ir *ir) {
    printf("# %4s %-10s %8s %12s %12s %10s  %s\n", "id", "family", "count", "traced_us", "total_us", "MiB", "op");
    for (int i = 0; i < ir->n; i++) {
        jv_op_result r;
        jv_desc d;
        jv_operands ops;
        int ok = jv_describe_op(&ir->ops[i], &r, &d, &ops);
        printf("  %4d %-10s %8lld %12.2f %12.2f %10.1f  %s%s%s%s\n", r.index, r.family_name[0] ? r.family_name : "-",
               (long long)r.traced_count, r.traced_median_us, r.traced_total_us, (double)r.alloc_bytes / 1048576.0,
               r.label, ok ? "" : "  [not replayable: ", ok ? "" : r.reason, ok ? "" : "]");
    }
}

/* --print-repro: the reproducer sections of the ops of sel in order (none named: the whole reproduce.md) on
 * stdout; 0, or 1 with the reason on stderr when one of them has no reproducer (nothing printed) */
static int print_repro(const jv_ir *ir, const jv_opsel *sel, const char *package) {
    jv_repro_opts o;
    jv_repro_opts_default(&o);
    jv_err err = {0};
    char *text = NULL;
    jv_strbuf b = JV_STRBUF_INIT;
    jv_status st = JV_OK;
    int some = jv_opsel_max(sel) >= 0;
    for (int i = 0; some && i < ir->n && st == JV_OK; i++)
        if (jv_opsel_has(sel, i)) st = jv_repro_op(&ir->ops[i], &o, &b, &err);
    if (!some) st = jv_repro_doc(ir, &o, 0, &text, &err);
    if (st == JV_OK) fputs(some ? (b.buf ? b.buf : "") : text, stdout);
    jv_sb_free(&b);
    free(text);
    if (st != JV_OK) {
        fprintf(stderr, "jarvis-replay: %s: %s\n", package, err.msg);
        return 1;
    }
    return 0;
}

/* 1 when the directory that will hold output file path exists and is writable (checked before a long run) */
static int out_dir_ok(const char *opt, const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (access(dir, W_OK) == 0) return 1;
    fprintf(stderr, "jarvis-replay: %s %s: cannot write into %s: %s\n", opt, path, dir, strerror(errno));
    return 0;
}

/* prints "WHO: message" on stderr; a fatal one (the replay could not run) is also kept for the fleet record */
static void say(const jv_replay_env *env, char *fatal, size_t cap, const char *msg) {
    fprintf(stderr, "%s: %s\n", env->who, msg);
    if (!fatal || fatal[0] || !cap) return;
    size_t n = strlen(msg) < cap ? strlen(msg) : cap - 1; /* the first cap - 1 bytes of a long message */
    memcpy(fatal, msg, n);
    fatal[n] = 0;
}

int jv_replay_one(const jv_replay_cli *c, const char *argv0, const jv_replay_env *env) {
    jv_err err = {0};
    jv_ir ir = {0};
    char *ir_text = NULL, *manifest = NULL;
    size_t ir_len = 0;
    char trace_dev[128] = "", trace_file[256] = "", fatal[512] = "";
    const jv_backend *be = NULL;
    void *ctx = NULL;
    jv_replay_run run;
    memset(&run, 0, sizeof run);
    int rc = 0, have_props = 0;
    jv_session ses;
    memset(&ses, 0, sizeof ses);
    jv_baseline *base = NULL;
    if (c->package) {
        if (jv_package_load(c->package, &ir_text, &ir_len, &manifest, &err) != JV_OK ||
            jv_ir_parse(ir_text, ir_len, c->package, &ir, &err) != JV_OK) {
            say(env, fatal, sizeof fatal, err.msg);
            free(ir_text);
            free(manifest);
            rc = 1;
            goto out;
        }
        free(ir_text);
        int listed = read_manifest(manifest, trace_dev, sizeof trace_dev, trace_file, sizeof trace_file);
        free(manifest);
        if (!listed && jv_package_is_zip(c->package))
            fprintf(stderr,
                    "%s: warning: %s: the package lists no sizes and SHA-256 of its members (no "
                    "manifest.json, or one without \"members\": made by hand or by an older jarvis), so damage or "
                    "edits cannot be detected\n",
                    env->who, c->package);
        int top = jv_opsel_max(&c->ops);
        if (top >= ir.n) {
            fprintf(stderr, "%s: %s: no op %d (the package has %d: see --list)\n", env->who, c->package, top, ir.n);
            snprintf(fatal, sizeof fatal, "%s: no op %d (the package has %d)", c->package, top, ir.n);
            rc = 2;
            goto out;
        }
    }
    if (c->list) {
        list_ops(&ir);
        jv_ir_free(&ir);
        return 0;
    }
    if (c->print_repro) {
        int prc = print_repro(&ir, &c->ops, c->package);
        jv_ir_free(&ir);
        return prc;
    }

    const double t_start = jv_now(); /* --deadline counts from here */
    if (jv_backends_open_on(c->backend, env->gpu_device, env->host_device, backend_note, (void *)c, &be, &ctx, &err) !=
        JV_OK) {
        say(env, fatal, sizeof fatal, err.msg);
        be = NULL;
        rc = 1;
        goto out;
    }
    run.package = c->package ? c->package : "(none: --peak)";
    run.executable = argv0;
    base = calloc(1, sizeof *base);
    if (!base || be->props(ctx, &run.props, &err) != JV_OK) {
        say(env, fatal, sizeof fatal, base ? err.msg : "out of memory");
        rc = 1;
        goto out;
    }
    have_props = 1;
    run.device = run.props.is_gpu ? env->gpu_device : env->host_device;
    const char *algo_opt[2][2] = {{"conv-algo", c->conv_algo}, {"gemm-algo", c->gemm_algo}};
    for (int k = 0; k < 2; k++) {
        const char *key = algo_opt[k][0], *val = algo_opt[k][1];
        if (!val || !strcmp(val, "heuristic")) continue;
        if (!be->set_option) {
            if (!c->quiet)
                fprintf(stderr, "%s: --%s %s: the %s backend has one implementation per op: ignored\n", env->who, key,
                        val, be->name);
        } else if (be->set_option(ctx, key, val, &err) != JV_OK) {
            say(env, fatal, sizeof fatal, err.msg);
            rc = 1;
            goto out;
        }
    }
    jv_run_opts o;
    jv_run_opts_default(&o, &run.props);
    if (c->no_graph) o.graph = 0;
    if (c->has_seed) o.seed = c->seed;
    o.max_bytes = c->max_bytes;
    o.cache_hot = strcmp(c->cache, "cold") != 0;
    o.cache_cold = strcmp(c->cache, "hot") != 0 && c->iterations == 0;
    o.timing.iterations = c->iterations;
    if (c->time_limit > 0) o.timing.max_time_s = c->time_limit;
    if (c->duty > 0) o.timing.duty = c->duty;
    o.timing.extra_runs = env->extra_runs;
    if (env->min_sample_s > o.timing.min_sample_s) o.timing.min_sample_s = env->min_sample_s;
    if (env->full_sampling) o.timing.target_rsd = 0;
    o.quiet = c->quiet;
    run.opts = &o;
    time_t now = time(NULL);
    struct tm tmv;
    if (localtime_r(&now, &tmv)) strftime(run.date, sizeof run.date, "%Y-%m-%dT%H:%M:%S%z", &tmv);

    jv_hw ds;
    char why[256] = "";
    if (c->gpu_arch) {
        if (jv_hw_resolve(c->gpu_arch, &ds, &err) != JV_OK) {
            say(env, fatal, sizeof fatal, err.msg);
            rc = 1;
            goto out;
        }
        run.ds = &ds;
    } else if (run.props.is_gpu) {
        jv_hw_device dev;
        memset(&dev, 0, sizeof dev);
        snprintf(dev.name, sizeof dev.name, "%s", run.props.name);
        dev.total_mem_bytes = (double)run.props.memory_bytes;
        dev.cc_major = run.props.cc_major;
        dev.cc_minor = run.props.cc_minor;
        dev.num_sms = run.props.compute_units;
        if (jv_hw_auto(&dev, 1, &ds, why, sizeof why)) run.ds = &ds;
    }
    run.trace_device = trace_dev[0] ? trace_dev : NULL;
    run.trace_file = trace_file[0] ? trace_file : NULL;
    run.base = base;

    /* the measured ceilings first */
    if (!c->no_baseline && c->iterations == 0) {
        long long gn = c->peak_gemm >= 0 ? c->peak_gemm : run.props.is_gpu ? 8192 : 512;
        if (!c->quiet) fprintf(stderr, "%s: measuring the baseline on %s\n", env->who, run.props.name);
        jv_status bs = jv_baseline_run(be, ctx, &run.props, &o, c->baseline_bytes, gn,
                                       run.props.is_gpu ? JV_DT_BF16 : JV_DT_F32, base, &err);
        if (bs == JV_ERR_DEVICE) { /* the device is gone: no op can run; what was measured is still written */
            if (jv_session_stop(&ses, c->peak ? NULL : &ir, &c->ops, 0, -1, NULL, &err, &err) != JV_OK) {
                say(env, fatal, sizeof fatal, "out of memory");
                rc = 1;
                goto out;
            }
        } else if (bs != JV_OK) {
            char m[sizeof err.msg + 160];
            snprintf(m, sizeof m, "baseline on %s: %s", run.props.name, err.msg);
            say(env, fatal, sizeof fatal, m);
            rc = 1;
            goto out;
        }
        jv_err_clear(&err);
        for (int k = 0; k < JV_BASE_COUNT; k++)
            if (base->done && !base->verified[k]) rc = 1;
        if (gn > 0 && (base->gemm.status == JV_RES_WRONG || base->gemm.status == JV_RES_ERROR)) rc = 1;
    }
    if (!c->peak && c->package) {
        jv_session_cfg sc = {be,   ctx,    &run.props, &o,
                             base, run.ds, stderr,     c->deadline > 0 ? t_start + c->deadline : 0};
        if (!ses.stopped && jv_session_ops(&ses, &sc, &ir, &c->ops, &err) != JV_OK) {
            say(env, fatal, sizeof fatal, err.msg);
            rc = 1;
            goto out;
        }
        if (ses.failed) rc = 1;
        run.res = ses.res;
        run.ver = ses.ver;
        run.n = ses.n;
        if (!run.res) { /* no op at all: an empty table, not --peak's "no ops" */
            static const jv_op_result none_r;
            static const jv_verdict none_v;
            run.res = &none_r;
            run.ver = &none_v;
        }
    }
    char stop_msg[1024] = "", written[600] = "";
    if (ses.stopped) {
        rc = 1;
        const char *parts[3] = {c->quiet ? NULL : "the console table", c->bench_out, c->report};
        size_t l = 0;
        for (int k = 0; k < 3; k++)
            if (parts[k] && l < sizeof written)
                l += (size_t)snprintf(written + l, sizeof written - l, "%s%s", l ? ", " : "", parts[k]);
        if (!l) snprintf(written, sizeof written, "nothing (-q, no --benchmark_out or --report)");
        jv_session_stop_message(&ses, run.props.name, written, stop_msg, sizeof stop_msg);
        run.stopped = stop_msg;
    }
    if (!c->quiet) jv_out_console(stdout, &run);
    if (c->bench_out && jv_out_gbench(c->bench_out, !strcmp(c->bench_fmt, "csv"), &run, &err) != JV_OK) {
        say(env, NULL, 0, err.msg);
        rc = 1;
    }
    jv_err_clear(&err);
    if (c->report && jv_out_markdown(c->report, &run, &err) != JV_OK) {
        say(env, NULL, 0, err.msg);
        rc = 1;
    }
    if (stop_msg[0]) say(env, NULL, 0, stop_msg);
out:
    if (env->rec) {
        int n = ses.res ? ses.n : 0;
        *env->ops = n ? malloc((size_t)n * sizeof **env->ops) : NULL;
        if (n && !*env->ops) {
            n = 0;
            rc = 1;
            if (!fatal[0]) snprintf(fatal, sizeof fatal, "out of memory for %d op records", ses.n);
        }
        if (n) jv_fleet_ops_fill(*env->ops, ses.res, n);
        jv_fleet_rank_fill(env->rec, have_props ? &run.props : NULL, base, rc, fatal, n);
        env->rec->device = run.device;
        env->rec->test_extra = env->extra_runs;
    }
    if (be) be->close(ctx);
    jv_session_free(&ses);
    free(base);
    jv_ir_free(&ir);
    return rc;
}

/* -o OUT of a single run: OUT/replay.json and OUT/report.md unless --benchmark_out / --report name others */
static int out_folder(jv_replay_cli *c, char *bench, char *report, size_t cap) {
    jv_err err = {0};
    if (!c->out) return 1;
    if (jv_mkdir_p(c->out, &err) != JV_OK) {
        fprintf(stderr, "jarvis-replay: -o %s: %s\n", c->out, err.msg);
        return 0;
    }
    snprintf(bench, cap, "%s/replay.json", c->out);
    snprintf(report, cap, "%s/report.md", c->out);
    if (!c->bench_out) {
        c->bench_out = bench;
        c->bench_fmt = "json";
    }
    if (!c->report) c->report = report;
    return 1;
}

int main(int argc, char **argv) {
    jv_replay_cli c;
    int pc = parse_cli(argc, argv, &c);
    if (pc == 1) return 0;
    if (pc == 2) return 2;
    char launcher[32];
    int certain = 0, size = jv_fleet_launch_size(launcher, sizeof launcher, &certain);
#if JV_HAVE_MPI
    if (size >= 1 && certain && !c.list) {
        if (c.bench_out || c.report) {
            fprintf(stderr,
                    "jarvis-replay: under MPI (%s=%d) each rank writes OUT/rank<k>/ (-o OUT): --benchmark_out and "
                    "--report are not taken\n",
                    launcher, size);
            return 2;
        }
        return jv_replay_fleet(&c, argv[0], &argc, &argv, launcher);
    }
#else
    if (size > 1 && certain) {
        fprintf(stderr,
                "jarvis-replay: this process is one of %d started by a launcher (%s=%d), but this jarvis-replay was "
                "built without MPI (JV_MPI=OFF or no MPI library found): each would replay alone and write the same "
                "outputs. Rebuild with an MPI library (Debian: libopenmpi-dev; cmake -DJV_MPI=ON) for the fleet "
                "replay, or start one process.\n",
                size, launcher, size);
        return 1;
    }
#endif
    if (size > 1 && !certain)
        fprintf(stderr,
                "jarvis-replay: warning: %s=%d but no launcher started this process (no OMPI_COMM_WORLD_SIZE, "
                "PMI_SIZE or SLURM_STEP_NUM_TASKS): one replay here; start it with srun or mpirun for the fleet "
                "replay\n",
                launcher, size);
    char bench[4200], report[4200];
    if ((c.out && !out_folder(&c, bench, report, sizeof bench)) ||
        (c.bench_out && !out_dir_ok("--benchmark_out", c.bench_out)) || (c.report && !out_dir_ok("--report", c.report)))
        return 1;
    jv_replay_env env = {"jarvis-replay", c.device, c.device, 0, 0, 0, NULL, NULL};
    return jv_replay_one(&c, argv[0], &env);
}
