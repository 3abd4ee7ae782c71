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
