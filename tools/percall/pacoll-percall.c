/*
 * pacoll-percall: what one call costs on the way through pacoll, on 1 rank
 * (no communication, the per-call path alone): ns per call of PMPI_Alltoall,
 * and of pacoll_alltoall with native, direct and auto, at 0 and 8 bytes;
 * the fastest of SAMPLES samples of CALLS calls (docs/CHECKS.md).
 *
 *   mpirun -np 1 pacoll-percall [CALLS [SAMPLES]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pacoll.h"

static double sample(const char *algo, int n, int calls, char *s, char *r)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        if (!strcmp(algo, "PMPI"))
            PMPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
        else if (!strcmp(algo, "auto"))
            pacoll_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
        else
            pacoll_alltoall_alg(algo, s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) / calls * 1e9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int calls = argc > 1 ? atoi(argv[1]) : 200000, samples = argc > 2 ? atoi(argv[2]) : 5;
    const char *algos[] = {"PMPI", "native", "direct", "auto"};
    char s[64], r[64];
    for (int n = 0; n <= 8; n += 8)
        for (int a = 0; a < 4; a++) {
            double best = 1e30;
            sample(algos[a], n, calls / 10, s, r);
            for (int k = 0; k < samples; k++) {
                double v = sample(algos[a], n, calls, s, r);
                if (v < best) best = v;
            }
            printf("%d B %-7s %.1f ns\n", n, algos[a], best);
        }
    MPI_Finalize();
    return 0;
}
