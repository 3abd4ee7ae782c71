/* jv_html: OUTDIR/report.html, the page people look at: one self-contained
 * HTML5 file (inline CSS and SVG, no script, no external URL) drawn from the
 * digest: header facts, GPU timeline, top ops, roofline, category tables,
 * fusion candidates, layout conversions, the reference trace beside it. */
#include "jv_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jv_output.h"

#define TOP_N       15 /* top ops in the bar chart and the roofline */
#define CAT_ROWS    25 /* rows per category table */
#define FUSION_ROWS 15
#define LAYOUT_ROWS 10
#define SVG_W       1020 /* drawing width of every chart (px) */
#define MAX_SPECS   16

/* one colour per category: gemm, convolution, batch norm, elementwise, other */
static const char *const CAT_COLOR[JV_DCAT_COUNT] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#9d9d9d"};

/* ---------- text ---------- */

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

static void esc(FILE *f, const char *s) {
    if (s) esc_n(f, s, strlen(s), 0);
}

/* Characters (UTF-8 code points) in s. */
static size_t nchars(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

/* Writes s escaped, cut after maxch characters (never inside a UTF-8
 * sequence) with an ellipsis. Returns 1 when it was cut. */
static int esc_cut(FILE *f, const char *s, size_t maxch) {
    if (!s) return 0;
    if (nchars(s) <= maxch) {
        esc(f, s);
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

/* Number with prec decimals; an en dash for NaN or infinity. */
static const char *fnum(char *b, size_t cap, double v, int prec) {
    if (!isfinite(v))
        snprintf(b, cap, "\xe2\x80\x93");
    else
        snprintf(b, cap, "%.*f", prec, v);
    return b;
}

/* Milliseconds from µs, with decimals that suit the size. */
static const char *fms(char *b, size_t cap, double us) {
    double ms = us / 1e3;
    return fnum(b, cap, ms, fabs(ms) >= 100 ? 1 : fabs(ms) >= 10 ? 2 : 3);
}

/* A rate (TB/s, TFLOP/s) with three significant digits or so. */
static const char *frate(char *b, size_t cap, double v) {
    if (!isfinite(v)) return fnum(b, cap, v, 0);
    double a = fabs(v);
    return fnum(b, cap, v, a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 5);
}

/* Shortest round-trip form for data-* attributes (what the test reads back). */
static const char *frt(char *b, size_t cap, double v) {
    return jv_fmt_pyfloat(b, cap, v);
}

static double pct_of(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* 1 when OUTDIR/rel exists (links point only at files that were written). */
static int exists(const char *outdir, const char *rel) {
    char p[4096];
    struct stat st;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", outdir, rel) >= sizeof p) return 0;
    return stat(p, &st) == 0;
}

/* A link to OUTDIR/rel when it exists, else the label as plain text. */
static void link(FILE *f, const char *outdir, const char *rel, const char *label) {
    if (exists(outdir, rel)) {
        fputs("<a href=\"", f);
        esc(f, rel);
        fputs("\">", f);
        esc(f, label);
        fputs("</a>", f);
    } else {
        esc(f, label);
    }
}

/* ---------- page frame ---------- */

static const char CSS[] =
    ":root{--fg:#1d2530;--muted:#5b6675;--line:#e2e6eb;--bg:#f4f6f8;--card:#fff;--accent:#2f6fae}\n"
    "*{box-sizing:border-box}\n"
    "html{-webkit-text-size-adjust:100%}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
    "\"Helvetica Neue\",Arial,\"Noto Sans\",\"Liberation Sans\",\"DejaVu Sans\",sans-serif}\n"
    "main{max-width:1100px;margin:0 auto;padding:24px 20px 40px}\n"
    "a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}\n"
    "header.top{padding:4px 0 14px}\n"
    ".brand{font-size:12px;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}\n"
    "h1{font-size:26px;margin:2px 0 2px;font-weight:650}\n"
    ".trace{font-size:15px;color:var(--muted);margin:0 0 12px;word-break:break-all}\n"
    "h2{font-size:18px;margin:0 0 10px;font-weight:650}\n"
    "h3{font-size:15px;margin:18px 0 6px;font-weight:650}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 19px;margin:16px 0}\n"
    "dl.facts{display:grid;grid-template-columns:170px 1fr;gap:3px 14px;margin:0;font-size:13.5px}\n"
    "dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}\n"
    ".cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:14px 0 0}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px}\n"
    ".card .k{font-size:12px;color:var(--muted)}.card .v{font-size:22px;font-weight:650}"
    ".card .s{font-size:12px;color:var(--muted)}\n"
    "nav.toc{font-size:13px;margin:10px 0 0}nav.toc a{margin-right:14px}\n"
    "p.note{color:var(--muted);font-size:13px;margin:6px 0}\n"
    "table{border-collapse:collapse;width:100%;font-size:12.5px;margin:4px 0 6px}\n"
    "th,td{padding:4px 7px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
    "th{color:var(--muted);font-weight:600;background:#fafbfc;white-space:nowrap}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.total td{font-weight:600;border-top:1px solid #c9d0d8}\n"
    "table.fixed{table-layout:fixed}table.fixed td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    "table.fixed th{white-space:normal;vertical-align:bottom}\n"
    ".mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"Liberation Mono\",\"DejaVu Sans Mono\",monospace;"
    "font-size:11.5px}\n"
    ".legend{font-size:12.5px;margin:6px 0 2px}.legend span.it{margin-right:16px;white-space:nowrap}\n"
    ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}\n"
    ".band{display:inline-block;padding:0 6px;border-radius:9px;font-size:11px;white-space:nowrap}\n"
    ".band.excellent{background:#dcefdc;color:#23632b}.band.good{background:#e6f0d6;color:#4a6317}"
    ".band.acceptable{background:#fbedd0;color:#7a5410}.band.investigate{background:#f8dcdc;color:#8a2424}\n"
    "svg{display:block;max-width:100%;height:auto;font-family:inherit}\n"
    "svg text{font-size:12px;fill:#1d2530}svg .ax{font-size:11.5px;fill:#5b6675}\n"
    "svg text.halo{paint-order:stroke;stroke:#fcfdfe;stroke-width:3px;stroke-linejoin:round}\n"
    ".cols{display:grid;grid-template-columns:1fr 1fr;gap:16px}\n"
    "ul.outs{margin:4px 0;padding-left:20px}\n"
    "footer{color:var(--muted);font-size:12px;text-align:center;margin-top:20px}\n";

/* ---------- header ---------- */

/* The distinct compute specs of rows [0, n) that have one (at most max). */
static int specs_of(const jv_digest *d, size_t n, const char **out, int max) {
    int k = 0;
    for (size_t i = 0; i < n && i < d->nrows; i++) {
        const char *s = d->rows[i].spec;
        if (!s[0]) continue;
        int seen = 0;
        for (int j = 0; j < k; j++)
            if (!strcmp(out[j], s)) seen = 1;
        if (!seen && k < max) out[k++] = s;
    }
    return k;
}

static void write_header(FILE *f, const jv_digest *d) {
    char b1[64], b2[64];
    fputs("<header class=\"top\"><div class=\"brand\">jarvis-analyze</div><h1>GPU performance report</h1>"
          "<p class=\"trace\">",
          f);
    esc(f, d->trace_name);
    fputs("</p>\n<dl class=\"facts\">\n<dt>Device</dt><dd>", f);
    if (d->device && d->device[0])
        esc(f, d->device);
    else
        fputs("unknown (no deviceProperties in the trace)", f);
    if (d->ndevices > 1) fprintf(f, " (%d devices, merged)", d->ndevices);
    fputs("</dd>\n<dt>Roofline GPU</dt><dd>", f);
    if (d->has_hw) {
        fputs("<b>", f);
        esc(f, d->hw.name);
        fprintf(f, "</b> &middot; HBM %s GB/s", fnum(b1, sizeof b1, d->hw.mem_bw_gbps, 0));
        if (d->hw_why && d->hw_why[0]) {
            fputs(" &middot; <span class=\"note\">", f);
            esc(f, d->hw_why);
            fputs("</span>", f);
        }
    } else {
        fputs("none: ", f);
        esc(f, d->hw_why && d->hw_why[0] ? d->hw_why : "no GPU matched");
        fputs(" (pass <span class=\"mono\">--gpu-arch NAME</span> for the roofline)", f);
    }
    fputs("</dd>\n", f);
    if (d->has_hw) {
        const char *sp[MAX_SPECS];
        int ns = specs_of(d, d->nrows, sp, MAX_SPECS);
        fputs("<dt>Peaks used</dt><dd>", f);
        int any = 0;
        for (int i = 0; i < ns; i++) {
            double p = jv_hw_peak(&d->hw, sp[i]);
            if (!isfinite(p)) continue;
            fprintf(f, "%s<span class=\"mono\">", any ? "; " : "");
            esc(f, sp[i]);
            fprintf(f, "</span> %s TFLOP/s", frate(b1, sizeof b1, p));
            any = 1;
        }
        if (!any)
            fputs("none (no op with a compute spec)</dd>\n", f);
        else
            fprintf(f, "%s</dd>\n", d->hw.roof_is_max_achievable ? " (max achievable)" : " (datasheet)");
    }
    fprintf(f, "<dt>GPU time</dt><dd>%s ms on the GPU timeline; %s ms of kernel time in %zu ops</dd>\n</dl>\n",
            fms(b1, sizeof b1, (double)d->tl.total / 1e3), fms(b2, sizeof b2, d->total_us), d->nrows);

    /* four headline numbers */
    int top = 0;
    for (int c = 1; c < JV_DCAT_COUNT; c++)
        if (d->cat_us[c] > d->cat_us[top]) top = c;
    fputs("<div class=\"cards\">", f);
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">GPU timeline</div><div class=\"v\">%s ms</div>"
            "<div class=\"s\">first to last GPU event</div></div>",
            fms(b1, sizeof b1, (double)d->tl.total / 1e3));
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">Computation</div><div class=\"v\">%s %%</div>"
            "<div class=\"s\">of the timeline (&gt; 95 %% is the goal)</div></div>",
            fnum(b1, sizeof b1, pct_of((double)d->tl.computation, (double)d->tl.total), 1));
    fprintf(f,
            "<div class=\"card\"><div class=\"k\">Idle</div><div class=\"v\">%s %%</div>"
            "<div class=\"s\">%s ms with no GPU work</div></div>",
            fnum(b1, sizeof b1, pct_of((double)d->tl.idle, (double)d->tl.total), 1),
            fms(b2, sizeof b2, (double)d->tl.idle / 1e3));
    fprintf(f, "<div class=\"card\"><div class=\"k\">Largest category</div><div class=\"v\">");
    if (d->total_us > 0) {
        esc(f, jv_dcat_title((jv_dcat)top));
        fprintf(f, "</div><div class=\"s\">%s %% of kernel time</div></div>",
                fnum(b1, sizeof b1, pct_of(d->cat_us[top], d->total_us), 1));
    } else {
        fputs("&ndash;</div><div class=\"s\">no kernel time</div></div>", f);
    }
    fputs("</div>\n</header>\n", f);
}

/* ---------- GPU timeline ---------- */

static const char *const TL_NAME[4] = {"computation_time", "exposed_comm_time", "exposed_memcpy_time", "idle_time"};
static const char *const TL_TITLE[4] = {"Computation", "Exposed communication", "Exposed memcpy", "Idle"};
static const char *const TL_COLOR[4] = {"#3a7ca5", "#e0a030", "#d1603d", "#cfd5dc"};

static void tl_parts(const jv_gpu_timeline *t, int64_t v[4]) {
    v[0] = t->computation;
    v[1] = t->exposed_comm;
    v[2] = t->exposed_memcpy;
    v[3] = t->idle;
}

/* One stacked bar of width w at (x, y), height h; its segments (class cls)
 * carry their numbers as data-* attributes. */
static void tl_bar(FILE *f, const jv_gpu_timeline *t, double x, double y, double w, double h, const char *cls) {
    int64_t v[4];
    tl_parts(t, v);
    double tot = (double)t->total, at = x;
    char b1[64], b2[64], b3[64];
    for (int i = 0; i < 4; i++) {
        double ms = (double)v[i] / 1e6, p = pct_of((double)v[i], tot);
        double sw = tot > 0 ? w * (double)v[i] / tot : 0;
        fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"", cls, at, y,
                sw, h, TL_COLOR[i]);
        fprintf(f, " data-type=\"%s\" data-ms=\"%s\" data-pct=\"%s\"", TL_NAME[i], frt(b1, sizeof b1, ms),
                frt(b2, sizeof b2, p));
        fprintf(f, "><title>%s: %s ms (%s %%)</title></rect>\n", TL_TITLE[i], fnum(b3, sizeof b3, ms, 3),
                fnum(b2, sizeof b2, p, 1));
        if (sw >= 150)
            fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" style=\"fill:%s;font-weight:600\">%s %s %%</text>\n", at + 8,
                    y + h / 2 + 4, i == 3 ? "#1d2530" : "#fff", TL_TITLE[i], fnum(b2, sizeof b2, p, 1));
        at += sw;
    }
}

