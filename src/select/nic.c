/*
 * PACOLL_NIC=auto: what more cores do to the network interface (the
 * multicore slides), measured once per team, before its first automatic choice (the
 * api layer; a forced algorithm never pays for it).  The
 * answer is a condition of the selection rules ("nic": "onload" picks
 * multileader for small alltoalls, "offload" leader; rules/default.json and
 * docs/MULTICORE.md).
 */
#include "select/nic.h"

#include <limits.h>

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
    if (t->cfg.chan.verbose && t->rank == 0)
        pc_log("PACOLL_NIC=auto: %d x %d B each way between node 0 and node %d: 1 pair %.1f us, "
               "%d pairs %.1f us: %d pairs move %.2fx the bytes of one pair: %s",
               PC_NIC_MSGS, PC_NIC_BYTES, b, worst[0] * 1e6, k, worst[1] * 1e6, k, gain,
               *kind == PC_NIC_ONLOAD ? "onload" : "offload");
    return MPI_SUCCESS;
}

int pc_nic_measure(pacoll_team_t *t)
{
    if (t->cfg.nic != PC_NIC_AUTO)
        return t->cfg.nic;
    /* Only a team of several nodes of several ranks has cores that could
     * share an interface (the leader teams and lanes have one per node). */
    if (t->nnodes < 2 || t->ppn_max < 2)
        return PC_NIC_NONE;
    int kind = PC_NIC_NONE;
    if (measure_nic(t, &kind) != MPI_SUCCESS)
        kind = PC_NIC_NONE; /* every rank saw the same failed collective */
    return kind;
}

static const char *const nic_names[] = {[PC_NIC_ONLOAD] = "onload", [PC_NIC_OFFLOAD] = "offload",
                                        [PC_NIC_NONE] = "none"};

const char *pc_nic_name(int kind)
{
    return kind >= PC_NIC_ONLOAD && kind <= PC_NIC_NONE ? nic_names[kind] : NULL;
}

int pc_nic_kind(const char *name)
{
    for (int k = PC_NIC_ONLOAD; k <= PC_NIC_NONE && name; k++)
        if (!strcmp(name, nic_names[k]))
            return k;
    return -1;
}
