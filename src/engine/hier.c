/* Sub-teams, lanes, the inner algorithm and PACOLL_NIC: see hier.h. */
#include "engine/hier.h"

#include <limits.h>

#include "select/select.h"

int pc_hier_consecutive(const pacoll_team_t *t)
{
    for (int r = 0; r < t->size; r++)
        if (t->node_ranks[r] != r)
            return 0;
    return 1;
}

/* ------------------------------------------------------------- lanes */

/* Does this rank carry lane l?  Node A's carrier of lane l is local index
 * l mod L_A: its own core l if A has one, else a core that also carries a
 * lane below L_A (so a small node's cores carry ceil(Lmax / L_A) lanes). */
static int carries(const pacoll_team_t *t, int l) { return l % t->local_size == t->local_rank; }

static int make_lanes(pacoll_team_t *t, pc_hier_t *h)
{
    int lmax = t->ppn_max;
    h->lane = calloc((size_t)lmax, sizeof *h->lane);
    if (!h->lane)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (pc_hier_even(t)) {
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

const pc_hier_t *pc_hier_lanes(pacoll_team_t *t, int *err)
{
    *err = t->hier ? t->hier->error : MPI_SUCCESS;
    if (t->hier)
        return *err == MPI_SUCCESS ? t->hier : NULL;
    pc_hier_t *h = calloc(1, sizeof *h);
    if (!h) {
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    t->hier = h; /* even half-made: pc_hier_free undoes what was done */
    *err = h->error = make_lanes(t, h);
    return *err == MPI_SUCCESS ? h : NULL;
}

void pc_hier_free(pacoll_team_t *t)
{
    pc_hier_t *h = t->hier;
    if (!h)
        return;
    /* Ascending order again: freeing a lane's communicator frees its
     * sub-team, collectively over the lane (see make_lanes). */
    for (int i = 0; i < h->nlanes; i++)
        if (h->lane[i].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&h->lane[i].comm);
    pc_hier_free_local(t);
}

void pc_hier_free_local(pacoll_team_t *t)
{
    pc_hier_t *h = t->hier;
    if (!h)
        return;
    free(h->lane);
    free(h);
    t->hier = NULL;
}

/* ----------------------------------------------------- inner algorithm */

static int fits_int(size_t n) { return n <= (size_t)INT_MAX; }

/* The MPI library's own alltoall(v) on the sub-team, in bytes. */
static int run_native(pacoll_team_t *sub, const pc_args_t *a, int *handled)
{
    *handled = 1;
    if (a->coll == PACOLL_ALLTOALL) {
        if (!fits_int(a->m))
            return *handled = 0, MPI_SUCCESS;
        return PMPI_Alltoall(a->sbuf, (int)a->m, MPI_BYTE, a->rbuf, (int)a->m, MPI_BYTE, sub->comm);
    }
    int n = sub->size;
    int *v = malloc(4 * (size_t)n * sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    for (int p = 0; p < n && *handled; p++) {
        *handled = fits_int(a->scounts[p]) && fits_int(a->sdispls[p]) && fits_int(a->rcounts[p]) &&
                   fits_int(a->rdispls[p]);
        v[p] = (int)a->scounts[p], v[n + p] = (int)a->sdispls[p];
        v[2 * n + p] = (int)a->rcounts[p], v[3 * n + p] = (int)a->rdispls[p];
    }
    int rc = MPI_SUCCESS;
    if (*handled)
        rc = PMPI_Alltoallv(a->sbuf, v, v + n, MPI_BYTE, a->rbuf, v + 2 * n, v + 3 * n, MPI_BYTE,
                            sub->comm);
    free(v);
    return rc;
}

int pc_hier_inner(const pacoll_team_t *t, pacoll_team_t *sub, const pc_args_t *a)
{
    int phase = a->coll == PACOLL_ALLTOALLV;
    int idx = t->cfg.leader_alg[phase];
    if (t->cfg.leader_alg_auto) {
        idx = pc_select(sub, a->coll, phase ? 0 : a->m);
        if (pc_registry_get(idx)->needs & PACOLL_NEEDS_SHM) /* no recursion */
            idx = pc_registry_find(a->coll, "direct");
    }
    const pacoll_algo_t *alg = pc_registry_get(idx);
    const char *why;
    if (alg->run && !pc_algo_can_run(sub, alg, &why))
        alg = pc_registry_get(pc_registry_find(a->coll, "direct"));
    if (!alg->run) {
        int handled, rc = run_native(sub, a, &handled);
        if (handled || rc != MPI_SUCCESS)
            return rc;
        alg = pc_registry_get(pc_registry_find(a->coll, "direct")); /* counts past INT_MAX */
    }
    return alg->run(sub, a);
}

/* ---------------------------------------------------------- PACOLL_NIC */

/* The measurement (multicore slides, "characteristics of network
 * interfaces": bidirectional bandwidth against the number of cores that
 * push data).  Node 0 and the first node on another host exchange
 * PC_NIC_MSGS messages of PC_NIC_BYTES each way, first one pair of ranks,
 * then k = min(ranks of the two nodes) pairs at once; best of PC_NIC_REPS.
 * If k pairs move at least PC_NIC_GAIN times the bytes per second one pair
 * moves, more cores push more data: onload.  Otherwise they congest one
 * interface: offload. */
#define PC_NIC_MSGS 16
#define PC_NIC_BYTES 512
#define PC_NIC_REPS 3
#define PC_NIC_GAIN 1.5
#define PC_NIC_TAG 7411

static int push(pacoll_team_t *t, int peer, char *buf, double *dt)
{
    MPI_Request req[2 * PC_NIC_MSGS];
    double t0 = PMPI_Wtime();
    for (int i = 0; i < PC_NIC_MSGS; i++) {
        PMPI_Irecv(buf + (size_t)i * PC_NIC_BYTES, PC_NIC_BYTES, MPI_BYTE, peer, PC_NIC_TAG,
                   t->comm, &req[i]);
        PMPI_Isend(buf + (size_t)(PC_NIC_MSGS + i) * PC_NIC_BYTES, PC_NIC_BYTES, MPI_BYTE, peer,
                   PC_NIC_TAG, t->comm, &req[PC_NIC_MSGS + i]);
    }
    int rc = PMPI_Waitall(2 * PC_NIC_MSGS, req, MPI_STATUSES_IGNORE);
    double d = PMPI_Wtime() - t0;
    if (d < *dt)
        *dt = d;
    return rc;
}

static int measure_nic(pacoll_team_t *t, int *kind)
{
    /* The first rank not on rank 0's host, if any: its node is node B. */
    int cand = pc_team_same_host(t, 0) ? INT_MAX : t->rank, other;
    int rc = PMPI_Allreduce(&cand, &other, 1, MPI_INT, MPI_MIN, t->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (other == INT_MAX) { /* one host: no interface between the nodes */
        *kind = PC_NIC_NONE;
        return MPI_SUCCESS;
    }
    int b = t->node_of[other];
    int la = t->node_first[1] - t->node_first[0], lb = t->node_first[b + 1] - t->node_first[b];
    int k = la < lb ? la : lb, peer = -1;
    if (k < 2) {
        *kind = PC_NIC_NONE;
        return MPI_SUCCESS;
    }
    if ((t->node == 0 || t->node == b) && t->local_rank < k)
        peer = t->node_ranks[t->node_first[t->node == 0 ? b : 0] + t->local_rank];
    char *buf = peer >= 0 ? calloc(2 * PC_NIC_MSGS, PC_NIC_BYTES) : NULL;
    if (peer >= 0 && !buf)
        peer = -1; /* no memory: this pair stays out, the others still agree */
    double best[2] = {1e30, 1e30}, worst[2];
    for (int rep = 0; rep < PC_NIC_REPS && rc == MPI_SUCCESS; rep++) {
        for (int phase = 0; phase < 2 && rc == MPI_SUCCESS; phase++) {
            rc = PMPI_Barrier(t->comm);
            if (rc == MPI_SUCCESS && peer >= 0 && (phase == 1 || t->local_rank == 0))
                rc = push(t, peer, buf, &best[phase]);
        }
    }
    free(buf);
    for (int phase = 0; phase < 2; phase++)
        if (best[phase] > 1e29)
            best[phase] = 0; /* not in this phase */
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(best, worst, 2, MPI_DOUBLE, MPI_MAX, t->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    double gain = worst[1] > 0 ? (double)k * worst[0] / worst[1] : 0;
    *kind = gain >= PC_NIC_GAIN ? PC_NIC_ONLOAD : PC_NIC_OFFLOAD;
    if (t->cfg.verbose && t->rank == 0)
        pc_log("PACOLL_NIC=auto: %d x %d B each way between node 0 and node %d: 1 pair %.1f us, "
               "%d pairs %.1f us: %d pairs move %.2fx the bytes of one pair: %s",
               PC_NIC_MSGS, PC_NIC_BYTES, b, worst[0] * 1e6, k, worst[1] * 1e6, k, gain,
               *kind == PC_NIC_ONLOAD ? "onload" : "offload");
    return MPI_SUCCESS;
}

int pc_nic_kind(pacoll_team_t *t)
{
    if (t->nic >= 0)
        return t->nic;
    if (t->cfg.nic != PC_NIC_AUTO) {
        t->nic = t->cfg.nic;
        return t->nic;
    }
    int kind = PC_NIC_NONE;
    if (measure_nic(t, &kind) != MPI_SUCCESS)
        kind = PC_NIC_NONE; /* every rank saw the same failed collective */
    t->nic = kind;
    return kind;
}
