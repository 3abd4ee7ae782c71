/* Unit tests of jv_xlsx, the streaming xlsx writer, and of jv_sheet over it:
 * cell references at the column-letter edges (A, Z, AA, AZ, ZZ, AAA, XFD) and
 * past Excel's limits; sheet names refused (too long, []:*?/\, twice); cells
 * past row 1,048,576 or column 16,384 and cells out of order refused with
 * nothing written; the same cells give the same bytes; no temporary is left
 * beside the workbook, and a discarded one leaves nothing; through jv_sheet a
 * refused cell fails the commit ("a cell was refused") and leaves no
 * workbook, and a cell over 32767 bytes keeps its prefix cut at a UTF-8
 * boundary.
 *
 * test_report_xlsx DIR also leaves DIR/book.xlsx (escapes, numbers, edges, a
 * sheet of 200,000 rows that spans many deflate chunks), DIR/sheet.xlsx (the
 * cut cell), DIR/empty.xlsx (no sheet added) and DIR/expected.tsv,
 * every cell it holds, for tests/integration/test_xlsx_unit.py to read back
 * with openpyxl. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_sheet.h"
#include "jv_xlsx.h"

#include "jv_check.h"
#include "jv_test_fs.h"

static void test_refs(void) {
    static const struct {
        uint32_t row, col;
        const char *want;
    } c[] = {{0, 0, "A1"},
             {0, 25, "Z1"},
             {0, 26, "AA1"},
             {0, 51, "AZ1"},
             {0, 52, "BA1"},
             {0, 701, "ZZ1"},
             {0, 702, "AAA1"},
             {9, 16383, "XFD10"},
             {1048575, 0, "A1048576"},
             {1048575, 16383, "XFD1048576"},
             {1048576, 0, ""},
             {0, 16384, ""}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char ref[JV_XLSX_REF_MAX];
        size_t n = jv_xlsx_ref(c[i].row, c[i].col, ref);
        CHECK_MSG(!strcmp(ref, c[i].want) && n == strlen(c[i].want), "ref(%u, %u) = '%s' (%zu), want '%s'", c[i].row,
                  c[i].col, ref, n, c[i].want);
    }
}

/* the expected cells, one line each: workbook, sheet, row, col, kind (s: hex UTF-8, n: %.17g, e: error) */
static FILE *expect;
static const char *book_name = "book.xlsx";

static void want_str(const char *sheet, uint32_t r, uint32_t c, const char *s, size_t len) {
    if (!expect) return;
    fprintf(expect, "%s\t%s\t%u\t%u\ts\t", book_name, sheet, r, c);
    for (size_t i = 0; i < len; i++)
        fprintf(expect, "%02x", (unsigned char)s[i]);
    fputc('\n', expect);
}

static void put_str(jv_xlsx_sheet *ws, const char *sheet, uint32_t r, uint32_t c, const char *s) {
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(jv_xlsx_str(ws, r, c, s, strlen(s), &err) == JV_OK, "str %u,%u: %s", r, c, err.msg);
    want_str(sheet, r, c, s, strlen(s));
}

static void put_num(jv_xlsx_sheet *ws, const char *sheet, uint32_t r, uint32_t c, double v) {
    jv_err err;
    jv_err_clear(&err);
    CHECK_MSG(jv_xlsx_num(ws, r, c, v, &err) == JV_OK, "num %u,%u: %s", r, c, err.msg);
    if (!expect || isnan(v)) return;
    if (isinf(v))
        fprintf(expect, "%s\t%s\t%u\t%u\te\t#NUM!\n", book_name, sheet, r, c);
    else
        fprintf(expect, "%s\t%s\t%u\t%u\tn\t%.17g\n", book_name, sheet, r, c, v);
}