static void tl_legend(FILE *f, const jv_gpu_timeline *t) {
    int64_t v[4];
    tl_parts(t, v);
    char b1[64], b2[64];
    fputs("<div class=\"legend\">", f);
    for (int i = 0; i < 4; i++)
        fprintf(f,
                "<span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>%s <b>%s ms</b> (%s %%)</span>",
                TL_COLOR[i], TL_TITLE[i], fnum(b1, sizeof b1, (double)v[i] / 1e6, 3),
                fnum(b2, sizeof b2, pct_of((double)v[i], (double)t->total), 1));
    fputs("</div>\n", f);
}

static void write_timeline(FILE *f, const jv_digest *d) {
    char b1[64];
    fputs("<section id=\"timeline\"><h2>GPU timeline breakdown</h2>\n", f);
    if (d->tl.total <= 0) {
        fputs("<p class=\"note\">No GPU events on the timeline: nothing to break down.</p></section>\n", f);
        return;
    }
    fprintf(f,
            "<svg id=\"tl-svg\" width=\"%d\" height=\"62\" viewBox=\"0 0 %d 62\" role=\"img\" "
            "aria-label=\"GPU timeline breakdown\">\n",
            SVG_W, SVG_W);
    tl_bar(f, &d->tl, 0, 4, SVG_W, 34, "tl");
    /* a millisecond scale under the bar */
    double tot_ms = (double)d->tl.total / 1e6;
    for (int i = 0; i <= 4; i++) {
        double x = SVG_W * i / 4.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"38\" x2=\"%.1f\" y2=\"43\" stroke=\"#9aa5b1\"/>", i == 4 ? x - 0.5 : x + 0.5,
                i == 4 ? x - 0.5 : x + 0.5);
        fprintf(f, "<text class=\"ax\" x=\"%.1f\" y=\"56\" text-anchor=\"%s\">%s ms</text>\n", x,
                i == 0   ? "start"
                : i == 4 ? "end"
                         : "middle",
                i ? frate(b1, sizeof b1, tot_ms * i / 4) : "0");
    }
    fputs("</svg>\n", f);
    tl_legend(f, &d->tl);
    fprintf(f, "<p class=\"note\">Share of the span from the first to the last GPU event (all devices merged): "
               "computation is GPU time with a kernel running; exposed communication and memcpy are the parts not "
               "hidden under computation; idle is time with no GPU work. The goal is computation above 95 %%.</p>\n");
    fputs("</section>\n", f);
}

/* ---------- top ops ---------- */

static void cat_legend(FILE *f, const jv_digest *d) {
    fputs("<div class=\"legend\">", f);
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        if (!d->cat_rows[c]) continue;
        fprintf(f, "<span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>", CAT_COLOR[c]);
        esc(f, jv_dcat_title((jv_dcat)c));
        fputs("</span>", f);
    }
    fputs("</div>\n", f);
}

