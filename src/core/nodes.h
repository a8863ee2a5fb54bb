/*
 * A team's node layout from what each rank said of itself: arithmetic only,
 * no MPI, so the team (team.c gathers the keys) and the unit tests
 * (tests/unit/) run the same code.
 */
#ifndef PACOLL_NODES_H
#define PACOLL_NODES_H

/* The arrays are the caller's: node_of, local_of and node_ranks of size
 * entries, node_first of size + 1. */
typedef struct pc_nodes {
    int size;        /* ranks */
    int nnodes;      /* nodes (out) */
    int ppn_max;     /* ranks on the largest node (out) */
    int *node_of;    /* [size] node of each rank */
    int *local_of;   /* [size] index of each rank inside its node */
    int *node_first; /* [nnodes+1] offsets into node_ranks */
    int *node_ranks; /* ranks of node n: node_ranks[node_first[n] .. node_first[n+1]) */
} pc_nodes_t;

/* The virtual node of world rank w under PACOLL_NODE_SIZE: nodes of the
 * pattern's len sizes (each at least 1), taken in turn (cycled), over
 * consecutive world ranks; 0 when there is no pattern (len 0). */
int pc_virtual_node(const int *pattern, int len, int w);

/* Fills the layout from keys[2r], keys[2r+1]: rank r's host and virtual
 * node.  Ranks with the same pair share a node; nodes are numbered in the
 * order their first rank appears, so node 0 holds rank 0 whatever the
 * placement, and local indices follow rank order. */
void pc_nodes_make(pc_nodes_t *l, const int *keys);

#endif
