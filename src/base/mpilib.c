/*
 * Which MPI library runs this process, and which one pacoll was built for.
 * The preload library checks the two against each other before anything
 * else (interpose/family_check.c), and the configuration refuses settings
 * one library version cannot take (core/config.c).
 */
#include "base/internal.h"

#include <ctype.h>

int pc_mpi_built_for(void)
{
#if defined(OPEN_MPI)
    return PC_MPI_OPENMPI;
#elif defined(MPICH_VERSION) || defined(MPICH)
    return PC_MPI_MPICH;
#else
    return PC_MPI_UNKNOWN;
#endif
}

const char *pc_mpi_family_name(int family)
{
    return family == PC_MPI_OPENMPI ? "Open MPI" : family == PC_MPI_MPICH ? "MPICH" : "another MPI";
}

int pc_mpi_running(int *major, int *minor, char *name, size_t len)
{
    /* Larger than any family's MPI_MAX_LIBRARY_VERSION_STRING (MPICH's is
     * 8192, Open MPI's 256): the library that answers may not be the one
     * whose mpi.h this file was compiled with. */
    char v[16384];
    int n = 0;
    v[0] = '\0';
    if (PMPI_Get_library_version(v, &n) != MPI_SUCCESS)
        v[0] = '\0';
    v[sizeof v - 1] = '\0';
    int family = PC_MPI_UNKNOWN, a = 0, b = 0;
    if (!strncmp(v, "Open MPI", 8)) {
        family = PC_MPI_OPENMPI;
        const char *p = strstr(v, " v");
        if (p && sscanf(p + 2, "%d.%d", &a, &b) != 2)
            a = b = 0;
    } else if (!strncmp(v, "MPICH", 5) || !strncmp(v, "MVAPICH", 7) ||
               !strncmp(v, "Intel(R) MPI", 12)) {
        family = PC_MPI_MPICH; /* the MPICH ABI */
    }
    if (major)
        *major = a;
    if (minor)
        *minor = b;
    if (name && len) { /* the first line (Open MPI's up to its first comma), tabs as spaces */
        size_t i = 0;
        for (; v[i] && v[i] != '\n' && i + 1 < len; i++) {
            if (family == PC_MPI_OPENMPI && v[i] == ',')
                break;
            name[i] = isspace((unsigned char)v[i]) ? ' ' : v[i];
        }
        name[i] = '\0';
    }
    return family;
}
