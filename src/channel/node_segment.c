/* The node segment and its primitives: see shm.h for the flag protocol. */
#include "channel/node_segment.h"

#include "channel/channel.h"
#include "core/team.h"

#define PC_LINE 64
#define PC_SHM_MIN ((size_t)64 << 10)

static inline uint64_t load_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void store_rel(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Flag block: post[L], done[L], remote[nnodes], one cache line each. */
static uint64_t *post_flag(const pacoll_team_t *t, int i)
{
    return (uint64_t *)(t->shm.base + (size_t)i * PC_LINE);
}
static uint64_t *done_flag(const pacoll_team_t *t, int i)
{
    return (uint64_t *)(t->shm.base + (size_t)(t->local_size + i) * PC_LINE);
}
static uint64_t *remote_flag(const pacoll_team_t *t, int n)
{
    return (uint64_t *)(t->shm.base + (size_t)(2 * t->local_size + n) * PC_LINE);
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
    rc = PMPI_Win_shared_query(*win, 0, &qsize, &qdisp, base);
    if (rc == MPI_SUCCESS && rank == 0)
        memset(*base, 0, bytes);
    return rc;
}

static int allocate(pacoll_team_t *t, size_t capacity)
{
    pc_shm_t *s = &t->shm;
    s->flag_bytes = (size_t)(2 * t->local_size + t->nnodes) * PC_LINE;
    int node_rank;
    int rc = pc_shared_window(t->node_comm, s->flag_bytes + capacity, &s->win, &s->base);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(t->node_comm, &node_rank);
    if (node_rank == 0) {
        /* Flags survive a regrow: operations already done stay done. */
        for (int i = 0; i < t->local_size; i++)
            *post_flag(t, i) = *done_flag(t, i) = s->ticket;
    }
    s->capacity = capacity;
    s->have = 1;
    return PMPI_Barrier(t->node_comm);
}

int pc_shm_create(pacoll_team_t *t)
{
    t->shm.ticket = 0;
    return allocate(t, PC_SHM_MIN);
}

void pc_shm_free(pacoll_team_t *t)
{
    if (t->shm.have)
        PMPI_Win_free(&t->shm.win);
    t->shm.have = 0;
}

static int grow(pacoll_team_t *t, size_t bytes)
{
    size_t cap = t->shm.capacity;
    while (cap < bytes)
        cap *= 2;
    if (bytes > t->cfg.shm_max) {
        pc_log("the node segment would need %zu bytes, more than PACOLL_SHM_MAX=%zu", bytes,
               t->cfg.shm_max);
        return MPI_ERR_NO_MEM;
    }
    if (cap > t->cfg.shm_max)
        cap = t->cfg.shm_max;
    /* Collective over the node: everyone is between operations here. */
    PMPI_Win_free(&t->shm.win);
    t->shm.have = 0;
    return allocate(t, cap);
}

int pc_shm_begin(pacoll_team_t *t, size_t bytes, pc_wait_t *w, pc_shm_op_t *op)
{
    int rc = MPI_SUCCESS;
    if (!t->shm.have)
        return MPI_ERR_OTHER;
    if (bytes > t->shm.capacity)
        rc = grow(t, bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    op->t = t;
    op->ticket = ++t->shm.ticket;
    op->buf = t->shm.base + t->shm.flag_bytes;
    op->w = w;
    /* The area is free once every local rank is done with the last op. */
    for (int i = 0; i < t->local_size; i++)
        PC_WAIT_UNTIL(w, load_acq(done_flag(t, i)) >= op->ticket - 1, t->node_ranks[t->node_first[t->node] + i]);
    return MPI_SUCCESS;
}

void pc_shm_post(pc_shm_op_t *op)
{
#if PACOLL_UNDER_SMPI
    /* Charge the copies made so far before the flag becomes visible. */
    PMPI_Wtime();
#endif
    store_rel(post_flag(op->t, op->t->local_rank), op->ticket);
}

static int local_to_rank(const pacoll_team_t *t, int local)
{
    return t->node_ranks[t->node_first[t->node] + local];
}

int pc_shm_posted(pc_shm_op_t *op, int local)
{
    return load_acq(post_flag(op->t, local)) >= op->ticket;
}

int pc_shm_wait_post(pc_shm_op_t *op, int local)
{
    PC_WAIT_UNTIL(op->w, load_acq(post_flag(op->t, local)) >= op->ticket, local_to_rank(op->t, local));
    return MPI_SUCCESS;
}

int pc_shm_wait_all_posts(pc_shm_op_t *op)
{
    for (int i = 0; i < op->t->local_size; i++) {
        if (i == op->t->local_rank)
            continue;
        int rc = pc_shm_wait_post(op, i);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void pc_shm_end(pc_shm_op_t *op) { store_rel(done_flag(op->t, op->t->local_rank), op->ticket); }

void pc_shm_post_remote(pc_shm_op_t *op, int node)
{
#if PACOLL_UNDER_SMPI
    PMPI_Wtime(); /* as in pc_shm_post: the copies first, then the flag */
#endif
    store_rel(remote_flag(op->t, node), op->ticket);
}

int pc_shm_remote_posted(pc_shm_op_t *op, int node)
{
    return load_acq(remote_flag(op->t, node)) >= op->ticket;
}

/* ---------------------------------------------------------- primitives */

/* Bytes of the area the blocks (counts, displs) of all local ranks cover. */
static size_t v_span(const pacoll_team_t *t, const size_t *counts, const size_t *displs)
{
    size_t total = 0;
    for (int i = 0; i < t->local_size; i++)
        if (displs[i] + counts[i] > total)
            total = displs[i] + counts[i];
    return total;
}

int pc_shm_gatherv(pacoll_team_t *t, pc_wait_t *w, const void *send, const size_t *counts,
                   const size_t *displs, void *recv, int root)
{
    pc_shm_op_t op;
    int rc = pc_shm_begin(t, v_span(t, counts, displs), w, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = t->local_rank;
    if (me != root) {
        pc_copy(op.buf + displs[me], send, counts[me]);
        pc_shm_post(&op);
        pc_shm_end(&op);
        return MPI_SUCCESS;
    }
    pc_copy((char *)recv + displs[me], send, counts[me]);
    rc = pc_shm_wait_all_posts(&op);
    for (int i = 0; i < t->local_size && rc == MPI_SUCCESS; i++)
        if (i != me)
            pc_copy((char *)recv + displs[i], op.buf + displs[i], counts[i]);
    pc_shm_end(&op);
    return rc;
}

typedef int (*pc_shm_vop_t)(pacoll_team_t *, pc_wait_t *, const void *, const size_t *,
                            const size_t *, void *, int);

/* gather and scatter are their v forms with m bytes for every local rank. */
static int uniform(pc_shm_vop_t vop, pacoll_team_t *t, pc_wait_t *w, const void *send, size_t m,
                   void *recv, int root)
{
    size_t *cd = malloc(2 * (size_t)t->local_size * sizeof *cd);
    if (!cd)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < t->local_size; i++)
        cd[i] = m, cd[t->local_size + i] = (size_t)i * m;
    int rc = vop(t, w, send, cd, cd + t->local_size, recv, root);
    free(cd);
    return rc;
}

int pc_shm_gather(pacoll_team_t *t, pc_wait_t *w, const void *send, size_t m, void *recv, int root)
{
    return uniform(pc_shm_gatherv, t, w, send, m, recv, root);
}

int pc_shm_scatterv(pacoll_team_t *t, pc_wait_t *w, const void *send, const size_t *counts,
                    const size_t *displs, void *recv, int root)
{
    pc_shm_op_t op;
    int rc = pc_shm_begin(t, v_span(t, counts, displs), w, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = t->local_rank;
    if (me == root) {
        for (int i = 0; i < t->local_size; i++)
            if (i != me)
                pc_copy(op.buf + displs[i], (const char *)send + displs[i], counts[i]);
        pc_copy(recv, (const char *)send + displs[me], counts[me]);
        pc_shm_post(&op);
    } else {
        rc = pc_shm_wait_post(&op, root);
        if (rc == MPI_SUCCESS)
            pc_copy(recv, op.buf + displs[me], counts[me]);
    }
    pc_shm_end(&op);
    return rc;
}

int pc_shm_scatter(pacoll_team_t *t, pc_wait_t *w, const void *send, size_t m, void *recv, int root)
{
    return uniform(pc_shm_scatterv, t, w, send, m, recv, root);
}

int pc_shm_bcast(pacoll_team_t *t, pc_wait_t *w, void *buf, size_t n, int root)
{
    pc_shm_op_t op;
    int rc = pc_shm_begin(t, n, w, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    if (t->local_rank == root) {
        pc_copy(op.buf, buf, n);
        pc_shm_post(&op);
    } else {
        rc = pc_shm_wait_post(&op, root);
        if (rc == MPI_SUCCESS)
            pc_copy(buf, op.buf, n);
    }
    pc_shm_end(&op);
    return rc;
}
