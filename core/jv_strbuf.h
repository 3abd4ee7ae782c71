/* jv_strbuf: THE growable string builder of the project: appends bytes,
 * strings and printf text to a malloc'd, always NUL-terminated buffer.
 * Out of memory is sticky: after a failed append the builder ignores
 * further appends and every call returns 0, so a caller may chain appends
 * and test once. */
#ifndef JV_STRBUF_H
#define JV_STRBUF_H

#include <stddef.h>

typedef struct {
    char *buf;  /* NUL-terminated once anything was appended; NULL before */
    size_t len; /* bytes in buf, the NUL not counted */
    size_t cap; /* bytes allocated */
    int bad;    /* 1 after an allocation failed */
} jv_strbuf;

#define JV_STRBUF_INIT                                                                                                 \
    { NULL, 0, 0, 0 }

/* Appends n bytes of s. Returns 1, or 0 when out of memory (now or before). */
int jv_sb_append(jv_strbuf *b, const char *s, size_t n);

/* Appends the string s. Returns as jv_sb_append. */
int jv_sb_puts(jv_strbuf *b, const char *s);

/* Appends printf text. Returns as jv_sb_append (0 also on a format error). */
int jv_sb_printf(jv_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hands the malloc'd text to the caller ("" when nothing was appended) and resets b; NULL (b freed) when
 * out of memory. */
char *jv_sb_take(jv_strbuf *b);

/* Frees the text and resets b. */
void jv_sb_free(jv_strbuf *b);

#endif
