/* jv_trace_pipe: the traceEvents array scanned on two threads, or on K + 1 (K scanners, below). A scanning thread
 * parses the entries (JSON, numbers, keys) into batches of ev_tmp, copying the strings they name out of the window
 * instead of interning them (jv_defer); the calling thread takes the batches in order, interns each entry's strings in
 * the order they were read (jv_trace_apply_defer) and commits it (jv_trace_commit_event). The string table, the records
 * and the messages are those of the one-thread scan, in the same order: an error of either side is reported
 * where the one-thread scan would meet it. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_arena.h"
#include "jv_trace_reader.h"

/* the entry being parsed is r->cur_ev: dst is one of its members */
jv_jres jv_defer_add(reader *r, jv_jcur *c, const char *p, size_t n, int escaped, void *dst, int key,
                     const char *err_p) {
    jv_defer *d = r->defer;
    if ((d->nreq >= d->cap_req || d->cap_bytes - d->nbytes <= n) && /* (no call while there is room) */
        (JV_RESERVE(d->req, d->cap_req, d->nreq + 1) != JV_OK ||
         JV_RESERVE(d->bytes, d->cap_bytes, d->nbytes + n + 1) != JV_OK)) {
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

/* ---------- the K-thread scan ----------
 * The stream from the array's first entry is cut into segments of seg bytes (the last one shorter), read in
 * order from the input by whichever thread first needs one. A scanning thread takes the next segment m and
 * scans it into a result slot: segment 0 from the array's start, any other from a guessed entry boundary (just
 * after the first '}' of the segment that blanks, a ',', blanks and a '{' follow), entry after entry while the
 * position after the last entry is at or before the segment's end; the entry that crosses the end is parsed on
 * into the next segments, and the position after it is where the next entry truly begins. The committing
 * thread takes the results in order: a segment whose guess equals the previous segment's true next position is
 * exactly what the one-thread scan reads there (the same bytes, from the same state: after an entry, not the
 * first); its entries are committed and its error, if any, reported. Otherwise (the guess fell inside a string
 * or a nested array, or the segment held none) the committing thread scans that segment's entries again itself
 * from the true position, as the one-thread scan does. */

/* 256 KiB segments (those in a scanner's hands, its window and the spares stay resident for the whole read): 128
 * KiB ones held 1 MiB less but made the read of the bench trace 0.05-0.07 s slower (issue 21) */
enum { SEG_DEFAULT = 256 << 10, SPLIT_MAX_THREADS = 8, TAIL_STEP = 4096, TAIL_CAP_MIN = 64 << 10 };

typedef struct {
    char *buf;
    size_t len;
} segment;

struct jv_segstore {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    jv_input *in;
    jv_progress *prog; /* the main reader's, updated by the thread that reads a segment */
    size_t seg;        /* segment size */
    uint64_t base0;    /* the stream offset of segment 0 */
    segment *s;        /* segment m at s[m]; below lo freed */
    size_t nseg, cap_seg, lo;
    char *pre; /* bytes of the main window not yet in a segment: they come before the input's */
    size_t npre;
    int in_eof;    /* the input has ended */
    int end;       /* no segment after the last one held */
    jv_status rst; /* the input's error after the last segment (JV_OK: the stream ended) */
    jv_err rerr;
    int reading; /* a thread is reading the next segment (outside the lock) */
    int stop;    /* the scan is over: the scanning threads return */
    int solo;    /* the scanning threads are gone: the caller frees the segments behind it as it reads */
    char *spare[4];
    int nspare;
    size_t next_own;  /* the next segment a scanner takes (those below may be in a scanner's hands) */
    size_t tail_cap;  /* a scanner reads at most this far past its segment (then the committing side rescans) */
    size_t tail_segs; /* the segments past its own that a scanner may read */
    size_t freed_to;  /* the committing thread freed the segments from next_own + tail_segs up to here */
};

void jv_segstore_free(jv_segstore *s) {
    if (!s) return;
    for (size_t m = s->lo; m < s->nseg; m++)
        free(s->s[m].buf);
    for (int i = 0; i < s->nspare; i++)
        free(s->spare[i]);
    free(s->s);
    free(s->pre);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static void seg_release(jv_segstore *s, size_t m) { /* under the lock */
    if (!s->s[m].buf) return;                       /* freed already (behind a long value, see jv_segstore_read) */
    if (s->nspare < 4)
        s->spare[s->nspare++] = s->s[m].buf;
    else
        free(s->s[m].buf);
    s->s[m].buf = NULL;
}

/* Reads segment nseg (the lock held on entry and on return; released while reading). */
static void seg_read_next(jv_segstore *s) {
    s->reading = 1;
    char *b = s->nspare ? s->spare[--s->nspare] : NULL;
    int appended = JV_RESERVE(s->s, s->cap_seg, s->nseg + 1) == JV_OK;
    pthread_mutex_unlock(&s->mu);
    jv_status st = JV_OK;
    jv_err e;
    jv_err_clear(&e);
    if (!b) b = malloc(s->seg);
    size_t len = 0;
    int eof = 0;
    if (!b || !appended) {
        st = jv_err_set(&e, JV_ERR_NOMEM, __FILE__, __LINE__, "out of memory (scan segments)");
    } else {
        if (s->npre) { /* the main window's bytes first */
            len = s->npre < s->seg ? s->npre : s->seg;
            memcpy(b, s->pre, len);
            memmove(s->pre, s->pre + len, s->npre - len);
            s->npre -= len;
        }
        while (len < s->seg && !s->in_eof) {
            size_t got;
            st = jv_input_read(s->in, b + len, s->seg - len, &got, &e);
            if (st != JV_OK) break;
            if (got == 0) s->in_eof = 1;
            len += got;
        }
        jv_progress_update(s->prog, jv_input_file_pos(s->in));
        eof = s->in_eof && s->npre == 0;
    }
    pthread_mutex_lock(&s->mu);
    if (len) {
        s->s[s->nseg++] = (segment){b, len};
    } else if (b) {
        s->spare[s->nspare++] = b; /* taken from the spares or new: there is room */
        if (s->nspare > 4) free(s->spare[--s->nspare]);
    }
    if (st != JV_OK) {
        s->rst = st;
        s->rerr = e;
        s->end = 1;
    } else if (eof) {
        s->end = 1;
    }
    s->reading = 0;
    pthread_cond_broadcast(&s->cv);
}

/* Segment m read (or the stream ends before it: 0); under the lock. A scanning thread gives up (-1) once the
 * scan is stopped. */
static int seg_have(jv_segstore *s, size_t m, int scanner) {
    for (;;) {
        if (scanner && s->stop) return -1;
        if (m < s->nseg) return 1;
        if (s->end) return 0;
        if (s->reading)
            pthread_cond_wait(&s->cv, &s->mu);
        else
            seg_read_next(s);
    }
}

/* One segment's part of jv_segstore_read: the bytes at stream offset at, up to the segment's end. */
static jv_status seg_read_once(reader *r, uint64_t at, char *dst, size_t cap, size_t *got) {
    jv_segstore *s = r->store;
    size_t m = (size_t)((at - s->base0) / s->seg), off = (size_t)((at - s->base0) % s->seg);
    *got = 0;
    pthread_mutex_lock(&s->mu);
    int have = seg_have(s, m, !s->solo);
    if (have < 0) {
        pthread_mutex_unlock(&s->mu);
        JV_FAIL(r->err, JV_ERR_LIMIT, "%s: the scan was stopped", r->path); /* a result nobody takes */
    }
    if (have && off >= s->s[m].len) have = 0; /* the short last segment, read to its end */
    int scanner = r->own_end != UINT64_MAX;
    if (have && (scanner ? !s->s[m].buf || at >= r->own_end + s->tail_cap : !s->solo)) {
        if (scanner) { /* a value too long for a scanner, or its bytes freed: the committing side scans it */
            pthread_mutex_unlock(&s->mu);
            r->gave_up = 1;
            JV_FAIL(r->err, JV_ERR_LIMIT, "%s: a value too long for a scanning thread", r->path);
        }
        /* the committing thread in a long value (blanks, a long string): the segments wholly behind its window
           that no scanner holds or can reach go, so that memory stays bounded as on one thread */
        size_t y = s->next_own + s->tail_segs;
        for (y = y > s->freed_to ? y : s->freed_to; y < m && s->base0 + (uint64_t)(y + 1) * s->seg <= r->base; y++)
            seg_release(s, y);
        if (y > s->freed_to) s->freed_to = y;
    }
    if (!have) {
        jv_status st = s->rst;
        if (st != JV_OK && r->err) *r->err = s->rerr;
        pthread_mutex_unlock(&s->mu);
        return st;
    }
    if (s->solo)
        while (s->lo < m)
            seg_release(s, s->lo++);
    const char *p = s->s[m].buf + off;
    size_t n = s->s[m].len - off;
    pthread_mutex_unlock(&s->mu);
    /* the segment cannot go while this reader is in it: see commit_split */
    if (n > cap) n = cap;
    if (at >= r->own_end) { /* a scanner past its segment: only what its last entry needs */
        size_t step = r->len - r->pos > TAIL_STEP ? r->len - r->pos : TAIL_STEP;
        if (n > step) n = step;
    }
    memcpy(dst, p, n);
    *got = n;
    return JV_OK;
}

jv_status jv_segstore_read(reader *r, char *dst, size_t cap, size_t *got) {
    /* a scanner takes one segment's bytes at a time; the committing thread fills its window as the one-thread
       scan does (a long value then costs as few refills) */
    *got = 0;
    do {
        size_t n;
        jv_status st = seg_read_once(r, r->base + r->len + *got, dst + *got, cap - *got, &n);
        if (st != JV_OK) return *got ? JV_OK : st; /* the error again on the next call */
        if (n == 0) break;
        *got += n;
    } while (*got < cap && r->own_end == UINT64_MAX);
    return JV_OK;
}

int jv_trace_scan_threads(void) {
    const char *e = getenv("JV_SCAN_THREADS");
    int k = 0;
    if (e && *e) {
        k = atoi(e);
    } else {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0) k = CPU_COUNT(&set);
    }
    if (k < 1) k = 1;
    return k > SPLIT_MAX_THREADS ? SPLIT_MAX_THREADS : k;
}

static size_t segment_size(void) {
    const char *e = getenv("JV_SCAN_SEGMENT"); /* bytes: tests cut small traces into many segments */
    long long v = e && *e ? atoll(e) : 0;
    if (v <= 0) return SEG_DEFAULT;
    if (v < 16) v = 16;
    if (v > (16 << 20)) v = 16 << 20;
    return (size_t)v;
}

/* one segment's scan, taken by the committing thread in order */
typedef struct {
    ev_tmp *ev;
    size_t *req_end; /* entry i's strings: defer.req[req_end[i - 1], req_end[i]) */
    size_t n, cap, cap_req;
    jv_defer defer;
    jv_status st; /* the scan's status after these entries */
    jv_err err;
    int end;        /* the array closed after these entries */
    int guessed;    /* 0: no entry boundary found in the segment (nothing scanned) */
    uint64_t start; /* where the scan began */
    uint64_t next;  /* the position after the last entry (after ']' when end) */
    uint64_t seg_end;
    int done; /* set by the scanner, cleared by the committing thread (under the lock) */
} seg_result;

typedef struct {
    jv_segstore *st;
    reader tmpl; /* the scanners' readers start as copies of it */
    int nslot;
    seg_result *res;
    size_t committed; /* the segment the committing thread waits for */
    pthread_t th[SPLIT_MAX_THREADS];
    int nth;
    size_t nverified, nrescanned; /* segments taken from a scanner / scanned again on the committing thread */
} split_scan;

/* Where segment m's scan starts: just after the first '}' followed by blanks, ',', blanks and '{', all within
 * the segment; 0 when it holds none. */
static int guess_start(const char *b, size_t len, size_t *at) {
    const char *p = b, *end = b + len;
    while ((p = memchr(p, '}', (size_t)(end - p))) != NULL) {
        const char *q = jv_json_skip_ws(p + 1, end);
        if (q < end && *q == ',') {
            q = jv_json_skip_ws(q + 1, end);
            if (q < end && *q == '{') {
                *at = (size_t)(p + 1 - b);
                return 1;
            }
        }
        p++;
    }
    return 0;
}

static void scan_segment(split_scan *sp, reader *sr, size_t m, seg_result *res) {
    jv_segstore *s = sp->st;
    res->n = 0;
    res->end = 0;
    res->guessed = 0;
    res->st = JV_OK;
    jv_err_clear(&res->err);
    res->defer.nreq = res->defer.nbytes = 0;
    pthread_mutex_lock(&s->mu);
    int have = seg_have(s, m, 1);
    const char *b = have > 0 ? s->s[m].buf : NULL;
    size_t len = have > 0 ? s->s[m].len : 0;
    pthread_mutex_unlock(&s->mu);
    if (have <= 0 || !b) return; /* past the stream's end, or stopped: never taken; freed: scanned again */
    uint64_t base = s->base0 + (uint64_t)m * s->seg;
    size_t at = 0;
    int first = m == 0;
    if (m > 0 && !guess_start(b, len, &at)) return;
    res->guessed = 1;
    res->start = base + at;
    res->seg_end = base + len;
    if (!sr->borrowed) { /* the window may have grown for a long entry */
        sr->own = sr->buf;
        sr->own_cap = sr->cap;
    }
    /* the segment itself is the window (no copy) until the scan needs the bytes after it */
    sr->buf = (char *)(uintptr_t)(b + at);
    sr->cap = sr->len = len - at;
    sr->borrowed = 1;
    sr->base = res->start;
    sr->pos = 0;
    sr->eof = 0;
    sr->own_end = res->seg_end;
    sr->err = &res->err;
    sr->defer = &res->defer;
    sr->gave_up = 0;
    while (sr->base + sr->pos <= res->seg_end) {
        /* stopped: nobody takes this result (looked at every 64 entries: the flag shares a cache line with the
           store's lock, which the other threads write) */
        if (res->n % 64 == 0 && __atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
            res->st = JV_ERR_LIMIT;
            break;
        }
        if ((res->n >= res->cap || res->n >= res->cap_req) &&
            (JV_RESERVE(res->ev, res->cap, res->n + 1) != JV_OK ||
             JV_RESERVE(res->req_end, res->cap_req, res->n + 1) != JV_OK)) {
            res->st = jv_err_set(&res->err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory", sr->path);
            break;
        }
        int end = 0;
        jv_status st = jv_trace_read_entry(sr, &first, &res->ev[res->n], &end);
        if (st != JV_OK || end) {
            res->st = st;
            res->end = end;
            break;
        }
        res->req_end[res->n++] = res->defer.nreq;
    }
    res->next = sr->base + sr->pos;
    if (sr->gave_up) res->guessed = 0; /* the committing thread scans the segment again */
}

static void *split_main(void *arg) {
    split_scan *sp = arg;
    jv_segstore *s = sp->st;
    reader sr = sp->tmpl;
    size_t cap = 4096;
    while (cap < s->seg + TAIL_STEP)
        cap *= 2;
    sr.cap = cap;
    sr.buf = malloc(cap);
    sr.borrowed = 0;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->stop && s->next_own >= sp->committed + (size_t)sp->nslot)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop) break;
        size_t m = s->next_own++;
        seg_result *res = &sp->res[m % (size_t)sp->nslot];
        pthread_mutex_unlock(&s->mu);
        if (sr.buf) {
            scan_segment(sp, &sr, m, res);
        } else {
            res->guessed = 0; /* scanned on the committing thread */
        }
        pthread_mutex_lock(&s->mu);
        res->done = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    free(sr.borrowed ? sr.own : sr.buf);
    return NULL;
}

/* The committing side: the segments in order. On return the main reader r reads on from the store at the
 * position after the array (or the scan failed: its error in r->err). */
static jv_status commit_split(split_scan *sp, reader *r) {
    jv_segstore *s = sp->st;
    uint64_t next = s->base0; /* where the next entry truly begins */
    int first = 1;
    for (size_t j = 0;; j++) {
        pthread_mutex_lock(&s->mu);
        sp->committed = j;
        /* the segments wholly behind both the true position and segment j go */
        while (s->lo < s->nseg && s->base0 + (uint64_t)(s->lo + 1) * s->seg <= next && s->lo < j)
            seg_release(s, s->lo++);
        pthread_cond_broadcast(&s->cv);
        seg_result *res = &sp->res[j % (size_t)sp->nslot];
        while (!res->done) /* only segment j fills this slot now: segment j - nslot was taken */
            pthread_cond_wait(&s->cv, &s->mu);
        res->done = 0;
        pthread_mutex_unlock(&s->mu);
        if (res->guessed && (j == 0 || res->start == next)) { /* verified: the one-thread scan's entries */
            size_t q = 0;
            for (size_t i = 0; i < res->n; i++) {
                const jv_defer_req *req = res->req_end[i] > q ? res->defer.req + q : NULL;
                JV_CHECK(jv_trace_apply_defer(r, &res->ev[i], req, res->req_end[i] - q, res->defer.bytes));
                JV_CHECK(jv_trace_commit_event(r, &res->ev[i]));
                q = res->req_end[i];
            }
            if (res->st != JV_OK) {
                if (r->err) *r->err = res->err;
                return res->st;
            }
            first = 0;
            next = res->next;
            sp->nverified++;
            if (res->end) {
                r->base = next;
                r->pos = r->len = 0;
                r->eof = 0;
                return JV_OK;
            }
            continue;
        }
        /* the guess was wrong (or there was none): this thread scans the segment's entries from the true
           position, interning and committing each as the one-thread scan does */
        pthread_mutex_lock(&s->mu);
        int have = seg_have(s, j, 0);
        uint64_t seg_end = s->base0 + (uint64_t)j * s->seg + (have > 0 ? s->s[j].len : 0);
        pthread_mutex_unlock(&s->mu);
        if (next >= r->base && next <= r->base + r->len && r->buf) { /* the window holds it: keep it */
            r->pos = (size_t)(next - r->base);
        } else {
            r->base = next;
            r->pos = r->len = 0;
            r->eof = 0;
        }
        sp->nrescanned++;
        while (r->base + r->pos <= seg_end) {
            ev_tmp e;
            int end;
            JV_CHECK(jv_trace_read_entry(r, &first, &e, &end));
            if (end) return JV_OK;
            JV_CHECK(jv_trace_commit_event(r, &e));
        }
        next = r->base + r->pos;
    }
}

int jv_trace_read_events_split(reader *r, int k, jv_status *st) {
    jv_segstore *s = calloc(1, sizeof *s);
    split_scan *sp = calloc(1, sizeof *sp);
    if (!s || !sp) {
        free(s);
        free(sp);
        return 0;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->in = r->in;
    s->prog = &r->prog;
    s->seg = segment_size();
    s->tail_cap = s->seg * 2 > TAIL_CAP_MIN ? s->seg * 2 : TAIL_CAP_MIN;
    s->tail_segs = s->tail_cap / s->seg + 2;
    s->base0 = r->base + r->pos;
    s->in_eof = r->eof;
    s->npre = r->len - r->pos;
    s->pre = malloc(s->npre ? s->npre : 1);
    sp->st = s;
    sp->nslot = k + 1;
    sp->res = calloc((size_t)sp->nslot, sizeof *sp->res);
    if (!s->pre || !sp->res) {
        free(sp->res);
        free(sp);
        jv_segstore_free(s);
        return 0;
    }
    memcpy(s->pre, r->buf + r->pos, s->npre);
    sp->tmpl = *r;
    sp->tmpl.in = NULL;
    sp->tmpl.store = s;
    sp->tmpl.scratch = sp->tmpl.fix = NULL;
    sp->tmpl.scratch_cap = sp->tmpl.fix_cap = 0;
    memset(&sp->tmpl.prog, 0, sizeof sp->tmpl.prog);
    for (int i = 0; i < k; i++)
        if (pthread_create(&sp->th[sp->nth], NULL, split_main, sp) == 0) sp->nth++;
    if (sp->nth == 0) {
        free(sp->res);
        free(sp);
        jv_segstore_free(s);
        return 0; /* the caller scans otherwise */
    }
    r->store = s;
    r->own_end = UINT64_MAX;
    *st = commit_split(sp, r);
    pthread_mutex_lock(&s->mu);
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < sp->nth; i++)
        pthread_join(sp->th[i], NULL);
    s->solo = 1;
    if (getenv("JV_SCAN_STATS")) /* for the tests: how the segments were taken */
        fprintf(stderr,
                "jarvis-analyze: scan: %d threads, %zu-byte segments, %zu taken from a scanner, %zu scanned again\n",
                sp->nth, s->seg, sp->nverified, sp->nrescanned);
    for (int i = 0; i < sp->nslot; i++) {
        free(sp->res[i].ev);
        free(sp->res[i].req_end);
        free(sp->res[i].defer.req);
        free(sp->res[i].defer.bytes);
    }
    free(sp->res);
    free(sp);
    return 1;
}
