/* jv_input: stdio plus a gzip decoder: ISA-L's igzip where the build found it (JV_HAVE_ISAL: about 2-3x
 * zlib's inflate speed), zlib otherwise or when JV_INFLATE=zlib asks for it. Both engines read from the same
 * compressed buffer (in->zin, in->zavail) and follow the same rules between members (after_member).
 * On a machine with two or more cores a gzip'd file is inflated ahead by a second thread into a ring of
 * RING_SLOTS chunks that jv_input_read hands out in order, so that inflating overlaps the caller's scan (a plain
 * file hashed as it is read is read and hashed ahead the same way; one hashed in the background is not);
 * the bytes, and an error where the data holds one, reach the caller as the synchronous decoder gives them
 * (JV_INFLATE_THREADS=0 turns the thread off). */
#include "jv_input.h"

#include "jv_sha256.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef JV_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* 64 KiB of compressed input and a ring of 4 x 256 KiB: they stay resident for the whole read (4 x 512 KiB and 256
 * KiB of input held 1.2 MiB more; 4 x 128 KiB slots cost about 5 % more CPU in hand-overs, issue 21) */
enum { IN_CHUNK = 1 << 16, RING_SLOTS = 4, SLOT_BYTES = 1 << 18 };

/* The read-ahead: slots filled in order by the decoder thread, emptied in order by jv_input_read. */
typedef struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *buf[RING_SLOTS];
    size_t len[RING_SLOTS];
    unsigned long long filled, taken; /* slots published / released, counted from the start */
    size_t off;                       /* bytes of the oldest filled slot already handed out */
    int done;                         /* the decoder stopped: end of the data, or status below */
    jv_status status;                 /* the error that stopped it (JV_OK at the end of the data) */
    jv_err err;
    int stop;     /* the reader closes: the decoder must return */
    uint64_t pos; /* compressed bytes the decoder had read when it published its last slot (progress) */
} ring;

struct jv_input {
    FILE *f;
    const char *path;
    int gz;
    int isal;   /* the igzip engine decodes (else zlib) */
    int z_open; /* the engine's state initialised */
    int z_end;  /* last member finished and no more data */
    z_stream z;
#ifdef JV_HAVE_ISAL
    struct inflate_state *st;
#endif
    unsigned char *zbuf;
    const unsigned char *zin; /* the compressed bytes not yet decoded */
    size_t zavail;
    uint64_t pos, size;
    int hash; /* the file's bytes go through sha as they are read */
    jv_sha256 sha;
    jv_filehash *bg;       /* or the background hash (until jv_input_take_filehash) */
    unsigned char peek[2]; /* the file's first bytes, read to tell gzip from JSON: file_read gives them first */
    size_t npeek, peek_off;
    ring *rg; /* the read-ahead thread's ring (NULL: decoded on the caller's thread) */
};

static jv_status read_direct(jv_input *in, char *buf, size_t cap, size_t *n, jv_err *err);
static jv_status ring_start(jv_input *in);

/* 1 when the build's igzip decodes this run: compiled in and not turned off by JV_INFLATE=zlib */
static int want_isal(void) {
#ifdef JV_HAVE_ISAL
    const char *e = getenv("JV_INFLATE");
    return !(e && !strcmp(e, "zlib"));
#else
    return 0;
#endif
}

const char *jv_input_decoder(void) {
    return want_isal() ? "isa-l igzip" : "zlib";
}

/* the decoder for one gzip member from its first byte; 0 or -1 when it cannot start */
static int engine_start(jv_input *in) {
#ifdef JV_HAVE_ISAL
    if (in->isal) {
        if (!in->st && !(in->st = malloc(sizeof *in->st))) return -1;
        isal_inflate_init(in->st);
        in->st->crc_flag = ISAL_GZIP; /* parses the gzip header, verifies CRC-32 and size */
        return 0;
    }
#endif
    if (!in->z_open) return inflateInit2(&in->z, 15 + 16) == Z_OK ? 0 : -1; /* gzip only */
    return inflateReset(&in->z) == Z_OK ? 0 : -1;
}

/* 1 where a plain file of size bytes is hashed in the background (jv_hash_mode) */
static int hash_in_background(uint64_t size) {
    const char *e = getenv("JV_HASH_THREAD");
    if (e && !strcmp(e, "0")) return 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return ncpu >= 2 && pages > 0 && page > 0 && size <= (uint64_t)pages / 4 * (uint64_t)page;
}

