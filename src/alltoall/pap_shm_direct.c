/*
 * alltoall "pap_shm_direct": the arrival-pattern- and shared-memory-aware Direct alltoall.
 *
 * Source: pap-aware-alltoall-allgather-rdma §4.4 (Fig. 6).
 * The three phases over the node segment, phase 3 a scatter: engine/segment_direct.h.
 * Arrival-aware (pap-aware §4.4-4.5): the masters' exchange is pap_direct's,
 * and each remote node's data is handed out as soon as it lands (one done
 * flag per remote master), without waiting for the other masters.  Phase 1
 * cannot be arrival-aware: a master needs all its local ranks' data.
 * Teams with one rank per node run the arrival-aware Direct exchange itself.
 *
 * Cost (Hockney; N ranks, K nodes, L = ranks per node, k ports, m bytes):
 *     T = 2 (alpha_shm + N m beta_shm) + ceil((K-1)/k) (alpha + L^2 m beta)
 * with every rank arrived (the same as shm_direct).
 */
#include "engine/segment_direct.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    return pc_segment_direct(t, a, 1, "alltoall pap_shm_direct");
}

const pacoll_algo_t pc_alltoall_pap_shm_direct = {
    .name = "pap_shm_direct",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "pap-aware-alltoall-allgather-rdma §4.4 (Fig. 6)",
    .summary = "shm gather, arrival-aware Direct among masters, each node's data scattered as it lands",
    .run = run,
    .cost = pc_segment_direct_alltoall_cost,
    .params = pc_pap_params,
};
