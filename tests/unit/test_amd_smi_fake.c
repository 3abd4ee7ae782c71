/* test_amd_smi_fake: a fake libamd_smi.so for test_amd_smi. It exports the
 * entry points backends/hip/jv_amd_smi.c loads, with amdsmi.h's (ABI 26)
 * signatures, records and units (amdsmi_bdf_t as function bits 0-2, device
 * 3-7, bus 8-15, domain 16-63; frequencies in Hz in the record with
 * has_deep_sleep and 33 frequencies, its padding filled with 0xAB; power in
 * watts, UINT32_MAX where a member is unsupported; temperature in degrees
 * Celsius), over four processors on two sockets whose values the test knows:
 * socket 0 holds 0000:03:00.0; socket 1 holds 0001:c1:00.0, 0001:c1:00.1 (a
 * partition) and, last, 0000:c1:00.0 (so that ROCm SMI's domain << 32 read
 * of a BDF, or a match ignoring the function, finds another processor).
 * jv_fake_asmi_config sets what it does; jv_fake_asmi_calls says how often
 * init and shut_down ran. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* the exported entry points (amdsmi.h's signatures; enums as int, handles as void *) */
void jv_fake_asmi_config(int major, int year_layout, int init_status, int no_hotspot, int mhz_clocks);
void jv_fake_asmi_calls(int *inits, int *shutdowns);
int amdsmi_init(uint64_t flags);
int amdsmi_shut_down(void);
int amdsmi_get_lib_version(void *version);
int amdsmi_get_socket_handles(uint32_t *count, void **sockets);
int amdsmi_get_processor_handles(void *socket, uint32_t *count, void **procs);
int amdsmi_get_gpu_device_bdf(void *proc, uint64_t *bdf);
int amdsmi_get_clk_freq(void *proc, int type, void *f);
int amdsmi_get_power_info(void *proc, void *info);
int amdsmi_get_temp_metric(void *proc, int sensor, int metric, int64_t *deg_c);

enum { OK = 0, INVAL = 1, NOT_SUPPORTED = 2, NOT_INIT = 32 };

typedef struct {
    int major, year_layout, init_status, no_hotspot, mhz_clocks;
    int inits, shutdowns, live;
} fake_cfg;

/* fake state; a test library's, not the product's */
static fake_cfg G = {26, 0, 0, 0, 0, 0, 0, 0};

typedef struct {
    unsigned dom, bus, dev, fn;
    uint64_t sclk[3];
    uint32_t sclk_cur;
    uint64_t mclk[2];
    uint32_t mclk_cur;
    uint32_t avg_w, cur_w; /* UINT32_MAX: unsupported */
    uint64_t socket_w;
    int64_t hot_c, edge_c;
} fake_proc;

#define GHZ(x) ((uint64_t)((x)*1e9))
static const fake_proc P[4] = {
    {0, 0x03, 0, 0, {GHZ(0.5), GHZ(0.8), GHZ(1.7)}, 0, {GHZ(0.4), GHZ(1.6)}, 0, 88, UINT32_MAX, 88, 35, 30},
    {1, 0xc1, 0, 0, {GHZ(0.5), GHZ(1.31), GHZ(2.1)}, 1, {GHZ(0.9), GHZ(1.3)}, 1, UINT32_MAX, 653, 640, 71, 48},
    {1, 0xc1, 0, 1, {GHZ(0.5), GHZ(1.4), GHZ(2.1)}, 1, {GHZ(0.9), GHZ(1.3)}, 1, UINT32_MAX, 610, 600, 73, 49},
    {0, 0xc1, 0, 0, {GHZ(0.5), GHZ(1.2), GHZ(1.9)}, 1, {GHZ(0.9), GHZ(1.2)}, 1, 301, 299, 300, 55, 40},
};
static int SOCKET_TOKEN[2];

void jv_fake_asmi_config(int major, int year_layout, int init_status, int no_hotspot, int mhz_clocks) {
    G.major = major, G.year_layout = year_layout, G.init_status = init_status;
    G.no_hotspot = no_hotspot, G.mhz_clocks = mhz_clocks;
}

void jv_fake_asmi_calls(int *inits, int *shutdowns) {
    *inits = G.inits;
    *shutdowns = G.shutdowns;
}

int amdsmi_init(uint64_t flags) {
    G.inits++;
    if (!(flags & 2)) return INVAL; /* AMDSMI_INIT_AMD_GPUS must be asked for */
    if (G.init_status) return G.init_status;
    G.live = 1;
    return OK;
}

int amdsmi_shut_down(void) {
    G.shutdowns++;
    G.live = 0;
    return OK;
}

