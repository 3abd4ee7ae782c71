/* Unit test of analysis/model/jv_timelines: the GPU timelines computed once per trace. A generated trace with GPU
 * events on devices 0, 1 and 3 (overlapping kernels, a communication kernel, a memcpy, a kernel whose launch is not
 * in the trace; in the gaps a DataLoader annotation, a runtime call cudaDeviceSynchronize and an annotation of that
 * name) and the same trace on device 0 alone. Checked: the figures
 * worked out by hand (all devices merged, with the idle causes, and per device), and every timeline of the set,
 * field by field, against a recomputation by jv_timeline_compute with each option (unlinked kernels in or out,
 * a micro-idle threshold or none); the one-device set (whose dev[0] is copied from the merged one) included.
 * Usage: test_timelines */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_check.h"
#include "jv_timelines.h"

#define US 1000 /* ns per µs */

typedef struct {
    int dev, comm, memcpy, linked;
    int ts, dur; /* µs */
} gpu_ev;

/* the GPU events; each linked one is launched (a runtime call inside the op [0, 650]) */
static const gpu_ev EV[] = {
    {0, 0, 0, 1, 100, 50},  /* [100, 150] */
    {0, 0, 0, 1, 120, 60},  /* [120, 180]: overlaps the one before */
    {0, 1, 0, 1, 170, 40},  /* NCCL [170, 210]: 10 under computation */
    {0, 0, 1, 1, 300, 20},  /* memcpy [300, 320] */
    {0, 0, 0, 0, 400, 10},  /* [400, 410], launch not in the trace */
    {1, 0, 0, 1, 110, 30},  /* [110, 140] */
    {1, 1, 0, 1, 500, 100}, /* NCCL [500, 600] */
    {3, 0, 0, 1, 1000, 5},  /* [1000, 1005] */
};
enum { NEV = sizeof EV / sizeof EV[0] };

/* a memcpy whose exposed time needs the union of computation and communication: computation [100, 110] [130, 140]
 * [200, 205], communication [108, 135] [150, 160], memcpy [105, 170] [180, 190] [203, 210]: busy [100, 170]
 * [180, 190] [200, 210] */
static const gpu_ev EV_COPY[] = {
    {0, 0, 1, 1, 105, 65}, {0, 1, 0, 1, 150, 10}, {0, 0, 0, 1, 130, 10}, {0, 1, 0, 1, 108, 27},
    {0, 0, 0, 1, 100, 10}, {0, 0, 1, 1, 180, 10}, {0, 0, 0, 1, 200, 5},  {0, 0, 1, 1, 203, 7},
};

/* the trace of the GPU events ev[0..nev); one_device: device 0's events alone */
static int write_trace(const char *path, const gpu_ev *ev, int nev, int one_device) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::foo\", \"pid\": 100, "
               "\"tid\": 100, \"ts\": 0, \"dur\": 650, \"args\": {}},\n"
               "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
               "\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 100, \"tid\": 100, "
               "\"ts\": 700, \"dur\": 100, \"args\": {}},\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", \"pid\": 100, "
               "\"tid\": 100, \"ts\": 850, \"dur\": 50, \"args\": {}},\n"
               "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"cudaDeviceSynchronize\", \"pid\": 100, "
               "\"tid\": 100, \"ts\": 950, \"dur\": 40, \"args\": {}}");
    for (int i = 0; i < nev; i++) {
        const gpu_ev *e = &ev[i];
        if (one_device && e->dev != 0) continue;
        int corr = e->linked ? i + 1 : 900 + i;
        if (e->linked)
            fprintf(f,
                    ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, "
                    "\"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}}",
                    e->memcpy ? "cudaMemcpyAsync" : "cudaLaunchKernel", 10 + 10 * i, corr);
        const char *name = e->memcpy ? "Memcpy HtoD (Pageable -> Device)"
                           : e->comm ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                                     : "k_compute";
        fprintf(f,
                ",\n{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": 7, \"ts\": %d, "
                "\"dur\": %d, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %d}}",
                e->memcpy ? "gpu_memcpy" : "kernel", name, e->dev, e->ts, e->dur, e->dev, corr);
    }
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

