/* jv_backends: the registry of replay backends (jv_backends.h), compiled over
 * jv_backends_configured.def: the lines of backends.def as configured, written
 * by backends/backends.cmake (jv_backend_registry), JV_BACKEND(...) for a
 * backend that is built, JV_BACKEND_UNBUILT(...) for one that is not. It is
 * generated into the build folder, not a file of the tree: hence <...>. */
#include "jv_backends.h"

#include <stdio.h>
#include <string.h>

/* the jv_backend objects of the backends built in */
#define JV_BACKEND(n, kind, toolkit) extern const jv_backend jv_##n##_backend;
#define JV_BACKEND_UNBUILT(n, kind, toolkit)
#include <jv_backends_configured.def>
#undef JV_BACKEND
#undef JV_BACKEND_UNBUILT

static const jv_backend_entry KNOWN[] = {
#define JV_BACKEND(n, kind, toolkit)         {#n, kind, toolkit, &jv_##n##_backend},
#define JV_BACKEND_UNBUILT(n, kind, toolkit) {#n, kind, toolkit, NULL},
#include <jv_backends_configured.def>
#undef JV_BACKEND
#undef JV_BACKEND_UNBUILT
};

int jv_backends_count(void) {
    return (int)(sizeof KNOWN / sizeof KNOWN[0]);
}

const jv_backend_entry *jv_backends_get(int i) {
    return i >= 0 && i < jv_backends_count() ? &KNOWN[i] : NULL;
}

const jv_backend_entry *jv_backends_find(const char *name) {
    for (int i = 0; i < jv_backends_count(); i++)
        if (!strcmp(KNOWN[i].name, name)) return &KNOWN[i];
    return NULL;
}

/* the built backends in `auto` order: pass 0 the GPU backends, pass 1 the others */
const char *jv_backends_built(char *buf, size_t cap) {
    size_t len = 0;
    if (cap) buf[0] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < jv_backends_count(); i++) {
            const jv_backend_entry *e = &KNOWN[i];
            if (!e->be || (e->kind == JV_BACKEND_GPU) != (pass == 0)) continue;
            int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", e->name);
            if (w < 0 || (size_t)w >= cap - len) return buf; /* truncated */
            len += (size_t)w;
        }
    return buf;
}

static void say(jv_backend_note_fn note, void *arg, const char *msg) {
    if (note) note(arg, msg);
}

jv_status jv_backends_open(const char *name, int device, jv_backend_note_fn note, void *note_arg, const jv_backend **be,
                           void **ctx, jv_err *err) {
    return jv_backends_open_on(name, device, device, note, note_arg, be, ctx, err);
}

jv_status jv_backends_open_on(const char *name, int gpu_device, int host_device, jv_backend_note_fn note,
                              void *note_arg, const jv_backend **be, void **ctx, jv_err *err) {
    char built[256];
    *be = NULL;
    *ctx = NULL;
    if (strcmp(name, "auto")) {
        const jv_backend_entry *e = jv_backends_find(name);
        if (!e) JV_FAIL(err, JV_ERR_NOTFOUND, "there is no %s backend (known: see --help)", name);
        if (!e->be)
            JV_FAIL(err, JV_ERR_NOTFOUND,
                    "this build has no %s backend (built with: %s); rebuild where the %s toolkit is installed", name,
                    jv_backends_built(built, sizeof built), e->toolkit);
        *be = e->be;
        return e->be->open(e->kind == JV_BACKEND_GPU ? gpu_device : host_device, ctx, err);
    }
    /* auto: the GPU backends built in, then the host backend */
    int gpus = 0;
    for (int i = 0; i < jv_backends_count(); i++) {
        const jv_backend_entry *e = &KNOWN[i];
        if (!e->be || e->kind != JV_BACKEND_GPU) continue;
        gpus++;
        jv_err e_open = {0};
        if (e->be->open(gpu_device, ctx, &e_open) == JV_OK) {
            *be = e->be;
            return JV_OK;
        }
        *ctx = NULL;
        char msg[sizeof e_open.msg + 64];
        snprintf(msg, sizeof msg, "%s: falling back to the CPU backend", e_open.msg);
        say(note, note_arg, msg);
    }
    for (int i = 0; i < jv_backends_count(); i++) {
        const jv_backend_entry *e = &KNOWN[i];
        if (!e->be || e->kind != JV_BACKEND_HOST) continue;
        if (!gpus) say(note, note_arg, "no GPU backend in this build: using the CPU backend");
        *be = e->be;
        return e->be->open(host_device, ctx, err);
    }
    JV_FAIL(err, JV_ERR_NOTFOUND, "this build has no host backend (built with: %s)",
            jv_backends_built(built, sizeof built));
}
