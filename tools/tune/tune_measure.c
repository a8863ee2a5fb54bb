/* The live sweep: see tune.h. */
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"
#include "core/team.h"
#include "select/nic.h"
#include "select/select.h"
#include "tune.h"

typedef struct bufs {
    char *s, *r;
    int *counts, *displs; /* alltoallv: uniform */
} bufs_t;

/* One call; name NULL = the MPI library's own (not through pacoll), "auto"
 * = pacoll's automatic choice. */
static int call(const char *name, int coll, int n, bufs_t *b, MPI_Comm comm)
{
    switch (coll) {
    case PACOLL_ALLTOALL:
        return !name ? MPI_Alltoall(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, comm)
               : !strcmp(name, "auto")
                   ? pacoll_alltoall(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, comm)
                   : pacoll_alltoall_alg(name, b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, comm);
    case PACOLL_ALLTOALLV:
        return !name ? MPI_Alltoallv(b->s, b->counts, b->displs, MPI_BYTE, b->r, b->counts,
                                     b->displs, MPI_BYTE, comm)
               : !strcmp(name, "auto")
                   ? pacoll_alltoallv(b->s, b->counts, b->displs, MPI_BYTE, b->r, b->counts,
                                      b->displs, MPI_BYTE, comm)
                   : pacoll_alltoallv_alg(name, b->s, b->counts, b->displs, MPI_BYTE, b->r,
                                          b->counts, b->displs, MPI_BYTE, comm);
    case PACOLL_ALLGATHER:
        return !name ? MPI_Allgather(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, comm)
               : !strcmp(name, "auto")
                   ? pacoll_allgather(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, comm)
                   : pacoll_allgather_alg(name, b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, comm);
    default:
        return !name ? MPI_Gather(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, 0, comm)
               : !strcmp(name, "auto")
                   ? pacoll_gather(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, 0, comm)
                   : pacoll_gather_alg(name, b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, 0, comm);
    }
}

/* Seconds per call, the slowest rank's: back to back (loop) or one call
 * after a barrier each time (barrier). */
