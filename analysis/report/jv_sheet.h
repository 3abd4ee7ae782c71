/* jv_sheet: a report sheet written at once as a CSV file and as a worksheet
 * of one xlsx workbook (jv_xlsx: rows stream to disk). Numbers stay numbers in the workbook; NaN is an empty cell. Both
 * outputs are written under temporary names and appear only on commit. */
#ifndef JV_SHEET_H
#define JV_SHEET_H

#include <stdint.h>

#include "jv_output.h"

typedef struct jv_book jv_book;

/* Opens a book: CSV sheets go to csv_dir/<name>.csv (csv_dir required); with
 * xlsx_path non-NULL every sheet is also a worksheet of that workbook. */
jv_status jv_book_open(jv_book **b, const char *csv_dir, const char *xlsx_path, jv_err *err);

/* Writes the workbook (temporary name, then rename) and frees the book. */
jv_status jv_book_commit(jv_book *b, jv_err *err);

/* Discards the workbook (nothing is left at xlsx_path) and frees the book. Safe on NULL. */
void jv_book_abort(jv_book *b);

typedef struct {
    jv_out csv;
    struct jv_xlsx_sheet *ws; /* its worksheet (jv_xlsx), or NULL */
    uint32_t row;
    uint16_t col;
    jv_book *book;
} jv_sheet;

/* Starts sheet name (at most 31 characters: an xlsx limit). */
jv_status jv_sheet_open(jv_sheet *s, jv_book *b, const char *name, jv_err *err);
/* Commits the CSV file of the sheet (the worksheet is written with the book). */
jv_status jv_sheet_commit(jv_sheet *s, jv_err *err);
/* Drops the CSV file of the sheet after an error. */
void jv_sheet_abort(jv_sheet *s);

/* Cells, left to right; jv_sheet_end closes the row. */
void jv_sheet_str(jv_sheet *s, const char *v);
void jv_sheet_num(jv_sheet *s, double v); /* NaN: empty cell */
void jv_sheet_int(jv_sheet *s, long long v);
void jv_sheet_empty(jv_sheet *s);
void jv_sheet_end(jv_sheet *s);
/* A header row from a NULL-terminated list of names. */
void jv_sheet_header(jv_sheet *s, const char *const *names);

#endif
