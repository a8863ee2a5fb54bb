/*
 * The SLOAV engine (sloavx §III), shared by alltoallv `sloav` (over all
 * ranks) and `sloavx` (over the node leaders, on node partitions).
 *
 * pc_sloav_exchange runs one alltoallv of the byte layout in `a` over team
 * t in ceil(log_r N) rounds.  Multi-hop elements larger than `linear` bytes
 * are sent straight to their destination instead of being relayed (the
 * linear switch of §III-C, decided per element: see sloav.c).
 */
#ifndef PACOLL_SLOAV_H
#define PACOLL_SLOAV_H

#include "channel/channel.h"
#include "core/team.h"

/* Defaults of PACOLL_SLOAV_RADIX and PACOLL_SLOAV_LINEAR (docs/SLOAV.md). */
#define PC_SLOAV_RADIX_DEFAULT 2
#define PC_SLOAV_LINEAR_DEFAULT ((size_t)512)
/* The SLOAV buffer reserves this much per relayed element that may arrive
 * zero-copy (docs/SLOAV.md): relaying larger elements never pays anyway. */
#define PC_SLOAV_LINEAR_MAX ((size_t)1 << 20)

int pc_sloav_exchange(pacoll_team_t *t, const char *what, const pc_args_t *a, int radix,
                      size_t linear);

/* PACOLL_SLOAV_RADIX and PACOLL_SLOAV_LINEAR (sloav.c), read from team
 * t's configuration; pc_sloav_params lists them (and the Direct engine's
 * order, which the straight sends follow) for the descriptors. */
extern const pc_param_t pc_param_sloav_radix, pc_param_sloav_linear;
extern const pc_param_t *const pc_sloav_params[];

/* Rounds of a radix-r Bruck exchange among p ranks: ceil(log_r p). */
int pc_sloav_rounds(int p, int radix);

/* Hockney cost of the engine among p ranks with m-byte elements (sloav.c). */
double pc_sloav_model(int p, int radix, int ports, size_t m, double alpha, double beta,
                      double beta_copy);

#endif
