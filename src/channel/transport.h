/*
 * Inside the channel: the mailbox layout every transport shares, and the
 * table of functions each transport fills (UCC's transport layers and
 * NCCL's transports are the model).  channel.c picks a transport per peer
 * (shm for a peer on this host, the remote one otherwise) and keeps what is
 * common: call numbers, eager flags and their lengths, slot flow control,
 * the k-port window of outstanding puts.  Only files of src/channel/
 * include this header.
 */
#ifndef PACOLL_TRANSPORT_H
#define PACOLL_TRANSPORT_H

#include "channel/channel.h"

#define PC_LINE 64
/* The done counter: (call << PC_DONE_SHIFT) | zero-copy puts landed. */
#define PC_DONE_SHIFT 20
/* Largest single MPI_Put: counts are ints. */
#define PC_PUT_CHUNK ((size_t)1 << 30)
/* Pieces of a striped put are at least this big (multirail §3.2). */
#define PC_STRIPE_MIN 1024
/* An eager flag: the call's sequence number above the block's length
 * (lengths from 16 MB up, and the simulator's messages, are not checked). */
#define PC_LEN_BITS 24
#define PC_LEN_UNCHECKED ((1u << PC_LEN_BITS) - 1)

static inline uint64_t pc_load_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void pc_store_rel(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* ---------------------------------------------------- mailbox layout */

static inline size_t pc_box_bytes(int n, size_t slot)
{
    return PC_LINE + (size_t)n * sizeof(pc_entry_t) + (size_t)n * PC_GENS * slot;
}
static inline size_t pc_entry_off(int sender) { return PC_LINE + (size_t)sender * sizeof(pc_entry_t); }
static inline size_t pc_slot_off(int n, int sender, int gen, size_t slot)
{
    return PC_LINE + (size_t)n * sizeof(pc_entry_t) + ((size_t)sender * PC_GENS + (size_t)gen) * slot;
}
static inline int pc_gen_of(uint64_t seq) { return (int)(seq % PC_GENS); }
static inline uint64_t pc_eager_flag(uint64_t seq, size_t n)
{
    return seq << PC_LEN_BITS | (n < PC_LEN_UNCHECKED ? n : PC_LEN_UNCHECKED);
}
static inline int pc_flag_of_call(uint64_t f, uint64_t seq)
{
    return f >> PC_LEN_BITS == (seq & (UINT64_MAX >> PC_LEN_BITS));
}

/* True when peer is reached through the host's shared segment. */
static inline int pc_on_shm(const pc_chan_t *ch, int peer)
{
    return ch->have_shm && ch->peers.host_of[peer] >= 0;
}
/* My mailbox in the window: the entry peer writes, and peer's eager slot. */
static inline pc_entry_t *pc_win_entry(const pc_chan_t *ch, int peer)
{
    return (pc_entry_t *)(ch->base + pc_entry_off(peer));
}
static inline char *pc_win_slot(const pc_chan_t *ch, int peer, int gen)
{
    return ch->base + pc_slot_off(ch->peers.size, peer, gen, ch->slot);
}

/* ------------------------------------------------- the transport table */

struct pc_transport {
    const char *name;
    /* Eager: n bytes into peer's slot of generation gen, then its flag. */
    int (*eager_put)(pc_call_t *c, int peer, int gen, const void *src, size_t n);
    /* Peer's eager slot of generation gen if its flag says this call (the
     * flag into *flag), else NULL; never waits. */
    const void *(*eager_poll)(pc_call_t *c, int peer, int gen, uint64_t *flag);
    /* Zero-copy, receiver: advertises f = {addr, len, pid, call} to peer. */
    int (*advertise)(pc_call_t *c, int peer, uint64_t *f);
    /* Completes this call's advertisements (NULL: each was complete). */
    int (*expose_end)(pc_call_t *c);
    /* The entry peer wrote in my mailbox once its advertisement of this
     * call is there, else NULL; never waits. */
    const pc_entry_t *(*adv_poll)(pc_call_t *c, int peer);
    /* Zero-copy, sender: n bytes at addr of peer (process pid), then peer's
     * done counter becomes done (now, or when the put completes). */
    int (*zput)(pc_call_t *c, int peer, uint64_t addr, uint64_t pid, const void *src, size_t n,
                uint64_t done);
    /* 1: zput carries its data itself, so a receive buffer needs no
     * registration in the dynamic window (0: the window's puts). */
    int zput_without_window;
    /* True once peer's done counter in my mailbox has reached want. */
    int (*done_poll)(pc_call_t *c, int peer, uint64_t want);
    /* The last call peer finished (slot flow control). */
    int (*read_progress)(pc_chan_t *ch, int peer, uint64_t *v);
    /* The same read started without waiting (*v must be channel memory),
     * and its completion.  NULL where read_progress costs no round trip
     * (shm: a load). */
    int (*read_progress_start)(pc_chan_t *ch, int peer, uint64_t *v);
    int (*read_progress_end)(pc_chan_t *ch, int peer);

    /* Remote transports only (NULL in shm). */
    /* Zero-copy data into peer's memory at addr, and its completion. */
    int (*write_data)(pc_chan_t *ch, int peer, uint64_t addr, const void *src, size_t n);
    int (*complete_data)(pc_chan_t *ch, int peer);
    /* Completes every put to peer (data and mailbox), before its flags.
     * With the next two, for the flags pc_pending_add keeps (NULL where
     * none is ever kept: ucx). */
    int (*complete_peer)(pc_chan_t *ch, int peer);
    /* Writes one pending flag, and makes the flags written visible. */
    int (*write_flag)(pc_chan_t *ch, const pc_pending_t *p);
    int (*deliver_flags)(pc_chan_t *ch, int peer);
    /* Completes every pending put and writes its flag. */
    int (*flush)(pc_call_t *c);
    /* Writes the flags of the pending puts that have landed, never waits
     * (NULL: completion cannot be tested, only waited for). */
    int (*flush_landed)(pc_call_t *c);
    /* A wait for one message from peer may block until it lands: 1 if so
     * (then block_end after the poll).  NULL: never. */
    int (*block_begin)(pc_chan_t *ch, int peer);
    void (*block_end)(pc_chan_t *ch);
    /* pc_chan_poll_only (NULL: polls never block anyway). */
    void (*poll_only)(pc_chan_t *ch, int on);
    /* At the end of a call, after flush: every put of the call complete
     * locally, its source reusable (NULL: flush did that). */
    int (*call_end)(pc_chan_t *ch);
    /* Runs the transport's own progress engine from the wait layer's
     * polls (NULL: the MPI library's, which the wait layer pokes). */
    void (*progress)(pc_chan_t *ch);
};

extern const pc_transport_t pc_transport_shm;
extern const pc_transport_t pc_transport_mpi_rma;

static inline const pc_transport_t *pc_transport_of(const pc_chan_t *ch, int peer)
{
    return pc_on_shm(ch, peer) ? &pc_transport_shm : ch->remote;
}

/* ------------------------------------------- shared by the transports */

/* The k-port window (channel.c): remembers that peer's flag at flag_disp
 * must become value once the put just issued is complete; at PACOLL_PORTS
 * outstanding, completes the oldest target's. */
int pc_pending_add(pc_call_t *c, int peer, MPI_Aint flag_disp, uint64_t value);
/* A remote transport's zput: the data by its write_data, the done counter
 * once a port completes it (channel.c). */
int pc_remote_zput(pc_call_t *c, int peer, uint64_t addr, uint64_t pid, const void *src, size_t n,
                   uint64_t done);
/* MPI_Put of n bytes, in pieces that fit an int count (mpi_rma.c). */
int pc_put_bytes(const void *src, size_t n, int peer, MPI_Aint disp, MPI_Win win);
/* A large put split into PACOLL_STRIPE pieces issued together (mpi_rma.c). */
size_t pc_stripe_piece(const pc_chan_t *ch, size_t n);
int pc_put_striped(pc_chan_t *ch, const void *src, size_t n, int peer, MPI_Aint disp, MPI_Win win);

/* The mpi_rma transport's window operations, which the smpi transport
 * shares (mpi_rma.c): zero-copy data into the dynamic window and its
 * completion, completion of every put to a peer, a peer's progress word. */
int pc_rma_write_data(pc_chan_t *ch, int peer, uint64_t addr, const void *src, size_t n);
int pc_rma_complete_data(pc_chan_t *ch, int peer);
int pc_rma_complete_peer(pc_chan_t *ch, int peer);
int pc_rma_read_progress(pc_chan_t *ch, int peer, uint64_t *v);
int pc_rma_read_progress_start(pc_chan_t *ch, int peer, uint64_t *v);
int pc_rma_read_progress_end(pc_chan_t *ch, int peer);

/* Per-transport set-up (setup.c calls them; collective as stated there). */
/* Sizes the host's mailboxes and probes cross-memory writes (collective
 * over the host); then pc_shm_transport_create allocates them. */
void pc_shm_probe(pc_chan_t *ch);
int pc_shm_transport_create(pc_chan_t *ch);
/* The host's segment: its mailboxes and the platform's entry bookkeeping. */
size_t pc_shm_segment_bytes(const pc_chan_t *ch);
/* eager: the largest copy-based block the remote transport may send (its
 * slots are sized for it) */
int pc_rma_windows_create(pc_chan_t *ch, size_t eager);
/* After the windows (collective over the team): makes ucx the remote
 * transport if UCX comes up on every rank and reaches every peer; else
 * names why in why and keeps mpi_rma (MPI_SUCCESS either way, an error
 * only from MPI).  pc_ucx_free (collective) before the windows go. */
int pc_ucx_create(pc_chan_t *ch, char *why, size_t wlen);
void pc_ucx_free(pc_chan_t *ch);
/* The ucx transport's eager limit (PACOLL_NET_EAGER; 0 in a build without
 * UCX). */
size_t pc_ucx_eager(const pc_chan_cfg_t *cfg);
/* The eager slot size for n peers within PACOLL_SLOT_BUDGET, for blocks up
 * to eager. */
size_t pc_slot_size(const pc_chan_t *ch, int npeers, size_t eager);

/* Registration cache (regcache.c): attaches a receive buffer to the
 * dynamic window, once per call. */
int pc_regcache_register(pc_chan_t *ch, void *buf, size_t len);
void pc_regcache_end_call(pc_chan_t *ch);
void pc_regcache_free(pc_chan_t *ch);

#endif
