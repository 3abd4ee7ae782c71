/* jv_input: stdio + zlib inflate with gzip header detection. */
#include "jv_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

enum { IN_CHUNK = 1 << 18 };

struct jv_input {
    FILE *f;
    const char *path;
    int gz;
    int z_open; /* inflate state initialised */
    int z_end;  /* last member finished and no more data */
    z_stream z;
    unsigned char *zbuf;
    uint64_t pos, size;
};

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
        in->zbuf = malloc(IN_CHUNK);
        if (!in->zbuf || inflateInit2(&in->z, 15 + 32) != Z_OK) {
            free(in->zbuf);
            fclose(in->f);
            free(in);
            JV_FAIL(err, JV_ERR_NOMEM, "%s: cannot start gzip decoder", path);
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
    in->z.next_in = in->zbuf;
    in->z.avail_in = (uInt)*got;
    return JV_OK;
}

/* After a gzip member ends, the one rule for what may follow (as gzip -dc):
 * nothing (z_end), another member (its magic 1f 8b: decoded next), or NUL
 * padding to the end of the file (z_end). Anything else is refused. */
static jv_status after_member(jv_input *in, jv_err *err) {
    size_t got = 1;
    if (in->z.avail_in == 0) JV_CHECK(fill(in, &got, err));
    if (got == 0) {
        in->z_end = 1;
        return JV_OK;
    }
    uint64_t at = in->pos - in->z.avail_in; /* compressed offset of the first byte after the member */
    if (in->z.next_in[0] == 0x1f) {
        /* another member (zlib checks its header, also when it spans two chunks) */
        if (in->z.avail_in >= 2 && in->z.next_in[1] != 0x8b) goto garbage;
        return JV_OK;
    }
    for (;;) { /* NUL padding only, up to the end */
        for (uInt i = 0; i < in->z.avail_in; i++)
            if (in->z.next_in[i] != 0) {
                at = in->pos - in->z.avail_in + i;
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
    in->z.next_out = (unsigned char *)buf;
    in->z.avail_out = (uInt)cap;
    while (in->z.avail_out > 0) {
        if (in->z.avail_in == 0) {
            size_t got = fread(in->zbuf, 1, IN_CHUNK, in->f);
            if (got == 0) {
                if (ferror(in->f)) JV_FAIL(err, JV_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
                JV_FAIL(err, JV_ERR_TRUNCATED,
                        "%s: gzip stream ends early (truncated file?) after %llu compressed bytes", in->path,
                        (unsigned long long)in->pos);
            }
            in->pos += got;
            in->z.next_in = in->zbuf;
            in->z.avail_in = (uInt)got;
        }
        int r = inflate(&in->z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            JV_CHECK(after_member(in, err));
            if (in->z_end) break;
            if (inflateReset(&in->z) != Z_OK)
                JV_FAIL(err, JV_ERR_FORMAT, "%s: corrupt gzip stream (cannot restart)", in->path);
            continue;
        }
        if (r == Z_BUF_ERROR && in->z.avail_in == 0) continue;
        if (r != Z_OK)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: corrupt gzip data: %s", in->path,
                    in->z.msg ? in->z.msg : "inflate failed");
    }
    *n = cap - in->z.avail_out;
    return JV_OK;
}

void jv_input_close(jv_input *in) {
    if (!in) return;
    if (in->z_open) inflateEnd(&in->z);
    free(in->zbuf);
    if (in->f) fclose(in->f);
    free(in);
}
