/*
 * alltoall "multileader": the proposed design of the multicore slides
 * ("Proposed design", Kumar, Mamidala, Panda, "Scaling alltoall collective
 * on multi-core systems"): every core drives the network, and each core
 * talks to exactly one core of every other node.
 *
 *   step 1  inside each node, through shared memory, core j collects
 *           everything its node sends to core j of every node;
 *   step 2  core j runs an alltoall with core j of every other node (one
 *           "lane" per local index), sending each of them L_A blocks in one
 *           message;
 *   step 3  (redistribution) is not needed: lane j's message from node B is
 *           exactly what core j of A must receive, so it lands in place.
 *
 * Mapping onto pacoll:
 *   - Step 1 is one node-segment operation: local rank i writes its block for
 *     rank (B, j) at  lane j's region + B L_A m + i m  and posts; each core
 *     waits for all posts and sends its lane's region from the segment
 *     (no copy out).
 *   - Step 2 runs on the lane's sub-team (lane communicators and sub-teams
 *     made once per team, on the first call, below) with the algorithm
 *     PACOLL_LEADER_ALG names (default direct).  The lane writes straight
 *     into the receive buffer at  node_first[B] m + i_B m  (nodes' ranks in
 *     node order), which is the user's order when every node's ranks are a
 *     consecutive block; otherwise into a scratch buffer, then one permuting
 *     copy (the "step 3" of non-consecutive placement).
 *   - Uneven nodes: lane l has one member on every node A, the rank of local
 *     index l mod L_A.  Where A has a core l it is that core; where it has
 *     fewer cores, a carrier stands in and only sends (A's data for cores l
 *     of the other nodes); nobody sends to it, as A has no core l.  So every
 *     lane is an alltoallv (node B gets L_A m bytes if it has a core l, else
 *     nothing), and a core of a small node carries ceil(Lmax / L_A) lanes in
 *     turn, in ascending order (deadlock-free: see make_lanes).  Cost of the
 *     choice: the small node's cores send Lmax / L_A times as many messages
 *     as the others (the bytes are the same as any scheme must send), and
 *     one split per lane at set-up instead of one.
 *
 * Cost (Hockney, N nodes of L ranks, P = N L, k ports, m bytes per block):
 *     T = alpha_shm + P m beta_shm + c ceil((N-1)/k) (alpha + L m beta)
 * with c = 1 when the cores' messages proceed in parallel (onload NIC, and
 * the model's default) and c = L when one offload interface serialises the
 * L lanes of a node (PACOLL_NIC=offload).  Against direct's (P-1)
 * messages per core, N-1: per-message costs drop by L.
 */
#include "engine/hier.h"

#include <math.h>

extern const pacoll_algo_t pc_alltoall_direct;

/* ------------------------------------------------------------- lanes */

/* One lane: the ranks that talk to one rank per other node. */
typedef struct lane {
    int index;            /* lane number: local index of its real members */
    MPI_Comm comm;        /* one rank of every node, ordered by node */
    pacoll_team_t *team;  /* the sub-team on comm (owned by comm's attribute) */
} lane_t;

/* The lanes this rank carries (ascending index), kept on the team. */
typedef struct lanes {
    int nlanes;
    lane_t *lane;
    int error; /* the set-up failed (MPI error code): every later call fails too */
} lanes_t;

static const char lanes_key = 0; /* pc_team_ext's key for this file's state */

/* Does this rank carry lane l?  Node A's carrier of lane l is local index
 * l mod L_A: its own core l if A has one, else a core that also carries a
 * lane below L_A (so a small node's cores carry ceil(Lmax / L_A) lanes). */
static int carries(const pacoll_team_t *t, int l) { return l % t->local_size == t->local_rank; }

