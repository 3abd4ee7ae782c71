/* jv_amd_smi: AMD SMI through dlsym (see jv_amd_smi.h). The values below are amdsmi.h's (ABI 26). */
#include "jv_amd_smi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "jv_rocm_smi.h"

enum {
    AMDSMI_STATUS_SUCCESS = 0,
    AMDSMI_INIT_AMD_GPUS = 1 << 1,
    AMDSMI_CLK_TYPE_SYS = 0,
    AMDSMI_CLK_TYPE_MEM = 4,
    AMDSMI_TEMPERATURE_TYPE_EDGE = 0,
    AMDSMI_TEMPERATURE_TYPE_HOTSPOT = 1,
    AMDSMI_TEMP_CURRENT = 0
};

#define MAX_HANDLES 64 /* sockets, and processors per socket, looked at */

typedef int (*init_fn)(uint64_t flags);
typedef int (*version_fn)(void *version);
typedef int (*sockets_fn)(uint32_t *count, void **sockets);
typedef int (*procs_fn)(void *socket, uint32_t *count, void **procs);
typedef int (*bdf_fn)(void *proc, uint64_t *bdf);

/* gives up: shuts down what was initialized, unloads, keeps why */
static void fail(jv_amd_smi *s, const char *fmt_why) {
    char why[sizeof s->why];
    snprintf(why, sizeof why, "%s", fmt_why);
    if (s->lib) {
        if (s->shut_down) s->shut_down();
        dlclose(s->lib);
    }
    memset(s, 0, sizeof *s);
    memcpy(s->why, why, sizeof why);
}

/* amdsmi_get_lib_version's record: {major, minor, release, build} from ABI 25 on; before, {year, major, minor,
 * release, build} with a year of 23 or 24. The major into *major, the whole into s->version. */
static void read_version(jv_amd_smi *s, const unsigned char *v, uint32_t *major) {
    uint32_t a = jv_smi_rd32(v, 0), b = jv_smi_rd32(v, 4), c = jv_smi_rd32(v, 8), d = jv_smi_rd32(v, 12);
    if (a >= 25) {
        *major = a;
        snprintf(s->version, sizeof s->version, "%u.%u.%u", (unsigned)a, (unsigned)b, (unsigned)c);
    } else {
        *major = b;
        snprintf(s->version, sizeof s->version, "%u.%u.%u.%u", (unsigned)a, (unsigned)b, (unsigned)c, (unsigned)d);
    }
}

/* one clock domain: current and highest frequency, Hz; 0 when the call or the record fails */
static int clock_of(jv_amd_smi *s, int type, uint64_t *cur, uint64_t *max) {
    _Alignas(8) unsigned char buf[JV_RSMI_FREQ_BUF];
    memset(buf, 0, sizeof buf);
    if (s->clk(s->proc, type, buf) != AMDSMI_STATUS_SUCCESS) return 0;
    int layout = jv_rsmi_freq_parse(buf, cur, max);
    if (layout) s->freq_layout = layout;
    return layout != 0;
}

/* the processor at dom:b:dev.fn among every socket's (exact first, then any function); NULL when none */
static void *find_proc(sockets_fn sockets, procs_fn procs, bdf_fn bdf, unsigned dom, unsigned b, unsigned dev,
                       unsigned fn, unsigned *seen) {
    void *sock[MAX_HANDLES];
    uint32_t ns = MAX_HANDLES;
    *seen = 0;
    if (sockets(&ns, sock) != AMDSMI_STATUS_SUCCESS) return NULL;
    if (ns > MAX_HANDLES) ns = MAX_HANDLES;
    void *loose = NULL;
    for (uint32_t i = 0; i < ns; i++) {
        void *pr[MAX_HANDLES];
        uint32_t np = MAX_HANDLES;
        if (procs(sock[i], &np, pr) != AMDSMI_STATUS_SUCCESS) continue;
        if (np > MAX_HANDLES) np = MAX_HANDLES;
        for (uint32_t k = 0; k < np; k++) {
            uint64_t id = 0;
            if (bdf(pr[k], &id) != AMDSMI_STATUS_SUCCESS) continue;
            (*seen)++;
            if ((id >> 16) != dom || ((id >> 8) & 0xff) != b || ((id >> 3) & 0x1f) != dev) continue;
            if ((id & 7) == fn) return pr[k];
            if (!loose) loose = pr[k];
        }
    }
    return loose;
}

