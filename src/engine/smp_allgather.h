/*
 * The shared engine of the SMP-aware allgathers (multirail-smp-collectives-
 * qsnet §5.2): smp_gather_bcast, smp_direct and smp_bruck differ only in how
 * the node masters exchange node blocks (phase 2); phases 1 and 3 live here.
 *
 *   phase 1  per-node shm gather: every local rank copies its block into the
 *            node segment and raises its post flag; the master (local index
 *            0) waits for the flags.
 *   phase 2  the masters move node blocks between the nodes' segments with
 *            the channel (eager slots for small ranges, zero-copy puts
 *            straight into the remote node's segment for larger ones).
 *   phase 3  per-node shm broadcast: the master raises a per-node "landed"
 *            flag (node_segment.h's remote flags) as each node's block arrives in its
 *            segment, and every local rank copies that block out at once, in
 *            communicator rank order.  So the copy-out overlaps the rest of
 *            phase 2 (the paper's overlap, for every rank, not only the
 *            master).  Beyond the paper (PACOLL_SMP_SHARE): the own node's
 *            blocks are copied out as each local rank posts, and a rank with
 *            nothing left to copy for itself copies into the receive
 *            buffers of local ranks still copying, so the rank that arrives
 *            last does not copy all P m bytes alone (smp_allgather.c, "The
 *            shared copy-out").
 *
 * The node buffer.  Every node's block sits at node_first[n] * m, in local
 * order: the layout of t->node_ranks.  A range of nodes [first, first+count)
 * (mod nnodes) is thus at most two byte ranges, which is what Bruck's steps
 * and the tree's complements send.  Blocks are node_size(n) * m bytes, so
 * uneven nodes make phase 2 an allgatherv; the copy-out maps node blocks to
 * ranks, so non-consecutive placement works.  When every node has one rank,
 * node n is rank n and the node buffer is the receive buffer itself: no
 * segment, no copies (the algorithms become their flat forms).
 *
 * Every rank makes the same channel calls (pc_call_begin/end); only masters
 * send or receive.
 */
#ifndef PACOLL_SMP_ALLGATHER_H
#define PACOLL_SMP_ALLGATHER_H

#include "channel/channel.h"
#include "core/team.h"

typedef struct pc_smp {
    pacoll_team_t *t;
    const pc_args_t *a;
    pc_call_t c;
    pc_seg_op_t op;
    int use_seg; /* node blocks meet in the node segment (else in rbuf) */
    int in_op;   /* the shm operation is begun (pc_smp_end ends it) */
    int master;  /* local index 0 */
    int nn;      /* nodes */
    char *buf;   /* the node buffer */
    size_t m, len;
    char *landed, *copied; /* per node: in buf; copied out to my rbuf */
    int ncopied;
    char **packs; /* eager staging of ranges that wrap round */
    int npacks;
    /* the shared copy-out (smp_allgather.c) */
    int share;
    int share_rc;     /* a failed write of a chunk (MPI_SUCCESS: none) */
    size_t chunk;
    int *first;       /* [nn + 1]: node n's chunks are first[n] .. first[n+1] */
    int *hint;        /* [local ranks x nn]: chunks before it are claimed */
    char *spent;      /* [nn]: every chunk of node n in my row is claimed */
    int nspent;
} pc_smp_t;

/* A transfer between masters: nodes [first, first + count) mod nnodes of
 * the node buffer, to or from the master of `node`. */
typedef struct pc_smp_xfer {
    int node, first, count;
} pc_smp_xfer_t;

/* Phase 1: starts the call (channel and segment) and puts my block in. */
int pc_smp_begin(pc_smp_t *s, pacoll_team_t *t, const pc_args_t *a, const char *what);
/* Master: exposes the node buffer once and advertises it to the master of
 * every zero-copy receive of the call (all of them, before any waiting). */
int pc_smp_expose(pc_smp_t *s, const pc_smp_xfer_t *recvs, int n);
/* Master: waits for the local ranks' blocks (end of phase 1); with the
 * shared copy-out, copies its chunks of the ranks already there meanwhile. */
int pc_smp_local_ready(pc_smp_t *s);
/* Master: posts a range to another master (eager or zero-copy).  The puts
 * may still be in flight: call pc_flush before waiting for anything. */
int pc_smp_send(pc_smp_t *s, const pc_smp_xfer_t *x);
/* Master: waits for every receive in recvs, in whatever order they land,
 * copying out landed nodes while it waits. */
int pc_smp_recv_all(pc_smp_t *s, const pc_smp_xfer_t *recvs, int n);
/* Copies every landed node not yet copied to my receive buffer. */
void pc_smp_copy_landed(pc_smp_t *s);
/* Master, after posting puts: pc_smp_copy_landed while they fly, then
 * completes them.  Where the transport can test its puts, those that land
 * are completed between copies, so their flags to the other masters are not
 * held back behind this node's copy-out. */
int pc_smp_copy_and_flush(pc_smp_t *s);
/* Phase 3 and the end: a master copies out what is left, the other ranks
 * copy every node out as its flag rises; then the call and the segment
 * operation end.  rc: the result so far (on error nothing is waited for). */
int pc_smp_end(pc_smp_t *s, int rc);

/* Bytes of nodes [first, first + count) mod nnodes. */
size_t pc_smp_range_bytes(const pc_smp_t *s, int first, int count);
/* The master's rank of node n. */
static inline int pc_smp_master_of(const pacoll_team_t *t, int n) { return t->node_ranks[t->node_first[n]]; }

/* Whether the node segment can hold the whole result (else the algorithms
 * hand the call to the flat Direct allgather). */
int pc_smp_fits(pacoll_team_t *t, size_t m);

/* The engine's parameter (base/param.h), listed by the three algorithms. */
extern const pc_param_t pc_param_smp_share;
extern const pc_param_t *const pc_smp_params[];

/* Cost of phases 1 and 3 around an inter-node phase costing t_inter
 * (Hockney, intra-node terms): the shm gather (alpha_shm + m beta_shm), the
 * inter-node phase overlapped with copying out the own node (L m beta_shm),
 * then the copy-out of the other nodes ((p - L) m beta_shm).  Zero when
 * every node has one rank (no segment). */
double pc_smp_cost(const pc_cost_ctx_t *ctx, size_t m, double t_inter);

#endif
