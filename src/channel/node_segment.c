/* The node segment and its primitives: see node_segment.h for the flag
 * protocol. */
#include "channel/node_segment.h"

#include "channel/channel.h"

#define PC_LINE 64
#define PC_SHM_MIN ((size_t)64 << 10)

static inline uint64_t load_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* Flag block: post[L], done[L], remote[nnodes], one cache line each, then
 * the rows, PC_SEG_ROW bytes each. */
static uint64_t *post_flag(const pc_seg_t *s, int i)
{
    return (uint64_t *)(s->base + (size_t)i * PC_LINE);
}
static uint64_t *done_flag(const pc_seg_t *s, int i)
{
    return (uint64_t *)(s->base + (size_t)(s->peers->local_size + i) * PC_LINE);
}
static uint64_t *remote_flag(const pc_seg_t *s, int n)
{
    return (uint64_t *)(s->base + (size_t)(2 * s->peers->local_size + n) * PC_LINE);
}

static size_t flag_bytes(const pc_peers_t *p)
{
    return (size_t)(2 * p->local_size + p->nnodes) * PC_LINE + (size_t)p->local_size * PC_SEG_ROW;
}

/* Node segments on my host (virtual nodes share one). */
static size_t nodes_here(const pc_peers_t *p)
{
    char *seen = calloc((size_t)p->nnodes + 1, 1);
    size_t n = 0;
    if (!seen)
        return (size_t)p->nnodes; /* (an upper bound) */
    for (int r = 0; r < p->size; r++)
        if (p->host_of[r] >= 0 && !seen[p->node_of[r]])
            seen[p->node_of[r]] = 1, n++;
    free(seen);
    return n ? n : 1;
}

pc_room_t pc_seg_first_room(const pc_peers_t *p)
{
    return (pc_room_t){.shm = pc_room_mul(nodes_here(p), flag_bytes(p) + PC_SHM_MIN), .mem = 0};
}

static int allocate(pc_seg_t *s, size_t capacity)
{
    const pc_peers_t *p = s->peers;
    s->flag_bytes = flag_bytes(p);
    int node_rank;
    int rc = pc_shared_window(p->node_comm, s->flag_bytes + capacity, &s->win, &s->base);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(p->node_comm, &node_rank);
    if (node_rank == 0) {
        /* Only the flag block must read zero (the data area is read only
         * after its post).  Flags survive a regrow: operations already
         * done stay done. */
        memset(s->base, 0, s->flag_bytes);
        for (int i = 0; i < p->local_size; i++)
            *post_flag(s, i) = *done_flag(s, i) = s->ticket;
    }
    s->capacity = capacity;
    s->have = 1;
    return PMPI_Barrier(p->node_comm);
}

int pc_seg_create(pc_seg_t *s, const pc_peers_t *peers)
{
    s->peers = peers;
    s->ticket = 0;
    s->agreed = PC_SHM_MIN;
    s->refused = s->node_refused = SIZE_MAX;
    return allocate(s, PC_SHM_MIN);
}

void pc_seg_free(pc_seg_t *s)
{
    if (s->have)
        PMPI_Win_free(&s->win);
    s->have = 0;
}

/* The data area a segment grows to for `bytes`: doubled from the first,
 * at most PACOLL_SHM_MAX. */
static size_t grown(const pc_seg_t *s, size_t from, size_t bytes)
{
    size_t cap = from, max = s->peers->cfg->shm_max;
    while (cap < bytes && cap <= SIZE_MAX / 2)
        cap *= 2;
    return cap > max ? max : cap;
}

int pc_seg_fits(pc_seg_t *s, size_t bytes)
{
    const pc_peers_t *p = s->peers;
    if (bytes <= s->agreed)
        return 1;
    if (bytes >= s->refused || bytes > p->cfg->shm_max)
        return 0;
    size_t target = grown(s, PC_SHM_MIN, bytes);
    /* Every node of my host grows to target; the current ones go first. */
    size_t n = nodes_here(p), now = pc_room_mul(n, s->flag_bytes + s->capacity);
    size_t then = pc_room_mul(n, s->flag_bytes + target);
    pc_room_t r = {.shm = then > now ? then - now : 0, .mem = 0};
    char why[192];
    int mine = pc_room_here(r, why, sizeof why), all = 0;
    if (!mine && p->cfg->verbose)
        pc_log("no room for the node segment of %zu bytes: %s", target, why);
    if (pc_room_agree(p->comm, mine, &all) != MPI_SUCCESS)
        all = 0; /* (the exchange that runs instead meets the error) */
    if (all)
        s->agreed = target;
    else
        s->refused = bytes;
    return all;
}

