/* elementwise_internal: what the elementwise sources share: the match and
 * parse entry points of elementwise.c that the family tables of
 * elementwise_model.c name. */
#ifndef JV_ELEMENTWISE_INTERNAL_H
#define JV_ELEMENTWISE_INTERNAL_H

#include "elementwise.h"

jv_match jv_ew_unary_match(const char *op);
jv_match jv_ew_binary_match(const char *op);
jv_status jv_ew_unary_parse(const jv_opcall *c, jv_desc *d, jv_err *err);
jv_status jv_ew_binary_parse(const jv_opcall *c, jv_desc *d, jv_err *err);

#endif
