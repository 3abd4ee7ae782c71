/* jv_xlsx: streaming xlsx writer (ECMA-376 Part 1, SpreadsheetML; the package
 * layout of Part 2, Open Packaging Conventions). */
#include "jv_xlsx.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_output.h"
#include "jv_strbuf.h"
#include "jv_zipw.h"

/* Deflate level of the members (1..9): see jv_xlsx_close */
#define LEVEL     6

#define XML_DECL  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
#define NS_MAIN   "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#define NS_REL    "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#define NS_PKGREL "http://schemas.openxmlformats.org/package/2006/relationships"
#define CT_BASE   "application/vnd.openxmlformats-officedocument.spreadsheetml."

struct jv_xlsx_sheet {
    FILE *f; /* the worksheet's XML so far (an unlinked temporary file) */
    char name[4 * JV_XLSX_NAME_MAX + 1];
    uint32_t row;  /* the open row (when row_open), else the next row that may come */
    uint32_t col;  /* the next column of the open row that may come */
    int row_open;  /* a <row> is open */
    jv_xlsx *book; /* for the folder of its temporary */
};

struct jv_xlsx {
    FILE *f;
    char *path;
    char *dir; /* the workbook's folder, for the worksheets' temporaries */
    jv_xlsx_sheet **sheets;
    int n, cap;
};

/* ---- cell references ---- */

size_t jv_xlsx_ref(uint32_t row, uint32_t col, char *ref) {
    ref[0] = '\0';
    if (row >= JV_XLSX_ROWS || col >= JV_XLSX_COLS) return 0;
    char letters[4];
    int k = 0;
    for (uint32_t c = col + 1; c; c = (c - 1) / 26) /* bijective base 26: A..Z, AA.. */
        letters[k++] = (char)('A' + (c - 1) % 26);
    size_t n = 0;
    while (k)
        ref[n++] = letters[--k];
    return n + (size_t)snprintf(ref + n, JV_XLSX_REF_MAX - n, "%u", (unsigned)row + 1);
}

/* ---- XML text ---- */

static int is_hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

/* The replacement of byte i of s[0..len) in OOXML's string form, NULL to keep it: &, <, > as entities (and " too in
 * an attribute), CR as a character reference, the C0 controls XML 1.0 forbids as _xHHHH_ (ECMA-376 Part 1,
 * 22.9.2.19 ST_Xstring; into hex), and the '_' that starts a literal _xHHHH_ as _x005F_ so that readers, which
 * decode every _xHHHH_, give the text back as written. The one rule for cell text and sheet names. */
static const char *xml_rep(const char *s, size_t i, size_t len, int attr, char hex[8]) {
    unsigned char c = (unsigned char)s[i];
    if (c == '&') return "&amp;";
    if (c == '<') return "&lt;";
    if (c == '>') return "&gt;";
    if (c == '"' && attr) return "&quot;";
    if (c == '\r') return "&#13;"; /* a literal CR would read back as LF (XML's end-of-line handling) */
    if (c < 0x20 && c != '\t' && c != '\n') {
        snprintf(hex, 8, "_x%04X_", c);
        return hex;
    }
    if (c == '_' && i + 6 < len && s[i + 1] == 'x' && is_hex((unsigned char)s[i + 2]) &&
        is_hex((unsigned char)s[i + 3]) && is_hex((unsigned char)s[i + 4]) && is_hex((unsigned char)s[i + 5]) &&
        s[i + 6] == '_')
        return "_x005F_";
    return NULL;
}

/* Writes s[0..len) as XML character data (xml_rep). */
static void put_text(FILE *f, const char *s, size_t len) {
    const char *run = s; /* bytes written as they are, pending */
    for (size_t i = 0; i < len; i++) {
        char hex[8];
        const char *rep = xml_rep(s, i, len, 0, hex);
        if (!rep) continue;
        fwrite(run, 1, (size_t)(s + i - run), f);
        fputs(rep, f);
        run = s + i + 1;
    }
    fwrite(run, 1, (size_t)(s + len - run), f);
}

/* ---- the workbook ---- */

jv_status jv_xlsx_open(jv_xlsx **out, const char *path, jv_err *err) {
    *out = NULL;
    jv_xlsx *x = calloc(1, sizeof *x);
    if (!x || !(x->path = strdup(path)) || !(x->dir = strdup(strrchr(path, '/') ? path : "./"))) {
        if (x) free(x->path);
        free(x);
        JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory (workbook)", path);
    }
    *strrchr(x->dir, '/') = '\0';
    if (!x->dir[0]) strcpy(x->dir, "/"); /* a workbook in / */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 || !(x->f = fdopen(fd, "wb"))) {
        int e = errno;
        if (fd >= 0) close(fd);
        free(x->dir);
        free(x->path);
        free(x);
        JV_FAIL(err, JV_ERR_IO, "%s: cannot create the workbook: %s", path, strerror(e));
    }
    *out = x;
    return JV_OK;
}

