/*
 * MPI_Finalize: the moment to free every team still alive (their windows
 * and communicators) and print PACOLL_STATS.  Both the linked library and
 * the preload library define it (PMPI interposition); SMPI declares MPI_*
 * weak, so it works there too.  The delete callback of MPI_COMM_SELF would
 * be the standard hook, but SMPI no longer has MPI_COMM_WORLD by then.
 */
#include "core/context.h"

PC_EXPORT int MPI_Finalize(void)
{
    pc_context_finalize();
    return PMPI_Finalize();
}
