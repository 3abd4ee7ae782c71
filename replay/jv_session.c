/* jv_session: the op loop of a replay run (see jv_session.h). */
#include "jv_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_progress.h" /* jv_now */

/* room for one more result */
static jv_status grow(jv_session *s, jv_err *err) {
    if (s->n < s->cap) return JV_OK;
    int cap = s->cap ? 2 * s->cap : 16;
    jv_op_result *r = realloc(s->res, (size_t)cap * sizeof *r);
    if (!r) JV_FAIL(err, JV_ERR_NOMEM, "out of memory for %d op results", cap);
    s->res = r;
    jv_verdict *v = realloc(s->ver, (size_t)cap * sizeof *v);
    if (!v) JV_FAIL(err, JV_ERR_NOMEM, "out of memory for %d op results", cap);
    s->ver = v;
    s->cap = cap;
    return JV_OK;
}

jv_status jv_opsel_parse(jv_opsel *sel, const char *text, jv_err *err) {
    jv_opsel t = *sel;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        long long lo = -1, hi = -1;
        int used = 0;
        char part[64];
        if (len == 0 || len >= sizeof part)
            JV_FAIL(err, JV_ERR_USAGE, "--op %s: %s part '%.*s'", text, len ? "a too long" : "an empty",
                    (int)(len > 40 ? 40 : len), p);
        memcpy(part, p, len);
        part[len] = '\0';
        if (sscanf(part, "%lld-%lld%n", &lo, &hi, &used) == 2 && used == (int)len && part[0] != '-') {
            /* N-M */
        } else if (sscanf(part, "%lld%n", &lo, &used) == 1 && used == (int)len && part[0] != '-' && part[0] != '+') {
            hi = lo;
        } else {
            JV_FAIL(err, JV_ERR_USAGE, "--op %s: '%s' is not an op index N or a range N-M", text, part);
        }
        if (lo < 0 || hi > 100000000 || hi < lo)
            JV_FAIL(err, JV_ERR_USAGE, "--op %s: '%s': want 0 <= N <= M <= 100000000", text, part);
        if (t.n >= JV_OPSEL_MAX) JV_FAIL(err, JV_ERR_USAGE, "--op: more than %d ranges", JV_OPSEL_MAX);
        t.lo[t.n] = (int)lo;
        t.hi[t.n] = (int)hi;
        t.n++;
        if (!end) break;
        p = end + 1;
    }
    *sel = t;
    return JV_OK;
}

int jv_opsel_has(const jv_opsel *sel, int i) {
    if (!sel || sel->n == 0) return 1;
    for (int k = 0; k < sel->n; k++)
        if (i >= sel->lo[k] && i <= sel->hi[k]) return 1;
    return 0;
}

int jv_opsel_max(const jv_opsel *sel) {
    int m = -1;
    for (int k = 0; sel && k < sel->n; k++)
        if (sel->hi[k] > m) m = sel->hi[k];
    return m;
}

/* one JV_RES_NOT_RUN result, with `reason`, for every op of ir from `from` on (only those of sel) */
static jv_status not_run(jv_session *s, const jv_ir *ir, const jv_opsel *sel, int from, const char *reason,
                         jv_err *err) {
    for (int i = from < 0 ? 0 : from; ir && i < ir->n; i++) {
        if (!jv_opsel_has(sel, i)) continue;
        JV_CHECK(grow(s, err));
        jv_op_result *r = &s->res[s->n];
        jv_desc d;
        jv_operands ops;
        jv_describe_op(&ir->ops[i], r, &d, &ops); /* identity and label, whether replayable or not */
        r->status = JV_RES_NOT_RUN;
        snprintf(r->reason, sizeof r->reason, "%s", reason);
        memset(&s->ver[s->n], 0, sizeof s->ver[s->n]);
        s->n++;
        s->not_run++;
    }
    return JV_OK;
}

