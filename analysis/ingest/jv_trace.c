/* jv_trace: the streaming trace reader. The file is decompressed into a
 * growing window; each traceEvents entry is parsed in place by the jv_json
 * cursor and reduced to compact records. When an entry straddles the end of
 * the window, the window is refilled and the entry parsed again from its start. */
#include "jv_trace.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

#include "jv_input.h"
#include "jv_json.h"
#include "jv_map.h"
#include "jv_progress.h"
#include "jv_trace_reader.h"
#include "jv_utf8.h"

/* The window holds at least one whole traceEvents entry (or top-level member): an entry over
   JV_TRACE_MAX_VALUE is refused (the largest in the 38 fixture traces is 6.9 KB). It starts at 128 KiB and grows
   only for a longer value: with the K-thread scan it holds the document's head and the entries scanned again. */
enum { WINDOW_INIT = 1 << 17, WINDOW_MAX = JV_TRACE_MAX_VALUE };

const char *jv_kind_name(jv_kind k) {
    static const char *const names[JV_K_COUNT] = {
        "other",     "cpu_op", "user_annotation", "python_function", "cuda_runtime",       "cuda_driver",
        "cuda_sync", "kernel", "gpu_memcpy",      "gpu_memset",      "gpu_user_annotation"};
    return (unsigned)k < JV_K_COUNT ? names[k] : "other";
}

/* ---------- window management ---------- */

static jv_status refill(reader *r) {
    if (r->eof) return JV_OK;
    if (r->borrowed) { /* the window was a segment of the store: the unparsed rest goes to the reader's own */
        size_t rest = r->len - r->pos;
        memcpy(r->own, r->buf + r->pos, rest);
        r->buf = r->own;
        r->cap = r->own_cap;
        r->base += r->pos;
        r->len = rest;
        r->pos = 0;
        r->borrowed = 0;
    }
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->base += r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        if (r->cap >= WINDOW_MAX)
            JV_FAIL(r->err, JV_ERR_LIMIT,
                    "%s: the JSON value at byte %llu is larger than %d MiB, the limit of one traceEvents entry or "
                    "top-level member",
                    r->path, (unsigned long long)r->base, JV_TRACE_MAX_VALUE >> 20);
        char *nb = realloc(r->buf, r->cap * 2);
        if (!nb) JV_FAIL(r->err, JV_ERR_NOMEM, "%s: out of memory growing the read window", r->path);
        r->buf = nb;
        r->cap *= 2;
    }
    size_t got;
    if (r->store) {
        JV_CHECK(jv_segstore_read(r, r->buf + r->len, r->cap - r->len, &got));
    } else {
        JV_CHECK(jv_input_read(r->in, r->buf + r->len, r->cap - r->len, &got, r->err));
        jv_progress_update(&r->prog, jv_input_file_pos(r->in));
    }
    if (got == 0) r->eof = 1;
    r->len += got;
    return JV_OK;
}

typedef jv_jres (*unit_fn)(reader *r, jv_jcur *c, void *ctx);

/* Runs fn on the window from r->pos, refilling and retrying on JV_J_MORE.
 * On success r->pos advances past what fn consumed and *res gets OK or END. */
static jv_status run_unit(reader *r, unit_fn fn, void *ctx, jv_jres *res) {
    for (;;) {
        jv_jcur c;
        jv_json_init(&c, r->buf + r->pos, r->buf + r->len, r->eof);
        jv_jres x = fn(r, &c, ctx);
        if (x == JV_J_OK || x == JV_J_END) {
            r->pos = (size_t)(c.p - r->buf);
            if (res) *res = x;
            return JV_OK;
        }
        if (x == JV_J_MORE) {
            /* whitespace before the unit is not kept: a file of blanks never grows the window */
            r->pos = (size_t)(jv_json_skip_ws(r->buf + r->pos, r->buf + r->len) - r->buf);
            JV_CHECK(refill(r));
            continue;
        }
        if (r->err && r->err->code != JV_OK) return r->err->code; /* fn raised its own error */
        uint64_t at = r->base + (uint64_t)((c.err_p ? c.err_p : c.p) - r->buf);
        jv_status code = c.err && strstr(c.err, "unexpected end") ? JV_ERR_TRUNCATED : JV_ERR_FORMAT;
        if (code == JV_ERR_TRUNCATED)
            JV_FAIL(r->err, code, "%s: not valid JSON: %s at byte %llu", r->path, c.err, (unsigned long long)at);
        JV_FAIL(r->err, code, "%s: not valid JSON: %s at byte %llu", r->path, c.err ? c.err : "parse error",
                (unsigned long long)at);
    }
}

