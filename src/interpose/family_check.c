/*
 * The preload library refuses to run under the other MPI family: why this
 * file exists.
 *
 * libpacoll_preload.so is compiled against one MPI's mpi.h, whose handles
 * (MPI_COMM_WORLD, MPI_INT, ...) mean nothing to another MPI: Open MPI's are
 * pointers to its own objects, MPICH's are integers.  Preloaded into a
 * program of the other family (the Open MPI build's library under
 * mpiexec.mpich, or the reverse), the program's MPI library answers pacoll's
 * first call with "Invalid communicator" or MPI_ERR_ARG, or crashes.  So the
 * library asks, when it is loaded, which MPI the process runs
 * (MPI_Get_library_version, callable before MPI_Init; the program's library
 * comes before the preload library's own in symbol lookup) and compares it
 * with the family of its mpi.h.
 *
 * On a mismatch it says so in one line and ends the process (exit status
 * 1) before the program starts.  Handing the calls to the MPI library
 * instead is not safe: every MPI_* and Fortran wrapper of this library
 * would still be entered with the other ABI's handles (4-byte integers
 * where 8-byte pointers are declared) and its Fortran conversions would
 * call the other library's f2c functions; no such run can be trusted.
 * docs/INTERPOSE.md says so.  Only in the preload library: libpacoll.so is
 * linked by the program's own build, and SMPI builds compile this to nothing.
 */
#include <mpi.h>

#if !defined(PACOLL_PRELOAD) || defined(SMPI_H) || defined(SMPI_HELPERS_H) || defined(PACOLL_SMPI)

typedef int pacoll_family_check_disabled; /* ISO C forbids an empty file */

#else

#include <unistd.h>

#include "base/internal.h"

__attribute__((constructor)) static void pc_family_check(void)
{
    int built = pc_mpi_built_for();
    char running_name[256];
    int running = pc_mpi_running(NULL, NULL, running_name, sizeof running_name);
    if (built == PC_MPI_UNKNOWN || running == PC_MPI_UNKNOWN || running == built)
        return;
    fprintf(stderr,
            "pacoll: libpacoll_preload.so is built for %s, but this program runs %s (%s): use the "
            "%s build of pacoll (its pacoll-run or libpacoll_preload.so); stopping before the "
            "program starts\n",
            pc_mpi_family_name(built), pc_mpi_family_name(running), running_name,
            pc_mpi_family_name(running));
    fflush(stderr);
    _exit(1);
}

#endif
