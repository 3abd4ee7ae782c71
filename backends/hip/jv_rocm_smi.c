/* jv_rocm_smi: ROCm SMI through dlsym (see jv_rocm_smi.h). The values below are rocm_smi.h's. */
#define _GNU_SOURCE /* dladdr */
#include "jv_rocm_smi.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    RSMI_STATUS_SUCCESS = 0,
    RSMI_CLK_TYPE_SYS = 0,
    RSMI_CLK_TYPE_MEM = 4,
    RSMI_TEMP_TYPE_EDGE = 0,
    RSMI_TEMP_TYPE_JUNCTION = 1,
    RSMI_TEMP_CURRENT = 0
};

typedef int (*init_fn)(uint64_t flags);
typedef int (*count_fn)(uint32_t *n);
typedef int (*pci_fn)(uint32_t dv, uint64_t *bdfid);
typedef int (*name_fn)(uint32_t dv, char *name, size_t len);

void *jv_smi_sym(void *lib, const char *name, size_t fnsize, void *out) {
    void *p = dlsym(lib, name);
    if (p) memcpy(out, &p, fnsize);
    return p;
}

uint32_t jv_smi_rd32(const unsigned char *b, size_t off) {
    uint32_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

uint64_t jv_smi_rd64(const unsigned char *b, size_t off) {
    uint64_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

/* one layout: count at cnt_off (1 .. maxn), current at cur_off (< count), frequencies from f_off (1 MHz .. 100 GHz) */
static int read_layout(const unsigned char *b, size_t cnt_off, size_t cur_off, size_t f_off, uint32_t maxn,
                       uint64_t *cur, uint64_t *max) {
    uint32_t n = jv_smi_rd32(b, cnt_off), c = jv_smi_rd32(b, cur_off);
    if (n < 1 || n > maxn || c >= n) return 0;
    uint64_t hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t f = jv_smi_rd64(b, f_off + 8 * (size_t)i);
        if (f < 1000000ull || f > 100000000000ull) return 0;
        if (f > hi) hi = f;
    }
    *cur = jv_smi_rd64(b, f_off + 8 * (size_t)c);
    *max = hi;
    return 1;
}

int jv_rsmi_freq_parse(const unsigned char *buf, uint64_t *cur_hz, uint64_t *max_hz) {
    *cur_hz = *max_hz = 0;
    /* ROCm 6 first: its padding (bytes 1-3 and 12-15) may hold anything, which could pass for a ROCm 5 record */
    if (read_layout(buf, 4, 8, 16, 33, cur_hz, max_hz)) return 6;
    if (read_layout(buf, 0, 4, 8, 32, cur_hz, max_hz)) return 5;
    *cur_hz = *max_hz = 0;
    return 0;
}

int jv_smi_parse_bus(const char *bus, unsigned *dom, unsigned *b, unsigned *dev, unsigned *fn) {
    char tail = 0;
    if (!bus || sscanf(bus, "%x:%x:%x.%x%c", dom, b, dev, fn, &tail) != 4) return 0;
    return *b <= 0xff && *dev <= 0x1f && *fn <= 7;
}

void jv_smi_where(void *sym, char *path, size_t cap) {
    Dl_info info;
    if (sym && dladdr(sym, &info) && info.dli_fname) snprintf(path, cap, "%s", info.dli_fname);
}

/* gives up: shuts down what was initialized, unloads, keeps why */
static void fail(jv_rocm_smi *s, const char *why_in) {
    char why[sizeof s->why];
    snprintf(why, sizeof why, "%s", why_in);
    if (s->lib) {
        if (s->shut_down) s->shut_down();
        dlclose(s->lib);
    }
    memset(s, 0, sizeof *s);
    memcpy(s->why, why, sizeof why);
}

void *jv_smi_load(const char *lib, const char *const *names, size_t n, char *path, size_t cap) {
    if (lib) {
        snprintf(path, cap, "%s", lib);
        return dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    }
    const char *rocm = getenv("ROCM_PATH");
    const char *dirs[] = {"", rocm && rocm[0] ? rocm : NULL, "/opt/rocm"};
    for (int d = 0; d < 3; d++) {
        if (!dirs[d]) continue;
        for (size_t i = 0; i < n; i++) {
            if (dirs[d][0])
                snprintf(path, cap, "%s/lib/%s", dirs[d], names[i]);
            else
                snprintf(path, cap, "%s", names[i]);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) return h;
        }
    }
    return NULL;
}

