/* Unit test of hw/jv_judge: the one set of verdict rules analysis and replay share (their order, every
 * threshold at its edge, the launch-bound rule with a measured, a zero and the nominal launch cost) and the
 * efficiency bands; and hw/jv_hw's peak policy (datasheet unless a user's file gives max-achievable peaks, on
 * both sides of a comparison). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_check.h"
#include "jv_hw.h"
#include "jv_judge.h"

/* an op that ran in time_us with roofline time bound_us, nothing else known */
static jv_judge_in op(double time_us, double bound_us) {
    jv_judge_in in = jv_judge_in_none();
    in.time_us = time_us;
    in.bound_us = bound_us;
    return in;
}

static void test_order(void) {
    jv_judge_in in = op(100, 80); /* 80 % */
    CHECK(jv_judge(&in) == JV_JUDGE_NEAR);
    in = op(100, 70); /* 70 %: near peak from the threshold on */
    CHECK(jv_judge(&in) == JV_JUDGE_NEAR);
    in = op(100, 69.9);
    CHECK(jv_judge(&in) == JV_JUDGE_BELOW);
    in = op(100, 20); /* 20 %: not yet a kernel issue */
    CHECK(jv_judge(&in) == JV_JUDGE_BELOW);
    in = op(100, 19.9);
    CHECK(jv_judge(&in) == JV_JUDGE_KERNEL);

    /* an explicit efficiency wins over bound / time (analysis: Pct Roofline_mean) */
    in = op(100, 10);
    in.eff = 0.75;
    CHECK(jv_judge(&in) == JV_JUDGE_NEAR && jv_judge_eff(&in) == 0.75);

    /* layout: a share of 10 % or more, or kernels seen when the share is unknown; after near peak */
    in = op(100, 50);
    in.layout_share = 0.1;
    CHECK(jv_judge(&in) == JV_JUDGE_LAYOUT);
    in.layout_share = 0.099;
    in.layout_seen = 1; /* the share decides when it is known */
    CHECK(jv_judge(&in) == JV_JUDGE_BELOW);
    in.layout_share = NAN;
    CHECK(jv_judge(&in) == JV_JUDGE_LAYOUT);
    in.bound_us = 90;
    CHECK(jv_judge(&in) == JV_JUDGE_NEAR);

    /* hardware-limited: >= 80 % of a measured ceiling, after layout, before kernel issue */
    in = op(100, 10);
    in.vs_ceiling = 0.8;
    CHECK(jv_judge(&in) == JV_JUDGE_HW_LIMITED);
    in.vs_ceiling = 0.79;
    CHECK(jv_judge(&in) == JV_JUDGE_KERNEL);
    in.vs_ceiling = 0.9;
    in.layout_share = 0.5;
    CHECK(jv_judge(&in) == JV_JUDGE_LAYOUT);

    /* nothing to judge */
    in = op(0, 1);
    CHECK(jv_judge(&in) == JV_JUDGE_NONE);
    in = op(NAN, 1);
    CHECK(jv_judge(&in) == JV_JUDGE_NONE);
    in = op(100, 0); /* no roofline, no efficiency */
    CHECK(jv_judge(&in) == JV_JUDGE_NONE && isnan(jv_judge_eff(&in)));
}

static void test_launch(void) {
    /* measured launch cost 2 us: roofline under one launch and ran in under 4 launches */
    jv_judge_in in = op(7.9, 1.9);
    in.launch_us = 2;
    CHECK(jv_judge(&in) == JV_JUDGE_LAUNCH);
    in.time_us = 8; /* 4 launches: the work may be small but the time is not the launch's */
    CHECK(jv_judge(&in) == JV_JUDGE_BELOW);
    in.time_us = 2.5;
    in.bound_us = 2; /* roofline of one launch: not under it */
    CHECK(jv_judge(&in) == JV_JUDGE_NEAR);
    /* launch-bound wins over every other rule */
    in = op(2, 1.9);
    in.launch_us = 2;
    in.layout_share = 1;
    CHECK(jv_judge(&in) == JV_JUDGE_LAUNCH);
    /* a measured cost of 0 (CPU backend): nothing is launch-bound */
    in = op(1, 0.01);
    in.launch_us = 0;
    CHECK(jv_judge(&in) == JV_JUDGE_KERNEL);
    /* unmeasured (a trace): the nominal 2.5 us, i.e. kernel < 10 us and roofline < 2.5 us */
    CHECK(jv_judge_launch_us(NAN) == JV_JUDGE_LAUNCH_NOMINAL_US && jv_judge_launch_us(3) == 3);
    CHECK(jv_judge_launch_bound(2.4, 9.9, NAN));
    CHECK(!jv_judge_launch_bound(2.6, 9.9, NAN)); /* analysis called this launch-bound before (< 5 us) */
    CHECK(!jv_judge_launch_bound(1, 10, NAN));    /* a trace's round 10 us is not under 4 x 2.5 us */
    CHECK(!jv_judge_launch_bound(1, 10.0, NAN) && jv_judge_launch_bound(1, 9.999, NAN));
    CHECK(!jv_judge_launch_bound(0, 1, NAN) && !jv_judge_launch_bound(NAN, 1, NAN));
}