/* Tooltip text of a row (goes inside <title>). */
static void row_tip(FILE *f, const jv_drow *r, size_t rank) {
    char b1[64], b2[64], b3[64];
    fprintf(f, "#%zu ", rank);
    esc(f, r->name);
    if (r->dims[0]) {
        fputs("&#10;shapes: ", f);
        esc(f, r->dims);
    }
    if (r->types[0]) {
        fputs("&#10;types: ", f);
        esc(f, r->types);
    }
    fprintf(f, "&#10;time: %s ms (%s %% of kernel time), %u calls", fms(b1, sizeof b1, r->time_us),
            fnum(b2, sizeof b2, r->percent, 1), r->count);
    if (isfinite(r->fpb)) fprintf(f, "&#10;FLOPS/Byte: %s", frate(b1, sizeof b1, r->fpb));
    if (isfinite(r->tflops) || isfinite(r->tbs))
        fprintf(f, "&#10;achieved: %s TFLOP/s, %s TB/s", frate(b1, sizeof b1, r->tflops), frate(b2, sizeof b2, r->tbs));
    if (isfinite(r->pct)) {
        fprintf(f, "&#10;roofline: %s %% (%s", fnum(b3, sizeof b3, r->pct, 1), jv_efficiency_band(r->pct));
        if (r->bound[0]) {
            fputs(", ", f);
            esc(f, r->bound);
        }
        fputs(")", f);
    }
    if (r->nkernels > 0) {
        fputs("&#10;kernel: ", f);
        esc(f, r->kernels[0].name);
        if (r->nkernels_all > 1) fprintf(f, " (+%d more)", r->nkernels_all - 1);
    }
}

/* The first tensor shape of a dims text ("((32, 64, 56, 56), ...)" gives
 * "(32, 64, 56, 56)") in grey after a name, within room characters. */
static void shape_hint(FILE *f, const char *dims, size_t room) {
    const char *p = dims && dims[0] == '(' ? strchr(dims + 1, '(') : NULL;
    const char *q = p ? strchr(p, ')') : NULL;
    if (!q || room < 8) return;
    size_t n = (size_t)(q - p) + 1;
    char buf[128];
    if (n >= sizeof buf) return;
    memcpy(buf, p, n);
    buf[n] = 0;
    fputs(" <tspan class=\"ax\">", f);
    esc_cut(f, buf, room - 1);
    fputs("</tspan>", f);
}

static void write_top(FILE *f, const jv_digest *d) {
    char b1[64], b2[64];
    size_t n = d->nrows < TOP_N ? d->nrows : TOP_N;
    fprintf(f, "<section id=\"top-ops\"><h2>Top %zu ops by kernel time</h2>\n", n);
    if (!n) {
        fputs("<p class=\"note\">No GPU kernel was linked to an op in this trace.</p></section>\n", f);
        return;
    }
    cat_legend(f, d);
    const double rowh = 24, top = 6, lab = 372, valw = 150;
    double barw = SVG_W - lab - valw, maxt = d->rows[0].time_us;
    double h = top + rowh * (double)n + 4;
    fprintf(f,
            "<svg id=\"top-svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\" "
            "aria-label=\"Top ops by kernel time\">\n",
            SVG_W, h, SVG_W, h);
    for (size_t i = 0; i < n; i++) {
        const jv_drow *r = &d->rows[i];
        double y = top + rowh * (double)i, w = maxt > 0 ? barw * r->time_us / maxt : 0;
        if (w < 1) w = 1;
        if (i % 2 == 0)
            fprintf(f, "<rect x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#f6f8fa\"/>\n", y - 1, SVG_W,
                    rowh);
        fprintf(f, "<g class=\"bar\" data-rank=\"%zu\" data-uid=\"%u\"><title>", i + 1, r->uid);
        row_tip(f, r, i + 1);
        fprintf(f, "</title><text class=\"ax\" x=\"22\" y=\"%.1f\" text-anchor=\"end\">%zu</text>", y + 15, i + 1);
        fprintf(f, "<text x=\"30\" y=\"%.1f\">", y + 15);
        size_t used = nchars(r->name) < 40 ? nchars(r->name) : 40;
        esc_cut(f, r->name, 40);
        shape_hint(f, r->dims, 50 - used);
        fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"16\" rx=\"2\" fill=\"%s\"/>", lab, y + 3,
                w, CAT_COLOR[r->cat]);
        fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">%s ms <tspan class=\"ax\">&middot; %s %%</tspan></text></g>\n",
                lab + w + 6, y + 15, fms(b1, sizeof b1, r->time_us), fnum(b2, sizeof b2, r->percent, 1));
    }
    fputs("</svg>\n", f);
    double topsum = 0;
    for (size_t i = 0; i < n; i++)
        topsum += d->rows[i].time_us;
    fprintf(f,
            "<p class=\"note\">Rows of the unified perf summary (one op with one set of shapes; every kernel counted "
            "once). These %zu rows hold %s %% of the kernel time (%s ms). Hover a bar for the full name, shapes and "
            "kernel.</p>\n</section>\n",
            n, fnum(b1, sizeof b1, pct_of(topsum, d->total_us), 1), fms(b2, sizeof b2, topsum));
}

/* ---------- roofline ---------- */

typedef struct {
    double lx0, lx1, ly0, ly1; /* log10 axis ranges */
    double px0, px1, py0, py1; /* plot area in px */
} axes;

static double ax_x(const axes *a, double lx) {
    return a->px0 + (lx - a->lx0) / (a->lx1 - a->lx0) * (a->px1 - a->px0);
}
static double ax_y(const axes *a, double ly) {
    return a->py1 - (ly - a->ly0) / (a->ly1 - a->ly0) * (a->py1 - a->py0);
}

/* Decade label: 0.001 ... 10000 plainly, beyond as 1e5 / 1e-4. */
static const char *decade(char *b, size_t cap, int k) {
    if (k >= 0 && k <= 4)
        snprintf(b, cap, "%.0f", pow(10, k));
    else if (k < 0 && k >= -3)
        snprintf(b, cap, "%.*f", -k, pow(10, k));
    else
        snprintf(b, cap, "1e%d", k);
    return b;
}

/* Why a row is not on the roofline, or NULL when it is. */
static const char *not_plotted(const jv_drow *r) {
    if (!(r->time_us > 0)) return "no kernel time";
    if (!r->family[0] || !isfinite(r->flops) || !isfinite(r->bytes)) return "no FLOPs/bytes model";
    if (!(r->flops > 0)) return "0 FLOPs (data movement only)";
    if (!(r->bytes > 0)) return "0 bytes in the model";
    if (!(isfinite(r->fpb) && r->fpb > 0 && isfinite(r->tflops) && r->tflops > 0)) return "no achieved rate";
    return NULL;
}

/* Widens [mn, mx] (log10) to whole decades, at least span of them. */
static void decades(double mn, double mx, int span, double *lo, double *hi) {
    double l = floor(mn), h = ceil(mx);
    while (h - l < span) {
        if ((mn - l) < (h - mx))
            l -= 1;
        else
            h += 1;
    }
    *lo = l;
    *hi = h;
}

typedef struct {
    double peak;
    char label[160];
} ceiling;

static int cmp_ceiling(const void *a, const void *b) {
    double x = ((const ceiling *)a)->peak, y = ((const ceiling *)b)->peak;
    return (x < y) - (x > y); /* largest first */
}

#define RMAX 20.0 /* radius of the largest point (px) */

/* Radius of a point: area proportional to kernel time, at least 2.5 px. */
static double radius_of(const jv_drow *r, double maxt) {
    return maxt > 0 ? fmax(2.5, RMAX * sqrt(r->time_us / maxt)) : 3;
}

/* 1 when the box [bx, bx+w] x [by, by+h] touches a plotted point of rows
 * [0, n) other than row skip. */
