/*
 * What the small check_* programs share: a count of checks and failures,
 * a failure line naming the rank, MPI's error class of a return code, and
 * the closing line "PROG: N checks passed, F failed" (summed over ranks,
 * printed by rank 0), which ctest's PASS expressions read.
 */
#ifndef PACOLL_CHECK_UTIL_H
#define PACOLL_CHECK_UTIL_H

#include <mpi.h>
#include <stdio.h>

static const char *check_prog = "check";
static long check_count, check_failed;

static inline void expect_true(const char *what, int ok)
{
    check_count++;
    if (ok)
        return;
    check_failed++;
    int r = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    fprintf(stderr, "%s: FAIL world rank %d: %s\n", check_prog, r, what);
    fflush(stderr);
}

static inline int err_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* Prints the closing line; returns 1 if anything failed on any rank. */
static inline int check_summary(void)
{
    long l[2] = {check_count, check_failed}, g[2];
    int r;
    MPI_Allreduce(l, g, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0) {
        printf("%s: %ld checks passed, %ld failed\n", check_prog, g[0] - g[1], g[1]);
        fflush(stdout);
    }
    return g[1] != 0;
}

#endif
