/* jv_xlsx: a streaming xlsx (Office Open XML SpreadsheetML) writer in constant
 * memory. Each worksheet's XML streams to its own temporary file (created in
 * the workbook's folder and unlinked at once; the shared temporary folder only
 * when that folder refuses it); the close deflates them, chunk by chunk, into
 * the zip archive (jv_zipw) beside the few small members a workbook needs:
 * [Content_Types].xml, _rels/.rels, xl/workbook.xml,
 * xl/_rels/workbook.xml.rels, xl/styles.xml, xl/worksheets/sheetN.xml.
 *
 * Cells are written row by row, left to right: strings as inline strings
 * (XML-escaped; CR as &#13; so that it is not read back as LF; the C0
 * controls but tab, LF and CR, which XML 1.0 forbids, and the '_' of a
 * literal "_xHHHH_" as OOXML's _xHHHH_ escapes, so that a reader that decodes
 * them (Excel, LibreOffice) gets the text back as written), numbers in their
 * shortest round-trip form; +-inf, which a worksheet cannot hold, as the
 * error cell #NUM! (libxlsxwriter wrote "INF", which openpyxl 3.0 cannot
 * read); NaN: no cell. An absent cell is empty. No dates and no writer name go into the members: the
 * same cells give the same bytes. No global state: workbooks may be written
 * by several threads at once, one thread per workbook. */
#ifndef JV_XLSX_H
#define JV_XLSX_H

#include <stddef.h>
#include <stdint.h>

#include "jv_status.h"

#define JV_XLSX_ROWS     1048576u /* Excel's limits: rows and columns of a worksheet */
#define JV_XLSX_COLS     16384u
#define JV_XLSX_NAME_MAX 31 /* characters of a worksheet name */
#define JV_XLSX_REF_MAX  16 /* bytes of a cell reference with its NUL ("XFD1048576") */

typedef struct jv_xlsx jv_xlsx;
typedef struct jv_xlsx_sheet jv_xlsx_sheet;

/* Creates the workbook file path (truncated if it exists; a symbolic link at
 * path is refused) for writing at jv_xlsx_close. JV_ERR_IO naming path,
 * JV_ERR_NOMEM. */
jv_status jv_xlsx_open(jv_xlsx **x, const char *path, jv_err *err);

/* Adds worksheet name (1 to 31 characters, none of []:*?/\, not one already
 * in the workbook, ASCII case ignored, as Excel compares them) after the
 * others; *ws belongs to the workbook. JV_ERR_LIMIT for a bad name, JV_ERR_IO
 * when no temporary file can be made, JV_ERR_NOMEM. */
jv_status jv_xlsx_add_sheet(jv_xlsx *x, const char *name, jv_xlsx_sheet **ws, jv_err *err);

/* Writes string s (len bytes of UTF-8, NUL bytes not allowed) into cell (row,
 * col), both from 0. Cells come in order: a row after the rows written, or
 * the current row right of its last cell (JV_ERR_INTERNAL otherwise).
 * JV_ERR_LIMIT past Excel's limits (row >= JV_XLSX_ROWS, col >=
 * JV_XLSX_COLS). Nothing is written on an error (err may be NULL: the status
 * alone). Write errors of the temporary file are reported by jv_xlsx_close. */
jv_status jv_xlsx_str(jv_xlsx_sheet *ws, uint32_t row, uint32_t col, const char *s, size_t len, jv_err *err);

/* Writes number v into cell (row, col) as jv_xlsx_str does; NaN writes no
 * cell (after the same checks). */
jv_status jv_xlsx_num(jv_xlsx_sheet *ws, uint32_t row, uint32_t col, double v, jv_err *err);

/* Writes the archive (every worksheet, even one without cells; an empty
 * "Sheet1" when none was added) to the file
 * and frees the workbook, whatever the outcome. On an error (JV_ERR_IO naming
 * the file, JV_ERR_LIMIT where ZIP64 would be needed: a worksheet's XML of 4
 * GiB or more, JV_ERR_NOMEM) the file holds a partial archive: the caller
 * removes it. */
jv_status jv_xlsx_close(jv_xlsx *x, jv_err *err);

/* Frees the workbook and removes its file. Safe on NULL. */
void jv_xlsx_discard(jv_xlsx *x);

/* Writes the A1-style reference of cell (row, col) into ref (JV_XLSX_REF_MAX
 * bytes): "A1", "Z1", "AA1", ... "XFD1048576". Returns its length, 0 past
 * Excel's limits (ref then holds ""). */
size_t jv_xlsx_ref(uint32_t row, uint32_t col, char *ref);

#endif
