/* Unit tests of jv_package: a write/read round trip through a temporary name,
 * failed writes that leave nothing behind, and hostile archives built here
 * with libzip (climbing, absolute and backslash names, a zip bomb, a member
 * over the limit, a header that lies about its size, truncated and non-zip
 * files), each refused with the right status and a message naming the file. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#include "jv_package.h"

#include "jv_check.h"

static char dir[64];

static void path_in(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
}

/* Number of entries of dir (without . and ..); the names go to stderr when verbose. */
static int dir_count(const char *d, int verbose) {
    DIR *dp = opendir(d);
    if (!dp) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (verbose) fprintf(stderr, "  %s\n", e->d_name);
        n++;
    }
    closedir(dp);
    return n;
}

/* A zip written with libzip directly: names as given, no checks. method: ZIP_CM_DEFLATE or ZIP_CM_STORE. */
static int make_zip(const char *path, const char *const *names, const void *const *data, const size_t *lens, int n,
                    int method) {
    int ze;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    if (!za) return 0;
    for (int i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(za, data[i], lens[i], 0);
        zip_int64_t idx = s ? zip_file_add(za, names[i], s, ZIP_FL_ENC_RAW) : -1;
        if (idx < 0 || zip_set_file_compression(za, (zip_uint64_t)idx, method, 0) < 0) {
            if (s && idx < 0) zip_source_free(s);
            zip_discard(za);
            return 0;
        }
    }
    return zip_close(za) == 0;
}

static const char IR[] = "[{\"op_name\": \"aten::relu\", \"replay_ir\": {\"list_pos_args\": [], \"list_kwargs\": []}}]";
static const char MANIFEST[] = "{\"tool\": \"jarvis\", \"ops\": 1}";

/* Reads member of path; checks the status and that the message names path (and needle). */
static void expect_read(const char *what, const char *path, const char *member, size_t max, jv_status want,
                        const char *needle) {
    jv_err err;
    jv_err_clear(&err);
    char *data = (char *)1;
    size_t len = 99;
    jv_status st = jv_package_read(path, member, max, &data, &len, &err);
    CHECK_MSG(st == want && data == NULL && len == 0 && strstr(err.msg, path) && (!needle || strstr(err.msg, needle)),
              "%s: status %d (want %d), message '%s'", what, (int)st, (int)want, err.msg);
    if (getenv("JV_TEST_VERBOSE")) fprintf(stderr, "%s: %s\n", what, err.msg);
    if (st == JV_OK) free(data);
}

static void test_round_trip(void) {
    char pkg[128];
    path_in(pkg, sizeof pkg, "pkg.zip");
    /* a README big enough that deflate matters */
    size_t rlen = 100000;
    char *readme = malloc(rlen);
    for (size_t i = 0; i < rlen; i++)
        readme[i] = "replay package README\n"[i % 22];
    jv_pkg_file files[3] = {{"replay_ir.json", IR, sizeof IR - 1},
                            {"manifest.json", MANIFEST, sizeof MANIFEST - 1},
                            {"README.md", readme, rlen}};
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(jv_package_write(pkg, files, 3, &err) == JV_OK, "write: %s", err.msg);
    CHECK(dir_count(dir, 0) == 1); /* the package and nothing else: no temporary left */
    struct stat sb;
    CHECK(stat(pkg, &sb) == 0 && sb.st_size > 0 && (size_t)sb.st_size < rlen / 10);
    for (int i = 0; i < 3; i++) {
        char *data = NULL;
        size_t len = 0;
        jv_err_clear(&err);
        jv_status st = jv_package_read(pkg, files[i].name, 1 << 20, &data, &len, &err);
        CHECK_MSG(st == JV_OK && len == files[i].len && !memcmp(data, files[i].data, len) && data[len] == 0,
                  "read %s: %s", files[i].name, err.msg);
        free(data);
    }
    /* the limit is the member's size: exactly fits, one byte less does not */
    char *data = NULL;
    size_t len = 0;
    jv_err_clear(&err);
    CHECK(jv_package_read(pkg, "README.md", rlen, &data, &len, &err) == JV_OK && len == rlen);
    free(data);
    expect_read("member over max_bytes", pkg, "README.md", rlen - 1, JV_ERR_LIMIT, "README.md");
    expect_read("missing member", pkg, "nope.json", 1 << 20, JV_ERR_NOTFOUND, "nope.json");

    /* load: the IR and the manifest */
    char *ir = NULL, *man = NULL;
    size_t irlen = 0;
    jv_err_clear(&err);
    CHECK(jv_package_load(pkg, &ir, &irlen, &man, &err) == JV_OK && irlen == sizeof IR - 1 && !strcmp(ir, IR) && man &&
          !strcmp(man, MANIFEST));
    free(ir);
    free(man);
    jv_err_clear(&err);
    CHECK(jv_package_load(pkg, &ir, &irlen, NULL, &err) == JV_OK && !strcmp(ir, IR));
    free(ir);

    /* rewriting replaces the package whole */
    jv_pkg_file one[1] = {{"replay_ir.json", "[]", 2}};
    jv_err_clear(&err);
    CHECK(jv_package_write(pkg, one, 1, &err) == JV_OK && dir_count(dir, 0) == 1);
    jv_err_clear(&err);
    CHECK(jv_package_load(pkg, &ir, &irlen, &man, &err) == JV_OK && irlen == 2 && !strcmp(ir, "[]") && man == NULL);
    free(ir);
    free(readme);
}

