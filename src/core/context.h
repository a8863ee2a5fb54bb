/*
 * The process context: what outlives single teams — the list of live teams
 * (so MPI_Finalize can free them), the statistics of teams already freed,
 * and the reasons PACOLL_VERBOSE has already reported.  It hangs on
 * MPI_COMM_SELF as an attribute, like a team on its communicator, so the
 * library holds no global mutable data; the two attribute keyvals are made
 * once (pthread_once) and never change after.
 */
#ifndef PACOLL_CONTEXT_H
#define PACOLL_CONTEXT_H

#include <pthread.h>

#include "core/team.h"

#define PC_MAX_REASONS 64

typedef struct pc_context {
    pthread_mutex_t lock;
    pacoll_team_t *teams; /* live teams, oldest first */
    uint64_t next_id;
    pc_stat_t stats[PC_MAX_ALGOS]; /* of freed teams */
    uint64_t reg_hits, reg_misses, reg_bytes, reg_evictions, adv_sent, zput_bytes, eager_bytes;
    char *reasons[PC_MAX_REASONS];
    int nreasons;
} pc_context_t;

/* The keyval teams hang on, made on first use. */
int pc_team_keyval(void);
/* The context, made if create and missing (NULL if it cannot be). */
pc_context_t *pc_context_get(int create);
void pc_context_add_team(pc_context_t *ctx, pacoll_team_t *t);
/* Removes t from the list and folds its statistics in. */
void pc_context_remove_team(pc_context_t *ctx, pacoll_team_t *t);
/* True the first time reason is given (PACOLL_VERBOSE prints it then). */
int pc_context_first_reason(pc_context_t *ctx, const char *reason);
/* At MPI_Finalize: frees every team, prints PACOLL_STATS, frees the context. */
void pc_context_finalize(void);

#endif
