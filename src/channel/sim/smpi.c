/*
 * The smpi transport: a peer on another simulated host under SimGrid SMPI
 * (built only with smpicc).  It simulates the papers' RDMA hardware, not
 * MPI RMA's worst case.
 *
 * Small writes travel as messages.  On an RDMA network (the papers'
 * InfiniBand and Quadrics) a small write and the flag after it reach the
 * receiver one latency after they were posted: the NIC keeps writes in
 * order.  MPI RMA has no such order, so on a real MPI the channel flushes
 * the data before it puts the flag, and SimGrid 3.32 models that
 * faithfully but expensively: a put + flush costs a round trip, and the
 * flag a second one (docs/SIM.md).  So this transport sends its small
 * writes (eager data, advertisements, zero-copy completion counters) as
 * messages that land in the same mailbox fields: one latency, in order,
 * no flush.  They stay below SMPI's detached-send threshold (the platform's
 * slot_max caps the eager slot), so the source may be reused at once.
 *
 * Large zero-copy data goes by MPI_Put into the dynamic window
 * (PACOLL_SIM_PUT=window, the default) or, with PACOLL_SIM_PUT=transfer,
 * as a plain copy (the simulated ranks share one address space) timed by an
 * asynchronous host-to-host transfer.  SimGrid queues a put's receive
 * request in the target's window under a mutex that MPI_Win_flush keeps for
 * its whole wait, so a put into a window another rank is flushing waits for
 * that flush; an RDMA write never waits for another origin's completion
 * (docs/SIM.md, "How a zero-copy write is simulated").  A transfer needs no
 * window and no receiver: completing a write is waiting for its transfer,
 * and the done counter follows as a message, as after a flush.
 */
#include <simgrid/engine.h>

#include "channel/sim/sim.h"

/* Message kinds: eager per generation, advertisement, done counter. */
#define KINDS (PC_GENS + 2)
enum { TAG_EAGER = 7100, TAG_ADV = 7110, TAG_DONE = 7111 };

typedef struct pc_plat_state {
    /* One posted receive per peer and kind, and the done counters'
     * landing words. */
    MPI_Request *rq;
    uint64_t *done;
    int tested; /* pc_chan_poll_only on, with PACOLL_SIM_TESTED */
    /* Simulated time at which the last probe found nothing for this rank
     * (the quiet gate), and whether it found anything at all. */
    double probed_at;
    int pending;
    int block; /* a single-message wait: receive blocking (block_begin) */
    /* PACOLL_SIM_PUT=transfer: each team rank's simulated host
     * (sg_host_t), and the writes in flight: transfers and target ranks. */
    void **host;
    void **xfer;
    int *xfer_peer;
    int nxfer, xfer_cap;
} pc_smpi_t;

/* ------------------------------------------------------- notifications */

static int notify(pc_chan_t *ch, int peer, int tag, const void *buf, size_t n)
{
    MPI_Request rq;
    int rc = PMPI_Isend(buf, (int)n, MPI_BYTE, peer, tag, ch->peers.comm, &rq);
    return rc == MPI_SUCCESS ? PMPI_Request_free(&rq) : rc;
}

/* The quiet gate.  Every MPI_Iprobe is a simcall (a context switch), and a
 * pass over N peers' mailboxes was N of them.  Messages reach this rank
 * only while simulated time moves, so one probe for any message answers
 * for every mailbox until the clock moves again (an MPI call, a modelled
 * copy, the wait layer's back-off); docs/SIM.md has its measured effect.
 * simgrid_get_clock reads the time without a simcall (MPI_Wtime may
 * inject time). */
static int anything_pending(pc_chan_t *ch)
{
    pc_smpi_t *s = ch->plat;
    if (simgrid_get_clock() == s->probed_at)
        return s->pending;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ch->peers.comm, &s->pending, MPI_STATUS_IGNORE);
    s->probed_at = simgrid_get_clock();
    return s->pending;
}

