/*
 * Inside the simulated platform (SimGrid SMPI): what its files share.
 * Only files of src/channel/sim/ include this header; the rest of the
 * library sees the simulator through channel/platform.h's table alone.
 */
#ifndef PACOLL_SIM_H
#define PACOLL_SIM_H

#include "channel/sim/settings.h"
#include "channel/sim/transfer.h"
#include "channel/transport.h"


/* This rank computes for `seconds` of simulated time (platform.c). */
void pc_sim_delay(double seconds);
/* The fair model: the receive of n bytes of a network eager block was
 * charged its copy-out already (n below the eager limit), so the next n
 * bytes a copy would charge are not charged again (platform.c). */
void pc_sim_copy_refund(size_t n);
/* The fair model on a host-driven NIC: a zero-copy write of n bytes to
 * another host costs its writer what a peer's send of n bytes costs it
 * (platform.c). */
void pc_sim_remote_write(size_t n);

/* The smpi transport (smpi.c): the channel's remote transport and its
 * state, made by the platform's chan_create. */
int pc_smpi_create(pc_chan_t *ch);
void pc_smpi_free(pc_chan_t *ch);
void pc_smpi_free_local(pc_chan_t *ch);

#endif