int amdsmi_get_lib_version(void *version) {
    if (!G.live) return NOT_INIT;
    static const char build[] = "fake";
    const char *bp = build;
    unsigned char *v = version;
    uint32_t w[4] = {(uint32_t)G.major, 1, 0, 0};
    if (G.year_layout) /* {year, major, minor, release, build}: 24.7.1.0 */
        w[0] = 24, w[1] = (uint32_t)G.major, w[2] = 1, w[3] = 0;
    memcpy(v, w, G.year_layout ? 16 : 12);
    memcpy(v + 16, &bp, sizeof bp); /* the build pointer: at 16 in both records (after padding in ABI 26) */
    return OK;
}

static const fake_proc *proc_of(void *h) {
    for (int i = 0; i < 4; i++)
        if (h == (const void *)&P[i]) return &P[i];
    return NULL;
}

int amdsmi_get_socket_handles(uint32_t *count, void **sockets) {
    if (!G.live) return NOT_INIT;
    if (!count) return INVAL;
    if (!sockets) {
        *count = 2;
        return OK;
    }
    if (*count < 2) return INVAL;
    sockets[0] = &SOCKET_TOKEN[0], sockets[1] = &SOCKET_TOKEN[1];
    *count = 2;
    return OK;
}

int amdsmi_get_processor_handles(void *socket, uint32_t *count, void **procs) {
    if (!G.live) return NOT_INIT;
    if (!count) return INVAL;
    static const int S0[] = {0}, S1[] = {1, 2, 3};
    const int *ix = socket == &SOCKET_TOKEN[0] ? S0 : socket == &SOCKET_TOKEN[1] ? S1 : NULL;
    uint32_t n = socket == &SOCKET_TOKEN[0] ? 1 : 3;
    if (!ix) return INVAL;
    if (!procs) {
        *count = n;
        return OK;
    }
    if (*count < n) return INVAL;
    for (uint32_t i = 0; i < n; i++)
        procs[i] = (void *)&P[ix[i]];
    *count = n;
    return OK;
}

int amdsmi_get_gpu_device_bdf(void *proc, uint64_t *bdf) {
    const fake_proc *p = proc_of(proc);
    if (!G.live) return NOT_INIT;
    if (!p || !bdf) return INVAL;
    *bdf = (uint64_t)p->fn | (uint64_t)p->dev << 3 | (uint64_t)p->bus << 8 | (uint64_t)p->dom << 16;
    return OK;
}

/* { bool has_deep_sleep; uint32_t num_supported; uint32_t current; uint64_t frequency[33]; } */
static void put_freqs(unsigned char *out, const uint64_t *f, uint32_t n, uint32_t cur) {
    memset(out, 0xAB, 16);
    out[0] = 1;
    memcpy(out + 4, &n, 4);
    memcpy(out + 8, &cur, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = G.mhz_clocks ? f[i] / 1000000u : f[i];
        memcpy(out + 16 + 8 * (size_t)i, &v, 8);
    }
}

int amdsmi_get_clk_freq(void *proc, int type, void *f) {
    const fake_proc *p = proc_of(proc);
    if (!G.live) return NOT_INIT;
    if (!p || !f) return INVAL;
    if (type == 0)
        put_freqs(f, p->sclk, 3, p->sclk_cur);
    else if (type == 4)
        put_freqs(f, p->mclk, 2, p->mclk_cur);
    else
        return NOT_SUPPORTED;
    return OK;
}

/* amdsmi_power_info_t (ABI 26): socket_power u64 at 0, current_socket_power u32 at 8, average_socket_power u32 at
 * 12, gfx/soc/mem voltage u64 at 16/24/32, power_limit u32 at 40, reserved[18] u64 from 48: 192 bytes */
int amdsmi_get_power_info(void *proc, void *info) {
    const fake_proc *p = proc_of(proc);
    if (!G.live) return NOT_INIT;
    if (!p || !info) return INVAL;
    unsigned char *b = info;
    memset(b, 0, 192);
    uint64_t volt = 850;
    uint32_t limit = 750;
    memcpy(b, &p->socket_w, 8);
    memcpy(b + 8, &p->cur_w, 4);
    memcpy(b + 12, &p->avg_w, 4);
    memcpy(b + 16, &volt, 8), memcpy(b + 24, &volt, 8), memcpy(b + 32, &volt, 8);
    memcpy(b + 40, &limit, 4);
    return OK;
}

int amdsmi_get_temp_metric(void *proc, int sensor, int metric, int64_t *deg_c) {
    const fake_proc *p = proc_of(proc);
    if (!G.live) return NOT_INIT;
    if (!p || metric != 0 || !deg_c) return INVAL;
    if (sensor == 1) {
        if (G.no_hotspot) return NOT_SUPPORTED;
        *deg_c = p->hot_c;
        return OK;
    }
    if (sensor == 0) {
        *deg_c = p->edge_c;
        return OK;
    }
    return NOT_SUPPORTED;
}
