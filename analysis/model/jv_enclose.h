/* jv_enclose: which of a chosen set of host events holds a given event in time on its thread. Events outside the
 * call tree (user annotations) or named by what they mark ("Torch-Compiled Region: 0/0") are found this way: an
 * index of the chosen events sorted by (thread, start), searched by binary search. */
#ifndef JV_ENCLOSE_H
#define JV_ENCLOSE_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"
#include "jv_trace.h"

typedef struct {
    uint32_t *ev; /* the chosen events, sorted by (thread, ts) (stable: equal starts keep trace order) */
    size_t n;
} jv_enclose;

/* Indexes the events i of tr for which keep(tr, i, ctx) is 1 into out (empty when none). JV_ERR_NOMEM (out left
 * empty). */
jv_status jv_enclose_build(const jv_trace *tr, int (*keep)(const jv_trace *tr, size_t i, void *ctx), void *ctx,
                           jv_enclose *out);

/* The innermost indexed event on ev's thread that starts at or before ev and ends at or after ev's end, among the
 * `look` indexed events of that thread that start latest at or before ev, and whose name accept() takes (NULL:
 * any); JV_NONE32 when none. The latest start is tried first, so of nested ones the innermost wins. */
uint32_t jv_enclose_find(const jv_enclose *x, const jv_trace *tr, uint32_t ev, int look,
                         int (*accept)(const char *name));

/* Frees x's index and empties it. */
void jv_enclose_free(jv_enclose *x);

#endif
