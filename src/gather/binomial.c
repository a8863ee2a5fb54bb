/*
 * gather "binomial": the k-port spanning binomial tree.
 *
 * Source: multirail-smp-collectives-qsnet §5.1.1 (the spanning binomial
 * tree of a scatter, reversed and extended to k ports), cost eq. (1); the
 * Hockney model of §3.2.
 *
 * Ranks are numbered relative to the root, v = (rank - root) mod N, and
 * written in base K = k + 1.  Rank v's subtree is [v, v + K^t) (clipped at
 * N), where t is the number of trailing zero digits of v.  In step i
 * (i = 0 .. ceil(log_K N) - 1) every rank whose lowest non-zero digit is
 * digit i sends its whole subtree to its parent v - digit_i(v) K^i, and each
 * parent takes up to k children at once (k ports).  The message sent in
 * step i is K^i blocks, so the root gets (N-1)/k blocks' worth in
 * ceil(log_K N) rounds.
 *
 * On pacoll's channel (one call, see engine/step_engine.h): each rank sends once
 * (to its parent), so every ordered pair talks at most once.  The root's
 * receive area is the user's receive buffer itself: a child's subtree is a
 * run of relative ranks, i.e. at most two runs of absolute ranks (it may
 * wrap past N-1), written there directly, so the root makes no copy at all.
 * An inner rank gathers its subtree in a temporary buffer (in relative
 * order) and forwards it as one piece.  Every rank advertises its area to
 * all its children at call start; small subtrees go through eager slots,
 * large ones zero-copy.
 *
 * Cost (Hockney, k ports, m bytes per block, L = ceil(log_{k+1} N)):
 *     T = L alpha + m beta sum_{i<L} (k+1)^i  =  L alpha + (N-1)/k m beta   (eq. 1, N = K^L)
 * plus, on inner ranks, the copy of their own block into the subtree buffer.
 */
#include "engine/step_engine.h"

typedef struct tree {
    int n, K, L, root;
    size_t m;
} tree_t;

/* Trailing zero base-K digits of v (L for v = 0): v's subtree is K^that. */
static int level(const tree_t *tr, long v)
{
    if (v == 0)
        return tr->L;
    int t = 0;
    while (v % tr->K == 0)
        v /= tr->K, t++;
    return t;
}

static long ipow(long b, int e)
{
    long p = 1;
    while (e-- > 0)
        p *= b;
    return p;
}

static long subtree_len(const tree_t *tr, long v)
{
    long end = v + ipow(tr->K, level(tr, v));
    return (end > tr->n ? tr->n : end) - v;
}

static int absolute(const tree_t *tr, long v) { return (int)((v + tr->root) % tr->n); }

/* The pieces of child c's subtree in its parent pv's area.  The root's area
 * is the receive buffer in absolute order (two runs if the subtree wraps
 * past rank N-1); an inner rank's is its subtree in relative order.  src is
 * the child's subtree buffer (NULL on the receiving side). */
static int child_pieces(const tree_t *tr, long pv, long c, const char *src, pc_piece_t pcs[2])
{
    size_t len = (size_t)subtree_len(tr, c) * tr->m;
    if (pv != 0) {
        pcs[0] = (pc_piece_t){src, (size_t)(c - pv) * tr->m, len};
        return 1;
    }
    size_t first = (size_t)absolute(tr, c), room = (size_t)tr->n - first;
    size_t blocks = len / (tr->m ? tr->m : 1);
    if (tr->m == 0 || blocks <= room) {
        pcs[0] = (pc_piece_t){src, first * tr->m, len};
        return 1;
    }
    pcs[0] = (pc_piece_t){src, first * tr->m, room * tr->m};
    pcs[1] = (pc_piece_t){src ? src + room * tr->m : NULL, 0, len - room * tr->m};
    return 2;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    tree_t tr = {.n = t->size, .K = t->cfg.chan.ports + 1, .root = a->root, .m = a->m};
    tr.L = pc_ceil_log(tr.n, tr.K);
    long v = (t->rank - a->root + tr.n) % tr.n;
    int lev = level(&tr, v);
    long sub = subtree_len(&tr, v);
    char *tmp = NULL, *area = a->rbuf;
    size_t area_len = (size_t)tr.n * a->m;
    if (v != 0 && sub > 1) { /* inner rank: gather my subtree here */
        area_len = (size_t)sub * a->m;
        tmp = area = malloc(area_len ? area_len : 1);
        if (!tmp)
            return MPI_ERR_NO_MEM;
    }
    pc_steps_t st;
    pc_piece_t pcs[2];
    int rc = pc_steps_begin(&st, t, "gather binomial", area, v == 0 || tmp ? area_len : 0);
    /* Every child, over every step, is known now: advertise to all. */
    for (int i = 0; i < lev && rc == MPI_SUCCESS; i++)
        for (long j = 1; j < tr.K && rc == MPI_SUCCESS; j++) {
            long c = v + j * ipow(tr.K, i);
            if (c >= tr.n)
                break;
            int n = child_pieces(&tr, v, c, NULL, pcs);
            rc = pc_steps_expect(&st, absolute(&tr, c), pcs, n);
        }
    if (rc == MPI_SUCCESS)
        rc = pc_steps_expose(&st);
    if (rc == MPI_SUCCESS && area) /* my own block opens my part of the area */
        pc_copy_own(area + (v == 0 ? (size_t)a->root * a->m : 0), a->sbuf, a->m);
    for (int i = 0; i < lev && rc == MPI_SUCCESS; i++) {
        for (long j = 1; j < tr.K && rc == MPI_SUCCESS; j++) {
            long c = v + j * ipow(tr.K, i);
            if (c >= tr.n)
                break;
            int n = child_pieces(&tr, v, c, NULL, pcs);
            rc = pc_steps_recv(&st, absolute(&tr, c), pcs, n);
        }
    }
    if (rc == MPI_SUCCESS && v != 0) { /* my subtree is complete: up it goes */
        long d = (v / ipow(tr.K, lev)) % tr.K, pv = v - d * ipow(tr.K, lev);
        int n = child_pieces(&tr, pv, v, tmp ? tmp : a->sbuf, pcs);
        rc = pc_steps_send(&st, absolute(&tr, pv), pcs, n);
        if (rc == MPI_SUCCESS)
            rc = pc_steps_step_end(&st);
    }
    rc = pc_steps_end(&st, rc);
    free(tmp);
    return rc;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports > 0 ? ctx->ports : 1;
    int L = pc_ceil_log(ctx->p, k + 1);
    double inner = ctx->p > k + 1 ? (double)m * ctx->beta_shm : 0.0; /* own block copy */
    return L * ctx->alpha + (double)(ctx->p - 1) / k * (double)m * ctx->beta + inner;
}

const pacoll_algo_t pc_gather_binomial = {
    .name = "binomial",
    .coll = PACOLL_GATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §5.1.1, eq. 1",
    .summary = "k-port spanning binomial tree: ceil(log_{k+1} N) steps; L a + (N-1)/k m b",
    .run = run,
    .cost = cost,
    .nonblocking = 1,
};
