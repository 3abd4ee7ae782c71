/* jv_input: a byte source over a plain or gzip'd file (detected by the magic
 * bytes 1f 8b, never by the name), read in chunks; concatenated gzip members
 * are read in sequence, decoded by ISA-L's igzip where the build has it, else
 * by zlib. Errors name the file. */
#ifndef JV_INPUT_H
#define JV_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "jv_filehash.h"
#include "jv_status.h"

typedef struct jv_input jv_input;

/* How jv_input_open hashes the file: not at all; as it is read (jv_input_sha256); or, for a plain file, on a
 * background thread (jv_input_take_filehash), where it is a regular file, the machine has two or more cores, it is at
 * most a quarter of its memory (so that it is read again from the page cache, not from the disk) and JV_HASH_THREAD=0
 * is not set; otherwise as it is read. */
typedef enum { JV_HASH_NONE = 0, JV_HASH_INLINE, JV_HASH_BACKGROUND } jv_hash_mode;

/* Opens path; *out receives the source, its file's SHA-256 taken as hash says. JV_ERR_IO when it cannot be
 * opened. */
jv_status jv_input_open(const char *path, jv_hash_mode hash, jv_input **out, jv_err *err);

/* The SHA-256 of the file's bytes read so far (the whole file once jv_input_read has returned the end of the
 * input) into hex, and their count into *bytes; "" and 0 unless the file is hashed as it is read. */
void jv_input_sha256(const jv_input *in, char hex[65], uint64_t *bytes);

/* The background hash of the file (JV_HASH_BACKGROUND), now the caller's to end and free; NULL when the file
 * is hashed as it is read, or not at all. */
jv_filehash *jv_input_take_filehash(jv_input *in);

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
