/*
 * Under SimGrid SMPI only: one RDMA write as a transfer between two hosts
 * (smpi.c's opening comment says why).  SimGrid's C API has the
 * host-to-host transfer only in its blocking form (sg_host_sendto), which
 * would hold the origin for the whole write and leave a k-port NIC one
 * port; s4u's sendto_async is the asynchronous one.  The handle holds one
 * reference to the transfer, released by pc_sim_transfer_wait or by a
 * pc_sim_transfer_test that finds it complete.
 */
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "channel/sim/transfer.h"

extern "C" sg_comm_t pc_sim_transfer_start(sg_host_t from, sg_host_t to, uint64_t bytes)
{
    simgrid::s4u::CommPtr comm = simgrid::s4u::Comm::sendto_async(from, to, bytes);
    intrusive_ptr_add_ref(comm.get());
    return comm.get();
}

extern "C" int pc_sim_transfer_test(sg_comm_t comm)
{
    if (!comm->test())
        return 0;
    intrusive_ptr_release(comm);
    return 1;
}

extern "C" void pc_sim_transfer_wait(sg_comm_t comm)
{
    comm->wait();
    intrusive_ptr_release(comm);
}

extern "C" void pc_sim_transfer_wait_any(const sg_comm_t *comms, size_t n)
{
    std::vector<simgrid::s4u::CommPtr> v(comms, comms + n);
    simgrid::s4u::Comm::wait_any(v);
}
