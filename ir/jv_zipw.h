/* jv_zipw: a small zip writer (PKWARE's APPNOTE: a local header and the data
 * of each entry, the central directory, the end record), for the replay
 * package. Every entry is deflated by zlib (raw deflate, level 9, memLevel 9,
 * as libzip does it: the same entries at the same mtime give libzip's bytes
 * exactly); CRC-32 by zlib. No ZIP64: an archive that would need it (an
 * entry, an offset or the directory at 4 GiB or more, 65535 entries or more)
 * is refused, never written wrong. Reading stays with libzip
 * (jv_package_read). This module needs zlib alone, so that jarvis-analyze
 * loads no libzip, nor the libbz2 it brings (libcrypto, which libzip brings
 * too, still comes with libxlsxwriter). */
#ifndef JV_ZIPW_H
#define JV_ZIPW_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "jv_status.h"

typedef struct {
    const char *name; /* entry name, written as given (the caller checks it) */
    const void *data; /* may be NULL when len is 0 */
    size_t len;
} jv_zipw_entry;

/* Writes the zip archive of the n entries (n >= 0, in this order) to f, from
 * its current position to the end. f is a seekable file open for writing, not
 * in append mode (the local header of each entry gets its compressed size
 * once it is known), positioned at the end of what it holds (bytes before
 * the archive are allowed: its offsets count from the start of the file, as
 * readers expect). Every entry carries mtime (local time, DOS resolution:
 * 2 s, clamped to 1980..2107), UNIX attributes (a regular file, 0666:
 * extraction applies the umask, as for jarvis' other outputs) and, when its
 * name has a byte over 0x7f, the UTF-8 flag. path names f in messages.
 * JV_ERR_IO naming path for a write or seek error; JV_ERR_LIMIT naming path
 * (and the entry) where ZIP64 would be needed; JV_ERR_NOMEM. After a failure
 * f holds a partial archive: the caller discards it (jv_out_abort). */
jv_status jv_zipw_write(FILE *f, const char *path, const jv_zipw_entry *e, int n, time_t mtime, jv_err *err);

#endif
