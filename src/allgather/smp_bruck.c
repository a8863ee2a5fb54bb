/*
 * allgather "smp_bruck": the SMP-aware Bruck allgather.
 *
 * Source: multirail-smp-collectives-qsnet §5.2.2 (SMP-aware Bruck), §5.1.2
 * (k-port Bruck for any N, Fig. 5), the overlap and the shift-free copy-out
 * of §5.2.2's last paragraph; measured in §7.4 (best for 512 B-8 KB there).
 *
 * Mapping onto pacoll (phases 1 and 3 are src/engine/smp_allgather.c):
 *   1. per-node shm gather into the node segment (as smp_direct).
 *   2. k-port Bruck among the n node masters, k = PACOLL_PORTS.  At step s
 *      (d = (k+1)^s) and for j = 1..k with j d < n, the master of node v
 *      sends the nodes it holds, [v, v + c) with c = min(d, n - j d), to
 *      the master of node v - j d, and receives [v + j d, v + j d + c)
 *      from the master of node v + j d.  The blocks are written at their
 *      final place in the receiving node's segment (every node's block has
 *      a fixed offset there, node_first[u] m), so Bruck's final local shift
 *      disappears: a range that wraps round past the last node is two puts
 *      (zero-copy) or one packed eager message.  Each (s, j) is a different
 *      partner, so each ordered pair of masters talks once per call, and
 *      every receive area is advertised at call start.  After posting a
 *      step's puts the master copies out what landed in the step before
 *      (its own node at the first step) while they fly.
 *   3. per-node shm broadcast: each node's flag rises as its block lands
 *      (at the step that brings it), and every local rank copies it out in
 *      communicator rank order; no rank ever reorders the segment.
 * Uneven nodes: blocks are L_u m bytes, so the steps move unequal ranges
 * (an allgatherv); the offsets come from node_first.  One node: phases 1
 * and 3 only.  One rank per node: the flat k-port Bruck allgather, straight
 * into the receive buffers.
 *
 * Cost (Hockney, k ports, n nodes of at most L ranks, P ranks, m bytes):
 *     T = (a_s + m b_s)
 *       + max(ceil(log_{k+1} n) a + ((n-1)/k) L m b, L m b_s)
 *       + a_s + (P - L) m b_s
 * (eq. 1 over nodes with l_m = L m, plus the shm gather and copy-out).
 */
#include "engine/smp_allgather.h"

#include <math.h>

extern const pacoll_algo_t pc_allgather_direct;

/* Number of Bruck transfers per direction among nn nodes, radix K. */
static int count_xfers(int nn, long K)
{
    int n = 0;
    for (long d = 1; d < nn; d *= K)
        for (long j = 1; j < K && j * d < nn; j++)
            n++;
    return n;
}

static int exchange(pc_smp_t *s)
{
    int nn = s->nn, v = s->t->node;
    long K = (long)s->t->cfg.chan.ports + 1;
    int nx = count_xfers(nn, K);
    pc_smp_xfer_t *x = malloc(2 * ((size_t)nx + 1) * sizeof *x), *recv = x, *send = x + nx + 1;
    int *step_end = malloc(((size_t)nx + 1) * sizeof *step_end), nsteps = 0;
    if (!x || !step_end) {
        free(x), free(step_end);
        return MPI_ERR_NO_MEM;
    }
    int i = 0;
    for (long d = 1; d < nn; d *= K) {
        for (long j = 1; j < K && j * d < nn; j++, i++) {
            int c = (int)(d < nn - j * d ? d : nn - j * d);
            int from = (int)((v + j * d) % nn), to = (int)(((v - j * d) % nn + nn) % nn);
            recv[i] = (pc_smp_xfer_t){from, from, c};
            send[i] = (pc_smp_xfer_t){to, v, c};
        }
        step_end[nsteps++] = i;
    }
    int rc = pc_smp_expose(s, recv, nx);
    if (rc == MPI_SUCCESS)
        rc = pc_smp_local_ready(s);
    for (int st = 0, lo = 0; st < nsteps && rc == MPI_SUCCESS; lo = step_end[st++]) {
        for (i = lo; i < step_end[st] && rc == MPI_SUCCESS; i++)
            rc = pc_smp_send(s, &send[i]);
        if (rc != MPI_SUCCESS)
            break;
        rc = pc_smp_copy_and_flush(s); /* what the last step brought, while the puts fly */
        if (rc == MPI_SUCCESS)
            rc = pc_smp_recv_all(s, recv + lo, step_end[st] - lo);
    }
    free(x), free(step_end);
    return rc;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    if (!pc_smp_fits(t, a->m)) /* the result would not fit the node segment */
        return pc_allgather_direct.run(t, a);
    pc_smp_t s;
    int rc = pc_smp_begin(&s, t, a, "allgather smp_bruck");
    if (rc == MPI_SUCCESS && s.master)
        rc = exchange(&s);
    return pc_smp_end(&s, rc);
}

/* ceil(log_K n) without floating point. */
static int steps(int n, long K)
{
    int s = 0;
    for (long d = 1; d < n; d *= K)
        s++;
    return s;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports > 0 ? ctx->ports : 1;
    double inter = steps(ctx->nnodes, (long)k + 1) * ctx->alpha +
                   (double)(ctx->nnodes - 1) / k * (double)ctx->ppn_max * (double)m * ctx->beta;
    return pc_smp_cost(ctx, m, inter);
}

const pacoll_algo_t pc_allgather_smp_bruck = {
    .name = "smp_bruck",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "multirail-smp-collectives-qsnet §5.2.2, §5.1.2 (Fig. 5)",
    .summary = "shm gather, k-port Bruck among node masters into the remote node segments (no shift), shm copy-out",
    .run = run,
    .cost = cost,
    .params = pc_smp_params,
};
