/* jv_progress: carriage-return progress line on stderr. */
#define _POSIX_C_SOURCE 200809L
#include "jv_progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double jv_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int jv_progress_tty(void) {
    return isatty(fileno(stderr));
}

void jv_progress_start(jv_progress *p, int enabled, const char *label, uint64_t total) {
    p->enabled = enabled;
    p->label = label;
    p->total = total;
    p->last_shown = jv_now();
    p->shown = 0;
}

void jv_progress_update(jv_progress *p, uint64_t done) {
    if (!p->enabled) return;
    double t = jv_now();
    if (t - p->last_shown < 0.1) return;
    p->last_shown = t;
    if (p->total)
        fprintf(stderr, "\r%s %5.1f%% (%.0f MB)", p->label, 100.0 * (double)done / (double)p->total,
                (double)done / 1e6);
    else
        fprintf(stderr, "\r%s %.0f MB", p->label, (double)done / 1e6);
    fflush(stderr);
    p->shown = 1;
}

void jv_progress_finish(jv_progress *p) {
    if (p->enabled && p->shown) fprintf(stderr, "\r\033[K");
    p->shown = 0;
}
