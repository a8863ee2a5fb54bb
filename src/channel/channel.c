/* The one-sided channel: see rma.h for the mailbox and why it looks so. */
#include "channel/channel.h"

#include <sys/uio.h>
#include <unistd.h>
#if PACOLL_UNDER_SMPI
#include <simgrid/engine.h>

#include "channel/sim_transfer.h"
#endif

#include "core/team.h"

#define PC_LINE 64
#define PC_DONE_SHIFT 20
/* Largest single MPI_Put: counts are ints. */
#define PC_PUT_CHUNK ((size_t)1 << 30)
/* Pieces of a striped put are at least this big (multirail §3.2). */
#define PC_STRIPE_MIN 1024

/* ---------------------------------------------------------------- flags */

static inline uint64_t load_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void store_rel(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static inline int use_shm(const pacoll_team_t *t, int peer)
{
    return t->rma.have_shm && t->host_of[peer] >= 0;
}

/* ------------------------------------------------------- mailbox layout */

static inline size_t box_bytes(int n, size_t slot)
{
    return PC_LINE + (size_t)n * sizeof(pc_entry_t) + (size_t)n * PC_GENS * slot;
}

static inline size_t entry_off(int sender) { return PC_LINE + (size_t)sender * sizeof(pc_entry_t); }

static inline size_t slot_off(int n, int sender, int gen, size_t slot)
{
    return PC_LINE + (size_t)n * sizeof(pc_entry_t) + ((size_t)sender * PC_GENS + (size_t)gen) * slot;
}

/* The shared-memory mailbox of host rank h. */
static inline char *shm_box(const pacoll_team_t *t, int h)
{
    return t->rma.shm_base + (size_t)h * t->rma.shm_box_bytes;
}

/* The entry that peer writes in my mailbox. */
static pc_entry_t *entry_from(pacoll_team_t *t, int peer)
{
    if (use_shm(t, peer))
        return (pc_entry_t *)(shm_box(t, t->host_rank) + entry_off(t->host_of[peer]));
    return (pc_entry_t *)(t->rma.base + entry_off(peer));
}

/* The entry I write in peer's shared mailbox. */
static pc_entry_t *shm_entry_to(pacoll_team_t *t, int peer)
{
    return (pc_entry_t *)(shm_box(t, t->host_of[peer]) + entry_off(t->host_rank));
}

static inline int gen_of(uint64_t seq) { return (int)(seq % PC_GENS); }

/* An eager flag: the call's sequence number above the block's length
 * (lengths from 16 MB up, and SMPI's notifications, are not checked). */
#define PC_LEN_BITS 24
#define PC_LEN_UNCHECKED ((1u << PC_LEN_BITS) - 1)
static inline uint64_t eager_flag(uint64_t seq, size_t n)
{
    return seq << PC_LEN_BITS | (n < PC_LEN_UNCHECKED ? n : PC_LEN_UNCHECKED);
}
static inline int flag_of_call(uint64_t f, uint64_t seq)
{
    return f >> PC_LEN_BITS == (seq & (UINT64_MAX >> PC_LEN_BITS));
}

/* ------------------------------------------------------------- copying */

void pc_copy(void *dst, const void *src, size_t n)
{
    if (n == 0 || dst == src)
        return;
    memcpy(dst, src, n);
    /* SMPI charges real CPU time only at the next MPI call, and noisily:
     * charge a modelled copy instead (one core's memcpy bandwidth). */
    pc_copy_charge(n);
}

/* Single-copy write into another process on this host (the shared-memory
 * analogue of an RDMA write). */
static int cma_write(uint64_t pid, uint64_t addr, const void *src, size_t n)
{
#if PACOLL_UNDER_SMPI
    PC_UNUSED(pid);
    pc_copy((void *)(uintptr_t)addr, src, n);
    return MPI_SUCCESS;
#else
    const char *p = src;
    while (n > 0) {
        struct iovec l = {(void *)(uintptr_t)p, n}, r = {(void *)(uintptr_t)addr, n};
        ssize_t w = process_vm_writev((pid_t)pid, &l, 1, &r, 1, 0);
        if (w <= 0) {
            pc_log("process_vm_writev to pid %llu failed", (unsigned long long)pid);
            return MPI_ERR_OTHER;
        }
        p += w, addr += (uint64_t)w, n -= (size_t)w;
    }
    return MPI_SUCCESS;
#endif
}

/* ---------------------------------------------------- pending RMA puts */

static int put_bytes(const void *src, size_t n, int peer, MPI_Aint disp, MPI_Win win)
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
static size_t stripe_piece(const pacoll_team_t *t, size_t n)
{
    size_t k = (size_t)t->cfg.stripe;
    return k <= 1 || n < k * PC_STRIPE_MIN ? n : (n + k - 1) / k;
}

static int put_striped(pacoll_team_t *t, const void *src, size_t n, int peer, MPI_Aint disp,
                       MPI_Win win)
{
    size_t piece = stripe_piece(t, n);
    for (size_t off = 0; off < n; off += piece) {
        size_t len = n - off < piece ? n - off : piece;
        int rc = put_bytes((const char *)src + off, len, peer, disp + (MPI_Aint)off, win);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------- RDMA writes under SMPI
 *
 * SimGrid 3.32 emulates MPI_Put as a message whose receive request it
 * queues in the target's window under a mutex of each window, and
 * MPI_Win_flush keeps those mutexes for its whole wait (Win::finish_comms;
 * flush_all also waits for what other ranks are writing into the caller's
 * window).  A put into a window another rank is flushing waits for that
 * flush: a pap_shm_direct master's third 32 KB put took 2.92 us at 256
 * ranks, against 0.01 us for the first two (docs/SIM.md).  An RDMA write
 * never waits for another origin's completion.  With
 * PACOLL_SIM_PUT=transfer the channel writes the bytes itself (the
 * simulated ranks share one address space, as the shared-memory path
 * already uses) and charges the network for them with an asynchronous
 * transfer from this rank's host to the target's, with no window and no
 * receiver involved: completing a write is waiting for its transfer, and
 * the done counter follows as a notification, as after a flush.  The
 * default stays SimGrid's window while published points were taken with
 * it (docs/SIM.md, "How a zero-copy write is simulated"). */
#if PACOLL_UNDER_SMPI
static int sim_transfer_on(const pacoll_team_t *t) { return t->rma.sim_host != NULL; }

static int sim_xfer_push(pacoll_team_t *t, int peer, size_t n)
{
    pc_rma_t *r = &t->rma;
    if (r->sim_nxfer == r->sim_xfer_cap) {
        int cap = r->sim_xfer_cap ? 2 * r->sim_xfer_cap : 16;
        void **x = realloc(r->sim_xfer, (size_t)cap * sizeof *x);
        if (!x)
            return MPI_ERR_NO_MEM;
        r->sim_xfer = x;
        int *p = realloc(r->sim_xfer_peer, (size_t)cap * sizeof *p);
        if (!p)
            return MPI_ERR_NO_MEM;
        r->sim_xfer_peer = p;
        r->sim_xfer_cap = cap;
    }
    r->sim_xfer[r->sim_nxfer] =
        pc_sim_transfer_start(r->sim_host[t->rank], r->sim_host[peer], (uint64_t)n);
    r->sim_xfer_peer[r->sim_nxfer++] = peer;
    return MPI_SUCCESS;
}

/* One zero-copy write: the bytes now (memmove: --sim-shared-buffers runs
 * write a buffer onto itself), the network's time as one transfer per
 * stripe piece.  The receiver reads the data only after the done counter,
 * which is sent once the transfers are complete. */
static int sim_write(pacoll_team_t *t, int peer, uint64_t addr, const void *src, size_t n)
{
    memmove((void *)(uintptr_t)addr, src, n);
    size_t piece = stripe_piece(t, n);
    for (size_t off = 0; off < n; off += piece) {
        int rc = sim_xfer_push(t, peer, n - off < piece ? n - off : piece);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* True once every write to peer has landed (those that have are
 * released); never waits. */
static int sim_landed(pacoll_team_t *t, int peer)
{
    pc_rma_t *r = &t->rma;
    int kept = 0, left = 0;
    for (int i = 0; i < r->sim_nxfer; i++) {
        if (r->sim_xfer_peer[i] == peer && pc_sim_transfer_test((sg_comm_t)r->sim_xfer[i]))
            continue;
        left += r->sim_xfer_peer[i] == peer;
        r->sim_xfer[kept] = r->sim_xfer[i];
        r->sim_xfer_peer[kept++] = r->sim_xfer_peer[i];
    }
    r->sim_nxfer = kept;
    return left == 0;
}

/* Waits until one write in flight has landed. */
static void sim_wait_any(pacoll_team_t *t)
{
    if (t->rma.sim_nxfer > 0)
        pc_sim_transfer_wait_any((const sg_comm_t *)t->rma.sim_xfer, (size_t)t->rma.sim_nxfer);
}

/* Waits for the writes in flight to peer, or to everyone if peer < 0. */
static void sim_complete(pacoll_team_t *t, int peer)
{
    pc_rma_t *r = &t->rma;
    int kept = 0;
    for (int i = 0; i < r->sim_nxfer; i++) {
        if (peer >= 0 && r->sim_xfer_peer[i] != peer) {
            r->sim_xfer[kept] = r->sim_xfer[i];
            r->sim_xfer_peer[kept++] = r->sim_xfer_peer[i];
        } else {
            pc_sim_transfer_wait((sg_comm_t)r->sim_xfer[i]);
        }
    }
    r->sim_nxfer = kept;
}
#else
static int sim_transfer_on(const pacoll_team_t *t)
{
    PC_UNUSED(t);
    return 0;
}
static int sim_write(pacoll_team_t *t, int peer, uint64_t addr, const void *src, size_t n)
{
    PC_UNUSED(t), PC_UNUSED(peer), PC_UNUSED(addr), PC_UNUSED(src), PC_UNUSED(n);
    return MPI_ERR_INTERN;
}
static void sim_complete(pacoll_team_t *t, int peer) { PC_UNUSED(t), PC_UNUSED(peer); }
static int sim_landed(pacoll_team_t *t, int peer) { return PC_UNUSED(t), PC_UNUSED(peer), 1; }
static void sim_wait_any(pacoll_team_t *t) { PC_UNUSED(t); }
#endif

/* Zero-copy data into a peer's advertised buffer, and its completion. */
static int write_data(pacoll_team_t *t, int peer, uint64_t addr, const void *src, size_t n)
{
    if (sim_transfer_on(t))
        return sim_write(t, peer, addr, src, n);
    return put_striped(t, src, n, peer, (MPI_Aint)addr, t->rma.dwin);
}

static int complete_data(pacoll_team_t *t, int peer)
{
    if (sim_transfer_on(t)) {
        sim_complete(t, peer);
        return MPI_SUCCESS;
    }
    return PMPI_Win_flush(peer, t->rma.dwin);
}

/* ------------------------------------- notifications under SMPI only
 *
 * On an RDMA network (the papers' InfiniBand and Quadrics) a small write
 * and the flag after it reach the receiver one latency after they were
 * posted: the NIC keeps writes in order.  MPI RMA has no such order, so
 * on a real MPI the channel flushes the data before it puts the flag.
 * SimGrid 3.32 models that faithfully but expensively: a put + flush costs
 * a round trip, and the flag a second one (measured on the pap-aware
 * platform: 12 concurrent 8-byte puts + flush_all 7.4 us, the same 12
 * isend/irecv 3.7 us; a 1-byte direct alltoall on 16 ranks 12.3 us against
 * 4.4 us for SMPI's own).  Simulating the papers' hardware, not MPI RMA's
 * worst case, the channel under SMPI sends its small writes (eager data,
 * advertisements, zero-copy completion counters) as messages that land in
 * the same mailbox fields: one latency, in order, no flush.  Large
 * zero-copy data still goes by MPI_Put or by a host-to-host transfer
 * (PACOLL_SIM_PUT, above), so bandwidth is modelled by the network.  These messages stay below SMPI's detached-send threshold
 * (rma_setup.c caps the eager slot), so the source may be reused at once. */
#if PACOLL_UNDER_SMPI
#define PC_SIM_NOTIFY 1
#else
#define PC_SIM_NOTIFY 0
#endif
enum { PC_TAG_EAGER = 7100, PC_TAG_ADV = 7110, PC_TAG_DONE = 7111 };

static int sim_send(pacoll_team_t *t, int peer, int tag, const void *buf, size_t n)
{
    MPI_Request rq;
    int rc = PMPI_Isend(buf, (int)n, MPI_BYTE, peer, tag, t->comm, &rq);
    return rc == MPI_SUCCESS ? PMPI_Request_free(&rq) : rc;
}

/* Simulated time, read without a simcall (MPI_Wtime may inject time). */
static double sim_clock(void)
{
#if PACOLL_UNDER_SMPI
    return simgrid_get_clock();
#else
    return 0;
#endif
}

/* The quiet gate.  Every MPI_Iprobe is a simcall (a context switch), and a
 * pass over N peers' mailboxes was N of them.  Messages reach this rank
 * only while simulated time moves, so one probe for any message answers
 * for every mailbox until the clock moves again (an MPI call, a modelled
 * copy, the wait layer's back-off).  Measured: a 64-rank Direct alltoall
 * of 512 B, 29.1 s -> 27.4 s of wall time (the rest is SimGrid's
 * bandwidth-sharing solver, not polling). */
static int sim_anything_pending(pacoll_team_t *t)
{
    if (sim_clock() == t->rma.sim_probed_at)
        return t->rma.sim_pending;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, t->comm, &t->rma.sim_pending, MPI_STATUS_IGNORE);
    t->rma.sim_probed_at = sim_clock();
    return t->rma.sim_pending;
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
 * loop that must keep sending while data flies in (the arrival-aware
 * Direct, pc_sim_tested_receives) was serialised by those blocking
 * receives (pap_direct alltoall at 1 KB on 16 ranks: 256 us against 107 us
 * for Direct); for it, with PACOLL_SIM_TESTED=1, the message is received
 * by a posted, tested receive that says "landed" only once the data is
 * there, as an RDMA flag does.  Opt-in: the SMPI test suite ran 3x slower
 * with it on by default (the algorithms run after an arrival-aware one in
 * the same process slowed down; cause not found), so sim/run's pap_aware
 * experiment turns it on, the tests do not.
 * That receive writes into buf when the data lands, so buf must be the
 * team's memory (a slot or mailbox word), never the stack. */
static int sim_take(pacoll_team_t *t, int peer, int tag, void *buf, size_t cap)
{
    int kind = tag == PC_TAG_ADV ? PC_GENS : tag == PC_TAG_DONE ? PC_GENS + 1 : tag - PC_TAG_EAGER;
    MPI_Request *rq = &t->rma.sim_rq[(size_t)peer * PC_SIM_KINDS + (size_t)kind];
    int flag = 0;
    if (t->rma.sim_block) /* a wait for exactly this message: see sim_block_begin */
        return PMPI_Recv(buf, (int)cap, MPI_BYTE, peer, tag, t->comm, MPI_STATUS_IGNORE) ==
               MPI_SUCCESS;
    if (*rq == MPI_REQUEST_NULL) {
        if (!sim_anything_pending(t))
            return 0;
        PMPI_Iprobe(peer, tag, t->comm, &flag, MPI_STATUS_IGNORE);
        t->rma.sim_probed_at = sim_clock();
        if (!flag)
            return 0;
        if (!t->rma.sim_tested)
            return PMPI_Recv(buf, (int)cap, MPI_BYTE, peer, tag, t->comm, MPI_STATUS_IGNORE) ==
                   MPI_SUCCESS;
        if (PMPI_Irecv(buf, (int)cap, MPI_BYTE, peer, tag, t->comm, rq) != MPI_SUCCESS)
            return 0;
    }
    PMPI_Test(rq, &flag, MPI_STATUS_IGNORE);
    return flag;
}

/* A wait for one remote peer's message of one kind (eager data, an
 * advertisement, a completion counter) receives it with a blocking
 * MPI_Recv under SMPI: the wait ends exactly when the data has landed, in
 * one simcall, where the wait layer's polls cost a context switch each (a
 * 256-rank ring allgather of 32 KB polled ~260 times per step and rank and
 * ran for over 20 minutes of wall time).  MPI_Probe would not do: SMPI
 * implements it as an Iprobe loop.  Not with the tested receives on (the
 * loop must not block) nor for a shared-memory peer (its flags are plain
 * stores).  Returns 1 if the caller's poll should run in blocking mode. */
static int sim_block_begin(pc_call_t *c, int peer)
{
#if PACOLL_UNDER_SMPI
    pacoll_team_t *t = c->t;
    if (use_shm(t, peer) || t->rma.sim_tested)
        return 0;
    t->rma.sim_block = 1;
    return 1;
#else
    PC_UNUSED(c), PC_UNUSED(peer);
    return 0;
#endif
}

static void sim_block_end(pc_call_t *c) { c->t->rma.sim_block = 0; }

/* Turning the tested receives off completes the ones in flight (each was
 * posted for a message already sent, so this waits at most for that
 * message to land): a receive left posted would take a later call's
 * message of its kind behind that call's back. */
void pc_sim_tested_receives(pacoll_team_t *t, int on)
{
    on = on && t->cfg.sim_tested;
    t->rma.sim_tested = on;
    for (int i = 0; !on && t->rma.sim_rq && i < t->size * PC_SIM_KINDS; i++)
        if (t->rma.sim_rq[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&t->rma.sim_rq[i], MPI_STATUS_IGNORE);
}

/* Tells peer that the data of one pending put is complete (its flag). */
static int write_flag(pc_call_t *c, const pc_pending_t *p)
{
    if (PC_SIM_NOTIFY) /* only zero-copy counters are pending then */
        return sim_send(c->t, p->peer, PC_TAG_DONE, &p->value, 8);
    return PMPI_Put(&p->value, 1, MPI_UINT64_T, p->peer, p->flag_disp, 1, MPI_UINT64_T,
                    c->t->rma.win);
}

/* Frees one port: completes every put to the oldest pending target and
 * writes its flags, while the other k-1 writes keep flying.  Completing
 * all k before the next write (the papers' step-wise reading of k ports)
 * idles every port until the slowest write of the step lands; a k-port
 * NIC starts the next write as soon as one port frees.  Measured in SMPI
 * (multirail_4x4, 16 ranks, alltoall direct, 32 KB, 2 ports): see
 * docs/MULTIPORT.md "Ports as a window". */
static int complete_oldest(pc_call_t *c)
{
    pc_rma_t *r = &c->t->rma;
    int peer = r->pending[0].peer, kept = 0;
    int rc = complete_data(c->t, peer);
    if (rc == MPI_SUCCESS && !sim_transfer_on(c->t)) /* nothing goes into win then */
        rc = PMPI_Win_flush(peer, r->win);
    for (int i = 0; i < r->npending; i++) {
        if (r->pending[i].peer != peer)
            r->pending[kept++] = r->pending[i];
        else if (rc == MPI_SUCCESS)
            rc = write_flag(c, &r->pending[i]);
    }
    r->npending = kept;
    if (rc == MPI_SUCCESS && !PC_SIM_NOTIFY)
        rc = PMPI_Win_flush(peer, r->win);
    return rc;
}

/* Remembers that peer's flag at flag_disp must become value once the data
 * put just issued is complete; at PACOLL_PORTS outstanding, completes them. */
static int add_pending(pc_call_t *c, int peer, MPI_Aint flag_disp, uint64_t value)
{
    pc_rma_t *r = &c->t->rma;
    for (int i = 0; i < r->npending; i++) {
        /* Two unflushed puts to one flag have no defined order: keep one. */
        if (r->pending[i].peer == peer && r->pending[i].flag_disp == flag_disp) {
            r->pending[i].value = value;
            return MPI_SUCCESS;
        }
    }
    r->pending[r->npending++] = (pc_pending_t){peer, flag_disp, value};
    if (r->npending >= c->t->cfg.ports)
        return complete_oldest(c);
    return MPI_SUCCESS;
}

int pc_puts_testable(const pacoll_team_t *t) { return sim_transfer_on(t); }

int pc_flush_landed(pc_call_t *c)
{
    pc_rma_t *r = &c->t->rma;
    int rc = MPI_SUCCESS, kept = 0;
    if (!sim_transfer_on(c->t)) /* no test for MPI RMA: only a flush completes */
        return pc_flush(c);
    for (int i = 0; i < r->npending; i++) {
        if (rc == MPI_SUCCESS && sim_landed(c->t, r->pending[i].peer))
            rc = write_flag(c, &r->pending[i]);
        else
            r->pending[kept++] = r->pending[i];
    }
    r->npending = kept;
    return rc;
}

/* PACOLL_SIM_PUT=transfer: completes every pending put, writing each
 * peer's flag when its writes have landed rather than after the slowest. */
static int flush_in_landing_order(pc_call_t *c)
{
    pc_rma_t *r = &c->t->rma;
    int rc = pc_flush_landed(c);
    while (rc == MPI_SUCCESS && r->npending > 0) {
        sim_wait_any(c->t);
        rc = pc_flush_landed(c);
    }
    return rc;
}

int pc_flush(pc_call_t *c)
{
    pc_rma_t *r = &c->t->rma;
    int rc = MPI_SUCCESS;
    if (r->npending == 0)
        return MPI_SUCCESS;
    if (sim_transfer_on(c->t)) /* each flag as soon as its writes have landed */
        return flush_in_landing_order(c);
#if PACOLL_UNDER_SMPI
    /* With the window: one flush_all, not one flush per peer: SMPI's
     * per-target flush costs grow with the requests in flight (measured:
     * 12 peers, 17.5 us against 3.7 us).  But SMPI's flush_all visits every
     * rank's window (two simcalls each): with one put pending (a ring or
     * recursive-doubling step) the per-target flush does the same waiting,
     * and a 512-rank ring no longer spends its wall time in flush_all. */
    if (r->npending == 1) {
        rc = PMPI_Win_flush(r->pending[0].peer, r->dwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush(r->pending[0].peer, r->win);
    } else {
        rc = PMPI_Win_flush_all(r->dwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush_all(r->win);
    }
#else
    /* Per peer: Open MPI 4.1's osc/ucx flush_all on the dynamic window let
     * a done flag overtake the tail of a 400 KB put (check_colls, forced
     * RMA transport); the per-target flush never did. */
    for (int i = 0; i < r->npending && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Win_flush(r->pending[i].peer, r->dwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush(r->pending[i].peer, r->win);
    }
#endif
    for (int i = 0; i < r->npending && rc == MPI_SUCCESS; i++)
        rc = write_flag(c, &r->pending[i]);
    /* Flags must be delivered now: the peer may be polling for them while
     * we go on to wait for our own data. */
    for (int i = 0; i < r->npending && rc == MPI_SUCCESS && !PC_SIM_NOTIFY; i++)
        rc = PMPI_Win_flush(r->pending[i].peer, r->win);
    r->npending = 0;
    return rc;
}

/* --------------------------------------------------------------- calls */

void pc_call_begin(pc_call_t *c, pacoll_team_t *t, const char *what)
{
    c->t = t;
    c->seq = ++t->seq;
    c->all_arrived = 0;
    c->bad_peer = -1;
    pc_wait_init(&c->w, t, what);
    if (t->rma.zputs)
        memset(t->rma.zputs, 0, (size_t)t->size * sizeof *t->rma.zputs);
}

int pc_call_end(pc_call_t *c)
{
    pacoll_team_t *t = c->t;
    int rc = pc_flush(c);
    pc_regcache_end_call(t);
    if (c->all_arrived && c->seq - 1 > t->rma.floor)
        t->rma.floor = c->seq - 1;
    /* Everything I received in this call is consumed: publish it, so
     * senders may reuse this generation of my slots three calls later. */
    if (t->rma.have_win) {
        store_rel((uint64_t *)t->rma.base, c->seq);
        PMPI_Win_sync(t->rma.win);
    }
    if (t->rma.have_shm)
        store_rel((uint64_t *)shm_box(t, t->host_rank), c->seq);
    if (rc == MPI_SUCCESS && c->bad_peer >= 0) { /* every step ran: the channel agrees */
        pc_verdict_note(t,
                        "rank %d sent a block of %zu bytes where this rank expected %zu: the "
                        "ranks' type signatures differ",
                        c->bad_peer, c->bad_got, c->bad_want);
        rc = MPI_ERR_TRUNCATE;
    }
    return rc;
}

static void saw_peer_in(pc_call_t *c, int peer)
{
    /* A peer that has written to me in call s has finished every call
     * before s, and so consumed everything I sent it then. */
    uint64_t *kp = &c->t->rma.known_progress[peer];
    if (*kp < c->seq - 1)
        *kp = c->seq - 1;
}

static uint64_t read_progress(pc_call_t *c, int peer, int *rc)
{
    pacoll_team_t *t = c->t;
    uint64_t v = 0;
    *rc = MPI_SUCCESS;
    if (use_shm(t, peer))
        return load_acq((uint64_t *)shm_box(t, t->host_of[peer]));
    *rc = PMPI_Get(&v, 1, MPI_UINT64_T, peer, 0, 1, MPI_UINT64_T, t->rma.win);
    if (*rc == MPI_SUCCESS)
        *rc = PMPI_Win_flush(peer, t->rma.win);
    return v;
}

/* Flow control for eager slots: generation g of peer's slots was last
 * written by me in call seq-3; wait until peer has finished that call.
 * Symmetric collectives never wait here; a rank running ahead through
 * several gathers to one root does. */
static int wait_slot_free(pc_call_t *c, int peer)
{
    uint64_t *kp = &c->t->rma.known_progress[peer];
    if (*kp < c->t->rma.floor)
        *kp = c->t->rma.floor;
    if (c->seq <= PC_GENS || *kp >= c->seq - PC_GENS)
        return MPI_SUCCESS;
    pc_wait_new_condition(&c->w);
    for (;;) {
        int rc;
        uint64_t v = read_progress(c, peer, &rc);
        if (rc != MPI_SUCCESS)
            return rc;
        if (v > *kp)
            *kp = v;
        if (*kp >= c->seq - PC_GENS)
            return MPI_SUCCESS;
        rc = pc_wait_poll(&c->w, peer);
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

void pc_call_all_arrived(pc_call_t *c) { c->all_arrived = 1; }

/* --------------------------------------------------------------- eager */

int pc_slot_fits(const pc_call_t *c, int peer, size_t n)
{
    const pacoll_team_t *t = c->t;
    return n <= (use_shm(t, peer) ? t->rma.shm_slot : t->rma.slot);
}

int pc_eager_fits(const pc_call_t *c, int peer, size_t n)
{
    return pc_slot_fits(c, peer, n) && n <= c->t->cfg.eager_bytes;
}

int pc_eager_put(pc_call_t *c, int peer, const void *src, size_t n)
{
    pacoll_team_t *t = c->t;
    int g = gen_of(c->seq);
    int rc = wait_slot_free(c, peer);
    if (rc != MPI_SUCCESS)
        return rc;
    t->rma.eager_bytes += n;
    if (use_shm(t, peer)) {
        char *box = shm_box(t, t->host_of[peer]);
        pc_copy(box + slot_off(t->host_size, t->host_rank, g, t->rma.shm_slot), src, n);
        store_rel(&shm_entry_to(t, peer)->flag[g], eager_flag(c->seq, n));
        return MPI_SUCCESS;
    }
    if (PC_SIM_NOTIFY)
        return sim_send(t, peer, PC_TAG_EAGER + g, src, n);
    MPI_Aint disp = (MPI_Aint)slot_off(t->size, t->rank, g, t->rma.slot);
    rc = put_bytes(src, n, peer, disp, t->rma.win);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint flag = (MPI_Aint)(entry_off(t->rank) + offsetof(pc_entry_t, flag) + (size_t)g * 8);
    return add_pending(c, peer, flag, eager_flag(c->seq, n));
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
    pacoll_team_t *t = c->t;
    int g = gen_of(c->seq);
    pc_entry_t *e = entry_from(t, peer);
    uint64_t f;
    if (use_shm(t, peer)) {
        if (!flag_of_call(f = load_acq(&e->flag[g]), c->seq))
            return NULL;
        check_length(c, peer, f, n);
        saw_peer_in(c, peer);
        return shm_box(t, t->host_rank) + slot_off(t->host_size, t->host_of[peer], g, t->rma.shm_slot);
    }
    char *slot = t->rma.base + slot_off(t->size, peer, g, t->rma.slot);
    if (!flag_of_call(f = load_acq(&e->flag[g]), c->seq)) {
        if (!PC_SIM_NOTIFY || !sim_take(t, peer, PC_TAG_EAGER + g, slot, t->rma.slot))
            return NULL;
        e->flag[g] = f = eager_flag(c->seq, PC_LEN_UNCHECKED);
    }
    check_length(c, peer, f, n);
    saw_peer_in(c, peer);
    return slot;
}

int pc_eager_wait(pc_call_t *c, int peer, size_t n, const void **data)
{
    if (sim_block_begin(c, peer)) {
        *data = pc_eager_poll(c, peer, n);
        sim_block_end(c);
        if (*data)
            return MPI_SUCCESS;
    }
    PC_WAIT_UNTIL(&c->w, (*data = pc_eager_poll(c, peer, n)) != NULL, peer);
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- zero-copy */

int pc_needs_window(const pc_call_t *c, int peer)
{
    return !use_shm(c->t, peer) || !c->t->rma.cma;
}

int pc_expose_begin(pc_call_t *c, void *buf, size_t len, int any_rma_peer)
{
    c->t->rma.nadv = 0;
    if (!any_rma_peer || len == 0)
        return MPI_SUCCESS;
    return pc_regcache_register(c->t, buf, len);
}

int pc_advertise(pc_call_t *c, int peer, void *at, size_t len)
{
    pacoll_team_t *t = c->t;
    MPI_Aint addr;
    PMPI_Get_address(at, &addr);
    t->rma.adv_sent++;
    if (use_shm(t, peer)) {
        pc_entry_t *e = shm_entry_to(t, peer);
        e->adv_addr = (uint64_t)addr, e->adv_len = len, e->adv_pid = (uint64_t)getpid();
        store_rel(&e->adv_seq, c->seq);
        return MPI_SUCCESS;
    }
    uint64_t *f = t->rma.advbuf[peer];
    f[0] = (uint64_t)addr, f[1] = len, f[2] = (uint64_t)getpid(), f[3] = c->seq;
    if (PC_SIM_NOTIFY) /* address and call number in one message */
        return sim_send(t, peer, PC_TAG_ADV, f, sizeof t->rma.advbuf[peer]);
    t->rma.advpeers[t->rma.nadv++] = peer;
    MPI_Aint disp = (MPI_Aint)(entry_off(t->rank) + offsetof(pc_entry_t, adv_addr));
    return PMPI_Put(f, 3, MPI_UINT64_T, peer, disp, 3, MPI_UINT64_T, t->rma.win);
}

int pc_expose_end(pc_call_t *c)
{
    pacoll_team_t *t = c->t;
    if (t->rma.nadv == 0)
        return MPI_SUCCESS;
    /* The address must land before the call number that validates it. */
    int rc = PMPI_Win_flush_all(t->rma.win);
    MPI_Aint disp = (MPI_Aint)(entry_off(t->rank) + offsetof(pc_entry_t, adv_seq));
    for (int i = 0; i < t->rma.nadv && rc == MPI_SUCCESS; i++)
        rc = PMPI_Put(&c->seq, 1, MPI_UINT64_T, t->rma.advpeers[i], disp, 1, MPI_UINT64_T, t->rma.win);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_flush_all(t->rma.win);
    t->rma.nadv = 0;
    return rc;
}

int pc_adv_poll(pc_call_t *c, int peer, pc_remote_t *rem)
{
    pc_entry_t *e = entry_from(c->t, peer);
    if (load_acq(&e->adv_seq) != c->seq) {
        /* adv_addr .. adv_seq are four consecutive words */
        if (!PC_SIM_NOTIFY || use_shm(c->t, peer) ||
            !sim_take(c->t, peer, PC_TAG_ADV, &e->adv_addr, 4 * sizeof(uint64_t)))
            return 0;
        if (e->adv_seq != c->seq)
            return 0;
    }
    rem->addr = e->adv_addr, rem->len = e->adv_len, rem->pid = e->adv_pid;
    saw_peer_in(c, peer);
    return 1;
}

int pc_adv_wait(pc_call_t *c, int peer, pc_remote_t *rem)
{
    if (sim_block_begin(c, peer)) {
        int got = pc_adv_poll(c, peer, rem);
        sim_block_end(c);
        if (got)
            return MPI_SUCCESS;
    }
    PC_WAIT_UNTIL(&c->w, pc_adv_poll(c, peer, rem), peer);
    return MPI_SUCCESS;
}

int pc_zput(pc_call_t *c, int peer, const pc_remote_t *rem, size_t off, const void *src, size_t n)
{
    pacoll_team_t *t = c->t;
    if (off + n > rem->len) {
        pc_log("rank %d's receive buffer (%llu bytes) is too small for %zu bytes at offset %zu: "
               "send and receive type signatures do not match",
               peer, (unsigned long long)rem->len, n, off);
        return MPI_ERR_TRUNCATE;
    }
    uint64_t done = (c->seq << PC_DONE_SHIFT) | ++t->rma.zputs[peer];
    t->rma.zput_bytes += n;
    if (use_shm(t, peer) && t->rma.cma) {
        int rc = cma_write(rem->pid, rem->addr + off, src, n);
        if (rc == MPI_SUCCESS)
            store_rel(&shm_entry_to(t, peer)->done, done);
        return rc;
    }
    int rc = write_data(t, peer, rem->addr + off, src, n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (use_shm(t, peer)) { /* shared mailbox, RMA data: complete, then flag */
        rc = complete_data(t, peer);
        if (rc == MPI_SUCCESS)
            store_rel(&shm_entry_to(t, peer)->done, done);
        return rc;
    }
    return add_pending(c, peer, (MPI_Aint)(entry_off(t->rank) + offsetof(pc_entry_t, done)), done);
}

int pc_done_poll(pc_call_t *c, int peer, uint32_t count)
{
    uint64_t want = (c->seq << PC_DONE_SHIFT) | count;
    pc_entry_t *e = entry_from(c->t, peer);
    if (PC_SIM_NOTIFY && !use_shm(c->t, peer)) {
        uint64_t *v = &c->t->rma.sim_done[peer];
        while (load_acq(&e->done) < want && sim_take(c->t, peer, PC_TAG_DONE, v, sizeof *v))
            if (*v > e->done)
                e->done = *v;
    }
    if (load_acq(&e->done) < want)
        return 0;
    saw_peer_in(c, peer);
    return 1;
}

int pc_done_wait(pc_call_t *c, int peer, uint32_t count)
{
    if (sim_block_begin(c, peer)) {
        int got = pc_done_poll(c, peer, count);
        sim_block_end(c);
        if (got)
            return MPI_SUCCESS;
    }
    PC_WAIT_UNTIL(&c->w, pc_done_poll(c, peer, count), peer);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------- added for sloav */

/* alltoallv sloav: the largest eager message to or from peer, so a sender
 * can tell a receiver that does not know the size whether the data rides
 * in the slot or follows zero-copy.  The same on both sides of a pair. */
size_t pc_eager_capacity(const pc_call_t *c, int peer)
{
    const pacoll_team_t *t = c->t;
    size_t slot = use_shm(t, peer) ? t->rma.shm_slot : t->rma.slot;
    return slot < t->cfg.eager_bytes ? slot : t->cfg.eager_bytes;
}
