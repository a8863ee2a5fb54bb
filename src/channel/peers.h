/*
 * What the channel may know of the team it serves: a read-only map of the
 * peers (who shares memory with whom, which node each is on), the settings
 * it obeys, and three hooks back to the team.  The channel never sees the
 * team itself (core/team.h), so it sits below it.
 */
#ifndef PACOLL_PEERS_H
#define PACOLL_PEERS_H

#include "base/internal.h"

/* PACOLL_TRANSPORT: how peers are reached.  auto: shared memory on a host,
 * UCX between hosts where it comes up, else MPI RMA; rma and ucx: every peer through that remote
 * transport (ucx falls back to rma where UCX cannot be used). */
enum pc_transport_choice { PC_TRANSPORT_AUTO = 0, PC_TRANSPORT_RMA = 1, PC_TRANSPORT_UCX = 2 };

/* The most settings a platform has of its own (channel/platform.h). */
#define PC_PLATFORM_SETTINGS 12

/* The channel's settings: shared by every algorithm, read and validated by
 * core/config.c. */
typedef struct pc_chan_cfg {
    int ports;          /* PACOLL_PORTS: zero-copy puts in flight, >= 1 */
    int stripe;         /* PACOLL_STRIPE: pieces per large put, >= 1 */
    double timeout;     /* PACOLL_TIMEOUT seconds, 0 (the default) = none */
    int verbose;        /* PACOLL_VERBOSE */
    int trace;          /* PACOLL_TRACE: 0 off, 1 rank 0's calls, 2 every rank's */
    int transport;      /* PACOLL_TRANSPORT: enum pc_transport_choice */
    int regcache;       /* PACOLL_REGCACHE: 0 attaches for one call only */
    size_t eager_bytes; /* PACOLL_EAGER: largest copy-based message */
    size_t net_eager;   /* PACOLL_NET_EAGER: largest copy-based message to a UCX peer */
    size_t zcopy_eager; /* PACOLL_ZCOPY_EAGER: largest zero-copy block in one UCX eager message */
    size_t slot_want;   /* the largest eager block any algorithm asked for
                           (>= eager_bytes; parameters flagged PC_PARAM_SLOT) */
    size_t slot_budget; /* PACOLL_SLOT_BUDGET: bytes of eager slots per rank */
    size_t shm_max;     /* PACOLL_SHM_MAX: largest node segment */
    /* the platform's own settings (channel/platform.h), in its order */
    double platform[PC_PLATFORM_SETTINGS];
} pc_chan_cfg_t;

typedef struct pc_peers {
    MPI_Comm comm;      /* the team's private duplicate: the channel's own traffic */
    MPI_Comm user;      /* the user's communicator (aborted after a deadline) */
    int rank, size;
    MPI_Comm host_comm; /* ranks sharing memory with me */
    int host_rank, host_size;
    const int *host_of; /* [size] index in host_comm, or -1 on another host */
    const int *node_of; /* [size] (virtual) node of each rank */
    int oversubscribed; /* more ranks on this host than cores: yield at once */
    /* my (virtual) node, for the node segment */
    MPI_Comm node_comm;
    int nnodes, local_rank, local_size;
    const int *local_ranks; /* [local_size] team rank of each local index */
    const pc_chan_cfg_t *cfg;
    /* The process's UCX (channel/ucx.c), kept by the process context for
     * every team: made by the first channel that uses it (NULL: none). */
    struct pc_ucx_proc **ucx_proc;
    /* The team's hooks.  stop: a rank said it will not finish the current
     * call (core/verdict.h), so waiting for it is over: non-zero.  note: an
     * error of the current call that every rank saw through (a block's
     * length differed), in words, for the user.  yield: the call runs on a
     * fiber (a nonblocking collective: api/nonblocking.c), which it has just
     * left for the caller's progress: 1, and 0 when there is none. */
    void *owner;
    int (*stop)(void *owner);
    void (*note)(void *owner, const char *msg);
    int (*yield)(void *owner);
} pc_peers_t;

#endif
