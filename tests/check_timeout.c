/*
 * How long the wait layer waits.
 *
 * Default: the last rank never enters the collective, the others must not
 * hang.  With PACOLL_TIMEOUT=2 (an opt-in deadline) they abort after 2 s
 * with a message naming the collective, the algorithm and the rank they
 * wait for (ctest matches that message; the job's exit status is
 * MPI_Abort's).  Under SMPI the 2 s are simulated (the late rank's sleep is
 * simulated too).
 *
 * "first": the same, the communicator's first call: with PACOLL_TIMEOUT
 * the set-up, which waits inside the MPI library, has the same deadline
 * (its barrier cannot name the rank).
 *
 * "late S" (PACOLL_TIMEOUT unset: no deadline): the last rank sleeps S
 * seconds before the communicator's first call and again before its
 * second, while the others wait; every call finishes with the right
 * values (a late rank is waited for, as MPI waits, however late; the
 * others look at its process every second and must find it alive).
 *
 * "dies" (no deadline): the last rank is killed (SIGKILL) after a good
 * call; the others, waiting for it in the next one on the same host, must
 * name it and abort within seconds.  The launcher must let them (Open MPI:
 * orte_enable_recovery; MPICH: -disable-auto-cleanup), or it ends the
 * job itself first.
 *
 * "real-time-only" (SMPI only): the last rank spends 3 s of real time and
 * no simulated time before it comes, while the others wait.  The deadline is
 * simulated time there (one process simulates every rank, so a wait lasts
 * the wall time of simulating the others), so nobody may abort.
 */
#include <pacoll.h>
#include <signal.h>
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

/* One alltoall (direct) of a block per rank with values that name their
 * sender and receiver: 0 if every block is right. */
static int checked_alltoall(MPI_Comm comm, int rank, int size, int call)
{
    int *s = calloc(2 * (size_t)size, sizeof(int)), bad = 0;
    if (!s)
        return 1;
    int *r = s + size;
    for (int i = 0; i < size; i++)
        s[i] = call * 1000000 + rank * 1000 + i, r[i] = -1;
    int rc = pacoll_alltoall_alg("direct", s, 1, MPI_INT, r, 1, MPI_INT, comm);
    for (int i = 0; i < size; i++)
        bad |= r[i] != call * 1000000 + i * 1000 + rank;
    free(s);
    return rc != MPI_SUCCESS || bad;
}

static int mode_late(int rank, int size, double late)
{
    int bad = 0;
    if (rank == 0 && getenv("PACOLL_TIMEOUT")) {
        printf("check_timeout: FAIL: PACOLL_TIMEOUT is set; this test shows the default\n");
        bad = 1;
    }
    double waited[2];
    for (int call = 0; call < 2; call++) {
        if (rank == size - 1)
            usleep((useconds_t)(late * 1e6));
        double t0 = MPI_Wtime();
        bad |= checked_alltoall(MPI_COMM_WORLD, rank, size, call + 1);
        waited[call] = MPI_Wtime() - t0;
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("check_timeout: %s: rank %d was %.0f s late for the first and the second "
               "alltoall; rank 0 waited %.1f s and %.1f s, results %s\n",
               any ? "FAIL" : "PASS", size - 1, late, waited[0], waited[1],
               any ? "wrong" : "right");
    return any;
}

static void mode_dies(int rank, int size)
{
    if (checked_alltoall(MPI_COMM_WORLD, rank, size, 1))
        printf("check_timeout: FAIL: rank %d: the first alltoall\n", rank);
    fflush(stdout);
    if (rank == size - 1)
        raise(SIGKILL);
    checked_alltoall(MPI_COMM_WORLD, rank, size, 2);
    printf("check_timeout: FAIL: rank %d: the alltoall returned without rank %d\n", rank,
           size - 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "late") == 0) {
        int bad = mode_late(rank, size, atof(argv[2]));
        MPI_Finalize();
        return bad;
    }
    if (argc > 1 && strcmp(argv[1], "dies") == 0) {
        mode_dies(rank, size);
        MPI_Finalize();
        return 1;
    }
    int real_time_only = argc > 1 && strcmp(argv[1], "real-time-only") == 0;
    int *buf = calloc((size_t)size * 2, sizeof(int));
    /* one good call first: the team exists and works ("first": the rank
     * misses the communicator's first call, whose set-up waits) */
    if (!(argc > 1 && strcmp(argv[1], "first") == 0))
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
