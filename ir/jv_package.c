/* jv_package: reading the replay package zip (libzip) member by member into
 * memory (never onto disk), after the whole archive has been checked: a
 * hostile archive is refused as a whole. Writing it is jv_package_write.c
 * (jv_zipw, no libzip). */
#include "jv_package.h"

#include "jv_sha256.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define MIB          ((uint64_t)1 << 20)
#define RATIO_MAX    1000.0 /* compression ratio of a member over RATIO_FLOOR bytes */
#define RATIO_FLOOR  MIB
#define TOTAL_FACTOR 64 /* all members together: at most 64 * max_bytes */
#define MAX_MEMBERS  10000
#define READ_CHUNK   ((size_t)1 << 16)
/* replay IR: read one entry at a time (jv_ir_parse), its memory is the text plus ~8.7 KB per entry's read call,
   so 16 MiB of ordinary entries (~25,000) take ~220 MB; the largest IR of the 38 fixture traces' packages, all
   ops kept (--replay-top 0), is 0.33 MB (nv_sampled_w128_rank1) */
#define IR_LIMIT       ((size_t)JV_PACKAGE_IR_LIMIT)
#define MANIFEST_LIMIT ((size_t)1 << 20)

/* Opens path read-only with consistency checks. */
static jv_status open_zip(const char *path, zip_t **za, jv_err *err) {
    int ze = 0;
    *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (*za) return JV_OK;
    zip_error_t e;
    zip_error_init_with_code(&e, ze);
    jv_status code = JV_ERR_FORMAT;
    const char *what = "not a readable zip archive";
    if (ze == ZIP_ER_NOENT || ze == ZIP_ER_OPEN || ze == ZIP_ER_READ)
        code = JV_ERR_IO, what = "cannot read it";
    else if (ze == ZIP_ER_MEMORY)
        code = JV_ERR_NOMEM, what = "out of memory";
    jv_err_set(err, code, __FILE__, __LINE__, "%s: %s: %s", path, what, zip_error_strerror(&e));
    zip_error_fini(&e);
    return code;
}

/* Checks every member of the archive; *index / *size of `member`, or -1. */
static jv_status check_archive(const char *path, zip_t *za, const char *member, size_t max_bytes, zip_int64_t *index,
                               uint64_t *size, jv_err *err) {
    *index = -1;
    *size = 0;
    char pn[128];
    zip_int64_t n = zip_get_num_entries(za, 0);
    if (n < 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: unreadable zip directory", path);
    if (n > MAX_MEMBERS)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: %lld members (at most %d): refused", path, (long long)n, MAX_MEMBERS);
    uint64_t total = 0;
    uint64_t total_max =
        (uint64_t)max_bytes > UINT64_MAX / TOTAL_FACTOR ? UINT64_MAX : (uint64_t)max_bytes * TOTAL_FACTOR;
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(za, (zip_uint64_t)i, ZIP_FL_ENC_RAW, &st) < 0)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: member %lld: %s", path, (long long)i, zip_strerror(za));
        zip_uint64_t need = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE;
        if ((st.valid & need) != need)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: member %lld has no name or size: refused", path, (long long)i);
        const char *nm = jv_package_printable(pn, sizeof pn, st.name);
        const char *why = jv_package_name_problem(st.name);
        if (why) JV_FAIL(err, JV_ERR_FORMAT, "%s: member '%s' is %s: archive refused", path, nm, why);
        if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
            JV_FAIL(err, JV_ERR_FORMAT, "%s: member '%s' is encrypted: archive refused", path, nm);
        if ((st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
            JV_FAIL(err, JV_ERR_FORMAT,
                    "%s: member '%s' uses compression method %d (only stored and deflated): "
                    "archive refused",
                    path, nm, (int)st.comp_method);
        if (st.size > RATIO_FLOOR && (st.comp_size == 0 || (double)st.size / (double)st.comp_size > RATIO_MAX))
            JV_FAIL(err, JV_ERR_FORMAT,
                    "%s: member '%s' declares %llu bytes from %llu compressed (a ratio over %.0f:1, a zip bomb): "
                    "archive refused",
                    path, nm, (unsigned long long)st.size, (unsigned long long)st.comp_size, RATIO_MAX);
        total = st.size > UINT64_MAX - total ? UINT64_MAX : total + st.size;
        if (!strcmp(st.name, member)) {
            if (*index >= 0) JV_FAIL(err, JV_ERR_FORMAT, "%s: member '%s' appears twice: archive refused", path, nm);
            *index = i;
            *size = st.size;
        }
    }
    if (*index >= 0 && *size > max_bytes)
        JV_FAIL(err, JV_ERR_LIMIT, "%s: member '%s' is %llu bytes: over the limit of %zu bytes (%zu MiB)", path, member,
                (unsigned long long)*size, max_bytes, max_bytes >> 20);
    if (total > total_max)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: members declare %llu bytes in all (more than %llu): archive refused", path,
                (unsigned long long)total, (unsigned long long)total_max);
    return JV_OK;
}

