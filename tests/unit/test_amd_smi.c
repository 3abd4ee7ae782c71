/* test_amd_smi: backends/hip/jv_amd_smi against a fake libamd_smi.so
 * (test_amd_smi_fake.c, built as a shared library and loaded by the real
 * dlopen path) whose four processors on two sockets report known values in
 * AMD SMI's units: the processor at the HIP device's PCI bus id is the one
 * read, its BDF decoded as amdsmi_bdf_t lays it out (a domain-1 device and a
 * partition sit next to the one asked for, with other values), the clocks
 * reach the jv_clocks record in MHz (Hz from the library), the power in watts
 * (average, else current socket power where the average is unsupported), the
 * temperature in degrees Celsius (hotspot, else edge). A library of another
 * ABI (27, or 24 with its year-led version record), one whose clock record is
 * in MHz, a failing amdsmi_init, a bus id no processor has and a missing
 * library each leave it unused with the reason, shut down when initialized.
 * Runs anywhere: no ROCm, no GPU. argv[1]: the fake library's path. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_amd_smi.h"
#include "jv_check.h"
#include "smi_test.h"

typedef void (*config_fn)(int major, int year_layout, int init_status, int no_hotspot, int mhz_clocks);
typedef void (*calls_fn)(int *inits, int *shutdowns);

static int near(double a, double b) {
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* opens the fake at bus and reads its clocks; 0 when it did not open */
static int read_at(const char *lib, const char *bus, jv_amd_smi *s, jv_clocks *c) {
    jv_amd_smi_open(s, lib, bus);
    CHECK_MSG(s->lib != NULL, "open at %s failed: %s", bus, s->why);
    if (!s->lib) return 0;
    jv_amd_smi_clocks(s, c);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_amd_smi FAKE_LIBAMD_SMI\n");
        return 2;
    }
    const char *lib = argv[1];
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL); /* the handle jv_amd_smi_open gets too: the fake's controls */
    CHECK(h != NULL);
    if (!h) {
        fprintf(stderr, "test_amd_smi: cannot load %s: %s\n", lib, dlerror());
        return 1;
    }
    config_fn config = NULL;
    calls_fn calls = NULL;
    void *p = dlsym(h, "jv_fake_asmi_config");
    memcpy(&config, &p, sizeof config);
    p = dlsym(h, "jv_fake_asmi_calls");
    memcpy(&calls, &p, sizeof calls);
    CHECK(config && calls);
    if (!config || !calls) return 1;

    jv_amd_smi s;
    jv_clocks c;
    int inits = 0, downs = 0;

    /* an MI300X-like processor in PCI domain 1: no average power (UINT32_MAX), the current socket power, not the
     * generic socket_power; hotspot temperature; the bus id in capitals */
    config(26, 0, 0, 0, 0);
    if (read_at(lib, "0001:C1:00.0", &s, &c)) {
        CHECK_MSG(!strcmp(s.version, "26.1.0"), "version %s", s.version);
        CHECK(s.freq_layout == 6);
        CHECK(c.known == 1 && c.reasons == 0);
        CHECK_MSG(near(c.sm_mhz, 1310), "sclk %.6f MHz, want 1310 (processor 0001:c1:00.0)", c.sm_mhz);
        CHECK_MSG(near(c.sm_max_mhz, 2100), "sclk max %.6f MHz, want 2100", c.sm_max_mhz);
        CHECK_MSG(near(c.mem_mhz, 1300), "mclk %.6f MHz, want 1300", c.mem_mhz);
        CHECK_MSG(near(c.power_w, 653), "power %.6f W, want 653 (current socket power)", c.power_w);
        CHECK_MSG(near(c.temp_c, 71), "temperature %.6f C, want 71 (hotspot)", c.temp_c);
    }
    jv_amd_smi_close(&s);
    CHECK(s.lib == NULL);

    /* its partition (function 1): that processor, not the first of the same bus and device */
    if (read_at(lib, "0001:c1:00.1", &s, &c)) {
        CHECK_MSG(near(c.sm_mhz, 1400) && near(c.power_w, 610) && near(c.temp_c, 73),
                  "partition: sclk %.1f MHz, power %.1f W, %.1f C; want 1400, 610, 73", c.sm_mhz, c.power_w, c.temp_c);
    }
    jv_amd_smi_close(&s);
    /* a function no processor has: the first of that domain, bus and device */
    if (read_at(lib, "0001:c1:00.3", &s, &c)) CHECK_MSG(near(c.sm_mhz, 1310), "loose match: sclk %.1f MHz", c.sm_mhz);
    jv_amd_smi_close(&s);

    /* domain 0, same bus and device, last on its socket: its own values (average power read first) */
    if (read_at(lib, "0000:c1:00.0", &s, &c)) {
        CHECK_MSG(near(c.sm_mhz, 1200) && near(c.sm_max_mhz, 1900) && near(c.mem_mhz, 1200),
                  "0000:c1:00.0: sclk %.1f / %.1f, mclk %.1f MHz; want 1200 / 1900, 1200", c.sm_mhz, c.sm_max_mhz,
                  c.mem_mhz);
        CHECK_MSG(near(c.power_w, 301), "power %.6f W, want 301 (average)", c.power_w);
        CHECK_MSG(near(c.temp_c, 55), "temperature %.6f C, want 55", c.temp_c);
    }
    jv_amd_smi_close(&s);

    /* the other socket's processor; then no hotspot sensor: the edge one */
    if (read_at(lib, "0000:03:00.0", &s, &c))
        CHECK(near(c.sm_mhz, 500) && near(c.sm_max_mhz, 1700) && near(c.mem_mhz, 400) && near(c.power_w, 88) &&
              near(c.temp_c, 35));
    jv_amd_smi_close(&s);
    config(26, 0, 0, 1, 0);
    if (read_at(lib, "0001:c1:00.0", &s, &c))
        CHECK_MSG(near(c.temp_c, 48), "temperature %.1f C, want 48 (edge)", c.temp_c);
    jv_amd_smi_close(&s);
    calls(&inits, &downs);
    CHECK_MSG(inits == 6 && downs == 6, "inits %d, shut downs %d", inits, downs);

    /* refused, named, shut down again: another ABI, the year-led record of 24.x, a clock record in MHz, a bus id
     * no processor has */
    struct {
        int major, year, mhz;
        const char *bus, *want;
    } no[] = {{27, 0, 0, "0001:c1:00.0", "is version 27.1.0, not ABI 26"},
              {7, 1, 0, "0001:c1:00.0", "is version 24.7.1.0, not ABI 26"},
              {26, 0, 1, "0001:c1:00.0", "system clock record reads as no known layout"},
              {26, 0, 0, "0000:c2:00.0", "no GPU at PCI bus id 0000:c2:00.0 among its 4"}};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        config(no[i].major, no[i].year, 0, 0, no[i].mhz);
        calls(&inits, &downs);
        int i0 = inits, d0 = downs;
        jv_amd_smi_open(&s, lib, no[i].bus);
        CHECK_MSG(s.lib == NULL && strstr(s.why, no[i].want) != NULL, "case %zu: lib %p, why: %s", i, s.lib, s.why);
        calls(&inits, &downs);
        CHECK_MSG(inits == i0 + 1 && downs == d0 + 1, "case %zu: inits %d, shut downs %d", i, inits - i0, downs - d0);
        jv_amd_smi_clocks(&s, &c);
        CHECK(c.known == 0);
    }
    /* amdsmi_init fails: not used, no shut_down of what never started */
    config(26, 0, 18, 0, 0);
    calls(&inits, &downs);
    int d0 = downs;
    jv_amd_smi_open(&s, lib, "0001:c1:00.0");
    CHECK_MSG(s.lib == NULL && strstr(s.why, "amdsmi_init failed (status 18)"), "why: %s", s.why);
    calls(&inits, &downs);
    CHECK(downs == d0);
    config(26, 0, 0, 0, 0);

    /* no library, no bus id */
    jv_amd_smi_open(&s, "/nonexistent/libamd_smi.so", "0001:c1:00.0");
    CHECK(s.lib == NULL && strstr(s.why, "not found") != NULL);
    jv_amd_smi_open(&s, lib, "");
    CHECK(s.lib == NULL && strstr(s.why, "no PCI bus id") != NULL);
    jv_amd_smi_close(&s);

    /* the default names: found under $ROCM_PATH/lib (unless this machine has a real AMD SMI) */
    void *real = dlopen("libamd_smi.so", RTLD_NOW | RTLD_LOCAL);
    if (real) {
        dlclose(real);
    } else if (smi_test_set_rocm_path(lib)) {
        jv_amd_smi_open(&s, NULL, "0001:c1:00.0");
        CHECK_MSG(s.lib != NULL, "by ROCM_PATH: %s", s.why);
        CHECK(strstr(s.path, "libamd_smi.so") != NULL);
        jv_amd_smi_close(&s);
        unsetenv("ROCM_PATH");
    }

    dlclose(h);
    printf("test_amd_smi: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
