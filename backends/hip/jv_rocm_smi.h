/* jv_rocm_smi: an AMD GPU's clocks, power and temperature through the ROCm
 * SMI library (librocm_smi64, ROCm's counterpart of NVML), loaded at run
 * time with dlopen so that the HIP backend neither links nor needs it:
 * without it the backend falls back to the amdgpu driver's sysfs files
 * (jv_amdgpu). Plain C, no HIP: the unit test runs it against a fake
 * librocm_smi64 anywhere.
 *
 * The entry points are declared as rocm_smi.h documents them (ROCm 5.x to
 * 7.x): rsmi_init(uint64_t), rsmi_shut_down(void),
 * rsmi_num_monitor_devices(uint32_t *), rsmi_dev_pci_id_get(uint32_t,
 * uint64_t *) (BDFID = domain << 32 | bus << 8 | device << 3 | function),
 * rsmi_dev_name_get(uint32_t, char *, size_t),
 * rsmi_dev_gpu_clk_freq_get(uint32_t, rsmi_clk_type_t, rsmi_frequencies_t *)
 * (RSMI_CLK_TYPE_SYS 0, RSMI_CLK_TYPE_MEM 4; frequencies in Hz),
 * rsmi_dev_power_ave_get(uint32_t, uint32_t sensor, uint64_t *) and
 * rsmi_dev_current_socket_power_get(uint32_t, uint64_t *) (microwatts; MI300
 * reports only the second), rsmi_dev_temp_metric_get(uint32_t, uint32_t
 * sensor type, rsmi_temperature_metric_t, int64_t *) (RSMI_TEMP_TYPE_EDGE 0,
 * RSMI_TEMP_TYPE_JUNCTION 1, RSMI_TEMP_CURRENT 0; millidegrees Celsius).
 *
 * rsmi_frequencies_t has two layouts: up to ROCm 5.x { uint32_t
 * num_supported; uint32_t current; uint64_t frequency[32]; } (264 bytes),
 * from ROCm 6.0 { bool has_deep_sleep; uint32_t num_supported; uint32_t
 * current; uint64_t frequency[33]; } (280 bytes). The call writes into a
 * zeroed buffer larger than both, and jv_rsmi_freq_parse tells the layouts
 * apart by their contents (below): no version guess, no write past a buffer.
 *
 * AMD SMI (libamd_smi, jv_amd_smi) is tried first where present; this is
 * the fallback for installs without it or with an AMD SMI of another ABI.
 * The helpers at the end (bus id parsing, the library search, dlsym) are the
 * one copy both SMI loaders use. */
#ifndef JV_ROCM_SMI_H
#define JV_ROCM_SMI_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* Bytes jv_rocm_smi hands rsmi_dev_gpu_clk_freq_get: more than either layout (280 bytes). */
#define JV_RSMI_FREQ_BUF 512

typedef struct {
    void *lib;       /* dlopen handle; NULL: not usable (why says why) */
    uint32_t index;  /* the SMI index of the device */
    char path[256];  /* the library dlopen took */
    char why[300];   /* not usable: the names tried, the symbol missing, the call that failed, no device at the bus */
    char name[128];  /* rsmi_dev_name_get ("" when it fails) */
    int freq_layout; /* the rsmi_frequencies_t layout the last clock read found: 5 (ROCm 5) or 6; 0 none yet */
    int (*shut_down)(void);
    int (*clk)(uint32_t dv, int type, void *freqs);
    int (*power_ave)(uint32_t dv, uint32_t sensor, uint64_t *uw);       /* NULL when this library lacks it */
    int (*power_socket)(uint32_t dv, uint64_t *uw);                     /* NULL when this library lacks it */
    int (*temp)(uint32_t dv, uint32_t sensor, int metric, int64_t *mc); /* NULL when this library lacks it */
} jv_rocm_smi;

/* Loads ROCm SMI, initializes it and finds the device at PCI bus id `bus`
 * ("0000:c1:00.0", from hipDeviceGetPCIBusId, any case; the domain, bus and
 * device numbers are compared, not the function, where a partitioned MI300X
 * puts its partition). lib: the library file to load; NULL: librocm_smi64.so
 * (.so.7, .so.6, .so.5, .so.1) in the default search path, then under
 * $ROCM_PATH/lib and /opt/rocm/lib. On any failure s->lib stays NULL and
 * s->why says why (one line at start-up): clocks then come from sysfs. */
void jv_rocm_smi_open(jv_rocm_smi *s, const char *lib, const char *bus);

/* The clocks now: the current system clock and the highest level it may
 * take (RSMI_CLK_TYPE_SYS), the current memory clock (RSMI_CLK_TYPE_MEM),
 * MHz; the power (average, else current socket power), watts; the junction
 * (hotspot) temperature, else the edge one, degrees Celsius. c->known 0
 * without ROCm SMI or when the system clock cannot be read. ROCm SMI gives
 * no throttle reasons here: c->reasons stays 0. */
void jv_rocm_smi_clocks(jv_rocm_smi *s, jv_clocks *c);

/* Shuts ROCm SMI down and unloads it. Safe on a zeroed s. */
void jv_rocm_smi_close(jv_rocm_smi *s);

/* Reads an rsmi_frequencies_t of either layout from buf (JV_RSMI_FREQ_BUF
 * bytes, zeroed before the call): *cur_hz the current level's frequency,
 * *max_hz the highest supported one. Returns the layout (5: num_supported at
 * 0, current at 4, frequency[32] at 8; 6: has_deep_sleep at 0, num_supported
 * at 4, current at 8, frequency[33] at 16), or 0 when neither reads
 * consistently (a count of 1 to its maximum, current below it, every listed
 * frequency from 1 MHz to 100 GHz). The two cannot both read: in layout 6
 * the word at 8 is the current index (< 33), in layout 5 it is the low half
 * of a frequency in Hz (>= 1e6). */
int jv_rsmi_freq_parse(const unsigned char *buf, uint64_t *cur_hz, uint64_t *max_hz);

/* ---- shared by the SMI loaders (jv_rocm_smi, jv_amd_smi) ---- */

/* "0000:c1:00.0" (any case) into its domain, bus, device and function; 0 when it does not parse. */
int jv_smi_parse_bus(const char *bus, unsigned *dom, unsigned *b, unsigned *dev, unsigned *fn);

/* dlopen (RTLD_NOW | RTLD_LOCAL) of lib when given; else of names[0..n) in the loader's search path, then under
 * $ROCM_PATH/lib and /opt/rocm/lib, the first that loads. path receives what was asked of dlopen. NULL when none
 * loads. */
void *jv_smi_load(const char *lib, const char *const *names, size_t n, char *path, size_t cap);

/* dlsym of name in lib, the function pointer copied into out (fnsize bytes: ISO C has no cast from void * to a
 * function pointer); returns the symbol, NULL (out untouched) when absent. */
void *jv_smi_sym(void *lib, const char *name, size_t fnsize, void *out);

/* The 32- and 64-bit words at byte off of a record the library wrote (unaligned, host order). */
uint32_t jv_smi_rd32(const unsigned char *b, size_t off);
uint64_t jv_smi_rd64(const unsigned char *b, size_t off);

/* The file the symbol sym of a loaded library came from (dladdr) into path, when dladdr says. */
void jv_smi_where(void *sym, char *path, size_t cap);

#endif
