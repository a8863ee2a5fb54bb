/*
 * Run-time configuration, read from the environment when a team is made.
 *
 * It is parsed per team, not once per process, so that the library keeps no
 * global mutable state; the environment does not change during a run, so
 * every team sees the same values.  A malformed value is not fatal at parse
 * time: it is remembered and reported as MPI_ERR_ARG, with a message naming
 * the variable and the valid values, at the first collective on the team.
 */
#ifndef PACOLL_CONFIG_H
#define PACOLL_CONFIG_H

#include "base/internal.h"

/* pap_*: blocks up to PACOLL_PAP_THRESHOLD go copy-based (docs/PAP.md
 * "Scheme threshold"); unset, it is PACOLL_EAGER, Direct's own limit, so
 * the PAP versions use Direct's scheme and are never slower without skew.
 * Under skew a larger threshold pays (an early sender's block waits in a
 * late receiver's slot, where zero-copy must wait for the receiver's
 * advertisement), but without skew it costs the receiver's copy-out where
 * copies are slower than a zero-copy write: with 16 KB pap_direct was 9%
 * slower than direct at 8-16 KB (SMPI, 16 ranks, 2 GB/s copies). */

enum pc_order { PC_ORDER_NODE = 0, PC_ORDER_RANK = 1 };

enum pc_transport { PC_TRANSPORT_AUTO = 0, PC_TRANSPORT_RMA = 1 };
/* Under SMPI: a zero-copy write is SimGrid's MPI_Put into the dynamic
 * window, or a host-to-host transfer (rma.c, "RDMA writes under SMPI"). */
enum pc_sim_put { PC_SIM_PUT_WINDOW = 0, PC_SIM_PUT_TRANSFER = 1 };

/* PACOLL_NIC (multicore slides): what more cores do to the network
 * interface.  NONE is only ever a measured answer (no NIC between the
 * nodes, or nothing to compare). */
enum pc_nic { PC_NIC_AUTO = 0, PC_NIC_ONLOAD = 1, PC_NIC_OFFLOAD = 2, PC_NIC_NONE = 3 };

#define PC_MAX_NODE_PATTERN 64

typedef struct pc_config {
    int forced[PACOLL_NCOLL];   /* registry index, or -1 for automatic */
    int node_pattern[PC_MAX_NODE_PATTERN]; /* PACOLL_NODE_SIZE, cycled */
    int node_pattern_len;       /* 0: physical nodes only */
    int ports;                  /* PACOLL_PORTS: puts in flight, >= 1 */
    int stripe;                 /* PACOLL_STRIPE: pieces per large put, >= 1 */
    double timeout;             /* PACOLL_TIMEOUT seconds, 0 = never */
    int stats, verbose;         /* PACOLL_STATS, PACOLL_VERBOSE */
    int transport;              /* PACOLL_TRANSPORT */
    int sim_put;                /* PACOLL_SIM_PUT: enum pc_sim_put (SMPI only) */
    int regcache;               /* PACOLL_REGCACHE: 0 disables the cache */
    size_t eager_bytes;         /* PACOLL_EAGER: largest copy-based message */
    size_t slot_budget;         /* PACOLL_SLOT_BUDGET: bytes of slots per rank */
    size_t shm_max;             /* PACOLL_SHM_MAX: largest node segment */
    size_t rd_threshold;        /* PACOLL_RD_THRESHOLD: rd_rdma's copy/zero-copy switch M_T */
    size_t pap_threshold;       /* PACOLL_PAP_THRESHOLD: largest copy-based block of the
                                   pap_* algorithms, when the slot holds it (rma_setup.c
                                   sizes the slots for it within PACOLL_SLOT_BUDGET) */
    double pap_grace;           /* PACOLL_PAP_GRACE_US (seconds here): how long a pap_* sender
                                   waits for the next peer in Direct order; < 0: one block time */
    int direct_order;           /* PACOLL_DIRECT_ORDER: enum pc_order (exchange.h) */
    int sim_tested;             /* PACOLL_SIM_TESTED (SMPI only): the arrival-aware loop
                                   receives notifications by tested receives (rma.h) */
    int sloav_radix;            /* PACOLL_SLOAV_RADIX: alltoallv sloav/sloavx radix, >= 2 */
    size_t sloav_linear;        /* PACOLL_SLOAV_LINEAR: relayed elements up to this size */
    char rules_path[512];       /* PACOLL_RULES, "" = embedded default */
    int nic;                    /* PACOLL_NIC: enum pc_nic */
    /* PACOLL_LEADER_ALG: the inter-node algorithm of the hierarchical
     * schemes (leader, multileader), registry index per collective
     * (alltoall, alltoallv phase); leader_alg_auto: the selector decides */
    int leader_alg[2];
    int leader_alg_auto;
    int error;                  /* MPI error class of the first bad value, or 0 */
    char error_msg[PC_MSG_LEN]; /* what was wrong, for the user */
    int error_told;             /* the message was printed already */
} pc_config_t;

void pc_config_read(pc_config_t *cfg);
/* PACOLL_VERBOSE, where no team (and so no parsed configuration) exists. */
int pc_env_verbose(void);

/* Parses a strictly positive integer (no sign, no junk). 0 on success. */
int pc_parse_long(const char *s, long lo, long hi, long *out);
/* Parses a size with an optional k/K/m/M/g/G suffix. 0 on success. */
int pc_parse_size(const char *s, size_t *out);

#endif