static int make_lanes(pacoll_team_t *t, lanes_t *h)
{
    int lmax = t->ppn_max;
    h->lane = calloc((size_t)lmax, sizeof *h->lane);
    if (!h->lane)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (pc_team_even(t)) {
        /* Every rank carries exactly its own lane: one split. */
        h->lane[0].index = t->local_rank;
        rc = PMPI_Comm_split(t->comm, t->local_rank, t->node, &h->lane[0].comm);
        h->nlanes = rc == MPI_SUCCESS;
    } else {
        /* A carrier is in several lanes and a split gives one communicator
         * per call: one split per lane (once per team). */
        for (int l = 0; l < lmax && rc == MPI_SUCCESS; l++) {
            MPI_Comm c = MPI_COMM_NULL;
            rc = PMPI_Comm_split(t->comm, carries(t, l) ? 0 : MPI_UNDEFINED, t->node, &c);
            if (rc == MPI_SUCCESS && c != MPI_COMM_NULL)
                h->lane[h->nlanes].index = l, h->lane[h->nlanes++].comm = c;
        }
    }
    /* Sub-teams in ascending lane order: a member of lanes l < l' finishes
     * l before it enters l', so every lane's members all arrive (by
     * induction on l) and the collective set-ups cannot deadlock. */
    for (int i = 0; i < h->nlanes && rc == MPI_SUCCESS; i++) {
        h->lane[i].team = pc_team_get(h->lane[i].comm, &rc);
        if (rc == MPI_SUCCESS)
            h->lane[i].team->parent = t; /* a rejection on t reaches a lane's waits */
        if (rc == MPI_SUCCESS && h->lane[i].team->rank != t->node) {
            pc_log("multileader: lane %d has rank %d for node %d", h->lane[i].index,
                   h->lane[i].team->rank, t->node);
            rc = MPI_ERR_INTERN;
        }
    }
    return rc;
}

/* With the team: ascending order again, freeing a lane's communicator
 * frees its sub-team, collectively over the lane (see make_lanes); local:
 * MPI is gone, memory only. */
static void lanes_free(pacoll_team_t *t, void *obj, int local)
{
    lanes_t *h = obj;
    PC_UNUSED(t);
    for (int i = 0; !local && i < h->nlanes; i++)
        if (h->lane[i].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&h->lane[i].comm);
    free(h->lane);
    free(h);
}

/* The lanes of this team, made on first use (collective over the team) and
 * kept until the team is freed. */
static const lanes_t *get_lanes(pacoll_team_t *t, int *err)
{
    lanes_t *h = pc_team_ext(t, &lanes_key);
    if (h) {
        *err = h->error;
        return *err == MPI_SUCCESS ? h : NULL;
    }
    h = calloc(1, sizeof *h);
    *err = h ? pc_team_ext_set(t, &lanes_key, h, lanes_free) : MPI_ERR_NO_MEM;
    if (*err != MPI_SUCCESS) {
        free(h);
        return NULL;
    }
    /* even half-made: lanes_free undoes what was done */
    *err = h->error = make_lanes(t, h);
    return *err == MPI_SUCCESS ? h : NULL;
}


/* Bytes of one lane's region in the segment: L_A blocks for every node. */
static size_t region(const pacoll_team_t *t, size_t m)
{
    return (size_t)t->nnodes * (size_t)t->local_size * m;
}

static int node_size(const pacoll_team_t *t, int b) { return t->node_first[b + 1] - t->node_first[b]; }

/* Step 1: my block for (B, j) into lane j's region, at (B, me). */
static void pack(const pacoll_team_t *t, const pc_args_t *a, char *area)
{
    const size_t m = a->m, la = (size_t)t->local_size, i = (size_t)t->local_rank;
    pc_run_t run = {0};
    for (int d = 0; d < t->size; d++) {
        char *at = area + (size_t)t->local_of[d] * region(t, m) + ((size_t)t->node_of[d] * la + i) * m;
        pc_run_add(&run, at, a->sbuf + (size_t)d * m, m);
    }
    pc_run_flush(&run);
}

