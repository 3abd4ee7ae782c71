/* jv_transfer: which GPU events are memory transfers (memcpy, memset) rather than kernels that compute: the one
 * place that classifies them. Transfers never enter an HBM roofline, a kernel verdict or the elementwise
 * baseline: a host transfer is bound by the host link (PCIe), a device copy or memset is a copy engine or
 * runtime fill, not a kernel a kernel team can improve. */
#ifndef JV_TRANSFER_H
#define JV_TRANSFER_H

#include "jv_trace.h"

/* What a GPU event is, as a transfer. */
typedef enum {
    JV_XFER_NONE = 0, /* a kernel */
    JV_XFER_HTOD,     /* host to device memcpy */
    JV_XFER_DTOH,     /* device to host memcpy */
    JV_XFER_DTOD,     /* device to device memcpy */
    JV_XFER_PTOP,     /* peer to peer memcpy (another GPU) */
    JV_XFER_MEMCPY,   /* a memcpy of unknown direction */
    JV_XFER_MEMSET,   /* memset / buffer fill */
    JV_XFER_COUNT
} jv_xfer;

/* The transfer kind of a GPU event of trace kind k (jv_kind: the event's category, gpu_memcpy / gpu_memset /
 * Memcpy / Memset, is the primary evidence) named name (the direction: "Memcpy HtoD (Pageable -> Device)",
 * "Memcpy DtoH ...", "DtoD", "PtoP"; AMD's runtime copy and fill kernels "__amd_rocclr_copyBuffer*",
 * "__amd_rocclr_fillBuffer*", and rocprof's "CopyHostToDevice", "CopyDeviceToHost", "CopyDeviceToDevice",
 * "FillBuffer" also count). JV_XFER_NONE for any other kernel; name may be NULL. */
jv_xfer jv_transfer_of(jv_kind k, const char *name);

/* The transfer kind of a set of GPU events that spent t[x] (any unit) in each kind x (t[JV_XFER_NONE]: kernels):
 * the kind with the most time when the transfers together take at least half of all of it, else JV_XFER_NONE
 * ("mostly a transfer": the rule for an op instance and for a row alike). */
jv_xfer jv_transfer_mostly(const double t[JV_XFER_COUNT]);

/* 1 for a transfer between host and GPU memory (HtoD, DtoH): bound by the host link, not HBM. */
int jv_transfer_is_host(jv_xfer x);

/* A short name: "", "HtoD memcpy", "DtoH memcpy", "DtoD memcpy", "PtoP memcpy", "memcpy", "memset". */
const char *jv_transfer_name(jv_xfer x);

#endif