/* a and b equal field by field (not memcmp: a struct copy need not copy the padding) */
static int same(const jv_gpu_timeline *a, const jv_gpu_timeline *b) {
    int eq = a->device == b->device && a->events == b->events && a->computation == b->computation &&
             a->exposed_comm == b->exposed_comm && a->exposed_memcpy == b->exposed_memcpy && a->busy == b->busy &&
             a->idle == b->idle && a->total == b->total && a->total_comm == b->total_comm &&
             a->total_memcpy == b->total_memcpy && a->micro_idle == b->micro_idle && a->macro_idle == b->macro_idle &&
             a->first_start == b->first_start && a->idle_gaps == b->idle_gaps && a->idle_gap_max == b->idle_gap_max;
    for (int c = 0; c < JV_IDLE_COUNT; c++)
        eq = eq && a->idle_cause[c] == b->idle_cause[c];
    return eq;
}

/* every timeline of the set of tr, t with opts against jv_timeline_compute; returns the set (the caller frees) */
static jv_timelines check_set(const jv_trace *tr, const jv_tree *t, const jv_timeline_opts *opts) {
    jv_timelines s;
    CHECK(jv_timelines_compute(tr, t, opts, &s) == JV_OK);
    jv_timeline_opts o = *opts;
    o.idle_causes = 1;
    jv_gpu_timeline g;
    CHECK(jv_timeline_compute(tr, t, &o, -1, &g) == JV_OK);
    CHECK_MSG(same(&s.all, &g), "all devices (unlinked %d, micro %lld)", opts->include_unlinked,
              (long long)opts->micro_idle_ns);
    o.idle_causes = 0;
    int *devs;
    size_t nd;
    CHECK(jv_timeline_devices(tr, &devs, &nd) == JV_OK);
    CHECK(s.ndev == nd);
    size_t events = 0;
    for (size_t i = 0; i < s.ndev && i < nd; i++) {
        CHECK(s.devs[i] == devs[i] && s.dev[i].device == devs[i]);
        CHECK(jv_timeline_compute(tr, t, &o, devs[i], &g) == JV_OK);
        CHECK_MSG(same(&s.dev[i], &g), "device %d (unlinked %d, micro %lld)", devs[i], opts->include_unlinked,
                  (long long)opts->micro_idle_ns);
        events += s.dev[i].events;
    }
    CHECK(events == s.all.events);
    free(devs);
    return s;
}

/* path loaded on one thread into *tr and its call tree built into *t; 0 (a check failed) when it does not load */
static int load_tree(const char *path, jv_trace *tr, jv_tree *t) {
    jv_err err;
    jv_err_clear(&err);
    jv_load_opts lo = {.threads = 1};
    int loaded = jv_trace_load(path, &lo, tr, &err) == JV_OK;
    CHECK_MSG(loaded, "%s", err.msg);
    if (!loaded) return 0;
    CHECK(jv_tree_build(tr, 0, 1, t, &err) == JV_OK);
    return 1;
}

