/* jv_nvml: the device clocks and the reasons they are held down, read
 * through NVML (libnvidia-ml.so.1, part of the driver) loaded at run time,
 * so the backend neither links nor needs it: without it clocks are unknown. */
#ifndef JV_NVML_H
#define JV_NVML_H

#include "backend.h"

typedef struct {
    void *lib; /* dlopen handle; NULL: NVML absent (clocks unknown) */
    void *dev; /* nvmlDevice_t */
    int (*clock)(void *dev, int type, unsigned *mhz);
    int (*max_clock)(void *dev, int type, unsigned *mhz);
    int (*reasons)(void *dev, unsigned long long *bits);
    int (*power)(void *dev, unsigned *milliwatts);         /* NULL when this NVML lacks it */
    int (*temp)(void *dev, int sensor, unsigned *celsius); /* nvmlDeviceGetTemperature; NULL when absent */
    int (*shutdown)(void);
} jv_nvml;

/* Loads NVML and finds the device with PCI bus id `bus` ("0000:3b:00.0", from
 * cudaDeviceGetPCIBusId). On any failure n->lib stays NULL: clocks unknown. */
void jv_nvml_open(jv_nvml *n, const char *bus);

/* The clocks now; c->known 0 without NVML. */
void jv_nvml_clocks(const jv_nvml *n, jv_clocks *c);

/* Shuts NVML down and unloads it. Safe on a zeroed n. */
void jv_nvml_close(jv_nvml *n);

#endif