jv_status jv_session_stop(jv_session *s, const jv_ir *ir, const jv_opsel *sel, int from, int at, const char *label,
                          const jv_err *e, jv_err *err) {
    s->stopped = 1;
    s->failed = 1;
    s->stop_op = at;
    snprintf(s->stop_label, sizeof s->stop_label, "%s", label ? label : "");
    s->stop_err = *e;
    char reason[160];
    if (at >= 0)
        snprintf(reason, sizeof reason, "not run: the device context became unusable at op %d", at);
    else
        snprintf(reason, sizeof reason, "not run: the device context became unusable at the baseline");
    return not_run(s, ir, sel, from, reason, err);
}

jv_status jv_session_ops(jv_session *s, const jv_session_cfg *cfg, const jv_ir *ir, const jv_opsel *sel, jv_err *err) {
    const jv_backend *be = cfg->be;
    jv_run_opts *o = cfg->o;
    int verbose = cfg->log && !o->quiet;
    for (int i = 0; i < ir->n; i++) {
        if (!jv_opsel_has(sel, i)) continue;
        if (cfg->deadline > 0 && jv_now() > cfg->deadline) {
            s->late = 1;
            s->failed = 1;
            int before = s->not_run;
            JV_CHECK(not_run(s, ir, sel, i, "not run: the --deadline passed before it started", err));
            if (cfg->log)
                fprintf(cfg->log, "jarvis-replay: the --deadline passed at op %d: %d op%s not run\n", i,
                        s->not_run - before, s->not_run - before == 1 ? "" : "s");
            return JV_OK;
        }
        /* one result per implementation (variant 0: what the framework runs; then the others the backend
         * offers, e.g. our batch-norm kernel next to cuDNN's) */
        int nv = jv_op_variants(be, cfg->ctx, &ir->ops[i]);
        for (int v = 0; v < (nv > 1 ? nv : 1); v++) {
            JV_CHECK(grow(s, err));
            if (verbose)
                fprintf(cfg->log, "jarvis-replay: op %d/%d %s%s\n", i, ir->n, ir->ops[i].op_name,
                        v ? " (another implementation)" : "");
            o->variant = v;
            jv_op_result *r = &s->res[s->n];
            jv_err e = {0};
            jv_status st = jv_run_op(be, cfg->ctx, cfg->props, o, &ir->ops[i], r, &e);
            o->variant = 0;
            jv_verdict_of(r, cfg->base, cfg->ds, cfg->props, &s->ver[s->n]);
            s->n++;
            if (r->status == JV_RES_WRONG || r->status == JV_RES_REFUSED || r->status == JV_RES_ERROR) s->failed = 1;
            if (st == JV_ERR_DEVICE) /* nothing more reaches the device */
                return jv_session_stop(s, ir, sel, i + 1, i, r->label, &e, err);
            if (r->status != JV_RES_OK && cfg->log && (r->status != JV_RES_SKIPPED || verbose))
                fprintf(cfg->log, "jarvis-replay: op %d (%s): %s: %s\n", i, r->label, jv_res_status_str(r->status),
                        r->reason);
        }
    }
    return JV_OK;
}

void jv_session_stop_message(const jv_session *s, const char *device, const char *written, char *buf, size_t cap) {
    char where[260];
    if (s->stop_op >= 0)
        snprintf(where, sizeof where, "op %d (%s)", s->stop_op, s->stop_label);
    else
        snprintf(where, sizeof where, "the baseline");
    snprintf(buf, cap,
             "the device context is unusable after %s on %s: %s; %d op%s not run; results so far written to %s", where,
             device, s->stop_err.msg[0] ? s->stop_err.msg : jv_status_str(s->stop_err.code), s->not_run,
             s->not_run == 1 ? "" : "s", written);
}

void jv_session_free(jv_session *s) {
    free(s->res);
    free(s->ver);
    memset(s, 0, sizeof *s);
}
