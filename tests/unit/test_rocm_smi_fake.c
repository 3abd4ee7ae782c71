/* test_rocm_smi_fake: a fake librocm_smi64.so for test_rocm_smi. It exports
 * the entry points backends/hip/jv_rocm_smi.c loads, with rocm_smi.h's
 * signatures and units (frequencies in Hz, power in microwatts, temperature
 * in millidegrees Celsius), over two devices whose values the test knows;
 * rsmi_frequencies_t is written in the ROCm 5 layout or the ROCm 6 one (with
 * has_deep_sleep and its padding filled with 0xAB, as an uninitialized
 * padding may be). jv_fake_rsmi_config sets what it does; jv_fake_rsmi_calls
 * says how often init and shut_down ran. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* the exported entry points (rocm_smi.h's signatures, enums as int) */
void jv_fake_rsmi_config(int layout, int init_status, int no_power_ave, int no_junction);
void jv_fake_rsmi_calls(int *inits, int *shutdowns);
int rsmi_init(uint64_t flags);
int rsmi_shut_down(void);
int rsmi_num_monitor_devices(uint32_t *n);
int rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid);
int rsmi_dev_name_get(uint32_t dv, char *name, size_t len);
int rsmi_dev_gpu_clk_freq_get(uint32_t dv, int type, void *f);
int rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *uw);
int rsmi_dev_current_socket_power_get(uint32_t dv, uint64_t *uw);
int rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor_type, int metric, int64_t *mc);

typedef struct {
    int layout;       /* 5 or 6: the rsmi_frequencies_t layout written */
    int init_status;  /* what rsmi_init returns */
    int no_power_ave; /* rsmi_dev_power_ave_get: NOT_SUPPORTED (MI300) */
    int no_junction;  /* rsmi_dev_temp_metric_get(JUNCTION): NOT_SUPPORTED */
    int inits, shutdowns;
} fake_cfg;

enum { OK = 0, INVALID_ARGS = 1, NOT_SUPPORTED = 2 };

/* fake state; a test library's, not the product's */
static fake_cfg G = {5, 0, 0, 0, 0, 0};

/* device 0 at 0000:03:00.0, device 1 at 0000:c1:00.0 (function 0) */
static const uint64_t BDF[2] = {(0ull << 32) | (0x03u << 8), (0ull << 32) | (0xc1u << 8)};
static const char *const NAME[2] = {"AMD Instinct MI210", "AMD Instinct MI300X"};
static const uint64_t SCLK[2][3] = {{500000000ull, 800000000ull, 1700000000ull},
                                    {500000000ull, 1310000000ull, 2100000000ull}};
static const uint32_t SCLK_CUR[2] = {0, 1};
static const uint64_t MCLK[2][2] = {{400000000ull, 1600000000ull}, {900000000ull, 1300000000ull}};
static const uint32_t MCLK_CUR[2] = {0, 1};
static const uint64_t POWER_AVE[2] = {88000000ull, 653250000ull};  /* 88 W, 653.25 W */
static const uint64_t POWER_SOCK[2] = {91000000ull, 412500000ull}; /* 91 W, 412.5 W */
static const int64_t TEMP_JUNCTION[2] = {35000, 71500};            /* 35 C, 71.5 C */
static const int64_t TEMP_EDGE[2] = {30000, 48000};                /* 30 C, 48 C */

void jv_fake_rsmi_config(int layout, int init_status, int no_power_ave, int no_junction) {
    G.layout = layout;
    G.init_status = init_status;
    G.no_power_ave = no_power_ave;
    G.no_junction = no_junction;
}

void jv_fake_rsmi_calls(int *inits, int *shutdowns) {
    *inits = G.inits;
    *shutdowns = G.shutdowns;
}

int rsmi_init(uint64_t flags) {
    (void)flags;
    G.inits++;
    return G.init_status;
}

int rsmi_shut_down(void) {
    G.shutdowns++;
    return OK;
}

int rsmi_num_monitor_devices(uint32_t *n) {
    *n = 2;
    return OK;
}

int rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid) {
    if (dv >= 2 || !bdfid) return INVALID_ARGS;
    *bdfid = BDF[dv];
    return OK;
}

int rsmi_dev_name_get(uint32_t dv, char *name, size_t len) {
    if (dv >= 2 || !name || !len) return INVALID_ARGS;
    strncpy(name, NAME[dv], len - 1);
    name[len - 1] = 0;
    return OK;
}

/* writes an rsmi_frequencies_t of G.layout at out */
static void put_freqs(unsigned char *out, const uint64_t *f, uint32_t n, uint32_t cur) {
    if (G.layout ==
        6) { /* { bool has_deep_sleep; uint32_t num_supported; uint32_t current; uint64_t frequency[33]; } */
        memset(out, 0xAB, 16);
        out[0] = 1;
        memcpy(out + 4, &n, 4);
        memcpy(out + 8, &cur, 4);
        memcpy(out + 16, f, 8 * (size_t)n);
    } else { /* { uint32_t num_supported; uint32_t current; uint64_t frequency[32]; } */
        memcpy(out, &n, 4);
        memcpy(out + 4, &cur, 4);
        memcpy(out + 8, f, 8 * (size_t)n);
    }
}

int rsmi_dev_gpu_clk_freq_get(uint32_t dv, int type, void *f) {
    if (dv >= 2 || !f) return INVALID_ARGS;
    if (type == 0)
        put_freqs(f, SCLK[dv], 3, SCLK_CUR[dv]);
    else if (type == 4)
        put_freqs(f, MCLK[dv], 2, MCLK_CUR[dv]);
    else
        return NOT_SUPPORTED;
    return OK;
}

int rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *uw) {
    if (dv >= 2 || sensor != 0 || !uw) return INVALID_ARGS;
    if (G.no_power_ave) return NOT_SUPPORTED;
    *uw = POWER_AVE[dv];
    return OK;
}

int rsmi_dev_current_socket_power_get(uint32_t dv, uint64_t *uw) {
    if (dv >= 2 || !uw) return INVALID_ARGS;
    *uw = POWER_SOCK[dv];
    return OK;
}

int rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor_type, int metric, int64_t *mc) {
    if (dv >= 2 || metric != 0 || !mc) return INVALID_ARGS;
    if (sensor_type == 1) {
        if (G.no_junction) return NOT_SUPPORTED;
        *mc = TEMP_JUNCTION[dv];
        return OK;
    }
    if (sensor_type == 0) {
        *mc = TEMP_EDGE[dv];
        return OK;
    }
    return NOT_SUPPORTED;
}
