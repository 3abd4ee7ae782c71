/* test_filehash: analysis/ingest/jv_filehash (a trace file's SHA-256 on a background thread) against
 * jv_sha256_file: handed over at once, half done, finished, never started, asked twice; a file that changed
 * (grew, was rewritten with the same size, or whose length is not what the reader read) is refused; freeing a
 * running hash. Then jv_trace_file_sha256 of a plain and a gzip'd trace, hashed in the background and as read. */
#define _GNU_SOURCE /* mkstemp, utimensat */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "jv_check.h"
#include "jv_filehash.h"
#include "jv_sha256.h"
#include "jv_trace.h"

/* n bytes of a fixed pseudo-random sequence into a new temporary file (its name in path) */
static int make_file(char *path, size_t n) {
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return 0;
    unsigned char buf[4096];
    uint32_t x = 12345;
    int ok = 1;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < sizeof buf ? n - done : sizeof buf;
        for (size_t i = 0; i < k; i++) {
            x = x * 1103515245u + 12345u;
            buf[i] = (unsigned char)(x >> 16);
        }
        ok &= write(fd, buf, k) == (ssize_t)k;
        done += k;
    }
    close(fd);
    CHECK(ok);
    return ok;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* mode 0: never run; 1: run and ask at once; 2: run and ask 3 ms later (a 48 MiB file: taken over half done) */
static void hash_matches(size_t n, int mode) {
    char path[] = "/tmp/jv_filehash.XXXXXX";
    if (!make_file(path, n)) return;
    char want[65];
    uint64_t wbytes = 0;
    jv_err err;
    CHECK(jv_sha256_file(path, want, &wbytes, &err) == JV_OK);
    int fd = open(path, O_RDONLY);
    jv_filehash *h = NULL;
    CHECK(fd >= 0 && jv_filehash_start(fd, path, &h, &err) == JV_OK);
    if (fd >= 0) close(fd); /* the hash keeps its own descriptor */
    if (h) {
        if (mode) jv_filehash_run(h);
        if (mode == 2) sleep_ms(3);
        char hex[65] = "x", again[65] = "y";
        uint64_t bytes = 1, bytes2 = 2;
        CHECK_MSG(jv_filehash_result(h, n, hex, &bytes, &err) == JV_OK, "%zu bytes, mode %d: %s", n, mode, err.msg);
        CHECK_MSG(!strcmp(hex, want) && bytes == n, "%zu bytes, mode %d: %s, want %s", n, mode, hex, want);
        CHECK(jv_filehash_result(h, n, again, &bytes2, &err) == JV_OK && !strcmp(again, want) && bytes2 == n);
        jv_filehash_free(h);
    }
    unlink(path);
}

/* how: 0 the file grows after the start; 1 rewritten with the same size and a new modification time; 2 the
 * reader read another length */
static void change_refused(int how) {
    char path[] = "/tmp/jv_filehash.XXXXXX";
    size_t n = 300000;
    if (!make_file(path, n)) return;
    int fd = open(path, O_RDONLY);
    jv_filehash *h = NULL;
    jv_err err;
    CHECK(fd >= 0 && jv_filehash_start(fd, path, &h, &err) == JV_OK);
    if (fd >= 0) close(fd);
    if (!h) return;
    if (how == 0) {
        FILE *f = fopen(path, "ab");
        CHECK(f && fputs("more", f) >= 0);
        if (f) fclose(f);
    } else if (how == 1) {
        FILE *f = fopen(path, "r+b");
        CHECK(f && fputc('!', f) == '!');
        if (f) fclose(f);
        struct timespec t[2] = {{0, UTIME_OMIT}, {1000000000, 5}}; /* a modification time unlike the first */
        CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
    }
    jv_filehash_run(h);
    char hex[65] = "x";
    uint64_t bytes = 1;
    jv_status st = jv_filehash_result(h, how == 2 ? n - 1 : n, hex, &bytes, &err);
    CHECK_MSG(st == JV_ERR_FORMAT && strstr(err.msg, path) && strstr(err.msg, "changed while it was analysed"),
              "change %d: status %d, %s", how, (int)st, st == JV_OK ? hex : err.msg);
    CHECK(hex[0] == '\0' && bytes == 0);
    jv_err again;
    CHECK(jv_filehash_result(h, n, hex, &bytes, &again) == JV_ERR_FORMAT && !strcmp(again.msg, err.msg));
    jv_filehash_free(h);
    unlink(path);
}