jv_status jv_package_read(const char *path, const char *member, size_t max_bytes, char **data, size_t *len,
                          jv_err *err) {
    *data = NULL;
    *len = 0;
    zip_t *za;
    JV_CHECK(open_zip(path, &za, err));
    zip_int64_t idx;
    uint64_t size;
    jv_status st = check_archive(path, za, member, max_bytes, &idx, &size, err);
    if (st != JV_OK) {
        zip_discard(za);
        return st;
    }
    if (idx < 0) {
        zip_discard(za);
        JV_FAIL(err, JV_ERR_NOTFOUND, "%s: no member '%s' in the package", path, member);
    }
    /* one byte more than declared: a header that lies about the size shows up there */
    size_t cap = (size_t)size + 1;
    char *buf = malloc(cap);
    if (!buf) {
        zip_discard(za);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory reading member '%s'", path, member);
    }
    zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)idx, 0);
    if (!zf) {
        jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: cannot open member '%s': %s", path, member,
                   zip_strerror(za));
        free(buf);
        zip_discard(za);
        return JV_ERR_FORMAT;
    }
    size_t got = 0;
    for (;;) {
        size_t want = cap - got < READ_CHUNK ? cap - got : READ_CHUNK;
        if (want == 0) break;
        zip_int64_t r = zip_fread(zf, buf + got, want);
        if (r < 0) {
            jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: member '%s' is corrupt: %s", path, member,
                       zip_file_strerror(zf));
            st = JV_ERR_FORMAT;
            break;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    int ce = zip_fclose(zf);
    if (st == JV_OK && got > size)
        st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                        "%s: member '%s' inflates past its declared %llu bytes: archive refused", path, member,
                        (unsigned long long)size);
    else if (st == JV_OK && got < size)
        st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: member '%s' ends after %zu of %llu bytes", path,
                        member, got, (unsigned long long)size);
    else if (st == JV_OK && ce != 0) {
        zip_error_t e;
        zip_error_init_with_code(&e, ce);
        st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__, "%s: member '%s' is corrupt: %s", path, member,
                        zip_error_strerror(&e));
        zip_error_fini(&e);
    }
    zip_discard(za);
    if (st != JV_OK) {
        free(buf);
        return st;
    }
    buf[got] = 0;
    *data = buf;
    *len = got;
    return JV_OK;
}

/* Reads all of f (at most limit bytes) after the prefix already read. */
static jv_status read_rest(FILE *f, const char *path, const char *pre, size_t npre, size_t limit, char **out,
                           size_t *outlen, jv_err *err) {
    size_t cap = READ_CHUNK > npre + 1 ? READ_CHUNK : npre + 1, n = npre;
    char *buf = malloc(cap);
    if (!buf) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
    memcpy(buf, pre, npre);
    for (;;) {
        if (cap - n < 2) {
            size_t ncap = cap * 2;
            if (ncap > limit + 2) ncap = limit + 2;
            if (ncap <= cap) {
                free(buf);
                JV_FAIL(err, JV_ERR_LIMIT, "%s: more than %zu bytes (%zu MiB) of replay IR: the limit", path, limit,
                        limit >> 20);
            }
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + n, 1, cap - 1 - n, f);
        n += r;
        if (n > limit) {
            free(buf);
            JV_FAIL(err, JV_ERR_LIMIT, "%s: more than %zu bytes (%zu MiB) of replay IR: the limit", path, limit,
                    limit >> 20);
        }
        if (r == 0) {
            if (ferror(f)) {
                free(buf);
                JV_FAIL(err, JV_ERR_IO, "%s: read error", path);
            }
            break;
        }
    }
    buf[n] = 0;
    *out = buf;
    *outlen = n;
    return JV_OK;
}

