/* jv_amd_smi: an AMD GPU's clocks, power and temperature through AMD SMI
 * (libamd_smi, the library ROCm 6 and 7 ship to replace ROCm SMI), loaded at
 * run time with dlopen so that the HIP backend neither links nor needs it.
 * The backend tries it first; without it, or with an AMD SMI of another ABI,
 * ROCm SMI (jv_rocm_smi) and then the amdgpu driver's sysfs files (jv_amdgpu)
 * are used. Plain C, no HIP: the unit test runs it against a fake libamd_smi.
 *
 * ABI targeted: AMD SMI 26 (amdsmi.h with AMDSMI_LIB_VERSION_MAJOR 26, 26.1.0
 * read: ROCm 7.x; "major version should be changed for every header change
 * that breaks ABI", amdsmi.h says). amdsmi_get_lib_version is asked first
 * and any other major is refused, named: the 24.x releases (ROCm 6.1-6.3)
 * have another amdsmi_power_info_t (six uint32_t, no socket_power) and a
 * version struct led by a `year`; 25.x had an amdsmi_get_power_info taking a
 * sensor index in one release. What is used, as amdsmi.h 26 declares it:
 *   amdsmi_init(uint64_t flags) (AMDSMI_INIT_AMD_GPUS = 1 << 1), amdsmi_shut_down(void),
 *   amdsmi_get_lib_version(amdsmi_version_t *) ({uint32_t major, minor, release; const char *build}),
 *   amdsmi_get_socket_handles(uint32_t *count, amdsmi_socket_handle *) (NULL handles: the count),
 *   amdsmi_get_processor_handles(amdsmi_socket_handle, uint32_t *count, amdsmi_processor_handle *),
 *   amdsmi_get_gpu_device_bdf(amdsmi_processor_handle, amdsmi_bdf_t *) (a uint64_t: function bits 0-2,
 *     device 3-7, bus 8-15, domain 16-63; not ROCm SMI's domain << 32),
 *   amdsmi_get_clk_freq(amdsmi_processor_handle, amdsmi_clk_type_t, amdsmi_frequencies_t *)
 *     (AMDSMI_CLK_TYPE_SYS 0, AMDSMI_CLK_TYPE_MEM 4; { bool has_deep_sleep; uint32_t num_supported;
 *     uint32_t current; uint64_t frequency[33]; }, in Hz: AMD SMI hands the call to
 *     rsmi_dev_gpu_clk_freq_get with the record cast, so jv_rsmi_freq_parse reads it),
 *   amdsmi_get_power_info(amdsmi_processor_handle, amdsmi_power_info_t *) ({uint64_t socket_power;
 *     uint32_t current_socket_power; uint32_t average_socket_power; uint64_t gfx_voltage, soc_voltage,
 *     mem_voltage; uint32_t power_limit; uint64_t reserved[18];}, 192 bytes; watts; an unsupported member
 *     holds UINT32_MAX (0xFFFF in older releases)),
 *   amdsmi_get_temp_metric(amdsmi_processor_handle, amdsmi_temperature_type_t, amdsmi_temperature_metric_t,
 *     int64_t *) (AMDSMI_TEMPERATURE_TYPE_EDGE 0, _HOTSPOT (= _JUNCTION) 1, AMDSMI_TEMP_CURRENT 0; degrees
 *     Celsius: AMD SMI divides ROCm SMI's millidegrees by 1000). */
#ifndef JV_AMD_SMI_H
#define JV_AMD_SMI_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* The AMD SMI ABI (AMDSMI_LIB_VERSION_MAJOR) whose structs and enums jv_amd_smi declares. */
#define JV_AMDSMI_ABI 26

/* Bytes of amdsmi_power_info_t in ABI 26 (the buffer handed over is larger). */
#define JV_AMDSMI_POWER_INFO_BYTES 192

typedef struct {
    void *lib;        /* dlopen handle; NULL: not usable (why says why) */
    void *proc;       /* the device's amdsmi_processor_handle */
    char path[256];   /* the library dlopen took */
    char why[300];    /* not usable: the names tried, the symbol missing, the version, the call that failed */
    char version[48]; /* amdsmi_get_lib_version's, "26.1.0" ("" before it is asked) */
    int freq_layout;  /* the frequency record's layout the last clock read found (jv_rsmi_freq_parse) */
    int (*shut_down)(void);
    int (*clk)(void *proc, int type, void *freqs);
    int (*power)(void *proc, void *info);                            /* NULL when this library lacks it */
    int (*temp)(void *proc, int sensor, int metric, int64_t *deg_c); /* NULL when this library lacks it */
} jv_amd_smi;

/* Loads AMD SMI, initializes it for AMD GPUs, checks that its ABI is
 * JV_AMDSMI_ABI and finds the processor at PCI bus id `bus` ("0000:c1:00.0",
 * from hipDeviceGetPCIBusId, any case): the one whose domain, bus, device and
 * function all match, else the first whose domain, bus and device match (a
 * partition of an MI300X may be numbered otherwise). The system clock is read
 * once: a record that parses as no layout makes the library unused. lib: the
 * library file; NULL: libamd_smi.so (.so.26) in the default search path, then
 * under $ROCM_PATH/lib and /opt/rocm/lib. On any failure s->lib stays NULL,
 * s->why says why (one line at start-up) and what was initialized is shut
 * down. */
void jv_amd_smi_open(jv_amd_smi *s, const char *lib, const char *bus);

/* The clocks now, as jv_rocm_smi_clocks gives them: the current system clock
 * and its highest level, the current memory clock (MHz, from Hz); the power
 * (average socket power, else current socket power, else socket power;
 * watts); the hotspot (junction) temperature, else the edge one (degrees
 * Celsius; a reading of 1000 or more, which would be millidegrees, is not
 * taken). c->known 0 without AMD SMI or when the system clock cannot be read;
 * c->reasons stays 0. */
void jv_amd_smi_clocks(jv_amd_smi *s, jv_clocks *c);

/* Shuts AMD SMI down and unloads it. Safe on a zeroed s. */
void jv_amd_smi_close(jv_amd_smi *s);

#endif