/* a hash freed while its thread runs, and one never asked for */
static void free_running(void) {
    char path[] = "/tmp/jv_filehash.XXXXXX";
    if (!make_file(path, 8 << 20)) return;
    int fd = open(path, O_RDONLY);
    jv_err err;
    for (int i = 0; i < 2; i++) {
        jv_filehash *h = NULL;
        CHECK(fd >= 0 && jv_filehash_start(fd, path, &h, &err) == JV_OK);
        if (i == 0) jv_filehash_run(h);
        jv_filehash_free(h);
    }
    jv_filehash_free(NULL);
    if (fd >= 0) close(fd);
    unlink(path);
}

/* a small trace, plain or gzip'd; jv_trace_file_sha256 against jv_sha256_file, for each way of hashing */
static void trace_hash(int gz) {
    char path[] = "/tmp/jv_filehash_trace.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    gzFile z = gz ? gzopen(path, "wb") : NULL;
    FILE *f = gz ? NULL : fopen(path, "wb");
    CHECK(z || f);
    const char *head = "{\"traceEvents\": [\n";
    if (z) gzputs(z, head);
    if (f) fputs(head, f);
    for (int i = 0; i < 3000; i++) {
        char line[200];
        snprintf(line, sizeof line,
                 "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, \"tid\": 2, \"ts\": %d, "
                 "\"dur\": 3}\n",
                 i ? "," : "", i % 7, 10 * i);
        if (z) gzputs(z, line);
        if (f) fputs(line, f);
    }
    if (z) gzputs(z, "]}\n"), gzclose(z);
    if (f) fputs("]}\n", f), fclose(f);
    char want[65];
    uint64_t wbytes = 0;
    jv_err err;
    CHECK(jv_sha256_file(path, want, &wbytes, &err) == JV_OK);
    for (int threads = 0; threads <= 1; threads++) {
        jv_trace tr;
        jv_load_opts lo = {.hash_file = 1, .threads = threads};
        CHECK_MSG(jv_trace_load(path, &lo, &tr, &err) == JV_OK, "%s", err.msg);
        /* a plain file on several threads is hashed in the background (where the machine has two cores) */
        if (!gz && !threads && sysconf(_SC_NPROCESSORS_ONLN) >= 2) CHECK(tr.file_hash_ != NULL);
        if (gz || threads) CHECK(tr.file_hash_ == NULL);
        char hex[65] = "x";
        uint64_t bytes = 0;
        CHECK(jv_trace_file_sha256(&tr, hex, &bytes, &err) == JV_OK);
        CHECK_MSG(!strcmp(hex, want) && bytes == wbytes, "gz %d, threads %d: %s %llu, want %s %llu", gz, threads, hex,
                  (unsigned long long)bytes, want, (unsigned long long)wbytes);
        jv_trace_free(&tr);
        jv_load_opts none = {.threads = threads};
        CHECK(jv_trace_load(path, &none, &tr, &err) == JV_OK);
        CHECK(jv_trace_file_sha256(&tr, hex, &bytes, &err) == JV_OK && hex[0] == '\0' && bytes == 0);
        jv_trace_free(&tr);
    }
    unlink(path);
}

int main(void) {
    static const size_t sizes[] = {0, 1, 63, 64, 65536, 65537, 3 * 65536 + 100, 5 << 20, 48 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int mode = 0; mode < 3; mode++)
            hash_matches(sizes[i], mode);
    for (int how = 0; how < 3; how++)
        change_refused(how);
    free_running();
    trace_hash(0);
    trace_hash(1);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
