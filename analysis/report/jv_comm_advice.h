/* jv_comm_advice: the fair report's texts of the exposed-communication advice, chosen from the evidence of
 * model/jv_comm_evidence.h (jv_digest.comm) and the findings' split of that item (jv_ftimeline.comm_*). */
#ifndef JV_COMM_ADVICE_H
#define JV_COMM_ADVICE_H

#include "jv_findings_model.h"
#include "jv_standalone.h"

/* Appends printf-formatted text to r->issue, whose first n bytes are written; returns the new length (capped at
 * the buffer's end). */
int jv_rec_issue_cat(jv_rec_text *r, int n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The recommendation (title, issue, action, impact, confidence, link, gain) of part p of the exposed
 * communication, JV_COMM_DDP_BUFFERS or JV_COMM_WAIT, into r (zeroed by the caller). */
void jv_comm_part_rec(const jv_digest *d, const jv_ftimeline *tl, jv_comm_part p, jv_rec_text *r);

/* The exposed-communication recommendation's evidence appended to r->issue from n (the parts advised apart, the
 * parts too small for that, the uniform rate of the largest bandwidth-bound size); returns the new length. */
int jv_comm_rest_issue(const jv_digest *d, const jv_ftimeline *tl, jv_rec_text *r, int n);

/* The nccl-tests (rccl-tests) binary that measures collective kind k ("all_reduce_perf", ...). */
const char *jv_nccl_test(jv_coll_kind k);

#endif
