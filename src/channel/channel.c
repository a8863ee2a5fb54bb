/* The channel's common part: calls, eager flags, slot flow control, the
 * k-port window; each operation goes to the peer's transport
 * (channel/transport.h). */
#include "channel/transport.h"

#include <unistd.h>

/* ------------------------------------------------------------- copying */

/* 1 if it copied (n bytes to a place other than src). */
static int copy_bytes(void *dst, const void *src, size_t n)
{
    if (n == 0 || dst == src)
        return 0;
    memcpy(dst, src, n);
    return 1;
}

void pc_copy(void *dst, const void *src, size_t n)
{
    if (copy_bytes(dst, src, n))
        pc_copy_charge(n);
}

void pc_copy_own(void *dst, const void *src, size_t n)
{
    if (copy_bytes(dst, src, n))
        pc_copy_charge_own(n);
}

/* --------------------------------------------------- the k-port window */

/* Frees one port: completes every put to the oldest pending target and
 * writes its flags, while the other k-1 writes keep flying.  Completing
 * all k before the next write (the papers' step-wise reading of k ports)
 * idles every port until the slowest write of the step lands; a k-port
 * NIC starts the next write as soon as one port frees (docs/MULTIPORT.md,
 * "Ports as a window"). */
static int complete_oldest(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    const pc_transport_t *tp = ch->remote;
    int peer = ch->pending[0].peer, kept = 0;
    int rc = tp->complete_peer(ch, peer);
    for (int i = 0; i < ch->npending; i++) {
        if (ch->pending[i].peer != peer)
            ch->pending[kept++] = ch->pending[i];
        else if (rc == MPI_SUCCESS)
            rc = tp->write_flag(ch, &ch->pending[i]);
    }
    ch->npending = kept;
    if (rc == MPI_SUCCESS)
        rc = tp->deliver_flags(ch, peer);
    return rc;
}

int pc_pending_add(pc_call_t *c, int peer, MPI_Aint flag_disp, uint64_t value)
{
    pc_chan_t *ch = c->ch;
    for (int i = 0; i < ch->npending; i++) {
        /* Two unflushed puts to one flag have no defined order: keep one. */
        if (ch->pending[i].peer == peer && ch->pending[i].flag_disp == flag_disp) {
            ch->pending[i].value = value;
            return MPI_SUCCESS;
        }
    }
    ch->pending[ch->npending++] = (pc_pending_t){.peer = peer, .flag_disp = flag_disp, .value = value};
    if (ch->npending >= c->window)
        return complete_oldest(c);
    return MPI_SUCCESS;
}

int pc_remote_zput(pc_call_t *c, int peer, uint64_t addr, uint64_t pid, const void *src, size_t n,
                   uint64_t done)
{
    PC_UNUSED(pid);
    int rc = c->ch->remote->write_data(c->ch, peer, addr, src, n);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint disp = (MPI_Aint)(pc_entry_off(c->ch->peers.rank) + offsetof(pc_entry_t, done));
    return pc_pending_add(c, peer, disp, done);
}

int pc_puts_testable(const pc_chan_t *ch) { return ch->remote && ch->remote->flush_landed != NULL; }

int pc_flush_landed(pc_call_t *c)
{
    if (!pc_puts_testable(c->ch)) /* no test: only a flush completes */
        return pc_flush(c);
    return c->ch->remote->flush_landed(c);
}

int pc_flush(pc_call_t *c)
{
    if (c->ch->npending == 0 && !c->ch->unflushed)
        return MPI_SUCCESS;
    return c->ch->remote->flush(c);
}

void pc_chan_poll_only(pc_chan_t *ch, int on)
{
    if (ch->remote && ch->remote->poll_only)
        ch->remote->poll_only(ch, on);
}

/* --------------------------------------------------------------- calls */

void pc_call_begin(pc_call_t *c, pc_chan_t *ch, const char *what)
{
    c->ch = ch;
    c->seq = ++ch->seq;
    c->all_arrived = 0;
    c->window = ch->peers.cfg->ports;
    c->bad_peer = -1;
    pc_wait_init(&c->w, ch, what);
    if (ch->peers.cfg->trace)
        ch->tr = (pc_trace_t){.t0 = pc_clock(), .copy0 = PC_PLATFORM.charged()};
    if (ch->zputs)
        memset(ch->zputs, 0, (size_t)ch->peers.size * sizeof *ch->zputs);
}

