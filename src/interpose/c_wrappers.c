/*
 * PMPI interposition for C callers: why this file exists.
 *
 * An unchanged C (or C++) MPI program reaches pacoll through
 * LD_PRELOAD=libpacoll_preload.so: the dynamic linker resolves the program's
 * calls to MPI_Alltoall, MPI_Alltoallv, MPI_Allgather and MPI_Gather to the
 * definitions below instead of the MPI library's, made from the table of
 * api/colls.h.  Each one is PC_API_ENTER (api.h) with the caller's address,
 * which the profiler records: it takes the plain way first (a call of a
 * shape the rules already gave to the MPI library goes straight to PMPI_*,
 * with no call of pacoll's between), else decides whether one of pacoll's
 * algorithms runs or the call goes to the MPI library through PMPI_* (the
 * profiling names, which these wrappers never shadow).
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

#define PC_C_WRAPPER(lower, Camel, UPPER, shape)                                \
    PC_EXPORT int MPI_##Camel(PC_PARAMS_##shape)                                \
    {                                                                           \
        PC_API_ENTER(lower, Camel, UPPER, shape, "MPI_" #Camel, NULL, PC_CALLER);  \
    }
PC_COLLS(PC_C_WRAPPER)
#undef PC_C_WRAPPER

/* The nonblocking calls (api/nonblocking.c): pacoll's algorithm on a fiber
 * where the MPI library lets pacoll into its progress, else the library's. */
#define PC_C_IWRAPPER(lower, Camel, UPPER, shape)                                          \
    PC_EXPORT int MPI_I##lower(PC_PARAMS_##shape, MPI_Request *request)                    \
    {                                                                                      \
        pc_mpi_call_t call = {PC_CALL_##shape(PACOLL_##UPPER, "MPI_I" #lower)};            \
        return pc_api_icall(&call, request, PC_CALLER);                                    \
    }
PC_COLLS(PC_C_IWRAPPER)
#undef PC_C_IWRAPPER

/* ---- info hints (api/hints.c) ---- */

PC_EXPORT int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    int rc = PMPI_Comm_set_info(comm, info);
    return rc == MPI_SUCCESS ? pc_api_hints_set("MPI_Comm_set_info", comm, info, 0) : rc;
}

PC_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    return rc == MPI_SUCCESS ? pc_api_hints_set("MPI_Comm_dup_with_info", *newcomm, info, 1) : rc;
}

PC_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
                                  MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    return rc == MPI_SUCCESS ? pc_api_hints_set("MPI_Comm_split_type", *newcomm, info, 1) : rc;
}

PC_EXPORT int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int rc = PMPI_Comm_get_info(comm, info_used);
    return rc == MPI_SUCCESS ? pc_api_hints_get(comm, *info_used) : rc;
}
