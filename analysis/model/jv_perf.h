/* jv_perf: per-op performance metrics. Every GPU event is counted once: it
 * belongs to the outermost op on its call chain that has a perf model (a weak
 * model, e.g. aten::linear, only when the op launched the kernel itself and
 * no op below it launches kernels); else to the op that launched it; a kernel
 * launched by an op that also contains kernel-launching ops, or by no op at
 * all, is a "<parent>-><kernel> (Synthetic Op)" instance. From these
 * instances come TraceLens' unified_perf_summary and the per-family sheets
 * (GEMM, CONV_fwd, ...), written by report/jv_perf_sheet.c. */
#ifndef JV_PERF_H
#define JV_PERF_H

#include "jv_digest.h"
#include "jv_family.h"
#include "jv_hw.h"
#include "jv_trace.h"
#include "jv_tree.h"

/* The model numbers of one distinct (op name, args). */
typedef struct {
    uint32_t name, sig; /* interned name; index into tr->sigs */
    uint32_t annot;     /* interned name of the annotation handed to the family (jv_family.annotation), 0: none */
    int family;         /* registry index */
    int ok;             /* 1: parsed and modelled; 0: the call could not be modelled */
    int bwd;
    jv_perf perf;
    jv_family_facts facts; /* what the family reads from the call for the findings (jv_desc_facts) */
} jv_perf_model;

/* One op instance: an op event with the GPU events it owns. */
typedef struct {
    uint32_t ev;         /* the op (or, for a synthetic instance, its parent: an op or a launch call) */
    uint32_t kernel;     /* synthetic instance: its one GPU event; else JV_NONE32 */
    uint32_t kbegin, kn; /* range in jv_perf_table.kernels (ts order) */
    int64_t busy_ns;     /* union of the kernels' intervals */
    int32_t model;       /* index into models; -1 when the op's name has no perf model */
} jv_perf_inst;

typedef struct jv_perf_table_ {
    jv_perf_inst *inst;
    size_t ninst;
    uint32_t *kernels;
    size_t nkernels;
    jv_perf_model *models;
    size_t nmodels;
    uint64_t model_errors; /* instances whose op has a model name but args that could not be modelled */
} jv_perf_table;

/* Builds the instance table. JV_ERR_NOMEM on failure (table freed). */
jv_status jv_perf_build(const jv_trace *tr, const jv_tree *t, jv_perf_table *pt, jv_err *err);

/* The call of op `name` (interned) with the args of signature sig (an index
 * into tr->sigs; 0 = none) as jv_opcall, from the raw trace JSON. Release
 * with jv_opcall_free. JV_ERR_FORMAT when the args are not valid JSON lists. */
jv_status jv_perf_call_of(const jv_trace *tr, uint32_t name, uint32_t sig, jv_opcall *call, jv_err *err);

/* The call model m was parsed from: jv_perf_call_of with its annotation (jv_opcall.annotation). */
jv_status jv_perf_model_call(const jv_trace *tr, const jv_perf_model *m, jv_opcall *call, jv_err *err);

/* Frees the table. */
void jv_perf_free(jv_perf_table *pt);

#endif
