/* jv_callstack: `--call-stack UID`: the parent chain of an event and its
 * subtree, with each op's Input Dims and Input type and the kernels below it. */
#ifndef JV_CALLSTACK_H
#define JV_CALLSTACK_H

#include <stdio.h>

#include "jv_ops.h"
#include "jv_trace.h"
#include "jv_tree.h"

/* Prints the chain from the root down to uid, then uid's subtree (at most
 * max_lines lines of it). JV_ERR_NOTFOUND when uid names no complete event. */
jv_status jv_callstack_print(FILE *f, const jv_trace *tr, const jv_tree *t, uint32_t uid, size_t max_lines,
                             jv_err *err);

#endif
