/* jv_strbuf: the growable string builder (see jv_strbuf.h). */
#include "jv_strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* makes room for extra more bytes and the NUL */
static int reserve(jv_strbuf *b, size_t extra) {
    if (b->bad) return 0;
    if (b->buf && b->len + extra < b->cap) return 1;
    size_t nc = b->cap ? b->cap : 64;
    while (nc < b->len + extra + 1)
        nc *= 2;
    char *nb = realloc(b->buf, nc);
    if (!nb) {
        b->bad = 1;
        return 0;
    }
    b->buf = nb;
    b->cap = nc;
    return 1;
}

int jv_sb_append(jv_strbuf *b, const char *s, size_t n) {
    if (!reserve(b, n)) return 0;
    if (n) memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return 1;
}

int jv_sb_puts(jv_strbuf *b, const char *s) {
    return jv_sb_append(b, s, strlen(s));
}

int jv_sb_printf(jv_strbuf *b, const char *fmt, ...) {
    if (!reserve(b, 0)) return 0;
    for (;;) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->buf + b->len, room, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->buf[b->len] = '\0';
            return 0;
        }
        if ((size_t)w < room) {
            b->len += (size_t)w;
            return 1;
        }
        b->buf[b->len] = '\0';
        if (!reserve(b, (size_t)w)) return 0;
    }
}

char *jv_sb_take(jv_strbuf *b) {
    if (!b->buf && reserve(b, 0)) b->buf[0] = '\0';
    char *s = b->bad ? NULL : b->buf;
    if (!s) free(b->buf);
    b->buf = NULL;
    b->len = b->cap = 0;
    b->bad = 0;
    return s;
}

void jv_sb_free(jv_strbuf *b) {
    free(b->buf);
    b->buf = NULL;
    b->len = b->cap = 0;
    b->bad = 0;
}
