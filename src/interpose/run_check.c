/*
 * pacoll-run's evidence that the preload library reached the ranks: why this
 * file exists.
 *
 * A preload that does not happen is silent: with a wrong LD_PRELOAD (a bare
 * library name, a launcher that does not pass the variable on, a static or
 * setuid program) the dynamic linker at most prints a warning on some rank's
 * stderr and the job runs with the MPI library's collectives.  pacoll-run
 * (tools/run/pacoll-run.in) therefore sets PACOLL_RUN_CHECK to a fresh
 * directory; every process that loads libpacoll_preload.so writes one file
 * there, HOST.PID, holding "loaded" at load time and, at exit, "mpi" when the
 * process called MPI_Init (MPI_Initialized is true, also after
 * MPI_Finalize) or "no-mpi" when it did not.  After the job pacoll-run warns
 * when no file appeared (pacoll was not loaded) or none says "mpi" (the
 * program is not an MPI program).
 *
 * Without PACOLL_RUN_CHECK nothing happens (one getenv at load time).  The
 * exit hook runs before the MPI library's own destructors (the preload
 * library depends on it, so it is finalised first), and only in the process
 * that wrote the file, not in a forked child.  Only in the preload library:
 * libpacoll.so and SMPI builds compile this to nothing.
 */
#include <mpi.h>

#if !defined(PACOLL_PRELOAD) || defined(SMPI_H) || defined(SMPI_HELPERS_H) || defined(PACOLL_SMPI)

typedef int pacoll_run_check_disabled; /* ISO C forbids an empty file */

#else

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static char marker[PATH_MAX];
static pid_t marker_pid;

static void append(const char *path, const char *mode, const char *word)
{
    FILE *f = fopen(path, mode);
    if (f) {
        fputs(word, f);
        fclose(f);
    }
}

__attribute__((constructor)) static void pc_run_check_loaded(void)
{
    const char *dir = getenv("PACOLL_RUN_CHECK");
    char host[256] = "";
    if (!dir || !*dir)
        return;
    gethostname(host, sizeof host - 1);
    int n = snprintf(marker, sizeof marker, "%s/%s.%ld", dir, host, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof marker) {
        marker[0] = '\0';
        return;
    }
    marker_pid = getpid();
    append(marker, "w", "loaded\n");
}

__attribute__((destructor)) static void pc_run_check_exit(void)
{
    int initialized = 0;
    if (!marker[0] || getpid() != marker_pid)
        return;
    if (PMPI_Initialized(&initialized) != MPI_SUCCESS)
        initialized = 0;
    append(marker, "a", initialized ? "mpi\n" : "no-mpi\n");
}

#endif
