/*
 * alltoall "leader": the leader-based scheme of the multicore slides
 * ("Related work" / "Leader-based scheme for alltoall", Kumar, Mamidala,
 * Panda, "Scaling alltoall collective on multi-core systems").
 *
 *   step 1  every rank hands its data to its node's leader (shared memory);
 *   step 2  the leaders run an alltoall among themselves;
 *   step 3  the leaders hand every rank its data (shared memory).
 *
 * Mapping onto pacoll:
 *   - Steps 1 and 3 use the node segment (node_segment.h) with one operation each,
 *     but every rank copies its own blocks (the primitives' gather/scatter
 *     would put blocks in local order and leave a serial reshuffle of
 *     L x P blocks to the leader).  Step 1: local rank i writes its block for
 *     rank (B, j) of node B at  send + L_A m node_first[B] + (i L_B + j) m,
 *     so the leader's message for node B (the L_A x L_B blocks B's ranks need
 *     from A's ranks) is one contiguous run of the segment, sent from there
 *     without a copy.  Step 3: rank j of A reads the block of rank (B, i_B)
 *     at  recv + L_A m node_first[B] + (i_B L_A + j) m  (B packed it the same
 *     way); blocks from its own node it reads straight from the send half.
 *   - Step 2 runs on a sub-team of the leaders (t->leader_comm, made on the
 *     first call and freed with the team), with the algorithm
 *     PACOLL_LEADER_ALG names (default direct; `auto`: the selector on the
 *     leaders' sub-team).  With equal nodes it is an alltoall of L^2 m-byte
 *     blocks; with uneven nodes the block for node B is L_A L_B m bytes, an
 *     alltoallv.  The own node's block is exchanged too (a local copy; step
 *     3 reads the send half anyway): leaving it out (a zero-copy exposure
 *     whose first bytes no sender writes) made the simulator's puts fail
 *     with MPI_ERR_RMA_RANGE (docs/MULTICORE.md).
 *   - Uneven nodes and any placement (node_ranks) are covered by the offsets
 *     above; the segment holds 2 L_A P m bytes.  Above PACOLL_SHM_MAX, or
 *     what some host has room for (pc_seg_fits), the call runs `direct`
 *     instead (the test uses the largest node, so every rank decides alike).
 *
 * Cost (Hockney, N nodes of L ranks, P = N L, k ports, m bytes per block):
 *     T = 2 (alpha_shm + P m beta_shm) + ceil((N-1)/k) (alpha + L^2 m beta)
 * N-1 messages leave a node instead of L (P-L): the scheme wins where
 * per-message costs rule and more cores congest the interface (offload
 * NICs, small blocks); one core must move L times the bytes, so it loses
 * for large blocks.
 */
#include "engine/hier.h"

#include <math.h>

extern const pacoll_algo_t pc_alltoall_direct;

/* Offset of node B's part of either half (B's ranks x my node's ranks). */
static size_t node_part(const pacoll_team_t *t, int b, size_t m)
{
    return (size_t)t->local_size * m * (size_t)t->node_first[b];
}

/* Step 1: my blocks into the send half, in the leaders' message order. */
static void pack(const pacoll_team_t *t, const pc_args_t *a, char *send)
{
    pc_run_t run = {0};
    const size_t m = a->m, i = (size_t)t->local_rank;
    for (int b = 0; b < t->nnodes; b++) {
        size_t lb = (size_t)(t->node_first[b + 1] - t->node_first[b]);
        char *part = send + node_part(t, b, m) + i * lb * m;
        for (size_t j = 0; j < lb; j++) {
            int d = t->node_ranks[t->node_first[b] + (int)j];
            pc_run_add(&run, part + j * m, a->sbuf + (size_t)d * m, m);
        }
    }
    pc_run_flush(&run);
}

