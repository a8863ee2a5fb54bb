/* The wait layer: see wait.h for why every poll loop comes here. */
#include "channel/wait.h"

#include <sched.h>
#include <time.h>

#include "channel/transport.h"

double pc_real_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Ask the team whether to stop every this many polls (a probe is cheap,
 * not free); the deadline's period is the platform's. */
#define PC_STOP_EVERY 256u
/* A wait this long (seconds) looks whether the peer's process is still
 * there, and again as often: one read of /proc a second costs nothing,
 * and the survivors of a rank that died say so within seconds.  A late
 * rank, however late, is waited for. */
#define PC_LIVENESS_EVERY 1.0
/* With a transport of its own progress, the MPI library is entered every
 * this many polls (an Iprobe is a system call or more over TCP); the first
 * poll of every wait enters it. */
#define PC_LIBRARY_POKE_EVERY 8u

void pc_wait_init(pc_wait_t *w, struct pc_chan *ch, const char *what)
{
    w->ch = ch;
    w->what = what;
    w->start = 0;
    w->next_check = 0;
    w->idle_since = 0;
    w->spins = 0;
}

static void poke_progress(pc_chan_t *ch, unsigned spins)
{
    int flag;
    /* Open MPI's pt2pt-based one-sided and SMPI both need the target to
     * enter the library; in a simulation this is also what advances time.
     * A transport with its own progress (ucx) carries the messages waited
     * for: the library is entered one poll in PC_LIBRARY_POKE_EVERY, for a
     * peer's read of this rank's progress word and the library's own. */
    int own = ch->remote && ch->remote->progress;
    if (!own || spins % PC_LIBRARY_POKE_EVERY == 0)
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ch->peers.comm, &flag, MPI_STATUS_IGNORE);
    /* (the mailbox window's memory model; the ucx transport's messages are
     * stored by this process's own handler) */
    if (ch->have_win && !own)
        PMPI_Win_sync(ch->win);
    if (own)
        ch->remote->progress(ch);
}

/* Rank r, on my host, whose process has exited: 1 after saying so. */
static int died(pc_wait_t *w, int r, int waited_for, double waited)
{
    const pc_chan_t *ch = w->ch;
    const pc_peers_t *t = &ch->peers;
    int h = t->host_of[r];
    if (r == t->rank || h < 0 || !pc_proc_checkable(&ch->procs[t->host_rank], &ch->procs[h]) ||
        !pc_proc_gone(&ch->procs[h]))
        return 0;
    pc_log("dead peer: %s waited %.0f s for %s; rank %d of its communicator (node %d, pid %llu "
           "on this host) has exited; aborting",
           w->what, waited, waited_for >= 0 ? "it" : "several ranks", r, t->node_of[r],
           (unsigned long long)ch->procs[h].pid);
    return 1;
}

/* The peer waited for (-1: several, then every rank on my host) has
 * exited.  A peer on another host is the MPI library's: its launcher ends
 * the job when a process dies. */
static int peer_died(pc_wait_t *w, int peer, double waited)
{
    const pc_peers_t *t = &w->ch->peers;
    if (!w->ch->procs)
        return 0;
    if (peer >= 0)
        return died(w, peer, peer, waited);
    for (int r = 0; r < t->size; r++)
        if (died(w, r, -1, waited))
            return 1;
    return 0;
}

/* The wait must end: its peer died, or PACOLL_TIMEOUT passed.  1 after
 * saying why.  A nonblocking collective's wait (on_fiber) spans the
 * application's own work between its progress calls: no deadline there. */
static int wait_is_over(pc_wait_t *w, int peer, int on_fiber)
{
    const pc_peers_t *t = &w->ch->peers;
    double now = pc_clock();
    if (w->start == 0) {
        w->start = now;
        w->next_check = now + PC_LIVENESS_EVERY;
        return 0;
    }
    if (now >= w->next_check) { /* (no process to look at: peer_died says no) */
        w->next_check = now + PC_LIVENESS_EVERY;
        if (peer_died(w, peer, now - w->start))
            return 1;
    }
    if (on_fiber || t->cfg->timeout <= 0 || now - w->start < t->cfg->timeout)
        return 0;
    const char *clock = PC_PLATFORM.clock_words;
    if (peer >= 0)
        pc_log("timeout: %s waited %.0f s%s (PACOLL_TIMEOUT) for rank %d of its communicator "
               "(node %d); aborting",
               w->what, now - w->start, clock, peer, t->node_of[peer]);
    else
        pc_log("timeout: %s waited %.0f s%s (PACOLL_TIMEOUT) for several ranks; aborting",
               w->what, now - w->start, clock);
    return 1;
}

int pc_wait_poll(pc_wait_t *w, int peer)
{
    const pc_peers_t *t = &w->ch->peers;
    double t0 = pc_trace_start(w->ch);
    w->spins++;
    poke_progress(w->ch, w->spins);
    /* on a fiber, the caller's progress loop is the idle wait */
    int on_fiber = t->yield && t->yield(t->owner);
    if (!on_fiber)
        PC_PLATFORM.idle(w->spins, &w->idle_since, t->oversubscribed);
    pc_trace_add(w->ch, &w->ch->tr.poll, &w->ch->tr.polls, t0);
    /* a rank that rejected this call, or could not finish it, says so
     * (the team's verdict): stop waiting for it.  (A team on a platform
     * without guards has no stop hook.) */
    if (w->spins % PC_STOP_EVERY == 0 && t->stop && t->stop(t->owner) != 0)
        return MPI_ERR_OTHER;
    if ((w->spins - 1) % PC_PLATFORM.deadline_every == 0 && wait_is_over(w, peer, on_fiber)) {
        PMPI_Abort(t->user, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

int pc_wait_arrival(MPI_Comm comm, double timeout, const char *what)
{
    MPI_Request req;
    int rc = PMPI_Ibarrier(comm, &req);
    double start = pc_clock();
    for (unsigned spins = 1; rc == MPI_SUCCESS; spins++) {
        int done = 0;
        rc = PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            break;
        sched_yield(); /* a set-up step: the core is worth more to the others */
        double now;
        if (spins % PC_STOP_EVERY == 0 && (now = pc_clock()) - start >= timeout) {
            pc_log("timeout: %s waited %.0f s (PACOLL_TIMEOUT) for the other ranks of its "
                   "communicator; aborting",
                   what, now - start);
            PMPI_Abort(comm, MPI_ERR_OTHER);
            return MPI_ERR_OTHER;
        }
    }
    return rc;
}