/* ---------- helpers ---------- */

/* Interns text p[0..n) of the trace, invalid UTF-8 repaired (each maximal
 * invalid subpart becomes one U+FFFD): every output then holds valid UTF-8. */
static jv_jres intern_text(reader *r, jv_jcur *c, const char *p, size_t n, uint32_t *id) {
    if (r->defer) return jv_defer_add(r, c, p, n, 0, id, 0, c->p);
    if (jv_utf8_valid_prefix(p, n) != n) {
        if (n > SIZE_MAX / 3 || JV_RESERVE(r->fix, r->fix_cap, 3 * n + 1) != JV_OK) {
            c->err = "out of memory";
            return JV_J_BAD;
        }
        n = jv_utf8_repair(p, n, r->fix, NULL);
        p = r->fix;
        r->tr->counts.bad_utf8++;
    }
    if (jv_intern_add(&r->tr->strings, p, n, id) != JV_OK) {
        c->err = "out of memory (string table)";
        return JV_J_BAD;
    }
    return JV_J_OK;
}

static jv_jres intern_str(reader *r, jv_jcur *c, const jv_jstr *s, uint32_t *id) {
    if (r->defer) return jv_defer_add(r, c, s->s, s->n, s->escaped, id, 0, s->s);
    const char *p = s->s;
    size_t n = s->n;
    if (s->escaped) {
        if (JV_RESERVE(r->scratch, r->scratch_cap, n + 1) != JV_OK) {
            c->err = "out of memory";
            return JV_J_BAD;
        }
        n = jv_json_unescape(s->s, s->n, r->scratch);
        p = r->scratch;
    }
    jv_jres x = intern_text(r, c, p, n, id);
    if (x != JV_J_OK) c->err_p = s->s;
    return x;
}

static int all_digits(const char *s, size_t n) {
    if (n == 0 || n > 18) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* A key given as text: JV_STRKEY_BASE + the text's id. */
static jv_jres intern_key(reader *r, jv_jcur *c, const jv_jstr *s, int64_t *key) {
    if (r->defer) return jv_defer_add(r, c, s->s, s->n, s->escaped, key, 1, s->s);
    uint32_t id;
    jv_jres x = intern_str(r, c, s, &id);
    if (x != JV_J_OK) return x;
    *key = JV_STRKEY_BASE + id;
    return JV_J_OK;
}

/* Reads a pid/tid/id value: a number, or a string (numeric strings read as numbers). ch: the value's first byte
 * (at c->p: jv_json_member_value). */
static jv_jres read_key(reader *r, jv_jcur *c, char ch, int64_t *key) {
    jv_jres x;
    if (ch == '"') {
        jv_jstr s;
        x = jv_json_string(c, &s);
        if (x != JV_J_OK) return x;
        if (!s.escaped && all_digits(s.s, s.n) && jv_json_int64(s.s, s.n, key) && *key < JV_STRKEY_BASE) return JV_J_OK;
        return intern_key(r, c, &s, key);
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        const char *s;
        size_t n;
        uint64_t u;
        int plain;
        x = jv_json_number_u(c, &s, &n, &u, &plain);
        if (x != JV_J_OK) return x;
        if (plain) { /* 18 digits at most: below JV_STRKEY_BASE */
            *key = (int64_t)u;
            return JV_J_OK;
        }
        if (jv_json_int64(s, n, key) && *key < JV_STRKEY_BASE) return JV_J_OK;
        /* numbers beyond the numeric key range (or not integers) are keyed by their text */
        jv_jstr text = {s, n, 0};
        return intern_key(r, c, &text, key);
    }
    *key = JV_NONE64;
    return jv_json_skip(c, NULL, NULL);
}

/* ch: the value's first byte (at c->p) */
static jv_jres read_int(jv_jcur *c, char ch, int64_t *v) {
    jv_jres x;
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        const char *s;
        size_t n;
        uint64_t u;
        int plain;
        x = jv_json_number_u(c, &s, &n, &u, &plain);
        if (x != JV_J_OK) return x;
        if (plain)
            *v = (int64_t)u;
        else if (!jv_json_int64(s, n, v))
            *v = JV_NONE64;
        return JV_J_OK;
    }
    if (ch == '"') { /* some exporters quote ids */
        jv_jstr s;
        x = jv_json_string(c, &s);
        if (x != JV_J_OK) return x;
        if (!jv_json_int64(s.s, s.n, v)) *v = JV_NONE64;
        return JV_J_OK;
    }
    *v = JV_NONE64;
    return jv_json_skip(c, NULL, NULL);
}

