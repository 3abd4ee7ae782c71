/* jv_html_text: the HTML page's text helpers (jv_html_int.h): escaping, markdown code spans and links, names cut
 * to their informative part, number formats, and one recommendation as a list item; shared by report.html
 * (jv_html.c, jv_html_plot.c) and the multi-rank page (jv_multirank_page.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_html_int.h"
#include "jv_output.h" /* jv_fmt_pyfloat */

/* Writes n bytes of s with the five HTML specials escaped and control
 * characters turned into spaces (newline kept when keep_nl). */
static void esc_n(FILE *f, const char *s, size_t n, int keep_nl) {
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case '\n': fputs(keep_nl ? "&#10;" : " ", f); break;
        default: fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
        }
    }
}

void jv_html_esc(FILE *f, const char *s) {
    if (s) esc_n(f, s, strlen(s), 0);
}

/* Characters (UTF-8 code points) in s. */
size_t jv_html_nchars(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

/* Writes s escaped, cut after maxch characters (never inside a UTF-8
 * sequence) with an ellipsis. Returns 1 when it was cut. */
int jv_html_esc_cut(FILE *f, const char *s, size_t maxch) {
    if (!s) return 0;
    if (jv_html_nchars(s) <= maxch) {
        jv_html_esc(f, s);
        return 0;
    }
    size_t ch = 0, i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (ch == maxch - 1) break;
            ch++;
        }
    }
    esc_n(f, s, i, 0);
    fputs("\xe2\x80\xa6", f); /* … */
    return 1;
}

/* (contract in jv_html_int.h) */
size_t jv_html_label(FILE *f, const char *name, size_t maxch) {
    if (!name) return 0;
    const char *s = name, *arrow;
    while ((arrow = strstr(s, "->")) != NULL)
        s = arrow + 2;
    if (!strncmp(s, "void ", 5)) s += 5;
    size_t cap = strlen(s) + 8, o = 0;
    char *b = malloc(cap);
    if (!b) {
        jv_html_esc_cut(f, name, maxch);
        return maxch;
    }
    int depth = 0;
    for (const char *p = s; *p && o + 5 < cap; p++) {
        if (*p == '<') {
            if (depth++ == 0) {
                memcpy(b + o, "<\xe2\x80\xa6>", 5); /* <…> */
                o += 5;
            }
            continue;
        }
        if (*p == '>' && depth > 0) {
            depth--;
            continue;
        }
        if (depth > 0) continue;
        if (*p == '(' && o > 0) break; /* the argument list */
        b[o++] = *p;
    }
    while (o > 0 && b[o - 1] == ' ')
        o--;
    b[o] = 0;
    const char *shown = o ? b : name;
    size_t n = jv_html_nchars(shown);
    if (n > maxch && !strstr(shown, "::")) { /* no namespaces (Tensile's, Triton's names): the start says most */
        jv_html_esc_cut(f, shown, maxch);
        n = maxch;
    } else if (n > maxch && maxch > 1) { /* a qualified C++ name: keep the end, the function's own name */
        const char *t = shown;
        for (size_t skip = n - (maxch - 1); skip > 0; skip--) {
            t++;
            while (((unsigned char)*t & 0xC0) == 0x80)
                t++;
        }
        fputs("\xe2\x80\xa6", f); /* … */
        jv_html_esc(f, t);
        n = maxch;
    } else {
        jv_html_esc(f, shown);
    }
    free(b);
    return n;
}

/* Number with prec decimals; an en dash for NaN or infinity. */
const char *jv_html_fnum(char *b, size_t cap, double v, int prec) {
    if (!isfinite(v))
        snprintf(b, cap, "\xe2\x80\x93");
    else
        snprintf(b, cap, "%.*f", prec, v);
    return b;
}

/* Milliseconds from µs, with decimals that suit the size. */
const char *jv_html_fms(char *b, size_t cap, double us) {
    double ms = us / 1e3;
    return jv_html_fnum(b, cap, ms, fabs(ms) >= 100 ? 1 : fabs(ms) >= 10 ? 2 : 3);
}

/* A rate (TB/s, TFLOP/s) with three significant digits or so. */
const char *jv_html_frate(char *b, size_t cap, double v) {
    if (!isfinite(v)) return jv_html_fnum(b, cap, v, 0);
    double a = fabs(v);
    return jv_html_fnum(b, cap, v, a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 5);
}

/* Shortest round-trip form for data-* attributes (what the test reads back). */
const char *jv_html_frt(char *b, size_t cap, double v) {
    return jv_fmt_pyfloat(b, cap, v);
}

double jv_html_pct_of(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

void jv_html_md(FILE *f, const char *s) {
    int code = 0;
    const char *p = s, *q = s; /* p: the start of the text not yet written */
    while (*q) {
        if (*q == '`') {
            esc_n(f, p, (size_t)(q - p), 0);
            fputs(code ? "</code>" : "<code>", f);
            code = !code;
            p = ++q;
            continue;
        }
        const char *e = !code && *q == '[' ? strpbrk(q + 1, "[]`") : NULL;
        if (e && *e == ']' && e > q + 1 && e[1] == '(') {
            size_t tl = strcspn(e + 2, ") \t\n`");
            if (tl && e[2 + tl] == ')') {
                esc_n(f, p, (size_t)(q - p), 0);
                fputs("<a href=\"", f);
                esc_n(f, e + 2, tl, 0);
                fputs("\">", f);
                esc_n(f, q + 1, (size_t)(e - q - 1), 0);
                fputs("</a>", f);
                p = q = e + 3 + tl;
                continue;
            }
        }
        q++;
    }
    esc_n(f, p, (size_t)(q - p), 0);
    if (code) fputs("</code>", f);
}

void jv_html_rec(FILE *f, const jv_rec_text *r, int with_issue) {
    fputs("<li><b>", f);
    jv_html_md(f, r->title);
    fputs("</b><br>", f);
    if (with_issue) {
        fputs("Issue: ", f);
        jv_html_md(f, r->issue);
        fputs("<br>Impact: ", f);
    }
    jv_html_md(f, r->impact);
    fputs(with_issue ? "<br><span class=\"note\">Action: " : "<br><span class=\"note\">", f);
    jv_html_md(f, r->action);
    fputs("</span><br><span class=\"note\">Confidence: ", f);
    jv_html_md(f, r->confidence);
    fputs("</span></li>\n", f);
}
