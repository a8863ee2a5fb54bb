/*
 * allgather "smp_direct": the SMP-aware Direct allgather.
 *
 * Source: multirail-smp-collectives-qsnet §5.2.2 (Fig. 8), with the overlap
 * of its last paragraph; measured in §7.4.
 *
 * Mapping onto pacoll (phases 1 and 3 are src/engine/smp_allgather.c):
 *   1. per-node shm gather: each local rank copies its m bytes to its place
 *      in the node segment and raises its post flag; the master (local
 *      index 0) waits for the flags.
 *   2. k-port Direct among the n masters: at step i the master of node v
 *      writes its node's block (L_v m bytes) straight into the node segment
 *      of node (v + i) mod n, which that node's master exposed and
 *      advertised at call start (pc_zput; the eager slot when the block
 *      fits PACOLL_EAGER).  At most k = PACOLL_PORTS puts fly at once.
 *      Right after posting the puts the master copies its own node's blocks
 *      out to its receive buffer, while they fly, then flushes.
 *   3. per-node shm broadcast: as each node's block lands the master raises
 *      that node's flag, and every local rank copies it out to its receive
 *      buffer in communicator rank order.
 * Uneven nodes make phase 2 an allgatherv (blocks of L_v m bytes).  One
 * node: phases 1 and 3 only (a shared-memory allgather).  One rank per
 * node: no segment; the blocks land in the receive buffers, i.e. the flat
 * Direct allgather.
 *
 * Cost (Hockney, k ports, n nodes of at most L ranks, P ranks, m bytes):
 *     T = (a_s + m b_s)                                  shm gather
 *       + max(ceil((n-1)/k) (a + L m b), L m b_s)        Direct || own copy-out
 *       + a_s + (P - L) m b_s                            copy-out of the rest
 * (a, b inter-node; a_s, b_s intra-node copy).
 */
#include "engine/smp_allgather.h"

#include <math.h>

extern const pacoll_algo_t pc_allgather_direct;

static int exchange(pc_smp_t *s)
{
    int nn = s->nn, v = s->t->node;
    pc_smp_xfer_t *x = malloc(2 * (size_t)nn * sizeof *x), *recv = x, *send = x + nn;
    if (!x)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < nn; i++) {
        int from = (v - i + nn) % nn;
        recv[i - 1] = (pc_smp_xfer_t){from, from, 1};
        send[i - 1] = (pc_smp_xfer_t){(v + i) % nn, v, 1};
    }
    /* Advertise before waiting for the local blocks: the other masters may
     * write into the segment while this node is still gathering. */
    int rc = pc_smp_expose(s, recv, nn - 1);
    if (rc == MPI_SUCCESS)
        rc = pc_smp_local_ready(s);
    for (int i = 0; i < nn - 1 && rc == MPI_SUCCESS; i++)
        rc = pc_smp_send(s, &send[i]);
    if (rc == MPI_SUCCESS)
        rc = pc_smp_copy_and_flush(s); /* the own node, while the puts fly */
    if (rc == MPI_SUCCESS)
        rc = pc_smp_recv_all(s, recv, nn - 1);
    free(x);
    return rc;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    if (!pc_smp_fits(t, a->m)) /* the result would not fit the node segment */
        return pc_allgather_direct.run(t, a);
    pc_smp_t s;
    int rc = pc_smp_begin(&s, t, a, "allgather smp_direct");
    if (rc == MPI_SUCCESS && s.master)
        rc = exchange(&s);
    return pc_smp_end(&s, rc);
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports > 0 ? ctx->ports : 1;
    double inter = ceil((double)(ctx->nnodes - 1) / k) *
                   (ctx->alpha + (double)ctx->ppn_max * (double)m * ctx->beta);
    return pc_smp_cost(ctx, m, inter);
}

const pacoll_algo_t pc_allgather_smp_direct = {
    .name = "smp_direct",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "multirail-smp-collectives-qsnet §5.2.2, Fig. 8",
    .summary = "shm gather, k-port Direct among node masters into the remote node segments, shm copy-out",
    .run = run,
    .cost = cost,
    .params = pc_smp_params,
};