static jv_jres read_raw(reader *r, jv_jcur *c, uint32_t *id) {
    const char *s;
    size_t n;
    jv_jres x = jv_json_skip(c, &s, &n);
    if (x != JV_J_OK) return x;
    return intern_text(r, c, s, n, id);
}

static jv_kind kind_of_cat(const jv_jstr *cat) {
    const char *s = cat->s;
    switch (cat->n) {
    case 6:
        if (!memcmp(s, "cpu_op", 6)) return JV_K_CPU_OP;
        if (!memcmp(s, "kernel", 6) || !memcmp(s, "Kernel", 6)) return JV_K_KERNEL;
        if (!memcmp(s, "Memcpy", 6) || !memcmp(s, "Memset", 6)) return s[4] == 'p' ? JV_K_MEMCPY : JV_K_MEMSET;
        break;
    case 7:
        if (!memcmp(s, "Runtime", 7)) return JV_K_RUNTIME;
        break;
    case 8:
        if (!memcmp(s, "Operator", 8)) return JV_K_CPU_OP;
        break;
    case 9:
        if (!memcmp(s, "cuda_sync", 9)) return JV_K_SYNC;
        break;
    case 10:
        if (!memcmp(s, "gpu_memcpy", 10)) return JV_K_MEMCPY;
        if (!memcmp(s, "gpu_memset", 10)) return JV_K_MEMSET;
        break;
    case 11:
        if (!memcmp(s, "cuda_driver", 11)) return JV_K_DRIVER;
        break;
    case 12:
        if (!memcmp(s, "cuda_runtime", 12)) return JV_K_RUNTIME;
        break;
    case 15:
        if (!memcmp(s, "python_function", 15)) return JV_K_PYTHON;
        if (!memcmp(s, "user_annotation", 15)) return JV_K_USER_ANNOT;
        break;
    case 19:
        if (!memcmp(s, "gpu_user_annotation", 19)) return JV_K_GPU_ANNOT;
        break;
    }
    return JV_K_OTHER;
}

/* ---------- one traceEvents entry ---------- */

/* A string argument interned into *id (other JSON values are skipped); ch: its first byte (at c->p). */
static jv_jres read_str_arg(reader *r, jv_jcur *c, char ch, uint32_t *id) {
    jv_jres x;
    if (ch != '"') return jv_json_skip(c, NULL, NULL);
    jv_jstr v;
    x = jv_json_string(c, &v);
    return x == JV_J_OK ? intern_str(r, c, &v, id) : x;
}

/* The collective metadata keys of args (jv_commargs); *handled = 0 for any other key (nothing consumed). */
static jv_jres parse_comm_arg(reader *r, jv_jcur *c, char ch, ev_tmp *e, const char *s, size_t n, int *handled) {
    jv_jres x = JV_J_OK;
    if (n == 15 && !memcmp(s, "Collective name", 15))
        x = read_str_arg(r, c, ch, &e->coll);
    else if (n == 18 && !memcmp(s, "Process Group Name", 18))
        x = read_str_arg(r, c, ch, &e->pg);
    else if (n == 16 && !memcmp(s, "Process Group ID", 16) && !e->pg) {
        x = read_raw(r, c, &e->pg); /* older traces: a number, kept as its text */
    } else if (n == 19 && !memcmp(s, "Process Group Ranks", 19))
        x = read_raw(r, c, &e->pg_ranks);
    else if (n == 5 && !memcmp(s, "dtype", 5))
        x = read_str_arg(r, c, ch, &e->coll_dtype);
    else if (n == 10 && !memcmp(s, "Group size", 10))
        x = read_int(c, ch, &e->group_size);
    else if (n == 13 && !memcmp(s, "In msg nelems", 13))
        x = read_int(c, ch, &e->in_nelems);
    else if (n == 14 && !memcmp(s, "Out msg nelems", 14))
        x = read_int(c, ch, &e->out_nelems);
    else {
        *handled = 0;
        return JV_J_OK;
    }
    e->has_comm = 1;
    return x;
}

