/* jv_fleet_mpi: the fleet's MPI exchanges, each nonblocking and polled against a deadline (jv_fleet_mpi.h). */
#include "jv_fleet_mpi.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jv_progress.h" /* jv_now */

enum { TAG_REC = 7401, TAG_OPS = 7402, TAG_DONE = 7403 };

static void nap(void) {
    struct timespec ts = {0, 1000000}; /* 1 ms between polls */
    nanosleep(&ts, NULL);
}

/* MPI's message for code */
static void mpi_msg(int code, char *buf, size_t cap) {
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) len = 0;
    s[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = 0;
    snprintf(buf, cap, "%s", len ? s : "unknown MPI error");
}

/* polls n requests until all complete (1) or deadline passes (0: those left are still pending) */
static int wait_all(int n, MPI_Request *req, double deadline) {
    for (;;) {
        int done = 0;
        if (MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) return 0;
        if (done) return 1;
        if (jv_now() > deadline) return 0;
        nap();
    }
}

/* cancels and frees the requests still pending (a receive nobody will match) */
static void drop(int n, MPI_Request *req) {
    for (int i = 0; i < n; i++)
        if (req[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&req[i]);
            MPI_Request_free(&req[i]);
        }
}

jv_status jv_fleet_mpi_init(int *argc, char ***argv, jv_fleet_mpi *w, double timeout_s, jv_err *err) {
    memset(w, 0, sizeof *w);
    char m[MPI_MAX_ERROR_STRING + 1];
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) {
        mpi_msg(rc, m, sizeof m);
        JV_FAIL(err, JV_ERR_IO, "fleet: MPI_Init failed: %s", m);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    int hl = 0;
    if (MPI_Get_processor_name(host, &hl) != MPI_SUCCESS) hl = 0;
    host[hl] = 0;
    snprintf(w->host, sizeof w->host, "%.63s", hl ? host : "unknown");
    MPI_Comm node;
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) {
        mpi_msg(rc, m, sizeof m);
        JV_FAIL(err, JV_ERR_IO, "fleet: rank %d: MPI_Comm_split_type (the ranks of a node) failed: %s", w->rank, m);
    }
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(node, &w->local_rank);
    MPI_Comm_size(node, &w->local_size);
    /* the launcher bound the local ranks when their CPU masks differ */
    uint64_t mine = jv_fleet_mask_hash(), *all = calloc((size_t)w->local_size, sizeof *all);
    if (!all) {
        MPI_Comm_free(&node);
        JV_FAIL(err, JV_ERR_NOMEM, "fleet: out of memory");
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int ok = MPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, node, &req) == MPI_SUCCESS &&
             wait_all(1, &req, jv_now() + timeout_s);
    w->split = 1;
    for (int i = 0; ok && i < w->local_size; i++)
        if (all[i] != mine) w->split = 0;
    free(all);
    if (!ok) /* the request cannot be cancelled (a collective): the caller aborts */
        JV_FAIL(err, JV_ERR_NOTFOUND, "fleet: rank %d: the ranks of node %s did not answer within %.0f s", w->rank,
                w->host, timeout_s);
    MPI_Comm_free(&node);
    /* every rank's node, for naming a rank that never reports */
    jv_fleet_where me;
    memset(&me, 0, sizeof me);
    snprintf(me.host, sizeof me.host, "%s", w->host);
    me.local_rank = w->local_rank;
    w->where = calloc((size_t)w->size, sizeof *w->where);
    if (!w->where) JV_FAIL(err, JV_ERR_NOMEM, "fleet: out of memory");
    req = MPI_REQUEST_NULL;
    if (MPI_Iallgather(&me, (int)sizeof me, MPI_BYTE, w->where, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD, &req) !=
            MPI_SUCCESS ||
        !wait_all(1, &req, jv_now() + timeout_s))
        JV_FAIL(err, JV_ERR_NOTFOUND, "fleet: rank %d: the %d ranks did not all answer within %.0f s", w->rank, w->size,
                timeout_s);
    for (int r = 0; r < w->size; r++)
        w->where[r].host[sizeof w->where[r].host - 1] = 0;
    return JV_OK;
}

