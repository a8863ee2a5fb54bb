/*
 * The simulated platform (SimGrid SMPI; built only with smpicc): the
 * channel's platform table (channel/platform.h) with every step charged
 * modelled time.
 *
 *   - Copies: SMPI charges real CPU time only at the next MPI call, and
 *     noisily, so a copy is charged a modelled time instead: n bytes at
 *     PACOLL_SIM_COPY_BW (bytes/s, set per platform by sim/run; one core's
 *     memcpy bandwidth).
 *   - The fair model (PACOLL_SIM_FAIR=L, the eager limit, set by sim/run
 *     --model fair; docs/SIM.md, "The fair model"): the platform charges
 *     the copy-in and copy-out of every message below L bytes through
 *     SMPI's smpi/os, ois and or, pacoll's messages and the peers' alike.
 *     So the receive of a network eager block already paid its copy-out
 *     (pc_sim_copy_refund), a rank's own block costs nothing (SMPI's
 *     Datatype::copy charges the peers nothing for it), a flag of a node
 *     segment costs its writer what a peer's intra-node message costs
 *     besides its copies (PACOLL_SIM_SHM_LAT, PACOLL_SIM_SHM_BW), and a
 *     mailbox flag is seen that long after its store while its writer goes
 *     on; from L up a peer's intra-node message is a rendezvous, one flow
 *     and no copy, and so is pacoll's single-copy write.  Its charges are
 *     symmetric: a hand-off pays the platform's per-message time at both
 *     ends and the landing cost at its reader (PACOLL_SIM_O, _LAND), a
 *     single-copy write made as a copy its system call (_CMA_CALL), and a
 *     write to another host on a host-driven NIC its writer's CPU
 *     (_HOST_DRIVEN).
 *   - Waits back off in simulated time; the clock is the simulated one.
 */
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>
#include <xbt/config.h>

#include "channel/sim/sim.h"
#include "channel/wait.h"

/* ------------------------------------------------------------ the clock */

/* No simcall: reading it costs no time. */
static double sim_clock(void) { return simgrid_get_clock(); }

void pc_sim_delay(double seconds)
{
    /* exactly: smpi_execute would scale by smpi/host-speed and drop short
     * delays */
    if (seconds > 0)
        smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
}

/* ------------------------------------------------------- copies, fair */

/* The settings below are read once per simulated rank (SMPI privatises a
 * linked-in library's statics per rank): constants of the run, like the
 * platform file they go with.  A malformed value has already failed the
 * first collective (core/config.c); the defaults here only keep these
 * functions total.  Simulation accounting, not library state. */
static double sim_copy_bw(void)
{
    static double bw = 0;
    if (bw == 0 && pc_parse_positive(getenv("PACOLL_SIM_COPY_BW"), &bw) != 0)
        bw = PC_SIM_COPY_BW_DEFAULT;
    return bw;
}

/* PACOLL_TRACE's copy time of this rank. */
static double copy_charged;

/* The fair model's settings, and the copy-out already charged by the
 * platform and not yet refunded (pc_sim_copy_refund). */
typedef struct sim_fair {
    int read;
    double limit; /* PACOLL_SIM_FAIR: the eager limit, 0 = off */
    double shm_lat, shm_bw;
    /* what the platform charges the peers per message (o: each side; land:
     * the receiver seeing it landed), a single-copy write's system call, and
     * whether the host CPU drives the NIC (0 where the fair model is off) */
    double o, land, cma_call;
    int host_driven;
    size_t credit;
} sim_fair_t;

static double seconds_or_0(const char *env)
{
    double v = 0;
    return pc_parse_positive(getenv(env), &v) == 0 ? v : 0;
}

