/*
 * The one-sided channel: the papers' RDMA primitives, over three
 * transports behind one table of functions (channel/transport.h):
 *   shm      a peer on this host: loads and stores into a shared segment,
 *            zero-copy data by one cross-memory copy (channel/shm.c);
 *   mpi_rma  a peer on another host: MPI_Put into windows made once per
 *            team (channel/mpi_rma.c);
 *   smpi     a peer on another simulated host under SimGrid: small writes
 *            as messages, data by window or host-to-host transfer
 *            (channel/sim/smpi.c, the simulated platform's, built only
 *            with smpicc).
 * What the hardware does (copies, flags, the clock) comes from the
 * platform's table (channel/platform.h), the real one or the simulator's.
 *   ucx      a peer on another host: UCX active messages into the same
 *            mailboxes (channel/ucx.c), where the build has UCX and it
 *            comes up (the default there; mpi_rma otherwise).
 * PACOLL_TRANSPORT=rma (or ucx) sends everything through the remote
 * transport, so the remote path is tested on one machine.
 *
 * Every rank owns a mailbox that every peer can write:
 *   - progress: the last call this rank finished (read by peers that need
 *     to know a slot generation is free again);
 *   - per sender q, one 64-byte entry: q's advertisement of its receive
 *     buffer (zero-copy: address, length, pid, call), q's "done" counter
 *     for its zero-copy writes into me, and the call number of the data in
 *     each of q's three eager slots;
 *   - per sender q, three eager slots (the pre-registered "collective
 *     buffer" of rdma-allgather §4.2, cycled over three generations so that
 *     back-to-back calls never collide and nothing is ever cleared).
 * Flags carry the call sequence number; data is complete before its flag.
 *
 * The channel sees its peers through channel/peers.h, never the team.
 */
#ifndef PACOLL_CHANNEL_H
#define PACOLL_CHANNEL_H

#include "channel/peers.h"
#include "channel/platform.h"
#include "channel/room.h"
#include "channel/wait.h"

#define PC_GENS 3

typedef struct pc_entry { /* one mailbox entry (64 bytes), written by one sender */
    uint64_t adv_addr, adv_len, adv_pid, adv_seq;
    uint64_t done;        /* (call << 20) | number of zero-copy puts landed */
    uint64_t flag[PC_GENS];
} pc_entry_t;

typedef struct pc_regent { /* a buffer attached to the dynamic window */
    uintptr_t base;
    size_t len;
    uint64_t last_use;
} pc_regent_t;

/* Open MPI 4.1's osc/ucx breaks at 32 attached regions
 * (docs/ARCHITECTURE.md): stay well below. */
#define PC_REGCACHE_SLOTS 16
#define PC_REGCACHE_MAX PC_PLATFORM_REGCACHE_MAX

/* A read of a peer's progress word started ahead of the call that needs it
 * (channel.c, wait_slot_free): where it lands, and whether one is out. */
typedef struct pc_progress_read {
    uint64_t value;
    int started;
} pc_progress_read_t;

typedef struct pc_regcache {
    pc_regent_t ent[PC_REGCACHE_SLOTS];
    int n;
    uint64_t clock;
    uint64_t hits, misses, attached_bytes, evictions;
    void *temp_base; /* PACOLL_REGCACHE=0: attached for one call only */
} pc_regcache_t;

typedef struct pc_pending { /* a put whose flag is not yet written */
    int peer;
    MPI_Aint flag_disp;
    uint64_t value;
} pc_pending_t;

/* PACOLL_TRACE: where one call's time went on this rank (simulated time
 * under SMPI, wall time elsewhere), printed by pc_call_end. */
typedef struct pc_trace {
    double t0, copy0; /* at pc_call_begin: the clock, the platform's charged() */
    double poll;      /* in the wait layer's polls (back-off, probes) */
    double recv;      /* blocked in a receive for a message that was sent (SMPI) */
    double xfer;      /* waiting for my own zero-copy writes to land (SMPI) */
    unsigned polls, recvs;
    unsigned eager, adv, zput; /* messages sent: eager blocks, advertisements, writes */
    uint64_t eager_bytes, zput_bytes;
} pc_trace_t;

