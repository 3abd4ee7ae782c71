/* jv_backends: the registry of replay backends. It lists every backend of
 * backends/backends.def (built into this program or not, in .def order),
 * finds one by name, and opens the one `--backend NAME` asks for, or for
 * `auto` the first GPU backend (in .def order) that opens a device, else the
 * host backend. The only place outside a backend's own folder that knows a
 * backend by name. The list is fixed at configure time: the build compiles it
 * over backends.def and the generated list of the backends that are built
 * (backends/backends.cmake, jv_backend_registry). */
#ifndef JV_BACKENDS_H
#define JV_BACKENDS_H

#include <stddef.h>

#include "backend.h"

/* The kind column of backends.def. */
typedef enum { JV_BACKEND_HOST = 0, JV_BACKEND_GPU = 1 } jv_backend_kind;

/* One line of backends.def. */
typedef struct {
    const char *name; /* "cpu", "cuda", "hip" */
    jv_backend_kind kind;
    const char *toolkit;  /* what to install to build it: "CUDA", "ROCm" */
    const jv_backend *be; /* NULL: not built into this program */
} jv_backend_entry;

/* The known backends (every backends.def line), in .def order. */
int jv_backends_count(void);
const jv_backend_entry *jv_backends_get(int i); /* NULL when i is out of range */

/* The backend of backends.def called name, or NULL when there is none (built or not). */
const jv_backend_entry *jv_backends_find(const char *name);

/* Writes the names of the backends built in, as `--backend auto` tries them (the GPU backends in .def order,
 * then the others), joined by ", " ("cuda, cpu"). Returns buf. */
const char *jv_backends_built(char *buf, size_t cap);

/* Called for each note of jv_backends_open (a GPU backend that did not open, the fallback to the host
 * backend); msg has no prefix and no newline. */
typedef void (*jv_backend_note_fn)(void *arg, const char *msg);

/* Opens device `device` on the backend called name, or for "auto" on the first GPU backend built in that
 * opens it (each one that fails is a note: "<its message>: falling back to the CPU backend"), else on the
 * host backend (a note when no GPU backend is built in). *be and *ctx receive the backend and its context.
 * JV_ERR_NOTFOUND when name is not in backends.def, or is not built in ("this build has no hip backend
 * (built with: cuda, cpu); rebuild where the ROCm toolkit is installed"); otherwise the status and message
 * of the backend's open. note may be NULL. */
jv_status jv_backends_open(const char *name, int device, jv_backend_note_fn note, void *note_arg, const jv_backend **be,
                           void **ctx, jv_err *err);

/* As jv_backends_open, with one device index for the GPU backends and another for the host backends (a fleet
 * rank: its local rank's GPU, or the host, device 0, whose CPUs the ranks share). */
jv_status jv_backends_open_on(const char *name, int gpu_device, int host_device, jv_backend_note_fn note,
                              void *note_arg, const jv_backend **be, void **ctx, jv_err *err);

#endif