static jv_jres parse_args(reader *r, jv_jcur *c, ev_tmp *e) {
    jv_jres x = jv_json_expect(c, '{');
    if (x != JV_J_OK) {
        if (x == JV_J_BAD) { /* args that is not an object: skip it */
            c->err = NULL;
            return jv_json_skip(c, NULL, NULL);
        }
        return x;
    }
    int first = 1;
    jv_jstr k;
    char ch;
    while ((x = jv_json_member_value(c, &first, &k, &ch)) == JV_J_OK) {
        const char *s = k.s;
        size_t n = k.n;
        int handled = 1;
        if (n == 11 && !memcmp(s, "correlation", 11))
            x = read_int(c, ch, &e->corr);
        else if ((n == 11 && (!memcmp(s, "External id", 11) || !memcmp(s, "external id", 11))))
            x = read_int(c, ch, &e->ext);
        else if (n == 15 && !memcmp(s, "Sequence number", 15))
            x = read_int(c, ch, &e->seq);
        else if (n == 6 && !memcmp(s, "stream", 6))
            x = read_int(c, ch, &e->stream);
        else if (n == 6 && !memcmp(s, "device", 6))
            x = read_int(c, ch, &e->device);
        else if (n == 10 && (!memcmp(s, "Input Dims", 10) || !memcmp(s, "Input dims", 10)))
            x = read_raw(r, c, &e->dims);
        else if (n == 10 && !memcmp(s, "Input type", 10))
            x = read_raw(r, c, &e->types);
        else if (n == 13 && !memcmp(s, "Input Strides", 13))
            x = read_raw(r, c, &e->strides);
        else if (n == 15 && !memcmp(s, "Concrete Inputs", 15))
            x = read_raw(r, c, &e->concrete);
        else if (n >= 5 && n <= 18 &&
                 (s[0] == 'C' || s[0] == 'P' || s[0] == 'I' || s[0] == 'O' || s[0] == 'G' || s[0] == 'd'))
            x = parse_comm_arg(r, c, ch, e, s, n, &handled);
        else if (e->ph == 'M' && n == 4 && !memcmp(s, "name", 4)) {
            x = read_str_arg(r, c, ch, &e->arg_name);
        } else if (e->ph == 'M' && n == 6 && !memcmp(s, "labels", 6)) {
            x = read_str_arg(r, c, ch, &e->arg_labels);
        } else
            handled = 0;
        if (!handled) x = jv_json_skip(c, NULL, NULL);
        if (x != JV_J_OK) return x;
    }
    return x == JV_J_END ? JV_J_OK : x;
}

/* ch: the value's first byte (at c->p) */
static jv_jres parse_time(jv_jcur *c, char ch, int64_t *out, int *has, int *bad) {
    jv_jres x;
    const char *s;
    size_t n;
    if (ch == '"') { /* tolerate quoted numbers */
        jv_jstr str;
        x = jv_json_string(c, &str);
        if (x != JV_J_OK) return x;
        s = str.s;
        n = str.n;
    } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
        uint64_t u;
        int plain;
        x = jv_json_number_u(c, &s, &n, &u, &plain);
        if (x != JV_J_OK) return x;
        if (plain && u <= UINT64_C(9223372036854774)) { /* whole microseconds: jv_json_us_to_ns's exact path */
            *out = (int64_t)(u * 1000);
            *has = 1;
            return JV_J_OK;
        }
    } else {
        *bad = 1;
        return jv_json_skip(c, NULL, NULL);
    }
    if (jv_json_us_to_ns(s, n, out))
        *has = 1;
    else
        *bad = 1;
    return JV_J_OK;
}

