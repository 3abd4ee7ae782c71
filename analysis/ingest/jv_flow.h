/* jv_flow: a trace's launch flow endpoints ('s' and 'f' events of ac2g/async flows), kept only to link GPU
 * events that carry no usable correlation id. They are many (one pair per launch in current traces) and
 * rarely read, so they are kept delta-encoded: per endpoint, a varint of (thread << 2 | in_us << 1 | is_f) and
 * zigzag varints of the id and ts differences to the previous endpoint of the same phase, the ts difference in
 * microseconds when it is a whole number of them (in_us; about 4 bytes in a Kineto trace instead of 24; at most
 * 30 for any values). Read back in order with jv_flow_next. */
#ifndef JV_FLOW_H
#define JV_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

/* One endpoint, decoded. */
typedef struct {
    int64_t id;
    int64_t ts;
    uint32_t thread; /* index into jv_trace.threads */
    uint8_t phase;   /* 's' or 'f' */
} jv_flow;

/* The endpoints in file order. All zero: empty. */
typedef struct {
    uint8_t *bytes;
    size_t len, cap;
    size_t n;                       /* endpoints held */
    int64_t last_id[2], last_ts[2]; /* the encoder's previous id and ts, per phase ('s' 0, 'f' 1) */
} jv_flows;

/* Appends endpoint e (phase 's' or 'f'). JV_ERR_NOMEM (f as before) on failure. */
jv_status jv_flows_add(jv_flows *f, const jv_flow *e);

/* Frees the endpoints; f is empty afterwards. */
void jv_flows_free(jv_flows *f);

/* A reader over the endpoints, from the first. */
typedef struct {
    const uint8_t *p, *end;
    int64_t id[2], ts[2];
} jv_flow_iter;

/* Starts it at f's first endpoint. f must not change while it is read. */
void jv_flow_iter_init(jv_flow_iter *it, const jv_flows *f);

/* Puts the next endpoint in *out and returns 1; 0 after the last one. */
int jv_flow_next(jv_flow_iter *it, jv_flow *out);

#endif