static int hits_point(const jv_digest *d, size_t n, const axes *a, double maxt, size_t skip, double bx, double by,
                      double w, double h) {
    for (size_t j = 0; j < n; j++) {
        const jv_drow *o = &d->rows[j];
        if (j == skip || not_plotted(o)) continue;
        double ox = ax_x(a, log10(o->fpb)), oy = ax_y(a, log10(o->tflops)), orad = radius_of(o, maxt);
        double nx = fmin(fmax(ox, bx), bx + w) - ox, ny = fmin(fmax(oy, by), by + h) - oy;
        if (nx * nx + ny * ny < orad * orad) return 1;
    }
    return 0;
}

static int boxes_meet(const double *b, double bx, double by, double w, double h) {
    return bx < b[2] && b[0] < bx + w && by < b[3] && b[1] < by + h;
}

static void write_roofline(FILE *f, const jv_digest *d) {
    char b1[64], b2[64], b3[64];
    size_t n = d->nrows < TOP_N ? d->nrows : TOP_N;
    fputs("<section id=\"roofline\"><h2>Roofline of the top ops</h2>\n", f);
    size_t np = 0;
    double mnx = INFINITY, mxx = -INFINITY, mny = INFINITY, mxy = -INFINITY, maxt = 0;
    for (size_t i = 0; i < n; i++) {
        const jv_drow *r = &d->rows[i];
        if (not_plotted(r)) continue;
        np++;
        double lx = log10(r->fpb), ly = log10(r->tflops); /* a little room around points */
        mnx = fmin(mnx, lx - 0.04), mxx = fmax(mxx, lx + 0.04), mny = fmin(mny, ly - 0.04), mxy = fmax(mxy, ly + 0.04);
    }
    if (n) maxt = d->rows[0].time_us; /* areas on the scale of the largest op */
    /* compute ceilings: the specs the plotted ops use, equal peaks on one line */
    ceiling ce[MAX_SPECS];
    double cbox[MAX_SPECS][4]; /* label boxes */
    char ctext[MAX_SPECS][200];
    int nce = 0;
    double bw_tb = d->has_hw && d->hw.mem_bw_gbps > 0 ? d->hw.mem_bw_gbps / 1e3 : NAN; /* TB/s */
    if (d->has_hw && isfinite(bw_tb)) {
        for (size_t i = 0; i < n; i++) {
            const jv_drow *r = &d->rows[i];
            if (not_plotted(r) || !r->spec[0]) continue;
            double p = jv_hw_peak(&d->hw, r->spec);
            if (!(isfinite(p) && p > 0)) continue;
            int k = 0;
            while (k < nce && ce[k].peak != p)
                k++;
            if (k == nce) {
                if (nce == MAX_SPECS) continue;
                ce[nce].peak = p;
                ce[nce].label[0] = 0;
                nce++;
            }
            if (strstr(ce[k].label, r->spec)) continue;
            size_t L = strlen(ce[k].label);
            snprintf(ce[k].label + L, sizeof ce[k].label - L, "%s%s", L ? ", " : "", r->spec);
        }
        qsort(ce, (size_t)nce, sizeof *ce, cmp_ceiling);
    }
    if (!np) {
        fputs(
            "<p class=\"note\">None of the top ops has a FLOPs/bytes model with non-zero FLOPs, so there is nothing to "
            "place on a roofline.</p>\n",
            f);
    } else {
        if (!d->has_hw)
            fputs("<p class=\"note\"><b>No roofline GPU</b>: the points show the achieved rates, without memory or "
                  "compute ceilings (pass <span class=\"mono\">--gpu-arch NAME</span> to draw them).</p>\n",
                  f);
        for (int k = 0; k < nce; k++) { /* ceilings in view */
            double ridge = log10(ce[k].peak / bw_tb);
            mny = fmin(mny, log10(ce[k].peak)), mxy = fmax(mxy, log10(ce[k].peak));
            mnx = fmin(mnx, ridge), mxx = fmax(mxx, ridge);
        }
        axes a = {0, 0, 0, 0, 74, SVG_W - 28, 14, 462};
        decades(mnx, mxx, 3, &a.lx0, &a.lx1);
        decades(mny, mxy, 3, &a.ly0, &a.ly1);
        if (nce && ax_y(&a, log10(ce[0].peak)) - a.py0 < 24) a.ly1 += 1; /* room for the top ceiling's label */
        for (size_t i = 0; i < n; i++) { /* a decade more where a point would stick out of the plot */
            const jv_drow *r = &d->rows[i];
            if (not_plotted(r)) continue;
            double cx = ax_x(&a, log10(r->fpb)), cy = ax_y(&a, log10(r->tflops)), rad = radius_of(r, maxt);
            if (cx - rad < a.px0)
                a.lx0 -= 1;
            else if (cx + rad > a.px1)
                a.lx1 += 1;
            if (cy - rad < a.py0)
                a.ly1 += 1;
            else if (cy + rad > a.py1)
                a.ly0 -= 1;
        }
        const double H = 516;
        fprintf(f,
                "<svg id=\"roofline-svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\" "
                "aria-label=\"Roofline\" data-xlog-min=\"%.0f\" data-xlog-max=\"%.0f\" data-ylog-min=\"%.0f\" "
                "data-ylog-max=\"%.0f\" data-px0=\"%.0f\" data-px1=\"%.0f\" data-py0=\"%.0f\" data-py1=\"%.0f\">\n",
                SVG_W, H, SVG_W, H, a.lx0, a.lx1, a.ly0, a.ly1, a.px0, a.px1, a.py0, a.py1);
        fprintf(f,
                "<defs><clipPath id=\"plot-clip\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>"
                "</clipPath></defs>\n",
                a.px0, a.py0, a.px1 - a.px0, a.py1 - a.py0);
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fcfdfe\" stroke=\"#c3cbd4\"/>\n",
                a.px0, a.py0, a.px1 - a.px0, a.py1 - a.py0);
        /* grid: minor lines at 2..9, major lines and labels at decades */
        for (int k = (int)a.lx0; k <= (int)a.lx1; k++) {
            double x = ax_x(&a, k);
            if (k < (int)a.lx1)
                for (int m = 2; m <= 9; m++) {
                    double xm = ax_x(&a, k + log10(m));
                    fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eef1f4\"/>", xm, a.py0,
                            xm, a.py1);
                }
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#d5dbe2\"/>"
                    "<text class=\"ax\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                    x, a.py0, x, a.py1 + 5, x, a.py1 + 19, decade(b1, sizeof b1, k));
        }
        for (int k = (int)a.ly0; k <= (int)a.ly1; k++) {
            double y = ax_y(&a, k);
            if (k < (int)a.ly1)
                for (int m = 2; m <= 9; m++) {
                    double ym = ax_y(&a, k + log10(m));
                    fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eef1f4\"/>", a.px0, ym,
                            a.px1, ym);
                }
            fprintf(f,
                    "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#d5dbe2\"/>"
                    "<text class=\"ax\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    a.px0 - 5, y, a.px1, y, a.px0 - 8, y + 4, decade(b1, sizeof b1, k));
        }
        fprintf(f,
                "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" style=\"font-weight:600\">Arithmetic "
                "intensity (FLOP/Byte, log scale)</text>\n",
                (a.px0 + a.px1) / 2, H - 10);
        fprintf(f,
                "<text transform=\"translate(18 %.0f) rotate(-90)\" text-anchor=\"middle\" "
                "style=\"font-weight:600\">Achieved TFLOP/s (log scale)</text>\n",
                (a.py0 + a.py1) / 2);
        fputs("<g clip-path=\"url(#plot-clip)\">\n", f);
        double dxdec = (a.px1 - a.px0) / (a.lx1 - a.lx0), dydec = (a.py1 - a.py0) / (a.ly1 - a.ly0);
        double ang = -atan2(dydec, dxdec) * 180 / 3.14159265358979323846; /* screen angle of a slope-1 line */
        /* the trace's elementwise baseline as a bandwidth line (dashed) */
        const jv_dbaseline *bl = &d->baseline;
        if (isfinite(bl->tbs) && bl->tbs > 0) {
            double off = log10(bl->tbs);
            double x0 = a.lx0, x1 = fmin(a.lx1, a.ly1 - off);
            if (x0 + off < a.ly0) x0 = a.ly0 - off;
            if (x1 > x0) {
                fprintf(f,
                        "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#8a94a0\" "
                        "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                        ax_x(&a, x0), ax_y(&a, x0 + off), ax_x(&a, x1), ax_y(&a, x1 + off));
                double lx = x0 + (x1 - x0) * 0.55;
                fprintf(f,
                        "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(%.2f %.1f %.1f)\" "
                        "style=\"fill:#6b7683;font-size:11px\">elementwise baseline of this trace %s TB/s</text>\n",
                        ax_x(&a, lx) + 4, ax_y(&a, lx + off) + 13, ang, ax_x(&a, lx) + 4, ax_y(&a, lx + off) + 13,
                        frate(b1, sizeof b1, bl->tbs));
            }
        }
        if (d->has_hw && isfinite(bw_tb)) {
            /* memory ceiling: TFLOP/s = TB/s x FLOP/Byte, up to the highest compute ceiling */
            double off = log10(bw_tb);
            double top = nce ? log10(ce[0].peak) : a.ly1;
            double x0 = a.lx0, x1 = fmin(a.lx1, top - off);
            if (x0 + off < a.ly0) x0 = a.ly0 - off;
            if (x1 > x0) {
                fprintf(f,
                        "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#1d2530\" "
                        "stroke-width=\"2\"/>\n",
                        ax_x(&a, x0), ax_y(&a, x0 + off), ax_x(&a, x1), ax_y(&a, x1 + off));
                double lx = x0 + (x1 - x0) * 0.25;
                fprintf(f,
                        "<text class=\"halo\" x=\"%.1f\" y=\"%.1f\" transform=\"rotate(%.2f %.1f %.1f)\" "
                        "style=\"font-weight:600\">HBM %s TB/s</text>\n",
                        ax_x(&a, lx), ax_y(&a, lx + off) - 6, ang, ax_x(&a, lx), ax_y(&a, lx + off) - 6,
                        frate(b1, sizeof b1, bw_tb));
            }
            /* compute ceilings from their ridge point to the right edge; each label at the first
             * place (right end or ridge, above or below the line) clear of points and labels */
            for (int k = 0; k < nce; k++) {
                double ly = log10(ce[k].peak), ridge = fmax(a.lx0, ly - off);
                double y = ax_y(&a, ly), rx = ax_x(&a, ridge);
                fprintf(f,
                        "<line class=\"ceil\" data-tflops=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" "
                        "stroke=\"#1d2530\" stroke-width=\"%s\"/>\n",
                        frt(b1, sizeof b1, ce[k].peak), rx, y, a.px1, y, k == 0 ? "2" : "1.3");
                snprintf(ctext[k], sizeof ctext[k], "%s %s TFLOP/s", ce[k].label, frate(b1, sizeof b1, ce[k].peak));
                double w = 7.0 * (double)nchars(ctext[k]) + 4, h = 13;
                double cand[4][2] = {
                    {a.px1 - 6 - w, y - 17}, {a.px1 - 6 - w, y + 4}, {rx + 8, y - 17}, {rx + 8, y + 4}};
                int pick = -1;
                for (int c = 0; c < 4 && pick < 0; c++) {
                    double bx = cand[c][0], by = cand[c][1];
                    if (bx < a.px0 + 2 || bx + w > a.px1 - 2 || by < a.py0 + 1 || by + h > a.py1 - 1) continue;
                    int clash = hits_point(d, n, &a, maxt, (size_t)-1, bx, by, w, h);
                    for (int j = 0; j < k && !clash; j++)
                        clash = boxes_meet(cbox[j], bx, by, w, h);
                    if (!clash) pick = c;
                }
                if (pick < 0) pick = y - 17 < a.py0 + 1 ? 1 : 0;
                cbox[k][0] = cand[pick][0], cbox[k][1] = cand[pick][1];
                cbox[k][2] = cand[pick][0] + w, cbox[k][3] = cand[pick][1] + h;
            }
        }
        fputs("</g>\n", f);
        for (int k = 0; k < nce; k++) {
            fprintf(f, "<text class=\"halo\" x=\"%.1f\" y=\"%.1f\" style=\"font-weight:600\">", cbox[k][0] + 2,
                    cbox[k][3] - 3);
            esc(f, ctext[k]);
            fputs("</text>\n", f);
        }
        /* points, largest first so that small ones stay on top */
        size_t order[TOP_N], no = 0;
        for (size_t i = 0; i < n; i++)
            if (!not_plotted(&d->rows[i])) order[no++] = i;
        for (size_t i = 1; i < no; i++)
            for (size_t j = i; j > 0 && d->rows[order[j]].time_us > d->rows[order[j - 1]].time_us; j--) {
                size_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        for (size_t q = 0; q < no; q++) {
            size_t i = order[q];
            const jv_drow *r = &d->rows[i];
            double cx = ax_x(&a, log10(r->fpb)), cy = ax_y(&a, log10(r->tflops));
            double rad = radius_of(r, maxt);
            fprintf(f,
                    "<circle class=\"pt\" cx=\"%.3f\" cy=\"%.3f\" r=\"%.2f\" fill=\"%s\" fill-opacity=\"0.72\" "
                    "stroke=\"#fff\" stroke-width=\"1\" data-rank=\"%zu\" data-uid=\"%u\" data-fpb=\"%s\" "
                    "data-tflops=\"%s\" data-us=\"%s\" data-cat=\"%s\"><title>",
                    cx, cy, rad, CAT_COLOR[r->cat], i + 1, r->uid, frt(b1, sizeof b1, r->fpb),
                    frt(b2, sizeof b2, r->tflops), frt(b3, sizeof b3, r->time_us), jv_dcat_name(r->cat));
            row_tip(f, r, i + 1);
            fputs("</title></circle>\n", f);
        }
        /* rank labels beside the points: the first of eight places around each
         * point that overlaps no label placed before (rank order) */
        double box[TOP_N][4];
        size_t nb = 0;
        for (size_t i = 0; i < n; i++) {
            const jv_drow *r = &d->rows[i];
            if (not_plotted(r)) continue;
            double cx = ax_x(&a, log10(r->fpb)), cy = ax_y(&a, log10(r->tflops));
            double rad = radius_of(r, maxt);
            double w = i + 1 >= 10 ? 13 : 7, h = 10, g = rad * 0.72 + 2;
            static const double dir[8][2] = {{1, -1}, {1, 1}, {-1, -1}, {-1, 1}, {1, 0}, {-1, 0}, {0, -1}, {0, 1}};
            double bx = 0, by = 0;
            for (int k = 0; k < 8; k++) {
                double gx = dir[k][1] == 0 ? rad + 3 : g, gy = dir[k][0] == 0 ? rad + 2 : g;
                bx = dir[k][0] > 0 ? cx + gx : dir[k][0] < 0 ? cx - gx - w : cx - w / 2;
                by = dir[k][1] < 0 ? cy - gy - h : dir[k][1] > 0 ? cy + gy : cy - h / 2;
                if (dir[k][0] == 0) by = dir[k][1] < 0 ? cy - rad - 2 - h : cy + rad + 2;
                int clash = 0;
                for (size_t j = 0; j < nb && !clash; j++)
                    clash = boxes_meet(box[j], bx, by, w, h);
                if (!clash) clash = hits_point(d, n, &a, maxt, i, bx, by, w, h);
                for (int j = 0; j < nce && !clash; j++)
                    clash = boxes_meet(cbox[j], bx, by, w, h);
                if (!clash) break;
            }
            box[nb][0] = bx, box[nb][1] = by, box[nb][2] = bx + w, box[nb][3] = by + h, nb++;
            fprintf(f,
                    "<text class=\"halo\" x=\"%.1f\" y=\"%.1f\" "
                    "style=\"font-size:10.5px;font-weight:600;fill:#39424e\">%zu</text>\n",
                    bx, by + h - 1, i + 1);
        }
        fputs("</svg>\n", f);
        cat_legend(f, d);
        fprintf(f,
                "<p class=\"note\">Each point is one of the top %zu ops (numbers: rank in the chart above) at its "
                "FLOPS/Byte and mean achieved TFLOP/s; the area is proportional to its kernel time (at least "
                "2.5 px). ",
                n);
        if (d->has_hw) {
            fputs("Ceilings of the roofline GPU (", f);
            esc(f, d->hw.name);
            fprintf(f, "): memory %s TB/s and the peaks of the compute specs these ops use. ",
                    frate(b1, sizeof b1, bw_tb));
        }
        if (isfinite(bl->tbs) && bl->tbs > 0)
            fputs("The dashed line is the bandwidth that simple add/mul/copy ops reach in this trace. ", f);
        fputs("Hover a point for its numbers.</p>\n", f);
    }
    /* the top ops left out, and why */
    if (np < n) {
        fprintf(f, "<p class=\"note\">%zu of the top %zu ops are not plotted", n - np, n);
        static const char *const WHY[] = {"no kernel time", "no FLOPs/bytes model", "0 FLOPs (data movement only)",
                                          "0 bytes in the model", "no achieved rate"};
        int groups = 0;
        for (size_t w = 0; w < sizeof WHY / sizeof WHY[0]; w++) {
            int first = 1;
            for (size_t i = 0; i < n; i++) {
                const char *why = not_plotted(&d->rows[i]);
                if (!why || strcmp(why, WHY[w])) continue;
                fprintf(f, "%s#%zu", first ? (groups ? "; " : ": ") : ", ", i + 1);
                first = 0;
            }
            if (!first) fprintf(f, " (%s)", WHY[w]), groups++;
        }
        fputs(". A log-log roofline needs FLOPs &gt; 0 and bytes &gt; 0 from a performance model.</p>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---------- category tables ---------- */

static void band_cell(FILE *f, double pct) {
    const char *b = jv_efficiency_band(pct);
    if (b[0])
        fprintf(f, "<td><span class=\"band %s\">%s</span></td>", b, b);
    else
        fputs("<td></td>", f);
}

static void write_categories(FILE *f, const jv_digest *d, const char *outdir) {
    char b1[64], b2[64], b3[64];
    fputs("<section id=\"categories\"><h2>Categories</h2>\n<table><thead><tr><th>Category</th><th class=\"n\">Rows</th>"
          "<th class=\"n\">Kernel time (ms)</th><th class=\"n\">Share</th><th style=\"width:40%\"></th><th>Findings"
          "</th></tr></thead><tbody>\n",
          f);
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        double p = pct_of(d->cat_us[c], d->total_us);
        fprintf(f,
                "<tr class=\"cat-total\" data-cat=\"%s\" data-us=\"%s\"><td><span class=\"sw\" "
                "style=\"background:%s\"></span>",
                jv_dcat_name((jv_dcat)c), frt(b3, sizeof b3, d->cat_us[c]), CAT_COLOR[c]);
        esc(f, jv_dcat_title((jv_dcat)c));
        fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td>", d->cat_rows[c],
                fms(b1, sizeof b1, d->cat_us[c]), fnum(b2, sizeof b2, p, 1));
        fprintf(f,
                "<td><svg width=\"300\" height=\"12\" viewBox=\"0 0 300 12\"><rect x=\"0\" y=\"1\" width=\"%.1f\" "
                "height=\"10\" rx=\"2\" fill=\"%s\"/></svg></td><td>",
                3 * p, CAT_COLOR[c]);
        if (c != JV_DCAT_OTHER) {
            char rel[128];
            snprintf(rel, sizeof rel, "category_findings/%s_findings.md", jv_dcat_name((jv_dcat)c));
            if (exists(outdir, rel)) link(f, outdir, rel, rel);
        }
        fputs("</td></tr>\n", f);
    }
    fprintf(f,
            "<tr class=\"total\"><td>All</td><td class=\"n\">%zu</td><td class=\"n\">%s</td><td class=\"n\">100 %%"
            "</td><td></td><td></td></tr>\n</tbody></table>\n",
            d->nrows, fms(b1, sizeof b1, d->total_us));

    /* the elementwise baseline of this trace */
    const jv_dbaseline *bl = &d->baseline;
    fputs("<p class=\"note\"><b>Elementwise baseline of this trace</b>: ", f);
    if (isfinite(bl->tbs)) {
        fprintf(f, "%s TB/s (all bytes over all kernel time of %u simple add/mul/copy rows, %llu calls%s)",
                frate(b1, sizeof b1, bl->tbs), bl->rows, (unsigned long long)bl->calls,
                bl->small_only ? "; none moves 1 MiB per call, so small ones went in too"
                               : ", each moving at least 1 MiB "
                                 "per call");
        if (d->has_hw && d->hw.mem_bw_gbps > 0)
            fprintf(f, ", %s %% of the HBM bandwidth",
                    fnum(b2, sizeof b2, pct_of(bl->tbs * 1e3, d->hw.mem_bw_gbps), 1));
        fputs(". What simple ops reach on this GPU in this run: the yardstick for memory-bound ops.", f);
    } else {
        fputs("none (no aten::add, mul or copy_ op in this trace).", f);
    }
    fputs("</p>\n", f);

    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        if (!d->cat_rows[c]) continue;
        fprintf(f, "<h3 id=\"cat-%s\"><span class=\"sw\" style=\"background:%s\"></span>", jv_dcat_name((jv_dcat)c),
                CAT_COLOR[c]);
        esc(f, jv_dcat_title((jv_dcat)c));
        fprintf(f, " <span class=\"note\">&middot; %s ms &middot; %s %% of kernel time &middot; %u rows</span></h3>\n",
                fms(b1, sizeof b1, d->cat_us[c]), fnum(b2, sizeof b2, pct_of(d->cat_us[c], d->total_us), 1),
                d->cat_rows[c]);
        fputs("<table class=\"fixed\"><colgroup><col style=\"width:38px\"><col style=\"width:250px\"><col>"
              "<col style=\"width:52px\"><col style=\"width:76px\"><col style=\"width:60px\"><col style=\"width:68px\">"
              "<col style=\"width:74px\"><col style=\"width:92px\"><col style=\"width:92px\"></colgroup>\n"
              "<thead><tr><th class=\"n\">#</th><th>Op</th><th>Shapes</th><th class=\"n\">Calls</th>"
              "<th class=\"n\">Time (ms)</th><th class=\"n\">Share</th><th class=\"n\">TB/s</th>"
              "<th class=\"n\">TFLOP/s</th><th class=\"n\">% of roofline</th><th>Band</th></tr></thead><tbody>\n",
              f);
        size_t shown = 0;
        double rest_us = 0;
        for (size_t i = 0; i < d->nrows; i++) {
            const jv_drow *r = &d->rows[i];
            if ((int)r->cat != c) continue;
            if (shown == CAT_ROWS) {
                rest_us += r->time_us;
                continue;
            }
            shown++;
            fprintf(f, "<tr><td class=\"n\">%zu</td><td title=\"", i + 1);
            esc(f, r->name);
            if (r->nkernels > 0) {
                fputs("&#10;kernel: ", f);
                esc(f, r->kernels[0].name);
            }
            fputs("\">", f);
            esc_cut(f, r->name, 60);
            fputs("</td><td class=\"mono\" title=\"", f);
            esc(f, r->dims);
            if (r->types[0]) {
                fputs("&#10;", f);
                esc(f, r->types);
            }
            fputs("\">", f);
            esc_cut(f, r->dims, 80);
            fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td>", r->count,
                    fms(b1, sizeof b1, r->time_us), fnum(b2, sizeof b2, r->percent, 1));
            fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>",
                    frate(b1, sizeof b1, r->tbs), frate(b2, sizeof b2, r->tflops), fnum(b3, sizeof b3, r->pct, 1));
            band_cell(f, r->pct);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
        if (d->cat_rows[c] > shown) {
            fprintf(f, "<p class=\"note\">and %zu more rows (%s ms)", (size_t)d->cat_rows[c] - shown,
                    fms(b1, sizeof b1, rest_us));
            char rel[128];
            snprintf(rel, sizeof rel, "category_data/%s_ops.csv", jv_dcat_name((jv_dcat)c));
            if (exists(outdir, rel)) {
                fputs(": all of them in ", f);
                link(f, outdir, rel, rel);
            } else {
                fputs(": all of them in ", f);
                link(f, outdir, "perf_report_csvs/unified_perf_summary.csv",
                     "perf_report_csvs/unified_perf_summary.csv");
            }
            fputs(".</p>\n", f);
        }
    }
    fputs("<p class=\"note\">TB/s and TFLOP/s: achieved, mean over the calls, from the op's FLOPs/bytes model and its "
          "kernel time. % of roofline: the roofline time over the kernel time; bands &gt; 80 % excellent, 60-80 good, "
          "40-60 acceptable, &lt; 40 investigate. Empty where the op has no model or no roofline GPU is known.</p>\n"
          "</section>\n",
          f);
}

