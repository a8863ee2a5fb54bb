/*
 * The mpi_rma transport: a peer on another host, over MPI-3 RMA.  The
 * mailboxes are one window made once per team (MPI_Win_allocate, lock_all
 * held for the team's life); zero-copy data goes with MPI_Put into a
 * dynamic window the receive buffer is attached to (the registration
 * cache).  MPI RMA does not keep a connection's writes in order, so data
 * is flushed before the flag that announces it is put.
 */
#include "channel/transport.h"

int pc_put_bytes(const void *src, size_t n, int peer, MPI_Aint disp, MPI_Win win)
{
    const char *p = src;
    while (n > 0) {
        size_t k = n < PC_PUT_CHUNK ? n : PC_PUT_CHUNK;
        int rc = PMPI_Put(p, (int)k, MPI_BYTE, peer, disp, (int)k, MPI_BYTE, win);
        if (rc != MPI_SUCCESS)
            return rc;
        p += k, disp += (MPI_Aint)k, n -= k;
    }
    return MPI_SUCCESS;
}

/* multirail §3.2: a large put split into `stripe` pieces issued together,
 * so a multi-rail network can carry them on different rails.  The size of
 * one piece (n itself when not striped). */
size_t pc_stripe_piece(const pc_chan_t *ch, size_t n)
{
    size_t k = (size_t)ch->peers.cfg->stripe;
    return k <= 1 || n < k * PC_STRIPE_MIN ? n : (n + k - 1) / k;
}

