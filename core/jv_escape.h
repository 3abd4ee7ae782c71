/* jv_escape: THE escapers of text written into a document format, one per
 * format and context, so that every writer escapes the same way:
 * - markdown (GitHub-flavoured): a code span (jv_md_code) and plain text (jv_md_text), both valid in a
 *   table cell;
 * - CSV: jv_csv_str (core/jv_output.h, it also writes the separator);
 * - HTML: jv_html.c's esc_n, its only user; JSON: cJSON. */
#ifndef JV_ESCAPE_H
#define JV_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes s as a GFM code span: at most max bytes of it (cut on a UTF-8 boundary, then an ellipsis inside
 * the span); newline, CR and tab become spaces. A backtick in s lengthens the fence to one more than its
 * longest run of backticks, with a space inside each end. In a table cell (in_table) '|' becomes "\|", which
 * GFM reads as '|' inside the span (a bare '|' would end the cell). An empty s writes nothing in a table
 * and "(none)" elsewhere (an empty span does not exist in markdown). */
void jv_md_code(FILE *f, const char *s, size_t max, int in_table);

/* Writes s as markdown text: the punctuation markdown reads (\ ` * _ [ ] < > | # !) is escaped with a
 * backslash and newline or CR becomes a space, so it is safe in a table cell too. NULL writes nothing. */
void jv_md_text(FILE *f, const char *s);

#endif
