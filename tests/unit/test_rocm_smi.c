/* test_rocm_smi: backends/hip/jv_rocm_smi against a fake librocm_smi64.so
 * (test_rocm_smi_fake.c, built as a shared library and loaded by the real
 * dlopen path) whose two devices report known values in ROCm SMI's units:
 * the device at the HIP device's PCI bus id is the one read (its neighbour
 * reports other values), the clocks reach the jv_clocks record in MHz (Hz
 * from the library), the power in watts (microwatts), the temperature in
 * degrees Celsius (millidegrees), with either rsmi_frequencies_t layout (ROCm
 * 5 and ROCm 6, padding filled with garbage); an MI300-like library without
 * average power gives the socket power, one without a junction sensor the
 * edge temperature. A missing library, a failing rsmi_init and a bus id the
 * library does not know each leave clocks unknown with the reason, and shut
 * the library down when it was initialized. Last, the frequency record's
 * layout detection on hand-made buffers, and the run-wide merge of
 * temperatures (jv_clocks_merge_load). Runs anywhere: no ROCm, no GPU.
 * argv[1]: the fake library's path. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_check.h"
#include "jv_rocm_smi.h"
#include "jv_timing.h"
#include "smi_test.h"

typedef void (*config_fn)(int layout, int init_status, int no_power_ave, int no_junction);
typedef void (*calls_fn)(int *inits, int *shutdowns);

static int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * fabs(b);
}

#define BUS "0000:c1:00.0"

/* opens the fake at BUS with the layout and flags given; the clocks of its device 1 */
static void read_with(const char *lib, config_fn config, int layout, int no_ave, int no_junction, jv_clocks *c,
                      jv_rocm_smi *s) {
    config(layout, 0, no_ave, no_junction);
    jv_rocm_smi_open(s, lib, BUS);
    CHECK_MSG(s->lib != NULL, "open failed: %s", s->why);
    jv_rocm_smi_clocks(s, c);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_rocm_smi FAKE_LIBROCM_SMI64\n");
        return 2;
    }
    const char *lib = argv[1];
    /* the same handle jv_rocm_smi_open gets (dlopen counts references): the fake's controls */
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h) {
        fprintf(stderr, "test_rocm_smi: cannot load %s: %s\n", lib, dlerror());
        return 1;
    }
    config_fn config = NULL;
    calls_fn calls = NULL;
    void *p = dlsym(h, "jv_fake_rsmi_config");
    memcpy(&config, &p, sizeof config);
    p = dlsym(h, "jv_fake_rsmi_calls");
    memcpy(&calls, &p, sizeof calls);
    CHECK(config && calls);
    if (!config || !calls) return 1;

    jv_rocm_smi s;
    jv_clocks c;
    int inits = 0, downs = 0;

    /* ROCm 5 layout: device 1's values, converted */
    for (int layout = 5; layout <= 6; layout++) {
        read_with(lib, config, layout, 0, 0, &c, &s);
        CHECK(s.index == 1);
        CHECK(!strcmp(s.name, "AMD Instinct MI300X"));
        CHECK(c.known == 1);
        CHECK(s.freq_layout == layout);
        CHECK_MSG(near(c.sm_mhz, 1310), "layout %d: sclk %.6f MHz, want 1310", layout, c.sm_mhz);
        CHECK_MSG(near(c.sm_max_mhz, 2100), "layout %d: sclk max %.6f MHz, want 2100", layout, c.sm_max_mhz);
        CHECK_MSG(near(c.mem_mhz, 1300), "layout %d: mclk %.6f MHz, want 1300", layout, c.mem_mhz);
        CHECK_MSG(near(c.power_w, 653.25), "layout %d: power %.6f W, want 653.25 (average)", layout, c.power_w);
        CHECK_MSG(near(c.temp_c, 71.5), "layout %d: temperature %.6f C, want 71.5 (junction)", layout, c.temp_c);
        CHECK(c.reasons == 0);
        jv_rocm_smi_close(&s);
        CHECK(s.lib == NULL);
    }
    calls(&inits, &downs);
    CHECK(inits == 2 && downs == 2);

    /* MI300: no average power, the current socket power; no junction sensor: the edge one; the bus id in capitals */
    config(6, 0, 1, 1);
    jv_rocm_smi_open(&s, lib, "0000:C1:00.0");
    CHECK_MSG(s.lib != NULL, "open failed: %s", s.why);
    jv_rocm_smi_clocks(&s, &c);
    CHECK(c.known == 1 && near(c.sm_mhz, 1310));
    CHECK_MSG(near(c.power_w, 412.5), "power %.6f W, want 412.5 (socket)", c.power_w);
    CHECK_MSG(near(c.temp_c, 48), "temperature %.6f C, want 48 (edge)", c.temp_c);
    jv_rocm_smi_close(&s);

    /* the other device: its own values (the PCI mapping picks by bus id, not by HIP's index) */
    config(5, 0, 0, 0);
    jv_rocm_smi_open(&s, lib, "0000:03:00.0");
    CHECK(s.lib != NULL && s.index == 0);
    jv_rocm_smi_clocks(&s, &c);
    CHECK(near(c.sm_mhz, 500) && near(c.sm_max_mhz, 1700) && near(c.mem_mhz, 400) && near(c.power_w, 88) &&
          near(c.temp_c, 35));
    jv_rocm_smi_close(&s);

    /* a bus id the library does not know: not used, shut down again, clocks unknown */
    calls(&inits, &downs);
    int i0 = inits, d0 = downs;
    jv_rocm_smi_open(&s, lib, "0000:c2:00.0");
    CHECK(s.lib == NULL);
    CHECK_MSG(strstr(s.why, "no device at PCI bus id 0000:c2:00.0 among its 2") != NULL, "why: %s", s.why);
    calls(&inits, &downs);
    CHECK(inits == i0 + 1 && downs == d0 + 1);
    jv_rocm_smi_clocks(&s, &c);
    CHECK(c.known == 0);

    /* rsmi_init fails: not used, the status named, no shut_down of what never started */
    config(5, 8, 0, 0);
    calls(&inits, &downs);
    d0 = downs;
    jv_rocm_smi_open(&s, lib, BUS);
    CHECK(s.lib == NULL);
    CHECK_MSG(strstr(s.why, "rsmi_init failed (status 8)") != NULL, "why: %s", s.why);
    calls(&inits, &downs);
    CHECK(downs == d0);
    config(5, 0, 0, 0);

    /* no library, no bus id */
    jv_rocm_smi_open(&s, "/nonexistent/librocm_smi64.so", BUS);
    CHECK(s.lib == NULL && strstr(s.why, "not found") != NULL);
    jv_rocm_smi_open(&s, lib, "");
    CHECK(s.lib == NULL && strstr(s.why, "no PCI bus id") != NULL);
    jv_rocm_smi_close(&s);

    /* the default names: found under $ROCM_PATH/lib (unless this machine has a real ROCm SMI) */
    void *real = dlopen("librocm_smi64.so", RTLD_NOW | RTLD_LOCAL);
    if (real) {
        dlclose(real);
    } else if (smi_test_set_rocm_path(lib)) {
        jv_rocm_smi_open(&s, NULL, BUS);
        CHECK_MSG(s.lib != NULL, "by ROCM_PATH: %s", s.why);
        CHECK(strstr(s.path, "librocm_smi64.so") != NULL);
        jv_rocm_smi_close(&s);
        unsetenv("ROCM_PATH");
    }

    /* the layouts by hand: ambiguous or damaged records read as neither */
    _Alignas(8) unsigned char buf[JV_RSMI_FREQ_BUF];
    uint64_t cur = 0, max = 0;
    memset(buf, 0, sizeof buf);
    CHECK(jv_rsmi_freq_parse(buf, &cur, &max) == 0 && cur == 0 && max == 0); /* nothing written */
    uint32_t n = 2, k = 1;
    uint64_t f[2] = {100000000ull, 1500000000ull};
    memcpy(buf, &n, 4), memcpy(buf + 4, &k, 4), memcpy(buf + 8, f, 16);
    CHECK(jv_rsmi_freq_parse(buf, &cur, &max) == 5 && cur == f[1] && max == f[1]);
    k = 2; /* current past the count */
    memcpy(buf + 4, &k, 4);
    CHECK(jv_rsmi_freq_parse(buf, &cur, &max) == 0);
    memset(buf, 0, sizeof buf);
    k = 0;
    f[0] = 1500000000ull, f[1] = 100; /* a frequency of 100 Hz: not a clock */
    memcpy(buf + 4, &n, 4), memcpy(buf + 8, &k, 4), memcpy(buf + 16, f, 16);
    CHECK(jv_rsmi_freq_parse(buf, &cur, &max) == 0);
    f[1] = 2000000000ull;
    memcpy(buf + 16, f, 16);
    CHECK(jv_rsmi_freq_parse(buf, &cur, &max) == 6 && cur == f[0] && max == f[1]);

    /* under load, the hottest reading is kept */
    jv_clocks acc, a = {0}, b = {0};
    memset(&acc, 0, sizeof acc);
    a.known = b.known = 1;
    a.sm_mhz = 2100, a.temp_c = 60;
    b.sm_mhz = 1900, b.temp_c = 82.5;
    jv_clocks_merge_load(&acc, &a);
    jv_clocks_merge_load(&acc, &b);
    CHECK(near(acc.temp_c, 82.5) && near(acc.sm_mhz, 1900));

    dlclose(h);
    printf("test_rocm_smi: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
