/*
 * What the multi-core aware alltoall schemes (the multicore slides:
 * `leader` and `multileader`, and sloavx's leaders) share: the inter-node
 * algorithm a sub-team of one rank per node runs (PACOLL_LEADER_ALG), and
 * a copier that merges adjacent blocks.
 *
 * Sub-teams are ordinary teams (pc_team_get) on communicators the parent
 * team owns: the leaders' sub-team hangs on t->leader_comm, each of
 * multileader's lanes on a lane communicator it keeps on the team
 * (pc_team_ext).  Freeing the parent frees those communicators, whose
 * attribute callbacks free the sub-teams (collectively, over the
 * sub-communicator), so nested teams need no bookkeeping of their own at
 * MPI_Finalize: a sub-team is always younger than its parent and is freed
 * inside the parent's free, on every member at the same point.
 */
#ifndef PACOLL_HIER_H
#define PACOLL_HIER_H

#include "core/team.h"

/* Runs a->coll (alltoall or alltoallv, bytes) on sub-team `sub` with the
 * inter-node algorithm PACOLL_LEADER_ALG names (default direct; auto: the
 * selector on the sub-team, never a node-segment scheme). */
int pc_hier_inner(const pacoll_team_t *t, pacoll_team_t *sub, const pc_args_t *a);

/* PACOLL_LEADER_ALG, for the descriptors of the schemes that use it. */
extern const pc_param_t pc_param_leader_alg;

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
