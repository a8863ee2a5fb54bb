/*
 * The k-port Direct exchange (multirail §4.2, pap-aware §4.2's base
 * algorithm): at step i a rank writes its block for its step-i peer
 * (pc_direct_peer) straight into that rank's memory, at most PACOLL_PORTS
 * writes in flight, and finishes when every incoming block has landed.  alltoall, allgather,
 * alltoallv and gather are all this exchange with a different layout of
 * blocks, so the `direct` algorithms share it.
 *
 * Small blocks go copy-based through the receiver's eager slots (no wait for
 * the receiver); larger ones zero-copy into the receive buffer the receiver
 * advertised.  Both sides decide per pair from the block size, so they agree.
 *
 * The same engine has a process-arrival-pattern-aware mode (pap-aware
 * §4.1-4.3, `pap_direct`): a rank sends first to the peers it knows have
 * arrived and never stalls on one late peer.  Arrival is learnt without any
 * control message: a zero-copy receiver's advertisement is its arrival
 * notice, and a copy-based sender's data sitting in my slot says it has
 * arrived.  See pc_xopts_t and docs/PAP.md.
 */
#ifndef PACOLL_DIRECT_ENGINE_H
#define PACOLL_DIRECT_ENGINE_H

#include "channel/channel.h"
#include "core/team.h"

/* PACOLL_DIRECT_ORDER (pc_direct_peer). */
enum pc_order { PC_ORDER_NODE = 0, PC_ORDER_RANK = 1 };

/* The engine's parameters (base/param.h): the algorithms built on it list
 * pc_direct_params (plain) or pc_pap_params (arrival-aware) in their
 * descriptors. */
extern const pc_param_t pc_param_direct_order, pc_param_pap_threshold, pc_param_pap_grace;
extern const pc_param_t *const pc_direct_params[];
extern const pc_param_t *const pc_pap_params[];

typedef struct pc_layout pc_layout_t;
struct pc_layout {
    const pc_args_t *a;
    /* bytes and offsets of the block for / from each peer */
    size_t (*send_count)(const pc_layout_t *x, int peer);
    size_t (*send_disp)(const pc_layout_t *x, int peer);
    size_t (*recv_count)(const pc_layout_t *x, int peer);
    size_t (*recv_disp)(const pc_layout_t *x, int peer);
    size_t recv_span; /* bytes of rbuf the receives may touch */
};

/* How the engine runs. */
typedef struct pc_xopts {
    /* pap-aware §4.2: serve arrived peers first, never stall on a late one */
    int pap;
    /* blocks of at most this many bytes go copy-based (when the eager slot
     * holds them and, unless past_eager, the transport's eager limit
     * allows); larger ones zero-copy.  SIZE_MAX: whatever the channel sends
     * eagerly. */
    size_t copy_max;
    /* copy_max may pass the eager limit (pap_*'s own threshold, set) */
    int past_eager;
    /* Optional hooks for hierarchical algorithms (pap_shm_direct): */
    void *ctx;
    /* after this rank has advertised, before its first send */
    int (*before_send)(void *ctx);
    /* src's block is complete in the receive buffer */
    void (*landed)(void *ctx, int src);
} pc_xopts_t;

/* The rank this rank writes to (dir = +1) or hears from (dir = -1) at step
 * i of Direct, 0 < i < size.  PACOLL_DIRECT_ORDER=rank: the papers' wrap-
 * around order, (p + i) mod N.  node (the default, when every node holds
 * the same number of ranks): consecutive steps go to consecutive nodes,
 * so the k writes in flight leave on different rails or reach different
 * NICs, and a node's intra-node steps are spread between its network
 * ones rather than bunched at the start (docs/MULTIPORT.md). */
int pc_direct_peer(const pacoll_team_t *t, int i, int dir);

/* The plain k-port Direct exchange (`direct`). */
int pc_direct_exchange(pacoll_team_t *t, const char *what, const pc_layout_t *x);
/* Runs the Direct engine with explicit options (plain or arrival-aware). */
int pc_direct_run(pacoll_team_t *t, const char *what, const pc_layout_t *x, const pc_xopts_t *o);
/* The options of `pap_direct` on this team (PACOLL_PAP_THRESHOLD). */
pc_xopts_t pc_pap_opts(const pacoll_team_t *t);

/* The two uniform layouts: alltoall (block p of sbuf to peer p, into block
 * src of rbuf) and allgather (the one send block to everyone). */
void pc_layout_alltoall(pc_layout_t *x, const pc_args_t *a, int size);
void pc_layout_allgather(pc_layout_t *x, const pc_args_t *a, int size);
/* alltoallv: the call's own counts and displacements (bytes). */
void pc_layout_alltoallv(pc_layout_t *x, const pc_args_t *a, int size);

/* Hockney cost of the k-port Direct exchange of m-byte blocks among p
 * ranks: ceil((p-1)/k) steps of (alpha + m beta) (multirail eq. 2). */
double pc_direct_cost(const pc_cost_ctx_t *ctx, size_t m);

#endif
