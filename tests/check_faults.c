/*
 * check_faults: erroneous programs get an error, never a hang.
 *
 *   check_faults split    (MPI_ERRORS_RETURN) one rank alone rejects a call
 *                         (a negative count; a gather root whose receive
 *                         signature is shorter than what the others send):
 *                         it gets the error class, the others return within
 *                         seconds (MPI_SUCCESS or MPI_ERR_OTHER), never at
 *                         PACOLL_TIMEOUT; the communicator's pacoll state is
 *                         then lost (MPI_ERR_OTHER on every rank, at once),
 *                         and a new communicator works.  A rejection made by
 *                         every rank leaves the communicator usable, also
 *                         three in a row.  Ranks whose own arguments agree
 *                         but differ from each other's (2 ints per block on
 *                         rank 0, 3 elsewhere): some rank says
 *                         MPI_ERR_TRUNCATE, nobody hangs.
 *   check_faults fatal    the default handler: one rank's bad count aborts
 *                         the job with pacoll's message (tests/CMakeLists.txt
 *                         runs it through expect_job_fails.sh)
 *   check_faults dies     the last rank exits without MPI_Finalize while the
 *                         others are in a collective: the job ends
 *
 * Last line of rank 0 (split): "check_faults: N checks passed, F failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_util.h"
#include "pacoll.h"

static int rank, size;
/* a rank that waited for one that rejected must be back well before this */
#define PROMPT_S 20.0

