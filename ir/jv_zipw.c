/* jv_zipw: the zip writer of the replay package (layout from PKWARE's APPNOTE,
 * little-endian throughout): per entry a local header, then its data; then
 * one central directory header per entry; then the end record. */
#include "jv_zipw.h"

#define ZLIB_CONST
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#define SIG_LOCAL    0x04034b50u
#define SIG_CENTRAL  0x02014b50u
#define SIG_END      0x06054b50u
#define LOCAL_SIZE   30u /* fixed part of a local header */
#define CENTRAL_SIZE 46u /* fixed part of a central directory header */
#define END_SIZE     22u
#define OFF_CRC      14u                       /* CRC-32, compressed and uncompressed sizes in a local header */
#define NEEDED       20u                       /* version needed to extract: 2.0 (deflate) */
#define MADE_BY      ((3u << 8) | 63u)         /* UNIX, APPNOTE 6.3 (as libzip writes it) */
#define EXT_ATTR     ((uint32_t)0100666 << 16) /* a regular file, rw-rw-rw- (extraction applies the umask) */
#define FLAG_UTF8    (1u << 11)
#define FLAG_MAX     (1u << 1) /* deflate: "maximum compression" (levels 8, 9) */
#define FLAG_FAST    (1u << 2) /* deflate: "fast" (levels 1, 2) */
#define M_DEFLATE    8u
#define ZIP32_MAX    0xfffffffeu /* sizes and offsets of 0xffffffff and more need ZIP64 */
#define ENTRIES_MAX  0xfffeu
#define CHUNK        ((size_t)1 << 15)
#define IN_STEP      ((size_t)1 << 30) /* zlib takes at most UINT_MAX bytes per call */

typedef struct {
    uint32_t crc, csize, usize, offset;
    uint16_t flags;
} meta;

typedef struct {
    FILE *f;
    const char *path;
    uint64_t off; /* the file offset of the next byte (offsets in a zip count from the start of the file) */
    jv_err *err;
} sink;

static void put16(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v) {
    put16(p, v & 0xffffu);
    put16(p + 2, v >> 16);
}

static jv_status emit(sink *s, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, s->f) != n) JV_FAIL(s->err, JV_ERR_IO, "%s: write error: %s", s->path, strerror(errno));
    s->off += n;
    return JV_OK;
}

/* MS-DOS time and date (local time) of t, clamped to what they can hold */
static void dos_time(time_t t, uint16_t *tm, uint16_t *dt) {
    struct tm lt;
    if (!localtime_r(&t, &lt) || lt.tm_year < 80) {
        *tm = 0;
        *dt = (1u << 5) | 1u; /* 1980-01-01 */
        return;
    }
    if (lt.tm_year > 80 + 127) {
        *tm = (23u << 11) | (59u << 5) | 29u;
        *dt = (127u << 9) | (12u << 5) | 31u;
        return;
    }
    *tm = (uint16_t)((lt.tm_hour << 11) | (lt.tm_min << 5) | (lt.tm_sec / 2));
    *dt = (uint16_t)(((lt.tm_year - 80) << 9) | ((lt.tm_mon + 1) << 5) | lt.tm_mday);
}

/* Where an entry's data come from: memory (mem, left) or its file (read into buf) */
typedef struct {
    const jv_zipw_item *it;
    const unsigned char *mem;
    size_t left;
    unsigned char *buf; /* CHUNK bytes, for a streamed entry */
} source;

/* Reads the next piece of the entry's data: *p points at up to IN_STEP bytes of memory or CHUNK bytes of the
 * file; *n is 0 at the end (fread returns a short count only at the end or on an error). The piece is counted into
 * *crc and *usize. */
static jv_status next_piece(sink *s, source *src, const unsigned char **p, size_t *n, uLong *crc, uint64_t *usize) {
    if (src->it->src) {
        *n = fread(src->buf, 1, CHUNK, src->it->src);
        if (*n < CHUNK && ferror(src->it->src))
            JV_FAIL(s->err, JV_ERR_IO, "%s: cannot read the data of entry '%s': %s", s->path, src->it->e.name,
                    strerror(errno));
        *p = src->buf;
    } else {
        *n = src->left < IN_STEP ? src->left : IN_STEP;
        *p = src->mem;
        src->mem += *n;
        src->left -= *n;
    }
    *crc = crc32_z(*crc, *p, *n);
    *usize += *n;
    return JV_OK;
}