/* Checks the members that manifest.json lists under "members" (a package made before it lists none) against
 * their size and SHA-256; the IR is already read. Other members are read here (at most MANIFEST_LIMIT). */
static jv_status check_members(const char *path, const char *manifest, const char *ir, size_t ir_len, jv_err *err) {
    cJSON *doc = cJSON_Parse(manifest);
    if (!doc) JV_FAIL(err, JV_ERR_FORMAT, "%s: member 'manifest.json' is not valid JSON: package refused", path);
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(doc, "members"), *m;
    jv_status st = JV_OK;
    if (mem && !cJSON_IsObject(mem))
        st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                        "%s: manifest.json: \"members\" is not an object: package refused", path);
    const cJSON *list = st == JV_OK ? mem : NULL;
    cJSON_ArrayForEach(m, list) {
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(m, "sha256");
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(m, "bytes");
        char pn[128];
        const char *nm = jv_package_printable(pn, sizeof pn, m->string);
        if (!cJSON_IsString(sha) || strlen(sha->valuestring) != 64 || !cJSON_IsNumber(bytes)) {
            st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                            "%s: manifest.json: member '%s' has no \"bytes\" and 64-digit \"sha256\": package refused",
                            path, nm);
            break;
        }
        char *data = NULL;
        size_t len = ir_len;
        if (strcmp(m->string, "replay_ir.json") != 0) {
            st = jv_package_read(path, m->string, MANIFEST_LIMIT, &data, &len, err);
            if (st != JV_OK) break;
        }
        jv_sha256 h;
        char hex[65];
        jv_sha256_init(&h);
        jv_sha256_update(&h, data ? data : ir, len);
        jv_sha256_final(&h, hex);
        free(data);
        if ((double)len != bytes->valuedouble || strcmp(hex, sha->valuestring) != 0) {
            st = jv_err_set(err, JV_ERR_FORMAT, __FILE__, __LINE__,
                            "%s: member '%s' does not match manifest.json (%zu bytes, SHA-256 %.12s..., listed: %.0f "
                            "bytes, %.12s...): the package is damaged or was edited; refused",
                            path, nm, len, hex, bytes->valuedouble, sha->valuestring);
            break;
        }
    }
    cJSON_Delete(doc);
    return st;
}

/* 1 when the n first bytes of a file are the zip signature */
static int zip_head(const char *head, size_t n) {
    return n == 2 && head[0] == 'P' && head[1] == 'K';
}

int jv_package_is_zip(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[2];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return zip_head(head, n);
}

jv_status jv_package_load(const char *path, char **ir_text, size_t *ir_len, char **manifest, jv_err *err) {
    *ir_text = NULL;
    *ir_len = 0;
    if (manifest) *manifest = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) JV_FAIL(err, JV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char head[2];
    size_t nh = fread(head, 1, sizeof head, f);
    if (zip_head(head, nh)) {
        fclose(f);
        JV_CHECK(jv_package_read(path, "replay_ir.json", IR_LIMIT, ir_text, ir_len, err));
        size_t mlen;
        char *man = NULL;
        jv_err e2;
        jv_err_clear(&e2);
        jv_status st = jv_package_read(path, "manifest.json", MANIFEST_LIMIT, &man, &mlen, &e2);
        if (st == JV_ERR_NOTFOUND) return JV_OK;
        if (st == JV_OK) st = check_members(path, man, *ir_text, *ir_len, &e2);
        if (st != JV_OK) {
            free(man);
            free(*ir_text);
            *ir_text = NULL;
            *ir_len = 0;
            if (err && err->code == JV_OK) *err = e2;
            return st;
        }
        if (manifest)
            *manifest = man;
        else
            free(man);
        return JV_OK;
    }
    char *text = NULL;
    size_t n = 0;
    jv_status st = read_rest(f, path, head, nh, IR_LIMIT, &text, &n, err);
    fclose(f);
    JV_CHECK(st);
    size_t i = 0;
    if (n >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        i = 3; /* a UTF-8 byte order mark */
    while (i < n && isspace((unsigned char)text[i]))
        i++;
    if (i >= n || (text[i] != '[' && text[i] != '{')) {
        free(text);
        JV_FAIL(err, JV_ERR_FORMAT, "%s: neither a replay package (zip) nor a replay IR (JSON)", path);
    }
    *ir_text = text;
    *ir_len = n;
    return JV_OK;
}