static void test_trace(const char *path, int one_device) {
    jv_trace tr;
    jv_tree t;
    if (!load_tree(path, &tr, &t)) return;
    for (int unlinked = 0; unlinked < 2; unlinked++)
        for (int micro = 0; micro < 2; micro++) {
            jv_timeline_opts opts = {unlinked, micro ? 100 * US : 0, 0};
            jv_timelines s = check_set(&tr, &t, &opts);
            if (one_device) {
                CHECK(s.ndev == 1 && s.devs && s.devs[0] == 0);
                /* [100, 180] [170, 210] (10 under computation) [300, 320], unlinked [400, 410] */
                if (s.ndev == 1) {
                    CHECK(s.dev[0].computation == (unlinked ? 90 : 80) * US && s.dev[0].exposed_comm == 30 * US);
                    CHECK(s.dev[0].busy == (unlinked ? 140 : 130) * US && s.dev[0].idle_cause[JV_IDLE_HOST] == 0);
                    CHECK(s.all.idle_cause[JV_IDLE_HOST] > 0 && s.dev[0].events == s.all.events);
                }
            } else if (!unlinked && s.ndev == 3) {
                const jv_gpu_timeline *a = &s.all, *d0 = &s.dev[0], *d1 = &s.dev[1], *d3 = &s.dev[2];
                CHECK(s.devs[0] == 0 && s.devs[1] == 1 && s.devs[2] == 3);
                /* merged: computation [100, 180] [1000, 1005]; communication [170, 210] [500, 600]; memcpy
                 * [300, 320]; busy [100, 210] [300, 320] [500, 600] [1000, 1005]; gaps 90, 180, 400 */
                CHECK(a->events == 7 && a->computation == 85 * US && a->total_comm == 140 * US);
                CHECK(a->exposed_comm == 130 * US && a->total_memcpy == 20 * US && a->exposed_memcpy == 20 * US);
                CHECK(a->busy == 235 * US && a->total == 905 * US && a->idle == 670 * US);
                CHECK(a->idle_gaps == 3 && a->idle_gap_max == 400 * US && a->first_start == 100 * US);
                CHECK(a->micro_idle == (micro ? 90 * US : 0) && a->macro_idle == (micro ? 580 * US : 0));
                /* the gaps under the op [0, 650]: 90 + 180 + 50, and under the annotation named like the runtime
                 * call [950, 990] (host work, not a synchronisation: the class depends on the kind too); the
                 * DataLoader's [700, 800]; the runtime call cudaDeviceSynchronize [850, 900]; the rest none */
                CHECK(a->idle_cause[JV_IDLE_DATA] == 100 * US && a->idle_cause[JV_IDLE_HOST] == 360 * US);
                CHECK(a->idle_cause[JV_IDLE_NONE] == 160 * US && a->idle_cause[JV_IDLE_SYNC] == 50 * US);
                CHECK(d0->events == 4 && d0->busy == 130 * US && d0->total == 220 * US && d0->idle == 90 * US);
                CHECK(d0->idle_cause[JV_IDLE_DATA] == 0 && d0->idle_cause[JV_IDLE_HOST] == 0);
                CHECK(d1->events == 2 && d1->computation == 30 * US && d1->exposed_comm == 100 * US);
                CHECK(d1->busy == 130 * US && d1->total == 490 * US);
                CHECK(d3->device == 3 && d3->events == 1 && d3->busy == 5 * US && d3->idle == 0);
            } else if (unlinked && s.ndev == 3) {
                CHECK(s.all.events == 8 && s.dev[0].events == 5 && s.dev[0].computation == 90 * US);
            }
            jv_timelines_free(&s);
            CHECK(s.dev == NULL && s.ndev == 0);
        }
    jv_tree_free(&t);
    jv_trace_free(&tr);
}

/* EV_COPY: the memcpy's time under computation or communication ([100, 140] [150, 160] [200, 205]): [105, 140]
 * [150, 160] of [105, 170], [203, 205] of [203, 210]: 47 of 82 µs, 35 exposed; communication exposed: [110, 130] [140,
 * 150] of 37 */
static void test_copy(const char *path) {
    jv_trace tr;
    jv_tree t;
    if (!load_tree(path, &tr, &t)) return;
    jv_timeline_opts opts = {0, 0, 0};
    jv_timelines s = check_set(&tr, &t, &opts);
    const jv_gpu_timeline *a = &s.all;
    CHECK(a->events == 8 && a->computation == 25 * US && a->total_comm == 37 * US && a->exposed_comm == 30 * US);
    CHECK_MSG(a->total_memcpy == 82 * US && a->exposed_memcpy == 35 * US, "memcpy %lld exposed %lld",
              (long long)a->total_memcpy, (long long)a->exposed_memcpy);
    CHECK(a->busy == 90 * US && a->total == 110 * US && a->idle == 20 * US && a->idle_gaps == 2);
    jv_timelines_free(&s);
    jv_tree_free(&t);
    jv_trace_free(&tr);
}

int main(void) {
    char dir[] = "/tmp/jv_timelines.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[2][256];
    for (int one = 0; one < 2; one++) {
        snprintf(path[one], sizeof path[one], "%s/%s.json", dir, one ? "one_device" : "three_devices");
        CHECK(write_trace(path[one], EV, NEV, one));
        test_trace(path[one], one);
        unlink(path[one]);
    }
    snprintf(path[0], sizeof path[0], "%s/copy.json", dir);
    CHECK(write_trace(path[0], EV_COPY, sizeof EV_COPY / sizeof EV_COPY[0], 0));
    test_copy(path[0]);
    unlink(path[0]);
    rmdir(dir);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
