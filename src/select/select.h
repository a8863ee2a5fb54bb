/*
 * Algorithm selection, per call:
 *   call site (pacoll_*_alg) > communicator (pacoll_comm_set_algorithm) >
 *   environment (PACOLL_<COLL>) > selection rules (JSON) > cost models.
 * The rules are data, not code (MPICH's CSEL is the model): the embedded
 * rules/default.json, or the file named by PACOLL_RULES.  Every input of the
 * choice is the same on every rank (block size, ranks, nodes, the NIC's
 * nature, measured once per team), so all ranks choose the same algorithm
 * without talking.
 */
#ifndef PACOLL_SELECT_H
#define PACOLL_SELECT_H

#include "core/team.h"

/* Loads the rules (once per team; the api does it at the team's first
 * call, so that a bad rules file fails that call; pc_select on a sub-team
 * does it itself).  A rule's "nic" condition needs t->nic, which the api
 * measures before the team's first automatic choice (select/nic.c). */
void pc_rules_load(pacoll_team_t *t);

/* True if the team meets algorithm a's needs; else *why says which. */
int pc_algo_can_run(const pacoll_team_t *t, const pacoll_algo_t *a, const char **why);

/* The registry index chosen for a call of coll with m bytes per block
 * (alltoallv: the call's largest block is not known to all ranks, so m is
 * 0 and only ranks and nodes decide). */
int pc_select(pacoll_team_t *t, pacoll_coll_t coll, size_t m);
/* The same, saying in why which rule chose (or that the cost models did). */
int pc_select_why(pacoll_team_t *t, pacoll_coll_t coll, size_t m, char *why, size_t len);

/* The cost-model inputs for this team. */
void pc_cost_ctx(const pacoll_team_t *t, pc_cost_ctx_t *ctx);

#endif
