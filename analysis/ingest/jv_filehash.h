/* jv_filehash: the SHA-256 of a trace file taken on a background thread, for the replay package's manifest.
 *
 * A plain .json trace is hashed after it has been read instead of by the threads that read it. One core's SHA
 * extensions hash about 1.8 GB/s (0.13 s for the 240 MB bench trace, 40 % of the scan's own CPU) and one
 * stream's hash cannot be split: on the reading threads it made the scan 0.31 s instead of 0.18 on two cores
 * (bench/results/ingest-2026-11-27-s15.md). The thread runs at the lowest priority (SCHED_IDLE) and reads the
 * file a second time, from the page cache, with pread on a duplicate of the reader's descriptor: it takes the
 * cores that the stages after the read leave idle. Whoever asks for the result first (jv_filehash_result) takes
 * over what is left of the work on its own thread, at its own priority, so a busy machine delays the hash no
 * more than hashing on the reading thread would. */
#ifndef JV_FILEHASH_H
#define JV_FILEHASH_H

#include <stdint.h>

#include "jv_status.h"

typedef struct jv_filehash jv_filehash;

/* Prepares the hash of the file open as fd, from its first byte (fd is duplicated: the caller may close it; its
 * offset is not used), and notes its size and modification time. path names the file in errors (copied). No
 * thread runs until jv_filehash_run. JV_ERR_IO (the descriptor cannot be duplicated or examined) or
 * JV_ERR_NOMEM, naming path. */
jv_status jv_filehash_start(int fd, const char *path, jv_filehash **out, jv_err *err);

/* Starts the hashing thread (once; NULL is allowed), on the thread that made h and before any
 * jv_filehash_result. Where it cannot be started, jv_filehash_result takes the whole hash. */
void jv_filehash_run(jv_filehash *h);

/* The SHA-256 of the file's bytes (hex: 64 lowercase digits and a NUL) and how many there are (*bytes): waits
 * for the thread, after taking over what it has not done yet. expect_bytes is the number of bytes the trace's
 * reader read (UINT64_MAX: not checked). Fails, naming the file, with JV_ERR_IO on a read error, and with
 * JV_ERR_FORMAT when the file changed after jv_filehash_start (its size or modification time differ) or its
 * length is not expect_bytes: the hash would then not be that of the bytes analysed. The result (or the error)
 * is kept: later calls, from any thread, give it again. */
jv_status jv_filehash_result(jv_filehash *h, uint64_t expect_bytes, char hex[65], uint64_t *bytes, jv_err *err);

/* Stops the thread (at its next 64 KiB) and frees h; NULL is allowed. */
void jv_filehash_free(jv_filehash *h);

#endif
