/* jv_judge: THE verdict rules of the project, one engine for analysis (per-op verdicts of a trace, the
 * efficiency bands) and replay (verdicts of measured ops). Pure functions over typed inputs: the caller
 * says which time is judged and against which roofline (analysis: the median kernel time and the
 * datasheet roofline; replay: its chosen figure and the ceilings measured on the device); the rules are
 * here and nowhere else. Times are in microseconds, the unit of traces, so that a trace's round numbers
 * (a 10 us kernel) meet the thresholds exactly, not through a rounded conversion to seconds.
 * (Named jv_judge, not jv_verdict: replay/jv_verdict.h, the replay's measurement side, shares the
 * include path.)
 *
 * The rules, first match wins:
 *  1. none: no time judged.
 *  2. launch-bound: the roofline time is under one launch and the op ran in under JV_JUDGE_LAUNCH_RUNS (4)
 *     launches: bound_us < launch_us and time_us < 4 * launch_us. The launch cost is the device's measured
 *     one (replay measures it at open; a measured 0, the CPU backend, makes nothing launch-bound); without
 *     a measurement (a trace) JV_JUDGE_LAUNCH_NOMINAL_US, 2.5 us, a typical kernel launch on current NVIDIA
 *     and AMD GPUs: a kernel under 10 us whose roofline time is under 2.5 us. Chosen over analysis' former
 *     fixed thresholds (median < 10 us and roofline < 5 us) because it says what launch-bound means and
 *     scales with the device: launching the op costs more than its work at the hardware limit. An op whose
 *     ideal time exceeds a launch can use the device, so it is judged on its efficiency.
 *     Then none when the efficiency is unknown (no roofline, no measured ceiling).
 *  3. near peak: efficiency >= JV_JUDGE_NEAR_EFF (70 % of the roofline).
 *  4. layout overhead: layout-conversion kernels take >= JV_JUDGE_LAYOUT_SHARE (10 %) of the op's time,
 *     or ran with it when their share is unknown (replay: the trace showed them, the replay ran without).
 *  5. hardware-limited: at least JV_JUDGE_CEILING (80 %) of a measured ceiling (analysis: a memory-bound
 *     op against the trace's elementwise baseline).
 *  6. kernel issue: efficiency < JV_JUDGE_KERNEL_EFF (20 %).
 *  7. below peak: the rest. */
#ifndef JV_JUDGE_H
#define JV_JUDGE_H

typedef enum {
    JV_JUDGE_NONE = 0,   /* not judged */
    JV_JUDGE_LAUNCH,     /* launch-bound */
    JV_JUDGE_NEAR,       /* near peak */
    JV_JUDGE_LAYOUT,     /* layout overhead */
    JV_JUDGE_HW_LIMITED, /* hardware-limited */
    JV_JUDGE_KERNEL,     /* kernel issue */
    JV_JUDGE_BELOW       /* below peak */
} jv_judgement;

#define JV_JUDGE_NEAR_EFF          0.7 /* near peak from this fraction of the roofline */
#define JV_JUDGE_KERNEL_EFF        0.2 /* kernel issue under this fraction of the roofline */
#define JV_JUDGE_CEILING           0.8 /* hardware-limited from this fraction of a measured ceiling */
#define JV_JUDGE_LAYOUT_SHARE      0.1 /* layout overhead from this share of the op's time */
#define JV_JUDGE_LAUNCH_RUNS       4   /* launch-bound only when it ran in under this many launches */
#define JV_JUDGE_LAUNCH_NOMINAL_US 2.5 /* launch cost when none was measured (µs) */

typedef struct {
    double time_us;      /* the per-call time judged (µs); <= 0 or NaN: nothing to judge */
    double bound_us;     /* roofline time per call (µs); <= 0 or NaN: unknown */
    double eff;          /* fraction of the roofline reached; NaN: bound_us / time_us */
    double launch_us;    /* launch cost of the device (µs); NaN (unmeasured): JV_JUDGE_LAUNCH_NOMINAL_US */
    double layout_share; /* share of time_us in layout-conversion kernels; NaN: unknown */
    int layout_seen;     /* layout-conversion kernels ran with the op (used when layout_share is NaN) */
    double vs_ceiling;   /* achieved / a measured ceiling; NaN: none */
} jv_judge_in;

/* An input with nothing known (all NaN, no layout kernels); set the fields you know. */
jv_judge_in jv_judge_in_none(void);

/* The launch cost the rules use for launch_us: the nominal one when launch_us is NaN (unmeasured). A measured
 * cost of 0 (a CPU backend) makes nothing launch-bound. */
double jv_judge_launch_us(double launch_us);

/* Rule 2 alone: 1 when an op of roofline time bound_us that ran in time_us is launch-bound. */
int jv_judge_launch_bound(double bound_us, double time_us, double launch_us);

/* The efficiency the rules use: in->eff, or bound_us / time_us; NaN when unknown. */
double jv_judge_eff(const jv_judge_in *in);

/* The verdict of an op (the rules above). */
jv_judgement jv_judge(const jv_judge_in *in);

/* Name of a verdict: "launch-bound", "near peak", "layout overhead", "hardware-limited", "kernel issue",
 * "below peak"; "-" for none. */
const char *jv_judge_str(jv_judgement j);

/* Efficiency band of a percentage of the roofline: "excellent" (> 80), "good" (>= 60), "acceptable"
 * (>= 40), "investigate"; "" when not finite. */
const char *jv_efficiency_band(double pct);

#endif