static void test_names(void) {
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_NEAR), "near peak"));
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_LAUNCH), "launch-bound"));
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_LAYOUT), "layout overhead"));
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_HW_LIMITED), "hardware-limited"));
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_KERNEL), "kernel issue"));
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_BELOW), "below peak"));
    CHECK(!strcmp(jv_judge_str(JV_JUDGE_NONE), "-"));
    CHECK(!strcmp(jv_efficiency_band(80.5), "excellent") && !strcmp(jv_efficiency_band(80), "good"));
    CHECK(!strcmp(jv_efficiency_band(60), "good") && !strcmp(jv_efficiency_band(59.9), "acceptable"));
    CHECK(!strcmp(jv_efficiency_band(40), "acceptable") && !strcmp(jv_efficiency_band(39.9), "investigate"));
    CHECK(!strcmp(jv_efficiency_band(NAN), "") && !strcmp(jv_efficiency_band(INFINITY), ""));
}

/* the peak policy: a built-in entry's max-achievable peaks (MI300X 708 bf16) never enter a judgment; a user's
 * file with max_achievable_tflops gives measured peaks, on both sides only when both have them */
static void test_peak_policy(void) {
    jv_hw mi, h100, file;
    memset(&mi, 0, sizeof mi);
    memset(&h100, 0, sizeof h100);
    jv_err err;
    CHECK(jv_hw_resolve("MI300X", &mi, &err) == JV_OK);
    CHECK(jv_hw_resolve("H100", &h100, &err) == JV_OK);
    CHECK(mi.roof_is_max_achievable && !mi.max_achievable_given && jv_hw_peak(&mi, "matrix_bf16") == 708);
    CHECK(jv_hw_policy(&mi, NULL) == JV_PEAKS_DATASHEET && jv_hw_policy(&mi, &h100) == JV_PEAKS_DATASHEET);
    jv_hw pol = mi;
    jv_hw_apply_policy(&pol, jv_hw_policy(&mi, &h100));
    CHECK(jv_hw_peak(&pol, "matrix_bf16") == 1307.4 && !pol.roof_is_max_achievable && jv_hw_roofs_differ(&pol, &mi));
    /* the comparison's expected compute ratio from one source: 989.4 / 1307.4, never 989.4 / 708 */
    jv_hw ph = h100;
    jv_hw_apply_policy(&ph, jv_hw_policy(&mi, &h100));
    CHECK(fabs(jv_hw_peak(&ph, "matrix_bf16") / jv_hw_peak(&pol, "matrix_bf16") - 989.4 / 1307.4) < 1e-12);
    CHECK(!jv_hw_roofs_differ(&ph, &h100));
    char path[] = "/tmp/jv_test_policy_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"name\": \"G\", \"mem_bw_gbps\": 4000, \"peak_tflops\": {\"matrix_bf16\": 1000}, "
          "\"max_achievable_tflops\": {\"matrix_bf16\": 600}}",
          f);
    fclose(f);
    CHECK(jv_hw_resolve(path, &file, &err) == JV_OK);
    unlink(path);
    CHECK(file.max_achievable_given && jv_hw_policy(&file, NULL) == JV_PEAKS_MEASURED);
    CHECK(jv_hw_policy(&file, &file) == JV_PEAKS_MEASURED && jv_hw_policy(&file, &h100) == JV_PEAKS_DATASHEET &&
          jv_hw_policy(&h100, &file) == JV_PEAKS_DATASHEET);
    pol = file;
    jv_hw_apply_policy(&pol, JV_PEAKS_MEASURED);
    CHECK(jv_hw_peak(&pol, "matrix_bf16") == 600 && !jv_hw_roofs_differ(&pol, &file));
    jv_hw_apply_policy(&pol, JV_PEAKS_DATASHEET);
    CHECK(jv_hw_peak(&pol, "matrix_bf16") == 1000);
}

int main(void) {
    test_peak_policy();
    test_order();
    test_launch();
    test_names();
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
