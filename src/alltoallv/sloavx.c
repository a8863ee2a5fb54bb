/*
 * alltoallv "sloavx": SLOAV over node leaders, with shared-memory gather
 * and scatter inside each node.
 *
 * Source: sloavx-logarithmic-alltoallv §IV (SLOAVx).  One leader per node
 * (local index 0) collects every local process's elements, grouped by
 * destination node, runs SLOAV (§III, src/alltoallv/sloav.c) with the other
 * leaders on those node partitions, and every local process takes its
 * blocks from shared memory.  Network messages fall from O(N log N) per
 * call to O(nodes log nodes).  See docs/SLOAV.md.
 *
 * How it maps onto pacoll (three operations of the node segment, node_segment.h):
 *   1. sizes (§IV step 1, "notify the parent about the message size
 *      first"): every local process writes one row, its bytes per
 *      destination node and its receive counts, and posts it.  Every
 *      process reads all rows and computes every offset it needs itself, so
 *      no offsets travel back down a tree.
 *   2. data: every process copies its blocks into the node segment, already
 *      in the order the leader sends them (by destination node, then by
 *      source, then by destination rank), so the leader's "group by
 *      destination node" costs no copy: the node partitions are contiguous
 *      and the leader hands them to SLOAV as they are.  The leader waits for
 *      every post, runs SLOAV among the leaders (their own team, made with
 *      pc_team_get(leader_comm)) with the final partitions landing in the
 *      segment, and marks the operation done.
 *   3. scatter: the next operation may start only when every local process
 *      (so also the leader) is done with the last one; that wait is the
 *      notification of §IV step 3, and each process copies its blocks out,
 *      data from its own node straight from the send area of step 2.
 * Departure: the paper gathers and scatters along a binomial tree of
 * gatherv/scatterv steps because Cheetah moves data between processes by
 * messages; in one shared segment every process writes and reads its own
 * part directly (one copy in, one copy out) and a tree would only add
 * copies.  Uneven and non-consecutive nodes are described by the team's
 * node layout (node_ranks, local_of) and need nothing special.
 *
 * Memory: the node segment holds L (nodes + N) 8-byte sizes, then the
 * node's whole send volume and the volume it receives from other nodes; a
 * node whose volume does not fit (PACOLL_SHM_MAX, its host's room) takes
 * the private path below.  The leader's SLOAV adds what sloav.c states.
 *
 * Cost (Hockney; L ranks per node, n nodes, elements of m bytes, K =
 * ceil(log_r n), node partitions of L^2 m bytes):
 *     T = 3 alpha_shm + 2 N m beta_shm                       (in and out)
 *       + K ceil((r-1)/k)(alpha + (n/r) L^2 m beta) + K n L^2 m beta_shm
 */
#include "alltoallv/sloav.h"

#include <math.h>

/* Blocks are copied with memcpy and charged once per phase
 * (pc_copy_charge), as sloav.c does. */

typedef struct layout {
    int nn, L;
    size_t *send_part;   /* [nn] bytes of the node partition for node n */
    size_t *send_off;    /* [nn] its offset in the send area */
    size_t *my_send;     /* [nn] where my part of partition n starts */
    size_t *recv_part;   /* [nn] bytes from node m (0 for my node) */
    size_t *recv_off;    /* [nn] its offset in the receive area */
    size_t *my_recv;     /* [N] where the block from each rank is, in the segment */
    size_t total_send, total_recv;
} layout_t;

static void layout_free(layout_t *x)
{
    free(x->send_part), free(x->send_off), free(x->my_send);
    free(x->recv_part), free(x->recv_off), free(x->my_recv);
}

