/*
 * Node layouts for the unit tests, made the way a team makes them
 * (core/team.c): rank r of the communicator is world rank world[r] on host
 * host[r]; its key is (the host's smallest world rank, its virtual node
 * under the PACOLL_NODE_SIZE pattern).
 */
#ifndef PACOLL_UNIT_LAYOUTS_H
#define PACOLL_UNIT_LAYOUTS_H

#include <stdlib.h>

#include "core/nodes.h"

typedef struct {
    pc_nodes_t l;
    int buf[4 * 64 + 1];
} unit_layout_t;

#define UNIT_MAX_RANKS 64

/* pattern may be NULL (len 0): physical hosts only. */
static inline void unit_layout(unit_layout_t *u, int size, const int *world, const int *host,
                               const int *pattern, int len)
{
    int keys[2 * UNIT_MAX_RANKS];
    for (int r = 0; r < size; r++) {
        int lowest = world[r];
        for (int q = 0; q < size; q++)
            if (host[q] == host[r] && world[q] < lowest)
                lowest = world[q];
        keys[2 * r] = lowest;
        keys[2 * r + 1] = pc_virtual_node(pattern, len, world[r]);
    }
    u->l = (pc_nodes_t){.size = size,
                        .node_of = u->buf,
                        .local_of = u->buf + size,
                        .node_ranks = u->buf + 2 * size,
                        .node_first = u->buf + 3 * size};
    pc_nodes_make(&u->l, keys);
}

/* A small deterministic generator (xorshift), so a failure can be replayed. */
static inline unsigned unit_rand(unsigned *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

/* world[]: 0..size-1 shuffled (or in order when shuffle is 0). */
static inline void unit_world(int *world, int size, int shuffle, unsigned *seed)
{
    for (int r = 0; r < size; r++)
        world[r] = r;
    for (int r = size - 1; shuffle && r > 0; r--) {
        int k = (int)(unit_rand(seed) % (unsigned)(r + 1)), x = world[r];
        world[r] = world[k], world[k] = x;
    }
}

#endif