jv_status jv_input_open(const char *path, jv_hash_mode hash, jv_input **out, jv_err *err) {
    *out = NULL;
    jv_input *in = calloc(1, sizeof *in);
    if (!in) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    in->path = path;
    in->f = fopen(path, "rb");
    if (!in->f) {
        free(in);
        JV_FAIL(err, JV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    int regular = 0; /* a regular file (pread reads it again from its start: the background hash) */
    if (fstat(fileno(in->f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(in->f);
            free(in);
            JV_FAIL(err, JV_ERR_IO, "%s: is a directory, not a trace file", path);
        }
        in->size = (uint64_t)st.st_size;
        regular = S_ISREG(st.st_mode);
    }
    /* the first two bytes say gzip or not; they are kept and read first (a pipe cannot be rewound) */
    in->npeek = fread(in->peek, 1, sizeof in->peek, in->f);
    in->gz = in->npeek == 2 && in->peek[0] == 0x1f && in->peek[1] == 0x8b;
    if (hash == JV_HASH_BACKGROUND && !in->gz && regular && hash_in_background(in->size)) {
        jv_status hs = jv_filehash_start(fileno(in->f), path, &in->bg, err);
        if (hs != JV_OK) {
            jv_input_close(in);
            return hs;
        }
    } else if (hash != JV_HASH_NONE) {
        in->hash = 1;
        jv_sha256_init(&in->sha);
    }
    if (in->gz) {
        in->isal = want_isal();
        in->zbuf = malloc(IN_CHUNK);
        if (!in->zbuf || engine_start(in) != 0) {
            jv_input_close(in);
            JV_FAIL(err, JV_ERR_NOMEM, "%s: cannot start the gzip decoder", path);
        }
        in->z_open = 1;
    }
    /* the read-ahead thread inflates a gzip'd file; for a plain one it pays only where the file is hashed: it
       then reads and hashes while the caller scans (without a hash it would add a copy and save nothing) */
    const char *t = getenv("JV_INFLATE_THREADS");
    if ((in->gz || in->hash) && sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !(t && !strcmp(t, "0")) &&
        ring_start(in) != JV_OK) {
        jv_input_close(in);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: cannot start the read-ahead thread", path);
    }
    *out = in;
    return JV_OK;
}

jv_filehash *jv_input_take_filehash(jv_input *in) {
    jv_filehash *h = in->bg;
    in->bg = NULL;
    return h;
}

int jv_input_is_gzip(const jv_input *in) {
    return in->gz;
}
uint64_t jv_input_file_pos(const jv_input *in) {
    if (!in->rg) return in->pos;
    pthread_mutex_lock(&in->rg->mu);
    uint64_t p = in->rg->pos;
    pthread_mutex_unlock(&in->rg->mu);
    return p;
}
uint64_t jv_input_file_size(const jv_input *in) {
    return in->size;
}

void jv_input_sha256(const jv_input *in, char hex[65], uint64_t *bytes) {
    hex[0] = '\0';
    *bytes = 0;
    if (!in->hash) return;
    jv_sha256 s = in->sha; /* the reader saw the end: the read-ahead thread no longer reads */
    jv_sha256_final(&s, hex);
    *bytes = in->pos;
}

/* fread of the file, the bytes jv_input_open looked at first */
static size_t file_read(jv_input *in, void *buf, size_t cap) {
    size_t k = in->npeek - in->peek_off;
    if (k > cap) k = cap;
    memcpy(buf, in->peek + in->peek_off, k);
    in->peek_off += k;
    return k + (cap > k ? fread((char *)buf + k, 1, cap - k, in->f) : 0);
}

/* Refills the compressed buffer; *got = 0 at the end of the file. */
static jv_status fill(jv_input *in, size_t *got, jv_err *err) {
    *got = file_read(in, in->zbuf, IN_CHUNK);
    if (*got == 0 && ferror(in->f)) JV_FAIL(err, JV_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
    in->pos += *got;
    if (in->hash) jv_sha256_update(&in->sha, in->zbuf, *got);
    in->zin = in->zbuf;
    in->zavail = *got;
    return JV_OK;
}

/* After a gzip member ends, the one rule for what may follow (as gzip -dc):
 * nothing (z_end), another member (its magic 1f 8b: decoded next), or NUL
 * padding to the end of the file (z_end). Anything else is refused. */
static jv_status after_member(jv_input *in, jv_err *err) {
    size_t got = 1;
    if (in->zavail == 0) JV_CHECK(fill(in, &got, err));
    if (got == 0) {
        in->z_end = 1;
        return JV_OK;
    }
    uint64_t at = in->pos - in->zavail; /* compressed offset of the first byte after the member */
    if (in->zin[0] == 0x1f) {
        /* another member (the decoder checks its header, also when it spans two chunks) */
        if (in->zavail >= 2 && in->zin[1] != 0x8b) goto garbage;
        return JV_OK;
    }
    for (;;) { /* NUL padding only, up to the end */
        for (size_t i = 0; i < in->zavail; i++)
            if (in->zin[i] != 0) {
                at = in->pos - in->zavail + i;
                goto garbage;
            }
        JV_CHECK(fill(in, &got, err));
        if (got == 0) break;
    }
    in->z_end = 1;
    return JV_OK;
garbage:
    JV_FAIL(err, JV_ERR_FORMAT,
            "%s: bytes after the gzip data at compressed byte %llu are neither another gzip member nor NUL "
            "padding (trailing garbage: the file is damaged or not one gzip file)",
            in->path, (unsigned long long)at);
}

/* One decoding step into *out (avail bytes): consumes from in->zin, advances *out. Sets *member_end at the
 * end of a member. JV_ERR_FORMAT naming the damage. */
static jv_status engine_step(jv_input *in, unsigned char **out, size_t *avail, int *member_end, jv_err *err) {
    *member_end = 0;
#ifdef JV_HAVE_ISAL
    if (in->isal) {
        struct inflate_state *s = in->st;
        s->next_in = (uint8_t *)in->zin;
        s->avail_in = (uint32_t)in->zavail;
        s->next_out = *out;
        s->avail_out = (uint32_t)*avail;
        int r = isal_inflate(s);
        in->zin = s->next_in;
        in->zavail = s->avail_in;
        *avail -= (size_t)(s->next_out - *out);
        *out = s->next_out;
        if (r != ISAL_DECOMP_OK) {
            const char *why = r == ISAL_INCORRECT_CHECKSUM   ? "CRC-32 or size check failed"
                              : r == ISAL_INVALID_WRAPPER    ? "not a gzip header"
                              : r == ISAL_UNSUPPORTED_METHOD ? "not deflate-compressed"
                              : r == ISAL_INVALID_LOOKBACK   ? "invalid back-reference"
                                                             : "invalid deflate block or symbol";
            JV_FAIL(err, JV_ERR_FORMAT, "%s: corrupt gzip data: %s", in->path, why);
        }
        *member_end = s->block_state == ISAL_BLOCK_FINISH;
        return JV_OK;
    }
#endif
    in->z.next_in = (unsigned char *)in->zin;
    in->z.avail_in = (uInt)in->zavail;
    in->z.next_out = *out;
    in->z.avail_out = (uInt)*avail;
    int r = inflate(&in->z, Z_NO_FLUSH);
    in->zin = in->z.next_in;
    in->zavail = in->z.avail_in;
    *avail -= (size_t)(in->z.next_out - *out);
    *out = in->z.next_out;
    if (r == Z_STREAM_END) {
        *member_end = 1;
        return JV_OK;
    }
    if (r == Z_OK || (r == Z_BUF_ERROR && in->zavail == 0)) return JV_OK;
    JV_FAIL(err, JV_ERR_FORMAT, "%s: corrupt gzip data: %s", in->path, in->z.msg ? in->z.msg : "inflate failed");
}

/* the decoder thread: fills the slots in order until the data ends, an error or the reader's close */
static void *ring_main(void *arg) {
    jv_input *in = arg;
    ring *r = in->rg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (!r->stop && r->filled - r->taken == RING_SLOTS)
            pthread_cond_wait(&r->cv, &r->mu);
        int stop = r->stop;
        unsigned slot = (unsigned)(r->filled % RING_SLOTS);
        pthread_mutex_unlock(&r->mu);
        if (stop) return NULL;
        size_t got = 0;
        jv_err e = {0};
        jv_status st = read_direct(in, r->buf[slot], SLOT_BYTES, &got, &e);
        pthread_mutex_lock(&r->mu);
        if (st != JV_OK || got == 0) {
            r->done = 1;
            r->status = st;
            r->err = e;
        } else {
            r->len[slot] = got;
            r->filled++;
        }
        r->pos = in->pos;
        pthread_cond_broadcast(&r->cv);
        int end = r->done;
        pthread_mutex_unlock(&r->mu);
        if (end) return NULL;
    }
}

/* frees a ring whose thread is not running (never started, or joined) */
static void ring_free(ring *r) {
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    for (int i = 0; i < RING_SLOTS; i++)
        free(r->buf[i]);
    free(r);
}

static jv_status ring_start(jv_input *in) {
    ring *r = calloc(1, sizeof *r);
    if (!r) return JV_ERR_NOMEM;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    int ok = 1;
    for (int i = 0; i < RING_SLOTS; i++)
        ok = ok && (r->buf[i] = malloc(SLOT_BYTES)) != NULL;
    in->rg = r;
    if (!ok || pthread_create(&r->thread, NULL, ring_main, in) != 0) {
        ring_free(r);
        in->rg = NULL;
        return JV_ERR_NOMEM;
    }
    return JV_OK;
}

/* stops the decoder thread and frees the ring */
static void ring_stop(jv_input *in) {
    ring *r = in->rg;
    if (!r) return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    ring_free(r);
    in->rg = NULL;
}

/* jv_input_read from the ring: the filled slots in order, then the decoder's end or error */
static jv_status ring_read(jv_input *in, char *buf, size_t cap, size_t *n, jv_err *err) {
    ring *r = in->rg;
    *n = 0;
    pthread_mutex_lock(&r->mu);
    while (*n < cap) {
        while (r->filled == r->taken && !r->done)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->filled == r->taken) { /* drained: the data ended, or the error comes now */
            jv_status st = r->status;
            if (st != JV_OK && *n == 0 && err) *err = r->err;
            pthread_mutex_unlock(&r->mu);
            return *n ? JV_OK : st;
        }
        unsigned slot = (unsigned)(r->taken % RING_SLOTS);
        size_t k = r->len[slot] - r->off;
        if (k > cap - *n) k = cap - *n;
        pthread_mutex_unlock(&r->mu); /* the slot is the reader's until released */
        memcpy(buf + *n, r->buf[slot] + r->off, k);
        *n += k;
        pthread_mutex_lock(&r->mu);
        r->off += k;
        if (r->off == r->len[slot]) {
            r->off = 0;
            r->taken++;
            pthread_cond_broadcast(&r->cv);
        }
    }
    pthread_mutex_unlock(&r->mu);
    return JV_OK;
}

jv_status jv_input_read(jv_input *in, char *buf, size_t cap, size_t *n, jv_err *err) {
    if (in->rg) return ring_read(in, buf, cap, n, err);
    return read_direct(in, buf, cap, n, err);
}

/* the synchronous decoder (the caller's thread, or the read-ahead thread) */
static jv_status read_direct(jv_input *in, char *buf, size_t cap, size_t *n, jv_err *err) {
    *n = 0;
    if (!in->gz) {
        size_t got = file_read(in, buf, cap);
        if (got == 0 && ferror(in->f)) JV_FAIL(err, JV_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
        in->pos += got;
        if (in->hash) jv_sha256_update(&in->sha, buf, got);
        *n = got;
        return JV_OK;
    }
    if (in->z_end) return JV_OK;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    unsigned char *out = (unsigned char *)buf;
    size_t avail = cap;
    while (avail > 0) {
        if (in->zavail == 0) {
            size_t got;
            JV_CHECK(fill(in, &got, err));
            if (got == 0)
                JV_FAIL(err, JV_ERR_TRUNCATED,
                        "%s: gzip stream ends early (truncated file?) after %llu compressed bytes", in->path,
                        (unsigned long long)in->pos);
        }
        int end;
        JV_CHECK(engine_step(in, &out, &avail, &end, err));
        if (end) {
            JV_CHECK(after_member(in, err));
            if (in->z_end) break;
            if (engine_start(in) != 0)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: corrupt gzip stream (cannot restart)", in->path);
        }
    }
    *n = cap - avail;
    return JV_OK;
}

void jv_input_close(jv_input *in) {
    if (!in) return;
    ring_stop(in);
    if (in->z_open && !in->isal) inflateEnd(&in->z);
#ifdef JV_HAVE_ISAL
    free(in->st);
#endif
    free(in->zbuf);
    jv_filehash_free(in->bg);
    if (in->f) fclose(in->f);
    free(in);
}