typedef struct pc_transport pc_transport_t; /* channel/transport.h */
struct pc_plat_state;                         /* the platform's (channel/platform.h) */

typedef struct pc_chan {
    pc_peers_t peers;
    const pc_transport_t *remote; /* peers on another host (or all, PACOLL_TRANSPORT=rma|ucx) */
    struct pc_ucx *ucx;           /* the ucx transport's state (NULL: not in use) */
    /* MPI RMA: mailboxes of all team ranks, and the dynamic window */
    int have_win;
    MPI_Win win, dwin;
    char *base;       /* my mailbox in win */
    size_t box_bytes; /* size of one mailbox in win */
    size_t slot;      /* eager slot bytes in win (0: no eager over RMA) */
    size_t remote_eager; /* largest copy-based block to a remote peer: the remote transport's */
    /* shared memory: mailboxes of the ranks on my host */
    int have_shm;
    MPI_Win shm_win;
    char *shm_base;       /* host rank 0's address of the segment */
    size_t shm_box_bytes; /* size of one mailbox in the segment */
    size_t shm_slot;
    int cma;              /* process_vm_writev works between host ranks */
    /* [host_size] the process of each rank on my host, for the wait
     * layer's check of a peer that kept it waiting (NULL: no check) */
    pc_proc_t *procs;
    int poll_only;        /* pc_chan_poll_only is on and the transport honours it */
    /* per peer, per call */
    uint64_t *known_progress; /* lower bound of each peer's finished call */
    pc_progress_read_t *progress_read; /* a read of each peer's progress ahead of need */
    uint32_t *zputs;          /* zero-copy puts to each peer in this call */
    pc_pending_t *pending;    /* puts whose flags wait for their data (ports) */
    int npending;
    int unflushed;            /* writes whose sources the transport may still read */
    uint64_t (*advbuf)[4]; /* per peer: the advertisement being sent */
    int *advpeers;         /* peers advertised to over RMA in this call */
    int nadv;
    pc_regcache_t rc;
    uint64_t adv_sent, zput_bytes, eager_bytes, host_write_bytes; /* statistics */
    /* Every peer has finished every call up to floor (see
     * pc_call_all_arrived): its slots of those calls are free again. */
    uint64_t floor;
    uint64_t seq;         /* call sequence number */
    pc_trace_t tr;        /* PACOLL_TRACE, this call */
    struct pc_plat_state *plat; /* the platform's state of this channel (NULL on the real one) */
} pc_chan_t;

/* PACOLL_TRACE's stopwatch around a wait: the clock when tracing (else 0,
 * and no clock is read), then the time since into *sum and one more into
 * *count (may be NULL). */
static inline double pc_trace_start(const pc_chan_t *ch)
{
    return ch->peers.cfg->trace ? pc_clock() : 0;
}
static inline void pc_trace_add(const pc_chan_t *ch, double *sum, unsigned *count, double t0)
{
    if (!ch->peers.cfg->trace)
        return;
    *sum += pc_clock() - t0;
    if (count)
        (*count)++;
}

/* A remote receive buffer, as advertised. */
typedef struct pc_remote {
    uint64_t addr, len, pid;
} pc_remote_t;

/* The state of one collective call on a team. */
typedef struct pc_call {
    pc_chan_t *ch;
    uint64_t seq;
    pc_wait_t w;
    int all_arrived; /* see pc_call_all_arrived */
    int window;      /* zero-copy puts in flight (pc_call_set_window) */
    /* an eager block whose length differed from the one expected: type
     * signatures differ between ranks (-1: none) */
    int bad_peer;
    size_t bad_got, bad_want;
} pc_call_t;

/* Makes the channel of a team (collective over peers->comm); peers must
 * stay valid for the channel's life.  extra: what this host must also hold
 * for the caller's allocations right after (the node segment).  Every rank
 * first checks its host's room for all of it, and one agreement decides:
 * *room 0 on every rank (MPI_SUCCESS, nothing allocated) when some host
 * has not, and the caller runs without the channel. */