jv_status jv_fleet_mpi_collect(const jv_fleet_mpi *w, const jv_fleet_rank *mine, const jv_fleet_op *my_ops,
                               double deadline, jv_fleet_rank *recs, jv_fleet_op **ops, int *missing, jv_err *err) {
    int n = w->size;
    *missing = 0;
    recs[0] = *mine;
    ops[0] = NULL;
    if (mine->n_ops > 0) {
        ops[0] = malloc((size_t)mine->n_ops * sizeof **ops);
        if (!ops[0]) JV_FAIL(err, JV_ERR_NOMEM, "fleet: out of memory for %d op records", mine->n_ops);
        memcpy(ops[0], my_ops, (size_t)mine->n_ops * sizeof **ops);
    }
    MPI_Request *rr = malloc(2 * (size_t)n * sizeof *rr), *ro = rr ? rr + n : NULL;
    char *have = calloc((size_t)n, 1); /* 1: record in; 2: ops posted; 3: ops in */
    if (!rr || !have) {
        free(rr);
        free(have);
        JV_FAIL(err, JV_ERR_NOMEM, "fleet: out of memory for %d ranks", n);
    }
    for (int r = 0; r < n; r++) {
        rr[r] = ro[r] = MPI_REQUEST_NULL;
        if (r == 0) continue;
        ops[r] = NULL;
        memset(&recs[r], 0, sizeof recs[r]);
        MPI_Irecv(&recs[r], (int)sizeof recs[r], MPI_BYTE, r, TAG_REC, MPI_COMM_WORLD, &rr[r]);
    }
    have[0] = 3;
    int left = n - 1;
    while (left > 0) {
        int progress = 0;
        for (int r = 1; r < n; r++) {
            int flag = 0;
            if (have[r] == 0 && MPI_Test(&rr[r], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
                progress = have[r] = 1;
                jv_fleet_rank *x = &recs[r];
                if (x->rank != r || x->n_ops < 0 || x->n_ops > JV_FLEET_MAX_OPS) {
                    int claimed = x->rank, nops = x->n_ops;
                    memset(x, 0, sizeof *x);
                    x->state = JV_FLEET_FAILED;
                    snprintf(x->error, sizeof x->error,
                             "a damaged record (it says rank %d, %d ops): a different jarvis-replay binary?", claimed,
                             nops);
                    x->rank = r;
                    x->n_ops = 0;
                }
                x->host[sizeof x->host - 1] = 0; /* strings terminated, whatever came */
                x->error[sizeof x->error - 1] = 0;
                x->device_name[sizeof x->device_name - 1] = 0;
                if (x->n_ops > 0 && !(ops[r] = malloc((size_t)x->n_ops * sizeof **ops))) {
                    x->state = JV_FLEET_FAILED;
                    snprintf(x->error, sizeof x->error, "rank 0 is out of memory for its %d op records", x->n_ops);
                    x->n_ops = 0;
                }
                MPI_Irecv(ops[r], x->n_ops * (int)sizeof **ops, MPI_BYTE, r, TAG_OPS, MPI_COMM_WORLD, &ro[r]);
                have[r] = 2;
            }
            if (have[r] == 2 && MPI_Test(&ro[r], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
                progress = 1;
                have[r] = 3;
                left--;
                for (int j = 0; j < recs[r].n_ops; j++)
                    ops[r][j].label[sizeof ops[r][j].label - 1] = 0;
            }
        }
        if (left > 0 && jv_now() > deadline) break;
        if (!progress) nap();
    }
    for (int r = 1; r < n; r++) {
        if (have[r] == 3) continue;
        jv_fleet_rank *x = &recs[r];
        if (have[r] < 2) {
            memset(x, 0, sizeof *x);
            x->rank = r;
            x->size = n;
            x->local_rank = w->where[r].local_rank;
            x->device = -1;
            snprintf(x->host, sizeof x->host, "%s", w->where[r].host);
            snprintf(x->error, sizeof x->error, "no record reached rank 0 before the deadline (hung, dead or slow)");
        } else {
            snprintf(x->error, sizeof x->error, "its record came, its %d op records did not before the deadline",
                     x->n_ops);
        }
        x->state = JV_FLEET_MISSING;
        x->n_ops = 0;
        free(ops[r]);
        ops[r] = NULL;
        (*missing)++;
    }
    drop(n, rr);
    drop(n, ro);
    free(rr);
    free(have);
    return JV_OK;
}

jv_status jv_fleet_mpi_send(const jv_fleet_mpi *w, const jv_fleet_rank *mine, const jv_fleet_op *ops, double deadline,
                            int *fleet_rc, jv_err *err) {
    MPI_Request req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int rc = 1;
    MPI_Isend(mine, (int)sizeof *mine, MPI_BYTE, 0, TAG_REC, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(ops, mine->n_ops * (int)sizeof *ops, MPI_BYTE, 0, TAG_OPS, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(&rc, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD, &req[2]);
    if (!wait_all(3, req, deadline)) {
        int sent = req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL;
        JV_FAIL(err, JV_ERR_NOTFOUND, "fleet: rank %d: rank 0 %s within the deadline", w->rank,
                sent ? "took the results but sent no verdict" : "did not take the results");
    }
    *fleet_rc = rc;
    return JV_OK;
}

jv_status jv_fleet_mpi_finish(const jv_fleet_mpi *w, int rc, double deadline, jv_err *err) {
    int n = w->size;
    MPI_Request *req = malloc((size_t)(n > 1 ? n : 1) * sizeof *req);
    if (!req) JV_FAIL(err, JV_ERR_NOMEM, "fleet: out of memory");
    req[0] = MPI_REQUEST_NULL;
    for (int r = 1; r < n; r++)
        MPI_Isend(&rc, 1, MPI_INT, r, TAG_DONE, MPI_COMM_WORLD, &req[r]);
    int ok = wait_all(n, req, deadline);
    free(req);
    if (!ok) JV_FAIL(err, JV_ERR_NOTFOUND, "fleet: a rank did not take the fleet's verdict within the deadline");
    return JV_OK;
}

void jv_fleet_mpi_finalize(jv_fleet_mpi *w) {
    free(w->where);
    w->where = NULL;
    MPI_Finalize();
}

void jv_fleet_mpi_abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    abort(); /* MPI_Abort does not return; should it, end here all the same */
}