static void test_failed_writes(void) {
    char bad[160];
    path_in(bad, sizeof bad, "missing/sub/pkg.zip");
    jv_pkg_file f[2] = {{"replay_ir.json", IR, sizeof IR - 1}, {"manifest.json", MANIFEST, sizeof MANIFEST - 1}};
    jv_err err;
    jv_err_clear(&err);
    int before = dir_count(dir, 0);
    CHECK_MSG(jv_package_write(bad, f, 2, &err) == JV_ERR_IO && strstr(err.msg, bad), "missing dir: '%s'", err.msg);
    CHECK(dir_count(dir, 0) == before || dir_count(dir, 1) < 0);
    /* bad member names are refused before anything is written */
    char pkg[128];
    path_in(pkg, sizeof pkg, "names.zip");
    static const char *const names[] = {"../x.json", "/abs.json", "a\\b.json", "", "a/../../b", "sub/", "c:x"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        jv_pkg_file g[2] = {{"replay_ir.json", IR, 3}, {names[i], "x", 1}};
        jv_err_clear(&err);
        CHECK_MSG(jv_package_write(pkg, g, 2, &err) == JV_ERR_FORMAT && strstr(err.msg, pkg), "name '%s': '%s'",
                  names[i], err.msg);
    }
    jv_pkg_file dup[2] = {{"a.json", "1", 1}, {"a.json", "2", 1}};
    jv_err_clear(&err);
    CHECK(jv_package_write(pkg, dup, 2, &err) == JV_ERR_FORMAT && strstr(err.msg, "twice"));
    jv_err_clear(&err);
    CHECK(jv_package_write(pkg, dup, 0, &err) == JV_ERR_FORMAT);
    CHECK(dir_count(dir, 0) == before || dir_count(dir, 1) < 0);
}

