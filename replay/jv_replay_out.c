/* jv_replay_out: console table, Google Benchmark JSON/CSV, markdown (see jv_replay_out.h). */
#include "jv_replay_out.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_escape.h"
#include "jv_family.h"
#include "jv_output.h"

/* the cache modes an op was timed in */
static const jv_timing *timing_of(const jv_op_result *r, int cold) {
    return cold ? &r->cold : &r->hot;
}

static const char *check_str(const jv_op_result *r) {
    if (r->status == JV_RES_WRONG) return "WRONG";
    if (r->status != JV_RES_OK) return jv_res_status_str(r->status);
    return r->verify.sampled ? "ok(s)" : "ok";
}

/* a number right-aligned in width w with dec decimals, or "-" in that width for NaN */
static void fmt_opt(char *buf, size_t cap, int w, int dec, double v) {
    if (isnan(v))
        snprintf(buf, cap, "%*s", w, "-");
    else
        snprintf(buf, cap, "%*.*f", w, dec, v);
}

void jv_out_console(FILE *f, const jv_replay_run *run) {
    const jv_device_props *p = &run->props;
    fprintf(f, "# jarvis-replay %s  %s\n", JV_VERSION, run->package);
    fprintf(f, "# device %d: %s  backend %s  driver %s  arch %s\n", run->device, p->name, p->backend, p->driver,
            p->arch);
    fprintf(f, "# launch cost measured at open: %.3f us on the device, %.3f us on the host per launch\n", p->launch_us,
            p->host_launch_us);
    if (run->trace_device)
        fprintf(f, "# traced on: %s%s%s\n", run->trace_device, run->trace_file ? "  file " : "",
                run->trace_file ? run->trace_file : "");
    const jv_baseline *b = run->base;
    if (b && b->done) {
        fprintf(f, "# baseline (fp32 arrays of %.1f MiB):", (double)b->n * 4 / (1024.0 * 1024));
        for (int k = 0; k < JV_BASE_COUNT; k++)
            fprintf(f, " %s %.1f GB/s%s", jv_base_name((jv_base_kernel)k), b->bw[k] / 1e9,
                    b->verified[k] ? "" : " (WRONG)");
        fprintf(f, "\n# measured bandwidth ceiling %.1f GB/s", b->bw_ceiling / 1e9);
        if (run->ds)
            fprintf(f, " (datasheet %.0f GB/s: %.0f %%)", run->ds->mem_bw_gbps,
                    100 * b->bw_ceiling / 1e9 / run->ds->mem_bw_gbps);
        fprintf(f, "\n");
    } else {
        fprintf(f, "# baseline: not run\n");
    }
    if (b && b->gemm_done)
        fprintf(f, "# measured compute ceiling %.4g TFLOP/s (%s %lld^3 mm, %s)\n", b->flops_ceiling / 1e12,
                jv_dtype_short(b->gemm.perf.dtype), (long long)b->gemm_n, b->gemm.impl);
    if (b && b->gemm_alt_done)
        fprintf(f, "# measured compute ceiling %.4g TFLOP/s (%s %lld^3 mm, %s)\n", b->flops_ceiling_alt / 1e12,
                jv_dtype_short(b->gemm_alt.perf.dtype), (long long)b->gemm_n, b->gemm_alt.impl);
    if (!run->res) return; /* --peak: no ops */
    fprintf(f, "#\n# %4s %-5s %10s %10s %10s %6s %9s %9s %6s %6s %10s %-6s %-15s %-8s %10s %-14s %s\n", "id", "cache",
            "median_us", "min_us", "max_us", "rsd%", "GB/s", "TFLOP/s", "eff%", "ds%", "traced_us", "check", "verdict",
            "figure", "judged_us", "impl", "op");
    int ok = 0, wrong = 0, skipped = 0, refused = 0, throttled = 0, rotated = 0;
    for (int i = 0; i < run->n; i++) {
        const jv_op_result *r = &run->res[i];
        const jv_verdict *v = &run->ver[i];
        ok += r->status == JV_RES_OK;
        wrong += r->status == JV_RES_WRONG;
        skipped += r->status == JV_RES_SKIPPED;
        refused += r->status == JV_RES_REFUSED || r->status == JV_RES_ERROR || r->status == JV_RES_NOT_RUN;
        int printed = 0;
        for (int cold = 0; cold < 2; cold++) {
            const jv_timing *t = timing_of(r, cold);
            if (t->samples == 0) continue;
            printed = 1;
            double tm = t->median_s;
            int judged = v->cache && !strcmp(v->cache, cold ? "cold" : "hot");
            char eff[16], ds[16], traced[24], bw[24], rsd[16];
            fmt_opt(rsd, sizeof rsd, 6, 2, 100 * t->rsd);
            fmt_opt(eff, sizeof eff, 6, 1, judged && !isnan(v->eff) ? 100 * v->eff : NAN);
            fmt_opt(ds, sizeof ds, 6, 1, judged && !isnan(v->eff_datasheet) ? 100 * v->eff_datasheet : NAN);
            fmt_opt(traced, sizeof traced, 10, 2, r->traced_median_us > 0 ? r->traced_median_us : NAN);
            fmt_opt(bw, sizeof bw, 9, 1, isnan(r->perf.bytes) ? NAN : r->perf.bytes / tm / 1e9);
            char jt[16];
            fmt_opt(jt, sizeof jt, 10, 2, judged ? v->time_s * 1e6 : NAN);
            fprintf(f, "  %4d %-5s %10.2f %10.2f %10.2f %6s %9s %9.3f %6s %6s %10s %-6s %-15s %-8s %10s %-14s %s\n",
                    r->index, cold ? "cold" : "hot", tm * 1e6, t->min_s * 1e6, t->max_s * 1e6, rsd, bw,
                    r->perf.flops / tm / 1e12, eff, ds, traced, check_str(r), judged ? jv_judge_str(v->kind) : "",
                    judged ? jv_figure_short(v->figure) : "", jt, r->impl, r->label);
        }
        if (!printed)
            fprintf(f, "  %4d %-5s %10s %10s %10s %6s %9s %9s %6s %6s %10s %-6s %-15s %-8s %10s %-14s %s: %s\n",
                    r->index, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", check_str(r), "-", "-", "-",
                    r->impl[0] ? r->impl : "-", r->label, r->reason);
        if (r->graph_s > 0)
            fprintf(f,
                    "# %4d graph: %.2f us per run with %d runs in one device graph; launch gap %.2f us of the "
                    "%.2f us hot median (graphed: %s)\n",
                    r->index, r->graph_s * 1e6, r->graph_runs, jv_launch_gap_s(r) * 1e6, r->hot.median_s * 1e6,
                    r->graph_why);
        else if (r->graph_note[0])
            fprintf(f, "# %4d graph: not measured: %s\n", r->index, r->graph_note);
        if (r->cold.samples > 0 && r->cold.note[0]) {
            rotated++;
            fprintf(f, "# %4d cold: %s\n", r->index, r->cold.note);
        }
        if (r->throttled) {
            throttled++;
            fprintf(f, "# %4d THROTTLED while timing: %s\n", r->index, r->throttle);
        }
    }
    fprintf(f, "#\n# %d ops: %d verified, %d WRONG, %d skipped, %d not run\n", run->n, ok, wrong, skipped, refused);
    if (wrong) fprintf(f, "# WRONG RESULTS: see the check column\n");
    if (throttled)
        fprintf(f, "# %d ops ran while the device held its clocks down: their times are suspect\n", throttled);
    fprintf(f,
            "# timing: median of samples until rsd < %.1f %% or %.2f s; cold = the last-level cache (%.0f MiB) "
            "flushed before every sample, one run per operand set%s\n",
            100 * run->opts->timing.target_rsd, run->opts->timing.max_time_s, (double)p->llc_bytes / (1024.0 * 1024),
            rotated ? " (ops marked 'cold:' rotated operand sets instead)" : "");
    fprintf(f, "# figure: the time each verdict judged (judged_us): cold when measured, cold-gap = cold less the "
               "launch gap (hot - graph), graph = device graph per run, else hot\n");
    if (run->stopped) fprintf(f, "# STOPPED: %s\n", run->stopped);
}