/* Takes the next message with tag from peer into buf, if it has landed.
 * Messages of one tag from one sender arrive in order, and a sender never
 * sends the next call's message of a kind before this rank has consumed
 * this call's (the collective's own dependencies ensure it), so the first
 * message queued is this call's.
 *
 * SMPI's Iprobe reports a message as soon as it is sent, so an MPI_Recv
 * after it blocks for the rest of the transfer.  For a loop that only
 * waits for data that is fine, and the blocking receive is what keeps the
 * simulation cheap (one simcall instead of a poll per microsecond).  A
 * loop that must keep sending while data flies in (pc_chan_poll_only) was
 * serialised by those blocking receives; for it, with PACOLL_SIM_TESTED=1,
 * the message is received by a posted, tested receive that says "landed"
 * only once the data is there, as an RDMA flag does.  Opt-in: the SMPI
 * test suite ran slower with it on by default (docs/SIM.md), so sim/run's
 * experiments that need it turn it on.
 * That receive writes into buf when the data lands, so buf must be the
 * channel's memory (a slot or mailbox word), never the stack. */
/* A blocking receive of a message already sent (PACOLL_TRACE counts the
 * time: the rest of its transfer). */
static int recv_sent(pc_chan_t *ch, int peer, int tag, void *buf, size_t cap, MPI_Status *st)
{
    double t0 = pc_trace_start(ch);
    int ok = PMPI_Recv(buf, (int)cap, MPI_BYTE, peer, tag, ch->peers.comm, st) == MPI_SUCCESS;
    pc_trace_add(ch, &ch->tr.recv, &ch->tr.recvs, t0);
    return ok;
}

static int take_status(pc_chan_t *ch, int peer, int tag, void *buf, size_t cap, MPI_Status *st)
{
    pc_smpi_t *s = ch->plat;
    MPI_Comm comm = ch->peers.comm;
    int kind = tag == TAG_ADV ? PC_GENS : tag == TAG_DONE ? PC_GENS + 1 : tag - TAG_EAGER;
    MPI_Request *rq = &s->rq[(size_t)peer * KINDS + (size_t)kind];
    int flag = 0;
    if (s->block) /* a wait for exactly this message: see block_begin */
        return recv_sent(ch, peer, tag, buf, cap, st);
    if (*rq == MPI_REQUEST_NULL) {
        if (!anything_pending(ch))
            return 0;
        PMPI_Iprobe(peer, tag, comm, &flag, MPI_STATUS_IGNORE);
        s->probed_at = simgrid_get_clock();
        if (!flag)
            return 0;
        if (!s->tested)
            return recv_sent(ch, peer, tag, buf, cap, st);
        if (PMPI_Irecv(buf, (int)cap, MPI_BYTE, peer, tag, comm, rq) != MPI_SUCCESS)
            return 0;
    }
    PMPI_Test(rq, &flag, st);
    return flag;
}

static int take(pc_chan_t *ch, int peer, int tag, void *buf, size_t cap, int *count)
{
    MPI_Status st;
    int got = take_status(ch, peer, tag, buf, cap, &st);
    if (got && count)
        PMPI_Get_count(&st, MPI_BYTE, count);
    return got;
}

/* A wait for one peer's message of one kind receives it with a blocking
 * MPI_Recv: the wait ends exactly when the data has landed, in one
 * simcall, where the wait layer's polls cost a context switch each (a
 * 256-rank ring allgather polled hundreds of times per step and rank).
 * MPI_Probe would not do: SMPI implements it as an Iprobe loop.  Not with
 * the tested receives on (the loop must not block). */
static int block_begin(pc_chan_t *ch, int peer)
{
    PC_UNUSED(peer);
    if (ch->plat->tested)
        return 0;
    ch->plat->block = 1;
    return 1;
}

static void block_end(pc_chan_t *ch) { ch->plat->block = 0; }

/* Turning the tested receives off completes the ones in flight (each was
 * posted for a message already sent, so this waits at most for that
 * message to land): a receive left posted would take a later call's
 * message of its kind behind that call's back. */
