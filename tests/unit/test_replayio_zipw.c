/* Unit tests of jv_zipw, the zip writer of the replay package: archives it
 * writes are read back by three independent readers, each of which must find
 * every entry, in order, with the same bytes:
 *   - libzip (ZIP_CHECKCONS, as jarvis-replay opens a package): names, sizes,
 *     methods, the bytes (the CRC is checked at the end of each read), and
 *     jv_package_read's hostile-archive checks;
 *   - python3's zipfile: testzip() (every CRC), the names, the bytes, the
 *     date, the UTF-8 flag, the UNIX mode;
 *   - unzip -t (every CRC, the directory against the local headers) and
 *     unzip -p per entry compared with cmp.
 * Cases: the package's four members, empty / one-byte / incompressible /
 * multi-chunk / UTF-8 / sub-folder entries, an archive after a prefix (offsets
 * count from the file's start), no entries (libzip and python only: unzip
 * calls an empty archive an error). The package's members and the mixed
 * entries written by libzip itself (same mtime) give the same file, byte for
 * byte (the package writer used libzip before). Failures: a write error (/dev/full)
 * names the file; ZIP64 sizes are refused (JV_ERR_LIMIT), and through
 * jv_package_write such a failure leaves no file at all. Entries streamed from
 * a file (src) give, at every level, the archive their bytes in memory give,
 * and read back everywhere; a source that cannot be read is JV_ERR_IO. Without python3 or
 * unzip those readers are skipped (said on stderr). */
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
#include "jv_zipw.h"

#include "jv_check.h"
#include "jv_test_fs.h"

static char dir[64];
static int have_python, have_unzip;

/* python3 SCRIPT ZIP MTIME NAME EXPECT_FILE ...: exit 0 when the archive is exactly these entries */
static const char PY[] =
    "import sys, time, zipfile\n"
    "z = zipfile.ZipFile(sys.argv[1])\n"
    "bad = z.testzip()\n"
    "if bad is not None: sys.exit('bad CRC: %s' % bad)\n"
    "want = time.localtime(int(sys.argv[2]))[:6]\n"
    "want = (1980, 1, 1, 0, 0, 0) if want[0] < 1980 else want[:5] + (want[5] // 2 * 2,)\n"
    "args = sys.argv[3:]\n"
    "names = args[0::2]\n"
    "infos = z.infolist()\n"
    "if [i.filename for i in infos] != names: sys.exit('names %r, want %r' % ([i.filename for i in infos], names))\n"
    "for i, path in zip(infos, args[1::2]):\n"
    "    data = open(path, 'rb').read()\n"
    "    if z.read(i) != data: sys.exit('%s: bytes differ' % i.filename)\n"
    "    if i.file_size != len(data): sys.exit('%s: size %d, want %d' % (i.filename, i.file_size, len(data)))\n"
    "    if i.date_time != want: sys.exit('%s: date %r, want %r' % (i.filename, i.date_time, want))\n"
    "    if i.external_attr >> 16 != 0o100666: sys.exit('%s: mode %o' % (i.filename, i.external_attr >> 16))\n"
    "    utf8 = any(ord(c) > 127 for c in i.filename)\n"
    "    if bool(i.flag_bits & 0x800) != utf8: sys.exit('%s: UTF-8 flag %x' % (i.filename, i.flag_bits))\n";

static void path_in(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
}

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = len == 0 || fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Writes the archive with jv_zipw after `prefix` bytes of other data; 1 on success. */
static int write_zip(const char *path, const jv_zipw_entry *e, int n, time_t mtime, size_t prefix) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    for (size_t i = 0; i < prefix; i++)
        fputc('#', f);
    jv_err err;
    jv_err_clear(&err);
    jv_status st = jv_zipw_write(f, path, e, n, mtime, &err);
    int ok = fclose(f) == 0 && st == JV_OK;
    if (st != JV_OK) fprintf(stderr, "jv_zipw_write: %s\n", err.msg);
    return ok;
}