/* An unlinked temporary file in dir, else in the system's temporary folder */
static FILE *temp_file(const char *dir) {
    size_t n = strlen(dir) + sizeof "/.jv-xlsx-XXXXXX";
    char *name = malloc(n);
    FILE *f = NULL;
    if (name) {
        snprintf(name, n, "%s/.jv-xlsx-XXXXXX", dir);
        int fd = mkstemp(name);
        if (fd >= 0) {
            unlink(name);
            fcntl(fd, F_SETFD, FD_CLOEXEC);
            f = fdopen(fd, "w+b");
            if (!f) close(fd);
        }
        free(name);
    }
    return f ? f : tmpfile();
}

/* Excel's rules for a sheet name; its length in characters (UTF-8) */
static int name_ok(const char *name) {
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (strchr("[]:*?/\\", *p) || *p < 0x20) return 0;
        chars += (*p & 0xC0) != 0x80;
    }
    return chars >= 1 && chars <= JV_XLSX_NAME_MAX && name[0] != '\'' && name[strlen(name) - 1] != '\'';
}

static int same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int ca = *a >= 'a' && *a <= 'z' ? *a - 32 : *a, cb = *b >= 'a' && *b <= 'z' ? *b - 32 : *b;
        if (ca != cb) return 0;
    }
    return *a == *b;
}

jv_status jv_xlsx_add_sheet(jv_xlsx *x, const char *name, jv_xlsx_sheet **ws, jv_err *err) {
    *ws = NULL;
    if (!name_ok(name) || strlen(name) >= sizeof x->sheets[0]->name)
        JV_FAIL(err, JV_ERR_LIMIT, "%s: '%s' cannot name a worksheet (1 to %d characters, none of []:*?/\\)", x->path,
                name, JV_XLSX_NAME_MAX);
    for (int i = 0; i < x->n; i++)
        if (same_name(x->sheets[i]->name, name))
            JV_FAIL(err, JV_ERR_LIMIT, "%s: two worksheets named '%s'", x->path, name);
    if (x->n == x->cap) {
        int cap = x->cap ? 2 * x->cap : 16;
        jv_xlsx_sheet **p = realloc(x->sheets, (size_t)cap * sizeof *p);
        if (!p) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory (worksheet %s)", x->path, name);
        x->sheets = p;
        x->cap = cap;
    }
    jv_xlsx_sheet *s = calloc(1, sizeof *s);
    if (!s) JV_FAIL(err, JV_ERR_NOMEM, "%s: out of memory (worksheet %s)", x->path, name);
    s->f = temp_file(x->dir);
    if (!s->f) {
        free(s);
        JV_FAIL(err, JV_ERR_IO, "%s: no temporary file for worksheet %s: %s", x->path, name, strerror(errno));
    }
    strcpy(s->name, name);
    s->book = x;
    fputs(XML_DECL "<worksheet xmlns=\"" NS_MAIN "\" xmlns:r=\"" NS_REL "\"><sheetData>", s->f);
    x->sheets[x->n++] = s;
    *ws = s;
    return JV_OK;
}

/* Checks the cell's place and opens its row; *ref: its reference */
static jv_status cell_start(jv_xlsx_sheet *ws, uint32_t row, uint32_t col, char *ref, jv_err *err) {
    if (!jv_xlsx_ref(row, col, ref))
        JV_FAIL(err, JV_ERR_LIMIT, "%s: worksheet %s: cell (row %lu, column %lu) is past Excel's %u rows, %u columns",
                ws->book->path, ws->name, (unsigned long)row + 1, (unsigned long)col + 1, JV_XLSX_ROWS, JV_XLSX_COLS);
    if (row < ws->row || (row == ws->row && ws->row_open && col < ws->col))
        JV_FAIL(err, JV_ERR_INTERNAL, "%s: worksheet %s: cell %s out of order", ws->book->path, ws->name, ref);
    return JV_OK;
}

static void row_to(jv_xlsx_sheet *ws, uint32_t row, uint32_t col) {
    if (ws->row_open && row != ws->row) {
        fputs("</row>", ws->f);
        ws->row_open = 0;
    }
    if (!ws->row_open) fprintf(ws->f, "<row r=\"%lu\">", (unsigned long)row + 1);
    ws->row_open = 1;
    ws->row = row;
    ws->col = col + 1;
}