static MPI_Comm fresh(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* one alltoall of n ints per block through algo; 1 if the values are right */
static int legal_alltoall(const char *algo, MPI_Comm c, int n, int *rc_out)
{
    int *s = malloc(sizeof(int) * (size_t)(n * size + 1)), *r = malloc(sizeof(int) * (size_t)(n * size + 1));
    for (int j = 0; j < size; j++)
        for (int i = 0; i < n; i++)
            s[j * n + i] = rank * 10007 + j * 101 + i;
    *rc_out = pacoll_alltoall_alg(algo, s, n, MPI_INT, r, n, MPI_INT, c);
    int ok = *rc_out == MPI_SUCCESS;
    for (int j = 0; j < size && ok; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == j * 10007 + rank * 101 + i;
    free(s), free(r);
    return ok;
}

/* One rank (size-1) alone passes a negative count through algo. */
static void split_count(const char *coll, const char *algo)
{
    MPI_Comm c = fresh();
    char w[256];
    int bad = size - 1, rc;
    int rcok;
    const char *a2a = strcmp(coll, "alltoall") == 0 ? algo : "direct";
    legal_alltoall(a2a, c, 3, &rcok); /* the team exists, calls have run */
    int n = 4, *s = calloc((size_t)(n * size + 8), sizeof(int)), *r = calloc((size_t)(n * size + 8), sizeof(int));
    int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size);
    for (int j = 0; j < size; j++)
        cnt[j] = n, dsp[j] = j * n;
    int mine = rank == bad ? -1 : n;
    double t0 = MPI_Wtime();
    if (!strcmp(coll, "alltoall"))
        rc = pacoll_alltoall_alg(algo, s, mine, MPI_INT, r, n, MPI_INT, c);
    else if (!strcmp(coll, "allgather"))
        rc = pacoll_allgather_alg(algo, s, mine, MPI_INT, r, n, MPI_INT, c);
    else if (!strcmp(coll, "gather"))
        rc = pacoll_gather_alg(algo, s, mine, MPI_INT, r, n, MPI_INT, 0, c);
    else {
        if (rank == bad)
            cnt[0] = -1;
        rc = pacoll_alltoallv_alg(algo, s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, c);
    }
    double dt = MPI_Wtime() - t0;
    if (rank == bad) {
        snprintf(w, sizeof w, "%s[%s]: the rank with the negative count gets MPI_ERR_COUNT (got %d)",
                 coll, algo, err_class(rc));
        expect_true(w, err_class(rc) == MPI_ERR_COUNT);
    } else {
        snprintf(w, sizeof w, "%s[%s]: a rank with legal arguments returns MPI_SUCCESS or "
                 "MPI_ERR_OTHER (got %d) in %.1f s, before %.0f s", coll, algo, err_class(rc), dt,
                 PROMPT_S);
        expect_true(w, (rc == MPI_SUCCESS || err_class(rc) == MPI_ERR_OTHER) && dt < PROMPT_S);
    }
    /* the next call on c: the state is lost everywhere, and said at once */
    t0 = MPI_Wtime();
    int ok = legal_alltoall(a2a, c, 2, &rc);
    dt = MPI_Wtime() - t0;
    snprintf(w, sizeof w, "%s[%s]: the next call on that communicator fails with MPI_ERR_OTHER "
             "(got %d, %s) in %.1f s", coll, algo, err_class(rc), ok ? "values right" : "no values", dt);
    expect_true(w, err_class(rc) == MPI_ERR_OTHER && dt < PROMPT_S);
    MPI_Comm_free(&c);
    /* a new communicator works */
    c = fresh();
    ok = legal_alltoall(a2a, c, 5, &rc);
    snprintf(w, sizeof w, "%s[%s]: a new communicator works after it", coll, algo);
    expect_true(w, ok);
    MPI_Comm_free(&c);
    free(s), free(r), free(cnt), free(dsp);
}

/* MPICH's "gatherlength": the root receives 1 int per rank, the others send
 * 10.  The root alone sees it (MPI_ERR_TRUNCATE); nobody hangs. */
static void split_gather_length(const char *algo)
{
    MPI_Comm c = fresh();
    char w[256];
    int s[10], *r = calloc((size_t)size * 10, sizeof(int));
    for (int i = 0; i < 10; i++)
        s[i] = rank * 10 + i;
    double t0 = MPI_Wtime();
    int rc = pacoll_gather_alg(algo, s, 10, MPI_INT, r, 1, MPI_INT, 0, c);
    double dt = MPI_Wtime() - t0;
    if (rank == 0)
        snprintf(w, sizeof w, "gather[%s] root receiving 1 of 10 ints: MPI_ERR_TRUNCATE (got %d)",
                 algo ? algo : "auto", err_class(rc)), expect_true(w, err_class(rc) == MPI_ERR_TRUNCATE);
    else
        snprintf(w, sizeof w, "gather[%s] sender of 10 ints to a root receiving 1: MPI_SUCCESS or "
                 "MPI_ERR_OTHER (got %d) in %.1f s", algo ? algo : "auto", err_class(rc), dt),
            expect_true(w, (rc == MPI_SUCCESS || err_class(rc) == MPI_ERR_OTHER) && dt < PROMPT_S);
    MPI_Comm_free(&c);
    free(r);
}

/* Rank 0 sends and receives 2 ints per block, the others 3: every rank's
 * own arguments agree, the ranks' do not.  Some rank must say
 * MPI_ERR_TRUNCATE, and nobody may hang or crash. */
static void cross_rank_mismatch(const char *coll, const char *algo)
{
    MPI_Comm c = fresh();
    char w[256];
    int n = rank == 0 ? 2 : 3, rc;
    int *s = calloc((size_t)size * 4, sizeof(int)), *r = calloc((size_t)size * 4 + 16, sizeof(int));
    double t0 = MPI_Wtime();
    if (!strcmp(coll, "alltoall"))
        rc = pacoll_alltoall_alg(algo, s, n, MPI_INT, r, n, MPI_INT, c);
    else if (!strcmp(coll, "allgather"))
        rc = pacoll_allgather_alg(algo, s, n, MPI_INT, r, n, MPI_INT, c);
    else
        rc = pacoll_gather_alg(algo, s, n, MPI_INT, r, n, MPI_INT, 0, c);
    double dt = MPI_Wtime() - t0;
    int cls = err_class(rc), trunc = cls == MPI_ERR_TRUNCATE, any;
    snprintf(w, sizeof w, "%s[%s] rank 0 with 2 ints per block, the others 3: returns (class %d) "
             "in %.1f s", coll, algo, cls, dt);
    expect_true(w, (rc == MPI_SUCCESS || trunc || cls == MPI_ERR_OTHER) && dt < PROMPT_S);
    MPI_Allreduce(&trunc, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    snprintf(w, sizeof w, "%s[%s] rank 0 with 2 ints per block, the others 3: some rank says "
             "MPI_ERR_TRUNCATE", coll, algo);
    expect_true(w, any);
    MPI_Comm_free(&c);
    free(s), free(r);
}

/* Every rank rejects (three calls in a row), then the same communicator works. */
static void consistent(const char *algo)
{
    MPI_Comm c = fresh();
    char w[256];
    int rc, s[8] = {0}, r[8] = {0};
    int ok = legal_alltoall(algo, c, 1, &rc);
    for (int k = 0; k < 3; k++) {
        rc = pacoll_alltoall_alg(algo, s, -1, MPI_INT, r, 1, MPI_INT, c);
        snprintf(w, sizeof w, "alltoall[%s] count -1 on every rank (%d of 3): MPI_ERR_COUNT", algo, k + 1);
        expect_true(w, err_class(rc) == MPI_ERR_COUNT);
    }
    double t0 = MPI_Wtime();
    ok &= legal_alltoall(algo, c, 7, &rc);
    ok &= legal_alltoall(algo, c, 1000, &rc);
    snprintf(w, sizeof w, "alltoall[%s]: the communicator works after rejections made by every rank "
             "(rc %d, %.1f s)", algo, rc, MPI_Wtime() - t0);
    expect_true(w, ok);
    MPI_Comm_free(&c);
}

static int mode_split(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *a2a[] = {"direct", "bruck", "pap_direct", "shm_direct"};
    for (int i = 0; i < 4; i++)
        split_count("alltoall", a2a[i]);
    const char *ag[] = {"direct", "ring_rdma", "rd_rdma", "smp_direct"};
    for (int i = 0; i < 4; i++)
        split_count("allgather", ag[i]);
    split_count("gather", "direct");
    split_count("gather", "binomial");
    split_count("alltoallv", "direct");
    split_count("alltoallv", "sloav");
    const char *g[] = {NULL, "direct", "binomial", "native"};
    for (int i = 0; i < 4; i++)
        split_gather_length(g[i]);
    const char *mm[][2] = {{"alltoall", "direct"}, {"alltoall", "bruck"}, {"alltoall", "pap_direct"},
                           {"allgather", "direct"}, {"allgather", "rd_rdma"},
                           {"allgather", "ring_rdma"}, {"gather", "direct"},
                           {"gather", "binomial"}};
    for (int i = 0; i < 8; i++)
        cross_rank_mismatch(mm[i][0], mm[i][1]);
    consistent("direct");
    consistent("pap_shm_direct");
    return check_summary();
}

static int mode_fatal(void)
{
    int s[64] = {0}, r[64] = {0};
    /* the default handler on MPI_COMM_WORLD: errors are fatal */
    pacoll_alltoall_alg("direct", s, rank == size - 1 ? -1 : 1, MPI_INT, r, 1, MPI_INT,
                        MPI_COMM_WORLD);
    printf("check_faults: rank %d came back from a fatal error\n", rank);
    return 1;
}

static int mode_dies(void)
{
    int s[64] = {0}, r[64] = {0};
    pacoll_alltoall_alg("direct", s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD); /* team made */
    if (rank == size - 1) {
        fprintf(stderr, "check_faults: rank %d exits without MPI_Finalize\n", rank);
        _exit(3);
    }
    sleep(1);
    pacoll_alltoall_alg("direct", s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
    printf("check_faults: rank %d finished an alltoall without the dead rank\n", rank);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_prog = "check_faults";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "split";
    int bad;
    if (!strcmp(mode, "fatal"))
        bad = mode_fatal();
    else if (!strcmp(mode, "dies"))
        bad = mode_dies();
    else
        bad = mode_split();
    MPI_Finalize();
    return bad;
}
