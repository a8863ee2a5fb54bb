/*
 * The process context: what outlives single teams — the list of live teams
 * (so MPI_Finalize can free them), the statistics of teams already freed,
 * the reasons PACOLL_VERBOSE has already reported, and the teams of the
 * communicators called last.  It hangs on MPI_COMM_SELF as an attribute,
 * like a team on its communicator, so MPI frees it at MPI_Finalize whether
 * or not pacoll's own finalize runs.  Besides the context and the teams the
 * library keeps no mutable data: the four attribute keyvals are made once
 * (pthread_once) and never change after, and one pointer to the context is
 * kept from its making to its freeing (pc_context_now).
 */
#ifndef PACOLL_CONTEXT_H
#define PACOLL_CONTEXT_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/fiber.h"
#include "core/team.h"

#define PC_MAX_REASONS 64

/* The teams of the communicators called last, by handle: a call finds its
 * communicator's team without an attribute lookup, which costs more than
 * the rest of a call handed to the MPI library (docs/AUTO.md, per-call
 * cost).  Direct-mapped; filled by pc_team_find below
 * MPI_THREAD_MULTIPLE only (no locks then), emptied of a team when the
 * team is freed, which MPI does before the handle can be reused. */
#define PC_TEAM_CACHE 8
typedef struct pc_team_slot {
    MPI_Comm comm;
    pacoll_team_t *team;             /* NULL: empty */
    const struct pc_team_api *api;   /* team->api, copied (pc_team_cache_refresh): a call
                                      * reads the api's plain marks one load sooner */
} pc_team_slot_t;

typedef struct pc_context {
    pthread_mutex_t lock;
    pacoll_team_t *teams; /* live teams, oldest first */
    uint64_t next_id;
    pc_stat_t stats[PC_MAX_ALGOS]; /* of freed teams */
    uint64_t reg_hits, reg_misses, reg_bytes, reg_evictions, adv_sent, zput_bytes, eager_bytes;
    uint64_t host_write_bytes;
    char *reasons[PC_MAX_REASONS];
    int nreasons;
    pc_team_slot_t team_cache[PC_TEAM_CACHE];
    /* The selection rules, parsed once for every team (select.c): from
     * rules_path, "" for the built-in ones; read-only once parsed. */
    struct pc_rules *rules;
    char *rules_path;
    void (*rules_free)(struct pc_rules *rules);
    /* What learning in place keeps for the process (select/learn_team.c):
     * the learned file's entries and what teams learned, written at
     * MPI_Finalize by learned_save; and its cost, for PACOLL_STATS. */
    void *learned;
    void (*learned_save)(struct pc_context *ctx);
    void (*learned_free)(void *learned);
    uint64_t learn_trials, learn_decisions, learn_revisits;
    double learn_lost; /* seconds */
    /* The ucx transport's process-wide context, worker and endpoints
     * (channel/ucx.c): every team's channel shares them; freed last. */
    struct pc_ucx_proc *ucx;
    /* Nonblocking collectives (api/nonblocking.c): the fiber running now
     * (NULL: the caller's own stack; the wait layer yields from it: team.c),
     * and the scheduler's state, ended at MPI_Finalize before the teams are
     * freed (local: MPI is gone, memory only). */
    struct pc_fiber *fiber_now;
    struct pc_nb *nb;
    void (*nb_end)(struct pc_context *ctx, int local);
} pc_context_t;

/* The keyval teams hang on, made on first use. */
int pc_team_keyval(void);
/* The keyval of the algorithms chosen for a communicator (team.h). */
int pc_choice_keyval(void);
/* The keyval of a derived datatype's layout verdict (api/datatype.c). */
int pc_layout_keyval(void);
/* The context, made if create and missing (NULL if it cannot be). */
pc_context_t *pc_context_get(int create);
/* The context if it is made, without asking MPI (NULL before and after):
 * inline, as every call handed to the MPI library asks (api.c, plain way). */
extern pc_context_t *pc_context_current; /* context.c's alone to set */
static inline pc_context_t *pc_context_now(void)
{
    return __atomic_load_n(&pc_context_current, __ATOMIC_ACQUIRE);
}

/* comm's slot in the team cache (handles are pointers or integers). */
static inline pc_team_slot_t *pc_context_slot(pc_context_t *ctx, MPI_Comm comm)
{
    uint64_t h = 0;
    memcpy(&h, &comm, sizeof comm < sizeof h ? sizeof comm : sizeof h);
    return &ctx->team_cache[(h * 0x9E3779B97F4A7C15ull) >> 61]; /* 8 slots: the top 3 bits */
}
void pc_context_add_team(pc_context_t *ctx, pacoll_team_t *t);
/* Removes t from the list and folds its statistics in. */
void pc_context_remove_team(pc_context_t *ctx, pacoll_team_t *t);
/* True the first time reason is given (PACOLL_VERBOSE prints it then). */
int pc_context_first_reason(pc_context_t *ctx, const char *reason);
/* At MPI_Finalize: frees every team, prints PACOLL_STATS, frees the context. */
void pc_context_finalize(void);

#endif