/* ---------- fusion candidates and layout conversions ---------- */

static void write_fusion(FILE *f, const jv_digest *d) {
    char b1[64], b2[64], b3[64];
    fputs("<section id=\"fusion\"><h2>Fusion candidates</h2>\n", f);
    if (!d->nfusion) {
        fputs("<p class=\"note\">None: no module instance or parent op runs two or more elementwise kernels per "
              "instance on average.</p></section>\n",
              f);
        return;
    }
    fputs(
        "<table class=\"fixed\"><colgroup><col style=\"width:190px\"><col style=\"width:112px\">"
        "<col style=\"width:74px\"><col style=\"width:84px\"><col style=\"width:70px\"><col style=\"width:86px\">"
        "<col style=\"width:58px\"><col style=\"width:84px\"><col style=\"width:76px\"><col></colgroup>\n"
        "<thead><tr><th>Module or parent op</th><th>Found through</th><th class=\"n\">Instances</th>"
        "<th class=\"n\">Elementwise kernels</th><th class=\"n\">Per instance</th><th class=\"n\">Elementwise (ms)</th>"
        "<th class=\"n\">Share</th><th class=\"n\">All kernels (ms)</th><th class=\"n\">Example UID</th>"
        "<th>Elementwise ops</th></tr></thead><tbody>\n",
        f);
    for (size_t i = 0; i < d->nfusion && i < FUSION_ROWS; i++) {
        const jv_dfusion *u = &d->fusion[i];
        fputs("<tr><td title=\"", f);
        esc(f, u->name);
        fputs("\">", f);
        esc_cut(f, u->name, 40);
        fprintf(f, "</td><td>%s</td><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%s</td>",
                u->from_module ? "nn.Module" : "parent op", u->instances, u->ew_kernels,
                fnum(b1, sizeof b1, u->instances ? (double)u->ew_kernels / u->instances : NAN, 1));
        fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s %%</td><td class=\"n\">%s</td><td class=\"n\">%u</td>",
                fms(b1, sizeof b1, u->ew_us), fnum(b2, sizeof b2, pct_of(u->ew_us, d->total_us), 1),
                fms(b3, sizeof b3, u->total_us), u->example_uid);
        fputs("<td class=\"mono\" title=\"", f);
        esc(f, u->ops);
        fputs("\">", f);
        esc_cut(f, u->ops, 60);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (d->nfusion > FUSION_ROWS)
        fprintf(f, "<p class=\"note\">and %zu more candidates (see the elementwise findings).</p>\n",
                d->nfusion - FUSION_ROWS);
    fputs("<p class=\"note\">Instances whose work is many small elementwise kernels: a fused kernel would read and "
          "write the data once. The elementwise time is the upper bound of what fusion saves (the fused kernel still "
          "moves its bytes once). <span class=\"mono\">jarvis-analyze TRACE --call-stack UID</span> shows an "
          "instance's kernels.</p>\n</section>\n",
          f);
}

