/* jv_html_plot: the SVG charts of report.html (see jv_html.c): the GPU
 * timeline breakdown, the top ops bar chart and the roofline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_html_int.h"
#include "jv_output.h"

/* ---------- GPU timeline ---------- */

static const char *const TL_NAME[4] = {"computation_time", "exposed_comm_time", "exposed_memcpy_time", "idle_time"};
const char *const jv_html_tl_title[4] = {"Computation", "Exposed communication", "Exposed memcpy", "Idle"};
const char *const jv_html_tl_color[4] = {"#3a7ca5", "#e0a030", "#d1603d", "#cfd5dc"};

void jv_html_tl_parts(const jv_gpu_timeline *t, int64_t v[4]) {
    v[0] = t->computation;
    v[1] = t->exposed_comm;
    v[2] = t->exposed_memcpy;
    v[3] = t->idle;
}

/* One stacked bar of width w at (x, y), height h; its segments (class cls)
 * carry their numbers as data-* attributes. */
void jv_html_tl_bar(FILE *f, const jv_gpu_timeline *t, double x, double y, double w, double h, const char *cls) {
    int64_t v[4];
    jv_html_tl_parts(t, v);
    double tot = (double)t->total, at = x;
    char b1[64], b2[64], b3[64];
    for (int i = 0; i < 4; i++) {
        double ms = (double)v[i] / 1e6, p = jv_html_pct_of((double)v[i], tot);
        double sw = tot > 0 ? w * (double)v[i] / tot : 0;
        fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"", cls, at, y,
                sw, h, jv_html_tl_color[i]);
        fprintf(f, " data-type=\"%s\" data-ms=\"%s\" data-pct=\"%s\"", TL_NAME[i], jv_html_frt(b1, sizeof b1, ms),
                jv_html_frt(b2, sizeof b2, p));
        fprintf(f, "><title>%s: %s ms (%s %%)</title></rect>\n", jv_html_tl_title[i],
                jv_html_fnum(b3, sizeof b3, ms, 3), jv_html_fnum(b2, sizeof b2, p, 1));
        if (sw >= 150)
            fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" style=\"fill:%s;font-weight:600\">%s %s %%</text>\n", at + 8,
                    y + h / 2 + 4, i == 3 ? "#1d2530" : "#fff", jv_html_tl_title[i], jv_html_fnum(b2, sizeof b2, p, 1));
        at += sw;
    }
}

static void tl_legend(FILE *f, const jv_gpu_timeline *t) {
    int64_t v[4];
    jv_html_tl_parts(t, v);
    char b1[64], b2[64];
    fputs("<div class=\"legend\">", f);
    for (int i = 0; i < 4; i++)
        fprintf(f,
                "<span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>%s <b>%s ms</b> (%s %%)</span>",
                jv_html_tl_color[i], jv_html_tl_title[i], jv_html_fnum(b1, sizeof b1, (double)v[i] / 1e6, 3),
                jv_html_fnum(b2, sizeof b2, jv_html_pct_of((double)v[i], (double)t->total), 1));
    fputs("</div>\n", f);
}

void jv_html_write_timeline(FILE *f, const jv_digest *d) {
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
    jv_html_tl_bar(f, &d->tl, 0, 4, SVG_W, 34, "tl");
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
                i ? jv_html_frate(b1, sizeof b1, tot_ms * i / 4) : "0");
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
        fprintf(f, "<span class=\"it\"><span class=\"sw\" style=\"background:%s\"></span>", jv_html_cat_color[c]);
        jv_html_esc(f, jv_dcat_title((jv_dcat)c));
        fputs("</span>", f);
    }
    fputs("</div>\n", f);
}

