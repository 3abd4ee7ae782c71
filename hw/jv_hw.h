/* jv_hw: GPU hardware numbers for rooflines: the built-in table
 * (data/hardware.json, compiled in), a user file in the same format (or
 * TraceLens' arch JSON), and automatic selection from a trace's
 * deviceProperties. */
#ifndef JV_HW_H
#define JV_HW_H

#include <stddef.h>

#include "jv_status.h"

#define JV_HW_MAX_SPECS 24

typedef struct {
    char key[24]; /* compute spec: "matrix_bf16", "vector_fp32", ... */
    double tflops;
} jv_hw_spec;

typedef struct {
    char name[64];
    char vendor[16];
    double mem_bw_gbps; /* GB/s, 1e9 bytes/s */
    double memory_gb;
    double llc_mb; /* last-level cache (Infinity Cache on AMD, L2 on NVIDIA) */
    int units;     /* SMs or CUs; 0 when unknown */
    int nroof;
    jv_hw_spec roof[JV_HW_MAX_SPECS]; /* peaks the roofline uses: max achievable when given, else datasheet */
    int ndatasheet;
    jv_hw_spec datasheet[JV_HW_MAX_SPECS];
    int roof_is_max_achievable; /* 1 when roof holds max-achievable numbers */
    int max_achievable_given;   /* 1 when the max-achievable numbers came from a user's file (--gpu-arch FILE), 0 for a
                                 * built-in entry (whose max-achievable numbers serve only TraceLens' sheet columns) */
    char source[320];
} jv_hw;

/* What a device says about itself, for choosing its table entry: filled by the caller
 * (analysis from a trace's deviceProperties, replay from the backend's device). */
typedef struct {
    char name[128];
    double total_mem_bytes;
    int cc_major, cc_minor; /* compute capability (0.0 when unknown) */
    int num_sms;            /* SMs or CUs */
} jv_hw_device;

/* Number of built-in entries; *names gets their names (static storage). */
size_t jv_hw_builtin_names(const char **names, size_t max);

/* Resolves --gpu-arch ARG: a built-in name (case-insensitive; "H100", "h100 sxm",
 * "mi300x" ...) or a path to a JSON file holding one entry. JV_ERR_NOTFOUND
 * names the valid choices; JV_ERR_FORMAT/IO for a bad file. */
jv_status jv_hw_resolve(const char *arg, jv_hw *out, jv_err *err);

/* Chooses a built-in entry for the devices (devs[0] decides): by name first, then by
 * compute capability, SM/CU count and memory size. Returns 1 and fills out
 * and why (how it was chosen) when one fits; 0 with the reason in why. */
int jv_hw_auto(const jv_hw_device *devs, size_t n, jv_hw *out, char *why, size_t whycap);

/* The roofline peak (TFLOPS) for a compute spec, or NAN when the table has none. */
double jv_hw_peak(const jv_hw *hw, const char *spec);

/* The datasheet peak (TFLOPS) for a compute spec, or NAN. */
double jv_hw_datasheet_peak(const jv_hw *hw, const char *spec);

/* THE peak policy of jarvis' own judgments (roofline %, verdicts, findings, comparative expected ratios, HTML):
 * datasheet peaks by default; measured (max-achievable) peaks only where a user's file gives them, and in a
 * comparison only where both sides have them (else datasheet on both sides). TraceLens' own sheet columns (Roofline
 * Bound, Roofline Time, Pct Roofline) keep TraceLens' peaks: the entry's max-achievable numbers where it has them. */
typedef enum { JV_PEAKS_DATASHEET = 0, JV_PEAKS_MEASURED } jv_peak_policy;

/* The policy for a target GPU and, in a comparison, a reference GPU (NULL: a single trace): measured when every
 * side given has max-achievable numbers from a user's file (max_achievable_given), datasheet otherwise. */
jv_peak_policy jv_hw_policy(const jv_hw *target, const jv_hw *reference);

/* hw with its roofline peaks (roof, jv_hw_peak) set to the policy's: the datasheet table for JV_PEAKS_DATASHEET
 * (roof_is_max_achievable becomes 0; an entry without datasheet numbers then has no compute peak), unchanged for
 * JV_PEAKS_MEASURED. */
void jv_hw_apply_policy(jv_hw *hw, jv_peak_policy p);

/* 1 when two entries' roofline peaks (roof) differ: a spec, a value or the kind. */
int jv_hw_roofs_differ(const jv_hw *a, const jv_hw *b);

/* What bounds an op on the roofline: the larger of its compute and memory times. */
typedef enum { JV_BOUND_NONE = 0, JV_BOUND_COMPUTE, JV_BOUND_MEMORY } jv_bound;

/* A bound as the sheets write it (TraceLens' spelling): "COMPUTE_BOUND", "MEMORY_BOUND", "" for none. */
const char *jv_bound_name(jv_bound b);

#endif