static void write_layout(FILE *f, const jv_digest *d) {
    char b1[64], b2[64], b3[64], b4[64];
    double lay = 0;
    size_t nl = 0;
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].cat == JV_DCAT_CONV && d->rows[i].layout_us > 0) lay += d->rows[i].layout_us, nl++;
    fputs("<section id=\"layout\"><h2>Layout conversions</h2>\n", f);
    if (!d->cat_rows[JV_DCAT_CONV]) {
        fputs("<p class=\"note\">No convolution in this trace.", f);
    } else {
        fprintf(f,
                "<p class=\"layout-sum\" data-us=\"%s\">Layout-conversion kernels (transposes, NCHW&harr;NHWC) "
                "inside convolution ops: <b>%s ms</b>, %s %% of the convolution time (%s ms), in %zu of %u "
                "convolution rows.",
                frt(b3, sizeof b3, lay), fms(b1, sizeof b1, lay),
                fnum(b2, sizeof b2, pct_of(lay, d->cat_us[JV_DCAT_CONV]), 1),
                fms(b4, sizeof b4, d->cat_us[JV_DCAT_CONV]), nl, d->cat_rows[JV_DCAT_CONV]);
        if (lay > 0)
            fputs(" They convert between the model's memory format and the one the convolution kernels use; with "
                  "channels_last tensors (NHWC) they usually disappear.",
                  f);
    }
    if (d->layout_outside_us > 0)
        fprintf(f, " Outside convolutions: %s ms of layout-conversion kernels.",
                fms(b1, sizeof b1, d->layout_outside_us));
    fputs("</p>\n", f);
    if (nl) {
        fputs("<table><thead><tr><th class=\"n\">#</th><th>Convolution op</th><th>Shapes</th>"
              "<th class=\"n\">Time (ms)</th><th class=\"n\">Layout (ms)</th><th class=\"n\">Layout share</th>"
              "<th>Layout kernel</th></tr></thead><tbody>\n",
              f);
        size_t shown = 0;
        for (size_t i = 0; i < d->nrows && shown < LAYOUT_ROWS; i++) {
            const jv_drow *r = &d->rows[i];
            if (r->cat != JV_DCAT_CONV || !(r->layout_us > 0)) continue;
            shown++;
            fprintf(f, "<tr><td class=\"n\">%zu</td><td title=\"", i + 1);
            esc(f, r->name);
            fputs("\">", f);
            esc_cut(f, r->name, 36);
            fputs("</td><td class=\"mono\" title=\"", f);
            esc(f, r->dims);
            fputs("\">", f);
            esc_cut(f, r->dims, 36);
            fprintf(f,
                    "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td><td class=\"mono\"",
                    fms(b1, sizeof b1, r->time_us), fms(b2, sizeof b2, r->layout_us),
                    fnum(b3, sizeof b3, pct_of(r->layout_us, r->time_us), 1));
            const char *kn = "";
            for (int k = 0; k < r->nkernels; k++)
                if (r->kernels[k].layout) {
                    kn = r->kernels[k].name;
                    break;
                }
            fputs(" title=\"", f);
            esc(f, kn);
            fputs("\">", f);
            esc_cut(f, kn, 40);
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
        if (nl > shown) fprintf(f, "<p class=\"note\">and %zu more rows with layout kernels.</p>\n", nl - shown);
    }
    fputs("</section>\n", f);
}

