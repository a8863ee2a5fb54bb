/*
 * The platform the channel runs on: what the hardware does for it, in one
 * table of functions.  The real platform is memcpy, atomics and the wall
 * clock; the simulated one (src/channel/sim/, SimGrid SMPI) is the same
 * code paths with each step charged modelled time.  Everything above the
 * channel reaches the platform only through the calls at the end of this
 * file, so engines and algorithms never know which one runs.
 *
 * This header is also the one place that picks the platform: smpicc's
 * mpi.h (SMPI_HELPERS_H) means the simulator.  The real table is a static
 * const of static inline functions, so a call through it compiles to the
 * plain operation (a memcpy with nothing after it, an atomic store): the
 * real build's hot loops pay nothing for the table.
 */
#ifndef PACOLL_PLATFORM_H
#define PACOLL_PLATFORM_H

#include <sched.h>

#include "base/param.h"
#include "channel/peers.h"

struct pc_chan;

typedef struct pc_platform {
    const char *name;
    /* Every rank is a process of its own: a peer's process can be looked
     * at (base/proc.c), a copy into it needs process_vm_writev, shared
     * segments are files.  0 where one process runs every rank. */
    int own_processes;
    /* The library's own safety traffic runs: the team's cross-rank stop
     * probe in waits, the arrival barrier of the opt-in deadline, the
     * committed-datatype probe, the registration-cache refusal.  0 on the
     * simulator, where each such call costs modelled time and the
     * simulated programs are legal ones. */
    int guards;
    /* A wait checks its deadline every this many polls (a clock read is
     * cheap, not free; simulated time may jump by much in one poll). */
    unsigned deadline_every;
    const char *clock_words; /* the clock, as a timeout message names it */
    /* Seconds: the deadline's and PACOLL_TRACE's clock. */
    double (*clock)(void);
    /* The time of copying n bytes of a message (own: a rank's own block,
     * which no message carries), for a copy already made. */
    void (*charge)(size_t n, int own);
    /* The copy time charged on this rank so far (PACOLL_TRACE). */
    double (*charged)(void);
    /* The time charged so far passes before the flags that follow are seen. */
    void (*settle)(void);
    /* A flag another rank of this host waits on rises to v (add: by v): what
     * an intra-node message costs its writer, then a release store (add). */
    void (*publish)(uint64_t *flag, uint64_t v, int add);
    /* Mailbox entries of the shm transport (channel/shm.c): the flag of
     * `kind` in the entry host rank `from` writes in host rank `to`'s
     * mailbox was just stored with n bytes behind it (mark), and whether
     * it is seen yet (seen; may_wait: wait for it rather than say no).
     * single_copy: makes a zero-copy write of n bytes there if the platform
     * models it (1), else 0; landed: whether the writes of that entry have
     * landed.  The bookkeeping lives in `extra` bytes per entry, after the
     * host's mailboxes in the segment (0: none). */
    size_t extra;
    void (*mark)(struct pc_chan *ch, int from, int to, int kind, size_t n);
    int (*seen)(struct pc_chan *ch, int from, int to, int kind, int may_wait);
    int (*single_copy)(struct pc_chan *ch, int from, int to, void *dst, const void *src, size_t n);
    /* cross_call: a single-copy write into a host peer was made as a plain
     * copy (own_processes 0): what its system call would have cost. */
    void (*cross_call)(void);
    int (*landed)(struct pc_chan *ch, int from, int to, int may_wait);
    /* A poll of a wait found nothing: give the core or the clock away.
     * spins: polls of this wait so far; *since: platform state of the
     * condition waited for (0 when it is new). */
    void (*idle)(unsigned spins, double *since, int oversubscribed);
    /* The team's set-up allgather of n bytes per rank. */
    int (*setup_allgather)(const void *mine, size_t n, void *all, MPI_Comm comm);
    /* The largest eager slot the platform carries (want: the one asked for). */
    size_t (*slot_max)(size_t want);
    /* The channel's remote transport and the platform's state of it
     * (NULL: the real one's, nothing of its own), made after the channel's
     * per-peer arrays; freed with MPI (free) and without (free_local). */
    int (*chan_create)(struct pc_chan *ch);
    void (*chan_free)(struct pc_chan *ch);
    void (*chan_free_local)(struct pc_chan *ch);
} pc_platform_t;

/* Monotonic real time (channel/wait.c; read once per 256 polls). */
double pc_real_clock(void);

#ifdef SMPI_HELPERS_H
/* ------------------------------------------------ the simulator's */

#define PACOLL_UNDER_SMPI 1
extern const pc_platform_t pc_sim_platform; /* channel/sim/platform.c */
#define PC_PLATFORM pc_sim_platform
/* Every simulated rank lives in one process: a smaller slot budget keeps
 * a 1024-rank simulation within this machine's memory; one attached
 * range at most (SimGrid's dynamic window is a list searched per put). */
#define PC_PLATFORM_SLOT_BUDGET (1 << 20)
#define PC_PLATFORM_REGCACHE_MAX 1

#else
/* ------------------------------------------------------- the real one */

