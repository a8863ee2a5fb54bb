/*
 * A plain MPI program (never linked with pacoll) for the arrival profiler's
 * tests: run under LD_PRELOAD=libpacoll_preload.so with PACOLL_PROFILE=FILE,
 * then check_profile.py reads FILE.
 *
 * It calls every blocking collective from its own call site, a known number
 * of times (printed as "profile-skew: expect <collective> <comm> <calls>"
 * lines the checker compares with the JSON), and makes two sites whose
 * arrival patterns differ on purpose:
 *   - skewed:   before each MPI_Allreduce / MPI_Alltoall, rank r sleeps
 *               r * SKEW microseconds (argv[1], default SKEW_US: the
 *               oversubscribed real runs take more, so that the skew stands
 *               out of a loaded host's scheduling noise);
 *   - balanced: the same collectives right after an MPI_Barrier.
 * A communicator split off and freed before MPI_Finalize is profiled too
 * (its records are reduced in MPI_Comm_free).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LOOPS = 40, SKEW_US = 4000, N = 64 };

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void expect(int rank, const char *coll, const char *comm, int calls)
{
    if (rank == 0)
        printf("profile-skew: expect %s %s %d\n", coll, comm, calls);
}

/* Each collective once per call, from one call site each. */
static void every_collective(MPI_Comm comm, int rounds)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *a = calloc((size_t)N * size, sizeof(int)), *b = calloc((size_t)N * size, sizeof(int));
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    MPI_Datatype *types = malloc(size * sizeof(MPI_Datatype));
    for (int i = 0; i < size; i++)
        counts[i] = N, displs[i] = i * N, types[i] = MPI_INT;
    int wdispls[64];
    for (int i = 0; i < size && i < 64; i++)
        wdispls[i] = i * N * (int)sizeof(int);
    for (int k = 0; k < rounds; k++) {
        MPI_Barrier(comm);
        MPI_Bcast(a, N, MPI_INT, 0, comm);
        MPI_Reduce(a, b, N, MPI_INT, MPI_SUM, 0, comm);
        MPI_Gather(a, N, MPI_INT, b, N, MPI_INT, 0, comm);
        MPI_Gatherv(a, N, MPI_INT, b, counts, displs, MPI_INT, 0, comm);
        MPI_Scatter(a, N, MPI_INT, b, N, MPI_INT, 0, comm);
        MPI_Scatterv(a, counts, displs, MPI_INT, b, N, MPI_INT, 0, comm);
        MPI_Allgather(a, N, MPI_INT, b, N, MPI_INT, comm);
        MPI_Allgatherv(a, N, MPI_INT, b, counts, displs, MPI_INT, comm);
        MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, comm);
        MPI_Alltoallw(a, counts, wdispls, types, b, counts, wdispls, types, comm);
        MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm);
        MPI_Reduce_scatter_block(a, b, N, MPI_INT, MPI_SUM, comm);
        MPI_Scan(a, b, N, MPI_INT, MPI_SUM, comm);
        MPI_Exscan(a, b, N, MPI_INT, MPI_SUM, comm);
    }
    free(a), free(b), free(counts), free(displs), free(types);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long skew = argc > 1 ? atol(argv[1]) : SKEW_US;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a = calloc((size_t)N * size, sizeof(int)), *b = calloc((size_t)N * size, sizeof(int));
    double x = rank, y = 0;

    /* The skewed site and the balanced one, for allreduce and alltoall. */
    for (int k = 0; k < LOOPS; k++) {
        sleep_us((long)rank * skew);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* skewed */
        sleep_us((long)rank * skew);
        MPI_Alltoall(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD); /* skewed */
    }
    for (int k = 0; k < LOOPS; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* balanced */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Alltoall(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD); /* balanced */
    }
    expect(rank, "allreduce", "MPI_COMM_WORLD", 2 * LOOPS);
    expect(rank, "alltoall", "MPI_COMM_WORLD", 2 * LOOPS);
    expect(rank, "barrier", "MPI_COMM_WORLD", 2 * LOOPS);

    /* Every collective on a duplicate that lives until MPI_Finalize... */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "dup");
    every_collective(dup, 3);
    /* ...and on a split freed before it (reduced inside MPI_Comm_free). */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_set_name(half, rank % 2 ? "odd" : "even");
    every_collective(half, 2);
    MPI_Comm_free(&half);
    const char *colls[] = {"barrier", "bcast", "reduce", "gather", "gatherv", "scatter",
                           "scatterv", "allgather", "allgatherv", "alltoallv", "alltoallw",
                           "reduce_scatter", "reduce_scatter_block", "scan", "exscan"};
    for (size_t i = 0; i < sizeof colls / sizeof *colls; i++) {
        expect(rank, colls[i], "dup", 3);
        expect(rank, colls[i], "even", 2);
        if (size > 1)
            expect(rank, colls[i], "odd", 2);
    }
    MPI_Comm_free(&dup);
    if (rank == 0)
        printf("profile-skew: OK\n");
    fflush(stdout);
    free(a), free(b);
    MPI_Finalize();
    return 0;
}