static jv_jres parse_event(reader *r, jv_jcur *c, void *ctx) {
    ev_tmp *e = ctx;
    if (r->defer) { /* a retry after a refill: the strings recorded by the first try go */
        r->defer->nreq = r->defer->mark_req;
        r->defer->nbytes = r->defer->mark_bytes;
    } else { /* and the invalid UTF-8 the first try counted (where the window ends must not change the count) */
        r->tr->counts.bad_utf8 = r->bad_mark;
    }
    memset(e, 0, sizeof *e);
    e->pid = e->tid = e->id = JV_NONE64;
    e->corr = e->ext = e->seq = e->stream = e->device = JV_NONE64;
    e->group_size = e->in_nelems = e->out_nelems = JV_NONE64;
    char ch;
    jv_jres x = jv_json_peek(c, &ch);
    if (x != JV_J_OK) return x;
    if (ch != '{') return jv_json_skip(c, NULL, NULL);
    c->p++;
    e->is_object = 1;
    int first = 1;
    jv_jstr k;
    /* args may come before ph; parse_args only needs ph for 'M' names, so
       remember where args was and parse it after the loop when ph was late */
    const char *args_at = NULL;
    while ((x = jv_json_member_value(c, &first, &k, &ch)) == JV_J_OK) {
        const char *s = k.s;
        size_t n = k.n;
        if (n == 2 && s[0] == 'p' && s[1] == 'h') {
            jv_jstr v;
            x = jv_json_string(c, &v);
            if (x == JV_J_OK) e->ph = v.n ? v.s[0] : '?';
        } else if (n == 3 && !memcmp(s, "cat", 3)) {
            jv_jstr v;
            if (ch == '"') {
                x = jv_json_string(c, &v);
                if (x == JV_J_OK) {
                    e->kind = kind_of_cat(&v);
                    e->launch_flow = (v.n == 4 && !memcmp(v.s, "ac2g", 4)) || (v.n == 5 && !memcmp(v.s, "async", 5)) ||
                                     (v.n == 16 && !memcmp(v.s, "async_cpu_to_gpu", 16));
                }
            } else {
                x = jv_json_skip(c, NULL, NULL);
            }
        } else if (n == 4 && !memcmp(s, "name", 4)) {
            jv_jstr v;
            if (ch == '"') {
                x = jv_json_string(c, &v);
                if (x == JV_J_OK) x = intern_str(r, c, &v, &e->name);
            } else {
                const char *raw;
                size_t rn;
                x = jv_json_skip(c, &raw, &rn);
                if (x == JV_J_OK) x = intern_text(r, c, raw, rn, &e->name);
            }
        } else if (n == 3 && !memcmp(s, "pid", 3)) {
            x = read_key(r, c, ch, &e->pid);
        } else if (n == 3 && !memcmp(s, "tid", 3)) {
            x = read_key(r, c, ch, &e->tid);
        } else if (n == 2 && s[0] == 't' && s[1] == 's') {
            x = parse_time(c, ch, &e->ts, &e->has_ts, &e->bad_time);
        } else if (n == 3 && !memcmp(s, "dur", 3)) {
            x = parse_time(c, ch, &e->dur, &e->has_dur, &e->bad_time);
        } else if (n == 2 && s[0] == 'i' && s[1] == 'd') {
            x = read_key(r, c, ch, &e->id);
        } else if (n == 4 && !memcmp(s, "args", 4)) {
            if (e->ph == 0) {
                args_at = c->p;
                x = jv_json_skip(c, NULL, NULL);
            } else {
                x = parse_args(r, c, e);
            }
        } else {
            x = jv_json_skip(c, NULL, NULL);
        }
        if (x != JV_J_OK) return x;
    }
    if (x != JV_J_END) return x;
    if (args_at) {
        jv_jcur a = *c;
        a.p = args_at;
        x = parse_args(r, &a, e);
        if (x != JV_J_OK) return x == JV_J_MORE ? JV_J_BAD : x; /* already validated */
    }
    return JV_J_OK;
}

/* ---------- top level ---------- */

static jv_jres unit_peek(reader *r, jv_jcur *c, void *ctx) {
    (void)r;
    return jv_json_peek(c, (char *)ctx);
}

static jv_jres unit_open(reader *r, jv_jcur *c, void *ctx) {
    (void)r;
    return jv_json_expect(c, *(char *)ctx);
}

static jv_jres unit_element(reader *r, jv_jcur *c, void *ctx) {
    (void)r;
    return jv_json_element(c, (int *)ctx);
}

typedef struct {
    int *first;
    jv_jstr key;
    char keybuf[64];
} member_ctx;

static jv_jres unit_member(reader *r, jv_jcur *c, void *ctx) {
    (void)r;
    member_ctx *m = ctx;
    int first = *m->first;
    jv_jres x = jv_json_member(c, &first, &m->key);
    if (x == JV_J_OK) {
        size_t n = m->key.n < sizeof m->keybuf - 1 ? m->key.n : sizeof m->keybuf - 1;
        memcpy(m->keybuf, m->key.s, n);
        m->keybuf[n] = '\0';
        *m->first = 0;
    }
    return x;
}

