/*
 * The one way pacoll waits.  Every poll loop in the library is written as
 *
 *     while (!condition) { rc = pc_wait_poll(&w, peer); if (rc) return rc; }
 *
 * pc_wait_poll spins, backs off, yields the core when ranks outnumber cores
 * (oversubscribed tests would otherwise crawl), pokes MPI progress with
 * MPI_Iprobe (passive-target RMA needs it on some MPIs, and in a simulation
 * it is what lets simulated time move); what an idle poll does, and the
 * clock, are the platform's (channel/platform.h).  A late peer is waited for as long as
 * it takes, as MPI waits; a peer on this host whose process has exited is
 * named (after a second of waiting, then every second, the wait looks at
 * the process: base/proc.c), and so is the peer of a wait that passed
 * PACOLL_TIMEOUT when that opt-in deadline is set: the message names the
 * collective, the algorithm and the peer, and the job is aborted.
 */
#ifndef PACOLL_WAIT_H
#define PACOLL_WAIT_H

#include "channel/peers.h"

struct pc_chan;

typedef struct pc_wait {
    struct pc_chan *ch;
    const char *what; /* "alltoall direct", for the timeout message */
    double start;     /* pc_clock of the first poll, 0 before */
    double next_check; /* when to look at the peer's process next */
    double idle_since; /* the platform's idle state of this condition (0: new) */
    unsigned spins;
} pc_wait_t;

void pc_wait_init(pc_wait_t *w, struct pc_chan *ch, const char *what);
/* One round of waiting for peer (-1: several).  MPI_SUCCESS;
 * MPI_ERR_OTHER when another rank said it will not finish the call
 * (the team's stop hook, channel/peers.h); or an error when the peer died
 * or the deadline passed (the job is aborted then: a collective that gave
 * up on one rank cannot be finished by the others). */
int pc_wait_poll(pc_wait_t *w, int peer);

/* Every rank of comm has come (a barrier, polled), or after timeout
 * seconds (> 0) a message naming `what` and the job aborted.  With the
 * opt-in deadline, before set-up steps that wait inside the MPI library
 * (core/team.c), so a late rank meets the same deadline there as in the
 * wait layer.  Only on a platform with guards (channel/platform.h). */
int pc_wait_arrival(MPI_Comm comm, double timeout, const char *what);

/* A new condition to wait for: restarts the platform's idle back-off. */
static inline void pc_wait_new_condition(pc_wait_t *w) { w->idle_since = 0; }

#define PC_WAIT_UNTIL(w, cond, peer)                                                              \
    do {                                                                                          \
        pc_wait_new_condition(w);                                                                 \
        while (!(cond)) {                                                                         \
            int pc_wait_rc_ = pc_wait_poll((w), (peer));                                          \
            if (pc_wait_rc_ != MPI_SUCCESS)                                                       \
                return pc_wait_rc_;                                                               \
        }                                                                                         \
    } while (0)

#endif