int pc_chan_create(pc_chan_t *ch, const pc_peers_t *peers, pc_room_t extra, int *room);
void pc_chan_free(pc_chan_t *ch);
/* Whether a team tries UCX for its remote peers (PACOLL_TRANSPORT, the
 * team's size and how many of its ranks share this host). */
int pc_chan_wants_ucx(int transport, int size, int host_size);
/* The process's UCX context, worker and endpoints (channel/ucx.c), after
 * every channel that used them is freed; local. */
void pc_ucx_proc_free(struct pc_ucx_proc **proc);
/* Frees the channel's memory only (no MPI calls). */
void pc_chan_free_local(pc_chan_t *ch);
/* "shm+rma", for a verbose line. */
const char *pc_chan_describe(const pc_chan_t *ch, char *buf, size_t len);

/* What the channel has done so far (rdma-allgather §3.3-3.4's per-call
 * costs: address exchanges, registrations), for the statistics. */
typedef struct pc_chan_stats {
    uint64_t adverts;    /* advertisements sent (address exchanges) */
    uint64_t registers;  /* receive buffers registered (cache hits + misses) */
    uint64_t attaches;   /* of which really attached (cache misses) */
    uint64_t attached_bytes, evictions;
    uint64_t zput_bytes, eager_bytes;
    uint64_t host_write_bytes; /* copied into another rank's buffer (pc_host_write) */
} pc_chan_stats_t;
static inline pc_chan_stats_t pc_chan_stats(const pc_chan_t *ch)
{
    return (pc_chan_stats_t){
        .adverts = ch->adv_sent,
        .registers = ch->rc.hits + ch->rc.misses,
        .attaches = ch->rc.misses,
        .attached_bytes = ch->rc.attached_bytes,
        .evictions = ch->rc.evictions,
        .zput_bytes = ch->zput_bytes,
        .eager_bytes = ch->eager_bytes,
        .host_write_bytes = ch->host_write_bytes,
    };
}

/* Starts a call: takes the next sequence number (the same on every rank:
 * every rank makes the same calls on a team). */
void pc_call_begin(pc_call_t *c, pc_chan_t *ch, const char *what);
/* Ends a call: completes every put and publishes that this rank is done
 * with the call (its eager slots of this generation may be reused).
 * MPI_ERR_TRUNCATE when an eager block's length was not the one expected
 * (the peers' note hook says which rank's). */
int pc_call_end(pc_call_t *c);

/* Tells the channel that data sent by every rank in this call has reached
 * this rank (directly or forwarded: alltoall, allgather, a Bruck or
 * recursive-doubling step chain).  Every rank then entered this call, so
 * finished the previous one: from pc_call_end on, the eager slots of every
 * peer up to the previous call count as free, and later eager puts need no
 * round trip to read a peer's progress (the credit of the copy-based
 * scheme comes for free with the collective's own data). */
void pc_call_all_arrived(pc_call_t *c);

/* Zero-copy puts this call keeps in flight before it completes the oldest
 * target's: PACOLL_PORTS (the multi-port papers' k) unless the algorithm
 * says otherwise; clamped to [1, team size]. */
void pc_call_set_window(pc_call_t *c, int puts);

/* For a loop that sends while it receives (the arrival-aware Direct), or
 * takes many peers' blocks in landing order (plain Direct's receives):
 * while on, a poll for a message must never block in the transport.  Only
 * the simulator's transport blocks (channel/sim/smpi.c); elsewhere nothing. */
void pc_chan_poll_only(pc_chan_t *ch, int on);
/* Puts of this call whose completion has not been asked for yet. */
static inline int pc_puts_pending(const pc_call_t *c) { return c->ch->npending; }

/* Copy-based (eager): true if n bytes to or from peer go through the slots;
 * the same answer on both sides of the pair. */
int pc_eager_fits(const pc_call_t *c, int peer, size_t n);
/* The same without the transport's eager limit: the slot holds n bytes
 * (the pap_* algorithms, whose own threshold may be larger). */
int pc_slot_fits(const pc_call_t *c, int peer, size_t n);
/* The largest block pc_eager_fits accepts for peer (0: no eager path), the
 * same on both sides of the pair: a sender can tell a receiver that does
 * not know the size whether the data rides in the slot. */
