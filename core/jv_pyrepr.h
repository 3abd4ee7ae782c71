/* jv_pyrepr: renders a JSON value's text the way TraceLens prints trace
 * arguments (Python's str() of the value with lists turned into tuples), so
 * that ops_unique_args keys match TraceLens' spelling: [[512],[141,512]] ->
 * "((512,), (141, 512))", ["", "1"] -> "('', '1')". */
#ifndef JV_PYREPR_H
#define JV_PYREPR_H

#include <stddef.h>

#include "jv_status.h"

/* Converts the JSON text json[0..n) into Python tuple-repr text in a malloc'd,
 * NUL-terminated string (*out). JV_ERR_FORMAT when the text is not valid JSON. */
jv_status jv_pyrepr(const char *json, size_t n, char **out);

/* Like jv_pyrepr, but JSON arrays stay Python lists ("[[512], [141, 512]]"),
 * as TraceLens prints args in its per-family sheets. */
jv_status jv_pyrepr_list(const char *json, size_t n, char **out);

/* Returns Python's repr() of the UTF-8 string s (quotes included) in a malloc'd
 * string, or NULL when out of memory. */
char *jv_pyrepr_quote(const char *s);

#endif
