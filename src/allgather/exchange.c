/*
 * allgather "exchange": the k-port Standard Exchange, any N.
 *
 * Source: multirail-smp-collectives-qsnet §5.1.2 (Standard Exchange under
 * k-port modelling, Fig. 4; recursive doubling generalised to base k+1,
 * after Bokhari 1996), cost eq. (3) for N a power of k+1 and eq. (4)
 * otherwise; the Hockney model of §3.2.
 *
 * With K = k + 1 and P = K^L the largest power of K not above N: the first
 * P ranks are "core" ranks.  In step i (i = 0..L-1) core rank c exchanges
 * everything it holds with the k ranks that differ from c only in base-K
 * digit i (the paper's groups of K, then K^2, ...): before step i it holds
 * the blocks of the K^i core ranks that share its digits >= i, and after it
 * those of K^(i+1) ranks.
 *
 * Correction steps for N not a power of K (the paper leaves them open):
 * rank e >= P is an "extra" attached to core e mod P (each core has at most
 * k extras, since N < K P).  Before the exchange each extra writes its block
 * to its core (k-port); the core then stands for ranks c, c+P, c+2P, ..
 * (its blocks sit in "layers" of the receive buffer, P blocks apart), and
 * after the exchange it writes the whole result to its extras.  That is two
 * extra rounds, not the (k+1)-fold latency of eq. (4).
 *
 * On pacoll's channel (one call, engine/step_engine.h): the receive area is the
 * user's receive buffer and every block lands at its final place, so there
 * is no copy-out; a transfer is up to K runs (one per layer), written with
 * one zero-copy put each, or packed into one eager message when small.
 * Partners differ in every step, extras talk to their core once each way,
 * so each ordered pair talks once.  Areas are advertised at call start.
 *
 * Cost (Hockney, k ports, m bytes per block):
 *     N = K^L:  T = L alpha + (N-1)/k m beta                        (eq. 3)
 *     else:     T = (L+2) alpha + (1 + ceil(N/P)(P-1)/k + (N-1)) m beta
 */
#include "engine/step_engine.h"

typedef struct plan {
    int n, K, L, P;
    size_t m;
} plan_t;

/* The blocks of core ranks [c0, c0+len) in every layer, as pieces of the
 * receive buffer buf (NULL on the receiving side). */
static int core_pieces(const plan_t *pl, const char *buf, int c0, int len, pc_piece_t *pcs)
{
    int np = 0;
    for (int first = c0; first < pl->n; first += pl->P) {
        int end = first + len < pl->n ? first + len : pl->n;
        size_t off = (size_t)first * pl->m;
        pcs[np++] = (pc_piece_t){buf ? buf + off : NULL, off, (size_t)(end - first) * pl->m};
    }
    return np;
}

/* Everything but block e: what a core gives its extra e at the end. */
static int all_but(const plan_t *pl, const char *buf, int e, pc_piece_t pcs[2])
{
    size_t at = (size_t)(e + 1) * pl->m;
    pcs[0] = (pc_piece_t){buf, 0, (size_t)e * pl->m};
    pcs[1] = (pc_piece_t){buf ? buf + at : NULL, at, (size_t)(pl->n - e - 1) * pl->m};
    return 2;
}

/* Core rank c's partner with digit x in position i (d = K^i). */
static int partner(const plan_t *pl, int c, long d, int x)
{
    return (int)(c - c % (d * pl->K) + x * d + c % d);
}

static int expect_all(pc_steps_t *st, const plan_t *pl, int r, pc_piece_t *pcs)
{
    int rc = MPI_SUCCESS;
    if (r >= pl->P) /* extra: the result, from my core */
        return pc_steps_expect(st, r % pl->P, pcs, all_but(pl, NULL, r, pcs));
    for (int e = r + pl->P; e < pl->n && rc == MPI_SUCCESS; e += pl->P) {
        pc_piece_t one = {NULL, (size_t)e * pl->m, pl->m};
        rc = pc_steps_expect(st, e, &one, 1);
    }
    for (long i = 0, d = 1; i < pl->L && rc == MPI_SUCCESS; i++, d *= pl->K) {
        int mine = (int)(r / d % pl->K);
        for (int j = 1; j < pl->K && rc == MPI_SUCCESS; j++) {
            int from = partner(pl, r, d, (mine - j + pl->K) % pl->K);
            int np = core_pieces(pl, NULL, (int)(from - from % d), (int)d, pcs);
            rc = pc_steps_expect(st, from, pcs, np);
        }
    }
    return rc;
}

