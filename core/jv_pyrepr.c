/* jv_pyrepr: a small recursive-descent JSON walker emitting Python repr text.
 * Inputs are short argument lists already validated by the trace reader;
 * nesting is bounded to keep recursion shallow. */
#include "jv_pyrepr.h"

#include <stdlib.h>
#include <string.h>

#include "jv_output.h"
#include "jv_strbuf.h"

typedef struct {
    const char *p, *end;
    jv_strbuf out;
    int bad;
    int lists; /* 1: JSON arrays print as Python lists, not tuples */
} pr;

static void put(pr *r, const char *s, size_t n) {
    if (!r->bad && !jv_sb_append(&r->out, s, n)) r->bad = 1;
}

static void puts_(pr *r, const char *s) {
    put(r, s, strlen(s));
}

static void ws(pr *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
        r->p++;
}

static void value(pr *r, int depth);
static void quote(pr *r, const char *s, size_t n);

static int hexv(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static void string(pr *r) {
    /* decode to bytes, then print with Python's quoting choice */
    r->p++;
    size_t cap = (size_t)(r->end - r->p) + 1, n = 0;
    char *s = malloc(cap);
    if (!s) {
        r->bad = 1;
        return;
    }
    while (r->p < r->end && *r->p != '"') {
        char c = *r->p++;
        if (c == '\\' && r->p < r->end) {
            char e = *r->p++;
            if (e == 'u' && r->end - r->p >= 4) {
                unsigned cp = 0;
                for (int i = 0; i < 4; i++)
                    cp = cp << 4 | (unsigned)hexv(r->p[i]);
                r->p += 4;
                if (cp < 0x80)
                    s[n++] = (char)cp;
                else if (cp < 0x800) {
                    s[n++] = (char)(0xC0 | (cp >> 6));
                    s[n++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    s[n++] = (char)(0xE0 | (cp >> 12));
                    s[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    s[n++] = (char)(0x80 | (cp & 0x3F));
                }
                continue;
            }
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
        }
        s[n++] = c;
    }
    if (r->p >= r->end) {
        free(s);
        r->bad = 1;
        return;
    }
    r->p++;
    quote(r, s, n);
    free(s);
}

static void quote(pr *r, const char *s, size_t n) {
    int has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
    char q = has_sq && !has_dq ? '"' : '\'';
    put(r, &q, 1);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == q || c == '\\') {
            put(r, "\\", 1);
            put(r, &c, 1);
        } else if (c == '\n')
            puts_(r, "\\n");
        else if (c == '\t')
            puts_(r, "\\t");
        else if (c == '\r')
            puts_(r, "\\r");
        else if ((unsigned char)c < 0x20 || c == 0x7f) {
            char b[8];
            snprintf(b, sizeof b, "\\x%02x", (unsigned char)c);
            puts_(r, b);
        } else
            put(r, &c, 1);
    }
    put(r, &q, 1);
}

static void number(pr *r) {
    const char *s = r->p;
    int is_float = 0;
    while (r->p < r->end && strchr("+-0123456789.eE", *r->p)) {
        if (*r->p == '.' || *r->p == 'e' || *r->p == 'E') is_float = 1;
        r->p++;
    }
    size_t n = (size_t)(r->p - s);
    if (!is_float) {
        put(r, s, n);
        return;
    }
    char tmp[64], out[48];
    if (n >= sizeof tmp) {
        put(r, s, n);
        return;
    }
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    puts_(r, jv_fmt_pyfloat(out, sizeof out, strtod(tmp, NULL)));
}

static void value(pr *r, int depth) {
    ws(r);
    if (r->p >= r->end || depth > 64) {
        r->bad = 1;
        return;
    }
    char c = *r->p;
    if (c == '[') {
        r->p++;
        puts_(r, r->lists ? "[" : "(");
        int count = 0;
        ws(r);
        if (r->p < r->end && *r->p == ']') {
            r->p++;
            puts_(r, r->lists ? "]" : ")");
            return;
        }
        for (;;) {
            if (count) puts_(r, ", ");
            value(r, depth + 1);
            count++;
            ws(r);
            if (r->bad || r->p >= r->end) {
                r->bad = 1;
                return;
            }
            if (*r->p == ',') {
                r->p++;
                continue;
            }
            if (*r->p == ']') {
                r->p++;
                break;
            }
            r->bad = 1;
            return;
        }
        puts_(r, r->lists ? "]" : count == 1 ? ",)" : ")");
    } else if (c == '{') { /* dicts are rare in args; print as Python dict */
        r->p++;
        puts_(r, "{");
        int count = 0;
        ws(r);
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            puts_(r, "}");
            return;
        }
        for (;;) {
            if (count++) puts_(r, ", ");
            ws(r);
            if (r->p >= r->end || *r->p != '"') {
                r->bad = 1;
                return;
            }
            string(r);
            ws(r);
            if (r->p >= r->end || *r->p != ':') {
                r->bad = 1;
                return;
            }
            r->p++;
            puts_(r, ": ");
            value(r, depth + 1);
            ws(r);
            if (r->bad || r->p >= r->end) {
                r->bad = 1;
                return;
            }
            if (*r->p == ',') {
                r->p++;
                continue;
            }
            if (*r->p == '}') {
                r->p++;
                break;
            }
            r->bad = 1;
            return;
        }
        puts_(r, "}");
    } else if (c == '"') {
        string(r);
    } else if (c == 't' && r->end - r->p >= 4 && !memcmp(r->p, "true", 4)) {
        r->p += 4;
        puts_(r, "True");
    } else if (c == 'f' && r->end - r->p >= 5 && !memcmp(r->p, "false", 5)) {
        r->p += 5;
        puts_(r, "False");
    } else if (c == 'n' && r->end - r->p >= 4 && !memcmp(r->p, "null", 4)) {
        r->p += 4;
        puts_(r, "None");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        number(r);
    } else {
        r->bad = 1;
    }
}

static jv_status pyrepr(const char *json, size_t n, int lists, char **out) {
    pr r = {json, json + n, JV_STRBUF_INIT, 0, lists};
    *out = NULL;
    value(&r, 0);
    ws(&r);
    if (r.p != r.end) r.bad = 1;
    if (r.bad) {
        jv_sb_free(&r.out);
        return JV_ERR_FORMAT;
    }
    *out = jv_sb_take(&r.out);
    return *out ? JV_OK : JV_ERR_NOMEM;
}

jv_status jv_pyrepr(const char *json, size_t n, char **out) {
    return pyrepr(json, n, 0, out);
}

jv_status jv_pyrepr_list(const char *json, size_t n, char **out) {
    return pyrepr(json, n, 1, out);
}

char *jv_pyrepr_quote(const char *s) {
    pr r = {NULL, NULL, JV_STRBUF_INIT, 0, 0};
    quote(&r, s, strlen(s));
    if (r.bad) {
        jv_sb_free(&r.out);
        return NULL;
    }
    return jv_sb_take(&r.out);
}