static const char *const STRS[] = {"&<>\"'",
                                   "a\x01"
                                   "b\x1f"
                                   "c",
                                   "_x0041_",
                                   "x_x005F_y _xZZZZ_ _x12_ __x0000_",
                                   "tab\there\nLF\rCR\r\nCRLF",
                                   "na\xc3\xafve \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x99\x82",
                                   "  padded  ",
                                   "]]> <![CDATA[ &amp;",
                                   "\x7f \x0b\x0c"};
static const double NUMS[] = {0,
                              1,
                              -1,
                              42,
                              9007199254740993.0,
                              0.1,
                              1e-300,
                              1e300,
                              -0.0,
                              5e-324,
                              1.7976931348623157e308,
                              123456789.123,
                              -2.5e-7,
                              1e16,
                              1e15 + 0.3,
                              INFINITY,
                              -INFINITY};

/* The readback workbook: cells of every kind, then a 200,000-row sheet; 1 if written */
static int write_book(const char *path) {
    jv_err err;
    jv_err_clear(&err);
    jv_xlsx *x;
    if (jv_xlsx_open(&x, path, &err) != JV_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        return 0;
    }
    jv_xlsx_sheet *a, *b, *big, *empty;
    CHECK(jv_xlsx_add_sheet(x, "cells & <edges>", &a, &err) == JV_OK);
    CHECK(jv_xlsx_add_sheet(x, "numbers", &b, &err) == JV_OK);
    CHECK(jv_xlsx_add_sheet(x, "big", &big, &err) == JV_OK);
    CHECK(jv_xlsx_add_sheet(x, "0123456789012345678901234567890", &empty, &err) == JV_OK); /* 31 characters */
    if (failed) return 0;
    const char *sa = "cells & <edges>";
    for (size_t i = 0; i < sizeof STRS / sizeof STRS[0]; i++)
        put_str(a, sa, (uint32_t)i, 1, STRS[i]);               /* column A empty */
    uint32_t r = (uint32_t)(sizeof STRS / sizeof STRS[0]) + 2; /* a gap of two empty rows */
    static const uint32_t cols[] = {0, 25, 26, 51, 701, 702, 16383};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        char ref[JV_XLSX_REF_MAX];
        jv_xlsx_ref(r, cols[i], ref);
        put_str(a, sa, r, cols[i], ref);
    }
    put_num(a, sa, r + 1, 3, NAN); /* NaN: no cell, no row */
    put_str(a, sa, 1048575, 16383, "last cell");
    for (size_t i = 0; i < sizeof NUMS / sizeof NUMS[0]; i++) {
        put_num(b, "numbers", (uint32_t)i, 0, NUMS[i]);
        put_num(b, "numbers", (uint32_t)i, 2, NAN);
        put_num(b, "numbers", (uint32_t)i, 3, -NUMS[i] / 3);
    }
    if (expect) fprintf(expect, "%s\tbig\tRULE\t200000\n", book_name); /* row i: i, "row i", i / 8 */
    char text[32];
    for (uint32_t i = 0; i < 200000 && !failed; i++) {
        snprintf(text, sizeof text, "row %u", i);
        jv_xlsx_num(big, i, 0, (double)i, &err);
        jv_xlsx_str(big, i, 1, text, strlen(text), &err);
        jv_xlsx_num(big, i, 2, i / 8.0, &err);
    }
    jv_status st = jv_xlsx_close(x, &err);
    CHECK_MSG(st == JV_OK, "close: %s", err.msg);
    return st == JV_OK;
}

