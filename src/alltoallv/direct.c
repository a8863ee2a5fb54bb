/*
 * alltoallv "direct": the k-port Direct algorithm with per-pair sizes.
 *
 * Source: multirail-smp-collectives-qsnet §4.2 (Direct), the baseline of
 * sloavx §V.  Each pair decides copy-based or zero-copy from its own block
 * size, which both sides know (MPI requires matching type signatures); the
 * receiver advertises, per sender, exactly where that sender's block goes.
 *
 * Cost (Hockney, k ports, largest block m):
 *     T <= ceil((N-1)/k) * (alpha + m beta)
 */
#include "engine/direct_engine.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    pc_layout_t x;
    pc_layout_alltoallv(&x, a, t->size);
    return pc_direct_exchange(t, "alltoallv direct", &x);
}

const pacoll_algo_t pc_alltoallv_direct = {
    .name = "direct",
    .coll = PACOLL_ALLTOALLV,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §4.2; the baseline of sloavx §V",
    .summary = "k-port Direct with per-pair sizes; ceil((N-1)/k)(a+mb), m the largest block",
    .run = run,
    .cost = pc_direct_cost,
    .params = pc_direct_params,
    .nonblocking = 1,
};