int pc_seg_fits_node(pc_seg_t *s, size_t bytes)
{
    const pc_peers_t *p = s->peers;
    if (bytes <= s->capacity)
        return 1;
    if (bytes >= s->node_refused || bytes > p->cfg->shm_max)
        return 0;
    size_t target = grown(s, s->capacity, bytes);
    pc_room_t r = {.shm = target - s->capacity, .mem = 0};
    char why[192];
    int mine = p->local_rank != 0 || pc_room_here(r, why, sizeof why), all = 0;
    if (!mine && p->cfg->verbose)
        pc_log("no room for the node segment of %zu bytes: %s", target, why);
    if (pc_room_agree(p->node_comm, mine, &all) != MPI_SUCCESS)
        all = 0;
    if (!all)
        s->node_refused = bytes;
    return all;
}

static int grow(pc_seg_t *s, size_t bytes)
{
    size_t max = s->peers->cfg->shm_max;
    if (bytes > max) {
        pc_log("the node segment would need %zu bytes, more than PACOLL_SHM_MAX=%zu", bytes, max);
        return MPI_ERR_NO_MEM;
    }
    size_t cap = grown(s, s->capacity, bytes);
    if (s->agreed >= bytes && cap > s->agreed) /* stay within what was agreed */
        cap = s->agreed;
    /* Collective over the node: everyone is between operations here. */
    PMPI_Win_free(&s->win);
    s->have = 0;
    return allocate(s, cap);
}