static void test_refusals(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/refusals.xlsx", dir);
    jv_err err;
    jv_err_clear(&err);
    jv_xlsx *x;
    if (jv_xlsx_open(&x, path, &err) != JV_OK) {
        CHECK_MSG(0, "open: %s", err.msg);
        return;
    }
    jv_xlsx_sheet *ws = NULL, *other = NULL;
    CHECK(jv_xlsx_add_sheet(x, "01234567890123456789012345678901", &other, &err) == JV_ERR_LIMIT); /* 32 */
    CHECK(jv_xlsx_add_sheet(x, "", &other, &err) == JV_ERR_LIMIT);
    CHECK(jv_xlsx_add_sheet(x, "a[b", &other, &err) == JV_ERR_LIMIT);
    CHECK(jv_xlsx_add_sheet(x, "a/b", &other, &err) == JV_ERR_LIMIT);
    CHECK(jv_xlsx_add_sheet(x, "GEMM", &ws, &err) == JV_OK);
    CHECK(jv_xlsx_add_sheet(x, "gemm", &other, &err) == JV_ERR_LIMIT);
    /* 31 characters of UTF-8 (62 bytes) is a good name */
    CHECK(jv_xlsx_add_sheet(x,
                            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                            "\xc3\xa9",
                            &other, &err) == JV_OK);
    if (!ws) {
        jv_xlsx_discard(x);
        return;
    }
    jv_err_clear(&err);
    CHECK(jv_xlsx_num(ws, 5, 3, 1, &err) == JV_OK);
    CHECK(jv_xlsx_num(ws, 5, 3, 1, &err) == JV_ERR_INTERNAL); /* the same cell again */
    CHECK(jv_xlsx_str(ws, 5, 2, "x", 1, &err) == JV_ERR_INTERNAL);
    CHECK(jv_xlsx_num(ws, 4, 9, 1, &err) == JV_ERR_INTERNAL); /* an earlier row */
    CHECK(jv_xlsx_num(ws, 5, 16383, 1, &err) == JV_OK);       /* column 16,384 */
    jv_err_clear(&err);
    CHECK(jv_xlsx_num(ws, 6, 16384, 1, &err) == JV_ERR_LIMIT && strstr(err.msg, "GEMM")); /* column 16,385 */
    CHECK(jv_xlsx_str(ws, 1048575, 0, "ok", 2, &err) == JV_OK);                           /* row 1,048,576 */
    CHECK(jv_xlsx_str(ws, 1048576, 0, "no", 2, &err) == JV_ERR_LIMIT);                    /* row 1,048,577 */
    CHECK(jv_xlsx_num(ws, 1048576, 0, NAN, &err) == JV_ERR_LIMIT);
    jv_xlsx_discard(x);
    CHECK_MSG(access(path, F_OK) != 0 && jv_test_dir_count(dir) == 0, "discard left %d files", jv_test_dir_count(dir));
}

/* the same cells, the same bytes; nothing but the workbook in the folder */
static void test_deterministic(const char *dir) {
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/one.xlsx", dir);
    snprintf(p2, sizeof p2, "%s/two.xlsx", dir);
    FILE *keep = expect;
    expect = NULL;
    int ok = write_book(p1) && write_book(p2);
    expect = keep;
    CHECK(ok);
    CHECK_MSG(jv_test_dir_count(dir) == 2, "%d files beside the two workbooks", jv_test_dir_count(dir) - 2);
    FILE *a = fopen(p1, "rb"), *b = fopen(p2, "rb");
    int same = a && b;
    long n = 0;
    while (same) {
        int ca = fgetc(a), cb = fgetc(b);
        same = ca == cb;
        if (ca == EOF) break;
        n++;
    }
    CHECK_MSG(same && n > 1000, "two writes differ (after %ld bytes)", n);
    if (a) fclose(a);
    if (b) fclose(b);
    unlink(p1);
    unlink(p2);
}

