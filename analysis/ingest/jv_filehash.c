/* jv_filehash: a file's SHA-256 on a low-priority thread (see jv_filehash.h). */
#define _GNU_SOURCE /* syscall */
#include "jv_filehash.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jv_sha256.h"

enum { CHUNK = 64 << 10 };

struct jv_filehash {
    int fd;
    char *path;
    struct stat st0; /* the file when the hash began */
    jv_sha256 sha;
    uint64_t off;     /* bytes hashed */
    int eof;          /* the hash reached the end of the file */
    int read_errno;   /* pread failed (0: no) */
    int handoff;      /* atomic: the thread stops at its next chunk (the caller takes over, or frees) */
    int has_thread;   /* the thread was started and not yet joined */
    pthread_t thread; /* works on sha, off, eof and read_errno until joined: nobody else touches them before */
    pthread_mutex_t mu;
    int finished; /* the result below is final */
    jv_status st;
    jv_err err;
    char hex[65];
};

/* Hashes on until the end of the file, a read error, or (stoppable) a handoff. */
static void hash_on(jv_filehash *h, unsigned char *buf, int stoppable) {
    while (!h->eof && !h->read_errno) {
        if (stoppable && __atomic_load_n(&h->handoff, __ATOMIC_RELAXED)) return;
        ssize_t n = pread(h->fd, buf, CHUNK, (off_t)h->off);
        if (n < 0) {
            if (errno != EINTR) h->read_errno = errno;
            continue;
        }
        if (n == 0) {
            h->eof = 1;
            break;
        }
        jv_sha256_update(&h->sha, buf, (size_t)n);
        h->off += (uint64_t)n;
    }
}

static void *hash_main(void *arg) {
    jv_filehash *h = arg;
    /* this thread only: the hash takes the cores the analysis leaves idle (SCHED_IDLE, else nice 19); lowering
       one's own priority needs no privilege, and a failure only costs speed */
    int lowered = 0;
#ifdef SCHED_IDLE
    struct sched_param sp = {0};
    lowered = pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0;
#endif
#ifdef SYS_gettid
    if (!lowered) (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
#else
    (void)lowered;
#endif
    unsigned char *buf = malloc(CHUNK);
    if (buf) hash_on(h, buf, 1); /* no buffer: jv_filehash_result hashes it all */
    free(buf);
    return NULL;
}

jv_status jv_filehash_start(int fd, const char *path, jv_filehash **out, jv_err *err) {
    *out = NULL;
    jv_filehash *h = calloc(1, sizeof *h);
    if (!h || !(h->path = strdup(path))) {
        free(h);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory (file hash)", path);
    }
    h->fd = dup(fd);
    if (h->fd < 0 || fstat(h->fd, &h->st0) != 0) {
        int e = errno;
        if (h->fd >= 0) close(h->fd);
        free(h->path);
        free(h);
        JV_FAIL(err, JV_ERR_IO, "%s: cannot hash the file: %s", path, strerror(e));
    }
    jv_sha256_init(&h->sha);
    pthread_mutex_init(&h->mu, NULL);
    *out = h;
    return JV_OK;
}

/* Joins the thread (after asking it to stop at its next chunk): sha, off, eof and read_errno are this thread's. */
static void stop_thread(jv_filehash *h) {
    if (!h->has_thread) return;
    __atomic_store_n(&h->handoff, 1, __ATOMIC_RELAXED);
    pthread_join(h->thread, NULL);
    h->has_thread = 0;
}

static jv_status finish(jv_filehash *h, uint64_t expect_bytes, jv_err *err) {
    stop_thread(h);
    unsigned char *buf = malloc(CHUNK);
    if (!buf) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory (file hash)", h->path);
    hash_on(h, buf, 0);
    free(buf);
    if (h->read_errno) JV_FAIL(err, JV_ERR_IO, "%s: read error while hashing: %s", h->path, strerror(h->read_errno));
    struct stat st1;
    if (fstat(h->fd, &st1) != 0) JV_FAIL(err, JV_ERR_IO, "%s: cannot hash the file: %s", h->path, strerror(errno));
    if (st1.st_size != h->st0.st_size || st1.st_mtim.tv_sec != h->st0.st_mtim.tv_sec ||
        st1.st_mtim.tv_nsec != h->st0.st_mtim.tv_nsec || (uint64_t)st1.st_size != h->off)
        JV_FAIL(err, JV_ERR_FORMAT,
                "%s: the file changed while it was analysed (size or modification time): its SHA-256 would not be "
                "that of the bytes read",
                h->path);
    if (expect_bytes != UINT64_MAX && h->off != expect_bytes)
        JV_FAIL(err, JV_ERR_FORMAT, "%s: the file changed while it was analysed: %llu bytes read, %llu hashed", h->path,
                (unsigned long long)expect_bytes, (unsigned long long)h->off);
    jv_sha256_final(&h->sha, h->hex);
    return JV_OK;
}

jv_status jv_filehash_result(jv_filehash *h, uint64_t expect_bytes, char hex[65], uint64_t *bytes, jv_err *err) {
    pthread_mutex_lock(&h->mu);
    if (!h->finished) {
        jv_err_clear(&h->err);
        h->st = finish(h, expect_bytes, &h->err);
        h->finished = 1;
    }
    jv_status st = h->st;
    if (st == JV_OK) {
        memcpy(hex, h->hex, sizeof h->hex);
        *bytes = h->off;
    } else {
        hex[0] = '\0';
        *bytes = 0;
        if (err) *err = h->err;
    }
    pthread_mutex_unlock(&h->mu);
    return st;
}

void jv_filehash_run(jv_filehash *h) {
    if (h && !h->has_thread && !h->finished) h->has_thread = pthread_create(&h->thread, NULL, hash_main, h) == 0;
}

void jv_filehash_free(jv_filehash *h) {
    if (!h) return;
    stop_thread(h);
    close(h->fd);
    pthread_mutex_destroy(&h->mu);
    free(h->path);
    free(h);
}