int pc_put_striped(pc_chan_t *ch, const void *src, size_t n, int peer, MPI_Aint disp, MPI_Win win)
{
    size_t piece = pc_stripe_piece(ch, n);
    for (size_t off = 0; off < n; off += piece) {
        size_t len = n - off < piece ? n - off : piece;
        int rc = pc_put_bytes((const char *)src + off, len, peer, disp + (MPI_Aint)off, win);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int eager_put(pc_call_t *c, int peer, int gen, const void *src, size_t n)
{
    pc_chan_t *ch = c->ch;
    int me = ch->peers.rank;
    MPI_Aint disp = (MPI_Aint)pc_slot_off(ch->peers.size, me, gen, ch->slot);
    int rc = pc_put_bytes(src, n, peer, disp, ch->win);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint flag = (MPI_Aint)(pc_entry_off(me) + offsetof(pc_entry_t, flag) + (size_t)gen * 8);
    return pc_pending_add(c, peer, flag, pc_eager_flag(c->seq, n));
}

static const void *eager_poll(pc_call_t *c, int peer, int gen, uint64_t *flag)
{
    if (!pc_flag_of_call(*flag = pc_load_acq(&pc_win_entry(c->ch, peer)->flag[gen]), c->seq))
        return NULL;
    return pc_win_slot(c->ch, peer, gen);
}

static int advertise(pc_call_t *c, int peer, uint64_t *f)
{
    pc_chan_t *ch = c->ch;
    ch->advpeers[ch->nadv++] = peer;
    MPI_Aint disp = (MPI_Aint)(pc_entry_off(ch->peers.rank) + offsetof(pc_entry_t, adv_addr));
    return PMPI_Put(f, 3, MPI_UINT64_T, peer, disp, 3, MPI_UINT64_T, ch->win);
}

static int expose_end(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    /* The address must land before the call number that validates it. */
    int rc = PMPI_Win_flush_all(ch->win);
    MPI_Aint disp = (MPI_Aint)(pc_entry_off(ch->peers.rank) + offsetof(pc_entry_t, adv_seq));
    for (int i = 0; i < ch->nadv && rc == MPI_SUCCESS; i++)
        rc = PMPI_Put(&c->seq, 1, MPI_UINT64_T, ch->advpeers[i], disp, 1, MPI_UINT64_T, ch->win);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_flush_all(ch->win);
    ch->nadv = 0;
    return rc;
}

static const pc_entry_t *adv_poll(pc_call_t *c, int peer)
{
    const pc_entry_t *e = pc_win_entry(c->ch, peer);
    return pc_load_acq(&e->adv_seq) == c->seq ? e : NULL;
}

int pc_rma_write_data(pc_chan_t *ch, int peer, uint64_t addr, const void *src, size_t n)
{
    return pc_put_striped(ch, src, n, peer, (MPI_Aint)addr, ch->dwin);
}

int pc_rma_complete_data(pc_chan_t *ch, int peer) { return PMPI_Win_flush(peer, ch->dwin); }

static int done_poll(pc_call_t *c, int peer, uint64_t want)
{
    return pc_load_acq(&pc_win_entry(c->ch, peer)->done) >= want;
}

int pc_rma_read_progress_start(pc_chan_t *ch, int peer, uint64_t *v)
{
    return PMPI_Get(v, 1, MPI_UINT64_T, peer, 0, 1, MPI_UINT64_T, ch->win);
}

int pc_rma_read_progress_end(pc_chan_t *ch, int peer) { return PMPI_Win_flush(peer, ch->win); }

int pc_rma_read_progress(pc_chan_t *ch, int peer, uint64_t *v)
{
    int rc = pc_rma_read_progress_start(ch, peer, v);
    return rc == MPI_SUCCESS ? pc_rma_read_progress_end(ch, peer) : rc;
}

int pc_rma_complete_peer(pc_chan_t *ch, int peer)
{
    int rc = pc_rma_complete_data(ch, peer);
    return rc == MPI_SUCCESS ? PMPI_Win_flush(peer, ch->win) : rc;
}

static int write_flag(pc_chan_t *ch, const pc_pending_t *p)
{
    return PMPI_Put(&p->value, 1, MPI_UINT64_T, p->peer, p->flag_disp, 1, MPI_UINT64_T, ch->win);
}

static int deliver_flags(pc_chan_t *ch, int peer) { return PMPI_Win_flush(peer, ch->win); }

static int flush(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    int rc = MPI_SUCCESS;
    /* Per peer: Open MPI 4.1's osc/ucx flush_all on the dynamic window let
     * a done flag overtake the tail of a 400 KB put (check_colls, forced
     * RMA transport); the per-target flush never did. */
    for (int i = 0; i < ch->npending && rc == MPI_SUCCESS; i++)
        rc = pc_rma_complete_peer(ch, ch->pending[i].peer);
    for (int i = 0; i < ch->npending && rc == MPI_SUCCESS; i++)
        rc = write_flag(ch, &ch->pending[i]);
    /* Flags must be delivered now: the peer may be polling for them while
     * we go on to wait for our own data. */
    for (int i = 0; i < ch->npending && rc == MPI_SUCCESS; i++)
        rc = deliver_flags(ch, ch->pending[i].peer);
    ch->npending = 0;
    return rc;
}

const pc_transport_t pc_transport_mpi_rma = {
    .name = "rma",
    .eager_put = eager_put,
    .eager_poll = eager_poll,
    .advertise = advertise,
    .expose_end = expose_end,
    .adv_poll = adv_poll,
    .zput = pc_remote_zput,
    .done_poll = done_poll,
    .read_progress = pc_rma_read_progress,
    .read_progress_start = pc_rma_read_progress_start,
    .read_progress_end = pc_rma_read_progress_end,
    .write_data = pc_rma_write_data,
    .complete_data = pc_rma_complete_data,
    .complete_peer = pc_rma_complete_peer,
    .write_flag = write_flag,
    .deliver_flags = deliver_flags,
    .flush = flush,
};

/* ------------------------------------------------------------- set-up */

int pc_rma_windows_create(pc_chan_t *ch, size_t eager)
{
    const pc_peers_t *p = &ch->peers;
    ch->slot = pc_slot_size(ch, p->size, eager);
    ch->box_bytes = pc_box_bytes(p->size, ch->slot);
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "same_size", "true");
    PMPI_Info_set(info, "accumulate_ordering", "none");
    int rc = PMPI_Win_allocate((MPI_Aint)ch->box_bytes, 1, info, p->comm, &ch->base, &ch->win);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_create_dynamic(info, p->comm, &ch->dwin);
    PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the flag words; slots are read only after their flag */
    memset(ch->base, 0, pc_slot_off(p->size, 0, 0, ch->slot));
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, ch->win);
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, ch->dwin);
    ch->have_win = 1;
    /* Nobody writes into a mailbox before its owner has zeroed it. */
    return PMPI_Barrier(p->comm);
}
