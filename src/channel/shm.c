/*
 * The shm transport: a peer on this host.  Its mailbox is in a segment
 * shared by the host's ranks (allocated by host rank 0, as SMPI-NOTES
 * require); flags are release stores and acquire loads.  Zero-copy data
 * goes with one process_vm_writev into the advertised buffer, the
 * shared-memory analogue of an RDMA write (a plain copy where one process
 * runs every rank: the simulator).  What a platform models of a flag or a
 * write beyond the store (the simulator's fair model) is its table's
 * (channel/platform.h).  Where cross-memory writes are not
 * allowed (probed at set-up), the data goes through the remote transport's
 * window and only the flags stay here.
 */
#include <sys/uio.h>
#include <unistd.h>

#include "channel/transport.h"

/* The mailbox of host rank h. */
static inline char *box(const pc_chan_t *ch, int h) { return ch->shm_base + (size_t)h * ch->shm_box_bytes; }

/* The entry peer writes in my mailbox, and the one I write in peer's. */
static pc_entry_t *entry_from(const pc_chan_t *ch, int peer)
{
    return (pc_entry_t *)(box(ch, ch->peers.host_rank) + pc_entry_off(ch->peers.host_of[peer]));
}
static pc_entry_t *entry_to(const pc_chan_t *ch, int peer)
{
    return (pc_entry_t *)(box(ch, ch->peers.host_of[peer]) + pc_entry_off(ch->peers.host_rank));
}

/* The platform's bookkeeping of a flag (channel/platform.h): the kinds
 * are the eager generations, then the advertisement, then done.  A flag
 * already stored may not be seen yet (a modelled message in flight): a
 * loop that must go on sending (pc_chan_poll_only) is told "not yet", any
 * other wait waits for the rest of the message. */
enum { KIND_ADV = PC_GENS, KIND_DONE = PC_GENS + 1 };

static inline void mark_to(pc_chan_t *ch, int peer, int kind, size_t n)
{
    PC_PLATFORM.mark(ch, ch->peers.host_rank, ch->peers.host_of[peer], kind, n);
}
static inline int seen_from(pc_chan_t *ch, int peer, int kind)
{
    return PC_PLATFORM.seen(ch, ch->peers.host_of[peer], ch->peers.host_rank, kind, !ch->poll_only);
}

/* Single-copy write into another process on this host (where one process
 * runs every rank, a charged copy). */
static int cma_write(uint64_t pid, uint64_t addr, const void *src, size_t n)
{
    if (!PC_PLATFORM.own_processes) {
        pc_copy((void *)(uintptr_t)addr, src, n);
        PC_PLATFORM.cross_call();
        return MPI_SUCCESS;
    }
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
}

int pc_host_write(pc_chan_t *ch, uint64_t pid, uint64_t addr, const void *src, size_t n)
{
    ch->host_write_bytes += n;
    return cma_write(pid, addr, src, n);
}

static int eager_put(pc_call_t *c, int peer, int gen, const void *src, size_t n)
{
    pc_chan_t *ch = c->ch;
    char *b = box(ch, ch->peers.host_of[peer]);
    pc_entry_t *e = entry_to(ch, peer);
    pc_copy(b + pc_slot_off(ch->peers.host_size, ch->peers.host_rank, gen, ch->shm_slot), src, n);
    mark_to(ch, peer, gen, n); /* what a message pays besides its copies */
    pc_store_rel(&e->flag[gen], pc_eager_flag(c->seq, n));
    return MPI_SUCCESS;
}

static const void *eager_poll(pc_call_t *c, int peer, int gen, uint64_t *flag)
{
    pc_chan_t *ch = c->ch;
    const pc_entry_t *e = entry_from(ch, peer);
    if (!pc_flag_of_call(*flag = pc_load_acq(&e->flag[gen]), c->seq) || !seen_from(ch, peer, gen))
        return NULL;
    return box(ch, ch->peers.host_rank) +
           pc_slot_off(ch->peers.host_size, ch->peers.host_of[peer], gen, ch->shm_slot);
}

static int advertise(pc_call_t *c, int peer, uint64_t *f)
{
    pc_entry_t *e = entry_to(c->ch, peer);
    e->adv_addr = f[0], e->adv_len = f[1], e->adv_pid = f[2];
    mark_to(c->ch, peer, KIND_ADV, 0); /* a flag is a message too */
    pc_store_rel(&e->adv_seq, c->seq);
    return MPI_SUCCESS;
}

static const pc_entry_t *adv_poll(pc_call_t *c, int peer)
{
    const pc_entry_t *e = entry_from(c->ch, peer);
    return pc_load_acq(&e->adv_seq) == c->seq && seen_from(c->ch, peer, KIND_ADV) ? e : NULL;
}

