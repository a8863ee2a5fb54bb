/*
 * check_learn: learning in place (docs/AUTO.md, "Learning in place") keeps
 * results right and ranks in step.  Calls of several block sizes of
 * alltoall, allgather, gather (a moving root) and alltoallv interleave,
 * ranks arrive late by varying amounts, and every automatic call's result is
 * compared with PMPI's.  pacoll_comm_last_algorithm names what each call
 * ran: a fingerprint of that sequence must be the same on every rank (all
 * ranks ran the same algorithm on every call).
 *
 *   --learn      PACOLL_LEARN=1 is set: some class must have tried more
 *                than one algorithm (else nothing was explored)
 *   --no-learn   PACOLL_LEARN=0: every call of a size runs one algorithm
 *   --calls N    calls per size and collective (default 40)
 *
 *   mpirun -np P check_learn --learn
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pacoll.h"
#include "check_util.h"

#define NSIZES 4
static const int sizes[NSIZES] = {8, 300, 2000, 9000}; /* bytes per block */
static int rank, size;

static void fill(unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(rank * 131 + (int)i * 7 + salt);
}

static unsigned long long hash_name(const char *s)
{
    unsigned long long h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The distinct algorithms seen per collective and size. */
static char seen[4][NSIZES][8][32];

static int note(int coll, int si, const char *name)
{
    for (int i = 0; i < 8; i++) {
        if (!seen[coll][si][i][0]) {
            snprintf(seen[coll][si][i], sizeof seen[0][0][0], "%s", name);
            return i + 1;
        }
        if (strcmp(seen[coll][si][i], name) == 0)
            return 0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int learn = 0, no_learn = 0, calls = 40;
    MPI_Init(&argc, &argv);
    check_prog = "check_learn";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--learn") == 0)
            learn = 1;
        else if (strcmp(argv[i], "--no-learn") == 0)
            no_learn = 1;
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = atoi(argv[++i]);
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    size_t big = (size_t)sizes[NSIZES - 1] * (size_t)size;
    unsigned char *sb = malloc(big), *rb = malloc(big), *ref = malloc(big);
    int *sc = malloc(sizeof(int) * (size_t)size * 4), *sd = sc + size, *rc = sc + 2 * size,
        *rd = sc + 3 * size;
    unsigned long long print = 0;
    char msg[200], algo[32];
    int grew = 0;
    for (int it = 0; it < calls * NSIZES; it++) {
        int si = (it * 7 + it / NSIZES) % NSIZES; /* sizes interleave, the same on every rank */
        int m = sizes[si];
        /* arrival skew: a varying rank late by a varying amount */
        if ((it + rank) % 3 == 0)
            usleep((useconds_t)(((it * 13 + rank * 29) % 7) * 40));
        for (int coll = 0; coll < 4; coll++) {
            int err = MPI_SUCCESS, root = it % size;
            size_t n = (size_t)m * (size_t)size;
            fill(sb, n, it + coll);
            memset(rb, 0xAA, n), memset(ref, 0x55, n);
            switch (coll) {
            case 0:
                err = pacoll_alltoall(sb, m, MPI_BYTE, rb, m, MPI_BYTE, comm);
                PMPI_Alltoall(sb, m, MPI_BYTE, ref, m, MPI_BYTE, comm);
                break;
            case 1:
                err = pacoll_allgather(sb, m, MPI_BYTE, rb, m, MPI_BYTE, comm);
                PMPI_Allgather(sb, m, MPI_BYTE, ref, m, MPI_BYTE, comm);
                break;
            case 2:
                err = pacoll_gather(sb, m, MPI_BYTE, rb, m, MPI_BYTE, root, comm);
                PMPI_Gather(sb, m, MPI_BYTE, ref, m, MPI_BYTE, root, comm);
                if (rank != root)
                    memcpy(rb, ref, n); /* only the root's receive buffer counts */
                break;
            default: /* counts differ per rank: alltoallv stays with the rules */
                for (int p = 0, off = 0; p < size; p++)
                    sc[p] = (m + p + rank) % (m + 1), sd[p] = off, off += m;
                for (int p = 0, off = 0; p < size; p++)
                    rc[p] = (m + rank + p) % (m + 1), rd[p] = off, off += m;
                err = pacoll_alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, comm);
                PMPI_Alltoallv(sb, sc, sd, MPI_BYTE, ref, rc, rd, MPI_BYTE, comm);
                for (int p = 0; p < size; p++) /* bytes past each block are not written */
                    memcpy(rb + rd[p] + rc[p], ref + rd[p] + rc[p], (size_t)(m - rc[p]));
                break;
            }
            pacoll_comm_last_algorithm(comm, (pacoll_coll_t)coll, algo, sizeof algo);
            snprintf(msg, sizeof msg, "call %d, collective %d, %d B per block (%s): MPI_SUCCESS",
                     it, coll, m, algo);
            expect_true(msg, err == MPI_SUCCESS);
            snprintf(msg, sizeof msg, "call %d, collective %d, %d B per block (%s): same as PMPI",
                     it, coll, m, algo);
            expect_true(msg, memcmp(rb, ref, n) == 0);
            print = print * 1000003ull + hash_name(algo) + (unsigned long long)it;
            if (note(coll, si, algo) > 1)
                grew = 1;
        }
    }
    unsigned long long lo, hi;
    MPI_Allreduce(&print, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&print, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    expect_true("every rank ran the same algorithm on every call", lo == hi);
    if (learn && size > 1)
        expect_true("learning tried more than one algorithm for some collective and size", grew);
    if (no_learn)
        expect_true("without learning, each collective and size ran one algorithm", !grew);
    MPI_Comm_free(&comm);
    free(sb), free(rb), free(ref), free(sc);
    int bad = check_summary();
    MPI_Finalize();
    return bad;
}
