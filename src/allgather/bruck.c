/*
 * allgather "bruck": the k-port Bruck algorithm, any N.
 *
 * Source: multirail-smp-collectives-qsnet §5.1.2 (Bruck all-gather under
 * k-port modelling, Fig. 5), after Bruck et al. (IEEE TPDS 8(11), 1997);
 * cost eq. (1); the Hockney model of §3.2.
 *
 * With K = k + 1 and L = ceil(log_K N): before step i, rank r holds the
 * d = K^i blocks of ranks r, r+1, .., r+d-1 (mod N).  In step i it sends
 * them to r - j d and receives from r + j d its first min(d, N - j d) blocks,
 * j = 1..k: the blocks of ranks r + j d, ...  The paper's extra step for N
 * not a power of K is the last step with those counts clipped.
 *
 * The paper's phase 2 (a local shift by r blocks) disappears: blocks are
 * named by their owner's rank, and rank r's "first c blocks" are the blocks
 * of ranks r .. r+c-1, which sit in the receive buffer at their final places
 * (one run, or two when the range wraps past N-1).  So every transfer goes
 * from the sender's receive buffer straight into the same positions of the
 * receiver's receive buffer: the rotation is folded into the addressing and
 * there is no copy-out at all.
 *
 * On pacoll's channel (one call, engine/step_engine.h): partners r +- j K^i are all
 * different, so each ordered pair talks once; the receive area is the
 * user's receive buffer, advertised to all L k sources at call start; small
 * steps go through eager slots (packed when the range wraps), large ones
 * zero-copy (one put per run).
 *
 * Cost (Hockney, k ports, m bytes per block, L = ceil(log_{k+1} N)):
 *     T = L alpha + (N-1)/k m beta        (eq. 1, any N)
 */
#include "engine/step_engine.h"

/* The blocks [first, first + count) mod n of a receive buffer, as pieces
 * (the same offsets on every rank). */
static int range_pieces(const char *buf, int n, int first, int count, size_t m, pc_piece_t pcs[2])
{
    int room = n - first;
    const char *src = buf ? buf + (size_t)first * m : NULL;
    if (count <= room) {
        pcs[0] = (pc_piece_t){src, (size_t)first * m, (size_t)count * m};
        return 1;
    }
    pcs[0] = (pc_piece_t){src, (size_t)first * m, (size_t)room * m};
    pcs[1] = (pc_piece_t){buf, 0, (size_t)(count - room) * m};
    return 2;
}

typedef struct plan {
    int n, K, L;
} plan_t;

/* The number of blocks that travel at distance dist in the step of d. */
static int step_count(const plan_t *pl, long d, long dist)
{
    long left = pl->n - dist;
    return (int)(d < left ? d : left);
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    plan_t pl = {t->size, t->cfg.chan.ports + 1, 0};
    pl.L = pc_ceil_log(pl.n, pl.K);
    int r = t->rank, n = pl.n;
    size_t m = a->m;
    pc_steps_t st;
    pc_piece_t pcs[2];
    int rc = pc_steps_begin(&st, t, "allgather bruck", a->rbuf, (size_t)n * m);
    for (long i = 0, d = 1; i < pl.L && rc == MPI_SUCCESS; i++, d *= pl.K)
        for (long j = 1; j < pl.K && j * d < n && rc == MPI_SUCCESS; j++) {
            int from = (int)((r + j * d) % n);
            int np = range_pieces(NULL, n, from, step_count(&pl, d, j * d), m, pcs);
            rc = pc_steps_expect(&st, from, pcs, np);
        }
    if (rc == MPI_SUCCESS)
        rc = pc_steps_expose(&st);
    if (rc == MPI_SUCCESS)
        pc_copy_own(a->rbuf + (size_t)r * m, a->sbuf, m);
    for (long i = 0, d = 1; i < pl.L && rc == MPI_SUCCESS; i++, d *= pl.K) {
        for (long j = 1; j < pl.K && j * d < n && rc == MPI_SUCCESS; j++) {
            int to = (int)((r - j * d % n + n) % n);
            int np = range_pieces(a->rbuf, n, r, step_count(&pl, d, j * d), m, pcs);
            rc = pc_steps_send(&st, to, pcs, np);
        }
        for (long j = 1; j < pl.K && j * d < n && rc == MPI_SUCCESS; j++) {
            int from = (int)((r + j * d) % n);
            int np = range_pieces(NULL, n, from, step_count(&pl, d, j * d), m, pcs);
            rc = pc_steps_recv(&st, from, pcs, np);
        }
        if (rc == MPI_SUCCESS)
            rc = pc_steps_step_end(&st);
    }
    if (rc == MPI_SUCCESS && m > 0) /* every rank's block reached me */
        pc_call_all_arrived(&st.c);
    return pc_steps_end(&st, rc);
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports > 0 ? ctx->ports : 1;
    return pc_ceil_log(ctx->p, k + 1) * ctx->alpha + (double)(ctx->p - 1) / k * (double)m * ctx->beta;
}

const pacoll_algo_t pc_allgather_bruck = {
    .name = "bruck",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §5.1.2, eq. 1",
    .summary = "k-port Bruck, any N, no local shift: ceil(log_{k+1} N)a + (N-1)/k mb",
    .run = run,
    .cost = cost,
    .nonblocking = 1,
};
