/*
 * family_hello: a plain MPI program built with the OTHER MPI family's mpicc
 * (tests/interpose/CMakeLists.txt), to show that pacoll's preload library
 * refuses to run under an MPI it was not built for, in one line, instead of
 * failing inside the MPI library.  Without the preload it prints its OK line.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, mine, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("family-hello: %s (%d ranks)\n", sum == size * (size + 1) / 2 ? "OK" : "WRONG", size);
    MPI_Finalize();
    return 0;
}
