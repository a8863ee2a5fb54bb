/*
 * The arrival profiler (PACOLL_PROFILE=FILE): pap-aware paper §3.1.
 *
 * For every profiled collective call the calling rank records, on its own
 * clock, when it arrived and when it left, the call's message size and its
 * call site (collective, communicator, caller's return address).  Per call
 * that is two clock reads, one attribute lookup, a small hash probe and an
 * append into a growing array: nothing is exchanged while the program runs.
 *
 * At MPI_Finalize the records of each communicator are matched call by call
 * (MPI orders the collectives on a communicator identically on every member)
 * and reduced over that communicator: per call ā, d̄ and θ (eq. 1-3), per
 * call site their averages over calls, normalised by T, the time to send one
 * message of the site's average size (a ping-pong measured at finalize).
 * Communicators freed earlier are reduced in their delete callback.  Rank 0
 * writes FILE (JSON) and prints a Table-1-style summary to stderr.
 *
 * Clocks: PMPI_Wtime on every rank, offset against world rank 0 by ping-pong
 * (min round trip of several) after MPI_Init when it is intercepted (the
 * preload library), else at the first profiled call on MPI_COMM_WORLD, and
 * again at MPI_Finalize; offsets in between are interpolated linearly
 * (docs/PROFILE.md).
 *
 * State: a profiler context hangs on MPI_COMM_SELF and a per-communicator
 * record table on each profiled communicator, both as attributes whose
 * keyvals are made once (pthread_once), as for teams (core/context.c).
 */
#ifndef PACOLL_PROFILE_H
#define PACOLL_PROFILE_H

#include <stdint.h>

#include "base/internal.h"

/* Every blocking collective of MPI-3 (the profiler's kinds). */
typedef enum pc_prof_kind {
    PC_PROF_BARRIER,
    PC_PROF_BCAST,
    PC_PROF_REDUCE,
    PC_PROF_ALLREDUCE,
    PC_PROF_GATHER,
    PC_PROF_GATHERV,
    PC_PROF_SCATTER,
    PC_PROF_SCATTERV,
    PC_PROF_ALLGATHER,
    PC_PROF_ALLGATHERV,
    PC_PROF_ALLTOALL,
    PC_PROF_ALLTOALLV,
    PC_PROF_ALLTOALLW,
    PC_PROF_REDUCE_SCATTER,
    PC_PROF_REDUCE_SCATTER_BLOCK,
    PC_PROF_SCAN,
    PC_PROF_EXSCAN,
    PC_PROF_NKINDS
} pc_prof_kind_t;

typedef struct pc_prof pc_prof_t;

/* One call in flight: prof is NULL when profiling is off. */
typedef struct pc_prof_stamp {
    pc_prof_t *prof;
    double arrival, exit; /* local PMPI_Wtime */
} pc_prof_stamp_t;

/* Stamps the arrival (and finds the profiler; s->prof NULL when off). */
void pc_prof_begin(pc_prof_stamp_t *s, MPI_Comm comm);
/* The profiler, NULL when off: an attribute lookup, which a caller that
 * keeps per-communicator state may keep (the api keeps it on the team). */
pc_prof_t *pc_prof_handle(void);
/* pc_prof_begin with the profiler already found (pc_prof_handle). */
void pc_prof_begin_with(pc_prof_stamp_t *s, MPI_Comm comm, pc_prof_t *prof);
/* Stamps the exit: call right after the collective returns. */
static inline void pc_prof_exit(pc_prof_stamp_t *s)
{
    if (s->prof)
        s->exit = PMPI_Wtime();
}
/* Appends the call to comm's records (only when s->prof; only for calls
 * that succeeded).  bytes: the call's message size (pc_prof_bytes_*). */
void pc_prof_record(const pc_prof_stamp_t *s, pc_prof_kind_t kind, MPI_Comm comm, const void *ra,
                    double bytes);

/* After PMPI_Init(_thread): the start-up clock synchronisation (collective
 * over MPI_COMM_WORLD), when PACOLL_PROFILE is set. */
void pc_prof_init(void);
/* In MPI_Finalize, before pacoll frees its teams: reduce, write, free. */
void pc_prof_finalize(void);

/* The collective's name as MPI spells it after "MPI_", lower case. */
const char *pc_prof_kind_name(pc_prof_kind_t kind);

/* ---- message sizes: the block one process contributes per peer (the
 * paper's "collective payload"), in bytes (profile/bytes.c) ---- */
double pc_prof_bytes_count(int count, MPI_Datatype type);
double pc_prof_bytes_block(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           int recvcount, MPI_Datatype recvtype);
double pc_prof_bytes_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             const int *recvcounts, MPI_Datatype recvtype, int root,
                             MPI_Comm comm);
double pc_prof_bytes_scatter(const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             int sendcount, MPI_Datatype sendtype);
double pc_prof_bytes_scatterv(const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              const int *sendcounts, MPI_Datatype sendtype, int root,
                              MPI_Comm comm);
double pc_prof_bytes_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                const int *recvcounts, MPI_Datatype recvtype, MPI_Comm comm);
double pc_prof_bytes_vector(const void *sendbuf, const int *sendcounts, MPI_Datatype sendtype,
                            const int *recvcounts, MPI_Datatype recvtype, MPI_Comm comm);
double pc_prof_bytes_alltoallw(const void *sendbuf, const int *sendcounts,
                               const MPI_Datatype *sendtypes, const int *recvcounts,
                               const MPI_Datatype *recvtypes, MPI_Comm comm);
double pc_prof_bytes_reduce_scatter(const int *recvcounts, MPI_Datatype type, MPI_Comm comm);

#endif
