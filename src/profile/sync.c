/*
 * Clocks and T for the profiler.
 *
 * Clock offsets (Cristian's method): world rank 0 ping-pongs PC_SYNC_ROUNDS
 * times with every other rank in turn; rank r answers each ping with its
 * PMPI_Wtime t_r.  With t0, t1 rank 0's send and receive times, the offset
 * t_r - (t0 + t1) / 2 is exact to within (t1 - t0) / 2 whatever the path's
 * asymmetry, so the round with the smallest round trip is kept and half that
 * round trip is the stated precision.  Done after MPI_Init (or at the first
 * MPI_COMM_WORLD call) and at MPI_Finalize; pc_prof_global interpolates the
 * offset linearly between the two, which also removes a constant drift.
 * Every exchange runs on a private duplicate of MPI_COMM_WORLD, so it never
 * matches the program's messages.
 *
 * T: the one-way time of one message of n bytes, half the best round trip
 * of a ping-pong between world rank 0 and the last world rank (on another
 * node under the usual block placement), for n = 0 and every power of two up
 * to the largest average message size any call site had; measured once, at
 * MPI_Finalize, and interpolated linearly in between.
 */
#include "profile/prof_internal.h"

#include <math.h>

enum { PC_SYNC_ROUNDS = 16, PC_SYNC_TAG = 7, PC_T_TAG = 8 };

static void sync_with(MPI_Comm w, int r, double *offset, double *bound)
{
    double best = INFINITY, off = 0, tr = 0;
    for (int k = 0; k < PC_SYNC_ROUNDS; k++) {
        double t0 = PMPI_Wtime();
        PMPI_Send(NULL, 0, MPI_BYTE, r, PC_SYNC_TAG, w);
        PMPI_Recv(&tr, 1, MPI_DOUBLE, r, PC_SYNC_TAG, w, MPI_STATUS_IGNORE);
        double t1 = PMPI_Wtime();
        if (t1 - t0 < best)
            best = t1 - t0, off = tr - 0.5 * (t0 + t1);
    }
    *offset = off;
    *bound = 0.5 * best;
}

static void answer_sync(MPI_Comm w)
{
    for (int k = 0; k < PC_SYNC_ROUNDS; k++) {
        PMPI_Recv(NULL, 0, MPI_BYTE, 0, PC_SYNC_TAG, w, MPI_STATUS_IGNORE);
        double t = PMPI_Wtime();
        PMPI_Send(&t, 1, MPI_DOUBLE, 0, PC_SYNC_TAG, w);
    }
}

int pc_prof_sync(pc_prof_t *p, pc_prof_sync_t *s)
{
    MPI_Comm w;
    int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = p->world_size;
    double mine[2] = {0, 0};
    double *all = p->world_rank == 0 ? calloc(2 * (size_t)n, sizeof *all) : NULL;
    if (p->world_rank == 0) {
        for (int r = 1; r < n; r++) {
            double off = 0, bound = 0;
            sync_with(w, r, &off, &bound);
            if (all)
                all[2 * r] = off, all[2 * r + 1] = bound;
        }
    } else {
        answer_sync(w);
    }
    rc = PMPI_Scatter(all, 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE, 0, w);
    s->t = PMPI_Wtime();
    s->offset = mine[0];
    s->bound = mine[1];
    s->done = rc == MPI_SUCCESS;
    free(s->all);
    s->all = all;
    PMPI_Comm_free(&w);
    return rc;
}

double pc_prof_global(const pc_prof_t *p, double t)
{
    const pc_prof_sync_t *a = &p->init, *b = &p->fin;
    if (a->done && b->done && b->t > a->t)
        return t - (a->offset + (b->offset - a->offset) * (t - a->t) / (b->t - a->t));
    if (b->done)
        return t - b->offset;
    if (a->done)
        return t - a->offset;
    return t;
}

/* Half the best round trip of n bytes between ranks 0 and peer of w. */
static double ping_pong(MPI_Comm w, int me, int peer, char *buf, int n, int reps)
{
    double best = INFINITY;
    for (int k = -2; k < reps; k++) { /* two rounds of warm-up */
        double t0 = PMPI_Wtime();
        if (me == 0) {
            PMPI_Send(buf, n, MPI_BYTE, peer, PC_T_TAG, w);
            PMPI_Recv(buf, n, MPI_BYTE, peer, PC_T_TAG, w, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, n, MPI_BYTE, 0, PC_T_TAG, w, MPI_STATUS_IGNORE);
            PMPI_Send(buf, n, MPI_BYTE, 0, PC_T_TAG, w);
        }
        double t = PMPI_Wtime() - t0;
        if (k >= 0 && t < best)
            best = t;
    }
    return 0.5 * best;
}

int pc_prof_measure_T(pc_prof_t *p, double max_bytes)
{
    /* buckets 0, 1, 2, 4, ... until the last one holds max_bytes (1 GB at most) */
    int nb = 2;
    while (nb < PC_PROF_MAX_BUCKETS && ldexp(1.0, nb - 2) < max_bytes && nb < 32)
        nb++;
    p->nbuckets = nb;
    p->t_peer = p->world_size - 1;
    for (int i = 0; i < nb; i++)
        p->bucket_bytes[i] = i == 0 ? 0 : ldexp(1.0, i - 1);
    MPI_Comm w;
    int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = p->world_rank;
    if (p->world_size == 1 || me == 0 || me == p->t_peer) {
        char *buf = malloc((size_t)p->bucket_bytes[nb - 1] + 1);
        for (int i = 0; i < nb && buf; i++) {
            int n = (int)p->bucket_bytes[i];
            int reps = n <= 65536 ? 20 : n <= (1 << 22) ? 5 : 2;
            if (p->world_size == 1) { /* a message to itself */
                double t0 = PMPI_Wtime();
                PMPI_Sendrecv_replace(buf, n, MPI_BYTE, 0, PC_T_TAG, 0, PC_T_TAG, w,
                                      MPI_STATUS_IGNORE);
                p->bucket_T[i] = PMPI_Wtime() - t0;
            } else {
                p->bucket_T[i] = ping_pong(w, me, p->t_peer, buf, n, reps);
            }
        }
        free(buf);
    }
    rc = PMPI_Bcast(p->bucket_T, nb, MPI_DOUBLE, 0, w);
    PMPI_Comm_free(&w);
    return rc;
}

double pc_prof_T(const pc_prof_t *p, double bytes)
{
    if (p->nbuckets <= 0)
        return 0;
    for (int i = 1; i < p->nbuckets; i++) {
        if (bytes <= p->bucket_bytes[i]) {
            double x0 = p->bucket_bytes[i - 1], x1 = p->bucket_bytes[i];
            double f = x1 > x0 ? (bytes - x0) / (x1 - x0) : 0;
            return p->bucket_T[i - 1] + f * (p->bucket_T[i] - p->bucket_T[i - 1]);
        }
    }
    return p->bucket_T[p->nbuckets - 1];
}