typedef struct {
    const char *s;
    size_t n;
} span_ctx;

static jv_jres unit_skip(reader *r, jv_jcur *c, void *ctx) {
    (void)r;
    span_ctx *sp = ctx;
    return jv_json_skip(c, &sp->s, &sp->n);
}

jv_status jv_trace_read_entry(reader *r, int *first, ev_tmp *e, int *end) {
    jv_jres res = JV_J_END;
    *end = 0;
    JV_CHECK(run_unit(r, unit_element, first, &res));
    if (res == JV_J_END) {
        *end = 1;
        return JV_OK;
    }
    if (r->defer) {
        r->defer->mark_req = r->defer->nreq;
        r->defer->mark_bytes = r->defer->nbytes;
    } else {
        r->bad_mark = r->tr->counts.bad_utf8;
    }
    r->cur_ev = e;
    return run_unit(r, parse_event, e, NULL);
}

jv_status jv_trace_apply_defer(reader *r, ev_tmp *e, const jv_defer_req *q, size_t n, const char *bytes) {
    for (size_t i = 0; i < n; i++) {
        jv_jcur c;
        jv_json_init(&c, bytes + q[i].off, bytes + q[i].off + q[i].n, 1);
        jv_jstr s = {bytes + q[i].off, q[i].n, q[i].escaped};
        uint32_t id;
        if (intern_str(r, &c, &s, &id) != JV_J_OK)
            JV_FAIL(r->err, JV_ERR_FORMAT, "%s: not valid JSON: %s at byte %llu", r->path,
                    c.err ? c.err : "parse error", (unsigned long long)q[i].err_at);
        if (q[i].key) {
            int64_t v = JV_STRKEY_BASE + id;
            memcpy((char *)e + q[i].field, &v, sizeof v);
        } else {
            memcpy((char *)e + q[i].field, &id, sizeof id);
        }
    }
    return JV_OK;
}

static jv_status read_events_array(reader *r) {
    jv_status st;
    if (r->threads != 1) {
        int k = jv_trace_scan_threads();
        /* a later traceEvents array (a repeated key) reads on from the segment store the first one left: the
           two-thread scan takes it through that store (a second store would skip the bytes the first holds) */
        if (k >= 2 && !r->store && jv_trace_read_events_split(r, k, &st)) return st;
        if (jv_trace_read_events_piped(r, &st)) return st;
    }
    int first = 1;
    for (;;) {
        ev_tmp e;
        int end;
        JV_CHECK(jv_trace_read_entry(r, &first, &e, &end));
        if (end) return JV_OK;
        JV_CHECK(jv_trace_commit_event(r, &e));
    }
}

