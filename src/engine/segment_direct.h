/*
 * The shared-memory-aware Direct exchange (pap-aware §4.4-4.5, Figs. 6-7;
 * multirail §5.2's SMP-aware Direct), for alltoall and allgather:
 *
 *   phase 1  every local rank copies its data into the node segment
 *            (a gather to the node's master, local index 0);
 *   phase 2  the masters run the k-port Direct exchange among themselves,
 *            plain (`shm_direct`) or arrival-aware (`pap_shm_direct`); the
 *            data goes zero-copy straight into the remote node's segment
 *            (the segment is what the remote master advertises), small
 *            node blocks copy-based through the eager slots;
 *   phase 3  every local rank copies its blocks out of the segment (a
 *            scatter for alltoall, a broadcast for allgather).
 * In the arrival-aware version the master raises one flag per remote node
 * as soon as that node's data has landed (pc_seg_post_remote), and every
 * local rank copies each node's data out as soon as its flag is up, without
 * waiting for the other masters (§4.4, "multiple shared done flags").
 *
 * Uneven and non-consecutive nodes work: the segment is laid out by node
 * (t->node_first / node_ranks), never by rank arithmetic.  Teams where every
 * node has one rank run the (pap-)Direct exchange itself (the shm phases
 * would only add two copies); single-node teams run phases 1 and 3 only.
 * A segment larger than PACOLL_SHM_MAX, or than some host has room for
 * (pc_seg_fits, agreed), also falls back to the Direct exchange (sized from
 * ppn_max, so every rank takes the same path).
 */
#ifndef PACOLL_SEGMENT_DIRECT_H
#define PACOLL_SEGMENT_DIRECT_H

#include "engine/direct_engine.h"

/* Runs alltoall or allgather (a->coll) through the node segment. */
int pc_segment_direct(pacoll_team_t *t, const pc_args_t *a, int pap, const char *what);

/* Hockney costs (L = ppn_max, K = nnodes, k ports):
 *  alltoall:  2 (alpha_shm + N m beta_shm) + ceil((K-1)/k) (alpha + L^2 m beta)
 *  allgather: (alpha_shm + m beta_shm) + (alpha_shm + N m beta_shm)
 *             + ceil((K-1)/k) (alpha + L m beta)
 * and the Direct cost when L = 1. */
double pc_segment_direct_alltoall_cost(const pc_cost_ctx_t *ctx, size_t m);
double pc_segment_direct_allgather_cost(const pc_cost_ctx_t *ctx, size_t m);

#endif
