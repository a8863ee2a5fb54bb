/*
 * What the multi-core aware alltoall schemes (the multicore slides:
 * `leader` and `multileader`) share: sub-teams that run an inter-node
 * algorithm among one rank per node, the lanes of multileader, the NIC's
 * nature (PACOLL_NIC), and a copier that merges adjacent blocks.
 *
 * Sub-teams are ordinary teams (pc_team_get) on communicators the parent
 * team owns: the leaders' sub-team hangs on t->leader_comm, each lane's on
 * a lane communicator kept in t->hier.  Freeing the parent frees those
 * communicators, whose attribute callbacks free the sub-teams (collectively,
 * over the sub-communicator), so nested teams need no bookkeeping of their
 * own at MPI_Finalize: a sub-team is always younger than its parent and is
 * freed inside the parent's free, on every member at the same point.
 */
#ifndef PACOLL_HIER_H
#define PACOLL_HIER_H

#include "core/team.h"

/* One lane of multileader: the ranks that talk to one rank per other node. */
typedef struct pc_lane {
    int index;            /* lane number: local index of its real members */
    MPI_Comm comm;        /* one rank of every node, ordered by node */
    pacoll_team_t *team;  /* the sub-team on comm (owned by comm's attribute) */
} pc_lane_t;

typedef struct pc_hier {
    int nlanes;      /* lanes this rank carries (ascending index) */
    pc_lane_t *lane;
    int error;       /* the set-up failed (MPI error code): every later call fails too */
} pc_hier_t;

/* Lanes of multileader: lane l holds, on every node A, the rank of local
 * index l mod L_A (its own core l when A has more than l ranks, otherwise a
 * carrier that stands in for the missing core).  Made on first use,
 * collectively over the team, and kept until the team is freed. */
const pc_hier_t *pc_hier_lanes(pacoll_team_t *t, int *err);
void pc_hier_free(pacoll_team_t *t);
void pc_hier_free_local(pacoll_team_t *t);

/* True when every node has the same number of ranks. */
static inline int pc_hier_even(const pacoll_team_t *t) { return t->ppn_max * t->nnodes == t->size; }
/* True when node n's ranks are n's block of the communicator, in order. */
int pc_hier_consecutive(const pacoll_team_t *t);

/* Runs a->coll (alltoall or alltoallv, bytes) on sub-team `sub` with the
 * inter-node algorithm PACOLL_LEADER_ALG names (default direct; auto: the
 * selector on the sub-team, never a node-segment scheme). */
int pc_hier_inner(const pacoll_team_t *t, pacoll_team_t *sub, const pc_args_t *a);

/* The NIC's nature for this team (enum pc_nic): PACOLL_NIC, or on auto a
 * measurement made the first time it is asked (collective over the team:
 * every rank asks at the same call, see select.c).  See docs/MULTICORE.md. */
int pc_nic_kind(pacoll_team_t *t);
/* The largest block (bytes) for which the selector prefers multileader on
 * an onload NIC and leader on an offload one (measured, docs/MULTICORE.md). */
#define PC_NIC_ONLOAD_MAX_BYTES ((size_t)1 << 10)
#define PC_NIC_OFFLOAD_MAX_BYTES ((size_t)1 << 10)

/* Copies blocks, merging each into the previous one when both its source
 * and its destination follow on (consecutive ranks copy as one run). */
typedef struct pc_run {
    char *dst;
    const char *src;
    size_t n;
} pc_run_t;

static inline void pc_run_flush(pc_run_t *r)
{
    if (r->n)
        pc_copy(r->dst, r->src, r->n);
    r->n = 0;
}

static inline void pc_run_add(pc_run_t *r, char *dst, const char *src, size_t n)
{
    if (r->n && r->dst + r->n == dst && r->src + r->n == src) {
        r->n += n;
        return;
    }
    pc_run_flush(r);
    r->dst = dst, r->src = src, r->n = n;
}

#endif