static jv_status parse_devices(reader *r, const char *s, size_t n) {
    jv_trace *tr = r->tr;
    cJSON *root = cJSON_ParseWithLength(s, n);
    if (!root) return JV_OK; /* validated JSON; cJSON may still refuse odd numbers: ignore */
    if (cJSON_IsArray(root)) {
        /* a repeated key replaces the earlier list */
        free(tr->devices);
        tr->devices = NULL;
        tr->ndevices = 0;
        int cnt = cJSON_GetArraySize(root);
        tr->devices = calloc(cnt > 0 ? (size_t)cnt : 1, sizeof *tr->devices);
        if (!tr->devices) {
            cJSON_Delete(root);
            JV_FAIL(r->err, JV_ERR_NOMEM, "%s: out of memory", r->path);
        }
        cJSON *d;
        cJSON_ArrayForEach(d, root) {
            if (!cJSON_IsObject(d)) continue;
            jv_device *dv = &tr->devices[tr->ndevices++];
            cJSON *v;
            dv->id = (v = cJSON_GetObjectItemCaseSensitive(d, "id")) && cJSON_IsNumber(v) ? v->valueint
                                                                                          : (int)tr->ndevices - 1;
            if ((v = cJSON_GetObjectItemCaseSensitive(d, "name")) && cJSON_IsString(v)) {
                /* repaired, then cut on a character boundary */
                char fixed[3 * sizeof dv->name];
                size_t l = strlen(v->valuestring), k;
                k = jv_utf8_repair(v->valuestring, l < sizeof dv->name ? l : sizeof dv->name - 1, fixed, NULL);
                while (k >= sizeof dv->name || (k && jv_utf8_valid_prefix(fixed, k) != k))
                    k--;
                memcpy(dv->name, fixed, k);
                dv->name[k] = '\0';
            }
            if ((v = cJSON_GetObjectItemCaseSensitive(d, "totalGlobalMem")) && cJSON_IsNumber(v))
                dv->total_mem_bytes = v->valuedouble;
            if (((v = cJSON_GetObjectItemCaseSensitive(d, "computeMajor")) ||
                 (v = cJSON_GetObjectItemCaseSensitive(d, "major"))) &&
                cJSON_IsNumber(v))
                dv->cc_major = v->valueint;
            if (((v = cJSON_GetObjectItemCaseSensitive(d, "computeMinor")) ||
                 (v = cJSON_GetObjectItemCaseSensitive(d, "minor"))) &&
                cJSON_IsNumber(v))
                dv->cc_minor = v->valueint;
            if (((v = cJSON_GetObjectItemCaseSensitive(d, "numSms")) ||
                 (v = cJSON_GetObjectItemCaseSensitive(d, "multiProcessorCount"))) &&
                cJSON_IsNumber(v))
                dv->num_sms = v->valueint;
            if ((v = cJSON_GetObjectItemCaseSensitive(d, "warpSize")) && cJSON_IsNumber(v)) dv->warp_size = v->valueint;
        }
    }
    cJSON_Delete(root);
    return JV_OK;
}

static jv_status keep_text(reader *r, char **dst, const char *s, size_t n) {
    free(*dst);
    *dst = malloc(n + 1);
    if (!*dst) JV_FAIL(r->err, JV_ERR_NOMEM, "%s: out of memory", r->path);
    memcpy(*dst, s, n);
    (*dst)[n] = '\0';
    return JV_OK;
}

static jv_status read_top_object(reader *r) {
    int first = 1, saw_events = 0;
    for (;;) {
        member_ctx m = {&first, {0}, {0}};
        jv_jres res = JV_J_END;
        JV_CHECK(run_unit(r, unit_member, &m, &res));
        if (res == JV_J_END) break;
        const char *k = m.keybuf;
        if (!strcmp(k, "traceEvents")) {
            char ch = '[', pk;
            JV_CHECK(run_unit(r, unit_peek, &pk, NULL));
            if (pk != '[') JV_FAIL(r->err, JV_ERR_FORMAT, "%s: \"traceEvents\" is not an array", r->path);
            JV_CHECK(run_unit(r, unit_open, &ch, NULL));
            JV_CHECK(read_events_array(r));
            saw_events = 1;
            continue;
        }
        span_ctx sp;
        JV_CHECK(run_unit(r, unit_skip, &sp, NULL));
        if (!strcmp(k, "deviceProperties") || !strcmp(k, "computeProperties")) {
            r->tr->device_props_key = k[0] == 'd' ? 1 : 2;
            JV_CHECK(parse_devices(r, sp.s, sp.n));
        } else if (!strcmp(k, "distributedInfo")) {
            JV_CHECK(keep_text(r, &r->tr->distributed_info, sp.s, sp.n));
        } else if (!strcmp(k, "baseTimeNanoseconds")) {
            r->tr->has_base_time = 1;
        } else if (!strcmp(k, "cuda_runtime_version") || !strcmp(k, "hip_runtime_version")) {
            char tmp[96];
            snprintf(tmp, sizeof tmp, "%s %.*s", k[0] == 'c' ? "cuda" : "hip", (int)(sp.n < 40 ? sp.n : 40), sp.s);
            JV_CHECK(keep_text(r, &r->tr->runtime_version, tmp, strlen(tmp)));
            if (k[0] == 'h') r->tr->is_amd = 1;
        } else if (!strcmp(k, "roctracer_version") || !strcmp(k, "rocprofiler-sdk_version") ||
                   !strcmp(k, "hip_driver_version")) {
            r->tr->is_amd = 1;
        }
    }
    if (!saw_events)
        JV_FAIL(r->err, JV_ERR_FORMAT, "%s: no \"traceEvents\" array: not a PyTorch profiler trace", r->path);
    return JV_OK;
}

