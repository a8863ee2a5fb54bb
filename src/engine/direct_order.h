/*
 * Direct's step order (pc_direct_peer, direct_engine.h) as arithmetic on a
 * node layout: no MPI, so the engine and the unit tests (tests/unit/) run
 * the same code.
 */
#ifndef PACOLL_DIRECT_ORDER_H
#define PACOLL_DIRECT_ORDER_H

#include "core/nodes.h"

/* The rank that rank writes to (dir = +1) or hears from (dir = -1) at step
 * i, 0 < i < l->size.  by_rank, one node, or nodes of unequal sizes: the
 * papers' (rank + dir i) mod size.  Else the node-spread order: a step is
 * a pair (node offset a, local offset b) with a varying fastest, and for
 * every fixed step the map from senders to receivers is still a
 * permutation. */
static inline int pc_direct_order_peer(const pc_nodes_t *l, int by_rank, int rank, int i, int dir)
{
    int nn = l->nnodes, ppn = l->ppn_max, size = l->size;
    if (by_rank || nn <= 1 || nn * ppn != size)
        return ((rank + dir * i) % size + size) % size;
    int a = i % nn, b = i / nn;
    int node = ((l->node_of[rank] + dir * a) % nn + nn) % nn;
    int local = ((l->local_of[rank] + dir * b) % ppn + ppn) % ppn;
    return l->node_ranks[l->node_first[node] + local];
}

#endif
