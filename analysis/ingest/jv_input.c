/* jv_input: stdio plus a gzip decoder: ISA-L's igzip where the build found it (JV_HAVE_ISAL: about 2-3x
 * zlib's inflate speed), zlib otherwise or when JV_INFLATE=zlib asks for it. Both engines read from the same
 * compressed buffer (in->zin, in->zavail) and follow the same rules between members (after_member). */
#include "jv_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#ifdef JV_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

enum { IN_CHUNK = 1 << 18 };

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
};

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

jv_status jv_input_open(const char *path, jv_input **out, jv_err *err) {
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
    if (fstat(fileno(in->f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(in->f);
            free(in);
            JV_FAIL(err, JV_ERR_IO, "%s: is a directory, not a trace file", path);
        }
        in->size = (uint64_t)st.st_size;
    }
    int c0 = fgetc(in->f), c1 = fgetc(in->f);
    in->gz = c0 == 0x1f && c1 == 0x8b;
    rewind(in->f);
    if (in->gz) {
        in->isal = want_isal();
        in->zbuf = malloc(IN_CHUNK);
        if (!in->zbuf || engine_start(in) != 0) {
            jv_input_close(in);
            JV_FAIL(err, JV_ERR_NOMEM, "%s: cannot start the gzip decoder", path);
        }
        in->z_open = 1;
    }
    *out = in;
    return JV_OK;
}

int jv_input_is_gzip(const jv_input *in) {
    return in->gz;
}
uint64_t jv_input_file_pos(const jv_input *in) {
    return in->pos;
}
uint64_t jv_input_file_size(const jv_input *in) {
    return in->size;
}

/* Refills the compressed buffer; *got = 0 at the end of the file. */
static jv_status fill(jv_input *in, size_t *got, jv_err *err) {
    *got = fread(in->zbuf, 1, IN_CHUNK, in->f);
    if (*got == 0 && ferror(in->f)) JV_FAIL(err, JV_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
    in->pos += *got;
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

jv_status jv_input_read(jv_input *in, char *buf, size_t cap, size_t *n, jv_err *err) {
    *n = 0;
    if (!in->gz) {
        size_t got = fread(buf, 1, cap, in->f);
        if (got == 0 && ferror(in->f)) JV_FAIL(err, JV_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
        in->pos += got;
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
    if (in->z_open && !in->isal) inflateEnd(&in->z);
#ifdef JV_HAVE_ISAL
    free(in->st);
#endif
    free(in->zbuf);
    if (in->f) fclose(in->f);
    free(in);
}
