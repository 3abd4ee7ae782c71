/* jv_repro_cmd: what an op family's reproducer hook (jv_family.repro) fills for one parsed call: the command
 * lines of the AMD vendor tools that run the same op (hipblaslt-bench, rocblas-bench, MIOpenDriver), as typed
 * option / value pairs, and the PyTorch statement that runs it once. The generic module ir/jv_repro assembles
 * them, with the tensors and the timing loop, into reproduce.md and jarvis-replay --print-repro. */
#ifndef JV_REPRO_CMD_H
#define JV_REPRO_CMD_H

#include <stddef.h>

#include "jv_dtype.h"

#define JV_REPRO_MAX_ARGS 48
#define JV_REPRO_MAX_CMDS 4

/* One option of a command: opt as typed ("--transA", "-n"), val its value ("" for a switch such as
 * hipblaslt-bench's --bias_vector). */
typedef struct {
    char opt[24];
    char val[40];
} jv_repro_arg;

/* One command line: tool [sub] opt val opt val ... */
typedef struct {
    char tool[24];   /* "hipblaslt-bench", "rocblas-bench", "MIOpenDriver" */
    char sub[24];    /* a sub-command ("convbfp16" of MIOpenDriver); "" for none */
    char title[160]; /* what the line runs, one line ("bf16 GEMM, the bias as hipBLASLt's epilogue") */
    int nargs;
    jv_repro_arg arg[JV_REPRO_MAX_ARGS];
} jv_repro_cmd;

/* The timing loop every line asks for. */
typedef struct {
    int iters;      /* timed iterations */
    int cold_iters; /* warm-up iterations before timing */
} jv_repro_opts;

/* What a family's hook fills. The PyTorch statements (torch, one per line, no indentation) run the op once
 * and may read every operand (jv_operands) as a Python variable named after jv_operand.name; they must not
 * assign to those names (results go to `r`). OUT operands are created only when their bit is set in
 * need_out (bit i: operand i), e.g. in-place or out= calls that write them. */
typedef struct {
    int ncmd;
    jv_repro_cmd cmd[JV_REPRO_MAX_CMDS];
    char amd_none[240]; /* ncmd == 0: why no AMD tool runs this call */
    char torch[1536];
    unsigned need_out;
    int overflow; /* 1: a text or argument did not fit (the reproducer is refused) */
} jv_repro;

/* Starts command ncmd of r (tool, sub-command, title); NULL (and r->overflow set) when r is full. */
jv_repro_cmd *jv_repro_cmd_add(jv_repro *r, const char *tool, const char *sub, const char *title);

/* Appends option opt with a printf value (fmt NULL: a switch without value). Sets r->overflow when the
 * command is full or the value does not fit. c may be NULL (no-op). */
void jv_repro_opt(jv_repro *r, jv_repro_cmd *c, const char *opt, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends one line of PyTorch code (printf text; the newline is added). Sets r->overflow when full. */
void jv_repro_py(jv_repro *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets r->amd_none (printf text). */
void jv_repro_no_amd(jv_repro *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The PyTorch dtype expression of d ("torch.bfloat16"); NULL for a dtype PyTorch has no name for here. */
const char *jv_repro_torch_dtype(jv_dtype d);

/* A Python expression of the float v: its repr ("1.0", "1e-05") or float('inf') / float('nan'). buf >= 32. */
const char *jv_repro_pyfloat(char *buf, size_t cap, double v);

/* MIOpenDriver's sub-command suffix for data of dtype d (MIOpen's driver names conv / convfp16 / convbfp16,
 * bnorm / bnormfp16 / bnormbfp16): "" for fp32, "fp16", "bfp16"; NULL for another dtype (no driver). */
const char *jv_repro_miopen_suffix(jv_dtype d);

#endif
