/*
 * What gather `direct` shares with `two_level`, which runs it among the node
 * leaders and decides its own node blocks by the same rule.
 */
#ifndef PACOLL_GATHER_DIRECT_H
#define PACOLL_GATHER_DIRECT_H

#include "core/algo.h"
#include "core/team.h"

extern const pacoll_algo_t pc_gather_direct;

/* Largest block the root copies out of its slots rather than receives in
 * place (direct.c). */
size_t pc_gather_direct_copy_max(const pacoll_team_t *t);

#endif
