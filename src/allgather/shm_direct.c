/*
 * allgather "shm_direct": the shared-memory-aware Direct allgather.
 *
 * Source: pap-aware-alltoall-allgather-rdma §4.5 (Shm_Direct); multirail-smp-collectives-qsnet §5.2.
 * The three phases over the node segment, phase 3 a broadcast: engine/segment_direct.h.
 * Not arrival-aware: the masters' exchange is plain Direct, and the local
 * ranks copy out once every master's data has landed (one flag).
 * Teams with one rank per node run the Direct exchange itself.
 *
 * Cost (Hockney; N ranks, K nodes, L = ranks per node, k ports, m bytes):
 *     T = (alpha_shm + m beta_shm) + (alpha_shm + N m beta_shm)
 *       + ceil((K-1)/k) (alpha + L m beta)
 * (the masters' step dominates on a network; the copies inside a node).
 */
#include "engine/segment_direct.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    return pc_segment_direct(t, a, 0, "allgather shm_direct");
}

const pacoll_algo_t pc_allgather_shm_direct = {
    .name = "shm_direct",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "pap-aware-alltoall-allgather-rdma §4.5 (Shm_Direct); multirail-smp-collectives-qsnet §5.2",
    .summary = "shm gather to the node master, Direct among masters into the remote segment, shm broadcast",
    .run = run,
    .cost = pc_segment_direct_allgather_cost,
    .params = pc_direct_params,
};
