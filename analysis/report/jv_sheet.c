/* jv_sheet: CSV + xlsx twin writer. */
#include "jv_sheet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_xlsx.h"

struct jv_book {
    char *csv_dir;
    char *xlsx_path, *xlsx_tmp;
    jv_xlsx *wb;
    int failed; /* a cell could not be written */
};

jv_status jv_book_open(jv_book **out, const char *csv_dir, const char *xlsx_path, jv_err *err) {
    *out = NULL;
    jv_book *b = calloc(1, sizeof *b);
    if (!b || !csv_dir || !(b->csv_dir = strdup(csv_dir))) {
        free(b);
        JV_FAIL(err, b ? JV_ERR_INTERNAL : JV_ERR_NOMEM, "%s",
                b ? "a workbook without CSV files" : "out of memory (workbook)");
    }
    jv_status s = jv_mkdir_p(csv_dir, err);
    if (s != JV_OK) {
        jv_book_abort(b);
        return s;
    }
    if (xlsx_path) {
        b->xlsx_path = strdup(xlsx_path);
        if (!b->xlsx_path) {
            jv_book_abort(b);
            JV_FAIL(err, JV_ERR_NOMEM, "out of memory (workbook)");
        }
        /* the workbook's temporary: a private name created here (jv_xlsx reopens it); its worksheet
         * temporaries go to the same folder, not to the shared /tmp */
        int fd;
        s = jv_out_temp(xlsx_path, &b->xlsx_tmp, &fd, err);
        if (s != JV_OK) {
            jv_book_abort(b);
            return s;
        }
        close(fd);
        s = jv_xlsx_open(&b->wb, b->xlsx_tmp, err);
        if (s != JV_OK) {
            unlink(b->xlsx_tmp);
            jv_book_abort(b);
            return s;
        }
    }
    *out = b;
    return JV_OK;
}

static void book_free(jv_book *b) {
    free(b->csv_dir);
    free(b->xlsx_path);
    free(b->xlsx_tmp);
    free(b);
}

jv_status jv_book_commit(jv_book *b, jv_err *err) {
    jv_status s = JV_OK;
    if (b->wb) {
        jv_err e = {0};
        jv_status ws = jv_xlsx_close(b->wb, &e);
        b->wb = NULL;
        if (ws != JV_OK || b->failed) {
            unlink(b->xlsx_tmp);
            s = jv_err_set(err, ws != JV_OK ? ws : JV_ERR_IO, __FILE__, __LINE__, "%s: cannot write the workbook: %s",
                           b->xlsx_path, b->failed ? "a cell was refused" : e.msg);
        } else if (rename(b->xlsx_tmp, b->xlsx_path) != 0) {
            unlink(b->xlsx_tmp);
            s = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: cannot rename the workbook into place",
                           b->xlsx_path);
        }
    }
    book_free(b);
    return s;
}

void jv_book_abort(jv_book *b) {
    if (!b) return;
    jv_xlsx_discard(b->wb); /* removes the temporary */
    book_free(b);
}

jv_status jv_sheet_open(jv_sheet *s, jv_book *b, const char *name, jv_err *err) {
    memset(s, 0, sizeof *s);
    s->book = b;
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s.csv", b->csv_dir, name);
    if (n < 0 || (size_t)n >= sizeof path) JV_FAIL(err, JV_ERR_IO, "%s/%s.csv: path too long", b->csv_dir, name);
    JV_CHECK(jv_out_open(&s->csv, path, err));
    if (b->wb) {
        jv_xlsx_sheet *ws;
        jv_status st = jv_xlsx_add_sheet(b->wb, name, &ws, err);
        if (st != JV_OK) {
            jv_out_abort(&s->csv);
            return st;
        }
        s->ws = ws;
    }
    return JV_OK;
}

jv_status jv_sheet_commit(jv_sheet *s, jv_err *err) {
    return jv_out_commit(&s->csv, err);
}

void jv_sheet_abort(jv_sheet *s) {
    jv_out_abort(&s->csv);
}

/* Excel refuses strings over 32767 characters: keep a prefix, cut at a UTF-8 boundary */
#define XLSX_STR_MAX 32767

void jv_sheet_str(jv_sheet *s, const char *v) {
    jv_csv_str(&s->csv, v);
    if (s->ws && *v) {
        size_t len = strlen(v);
        if (len > XLSX_STR_MAX) {
            len = XLSX_STR_MAX;
            while (len > 0 && ((unsigned char)v[len] & 0xC0) == 0x80)
                len--;
        }
        if (jv_xlsx_str(s->ws, s->row, s->col, v, len, NULL) != JV_OK) s->book->failed = 1; /* err: the flag */
    }
    s->col++;
}

static void sheet_num(jv_sheet *s, double v) {
    if (s->ws && jv_xlsx_num(s->ws, s->row, s->col, v, NULL) != JV_OK) s->book->failed = 1;
    s->col++;
}

void jv_sheet_num(jv_sheet *s, double v) {
    jv_csv_num(&s->csv, v);
    sheet_num(s, v); /* NaN: no cell */
}

void jv_sheet_int(jv_sheet *s, long long v) {
    jv_csv_int(&s->csv, v);
    sheet_num(s, (double)v);
}

void jv_sheet_empty(jv_sheet *s) {
    jv_csv_empty(&s->csv);
    s->col++;
}

void jv_sheet_end(jv_sheet *s) {
    jv_csv_end(&s->csv);
    s->row++;
    s->col = 0;
}

void jv_sheet_header(jv_sheet *s, const char *const *names) {
    for (; *names; names++)
        jv_sheet_str(s, *names);
    jv_sheet_end(s);
}