/* PACOLL_TRACE's line: the call's time on this rank, split into copies,
 * polls, blocked receives, waits for my writes, and the rest (sending,
 * bookkeeping); then what this rank sent. */
static void trace_line(const pc_call_t *c)
{
    const pc_chan_t *ch = c->ch;
    const pc_trace_t *r = &ch->tr;
    double us = 1e6, total = pc_clock() - r->t0, copy = PC_PLATFORM.charged() - r->copy0;
    pc_log("trace: %s call %llu rank %d: %.3f us = copies %.3f + polls %.3f (%u) + receives "
           "%.3f (%u) + own writes %.3f + other %.3f; sent %u eager (%llu B), %u adv, %u writes "
           "(%llu B)",
           c->w.what, (unsigned long long)c->seq, ch->peers.rank, total * us, copy * us,
           r->poll * us, r->polls, r->recv * us, r->recvs, r->xfer * us,
           (total - copy - r->poll - r->recv - r->xfer) * us, r->eager,
           (unsigned long long)r->eager_bytes, r->adv, r->zput, (unsigned long long)r->zput_bytes);
}

int pc_call_end(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    int rc = pc_flush(c);
    if (rc == MPI_SUCCESS && ch->remote->call_end)
        rc = ch->remote->call_end(ch);
    if (ch->peers.cfg->trace == 2 || (ch->peers.cfg->trace == 1 && ch->peers.rank == 0))
        trace_line(c);
    pc_regcache_end_call(ch);
    if (c->all_arrived && c->seq - 1 > ch->floor)
        ch->floor = c->seq - 1;
    /* Everything I received in this call is consumed: publish it, so
     * senders may reuse this generation of my slots three calls later. */
    if (ch->have_win) {
        pc_store_rel((uint64_t *)ch->base, c->seq);
        PMPI_Win_sync(ch->win);
    }
    if (ch->have_shm)
        pc_store_rel((uint64_t *)(ch->shm_base + (size_t)ch->peers.host_rank * ch->shm_box_bytes),
                     c->seq);
    if (rc == MPI_SUCCESS && c->bad_peer >= 0) { /* every step ran: the channel agrees */
        char msg[256];
        snprintf(msg, sizeof msg,
                 "rank %d sent a block of %zu bytes where this rank expected %zu: the ranks' "
                 "type signatures differ",
                 c->bad_peer, c->bad_got, c->bad_want);
        if (ch->peers.note)
            ch->peers.note(ch->peers.owner, msg);
        rc = MPI_ERR_TRUNCATE;
    }
    return rc;
}

static void saw_peer_in(pc_call_t *c, int peer)
{
    /* A peer that has written to me in call s has finished every call
     * before s, and so consumed everything I sent it then. */
    uint64_t *kp = &c->ch->known_progress[peer];
    if (*kp < c->seq - 1)
        *kp = c->seq - 1;
}

/* Flow control for eager slots: generation g of peer's slots was last
 * written by me in call seq-3; wait until peer has finished that call.
 * Symmetric collectives never wait here (their data is the credit).  A
 * rank that only sends to peer (gather's non-roots) must read peer's
 * progress, a round trip every third call; so the read is started one
 * call before it is needed, and is usually in by then.  A
 * rank running ahead through several gathers to one root still waits. */
