/* jarvis_analyze.h: the jarvis-analyze program's own interface between its two files: jarvis_analyze.c (the
 * options, one trace with or without a reference) and jarvis_analyze_ranks.c (the traces of one job: the
 * arguments expanded, the ranks analysed in threads, the cross-rank outputs). Not a library header. */
#ifndef JARVIS_ANALYZE_H
#define JARVIS_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "jv_digest.h"
#include "jv_multirank.h"
#include "jv_status.h"

/* The command line. */
typedef struct {
    const char *trace;
    char **args; /* the TRACE arguments (argv) */
    int nargs;
    int jobs; /* --jobs N: ranks analysed at once (0: the default) */
    const char *outdir;
    const char *stage; /* where the writers write: jv_publish's private folder, renamed to outdir at the end */
    int quiet;
    int include_unlinked;
    double micro_idle_us;
    long long call_stack_uid;  /* -1: none */
    const char *gpu_arch;      /* --gpu-arch NAME|FILE, or NULL: from deviceProperties */
    int no_roofline;           /* --gpu-arch none */
    int replay_top;            /* --replay-top N (0: no limit) */
    double replay_min_percent; /* --replay-min-percent P */
    const char *reference;     /* --reference REF: comparative analysis against this trace */
    int64_t max_memory;        /* --max-memory SIZE: the address-space budget (0: none) */
    int threads;               /* 1: every stage of one trace on the main thread (JV_ANALYZE_THREADS=1); else two
                                  threads for the scan, the tree, and the launcher sheets beside the model */
} jv_analyze_cli;

/* Reads the trace at path and fills dg; the target's (target 1) sheets, package and category data go to
 * c->stage. ref (NULL: none): the reference's digest for the comparison sheet. rv (NULL: none): what the
 * cross-rank view keeps of this rank. The trace is freed before returning. */
jv_status jv_analyze_one(const jv_analyze_cli *c, const char *path, int target, const jv_digest *ref, jv_digest *dg,
                         jv_rank_view *rv, jv_err *err);

/* The trace paths of the command line, owned. */
typedef struct {
    char **v;
    size_t n, cap;
} jv_pathlist;

/* Frees the paths and empties pl. */
void jv_pathlist_free(jv_pathlist *pl);

/* Appends a copy of path p. JV_ERR_NOMEM. */
jv_status jv_pathlist_add(jv_pathlist *pl, const char *p, jv_err *err);

/* Appends what a TRACE argument names: a folder's traces (*.json, *.json.gz, sorted), else, when no such file
 * exists, a glob pattern's matches (sorted), else the argument itself. JV_ERR_FORMAT for a folder without
 * traces, JV_ERR_IO for an unreadable folder or a pattern matching nothing. */
jv_status jv_pathlist_expand(const char *arg, jv_pathlist *pl, jv_err *err);

/* The traces in (more than one: the ranks of one job) analysed cl->jobs at a time into OUTDIR/rank<k>/, with
 * the cross-rank outputs beside them, published at once (jv_publish). */
jv_status jv_analyze_ranks(const jv_analyze_cli *cl, const jv_pathlist *in, jv_err *err);

#endif
