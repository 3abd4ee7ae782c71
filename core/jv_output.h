/* jv_output: outputs that are never half-written (a temporary name renamed on
 * commit), CSV writing with RFC 4180 quoting, and number formatting that reads
 * back exactly (the shortest round-trip form, as Python prints floats). */
#ifndef JV_OUTPUT_H
#define JV_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "jv_status.h"

typedef struct {
    FILE *f;
    char *path;   /* final name */
    char *tmp;    /* temporary name in the same directory */
    int row_open; /* a CSV row has fields and needs a separator */
} jv_out;

/* Opens a new private temporary file beside path for writing
 * (path.jv-tmp-<pid>-XXXXXX, created by mkstemp: O_CREAT | O_EXCL, so a
 * file or symbolic link planted at any name is never opened or followed);
 * the file appears as path, mode 0666 & ~umask, only on commit. Removes first
 * the temporaries of path that a killed writer left (jv_out_clean_stale). */
jv_status jv_out_open(jv_out *o, const char *path, jv_err *err);

/* Creates the private temporary file of path as jv_out_open does: *tmp
 * (malloc'ed name) and *fd (open for writing, close-on-exec). For writers that
 * open the file themselves (jv_xlsx, via jv_sheet): the name exists, belongs to this
 * process and is renamed onto path by the caller. */
jv_status jv_out_temp(const char *path, char **tmp, int *fd, jv_err *err);

/* Removes path's temporaries (path.jv-tmp-<pid>-XXXXXX) whose process no
 * longer exists: what a killed run left. Never fails (best effort). */
void jv_out_clean_stale(const char *path);

/* Flushes, fsyncs, closes and renames to the final name. On failure the temporary is removed. */
jv_status jv_out_commit(jv_out *o, jv_err *err);

/* Closes and removes the temporary (after an error). Safe on an unopened jv_out. */
void jv_out_abort(jv_out *o);

/* CSV: one field (quoted when it holds a comma, quote, CR or LF). */
void jv_csv_str(jv_out *o, const char *s);
/* CSV: a number in shortest round-trip form; NaN prints as an empty cell. */
void jv_csv_num(jv_out *o, double v);
/* CSV: an integer. */
void jv_csv_int(jv_out *o, long long v);
/* CSV: an empty cell. */
void jv_csv_empty(jv_out *o);
/* CSV: ends the row. */
void jv_csv_end(jv_out *o);
/* CSV: a header row from a NULL-terminated list of names. */
void jv_csv_header(jv_out *o, const char *const *names);

/* Formats v as Python's repr(float) does (shortest round trip; "1.0", "1e-05",
 * "inf", "nan"). Returns buf. cap >= 32. */
char *jv_fmt_pyfloat(char *buf, size_t cap, double v);

/* Creates directory path (and missing parents). */
jv_status jv_mkdir_p(const char *path, jv_err *err);

#endif
