/*
 * allgather "smp_gather_bcast": the SMP-aware Gather and Broadcast
 * allgather.
 *
 * Source: multirail-smp-collectives-qsnet §5.2.1 (Fig. 7), the k-port
 * spanning binomial tree of §5.1.1 (eq. 1); measured in §7.4 (best up to
 * 256 B there).
 *
 * Mapping onto pacoll (phases 1 and 3 are src/engine/smp_allgather.c):
 *   1. per-node shm gather into the node segment (as smp_direct).
 *   2. inter-node gather among the n node masters to the master of node 0,
 *      then broadcast among the masters, both on one k-nomial tree over the
 *      node indices (k = PACOLL_PORTS, radix k+1): node v's parent is v with
 *      its lowest non-zero base-(k+1) digit cleared, and its subtree is the
 *      contiguous node range [v, v + span(v)).  So a gather message is one
 *      contiguous range of the segment, written at its final place in the
 *      parent's segment; the broadcast sends each child the complement of
 *      its subtree, [v + span, v + n) mod n (one range that wraps round:
 *      two puts, or one packed eager message).  Leaves send first; a parent
 *      takes its k children of one level at once (k ports).
 *      Which, and why: the tree, for both halves.  This algorithm is the
 *      one for small blocks, where the start-up term decides: the tree
 *      gather costs ceil(log_{k+1} n) start-ups against Direct's
 *      ceil((n-1)/k), with the same bandwidth term ((n-1)/k L m b, eq. 1
 *      vs eq. 2); for the broadcast a tree beats the root sending n-1 whole
 *      copies on both terms.  (On 4 nodes and 2 ports they tie: 2 steps.)
 *      The paper's hardware broadcast has no portable counterpart; the
 *      tree is its software form.
 *   3. per-node shm broadcast: nodes' flags rise as their blocks land (a
 *      master's own subtree already during the gather), and every local
 *      rank copies them out in communicator rank order.
 * Every ordered pair of masters talks at most once per call (child ->
 * parent in the gather, parent -> child in the broadcast); all receive
 * areas are advertised at call start.  One node: phases 1 and 3 only.  One
 * rank per node: a flat tree gather + broadcast in the receive buffers.
 *
 * Cost (Hockney, k ports, n nodes of at most L ranks, P ranks, m bytes,
 * S = ceil(log_{k+1} n)):
 *     T = (a_s + m b_s)
 *       + S a + ((n-1)/k) L m b                       tree gather (eq. 1)
 *       + S (a + (P - L) m b)                         tree broadcast
 *       + a_s + (P - L) m b_s                         copy-out
 * (the own node's copy-out overlaps phase 2, as in smp_direct).
 */
#include "engine/smp_allgather.h"

extern const pacoll_algo_t pc_allgather_direct;

/* The k-nomial tree over nodes 0..n-1, radix K = k+1. */
typedef struct tree {
    int n;
    long K;
} tree_t;

/* Place value of v's lowest non-zero digit (the root: past n). */
static long low_place(const tree_t *tr, int v)
{
    long d = 1;
    if (v == 0) {
        while (d < tr->n)
            d *= tr->K;
        return d;
    }
    while ((v / d) % tr->K == 0)
        d *= tr->K;
    return d;
}

static int parent(const tree_t *tr, int v)
{
    long d = low_place(tr, v);
    return (int)(v - ((v / d) % tr->K) * d);
}

static int span(const tree_t *tr, int v)
{
    long d = low_place(tr, v);
    return (int)(d < tr->n - v ? d : tr->n - v);
}

/* Children of v, smallest subtrees first (the order they complete in). */
static int children(const tree_t *tr, int v, int *out)
{
    int c = 0;
    long top = low_place(tr, v);
    for (long d = 1; d < top; d *= tr->K)
        for (long j = 1; j < tr->K && v + j * d < tr->n; j++)
            out[c++] = (int)(v + j * d);
    return c;
}

static int exchange(pc_smp_t *s)
{
    tree_t tr = {s->nn, (long)s->t->cfg.chan.ports + 1};
    int v = s->t->node, nn = s->nn;
    int *kids = malloc((size_t)nn * sizeof *kids);
    pc_smp_xfer_t *x = malloc(((size_t)nn + 1) * sizeof *x);
    if (!kids || !x) {
        free(kids), free(x);
        return MPI_ERR_NO_MEM;
    }
    int nk = children(&tr, v, kids);
    /* Receives: each child's subtree; then (not the root) the complement of
     * my subtree from my parent. */
    for (int i = 0; i < nk; i++)
        x[i] = (pc_smp_xfer_t){kids[i], kids[i], span(&tr, kids[i])};
    int nrecv = nk, up = v == 0 ? -1 : parent(&tr, v), mine = span(&tr, v);
    if (up >= 0)
        x[nrecv++] = (pc_smp_xfer_t){up, (v + mine) % nn, nn - mine};
    int rc = pc_smp_expose(s, x, nrecv);
    if (rc == MPI_SUCCESS)
        rc = pc_smp_local_ready(s);
    /* Gather: children, then my subtree up. */
    if (rc == MPI_SUCCESS)
        rc = pc_smp_recv_all(s, x, nk);
    if (rc == MPI_SUCCESS && up >= 0) {
        pc_smp_xfer_t to_parent = {up, v, mine};
        rc = pc_smp_send(s, &to_parent);
        if (rc == MPI_SUCCESS)
            rc = pc_flush(&s->c);
        if (rc == MPI_SUCCESS)
            rc = pc_smp_recv_all(s, &x[nk], 1);
    }
    /* Broadcast: largest subtrees first, each child gets what it lacks. */
    for (int i = nk - 1; i >= 0 && rc == MPI_SUCCESS; i--) {
        int sp = span(&tr, kids[i]);
        pc_smp_xfer_t down = {kids[i], (kids[i] + sp) % nn, nn - sp};
        rc = pc_smp_send(s, &down);
    }
    if (rc == MPI_SUCCESS)
        rc = pc_smp_copy_and_flush(s); /* while the broadcast's puts fly */
    free(kids), free(x);
    return rc;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    if (!pc_smp_fits(t, a->m)) /* the result would not fit the node segment */
        return pc_allgather_direct.run(t, a);
    pc_smp_t s;
    int rc = pc_smp_begin(&s, t, a, "allgather smp_gather_bcast");
    if (rc == MPI_SUCCESS && s.master)
        rc = exchange(&s);
    return pc_smp_end(&s, rc);
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports > 0 ? ctx->ports : 1, S = 0;
    for (long d = 1; d < ctx->nnodes; d *= (long)k + 1)
        S++;
    double L = ctx->ppn_max, n = ctx->nnodes;
    double gather = S * ctx->alpha + (n - 1) / k * L * (double)m * ctx->beta;
    double bcast = S * (ctx->alpha + ((double)ctx->p - L) * (double)m * ctx->beta);
    return pc_smp_cost(ctx, m, gather + bcast);
}

const pacoll_algo_t pc_allgather_smp_gather_bcast = {
    .name = "smp_gather_bcast",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "multirail-smp-collectives-qsnet §5.2.1, Fig. 7; §5.1.1 eq. 1",
    .summary = "shm gather, k-nomial tree gather + broadcast among node masters, shm copy-out",
    .run = run,
    .cost = cost,
    .params = pc_smp_params,
};
