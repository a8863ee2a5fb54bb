/*
 * The four collectives' entry points, described once.  Every layer that
 * takes a user's call (the MPI_* and Fortran wrappers in interpose/,
 * pacoll_* and pacoll_*_alg in api.c) and every per-collective switch of
 * the api (the hand-off to the MPI library, the byte counts of
 * PACOLL_STATS and PACOLL_PROFILE) is made from PC_COLLS, so adding an
 * argument or a collective is one edit here.
 *
 * PC_COLLS(X) calls X(lower, Camel, UPPER, shape) per collective: its
 * names as pacoll_<lower>, MPI_<Camel> and PACOLL_<UPPER> spell them, and
 * the shape of its arguments:
 *   BLOCK   one block per peer (alltoall, allgather);
 *   ROOTED  one block per peer, gathered at a root (gather);
 *   VECTOR  counts and displacements per peer (alltoallv).
 * Per shape, PC_PARAMS_<shape> is the C parameter list (MPI-3's, const
 * inputs), PC_ARGS_<shape> passes those parameters on, and
 * PC_CALL_<shape>(coll, where) names every member of a pc_mpi_call_t from
 * them (a partial initializer would make the compiler clear the whole
 * struct first: docs/TUNE.md, "The per-call cost").
 */
#ifndef PACOLL_API_COLLS_H
#define PACOLL_API_COLLS_H

#define PC_COLLS(X)                                 \
    X(alltoall, Alltoall, ALLTOALL, BLOCK)          \
    X(alltoallv, Alltoallv, ALLTOALLV, VECTOR)      \
    X(allgather, Allgather, ALLGATHER, BLOCK)       \
    X(gather, Gather, GATHER, ROOTED)

#define PC_PARAMS_BLOCK                                                                        \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
        MPI_Datatype recvtype, MPI_Comm comm
#define PC_PARAMS_ROOTED                                                                       \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define PC_PARAMS_VECTOR                                                                   \
    const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
        void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,  \
        MPI_Comm comm

#define PC_ARGS_BLOCK sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define PC_ARGS_ROOTED sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#define PC_ARGS_VECTOR \
    sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm

/* The same arguments taken from a call (the hand-off to the MPI library). */
#define PC_CALL_ARGS_BLOCK(call) \
    (call)->sendbuf, (call)->sendcount, (call)->sendtype, (call)->recvbuf, (call)->recvcount, (call)->recvtype, \
        (call)->comm
#define PC_CALL_ARGS_ROOTED(call) \
    (call)->sendbuf, (call)->sendcount, (call)->sendtype, (call)->recvbuf, (call)->recvcount, (call)->recvtype, \
        (call)->root, (call)->comm
#define PC_CALL_ARGS_VECTOR(call)                                                              \
    (call)->sendbuf, (call)->sendcounts, (call)->sdispls, (call)->sendtype, (call)->recvbuf,             \
        (call)->recvcounts, (call)->rdispls, (call)->recvtype, (call)->comm

/* Every member of a pc_mpi_call_t, in order. */
#define PC_CALL_FIELDS(coll_, where_, sbuf, scount, scounts, sdisp, stype, rbuf, rcount, \
                       rcounts, rdisp, rtype, root_, comm_)                             \
    .coll = (coll_), .where = (where_), .sendbuf = (sbuf), .sendcount = (scount),       \
    .sendcounts = (scounts), .sdispls = (sdisp), .sendtype = (stype), .recvbuf = (rbuf), \
    .recvcount = (rcount), .recvcounts = (rcounts), .rdispls = (rdisp),                 \
    .recvtype = (rtype), .root = (root_), .comm = (comm_)

#define PC_CALL_BLOCK(coll, where)                                                          \
    PC_CALL_FIELDS(coll, where, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, \
                   NULL, NULL, recvtype, 0, comm)
#define PC_CALL_ROOTED(coll, where)                                                         \
    PC_CALL_FIELDS(coll, where, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, \
                   NULL, NULL, recvtype, root, comm)
#define PC_CALL_VECTOR(coll, where)                                                          \
    PC_CALL_FIELDS(coll, where, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,     \
                   recvcounts, rdispls, recvtype, 0, comm)

#endif