static int time_calls(const char *name, int coll, int n, bufs_t *b, MPI_Comm comm, int iters,
                      int loop, double *sec)
{
    int rc = MPI_SUCCESS;
    double mine = 0;
    for (int w = 0; w < 2 && rc == MPI_SUCCESS; w++)
        rc = call(name, coll, n, b, comm);
    MPI_Barrier(comm);
    if (loop) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters && rc == MPI_SUCCESS; i++)
            rc = call(name, coll, n, b, comm);
        mine = (MPI_Wtime() - t0) / iters;
    } else {
        for (int i = 0; i < iters && rc == MPI_SUCCESS; i++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            rc = call(name, coll, n, b, comm);
            mine += MPI_Wtime() - t0;
        }
        mine /= iters;
    }
    int bad = rc != MPI_SUCCESS, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(&mine, sec, 1, MPI_DOUBLE, MPI_MAX, comm);
    return any ? (rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER) : MPI_SUCCESS;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int tune_measure(MPI_Comm comm, const tune_opts_t *o, tune_set_t *s, char (*ran)[TUNE_NAME],
                 int nran)
{
    int rc, P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    pacoll_team_t *t = pc_team_get(comm, &rc);
    if (!t)
        return rc;
    int nic = t->nnodes > 1 ? pc_nic_measure(t) : -1; /* one node: no rule asks */
    int src = tune_add_src(s, o->check ? "live check" : "live");
    if (src >= 0) {
        char host[MPI_MAX_PROCESSOR_NAME + 1], kind[MPI_MAX_PROCESSOR_NAME + 40];
        int len = 0;
        MPI_Get_processor_name(host, &len);
        snprintf(kind, sizeof kind, "%s %s", PACOLL_UNDER_SMPI ? "simulated platform" : "measured on",
                 host);
        s->kind[src] = strdup(kind);
    }
    bufs_t b = {0};
    size_t most = o->max_size * (size_t)P;
    b.s = malloc(most ? most : 1), b.r = malloc(most ? most : 1);
    b.counts = malloc((size_t)P * sizeof(int)), b.displs = malloc((size_t)P * sizeof(int));
    if (!b.s || !b.r || !b.counts || !b.displs) {
        free(b.s), free(b.r), free(b.counts), free(b.displs);
        return MPI_ERR_NO_MEM;
    }
    memset(b.s, me + 1, most ? most : 1);
    rc = MPI_SUCCESS;
    for (int coll = 0; coll < PACOLL_NCOLL && rc == MPI_SUCCESS; coll++) {
        if (!(o->colls >> coll & 1))
            continue;
        /* native first, then what runs on this communicator */
        const char *names[TUNE_MAX_ALGOS] = {NULL};
        int na = 1;
        if (o->check)
            names[na++] = "auto";
        for (int i = 0; i < pc_registry_count() && !o->check && na < TUNE_MAX_ALGOS; i++) {
            const pacoll_algo_t *a = pc_registry_get(i);
            const char *why;
            if ((int)a->coll == coll && a->run && pc_algo_can_run(t, a, &why) &&
                (!o->algos || tune_listed(o->algos, a->name)))
                names[na++] = a->name;
        }
        for (size_t m = o->min_size; m <= o->max_size && rc == MPI_SUCCESS; m = m ? 2 * m : 1) {
            for (int p = 0; p < P; p++)
                b.counts[p] = (int)m, b.displs[p] = (int)(m * (size_t)p);
            int iters = (int)(8e6 / ((double)m * P + 1e3));
            iters = iters < 5 ? 5 : iters;
            iters = iters > o->iters ? o->iters : iters;
            for (int loop = 1; loop >= 0 && rc == MPI_SUCCESS; loop--) {
                if (!(loop ? o->loop : o->barrier))
                    continue;
                double sec[TUNE_MAX_ALGOS][64];
                int R = o->repeat < 1 ? 1 : o->repeat > 64 ? 64 : o->repeat;
                for (int r = 0; r < R && rc == MPI_SUCCESS; r++)
                    for (int k = 0; k < na && rc == MPI_SUCCESS; k++) {
                        int a = (k + r) % na; /* interleaved: each repeat starts elsewhere */
                        rc = time_calls(names[a], coll, (int)m, &b, comm, iters, loop,
                                        &sec[a][r]);
                    }
                tune_obs_t *ob = rc == MPI_SUCCESS ? tune_add(s) : NULL;
                if (!ob)
                    break;
                *ob = (tune_obs_t){.coll = coll, .ranks = P, .nodes = t->nnodes,
                                   .ppn = t->ppn_max, .nic = nic, .bytes = (double)m,
                                   .src = src, .n = na};
                snprintf(ob->mode, sizeof ob->mode, "%s", loop ? "loop" : "barrier");
                for (int a = 0; a < na; a++) {
                    qsort(sec[a], (size_t)R, sizeof(double), dcmp);
                    ob->us[a] = 1e6 * (R % 2 ? sec[a][R / 2] : (sec[a][R / 2 - 1] + sec[a][R / 2]) / 2);
                    snprintf(ob->name[a], TUNE_NAME, "%s", names[a] ? names[a] : "native");
                }
                if (o->check && s->n - 1 < nran)
                    pacoll_comm_last_algorithm(comm, (pacoll_coll_t)coll, ran[s->n - 1], TUNE_NAME);
                if (me == 0 && !o->quiet) {
                    printf("pacoll-tune: %-9s %8zu B %-7s", pacoll_coll_name((pacoll_coll_t)coll),
                           m, ob->mode);
                    for (int a = 0; a < na; a++)
                        printf(" %s %.2f", ob->name[a], ob->us[a]);
                    printf(" us\n");
                    fflush(stdout);
                }
            }
        }
    }
    free(b.s), free(b.r), free(b.counts), free(b.displs);
    return rc;
}
