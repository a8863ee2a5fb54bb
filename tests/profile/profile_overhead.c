/*
 * The profiler's per-call cost (docs/PROFILE.md): a plain MPI program, run
 * with and without LD_PRELOAD=libpacoll_preload.so and PACOLL_PROFILE.
 *
 * usage: profile_overhead [calls]   (default 200000)
 *
 * It times, best of 5 rounds, `calls` calls of
 *   MPI_Barrier(MPI_COMM_SELF), MPI_Allreduce(1 double, MPI_COMM_SELF):
 *       almost free in MPI itself, so the difference between runs is the
 *       wrapper's and the profiler's own cost;
 *   MPI_Barrier(MPI_COMM_WORLD), MPI_Allreduce(1 double, MPI_COMM_WORLD):
 *       the cost relative to a real small collective (noisier).
 * Rank 0 prints one line per case: "profile-overhead: <case> <ns per call>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double best_of(int rounds, long calls, int kind, MPI_Comm comm)
{
    double best = 1e30, x = 1, y = 0;
    for (int r = 0; r < rounds; r++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < calls; i++) {
            if (kind == 0)
                MPI_Barrier(comm);
            else
                MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm);
        }
        double t = (MPI_Wtime() - t0) / (double)calls;
        PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long calls = argc > 1 ? atol(argv[1]) : 200000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct {
        const char *name;
        int kind;
        MPI_Comm comm;
        long calls;
    } cases[] = {{"barrier_self", 0, MPI_COMM_SELF, calls},
                 {"allreduce8_self", 1, MPI_COMM_SELF, calls},
                 {"barrier_world", 0, MPI_COMM_WORLD, calls / 10},
                 {"allreduce8_world", 1, MPI_COMM_WORLD, calls / 10}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double t = best_of(5, cases[c].calls, cases[c].kind, cases[c].comm);
        if (rank == 0)
            printf("profile-overhead: %-17s %8.1f ns/call\n", cases[c].name, t * 1e9);
    }
    MPI_Finalize();
    return 0;
}