jv_status jv_trace_load(const char *path, const jv_load_opts *opts, jv_trace *tr, jv_err *err) {
    memset(tr, 0, sizeof *tr);
    reader r = {0};
    r.path = path;
    r.threads = opts ? opts->threads : 0;
    r.tr = tr;
    r.err = err;
    jv_status s = jv_intern_init(&tr->strings);
    trace_priv *pv = calloc(1, sizeof *pv);
    tr->priv_ = pv;
    r.pv = pv;
    if (s == JV_OK && pv) s = jv_intern_init(&pv->key_ids);
    if (s != JV_OK || !pv) {
        jv_trace_free(tr);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    }
    jv_map_init(&pv->sig_of_text);
    jv_map_init(&pv->proc_of_pid);
    jv_map_init(&pv->thread_of_key);
    jv_map_init(&pv->gpuargs_of);
    /* sig 0 = no shape arguments */
    if (JV_RESERVE(tr->sigs, tr->cap_sigs, 1) != JV_OK) {
        jv_trace_free(tr);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    }
    tr->sigs[tr->nsigs++] = (jv_sig){0, 0, 0, 0};
    jv_hash_mode hm = !opts || !opts->hash_file ? JV_HASH_NONE
                      : opts->threads == 1      ? JV_HASH_INLINE
                                                : JV_HASH_BACKGROUND;
    JV_CHECK_GOTO(jv_input_open(path, hm, &r.in, err), s, done);
    r.cap = WINDOW_INIT;
    r.buf = malloc(r.cap);
    if (!r.buf) {
        s = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", path);
        goto done;
    }
    jv_progress_start(&r.prog, opts && opts->progress, "jarvis-analyze: reading", jv_input_file_size(r.in));
    JV_CHECK_GOTO(refill(&r), s, done);
    if (r.len == 0) {
        s = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: empty file: not a trace", path);
        goto done;
    }
    char ch;
    JV_CHECK_GOTO(run_unit(&r, unit_peek, &ch, NULL), s, done);
    if (ch == '[') {
        tr->bare_array = 1;
        char open = '[';
        JV_CHECK_GOTO(run_unit(&r, unit_open, &open, NULL), s, done);
        JV_CHECK_GOTO(read_events_array(&r), s, done);
    } else if (ch == '{') {
        char open = '{';
        JV_CHECK_GOTO(run_unit(&r, unit_open, &open, NULL), s, done);
        JV_CHECK_GOTO(read_top_object(&r), s, done);
    } else {
        s = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                       "%s: not a JSON trace (first byte 0x%02x is neither '{' nor '[')", path, (unsigned char)ch);
        goto done;
    }
    /* only whitespace may follow */
    for (;;) {
        r.pos = (size_t)(jv_json_skip_ws(r.buf + r.pos, r.buf + r.len) - r.buf);
        if (r.pos < r.len) {
            s = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                           "%s: not valid JSON: extra data after the trace at byte %llu", path,
                           (unsigned long long)(r.base + r.pos));
            goto done;
        }
        if (r.eof) break;
        JV_CHECK_GOTO(refill(&r), s, done);
    }
    tr->counts.uncompressed_bytes = r.base + r.len;
    tr->counts.file_bytes = jv_input_file_size(r.in);
    jv_input_sha256(r.in, tr->file_sha256_, &tr->file_sha256_bytes_);
    if ((tr->file_hash_ = jv_input_take_filehash(r.in)) != NULL) tr->file_sha256_bytes_ = r.base + r.len;
    jv_filehash_run(tr->file_hash_); /* now: the scan had the cores to itself */
done:
    jv_intern_free(&pv->key_ids); /* only the reader looks keys up */
    jv_map_free(&pv->gpuargs_of);
    jv_progress_finish(&r.prog);
    jv_segstore_free(r.store);
    jv_input_close(r.in);
    free(r.buf);
    free(r.scratch);
    free(r.fix);
    if (s != JV_OK) jv_trace_free(tr);
#ifdef __GLIBC__
    /* the scanning threads' blocks under the mmap threshold (their entries per segment, strings) came from
       glibc's per-thread arenas, whose freed pages stay resident: 0.4-0.5 MiB more in every later stage on the
       bench trace, its peak (the launcher table) included, until given back here (the scanning and inflating
       threads are joined by now) */
    if (opts && opts->trim) malloc_trim(0);
#endif
    return s;
}
