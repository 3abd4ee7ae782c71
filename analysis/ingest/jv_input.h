/* jv_input: a byte source over a plain or gzip'd file (detected by the magic
 * bytes 1f 8b, never by the name), read in chunks; concatenated gzip members
 * are read in sequence, decoded by ISA-L's igzip where the build has it, else
 * by zlib. Errors name the file. */
#ifndef JV_INPUT_H
#define JV_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

typedef struct jv_input jv_input;

/* Opens path; *out receives the source. hash: 1 to take the SHA-256 of the file's bytes as they are read
 * (jv_input_sha256). JV_ERR_IO when it cannot be opened. */
jv_status jv_input_open(const char *path, int hash, jv_input **out, jv_err *err);

/* The SHA-256 of the file's bytes read so far (the whole file once jv_input_read has returned the end of the
 * input) into hex, and their count into *bytes; "" and 0 unless opened with hash. */
void jv_input_sha256(const jv_input *in, char hex[65], uint64_t *bytes);

/* Reads up to cap bytes of (decompressed) content into buf; *n = 0 means end of
 * input. JV_ERR_TRUNCATED for a gzip stream that ends early, JV_ERR_FORMAT for a
 * corrupt one, JV_ERR_IO for read errors. */
jv_status jv_input_read(jv_input *in, char *buf, size_t cap, size_t *n, jv_err *err);

/* 1 when the file is gzip-compressed. */
int jv_input_is_gzip(const jv_input *in);

/* Bytes of the file consumed so far and the file's size (for progress). */
uint64_t jv_input_file_pos(const jv_input *in);
uint64_t jv_input_file_size(const jv_input *in);

/* The gzip decoder this run uses: "isa-l igzip" (built with ISA-L, the default) or "zlib" (built without it,
 * or the environment sets JV_INFLATE=zlib). */
const char *jv_input_decoder(void);
/* Closes the file and frees the source (NULL is allowed). */
void jv_input_close(jv_input *in);

#endif
