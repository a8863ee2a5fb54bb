/*
 * MPI_Finalize: the moment to free every team still alive (their windows
 * and communicators) and print PACOLL_STATS.  Both the linked library and
 * the preload library define it (PMPI interposition); SMPI declares MPI_*
 * weak, but the simulator's own definition wins at run time, so there
 * pacoll.h maps MPI_Finalize to pacoll_mpi_finalize.  The delete callback
 * of MPI_COMM_SELF would be the standard hook, but SMPI no longer has
 * MPI_COMM_WORLD by then.
 */
#define PACOLL_NO_FINALIZE_MACRO 1
#include "core/context.h"
#include "profile/profile.h"

PC_EXPORT int pacoll_mpi_finalize(void)
{
    pc_prof_finalize(); /* PACOLL_PROFILE: needs MPI_COMM_WORLD, before the teams go */
    pc_context_finalize();
    return PMPI_Finalize();
}

PC_EXPORT int MPI_Finalize(void) { return pacoll_mpi_finalize(); }
