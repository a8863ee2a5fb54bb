/*
 * PMPI interposition for C callers: why this file exists.
 *
 * An unchanged C (or C++) MPI program reaches pacoll through
 * LD_PRELOAD=libpacoll_preload.so: the dynamic linker resolves the program's
 * calls to MPI_Alltoall, MPI_Alltoallv, MPI_Allgather and MPI_Gather to the
 * definitions below instead of the MPI library's.  Each one takes the plain
 * way first (api.h pc_api_plain: a call of a shape the rules already gave to
 * the MPI library goes straight to PMPI_*, with no call of pacoll's between),
 * else forwards to the matching pacoll entry point (pc_api_*: pacoll_* plus
 * the caller's address, which the profiler records), which decides whether
 * one of its algorithms runs or the call goes to the MPI library through
 * PMPI_* (the profiling names, which these wrappers never shadow).
 *
 * This file is compiled into libpacoll_preload.so only (the build defines
 * PACOLL_PRELOAD=1 there): libpacoll.so must not define MPI_* names, or a
 * program that links it for pacoll_* would lose the MPI library's own
 * collectives.  The library builds with hidden visibility, so every wrapper
 * is exported explicitly.  The signatures are MPI-3's (const input buffers
 * and arrays), as Open MPI's, MPICH's and SimGrid SMPI's mpi.h declare them.
 * MPI_Finalize is not here: the library core defines it (statistics, then
 * PMPI_Finalize).  Fortran callers need their own entry points: fortran.c.
 *
 * The communicator calls that carry info hints are here too: pacoll reads
 * its own keys (pacoll_<coll>, api/hints.c) after the MPI library has done
 * the call, and adds them to what MPI_Comm_get_info reports.
 */
#include <mpi.h>

#include "api/api.h"

#define PACOLL_INTERPOSE_EXPORT __attribute__((visibility("default")))
/* The application's call site, for the profiler (PACOLL_PROFILE). */
#define PC_CALLER __builtin_return_address(0)

PACOLL_INTERPOSE_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm)
{
    if (pc_api_plain(comm, PACOLL_ALLTOALL, sendbuf, sendcount, sendtype, recvcount, recvtype, 0))
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return pc_api_alltoall(PC_CALLER, "MPI_Alltoall", NULL, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount,
                           recvtype, comm);
}

PACOLL_INTERPOSE_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                                          const int sdispls[], MPI_Datatype sendtype,
                                          void *recvbuf, const int recvcounts[],
                                          const int rdispls[], MPI_Datatype recvtype,
                                          MPI_Comm comm)
{
    if (pc_api_plain(comm, PACOLL_ALLTOALLV, sendbuf, 0, sendtype, 0, recvtype, 0))
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    return pc_api_alltoallv(PC_CALLER, "MPI_Alltoallv", NULL, sendbuf, sendcounts, sdispls,
                            sendtype, recvbuf,
                            recvcounts, rdispls, recvtype, comm);
}

PACOLL_INTERPOSE_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount,
                                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                          MPI_Datatype recvtype, MPI_Comm comm)
{
    if (pc_api_plain(comm, PACOLL_ALLGATHER, sendbuf, sendcount, sendtype, recvcount, recvtype, 0))
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return pc_api_allgather(PC_CALLER, "MPI_Allgather", NULL, sendbuf, sendcount, sendtype,
                            recvbuf, recvcount,
                            recvtype, comm);
}

PACOLL_INTERPOSE_EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       int root, MPI_Comm comm)
{
    if (pc_api_plain(comm, PACOLL_GATHER, sendbuf, sendcount, sendtype, recvcount, recvtype, root))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return pc_api_gather(PC_CALLER, "MPI_Gather", NULL, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount,
                         recvtype, root, comm);
}

/* ---- info hints (api/hints.c) ---- */

PACOLL_INTERPOSE_EXPORT int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    int rc = PMPI_Comm_set_info(comm, info);
    return rc == MPI_SUCCESS ? pc_api_hints_set("MPI_Comm_set_info", comm, info, 0) : rc;
}

PACOLL_INTERPOSE_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    return rc == MPI_SUCCESS ? pc_api_hints_set("MPI_Comm_dup_with_info", *newcomm, info, 1) : rc;
}

PACOLL_INTERPOSE_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
                                                MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    return rc == MPI_SUCCESS ? pc_api_hints_set("MPI_Comm_split_type", *newcomm, info, 1) : rc;
}

PACOLL_INTERPOSE_EXPORT int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int rc = PMPI_Comm_get_info(comm, info_used);
    return rc == MPI_SUCCESS ? pc_api_hints_get(comm, *info_used) : rc;
}
