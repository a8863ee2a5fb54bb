/* Under SimGrid SMPI only: an RDMA write's network time as a transfer
 * between two hosts (transfer.cpp; smpi.c's opening comment). */
#ifndef PACOLL_SIM_TRANSFER_H
#define PACOLL_SIM_TRANSFER_H

#include <stddef.h>
#include <stdint.h>
#include <simgrid/forward.h>
#include <simgrid/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts moving `bytes` from host `from` to host `to` over the platform's
 * route. */
sg_comm_t pc_sim_transfer_start(sg_host_t from, sg_host_t to, uint64_t bytes);
/* 1 if the transfer is complete (the handle is then released), else 0. */
int pc_sim_transfer_test(sg_comm_t comm);
/* Waits for the transfer, and releases the handle. */
void pc_sim_transfer_wait(sg_comm_t comm);
/* Waits until one of n transfers is complete (releases nothing: a
 * pc_sim_transfer_test then finds it complete). */
void pc_sim_transfer_wait_any(const sg_comm_t *comms, size_t n);

#ifdef __cplusplus
}
#endif

#endif
