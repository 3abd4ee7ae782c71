/* jv_escape: the escapers of the document formats (see jv_escape.h). */
#include "jv_escape.h"

#include <string.h>

void jv_md_code(FILE *f, const char *s, size_t max, int in_table) {
    size_t n = strlen(s), cut = n;
    if (n > max) {
        cut = max;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--; /* never split a UTF-8 sequence */
    }
    if (!n) {
        fputs(in_table ? "" : "(none)", f);
        return;
    }
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < cut; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    if (longest) fputc(' ', f);
    for (size_t i = 0; i < cut; i++) {
        char ch = s[i];
        if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
        if (ch == '|' && in_table) fputc('\\', f);
        fputc(ch, f);
    }
    if (cut < n) fputs("\xe2\x80\xa6", f); /* … */
    if (longest) fputc(' ', f);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
}

void jv_md_text(FILE *f, const char *s) {
    if (!s) return;
    for (; *s; s++) {
        if (strchr("\\`*_[]<>|#!", *s)) fputc('\\', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
}