/* through jv_sheet: a refused cell fails the commit; a long cell is cut; abort leaves nothing */
static void test_sheet(const char *dir, const char *keep_dir) {
    char sub[512], xlsx[600];
    snprintf(sub, sizeof sub, "%s/csv", dir);
    snprintf(xlsx, sizeof xlsx, "%s/refused.xlsx", dir);
    jv_err err;
    jv_err_clear(&err);
    jv_book *bk;
    jv_sheet s;
    CHECK(jv_book_open(&bk, sub, xlsx, &err) == JV_OK);
    CHECK(jv_sheet_open(&s, bk, "wide", &err) == JV_OK);
    for (int i = 0; i < 16385; i++)
        jv_sheet_int(&s, i);
    jv_sheet_end(&s);
    CHECK(jv_sheet_commit(&s, &err) == JV_OK);
    jv_err_clear(&err);
    CHECK_MSG(jv_book_commit(bk, &err) != JV_OK && strstr(err.msg, "a cell was refused"), "commit: '%s'", err.msg);
    CHECK_MSG(access(xlsx, F_OK) != 0 && jv_test_dir_count(dir) == 1, "a refused workbook left %d files",
              jv_test_dir_count(dir));

    CHECK(jv_book_open(&bk, sub, xlsx, &err) == JV_OK);
    CHECK(jv_sheet_open(&s, bk, "aborted", &err) == JV_OK);
    jv_sheet_str(&s, "x");
    jv_sheet_end(&s);
    jv_sheet_abort(&s);
    jv_book_abort(bk);
    CHECK_MSG(access(xlsx, F_OK) != 0 && jv_test_dir_count(dir) == 1, "abort left %d files", jv_test_dir_count(dir));

    /* 32766 ASCII bytes, then a 3-byte character across the 32767-byte limit: the cut keeps 32766 */
    size_t n = 40000;
    char *longs = malloc(n + 1);
    if (!longs) return;
    memset(longs, 'a', n);
    memcpy(longs + 32766, "\xe2\x82\xac", 3);
    longs[n] = 0;
    if (keep_dir) snprintf(xlsx, sizeof xlsx, "%s/sheet.xlsx", keep_dir);
    CHECK(jv_book_open(&bk, sub, xlsx, &err) == JV_OK);
    CHECK(jv_sheet_open(&s, bk, "long", &err) == JV_OK);
    jv_sheet_str(&s, longs);
    jv_sheet_num(&s, NAN);
    jv_sheet_num(&s, 0.25);
    jv_sheet_end(&s);
    CHECK(jv_sheet_commit(&s, &err) == JV_OK);
    CHECK_MSG(jv_book_commit(bk, &err) == JV_OK && access(xlsx, F_OK) == 0, "commit: %s", err.msg);
    book_name = "sheet.xlsx";
    want_str("long", 0, 0, longs, 32766);
    if (expect) fprintf(expect, "sheet.xlsx\tlong\t0\t2\tn\t0.25\n");
    book_name = "book.xlsx";
    free(longs);
    if (!keep_dir) unlink(xlsx);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/long.csv", sub);
    unlink(csv);
    snprintf(csv, sizeof csv, "%s/wide.csv", sub);
    unlink(csv);
    rmdir(sub);
}

int main(int argc, char **argv) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/jv_xlsx_test_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *keep = argc > 1 ? argv[1] : NULL;
    if (keep) {
        char p[4096];
        snprintf(p, sizeof p, "%s/expected.tsv", keep);
        expect = fopen(p, "w");
        if (!expect) {
            perror(p);
            return 1;
        }
    }
    test_refs();
    test_refusals(dir);
    test_deterministic(dir);
    test_sheet(dir, keep);
    if (keep) {
        char p[4096];
        snprintf(p, sizeof p, "%s/book.xlsx", keep);
        CHECK(write_book(p));
        fclose(expect);
        /* no worksheet added: an empty Sheet1 (a workbook holds one at least) */
        snprintf(p, sizeof p, "%s/empty.xlsx", keep);
        jv_err err;
        jv_err_clear(&err);
        jv_xlsx *x;
        CHECK_MSG(jv_xlsx_open(&x, p, &err) == JV_OK && jv_xlsx_close(x, &err) == JV_OK, "empty: %s", err.msg);
    }
    rmdir(dir);
    printf("%d checks passed\n", passed);
    if (failed) fprintf(stderr, "%d checks FAILED\n", failed);
    return failed ? 1 : 0;
}
