/* jv_test_opts: the run options of the replay tests: the defaults for the device, then a time budget of 10 ms per
 * op (0.5 ms of warm-up, samples of 0.1 ms) and a 1 MiB cache flush, so that a test's many ops replay fast. A test
 * sets what it needs beyond these after the call. */
#ifndef JV_TEST_OPTS_H
#define JV_TEST_OPTS_H

#include "jv_runner.h"

static inline void jv_test_fast_opts(jv_run_opts *o, const jv_device_props *p) {
    jv_run_opts_default(o, p);
    o->timing.max_time_s = 0.01;
    o->timing.warmup_s = 0.0005;
    o->timing.min_sample_s = 1e-4;
    o->cold_bytes = 1 << 20;
}

#endif
