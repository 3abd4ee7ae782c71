/* jv_amdgpu: what the HIP runtime does not say about an AMD GPU, read the way
 * ROCm SMI reads it: the clocks, the power and the temperature from the amdgpu
 * driver's sysfs files (the fallback when neither AMD SMI nor ROCm SMI is
 * usable), and the last-level cache (the Infinity Cache, which hipDeviceProp's
 * l2CacheSize leaves out) from the architecture. Plain C, no HIP: the HIP
 * backend uses it, and the unit tests run it on a fake sysfs tree anywhere.
 *
 * Why sysfs and not librocm_smi64: ROCm SMI's rsmi_frequencies_t changed its
 * layout between releases (a leading bool has_deep_sleep; 32, then 33
 * frequencies), so a hand-declared mirror of it reads garbage, or writes past
 * its buffer, on one release or the other; the files it reads have kept their
 * format (pp_dpm_sclk since the amdgpu driver's first release). */
#ifndef JV_AMDGPU_H
#define JV_AMDGPU_H

#include <stdint.h>

#include "backend.h"

typedef struct {
    char dev[512];   /* <root>/bus/pci/devices/<bus id>: the device's sysfs folder; "" when absent */
    char power[600]; /* its hwmon power file (power1_average, else power1_input; microwatts); "" when absent */
    char temp[600];  /* its hwmon temperature file (tempN_input, millidegrees C): the one labelled "junction", else
                      * "edge"; "" when neither */
} jv_amdgpu;

/* Finds the sysfs folder of the GPU at PCI bus id `bus` ("0000:c1:00.0", from
 * hipDeviceGetPCIBusId, any case) under `root` ("/sys"; a test gives its own
 * tree). a->dev stays "" when the folder or its pp_dpm_sclk file is missing:
 * clocks unknown. */
void jv_amdgpu_open(jv_amdgpu *a, const char *root, const char *bus);

/* The clocks now: the core clock (pp_dpm_sclk: the level marked '*' is the
 * current one, the highest level the allowed maximum), the memory clock
 * (pp_dpm_mclk), the board power (hwmon, watts; 0 unknown) and the
 * temperature (hwmon tempN_input labelled "junction", else "edge";
 * millidegrees in the file, degrees Celsius here; 0 unknown). c->known 0
 * when the core clock cannot be read. AMD's driver gives no throttle reasons
 * here: c->reasons stays 0 (the replay still flags a clock under 90 % of the
 * maximum). */
void jv_amdgpu_clocks(const jv_amdgpu *a, jv_clocks *c);

/* The last-level cache of an AMD GPU of architecture `gcn_arch` ("gfx942",
 * "gfx942:sramecc+:xnack-"): the 256 MiB Infinity Cache (MALL) of gfx940 to
 * gfx942 (MI300A/X, MI325X) and gfx950 (MI350X/MI355X), else l2_bytes (MI200,
 * gfx90a, has none). The cold-cache flush must evict it. */
int64_t jv_amdgpu_llc_bytes(const char *gcn_arch, int64_t l2_bytes);

#endif
