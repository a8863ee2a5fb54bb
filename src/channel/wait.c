/* The wait layer: see wait.h for why every poll loop comes here. */
#include "channel/wait.h"

#include <sched.h>

#include "channel/channel.h"

/* Spins before the first yield when every rank has its own core: short
 * enough that a late peer does not burn a core for long, long enough that a
 * flag arriving within a few microseconds is seen without a syscall. */
#define PC_SPINS_BEFORE_YIELD 2000u
/* Check the clock every this many polls: MPI_Wtime is cheap, but not free. */
#define PC_DEADLINE_EVERY 256u
/* A wait this long (seconds) looks whether the peer's process is still
 * there, and again as often: one read of /proc a second costs nothing,
 * and the survivors of a rank that died say so within seconds.  A late
 * rank, however late, is waited for. */
#define PC_LIVENESS_EVERY 1.0

void pc_wait_init(pc_wait_t *w, struct pc_chan *ch, const char *what)
{
    w->ch = ch;
    w->what = what;
    w->start = 0;
    w->next_check = 0;
    w->sim_start = 0;
    w->spins = 0;
}

static void poke_progress(pc_chan_t *ch)
{
    int flag;
    /* Open MPI's pt2pt-based one-sided and SMPI both need the target to
     * enter the library; under SMPI this is also what advances time. */
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ch->peers.comm, &flag, MPI_STATUS_IGNORE);
    if (ch->have_win)
        PMPI_Win_sync(ch->win);
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
 * saying why. */
static int wait_is_over(pc_wait_t *w, int peer)
{
    const pc_peers_t *t = &w->ch->peers;
    double now = pc_deadline_clock();
    if (w->start == 0) {
        w->start = now;
        w->next_check = now + PC_LIVENESS_EVERY;
        return 0;
    }
    if (!PACOLL_UNDER_SMPI && now >= w->next_check) {
        w->next_check = now + PC_LIVENESS_EVERY;
        if (peer_died(w, peer, now - w->start))
            return 1;
    }
    if (t->cfg->timeout <= 0 || now - w->start < t->cfg->timeout)
        return 0;
    const char *clock = PACOLL_UNDER_SMPI ? " of simulated time" : "";
    if (peer >= 0)
        pc_log("timeout: %s waited %.0f s%s (PACOLL_TIMEOUT) for rank %d of its communicator "
               "(node %d); aborting",
               w->what, now - w->start, clock, peer, t->node_of[peer]);
    else
        pc_log("timeout: %s waited %.0f s%s (PACOLL_TIMEOUT) for several ranks; aborting",
               w->what, now - w->start, clock);
    return 1;
}

/* Under SMPI every poll is a context switch that moves simulated time by
 * only smpi/iprobe (10 ns): a 100 us wait would take 10^4 polls per rank.
 * Sleeping a simulated 1/32 of the time waited so far bounds the polls by
 * 32 ln(wait / 10 ns) and the detection error by 3% of the wait (at most
 * PC_SIM_BACKOFF_MAX); 20 us keeps short waits exact (the cap is reached
 * only after a 640 us wait) and long ones cheap (docs/ARCHITECTURE.md,
 * "SMPI", has what a smaller cap cost).  A wait past PC_SIM_BACKOFF_CAPPED
 * (no simulated call waits a second: a hang, or a rank that never comes)
 * backs off without the cap, so it meets PACOLL_TIMEOUT, simulated seconds
 * here, in some hundred polls rather than 20 us at a time. */
#define PC_SIM_BACKOFF_MAX 20e-6
#define PC_SIM_BACKOFF_CAPPED 1.0

static void sim_backoff(pc_wait_t *w)
{
    double now = PMPI_Wtime();
    if (w->sim_start == 0) {
        w->sim_start = now;
        return;
    }
    double d = (now - w->sim_start) / 32;
    if (now - w->sim_start < PC_SIM_BACKOFF_CAPPED && d > PC_SIM_BACKOFF_MAX)
        d = PC_SIM_BACKOFF_MAX;
    pc_sim_delay(d);
}

int pc_wait_poll(pc_wait_t *w, int peer)
{
    const pc_peers_t *t = &w->ch->peers;
    double t0 = pc_trace_start(w->ch);
    w->spins++;
    poke_progress(w->ch);
    if (PACOLL_UNDER_SMPI)
        sim_backoff(w);
    pc_trace_add(w->ch, &w->ch->tr.poll, &w->ch->tr.polls, t0);
    if (!PACOLL_UNDER_SMPI && (t->oversubscribed || w->spins > PC_SPINS_BEFORE_YIELD))
        sched_yield();
    /* a rank that rejected this call, or could not finish it, says so
     * (the team's verdict): stop waiting for it.  Not under SMPI, where a
     * probe costs simulated time and the simulated programs are legal ones. */
    if (!PACOLL_UNDER_SMPI && w->spins % PC_DEADLINE_EVERY == 0 && t->stop &&
        t->stop(t->owner) != 0)
        return MPI_ERR_OTHER;
    /* under SMPI every poll: past PC_SIM_BACKOFF_CAPPED one poll may move
     * the clock by 3% of the wait, 256 of them by a factor of 3000 */
    if ((PACOLL_UNDER_SMPI || w->spins % PC_DEADLINE_EVERY == 1) && wait_is_over(w, peer)) {
        PMPI_Abort(t->user, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

int pc_wait_arrival(MPI_Comm comm, double timeout, const char *what)
{
    MPI_Request req;
    int rc = PMPI_Ibarrier(comm, &req);
    double start = pc_deadline_clock();
    for (unsigned spins = 1; rc == MPI_SUCCESS; spins++) {
        int done = 0;
        rc = PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            break;
        sched_yield(); /* a set-up step: the core is worth more to the others */
        double now;
        if (spins % PC_DEADLINE_EVERY == 0 && (now = pc_deadline_clock()) - start >= timeout) {
            pc_log("timeout: %s waited %.0f s (PACOLL_TIMEOUT) for the other ranks of its "
                   "communicator; aborting",
                   what, now - start);
            PMPI_Abort(comm, MPI_ERR_OTHER);
            return MPI_ERR_OTHER;
        }
    }
    return rc;
}
