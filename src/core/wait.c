/* The wait layer: see wait.h for why every poll loop comes here. */
#include "core/wait.h"

#include <sched.h>

#include "core/team.h"

/* Spins before the first yield when every rank has its own core: short
 * enough that a late peer does not burn a core for long, long enough that a
 * flag arriving within a few microseconds is seen without a syscall. */
#define PC_SPINS_BEFORE_YIELD 2000u
/* Check the clock every this many polls: MPI_Wtime is cheap, but not free. */
#define PC_DEADLINE_EVERY 256u

void pc_wait_init(pc_wait_t *w, pacoll_team_t *team, const char *what)
{
    w->team = team;
    w->what = what;
    w->start = 0;
    w->spins = 0;
}

static void poke_progress(pacoll_team_t *t)
{
    int flag;
    /* Open MPI's pt2pt-based one-sided and SMPI both need the target to
     * enter the library; under SMPI this is also what advances time. */
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, t->comm, &flag, MPI_STATUS_IGNORE);
    if (t->rma.have_win)
        PMPI_Win_sync(t->rma.win);
}

static int deadline_passed(pc_wait_t *w, int peer)
{
    pacoll_team_t *t = w->team;
    double now = pc_wall_time();
    if (w->start == 0) {
        w->start = now;
        return 0;
    }
    if (t->cfg.timeout <= 0 || now - w->start < t->cfg.timeout)
        return 0;
    if (peer >= 0)
        pc_log("timeout: %s waited %.0f s (PACOLL_TIMEOUT) for rank %d of its communicator "
               "(node %d); aborting",
               w->what, now - w->start, peer, t->node_of[peer]);
    else
        pc_log("timeout: %s waited %.0f s (PACOLL_TIMEOUT) for several ranks; aborting", w->what,
               now - w->start);
    return 1;
}

int pc_wait_poll(pc_wait_t *w, int peer)
{
    pacoll_team_t *t = w->team;
    w->spins++;
    poke_progress(t);
    if (!PACOLL_UNDER_SMPI && (t->oversubscribed || w->spins > PC_SPINS_BEFORE_YIELD))
        sched_yield();
    if (w->spins % PC_DEADLINE_EVERY == 1 && deadline_passed(w, peer)) {
        PMPI_Abort(t->user, MPI_ERR_OTHER);
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}
