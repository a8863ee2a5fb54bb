/*
 * alltoall "exchange": the k-port Standard Exchange, any N.
 *
 * Source: multirail-smp-collectives-qsnet §5.1.3 (Standard Exchange
 * all-to-all: the grouping of the Standard Exchange all-gather, N/(k+1)
 * blocks to each partner per step), after Bokhari 1996; cost eq. (5); the
 * Hockney model of §3.2.
 *
 * With K = k + 1 and P = K^L the largest power of K not above N: in step i
 * (i = 0..L-1) core rank c (c < P) exchanges with the k ranks that differ
 * from it only in base-K digit i, sending each the blocks bound for that
 * rank's side of digit i.  The step is the Bruck step of alltoall "bruck"
 * with digit-wise (carry-free) arithmetic, so both run on one engine
 * (pc_alltoall_digits in engine/step_engine.c, which explains the layout).
 *
 * Correction rounds for N not a power of K (the paper only says they are
 * needed, and measures their penalty at 16 ranks, §7.3): rank e >= P first
 * writes its whole send buffer to core e mod P; the cores exchange "fat"
 * blocks (all ranks a core stands for, to all ranks another stands for); at
 * the end each core writes its extras' columns straight into their receive
 * buffers.
 *
 * On pacoll's channel (one call): each (step, partner) has its own region
 * of a temporary area advertised at call start; partners differ per step,
 * and an extra talks to its core once each way, so each ordered pair talks
 * once.  Small messages eager, large ones one zero-copy put of the packed
 * blocks.
 *
 * Cost (Hockney, k ports, m bytes per block, P = (k+1)^L <= N, s = ceil(N/P)):
 *     N = P:  T = L alpha + L N/(k+1) m beta          (eq. 5)
 *     else:   T = (L+2) alpha + (L P/(k+1) s^2 + 2N) m beta
 *     plus the packing and copy-out copies (see pc_alltoall_digits_cost).
 */
#include "engine/step_engine.h"

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    return pc_alltoall_digits(t, a, PC_DIGITS_EXCHANGE, "alltoall exchange");
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    return pc_alltoall_digits_cost(ctx, m, PC_DIGITS_EXCHANGE);
}

const pacoll_algo_t pc_alltoall_exchange = {
    .name = "exchange",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §5.1.3, eq. 5",
    .summary = "k-port Standard Exchange (carry-free digits), 2 correction rounds for other N",
    .run = run,
    .cost = cost,
    .nonblocking = 1,
};
