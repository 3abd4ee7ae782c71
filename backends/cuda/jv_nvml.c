/* jv_nvml: a handful of NVML entry points through dlsym. The values below
 * are NVML's (nvml.h): clock types and the clocks event (throttle) reason
 * bits. */
#include "jv_nvml.h"

#include <dlfcn.h>
#include <string.h>

enum { NVML_SUCCESS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

#define REASON_GPU_IDLE       0x1ull
#define REASON_APP_CLOCKS     0x2ull
#define REASON_SW_POWER_CAP   0x4ull
#define REASON_HW_SLOWDOWN    0x8ull
#define REASON_SYNC_BOOST     0x10ull
#define REASON_SW_THERMAL     0x20ull
#define REASON_HW_THERMAL     0x40ull
#define REASON_HW_POWER_BRAKE 0x80ull
#define REASON_DISPLAY_CLOCK  0x100ull

typedef int (*init_fn)(void);
typedef int (*by_bus_fn)(const char *bus, void **dev);

/* dlsym returns void *; a function pointer is copied out of it byte for byte (ISO C forbids the cast) */
static void *sym(void *lib, const char *name, size_t fnsize, void *out) {
    void *p = dlsym(lib, name);
    if (p) memcpy(out, &p, fnsize);
    return p;
}

void jv_nvml_open(jv_nvml *n, const char *bus) {
    memset(n, 0, sizeof *n);
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    init_fn init = NULL;
    by_bus_fn by_bus = NULL;
    int ok = sym(lib, "nvmlInit_v2", sizeof init, &init) &&
             sym(lib, "nvmlDeviceGetHandleByPciBusId_v2", sizeof by_bus, &by_bus) &&
             sym(lib, "nvmlDeviceGetClockInfo", sizeof n->clock, &n->clock) &&
             sym(lib, "nvmlDeviceGetMaxClockInfo", sizeof n->max_clock, &n->max_clock) &&
             sym(lib, "nvmlShutdown", sizeof n->shutdown, &n->shutdown);
    /* the reasons call was renamed in NVML 12.x; either name reads the same bits */
    if (ok && !sym(lib, "nvmlDeviceGetCurrentClocksEventReasons", sizeof n->reasons, &n->reasons))
        sym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", sizeof n->reasons, &n->reasons);
    if (ok) sym(lib, "nvmlDeviceGetPowerUsage", sizeof n->power, &n->power);
    if (ok) sym(lib, "nvmlDeviceGetTemperature", sizeof n->temp, &n->temp);
    if (!ok || init() != NVML_SUCCESS) {
        dlclose(lib);
        memset(n, 0, sizeof *n);
        return;
    }
    if (by_bus(bus, &n->dev) != NVML_SUCCESS) {
        n->shutdown();
        dlclose(lib);
        memset(n, 0, sizeof *n);
        return;
    }
    n->lib = lib;
}

void jv_nvml_clocks(const jv_nvml *n, jv_clocks *c) {
    memset(c, 0, sizeof *c);
    if (!n->lib) return;
    unsigned sm = 0, mem = 0, smax = 0;
    if (n->clock(n->dev, NVML_CLOCK_SM, &sm) != NVML_SUCCESS) return;
    c->known = 1;
    c->sm_mhz = sm;
    if (n->clock(n->dev, NVML_CLOCK_MEM, &mem) == NVML_SUCCESS) c->mem_mhz = mem;
    if (n->max_clock(n->dev, NVML_CLOCK_SM, &smax) == NVML_SUCCESS) c->sm_max_mhz = smax;
    unsigned mw = 0;
    if (n->power && n->power(n->dev, &mw) == NVML_SUCCESS) c->power_w = mw * 1e-3;
    unsigned deg = 0;
    if (n->temp && n->temp(n->dev, NVML_TEMPERATURE_GPU, &deg) == NVML_SUCCESS) c->temp_c = deg;
    unsigned long long r = 0;
    if (n->reasons && n->reasons(n->dev, &r) == NVML_SUCCESS) {
        if (r & REASON_SW_POWER_CAP) c->reasons |= JV_THROTTLE_POWER;
        if (r & (REASON_SW_THERMAL | REASON_HW_THERMAL)) c->reasons |= JV_THROTTLE_THERMAL;
        if (r & (REASON_HW_SLOWDOWN | REASON_HW_POWER_BRAKE)) c->reasons |= JV_THROTTLE_HW_SLOWDOWN;
        if (r & (REASON_APP_CLOCKS | REASON_SYNC_BOOST | REASON_DISPLAY_CLOCK)) c->reasons |= JV_THROTTLE_OTHER;
        /* REASON_GPU_IDLE: nothing was running (between calls): not a slowdown */
        (void)REASON_GPU_IDLE;
    }
}

void jv_nvml_close(jv_nvml *n) {
    if (n->lib) {
        n->shutdown();
        dlclose(n->lib);
    }
    memset(n, 0, sizeof *n);
}