/* libzip: the archive opens consistent and holds exactly the entries, bytes and CRCs included */
static int libzip_matches(const char *path, const jv_zipw_entry *e, int n) {
    int ze = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!za) {
        fprintf(stderr, "%s: libzip cannot open it (error %d)\n", path, ze);
        return 0;
    }
    int ok = zip_get_num_entries(za, 0) == n;
    if (!ok) fprintf(stderr, "%s: libzip sees %lld entries, want %d\n", path, (long long)zip_get_num_entries(za, 0), n);
    for (int i = 0; ok && i < n; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &st) < 0 || strcmp(st.name, e[i].name) != 0 || st.size != e[i].len ||
            st.comp_method != ZIP_CM_DEFLATE) {
            fprintf(stderr, "%s: libzip: entry %d is not '%s' of %zu bytes with the right method\n", path, i, e[i].name,
                    e[i].len);
            ok = 0;
            break;
        }
        char *buf = malloc(e[i].len + 1);
        zip_file_t *zf = buf ? zip_fopen_index(za, (zip_uint64_t)i, 0) : NULL;
        size_t got = 0;
        zip_int64_t r = 0;
        while (zf && got <= e[i].len && (r = zip_fread(zf, buf + got, e[i].len + 1 - got)) > 0)
            got += (size_t)r;
        int closed = zf ? zip_fclose(zf) : -1;
        if (!zf || r < 0 || closed != 0 || got != e[i].len || (got && memcmp(buf, e[i].data, got) != 0)) {
            fprintf(stderr, "%s: libzip: entry '%s' reads back wrong (%zu of %zu bytes, read %lld, close %d)\n", path,
                    e[i].name, got, e[i].len, (long long)r, closed);
            ok = 0;
        }
        free(buf);
    }
    zip_discard(za);
    return ok;
}

/* jv_package_read (jarvis-replay's reader with its hostile-archive checks): every entry, the same bytes */
static int package_read_matches(const char *path, const jv_zipw_entry *e, int n) {
    int ok = 1;
    for (int i = 0; i < n; i++) {
        char *data = NULL;
        size_t len = 0;
        jv_err err;
        jv_err_clear(&err);
        if (jv_package_read(path, e[i].name, 64 << 20, &data, &len, &err) != JV_OK || len != e[i].len ||
            (len && memcmp(data, e[i].data, len) != 0)) {
            fprintf(stderr, "%s: jv_package_read '%s': %s\n", path, e[i].name, err.msg);
            ok = 0;
        }
        free(data);
    }
    return ok;
}

/* python3 zipfile and unzip; the expected bytes of entry i go to path.i for them */
static int tools_match(const char *path, const jv_zipw_entry *e, int n, time_t mtime) {
    char cmd[8192], exp[200];
    int ok = 1;
    if (have_python) {
        char script[200];
        snprintf(script, sizeof script, "%s/check.py", dir);
        int len = snprintf(cmd, sizeof cmd, "python3 %s '%s' %lld", script, path, (long long)mtime);
        for (int i = 0; i < n; i++) {
            snprintf(exp, sizeof exp, "%s.%d", path, i);
            if (!write_file(exp, e[i].data, e[i].len)) return 0;
            len += snprintf(cmd + len, sizeof cmd - (size_t)len, " '%s' '%s'", e[i].name, exp);
        }
        if (system(cmd) != 0) {
            fprintf(stderr, "%s: python3 zipfile disagrees\n", path);
            ok = 0;
        }
    }
    if (have_unzip && n > 0) {
        snprintf(cmd, sizeof cmd, "unzip -tqq '%s' >&2", path);
        if (system(cmd) != 0) {
            fprintf(stderr, "%s: unzip -t fails\n", path);
            ok = 0;
        }
        for (int i = 0; i < n; i++) {
            snprintf(exp, sizeof exp, "%s.%d", path, i);
            if (!have_python && !write_file(exp, e[i].data, e[i].len)) return 0;
            snprintf(cmd, sizeof cmd, "unzip -p '%s' '%s' | cmp -s - '%s'", path, e[i].name, exp);
            if (system(cmd) != 0) {
                fprintf(stderr, "%s: unzip -p '%s' differs\n", path, e[i].name);
                ok = 0;
            }
        }
    }
    return ok;
}

/* The same entries written by libzip (deflated, the same mtime): 1 when its file is byte for byte ours; where the
 * first difference is on stderr otherwise */
