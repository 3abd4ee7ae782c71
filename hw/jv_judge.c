/* jv_judge: the verdict rules (see jv_judge.h). */
#include "jv_judge.h"

#include <math.h>

jv_judge_in jv_judge_in_none(void) {
    jv_judge_in in = {NAN, NAN, NAN, NAN, NAN, 0, NAN};
    return in;
}

double jv_judge_launch_us(double launch_us) {
    return isnan(launch_us) ? JV_JUDGE_LAUNCH_NOMINAL_US : launch_us;
}

int jv_judge_launch_bound(double bound_us, double time_us, double launch_us) {
    double l = jv_judge_launch_us(launch_us);
    return bound_us > 0 && time_us > 0 && bound_us < l && time_us < JV_JUDGE_LAUNCH_RUNS * l;
}

double jv_judge_eff(const jv_judge_in *in) {
    if (!isnan(in->eff)) return in->eff;
    return in->bound_us > 0 && in->time_us > 0 ? in->bound_us / in->time_us : NAN;
}

jv_judgement jv_judge(const jv_judge_in *in) {
    if (!(in->time_us > 0)) return JV_JUDGE_NONE;
    if (jv_judge_launch_bound(in->bound_us, in->time_us, in->launch_us)) return JV_JUDGE_LAUNCH;
    double eff = jv_judge_eff(in);
    if (isnan(eff)) return JV_JUDGE_NONE;
    if (eff >= JV_JUDGE_NEAR_EFF) return JV_JUDGE_NEAR;
    if (isnan(in->layout_share) ? in->layout_seen : in->layout_share >= JV_JUDGE_LAYOUT_SHARE) return JV_JUDGE_LAYOUT;
    if (in->vs_ceiling >= JV_JUDGE_CEILING) return JV_JUDGE_HW_LIMITED;
    if (eff < JV_JUDGE_KERNEL_EFF) return JV_JUDGE_KERNEL;
    return JV_JUDGE_BELOW;
}

const char *jv_judge_str(jv_judgement j) {
    switch (j) {
    case JV_JUDGE_LAUNCH: return "launch-bound";
    case JV_JUDGE_NEAR: return "near peak";
    case JV_JUDGE_LAYOUT: return "layout overhead";
    case JV_JUDGE_HW_LIMITED: return "hardware-limited";
    case JV_JUDGE_KERNEL: return "kernel issue";
    case JV_JUDGE_BELOW: return "below peak";
    default: return "-";
    }
}

const char *jv_efficiency_band(double pct) {
    if (!isfinite(pct)) return "";
    if (pct > 80) return "excellent";
    if (pct >= 60) return "good";
    if (pct >= 40) return "acceptable";
    return "investigate";
}
