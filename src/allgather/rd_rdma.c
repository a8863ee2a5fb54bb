/*
 * allgather "rd_rdma": recursive doubling straight on the one-sided channel,
 * switching from copy-based to zero-copy as the exchanged size grows.
 *
 * Source: rdma-allgather-infiniband §4.2 (RDMA-based recursive doubling,
 * "Collective Buffer", "Back-to-back buffers"), §3.3-3.4 (one address
 * exchange and one registration per call), §2.3 eq. (1).
 *
 * Mapping onto pacoll's channel (src/channel/channel.h):
 *   - step k (distance d = 2^(k-1)) exchanges the d blocks a rank has
 *     gathered so far with partner rank ^ d: 2^(k-1) m bytes each way;
 *   - a step of at most M_T bytes (PACOLL_RD_THRESHOLD, capped by the eager
 *     slot) goes copy-based: pc_eager_put into the partner's slot of this
 *     call (the pre-registered "collective buffer", three generations cycled
 *     by the channel = §4.2's back-to-back buffers), and the receiver copies
 *     it into its receive buffer at the end of the step, so a later
 *     zero-copy step can send straight from the receive buffer;
 *   - a larger step goes zero-copy: pc_zput into the partner's receive
 *     buffer at the blocks' own offset.  Every rank registers its whole
 *     receive buffer ONCE per call (pc_expose_begin, through the
 *     registration cache) and advertises it at call start to each partner
 *     that will write into it zero-copy (at most log2 N + 1 advertisements,
 *     one per partner, never one per step of a rendezvous protocol);
 *   - a step's puts are flushed before the rank waits for its own receive
 *     (the partner waits on their flags), and pc_call_end completes every
 *     put before the call returns (§4.2: "wait for all the sends").
 *
 * Non-power-of-two N ("fold"; the paper is silent): let p2 be the largest
 * power of two <= N and e = N - p2.  Rank p2+i (i < e) first gives its block
 * to rank i, the p2 ranks run recursive doubling (rank i then carries
 * blocks i and p2+i, so a group's data is two contiguous ranges of the
 * receive buffer: two zputs, or one packed eager message), and at the end
 * rank i writes the result into rank p2+i (zero-copy: all but p2+i's own
 * block, in two writes; copy-based: the whole buffer in one message).  Every block still lands
 * once in its final place, no rotation or temporary buffer; what it costs
 * is two more latencies and one more full buffer for the e extra ranks:
 *
 * Cost (Hockney, m bytes per block, alpha/beta per message/byte):
 *     N power of two:  T = log2(N) alpha + (N-1) m beta
 *     otherwise:       T = (log2(p2) + 2) alpha + 2N m beta   (upper bound:
 *                      the first step m beta, the doubling (N-1) m beta at
 *                      most, the final write N m beta)
 * plus, for the copy-based steps, one copy of the step's bytes out of the
 * slot (bounded by 2 M_T per call).
 */
#include "channel/channel.h"
#include "core/team.h"

#include <math.h>

typedef struct rd_plan {
    pc_call_t c;
    char *rbuf;
    size_t m;        /* bytes per block */
    size_t thr;      /* M_T */
    int n, rank;
    int p2, extra;   /* largest power of two <= n, n - p2 */
    char *pack;      /* non-power-of-two copy-based steps: two ranges packed */
} rd_plan_t;

/* How many blocks of the upper range ([p2, n)) the group of RD ranks
 * [base, base+d) carries: those of the extra ranks p2+base .. p2+base+d-1. */
static int upper_count(const rd_plan_t *p, int base, int d)
{
    int k = p->extra - base;
    return k < 0 ? 0 : k > d ? d : k;
}

/* Bytes the group [base, base+d) sends in one step. */
static size_t group_bytes(const rd_plan_t *p, int base, int d)
{
    return (size_t)(d + upper_count(p, base, d)) * p->m;
}

/* Copy-based or zero-copy: both ends of a transfer know n and ask the same
 * question (pc_eager_fits answers the same on both sides). */
static int copy_based(const rd_plan_t *p, int peer, size_t n)
{
    return n <= p->thr && pc_eager_fits(&p->c, peer, n);
}

/* ----------------------------------------------------------- receiving */

/* Registers the receive buffer once and advertises it whole to every
 * partner that will write into it zero-copy.  Done first, so no sender
 * ever waits long for an address. */
