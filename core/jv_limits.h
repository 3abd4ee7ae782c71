/* jv_limits: the command lines' size arguments ("64M", "2G") and the memory
 * budget (--max-memory): a cap on the process's address space, so that an
 * input too large for the budget ends in the program's own "out of memory"
 * error naming what it was reading, never in the kernel's OOM killer. */
#ifndef JV_LIMITS_H
#define JV_LIMITS_H

#include <stdint.h>

#include "jv_status.h"

/* Parses a size: a number with an optional binary suffix K, M or G (also KiB, MB, ...: 1024-based), e.g. "64M",
 * "1.5G", "1048576". Returns the bytes, or -1 when s is malformed, negative or past 9e18. */
int64_t jv_parse_size(const char *s);

/* Caps the process's address space at bytes (setrlimit RLIMIT_AS, soft and hard): allocations past it fail,
 * and the program's out-of-memory paths report them. The address space includes the program's code, libraries
 * and thread stacks (about 100-300 MiB), so a budget under 256 MiB is refused (JV_ERR_USAGE), as is one above
 * the current hard limit. JV_ERR_IO when the system refuses it. */
jv_status jv_memory_budget_set(int64_t bytes, jv_err *err);

#endif
