/*
 * Run-time configuration: what every algorithm shares, plus the values of
 * each algorithm's own parameters (declared in its descriptor, core/algo.h),
 * read from the environment when a team is made.
 *
 * It is parsed per team, not once per process, so that the library keeps no
 * global mutable state; the environment does not change during a run, so
 * every team sees the same values.  A malformed value is not fatal at parse
 * time: it is remembered and reported as MPI_ERR_ARG, with a message naming
 * the variable and the valid values, at the first collective on the team.
 */
#ifndef PACOLL_CONFIG_H
#define PACOLL_CONFIG_H

#include "base/param.h"
#include "channel/peers.h"

/* PACOLL_NIC (multicore slides): what more cores do to the network
 * interface.  NONE is only ever a measured answer (no NIC between the
 * nodes, or nothing to compare). */
enum pc_nic { PC_NIC_AUTO = 0, PC_NIC_ONLOAD = 1, PC_NIC_OFFLOAD = 2, PC_NIC_NONE = 3 };

/* PACOLL_LEARN: where auto learns in place (select/learn_team.c). */
enum pc_learning { PC_LEARNING_OFF = 0, PC_LEARNING_ON = 1, PC_LEARNING_UNMEASURED = 2 };

#define PC_MAX_NODE_PATTERN 64
/* Distinct parameters of all algorithms together. */
#define PC_MAX_PARAMS 32

typedef struct pc_param_value {
    const pc_param_t *p;
    double v;
} pc_param_value_t;

typedef struct pc_config {
    pc_chan_cfg_t chan;         /* the channel's settings (channel/peers.h) */
    int forced[PACOLL_NCOLL];   /* PACOLL_<COLL>: registry index, or -1 for automatic */
    int node_pattern[PC_MAX_NODE_PATTERN]; /* PACOLL_NODE_SIZE, cycled */
    int node_pattern_len;       /* 0: physical nodes only */
    int stats;                  /* PACOLL_STATS */
    int nic;                    /* PACOLL_NIC: enum pc_nic */
    char rules_path[512];       /* PACOLL_RULES, "" = embedded default */
    int learn;                  /* PACOLL_LEARN: enum pc_learning */
    char learn_file[512];       /* PACOLL_LEARN_FILE, "" = none */
    pc_param_value_t param[PC_MAX_PARAMS]; /* the algorithms' own (pc_param) */
    int nparams;
    int error;                  /* MPI error class of the first bad value, or 0 */
    char error_msg[PC_MSG_LEN]; /* what was wrong, for the user */
    int error_told;             /* the message was printed already */
} pc_config_t;

void pc_config_read(pc_config_t *cfg);

/* The value of an algorithm's parameter p (declared in its descriptor). */
static inline double pc_param(const pc_config_t *cfg, const pc_param_t *p)
{
    for (int i = 0; i < cfg->nparams; i++)
        if (cfg->param[i].p == p)
            return cfg->param[i].v;
    return p->dflt; /* not reachable: every descriptor's parameters are read */
}

/* Every parameter pacoll reads, shared ones first, for pacoll-info and the
 * docs' table: calls fn once per distinct parameter. */
void pc_params_each(void (*fn)(const pc_param_t *p, const char *owner, void *arg), void *arg);

/* Once per process, at the context's making (core/context.c): rank 0 of
 * MPI_COMM_WORLD warns about every PACOLL_* variable in the environment
 * that is no setting, naming the closest one. */
void pc_config_warn_unknown(void);

#endif
