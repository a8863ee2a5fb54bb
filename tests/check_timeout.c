/*
 * The wait layer's deadline: the last rank never enters the collective, the
 * others must not hang.  With PACOLL_TIMEOUT=2 they abort after 2 s with a
 * message naming the collective, the algorithm and the rank they wait for
 * (ctest matches that message; the job's exit status is MPI_Abort's).
 */
#include <pacoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = calloc((size_t)size * 2, sizeof(int));
    /* one good call first: the team exists and works */
    pacoll_alltoall_alg("direct", buf, 1, MPI_INT, buf + size, 1, MPI_INT, MPI_COMM_WORLD);
    if (rank == size - 1) {
        sleep(30); /* never arrives; killed by the others' abort */
    } else {
        pacoll_alltoall_alg("direct", buf, 1, MPI_INT, buf + size, 1, MPI_INT, MPI_COMM_WORLD);
        printf("check_timeout: FAIL: the collective returned without rank %d\n", size - 1);
    }
    free(buf);
    MPI_Finalize();
    return 1;
}
