/*
 * Making and freeing the channel of a team (once per communicator: window
 * creation and lock_all cost O(P), SMPI-NOTES).
 */
#include "channel/transport.h"

static size_t floor_line(size_t n) { return n / PC_LINE * PC_LINE; }

/* Eager slot size: the largest eager block wanted (the transport's eager
 * limit, or an algorithm's larger copy-based threshold), shrunk so that 3
 * slots per peer fit the per-rank budget (the collective buffer must not
 * grow with P without bound: 1024 ranks x 3 x 8 KB would be 24 MB per
 * rank). */
size_t pc_slot_size(const pc_chan_t *ch, int npeers, size_t eager)
{
    const pc_chan_cfg_t *cfg = ch->peers.cfg;
    size_t per = cfg->slot_budget / ((size_t)PC_GENS * (size_t)(npeers > 0 ? npeers : 1));
    size_t want = eager > cfg->slot_want ? eager : cfg->slot_want;
    want = want < per ? want : per;
    return floor_line(PC_PLATFORM.slot_max(want));
}

/* Every host peer's process identity (base/proc.c), so that a rank kept
 * waiting by a host peer can tell whether it still runs.  Not where one
 * process runs every rank. */
static int gather_procs(pc_chan_t *ch)
{
    const pc_peers_t *p = &ch->peers;
    if (!PC_PLATFORM.own_processes || p->host_size < 2)
        return MPI_SUCCESS;
    pc_proc_t me = pc_proc_self();
    ch->procs = calloc((size_t)p->host_size, sizeof *ch->procs);
    if (!ch->procs)
        return MPI_ERR_NO_MEM;
    return PMPI_Allgather(&me, (int)(sizeof me / sizeof(uint64_t)), MPI_UINT64_T, ch->procs,
                          (int)(sizeof me / sizeof(uint64_t)), MPI_UINT64_T, p->host_comm);
}

/* UCX for the remote peers where it comes up on every rank, else MPI RMA
 * (named under PACOLL_VERBOSE, by rank 0): the default where a peer is on
 * another host, and every peer with PACOLL_TRANSPORT=ucx. */
static int remote_transport(pc_chan_t *ch)
{
    char why[192] = "";
    int rc = pc_ucx_create(ch, why, sizeof why);
    if (rc == MPI_SUCCESS && ch->remote == &pc_transport_mpi_rma && ch->peers.cfg->verbose &&
        ch->peers.rank == 0)
        pc_log("remote transport: MPI RMA, not UCX (%s)%s", why,
               ch->peers.cfg->transport == PC_TRANSPORT_UCX ? " although PACOLL_TRANSPORT=ucx" : "");
    return rc;
}

int pc_chan_wants_ucx(int transport, int size, int host_size)
{
    return transport == PC_TRANSPORT_UCX || (transport == PC_TRANSPORT_AUTO && host_size < size);
}

