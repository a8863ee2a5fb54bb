/*
 * Unit test of the shm layer (src/channel/node_segment.c): the node-segment primitives
 * gather, gatherv, bcast, scatter and scatterv that the hierarchical
 * algorithms build on.  Links the static library and its internal headers.
 *
 * Every node of the team (PACOLL_NODE_SIZE makes several on one host) runs
 * each primitive for every local root, with sizes that grow past the
 * segment's first capacity (so it regrows), back to back, and checks every
 * byte against values computed from (node, local rank, round).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel/node_segment.h"
#include "core/team.h"

static int failures;

static unsigned char val(int node, int local, size_t i, int round)
{
    return (unsigned char)(node * 131 + local * 31 + (int)i * 7 + round * 13 + 1);
}

static void expect(int ok, const char *what, int round, int root, int local)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "check_shm: FAIL %s round %d root %d local %d\n", what, round, root, local);
    }
}

/* Blocks of uneven size: local rank i contributes (i + 1) * m bytes. */
static void v_layout(const pacoll_team_t *t, size_t m, size_t *counts, size_t *displs)
{
    size_t off = 0;
    for (int i = 0; i < t->local_size; i++) {
        counts[i] = (size_t)(i + 1) * m;
        displs[i] = off + 8; /* a gap between blocks */
        off = displs[i] + counts[i];
    }
}

static void round_gather(pacoll_team_t *t, pc_wait_t *w, size_t m, int root, int round)
{
    int L = t->local_size, me = t->local_rank;
    unsigned char *send = malloc(m + 1), *recv = calloc((size_t)L * m + 1, 1);
    for (size_t i = 0; i < m; i++)
        send[i] = val(t->node, me, i, round);
    expect(pc_seg_gather(&t->seg, w, send, m, recv, root) == MPI_SUCCESS, "gather rc", round, root, me);
    if (me == root)
        for (int r = 0; r < L; r++)
            for (size_t i = 0; i < m; i++)
                if (recv[(size_t)r * m + i] != val(t->node, r, i, round)) {
                    expect(0, "gather data", round, root, me);
                    r = L;
                    break;
                }
    free(send);
    free(recv);
}

static void round_gatherv(pacoll_team_t *t, pc_wait_t *w, size_t m, int root, int round)
{
    int L = t->local_size, me = t->local_rank;
    size_t *counts = malloc(2 * (size_t)L * sizeof(size_t)), *displs = counts + L;
    v_layout(t, m, counts, displs);
    size_t span = displs[L - 1] + counts[L - 1];
    unsigned char *send = malloc(counts[me] + 1), *recv = calloc(span + 1, 1);
    for (size_t i = 0; i < counts[me]; i++)
        send[i] = val(t->node, me, i, round);
    expect(pc_seg_gatherv(&t->seg, w, send, counts, displs, recv, root) == MPI_SUCCESS, "gatherv rc",
           round, root, me);
    if (me == root)
        for (int r = 0; r < L; r++)
            for (size_t i = 0; i < counts[r]; i++)
                if (recv[displs[r] + i] != val(t->node, r, i, round)) {
                    expect(0, "gatherv data", round, root, me);
                    r = L;
                    break;
                }
    free(send);
    free(recv);
    free(counts);
}

static void round_bcast(pacoll_team_t *t, pc_wait_t *w, size_t m, int root, int round)
{
    unsigned char *buf = calloc(m + 1, 1);
    if (t->local_rank == root)
        for (size_t i = 0; i < m; i++)
            buf[i] = val(t->node, root, i, round);
    expect(pc_seg_bcast(&t->seg, w, buf, m, root) == MPI_SUCCESS, "bcast rc", round, root, t->local_rank);
    for (size_t i = 0; i < m; i++)
        if (buf[i] != val(t->node, root, i, round)) {
            expect(0, "bcast data", round, root, t->local_rank);
            break;
        }
    free(buf);
}

static void round_scatter(pacoll_team_t *t, pc_wait_t *w, size_t m, int root, int round)
{
    int L = t->local_size, me = t->local_rank;
    unsigned char *send = malloc((size_t)L * m + 1), *recv = calloc(m + 1, 1);
    for (int r = 0; r < L; r++)
        for (size_t i = 0; i < m; i++)
            send[(size_t)r * m + i] = val(t->node, r, i, round);
    expect(pc_seg_scatter(&t->seg, w, send, m, recv, root) == MPI_SUCCESS, "scatter rc", round, root, me);
    for (size_t i = 0; i < m; i++)
        if (recv[i] != val(t->node, me, i, round)) {
            expect(0, "scatter data", round, root, me);
            break;
        }
    free(send);
    free(recv);
}

static void round_scatterv(pacoll_team_t *t, pc_wait_t *w, size_t m, int root, int round)
{
    int L = t->local_size, me = t->local_rank;
    size_t *counts = malloc(2 * (size_t)L * sizeof(size_t)), *displs = counts + L;
    v_layout(t, m, counts, displs);
    size_t span = displs[L - 1] + counts[L - 1];
    unsigned char *send = malloc(span + 1), *recv = calloc(counts[me] + 1, 1);
    for (int r = 0; r < L; r++)
        for (size_t i = 0; i < counts[r]; i++)
            send[displs[r] + i] = val(t->node, r, i, round);
    expect(pc_seg_scatterv(&t->seg, w, send, counts, displs, recv, root) == MPI_SUCCESS, "scatterv rc",
           round, root, me);
    for (size_t i = 0; i < counts[me]; i++)
        if (recv[i] != val(t->node, me, i, round)) {
            expect(0, "scatterv data", round, root, me);
            break;
        }
    free(send);
    free(recv);
    free(counts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int err, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pacoll_team_t *t = pc_team_get(MPI_COMM_WORLD, &err);
    if (!t) {
        fprintf(stderr, "check_shm: no team (%d)\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pc_wait_t w;
    pc_wait_init(&w, &t->chan, "check_shm");
    static const size_t sizes[] = {0, 1, 7, 1000, 40000, 300000, 3};
    int round = 0, checks = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int root = 0; root < t->local_size; root++, round++) {
            round_gather(t, &w, sizes[s], root, round);
            round_gatherv(t, &w, sizes[s], root, round);
            round_bcast(t, &w, sizes[s], root, round);
            round_scatter(t, &w, sizes[s], root, round);
            round_scatterv(t, &w, sizes[s], root, round);
            checks += 5;
        }
    }
    int total_fail = 0, total_checks = 0;
    MPI_Reduce(&failures, &total_fail, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&checks, &total_checks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("check_shm: %d nodes (this one %d ranks): %d checks passed, %d failed\n", t->nnodes,
               t->local_size, total_checks - total_fail, total_fail);
    MPI_Finalize();
    return total_fail ? 1 : 0;
}