jv_status jv_xlsx_str(jv_xlsx_sheet *ws, uint32_t row, uint32_t col, const char *s, size_t len, jv_err *err) {
    char ref[JV_XLSX_REF_MAX];
    JV_CHECK(cell_start(ws, row, col, ref, err));
    row_to(ws, row, col);
    fprintf(ws->f, "<c r=\"%s\" t=\"inlineStr\"><is><t xml:space=\"preserve\">", ref);
    put_text(ws->f, s, len);
    fputs("</t></is></c>", ws->f);
    return JV_OK;
}

jv_status jv_xlsx_num(jv_xlsx_sheet *ws, uint32_t row, uint32_t col, double v, jv_err *err) {
    char ref[JV_XLSX_REF_MAX];
    JV_CHECK(cell_start(ws, row, col, ref, err));
    if (isnan(v)) return JV_OK;
    row_to(ws, row, col);
    if (isinf(v)) { /* Excel holds no infinity: its error for a number out of range */
        fprintf(ws->f, "<c r=\"%s\" t=\"e\"><v>#NUM!</v></c>", ref);
        return JV_OK;
    }
    char num[40];
    jv_fmt_pyfloat(num, sizeof num, v); /* shortest round trip; "2.0" is written "2" */
    size_t n = strlen(num);
    if (n > 2 && !strcmp(num + n - 2, ".0")) num[n - 2] = '\0';
    fprintf(ws->f, "<c r=\"%s\"><v>%s</v></c>", ref, num);
    return JV_OK;
}

/* ---- the small members, built in memory ---- */

/* A sheet name as an XML attribute value (xml_rep) */
static void sb_attr(jv_strbuf *b, const char *s) {
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        char hex[8];
        const char *rep = xml_rep(s, i, len, 1, hex);
        if (rep)
            jv_sb_puts(b, rep);
        else
            jv_sb_append(b, s + i, 1);
    }
}

static const char STYLES[] =
    XML_DECL "<styleSheet xmlns=\"" NS_MAIN "\"><fonts count=\"1\"><font><sz val=\"11\"/><name val=\"Calibri\"/>"
             "<family val=\"2\"/></font></fonts><fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill>"
             "<fill><patternFill patternType=\"gray125\"/></fill></fills><borders count=\"1\"><border><left/><right/>"
             "<top/><bottom/><diagonal/></border></borders><cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" "
             "fillId=\"0\" borderId=\"0\"/></cellStyleXfs><cellXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" "
             "fillId=\"0\" borderId=\"0\" xfId=\"0\"/></cellXfs><cellStyles count=\"1\"><cellStyle name=\"Normal\" "
             "xfId=\"0\" builtinId=\"0\"/></cellStyles></styleSheet>";

static const char ROOT_RELS[] =
    XML_DECL "<Relationships xmlns=\"" NS_PKGREL "\"><Relationship Id=\"rId1\" Type=\"" NS_REL
             "/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>";

/* [Content_Types].xml, xl/workbook.xml and its relationships */
static void build_parts(const jv_xlsx *x, jv_strbuf *types, jv_strbuf *wb, jv_strbuf *rels) {
    jv_sb_printf(
        types, XML_DECL
        "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
        "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
        "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
        "<Override PartName=\"/xl/workbook.xml\" ContentType=\"" CT_BASE "sheet.main+xml\"/>"
        "<Override PartName=\"/xl/styles.xml\" ContentType=\"" CT_BASE "styles+xml\"/>");
    jv_sb_printf(wb, XML_DECL "<workbook xmlns=\"" NS_MAIN "\" xmlns:r=\"" NS_REL "\"><sheets>");
    jv_sb_printf(rels, XML_DECL "<Relationships xmlns=\"" NS_PKGREL "\">");
    for (int i = 0; i < x->n; i++) {
        jv_sb_printf(types,
                     "<Override PartName=\"/xl/worksheets/sheet%d.xml\" ContentType=\"" CT_BASE "worksheet+xml\"/>",
                     i + 1);
        jv_sb_printf(wb, "<sheet name=\"");
        sb_attr(wb, x->sheets[i]->name);
        jv_sb_printf(wb, "\" sheetId=\"%d\" r:id=\"rId%d\"/>", i + 1, i + 1);
        jv_sb_printf(rels,
                     "<Relationship Id=\"rId%d\" Type=\"" NS_REL "/worksheet\" Target=\"worksheets/sheet%d.xml\"/>",
                     i + 1, i + 1);
    }
    jv_sb_printf(types, "</Types>");
    jv_sb_printf(wb, "</sheets></workbook>");
    jv_sb_printf(rels, "<Relationship Id=\"rId%d\" Type=\"" NS_REL "/styles\" Target=\"styles.xml\"/></Relationships>",
                 x->n + 1);
}