static void poll_only(pc_chan_t *ch, int on)
{
    pc_smpi_t *s = ch->plat;
    on = on && (ch->peers.cfg->platform[PC_SIM_SET_TESTED] != 0);
    ch->poll_only = on; /* the shm transport's flags in flight, too (shm.c) */
    if (!on && !s->tested) /* nothing was posted */
        return;
    s->tested = on;
    for (int i = 0; !on && s->rq && i < ch->peers.size * KINDS; i++)
        if (s->rq[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&s->rq[i], MPI_STATUS_IGNORE);
}

/* ------------------------------------------------ zero-copy transfers */

static int xfer_push(pc_chan_t *ch, int peer, size_t n)
{
    pc_smpi_t *s = ch->plat;
    if (s->nxfer == s->xfer_cap) {
        int cap = s->xfer_cap ? 2 * s->xfer_cap : 16;
        void **x = realloc(s->xfer, (size_t)cap * sizeof *x);
        if (!x)
            return MPI_ERR_NO_MEM;
        s->xfer = x;
        int *p = realloc(s->xfer_peer, (size_t)cap * sizeof *p);
        if (!p)
            return MPI_ERR_NO_MEM;
        s->xfer_peer = p;
        s->xfer_cap = cap;
    }
    s->xfer[s->nxfer] = pc_sim_transfer_start(s->host[ch->peers.rank], s->host[peer], (uint64_t)n);
    s->xfer_peer[s->nxfer++] = peer;
    return MPI_SUCCESS;
}

/* One zero-copy write: the bytes now (memmove: --sim-shared-buffers runs
 * write a buffer onto itself), the network's time as one transfer per
 * stripe piece.  The receiver reads the data only after the done counter,
 * which is sent once the transfers are complete. */
static int transfer_write(pc_chan_t *ch, int peer, uint64_t addr, const void *src, size_t n)
{
    memmove((void *)(uintptr_t)addr, src, n);
    size_t piece = pc_stripe_piece(ch, n);
    for (size_t off = 0; off < n; off += piece) {
        size_t len = n - off < piece ? n - off : piece;
        pc_sim_remote_write(len); /* the host's CPU drives an onload NIC */
        int rc = xfer_push(ch, peer, len);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* True once every write to peer has landed (those that have are
 * released); never waits. */
static int landed(pc_chan_t *ch, int peer)
{
    pc_smpi_t *s = ch->plat;
    int kept = 0, left = 0;
    for (int i = 0; i < s->nxfer; i++) {
        if (s->xfer_peer[i] == peer && pc_sim_transfer_test((sg_comm_t)s->xfer[i]))
            continue;
        left += s->xfer_peer[i] == peer;
        s->xfer[kept] = s->xfer[i];
        s->xfer_peer[kept++] = s->xfer_peer[i];
    }
    s->nxfer = kept;
    return left == 0;
}

/* Waits for the writes in flight to peer, or to everyone if peer < 0. */
static void transfer_complete(pc_chan_t *ch, int peer)
{
    pc_smpi_t *s = ch->plat;
    int kept = 0;
    for (int i = 0; i < s->nxfer; i++) {
        if (peer >= 0 && s->xfer_peer[i] != peer) {
            s->xfer[kept] = s->xfer[i];
            s->xfer_peer[kept++] = s->xfer_peer[i];
        } else {
            double t0 = pc_trace_start(ch);
            pc_sim_transfer_wait((sg_comm_t)s->xfer[i]);
            pc_trace_add(ch, &ch->tr.xfer, NULL, t0);
        }
    }
    s->nxfer = kept;
}

static int transfer_complete_data(pc_chan_t *ch, int peer)
{
    transfer_complete(ch, peer);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------- operations */

static int eager_put(pc_call_t *c, int peer, int gen, const void *src, size_t n)
{
    return notify(c->ch, peer, TAG_EAGER + gen, src, n);
}

static const void *eager_poll(pc_call_t *c, int peer, int gen, uint64_t *flag)
{
    pc_chan_t *ch = c->ch;
    pc_entry_t *e = pc_win_entry(ch, peer);
    char *slot = pc_win_slot(ch, peer, gen);
    int got = 0;
    if (!pc_flag_of_call(*flag = pc_load_acq(&e->flag[gen]), c->seq)) {
        if (!take(ch, peer, TAG_EAGER + gen, slot, ch->slot, &got))
            return NULL;
        /* the fair model's smpi/or charged this block's copy-out on arrival */
        pc_sim_copy_refund((size_t)got);
        e->flag[gen] = *flag = pc_eager_flag(c->seq, PC_LEN_UNCHECKED);
    }
    return slot;
}

static int advertise(pc_call_t *c, int peer, uint64_t *f)
{
    /* address and call number in one message */
    return notify(c->ch, peer, TAG_ADV, f, sizeof c->ch->advbuf[peer]);
}

static const pc_entry_t *adv_poll(pc_call_t *c, int peer)
{
    pc_entry_t *e = pc_win_entry(c->ch, peer);
    if (pc_load_acq(&e->adv_seq) == c->seq)
        return e;
    /* adv_addr .. adv_seq are four consecutive words */
    if (!take(c->ch, peer, TAG_ADV, &e->adv_addr, 4 * sizeof(uint64_t), NULL) || e->adv_seq != c->seq)
        return NULL;
    return e;
}

static int done_poll(pc_call_t *c, int peer, uint64_t want)
{
    pc_entry_t *e = pc_win_entry(c->ch, peer);
    uint64_t *v = &c->ch->plat->done[peer];
    while (pc_load_acq(&e->done) < want && take(c->ch, peer, TAG_DONE, v, sizeof *v, NULL))
        if (*v > e->done)
            e->done = *v;
    return pc_load_acq(&e->done) >= want;
}

static int write_flag(pc_chan_t *ch, const pc_pending_t *p)
{
    /* only zero-copy counters are pending here */
    return notify(ch, p->peer, TAG_DONE, &p->value, 8);
}

static int no_delivery(pc_chan_t *ch, int peer) { return PC_UNUSED(ch), PC_UNUSED(peer), MPI_SUCCESS; }

/* ------------------------------------------- window: data by MPI_Put */

/* One flush_all, not one flush per peer: SMPI's per-target flush costs
 * grow with the requests in flight.  But SMPI's flush_all visits every
 * rank's window (two simcalls each): with one put pending (a ring or
 * recursive-doubling step) the per-target flush does the same waiting for
 * less (docs/SIM.md). */
static int window_flush(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    int rc;
    if (ch->npending == 1) {
        rc = PMPI_Win_flush(ch->pending[0].peer, ch->dwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush(ch->pending[0].peer, ch->win);
    } else {
        rc = PMPI_Win_flush_all(ch->dwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush_all(ch->win);
    }
    for (int i = 0; i < ch->npending && rc == MPI_SUCCESS; i++)
        rc = write_flag(ch, &ch->pending[i]);
    ch->npending = 0;
    return rc;
}

/* ------------------------------------ transfer: data by host transfer */

/* Writes the flag of every pending put that has landed; never waits. */
static int transfer_flush_landed(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    int rc = MPI_SUCCESS, kept = 0;
    for (int i = 0; i < ch->npending; i++) {
        if (rc == MPI_SUCCESS && landed(ch, ch->pending[i].peer))
            rc = write_flag(ch, &ch->pending[i]);
        else
            ch->pending[kept++] = ch->pending[i];
    }
    ch->npending = kept;
    return rc;
}

/* Completes every pending put, writing each peer's flag when its writes
 * have landed rather than after the slowest. */
static int transfer_flush(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    int rc = transfer_flush_landed(c);
    while (rc == MPI_SUCCESS && ch->npending > 0) {
        if (ch->plat->nxfer > 0) {
            double t0 = pc_trace_start(ch);
            pc_sim_transfer_wait_any((const sg_comm_t *)ch->plat->xfer, (size_t)ch->plat->nxfer);
            pc_trace_add(ch, &ch->tr.xfer, NULL, t0);
        }
        rc = transfer_flush_landed(c);
    }
    return rc;
}

/* The two simulated transports differ only in how data is written (into
 * the window as MPI RMA, or as a host-to-host transfer) and flushed; the
 * mailbox, the flags and the read path are the same. */
#define SMPI_MAILBOX_OPS                                                 \
    .eager_put = eager_put, .eager_poll = eager_poll, .advertise = advertise, \
    .adv_poll = adv_poll, .zput = pc_remote_zput, .done_poll = done_poll, \
    .read_progress = pc_rma_read_progress, /* the window, as MPI RMA */  \
    .read_progress_start = pc_rma_read_progress_start,                   \
    .read_progress_end = pc_rma_read_progress_end, .write_flag = write_flag, \
    .deliver_flags = no_delivery, .block_begin = block_begin, .block_end = block_end, \
    .poll_only = poll_only

static const pc_transport_t pc_transport_smpi = {
    .name = "smpi",
    SMPI_MAILBOX_OPS,
    .write_data = pc_rma_write_data,
    .complete_data = pc_rma_complete_data,
    .complete_peer = pc_rma_complete_peer,
    .flush = window_flush,
};

static const pc_transport_t smpi_transfer = {
    .name = "smpi-transfer",
    SMPI_MAILBOX_OPS,
    .write_data = transfer_write,
    .complete_data = transfer_complete_data,
    .complete_peer = transfer_complete_data, /* nothing goes into the window */
    .flush = transfer_flush,
    .flush_landed = transfer_flush_landed,
};

/* ------------------------------------------------------------- set-up */

/* PACOLL_SIM_PUT=transfer: every team rank's simulated host, the ends of
 * its zero-copy transfers.  The ranks share one address space, so a host
 * handle is valid in every rank. */
static int gather_hosts(pc_chan_t *ch)
{
    pc_smpi_t *s = ch->plat;
    const pc_peers_t *p = &ch->peers;
    uint64_t me = (uint64_t)(uintptr_t)sg_host_self();
    uint64_t *all = malloc((size_t)p->size * sizeof *all);
    s->host = malloc((size_t)p->size * sizeof *s->host);
    if (!all || !s->host) {
        free(all);
        return MPI_ERR_NO_MEM;
    }
    int rc = PMPI_Allgather(&me, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, p->comm);
    for (int i = 0; i < p->size; i++)
        s->host[i] = (void *)(uintptr_t)all[i];
    free(all);
    if (p->cfg->verbose && p->rank == 0)
        pc_log("%d-rank team: zero-copy writes simulated as host-to-host transfers "
               "(PACOLL_SIM_PUT=transfer)", p->size);
    return rc;
}

int pc_smpi_create(pc_chan_t *ch)
{
    pc_smpi_t *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    ch->plat = s;
    ch->remote = &pc_transport_smpi;
    s->rq = malloc((size_t)ch->peers.size * KINDS * sizeof *s->rq);
    s->done = calloc((size_t)ch->peers.size, sizeof *s->done);
    if (!s->rq || !s->done)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < ch->peers.size * KINDS; i++)
        s->rq[i] = MPI_REQUEST_NULL;
    s->probed_at = -1; /* no probe yet: the clock starts at 0 */
    if ((int)ch->peers.cfg->platform[PC_SIM_SET_PUT] != PC_SIM_PUT_TRANSFER)
        return MPI_SUCCESS;
    int rc = gather_hosts(ch);
    if (rc == MPI_SUCCESS)
        ch->remote = &smpi_transfer;
    return rc;
}

void pc_smpi_free(pc_chan_t *ch)
{
    pc_smpi_t *s = ch->plat;
    if (!s)
        return;
    /* A notification being received (take posts a receive only for a
     * message that has been sent): let it land before the communicator
     * goes. */
    for (int i = 0; s->rq && i < ch->peers.size * KINDS; i++)
        if (s->rq[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&s->rq[i], MPI_STATUS_IGNORE);
    /* Transfers a failed call left in flight hold a reference each. */
    for (int i = 0; i < s->nxfer; i++)
        pc_sim_transfer_wait((sg_comm_t)s->xfer[i]);
    s->nxfer = 0;
}

void pc_smpi_free_local(pc_chan_t *ch)
{
    pc_smpi_t *s = ch->plat;
    if (!s)
        return;
    free(s->rq);
    free(s->done);
    free(s->host);
    free(s->xfer);
    free(s->xfer_peer);
    free(s);
    ch->plat = NULL;
}
