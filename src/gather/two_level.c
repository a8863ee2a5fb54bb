/*
 * gather "two_level": the SMP-aware two-level gather.
 *
 * Source: beyond the seeds.  MVAPICH2's two-level gather (its
 * MV2_Gather_intra_node / inter-leader phases; SimGrid SMPI's mvapich2
 * selector runs it, and it is what beat pacoll's flat algorithms at 8 B on
 * 256 ranks); in the seeds' terms, multirail §5.2's SMP-aware
 * idea (gather a node's blocks in shared memory first, one message per
 * node between nodes) applied to the gather of §4.2/§5.1.1.
 *
 *   phase 1  on every node but the root's: each local rank copies its block
 *            into the node segment (in local order) and raises its post
 *            flag; the node's leader (local index 0) waits for the flags.
 *            On the root's node the root itself is the leader: its local
 *            ranks send their blocks straight to it over the channel (eager
 *            slots, or one single-copy write each into the receive buffer),
 *            so no core copies the node's blocks a second time.
 *   phase 2  every other node's leader sends its node block to the root in
 *            one transfer, Direct among the leaders with k ports (the
 *            engine of `direct`): eager when the root's copy-out of every
 *            block costs less than one handshake, as `direct` decides, else
 *            zero-copy from the segment into the receive buffer.
 * The root's receive area is the receive buffer itself when every node's
 * ranks are consecutive (node order = rank order); otherwise a temporary
 * buffer in node order that the root copies to the receive buffer by runs
 * of consecutive ranks.  A root that is not its node's first rank, uneven
 * nodes, and one rank per node (the flat Direct gather) need nothing else.
 * MPI_IN_PLACE at the root: its block already sits in the receive buffer
 * (the copy of it onto itself is skipped).
 *
 * Cost (Hockney, k ports, n nodes of at most L ranks, m bytes per block):
 *     T = a_s + m b_s                        the node gathers, in parallel
 *       + ceil((n-1)/k) (a + L m b)          the leaders' node blocks
 * against Direct's ceil((N-1)/k)(a + m b): (n-1) messages instead of N-1.
 */
#include "engine/direct_engine.h"
#include "engine/hier.h"
#include "gather/direct.h"

#include <math.h>
#include <stdint.h>

#include "select/select.h"

typedef struct two_level {
    pc_layout_t x; /* first: the engine's callbacks get &x */
    const pacoll_team_t *t;
    int root_node;
    size_t m;
} two_level_t;

static const two_level_t *of(const pc_layout_t *x) { return (const two_level_t *)x; }

/* A sender to the root: a leader of another node (its node block), or a
 * rank of the root's node (its own block). */
static int leader_of(const two_level_t *s, int n)
{
    const pacoll_team_t *t = s->t;
    return n == s->root_node ? s->x.a->root : t->node_ranks[t->node_first[n]];
}

static size_t sent_by(const two_level_t *s, int p)
{
    const pacoll_team_t *t = s->t;
    int n = t->node_of[p];
    if (n == s->root_node)
        return s->m;
    if (p != leader_of(s, n))
        return 0;
    return (size_t)(t->node_first[n + 1] - t->node_first[n]) * s->m;
}

/* Where p's transfer goes in the root's area (node order). */
static size_t area_pos(const two_level_t *s, int p)
{
    const pacoll_team_t *t = s->t;
    int n = t->node_of[p];
    return (size_t)(t->node_first[n] + (n == s->root_node ? t->local_of[p] : 0)) * s->m;
}

static size_t to_root(const pc_layout_t *x, int peer)
{
    const two_level_t *s = of(x);
    return peer == x->a->root ? sent_by(s, s->t->rank) : 0;
}
static size_t none(const pc_layout_t *x, int peer) { return PC_UNUSED(x), PC_UNUSED(peer), 0; }
static size_t from(const pc_layout_t *x, int peer) { return sent_by(of(x), peer); }
static size_t at(const pc_layout_t *x, int peer) { return area_pos(of(x), peer); }

