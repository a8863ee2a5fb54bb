/*
 * The wait layer's deadline.
 *
 * Default: the last rank never enters the collective, the others must not
 * hang.  With PACOLL_TIMEOUT=2 they abort after 2 s with a message naming
 * the collective, the algorithm and the rank they wait for (ctest matches
 * that message; the job's exit status is MPI_Abort's).  Under SMPI the 2 s
 * are simulated (the late rank's sleep is simulated too).
 *
 * "real-time-only" (SMPI only): the last rank spends 3 s of real time and
 * no simulated time before it comes, while the others wait.  The deadline is
 * simulated time there (one process simulates every rank, so a wait lasts
 * the wall time of simulating the others), so nobody may abort.
 */
#include <pacoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double real_now(void)
{
    struct timespec ts;
    (clock_gettime)(CLOCK_MONOTONIC, &ts); /* parenthesised: not SMPI's macro */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int real_time_only = argc > 1 && strcmp(argv[1], "real-time-only") == 0;
    int *buf = calloc((size_t)size * 2, sizeof(int));
    /* one good call first: the team exists and works */
    pacoll_alltoall_alg("direct", buf, 1, MPI_INT, buf + size, 1, MPI_INT, MPI_COMM_WORLD);
    if (real_time_only) {
        if (rank == size - 1) {
            usleep(10); /* the others are waiting (simulated) */
            for (double t0 = real_now(); real_now() - t0 < 3;)
                ; /* real time the simulation does not see */
            usleep(100000); /* the others poll on: thousands of polls */
        }
        int rc = pacoll_alltoall_alg("direct", buf, 1, MPI_INT, buf + size, 1, MPI_INT,
                                     MPI_COMM_WORLD);
        if (rank == 0)
            printf("check_timeout: %s: waited 3 s of real time, no abort\n",
                   rc == MPI_SUCCESS ? "PASS" : "FAIL");
        free(buf);
        MPI_Finalize();
        return rc == MPI_SUCCESS ? 0 : 1;
    }
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
