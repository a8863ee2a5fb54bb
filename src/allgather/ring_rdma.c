/*
 * allgather "ring_rdma": the ring algorithm, fully zero-copy, with one
 * registration and one address exchange per call.
 *
 * Source: rdma-allgather-infiniband §4.3 (RDMA ring for large messages and
 * many processes), §2.3 eq. (2), §3.3-3.4.
 *
 * Mapping onto pacoll's channel (src/channel/channel.h):
 *   - every rank registers its whole receive buffer once per call
 *     (pc_expose_begin, through the registration cache) and advertises it
 *     once, to its left neighbour, the only rank that writes into it: one
 *     registration and one address exchange per call, where a ring over
 *     point-to-point rendezvous needs p registrations and p-1 exchanges;
 *   - at step s a rank writes block (rank - s) mod N at its own offset of the
 *     right neighbour's receive buffer (pc_zput: a counted write), and
 *     flushes it, so the neighbour's done counter shows it at once;
 *   - a block is forwarded as soon as the done counter from the left shows
 *     it has landed (count s means blocks rank-1 .. rank-s are in place):
 *     no copies, no rendezvous, no per-step handshake;
 *   - pc_call_end completes every put before the call returns.
 * Any N works (N = 2: left and right are the same rank, one write each way).
 *
 * Cost (Hockney, m bytes per block):
 *     T = (N-1) (alpha + m beta)
 * Only nearest-neighbour traffic: on networks without full bisection
 * bandwidth, or with many ranks per NIC, it keeps the links it uses
 * uncontended, which the cost model does not see.
 */
#include "channel/channel.h"
#include "core/team.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    int n = t->size, me = t->rank;
    int left = (me - 1 + n) % n, right = (me + 1) % n;
    size_t m = a->m, all = (size_t)n * m;
    pc_call_t c;
    pc_remote_t rem;
    pc_call_begin(&c, &t->chan, "allgather ring_rdma");
    int rc = MPI_SUCCESS;
    if (n > 1) { /* my whole buffer, once, to the one rank that writes it */
        rc = pc_expose_begin(&c, a->rbuf, all, pc_needs_window(&c, left));
        if (rc == MPI_SUCCESS)
            rc = pc_advertise(&c, left, a->rbuf, all);
        if (rc == MPI_SUCCESS)
            rc = pc_expose_end(&c);
    }
    pc_copy_own(a->rbuf + (size_t)me * m, a->sbuf, m);
    if (rc == MPI_SUCCESS && n > 1)
        rc = pc_adv_wait(&c, right, &rem);
    for (int s = 0; s < n - 1 && rc == MPI_SUCCESS; s++) {
        size_t off = (size_t)((me - s + n) % n) * m;
        if (s > 0) /* block me-s came from the left in its step s-1 */
            rc = pc_done_wait(&c, left, (uint32_t)s);
        if (rc == MPI_SUCCESS)
            rc = pc_zput(&c, right, &rem, off, a->rbuf + off, m);
        if (rc == MPI_SUCCESS)
            rc = pc_flush(&c);
    }
    if (rc == MPI_SUCCESS && n > 1)
        rc = pc_done_wait(&c, left, (uint32_t)(n - 1));
    if (rc == MPI_SUCCESS && m > 0) /* every rank's block reached me */
        pc_call_all_arrived(&c);
    int rc2 = pc_call_end(&c);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    return (double)(ctx->p - 1) * (ctx->alpha + (double)m * ctx->beta);
}

const pacoll_algo_t pc_allgather_ring_rdma = {
    .name = "ring_rdma",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "rdma-allgather-infiniband §4.3 (ring over RDMA, zero-copy)",
    .summary = "zero-copy ring: one registration, one address exchange per call; (N-1)(a+mb)",
    .run = run,
    .cost = cost,
    .nonblocking = 1,
};
