/* jv_package: the replay package, a flat zip holding replay_ir.json,
 * manifest.json and a README: written by jv_zipw (jv_package_write.c, zlib
 * only), read by libzip (jv_package.c). Reading never extracts to disk and refuses a
 * hostile archive as a whole: member names that are absolute or climb out
 * ("../"), a member larger than the caller's limit, a compression ratio of a
 * zip bomb, an inconsistent archive. */
#ifndef JV_PACKAGE_H
#define JV_PACKAGE_H

#include <stddef.h>

#include "jv_status.h"
#include "jv_zipw.h"

/* The largest replay IR read (a package member or a bare file): 16 MiB. */
enum { JV_PACKAGE_IR_LIMIT = 16 << 20 };

/* a member: name (relative, no "..", no backslash), data, len */
typedef jv_zipw_entry jv_pkg_file;

/* Why member name s is refused (a static phrase: "empty", "an absolute path", ...), or NULL when it is a plain
 * relative name: not absolute (no leading '/' or drive letter), no ".." component, no backslash, no control
 * character. */
const char *jv_package_name_problem(const char *s);

/* s made printable for a message (control bytes as '?'), at most cap-1 bytes, in buf (cap >= 1); returns buf. */
const char *jv_package_printable(char *buf, size_t cap, const char *s);

/* Writes a zip holding files (n >= 1, in this order, deflated; jv_zipw) at path, through a private
 * temporary file in the same directory (jv_out: path.jv-tmp-<pid>-XXXXXX,
 * created O_EXCL, then renamed into place): path is never half-written and a
 * failed write leaves nothing.
 * JV_ERR_IO (naming path) when the folder cannot take the file or a write,
 * flush or rename fails (a full disk included); JV_ERR_FORMAT (naming path)
 * for no members, a bad member name (empty, absolute, "..", backslash, control
 * character, a directory) or one given twice; JV_ERR_LIMIT (naming path) for
 * a package that would need ZIP64 (4 GiB); JV_ERR_NOMEM. */
jv_status jv_package_write(const char *path, const jv_pkg_file *files, int n, jv_err *err);

/* Reads member `member` of the zip at path into a malloc'ed buffer (*data,
 * NUL-terminated, *len bytes without the NUL), after checking every member
 * of the archive (at most 10000): names (no absolute path or drive letter, no
 * ".." component, no backslash, no control characters), no encryption,
 * stored or deflated only, declared sizes (at most max_bytes for the member
 * read; the total at most 64 * max_bytes), a compression ratio of at most
 * 1000:1 for members over 1 MiB, and the bytes actually inflated (never more
 * than max_bytes + 1 are read; more than declared, fewer, or a bad CRC is
 * corrupt). Nothing is extracted to disk. JV_ERR_NOTFOUND when the member is
 * missing; JV_ERR_FORMAT (naming path and the member) for a hostile or
 * corrupt archive, or a file that is no zip; JV_ERR_LIMIT for a member over
 * max_bytes; JV_ERR_IO when path cannot be read. On failure *data is NULL. */
jv_status jv_package_read(const char *path, const char *member, size_t max_bytes, char **data, size_t *len,
                          jv_err *err);

/* 1 when path starts with the zip signature "PK" (a package rather than a bare IR file); 0 otherwise or when it
 * cannot be read. */
int jv_package_is_zip(const char *path);

/* Loads a replay input: a package zip (detected by its "PK" signature) or a
 * bare IR JSON file (ours or TraceLens': its first non-blank byte, after an
 * optional UTF-8 BOM, is '[' or '{'). *ir_text / *ir_len receive
 * replay_ir.json or the whole bare file (malloc'ed, NUL-terminated);
 * *manifest receives manifest.json, or NULL for a bare file or a package
 * without one (manifest may be NULL when not wanted). A package whose
 * manifest lists "members" (size and SHA-256 of each other member) is
 * checked against them: a mismatch is JV_ERR_FORMAT naming the member.
 * Limits: JV_PACKAGE_IR_LIMIT bytes of IR, 1 MiB of manifest and of each other member. Errors as
 * jv_package_read, naming path; JV_ERR_FORMAT for a file that is neither; JV_ERR_LIMIT for a bare file over
 * the limit. */
jv_status jv_package_load(const char *path, char **ir_text, size_t *ir_len, char **manifest, jv_err *err);

#endif