static sim_fair_t *sim_fair(void)
{
    static sim_fair_t f;
    if (!f.read) {
        if (pc_parse_positive(getenv("PACOLL_SIM_FAIR"), &f.limit) != 0)
            f.limit = 0;
        if (pc_parse_positive(getenv("PACOLL_SIM_SHM_LAT"), &f.shm_lat) != 0)
            f.shm_lat = PC_SIM_SHM_LAT_DEFAULT;
        if (pc_parse_positive(getenv("PACOLL_SIM_SHM_BW"), &f.shm_bw) != 0)
            f.shm_bw = PC_SIM_SHM_BW_DEFAULT;
        if (f.limit > 0) {
            f.o = seconds_or_0("PACOLL_SIM_O");
            f.land = seconds_or_0("PACOLL_SIM_LAND");
            f.cma_call = seconds_or_0("PACOLL_SIM_CMA_CALL");
            const char *hd = getenv("PACOLL_SIM_HOST_DRIVEN");
            f.host_driven = hd && !strcmp(hd, "1");
        }
        f.read = 1;
    }
    return &f;
}

static void charge_message(size_t n)
{
    sim_fair_t *f = sim_fair();
    size_t paid = f->credit < n ? f->credit : n;
    f->credit -= paid;
    double s = (double)(n - paid) / sim_copy_bw();
    copy_charged += s;
    pc_sim_delay(s);
}

static void sim_charge(size_t n, int own)
{
    if (own && sim_fair()->limit > 0)
        return;
    charge_message(n);
}

static double sim_charged(void) { return copy_charged; }

void pc_sim_copy_refund(size_t n)
{
    sim_fair_t *f = sim_fair();
    if ((double)n < f->limit) /* smpi/or charges only what was sent eagerly */
        f->credit += n;
}

/* SMPI injects charged time at the next MPI call. */
static void sim_settle(void) { PMPI_Wtime(); }

/* What a peer's intra-node message of n bytes pays besides its copies. */
static double shm_message_time(const sim_fair_t *f, size_t n) { return f->shm_lat + (double)n / f->shm_bw; }

/* A flag of the node segment: its readers wait on the word itself, so the
 * writer pays the whole message, its own o, the flight and the reader's
 * landing (o and land), before the store. */
static void sim_publish(uint64_t *flag, uint64_t v, int add)
{
    sim_fair_t *f = sim_fair();
    if (f->limit > 0)
        pc_sim_delay(f->o + shm_message_time(f, 0) + f->o + f->land);
    if (add)
        __atomic_fetch_add(flag, v, __ATOMIC_RELEASE);
    else
        __atomic_store_n(flag, v, __ATOMIC_RELEASE);
}

/* ------------------------------------------------ shm mailbox entries */

/* Single-copy writes in flight per writer and reader under the fair model
 * (sim_single_copy); a writer with more unread waits for its own. */
#define SIM_FLOWS 16
/* Kinds: the eager generations, then the advertisement, then done
 * (channel/shm.c). */
#define SIM_KINDS (PC_GENS + 2)

/* What the simulator keeps of one mailbox entry, in the segment after the
 * host's mailboxes (every simulated rank shares one address space). */
typedef struct sim_entry {
    /* the simulated time at which each kind's flag becomes visible (0: at
     * once).  One time per kind: a later zero-copy write's stamp replaces
     * an earlier one's, so a reader of the earlier counter may see it up
     * to one message later than its own stamp said. */
    double visible[SIM_KINDS];
    /* whether the reader still owes the landing of each kind's last flag */
    uint8_t owed[SIM_KINDS];
    /* the single-copy writes still flowing: a ring the writer fills and
     * the entry's reader drains */
    void *flow[SIM_FLOWS];
    uint32_t flow_head, flow_tail;
} sim_entry_t;

static sim_entry_t *sim_entry(const pc_chan_t *ch, int from, int to)
{
    char *area = ch->shm_base + (size_t)ch->peers.host_size * ch->shm_box_bytes;
    return (sim_entry_t *)area + (size_t)to * (size_t)ch->peers.host_size + (size_t)from;
}

/* A flag is seen an intra-node message's latency and bandwidth after its
 * store, as a peer's intra-node message lands after its flow; the writer
 * pays the platform's o for it, as a peer's send does, and goes on. */
