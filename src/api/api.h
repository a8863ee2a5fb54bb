/*
 * The api layer: argument checks with MPI's error classes, datatype and
 * MPI_IN_PLACE handling (turning an MPI call into byte-level pc_args_t),
 * algorithm choice, counters, and the hand-off to the MPI library.
 */
#ifndef PACOLL_API_H
#define PACOLL_API_H

#include "core/context.h"
#include "core/team.h"

/* The user's call, as MPI describes it (any collective). */
typedef struct pc_mpi_call {
    pacoll_coll_t coll;
    const char *where; /* the call the user made, for messages: "MPI_Alltoall" */
    const void *sendbuf;
    int sendcount;
    const int *sendcounts, *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    const int *recvcounts, *rdispls;
    MPI_Datatype recvtype;
    int root;
    MPI_Comm comm;
} pc_mpi_call_t;

/* Byte-level arguments plus the temporaries that hold them. */
typedef struct pc_norm {
    pc_args_t args;
    void *stmp, *rtmp;   /* packed send data, packed receive area (or NULL) */
    size_t *vec;         /* alltoallv: counts and displacements in bytes */
    size_t sent;         /* bytes this rank sends, for PACOLL_STATS */
} pc_norm_t;

/* Reports an error through comm's error handler and returns it; the
 * message goes to stderr unless the handler is MPI_ERRORS_RETURN (then
 * only with PACOLL_VERBOSE), or when always is set.  Every message starts
 * with the call the user made ("MPI_Alltoall: ..."): the MPI library's
 * handler names only MPI_Comm_call_errhandler. */
int pc_raise(MPI_Comm comm, int code, int always, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A check's verdict: the error class (MPI_SUCCESS when the call is
 * legal) and what is wrong; probe_comm is a communicator whose error
 * handler returns, for the checks the MPI library makes for pacoll. */
typedef struct pc_check {
    int code;
    int always; /* say it even under MPI_ERRORS_RETURN */
    MPI_Comm probe_comm;
    char msg[PC_MSG_LEN];
} pc_check_t;

/* Checks a call on an intracommunicator of size ranks; nothing raised. */
int pc_check_call(const pc_mpi_call_t *call, int size, int rank, pc_check_t *ck);

/* Bytes per block (alltoall, allgather, gather) as every rank sees it. */
size_t pc_block_bytes(const pc_mpi_call_t *call, int rank);
/* The count and type pc_block_bytes measures: the send side, else (in
 * place; gather: at the root) the receive side. */
static inline void pc_block_arg(const pc_mpi_call_t *c, int rank, int *count, MPI_Datatype *dt)
{
    int use_recv = c->sendbuf == MPI_IN_PLACE && (c->coll != PACOLL_GATHER || rank == c->root);
    *count = use_recv ? c->recvcount : c->sendcount;
    *dt = use_recv ? c->recvtype : c->sendtype;
}
/* Builds byte-level arguments; pc_norm_finish unpacks and frees. */
int pc_normalize(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n);
int pc_norm_finish(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n, int ok);

/* The info hints pacoll_<coll> (hints.c): taken from info for comm, where
 * is the MPI call for messages.  replace: the hints not in info become
 * automatic (MPI_Comm_dup_with_info, MPI_Comm_split_type), else they keep
 * their values (MPI_Comm_set_info).  _get adds comm's to info. */
int pc_api_hints_set(const char *where, MPI_Comm comm, MPI_Info info, int replace);
int pc_api_hints_get(MPI_Comm comm, MPI_Info info);

/* The plain way (docs/TUNE.md, "The per-call cost"): a call that went to the MPI
 * library without being named at its call site goes there again without
 * dispatch's look-ups, when the team has nothing to profile, report, count
 * or settle.  t->plain[coll] says when: PC_PLAIN_SAME_M while the rules
 * gave that size to the MPI library (the pick cache holds it), PC_PLAIN_ANY
 * when every call does (PACOLL_<COLL>=native, the communicator's choice, or
 * an alltoallv choice that looked at no size).  api.c's dispatch sets it
 * after such a call and clears it at every other; pacoll_comm_set_algorithm
 * clears it. */
enum { PC_PLAIN_NO, PC_PLAIN_SAME_M, PC_PLAIN_ANY };

/* A named type's count and handle as the plain mark's (pc_block_arg). */
static inline int pc_plain_known_block(const pacoll_team_t *t, const pc_mpi_call_t *c,
                                       int *count, MPI_Datatype *dt)
{
    pc_block_arg(c, t->rank, count, dt);
    return *dt == t->plain_type[c->coll] && *count == t->plain_count[c->coll];
}

/* A plain call begins: nothing pending on the verdict (else 0: dispatch
 * settles it).  Nothing to count: PACOLL_STATS keeps calls off the plain
 * way (api.c plain_how). */
static inline int pc_plain_begin(pacoll_team_t *t)
{
    return pc_verdict_begin_quiet(&t->verdict);
}

/* The plain way taken before the call is even described: the team from
 * the context's cache (pc_team_find fills it), marked plain for this
 * collective, for this block when the mark says so (its count and named
 * type, api.c plain_same_block), with nothing pending on the verdict; the
 * caller then calls PMPI_<coll> itself.  Inline, so the MPI_* wrappers
 * (interpose/) take it without a call of their own.  NULL: the call takes
 * pc_api_<coll>, which handles every other case. */
static inline pacoll_team_t *pc_api_plain(MPI_Comm comm, pacoll_coll_t coll,
                                          const void *sendbuf, int sendcount,
                                          MPI_Datatype sendtype, int recvcount,
                                          MPI_Datatype recvtype, int root)
{
    pc_context_t *ctx = pc_context_now();
    if (!ctx)
        return NULL;
    const pc_team_slot_t *s = pc_context_slot(ctx, comm);
    pacoll_team_t *t = s->team;
    if (!t || s->comm != comm || !t->plain[coll])
        return NULL;
    if (t->plain[coll] == PC_PLAIN_SAME_M) {
        pc_mpi_call_t c = {.coll = coll, .sendbuf = sendbuf, .sendcount = sendcount,
                           .sendtype = sendtype, .recvcount = recvcount, .recvtype = recvtype,
                           .root = root};
        int count;
        MPI_Datatype dt;
        if (!pc_plain_known_block(t, &c, &count, &dt))
            return NULL;
    }
    return pc_plain_begin(t) ? t : NULL;
}

/* The four collectives with the caller's return address, for the profiler,
 * and the name of the call the user made, for messages (a string literal:
 * "MPI_Alltoall", "MPI_ALLTOALL" from Fortran, "pacoll_alltoall"):
 * pacoll_* and the interposition wrappers (C and Fortran) call these. */
int pc_api_alltoall(const void *ra, const char *where, const char *algo, const void *sendbuf,
                    int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm);
int pc_api_alltoallv(const void *ra, const char *where, const char *algo, const void *sendbuf,
                     const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm);
int pc_api_allgather(const void *ra, const char *where, const char *algo, const void *sendbuf,
                     int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm);
int pc_api_gather(const void *ra, const char *where, const char *algo, const void *sendbuf,
                  int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm);

#endif
