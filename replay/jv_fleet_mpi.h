/* jv_fleet_mpi: the MPI transport of a fleet replay (built into jarvis-replay with JV_MPI only). Every
 * exchange of the harness is nonblocking and polled against a deadline, so one hung or dead rank is named
 * in the report instead of hanging the job: rank 0 receives each rank's record and op records by
 * point-to-point MPI_Irecv (a missing rank is known by rank), the others wait for rank 0's verdict with
 * a deadline of their own; on a timeout the caller writes what it has and calls jv_fleet_mpi_abort.
 * Records travel as bytes: every rank runs the same jarvis-replay binary (a homogeneous fleet). */
#ifndef JV_FLEET_MPI_H
#define JV_FLEET_MPI_H

#include "jv_fleet.h"

/* Where a rank runs: known to rank 0 from the start, so that a rank that never reports is named with its node. */
typedef struct {
    char host[64];
    int local_rank;
} jv_fleet_where;

/* Where this process sits in the job. */
typedef struct {
    int rank, size;             /* MPI_COMM_WORLD */
    int local_rank, local_size; /* on its node (MPI_Comm_split_type MPI_COMM_TYPE_SHARED) */
    int split;                  /* 1: the local ranks have the same CPU mask (the launcher did not bind them) */
    char host[64];              /* MPI_Get_processor_name */
    jv_fleet_where *where;      /* every rank's host and local rank (malloc'd; jv_fleet_mpi_finalize frees) */
} jv_fleet_mpi;

/* MPI_Init, the world and node ranks, every rank's host (a nonblocking allgather), and whether the launcher
 * bound the local ranks to CPUs (their mask hashes compared with a nonblocking allgather on the node); each
 * exchange waits timeout_s at most. JV_ERR_IO with MPI's
 * message when MPI fails; JV_ERR_NOTFOUND when the node's ranks do not answer in time. */
jv_status jv_fleet_mpi_init(int *argc, char ***argv, jv_fleet_mpi *w, double timeout_s, jv_err *err);

/* Rank 0: its own record and ops into recs[0] / ops[0], then each other rank's record and op records as
 * they arrive until jv_now() passes deadline; ops[r] is malloc'd (NULL for none). A rank whose record did
 * not arrive, or whose op records did not, is JV_FLEET_MISSING with the reason in .error; *missing counts
 * them. A damaged record (wrong rank, op count out of range) is JV_FLEET_FAILED. JV_ERR_NOMEM. */
jv_status jv_fleet_mpi_collect(const jv_fleet_mpi *w, const jv_fleet_rank *mine, const jv_fleet_op *my_ops,
                               double deadline, jv_fleet_rank *recs, jv_fleet_op **ops, int *missing, jv_err *err);

/* Ranks other than 0: sends its record and op records to rank 0, then waits for the fleet's exit status
 * (*fleet_rc) until deadline. JV_ERR_NOTFOUND when rank 0 did not take them or answer in time. */
jv_status jv_fleet_mpi_send(const jv_fleet_mpi *w, const jv_fleet_rank *mine, const jv_fleet_op *ops, double deadline,
                            int *fleet_rc, jv_err *err);

/* Rank 0: sends the fleet's exit status to every other rank (waits until deadline). JV_ERR_NOTFOUND when
 * a rank does not take it in time. */
jv_status jv_fleet_mpi_finish(const jv_fleet_mpi *w, int rc, double deadline, jv_err *err);

/* Frees w->where; MPI_Finalize. */
void jv_fleet_mpi_finalize(jv_fleet_mpi *w);

/* MPI_Abort of the whole job with exit status code (the launcher ends every rank). Does not return: called by
 * main only, which the rule "only main exits" allows. */
void jv_fleet_mpi_abort(int code);

#endif
