/*
 * MPI-4's persistent collectives, where the MPI library has them (the build
 * checks for MPI_Alltoall_init; CMakeLists.txt leaves this file out
 * elsewhere).  MPI_<coll>_init makes a request pacoll starts itself when
 * the call is one a nonblocking call would run on pacoll's algorithm
 * (api/nonblocking.c): its set-up (the team, the choice, the checks) is done
 * once, at the initialization, which is collective.  The request the caller
 * holds is the library's own persistent receive, which pacoll completes when
 * a start's algorithm ends, so every completion call (C or Fortran, arrays
 * mixed with the library's requests) takes it.  MPI_Start, MPI_Startall and
 * MPI_Request_free start and free pacoll's; any other request goes to the
 * library untouched.
 */
#include <mpi.h>

#include "api/api.h"

#define PC_C_PWRAPPER(lower, Camel, UPPER, shape)                                             \
    PC_EXPORT int MPI_##Camel##_init(PC_PARAMS_##shape, MPI_Info info,                        \
                                     MPI_Request *request)                                    \
    {                                                                                         \
        pc_mpi_call_t call = {PC_CALL_##shape(PACOLL_##UPPER, "MPI_" #Camel "_init")};        \
        int rc = pc_api_pinit(&call, request, PC_CALLER);                                     \
        return rc == PC_API_HAND_OVER ? PMPI_##Camel##_init(PC_ARGS_##shape, info, request)   \
                                      : rc;                                                   \
    }
PC_COLLS(PC_C_PWRAPPER)
#undef PC_C_PWRAPPER

PC_EXPORT int MPI_Start(MPI_Request *request)
{
    int rc = pc_api_persistent_any() ? pc_api_pstart(request) : PC_API_HAND_OVER;
    return rc == PC_API_HAND_OVER ? PMPI_Start(request) : rc;
}

PC_EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
    if (!pc_api_persistent_any())
        return PMPI_Startall(count, requests);
    int first = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        int rc = pc_api_pstart(&requests[i]);
        if (rc == PC_API_HAND_OVER)
            rc = PMPI_Start(&requests[i]);
        if (rc != MPI_SUCCESS && first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}

PC_EXPORT int MPI_Request_free(MPI_Request *request)
{
    int rc = pc_api_persistent_any() ? pc_api_prequest_free(request) : PC_API_HAND_OVER;
    return rc == PC_API_HAND_OVER ? PMPI_Request_free(request) : rc;
}
