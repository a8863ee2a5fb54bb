/*
 * Reducing one communicator's records (pap-aware §3.1, eq. 1-3).
 *
 * Calls are matched by order: MPI makes every member call a communicator's
 * collectives in the same sequence, so call i of every member is one
 * collective.  (If the members recorded different numbers of calls, some
 * calls escaped the wrappers on some ranks; the first min(N) are used and the
 * summaries say "mismatch".)  Each call is attributed to the call site of the
 * communicator's rank 0.  With a_i on rank 0's clock:
 *
 *   ā = (a_0 + ... + a_{n-1}) / n                         (1)
 *   d̄ = (|a_0 - ā| + ... + |a_{n-1} - ā|) / n              (2)
 *   θ = max a_i - min a_i                                  (3)
 *
 * Four collectives over the communicator, all O(calls): one allreduce of
 * the call counts, one MAX allreduce of (a, -a, e), one SUM allreduce of a,
 * one reduce of (|a - ā|, bytes) to rank 0; then per rank and site the delay
 * behind the first arrival, the time inside, first/last counts, gathered.
 */
#include "profile/prof_internal.h"

void pc_prof_result_free(pc_prof_result_t *r)
{
    free(r->world_ranks);
    free(r->rank_stats);
    free(r);
}

/* Rank 0's sites as result skeletons (NULL entries on other ranks). */
static pc_prof_result_t **make_results(const pc_prof_comm_t *c, uint32_t nsites, int mismatch)
{
    pc_prof_result_t **res = calloc(nsites ? nsites : 1, sizeof *res);
    if (!res || c->rank != 0)
        return res;
    for (uint32_t s = 0; s < nsites; s++) {
        pc_prof_result_t *r = calloc(1, sizeof *r);
        if (!r)
            continue;
        r->kind = c->sites[s].kind;
        r->ra = c->sites[s].ra;
        snprintf(r->comm_name, sizeof r->comm_name, "%s", c->name);
        r->comm_id = c->id;
        r->comm_size = c->size;
        r->world_leader = c->world_leader;
        r->mismatch = mismatch;
        r->world_ranks = calloc((size_t)c->size, sizeof(int));
        r->rank_stats = calloc((size_t)c->size * PC_PROF_RANK_STATS, sizeof(double));
        res[s] = r;
    }
    return res;
}

/* Per site, this rank's delay behind the first arrival, time inside, and
 * how often it came first or last: PC_PROF_RANK_STATS doubles per site. */
static void rank_stats(const double *A, const double *E, const double *amax, const double *namin,
                       const uint32_t *site, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) {
        double *o = out + (size_t)site[i] * PC_PROF_RANK_STATS;
        double delay = A[i] + namin[i];
        o[PC_PROF_DELAY_SUM] += delay;
        if (delay > o[PC_PROF_DELAY_MAX])
            o[PC_PROF_DELAY_MAX] = delay;
        o[PC_PROF_INSIDE_SUM] += E[i] - A[i];
        o[PC_PROF_FIRST] += delay == 0;
        o[PC_PROF_LAST] += A[i] == amax[i];
    }
}

/* Rank 0 folds the per-call values into its site summaries. */
static void fold_calls(pc_prof_result_t **res, const uint32_t *site, size_t n, int size,
                       const double *amax, const double *namin, const double *emax,
                       const double *dsum_bytes)
{
    for (size_t i = 0; i < n; i++) {
        pc_prof_result_t *r = res[site[i]];
        if (!r)
            continue;
        double theta = amax[i] + namin[i];
        r->calls++;
        r->dbar_sum += dsum_bytes[i] / size;
        r->bytes_sum += dsum_bytes[n + i] / size;
        r->theta_sum += theta;
        if (theta > r->theta_max)
            r->theta_max = theta;
        r->duration_sum += emax[i] + namin[i];
    }
}

