/*
 * check_legal: every argument check of pacoll's (src/api/checks.c,
 * docs/CHECKS.md) on a legal corner case, through the automatic choice and
 * every registered algorithm but native (which the MPI library checks): each call must succeed and give the values
 * the standard defines.
 *
 *   count      zero counts with NULL buffers; a zero-size datatype with a
 *              NULL buffer and a non-zero count
 *   datatype   MPI_DATATYPE_NULL and negative counts where they are not
 *              significant (MPI_IN_PLACE's send arguments, a non-root's
 *              receive arguments, alltoallv's NULL send arrays in place);
 *              committed derived types and a dup of one
 *   buffer     MPI_BOTTOM with a datatype of absolute addresses
 *   signature  different types of the same signature (3n INT / n contiguous)
 *   overlap    send and receive buffers that touch but do not overlap;
 *              interleaved in one array through vector types; alltoallv
 *              blocks interleaved in one array
 *   root       the last rank as gather's root
 *
 * Last line of rank 0: "check_legal: N checks passed, F failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "pacoll.h"

static int rank, size;

static void expect_ok(const char *what, const char *algo, int rc, int values_ok)
{
    char w[256];
    snprintf(w, sizeof w, "%s [%s]: rc %d, values %s", what, algo ? algo : "auto", rc,
             values_ok ? "right" : "WRONG");
    expect_true(w, rc == MPI_SUCCESS && values_ok);
}

static int v(int src, int dst, int i) { return src * 100003 + dst * 1009 + i; }

static int nalgos(int coll, const char **out)
{
    int n = 0;
    out[n++] = NULL;
    for (int i = 0; i < pacoll_algorithm_count(); i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
            strcmp(info.name, "native") != 0) /* native: the MPI library's checks, not pacoll's */
            out[n++] = info.name;
    }
    return n;
}

