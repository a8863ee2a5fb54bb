/*
 * gather "direct": every rank writes its block straight into the root.
 *
 * Source: multirail-smp-collectives-qsnet §4.2, eq. 2 (Direct gather with
 * k ports: the root takes k blocks at a time).  Small blocks go into the
 * root's eager slots, so a non-root need not wait for the root to arrive;
 * large ones wait for the root's advertisement and land zero-copy.
 *
 * Cost (Hockney, k ports, m bytes per block):
 *     T = ceil((N-1)/k) * (alpha + m beta)
 */
#include "core/exchange.h"

static size_t to_root(const pc_layout_t *x, int peer) { return peer == x->a->root ? x->a->m : 0; }
static size_t none(const pc_layout_t *x, int peer) { return PC_UNUSED(x), PC_UNUSED(peer), 0; }
static size_t from_all(const pc_layout_t *x, int peer) { return PC_UNUSED(peer), x->a->m; }
static size_t at_peer(const pc_layout_t *x, int peer) { return (size_t)peer * x->a->m; }

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    int root = t->rank == a->root;
    pc_layout_t x = {a, to_root, none, root ? from_all : none, at_peer,
                     root ? (size_t)t->size * a->m : 0};
    if (root)
        x.send_count = none; /* the root's own block is the local copy */
    return pc_direct_exchange(t, "gather direct", &x);
}

const pacoll_algo_t pc_gather_direct = {
    "direct", PACOLL_GATHER, PACOLL_NEEDS_RMA, "multirail-smp-collectives-qsnet §4.2, eq. 2",
    "k-port Direct: every rank writes into the root; ceil((N-1)/k)(a+mb)", run, pc_direct_cost};