/* Step 2 for lane l: an alltoall(v) with one rank of every node. */
static int lane_exchange(pacoll_team_t *t, const lane_t *lane, const pc_args_t *a,
                         const char *area, char *recv)
{
    const size_t m = a->m, la = (size_t)t->local_size;
    const char *send = area + (size_t)lane->index * region(t, m);
    if (pc_team_even(t)) {
        pc_args_t in = {.coll = PACOLL_ALLTOALL, .sbuf = send, .rbuf = recv, .m = la * m};
        return pc_hier_inner(t, lane->team, &in);
    }
    int n = t->nnodes, real = lane->index == t->local_rank; /* not a stand-in */
    size_t *v = malloc(4 * (size_t)n * sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    for (int b = 0; b < n; b++) {
        v[b] = node_size(t, b) > lane->index ? la * m : 0; /* B has a core l */
        v[n + b] = (size_t)b * la * m;
        v[2 * n + b] = real ? (size_t)node_size(t, b) * m : 0;
        v[3 * n + b] = (size_t)t->node_first[b] * m;
    }
    pc_args_t in = {.coll = PACOLL_ALLTOALLV, .sbuf = send, .rbuf = recv, .scounts = v,
                    .sdispls = v + n, .rcounts = v + 2 * n, .rdispls = v + 3 * n};
    int rc = pc_hier_inner(t, lane->team, &in);
    free(v);
    return rc;
}

/* Node order -> the communicator's order (non-consecutive placement). */
static void permute(const pacoll_team_t *t, const pc_args_t *a, const char *recv)
{
    pc_run_t run = {0};
    for (int k = 0; k < t->size; k++)
        pc_run_add(&run, a->rbuf + (size_t)t->node_ranks[k] * a->m, recv + (size_t)k * a->m, a->m);
    pc_run_flush(&run);
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    const size_t area_bytes = (size_t)t->ppn_max * region(t, a->m);
    /* (the bound every rank computes alike: the largest node's area) */
    if (!pc_seg_fits(&t->seg, (size_t)t->ppn_max * (size_t)t->nnodes * (size_t)t->ppn_max * a->m))
        return pc_alltoall_direct.run(t, a);
    int rc;
    const lanes_t *h = get_lanes(t, &rc);
    if (!h)
        return rc;
    int in_place = pc_team_consecutive(t);
    char *recv = in_place ? a->rbuf : malloc((size_t)t->size * a->m);
    if (!recv)
        return MPI_ERR_NO_MEM;
    pc_wait_t w;
    pc_wait_init(&w, &t->chan, "alltoall multileader");
    pc_seg_op_t op;
    rc = pc_seg_begin(&t->seg, area_bytes, &w, &op);
    if (rc == MPI_SUCCESS) {
        pack(t, a, op.buf);
        pc_seg_post(&op);
        rc = pc_seg_wait_all_posts(&op);
        for (int i = 0; i < h->nlanes && rc == MPI_SUCCESS; i++)
            rc = lane_exchange(t, &h->lane[i], a, op.buf, recv);
        pc_seg_end(&op);
    }
    if (!in_place) {
        if (rc == MPI_SUCCESS)
            permute(t, a, recv);
        free(recv);
    }
    return rc;
}

static double cost(const pc_cost_ctx_t *c, size_t m)
{
    double l = c->ppn_max, n = c->nnodes, k = c->ports > 0 ? c->ports : 1;
    double lanes = c->nic == PC_NIC_OFFLOAD ? l : 1; /* serialised at one interface */
    return c->alpha_shm + c->p * (double)m * c->beta_shm +
           lanes * ceil((n - 1) / k) * (c->alpha + l * (double)m * c->beta);
}

const pacoll_algo_t pc_alltoall_multileader = {
    .name = "multileader",
    .coll = PACOLL_ALLTOALL,
    .needs = PACOLL_NEEDS_RMA | PACOLL_NEEDS_SHM,
    .source = "multicore-aware-alltoall slides, proposed design",
    .summary = "shm exchange so core j holds its node's data for every core j, then one alltoall per lane",
    .run = run,
    .cost = cost,
    .params = (const pc_param_t *const[]){&pc_param_leader_alg, NULL},
};