static int libzip_bytes_equal(const char *ours, const jv_zipw_entry *e, int n, time_t mtime) {
    char theirs[160];
    snprintf(theirs, sizeof theirs, "%s.libzip", ours);
    int ze = 0, ok = 1;
    zip_t *za = zip_open(theirs, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    for (int i = 0; za && ok && i < n; i++) {
        zip_source_t *src = zip_source_buffer(za, e[i].len ? e[i].data : "", e[i].len, 0);
        zip_int64_t idx = src ? zip_file_add(za, e[i].name, src, ZIP_FL_ENC_UTF_8) : -1;
        if (src && idx < 0) zip_source_free(src);
        ok = idx >= 0 && zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 0) == 0 &&
             zip_file_set_mtime(za, (zip_uint64_t)idx, mtime, 0) == 0;
    }
    if (!za || !ok || zip_close(za) != 0) {
        if (za) zip_discard(za);
        fprintf(stderr, "%s: libzip cannot write it\n", theirs);
        return 0;
    }
    FILE *a = fopen(ours, "rb"), *b = fopen(theirs, "rb");
    long at = 0;
    int ca = 0, cb = 0;
    while (a && b && (ca = fgetc(a)) == (cb = fgetc(b)) && ca != EOF)
        at++;
    ok = a && b && ca == EOF && cb == EOF;
    if (!ok) fprintf(stderr, "%s: differs from libzip's at byte %ld (%d, libzip %d)\n", ours, at, ca, cb);
    if (a) fclose(a);
    if (b) fclose(b);
    return ok;
}

/* One archive written and read back by every reader: one check per reader. */
static void read_back(const char *what, const char *path, const jv_zipw_entry *e, int n, time_t mtime) {
    CHECK_MSG(libzip_matches(path, e, n), "%s: libzip", what);
    if (n > 0) CHECK_MSG(package_read_matches(path, e, n), "%s: jv_package_read", what);
    CHECK_MSG(tools_match(path, e, n, mtime), "%s: python3 / unzip", what);
}

static void round_trip(const char *what, const jv_zipw_entry *e, int n, time_t mtime, size_t prefix) {
    char path[128];
    path_in(path, sizeof path, what);
    int wrote = write_zip(path, e, n, mtime, prefix);
    CHECK_MSG(wrote, "%s: written", what);
    if (wrote) read_back(what, path, e, n, mtime);
}

/* reproducible bytes: text-like (compressible) or random (not) */
static unsigned char *fill(size_t len, int text, uint64_t seed) {
    unsigned char *p = malloc(len ? len : 1);
    uint64_t x = seed;
    for (size_t i = 0; p && i < len; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = text ? (unsigned char)("{\"op\": \"aten::mm\", \"shape\": [12, 64]},\n"[i % 40] + (x % 97 == 0))
                    : (unsigned char)(x >> 24);
    }
    return p;
}

static void test_round_trips(void) {
    time_t mtime = 1764244801; /* 2025-11-27 */
    unsigned char *ir = fill(60000, 1, 1), *rnd = fill(300000, 0, 2), *big = fill(5u << 20, 1, 3);
    static const char MAN[] = "{\"tool\": \"jarvis\", \"members\": {}}\n";
    static const char README[] = "# Replay package\n\nRun `jarvis-replay replay_package.zip --device 0`.\n";
    jv_zipw_entry pkg[4] = {{"replay_ir.json", ir, 60000},
                            {"manifest.json", MAN, sizeof MAN - 1},
                            {"README.md", README, sizeof README - 1},
                            {"reproduce.md", "", 0}};
    round_trip("package.zip", pkg, 3, mtime, 0);
    /* the package's members (none empty) come out exactly as libzip wrote them before */
    char path[128];
    path_in(path, sizeof path, "package.zip");
    CHECK(libzip_bytes_equal(path, pkg, 3, mtime));
    round_trip("package4.zip", pkg, 4, mtime, 0);
    jv_zipw_entry mixed[6] = {{"empty.txt", NULL, 0},
                              {"one", "x", 1},
                              {"random.bin", rnd, 300000},
                              {"big/five_mib.json", big, 5u << 20},
                              {"d\xc3\xa9j\xc3\xa0_vu.md", README, sizeof README - 1},
                              {"sub/dir/last", ir, 100}};
    round_trip("mixed.zip", mixed, 6, mtime, 0);
    path_in(path, sizeof path, "mixed.zip");
    CHECK(libzip_bytes_equal(path, mixed, 6, mtime));
    round_trip("prefixed.zip", pkg, 4, mtime + 1, 1000); /* an odd second: the date rounds down */
    round_trip("one_empty.zip", mixed, 1, (time_t)0, 0); /* before 1980: the date is 1980-01-01 */
    round_trip("no_entries.zip", mixed, 0, mtime, 0);
    free(ir);
    free(rnd);
    free(big);
}

