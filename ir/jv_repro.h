/* jv_repro: reproducer commands for the ops of a replay IR: for each op, the command lines of the AMD vendor
 * tools that run it (hipblaslt-bench / rocblas-bench for GEMM, MIOpenDriver for convolution and batch norm)
 * and a PyTorch snippet that runs it on a CUDA or a ROCm build of PyTorch (tensors with the traced shapes,
 * strides and dtypes, the op call, warm-up, device-event timing, a printed time). The family-specific parts
 * come from each family's reproducer hook (jv_family.repro, filled from the parsed call); this module only
 * assembles them. jarvis-analyze writes the whole document as reproduce.md into the replay package;
 * jarvis-replay --op N --print-repro prints one op's section. */
#ifndef JV_REPRO_H
#define JV_REPRO_H

#include <stddef.h>

#include "jv_ir.h"
#include "jv_repro_cmd.h"
#include "jv_status.h"
#include "jv_strbuf.h"

/* The iteration counts every line asks for: 100 timed after 10 warm-up ones. */
void jv_repro_opts_default(jv_repro_opts *o);

/* Appends the section of IR entry op (heading "## op N: NAME (FAMILY)", N = op->index) to out: the AMD tool
 * lines in a sh block (each command on one line after a comment naming what it runs) or the reason there is
 * none, the NVIDIA note (no vendor command-line tool takes these options), and the PyTorch snippet in a python
 * block. JV_ERR_FORMAT (reason in err) when the entry cannot be parsed or replayed (as jarvis-replay would
 * refuse it), its family has no reproducer hook, an operand name is no Python identifier, or a line does not
 * fit; JV_ERR_NOMEM. Nothing is appended on failure. */
jv_status jv_repro_op(const jv_ir_op *op, const jv_repro_opts *o, jv_strbuf *out, jv_err *err);

/* The whole reproduce.md of ir (malloc'd into *text): a header (what the lines are, the tools' option sources,
 * the NVIDIA note), then one section per op in IR order; an op without a reproducer gets a line with the
 * reason. Sections stop before the text would pass max_bytes (0: no limit): the ops left out are named with
 * the jarvis-replay --print-repro command that prints them. JV_ERR_NOMEM. */
jv_status jv_repro_doc(const jv_ir *ir, const jv_repro_opts *o, size_t max_bytes, char **text, jv_err *err);

#endif