static int zput(pc_call_t *c, int peer, uint64_t addr, uint64_t pid, const void *src, size_t n,
                uint64_t done)
{
    pc_chan_t *ch = c->ch;
    int rc;
    if (ch->cma && PC_PLATFORM.single_copy(ch, ch->peers.host_rank, ch->peers.host_of[peer],
                                           (void *)(uintptr_t)addr, src, n)) {
        rc = MPI_SUCCESS; /* a modelled write, landing later (done_poll) */
    } else if (ch->cma) {
        rc = cma_write(pid, addr, src, n);
    } else { /* the data through the window, then the flag here */
        rc = ch->remote->write_data(ch, peer, addr, src, n);
        if (rc == MPI_SUCCESS)
            rc = ch->remote->complete_data(ch, peer);
    }
    if (rc == MPI_SUCCESS) {
        pc_entry_t *e = entry_to(ch, peer);
        mark_to(ch, peer, KIND_DONE, 0);
        pc_store_rel(&e->done, done);
    }
    return rc;
}

static int done_poll(pc_call_t *c, int peer, uint64_t want)
{
    pc_chan_t *ch = c->ch;
    pc_entry_t *e = entry_from(ch, peer);
    return pc_load_acq(&e->done) >= want && seen_from(ch, peer, KIND_DONE) &&
           PC_PLATFORM.landed(ch, ch->peers.host_of[peer], ch->peers.host_rank, !ch->poll_only);
}

static int read_progress(pc_chan_t *ch, int peer, uint64_t *v)
{
    *v = pc_load_acq((uint64_t *)box(ch, ch->peers.host_of[peer]));
    return MPI_SUCCESS;
}

const pc_transport_t pc_transport_shm = {
    .name = "shm",
    .eager_put = eager_put,
    .eager_poll = eager_poll,
    .advertise = advertise,
    .adv_poll = adv_poll,
    .zput = zput,
    .done_poll = done_poll,
    .read_progress = read_progress,
};

/* ------------------------------------------------------------- set-up */

/* Can this process write into its host peers with process_vm_writev?
 * (Containers may forbid it.)  The answer is agreed over the host. */
static int probe_cma(const pc_peers_t *p)
{
    if (!PC_PLATFORM.own_processes) /* one address space: a plain copy */
        return 1;
    struct { uint64_t pid, addr; } me, *all = malloc((size_t)p->host_size * sizeof me);
    volatile uint64_t target = 0;
    me.pid = (uint64_t)getpid();
    me.addr = (uint64_t)(uintptr_t)&target;
    PMPI_Allgather(&me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, p->host_comm);
    int next = (p->host_rank + 1) % p->host_size;
    uint64_t got = 0;
    struct iovec l = {&got, sizeof got}, r = {(void *)(uintptr_t)all[next].addr, sizeof got};
    int ok = process_vm_readv((pid_t)all[next].pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof got;
    free(all);
    int all_ok = 0;
    /* The peer's probe word must outlive everyone's read. */
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, p->host_comm);
    return all_ok;
}

/* The platform's bookkeeping of each entry (PC_PLATFORM.extra bytes per
 * writer and reader), after the host's mailboxes. */
static size_t platform_bytes(int host_size) { return PC_PLATFORM.extra * (size_t)host_size * (size_t)host_size; }

size_t pc_shm_segment_bytes(const pc_chan_t *ch)
{
    return ch->shm_box_bytes * (size_t)ch->peers.host_size + platform_bytes(ch->peers.host_size);
}

void pc_shm_probe(pc_chan_t *ch)
{
    ch->shm_slot = pc_slot_size(ch, ch->peers.host_size, ch->peers.cfg->eager_bytes);
    ch->shm_box_bytes = pc_box_bytes(ch->peers.host_size, ch->shm_slot);
    ch->cma = probe_cma(&ch->peers);
}

int pc_shm_transport_create(pc_chan_t *ch)
{
    const pc_peers_t *p = &ch->peers;
    int rc = pc_shared_window(p->host_comm, pc_shm_segment_bytes(ch), &ch->shm_win, &ch->shm_base);
    if (rc != MPI_SUCCESS)
        return rc;
    ch->have_shm = 1;
    /* Only the mailboxes' flag words must read zero; the slots are read
     * only after their flag, so a multi-GiB segment is not written here. */
    if (p->host_rank == 0) {
        for (int h = 0; h < p->host_size; h++)
            memset(box(ch, h), 0, pc_slot_off(p->host_size, 0, 0, ch->shm_slot));
        memset(box(ch, p->host_size), 0, platform_bytes(p->host_size));
    }
    return PMPI_Barrier(p->host_comm);
}

int pc_shared_window(MPI_Comm comm, size_t bytes, MPI_Win *win, char **base)
{
    /* SMPI-NOTES: rank 0 of comm allocates the whole segment, the others
     * pass 0 and take its address from shared_query(0) (SMPI's per-rank
     * query and unequal sizes are broken; this works on every MPI). */
    int rank;
    PMPI_Comm_rank(comm, &rank);
    void *mine;
    int rc = PMPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, comm, &mine,
                                      win);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint qsize;
    int qdisp;
    return PMPI_Win_shared_query(*win, 0, &qsize, &qdisp, base);
}
