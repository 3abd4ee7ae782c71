/* jv_zipw: a small zip writer (PKWARE's APPNOTE: a local header and the data
 * of each entry, the central directory, the end record), for the replay
 * package. Every entry is deflated by zlib (raw deflate, level 9, memLevel 9,
 * as libzip does it: the same entries at the same mtime give libzip's bytes
 * exactly); CRC-32 by zlib. No ZIP64: an archive that would need it (an
 * entry, an offset or the directory at 4 GiB or more, 65535 entries or more)
 * is refused, never written wrong. An entry's data are either in memory or
 * streamed from a file (the xlsx worksheets of jv_xlsx): deflated chunk by
 * chunk, its CRC-32 and sizes patched into its local header afterwards.
 * Reading stays with libzip (jv_package_read). This module needs zlib alone,
 * so that jarvis-analyze loads no libzip, nor the libbz2 and libcrypto it
 * brings. */
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

/* An entry of jv_zipw_write_items: in memory (e) or streamed from a file */
typedef struct {
    jv_zipw_entry e; /* e.name always; e.data and e.len unless src */
    FILE *src;       /* non-NULL: the data are read from src, from its current position to its end, in chunks of
                        32 KiB (the length need not be known); a read error is JV_ERR_IO */
    int level;       /* deflate level 1..9; 0: 9 */
} jv_zipw_item;

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

/* jv_zipw_write for entries that may stream from files and choose their
 * deflate level: each streamed entry is deflated chunk by chunk as it is read
 * (constant memory), its CRC-32 computed on the way, and its local header
 * completed afterwards. A streamed entry of 4 GiB or more (before or after
 * deflate) is JV_ERR_LIMIT (no ZIP64), found once it has been read that far. */
jv_status jv_zipw_write_items(FILE *f, const char *path, const jv_zipw_item *it, int n, time_t mtime, jv_err *err);

#endif
