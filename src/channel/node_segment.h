/*
 * The node segment: one shared-memory window per (virtual) node, for the
 * hierarchical algorithms' intra-node phases (multirail §5.2, pap-aware
 * §4.4-4.5, sloavx §IV, the multicore slides).
 *
 * Layout: a flag block, then a data area.  Every local rank has two flags,
 * each on its own cache line:
 *   post[i]: the last operation for which rank i's data (gather) or the
 *            root's data (bcast, scatter) is in the area;
 *   done[i]: the last operation rank i has finished with the area.
 * plus nnodes "remote" flags, one per remote node, for algorithms that
 * hand each remote node's data out as soon as it lands (pap-aware §4.5),
 * and one row of PC_SEG_ROW bytes per local rank that an algorithm lays out
 * as it needs (the SMP allgathers' shared copy-out); it is part of the flag
 * block, so it does not grow the data area.
 * Operations are numbered by a ticket that every local rank advances in the
 * same order, so flags are never cleared, only overtaken.  An operation may
 * write the area only when every local rank is done with the previous one.
 *
 * Allocation follows SMPI-NOTES: local rank 0 allocates the whole segment,
 * the others pass size 0 and compute addresses from shared_query(0).
 */
#ifndef PACOLL_NODE_SEGMENT_H
#define PACOLL_NODE_SEGMENT_H

#include "channel/peers.h"
#include "channel/room.h"
#include "channel/wait.h"

typedef struct pc_seg {
    const pc_peers_t *peers; /* my node: node_comm, local ranks */
    MPI_Win win;
    int have;
    char *base;       /* the segment */
    size_t capacity;  /* bytes of the data area */
    size_t flag_bytes;
    uint64_t ticket;  /* last operation started */
    /* pc_seg_fits: the largest data area every node agreed it can hold,
     * and the smallest request refused (the same on every rank) */
    size_t agreed, refused;
    size_t node_refused; /* pc_seg_fits_node: the same on the node's ranks */
} pc_seg_t;

typedef struct pc_seg_op {
    pc_seg_t *s;
    uint64_t ticket;
    char *buf; /* the data area */
    pc_wait_t *w;
} pc_seg_op_t;

/* Bytes of a local rank's row (pc_seg_row). */
#define PC_SEG_ROW 2048

/* What the first segment needs on my host (for the set-up's agreement,
 * pc_chan_create). */
pc_room_t pc_seg_first_room(const pc_peers_t *peers);
/* Makes the segment (collective over the node); peers must outlive it. */
int pc_seg_create(pc_seg_t *s, const pc_peers_t *peers);
void pc_seg_free(pc_seg_t *s);

/* Whether every node's segment can hold `bytes` of data area: 1 at once
 * up to a size agreed before, 0 at once from a size refused before or
 * above PACOLL_SHM_MAX; else every node checks its host's room (room.h)
 * and one agreement over the team decides.  Collective over the team then:
 * every rank must pass the same bytes (an algorithm's bound for the
 * largest node), so that all run the algorithm, or all its fallback. */
int pc_seg_fits(pc_seg_t *s, size_t bytes);
/* The same over my node only, for an algorithm whose nodes need different
 * sizes and that has a way for one node alone to do without (sloavx):
 * every local rank passes the same bytes; agreed over the node only when
 * the segment must grow. */
int pc_seg_fits_node(pc_seg_t *s, size_t bytes);
/* Starts an operation needing `bytes` of data area.  Collective over the
 * node: every local rank must pass the same bytes (the segment grows then). */
int pc_seg_begin(pc_seg_t *s, size_t bytes, pc_wait_t *w, pc_seg_op_t *op);
/* Marks my data of this operation as in the area (post[me] = ticket). */
void pc_seg_post(pc_seg_op_t *op);
/* True once local rank i has posted this operation (never waits). */
int pc_seg_posted(pc_seg_op_t *op, int local);
/* Waits until local rank i has posted this operation. */
int pc_seg_wait_post(pc_seg_op_t *op, int local);
/* Waits until every local rank other than me has posted. */
int pc_seg_wait_all_posts(pc_seg_op_t *op);
/* Marks that I am finished with the area for this operation. */
void pc_seg_end(pc_seg_op_t *op);
/* pap-aware §4.5: the remote-node flag of node n for this operation. */
void pc_seg_post_remote(pc_seg_op_t *op, int node);
int pc_seg_remote_posted(pc_seg_op_t *op, int node);
/* Local rank i's row: what is in it is the algorithm's (64-byte aligned). */
char *pc_seg_row(const pc_seg_op_t *op, int local);

/* Primitives over the node (root is a local index; blocks in local order). */
int pc_seg_gather(pc_seg_t *s, pc_wait_t *w, const void *send, size_t m, void *recv, int root);
int pc_seg_gatherv(pc_seg_t *s, pc_wait_t *w, const void *send, const size_t *counts,
                   const size_t *displs, void *recv, int root);
int pc_seg_bcast(pc_seg_t *s, pc_wait_t *w, void *buf, size_t n, int root);
int pc_seg_scatter(pc_seg_t *s, pc_wait_t *w, const void *send, size_t m, void *recv, int root);
int pc_seg_scatterv(pc_seg_t *s, pc_wait_t *w, const void *send, const size_t *counts,
                    const size_t *displs, void *recv, int root);

#endif
