/*
 * gather "direct": every rank writes its block straight into the root.
 *
 * Source: multirail-smp-collectives-qsnet §4.2, eq. 2 (Direct gather with
 * k ports: the root takes k blocks at a time).  Small blocks go into the
 * root's eager slots, so a non-root need not wait for the root to arrive;
 * larger ones wait for the root's advertisement and land zero-copy.
 *
 * Where "small" ends is not the alltoall's eager limit: every copy-based
 * block is copied out by the root alone, (N-1) m bytes in series, while
 * one advertisement round costs about alpha for all senders at once.  So
 * blocks go zero-copy once (N-1) m beta_shm > alpha (the cost model's
 * numbers, the same on every rank; docs/MULTIPORT.md has the measurement
 * behind it).
 *
 * Cost (Hockney, k ports, m bytes per block):
 *     T = ceil((N-1)/k) * (alpha + m beta)
 */
#include "engine/direct_engine.h"
#include "gather/direct.h"

#include <stdint.h>

#include "select/select.h"

static size_t to_root(const pc_layout_t *x, int peer) { return peer == x->a->root ? x->a->m : 0; }
static size_t none(const pc_layout_t *x, int peer) { return PC_UNUSED(x), PC_UNUSED(peer), 0; }
static size_t from_all(const pc_layout_t *x, int peer) { return PC_UNUSED(peer), x->a->m; }
static size_t at_peer(const pc_layout_t *x, int peer) { return (size_t)peer * x->a->m; }

/* Largest block the root copies out of its slots rather than receives in
 * place: above it the serial copy-out costs more than one handshake.
 * two_level decides its node blocks by the same rule. */
size_t pc_gather_direct_copy_max(const pacoll_team_t *t)
{
    pc_cost_ctx_t cx;
    pc_cost_ctx(t, &cx);
    if (t->size < 2 || cx.beta_shm <= 0)
        return SIZE_MAX;
    return (size_t)(cx.alpha / ((double)(t->size - 1) * cx.beta_shm));
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    int root = t->rank == a->root;
    pc_layout_t x = {.a = a, .send_count = to_root, .send_disp = none,
                     .recv_count = root ? from_all : none, .recv_disp = at_peer,
                     .recv_span = root ? (size_t)t->size * a->m : 0};
    if (root)
        x.send_count = none; /* the root's own block is the local copy */
    pc_xopts_t o = {.pap = 0, .copy_max = pc_gather_direct_copy_max(t)};
    return pc_direct_run(t, "gather direct", &x, &o);
}

const pacoll_algo_t pc_gather_direct = {
    .name = "direct",
    .coll = PACOLL_GATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "multirail-smp-collectives-qsnet §4.2, eq. 2",
    .summary = "k-port Direct: every rank writes into the root; ceil((N-1)/k)(a+mb)",
    .run = run,
    .cost = pc_direct_cost,
    .params = pc_direct_params,
    .nonblocking = 1,
};