static void test_hostile(void) {
    char z[128];
    path_in(z, sizeof z, "hostile.zip");
    /* a name that climbs out, an absolute one, a backslash, a climbing inner path: refused as a whole,
     * even when replay_ir.json itself is fine */
    static const char *const evil[] = {"../evil.json", "/abs.json", "a\\evil.json", "a/../../b", "x\ty.json"};
    static const char *const why[] = {"climbs out", "absolute", "backslash", "climbs out", "control"};
    for (size_t i = 0; i < sizeof evil / sizeof evil[0]; i++) {
        const char *names[2] = {"replay_ir.json", evil[i]};
        const void *data[2] = {IR, "{}"};
        size_t lens[2] = {sizeof IR - 1, 2};
        CHECK(make_zip(z, names, data, lens, 2, ZIP_CM_DEFLATE));
        expect_read(evil[i], z, "replay_ir.json", 1 << 20, JV_ERR_FORMAT, why[i]);
        expect_read(evil[i], z, evil[i], 1 << 20, JV_ERR_FORMAT, why[i]);
    }

    /* a zip bomb: 200 MiB of zeros deflated (about 1030:1), next to a good replay_ir.json */
    size_t blen = (size_t)200 << 20;
    char *zeros = calloc(blen, 1);
    CHECK(zeros != NULL);
    if (zeros) {
        const char *names[2] = {"replay_ir.json", "weights.bin"};
        const void *data[2] = {IR, zeros};
        size_t lens[2] = {sizeof IR - 1, blen};
        CHECK(make_zip(z, names, data, lens, 2, ZIP_CM_DEFLATE));
        free(zeros);
        struct stat sb;
        CHECK(stat(z, &sb) == 0 && sb.st_size < (off_t)(blen / 500));
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        expect_read("zip bomb by ratio", z, "replay_ir.json", (size_t)256 << 20, JV_ERR_FORMAT, "zip bomb");
        expect_read("zip bomb member", z, "weights.bin", (size_t)256 << 20, JV_ERR_FORMAT, "zip bomb");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        CHECK_MSG(secs < 0.5, "the bomb was inflated (%.3f s)", secs);
    }

    /* many members whose declared total exceeds 64 * max_bytes (each incompressible, so no ratio) */
    {
        size_t each = 80000;
        unsigned char *rnd = malloc(each);
        uint32_t x = 12345;
        for (size_t i = 0; i < each; i++) {
            x = x * 1103515245u + 12345u;
            rnd[i] = (unsigned char)(x >> 24);
        }
        const char *names[2] = {"replay_ir.json", "big.bin"};
        const void *data[2] = {IR, rnd};
        size_t lens[2] = {sizeof IR - 1, each};
        CHECK(make_zip(z, names, data, lens, 2, ZIP_CM_DEFLATE));
        expect_read("total over 64 * max", z, "replay_ir.json", 1024, JV_ERR_FORMAT, "in all");
        /* the member asked for is over the limit: that is said first */
        expect_read("member far over max", z, "big.bin", 1024, JV_ERR_LIMIT, "big.bin");
        /* a member above max_bytes (declared size): JV_ERR_LIMIT */
        expect_read("member over max", z, "big.bin", each - 1, JV_ERR_LIMIT, "big.bin");
        /* within the limits it reads */
        char *d = NULL;
        size_t len = 0;
        jv_err err;
        jv_err_clear(&err);
        CHECK(jv_package_read(z, "big.bin", each, &d, &len, &err) == JV_OK && len == each && !memcmp(d, rnd, each));
        free(d);

        /* a header that lies: the member's declared size (local and central headers) patched smaller
         * than what it inflates to; stored, so no ratio and no inflate error hides it */
        const void *data1[1] = {rnd};
        const char *names1[1] = {"replay_ir.json"};
        size_t lens1[1] = {each};
        CHECK(make_zip(z, names1, data1, lens1, 1, ZIP_CM_STORE));
        FILE *f = fopen(z, "r+b");
        fseek(f, 0, SEEK_END);
        long fsz = ftell(f);
        unsigned char *buf = malloc((size_t)fsz);
        fseek(f, 0, SEEK_SET);
        CHECK(fread(buf, 1, (size_t)fsz, f) == (size_t)fsz);
        int patched = 0;
        for (long i = 0; i + 46 <= fsz; i++) {
            int local = !memcmp(buf + i, "PK\3\4", 4), central = !memcmp(buf + i, "PK\1\2", 4);
            long off = local ? i + 22 : central ? i + 24 : -1;
            if (off < 0) continue;
            uint32_t v = (uint32_t)buf[off] | (uint32_t)buf[off + 1] << 8 | (uint32_t)buf[off + 2] << 16 |
                         (uint32_t)buf[off + 3] << 24;
            if (v != each) continue;
            buf[off] = 100, buf[off + 1] = buf[off + 2] = buf[off + 3] = 0;
            patched++;
        }
        CHECK(patched == 2);
        fseek(f, 0, SEEK_SET);
        CHECK(fwrite(buf, 1, (size_t)fsz, f) == (size_t)fsz);
        fclose(f);
        free(buf);
        expect_read("lying header", z, "replay_ir.json", 1 << 20, JV_ERR_FORMAT, NULL);
        free(rnd);
    }

    /* a package without replay_ir.json */
    {
        const char *names[1] = {"manifest.json"};
        const void *data[1] = {MANIFEST};
        size_t lens[1] = {sizeof MANIFEST - 1};
        CHECK(make_zip(z, names, data, lens, 1, ZIP_CM_DEFLATE));
        expect_read("no replay_ir.json", z, "replay_ir.json", 1 << 20, JV_ERR_NOTFOUND, "replay_ir.json");
        char *ir = NULL;
        size_t n = 0;
        jv_err err;
        jv_err_clear(&err);
        CHECK(jv_package_load(z, &ir, &n, NULL, &err) == JV_ERR_NOTFOUND && ir == NULL && strstr(err.msg, z));
    }

    /* a truncated zip and a file that is no zip */
    {
        char pkg[128];
        path_in(pkg, sizeof pkg, "trunc.zip");
        jv_pkg_file f[2] = {{"replay_ir.json", IR, sizeof IR - 1}, {"manifest.json", MANIFEST, sizeof MANIFEST - 1}};
        jv_err err;
        jv_err_clear(&err);
        CHECK(jv_package_write(pkg, f, 2, &err) == JV_OK);
        struct stat sb;
        CHECK(stat(pkg, &sb) == 0 && truncate(pkg, sb.st_size / 2) == 0);
        expect_read("truncated zip", pkg, "replay_ir.json", 1 << 20, JV_ERR_FORMAT, NULL);
        char *ir = NULL;
        size_t n = 0;
        jv_err_clear(&err);
        CHECK(jv_package_load(pkg, &ir, &n, NULL, &err) == JV_ERR_FORMAT && strstr(err.msg, pkg));

        path_in(pkg, sizeof pkg, "notzip.txt");
        FILE *t = fopen(pkg, "w");
        fputs("hello, this is not a zip archive\n", t);
        fclose(t);
        expect_read("not a zip", pkg, "replay_ir.json", 1 << 20, JV_ERR_FORMAT, NULL);
        jv_err_clear(&err);
        CHECK(jv_package_load(pkg, &ir, &n, NULL, &err) == JV_ERR_FORMAT && strstr(err.msg, pkg));

        path_in(pkg, sizeof pkg, "absent.zip");
        expect_read("missing file", pkg, "replay_ir.json", 1 << 20, JV_ERR_IO, NULL);
        jv_err_clear(&err);
        CHECK(jv_package_load(pkg, &ir, &n, NULL, &err) == JV_ERR_IO && strstr(err.msg, pkg));
    }
}