/* ---------- the reference trace ---------- */

static void write_compare(FILE *f, const jv_digest *d, const jv_digest *ref, const char *outdir) {
    char b1[64], b2[64], b3[64];
    const jv_digest *dd[2] = {d, ref};
    fputs("<section id=\"compare\"><h2>Target and reference</h2>\n<table><thead><tr><th></th><th>Target</th>"
          "<th>Reference</th></tr></thead><tbody>\n<tr><td>Trace</td>",
          f);
    for (int k = 0; k < 2; k++) {
        fputs("<td class=\"mono\">", f);
        esc(f, dd[k]->trace_name);
        fputs("</td>", f);
    }
    fputs("</tr>\n<tr><td>Device</td>", f);
    for (int k = 0; k < 2; k++) {
        fputs("<td>", f);
        esc(f, dd[k]->device && dd[k]->device[0] ? dd[k]->device : "unknown");
        fputs("</td>", f);
    }
    fputs("</tr>\n<tr><td>Roofline GPU</td>", f);
    for (int k = 0; k < 2; k++) {
        fputs("<td>", f);
        if (dd[k]->has_hw) {
            esc(f, dd[k]->hw.name);
            fprintf(f, " (HBM %s GB/s)", fnum(b1, sizeof b1, dd[k]->hw.mem_bw_gbps, 0));
        } else {
            fputs("none", f);
        }
        fputs("</td>", f);
    }
    fputs("</tr>\n<tr><td>GPU timeline</td>", f);
    for (int k = 0; k < 2; k++)
        fprintf(f, "<td>%s ms</td>", fms(b1, sizeof b1, (double)dd[k]->tl.total / 1e3));
    fputs("</tr>\n<tr><td>Kernel time</td>", f);
    for (int k = 0; k < 2; k++)
        fprintf(f, "<td class=\"cmp-ktime\" data-us=\"%s\">%s ms (%zu ops)</td>", frt(b2, sizeof b2, dd[k]->total_us),
                fms(b1, sizeof b1, dd[k]->total_us), dd[k]->nrows);
    fputs("</tr>\n</tbody></table>\n<h3>GPU timeline</h3>\n", f);
    fprintf(f,
            "<svg id=\"cmp-tl-svg\" width=\"%d\" height=\"92\" viewBox=\"0 0 %d 92\" role=\"img\" "
            "aria-label=\"GPU timeline of both traces\">\n",
            SVG_W, SVG_W);
    static const char *const who[2] = {"Target", "Reference"};
    for (int k = 0; k < 2; k++) {
        double y = 6 + 44.0 * k;
        fprintf(f,
                "<text x=\"0\" y=\"%.0f\" style=\"font-weight:600\">%s</text><text class=\"ax\" x=\"0\" "
                "y=\"%.0f\">%s ms</text>\n",
                y + 14, who[k], y + 29, fms(b1, sizeof b1, (double)dd[k]->tl.total / 1e3));
        if (dd[k]->tl.total > 0) tl_bar(f, &dd[k]->tl, 110, y, SVG_W - 110, 34, k ? "cmp-tl-ref" : "cmp-tl-target");
    }
    fputs("</svg>\n", f);
    for (int k = 0; k < 2; k++) {
        fprintf(f, "<div class=\"legend\"><b>%s</b>: ", who[k]);
        int64_t v[4];
        tl_parts(&dd[k]->tl, v);
        for (int i = 0; i < 4; i++)
            fprintf(f, "<span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>%s %s ms (%s %%)</span>",
                    TL_COLOR[i], TL_TITLE[i], fnum(b1, sizeof b1, (double)v[i] / 1e6, 3),
                    fnum(b2, sizeof b2, pct_of((double)v[i], (double)dd[k]->tl.total), 1));
        fputs("</div>\n", f);
    }
    fputs("<h3>Categories</h3>\n<table><thead><tr><th>Category</th><th class=\"n\">Target (ms)</th>"
          "<th class=\"n\">Share</th><th class=\"n\">Reference (ms)</th><th class=\"n\">Share</th>"
          "<th class=\"n\">Target / reference</th></tr></thead><tbody>\n",
          f);
    for (int c = 0; c < JV_DCAT_COUNT; c++) {
        fputs("<tr><td>", f);
        esc(f, jv_dcat_title((jv_dcat)c));
        fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s %%</td>", fms(b1, sizeof b1, d->cat_us[c]),
                fnum(b2, sizeof b2, pct_of(d->cat_us[c], d->total_us), 1));
        fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s %%</td><td class=\"n\">%s</td></tr>\n",
                fms(b1, sizeof b1, ref->cat_us[c]), fnum(b2, sizeof b2, pct_of(ref->cat_us[c], ref->total_us), 1),
                ref->cat_us[c] > 0 ? fnum(b3, sizeof b3, d->cat_us[c] / ref->cat_us[c], 2) : "\xe2\x80\x93");
    }
    fprintf(f,
            "<tr class=\"total\"><td>All</td><td class=\"n\">%s</td><td class=\"n\">100 %%</td><td class=\"n\">%s"
            "</td><td class=\"n\">100 %%</td><td class=\"n\">%s</td></tr>\n</tbody></table>\n",
            fms(b1, sizeof b1, d->total_us), fms(b2, sizeof b2, ref->total_us),
            ref->total_us > 0 ? fnum(b3, sizeof b3, d->total_us / ref->total_us, 2) : "\xe2\x80\x93");
    fputs("<p class=\"note\">Per-op matching across the two traces, deltas and what the hardware ratio leads one to "
          "expect: ",
          f);
    link(f, outdir, "comparative_analysis_fair.md", "comparative_analysis_fair.md");
    fputs(" (process and raw tables: ", f);
    link(f, outdir, "comparative_analysis_rough.md", "comparative_analysis_rough.md");
    fputs(").</p>\n</section>\n", f);
}