static int expose(rd_plan_t *p)
{
    int from[64 + 2], nfrom = 0, any_window = 0;
    size_t all = (size_t)p->n * p->m;
    if (p->rank >= p->p2) { /* extra rank: only the final result comes in */
        int i = p->rank - p->p2;
        if (!copy_based(p, i, all))
            from[nfrom++] = i;
    } else {
        if (p->rank < p->extra && !copy_based(p, p->p2 + p->rank, p->m))
            from[nfrom++] = p->p2 + p->rank;
        for (int d = 1; d < p->p2; d <<= 1) {
            int j = p->rank ^ d;
            if (!copy_based(p, j, group_bytes(p, j & ~(d - 1), d)))
                from[nfrom++] = j;
        }
    }
    if (nfrom == 0)
        return MPI_SUCCESS;
    for (int k = 0; k < nfrom; k++)
        any_window |= pc_needs_window(&p->c, from[k]);
    int rc = pc_expose_begin(&p->c, p->rbuf, all, any_window);
    for (int k = 0; k < nfrom && rc == MPI_SUCCESS; k++)
        rc = pc_advertise(&p->c, from[k], p->rbuf, all);
    return rc == MPI_SUCCESS ? pc_expose_end(&p->c) : rc;
}

/* Receives the group [base, base+d)'s blocks from peer: zero-copy, they are
 * in place once its puts are counted; copy-based, they are copied out of
 * the slot now (the paper's "copy at the end of each step"). */