/* the file's bytes, or NULL (*len its length) */
static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    *len = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        p = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (p && (fseek(f, 0, SEEK_SET) != 0 || fread(p, 1, (size_t)n, f) != (size_t)n)) {
            free(p);
            p = NULL;
        }
        *len = p ? (size_t)n : 0;
    }
    if (f) fclose(f);
    return p;
}

/* Entries streamed from files (jv_xlsx's worksheets): the data and sizes are known only after the read. Each
 * entry keeps data/len (what the readers compare with) and gets src, a file of the same bytes. */
static void test_streamed(void) {
    time_t mtime = 1764244801;
    unsigned char *rnd = fill(300000, 0, 5), *big = fill(5u << 20, 1, 6);
    jv_zipw_entry e[5] = {{"empty.xml", NULL, 0},
                          {"one", "x", 1},
                          {"random.bin", rnd, 300000},
                          {"xl/worksheets/sheet1.xml", big, 5u << 20},
                          {"exact_chunk", big, 32768}};
    jv_zipw_item it[5], mem[5];
    for (int i = 0; i < 5; i++) {
        it[i] = (jv_zipw_item){e[i], tmpfile(), 0};
        if (it[i].src && e[i].len) fwrite(e[i].data, 1, e[i].len, it[i].src);
        mem[i] = (jv_zipw_item){e[i], NULL, 0};
    }
    for (int level = 0; level <= 9; level += 3) { /* 0: the default (9), then 3, 6, 9 */
        char name[64], spath[128], mpath[128];
        for (int i = 0; i < 5; i++) {
            it[i].level = mem[i].level = level;
            if (it[i].src) rewind(it[i].src);
        }
        snprintf(name, sizeof name, "streamed_l%d.zip", level);
        path_in(spath, sizeof spath, name);
        snprintf(name, sizeof name, "memory_l%d.zip", level);
        path_in(mpath, sizeof mpath, name);
        jv_err err;
        jv_err_clear(&err);
        FILE *fs = fopen(spath, "wb"), *fm = fopen(mpath, "wb");
        jv_status ss = fs ? jv_zipw_write_items(fs, spath, it, 5, mtime, &err) : JV_ERR_IO;
        jv_status sm = fm ? jv_zipw_write_items(fm, mpath, mem, 5, mtime, &err) : JV_ERR_IO;
        int closed_s = !fs || fclose(fs) == 0, closed_m = !fm || fclose(fm) == 0; /* both closed */
        int closed = closed_s && closed_m;
        CHECK_MSG(ss == JV_OK && sm == JV_OK && closed, "level %d: %s", level, err.msg);
        read_back(spath, spath, e, 5, mtime);
        /* the same bytes as from memory at the same level */
        size_t na, nb;
        unsigned char *a = slurp(mpath, &na), *b = slurp(spath, &nb);
        CHECK_MSG(a && b && na == nb && !memcmp(a, b, na), "level %d: streamed and in-memory archives differ", level);
        free(a);
        free(b);
    }
    for (int i = 0; i < 5; i++)
        if (it[i].src) fclose(it[i].src);
    /* a read error of the source is an I/O error naming the archive and the entry */
    char path[128];
    path_in(path, sizeof path, "unreadable.zip");
    FILE *wo = fopen(path, "wb"), *f = fopen(path, "wb");
    jv_zipw_item bad[1] = {{{"sheet.xml", NULL, 0}, wo, 0}};
    jv_err err;
    jv_err_clear(&err);
    jv_status st = f && wo ? jv_zipw_write_items(f, path, bad, 1, 0, &err) : JV_ERR_INTERNAL;
    CHECK_MSG(st == JV_ERR_IO && strstr(err.msg, path) && strstr(err.msg, "sheet.xml"), "unreadable source: %d '%s'",
              (int)st, err.msg);
    if (f) fclose(f);
    if (wo) fclose(wo);
    unlink(path);
    free(rnd);
    free(big);
}