void jv_rocm_smi_open(jv_rocm_smi *s, const char *lib, const char *bus) {
    memset(s, 0, sizeof *s);
    unsigned dom = 0, b = 0, dev = 0, fn = 0;
    if (!jv_smi_parse_bus(bus, &dom, &b, &dev, &fn)) {
        snprintf(s->why, sizeof s->why, "not used: no PCI bus id for the device ('%.40s')", bus ? bus : "");
        return;
    }
    char path[sizeof s->path];
    static const char *const NAMES[] = {"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6",
                                        "librocm_smi64.so.5", "librocm_smi64.so.1"};
    void *h = jv_smi_load(lib, NAMES, sizeof NAMES / sizeof NAMES[0], path, sizeof path);
    if (!h) {
        if (lib)
            snprintf(s->why, sizeof s->why, "not found (%.200s)", lib);
        else
            snprintf(s->why, sizeof s->why,
                     "not found (tried librocm_smi64.so, .so.7, .so.6, .so.5, .so.1; also under $ROCM_PATH/lib, "
                     "/opt/rocm/lib)");
        return;
    }
    s->lib = h;
    snprintf(s->path, sizeof s->path, "%s", path);
    init_fn init = NULL;
    count_fn count = NULL;
    pci_fn pci = NULL;
    name_fn name = NULL;
    const char *need[] = {"rsmi_init", "rsmi_shut_down", "rsmi_num_monitor_devices", "rsmi_dev_pci_id_get",
                          "rsmi_dev_gpu_clk_freq_get"};
    void *outs[] = {&init, &s->shut_down, &count, &pci, &s->clk};
    size_t sizes[] = {sizeof init, sizeof s->shut_down, sizeof count, sizeof pci, sizeof s->clk};
    for (int i = 0; i < 5; i++)
        if (!jv_smi_sym(h, need[i], sizes[i], outs[i])) {
            char why[sizeof s->why];
            snprintf(why, sizeof why, "%.200s lacks %s: not used", s->path, need[i]);
            s->shut_down = NULL; /* not initialized: nothing to shut down */
            fail(s, why);
            return;
        }
    jv_smi_sym(h, "rsmi_dev_name_get", sizeof name, &name);
    jv_smi_sym(h, "rsmi_dev_power_ave_get", sizeof s->power_ave, &s->power_ave);
    jv_smi_sym(h, "rsmi_dev_current_socket_power_get", sizeof s->power_socket, &s->power_socket);
    jv_smi_sym(h, "rsmi_dev_temp_metric_get", sizeof s->temp, &s->temp);
    jv_smi_where(dlsym(h, "rsmi_init"), s->path, sizeof s->path);
    int (*shut)(void) = s->shut_down;
    s->shut_down = NULL;
    char why[sizeof s->why];
    int st = init(0);
    if (st != RSMI_STATUS_SUCCESS) {
        snprintf(why, sizeof why, "%.200s: rsmi_init failed (status %d)", s->path, st);
        fail(s, why);
        return;
    }
    s->shut_down = shut;
    uint32_t n = 0;
    if ((st = count(&n)) != RSMI_STATUS_SUCCESS) {
        snprintf(why, sizeof why, "%.200s: rsmi_num_monitor_devices failed (status %d)", s->path, st);
        fail(s, why);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = 0;
        if (pci(i, &id) != RSMI_STATUS_SUCCESS) continue;
        if ((unsigned)(id >> 32) == dom && (unsigned)((id >> 8) & 0xff) == b && (unsigned)((id >> 3) & 0x1f) == dev) {
            s->index = i;
            if (name && name(i, s->name, sizeof s->name) != RSMI_STATUS_SUCCESS) s->name[0] = 0;
            s->name[sizeof s->name - 1] = 0;
            return;
        }
    }
    char lower[64];
    snprintf(lower, sizeof lower, "%s", bus);
    for (char *p = lower; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    snprintf(why, sizeof why, "%.200s: no device at PCI bus id %.24s among its %u", s->path, lower, (unsigned)n);
    fail(s, why);
}

/* one clock domain: current and highest frequency, Hz; 0 when the call or the record fails */
static int clock_of(jv_rocm_smi *s, int type, uint64_t *cur, uint64_t *max) {
    _Alignas(8) unsigned char buf[JV_RSMI_FREQ_BUF];
    memset(buf, 0, sizeof buf);
    if (s->clk(s->index, type, buf) != RSMI_STATUS_SUCCESS) return 0;
    int layout = jv_rsmi_freq_parse(buf, cur, max);
    if (layout) s->freq_layout = layout;
    return layout != 0;
}

void jv_rocm_smi_clocks(jv_rocm_smi *s, jv_clocks *c) {
    memset(c, 0, sizeof *c);
    if (!s->lib) return;
    uint64_t cur = 0, max = 0;
    if (!clock_of(s, RSMI_CLK_TYPE_SYS, &cur, &max)) return;
    c->known = 1;
    c->sm_mhz = (double)cur * 1e-6; /* Hz */
    c->sm_max_mhz = (double)max * 1e-6;
    if (clock_of(s, RSMI_CLK_TYPE_MEM, &cur, &max)) c->mem_mhz = (double)cur * 1e-6;
    uint64_t uw = 0;
    if ((s->power_ave && s->power_ave(s->index, 0, &uw) == RSMI_STATUS_SUCCESS && uw > 0) ||
        (s->power_socket && s->power_socket(s->index, &uw) == RSMI_STATUS_SUCCESS))
        c->power_w = (double)uw * 1e-6; /* microwatts */
    int64_t mc = 0;
    if (s->temp && (s->temp(s->index, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_CURRENT, &mc) == RSMI_STATUS_SUCCESS ||
                    s->temp(s->index, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &mc) == RSMI_STATUS_SUCCESS))
        c->temp_c = (double)mc * 1e-3; /* millidegrees */
}

void jv_rocm_smi_close(jv_rocm_smi *s) {
    if (s->lib) {
        if (s->shut_down) s->shut_down();
        dlclose(s->lib);
    }
    memset(s, 0, sizeof *s);
}