static void sim_mark(pc_chan_t *ch, int from, int to, int kind, size_t n)
{
    sim_fair_t *f = sim_fair();
    sim_entry_t *e = sim_entry(ch, from, to);
    if (!(f->limit > 0)) {
        e->visible[kind] = 0;
        return;
    }
    pc_sim_delay(f->o);
    e->visible[kind] = simgrid_get_clock() + shm_message_time(f, n);
    e->owed[kind] = 1;
}

/* A flag not yet seen is waited for when the wait may wait (it is in
 * flight), as a blocking receive of a message already sent waits for the
 * rest.  Seeing it costs the reader o and land once, as smpi/or charges a
 * peer's receive. */
static int sim_seen(pc_chan_t *ch, int from, int to, int kind, int may_wait)
{
    sim_entry_t *e = sim_entry(ch, from, to);
    double at = e->visible[kind];
    double now = simgrid_get_clock();
    if (at > now) {
        if (!may_wait)
            return 0;
        pc_sim_delay(at - now);
    }
    if (e->owed[kind]) {
        sim_fair_t *f = sim_fair();
        e->owed[kind] = 0;
        pc_sim_delay(f->o + f->land);
    }
    return 1;
}

/* From the fair model's eager limit up, a write is one flow on the node's
 * own route, so that it shares the route with the node's other writes as
 * the peers' flows do (the SHARED membus of the modern and multirail
 * platforms).  The writer starts it and goes on; the entry's reader owns
 * it and sees done once it has landed (sim_landed). */
static int sim_single_copy(pc_chan_t *ch, int from, int to, void *dst, const void *src, size_t n)
{
    double limit = sim_fair()->limit;
    if (!(limit > 0 && (double)n >= limit))
        return 0; /* a copy (sim_cross_call charges its system call) */
    memmove(dst, src, n);
    sim_entry_t *e = sim_entry(ch, from, to);
    sg_host_t here = sg_host_self();
    sg_comm_t f = pc_sim_transfer_start(here, here, (uint64_t)n);
    if (e->flow_tail - e->flow_head == SIM_FLOWS) { /* the reader is far behind */
        pc_sim_transfer_wait(f);
        return 1;
    }
    e->flow[e->flow_tail++ % SIM_FLOWS] = f;
    return 1;
}

/* Whether the writes whose done counter the reader has seen have landed;
 * they are released as they land.  A loop that must go on sending
 * (may_wait 0) is told "not yet", any other wait waits. */
static int sim_landed(pc_chan_t *ch, int from, int to, int may_wait)
{
    sim_entry_t *e = sim_entry(ch, from, to);
    uint32_t end = e->flow_tail; /* a write started while this one waits is not this done's */
    while (e->flow_head != end) {
        sg_comm_t f = e->flow[e->flow_head % SIM_FLOWS];
        if (!may_wait) {
            if (!pc_sim_transfer_test(f))
                return 0;
        } else {
            double t0 = pc_trace_start(ch);
            pc_sim_transfer_wait(f);
            pc_trace_add(ch, &ch->tr.recv, &ch->tr.recvs, t0);
        }
        e->flow_head++;
    }
    return 1;
}

/* A single-copy write into a node peer made as a copy (below the fair
 * model's eager limit, and the shared copy-out): the system call it is.
 * From the limit up a write is a flow, as a peer's intra-node rendezvous,
 * and neither pays a call. */
static void sim_cross_call(void) { pc_sim_delay(sim_fair()->cma_call); }

void pc_sim_remote_write(size_t n)
{
    sim_fair_t *f = sim_fair();
    if (!f->host_driven)
        return;
    pc_sim_delay(f->o + ((double)n < f->limit ? (double)n / sim_copy_bw() : 0));
}

/* -------------------------------------------------------------- waits */

/* Every poll is a context switch that moves simulated time by only
 * smpi/iprobe (10 ns): a 100 us wait would take 10^4 polls per rank.
 * Sleeping a simulated 1/32 of the time waited so far bounds the polls by
 * 32 ln(wait / 10 ns) and the detection error by 3% of the wait (at most
 * SIM_BACKOFF_MAX); 20 us keeps short waits exact (the cap is reached only
 * after a 640 us wait) and long ones cheap (docs/ARCHITECTURE.md, "SMPI",
 * has what a smaller cap cost).  A wait past SIM_BACKOFF_CAPPED (no
 * simulated call waits a second: a hang, or a rank that never comes)
 * backs off without the cap, so it meets PACOLL_TIMEOUT, simulated seconds
 * here, in some hundred polls rather than 20 us at a time. */
