/* jv_ir: the replay IR, TraceLens' EventReplay form (REFERENCE.md section 4):
 * a JSON array of {"op_name", "replay_ir": {"list_pos_args", "list_kwargs"}}
 * entries, argument names and types from the op's ATen schema, plus our own
 * keys in a "jarvis" object that TraceLens' reader ignores. Entries convert
 * to and from jv_opcall, so a replayed op is parsed by the same family code
 * as a traced one. */
#ifndef JV_IR_H
#define JV_IR_H

#include <stddef.h>
#include <stdint.h>

#include "jv_opcall.h"
#include "jv_status.h"

/* Our "jarvis" keys of an entry (REFERENCE.md section 4), typed at parse time; a TraceLens entry has none. */
typedef struct {
    int present;       /* 1 when the entry has a "jarvis" object */
    int64_t count;     /* "count": calls in the trace; 0 unknown */
    double median_us;  /* "kernel_time_median_us"; 0 unknown */
    double total_us;   /* "kernel_time_total_us"; 0 unknown */
    int64_t ex_uid;    /* "ex_uid": the op's event index in the trace; -1 unknown */
    char category[32]; /* "category"; "" unknown */
    char kernels[512]; /* "kernels", "; "-joined (names that no longer fit are left out) */
} jv_ir_traced;

/* One entry of an IR file. */
typedef struct {
    char *op_name;       /* "aten::convolution" (owned) */
    jv_opcall call;      /* the arguments in ATen schema order (positional, then keyword), as a trace records
                          * them; call.name == op_name */
    jv_ir_traced traced; /* the entry's "jarvis" keys */
    int index;           /* position of the entry in the file (0-based) */
} jv_ir_op;

typedef struct {
    jv_ir_op *ops;
    int n;
} jv_ir;

/* Parses IR JSON text (len bytes; need not be NUL-terminated). source names
 * the file in messages. The document is an array of entries (ours or
 * TraceLens'), an object wrapping one (its array member of entries), or a single
 * entry object; list_kwargs may be absent. Each entry's arguments (positional,
 * then keyword, in order) become the four trace texts of its call, read by
 * jv_opcall_from_trace: a tensor {"shape", "dtype", "strides"?, "init"?}
 * (dtype in trace spelling, "torch.bfloat16", "bfloat16", ...; no strides:
 * dense) gives its dims, canonical trace dtype and strides; null gives None;
 * a bool "True"/"False"; a number a "Scalar" whose text keeps how it was
 * written ("2" stays an int, "2.0" a float: Python type promotion depends on
 * it), with the strings "inf", "-inf", "nan" accepted for float and Scalar
 * arguments; a list a "ScalarList" "[1, 1]"; a string (str, Device) its text.
 * JV_ERR_FORMAT, naming the source, the entry (index and op) and the
 * argument, for: not JSON, not an array of objects, a missing op_name or
 * replay_ir, more than JV_MAX_ARGS arguments, an argument that is not what its
 * arg_type says, a tensor with more than JV_MAX_DIMS dims, a negative or
 * non-integer dim or stride (or one past 2^62), strides of another length than
 * the shape, an unknown dtype, or a size that overflows (elements or storage
 * of more than 2^50 bytes), an entry (or a member beside the entries) of more than 1 MiB. The document is
 * split into its entries without a tree and one entry at a time is parsed, so memory is the text, the calls
 * and one entry's tree. JV_ERR_NOMEM on allocation failure. On failure
 * *ir is left zeroed. On success free with jv_ir_free. */
jv_status jv_ir_parse(const char *text, size_t len, const char *source, jv_ir *ir, jv_err *err);

/* Releases a parsed IR (safe on a zeroed one). */
void jv_ir_free(jv_ir *ir);

/* Builds the TraceLens-form entry for call c (its name is the op name):
 * {"op_name": ..., "replay_ir": {"list_pos_args": [...], "list_kwargs": [...]}}
 * with ATen argument names and types from the op families' schemas (the
 * overload that fits the call: argument count, tensor / Scalar / list / str /
 * None per position; arguments after '*' go to list_kwargs), tensors as
 * {"shape", "dtype" (the trace's text), "strides" (dense ones when the trace
 * has none), "init"}, init "normal" for a floating tensor, "zeros" for an
 * integer or bool one (TraceLens' reader refuses "normal" there), null for a
 * tensor the op only writes (copy_'s and fill_'s / zero_'s self, keyword
 * outputs such as out=); absent optionals and unrecorded values null; int,
 * SymInt, ScalarType (its code), Layout and MemoryFormat as JSON integers,
 * bool as JSON bools, int[] / bool[] as lists, str as strings; float and a
 * float Scalar as raw JSON text in Python's repr ("2.0", "1e-05": a cJSON Raw
 * node, so it reads back as a float; non-finite ones as "inf"/"nan" strings).
 * *entry is a cJSON * the caller owns (it may add keys, e.g. "jarvis").
 * JV_ERR_NOTFOUND when no family has a schema of the op; JV_ERR_FORMAT
 * (reason in err) when the call fits none of its overloads or has a tensor
 * jv_ir_parse would refuse (unknown dtype, negative or huge dims or strides,
 * more than 2^50 bytes). */
jv_status jv_ir_entry(const jv_opcall *c, void **entry, jv_err *err);

/* 1 when a family's schemas (jv_family.schemas) know op name (any overload). */
int jv_ir_has_schema(const char *op);

#endif
