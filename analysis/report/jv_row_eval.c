/* jv_row_eval: the markdown helpers shared by the category findings and the
 * standalone reports. */
#include "jv_row_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *jv_md_kernel_short(const char *name, char *buf, size_t cap) {
    if (!strncmp(name, "void ", 5)) name += 5;
    size_t n = strcspn(name, "<(");
    if (n >= cap - 8) n = cap - 8;
    memcpy(buf, name, n);
    buf[n] = 0;
    if (name[n] == '<') strcat(buf, "<…>");
    return buf;
}

const char *jv_md_time(char *buf, size_t cap, double us) {
    if (isnan(us))
        snprintf(buf, cap, "n/a");
    else if (fabs(us) >= 1000)
        snprintf(buf, cap, "%.2f ms", us / 1e3);
    else
        snprintf(buf, cap, "%.1f µs", us);
    return buf;
}

void jv_print_baseline_transfers(FILE *f, const jv_digest *d) {
    const jv_dbaseline *b = &d->baseline;
    char tb[32];
    if (b->transfer_rows)
        fprintf(f, "; %u add/mul/copy_ row%s run as memcpy/memset (%s) left out", b->transfer_rows,
                b->transfer_rows == 1 ? "" : "s", jv_md_time(tb, sizeof tb, b->transfer_us));
}

void jv_print_no_baseline(FILE *f, const jv_digest *d) {
    const jv_dbaseline *b = &d->baseline;
    if (b->state == JV_BASE_TOO_FEW)
        fprintf(f,
                "no baseline: too few large elementwise ops (%llu call%s, %.1f MiB of add/mul/copy_ moving at least "
                "%.0f MiB per call; it needs at least %d calls and %.0f MiB)",
                (unsigned long long)b->calls, b->calls == 1 ? "" : "s", b->bytes / 1048576.0,
                JV_BASE_CALL_BYTES / 1048576.0, JV_BASE_MIN_CALLS, JV_BASE_MIN_BYTES / 1048576.0);
    else
        fputs("no baseline: no aten::add/add_/mul/mul_/copy_ op run as a kernel with a bytes model in this trace", f);
    jv_print_baseline_transfers(f, d);
}

/* "MI300X: matrix_bf16 1307.4 TFLOPS, HBM 5300 GB/s" (the compute spec with the most kernel time and a peak) */
static size_t side_peaks(char *buf, size_t cap, const jv_digest *d) {
    int n = snprintf(buf, cap, "%s: ", d->hw.name);
    for (int k = 0; k < d->nspecs && n >= 0 && (size_t)n < cap; k++) {
        double p = jv_hw_peak(&d->hw, d->specs[k]);
        if (isnan(p)) continue;
        n += snprintf(buf + n, cap - (size_t)n, "%s %g TFLOPS, ", d->specs[k], p);
        break;
    }
    if (n >= 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, "HBM %g GB/s", d->hw.mem_bw_gbps);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* "; perf_report's TraceLens columns ... follow TraceLens: max-achievable peaks (matrix_bf16 708 TFLOPS)", or
 * nothing when the sheets' peaks are the policy's */
static size_t sheet_note(char *buf, size_t cap, const jv_digest *d) {
    if (!d->has_hw || !d->sheet_differs) return 0;
    int n = snprintf(buf, cap,
                     ". TraceLens' own columns of perf_report (Roofline Bound, Roofline Time (µs), Pct Roofline_*) "
                     "follow TraceLens: %s's max-achievable peaks",
                     d->sheet_hw.name);
    for (int k = 0; k < d->nspecs && n >= 0 && (size_t)n < cap; k++) {
        double p = jv_hw_peak(&d->sheet_hw, d->specs[k]);
        if (isnan(p)) continue;
        n += snprintf(buf + n, cap - (size_t)n, " (%s %g TFLOPS)", d->specs[k], p);
        break;
    }
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

const char *jv_peak_policy_text(char *buf, size_t cap, const jv_digest *T, const jv_digest *R) {
    char a[256], b[256];
    size_t n = 0;
    buf[0] = 0;
    if (!T->has_hw || (R && !R->has_hw)) {
        const jv_digest *no = !T->has_hw ? T : R;
        snprintf(buf, cap, "Peak policy: no roofline GPU for the %s (%s): no peaks, no %% of peak%s",
                 no == T ? "target" : "reference", no->hw_why, R ? ", no expected ratios" : "");
        return buf;
    }
    side_peaks(a, sizeof a, T);
    if (!R) {
        if (T->peaks == JV_PEAKS_MEASURED)
            n = (size_t)snprintf(buf, cap,
                                 "Peak policy: measured/max-achievable peaks on the target side as given by %s (%s, "
                                 "bandwidth as given); roofline %%, verdicts, findings and report.html use them",
                                 T->hw_why, a);
        else
            n = (size_t)snprintf(buf, cap,
                                 "Peak policy: datasheet peaks (%s); roofline %%, verdicts, findings and report.html "
                                 "use them",
                                 a);
    } else {
        side_peaks(b, sizeof b, R);
        if (T->peaks == JV_PEAKS_MEASURED && R->peaks == JV_PEAKS_MEASURED)
            n = (size_t)snprintf(buf, cap,
                                 "Peak policy: measured/max-achievable peaks on both sides as given by %s (target %s; "
                                 "reference %s); roofline %%, verdicts, findings and the expected ratios (compute and "
                                 "memory) use them",
                                 T->hw_why, a, b);
        else if (T->peaks != R->peaks)
            n = (size_t)snprintf(buf, cap,
                                 "Peak policy: the %s has measured/max-achievable peaks as given by %s, the %s has "
                                 "none, so the expected ratios (compute and memory) use datasheet peaks on both sides; "
                                 "each side's roofline %% and verdicts use its own (target %s; reference %s)",
                                 T->peaks == JV_PEAKS_MEASURED ? "target" : "reference",
                                 T->peaks == JV_PEAKS_MEASURED ? T->hw_why : R->hw_why,
                                 T->peaks == JV_PEAKS_MEASURED ? "reference" : "target", a, b);
        else
            n = (size_t)snprintf(buf, cap,
                                 "Peak policy: datasheet peaks on both sides (target %s; reference %s); roofline %%, "
                                 "verdicts, findings and the expected ratios (compute and memory) use them",
                                 a, b);
    }
    if (n < cap) n += sheet_note(buf + n, cap - n, T);
    if (n + 2 < cap) snprintf(buf + n, cap - n, ".");
    return buf;
}
