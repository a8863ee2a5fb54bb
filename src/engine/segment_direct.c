/* The shared-memory-aware (and arrival-aware) Direct exchange: see
 * segment_direct.h for the three phases.
 *
 * Segment layouts (m bytes per block, N ranks, L_n ranks on node n, F_n =
 * t->node_first[n] = the ranks on nodes before n, "me" = my node):
 *   alltoall   S = [dest node d][my local i][d's local j]  at (F_d L_me + i L_d + j) m
 *              R = [src node s][s's local i][my local j]   at (F_s L_me + i L_me + j) m
 *              (S's chunk for node d is exactly R's chunk from node me on
 *              node d, so a master's write is one contiguous block; my
 *              own node's blocks are read from S directly)
 *   allgather  G = [node s][s's local i]                    at (F_s + i) m
 *              (phase 1 fills my node's chunk; the masters fill the rest)
 */
#include "engine/segment_direct.h"

#include <math.h>

typedef struct node_x {
    pc_layout_t x; /* first: the layout callbacks get a pointer to it */
    pc_args_t seg; /* the masters' exchange: sbuf and rbuf in the segment */
    pacoll_team_t *t;
    const pc_args_t *a; /* the user's call */
    pc_seg_op_t op;
    pc_wait_t w;
    char *S, *R;           /* alltoall regions; allgather: both = G */
    unsigned char *copied; /* [nnodes]: that node's blocks are in my rbuf */
} node_x_t;

static inline int nsize(const pacoll_team_t *t, int n) { return t->node_first[n + 1] - t->node_first[n]; }
static inline int master_of(const pacoll_team_t *t, int n) { return t->node_ranks[t->node_first[n]]; }

/* Copies, merging consecutive blocks into one pc_copy. */
typedef struct run {
    char *dst;
    const char *src;
    size_t n;
} run_t;

static void run_flush(run_t *r)
{
    if (r->n)
        pc_copy(r->dst, r->src, r->n);
    r->n = 0;
}

static void run_add(run_t *r, char *dst, const char *src, size_t n)
{
    if (r->n && r->dst + r->n == dst && r->src + r->n == src) {
        r->n += n;
        return;
    }
    run_flush(r);
    *r = (run_t){dst, src, n};
}

/* ------------------------------------------- the masters' layouts (phase 2) */

/* Node of peer when both peer and I are masters of different nodes, else -1. */
static int master_peer(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    if (t->local_rank != 0 || t->local_of[peer] != 0 || t->node_of[peer] == t->node)
        return -1;
    return t->node_of[peer];
}

static size_t a2a_count(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    int n = master_peer(x, peer);
    return n < 0 ? 0 : (size_t)t->local_size * (size_t)nsize(t, n) * x->a->m;
}

static size_t a2a_disp(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    return (size_t)t->node_first[t->node_of[peer]] * (size_t)t->local_size * x->a->m;
}

static size_t ag_send_count(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    return master_peer(x, peer) < 0 ? 0 : (size_t)t->local_size * x->a->m;
}

static size_t ag_send_disp(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    return PC_UNUSED(peer), (size_t)t->node_first[t->node] * x->a->m;
}

static size_t ag_recv_count(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    int n = master_peer(x, peer);
    return n < 0 ? 0 : (size_t)nsize(t, n) * x->a->m;
}

static size_t ag_recv_disp(const pc_layout_t *x, int peer)
{
    const pacoll_team_t *t = ((const node_x_t *)x)->t;
    return (size_t)t->node_first[t->node_of[peer]] * x->a->m;
}

/* ------------------------------------------------------------ phase 1 */

static void gather_in(node_x_t *s)
{
    const pacoll_team_t *t = s->t;
    size_t m = s->a->m, L = (size_t)t->local_size, i = (size_t)t->local_rank;
    run_t r = {NULL, NULL, 0};
    if (s->a->coll == PACOLL_ALLGATHER) {
        pc_copy(s->S + ((size_t)t->node_first[t->node] + i) * m, s->a->sbuf, m);
        return;
    }
    for (int q = 0; q < t->size; q++) {
        int d = t->node_of[q];
        size_t at = (size_t)t->node_first[d] * L + i * (size_t)nsize(t, d) + (size_t)t->local_of[q];
        run_add(&r, s->S + at * m, s->a->sbuf + (size_t)q * m, m);
    }
    run_flush(&r);
}

