/*
 * pacoll: fast MPI collectives for multi-core clusters.
 *
 * The four collectives take exactly MPI's arguments and return MPI error codes
 * (through the communicator's error handler, as MPI does).  An application uses
 * them either unchanged (LD_PRELOAD=libpacoll_preload.so, which routes
 * MPI_Alltoall, MPI_Alltoallv, MPI_Allgather and MPI_Gather here) or by calling
 * pacoll_* directly.
 *
 * Algorithm choice, per call: the algorithm named in a pacoll_*_alg call (one
 * call site) > the one set for the communicator (pacoll_comm_set_algorithm) >
 * the environment (PACOLL_ALLTOALL=name ...) > the selection rules (JSON) >
 * the cost-model default.  "native" is the MPI library's own collective.
 */
#ifndef PACOLL_H
#define PACOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PACOLL_VERSION_MAJOR, _MINOR, _PATCH and PACOLL_VERSION_STRING, from the
 * build's project version; pacoll_version() is the library's own. */
#include "pacoll_version.h"

/* The collectives pacoll implements. */
typedef enum pacoll_coll {
    PACOLL_ALLTOALL = 0,
    PACOLL_ALLTOALLV = 1,
    PACOLL_ALLGATHER = 2,
    PACOLL_GATHER = 3,
    PACOLL_NCOLL = 4
} pacoll_coll_t;

/* What an algorithm needs to run.  An algorithm whose needs a communicator
 * does not meet is never selected automatically; one that is forced there
 * (call site, communicator or environment) is handed to the MPI library
 * instead, and PACOLL_VERBOSE=1 says so. */
enum pacoll_needs {
    PACOLL_NEEDS_NOTHING = 0,
    PACOLL_NEEDS_RMA = 1u << 0,      /* the one-sided channel (windows) */
    PACOLL_NEEDS_SHM = 1u << 1,      /* a node shared-memory segment */
    PACOLL_NEEDS_POW2 = 1u << 2,     /* a power-of-two process count */
    PACOLL_NEEDS_MULTINODE = 1u << 3 /* more than one node to be useful */
};

typedef struct pacoll_algo_info {
    const char *name;    /* as used in PACOLL_<COLL>=name and pacoll_*_alg */
    pacoll_coll_t coll;  /* which collective */
    unsigned needs;      /* bitwise OR of enum pacoll_needs */
    const char *source;  /* paper and section it comes from */
    const char *summary; /* one line: what it does, its cost */
} pacoll_algo_info_t;

/* ---- the collectives (MPI's signatures) ---- */
int pacoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int pacoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int pacoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int pacoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);

/* ---- nonblocking (MPI's MPI_I<coll>): complete with MPI_Wait, MPI_Test and
 * the other completion calls, like any request.  pacoll's algorithm runs on
 * a fiber that the MPI library's progress moves where the library lets it
 * (Open MPI; MPICH 4.2 and later); else the library's own call runs
 * (docs/INTERPOSE.md, "Nonblocking collectives"). */
int pacoll_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int pacoll_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request);
int pacoll_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int pacoll_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request);

/* ---- the same, with the algorithm chosen at this call site ----
 * algo: a registered name for this collective, "native", or NULL/"" for the
 * usual selection.  An unknown name is MPI_ERR_ARG with a message listing the
 * valid ones.  A forced algorithm that cannot run this call (a need unmet, a
 * datatype it cannot pack) is handed to the MPI library and PACOLL_VERBOSE
 * says so once per reason. */
int pacoll_alltoall_alg(const char *algo, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm);
int pacoll_alltoallv_alg(const char *algo, const void *sendbuf, const int sendcounts[],
                         const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm);
int pacoll_allgather_alg(const char *algo, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm);
int pacoll_gather_alg(const char *algo, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm);

/* ---- choosing per communicator ----
 * Sets the algorithm every later call of coll on comm uses (name as above;
 * NULL or "" returns to automatic selection), and on the communicators
 * MPI_Comm_dup makes from comm later.  Local: every rank must set the same
 * name.  Under the preload library, the info hints pacoll_<coll> do the same
 * for an unchanged program (docs/INTERPOSE.md, "Info hints"). */
int pacoll_comm_set_algorithm(MPI_Comm comm, pacoll_coll_t coll, const char *algo);

/* The algorithm the last call of coll on comm actually ran ("native" when it
 * was handed to the MPI library), or "" before the first call. Copies at most
 * len bytes including the terminating NUL. */
int pacoll_comm_last_algorithm(MPI_Comm comm, pacoll_coll_t coll, char *name, int len);

/* ---- the registry ---- */
int pacoll_algorithm_count(void);
/* index in [0, pacoll_algorithm_count()); returns MPI_ERR_ARG out of range. */
int pacoll_algorithm_info(int index, pacoll_algo_info_t *info);
/* "alltoall", "alltoallv", "allgather", "gather"; NULL for an invalid value. */
const char *pacoll_coll_name(pacoll_coll_t coll);
/* Parses a collective's name; returns -1 if unknown. */
int pacoll_coll_from_name(const char *name);

/* ---- version ---- */
const char *pacoll_version(void);

/* ---- finalization ----
 * pacoll frees its per-communicator state and prints PACOLL_STATS inside
 * MPI_Finalize, which it intercepts (PMPI).  Under SimGrid SMPI a program's
 * MPI_Finalize cannot be intercepted (the simulator's own symbol wins), so
 * there this header routes MPI_Finalize to pacoll_mpi_finalize; define
 * PACOLL_NO_FINALIZE_MACRO to prevent that. */
int pacoll_mpi_finalize(void);
#if defined(SMPI_HELPERS_H) && !defined(PACOLL_NO_FINALIZE_MACRO)
#define MPI_Finalize pacoll_mpi_finalize
#endif

#ifdef __cplusplus
}
#endif
#endif /* PACOLL_H */