/* ---- Google Benchmark JSON / CSV ---- */

typedef struct {
    char name[512];
    int64_t iterations;
    double real_us, bytes_ps, items_ps;
    const char *error; /* non-NULL: error entry */
    const char *label;
    const char *figure; /* the judged entry: the figure its verdict used */
    const char *family; /* the op's family (registry name), or NULL */
    const char *impl;   /* the implementation that ran (backend prepare's impl), or NULL */
    int nc;
    const char *cname[24];
    double cval[24];
} gb_entry;

static void add_counter(gb_entry *e, const char *n, double v) {
    if (e->nc < 24 && !isnan(v)) {
        e->cname[e->nc] = n;
        e->cval[e->nc++] = v;
    }
}

/* the entries of a run, in order; returns the count (entries has room for 5 + 2n) */
static int build_entries(const jv_replay_run *run, gb_entry *es) {
    int m = 0;
    const jv_baseline *b = run->base;
    if (b && b->done) {
        for (int k = 0; k < JV_BASE_COUNT; k++) {
            gb_entry *e = &es[m++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "baseline/%s/fp32/%lld", jv_base_name((jv_base_kernel)k),
                     (long long)b->n);
            e->iterations = b->t[k].runs;
            e->real_us = b->t[k].median_s * 1e6;
            e->bytes_ps = b->bw[k];
            e->items_ps = b->t[k].median_s > 0 ? (double)b->n / b->t[k].median_s : 0;
            if (!b->verified[k]) e->error = "baseline result does not match the host computation";
            add_counter(e, "min_us", b->t[k].min_s * 1e6);
            add_counter(e, "max_us", b->t[k].max_s * 1e6);
            add_counter(e, "rsd", b->t[k].rsd);
            add_counter(e, "verified", b->verified[k]);
            if (run->ds) add_counter(e, "datasheet_fraction", b->bw[k] / 1e9 / run->ds->mem_bw_gbps);
        }
    }
    for (int g = 0; b && g < 2; g++) { /* the compute ceilings */
        const jv_op_result *gr = g ? &b->gemm_alt : &b->gemm;
        if (gr->hot.samples == 0 || (g && !b->gemm_alt_done)) continue;
        const jv_timing *t = &gr->hot;
        gb_entry *e = &es[m++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "baseline/gemm/%s/%lld", jv_dtype_short(gr->perf.dtype),
                 (long long)b->gemm_n);
        e->iterations = t->runs;
        e->real_us = t->median_s * 1e6;
        e->bytes_ps = gr->perf.bytes / t->median_s;
        e->items_ps = gr->perf.flops / t->median_s;
        if (gr->status != JV_RES_OK) e->error = gr->reason;
        e->impl = gr->impl[0] ? gr->impl : NULL;
        add_counter(e, "min_us", t->min_s * 1e6);
        add_counter(e, "max_us", t->max_s * 1e6);
        add_counter(e, "rsd", t->rsd);
        add_counter(e, "verified", gr->status == JV_RES_OK);
        add_counter(e, "sampled_verification", gr->verify.sampled);
        add_counter(e, "rel_l2", gr->verify.rel_l2);
        if (run->ds) {
            char spec[32];
            double pk = jv_hw_datasheet_peak(run->ds, jv_perf_compute_spec(&gr->perf, spec, sizeof spec));
            if (pk > 0) add_counter(e, "datasheet_fraction", e->items_ps / (pk * 1e12));
        }
    }
    for (int i = 0; i < run->n; i++) {
        const jv_op_result *r = &run->res[i];
        const jv_verdict *v = &run->ver[i];
        int any = 0;
        for (int cold = 0; cold < 2; cold++) {
            const jv_timing *t = timing_of(r, cold);
            if (t->samples == 0) continue;
            any = 1;
            gb_entry *e = &es[m++];
            memset(e, 0, sizeof *e);
            if (r->variant > 0) /* another implementation: the name says which; variant 0 keeps the plain name */
                snprintf(e->name, sizeof e->name, "op%d/%s/%s/%s", r->index, r->label, r->impl, cold ? "cold" : "hot");
            else
                snprintf(e->name, sizeof e->name, "op%d/%s/%s", r->index, r->label, cold ? "cold" : "hot");
            e->iterations = t->runs;
            e->real_us = t->median_s * 1e6;
            e->bytes_ps = isnan(r->perf.bytes) ? NAN : r->perf.bytes / t->median_s;
            e->items_ps = r->perf.flops / t->median_s;
            e->label = jv_judge_str(v->kind);
            e->family = r->family_name[0] ? r->family_name : NULL;
            e->impl = r->impl[0] ? r->impl : NULL;
            if (r->status == JV_RES_WRONG) e->error = r->reason;
            int judged = v->cache && !strcmp(v->cache, cold ? "cold" : "hot");
            add_counter(e, "traced_us", r->traced_median_us > 0 ? r->traced_median_us : NAN);
            add_counter(e, "bound_us", v->bound_s > 0 ? v->bound_s * 1e6 : NAN);
            add_counter(e, "efficiency", v->bound_s > 0 ? v->bound_s / t->median_s : NAN);
            add_counter(e, "efficiency_datasheet", judged ? v->eff_datasheet : NAN);
            add_counter(e, "verified", r->status == JV_RES_OK);
            add_counter(e, "sampled_verification", r->verify.sampled);
            add_counter(e, "rel_l2", r->verify.rel_l2);
            add_counter(e, "min_us", t->min_s * 1e6);
            add_counter(e, "max_us", t->max_s * 1e6);
            add_counter(e, "rsd", t->rsd);
            add_counter(e, "samples", t->samples);
            add_counter(e, "converged", t->converged);
            add_counter(e, "operand_sets", t->sets);
            add_counter(e, "flops", r->perf.flops);
            add_counter(e, "bytes", r->perf.bytes);
            add_counter(e, "host_us", t->host_s * 1e6);
            if (cold) add_counter(e, "cache_flushed", t->flushed);
            if (cold) add_counter(e, "held", t->held);
            if (judged) {
                e->figure = jv_figure_str(v->figure);
                add_counter(e, "judged_us", v->time_s * 1e6);
            }
            if (!cold && r->graph_s > 0) {
                add_counter(e, "graph_us", r->graph_s * 1e6);
                add_counter(e, "launch_gap_us", jv_launch_gap_s(r) * 1e6);
            }
            if (r->clk_load.known) {
                add_counter(e, "throttled", r->throttled);
                add_counter(e, "sm_mhz_load_min", r->clk_load.sm_mhz);
                if (r->clk_load.power_w > 0) add_counter(e, "power_w_load_max", r->clk_load.power_w);
                if (r->clk_load.temp_c > 0) add_counter(e, "temp_c_load_max", r->clk_load.temp_c);
            }
        }
        if (!any) {
            gb_entry *e = &es[m++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "op%d/%s", r->index, r->label);
            e->error = r->reason[0] ? r->reason : jv_res_status_str(r->status);
        }
    }
    return m;
}