/* ---------- links to the other outputs ---------- */

static void write_outputs(FILE *f, const char *outdir) {
    static const char *const outs[][2] = {
        {"standalone_analysis_fair.md", "the standalone report: summary, recommendations, detail"},
        {"standalone_analysis_rough.md", "the working notes: process, raw tables, calculations"},
        {"comparative_analysis_fair.md", "the comparison with the reference trace"},
        {"comparative_analysis_rough.md", "the comparison's working notes"},
        {"category_findings/gemm_findings.md", "GEMM findings"},
        {"category_findings/convolution_findings.md", "convolution findings"},
        {"category_findings/batchnorm_findings.md", "batch norm findings"},
        {"category_findings/elementwise_findings.md", "elementwise findings"},
        {"perf_report.xlsx", "the perf report workbook (TraceLens' sheets)"},
        {"perf_report_csvs/unified_perf_summary.csv", "the unified perf summary as CSV (one file per sheet there)"},
        {"replay_package.zip", "the replay package: jarvis-replay replay_package.zip --op N"},
    };
    fputs("<section id=\"outputs\"><h2>Other outputs</h2>\n<ul class=\"outs\">\n", f);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        if (!exists(outdir, outs[i][0])) continue;
        fputs("<li>", f);
        link(f, outdir, outs[i][0], outs[i][0]);
        fputs(" &ndash; ", f);
        esc(f, outs[i][1]);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n<p class=\"note\">Files next to this page. What a trace cannot show (occupancy, cache behaviour, "
          "memory access patterns) needs a profiler: replay an op from the package under Nsight Compute or "
          "rocprof.</p>\n</section>\n",
          f);
}

/* ---------- the page ---------- */

jv_status jv_html_write(const jv_digest *d, const jv_digest *ref, const char *outdir, jv_err *err) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/report.html", outdir) >= sizeof path)
        JV_FAIL(err, JV_ERR_USAGE, "%s: output directory name too long", outdir);
    jv_out o;
    JV_CHECK(jv_out_open(&o, path, err));
    FILE *f = o.f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>GPU performance report: ",
          f);
    esc(f, d->trace_name);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", CSS);
    write_header(f, d);
    fputs("<nav class=\"toc\"><a href=\"#timeline\">Timeline</a><a href=\"#top-ops\">Top ops</a>"
          "<a href=\"#roofline\">Roofline</a><a href=\"#categories\">Categories</a><a href=\"#fusion\">Fusion</a>"
          "<a href=\"#layout\">Layout</a>",
          f);
    if (ref) fputs("<a href=\"#compare\">Reference</a>", f);
    fputs("<a href=\"#outputs\">Other outputs</a></nav>\n", f);
    write_timeline(f, d);
    write_top(f, d);
    write_roofline(f, d);
    write_categories(f, d, outdir);
    write_fusion(f, d);
    write_layout(f, d);
    if (ref) write_compare(f, d, ref, outdir);
    write_outputs(f, outdir);
    fputs("<footer>Written by jarvis-analyze from ", f);
    esc(f, d->trace_name);
    fputs(". One self-contained file: no script, no network access.</footer>\n</main>\n</body>\n</html>\n", f);
    return jv_out_commit(&o, err);
}
