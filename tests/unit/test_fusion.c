/* test_fusion: the digest's fusion candidates grouped by parent op (jv_digest_finish's fusion_of, for traces
 * without nn.Module events) against a plain recomputation: each op instance's holder found by walking its parent
 * chain, each holder's sums over its instances in instance order, the holders with elementwise kernels taken in
 * order of their first instance into groups by holder name (the example: the first holder's UID), the groups
 * running at least two elementwise kernels per instance kept, largest elementwise time first (ties in group
 * order). Every candidate's name, counts, times (exactly) and example UID must match, in order.
 * Usage: test_fusion TRACE... (an absent trace is skipped; when the traces given hold no parent-op candidate at all,
 * the test fails: it would compare nothing). nv_sampled_w128_rank0 (shared traces) has holders of one name with
 * several instances, which the group order and the example UID depend on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_check.h"
#include "jv_digest.h"
#include "jv_family.h"
#include "jv_perf.h"
#include "jv_sort.h"
#include "jv_test_digest.h"
#include "jv_timelines.h"
#include "jv_tree.h"

typedef struct {
    uint32_t name; /* holder name (interned) */
    uint32_t instances, ew_kernels, example_uid;
    double ew_us, total_us;
} ref_group;

typedef struct {
    uint32_t first; /* first instance with this holder, JV_NONE32 none yet */
    uint32_t ew_kernels;
    double ew_us, total_us;
} ref_holder;

static int is_ew_inst(const jv_perf_table *pt, const jv_perf_inst *in) {
    if (in->kernel != JV_NONE32 || in->model < 0 || !pt->models[in->model].ok) return 0;
    return jv_family_get(pt->models[in->model].family)->report == JV_REPORT_ELEMENTWISE;
}

/* the nearest ancestor of op event ev that is a cpu op or annotation and not an elementwise composite */
static uint32_t holder_of(const jv_trace *tr, const jv_tree *t, uint32_t ev) {
    for (uint32_t p = t->parent[ev]; p != JV_NONE32; p = t->parent[p]) {
        jv_kind k = jv_ev_kind(tr, &tr->ev[p]);
        if (k != JV_K_CPU_OP && k != JV_K_USER_ANNOT) continue;
        jv_match how;
        int fam = jv_family_find(jv_trace_str(tr, jv_ev_name(tr, &tr->ev[p])), &how);
        if (!(fam >= 0 && jv_family_get(fam)->report == JV_REPORT_ELEMENTWISE)) return p;
    }
    return JV_NONE32;
}

static int cmp_ew_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    const ref_group *x = a, *y = b;
    return x->ew_us > y->ew_us ? -1 : x->ew_us < y->ew_us;
}

/* the number of parent-op candidates checked (-1: the trace holds module events: not this test's path) */
static int check_trace(const char *path) {
    jv_trace tr;
    jv_tree t;
    jv_perf_table pt;
    jv_timelines tls;
    jv_digest d;
    if (!jv_test_digest(path, "H100", &tr, &t, &pt, &tls, &d)) return 0;
    int modules = 0;
    for (size_t i = 0; i < tr.nev && !modules; i++)
        modules = jv_ev_kind(&tr, &tr.ev[i]) == JV_K_PYTHON &&
                  !strncmp(jv_trace_str(&tr, jv_ev_name(&tr, &tr.ev[i])), "nn.Module: ", 11);
    int checked = -1;
    if (!modules) {
        ref_holder *h = malloc((tr.nev + 1) * sizeof *h);
        uint32_t *holder = malloc((pt.ninst + 1) * sizeof *holder), *order = malloc((pt.ninst + 1) * sizeof *order);
        ref_group *g = malloc((pt.ninst + 1) * sizeof *g);
        CHECK(h && holder && order && g);
        if (!h || !holder || !order || !g) return 0;
        for (size_t e = 0; e < tr.nev; e++)
            h[e] = (ref_holder){JV_NONE32, 0, 0, 0};
        size_t nh = 0, ng = 0;
        for (size_t i = 0; i < pt.ninst; i++) { /* each holder's sums, in instance order */
            const jv_perf_inst *in = &pt.inst[i];
            holder[i] = in->kernel == JV_NONE32 ? holder_of(&tr, &t, in->ev) : JV_NONE32;
            if (holder[i] == JV_NONE32) continue;
            ref_holder *x = &h[holder[i]];
            if (x->first == JV_NONE32) {
                x->first = (uint32_t)i;
                order[nh++] = holder[i];
            }
            x->total_us += (double)in->busy_ns / 1e3;
            if (is_ew_inst(&pt, in)) {
                x->ew_kernels += in->kn;
                x->ew_us += (double)in->busy_ns / 1e3;
            }
        }
        for (size_t k = 0; k < nh; k++) { /* the holders in order of their first instance */
            const ref_holder *x = &h[order[k]];
            if (!x->ew_kernels) continue;
            size_t q = 0;
            while (q < ng && g[q].name != jv_ev_name(&tr, &tr.ev[order[k]]))
                q++;
            if (q == ng)
                g[ng++] = (ref_group){jv_ev_name(&tr, &tr.ev[order[k]]), 0, 0, jv_trace_uid(&tr, order[k]), 0, 0};
            g[q].instances++;
            g[q].ew_kernels += x->ew_kernels;
            g[q].ew_us += x->ew_us;
            g[q].total_us += x->total_us;
        }
        size_t nk = 0;
        for (size_t q = 0; q < ng; q++)
            if (g[q].ew_kernels >= 2 * g[q].instances) g[nk++] = g[q];
        CHECK(jv_sort_stable(g, nk, sizeof *g, cmp_ew_desc, NULL) == JV_OK);
        int ok = d.nfusion == nk;
        for (size_t q = 0; ok && q < nk; q++) {
            const jv_dfusion *f = &d.fusion[q];
            ok = !f->from_module && !strcmp(f->name, jv_trace_str(&tr, g[q].name)) && f->instances == g[q].instances &&
                 f->ew_kernels == g[q].ew_kernels && f->ew_us == g[q].ew_us && f->total_us == g[q].total_us &&
                 f->example_uid == g[q].example_uid;
        }
        CHECK_MSG(ok, "%s: %zu fusion candidates, the recomputation has %zu; the first that differs is wrong", path,
                  d.nfusion, nk);
        checked = (int)nk;
        free(h);
        free(holder);
        free(order);
        free(g);
    }
    jv_test_digest_free(&tr, &t, &pt, &tls, &d);
    return checked;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_fusion TRACE...\n");
        return 2;
    }
    int total = 0;
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb"); /* a trace of the shared folder may be absent: the others still count */
        if (!f) {
            printf("test_fusion: %s: absent (skipped)\n", argv[a]);
            continue;
        }
        fclose(f);
        int n = check_trace(argv[a]);
        printf("test_fusion: %s: %s\n", argv[a], n < 0 ? "module events (not checked here)" : "checked");
        if (n > 0) total += n;
    }
    CHECK_MSG(total > 0, "no parent-op fusion candidate in the traces given: nothing was compared");
    printf("test_fusion: %d candidates compared; %d checks passed, %d failed\n", total, passed, failed);
    return failed != 0;
}
