/*
 * The team: everything pacoll keeps for one communicator, made on the first
 * collective (its channel only where pacoll may run: pc_team_open) and
 * cached as an attribute of the user's communicator; its delete callback
 * frees it when the communicator is freed, and MPI_Finalize frees the teams
 * still alive (the context keeps the list).
 *
 * The node layout covers what Open MPI HAN gives up on: uneven ranks per
 * node and ranks of one node that are not consecutive in the communicator.
 */
#ifndef PACOLL_TEAM_H
#define PACOLL_TEAM_H

#include "channel/channel.h"
#include "channel/node_segment.h"
#include "core/algo.h"
#include "core/config.h"
#include "core/verdict.h"

/* State the layers above keep per team, defined and owned by them (core
 * never looks inside; each hangs its own on the team with pc_team_ext_set,
 * which frees it with the team): the selection's (select/select.h) and
 * the api's (api/api.h); and the rules the context shares (select.h). */
struct pc_team_select;
struct pc_team_api;
struct pc_rules;

/* Per algorithm: calls and bytes, and what its calls cost the channel
 * (rdma-allgather §3.3-3.4: address exchanges and registrations per call). */
typedef struct pc_stat {
    uint64_t calls, bytes;
    uint64_t adverts;   /* advertisements sent (address exchanges) */
    uint64_t registers; /* receive buffers registered (cache hits + misses) */
    uint64_t attaches;  /* of which really attached (cache misses) */
} pc_stat_t;
#define PC_STAT_FIELDS 5

/* State an algorithm or a layer keeps on a team between calls (multileader's lanes,
 * the api's and the selection's own):
 * found by the owner's key, freed with the team, before its communicators
 * (local: no MPI calls, MPI is gone). */
typedef struct pc_team_ext {
    const void *key;
    void *obj;
    void (*free)(pacoll_team_t *t, void *obj, int local);
} pc_team_ext_t;
#define PC_TEAM_EXTS 4

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

    pc_peers_t peers;  /* what the channel and the node segment see of the team */
    int ready;         /* chan and seg are made (pc_team_ready) */
    int no_room;       /* some host had no room for them: never made (channel/room.h) */
    int may_run;       /* the rules or PACOLL_<COLL> may run pacoll here (api.c) */
    pc_chan_t chan;    /* the one-sided channel */
    pc_seg_t seg;      /* the node segment for hierarchical algorithms */
    int nic;           /* the NIC's nature (enum pc_nic), -1 until a rule asks (select/nic.c) */
    pc_team_ext_t ext[PC_TEAM_EXTS]; /* algorithms' state (pc_team_ext) */

    /* ---- every call handed to the MPI library reads these two (the api's
     * plain way, api.h) and the verdict's head, so they sit together ---- */
    struct pc_team_api *api;    /* the api's state, NULL until the team's first call */
    pc_verdict_t verdict; /* calls rejected on some ranks only (verdict.h) */
    struct pc_team_select *sel; /* the selection's state, NULL until its first choice */
    struct pacoll_team *parent; /* the team a sub-team (multileader's lane) serves */
    int comm_choice[PACOLL_NCOLL]; /* pc_comm_choose's, -1 = none */
    int last_algo[PACOLL_NCOLL];   /* registry index of the last call, -1 = none */
    pc_stat_t stats[PC_MAX_ALGOS];
    struct pacoll_team *next; /* the context's list of live teams */
    int orphaned; /* MPI is tearing down without pacoll's finalize: free locally */
};

/* The team of comm, made on first use (collective over comm then): its
 * layout and communicators, not yet its channel and node segment, which
 * only calls pacoll runs need (the api makes them at the first call where
 * pacoll may run: a communicator whose calls all go to the MPI library
 * never gets windows or segments).  On failure returns NULL and *err holds
 * an MPI error code. */
pacoll_team_t *pc_team_open(MPI_Comm comm, int *err);
/* Makes the team's channel and node segment if not made yet: collective
 * over the team, so every rank calls it at the same call, whatever the
 * call's arguments (docs/CHECKS.md, "The team").  An MPI error code;
 * MPI_ERR_NO_MEM with no_room set, on every rank, when the ranks agreed
 * that some host has no room for them (docs/CHECKS.md, "Resources"). */
int pc_team_ready(pacoll_team_t *t);
/* pc_team_open, then pc_team_ready: a team pacoll can run on (sub-teams). */
pacoll_team_t *pc_team_get(MPI_Comm comm, int *err);
/* The team of comm if it has one (no MPI communication), else NULL. */
pacoll_team_t *pc_team_find(MPI_Comm comm);
/* t->api changed: the context's team cache copies it again. */
void pc_team_cache_refresh(pacoll_team_t *t);
/* Frees a team (collective over its communicator). */
void pc_team_free(pacoll_team_t *team);
/* Frees only this process's memory (no MPI calls): for teams orphaned by
 * MPI's own finalization. */
void pc_team_free_local(pacoll_team_t *team);

/* The algorithm chosen for a communicator (pacoll_comm_set_algorithm, or
 * the info hints pacoll_<coll>: api/hints.c), by registry index; -1 is
 * automatic.  It is an attribute of the communicator, so MPI_Comm_dup
 * passes it on as MPI passes on info hints (a library that duplicates the
 * caller's communicator keeps the caller's choice), and it is mirrored in
 * the team's comm_choice.  Local: no MPI communication. */
int pc_comm_choose(MPI_Comm comm, pacoll_coll_t coll, int idx);
int pc_comm_choice(MPI_Comm comm, pacoll_coll_t coll);

/* True when rank r of the team shares memory with this process. */
static inline int pc_team_same_host(const pacoll_team_t *t, int r) { return t->host_of[r] >= 0; }
/* True when every node has the same number of ranks. */
static inline int pc_team_even(const pacoll_team_t *t) { return t->ppn_max * t->nnodes == t->size; }
/* True when node n's ranks are n's block of the communicator, in order. */
int pc_team_consecutive(const pacoll_team_t *t);

/* The team a call of its channel belongs to. */
static inline pacoll_team_t *pc_call_team(const pc_call_t *c)
{
    return (pacoll_team_t *)(void *)((char *)c->ch - offsetof(pacoll_team_t, chan));
}

/* An algorithm's state on the team, under its key (NULL if none yet). */
void *pc_team_ext(const pacoll_team_t *t, const void *key);
/* Hangs obj on the team under key; free is called when the team goes.
 * MPI_ERR_INTERN when every slot is taken. */
int pc_team_ext_set(pacoll_team_t *t, const void *key, void *obj,
                    void (*free)(pacoll_team_t *t, void *obj, int local));

#endif
