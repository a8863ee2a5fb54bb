/* A user's program: one alltoall through the installed library, checked. */
#include <pacoll.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int send[64], recv[64];
    for (int p = 0; p < size && p < 64; p++)
        send[p] = rank * 100 + p;
    pacoll_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size && p < 64; p++)
        bad += recv[p] != p * 100 + rank;
    if (rank == 0)
        printf("consumer: pacoll %s, %s\n", pacoll_version(), bad ? "WRONG" : "OK");
    MPI_Finalize();
    return bad != 0;
}
