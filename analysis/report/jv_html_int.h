/* jv_html_int: what jv_html.c (the page: frame, header, tables, links) and
 * jv_html_plot.c (the SVG charts: GPU timeline, top ops, roofline) share.
 * Internal to analysis/report; not part of jv_report's interface. */
#ifndef JV_HTML_INT_H
#define JV_HTML_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jv_digest.h"
#include "jv_standalone.h" /* jv_rec_text */

#define TOP_N     15   /* top ops in the bar chart and the roofline */
#define SVG_W     1020 /* drawing width of every chart (px) */
#define MAX_SPECS 16

/* The page's style sheet (report.html and the multi-rank page share it). */
extern const char jv_html_css[];

/* One colour per category: gemm, convolution, batch norm, elementwise, other. */
extern const char *const jv_html_cat_color[JV_DCAT_COUNT];

/* The four GPU timeline parts (computation, exposed communication, exposed
 * memcpy, idle): their titles and colours, in that order. */
extern const char *const jv_html_tl_title[4];
extern const char *const jv_html_tl_color[4];

/* ---------- text (jv_html_text.c) ---------- */

/* Writes s (may be NULL: nothing) with the HTML specials escaped and control
 * characters, newline included, turned into spaces. */
void jv_html_esc(FILE *f, const char *s);
/* Writes s (not NULL) escaped as jv_html_esc, its markdown `code` spans as <code> and its [text](target) links
 * (a target without blanks, outside code spans) as <a href>. */
void jv_html_md(FILE *f, const char *s);
/* Writes one recommendation as an <li> of an <ol class="recs">: its title, then with_issue its issue and its
 * impact and action labelled, else its impact and action alone, then its confidence. */
void jv_html_rec(FILE *f, const jv_rec_text *r, int with_issue);
/* Characters (UTF-8 code points) in s (not NULL). */
size_t jv_html_nchars(const char *s);
/* Writes s escaped, cut after maxch characters (never inside a UTF-8
 * sequence) with an ellipsis. Returns 1 when it was cut, 0 otherwise or for NULL. */
int jv_html_esc_cut(FILE *f, const char *s, size_t maxch);
/* Writes the informative part of an op or kernel name, escaped, in at most maxch characters: after the last
 * "->" of a synthetic row ("cudaLaunchKernelExC->void k<...>(...)"), without a leading "void ", the argument
 * list and template arguments (shown as <…>); when still too long, the end of a qualified C++ name (…tail,
 * where the function's own name is), else the start (Tensile's and Triton's names say most there). Returns
 * the characters written. The full name belongs in a title. */
size_t jv_html_label(FILE *f, const char *name, size_t maxch);
/* The formatters below write into b (cap bytes) and return b. */
/* Number with prec decimals; an en dash for NaN or infinity. */
const char *jv_html_fnum(char *b, size_t cap, double v, int prec);
/* Milliseconds from µs, with decimals that suit the size. */
const char *jv_html_fms(char *b, size_t cap, double us);
/* A rate (TB/s, TFLOP/s) with three significant digits or so. */
const char *jv_html_frate(char *b, size_t cap, double v);
/* Shortest round-trip form for data-* attributes (what the test reads back). */
const char *jv_html_frt(char *b, size_t cap, double v);
/* 100 * part / whole; 0 when whole <= 0. */
double jv_html_pct_of(double part, double whole);

/* ---------- charts (jv_html_plot.c) ---------- */

/* The four parts of t in nanoseconds, in jv_html_tl_title's order. */
void jv_html_tl_parts(const jv_gpu_timeline *t, int64_t v[4]);
/* One stacked bar of t, width w at (x, y), height h; its segments (class cls)
 * carry their numbers as data-* attributes. */
void jv_html_tl_bar(FILE *f, const jv_gpu_timeline *t, double x, double y, double w, double h, const char *cls);
/* The page's sections: GPU timeline breakdown, top ops bar chart, roofline. */
void jv_html_write_timeline(FILE *f, const jv_digest *d);
void jv_html_write_top(FILE *f, const jv_digest *d);
void jv_html_write_roofline(FILE *f, const jv_digest *d);

#endif
