/*
 * check_plain: the short way to the MPI library (api.c, "plain") must give
 * the answer the full dispatch gives.  Under tests/rules/plain.json, calls
 * alternate between sizes the rules send to the MPI library and sizes they
 * give to pacoll's direct, between automatic and named algorithms, between
 * datatypes of the same size, over a derived type freed and made again with
 * another size, over communicators freed and made again and more of them
 * than the team cache holds (core/context.h), and over a duplicate, which
 * keeps its communicator's named algorithm, and a split, which does not;
 * every call's result is compared with PMPI's, and the algorithm pacoll
 * reports (pacoll_comm_last_algorithm) with what the rules say.
 *
 *   mpirun -np P check_plain      (P >= 2; PACOLL_RULES=tests/rules/plain.json)
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"
#include "check_util.h"

static int rank, size;

static void expect_last(MPI_Comm comm, pacoll_coll_t coll, const char *want, const char *what)
{
    char got[64], msg[160];
    pacoll_comm_last_algorithm(comm, coll, got, sizeof got);
    snprintf(msg, sizeof msg, "%s: ran '%s', expected '%s'", what, got, want);
    expect_true(msg, strcmp(got, want) == 0);
}

static void fill(unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(rank * 131 + (int)i * 7 + salt);
}

/* allgather of `count` elements of dt, automatic unless algo names one */
static void allgather(MPI_Comm comm, int count, MPI_Datatype dt, const char *algo,
                      const char *want, int salt)
{
    int p, es;
    MPI_Comm_size(comm, &p);
    MPI_Type_size(dt, &es);
    size_t m = (size_t)count * (size_t)es;
    unsigned char *s = malloc(m + 1), *r = malloc(m * p + 1), *ref = malloc(m * p + 1);
    fill(s, m, salt);
    memset(r, 0xee, m * p);
    int rc = algo ? pacoll_allgather_alg(algo, s, count, dt, r, count, dt, comm)
                  : pacoll_allgather(s, count, dt, r, count, dt, comm);
    PMPI_Allgather(s, count, dt, ref, count, dt, comm);
    char what[96];
    snprintf(what, sizeof what, "allgather %zu B (%s)", m, algo ? algo : "auto");
    expect_true(what, rc == MPI_SUCCESS && memcmp(r, ref, m * p) == 0);
    expect_last(comm, PACOLL_ALLGATHER, want, what);
    free(s), free(r), free(ref);
}

/* gather of n bytes to root; in place at the root when inplace */
static void gather(MPI_Comm comm, int n, int root, int inplace, const char *want, int salt)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    unsigned char *s = malloc(n + 1), *r = malloc((size_t)n * p + 1),
                  *ref = malloc((size_t)n * p + 1);
    fill(s, n, salt);
    memset(r, 0xee, (size_t)n * p);
    memset(ref, 0xee, (size_t)n * p);
    if (inplace && me == root)
        memcpy(r + (size_t)n * me, s, n), memcpy(ref + (size_t)n * me, s, n);
    const void *sb = inplace && me == root ? MPI_IN_PLACE : s;
    int rc = pacoll_gather(sb, n, MPI_BYTE, r, n, MPI_BYTE, root, comm);
    PMPI_Gather(sb == MPI_IN_PLACE ? MPI_IN_PLACE : s, n, MPI_BYTE, ref, n, MPI_BYTE, root, comm);
    char what[96];
    snprintf(what, sizeof what, "gather %d B root %d%s", n, root, inplace ? " in place" : "");
    expect_true(what, rc == MPI_SUCCESS && (me != root || memcmp(r, ref, (size_t)n * p) == 0));
    expect_last(comm, PACOLL_GATHER, want, what);
    free(s), free(r), free(ref);
}