#define PACOLL_UNDER_SMPI 0
#define PC_PLATFORM pc_real_platform
#define PC_PLATFORM_SLOT_BUDGET (4 << 20)
#define PC_PLATFORM_REGCACHE_MAX PC_REGCACHE_SLOTS

/* Spins before the first yield when every rank has its own core: short
 * enough that a late peer does not burn a core for long, long enough that a
 * flag arriving within a few microseconds is seen without a syscall. */
#define PC_SPINS_BEFORE_YIELD 2000u

static inline void pc_real_charge(size_t n, int own) { PC_UNUSED(n), PC_UNUSED(own); }
static inline double pc_real_charged(void) { return 0; }
static inline void pc_real_settle(void) {}
static inline void pc_real_publish(uint64_t *flag, uint64_t v, int add)
{
    if (add)
        __atomic_fetch_add(flag, v, __ATOMIC_RELEASE);
    else
        __atomic_store_n(flag, v, __ATOMIC_RELEASE);
}
static inline void pc_real_mark(struct pc_chan *ch, int from, int to, int kind, size_t n)
{
    PC_UNUSED(ch), PC_UNUSED(from), PC_UNUSED(to), PC_UNUSED(kind), PC_UNUSED(n);
}
static inline int pc_real_seen(struct pc_chan *ch, int from, int to, int kind, int may_wait)
{
    PC_UNUSED(ch), PC_UNUSED(from), PC_UNUSED(to), PC_UNUSED(kind), PC_UNUSED(may_wait);
    return 1;
}
static inline int pc_real_single_copy(struct pc_chan *ch, int from, int to, void *dst,
                                      const void *src, size_t n)
{
    PC_UNUSED(ch), PC_UNUSED(from), PC_UNUSED(to), PC_UNUSED(dst), PC_UNUSED(src), PC_UNUSED(n);
    return 0;
}
static inline int pc_real_landed(struct pc_chan *ch, int from, int to, int may_wait)
{
    PC_UNUSED(ch), PC_UNUSED(from), PC_UNUSED(to), PC_UNUSED(may_wait);
    return 1;
}
/* Yield at once when ranks outnumber cores (oversubscribed tests would
 * otherwise crawl), else after a while of spinning. */
static inline void pc_real_idle(unsigned spins, double *since, int oversubscribed)
{
    PC_UNUSED(since);
    if (oversubscribed || spins > PC_SPINS_BEFORE_YIELD)
        sched_yield();
}
static inline int pc_real_setup_allgather(const void *mine, size_t n, void *all, MPI_Comm comm)
{
    return PMPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, comm);
}
static inline size_t pc_real_slot_max(size_t want) { return want; }
static inline void pc_real_cross_call(void) {}

static const pc_platform_t pc_real_platform __attribute__((unused)) = {
    .name = "real",
    .own_processes = 1,
    .guards = 1,
    .deadline_every = 256,
    .clock_words = "",
    .clock = pc_real_clock,
    .charge = pc_real_charge,
    .charged = pc_real_charged,
    .settle = pc_real_settle,
    .publish = pc_real_publish,
    .extra = 0,
    .mark = pc_real_mark,
    .seen = pc_real_seen,
    .single_copy = pc_real_single_copy,
    .cross_call = pc_real_cross_call,
    .landed = pc_real_landed,
    .idle = pc_real_idle,
    .setup_allgather = pc_real_setup_allgather,
    .slot_max = pc_real_slot_max,
    .chan_create = NULL,
    .chan_free = NULL,
    .chan_free_local = NULL,
};
#endif

/* The simulator's settings (channel/sim/settings.c, built everywhere: a
 * malformed value is an error in any build), NULL-terminated. */
extern const pc_param_t *const pc_sim_settings[];
#define pc_platform_settings pc_sim_settings

/* ------------------------------------- what the layers above call */

/* The clock of PACOLL_TIMEOUT and PACOLL_TRACE, in seconds: monotonic
 * real time, or the simulated clock (a simulated wait lasts the wall time
 * of simulating every other rank: a 256-rank wait passed 600 s). */
static inline double pc_clock(void) { return PC_PLATFORM.clock(); }
/* The time of copying n bytes, for copies made with memcpy and charged at
 * once (many small pieces: one charge per piece would make a 1024-rank
 * simulation crawl); own: a rank's own block, which no message carries.
 * pc_copy and pc_copy_own (channel.h) copy and charge in one. */
static inline void pc_copy_charge(size_t n) { PC_PLATFORM.charge(n, 0); }
static inline void pc_copy_charge_own(size_t n) { PC_PLATFORM.charge(n, 1); }
/* The copies charged so far pass before the flags raised next are seen. */
static inline void pc_charge_settle(void) { PC_PLATFORM.settle(); }
/* A flag another rank of this host waits on becomes v, or grows by v. */
static inline void pc_flag_publish(uint64_t *flag, uint64_t v) { PC_PLATFORM.publish(flag, v, 0); }
static inline void pc_flag_publish_add(uint64_t *flag, uint64_t v) { PC_PLATFORM.publish(flag, v, 1); }

#endif