static int run_core(pc_steps_t *st, const plan_t *pl, int r, char *rbuf, pc_piece_t *pcs)
{
    int rc = MPI_SUCCESS;
    for (int e = r + pl->P; e < pl->n && rc == MPI_SUCCESS; e += pl->P) {
        pc_piece_t one = {NULL, (size_t)e * pl->m, pl->m};
        rc = pc_steps_recv(st, e, &one, 1);
    }
    for (long i = 0, d = 1; i < pl->L && rc == MPI_SUCCESS; i++, d *= pl->K) {
        int mine = (int)(r / d % pl->K);
        for (int j = 1; j < pl->K && rc == MPI_SUCCESS; j++) {
            int to = partner(pl, r, d, (mine + j) % pl->K);
            int np = core_pieces(pl, rbuf, (int)(r - r % d), (int)d, pcs);
            rc = pc_steps_send(st, to, pcs, np);
        }
        for (int j = 1; j < pl->K && rc == MPI_SUCCESS; j++) {
            int from = partner(pl, r, d, (mine - j + pl->K) % pl->K);
            int np = core_pieces(pl, NULL, (int)(from - from % d), (int)d, pcs);
            rc = pc_steps_recv(st, from, pcs, np);
        }
        if (rc == MPI_SUCCESS)
            rc = pc_steps_step_end(st);
    }
    for (int e = r + pl->P; e < pl->n && rc == MPI_SUCCESS; e += pl->P)
        rc = pc_steps_send(st, e, pcs, all_but(pl, rbuf, e, pcs));
    return rc;
}

static int run_extra(pc_steps_t *st, const plan_t *pl, int r, const char *own, pc_piece_t *pcs)
{
    pc_piece_t one = {own, (size_t)r * pl->m, pl->m};
    int rc = pc_steps_send(st, r % pl->P, &one, 1);
    if (rc == MPI_SUCCESS)
        rc = pc_steps_step_end(st);
    if (rc == MPI_SUCCESS)
        rc = pc_steps_recv(st, r % pl->P, pcs, all_but(pl, NULL, r, pcs));
    return rc;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    /* more ports than partners would only make every rank an extra */
    int k = t->cfg.chan.ports < t->size - 1 ? t->cfg.chan.ports : (t->size > 1 ? t->size - 1 : 1);
    plan_t pl = {.n = t->size, .K = k + 1, .m = a->m};
    pl.P = (int)pc_floor_pow(pl.n, pl.K);
    pl.L = pc_ceil_log(pl.P, pl.K);
    int r = t->rank;
    /* a transfer is at most one piece per layer, and there are <= K layers */
    pc_piece_t *pcs = malloc((size_t)(pl.K + 2) * sizeof *pcs);
    if (!pcs)
        return MPI_ERR_NO_MEM;
    pc_steps_t st;
    int rc = pc_steps_begin(&st, t, "allgather exchange", a->rbuf, (size_t)pl.n * a->m);
    if (rc == MPI_SUCCESS)
        rc = expect_all(&st, &pl, r, pcs);
    if (rc == MPI_SUCCESS)
        rc = pc_steps_expose(&st);
    if (rc == MPI_SUCCESS)
        pc_copy_own(a->rbuf + (size_t)r * a->m, a->sbuf, a->m);
    if (rc == MPI_SUCCESS)
        rc = r < pl.P ? run_core(&st, &pl, r, a->rbuf, pcs)
                      : run_extra(&st, &pl, r, a->rbuf + (size_t)r * a->m, pcs);
    if (rc == MPI_SUCCESS && a->m > 0) /* every rank's block reached me */
        pc_call_all_arrived(&st.c);
    rc = pc_steps_end(&st, rc);
    free(pcs);
    return rc;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports < ctx->p - 1 ? ctx->ports : (ctx->p > 1 ? ctx->p - 1 : 1);
    long P = pc_floor_pow(ctx->p, k + 1);
    int L = pc_ceil_log(P, k + 1);
    double mb = (double)m * ctx->beta;
    if (P == ctx->p)
        return L * ctx->alpha + (double)(ctx->p - 1) / k * mb;
    double layers = (double)((ctx->p + P - 1) / P);
    return (L + 2) * ctx->alpha + (1.0 + layers * (double)(P - 1) / k + (double)(ctx->p - 1)) * mb;
}

const pacoll_algo_t pc_allgather_exchange = {
    .name = "exchange",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §5.1.2, eq. 3-4",
    .summary = "k-port Standard Exchange (base k+1 recursive doubling), 2 correction rounds for other N",
    .run = run,
    .cost = cost,
    .nonblocking = 1,
};