static char *host_name(char *buf, size_t cap) {
    if (gethostname(buf, cap) != 0) snprintf(buf, cap, "unknown");
    buf[cap - 1] = 0;
    return buf;
}

/* the device's clocks over the run (where the backend reads them: NVML, ROCm SMI, sysfs): idle before the first
 * timed op, and under load merged over every op (jv_clocks_merge_load: lowest clocks, highest power and temperature) */
static void add_run_clocks(cJSON *ctx, const jv_replay_run *run) {
    const jv_clocks *idle = NULL;
    jv_clocks load;
    memset(&load, 0, sizeof load);
    for (int i = 0; i < run->n; i++) {
        const jv_op_result *r = &run->res[i];
        if (!idle && r->clk_start.known) idle = &r->clk_start;
        jv_clocks_merge_load(&load, &r->clk_load);
    }
    if (idle) {
        cJSON *o = cJSON_AddObjectToObject(ctx, "clocks_idle");
        cJSON_AddNumberToObject(o, "sm_mhz", idle->sm_mhz);
        cJSON_AddNumberToObject(o, "mem_mhz", idle->mem_mhz);
        cJSON_AddNumberToObject(o, "sm_max_mhz", idle->sm_max_mhz);
        cJSON_AddNumberToObject(o, "power_w", idle->power_w);
        cJSON_AddNumberToObject(o, "temp_c", idle->temp_c);
    }
    if (load.known) {
        cJSON *o = cJSON_AddObjectToObject(ctx, "clocks_load");
        cJSON_AddNumberToObject(o, "sm_mhz_min", load.sm_mhz);
        cJSON_AddNumberToObject(o, "mem_mhz_min", load.mem_mhz);
        cJSON_AddNumberToObject(o, "sm_max_mhz", load.sm_max_mhz);
        cJSON_AddNumberToObject(o, "power_w_max", load.power_w);
        cJSON_AddNumberToObject(o, "temp_c_max", load.temp_c);
    }
}

