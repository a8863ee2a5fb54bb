/*
 * alltoall "pap_direct": the process-arrival-pattern-aware Direct alltoall.
 *
 * Source: pap-aware-alltoall-allgather-rdma §4.1-4.2 (Fig. 5).  The k-port
 * Direct exchange (src/engine/direct_engine.c) in its arrival-aware mode: each
 * rank advertises its receive buffer first (zero-copy: that advertisement
 * is its arrival notice, pc_adv_poll), then repeatedly
 *   - takes whatever blocks have landed (copy-based: a block in my slot says
 *     its sender has arrived),
 *   - polls from (p+1) mod N and writes its block to every peer known to
 *     have arrived,
 *   - and, copy-based, when no arrived peer is left, writes the next few
 *     blocks to peers not yet arrived (their slots need no receiver),
 * never stalling on one late peer, until every block is out and in.
 * Blocks up to PACOLL_PAP_THRESHOLD bytes (and what the eager slot holds)
 * go copy-based, larger ones zero-copy.  Copy-based blocks too small to
 * pay for the polls that learn arrivals (batch * m beta < peers * poll,
 * engine/direct_engine.c arrival_order_pays) go in Direct's order instead.
 *
 * Cost (Hockney, m bytes per block), with every rank arrived: Direct's
 *     T = ceil((N-1)/k) * (alpha + m beta)
 * with k = PACOLL_PORTS (pc_direct_cost), though the writes are posted all
 * at once as in the paper (pc_call_set_window): an upper bound.
 * Under skew (arrival times a_i) a rank's sends are never delayed by a late
 * peer it could have skipped: its last send leaves at about
 * max(a_p, a_late) + T, where plain Direct can queue up to N-1 sends behind
 * each late peer in its order (docs/PAP.md).
 */
#include "engine/direct_engine.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    pc_layout_t x;
    pc_xopts_t o = pc_pap_opts(t);
    pc_layout_alltoall(&x, a, t->size);
    return pc_direct_run(t, "alltoall pap_direct", &x, &o);
}

const pacoll_algo_t pc_alltoall_pap_direct = {
    .name = "pap_direct",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA,
    .source = "pap-aware-alltoall-allgather-rdma §4.1-4.2 (Fig. 5)",
    .summary = "arrival-aware Direct: writes to arrived peers first, never stalls; ceil((N-1)/k)(a+mb)",
    .run = run,
    .cost = pc_direct_cost,
    .params = pc_pap_params,
    .nonblocking = 1,
};
