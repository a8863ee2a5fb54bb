/*
 * PMPI wrappers for the arrival profiler (PACOLL_PROFILE=FILE): every other
 * blocking collective of MPI-3, plus MPI_Init / MPI_Init_thread for the
 * start-up clock synchronisation.  The four collectives pacoll implements are
 * profiled inside pacoll's own entry points (c_wrappers.c -> pc_api_*), so an
 * LD_PRELOADed program gets every collective call it makes profiled.
 *
 * Each wrapper stamps the arrival, calls PMPI_*, stamps the exit and, only
 * when profiling is on and the call succeeded, records it with the caller's
 * return address and its message size (computed after the exit stamp).
 * With PACOLL_PROFILE unset a wrapper costs one attribute lookup on
 * MPI_COMM_SELF (docs/PROFILE.md has the measured cost).
 *
 * Compiled into libpacoll_preload.so (like c_wrappers.c), never into
 * libpacoll.so: a program linking pacoll for pacoll_* keeps the MPI
 * library's own MPI_Bcast and friends untouched.  Under SMPI, where
 * LD_PRELOAD does not reach, the same wrappers form libpacoll_interpose.a,
 * which a program links whole (docs/PROFILE.md).  Not covered: the
 * nonblocking (MPI_I*), persistent (MPI_*_init) and neighbourhood
 * collectives, and Fortran callers of anything but the four (fortran.c).
 */
#include <mpi.h>

#include "profile/profile.h"

/* The body of every wrapper: stamp, call, stamp, record. */
#define PC_PROFILED(kind, comm, call, bytes)                                          \
    do {                                                                              \
        pc_prof_stamp_t s_;                                                           \
        pc_prof_begin(&s_, comm);                                                     \
        int rc_ = call;                                                               \
        pc_prof_exit(&s_);                                                            \
        if (s_.prof && rc_ == MPI_SUCCESS)                                            \
            pc_prof_record(&s_, kind, comm, __builtin_return_address(0), bytes);      \
        return rc_;                                                                   \
    } while (0)

PC_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        pc_prof_init();
    return rc;
}

PC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        pc_prof_init();
    return rc;
}

PC_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_BARRIER, comm, PMPI_Barrier(comm), 0);
}

PC_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
                        MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_BCAST, comm, PMPI_Bcast(buf, count, type, root, comm),
                pc_prof_bytes_count(count, type));
}

PC_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_REDUCE, comm, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm),
                pc_prof_bytes_count(count, type));
}

PC_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_ALLREDUCE, comm, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm),
                pc_prof_bytes_count(count, type));
}

PC_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_GATHERV, comm,
                PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             root, comm),
                pc_prof_bytes_gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root,
                                      comm));
}

PC_EXPORT int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_SCATTER, comm,
                PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm),
                pc_prof_bytes_scatter(recvbuf, recvcount, recvtype, sendcount, sendtype));
}

PC_EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                           const int displs[], MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int root, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_SCATTERV, comm,
                PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                              root, comm),
                pc_prof_bytes_scatterv(recvbuf, recvcount, recvtype, sendcounts, sendtype, root,
                                       comm));
}

PC_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_ALLGATHERV, comm,
                PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype, comm),
                pc_prof_bytes_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype,
                                         comm));
}

PC_EXPORT int MPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_ALLTOALLW, comm,
                PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm),
                pc_prof_bytes_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes,
                                        comm));
}

PC_EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                 const int recvcounts[], MPI_Datatype type,
                                 MPI_Op op, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_REDUCE_SCATTER, comm,
                PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm),
                pc_prof_bytes_reduce_scatter(recvcounts, type, comm));
}

PC_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                       int recvcount, MPI_Datatype type, MPI_Op op,
                                       MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_REDUCE_SCATTER_BLOCK, comm,
                PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm),
                pc_prof_bytes_count(recvcount, type));
}

PC_EXPORT int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_SCAN, comm, PMPI_Scan(sendbuf, recvbuf, count, type, op, comm),
                pc_prof_bytes_count(count, type));
}

PC_EXPORT int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    PC_PROFILED(PC_PROF_EXSCAN, comm, PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm),
                pc_prof_bytes_count(count, type));
}
