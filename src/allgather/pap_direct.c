/*
 * allgather "pap_direct": the process-arrival-pattern-aware Direct allgather.
 *
 * Source: pap-aware-alltoall-allgather-rdma §4.1, §4.3 (Fig. 5, the same
 * pseudo-code as alltoall).  The arrival-aware mode of the k-port Direct
 * exchange (src/engine/direct_engine.c, see alltoall/pap_direct.c): every rank
 * writes its one block into slot p of each peer, arrived peers first
 * (advertisement or data seen), never stalling on a late one.  Blocks up to
 * PACOLL_PAP_THRESHOLD bytes go copy-based, larger ones zero-copy; copy-
 * based blocks too small to pay for the arrival polls go in Direct's order
 * (engine/direct_engine.c arrival_order_pays).
 *
 * Cost (Hockney, m bytes per block), with every rank arrived: Direct's
 *     T = ceil((N-1)/k) * (alpha + m beta)
 * with k = PACOLL_PORTS (pc_direct_cost), though the writes are posted all
 * at once as in the paper (pc_call_set_window): an upper bound.
 */
#include "engine/direct_engine.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    pc_layout_t x;
    pc_xopts_t o = pc_pap_opts(t);
    pc_layout_allgather(&x, a, t->size);
    return pc_direct_run(t, "allgather pap_direct", &x, &o);
}

const pacoll_algo_t pc_allgather_pap_direct = {
    .name = "pap_direct",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "pap-aware-alltoall-allgather-rdma §4.1, §4.3",
    .summary = "arrival-aware Direct: the block to arrived peers first, never stalls; ceil((N-1)/k)(a+mb)",
    .run = run,
    .cost = pc_direct_cost,
    .params = pc_pap_params,
    .nonblocking = 1,
};