int pc_prof_reduce_comm(pc_prof_t *p, pc_prof_comm_t *c)
{
    MPI_Comm comm = c->comm;
    long long cnt[2] = {(long long)c->ncalls, -(long long)c->ncalls}, ext[2];
    int rc = PMPI_Allreduce(cnt, ext, 2, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t n = (size_t)(-ext[1]);
    int mismatch = ext[0] != -ext[1];
    uint32_t nsites = c->nsites;
    PMPI_Bcast(&nsites, 1, MPI_UINT32_T, 0, comm);
    /* one block: A, E, max(A, -A, E), sum A, (|a - ā|, bytes), their sums */
    double *A = malloc((10 * n + 1) * sizeof(double));
    uint32_t *site = malloc((n ? n : 1) * sizeof *site);
    double *mine = calloc((size_t)(nsites ? nsites : 1) * PC_PROF_RANK_STATS, sizeof(double));
    double *all = c->rank == 0 ? calloc((size_t)c->size * (nsites ? nsites : 1) *
                                            PC_PROF_RANK_STATS, sizeof(double))
                               : NULL;
    int *wranks = c->rank == 0 ? calloc((size_t)c->size, sizeof(int)) : NULL;
    pc_prof_result_t **res = make_results(c, nsites, mismatch);
    int ok = A && site && mine && res && (c->rank != 0 || (all && wranks));
    /* Every member must make the same calls even when one ran out of
     * memory: buffers that failed are replaced by a no-op path below. */
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) {
        double *E = A + n, *mx = A + 2 * n, *sum = A + 5 * n, *ds = A + 6 * n;
        for (size_t i = 0; i < n; i++) {
            A[i] = pc_prof_global(p, c->calls[i].arrival);
            E[i] = pc_prof_global(p, c->calls[i].exit);
            mx[i] = A[i], mx[n + i] = -A[i], mx[2 * n + i] = E[i];
            site[i] = c->calls[i].site;
        }
        PMPI_Allreduce(MPI_IN_PLACE, mx, (int)(3 * n), MPI_DOUBLE, MPI_MAX, comm);
        PMPI_Allreduce(A, sum, (int)n, MPI_DOUBLE, MPI_SUM, comm);
        PMPI_Bcast(site, (int)n, MPI_UINT32_T, 0, comm);
        for (size_t i = 0; i < n; i++) {
            double abar = sum[i] / c->size;
            ds[i] = A[i] > abar ? A[i] - abar : abar - A[i];
            ds[n + i] = c->calls[i].bytes;
        }
        double *dsum = A + 8 * n;
        PMPI_Reduce(ds, c->rank == 0 ? dsum : NULL, (int)(2 * n), MPI_DOUBLE, MPI_SUM, 0, comm);
        rank_stats(A, E, mx, mx + n, site, n, mine);
        if (c->rank == 0)
            fold_calls(res, site, n, c->size, mx, mx + n, mx + 2 * n, dsum);
        int w = p->world_rank;
        PMPI_Gather(&w, 1, MPI_INT, wranks, 1, MPI_INT, 0, comm);
        PMPI_Gather(mine, (int)(nsites * PC_PROF_RANK_STATS), MPI_DOUBLE, all,
                    (int)(nsites * PC_PROF_RANK_STATS), MPI_DOUBLE, 0, comm);
    }
    if (all_ok && c->rank == 0) {
        for (uint32_t s = 0; s < nsites; s++) {
            pc_prof_result_t *r = res[s];
            if (!r || !r->world_ranks || !r->rank_stats || r->calls == 0) {
                if (r)
                    pc_prof_result_free(r);
                continue;
            }
            for (int q = 0; q < c->size; q++) {
                r->world_ranks[q] = wranks[q];
                memcpy(r->rank_stats + (size_t)q * PC_PROF_RANK_STATS,
                       all + ((size_t)q * nsites + s) * PC_PROF_RANK_STATS,
                       PC_PROF_RANK_STATS * sizeof(double));
            }
            pthread_mutex_lock(&p->lock);
            *p->results_tail = r;
            p->results_tail = &r->next;
            pthread_mutex_unlock(&p->lock);
        }
    } else if (res && c->rank == 0) {
        for (uint32_t s = 0; s < nsites; s++)
            if (res[s])
                pc_prof_result_free(res[s]);
    }
    if (!all_ok && c->rank == 0)
        pc_log("profile: out of memory reducing a communicator's %zu calls; left out", n);
    free(res);
    free(wranks);
    free(all);
    free(mine);
    free(site);
    free(A);
    c->reduced = 1;
    return MPI_SUCCESS;
}
