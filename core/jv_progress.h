/* jv_progress: a one-line progress indicator on stderr, shown only when the
 * caller enables it (stderr is a terminal and --quiet was not given). */
#ifndef JV_PROGRESS_H
#define JV_PROGRESS_H

#include <stdint.h>

typedef struct {
    int enabled;
    const char *label;
    uint64_t total;    /* 0 when unknown */
    double last_shown; /* monotonic seconds of the last update */
    int shown;         /* something was printed (needs a final newline) */
} jv_progress;

/* Returns 1 when stderr is a terminal (the default for showing progress). */
int jv_progress_tty(void);

/* Starts a progress line for work of total units (bytes); enabled = 0 silences it. */
void jv_progress_start(jv_progress *p, int enabled, const char *label, uint64_t total);

/* Reports done units; redraws at most ten times a second. */
void jv_progress_update(jv_progress *p, uint64_t done);

/* Clears the progress line. */
void jv_progress_finish(jv_progress *p);

/* Monotonic clock in seconds. */
double jv_now(void);

#endif
