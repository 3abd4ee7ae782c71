/* jv_utf8: UTF-8 validation and repair. Text read from a trace is repaired
 * once, where it is interned, so that every output (CSV, xlsx, JSON, markdown,
 * HTML) holds valid UTF-8. */
#ifndef JV_UTF8_H
#define JV_UTF8_H

#include <stddef.h>

/* Length of the longest prefix of s[0..n) that is valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF); n when all of it is. */
size_t jv_utf8_valid_prefix(const char *s, size_t n);

/* Copies s[0..n) into dst with each maximal invalid subpart (as Unicode 15,
 * section 3.9, and Python's 'replace' error handler define it) replaced by one
 * U+FFFD (EF BF BD). dst needs room for 3 * n bytes; it is not NUL-terminated.
 * Returns the bytes written; *replaced (optional) gets the replacements made. */
size_t jv_utf8_repair(const char *s, size_t n, char *dst, size_t *replaced);

#endif