static void alltoall_cases(const char *al)
{
    const int n = 3;
    int P = size;
    int *s = malloc(sizeof(int) * 2 * n * P + 64), *r = malloc(sizeof(int) * 2 * n * P + 64);
    int ok, rc;
    /* zero counts, NULL buffers */
    rc = pacoll_alltoall_alg(al, NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
    expect_ok("alltoall count 0, NULL buffers", al, rc, 1);
    /* a zero-size type, NULL buffers, count 5 */
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    rc = pacoll_alltoall_alg(al, NULL, 5, empty, NULL, 5, empty, MPI_COMM_WORLD);
    expect_ok("alltoall 5 elements of a zero-size type, NULL buffers", al, rc, 1);
    MPI_Type_free(&empty);
    /* in place: the send arguments are ignored (garbage) */
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            r[j * n + i] = v(rank, j, i);
    rc = pacoll_alltoall_alg(al, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == v(j, rank, i);
    expect_ok("alltoall MPI_IN_PLACE with sendcount -1, sendtype MPI_DATATYPE_NULL", al, rc, ok);
    /* same signature, different types; a dup of a committed type */
    MPI_Datatype tri, tri2;
    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_commit(&tri);
    MPI_Type_dup(tri, &tri2);
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            s[j * n + i] = v(rank, j, i);
    rc = pacoll_alltoall_alg(al, s, n, MPI_INT, r, 1, tri2, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == v(j, rank, i);
    expect_ok("alltoall 3 INT sent, 1 dup'd contiguous(3,INT) received", al, rc, ok);
    MPI_Type_free(&tri2);
    MPI_Type_free(&tri);
    /* touching buffers: receive right after send in one array */
    int *both = malloc(sizeof(int) * 2 * n * P);
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            both[j * n + i] = v(rank, j, i);
    rc = pacoll_alltoall_alg(al, both, n, MPI_INT, both + n * P, n, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= both[n * P + j * n + i] == v(j, rank, i) && both[j * n + i] == v(rank, j, i);
    expect_ok("alltoall, the receive buffer starts where the send buffer ends", al, rc, ok);
    /* interleaved: send the even ints, receive into the odd ones */
    MPI_Datatype every2, every2r;
    MPI_Type_vector(n, 1, 2, MPI_INT, &every2);
    MPI_Type_create_resized(every2, 0, (MPI_Aint)(2 * n * sizeof(int)), &every2r);
    MPI_Type_commit(&every2r);
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            both[2 * (j * n + i)] = v(rank, j, i), both[2 * (j * n + i) + 1] = -1;
    rc = pacoll_alltoall_alg(al, both, 1, every2r, both + 1, 1, every2r, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= both[2 * (j * n + i) + 1] == v(j, rank, i) && both[2 * (j * n + i)] == v(rank, j, i);
    expect_ok("alltoall, send and receive elements interleaved in one array", al, rc, ok);
    MPI_Type_free(&every2);
    MPI_Type_free(&every2r);
    /* MPI_BOTTOM and absolute addresses */
    MPI_Aint at;
    MPI_Get_address(s, &at);
    int blen = n;
    MPI_Datatype abs1, absr;
    MPI_Type_create_hindexed(1, &blen, &at, MPI_INT, &abs1);
    MPI_Type_create_resized(abs1, at, (MPI_Aint)(n * sizeof(int)), &absr);
    MPI_Type_commit(&absr);
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            s[j * n + i] = v(rank, j, i) + 7;
    rc = pacoll_alltoall_alg(al, MPI_BOTTOM, 1, absr, r, n, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == v(j, rank, i) + 7;
    expect_ok("alltoall from MPI_BOTTOM with absolute addresses", al, rc, ok);
    MPI_Type_free(&abs1);
    MPI_Type_free(&absr);
    free(both), free(s), free(r);
}

static void allgather_cases(const char *al)
{
    const int n = 2;
    int P = size, rc, ok;
    int *r = malloc(sizeof(int) * n * P);
    rc = pacoll_allgather_alg(al, NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
    expect_ok("allgather count 0, NULL buffers", al, rc, 1);
    for (int i = 0; i < n; i++)
        r[rank * n + i] = v(rank, 0, i);
    rc = pacoll_allgather_alg(al, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == v(j, 0, i);
    expect_ok("allgather MPI_IN_PLACE with sendcount -1, sendtype MPI_DATATYPE_NULL", al, rc, ok);
    /* touching buffers */
    int *both = malloc(sizeof(int) * (n + n * P));
    for (int i = 0; i < n; i++)
        both[i] = v(rank, 1, i);
    rc = pacoll_allgather_alg(al, both, n, MPI_INT, both + n, n, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= both[n + j * n + i] == v(j, 1, i);
    expect_ok("allgather, the receive buffer starts where the send buffer ends", al, rc, ok);
    free(both), free(r);
}

static void gather_cases(const char *al)
{
    const int n = 4;
    int P = size, root = P - 1, rc, ok = 1;
    int s[4], *r = malloc(sizeof(int) * n * P);
    for (int i = 0; i < n; i++)
        s[i] = v(rank, -2, i);
    /* the non-roots' receive arguments are not significant */
    if (rank == root)
        rc = pacoll_gather_alg(al, s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
    else
        rc = pacoll_gather_alg(al, s, n, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    for (int j = 0; j < P && rank == root; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == v(j, -2, i);
    expect_ok("gather to the last rank, non-roots' recvbuf NULL, recvcount -1, recvtype NULL", al,
              rc, ok);
    /* the root in place, its send arguments garbage */
    ok = 1;
    for (int i = 0; i < n; i++)
        r[root * n + i] = v(root, -3, i), s[i] = v(rank, -3, i);
    if (rank == root)
        rc = pacoll_gather_alg(al, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, r, n, MPI_INT, root,
                               MPI_COMM_WORLD);
    else
        rc = pacoll_gather_alg(al, s, n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    for (int j = 0; j < P && rank == root; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == v(j, -3, i);
    expect_ok("gather, the root in place with sendcount -1 and sendtype NULL", al, rc, ok);
    rc = pacoll_gather_alg(al, NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    expect_ok("gather count 0, NULL buffers", al, rc, 1);
    free(r);
}

static void alltoallv_cases(const char *al)
{
    int P = size, rc, ok;
    int *cnt = malloc(sizeof(int) * P), *sd = malloc(sizeof(int) * P), *rd = malloc(sizeof(int) * P);
    int *zero = calloc((size_t)P, sizeof(int));
    rc = pacoll_alltoallv_alg(al, NULL, zero, zero, MPI_INT, NULL, zero, zero, MPI_INT, MPI_COMM_WORLD);
    expect_ok("alltoallv all counts 0, NULL buffers", al, rc, 1);
    /* in place: send arrays NULL, send type NULL */
    const int n = 2;
    int *r = malloc(sizeof(int) * 2 * n * P);
    for (int j = 0; j < P; j++) {
        cnt[j] = n, rd[j] = (P - 1 - j) * n; /* blocks in reverse order */
        for (int i = 0; i < n; i++)
            r[rd[j] + i] = v(rank, j, i);
    }
    rc = pacoll_alltoallv_alg(al, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, cnt, rd, MPI_INT,
                              MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= r[rd[j] + i] == v(j, rank, i);
    expect_ok("alltoallv MPI_IN_PLACE with sendcounts, sdispls NULL and sendtype NULL", al, rc, ok);
    /* send and receive blocks interleaved in one array: [s0 r0 s1 r1 ...] */
    for (int j = 0; j < P; j++) {
        sd[j] = 2 * n * j, rd[j] = 2 * n * j + n;
        for (int i = 0; i < n; i++)
            r[sd[j] + i] = v(rank, j, i), r[rd[j] + i] = -1;
    }
    rc = pacoll_alltoallv_alg(al, r, cnt, sd, MPI_INT, r, cnt, rd, MPI_INT, MPI_COMM_WORLD);
    ok = 1;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < n; i++)
            ok &= r[rd[j] + i] == v(j, rank, i) && r[sd[j] + i] == v(rank, j, i);
    expect_ok("alltoallv, send and receive blocks interleaved in one array", al, rc, ok);
    free(cnt), free(sd), free(rd), free(zero), free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_prog = "check_legal";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *al[64];
    int n = nalgos(PACOLL_ALLTOALL, al);
    for (int a = 0; a < n; a++)
        alltoall_cases(al[a]);
    n = nalgos(PACOLL_ALLGATHER, al);
    for (int a = 0; a < n; a++)
        allgather_cases(al[a]);
    n = nalgos(PACOLL_GATHER, al);
    for (int a = 0; a < n; a++)
        gather_cases(al[a]);
    n = nalgos(PACOLL_ALLTOALLV, al);
    for (int a = 0; a < n; a++)
        alltoallv_cases(al[a]);
    int failed = check_summary();
    MPI_Finalize();
    return failed;
}
