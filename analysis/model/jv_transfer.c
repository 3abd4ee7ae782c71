/* jv_transfer: memcpy and memset events, by event category first, then by the runtime's names. */
#include "jv_transfer.h"

#include <string.h>

static int starts(const char *s, const char *p) {
    return !strncmp(s, p, strlen(p));
}

/* the direction in a memcpy's name ("Memcpy HtoD (...)", rocprof's "CopyHostToDevice") */
static jv_xfer memcpy_direction(const char *n) {
    if (strstr(n, "HtoD") || strstr(n, "HostToDevice")) return JV_XFER_HTOD;
    if (strstr(n, "DtoH") || strstr(n, "DeviceToHost")) return JV_XFER_DTOH;
    if (strstr(n, "DtoD") || strstr(n, "DeviceToDevice")) return JV_XFER_DTOD;
    if (strstr(n, "PtoP") || strstr(n, "Peer")) return JV_XFER_PTOP;
    return JV_XFER_MEMCPY;
}

jv_xfer jv_transfer_of(jv_kind k, const char *name) {
    const char *n = name ? name : "";
    if (k == JV_K_MEMSET) return JV_XFER_MEMSET;
    if (k == JV_K_MEMCPY) return memcpy_direction(n);
    if (k != JV_K_KERNEL) return JV_XFER_NONE;
    /* kernels that are the runtime's copies and fills (AMD's blit kernels; rocprof's copy records) */
    if (starts(n, "__amd_rocclr_copyBuffer") || starts(n, "__amd_rocclr_copyImage")) return JV_XFER_DTOD;
    if (starts(n, "__amd_rocclr_fillBuffer") || starts(n, "__amd_rocclr_fillImage") || starts(n, "FillBuffer"))
        return JV_XFER_MEMSET;
    if (starts(n, "Copy") && (strstr(n, "HostTo") || strstr(n, "DeviceTo"))) return memcpy_direction(n);
    if (starts(n, "Memcpy ")) return memcpy_direction(n);
    if (starts(n, "Memset ")) return JV_XFER_MEMSET;
    return JV_XFER_NONE;
}

jv_xfer jv_transfer_mostly(const double t[JV_XFER_COUNT]) {
    double xfer = 0;
    jv_xfer best = JV_XFER_NONE;
    for (int x = JV_XFER_NONE + 1; x < JV_XFER_COUNT; x++) {
        xfer += t[x];
        if (t[x] > 0 && (best == JV_XFER_NONE || t[x] > t[best])) best = (jv_xfer)x;
    }
    return xfer > 0 && 2 * xfer >= xfer + t[JV_XFER_NONE] ? best : JV_XFER_NONE;
}

int jv_transfer_is_host(jv_xfer x) {
    return x == JV_XFER_HTOD || x == JV_XFER_DTOH;
}

const char *jv_transfer_name(jv_xfer x) {
    static const char *const N[JV_XFER_COUNT] = {"",       "HtoD memcpy", "DtoH memcpy", "DtoD memcpy", "PtoP memcpy",
                                                 "memcpy", "memset"};
    return x >= 0 && x < JV_XFER_COUNT ? N[x] : "";
}