static void book_free(jv_xlsx *x) {
    for (int i = 0; i < x->n; i++) {
        fclose(x->sheets[i]->f);
        free(x->sheets[i]);
    }
    free(x->sheets);
    if (x->f) fclose(x->f);
    free(x->path);
    free(x->dir);
    free(x);
}

/* Ends every worksheet's XML and rewinds its file for reading */
static jv_status finish_sheets(jv_xlsx *x, jv_err *err) {
    for (int i = 0; i < x->n; i++) {
        jv_xlsx_sheet *s = x->sheets[i];
        if (s->row_open) fputs("</row>", s->f);
        s->row_open = 0;
        fputs("</sheetData></worksheet>", s->f);
        if (fflush(s->f) != 0 || ferror(s->f) || fseek(s->f, 0, SEEK_SET) != 0)
            JV_FAIL(err, JV_ERR_IO, "%s: cannot write worksheet %s to its temporary file: %s", x->path, s->name,
                    strerror(errno));
    }
    return JV_OK;
}

/* The members are deflated at LEVEL 6 (zlib's default, as libxlsxwriter's minizip did), not at jv_zipw's 9: on
 * worksheets' XML 9 takes 2.3 to 3.7 times 6's time for 2 to 4 % fewer bytes
 * (bench/results/ingest-2026-11-27-s14-xlsx.md). */
jv_status jv_xlsx_close(jv_xlsx *x, jv_err *err) {
    jv_xlsx_sheet *first;
    /* a workbook has at least one worksheet (ECMA-376's CT_Sheets): an empty "Sheet1", as libxlsxwriter added */
    jv_status st = x->n ? JV_OK : jv_xlsx_add_sheet(x, "Sheet1", &first, err);
    if (st == JV_OK) st = finish_sheets(x, err);
    jv_strbuf types = JV_STRBUF_INIT, wb = JV_STRBUF_INIT, rels = JV_STRBUF_INIT;
    jv_zipw_item *e = NULL;
    char(*names)[40] = NULL;
    if (st == JV_OK) {
        build_parts(x, &types, &wb, &rels);
        e = calloc((size_t)x->n + 5, sizeof *e);
        names = calloc((size_t)x->n + 1, sizeof *names);
        if (types.bad || wb.bad || rels.bad || !e || !names)
            st = jv_err_set(err, JV_ERR_NOMEM, __FILE__, __LINE__, "%s: out of memory (workbook)", x->path);
    }
    if (st == JV_OK) {
        e[0] = (jv_zipw_item){{"[Content_Types].xml", types.buf, types.len}, NULL, LEVEL};
        e[1] = (jv_zipw_item){{"_rels/.rels", ROOT_RELS, sizeof ROOT_RELS - 1}, NULL, LEVEL};
        e[2] = (jv_zipw_item){{"xl/workbook.xml", wb.buf, wb.len}, NULL, LEVEL};
        e[3] = (jv_zipw_item){{"xl/_rels/workbook.xml.rels", rels.buf, rels.len}, NULL, LEVEL};
        e[4] = (jv_zipw_item){{"xl/styles.xml", STYLES, sizeof STYLES - 1}, NULL, LEVEL};
        for (int i = 0; i < x->n; i++) {
            snprintf(names[i], sizeof names[i], "xl/worksheets/sheet%d.xml", i + 1);
            e[5 + i] = (jv_zipw_item){{names[i], NULL, 0}, x->sheets[i]->f, LEVEL};
        }
        /* mtime 0: before 1980, every member is dated 1980-01-01 00:00 (as libxlsxwriter did) */
        st = jv_zipw_write_items(x->f, x->path, e, x->n + 5, 0, err);
    }
    if (st == JV_OK) {
        FILE *f = x->f;
        x->f = NULL;
        if (fclose(f) != 0)
            st = jv_err_set(err, JV_ERR_IO, __FILE__, __LINE__, "%s: write error: %s", x->path, strerror(errno));
    }
    jv_sb_free(&types);
    jv_sb_free(&wb);
    jv_sb_free(&rels);
    free(e);
    free(names);
    book_free(x);
    return st;
}

void jv_xlsx_discard(jv_xlsx *x) {
    if (!x) return;
    unlink(x->path);
    book_free(x);
}
