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
#define OFF_CSIZE    18u                       /* the compressed size in a local header */
#define NEEDED       20u                       /* version needed to extract: 2.0 (deflate) */
#define MADE_BY      ((3u << 8) | 63u)         /* UNIX, APPNOTE 6.3 (as libzip writes it) */
#define EXT_ATTR     ((uint32_t)0100666 << 16) /* a regular file, rw-rw-rw- (extraction applies the umask) */
#define FLAG_UTF8    (1u << 11)
#define FLAG_MAX     (1u << 1) /* deflate: "maximum compression" (level 9) */
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

/* CRC-32 of the whole entry */
static uint32_t entry_crc(const jv_zipw_entry *e) {
    uLong c = crc32(0L, Z_NULL, 0);
    const unsigned char *p = e->data;
    for (size_t left = e->len; left;) {
        size_t take = left < IN_STEP ? left : IN_STEP;
        c = crc32_z(c, p, take);
        p += take;
        left -= take;
    }
    return (uint32_t)c;
}

/* Deflates the entry's data (raw deflate) onto the sink; *csize: the bytes written. */
static jv_status deflate_data(sink *s, const jv_zipw_entry *e, uint64_t *csize) {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
        JV_FAIL(s->err, JV_ERR_NOMEM, "%s: out of memory compressing entry '%s'", s->path, e->name);
    unsigned char out[CHUNK];
    const unsigned char *in = e->data;
    size_t left = e->len;
    uint64_t start = s->off;
    jv_status st = JV_OK;
    int flush;
    do {
        size_t take = left < IN_STEP ? left : IN_STEP;
        zs.next_in = in;
        zs.avail_in = (uInt)take;
        in += take;
        left -= take;
        flush = left ? Z_NO_FLUSH : Z_FINISH;
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
        } while (st == JV_OK && zs.avail_out == 0);
    } while (st == JV_OK && flush != Z_FINISH);
    deflateEnd(&zs);
    *csize = s->off - start;
    return st;
}

/* Writes entry e: its local header, its data, and the compressed size into the header once known. */
static jv_status write_entry(sink *s, const jv_zipw_entry *e, uint16_t tm, uint16_t dt, meta *m) {
    size_t nlen = strlen(e->name);
    if (nlen > 0xffffu) JV_FAIL(s->err, JV_ERR_LIMIT, "%s: entry name of %zu bytes (at most 65535)", s->path, nlen);
    if ((uint64_t)e->len > ZIP32_MAX || s->off > ZIP32_MAX)
        JV_FAIL(s->err, JV_ERR_LIMIT, "%s: entry '%s' (%zu bytes at offset %llu) would need ZIP64: refused", s->path,
                e->name, e->len, (unsigned long long)s->off);
    m->offset = (uint32_t)s->off;
    m->usize = (uint32_t)e->len;
    m->crc = entry_crc(e);
    m->flags = FLAG_MAX; /* every entry deflated, even an empty one (2 bytes), as libzip does */
    for (const unsigned char *p = (const unsigned char *)e->name; *p; p++)
        if (*p > 0x7f) m->flags |= FLAG_UTF8;
    unsigned char h[LOCAL_SIZE];
    put32(h, SIG_LOCAL);
    put16(h + 4, NEEDED);
    put16(h + 6, m->flags);
    put16(h + 8, M_DEFLATE);
    put16(h + 10, tm);
    put16(h + 12, dt);
    put32(h + 14, m->crc);
    put32(h + OFF_CSIZE, 0); /* the compressed size: filled in below */
    put32(h + 22, m->usize);
    put16(h + 26, (uint32_t)nlen);
    put16(h + 28, 0);
    JV_CHECK(emit(s, h, sizeof h));
    JV_CHECK(emit(s, e->name, nlen));
    uint64_t csize = 0;
    JV_CHECK(deflate_data(s, e, &csize));
    if (csize > ZIP32_MAX)
        JV_FAIL(s->err, JV_ERR_LIMIT, "%s: entry '%s' compresses to %llu bytes: it would need ZIP64: refused", s->path,
                e->name, (unsigned long long)csize);
    m->csize = (uint32_t)csize;
    unsigned char c[4];
    put32(c, m->csize);
    if (fseeko(s->f, (off_t)m->offset + (off_t)OFF_CSIZE, SEEK_SET) != 0 || fwrite(c, 1, 4, s->f) != 4 ||
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

jv_status jv_zipw_write(FILE *f, const char *path, const jv_zipw_entry *e, int n, time_t mtime, jv_err *err) {
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
        st = write_entry(&s, &e[i], tm, dt, &m[i]);
    uint64_t cd_off = s.off;
    for (int i = 0; i < n && st == JV_OK; i++)
        st = write_central(&s, &e[i], &m[i], tm, dt);
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
