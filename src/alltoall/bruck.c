/*
 * alltoall "bruck": the k-port Bruck algorithm, any N.
 *
 * Source: multirail-smp-collectives-qsnet §5.1.3 (Bruck all-to-all under
 * k-port modelling, Fig. 6), after Bruck et al. (IEEE TPDS 8(11), 1997);
 * cost eq. (5) for N a power of k+1; the Hockney model of §3.2.
 *
 * Three phases.  Phase 1 (rotate the send buffer so the own block is on
 * top) is index arithmetic: virtual block V of rank r is its send block for
 * rank (r + V) mod N, read where it is.  Phase 2: with K = k + 1, in step i
 * (i = 0..ceil(log_K N)-1) rank r sends to r + x K^i (x = 1..k, x K^i < N)
 * every block whose base-K digit i is x, and receives the same V's from
 * r - x K^i.  Phase 3 (the inverse rotation) is folded into the copy-out:
 * block V, which now comes from rank r - V, is copied straight to its place
 * in the receive buffer.
 *
 * On pacoll's channel (one call, engine/step_engine.h, the engine is
 * pc_alltoall_digits there): partners r + x K^i are all different, so each
 * ordered pair talks once.  Each (step, x) has its own region of a
 * temporary area, advertised at call start; a step's blocks are packed into
 * one message (eager when small, else one zero-copy put), and a block that
 * arrived is forwarded from where it landed, never copied back.  Memory:
 * about ceil(log_K N) k/K N m bytes of regions.
 *
 * Cost (Hockney, k ports, m bytes per block, L = ceil(log_{k+1} N)):
 *     T = L alpha + L N/(k+1) m beta           (eq. 5, N = (k+1)^L)
 *       + L N k/(k+1) m beta_copy (packing) + N m beta_copy (copy-out)
 */
#include "engine/step_engine.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    return pc_alltoall_digits(t, a, PC_DIGITS_BRUCK, "alltoall bruck");
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    return pc_alltoall_digits_cost(ctx, m, PC_DIGITS_BRUCK);
}

const pacoll_algo_t pc_alltoall_bruck = {
    .name = "bruck",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §5.1.3, eq. 5",
    .summary = "k-port Bruck, any N, rotations by index arithmetic: ceil(log_{k+1} N) steps",
    .run = run,
    .cost = cost,
    .nonblocking = 1,
};