/* Blocks the root copies out of its slots rather than receives in place:
 * all of them (every rank's m) where `direct` would copy m out, none above. */
static size_t copy_max(const pacoll_team_t *t, size_t m)
{
    return m <= pc_gather_direct_copy_max(t) ? SIZE_MAX : 0;
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    if (!pc_seg_fits(&t->seg, (size_t)t->ppn_max * a->m)) /* a node block would not fit */
        return pc_gather_direct.run(t, a);
    int me_root = t->rank == a->root, node = t->node;
    int root_node = t->node_of[a->root];
    int use_seg = node != root_node && t->local_size > 1;
    pc_args_t b = *a; /* what the engine sends from and receives into */
    char *tmp = NULL;
    int rc = MPI_SUCCESS;
    if (me_root && !pc_team_consecutive(t)) { /* else the receive buffer is the root's area */
        tmp = malloc((size_t)t->size * a->m + 1);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        b.rbuf = tmp;
    }
    two_level_t s = {.t = t, .root_node = root_node, .m = a->m};
    s.x = (pc_layout_t){.a = &b, .send_count = me_root ? none : to_root, .send_disp = none,
                        .recv_count = me_root ? from : none, .recv_disp = at,
                        .recv_span = me_root ? (size_t)t->size * a->m : 0};
    /* Phase 1: my block into the node segment; the leader waits for all. */
    pc_wait_t w;
    pc_seg_op_t op;
    int leader = t->rank == leader_of(&s, node);
    if (use_seg) {
        pc_wait_init(&w, &t->chan, "gather two_level");
        rc = pc_seg_begin(&t->seg, (size_t)t->local_size * a->m, &w, &op);
        if (rc == MPI_SUCCESS) {
            pc_copy(op.buf + (size_t)t->local_rank * a->m, a->sbuf, a->m);
            pc_seg_post(&op);
            if (leader) {
                rc = pc_seg_wait_all_posts(&op);
                b.sbuf = op.buf;
            } else {
                pc_seg_end(&op);
            }
        }
    }
    /* Phase 2: the leaders' node blocks and the root node's blocks.  Every
     * rank takes part (the channel's calls stay in step); after a failed
     * phase 1 this rank sends nothing. */
    if (rc != MPI_SUCCESS)
        s.x.send_count = none;
    pc_xopts_t o = {.pap = 0, .copy_max = copy_max(t, a->m)};
    int rc2 = pc_direct_run(t, "gather two_level", &s.x, &o);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (use_seg && leader) /* my writes out of the segment are complete */
        pc_seg_end(&op);
    if (tmp) { /* node order to rank order, runs of consecutive ranks at once */
        pc_run_t r = {0};
        for (int i = 0; i < t->size && rc == MPI_SUCCESS; i++)
            pc_run_add(&r, a->rbuf + (size_t)t->node_ranks[i] * a->m, tmp + (size_t)i * a->m,
                       a->m);
        if (rc == MPI_SUCCESS)
            pc_run_flush(&r);
        free(tmp);
    }
    return rc;
}

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    int k = ctx->ports > 0 ? ctx->ports : 1;
    double steps = ceil((double)(ctx->nnodes - 1) / k);
    double node = ctx->ppn_max > 1 ? ctx->alpha_shm + (double)m * ctx->beta_shm : 0.0;
    return node + steps * (ctx->alpha + (double)ctx->ppn_max * (double)m * ctx->beta);
}

const pacoll_algo_t pc_gather_two_level = {
    .name = "two_level",
    .coll = PACOLL_GATHER,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "beyond the seeds: MVAPICH2's two-level gather; multirail §5.2's SMP-aware idea",
    .summary = "shm gather to each node's leader, then Direct from the leaders into the root; "
               "a_s + m b_s + ceil((n-1)/k)(a + L m b)",
    .run = run,
    .cost = cost,
    .params = pc_direct_params,
};