/* Step 3: my blocks out of the receive half (own node: the send half). */
static void unpack(const pacoll_team_t *t, const pc_args_t *a, const char *send, const char *recv)
{
    pc_run_t run = {0};
    const size_t m = a->m, la = (size_t)t->local_size, j = (size_t)t->local_rank;
    for (int b = 0; b < t->nnodes; b++) {
        const char *part = (b == t->node ? send : recv) + node_part(t, b, m);
        for (int ib = 0; ib < t->node_first[b + 1] - t->node_first[b]; ib++) {
            int s = t->node_ranks[t->node_first[b] + ib];
            pc_run_add(&run, a->rbuf + (size_t)s * m, part + ((size_t)ib * la + j) * m, m);
        }
    }
    pc_run_flush(&run);
}

/* Step 2, on the leader: one message per other node. */
static int leaders_exchange(pacoll_team_t *t, const pc_args_t *a, const char *send, char *recv)
{
    int rc;
    pacoll_team_t *sub = pc_team_get(t->leader_comm, &rc);
    if (!sub)
        return rc;
    sub->parent = t;
    if (sub->rank != t->node || sub->size != t->nnodes) {
        pc_log("alltoall leader: leader of node %d has rank %d of %d", t->node, sub->rank, sub->size);
        return MPI_ERR_INTERN;
    }
    const size_t m = a->m, la = (size_t)t->local_size;
    if (pc_team_even(t)) {
        pc_args_t in = {.coll = PACOLL_ALLTOALL, .sbuf = send, .rbuf = recv, .m = la * la * m};
        return pc_hier_inner(t, sub, &in);
    }
    size_t *v = malloc(2 * (size_t)t->nnodes * sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    size_t *counts = v, *displs = v + t->nnodes;
    for (int b = 0; b < t->nnodes; b++) {
        size_t lb = (size_t)(t->node_first[b + 1] - t->node_first[b]);
        counts[b] = la * lb * m; /* the same both ways; own node: see above */
        displs[b] = node_part(t, b, m);
    }
    pc_args_t in = {.coll = PACOLL_ALLTOALLV, .sbuf = send, .rbuf = recv, .scounts = counts,
                    .sdispls = displs, .rcounts = counts, .rdispls = displs};
    rc = pc_hier_inner(t, sub, &in);
    free(v);
    return rc;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    const size_t half = (size_t)t->local_size * (size_t)t->size * a->m;
    if (!pc_seg_fits(&t->seg, 2 * (size_t)t->ppn_max * (size_t)t->size * a->m))
        return pc_alltoall_direct.run(t, a);
    pc_wait_t w;
    pc_wait_init(&w, &t->chan, "alltoall leader");
    pc_seg_op_t in, out;
    int rc = pc_seg_begin(&t->seg, 2 * half, &w, &in);
    if (rc != MPI_SUCCESS)
        return rc;
    char *send = in.buf, *recv = in.buf + half;
    pack(t, a, send);
    pc_seg_post(&in);
    if (t->local_rank == 0) {
        rc = pc_seg_wait_all_posts(&in);
        if (rc == MPI_SUCCESS)
            rc = leaders_exchange(t, a, send, recv);
    }
    pc_seg_end(&in);
    /* The next operation starts once every local rank, the leader too, is
     * done with this one: for the others that is "the leader's results are
     * in the receive half".  Nobody writes the area in it, so it stays. */
    int rc2 = pc_seg_begin(&t->seg, 2 * half, &w, &out);
    if (rc2 == MPI_SUCCESS) {
        unpack(t, a, out.buf, out.buf + half);
        pc_seg_end(&out);
    }
    return rc != MPI_SUCCESS ? rc : rc2;
}

static double cost(const pc_cost_ctx_t *c, size_t m)
{
    double l = c->ppn_max, n = c->nnodes, k = c->ports > 0 ? c->ports : 1;
    return 2 * (c->alpha_shm + c->p * (double)m * c->beta_shm) +
           ceil((n - 1) / k) * (c->alpha + l * l * (double)m * c->beta);
}

const pacoll_algo_t pc_alltoall_leader = {
    .name = "leader",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "multicore-aware-alltoall slides, leader-based scheme (related work)",
    .summary = "node leaders gather through shm, alltoall(v) among leaders (PACOLL_LEADER_ALG), scatter",
    .run = run,
    .cost = cost,
    .params = (const pc_param_t *const[]){&pc_param_leader_alg, NULL},
};