/* Tooltip text of a row (goes inside <title>). */
static void row_tip(FILE *f, const jv_drow *r, size_t rank) {
    char b1[64], b2[64], b3[64];
    fprintf(f, "#%zu ", rank);
    jv_html_esc(f, r->name);
    if (r->dims[0]) {
        fputs("&#10;shapes: ", f);
        jv_html_esc(f, r->dims);
    }
    if (r->types[0]) {
        fputs("&#10;types: ", f);
        jv_html_esc(f, r->types);
    }
    fprintf(f, "&#10;time: %s ms (%s %% of kernel time), %u calls", jv_html_fms(b1, sizeof b1, r->time_us),
            jv_html_fnum(b2, sizeof b2, r->percent, 1), r->count);
    if (isfinite(r->fpb)) fprintf(f, "&#10;FLOPS/Byte: %s", jv_html_frate(b1, sizeof b1, r->fpb));
    if (isfinite(r->tflops) || isfinite(r->tbs))
        fprintf(f, "&#10;achieved: %s TFLOP/s, %s TB/s", jv_html_frate(b1, sizeof b1, r->tflops),
                jv_html_frate(b2, sizeof b2, r->tbs));
    if (isfinite(r->pct)) {
        fprintf(f, "&#10;roofline: %s %% (%s", jv_html_fnum(b3, sizeof b3, r->pct, 1), jv_efficiency_band(r->pct));
        if (r->bound != JV_BOUND_NONE) {
            fputs(", ", f);
            jv_html_esc(f, jv_bound_name(r->bound));
        }
        fputs(")", f);
    }
    if (r->nkernels > 0) {
        fputs("&#10;kernel: ", f);
        jv_html_esc(f, r->kernels[0].name);
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
    jv_html_esc_cut(f, buf, room - 1);
    fputs("</tspan>", f);
}

void jv_html_write_top(FILE *f, const jv_digest *d) {
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
        size_t used = jv_html_label(f, r->name, 40);
        shape_hint(f, r->dims, 50 - used);
        fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"16\" rx=\"2\" fill=\"%s\"/>", lab, y + 3,
                w, jv_html_cat_color[r->cat]);
        fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">%s ms <tspan class=\"ax\">&middot; %s %%</tspan></text></g>\n",
                lab + w + 6, y + 15, jv_html_fms(b1, sizeof b1, r->time_us),
                jv_html_fnum(b2, sizeof b2, r->percent, 1));
    }
    fputs("</svg>\n", f);
    double topsum = 0;
    for (size_t i = 0; i < n; i++)
        topsum += d->rows[i].time_us;
    fprintf(f,
            "<p class=\"note\">Rows of the unified perf summary (one op with one set of shapes; every kernel counted "
            "once). These %zu rows hold %s %% of the kernel time (%s ms). Hover a bar for the full name, shapes and "
            "kernel.</p>\n</section>\n",
            n, jv_html_fnum(b1, sizeof b1, jv_html_pct_of(topsum, d->total_us), 1), jv_html_fms(b2, sizeof b2, topsum));
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

void jv_html_write_roofline(FILE *f, const jv_digest *d) {
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
                        jv_html_frate(b1, sizeof b1, bl->tbs));
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
                        jv_html_frate(b1, sizeof b1, bw_tb));
            }
            /* compute ceilings from their ridge point to the right edge; each label at the first
             * place (right end or ridge, above or below the line) clear of points and labels */
            for (int k = 0; k < nce; k++) {
                double ly = log10(ce[k].peak), ridge = fmax(a.lx0, ly - off);
                double y = ax_y(&a, ly), rx = ax_x(&a, ridge);
                fprintf(f,
                        "<line class=\"ceil\" data-tflops=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" "
                        "stroke=\"#1d2530\" stroke-width=\"%s\"/>\n",
                        jv_html_frt(b1, sizeof b1, ce[k].peak), rx, y, a.px1, y, k == 0 ? "2" : "1.3");
                snprintf(ctext[k], sizeof ctext[k], "%s %s TFLOP/s", ce[k].label,
                         jv_html_frate(b1, sizeof b1, ce[k].peak));
                double w = 7.0 * (double)jv_html_nchars(ctext[k]) + 4, h = 13;
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
            jv_html_esc(f, ctext[k]);
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
                    cx, cy, rad, jv_html_cat_color[r->cat], i + 1, r->uid, jv_html_frt(b1, sizeof b1, r->fpb),
                    jv_html_frt(b2, sizeof b2, r->tflops), jv_html_frt(b3, sizeof b3, r->time_us),
                    jv_dcat_name(r->cat));
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
            jv_html_esc(f, d->hw.name);
            fprintf(f, "): memory %s TB/s and the peaks of the compute specs these ops use. ",
                    jv_html_frate(b1, sizeof b1, bw_tb));
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