void jv_amd_smi_open(jv_amd_smi *s, const char *lib, const char *bus) {
    memset(s, 0, sizeof *s);
    unsigned dom = 0, b = 0, dev = 0, fn = 0;
    if (!jv_smi_parse_bus(bus, &dom, &b, &dev, &fn)) {
        snprintf(s->why, sizeof s->why, "not used: no PCI bus id for the device ('%.40s')", bus ? bus : "");
        return;
    }
    static const char *const NAMES[] = {"libamd_smi.so", "libamd_smi.so.26"};
    char path[sizeof s->path];
    void *h = jv_smi_load(lib, NAMES, sizeof NAMES / sizeof NAMES[0], path, sizeof path);
    if (!h) {
        if (lib)
            snprintf(s->why, sizeof s->why, "not found (%.200s)", lib);
        else
            snprintf(s->why, sizeof s->why,
                     "not found (tried libamd_smi.so, .so.26; also under $ROCM_PATH/lib, /opt/rocm/lib)");
        return;
    }
    s->lib = h;
    snprintf(s->path, sizeof s->path, "%s", path);
    init_fn init = NULL;
    version_fn version = NULL;
    sockets_fn sockets = NULL;
    procs_fn procs = NULL;
    bdf_fn bdf = NULL;
    int (*shut)(void) = NULL;
    const char *need[] = {"amdsmi_init",
                          "amdsmi_shut_down",
                          "amdsmi_get_lib_version",
                          "amdsmi_get_socket_handles",
                          "amdsmi_get_processor_handles",
                          "amdsmi_get_gpu_device_bdf",
                          "amdsmi_get_clk_freq"};
    void *outs[] = {&init, &shut, &version, &sockets, &procs, &bdf, &s->clk};
    size_t sizes[] = {sizeof init,  sizeof shut, sizeof version, sizeof sockets,
                      sizeof procs, sizeof bdf,  sizeof s->clk};
    char why[sizeof s->why];
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!jv_smi_sym(h, need[i], sizes[i], outs[i])) {
            snprintf(why, sizeof why, "%.200s lacks %s: not used", s->path, need[i]);
            fail(s, why);
            return;
        }
    jv_smi_sym(h, "amdsmi_get_power_info", sizeof s->power, &s->power);
    jv_smi_sym(h, "amdsmi_get_temp_metric", sizeof s->temp, &s->temp);
    jv_smi_where(dlsym(h, "amdsmi_init"), s->path, sizeof s->path);
    int st = init(AMDSMI_INIT_AMD_GPUS);
    if (st != AMDSMI_STATUS_SUCCESS) {
        snprintf(why, sizeof why, "%.200s: amdsmi_init failed (status %d)", s->path, st);
        fail(s, why);
        return;
    }
    s->shut_down = shut;
    _Alignas(8) unsigned char ver[64]; /* more than either version record (24 or 32 bytes) */
    memset(ver, 0, sizeof ver);
    uint32_t major = 0;
    if ((st = version(ver)) != AMDSMI_STATUS_SUCCESS) {
        snprintf(why, sizeof why, "%.200s: amdsmi_get_lib_version failed (status %d): not used", s->path, st);
        fail(s, why);
        return;
    }
    read_version(s, ver, &major);
    if (major != JV_AMDSMI_ABI) {
        snprintf(why, sizeof why, "%.200s is version %.40s, not ABI %d: not used", s->path, s->version, JV_AMDSMI_ABI);
        fail(s, why);
        return;
    }
    unsigned seen = 0;
    s->proc = find_proc(sockets, procs, bdf, dom, b, dev, fn, &seen);
    if (!s->proc) {
        snprintf(why, sizeof why, "%.200s: no GPU at PCI bus id %04x:%02x:%02x.%x among its %u", s->path, dom, b, dev,
                 fn, seen);
        fail(s, why);
        return;
    }
    uint64_t cur = 0, max = 0;
    if (!clock_of(s, AMDSMI_CLK_TYPE_SYS, &cur, &max)) {
        snprintf(why, sizeof why,
                 "%.200s: amdsmi_get_clk_freq's system clock record reads as no known layout (Hz): not used", s->path);
        fail(s, why);
    }
}

/* a power member in watts: 0 and the markers of an unsupported one (0xFFFF, UINT32_MAX, UINT64_MAX) are unknown */
static double watts(uint64_t w) {
    return w > 0 && w < 0xFFFF ? (double)w : 0;
}

void jv_amd_smi_clocks(jv_amd_smi *s, jv_clocks *c) {
    memset(c, 0, sizeof *c);
    if (!s->lib) return;
    uint64_t cur = 0, max = 0;
    if (!clock_of(s, AMDSMI_CLK_TYPE_SYS, &cur, &max)) return;
    c->known = 1;
    c->sm_mhz = (double)cur * 1e-6; /* Hz */
    c->sm_max_mhz = (double)max * 1e-6;
    if (clock_of(s, AMDSMI_CLK_TYPE_MEM, &cur, &max)) c->mem_mhz = (double)cur * 1e-6;
    _Alignas(8) unsigned char info[2 * JV_AMDSMI_POWER_INFO_BYTES];
    memset(info, 0, sizeof info);
    if (s->power && s->power(s->proc, info) == AMDSMI_STATUS_SUCCESS) {
        double w = watts(jv_smi_rd32(info, 12));     /* average_socket_power */
        if (w == 0) w = watts(jv_smi_rd32(info, 8)); /* current_socket_power (MI300) */
        if (w == 0) w = watts(jv_smi_rd64(info, 0)); /* socket_power */
        c->power_w = w;
    }
    int64_t t = 0;
    if (s->temp &&
        ((s->temp(s->proc, AMDSMI_TEMPERATURE_TYPE_HOTSPOT, AMDSMI_TEMP_CURRENT, &t) == AMDSMI_STATUS_SUCCESS &&
          t < 1000) ||
         (s->temp(s->proc, AMDSMI_TEMPERATURE_TYPE_EDGE, AMDSMI_TEMP_CURRENT, &t) == AMDSMI_STATUS_SUCCESS &&
          t < 1000)))
        c->temp_c = (double)t; /* degrees Celsius */
}

void jv_amd_smi_close(jv_amd_smi *s) {
    if (s->lib) {
        if (s->shut_down) s->shut_down();
        dlclose(s->lib);
    }
    memset(s, 0, sizeof *s);
}
