/*
 * allgather "direct": the k-port Direct algorithm.
 *
 * Source: multirail-smp-collectives-qsnet §4.2 (Direct allgather, k ports)
 * and pap-aware §4.3 (its base algorithm).  At step i, rank p writes its
 * one block into slot p of its step-i peer (pc_direct_peer: the paper's
 * (p + i) mod N, or spread over nodes).
 *
 * Cost (Hockney, k ports, m bytes per block):
 *     T = ceil((N-1)/k) * (alpha + m beta)
 */
#include "engine/direct_engine.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    pc_layout_t x;
    pc_layout_allgather(&x, a, t->size);
    return pc_direct_exchange(t, "allgather direct", &x);
}

const pacoll_algo_t pc_allgather_direct = {
    .name = "direct",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §4.2; pap-aware §4.3 (base)",
    .summary = "k-port Direct: N-1 one-sided writes of the same block; ceil((N-1)/k)(a+mb)",
    .run = run,
    .cost = pc_direct_cost,
    .params = pc_direct_params,
    .nonblocking = 1,
};