static int recv_group(rd_plan_t *p, int peer, int base, int d)
{
    size_t lo = (size_t)d * p->m, hi = (size_t)upper_count(p, base, d) * p->m;
    if (!copy_based(p, peer, lo + hi))
        return pc_done_wait(&p->c, peer, hi ? 2 : 1);
    const char *data;
    int rc = pc_eager_wait(&p->c, peer, lo + hi, (const void **)&data);
    if (rc != MPI_SUCCESS)
        return rc;
    pc_copy(p->rbuf + (size_t)base * p->m, data, lo);
    if (hi)
        pc_copy(p->rbuf + (size_t)(p->p2 + base) * p->m, data + lo, hi);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- sending */

/* Sends the group [base, base+d)'s blocks, already in my receive buffer,
 * to the same places of peer's, and flushes them: peer is waiting. */
static int send_group(rd_plan_t *p, int peer, int base, int d)
{
    size_t lo = (size_t)d * p->m, hi = (size_t)upper_count(p, base, d) * p->m;
    size_t lo_off = (size_t)base * p->m, hi_off = (size_t)(p->p2 + base) * p->m;
    int rc;
    if (copy_based(p, peer, lo + hi)) {
        const char *src = p->rbuf + lo_off;
        if (hi) { /* one eager message per pair and call: pack both ranges */
            pc_copy(p->pack, p->rbuf + lo_off, lo);
            pc_copy(p->pack + lo, p->rbuf + hi_off, hi);
            src = p->pack;
        }
        rc = pc_eager_put(&p->c, peer, src, lo + hi);
    } else {
        pc_remote_t rem;
        rc = pc_adv_wait(&p->c, peer, &rem);
        if (rc == MPI_SUCCESS)
            rc = pc_zput(&p->c, peer, &rem, lo_off, p->rbuf + lo_off, lo);
        if (rc == MPI_SUCCESS && hi)
            rc = pc_zput(&p->c, peer, &rem, hi_off, p->rbuf + hi_off, hi);
    }
    return rc == MPI_SUCCESS ? pc_flush(&p->c) : rc;
}

/* -------------------------------------------------------------- phases */

/* The doubling among ranks [0, p2): after step d every rank holds the
 * blocks of its aligned group of 2d ranks. */
static int doubling(rd_plan_t *p)
{
    for (int d = 1; d < p->p2; d <<= 1) {
        int j = p->rank ^ d;
        int rc = send_group(p, j, p->rank & ~(d - 1), d);
        if (rc == MPI_SUCCESS)
            rc = recv_group(p, j, j & ~(d - 1), d);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Rank p2+i: hands its block to rank i, then receives everything from it. */
static int run_extra(rd_plan_t *p)
{
    int i = p->rank - p->p2;
    size_t all = (size_t)p->n * p->m, own = (size_t)p->rank * p->m;
    int rc;
    if (copy_based(p, i, p->m)) {
        rc = pc_eager_put(&p->c, i, p->rbuf + own, p->m);
    } else {
        pc_remote_t rem;
        rc = pc_adv_wait(&p->c, i, &rem);
        if (rc == MPI_SUCCESS)
            rc = pc_zput(&p->c, i, &rem, own, p->rbuf + own, p->m);
    }
    if (rc == MPI_SUCCESS)
        rc = pc_flush(&p->c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!copy_based(p, i, all)) /* all but my block, in one or two writes */
        return pc_done_wait(&p->c, i, p->rank == p->n - 1 ? 1 : 2);
    const void *data;
    rc = pc_eager_wait(&p->c, i, all, &data);
    if (rc == MPI_SUCCESS) /* my own block is in it too, the same bytes */
        pc_copy(p->rbuf, data, all);
    return rc;
}

/* Rank i < p2: takes the block of p2+i (if any), doubles, gives p2+i all. */
static int run_doubler(rd_plan_t *p)
{
    int x = p->p2 + p->rank, rc = MPI_SUCCESS;
    size_t all = (size_t)p->n * p->m;
    if (p->rank < p->extra) {
        if (copy_based(p, x, p->m)) {
            const void *data;
            rc = pc_eager_wait(&p->c, x, p->m, &data);
            if (rc == MPI_SUCCESS)
                pc_copy(p->rbuf + (size_t)x * p->m, data, p->m);
        } else {
            rc = pc_done_wait(&p->c, x, 1);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = doubling(p);
    if (rc != MPI_SUCCESS || p->rank >= p->extra)
        return rc;
    if (copy_based(p, x, all))
        return pc_eager_put(&p->c, x, p->rbuf, all);
    /* Zero-copy: everything but x's own block, so two writes (the second
     * empty when x is the last rank). */
    pc_remote_t rem;
    size_t own = (size_t)x * p->m, after = own + p->m;
    rc = pc_adv_wait(&p->c, x, &rem);
    if (rc == MPI_SUCCESS)
        rc = pc_zput(&p->c, x, &rem, 0, p->rbuf, own);
    if (rc == MPI_SUCCESS && after < all)
        rc = pc_zput(&p->c, x, &rem, after, p->rbuf + after, all - after);
    return rc;
}

/* rdma-allgather §4.2's M_T: steps exchanging at most this many bytes go
 * copy-based (measured: docs/RDMA_ALLGATHER.md); the eager slot caps it. */
static const pc_param_t p_threshold = {
    .env = "PACOLL_RD_THRESHOLD",
    .kind = PC_PARAM_SIZE,
    .dflt = 4096,
    .lo = 0,
    .hi = 0x1p63,
    .help = "rd_rdma: steps up to this many bytes go copy-based (M_T)",
};
static const pc_param_t *const rd_params[] = {&p_threshold, NULL};

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    rd_plan_t p = {.rbuf = a->rbuf, .m = a->m, .thr = (size_t)pc_param(&t->cfg, &p_threshold), .n = t->size,
                   .rank = t->rank, .p2 = 1, .pack = NULL};
    while (p.p2 * 2 <= p.n)
        p.p2 *= 2;
    p.extra = p.n - p.p2;
    if (p.extra > 0 && p.rank < p.p2 && p.thr > 0) {
        /* Groups holding extra blocks pack two ranges into one eager
         * message of at most one slot (and M_T). */
        size_t eager = pc_eager_largest(&t->chan);
        size_t cap = p.thr < eager ? p.thr : eager;
        if (cap > (size_t)p.n * p.m)
            cap = (size_t)p.n * p.m;
        p.pack = malloc(cap);
        if (!p.pack)
            return MPI_ERR_NO_MEM;
    }
    pc_call_begin(&p.c, &t->chan, "allgather rd_rdma");
    int rc = expose(&p);
    /* My block into its place: every send goes from the receive buffer. */
    pc_copy_own(p.rbuf + (size_t)p.rank * p.m, a->sbuf, p.m);
    if (rc == MPI_SUCCESS)
        rc = p.rank >= p.p2 ? run_extra(&p) : run_doubler(&p);
    if (rc == MPI_SUCCESS && p.m > 0) /* every rank's block reached me */
        pc_call_all_arrived(&p.c);
    int rc2 = pc_call_end(&p.c);
    free(p.pack);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int p2 = 1, lg = 0;
    while (p2 * 2 <= ctx->p)
        p2 *= 2, lg++;
    double bytes = (double)m * (double)(ctx->p - 1);
    if (p2 == ctx->p)
        return lg * ctx->alpha + bytes * ctx->beta;
    return (lg + 2) * ctx->alpha + (bytes + (double)m * (double)(ctx->p + 1)) * ctx->beta;
}

const pacoll_algo_t pc_allgather_rd_rdma = {
    .name = "rd_rdma",
    .coll = PACOLL_ALLGATHER,
    .needs = PACOLL_NEEDS_RMA,
    .source = "rdma-allgather-infiniband §4.2 (recursive doubling over RDMA, copy to zero-copy switch)",
    .summary = "recursive doubling; steps <= PACOLL_RD_THRESHOLD copy-based, larger zero-copy; lg(N)a+(N-1)mb",
    .run = run,
    .cost = cost,
    .params = rd_params,
    .nonblocking = 1,
};