/* Deflates the entry's data (raw deflate) onto the sink; m gets its CRC-32 and sizes. The pieces go in with
 * Z_NO_FLUSH, then Z_FINISH with no input (the same bytes as one call with Z_FINISH: no flush point between). */
static jv_status deflate_data(sink *s, const jv_zipw_item *it, int level, meta *m) {
    const jv_zipw_entry *e = &it->e;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    unsigned char *out = malloc(it->src ? 2 * CHUNK : CHUNK); /* a streamed entry reads into the second half */
    if (!out || deflateInit2(&zs, level, Z_DEFLATED, -MAX_WBITS, MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(out);
        JV_FAIL(s->err, JV_ERR_NOMEM, "%s: out of memory compressing entry '%s'", s->path, e->name);
    }
    source src = {it, e->data, e->len, out + CHUNK};
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t usize = 0, start = s->off;
    jv_status st = JV_OK;
    int flush = Z_NO_FLUSH;
    while (st == JV_OK && flush != Z_FINISH) {
        const unsigned char *p = NULL;
        size_t n = 0;
        st = next_piece(s, &src, &p, &n, &crc, &usize);
        if (st != JV_OK) break;
        flush = n ? Z_NO_FLUSH : Z_FINISH;
        zs.next_in = p;
        zs.avail_in = (uInt)n;
        do {
            zs.next_out = out;
            zs.avail_out = (uInt)CHUNK;
            int zr = deflate(&zs, flush);
            if (zr == Z_STREAM_ERROR) {
                st = jv_err_set(s->err, JV_ERR_INTERNAL, __FILE__, __LINE__, "%s: deflate failed on entry '%s'",
                                s->path, e->name);
                break;
            }
            st = emit(s, out, CHUNK - zs.avail_out);
        } while (st == JV_OK && (zs.avail_out == 0 || zs.avail_in > 0));
    }
    deflateEnd(&zs);
    free(out);
    JV_CHECK(st);
    uint64_t csize = s->off - start;
    if (usize > ZIP32_MAX || csize > ZIP32_MAX)
        JV_FAIL(s->err, JV_ERR_LIMIT, "%s: entry '%s' of %llu bytes (%llu compressed) would need ZIP64: refused",
                s->path, e->name, (unsigned long long)usize, (unsigned long long)csize);
    m->crc = (uint32_t)crc;
    m->usize = (uint32_t)usize;
    m->csize = (uint32_t)csize;
    return JV_OK;
}

/* Writes entry e: its local header, its data, then its CRC-32 and sizes into the header once known. */
static jv_status write_entry(sink *s, const jv_zipw_item *it, uint16_t tm, uint16_t dt, meta *m) {
    const jv_zipw_entry *e = &it->e;
    size_t nlen = strlen(e->name);
    if (nlen > 0xffffu) JV_FAIL(s->err, JV_ERR_LIMIT, "%s: entry name of %zu bytes (at most 65535)", s->path, nlen);
    if ((!it->src && (uint64_t)e->len > ZIP32_MAX) || s->off > ZIP32_MAX)
        JV_FAIL(s->err, JV_ERR_LIMIT, "%s: entry '%s' (%zu bytes at offset %llu) would need ZIP64: refused", s->path,
                e->name, it->src ? (size_t)0 : e->len, (unsigned long long)s->off);
    int level = it->level >= 1 && it->level <= 9 ? it->level : Z_BEST_COMPRESSION;
    m->offset = (uint32_t)s->off;
    /* every entry deflated, even an empty one (2 bytes), as libzip does; bits 1-2: the level's class */
    m->flags = level >= 8 ? FLAG_MAX : level <= 2 ? FLAG_FAST : 0;
    for (const unsigned char *p = (const unsigned char *)e->name; *p; p++)
        if (*p > 0x7f) m->flags |= FLAG_UTF8;
    unsigned char h[LOCAL_SIZE];
    put32(h, SIG_LOCAL);
    put16(h + 4, NEEDED);
    put16(h + 6, m->flags);
    put16(h + 8, M_DEFLATE);
    put16(h + 10, tm);
    put16(h + 12, dt);
    put32(h + OFF_CRC, 0); /* CRC-32 and sizes: filled in below */
    put32(h + OFF_CRC + 4, 0);
    put32(h + OFF_CRC + 8, 0);
    put16(h + 26, (uint32_t)nlen);
    put16(h + 28, 0);
    JV_CHECK(emit(s, h, sizeof h));
    JV_CHECK(emit(s, e->name, nlen));
    JV_CHECK(deflate_data(s, it, level, m));
    unsigned char c[12];
    put32(c, m->crc);
    put32(c + 4, m->csize);
    put32(c + 8, m->usize);
    if (fseeko(s->f, (off_t)m->offset + (off_t)OFF_CRC, SEEK_SET) != 0 || fwrite(c, 1, sizeof c, s->f) != sizeof c ||
        fseeko(s->f, (off_t)s->off, SEEK_SET) != 0)
        JV_FAIL(s->err, JV_ERR_IO, "%s: cannot complete the header of entry '%s': %s", s->path, e->name,
                strerror(errno));
    return JV_OK;
}

/* The central directory header of entry e */
static jv_status write_central(sink *s, const jv_zipw_entry *e, const meta *m, uint16_t tm, uint16_t dt) {
    size_t nlen = strlen(e->name);
    unsigned char h[CENTRAL_SIZE];
    put32(h, SIG_CENTRAL);
    put16(h + 4, MADE_BY);
    put16(h + 6, NEEDED);
    put16(h + 8, m->flags);
    put16(h + 10, M_DEFLATE);
    put16(h + 12, tm);
    put16(h + 14, dt);
    put32(h + 16, m->crc);
    put32(h + 20, m->csize);
    put32(h + 24, m->usize);
    put16(h + 28, (uint32_t)nlen);
    put16(h + 30, 0); /* extra field */
    put16(h + 32, 0); /* comment */
    put16(h + 34, 0); /* disk number */
    put16(h + 36, 0); /* internal attributes */
    put32(h + 38, EXT_ATTR);
    put32(h + 42, m->offset);
    JV_CHECK(emit(s, h, sizeof h));
    return emit(s, e->name, nlen);
}

jv_status jv_zipw_write_items(FILE *f, const char *path, const jv_zipw_item *it, int n, time_t mtime, jv_err *err) {
    if (n < 0 || (unsigned)n > ENTRIES_MAX)
        JV_FAIL(err, JV_ERR_LIMIT, "%s: %d entries (at most %u without ZIP64): refused", path, n, ENTRIES_MAX);
    off_t base = ftello(f);
    if (base < 0) JV_FAIL(err, JV_ERR_IO, "%s: cannot tell the write position: %s", path, strerror(errno));
    meta *m = calloc(n ? (size_t)n : 1, sizeof *m);
    if (!m) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    sink s = {f, path, (uint64_t)base, err};
    uint16_t tm, dt;
    dos_time(mtime, &tm, &dt);
    jv_status st = JV_OK;
    for (int i = 0; i < n && st == JV_OK; i++)
        st = write_entry(&s, &it[i], tm, dt, &m[i]);
    uint64_t cd_off = s.off;
    for (int i = 0; i < n && st == JV_OK; i++)
        st = write_central(&s, &it[i].e, &m[i], tm, dt);
    free(m);
    JV_CHECK(st);
    uint64_t cd_size = s.off - cd_off;
    if (cd_off > ZIP32_MAX || cd_size > ZIP32_MAX)
        JV_FAIL(err, JV_ERR_LIMIT, "%s: a central directory at %llu (%llu bytes) would need ZIP64: refused", path,
                (unsigned long long)cd_off, (unsigned long long)cd_size);
    unsigned char h[END_SIZE];
    put32(h, SIG_END);
    put16(h + 4, 0);           /* this disk */
    put16(h + 6, 0);           /* the disk of the central directory */
    put16(h + 8, (uint32_t)n); /* entries on this disk */
    put16(h + 10, (uint32_t)n);
    put32(h + 12, (uint32_t)cd_size);
    put32(h + 16, (uint32_t)cd_off);
    put16(h + 20, 0); /* comment */
    return emit(&s, h, sizeof h);
}

jv_status jv_zipw_write(FILE *f, const char *path, const jv_zipw_entry *e, int n, time_t mtime, jv_err *err) {
    if (n < 0 || (unsigned)n > ENTRIES_MAX)
        JV_FAIL(err, JV_ERR_LIMIT, "%s: %d entries (at most %u without ZIP64): refused", path, n, ENTRIES_MAX);
    jv_zipw_item *it = calloc(n ? (size_t)n : 1, sizeof *it);
    if (!it) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    for (int i = 0; i < n; i++)
        it[i].e = e[i];
    jv_status st = jv_zipw_write_items(f, path, it, n, mtime, err);
    free(it);
    return st;
}
