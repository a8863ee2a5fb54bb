/*
 * Making and freeing the one-sided channel of a team (once per
 * communicator: window creation and lock_all cost O(P), SMPI-NOTES).
 */
#include <sys/uio.h>
#include <unistd.h>

#include "channel/channel.h"
#include "channel/node_segment.h"
#include "core/team.h"
#if PACOLL_UNDER_SMPI
#include "channel/sim_transfer.h"
#endif

#define PC_LINE 64

static size_t floor_line(size_t n) { return n / PC_LINE * PC_LINE; }

/* Eager slot size: the larger of the eager limit and the pap_* copy-based
 * threshold, shrunk so that 3 slots per peer fit the per-rank budget (the
 * collective buffer must not grow with P without bound: 1024 ranks x 3 x
 * 8 KB would be 24 MB per rank). */
static size_t slot_size(const pc_config_t *cfg, int npeers)
{
    size_t per = cfg->slot_budget / ((size_t)PC_GENS * (size_t)(npeers > 0 ? npeers : 1));
    size_t want = cfg->eager_bytes > cfg->pap_threshold ? cfg->eager_bytes : cfg->pap_threshold;
    want = want < per ? want : per;
#if PACOLL_UNDER_SMPI
    /* Eager messages must stay below SMPI's detached-send threshold (64 KB
     * by default), see the notifications in rma.c. */
    if (want > 60 * 1024)
        want = 60 * 1024;
#endif
    return floor_line(want);
}

static size_t box_bytes(int n, size_t slot)
{
    return PC_LINE + (size_t)n * sizeof(pc_entry_t) + (size_t)n * PC_GENS * slot;
}

/* Can this process write into its host peers with process_vm_writev?
 * (Containers may forbid it.)  The answer is agreed over the host. */
static int probe_cma(pacoll_team_t *t)
{
#if PACOLL_UNDER_SMPI
    PC_UNUSED(t);
    return 1;
#else
    struct { uint64_t pid, addr; } me, *all = malloc((size_t)t->host_size * sizeof me);
    volatile uint64_t target = 0;
    me.pid = (uint64_t)getpid();
    me.addr = (uint64_t)(uintptr_t)&target;
    PMPI_Allgather(&me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, t->host_comm);
    int next = (t->host_rank + 1) % t->host_size;
    uint64_t got = 0;
    struct iovec l = {&got, sizeof got}, r = {(void *)(uintptr_t)all[next].addr, sizeof got};
    int ok = process_vm_readv((pid_t)all[next].pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof got;
    free(all);
    int all_ok = 0;
    /* The peer's probe word must outlive everyone's read. */
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, t->host_comm);
    return all_ok;
#endif
}

static int create_shm(pacoll_team_t *t)
{
    pc_rma_t *r = &t->rma;
    r->shm_slot = slot_size(&t->cfg, t->host_size);
    r->shm_box_bytes = box_bytes(t->host_size, r->shm_slot);
    int rc = pc_shared_window(t->host_comm, r->shm_box_bytes * (size_t)t->host_size, &r->shm_win,
                              &r->shm_base);
    if (rc != MPI_SUCCESS)
        return rc;
    r->have_shm = 1;
    r->cma = probe_cma(t);
    return PMPI_Barrier(t->host_comm);
}

static int create_windows(pacoll_team_t *t)
{
    pc_rma_t *r = &t->rma;
    r->slot = slot_size(&t->cfg, t->size);
    r->box_bytes = box_bytes(t->size, r->slot);
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "same_size", "true");
    PMPI_Info_set(info, "accumulate_ordering", "none");
    int rc = PMPI_Win_allocate((MPI_Aint)r->box_bytes, 1, info, t->comm, &r->base, &r->win);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_create_dynamic(info, t->comm, &r->dwin);
    PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    memset(r->base, 0, r->box_bytes);
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, r->win);
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, r->dwin);
    r->have_win = 1;
    /* Nobody writes into a mailbox before its owner has zeroed it. */
    return PMPI_Barrier(t->comm);
}

#if PACOLL_UNDER_SMPI
/* PACOLL_SIM_PUT=transfer: every team rank's simulated host, the ends of
 * its zero-copy transfers (rma.c, "RDMA writes under SMPI").  The ranks
 * share one address space, so a host handle is valid in every rank. */
