/*
 * A plain MPI program, deliberately NOT linked with pacoll: it checks that
 * LD_PRELOAD=libpacoll_preload.so routes MPI_Alltoall, MPI_Alltoallv,
 * MPI_Allgather and MPI_Gather (MPI_IN_PLACE included) through pacoll and
 * that the results are still right, value by value.  Whether the calls really
 * reached pacoll is proved outside, by the pacoll-stats lines the preloaded
 * library prints at MPI_Finalize (see CMakeLists.txt and run_and_grep.sh).
 *
 * Prints "interpose-c: OK" on rank 0 and exits 0 when every value matches;
 * otherwise every rank with a mismatch says which, and the exit code is 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, nprocs;
static long errors;

/* The value rank src sends to rank dst as element k: unique per triple. */
static int val(int src, int dst, int k)
{
    return src * 1000000 + dst * 10000 + k;
}

static void check(const char *what, int got, int want, int index)
{
    if (got == want)
        return;
    if (errors < 10)
        fprintf(stderr, "interpose-c: rank %d: %s: element %d is %d, expected %d\n", rank, what,
                index, got, want);
    errors++;
}

static void check_rc(const char *what, int rc)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "interpose-c: rank %d: %s returned %d\n", rank, what, rc);
        errors++;
    }
}

static int *alloc_ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (p == NULL) {
        fprintf(stderr, "interpose-c: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void test_alltoall(int count, int in_place)
{
    size_t n = (size_t)nprocs * (size_t)count;
    int *sbuf = alloc_ints(n), *rbuf = alloc_ints(n);
    for (int j = 0; j < nprocs; j++)
        for (int k = 0; k < count; k++) {
            sbuf[j * count + k] = val(rank, j, k);
            rbuf[j * count + k] = in_place ? val(rank, j, k) : -1;
        }
    int rc = in_place ? MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, count, MPI_INT,
                                     MPI_COMM_WORLD)
                      : MPI_Alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT, MPI_COMM_WORLD);
    check_rc(in_place ? "MPI_Alltoall(IN_PLACE)" : "MPI_Alltoall", rc);
    for (int i = 0; i < nprocs; i++)
        for (int k = 0; k < count; k++)
            check("alltoall", rbuf[i * count + k], val(i, rank, k), i * count + k);
    free(sbuf);
    free(rbuf);
}

/* Rank src sends (src + dst) % 3 + base elements to dst. */
static int vcount(int src, int dst, int base)
{
    return (src + dst) % 3 + base;
}

static void test_alltoallv(int base)
{
    int *scounts = alloc_ints((size_t)nprocs), *sdispls = alloc_ints((size_t)nprocs);
    int *rcounts = alloc_ints((size_t)nprocs), *rdispls = alloc_ints((size_t)nprocs);
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < nprocs; j++) {
        scounts[j] = vcount(rank, j, base);
        sdispls[j] = stotal + 1; /* a gap before each block: displacements matter */
        stotal += scounts[j] + 1;
        rcounts[j] = vcount(j, rank, base);
        rdispls[j] = rtotal + 2;
        rtotal += rcounts[j] + 2;
    }
    int *sbuf = alloc_ints((size_t)stotal), *rbuf = alloc_ints((size_t)rtotal);
    for (int j = 0; j < nprocs; j++)
        for (int k = 0; k < scounts[j]; k++)
            sbuf[sdispls[j] + k] = val(rank, j, k);
    for (int i = 0; i < rtotal; i++)
        rbuf[i] = -7;
    check_rc("MPI_Alltoallv", MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts,
                                            rdispls, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < nprocs; i++) {
        for (int k = 0; k < rcounts[i]; k++)
            check("alltoallv", rbuf[rdispls[i] + k], val(i, rank, k), rdispls[i] + k);
        check("alltoallv gap", rbuf[rdispls[i] - 1], -7, rdispls[i] - 1);
    }
    free(sbuf);
    free(rbuf);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

static void test_allgather(int count, int in_place)
{
    size_t n = (size_t)nprocs * (size_t)count;
    int *sbuf = alloc_ints((size_t)count), *rbuf = alloc_ints(n);
    for (size_t i = 0; i < n; i++)
        rbuf[i] = -1;
    for (int k = 0; k < count; k++) {
        sbuf[k] = val(rank, 0, k);
        if (in_place)
            rbuf[rank * count + k] = val(rank, 0, k);
    }
    int rc = in_place ? MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, count, MPI_INT,
                                      MPI_COMM_WORLD)
                      : MPI_Allgather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, MPI_COMM_WORLD);
    check_rc(in_place ? "MPI_Allgather(IN_PLACE)" : "MPI_Allgather", rc);
    for (int i = 0; i < nprocs; i++)
        for (int k = 0; k < count; k++)
            check("allgather", rbuf[i * count + k], val(i, 0, k), i * count + k);
    free(sbuf);
    free(rbuf);
}

static void test_gather(int count, int root, int in_place)
{
    size_t n = (size_t)nprocs * (size_t)count;
    int *sbuf = alloc_ints((size_t)count), *rbuf = alloc_ints(n);
    for (size_t i = 0; i < n; i++)
        rbuf[i] = -1;
    for (int k = 0; k < count; k++) {
        sbuf[k] = val(rank, root, k);
        if (in_place && rank == root)
            rbuf[rank * count + k] = val(rank, root, k);
    }
    const void *send = (in_place && rank == root) ? MPI_IN_PLACE : sbuf;
    check_rc("MPI_Gather", MPI_Gather(send, count, MPI_INT, rbuf, count, MPI_INT, root,
                                      MPI_COMM_WORLD));
    if (rank == root)
        for (int i = 0; i < nprocs; i++)
            for (int k = 0; k < count; k++)
                check("gather", rbuf[i * count + k], val(i, root, k), i * count + k);
    free(sbuf);
    free(rbuf);
}

/* An invalid root under MPI_ERRORS_RETURN: the call must return an error
 * code (as MPI does) and the job must go on. */
static void test_error_returned(void)
{
    int one = rank, all[1];
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, nprocs, dup) == MPI_SUCCESS) {
        fprintf(stderr, "interpose-c: rank %d: MPI_Gather with an invalid root succeeded\n",
                rank);
        errors++;
    }
    MPI_Comm_free(&dup);
}

/* Doubles on a split communicator: another datatype, another team. */
static void test_split_allgather(void)
{
    MPI_Comm half;
    int hrank, hsize;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    double mine[2] = {rank + 0.5, -rank - 0.25};
    double *all = malloc((size_t)hsize * 2 * sizeof(double));
    if (all == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    check_rc("MPI_Allgather(split)", MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, half));
    for (int i = 0; i < hsize; i++) {
        int world = 2 * i + rank % 2; /* ranks keep their order within a half */
        check("split allgather", all[2 * i] == world + 0.5, 1, 2 * i);
        check("split allgather", all[2 * i + 1] == -world - 0.25, 1, 2 * i + 1);
    }
    free(all);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    const int counts[] = {1, 5, 4099};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int in_place = 0; in_place <= 1; in_place++) {
            test_alltoall(counts[c], in_place);
            test_allgather(counts[c], in_place);
            test_gather(counts[c], nprocs - 1, in_place);
            test_gather(counts[c], 0, in_place);
        }
        test_alltoallv(counts[c]);
    }
    test_split_allgather();
    test_error_returned();

    long total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("interpose-c: OK (%d ranks)\n", nprocs);
        else
            printf("interpose-c: FAILED: %ld mismatches\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
