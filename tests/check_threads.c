/*
 * check_threads: the thread level pacoll supports, enforced.
 *
 * pacoll runs collectives at MPI_THREAD_SINGLE, FUNNELED and SERIALIZED.
 * Under MPI_THREAD_MULTIPLE every call goes to the MPI library (its
 * collectives are thread-safe; pacoll's channel is not tested under
 * concurrent threads), so an application that calls collectives on
 * different communicators from different threads at once stays correct.
 *
 *   check_threads multiple     MPI_Init_thread(MULTIPLE): 4 threads, each on
 *                              its own communicator, 50 rounds of all four
 *                              collectives at once, values checked, and no
 *                              pacoll team was made (pacoll_comm_last_algorithm
 *                              names nothing: the MPI library ran them)
 *   check_threads serialized   MPI_Init_thread(SERIALIZED): a worker thread
 *                              (not the main one) calls direct, values
 *                              checked, and the last algorithm is "direct"
 *
 * Last line of rank 0: "check_threads: N checks passed, F failed".
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"

#define NTHREADS 4
#define ROUNDS 50

static int rank, size;
static const char *want_algo; /* what pacoll_comm_last_algorithm must say */
static long fails[NTHREADS + 1], checks[NTHREADS + 1];

static void expect(int th, const char *what, int ok)
{
    checks[th]++;
    if (ok)
        return;
    fails[th]++;
    fprintf(stderr, "check_threads: FAIL rank %d thread %d: %s\n", rank, th, what);
}

static int v(int src, int dst, int i, int th, int round) { return ((src * 31 + dst) * 97 + i) * 13 + th * 7 + round; }

typedef struct { int th; MPI_Comm comm; const char *algo; } job_t;

static void *work(void *arg)
{
    job_t *j = arg;
    int th = j->th, n = 3 + th;
    int *s = malloc(sizeof(int) * n * size), *r = malloc(sizeof(int) * n * size);
    int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size);
    char name[32], w[160];
    for (int round = 0; round < ROUNDS; round++) {
        for (int d = 0; d < size; d++)
            for (int i = 0; i < n; i++)
                s[d * n + i] = v(rank, d, i, th, round);
        int rc = pacoll_alltoall_alg(j->algo, s, n, MPI_INT, r, n, MPI_INT, j->comm);
        int ok = rc == MPI_SUCCESS;
        for (int d = 0; d < size && ok; d++)
            for (int i = 0; i < n; i++)
                ok &= r[d * n + i] == v(d, rank, i, th, round);
        snprintf(w, sizeof w, "alltoall round %d", round);
        expect(th, w, ok);
        for (int d = 0; d < size; d++)
            cnt[d] = n, dsp[d] = d * n;
        rc = pacoll_alltoallv_alg(j->algo, s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, j->comm);
        ok = rc == MPI_SUCCESS;
        for (int d = 0; d < size && ok; d++)
            for (int i = 0; i < n; i++)
                ok &= r[d * n + i] == v(d, rank, i, th, round);
        snprintf(w, sizeof w, "alltoallv round %d", round);
        expect(th, w, ok);
        rc = pacoll_allgather_alg(j->algo, s, n, MPI_INT, r, n, MPI_INT, j->comm);
        ok = rc == MPI_SUCCESS;
        for (int d = 0; d < size && ok; d++)
            for (int i = 0; i < n; i++)
                ok &= r[d * n + i] == v(d, 0, i, th, round);
        snprintf(w, sizeof w, "allgather round %d", round);
        expect(th, w, ok);
        int root = round % size;
        rc = pacoll_gather_alg(j->algo, s, n, MPI_INT, r, n, MPI_INT, root, j->comm);
        ok = rc == MPI_SUCCESS;
        for (int d = 0; d < size && ok && rank == root; d++)
            for (int i = 0; i < n; i++)
                ok &= r[d * n + i] == v(d, 0, i, th, round);
        snprintf(w, sizeof w, "gather round %d", round);
        expect(th, w, ok);
    }
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        name[0] = 0;
        pacoll_comm_last_algorithm(j->comm, (pacoll_coll_t)c, name, sizeof name);
        snprintf(w, sizeof w, "%s: last algorithm \"%s\", expected \"%s\"",
                 pacoll_coll_name((pacoll_coll_t)c), name, want_algo);
        expect(th, w, strcmp(name, want_algo) == 0);
    }
    free(s), free(r), free(cnt), free(dsp);
    return NULL;
}

int main(int argc, char **argv)
{
    int multiple = !(argc > 1 && strcmp(argv[1], "serialized") == 0);
    int provided;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (multiple && provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("check_threads: the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE: "
                   "nothing to check\ncheck_threads: 0 checks passed, 0 failed\n", provided);
        MPI_Finalize();
        return 0;
    }
    int nth = multiple ? NTHREADS : 1;
    job_t jobs[NTHREADS];
    pthread_t tid[NTHREADS];
    for (int i = 0; i < nth; i++) {
        jobs[i].th = i;
        /* algorithms named, so only the thread level can send them to MPI */
        jobs[i].algo = multiple ? (i % 2 ? "direct" : NULL) : "direct";
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[i].comm);
        MPI_Comm_set_errhandler(jobs[i].comm, MPI_ERRORS_RETURN);
    }
    want_algo = multiple ? "" : "direct";
    for (int i = 0; i < nth; i++)
        pthread_create(&tid[i], NULL, work, &jobs[i]);
    for (int i = 0; i < nth; i++)
        pthread_join(tid[i], NULL);
    long c = 0, f = 0;
    for (int i = 0; i < nth; i++) {
        c += checks[i], f += fails[i];
        MPI_Comm_free(&jobs[i].comm);
    }
    long l[2] = {c, f}, g[2];
    MPI_Allreduce(l, g, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("check_threads: %ld checks passed, %ld failed\n", g[0] - g[1], g[1]);
    MPI_Finalize();
    return g[1] != 0;
}