static int gather_sim_hosts(pacoll_team_t *t)
{
    pc_rma_t *r = &t->rma;
    uint64_t me = (uint64_t)(uintptr_t)sg_host_self();
    uint64_t *all = malloc((size_t)t->size * sizeof *all);
    r->sim_host = malloc((size_t)t->size * sizeof *r->sim_host);
    if (!all || !r->sim_host) {
        free(all);
        return MPI_ERR_NO_MEM;
    }
    int rc = PMPI_Allgather(&me, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, t->comm);
    for (int i = 0; i < t->size; i++)
        r->sim_host[i] = (void *)(uintptr_t)all[i];
    free(all);
    if (t->cfg.verbose && t->rank == 0)
        pc_log("%d-rank team: zero-copy writes simulated as host-to-host transfers "
               "(PACOLL_SIM_PUT=transfer)", t->size);
    return rc;
}
#endif

int pc_rma_create(pacoll_team_t *t)
{
    pc_rma_t *r = &t->rma;
    int rc = MPI_SUCCESS;
    r->known_progress = calloc((size_t)t->size, sizeof *r->known_progress);
    r->zputs = calloc((size_t)t->size, sizeof *r->zputs);
    r->pending = calloc((size_t)t->cfg.ports + 1, sizeof *r->pending);
    r->advbuf = calloc((size_t)t->size, sizeof *r->advbuf);
    r->advpeers = calloc((size_t)t->size, sizeof *r->advpeers);
    if (!r->known_progress || !r->zputs || !r->pending || !r->advbuf || !r->advpeers)
        return MPI_ERR_NO_MEM;
#if PACOLL_UNDER_SMPI
    r->sim_rq = malloc((size_t)t->size * PC_SIM_KINDS * sizeof *r->sim_rq);
    r->sim_done = calloc((size_t)t->size, sizeof *r->sim_done);
    if (!r->sim_rq || !r->sim_done)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < t->size * PC_SIM_KINDS; i++)
        r->sim_rq[i] = MPI_REQUEST_NULL;
    r->sim_probed_at = -1; /* no probe yet: the clock starts at 0 */
    if (t->cfg.sim_put == PC_SIM_PUT_TRANSFER && (rc = gather_sim_hosts(t)) != MPI_SUCCESS)
        return rc;
#endif
    if (t->host_size > 1 && t->cfg.transport == PC_TRANSPORT_AUTO)
        rc = create_shm(t);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Windows are collective over the team: agree whether anyone needs
     * them (a peer on another host, forced RMA, or no cross-memory copy). */
    int need = t->host_size < t->size || t->cfg.transport == PC_TRANSPORT_RMA ||
               (r->have_shm && !r->cma);
    int any = 0;
    rc = PMPI_Allreduce(&need, &any, 1, MPI_INT, MPI_LOR, t->comm);
    if (rc == MPI_SUCCESS && any && t->size > 1)
        rc = create_windows(t);
    return rc;
}

void pc_rma_free(pacoll_team_t *t)
{
    pc_rma_t *r = &t->rma;
    pc_regcache_free(t);
    /* A notification being received (rma.c sim_take posts a receive only
     * for a message that has been sent): let it land before the
     * communicator goes. */
    for (int i = 0; r->sim_rq && i < t->size * PC_SIM_KINDS; i++)
        if (r->sim_rq[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&r->sim_rq[i], MPI_STATUS_IGNORE);
#if PACOLL_UNDER_SMPI
    /* Transfers a failed call left in flight hold a reference each. */
    for (int i = 0; i < r->sim_nxfer; i++)
        pc_sim_transfer_wait((sg_comm_t)r->sim_xfer[i]);
    r->sim_nxfer = 0;
#endif
    if (r->have_win) {
        PMPI_Win_unlock_all(r->dwin);
        PMPI_Win_unlock_all(r->win);
        PMPI_Win_free(&r->dwin);
        PMPI_Win_free(&r->win);
        r->have_win = 0;
    }
    if (r->have_shm) {
        PMPI_Win_free(&r->shm_win);
        r->have_shm = 0;
    }
    pc_rma_free_local(t);
}

void pc_rma_free_local(pacoll_team_t *t)
{
    pc_rma_t *r = &t->rma;
    free(r->known_progress);
    free(r->zputs);
    free(r->pending);
    free(r->advbuf);
    free(r->advpeers);
    free(r->sim_rq);
    free(r->sim_done);
    free(r->sim_host);
    free(r->sim_xfer);
    free(r->sim_xfer_peer);
    r->sim_host = NULL, r->sim_xfer = NULL, r->sim_xfer_peer = NULL;
    r->sim_nxfer = r->sim_xfer_cap = 0;
    r->known_progress = NULL, r->zputs = NULL, r->pending = NULL;
    r->advbuf = NULL, r->advpeers = NULL, r->sim_rq = NULL, r->sim_done = NULL;
}