/* ------------------------------------------------------------ phase 3 */

/* Copies node n's blocks for me out of the segment into my receive buffer. */
static void copy_out(node_x_t *s, int n)
{
    const pacoll_team_t *t = s->t;
    size_t m = s->a->m, L = (size_t)t->local_size, j = (size_t)t->local_rank;
    size_t F = (size_t)t->node_first[n];
    run_t r = {NULL, NULL, 0};
    for (int i = 0; i < nsize(t, n); i++) {
        int q = t->node_ranks[F + (size_t)i];
        const char *from;
        if (s->a->coll == PACOLL_ALLGATHER)
            from = s->S + (F + (size_t)i) * m;
        else /* my node's blocks are still in S, in the same order as R */
            from = (n == t->node ? s->S : s->R) + (F * L + (size_t)i * L + j) * m;
        run_add(&r, s->a->rbuf + (size_t)q * m, from, m);
    }
    run_flush(&r);
    s->copied[n] = 1;
}

static int node_ready(node_x_t *s, int n)
{
    if (n != s->t->node)
        return pc_seg_remote_posted(&s->op, n);
    for (int i = 0; i < s->t->local_size; i++)
        if (i != s->t->local_rank && !pc_seg_posted(&s->op, i))
            return 0;
    return 1;
}