int pc_seg_begin(pc_seg_t *s, size_t bytes, pc_wait_t *w, pc_seg_op_t *op)
{
    int rc = MPI_SUCCESS;
    if (!s->have)
        return MPI_ERR_OTHER;
    if (bytes > s->capacity)
        rc = grow(s, bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    op->s = s;
    op->ticket = ++s->ticket;
    op->buf = s->base + s->flag_bytes;
    op->w = w;
    /* The area is free once every local rank is done with the last op. */
    for (int i = 0; i < s->peers->local_size; i++)
        PC_WAIT_UNTIL(w, load_acq(done_flag(s, i)) >= op->ticket - 1, s->peers->local_ranks[i]);
    return MPI_SUCCESS;
}

/* Every flag another rank waits on rises through the platform, which may
 * charge what an intra-node message costs (pc_flag_publish). */
static void post(uint64_t *flag, uint64_t ticket) { pc_flag_publish(flag, ticket); }

void pc_seg_post(pc_seg_op_t *op)
{
    pc_charge_settle(); /* the copies made so far pass before the flag is seen */
    post(post_flag(op->s, op->s->peers->local_rank), op->ticket);
}

int pc_seg_posted(pc_seg_op_t *op, int local)
{
    return load_acq(post_flag(op->s, local)) >= op->ticket;
}

int pc_seg_wait_post(pc_seg_op_t *op, int local)
{
    PC_WAIT_UNTIL(op->w, load_acq(post_flag(op->s, local)) >= op->ticket,
                  op->s->peers->local_ranks[local]);
    return MPI_SUCCESS;
}

int pc_seg_wait_all_posts(pc_seg_op_t *op)
{
    for (int i = 0; i < op->s->peers->local_size; i++) {
        if (i == op->s->peers->local_rank)
            continue;
        int rc = pc_seg_wait_post(op, i);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void pc_seg_end(pc_seg_op_t *op) { post(done_flag(op->s, op->s->peers->local_rank), op->ticket); }

void pc_seg_post_remote(pc_seg_op_t *op, int node)
{
    pc_charge_settle(); /* as in pc_seg_post: the copies first, then the flag */
    post(remote_flag(op->s, node), op->ticket);
}

int pc_seg_remote_posted(pc_seg_op_t *op, int node)
{
    return load_acq(remote_flag(op->s, node)) >= op->ticket;
}

char *pc_seg_row(const pc_seg_op_t *op, int local)
{
    const pc_seg_t *s = op->s;
    return s->base + (size_t)(2 * s->peers->local_size + s->peers->nnodes) * PC_LINE + (size_t)local * PC_SEG_ROW;
}

/* ---------------------------------------------------------- primitives */

/* Bytes of the area the blocks (counts, displs) of all local ranks cover. */
static size_t v_span(const pc_seg_t *s, const size_t *counts, const size_t *displs)
{
    size_t total = 0;
    for (int i = 0; i < s->peers->local_size; i++)
        if (displs[i] + counts[i] > total)
            total = displs[i] + counts[i];
    return total;
}

int pc_seg_gatherv(pc_seg_t *s, pc_wait_t *w, const void *send, const size_t *counts,
                   const size_t *displs, void *recv, int root)
{
    pc_seg_op_t op;
    int rc = pc_seg_begin(s, v_span(s, counts, displs), w, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = s->peers->local_rank;
    if (me != root) {
        pc_copy(op.buf + displs[me], send, counts[me]);
        pc_seg_post(&op);
        pc_seg_end(&op);
        return MPI_SUCCESS;
    }
    pc_copy_own((char *)recv + displs[me], send, counts[me]);
    rc = pc_seg_wait_all_posts(&op);
    for (int i = 0; i < s->peers->local_size && rc == MPI_SUCCESS; i++)
        if (i != me)
            pc_copy((char *)recv + displs[i], op.buf + displs[i], counts[i]);
    pc_seg_end(&op);
    return rc;
}

typedef int (*pc_seg_vop_t)(pc_seg_t *, pc_wait_t *, const void *, const size_t *,
                            const size_t *, void *, int);

/* gather and scatter are their v forms with m bytes for every local rank. */
static int uniform(pc_seg_vop_t vop, pc_seg_t *s, pc_wait_t *w, const void *send, size_t m,
                   void *recv, int root)
{
    size_t *cd = malloc(2 * (size_t)s->peers->local_size * sizeof *cd);
    if (!cd)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < s->peers->local_size; i++)
        cd[i] = m, cd[s->peers->local_size + i] = (size_t)i * m;
    int rc = vop(s, w, send, cd, cd + s->peers->local_size, recv, root);
    free(cd);
    return rc;
}

int pc_seg_gather(pc_seg_t *s, pc_wait_t *w, const void *send, size_t m, void *recv, int root)
{
    return uniform(pc_seg_gatherv, s, w, send, m, recv, root);
}

int pc_seg_scatterv(pc_seg_t *s, pc_wait_t *w, const void *send, const size_t *counts,
                    const size_t *displs, void *recv, int root)
{
    pc_seg_op_t op;
    int rc = pc_seg_begin(s, v_span(s, counts, displs), w, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = s->peers->local_rank;
    if (me == root) {
        for (int i = 0; i < s->peers->local_size; i++)
            if (i != me)
                pc_copy(op.buf + displs[i], (const char *)send + displs[i], counts[i]);
        pc_copy_own(recv, (const char *)send + displs[me], counts[me]);
        pc_seg_post(&op);
    } else {
        rc = pc_seg_wait_post(&op, root);
        if (rc == MPI_SUCCESS)
            pc_copy(recv, op.buf + displs[me], counts[me]);
    }
    pc_seg_end(&op);
    return rc;
}

int pc_seg_scatter(pc_seg_t *s, pc_wait_t *w, const void *send, size_t m, void *recv, int root)
{
    return uniform(pc_seg_scatterv, s, w, send, m, recv, root);
}

int pc_seg_bcast(pc_seg_t *s, pc_wait_t *w, void *buf, size_t n, int root)
{
    pc_seg_op_t op;
    int rc = pc_seg_begin(s, n, w, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    if (s->peers->local_rank == root) {
        pc_copy(op.buf, buf, n);
        pc_seg_post(&op);
    } else {
        rc = pc_seg_wait_post(&op, root);
        if (rc == MPI_SUCCESS)
            pc_copy(buf, op.buf, n);
    }
    pc_seg_end(&op);
    return rc;
}
