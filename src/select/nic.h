/* The NIC's nature for a team: see nic.c. */
#ifndef PACOLL_NIC_H
#define PACOLL_NIC_H

#include "core/team.h"

/* PACOLL_NIC, or on auto a measurement (collective over the team, every
 * rank at the same call).  enum pc_nic (core/config.h): never AUTO. */
int pc_nic_measure(pacoll_team_t *t);
/* A kind's name in rules and measurement files ("onload", "offload",
 * "none"; NULL for -1 or AUTO), and back (-1 for any other name). */
const char *pc_nic_name(int kind);
int pc_nic_kind(const char *name);

#endif
