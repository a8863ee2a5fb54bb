/* The hierarchical schemes' inner algorithm and its parameter: see hier.h. */
#include "engine/hier.h"

#include <limits.h>

#include "select/select.h"

/* ----------------------------------------------------- inner algorithm */

/* PACOLL_LEADER_ALG: an algorithm the leaders (or lanes) may run among
 * themselves: anything but another scheme built on the node segment (it
 * would recurse, and there is one rank per node there).  The value: -1
 * auto, 0 direct, else 1 + the registry index of the name. */
#define LEADER_AUTO (-1)
#define LEADER_DIRECT 0

static int inter_node_algo(pacoll_coll_t coll, const char *name)
{
    int idx = pc_registry_find(coll, name);
    return idx >= 0 && !(pc_registry_get(idx)->needs & PACOLL_NEEDS_SHM) ? idx : -1;
}

static int parse_leader_alg(const char *s, double *v, char *err, size_t errlen)
{
    if (!*s || !strcmp(s, "direct"))
        return *v = LEADER_DIRECT, 0;
    if (!strcmp(s, "auto"))
        return *v = LEADER_AUTO, 0;
    int a = inter_node_algo(PACOLL_ALLTOALL, s), x = inter_node_algo(PACOLL_ALLTOALLV, s);
    if (a >= 0 || x >= 0)
        return *v = 1 + (a >= 0 ? a : x), 0;
    size_t used = (size_t)snprintf(err, errlen, "auto or an inter-node alltoall algorithm (not a "
                                                "hierarchical one): auto");
    for (int i = 0; i < pc_registry_count() && used < errlen; i++) {
        const pacoll_algo_t *y = pc_registry_get(i);
        int mine = y->coll == PACOLL_ALLTOALL ||
                   (y->coll == PACOLL_ALLTOALLV && pc_registry_find(PACOLL_ALLTOALL, y->name) < 0);
        if (mine && !(y->needs & PACOLL_NEEDS_SHM)) {
            int n = snprintf(err + used, errlen - used, ", %s", y->name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return -1;
}

const pc_param_t pc_param_leader_alg = {
    .env = "PACOLL_LEADER_ALG",
    .kind = PC_PARAM_CUSTOM,
    .dflt = LEADER_DIRECT,
    .parse = parse_leader_alg,
    .help = "the alltoall(v) the leaders / lanes run among themselves: direct, auto or a name",
    .dflt_text = "direct",
};

/* The registry index the inner phase of coll runs: a name only one
 * collective knows is used for that phase, direct for the other. */
static int leader_alg(const pacoll_team_t *t, pacoll_coll_t coll)
{
    double v = pc_param(&t->cfg, &pc_param_leader_alg);
    int idx = v > LEADER_DIRECT ? pc_registry_find(coll, pc_registry_get((int)v - 1)->name) : -1;
    return idx >= 0 ? idx : pc_registry_find(coll, "direct");
}

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
    int idx = leader_alg(t, a->coll);
    if (pc_param(&t->cfg, &pc_param_leader_alg) == LEADER_AUTO) {
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