static int layout_alloc(layout_t *x, int nn, int n)
{
    memset(x, 0, sizeof *x);
    x->nn = nn;
    x->send_part = calloc((size_t)nn, sizeof(size_t));
    x->send_off = calloc((size_t)nn, sizeof(size_t));
    x->my_send = calloc((size_t)nn, sizeof(size_t));
    x->recv_part = calloc((size_t)nn, sizeof(size_t));
    x->recv_off = calloc((size_t)nn, sizeof(size_t));
    x->my_recv = calloc((size_t)n, sizeof(size_t));
    if (!x->send_part || !x->send_off || !x->my_send || !x->recv_part || !x->recv_off ||
        !x->my_recv)
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

/* Row of local rank s in the sizes area: [bytes to each node][rcounts]. */
static size_t row_words(const pacoll_team_t *t) { return (size_t)t->nnodes + (size_t)t->size; }
static uint64_t *row(const pacoll_team_t *t, char *area, int s)
{
    return (uint64_t *)area + (size_t)s * row_words(t);
}
static const uint64_t *row_c(const pacoll_team_t *t, const char *area, int s)
{
    return (const uint64_t *)area + (size_t)s * row_words(t);
}

static void write_row(const pacoll_team_t *t, const pc_args_t *a, char *area)
{
    uint64_t *r = row(t, area, t->local_rank);
    for (int n = 0; n < t->nnodes; n++)
        r[n] = 0;
    for (int p = 0; p < t->size; p++) {
        r[t->node_of[p]] += a->scounts[p];
        r[t->nnodes + p] = a->rcounts[p];
    }
}

/* Everything local process me needs from the sizes of every local
 * process (the leader computes it for each, on the private path). */
static int compute_layout(const pacoll_team_t *t, const char *area, layout_t *x, int me)
{
    int nn = t->nnodes, n = t->size, L = t->local_size;
    size_t *col = calloc(2 * (size_t)n, sizeof *col); /* col[p], pre[p] */
    if (!col)
        return MPI_ERR_NO_MEM;
    size_t *pre = col + n;
    for (int s = 0; s < L; s++) {
        const uint64_t *r = row_c(t, area, s);
        for (int m = 0; m < nn; m++) {
            if (s < me)
                x->my_send[m] += r[m];
            x->send_part[m] += r[m];
        }
        for (int p = 0; p < n; p++) {
            col[p] += r[nn + p];
            if (s < me)
                pre[p] += r[nn + p];
        }
    }
    for (int m = 0; m < nn; m++) {
        x->send_off[m] = x->total_send;
        x->total_send += x->send_part[m];
        x->my_send[m] += x->send_off[m];
    }
    /* Partition from node m: [source in m][destination local rank].  The
     * receive area starts with one spare byte: the leaders' exchange
     * exposes it from its start, and with a spare byte no single put ever
     * covers the whole exposed span (SimGrid 3.32's Win_detach leaves a
     * re-attached dynamic window one byte short: sloav.c). */
    x->total_recv = 1;
    for (int m = 0; m < nn; m++) {
        if (m != t->node) {
            x->recv_off[m] = x->total_recv;
            for (int i = t->node_first[m]; i < t->node_first[m + 1]; i++)
                x->recv_part[m] += col[t->node_ranks[i]];
            x->total_recv += x->recv_part[m];
        }
    }
    for (int m = 0; m < nn; m++) {
        size_t at = m == t->node ? x->send_off[m] : x->total_send + x->recv_off[m];
        for (int i = t->node_first[m]; i < t->node_first[m + 1]; i++) {
            int src = t->node_ranks[i];
            x->my_recv[src] = at + pre[src];
            at += col[src];
        }
    }
    free(col);
    return MPI_SUCCESS;
}

/* My blocks into the send area: partition by destination node, inside it
 * after the local ranks before me, by destination rank in node order. */
static void copy_in(const pacoll_team_t *t, const pc_args_t *a, const layout_t *x, char *area)
{
    size_t bytes = 0;
    for (int m = 0; m < t->nnodes; m++) {
        size_t at = x->my_send[m];
        for (int i = t->node_first[m]; i < t->node_first[m + 1]; i++) {
            int dst = t->node_ranks[i];
            if (a->scounts[dst]) /* (a NULL buffer may hold nothing) */
                memcpy(area + at, a->sbuf + a->sdispls[dst], a->scounts[dst]);
            at += a->scounts[dst];
            bytes += dst == t->rank ? 0 : a->scounts[dst];
        }
    }
    pc_copy_charge(bytes);
    pc_copy_charge_own(a->scounts[t->rank]); /* my own block: no message */
}

static void copy_out(const pacoll_team_t *t, const pc_args_t *a, const layout_t *x,
                     const char *area)
{
    size_t bytes = 0;
    for (int p = 0; p < t->size; p++) {
        if (a->rcounts[p])
            memcpy(a->rbuf + a->rdispls[p], area + x->my_recv[p], a->rcounts[p]);
        bytes += p == t->rank ? 0 : a->rcounts[p];
    }
    pc_copy_charge(bytes);
    pc_copy_charge_own(a->rcounts[t->rank]);
}

/* ------------------------------------------------------ private path */

/* A node whose segment cannot hold a call (PACOLL_SHM_MAX, or no room on
 * its host: pc_seg_fits_node) moves its data through its leader's own
 * memory, by messages inside the node.  Only leaders meet other nodes, and
 * the leader runs the same exchange on the same partitions, so the other
 * nodes see no difference and nothing is agreed beyond the node. */
#define TAG_PRIVATE 7091
#define CHUNK ((size_t)1 << 30)

static int req_done(MPI_Request *r)
{
    int f = 0;
    return PMPI_Test(r, &f, MPI_STATUS_IGNORE) != MPI_SUCCESS || f;
}

static int wait_req(pc_wait_t *w, MPI_Request *r, int peer)
{
    PC_WAIT_UNTIL(w, req_done(r), peer);
    return MPI_SUCCESS;
}

/* n bytes to or from local rank `other`, in pieces MPI's int counts hold. */
static int move(const pacoll_team_t *t, pc_wait_t *w, int send, char *buf, size_t n, int other)
{
    int rc = MPI_SUCCESS;
    for (size_t off = 0; off < n && rc == MPI_SUCCESS; off += CHUNK) {
        int len = (int)(n - off < CHUNK ? n - off : CHUNK);
        MPI_Request r;
        rc = send ? PMPI_Isend(buf + off, len, MPI_BYTE, other, TAG_PRIVATE, t->node_comm, &r)
                  : PMPI_Irecv(buf + off, len, MPI_BYTE, other, TAG_PRIVATE, t->node_comm, &r);
        if (rc == MPI_SUCCESS)
            rc = wait_req(w, &r, t->node_ranks[t->node_first[t->node] + other]);
    }
    return rc;
}

/* A non-leader: its blocks, in the order copy_in lays them, to the leader;
 * then its received blocks, in source order, back. */
static int private_member(pacoll_team_t *t, const pc_args_t *a, pc_wait_t *w)
{
    size_t out = 0, in = 0;
    for (int p = 0; p < t->size; p++)
        out += a->scounts[p], in += a->rcounts[p];
    char *tmp = malloc((out > in ? out : in) + 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    size_t at = 0;
    for (int m = 0; m < t->nnodes; m++)
        for (int i = t->node_first[m]; i < t->node_first[m + 1]; i++) {
            int dst = t->node_ranks[i];
            if (a->scounts[dst])
                memcpy(tmp + at, a->sbuf + a->sdispls[dst], a->scounts[dst]);
            at += a->scounts[dst];
        }
    pc_copy_charge(out);
    int rc = move(t, w, 1, tmp, out, 0);
    if (rc == MPI_SUCCESS)
        rc = move(t, w, 0, tmp, in, 0);
    if (rc == MPI_SUCCESS) {
        at = 0;
        for (int p = 0; p < t->size; p++) {
            if (a->rcounts[p])
                memcpy(a->rbuf + a->rdispls[p], tmp + at, a->rcounts[p]);
            at += a->rcounts[p];
        }
        pc_copy_charge(in);
    }
    free(tmp);
    return rc;
}

static int leaders_exchange(pacoll_team_t *t, const layout_t *x, char *area);

/* The leader: the node's area in its own memory, filled from every local
 * rank's message (placed as copy_in would), the leaders' exchange, and each
 * local rank's blocks sent back.  rows: a copy of the sizes area. */
static int private_leader(pacoll_team_t *t, const pc_args_t *a, pc_wait_t *w, const layout_t *x,
                          const char *rows)
{
    int L = t->local_size, nn = t->nnodes;
    char *area = malloc(x->total_send + x->total_recv);
    size_t most = 0;
    for (int i = 1; i < L; i++) {
        size_t out = 0, in = 0;
        const uint64_t *r = row_c(t, rows, i);
        for (int m = 0; m < nn; m++)
            out += r[m];
        for (int p = 0; p < t->size; p++)
            in += r[nn + p];
        most = out > most ? out : most;
        most = in > most ? in : most;
    }
    char *tmp = malloc(most + 1);
    int rc = area && tmp ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        copy_in(t, a, x, area);
    for (int i = 1; i < L && rc == MPI_SUCCESS; i++) { /* in */
        layout_t xi;
        const uint64_t *r = row_c(t, rows, i);
        size_t out = 0, at = 0;
        for (int m = 0; m < nn; m++)
            out += r[m];
        rc = layout_alloc(&xi, nn, t->size);
        if (rc == MPI_SUCCESS)
            rc = compute_layout(t, rows, &xi, i);
        if (rc == MPI_SUCCESS)
            rc = move(t, w, 0, tmp, out, i);
        for (int m = 0; m < nn && rc == MPI_SUCCESS; m++) {
            memcpy(area + xi.my_send[m], tmp + at, r[m]);
            at += r[m];
        }
        pc_copy_charge(out);
        layout_free(&xi);
    }
    if (rc == MPI_SUCCESS && nn > 1)
        rc = leaders_exchange(t, x, area);
    for (int i = 1; i < L && rc == MPI_SUCCESS; i++) { /* out */
        layout_t xi;
        const uint64_t *r = row_c(t, rows, i);
        size_t at = 0;
        rc = layout_alloc(&xi, nn, t->size);
        if (rc == MPI_SUCCESS)
            rc = compute_layout(t, rows, &xi, i);
        for (int p = 0; p < t->size && rc == MPI_SUCCESS; p++) {
            memcpy(tmp + at, area + xi.my_recv[p], r[nn + p]);
            at += r[nn + p];
        }
        pc_copy_charge(at);
        if (rc == MPI_SUCCESS)
            rc = move(t, w, 1, tmp, at, i);
        layout_free(&xi);
    }
    if (rc == MPI_SUCCESS)
        copy_out(t, a, x, area);
    free(tmp), free(area);
    return rc;
}

/* The leaders' SLOAV on the node partitions in the segment. */
static int leaders_exchange(pacoll_team_t *t, const layout_t *x, char *area)
{
    int err = MPI_SUCCESS;
    pacoll_team_t *lt = pc_team_get(t->leader_comm, &err);
    if (!lt)
        return err;
    lt->parent = t;
    if (lt->size != t->nnodes || lt->rank != t->node) {
        pc_log("alltoallv sloavx: leader team rank %d of %d, expected node %d of %d", lt->rank,
               lt->size, t->node, t->nnodes);
        return MPI_ERR_INTERN;
    }
    size_t *sc = calloc(2 * (size_t)x->nn, sizeof *sc);
    if (!sc)
        return MPI_ERR_NO_MEM;
    size_t *rc = sc + x->nn;
    for (int m = 0; m < x->nn; m++)
        if (m != t->node)
            sc[m] = x->send_part[m], rc[m] = x->recv_part[m];
    pc_args_t la = {.coll = PACOLL_ALLTOALLV, .sbuf = area, .rbuf = area + x->total_send,
                    .scounts = sc, .sdispls = x->send_off, .rcounts = rc, .rdispls = x->recv_off};
    err = pc_sloav_exchange(lt, "alltoallv sloavx (leaders)", &la,
                            (int)pc_param(&t->cfg, &pc_param_sloav_radix),
                            (size_t)pc_param(&t->cfg, &pc_param_sloav_linear));
    free(sc);
    return err;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    pc_wait_t w;
    pc_wait_init(&w, &t->chan, "alltoallv sloavx");
    layout_t x;
    int rc = layout_alloc(&x, t->nnodes, t->size);
    pc_seg_op_t op;
    /* 1. sizes */
    size_t sizes = (size_t)t->local_size * row_words(t) * 8;
    if (rc == MPI_SUCCESS)
        rc = pc_seg_begin(&t->seg, sizes, &w, &op);
    if (rc != MPI_SUCCESS) {
        layout_free(&x);
        return rc;
    }
    write_row(t, a, op.buf);
    pc_seg_post(&op);
    rc = pc_seg_wait_all_posts(&op);
    if (rc == MPI_SUCCESS)
        rc = compute_layout(t, op.buf, &x, t->local_rank);
    /* Whether the segment can hold the call: every local process computed
     * the same total, so the node decides alone (the private path). */
    size_t bytes = x.total_send + x.total_recv;
    int fits = rc != MPI_SUCCESS || pc_seg_fits_node(&t->seg, bytes);
    char *rows = NULL;
    if (!fits && t->local_rank == 0 && (rows = malloc(sizes)) != NULL)
        memcpy(rows, op.buf, sizes);
    pc_seg_end(&op);
    if (!fits) {
        if (t->cfg.chan.verbose && t->local_rank == 0)
            pc_log("alltoallv sloavx: node %d's %zu bytes do not fit its segment: through the "
                   "leader's memory", t->node, bytes);
        if (t->local_rank != 0)
            rc = private_member(t, a, &w);
        else
            rc = rows ? private_leader(t, a, &w, &x, rows) : MPI_ERR_NO_MEM;
        free(rows);
        layout_free(&x);
        return rc;
    }
    /* 2. data in, the leaders' exchange (the segment may grow here: every
     *    local process computed the same total). */
    if (rc == MPI_SUCCESS)
        rc = pc_seg_begin(&t->seg, bytes, &w, &op);
    if (rc != MPI_SUCCESS) {
        layout_free(&x);
        return rc;
    }
    copy_in(t, a, &x, op.buf);
    pc_seg_post(&op);
    if (t->local_rank == 0) {
        rc = pc_seg_wait_all_posts(&op);
        if (rc == MPI_SUCCESS && t->nnodes > 1)
            rc = leaders_exchange(t, &x, op.buf);
        pc_charge_settle(); /* the copies' time passes before the flag is seen */
    }
    pc_seg_end(&op);
    /* 3. out: this operation starts once the leader is done with the last */
    int rc2 = pc_seg_begin(&t->seg, bytes, &w, &op);
    if (rc2 == MPI_SUCCESS) {
        copy_out(t, a, &x, op.buf);
        pc_seg_end(&op);
    }
    layout_free(&x);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    double L = ctx->ppn_max > 0 ? ctx->ppn_max : 1;
    double in_out = 3 * ctx->alpha_shm + 2.0 * ctx->p * (double)m * ctx->beta_shm;
    size_t part = (size_t)(L * L * (double)m);
    return in_out + pc_sloav_model(ctx->nnodes, PC_SLOAV_RADIX_DEFAULT, ctx->ports, part,
                                   ctx->alpha, ctx->beta, ctx->beta_shm);
}

const pacoll_algo_t pc_alltoallv_sloavx = {
    .name = "sloavx",
    .coll = PACOLL_ALLTOALLV,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "sloavx-logarithmic-alltoallv §IV",
    .summary = "SLOAVx: node leaders gather through shared memory, run SLOAV on node partitions, processes read their blocks from shared memory",
    .run = run,
    .cost = cost,
    .params = pc_sloav_params,
};
