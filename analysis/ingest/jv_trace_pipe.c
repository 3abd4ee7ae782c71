/* jv_trace_pipe: the traceEvents array scanned on two threads. A scanning thread parses the entries (JSON,
 * numbers, keys) into batches of ev_tmp, copying the strings they name out of the window instead of interning
 * them (jv_defer); the calling thread takes the batches in order, interns each entry's strings in the order
 * they were read (jv_trace_apply_defer) and commits it (jv_trace_commit_event). The string table, the records
 * and the messages are those of the one-thread scan, in the same order: an error of either side is reported
 * where the one-thread scan would meet it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"
#include "jv_trace_reader.h"

/* the entry being parsed is r->cur_ev: dst is one of its members */
jv_jres jv_defer_add(reader *r, jv_jcur *c, const char *p, size_t n, int escaped, void *dst, int key,
                     const char *err_p) {
    jv_defer *d = r->defer;
    if (JV_RESERVE(d->req, d->cap_req, d->nreq + 1) != JV_OK ||
        JV_RESERVE(d->bytes, d->cap_bytes, d->nbytes + n + 1) != JV_OK) {
        c->err = "out of memory (string table)";
        return JV_J_BAD;
    }
    memcpy(d->bytes + d->nbytes, p, n);
    d->req[d->nreq++] =
        (jv_defer_req){(uint32_t)((char *)dst - (char *)r->cur_ev), (uint8_t)key, (uint8_t)escaped, d->nbytes, n,
                       r->base + (uint64_t)(err_p - r->buf)};
    d->nbytes += n;
    if (key) {
        int64_t v = JV_STRKEY_BASE + (n != 0);
        memcpy(dst, &v, sizeof v);
    } else {
        uint32_t v = n != 0;
        memcpy(dst, &v, sizeof v);
    }
    return JV_J_OK;
}

enum { BATCH_EVENTS = 1024, NBATCH = 4 }; /* about 1 MiB of entries in flight */

typedef struct {
    ev_tmp ev[BATCH_EVENTS];
    size_t req_end[BATCH_EVENTS]; /* the entry's strings: defer.req[previous entry's end, req_end) */
    size_t n;
    jv_defer defer;
    jv_status st; /* the scan's status after these entries (JV_OK: more follow unless end) */
    int end;      /* the array closed after these entries */
} batch;

typedef struct {
    reader rp; /* the scanning thread's reader: the window, the input, progress; its own error */
    jv_err perr;
    batch *b[NBATCH];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long long filled, taken; /* batches published / released, counted from the start */
    int stop;                         /* the committing side failed: the scanner must return */
    pthread_t thread;
} scan_pipe;

static void *scan_main(void *arg) {
    scan_pipe *p = arg;
    reader *r = &p->rp;
    int first = 1;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->filled - p->taken == NBATCH)
            pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        batch *b = p->b[p->filled % NBATCH];
        pthread_mutex_unlock(&p->mu);
        if (stop) return NULL;
        b->n = 0;
        b->end = 0;
        b->st = JV_OK;
        b->defer.nreq = b->defer.nbytes = 0;
        r->defer = &b->defer;
        while (b->n < BATCH_EVENTS) {
            b->st = jv_trace_read_entry(r, &first, &b->ev[b->n], &b->end);
            if (b->st != JV_OK || b->end) break;
            b->req_end[b->n] = b->defer.nreq;
            b->n++;
        }
        int last = b->st != JV_OK || b->end;
        pthread_mutex_lock(&p->mu);
        p->filled++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (last) return NULL;
    }
}

static void pipe_free(scan_pipe *p) {
    for (int i = 0; i < NBATCH; i++)
        if (p->b[i]) {
            free(p->b[i]->defer.req);
            free(p->b[i]->defer.bytes);
            free(p->b[i]);
        }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

/* The committing side: the batches in order until the scan's end or error, or its own error. */
static jv_status commit_batches(scan_pipe *p, reader *r, int *scan_failed) {
    *scan_failed = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->filled == p->taken)
            pthread_cond_wait(&p->cv, &p->mu);
        batch *b = p->b[p->taken % NBATCH];
        pthread_mutex_unlock(&p->mu);
        jv_status s = JV_OK;
        size_t q = 0;
        for (size_t i = 0; i < b->n && s == JV_OK; i++) {
            /* an entry without strings: no requests (and req may still be NULL: no offset on it) */
            const jv_defer_req *req = b->req_end[i] > q ? b->defer.req + q : NULL;
            s = jv_trace_apply_defer(r, &b->ev[i], req, b->req_end[i] - q, b->defer.bytes);
            if (s == JV_OK) s = jv_trace_commit_event(r, &b->ev[i]);
            q = b->req_end[i];
        }
        int last = b->st != JV_OK || b->end;
        if (s == JV_OK && b->st != JV_OK) {
            s = b->st;
            *scan_failed = 1;
        }
        pthread_mutex_lock(&p->mu);
        p->taken++;
        if (s != JV_OK) p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (s != JV_OK || last) return s;
    }
}

int jv_trace_read_events_piped(reader *r, jv_status *st) {
    scan_pipe *p = calloc(1, sizeof *p);
    if (!p) return 0;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    int ok = 1;
    for (int i = 0; i < NBATCH && ok; i++)
        ok = (p->b[i] = calloc(1, sizeof *p->b[i])) != NULL;
    p->rp = *r;
    jv_err_clear(&p->perr);
    p->rp.err = &p->perr;
    if (!ok || pthread_create(&p->thread, NULL, scan_main, p) != 0) {
        pipe_free(p);
        return 0; /* the caller scans on its own thread */
    }
    int scan_failed;
    *st = commit_batches(p, r, &scan_failed);
    pthread_join(p->thread, NULL);
    /* the window, the input and progress continue on this thread */
    r->buf = p->rp.buf;
    r->cap = p->rp.cap;
    r->len = p->rp.len;
    r->pos = p->rp.pos;
    r->base = p->rp.base;
    r->eof = p->rp.eof;
    r->prog = p->rp.prog;
    if (scan_failed && r->err) *r->err = p->perr;
    pipe_free(p);
    return 1;
}