size_t pc_eager_capacity(const pc_call_t *c, int peer);
/* The largest block any transport of the channel sends copy-based (a bound
 * for staging buffers of eager messages). */
size_t pc_eager_largest(const pc_chan_t *ch);
/* Sends n bytes into peer's slot of this call, and flags them; the flag
 * carries n (up to 16 MB), so the receiver can tell an erroneous program
 * whose ranks disagree on a block's size. */
int pc_eager_put(pc_call_t *c, int peer, const void *src, size_t n);
/* Peer's eager data of this call, or NULL if not yet arrived.  n: the
 * bytes expected, or PC_EAGER_ANY; a different length is remembered and
 * makes pc_call_end fail with MPI_ERR_TRUNCATE (the data is still
 * returned: a slot is never read past its end). */
#define PC_EAGER_ANY ((size_t)-1)
const void *pc_eager_poll(pc_call_t *c, int peer, size_t n);
/* Waits for peer's eager data of this call. */
int pc_eager_wait(pc_call_t *c, int peer, size_t n, const void **data);

/* Zero-copy, receiver side: attaches buf (once per call, through the
 * registration cache), then advertises to each sender the part of buf its
 * data goes to, then completes the advertisements.  An advertisement is
 * also the arrival notice of pap-aware §4.1. */
int pc_expose_begin(pc_call_t *c, void *buf, size_t len, int any_rma_peer);
int pc_advertise(pc_call_t *c, int peer, void *at, size_t len);
int pc_expose_end(pc_call_t *c);
/* True when receiving from peer without the eager path would need the
 * dynamic window (peer on another host, unless its transport carries the
 * data itself; or no cross-memory copy). */
int pc_needs_window(const pc_call_t *c, int peer);
/* Peer's advertisement of this call into rem; 1 if there, 0 if not yet. */
int pc_adv_poll(pc_call_t *c, int peer, pc_remote_t *rem);
int pc_adv_wait(pc_call_t *c, int peer, pc_remote_t *rem);
/* Writes n bytes at offset off of peer's advertised buffer; its completion
 * is counted in peer's done counter. */
int pc_zput(pc_call_t *c, int peer, const pc_remote_t *rem, size_t off, const void *src, size_t n);
/* True once `count` zero-copy puts of this call from peer have landed. */
int pc_done_poll(pc_call_t *c, int peer, uint32_t count);
int pc_done_wait(pc_call_t *c, int peer, uint32_t count);

/* Completes every outstanding put and writes its flag. */
int pc_flush(pc_call_t *c);
/* True when a put's completion can be tested without waiting, as an RDMA
 * completion queue is polled (the simulator's host-to-host transfers).
 * MPI RMA has no such test (MPI_Win_flush blocks). */
int pc_puts_testable(const pc_chan_t *ch);
/* With pc_puts_testable: writes the flag of every pending put that has
 * landed, and leaves the others pending; never waits. */
int pc_flush_landed(pc_call_t *c);

/* Copies n bytes, and charges the platform's copy time (pc_copy_charge). */
void pc_copy(void *dst, const void *src, size_t n);
/* The same for a rank's own block, which no message carries
 * (pc_copy_charge_own). */
void pc_copy_own(void *dst, const void *src, size_t n);

/* A copy into the memory of a rank on my host, at an address it published
 * (a receive buffer named in the node segment): process_vm_writev to its
 * process, a charged copy where one process runs every rank.  Only where pc_host_write_ok. */
int pc_host_write(pc_chan_t *ch, uint64_t pid, uint64_t addr, const void *src, size_t n);
static inline int pc_host_write_ok(const pc_chan_t *ch) { return ch->cma; }

/* A shared segment of `bytes` over comm, allocated by comm's rank 0; *base
 * is its address in this process (channel/shm.c).  Not cleared: the caller
 * zeroes what must read zero.  Agree on room first (channel/room.h). */
int pc_shared_window(MPI_Comm comm, size_t bytes, MPI_Win *win, char **base);

#endif