static void test_failures(void) {
    jv_err err;
    unsigned char *rnd = fill(300000, 0, 4);
    jv_zipw_entry e[2] = {{"random.bin", rnd, 300000}, {"b", "b", 1}};
    /* a full disk: the error names the file */
    FILE *f = fopen("/dev/full", "wb");
    if (f) {
        jv_err_clear(&err);
        jv_status st = jv_zipw_write(f, "/dev/full", e, 2, 0, &err);
        fclose(f);
        CHECK_MSG(st == JV_ERR_IO && strstr(err.msg, "/dev/full"), "/dev/full: status %d, '%s'", (int)st, err.msg);
    }
    /* ZIP64 needed: refused before anything of the entry is read (the pointer is never followed) */
    char path[128];
    path_in(path, sizeof path, "huge.zip");
    jv_zipw_entry huge[2] = {{"a", "a", 1}, {"huge.bin", rnd, (size_t)5 << 30}};
    f = fopen(path, "wb");
    jv_err_clear(&err);
    jv_status st = f ? jv_zipw_write(f, path, huge, 2, 0, &err) : JV_ERR_IO;
    if (f) fclose(f);
    CHECK_MSG(st == JV_ERR_LIMIT && strstr(err.msg, path) && strstr(err.msg, "huge.bin") && strstr(err.msg, "ZIP64"),
              "5 GiB entry: status %d, '%s'", (int)st, err.msg);
    unlink(path);
    f = fopen(path, "wb");
    jv_err_clear(&err);
    st = f ? jv_zipw_write(f, path, NULL, 70000, 0, &err) : JV_ERR_IO;
    if (f) fclose(f);
    CHECK_MSG(st == JV_ERR_LIMIT && strstr(err.msg, path), "70000 entries: status %d, '%s'", (int)st, err.msg);
    unlink(path);
    /* through jv_package_write: a failed archive leaves no file, neither the package nor a temporary */
    char sub[96];
    path_in(sub, sizeof sub, "pkgdir");
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/replay_package.zip", sub);
    jv_err_clear(&err);
    st = jv_package_write(path, huge, 2, &err);
    CHECK_MSG(st == JV_ERR_LIMIT && strstr(err.msg, path) && jv_test_dir_count(sub) == 0,
              "package of a 5 GiB member: status %d, '%s', %d files left", (int)st, err.msg, jv_test_dir_count(sub));
    /* and a good one is read back by jarvis-replay's loader */
    jv_pkg_file good[2] = {{"replay_ir.json", "[]", 2}, {"manifest.json", "{}", 2}};
    jv_err_clear(&err);
    CHECK_MSG(jv_package_write(path, good, 2, &err) == JV_OK && jv_test_dir_count(sub) == 1, "package: %s", err.msg);
    char *irt = NULL, *man = NULL;
    size_t irn = 0;
    jv_err_clear(&err);
    CHECK_MSG(jv_package_load(path, &irt, &irn, &man, &err) == JV_OK && irn == 2 && !strcmp(irt, "[]") && man &&
                  !strcmp(man, "{}"),
              "load: %s", err.msg);
    free(irt);
    free(man);
    unlink(path);
    rmdir(sub);
    free(rnd);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/jv_zipw_test_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    have_python = system("command -v python3 >/dev/null 2>&1") == 0;
    have_unzip = system("command -v unzip >/dev/null 2>&1 && command -v cmp >/dev/null 2>&1") == 0;
    if (!have_python) fprintf(stderr, "note: no python3: the zipfile reader is skipped\n");
    if (!have_unzip) fprintf(stderr, "note: no unzip (or cmp): the unzip reader is skipped\n");
    char script[200];
    snprintf(script, sizeof script, "%s/check.py", dir);
    if (have_python && !write_file(script, PY, sizeof PY - 1)) have_python = 0;
    test_round_trips();
    test_streamed();
    test_failures();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}
