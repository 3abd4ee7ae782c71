/* jv_sha256: SHA-256 (FIPS 180-4) of a byte stream or a file, for the replay
 * package's manifest (which trace it came from, and its members). Portable C, or the x86 SHA extensions where
 * the CPU has them (about 8x faster: the trace's hash is part of every analysis). */
#ifndef JV_SHA256_H
#define JV_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

typedef struct {
    uint32_t h[8];
    uint64_t len; /* bytes hashed */
    unsigned char buf[64];
    size_t nbuf;
    int ni; /* 1: blocks hashed with the x86 SHA extensions (chosen by jv_sha256_init when the CPU has them) */
} jv_sha256;

/* Starts a hash. */
void jv_sha256_init(jv_sha256 *s);

/* Makes s (just initialized) hash with the portable C code even where the CPU has the SHA extensions: the tests
 * check the two against each other. */
void jv_sha256_use_portable(jv_sha256 *s);

/* Hashes n more bytes. */
void jv_sha256_update(jv_sha256 *s, const void *data, size_t n);

/* Finishes: hex receives 64 lowercase hex digits and a NUL. */
void jv_sha256_final(jv_sha256 *s, char hex[65]);

/* SHA-256 of the file at path (its bytes as stored: a .gz hashes compressed)
 * and its size. JV_ERR_IO, naming path, when it cannot be read. */
jv_status jv_sha256_file(const char *path, char hex[65], uint64_t *size, jv_err *err);

#endif