int pc_chan_create(pc_chan_t *ch, const pc_peers_t *peers, pc_room_t extra, int *room)
{
    *room = 1;
    ch->peers = *peers;
    const pc_peers_t *p = &ch->peers;
    int rc = MPI_SUCCESS;
    ch->remote = &pc_transport_mpi_rma;
    ch->remote_eager = p->cfg->eager_bytes;
    ch->known_progress = calloc((size_t)p->size, sizeof *ch->known_progress);
    ch->progress_read = calloc((size_t)p->size, sizeof *ch->progress_read);
    ch->zputs = calloc((size_t)p->size, sizeof *ch->zputs);
    /* one pending put per target at most (pc_pending_add), PACOLL_PORTS or
     * a whole team's (pc_call_set_window) */
    size_t window = (size_t)(p->cfg->ports > p->size ? p->cfg->ports : p->size);
    ch->pending = calloc(window + 1, sizeof *ch->pending);
    ch->advbuf = calloc((size_t)p->size, sizeof *ch->advbuf);
    ch->advpeers = calloc((size_t)p->size, sizeof *ch->advpeers);
    if (!ch->known_progress || !ch->progress_read || !ch->zputs || !ch->pending || !ch->advbuf ||
        !ch->advpeers)
        return MPI_ERR_NO_MEM;
    if (PC_PLATFORM.chan_create && (rc = PC_PLATFORM.chan_create(ch)) != MPI_SUCCESS)
        return rc;
    if ((rc = gather_procs(ch)) != MPI_SUCCESS)
        return rc;
    int shm = p->host_size > 1 && p->cfg->transport == PC_TRANSPORT_AUTO;
    if (shm)
        pc_shm_probe(ch);
    /* Windows are collective over the team: agree whether anyone needs
     * them (a peer on another host, forced RMA, or no cross-memory copy),
     * and in the same reduction whether every host has room for all that
     * set-up allocates (room.h): else nothing is allocated anywhere. */
    int need = p->host_size < p->size || p->cfg->transport != PC_TRANSPORT_AUTO || (shm && !ch->cma);
    /* the mailboxes are UCX's too where it comes up: room for its eager limit */
    int ucx = pc_chan_wants_ucx(p->cfg->transport, p->size, p->host_size);
    size_t remote_eager = ucx ? pc_ucx_eager(p->cfg) : p->cfg->eager_bytes;
    size_t rma_box =
        need && p->size > 1 ? pc_box_bytes(p->size, pc_slot_size(ch, p->size, remote_eager)) : 0;
    pc_room_t r = extra;
    if (shm)
        r.shm = pc_room_add(r.shm, pc_shm_segment_bytes(ch));
    /* (the MPI library may back a window among ranks of one host with
     * shared memory too) */
    r.mem = pc_room_add(r.mem, pc_room_mul(rma_box, (size_t)p->host_size));
    char why[192];
    int mine[2] = {need, !pc_room_here(r, why, sizeof why)}, any[2] = {0, 0};
    if (mine[1] && p->cfg->verbose)
        pc_log("no room for pacoll's channel: %s", why);
    rc = PMPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, p->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    *room = !any[1];
    if (!*room)
        return MPI_SUCCESS;
    if (shm)
        rc = pc_shm_transport_create(ch);
    if (rc == MPI_SUCCESS && any[0] && p->size > 1)
        rc = pc_rma_windows_create(ch, remote_eager);
    if (rc == MPI_SUCCESS && ch->have_win && ucx)
        rc = remote_transport(ch);
    return rc;
}

const char *pc_chan_describe(const pc_chan_t *ch, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", ch->have_shm ? "shm" : "", ch->have_shm && ch->have_win ? "+" : "",
             ch->have_win ? ch->remote->name : (ch->have_shm ? "" : "none"));
    return buf;
}

void pc_chan_free(pc_chan_t *ch)
{
    pc_regcache_free(ch);
    pc_ucx_free(ch);
    if (PC_PLATFORM.chan_free)
        PC_PLATFORM.chan_free(ch);
    if (ch->have_win) {
        PMPI_Win_unlock_all(ch->dwin);
        PMPI_Win_unlock_all(ch->win);
        PMPI_Win_free(&ch->dwin);
        PMPI_Win_free(&ch->win);
        ch->have_win = 0;
    }
    if (ch->have_shm) {
        PMPI_Win_free(&ch->shm_win);
        ch->have_shm = 0;
    }
    pc_chan_free_local(ch);
}

void pc_chan_free_local(pc_chan_t *ch)
{
    free(ch->known_progress);
    free(ch->progress_read);
    free(ch->zputs);
    free(ch->pending);
    free(ch->advbuf);
    free(ch->advpeers);
    free(ch->procs);
    ch->procs = NULL;
    ch->known_progress = NULL, ch->progress_read = NULL, ch->zputs = NULL, ch->pending = NULL;
    ch->advbuf = NULL, ch->advpeers = NULL;
    if (PC_PLATFORM.chan_free_local)
        PC_PLATFORM.chan_free_local(ch);
}