/* Takes every node's data as soon as it is there, in whatever order. */
static int scatter_out(node_x_t *s)
{
    pacoll_team_t *t = s->t;
    int left = 0;
    for (int n = 0; n < t->nnodes; n++)
        left += !s->copied[n];
    pc_wait_new_condition(&s->w);
    while (left > 0) {
        int moved = 0, pending = -1;
        for (int k = 0; k < t->nnodes; k++) {
            int n = (t->node + k) % t->nnodes;
            if (s->copied[n])
                continue;
            if (!node_ready(s, n)) {
                pending = master_of(t, n);
                continue;
            }
            copy_out(s, n);
            left--, moved = 1;
        }
        if (moved) {
            pc_wait_new_condition(&s->w);
        } else {
            int rc = pc_wait_poll(&s->w, pending);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

/* ----------------------------------------------------- the master's hooks */

static int wait_locals(void *ctx)
{
    node_x_t *s = ctx;
    return pc_seg_wait_all_posts(&s->op);
}

/* pap-aware §4.4: one done flag per remote master, raised as soon as that
 * node's data is in the segment; then the master takes its own share. */
static void landed(void *ctx, int src)
{
    node_x_t *s = ctx;
    int n = s->t->node_of[src];
    pc_seg_post_remote(&s->op, n);
    copy_out(s, n);
}

/* ------------------------------------------------------------- driver */

static size_t segment_bytes(const pacoll_team_t *t, const pc_args_t *a, int local_size)
{
    size_t blocks = (size_t)t->size * (a->coll == PACOLL_ALLTOALL ? 2 * (size_t)local_size : 1);
    return a->m > SIZE_MAX / blocks ? SIZE_MAX : blocks * a->m;
}

/* Teams of one rank per node, and calls whose segment would exceed
 * PACOLL_SHM_MAX or some host's room (pc_seg_fits), run the Direct exchange
 * (the same choice on every rank). */
static int use_direct(pacoll_team_t *t, const pc_args_t *a)
{
    return t->ppn_max == 1 || !pc_seg_fits(&t->seg, segment_bytes(t, a, t->ppn_max));
}

static int run_direct(pacoll_team_t *t, const pc_args_t *a, int pap, const char *what)
{
    pc_layout_t x;
    if (a->coll == PACOLL_ALLTOALL)
        pc_layout_alltoall(&x, a, t->size);
    else
        pc_layout_allgather(&x, a, t->size);
    pc_xopts_t o = pap ? pc_pap_opts(t) : (pc_xopts_t){.pap = 0, .copy_max = SIZE_MAX};
    return pc_direct_run(t, what, &x, &o);
}

static void make_layout(node_x_t *s)
{
    pacoll_team_t *t = s->t;
    size_t P = (size_t)t->size, m = s->a->m;
    s->seg = *s->a;
    s->seg.sbuf = s->S;
    s->seg.rbuf = s->R;
    s->x.a = &s->seg;
    if (s->a->coll == PACOLL_ALLTOALL) {
        s->x.send_count = s->x.recv_count = a2a_count;
        s->x.send_disp = s->x.recv_disp = a2a_disp;
        s->x.recv_span = (size_t)t->local_size * P * m;
    } else {
        s->x.send_count = ag_send_count, s->x.send_disp = ag_send_disp;
        s->x.recv_count = ag_recv_count, s->x.recv_disp = ag_recv_disp;
        s->x.recv_span = P * m;
    }
}

/* Phase 2 on every rank (the non-masters' layout is empty, but every rank
 * must make the same channel calls). */
static int exchange_masters(node_x_t *s, int pap, const char *what)
{
    pacoll_team_t *t = s->t;
    int master = t->local_rank == 0;
    pc_xopts_t o = pap ? pc_pap_opts(t) : (pc_xopts_t){.pap = 0, .copy_max = SIZE_MAX};
    /* A master's block is a whole node's (L^2 m or L m bytes), copied out of
     * the slot by the master alone: past the eager limit, landing it straight
     * in the node segment wins even under skew (measured: docs/PAP.md,
     * "Scheme threshold"), so pap_*'s larger threshold stops at the eager
     * limit. */
    o.past_eager = 0;
    o.ctx = s;
    o.before_send = master ? wait_locals : NULL;
    o.landed = master && pap ? landed : NULL;
    int rc = pc_direct_run(t, what, &s->x, &o);
    if (rc == MPI_SUCCESS && master && !pap) /* Shm_Direct: one flag after all masters */
        for (int n = 0; n < t->nnodes; n++)
            if (n != t->node)
                pc_seg_post_remote(&s->op, n);
    return rc;
}

int pc_segment_direct(pacoll_team_t *t, const pc_args_t *a, int pap, const char *what)
{
    if (use_direct(t, a))
        return run_direct(t, a, pap, what);
    node_x_t s;
    memset(&s, 0, sizeof s);
    s.t = t, s.a = a;
    s.copied = calloc((size_t)t->nnodes, 1);
    if (!s.copied)
        return MPI_ERR_NO_MEM;
    pc_wait_init(&s.w, &t->chan, what);
    int rc = pc_seg_begin(&t->seg, segment_bytes(t, a, t->local_size), &s.w, &s.op);
    if (rc != MPI_SUCCESS) {
        free(s.copied);
        return rc;
    }
    s.S = s.op.buf;
    s.R = a->coll == PACOLL_ALLTOALL ? s.S + (size_t)t->local_size * (size_t)t->size * a->m : s.S;
    make_layout(&s);

    gather_in(&s); /* phase 1 */
    pc_seg_post(&s.op);
    if (t->nnodes > 1)
        rc = exchange_masters(&s, pap, what); /* phase 2 */
    if (rc == MPI_SUCCESS)
        rc = scatter_out(&s); /* phase 3 */
    pc_seg_end(&s.op);
    free(s.copied);
    return rc;
}

/* ------------------------------------------------------------- costs */

static double master_steps(const pc_cost_ctx_t *ctx)
{
    return ceil((double)(ctx->nnodes - 1) / (double)(ctx->ports > 0 ? ctx->ports : 1));
}

double pc_segment_direct_alltoall_cost(const pc_cost_ctx_t *ctx, size_t m)
{
    if (ctx->ppn_max <= 1)
        return pc_direct_cost(ctx, m);
    double L = ctx->ppn_max, shm = ctx->alpha_shm + (double)ctx->p * (double)m * ctx->beta_shm;
    return 2 * shm + master_steps(ctx) * (ctx->alpha + L * L * (double)m * ctx->beta);
}

double pc_segment_direct_allgather_cost(const pc_cost_ctx_t *ctx, size_t m)
{
    if (ctx->ppn_max <= 1)
        return pc_direct_cost(ctx, m);
    double L = ctx->ppn_max;
    return (ctx->alpha_shm + (double)m * ctx->beta_shm) +
           (ctx->alpha_shm + (double)ctx->p * (double)m * ctx->beta_shm) +
           master_steps(ctx) * (ctx->alpha + L * (double)m * ctx->beta);
}
