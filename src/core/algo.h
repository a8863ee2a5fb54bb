/*
 * The algorithm table: every algorithm is a constant descriptor defined in
 * its own file (src/<collective>/<name>.c) and listed once in registry.c.
 *
 * Algorithms see byte-level arguments: the api layer has already checked
 * the call, resolved MPI_IN_PLACE into a separate send buffer (except the
 * allgather/gather cases where the send block already sits in the receive
 * buffer, see pc_args_t), and packed non-contiguous datatypes.  So an
 * algorithm only moves bytes.
 */
#ifndef PACOLL_ALGO_H
#define PACOLL_ALGO_H

#include "base/param.h"

typedef struct pc_args {
    pacoll_coll_t coll;
    const char *sbuf; /* contiguous send bytes (may alias this rank's block of rbuf) */
    char *rbuf;       /* contiguous receive bytes (NULL on a gather non-root) */
    size_t m;         /* alltoall/allgather/gather: bytes per block */
    /* alltoallv: bytes and byte offsets per peer */
    const size_t *scounts, *sdispls, *rcounts, *rdispls;
    int root;         /* gather */
} pc_args_t;

/* What the cost models know about the machine; filled from the team. */
typedef struct pc_cost_ctx {
    int p, nnodes, ppn_max, ports;
    double alpha, beta;         /* inter-node latency (s), time per byte (s/B) */
    double alpha_shm, beta_shm; /* intra-node copy costs */
    int nic;                    /* enum pc_nic (config.h): what the team knows of its NIC */
} pc_cost_ctx_t;

struct pacoll_algo {
    const char *name;
    pacoll_coll_t coll;
    unsigned needs;      /* enum pacoll_needs */
    const char *source;  /* paper, section */
    const char *summary; /* one line */
    /* Runs the collective; NULL for "native" (the MPI library's own). */
    int (*run)(pacoll_team_t *team, const pc_args_t *args);
    /* Hockney cost of one call for m bytes per block; NULL if none. */
    double (*cost)(const pc_cost_ctx_t *ctx, size_t m);
    /* Its own parameters (NULL-terminated; NULL: none), read with every
     * team's configuration (core/config.h, pc_param). */
    const pc_param_t *const *params;
    /* Its run waits only in the wait layer (channel/wait.h): no collective
     * of the MPI library, no sub-team or node segment made or grown on the
     * way, so a nonblocking call can run it on a fiber (api/nonblocking.c). */
    int nonblocking;
};

int pc_registry_count(void);
const pacoll_algo_t *pc_registry_get(int index);
/* Index of the algorithm named name for coll, or -1. */
int pc_registry_find(pacoll_coll_t coll, const char *name);
/* Index of "native" for coll. */
int pc_registry_native(pacoll_coll_t coll);
/* "native, direct, ..." for a message. */
void pc_registry_names(pacoll_coll_t coll, char *buf, size_t len);

#endif