static int wait_slot_free(pc_call_t *c, int peer)
{
    pc_chan_t *ch = c->ch;
    const pc_transport_t *tp = pc_transport_of(ch, peer);
    pc_progress_read_t *ahead = &ch->progress_read[peer];
    uint64_t *kp = &ch->known_progress[peer];
    int rc = MPI_SUCCESS;
    if (*kp < ch->floor)
        *kp = ch->floor;
    if (ahead->started && c->seq > PC_GENS && *kp < c->seq - PC_GENS) {
        rc = tp->read_progress_end(ch, peer);
        if (rc != MPI_SUCCESS) /* still outstanding: never a second read into it */
            return rc;
        ahead->started = 0;
        if (ahead->value > *kp)
            *kp = ahead->value;
    }
    if (c->seq > PC_GENS && *kp < c->seq - PC_GENS) {
        pc_wait_new_condition(&c->w);
        for (;;) {
            uint64_t v = 0;
            rc = tp->read_progress(ch, peer, &v);
            if (rc != MPI_SUCCESS)
                return rc;
            if (v > *kp)
                *kp = v;
            if (*kp >= c->seq - PC_GENS)
                break;
            rc = pc_wait_poll(&c->w, peer);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    /* the next call needs peer past seq+1-GENS: ask now if that is not known */
    if (tp->read_progress_start && !ahead->started && c->seq + 1 > PC_GENS &&
        *kp < c->seq + 1 - PC_GENS) /* a read that cannot start is read later, blocking */
        ahead->started = tp->read_progress_start(ch, peer, &ahead->value) == MPI_SUCCESS;
    return MPI_SUCCESS;
}

void pc_call_all_arrived(pc_call_t *c) { c->all_arrived = 1; }

void pc_call_set_window(pc_call_t *c, int puts)
{
    int most = c->ch->peers.size > 1 ? c->ch->peers.size : 1;
    c->window = puts < 1 ? 1 : puts > most ? most : puts;
}

/* A wait for one message from a remote peer may block in the transport
 * until it lands (the simulator's: one event instead of a poll per
 * microsecond); the poll then runs once, and the wait layer takes over
 * only if it came back empty. */
static int block_begin(pc_call_t *c, int peer)
{
    const pc_transport_t *tp = pc_transport_of(c->ch, peer);
    return tp->block_begin && tp->block_begin(c->ch, peer);
}

static void block_end(pc_call_t *c) { c->ch->remote->block_end(c->ch); }

/* --------------------------------------------------------------- eager */

/* The eager slot bytes between this rank and peer (the same both ways). */
static size_t slot_bytes(const pc_chan_t *ch, int peer) { return pc_on_shm(ch, peer) ? ch->shm_slot : ch->slot; }

int pc_slot_fits(const pc_call_t *c, int peer, size_t n) { return n <= slot_bytes(c->ch, peer); }

/* The largest copy-based block to peer: the transport's limit (the same
 * on both sides: a team's ranks reach each other by one transport). */
static size_t eager_limit(const pc_chan_t *ch, int peer)
{
    return pc_on_shm(ch, peer) ? ch->peers.cfg->eager_bytes : ch->remote_eager;
}

int pc_eager_fits(const pc_call_t *c, int peer, size_t n)
{
    return pc_slot_fits(c, peer, n) && n <= eager_limit(c->ch, peer);
}

size_t pc_eager_largest(const pc_chan_t *ch)
{
    size_t on_host = ch->peers.cfg->eager_bytes;
    return ch->remote_eager > on_host ? ch->remote_eager : on_host;
}

size_t pc_eager_capacity(const pc_call_t *c, int peer)
{
    size_t slot = slot_bytes(c->ch, peer), eager = eager_limit(c->ch, peer);
    return slot < eager ? slot : eager;
}

int pc_eager_put(pc_call_t *c, int peer, const void *src, size_t n)
{
    int rc = wait_slot_free(c, peer);
    if (rc != MPI_SUCCESS)
        return rc;
    c->ch->eager_bytes += n;
    c->ch->tr.eager++, c->ch->tr.eager_bytes += n;
    return pc_transport_of(c->ch, peer)->eager_put(c, peer, pc_gen_of(c->seq), src, n);
}

/* The length the flag f carries against the one expected. */
static void check_length(pc_call_t *c, int peer, uint64_t f, size_t want)
{
    size_t got = (size_t)(f & PC_LEN_UNCHECKED);
    if (want == PC_EAGER_ANY || got == PC_LEN_UNCHECKED || want >= PC_LEN_UNCHECKED ||
        got == want || c->bad_peer >= 0)
        return;
    c->bad_peer = peer, c->bad_got = got, c->bad_want = want;
}

const void *pc_eager_poll(pc_call_t *c, int peer, size_t n)
{
    uint64_t f = 0;
    const void *slot = pc_transport_of(c->ch, peer)->eager_poll(c, peer, pc_gen_of(c->seq), &f);
    if (!slot)
        return NULL;
    check_length(c, peer, f, n);
    saw_peer_in(c, peer);
    return slot;
}

int pc_eager_wait(pc_call_t *c, int peer, size_t n, const void **data)
{
    if (block_begin(c, peer)) {
        *data = pc_eager_poll(c, peer, n);
        block_end(c);
        if (*data)
            return MPI_SUCCESS;
    }
    PC_WAIT_UNTIL(&c->w, (*data = pc_eager_poll(c, peer, n)) != NULL, peer);
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- zero-copy */

int pc_needs_window(const pc_call_t *c, int peer)
{
    return pc_on_shm(c->ch, peer) ? !c->ch->cma : !c->ch->remote->zput_without_window;
}

int pc_expose_begin(pc_call_t *c, void *buf, size_t len, int any_rma_peer)
{
    c->ch->nadv = 0;
    if (!any_rma_peer || len == 0)
        return MPI_SUCCESS;
    return pc_regcache_register(c->ch, buf, len);
}

int pc_advertise(pc_call_t *c, int peer, void *at, size_t len)
{
    pc_chan_t *ch = c->ch;
    MPI_Aint addr;
    PMPI_Get_address(at, &addr);
    ch->adv_sent++;
    ch->tr.adv++;
    uint64_t *f = ch->advbuf[peer];
    f[0] = (uint64_t)addr, f[1] = len, f[2] = (uint64_t)getpid(), f[3] = c->seq;
    return pc_transport_of(ch, peer)->advertise(c, peer, f);
}

int pc_expose_end(pc_call_t *c)
{
    if (c->ch->nadv == 0 || !c->ch->remote->expose_end)
        return MPI_SUCCESS;
    return c->ch->remote->expose_end(c);
}

int pc_adv_poll(pc_call_t *c, int peer, pc_remote_t *rem)
{
    const pc_entry_t *e = pc_transport_of(c->ch, peer)->adv_poll(c, peer);
    if (!e)
        return 0;
    rem->addr = e->adv_addr, rem->len = e->adv_len, rem->pid = e->adv_pid;
    saw_peer_in(c, peer);
    return 1;
}

int pc_adv_wait(pc_call_t *c, int peer, pc_remote_t *rem)
{
    if (block_begin(c, peer)) {
        int got = pc_adv_poll(c, peer, rem);
        block_end(c);
        if (got)
            return MPI_SUCCESS;
    }
    PC_WAIT_UNTIL(&c->w, pc_adv_poll(c, peer, rem), peer);
    return MPI_SUCCESS;
}

int pc_zput(pc_call_t *c, int peer, const pc_remote_t *rem, size_t off, const void *src, size_t n)
{
    pc_chan_t *ch = c->ch;
    if (off + n > rem->len) {
        pc_log("rank %d's receive buffer (%llu bytes) is too small for %zu bytes at offset %zu: "
               "send and receive type signatures do not match",
               peer, (unsigned long long)rem->len, n, off);
        return MPI_ERR_TRUNCATE;
    }
    uint64_t done = (c->seq << PC_DONE_SHIFT) | ++ch->zputs[peer];
    ch->zput_bytes += n;
    ch->tr.zput++, ch->tr.zput_bytes += n;
    return pc_transport_of(ch, peer)->zput(c, peer, rem->addr + off, rem->pid, src, n, done);
}

int pc_done_poll(pc_call_t *c, int peer, uint32_t count)
{
    uint64_t want = (c->seq << PC_DONE_SHIFT) | count;
    if (!pc_transport_of(c->ch, peer)->done_poll(c, peer, want))
        return 0;
    saw_peer_in(c, peer);
    return 1;
}

int pc_done_wait(pc_call_t *c, int peer, uint32_t count)
{
    if (block_begin(c, peer)) {
        int got = pc_done_poll(c, peer, count);
        block_end(c);
        if (got)
            return MPI_SUCCESS;
    }
    PC_WAIT_UNTIL(&c->w, pc_done_poll(c, peer, count), peer);
    return MPI_SUCCESS;
}
