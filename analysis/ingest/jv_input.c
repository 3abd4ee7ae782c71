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
            /* another member may follow (concatenated gzip); trailing garbage is an error
               only if it does not start a gzip header */
            if (in->z.avail_in == 0) {
                int ch = fgetc(in->f);
                if (ch == EOF) {
                    in->z_end = 1;
                    break;
                }
                ungetc(ch, in->f);
            }
            if (in->z.avail_in > 0 && in->z.next_in[0] != 0x1f) {
                in->z_end = 1; /* ignore trailing padding as gzip -d does for NULs */
                break;
            }
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