static cJSON *gbench_json(const jv_replay_run *run, const gb_entry *es, int m) {
    cJSON *root = cJSON_CreateObject(), *ctx = cJSON_AddObjectToObject(root, "context");
    char host[256];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cJSON_AddStringToObject(ctx, "date", run->date);
    cJSON_AddStringToObject(ctx, "host_name", host_name(host, sizeof host));
    cJSON_AddStringToObject(ctx, "executable", run->executable);
    cJSON_AddNumberToObject(ctx, "num_cpus", (double)(ncpu > 0 ? ncpu : 1));
    cJSON_AddNumberToObject(ctx, "mhz_per_cpu", 0);
    cJSON_AddBoolToObject(ctx, "cpu_scaling_enabled", 0);
    cJSON_AddArrayToObject(ctx, "caches");
    double la[3] = {0, 0, 0};
    cJSON *lav = cJSON_AddArrayToObject(ctx, "load_avg");
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fscanf(lf, "%lf %lf %lf", &la[0], &la[1], &la[2]) == 3)
            for (int i = 0; i < 3; i++)
                cJSON_AddItemToArray(lav, cJSON_CreateNumber(la[i]));
        fclose(lf);
    }
    cJSON_AddStringToObject(ctx, "library_build_type", "release");
    cJSON_AddStringToObject(ctx, "jarvis_version", JV_VERSION);
    cJSON_AddStringToObject(ctx, "device_name", run->props.name);
    cJSON_AddNumberToObject(ctx, "device_index", run->device);
    cJSON_AddStringToObject(ctx, "backend", run->props.backend);
    cJSON_AddStringToObject(ctx, "driver", run->props.driver);
    cJSON_AddStringToObject(ctx, "arch", run->props.arch);
    cJSON_AddNumberToObject(ctx, "device_memory_bytes", (double)run->props.memory_bytes);
    cJSON_AddNumberToObject(ctx, "last_level_cache_bytes", (double)run->props.llc_bytes);
    cJSON_AddNumberToObject(ctx, "clock_mhz", run->props.clock_mhz);
    if (run->props.clocks_from[0]) cJSON_AddStringToObject(ctx, "clocks_from", run->props.clocks_from);
    add_run_clocks(ctx, run);
    cJSON_AddNumberToObject(ctx, "launch_us", run->props.launch_us); /* measured by the backend at open */
    cJSON_AddNumberToObject(ctx, "host_launch_us", run->props.host_launch_us);
    if (run->opts && run->opts->timing.duty > 0 && run->opts->timing.duty < 1)
        cJSON_AddNumberToObject(ctx, "duty", run->opts->timing.duty);
    if (run->stopped) cJSON_AddStringToObject(ctx, "stopped", run->stopped);
    cJSON_AddStringToObject(ctx, "package", run->package);
    if (run->trace_device) cJSON_AddStringToObject(ctx, "traced_device", run->trace_device);
    if (run->ds) cJSON_AddStringToObject(ctx, "datasheet", run->ds->name);
    if (run->base && run->base->done)
        cJSON_AddNumberToObject(ctx, "measured_bandwidth_bytes_per_second", run->base->bw_ceiling);
    if (run->base && run->base->gemm_done)
        cJSON_AddNumberToObject(ctx, "measured_flops_per_second", run->base->flops_ceiling);
    cJSON *arr = cJSON_AddArrayToObject(root, "benchmarks");
    for (int i = 0; i < m; i++) {
        const gb_entry *e = &es[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", e->name);
        cJSON_AddNumberToObject(o, "family_index", i);
        cJSON_AddNumberToObject(o, "per_family_instance_index", 0);
        cJSON_AddStringToObject(o, "run_name", e->name);
        cJSON_AddStringToObject(o, "run_type", "iteration");
        cJSON_AddNumberToObject(o, "repetitions", 1);
        cJSON_AddNumberToObject(o, "repetition_index", 0);
        cJSON_AddNumberToObject(o, "threads", 1);
        if (e->error && e->iterations == 0) {
            cJSON_AddBoolToObject(o, "error_occurred", 1);
            cJSON_AddStringToObject(o, "error_message", e->error);
            cJSON_AddNumberToObject(o, "iterations", 0);
            cJSON_AddNumberToObject(o, "real_time", 0); /* as Google Benchmark writes a failed run */
            cJSON_AddNumberToObject(o, "cpu_time", 0);
            cJSON_AddStringToObject(o, "time_unit", "us");
            cJSON_AddItemToArray(arr, o);
            continue;
        }
        if (e->error) {
            cJSON_AddBoolToObject(o, "error_occurred", 1);
            cJSON_AddStringToObject(o, "error_message", e->error);
        }
        cJSON_AddNumberToObject(o, "iterations", (double)e->iterations);
        cJSON_AddNumberToObject(o, "real_time", e->real_us);
        cJSON_AddNumberToObject(o, "cpu_time", e->real_us); /* device time: the host only queues work */
        cJSON_AddStringToObject(o, "time_unit", "us");
        if (!isnan(e->bytes_ps)) cJSON_AddNumberToObject(o, "bytes_per_second", e->bytes_ps);
        cJSON_AddNumberToObject(o, "items_per_second", e->items_ps);
        if (e->label) cJSON_AddStringToObject(o, "label", e->label);
        if (e->figure) cJSON_AddStringToObject(o, "judged_figure", e->figure);
        if (e->family) cJSON_AddStringToObject(o, "op_family", e->family);
        if (e->impl) cJSON_AddStringToObject(o, "impl", e->impl);
        for (int c = 0; c < e->nc; c++)
            cJSON_AddNumberToObject(o, e->cname[c], e->cval[c]);
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

static void gbench_csv(jv_out *o, const gb_entry *es, int m) {
    static const char *const H[] = {"name",           "iterations",           "real_time",        "cpu_time",
                                    "time_unit",      "bytes_per_second",     "items_per_second", "label",
                                    "error_occurred", "error_message",        "traced_us",        "bound_us",
                                    "efficiency",     "efficiency_datasheet", "verified",         NULL};
    jv_csv_header(o, H);
    for (int i = 0; i < m; i++) {
        const gb_entry *e = &es[i];
        int ran = !(e->error && e->iterations == 0);
        jv_csv_str(o, e->name);
        jv_csv_int(o, (long long)e->iterations);
        if (ran) {
            jv_csv_num(o, e->real_us);
            jv_csv_num(o, e->real_us);
            jv_csv_str(o, "us");
            jv_csv_num(o, e->bytes_ps);
            jv_csv_num(o, e->items_ps);
        } else {
            for (int k = 0; k < 5; k++)
                jv_csv_empty(o);
        }
        jv_csv_str(o, e->label ? e->label : "");
        jv_csv_str(o, e->error ? "true" : "false");
        jv_csv_str(o, e->error ? e->error : "");
        static const char *const C[] = {"traced_us", "bound_us", "efficiency", "efficiency_datasheet", "verified"};
        for (int k = 0; k < 5; k++) {
            int found = 0;
            for (int c = 0; c < e->nc; c++)
                if (!strcmp(e->cname[c], C[k])) {
                    jv_csv_num(o, e->cval[c]);
                    found = 1;
                }
            if (!found) jv_csv_empty(o);
        }
        jv_csv_end(o);
    }
}

jv_status jv_out_gbench(const char *path, int csv, const jv_replay_run *run, jv_err *err) {
    gb_entry *es = calloc((size_t)(JV_BASE_COUNT + 2 * run->n + 3), sizeof *es);
    if (!es) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    int m = build_entries(run, es);
    jv_out o;
    jv_status st = jv_out_open(&o, path, err);
    if (st != JV_OK) {
        free(es);
        return st;
    }
    if (csv) {
        gbench_csv(&o, es, m);
    } else {
        cJSON *root = gbench_json(run, es, m);
        char *text = root ? cJSON_Print(root) : NULL;
        cJSON_Delete(root);
        if (!text) {
            free(es);
            jv_out_abort(&o);
            JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
        }
        fputs(text, o.f);
        fputc('\n', o.f);
        free(text);
    }
    free(es);
    return jv_out_commit(&o, err);
}

/* ---- markdown ---- */

/* a number with dec decimals and a suffix, "-" for NaN */
static void md_num(FILE *f, int dec, const char *suffix, double v) {
    if (isnan(v))
        fputs("-", f);
    else
        fprintf(f, "%.*f%s", dec, v, suffix);
}

jv_status jv_out_markdown(const char *path, const jv_replay_run *run, jv_err *err) {
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    const jv_device_props *p = &run->props;
    const jv_baseline *b = run->base;
    fprintf(f, "# Replay report\n\n");
    fprintf(f, "- Package: `%s`\n- Device %d: %s (backend %s, driver %s, arch %s)\n", run->package, run->device,
            p->name, p->backend, p->driver, p->arch);
    if (run->trace_device) fprintf(f, "- Traced on: %s\n", run->trace_device);
    fprintf(f, "- Date: %s, jarvis %s\n", run->date, JV_VERSION);
    if (!p->is_gpu)
        fprintf(f, "- The CPU backend runs GEMM, convolution and batch norm on oneDNN and the families with CPU "
                   "kernels of their own on those (OpenMP), as the impl column says: its times describe this CPU. "
                   "An op neither runs is skipped with the reason; the families' CPU references only verify.\n");
    int ok = 0, wrong = 0, other = 0;
    for (int i = 0; i < run->n; i++) {
        ok += run->res[i].status == JV_RES_OK;
        wrong += run->res[i].status == JV_RES_WRONG;
        other += run->res[i].status != JV_RES_OK && run->res[i].status != JV_RES_WRONG;
    }
    if (run->res) fprintf(f, "- Ops: %d replayed and verified, %d WRONG, %d not run\n", ok, wrong, other);
    fprintf(f, "- Launch cost measured at open: %.3f us on the device, %.3f us on the host per launch.\n", p->launch_us,
            p->host_launch_us);
    if (run->opts && run->opts->timing.duty > 0 && run->opts->timing.duty < 1)
        fprintf(f,
                "- Duty cycle %.2f: after each sample the device idled %.0f %% of its length (at most %.0f ms), "
                "as between a training step's heavy ops.\n",
                run->opts->timing.duty, 100 * (1 - run->opts->timing.duty) / run->opts->timing.duty,
                JV_DUTY_MAX_GAP_S * 1e3);
    if (run->stopped) {
        fputs("- **Stopped**: ", f);
        jv_md_text(f, run->stopped);
        fputs(".\n", f);
    }
    fprintf(f, "\n");
    fprintf(f, "## Measured ceilings\n\n");
    if (b && b->done) {
        fprintf(f,
                "| kernel | bytes per run | median us | GB/s | of datasheet | verified |\n|---|---|---|---|---|---|\n");
        for (int k = 0; k < JV_BASE_COUNT; k++) {
            fprintf(f, "| %s | %.0f | %.2f | %.1f | ", jv_base_name((jv_base_kernel)k), b->bytes[k],
                    b->t[k].median_s * 1e6, b->bw[k] / 1e9);
            md_num(f, 0, " %", run->ds ? 100 * b->bw[k] / 1e9 / run->ds->mem_bw_gbps : NAN);
            fprintf(f, " | %s |\n", b->verified[k] ? "yes" : "NO");
        }
        fprintf(f, "\nBandwidth ceiling (best of copy, scale, add, triad): **%.1f GB/s**", b->bw_ceiling / 1e9);
        if (run->ds) fprintf(f, "; datasheet %s: %.0f GB/s", run->ds->name, run->ds->mem_bw_gbps);
        fprintf(f, ".\n");
    } else {
        fprintf(f, "The baseline was not run: efficiencies below have no measured ceiling.\n");
    }
    if (b && b->gemm_done)
        fprintf(f, "\nCompute ceiling: **%.4g TFLOP/s** (%s %lld^3 matrix multiply, %s, verified).\n",
                b->flops_ceiling / 1e12, jv_dtype_short(b->gemm.perf.dtype), (long long)b->gemm_n, b->gemm.impl);
    if (b && b->gemm_alt_done)
        fprintf(f,
                "\nCompute ceiling of %s ops: **%.4g TFLOP/s** (%s %lld^3 matrix multiply, %s, verified; measured, "
                "not carried from %s).\n",
                jv_dtype_short(b->gemm_alt.perf.dtype), b->flops_ceiling_alt / 1e12,
                jv_dtype_short(b->gemm_alt.perf.dtype), (long long)b->gemm_n, b->gemm_alt.impl,
                jv_dtype_short(b->gemm.perf.dtype));
    if (!run->res) { /* --peak: the ceilings only */
        fprintf(f, "\nHardware validation run (--peak): no ops were replayed.\n");
        return jv_out_commit(&o, err);
    }
    fprintf(f, "\n## Verdicts\n\n");
    fprintf(f, "| id | op | impl | judged figure | replay us | traced us | GB/s | TFLOP/s | of measured roofline | of "
               "datasheet "
               "| verified | verdict |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < run->n; i++) {
        const jv_op_result *r = &run->res[i];
        const jv_verdict *v = &run->ver[i];
        if (!v->cache) continue;
        fprintf(f, "| %d | ", r->index);
        jv_md_text(f, r->label);
        fprintf(f, " | %s | %s | %.2f | ", r->impl, jv_figure_str(v->figure), v->time_s * 1e6);
        md_num(f, 2, "", r->traced_median_us > 0 ? r->traced_median_us : NAN);
        fputs(" | ", f);
        md_num(f, 1, "", v->achieved_bw / 1e9);
        fputs(" | ", f);
        md_num(f, 3, "", v->achieved_flops / 1e12);
        fputs(" | ", f);
        md_num(f, 0, " %", 100 * v->eff);
        fputs(" | ", f);
        md_num(f, 0, " %", 100 * v->eff_datasheet);
        fprintf(f, " | %s | %s |\n",
                r->status == JV_RES_OK ? (r->verify.sampled ? "yes (sampled)" : "yes") : "**WRONG**",
                jv_judge_str(v->kind));
    }
    fprintf(f, "\n## Why\n\n");
    for (int i = 0; i < run->n; i++) {
        const jv_op_result *r = &run->res[i];
        const jv_verdict *v = &run->ver[i];
        if (!v->cache) continue;
        fprintf(f, "- op %d ", r->index);
        jv_md_code(f, r->label, sizeof r->label, 0);
        fprintf(f, ": **%s**: %s.", jv_judge_str(v->kind), v->why);
        if (!isnan(v->traced_over_replay))
            fprintf(f, " Traced %.2f us per call vs replayed %.2f us (%.2fx).", r->traced_median_us, v->time_s * 1e6,
                    v->traced_over_replay);
        if (r->traced_kernels[0]) {
            fputs(" Traced kernels: ", f);
            jv_md_text(f, r->traced_kernels);
            fputs(".", f);
        }
        fprintf(f, " Judged on the *%s* time, %.2f us per run.", jv_figure_str(v->figure), v->time_s * 1e6);
        if (r->graph_s > 0)
            fprintf(f,
                    " Graph-timed because %s: in a device graph (%d runs) %.2f us per run, so launching costs "
                    "%.2f us of the %.2f us hot median.",
                    r->graph_why, r->graph_runs, r->graph_s * 1e6, jv_launch_gap_s(r) * 1e6, r->hot.median_s * 1e6);
        else if (r->graph_note[0]) {
            fputs(" Graph timing wanted but not measured: ", f);
            jv_md_text(f, r->graph_note);
            fputs(".", f);
        }
        if (r->cold.samples > 0 && r->cold.note[0]) {
            fputs(" Cold: ", f);
            jv_md_text(f, r->cold.note);
            fputs(".", f);
        }
        if (r->throttled) {
            fputs(" **Throttled while timing**: ", f);
            jv_md_text(f, r->throttle);
            fputs(".", f);
        }
        fputs("\n", f);
    }
    int header = 0;
    for (int i = 0; i < run->n; i++) {
        const jv_op_result *r = &run->res[i];
        if (r->status == JV_RES_OK) continue;
        if (!header) {
            fprintf(f, "\n## Not verified or not run\n\n| id | op | status | reason |\n|---|---|---|---|\n");
            header = 1;
        }
        fprintf(f, "| %d | ", r->index);
        jv_md_text(f, r->label);
        fprintf(f, " | %s | ", jv_res_status_str(r->status));
        jv_md_text(f, r->reason);
        fputs(" |\n", f);
    }
    fprintf(f, "\n## How this was measured\n\n");
    fprintf(f,
            "- Tensors: traced shapes, strides and dtypes; seeded random normal data (seed %llu); outputs "
            "poisoned (0xFF bytes) before the verified run.\n",
            (unsigned long long)run->opts->seed);
    fprintf(f,
            "- Verification against the CPU reference (double accumulation): relative L2 error within "
            "max(floor, %g x 2^-24 x sqrt(K)), K the op's accumulation length (FLOPs / 2 / output elements), "
            "floors 1e-05 (fp32; %.0e for convolutions, which may run in TF32, and batch norm), %.0e (fp16), "
            "%.1e (bf16), exact for integers and bool; every element written; no NaN "
            "where the reference has none; sum(|x|), sum(x) and position-weighted checksums. Ops over %.0e FLOP "
            "check a sample of each output (marked sampled): %lld elements spread over its blocks (32 x 32 or larger) "
            "in memory order (fewer, at least 256, where one element's reference costs much, as a weight "
            "gradient's), the first and last element, 2 complete rows and 2 complete columns, and the whole "
            "output scanned for unwritten elements; batch norm, whose reference computes every output anyway, "
            "checks all.\n",
            JV_VERIFY_ACC, jv_verify_tol(JV_DT_F32), jv_verify_tol(JV_DT_F16), jv_verify_tol(JV_DT_BF16),
            run->opts->verify_max_flops, (long long)run->opts->verify_samples);
    fprintf(f,
            "- Timing: the backend's device timer around batches of back-to-back runs after a warm-up; samples "
            "until the relative standard deviation is under %.1f %% (at least %d samples) or %.2f s; the "
            "median is quoted; the host time to queue a run is measured too. Hot: the same operands every run. "
            "Cold: the last-level cache (%.0f MiB) is flushed before every sample (untimed) and a sample runs "
            "each operand set at most once, so no run finds its operands cached (a backend that cannot flush "
            "rotates operand sets spanning twice the cache instead, and the op says so).\n",
            100 * run->opts->timing.target_rsd, run->opts->timing.min_samples, run->opts->timing.max_time_s,
            (double)p->llc_bytes / (1024.0 * 1024));
    if (run->opts->graph)
        fprintf(f,
                "- Ops whose launch cost is a noticeable part of their time (the device's measured launch cost "
                "at least %.0f %% of the hot median, or the host's time to queue a run at least %.0f %% of it) "
                "are also timed inside a device graph (one capture of back-to-back runs, replayed and timed "
                "alone), where the backend has graphs, to separate the launch cost from the device time.\n",
                100 * JV_GRAPH_LAUNCH_FRAC, 100 * JV_GRAPH_HOST_FRAC);
    fprintf(f, "- Clocks are read under load, inside every sample while the device works; an op is marked "
               "throttled when its lowest SM clock fell more than 10 %% under the allowed maximum or a power, "
               "thermal or hardware-slowdown reason was in force.\n");
    fprintf(f, "- Cold samples are held where the backend can (CUDA): a spinning kernel keeps the stream busy, after "
               "the flush, until the host has queued the sample's runs, so that a call costing the host more than "
               "the device is timed on the device alone.\n");
    fprintf(f, "- Figure judged: the cold median when measured; when the cold samples were not held and the op was "
               "graph-timed, less the launch gap (hot median - graph time; *cold, launch gap removed*, never below "
               "the graph time); the graph time when only hot was timed; else the hot median.\n");
    fprintf(f,
            "- Verdicts (the rules of jarvis-analyze, first that applies): *launch-bound* when the roofline time "
            "is under one launch (%.3f us, measured on this device at open) and the op ran in under %d launches; "
            "*near peak* at %.0f %% or more of the roofline of the measured ceilings; *layout overhead* when the "
            "trace shows layout-conversion kernels with the op; *kernel issue* under %.0f %%; else *below peak*.\n",
            p->launch_us, JV_JUDGE_LAUNCH_RUNS, 100 * JV_JUDGE_NEAR_EFF, 100 * JV_JUDGE_KERNEL_EFF);
    return jv_out_commit(&o, err);
}