static void test_bare_json(void) {
    char p[128];
    path_in(p, sizeof p, "bare.json");
    static const char *const texts[] = {"  \n[ ]\n", "\xEF\xBB\xBF{\"ops\": []}", IR};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        FILE *f = fopen(p, "wb");
        fputs(texts[i], f);
        fclose(f);
        char *ir = NULL, *man = (char *)1;
        size_t n = 0;
        jv_err err;
        jv_err_clear(&err);
        CHECK_MSG(jv_package_load(p, &ir, &n, &man, &err) == JV_OK && n == strlen(texts[i]) && ir &&
                      !strcmp(ir, texts[i]) && man == NULL,
                  "bare %zu: %s", i, err.msg);
        free(ir);
    }
    /* blank only */
    FILE *f = fopen(p, "wb");
    fputs(" \n\t ", f);
    fclose(f);
    char *ir = NULL;
    size_t n = 0;
    jv_err err;
    jv_err_clear(&err);
    CHECK(jv_package_load(p, &ir, &n, NULL, &err) == JV_ERR_FORMAT && ir == NULL && strstr(err.msg, p));
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/jv_pkg_test_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_failed_writes();
    test_hostile();
    test_bare_json();
    /* clean up */
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char q[400];
        snprintf(q, sizeof q, "%s/%s", dir, e->d_name);
        unlink(q);
    }
    if (dp) closedir(dp);
    rmdir(dir);
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}