#define SIM_BACKOFF_MAX 20e-6
#define SIM_BACKOFF_CAPPED 1.0

static void sim_idle(unsigned spins, double *since, int oversubscribed)
{
    PC_UNUSED(spins), PC_UNUSED(oversubscribed);
    double now = PMPI_Wtime();
    if (*since == 0) {
        *since = now;
        return;
    }
    double d = (now - *since) / 32;
    if (now - *since < SIM_BACKOFF_CAPPED && d > SIM_BACKOFF_MAX)
        d = SIM_BACKOFF_MAX;
    pc_sim_delay(d);
}

/* ------------------------------------------------------------- set-up */

/* A Bruck allgather over MPI_Sendrecv: SMPI's default allgather posts every
 * send and receive at once and its wait is linear in the requests, which
 * made large teams take minutes of wall time to create (docs/SIM.md). */
#define TAG_SETUP 7090
static int sim_setup_allgather(const void *mine, size_t n, void *all, MPI_Comm comm)
{
    int p, r, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &r);
    char *tmp = malloc((size_t)p * n + 1); /* block i: rank (r + i) mod p */
    if (!tmp)
        return MPI_ERR_NO_MEM;
    memcpy(tmp, mine, n);
    for (int have = 1; have < p && rc == MPI_SUCCESS; have *= 2) {
        int cnt = have < p - have ? have : p - have;
        rc = PMPI_Sendrecv(tmp, cnt * (int)n, MPI_BYTE, (r - have + p) % p, TAG_SETUP,
                           tmp + (size_t)have * n, cnt * (int)n, MPI_BYTE, (r + have) % p,
                           TAG_SETUP, comm, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        memcpy((char *)all + (size_t)((r + i) % p) * n, tmp + (size_t)i * n, n);
    free(tmp);
    return rc;
}

/* Eager messages must stay below SMPI's detached-send threshold
 * (smpi/send-is-detached-thresh: 64 KB by default, 12 KB in sim/run's fair
 * model), so that their source may be reused at once (channel/sim/smpi.c);
 * a larger one would be read after its reuse.  60 KB at most, as the
 * published runs had it. */
static size_t sim_slot_max(size_t want)
{
    int detached = sg_cfg_get_int("smpi/send-is-detached-thresh");
    if (want > 60 * 1024)
        want = 60 * 1024;
    if (detached > PC_LINE && want >= (size_t)detached)
        want = (size_t)detached - 1;
    return want;
}

/* The fair model's writes left unread, then the transport's state. */
static void sim_chan_free(pc_chan_t *ch)
{
    pc_smpi_free(ch);
    for (int h = 0; ch->have_shm && h < ch->peers.host_size; h++)
        sim_landed(ch, h, ch->peers.host_rank, 1);
}

const pc_platform_t pc_sim_platform = {
    .name = "smpi",
    .own_processes = 0,
    .guards = 0,
    /* every poll: past SIM_BACKOFF_CAPPED one poll may move the clock by
     * 3% of the wait, 256 of them by a factor of 3000 */
    .deadline_every = 1,
    .clock_words = " of simulated time",
    .clock = sim_clock,
    .charge = sim_charge,
    .charged = sim_charged,
    .settle = sim_settle,
    .publish = sim_publish,
    .extra = sizeof(sim_entry_t),
    .mark = sim_mark,
    .seen = sim_seen,
    .single_copy = sim_single_copy,
    .cross_call = sim_cross_call,
    .landed = sim_landed,
    .idle = sim_idle,
    .setup_allgather = sim_setup_allgather,
    .slot_max = sim_slot_max,
    .chan_create = pc_smpi_create,
    .chan_free = sim_chan_free,
    .chan_free_local = pc_smpi_free_local,
};
