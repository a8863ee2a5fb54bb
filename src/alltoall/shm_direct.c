/*
 * alltoall "shm_direct": the shared-memory-aware Direct alltoall.
 *
 * Source: pap-aware-alltoall-allgather-rdma §4.4 (Shm_Direct); multirail-smp-collectives-qsnet §5.2.
 * The three phases over the node segment, phase 3 a scatter: engine/segment_direct.h.
 * Not arrival-aware: the masters' exchange is plain Direct, and the local
 * ranks copy out once every master's data has landed (one flag).
 * Teams with one rank per node run the Direct exchange itself.
 *
 * Cost (Hockney; N ranks, K nodes, L = ranks per node, k ports, m bytes):
 *     T = 2 (alpha_shm + N m beta_shm) + ceil((K-1)/k) (alpha + L^2 m beta)
 * (the masters' step dominates on a network; the copies inside a node).
 */
#include "engine/segment_direct.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    return pc_segment_direct(t, a, 0, "alltoall shm_direct");
}

const pacoll_algo_t pc_alltoall_shm_direct = {
    .name = "shm_direct",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "pap-aware-alltoall-allgather-rdma §4.4 (Shm_Direct); multirail-smp-collectives-qsnet §5.2",
    .summary = "shm gather to the node master, Direct among masters into the remote segment, shm scatter",
    .run = run,
    .cost = pc_segment_direct_alltoall_cost,
    .params = pc_direct_params,
};