/* alltoallv: rank i sends (i + j) % 3 * scale + 1 bytes to rank j */
static void alltoallv(MPI_Comm comm, int scale, const char *want, int salt)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int *sc = malloc(4 * sizeof(int) * p), *sd = sc + p, *rcn = sd + p, *rd = rcn + p;
    int st = 0, rt = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = (me + j) % 3 * scale + 1, sd[j] = st, st += sc[j];
        rcn[j] = (j + me) % 3 * scale + 1, rd[j] = rt, rt += rcn[j];
    }
    unsigned char *s = malloc(st), *r = malloc(rt), *ref = malloc(rt);
    fill(s, st, salt);
    memset(r, 0xee, rt);
    int rc = pacoll_alltoallv(s, sc, sd, MPI_BYTE, r, rcn, rd, MPI_BYTE, comm);
    PMPI_Alltoallv(s, sc, sd, MPI_BYTE, ref, rcn, rd, MPI_BYTE, comm);
    char what[96];
    snprintf(what, sizeof what, "alltoallv blocks up to %d B", 2 * scale + 1);
    expect_true(what, rc == MPI_SUCCESS && memcmp(r, ref, rt) == 0);
    expect_last(comm, PACOLL_ALLTOALLV, want, what);
    free(sc), free(s), free(r), free(ref);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_prog = "check_plain";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int round = 0; round < 3; round++) {
        /* the same size again and again, then another, then back */
        for (int i = 0; i < 3; i++)
            allgather(comm, 8, MPI_BYTE, NULL, "native", i);
        allgather(comm, 256, MPI_BYTE, NULL, "direct", 1);
        allgather(comm, 8, MPI_BYTE, NULL, "native", 2);
        allgather(comm, 256, MPI_BYTE, NULL, "direct", 3);
        allgather(comm, 256, MPI_BYTE, NULL, "direct", 4);
        /* the same bytes in another type: the same choice */
        allgather(comm, 2, MPI_INT, NULL, "native", 5);
        allgather(comm, 64, MPI_INT, NULL, "direct", 6);
        /* named at the call, then on the communicator, then auto again */
        allgather(comm, 8, MPI_BYTE, "direct", "direct", 7);
        allgather(comm, 8, MPI_BYTE, NULL, "native", 8);
        pacoll_comm_set_algorithm(comm, PACOLL_ALLGATHER, "direct");
        allgather(comm, 8, MPI_BYTE, NULL, "direct", 9);
        allgather(comm, 8, MPI_BYTE, NULL, "direct", 10);
        { /* a duplicate keeps the communicator's choice, a split does not */
            MPI_Comm dup, split;
            MPI_Comm_dup(comm, &dup);
            MPI_Comm_split(comm, 0, rank, &split);
            allgather(dup, 8, MPI_BYTE, NULL, "direct", 40);
            allgather(split, 8, MPI_BYTE, NULL, "native", 41);
            MPI_Comm_free(&dup), MPI_Comm_free(&split);
        }
        pacoll_comm_set_algorithm(comm, PACOLL_ALLGATHER, "native");
        allgather(comm, 8, MPI_BYTE, NULL, "native", 21);
        allgather(comm, 256, MPI_BYTE, NULL, "native", 22);
        allgather(comm, 256, MPI_BYTE, NULL, "native", 23);
        pacoll_comm_set_algorithm(comm, PACOLL_ALLGATHER, "auto");
        allgather(comm, 256, MPI_BYTE, NULL, "direct", 24);
        allgather(comm, 8, MPI_BYTE, NULL, "native", 11);
        allgather(comm, 8, MPI_BYTE, NULL, "native", 12);
        /* gather: the root's block size is its receive block in place */
        gather(comm, 16, size - 1, 0, "native", 13);
        gather(comm, 16, size - 1, 1, "native", 14);
        gather(comm, 128, 0, 1, "direct", 15);
        gather(comm, 16, 0, 0, "native", 16);
        /* alltoallv: the agreed largest block decides (a rule asks for it) */
        alltoallv(comm, 10, "native", 17);
        alltoallv(comm, 10, "native", 18);
        alltoallv(comm, 100, "direct", 19);
        alltoallv(comm, 10, "native", 20);
        /* a derived type freed and made again with another size (its
         * handle may come back): its size decides, not its handle */
        MPI_Datatype dt;
        MPI_Type_contiguous(8, MPI_BYTE, &dt);
        MPI_Type_commit(&dt);
        allgather(comm, 1, dt, NULL, "native", 25);
        allgather(comm, 1, dt, NULL, "native", 26);
        MPI_Type_free(&dt);
        MPI_Type_contiguous(256, MPI_BYTE, &dt);
        MPI_Type_commit(&dt);
        allgather(comm, 1, dt, NULL, "direct", 27);
        MPI_Type_free(&dt);
        /* more communicators than the context's team cache has slots,
         * called in turn: each call finds its own team */
        enum { NCOMM = 11 };
        MPI_Comm many[NCOMM];
        for (int i = 0; i < NCOMM; i++)
            MPI_Comm_split(comm, i % 2 ? rank % 2 : 0, rank, &many[i]);
        for (int pass = 0; pass < 3; pass++)
            for (int i = 0; i < NCOMM; i++)
                allgather(many[i], pass == 1 && i % 6 == 0 ? 256 : 8, MPI_BYTE, NULL,
                          pass == 1 && i % 6 == 0 ? "direct" : "native", 30 + i);
        for (int i = 0; i < NCOMM; i++)
            MPI_Comm_free(&many[i]);
        /* a communicator freed and made again (its handle may come back) */
        if (comm != MPI_COMM_WORLD)
            MPI_Comm_free(&comm);
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    }
    MPI_Comm_free(&comm);
    int bad = check_summary();
    MPI_Finalize();
    return bad;
}
