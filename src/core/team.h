/*
 * The team: everything pacoll keeps for one communicator, made on the first
 * collective and cached as an attribute of the user's communicator; its
 * delete callback frees it when the communicator is freed, and MPI_Finalize
 * frees the teams still alive (the context keeps the list).
 *
 * The node layout covers what Open MPI HAN gives up on: uneven ranks per
 * node and ranks of one node that are not consecutive in the communicator.
 */
#ifndef PACOLL_TEAM_H
#define PACOLL_TEAM_H

#include "core/algo.h"
#include "core/config.h"
#include "channel/channel.h"
#include "channel/node_segment.h"
#include "core/verdict.h"

/* Per algorithm: calls and bytes, and what its calls cost the channel
 * (rdma-allgather §3.3-3.4: address exchanges and registrations per call). */
typedef struct pc_stat {
    uint64_t calls, bytes;
    uint64_t adverts;   /* advertisements sent (address exchanges) */
    uint64_t registers; /* receive buffers registered (cache hits + misses) */
    uint64_t attaches;  /* of which really attached (cache misses) */
} pc_stat_t;
#define PC_STAT_FIELDS 5

struct pacoll_team {
    MPI_Comm user;  /* the communicator the team belongs to (not owned) */
    MPI_Comm comm;  /* a private duplicate for pacoll's own traffic */
    int rank, size;
    uint64_t id;    /* creation order in this process, for finalize */
    pc_config_t cfg;

    /* ---- node layout (virtual nodes when PACOLL_NODE_SIZE is set) ---- */
    int nnodes, node, local_rank, local_size, ppn_max;
    int *node_of;    /* [size] node of each rank */
    int *local_of;   /* [size] index of each rank inside its node */
    int *node_first; /* [nnodes+1] offsets into node_ranks */
    int *node_ranks; /* ranks of node n: node_ranks[node_first[n] .. node_first[n+1]) */
    MPI_Comm node_comm;   /* ranks of my (virtual) node, ordered by local index */
    MPI_Comm leader_comm; /* local index 0 of every node, MPI_COMM_NULL elsewhere */

    /* ---- physical placement, for the transport ---- */
    MPI_Comm host_comm; /* ranks sharing memory with me (MPI_COMM_TYPE_SHARED) */
    int host_rank, host_size;
    int oversubscribed; /* more ranks on this host than cores: yield at once */
    int thread_multiple; /* MPI_THREAD_MULTIPLE: pacoll hands every call over */
    int *host_of;       /* [size] index in host_comm, or -1 if on another host */

    pc_rma_t rma;      /* the one-sided channel */
    pc_shm_t shm;      /* the node segment for hierarchical algorithms */
    struct pc_hier *hier; /* multileader's lanes, made on first use (hier.h) */
    int nic;           /* the NIC's nature (enum pc_nic), -1 until known (hier.h) */

    uint64_t seq;      /* call sequence number, the same on every rank */
    pc_verdict_t verdict; /* calls rejected on some ranks only (verdict.h) */
    struct pacoll_team *parent; /* the team a sub-team (multileader's lane) serves */
    int comm_choice[PACOLL_NCOLL]; /* pacoll_comm_set_algorithm, -1 = none */
    int last_algo[PACOLL_NCOLL];   /* registry index of the last call, -1 = none */
    pc_stat_t stats[PC_MAX_ALGOS];
    void *rules;       /* parsed selection rules (select.c) */
    struct pacoll_team *next; /* the context's list of live teams */
    int orphaned; /* MPI is tearing down without pacoll's finalize: free locally */
};

/* The team of comm, made on first use (collective over comm then).  On
 * failure returns NULL and *err holds an MPI error code. */
pacoll_team_t *pc_team_get(MPI_Comm comm, int *err);
/* The team of comm if it has one (no MPI communication), else NULL. */
pacoll_team_t *pc_team_find(MPI_Comm comm);
/* Frees a team (collective over its communicator). */
void pc_team_free(pacoll_team_t *team);
/* Frees only this process's memory (no MPI calls): for teams orphaned by
 * MPI's own finalization. */
void pc_team_free_local(pacoll_team_t *team);

/* True when rank r of the team shares memory with this process. */
static inline int pc_team_same_host(const pacoll_team_t *t, int r) { return t->host_of[r] >= 0; }

#endif
