/*
 * npb_is: the key exchange of the NAS Parallel Benchmarks' IS (integer
 * sort) kernel, the application of sloavx §V-E, on pacoll.
 *
 * Keys are made as NPB IS makes them (the 46-bit linear congruential
 * generator randlc, a = 5^13, seed 314159265, each key the sum of four
 * draws times MAX_KEY/4, every rank jumping to its own part of the
 * sequence), bucketed by their top bits, and buckets are given to ranks so
 * that each rank gets about TOTAL_KEYS/P keys (NPB's redistribution).  One
 * iteration is NPB's communication: an alltoall of the per-rank key counts,
 * then an alltoallv of the keys.  Then every rank sorts its keys (counting
 * sort) and the result is verified: every rank's keys are sorted, each
 * rank's largest key is at most the next rank's smallest, no key is lost
 * (count and sum over all ranks).  One untimed exchange comes first, as NPB
 * ranks once before starting its timer.
 *
 *   mpirun -np P npb_is [--class S|W|A] [--algo NAME] [--iters N]
 *       runs and verifies the exchange with pacoll (NAME: an algorithm of
 *       alltoall or alltoallv, "native", COLL=NAME, or automatic selection
 *       if not given); npb_is-mpi is the same program on MPI alone (or
 *       under LD_PRELOAD of the preload library); both end with the suite's
 *       result line (apps/app.h, docs/APPS.md);
 *   npb_is --class S|W|A --ranks P --matrix FILE
 *       (any number of processes, rank 0 writes) writes the P x P alltoallv
 *       count matrix in bytes for `pacoll-bench alltoallv --vdist file:FILE`
 *       (docs/BENCH.md), without any communication.
 *
 * Classes (NPB IS): S 2^16 keys below 2^11, 2^9 buckets; W 2^20 keys below
 * 2^16, 2^10 buckets; A 2^23 keys below 2^19, 2^10 buckets.
 */
#include <stdint.h>

#include "app.h"

typedef struct npb_class {
    char name;
    int keys_log2, max_key_log2, buckets_log2;
} npb_class_t;

static const npb_class_t classes[] = {{'S', 16, 11, 9}, {'W', 20, 16, 10}, {'A', 23, 19, 10}};

#define NPB_SEED 314159265ULL
#define NPB_MULT 1220703125ULL /* 5^13 */
#define MOD46 ((1ULL << 46) - 1)

/* a x mod 2^46 in 23-bit halves, as NPB's randlc computes it. */
static uint64_t mul46(uint64_t a, uint64_t x)
{
    const uint64_t m23 = (1ULL << 23) - 1;
    uint64_t a1 = a >> 23, a2 = a & m23, x1 = x >> 23, x2 = x & m23;
    uint64_t mid = (a1 * x2 + a2 * x1) & m23;
    return ((mid << 23) + a2 * x2) & MOD46;
}

/* randlc: x <- a x mod 2^46, returns x / 2^46 (exact in integers). */
static double randlc(uint64_t *x, uint64_t a)
{
    *x = mul46(*x, a);
    return (double)*x / (double)(1ULL << 46);
}

/* a^n mod 2^46 */
static uint64_t pow46(uint64_t a, uint64_t n)
{
    uint64_t r = 1;
    while (n) {
        if (n & 1)
            r = mul46(r, a);
        a = mul46(a, a);
        n >>= 1;
    }
    return r;
}

/* Keys of `rank` of p: a contiguous share of the one NPB sequence. */
static uint64_t first_key(const npb_class_t *c, int rank, int p)
{
    uint64_t total = 1ULL << c->keys_log2;
    return total / (uint64_t)p * (uint64_t)rank + (total % (uint64_t)p < (uint64_t)rank ? total % (uint64_t)p : (uint64_t)rank);
}

static int *make_keys(const npb_class_t *c, int rank, int p, size_t *n)
{
    uint64_t lo = first_key(c, rank, p), hi = first_key(c, rank + 1, p);
    *n = (size_t)(hi - lo);
    int *keys = malloc((*n ? *n : 1) * sizeof *keys);
    if (!keys)
        return NULL;
    uint64_t x = mul46(NPB_SEED, pow46(NPB_MULT, 4 * lo));
    double k = (double)(1 << c->max_key_log2) / 4;
    for (size_t i = 0; i < *n; i++) {
        double s = randlc(&x, NPB_MULT);
        s += randlc(&x, NPB_MULT);
        s += randlc(&x, NPB_MULT);
        s += randlc(&x, NPB_MULT);
        keys[i] = (int)(k * s);
    }
    return keys;
}

static int bucket_of(const npb_class_t *c, int key) { return key >> (c->max_key_log2 - c->buckets_log2); }

/* NPB's redistribution: buckets, in order, to ranks, moving to the next
 * rank once the running total of all ranks' keys reaches its share. */
static void owners(const npb_class_t *c, const long *totals, int p, int *owner)
{
    uint64_t total = 1ULL << c->keys_log2, sum = 0;
    int j = 0;
    for (int b = 0; b < (1 << c->buckets_log2); b++) {
        owner[b] = j;
        sum += (uint64_t)totals[b];
        while (j < p - 1 && sum >= first_key(c, j + 1, p))
            j++;
    }
    (void)total;
}

/* Bytes rank `rank` sends to every rank (row of the count matrix). */
static void send_row(const npb_class_t *c, const int *keys, size_t n, const int *owner, int p,
                     int *count)
{
    memset(count, 0, (size_t)p * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[owner[bucket_of(c, keys[i])]]++;
}

static long *bucket_sizes(const npb_class_t *c, const int *keys, size_t n)
{
    long *b = calloc((size_t)1 << c->buckets_log2, sizeof *b);
    for (size_t i = 0; b && i < n; i++)
        b[bucket_of(c, keys[i])]++;
    return b;
}

/* ---------------------------------------------------- the matrix file */

static int write_matrix(const npb_class_t *c, int p, const char *path)
{
    int nb = 1 << c->buckets_log2;
    long *totals = calloc((size_t)nb, sizeof *totals);
    int *owner = malloc((size_t)nb * sizeof *owner), *row = malloc((size_t)p * sizeof *row);
    FILE *f = fopen(path, "w");
    if (!totals || !owner || !row || !f) {
        fprintf(stderr, "npb_is: cannot write %s\n", path);
        return 1;
    }
    for (int r = 0; r < p; r++) { /* pass 1: the bucket totals */
        size_t n;
        int *keys = make_keys(c, r, p, &n);
        long *b = keys ? bucket_sizes(c, keys, n) : NULL;
        if (!b)
            return 1;
        for (int i = 0; i < nb; i++)
            totals[i] += b[i];
        free(b), free(keys);
    }
    owners(c, totals, p, owner);
    fprintf(f, "# npb_is class %c for %d ranks: alltoallv key exchange, bytes (4 per key)\n",
            c->name, p);
    fprintf(f, "# row = sending rank, column = receiving rank (pacoll-bench --vdist file:)\n");
    for (int r = 0; r < p; r++) { /* pass 2: the rows */
        size_t n;
        int *keys = make_keys(c, r, p, &n);
        if (!keys)
            return 1;
        send_row(c, keys, n, owner, p, row);
        for (int d = 0; d < p; d++)
            fprintf(f, "%s%d", d ? " " : "", 4 * row[d]);
        fputc('\n', f);
        free(keys);
    }
    free(totals), free(owner), free(row);
    return fclose(f) != 0;
}

/* ----------------------------------------------------- the MPI run */

typedef struct run {
    app_t app;
    const npb_class_t *c;
    int rank, p;
    int *keys, *sorted;
    size_t n;
    int *owner, *scount, *sdispl, *rcount, *rdispl, *sendbuf;
    long nrecv;
} run_t;

static int exchange(run_t *r)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int rc = app_alltoall(&r->app, r->scount, 1, MPI_INT, r->rcount, 1, MPI_INT, w);
    r->nrecv = 0;
    for (int i = 0; i < r->p && rc == MPI_SUCCESS; i++) {
        r->rdispl[i] = (int)r->nrecv;
        r->nrecv += r->rcount[i];
    }
    if (rc == MPI_SUCCESS) {
        free(r->sorted);
        r->sorted = malloc((size_t)(r->nrecv ? r->nrecv : 1) * sizeof *r->sorted);
        if (!r->sorted)
            return MPI_ERR_NO_MEM;
        rc = app_alltoallv(&r->app, r->sendbuf, r->scount, r->sdispl, MPI_INT, r->sorted,
                           r->rcount, r->rdispl, MPI_INT, w);
    }
    return rc;
}

/* Counting sort of the received keys (NPB's ranking); 0 when one is out of
 * range or memory is short. */
static int local_sort(run_t *r, long long *sum)
{
    int maxkey = 1 << r->c->max_key_log2, ok = 1;
    long *hist = calloc((size_t)maxkey, sizeof *hist);
    if (!hist)
        return 0;
    *sum = 0;
    for (long i = 0; i < r->nrecv; i++) {
        int k = r->sorted[i];
        if (k < 0 || k >= maxkey) {
            ok = 0;
            continue;
        }
        hist[k]++, *sum += k;
    }
    long at = 0;
    for (int k = 0; k < maxkey; k++)
        for (long j = 0; j < hist[k]; j++)
            r->sorted[at++] = k;
    free(hist);
    app_compute(&r->app, 4.0 * (double)r->nrecv + maxkey);
    return ok && at == r->nrecv;
}

/* The checks. */
static int verify(run_t *r, long long sum_before, int sorted_ok, long long sum)
{
    int ok = sorted_ok, lo = 1 << r->c->max_key_log2, hi = -1;
    for (long i = 1; i < r->nrecv; i++)
        ok &= r->sorted[i - 1] <= r->sorted[i];
    if (r->nrecv > 0)
        lo = r->sorted[0], hi = r->sorted[r->nrecv - 1];
    /* across ranks: my largest <= every later rank's smallest */
    int *bounds = malloc(2 * (size_t)r->p * sizeof *bounds), mine[2] = {lo, hi};
    MPI_Allgather(mine, 2, MPI_INT, bounds, 2, MPI_INT, MPI_COMM_WORLD);
    int best = -1;
    for (int i = 0; i < r->p; i++) {
        if (bounds[2 * i + 1] < 0)
            continue; /* empty rank */
        ok &= bounds[2 * i] >= best;
        best = bounds[2 * i + 1];
    }
    free(bounds);
    long long tot[2] = {r->nrecv, sum}, all[2];
    MPI_Allreduce(tot, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    ok &= all[0] == (1LL << r->c->keys_log2) && all[1] == sum_before;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all_ok;
}

static int setup(run_t *r, long long *sum_before)
{
    const npb_class_t *c = r->c;
    int nb = 1 << c->buckets_log2, p = r->p;
    r->keys = make_keys(c, r->rank, p, &r->n);
    long *mine = r->keys ? bucket_sizes(c, r->keys, r->n) : NULL;
    long *totals = malloc((size_t)nb * sizeof *totals);
    r->owner = malloc((size_t)nb * sizeof *r->owner);
    r->scount = malloc(4 * (size_t)p * sizeof(int));
    r->sendbuf = malloc((r->n ? r->n : 1) * sizeof(int));
    if (!mine || !totals || !r->owner || !r->scount || !r->sendbuf)
        return 0;
    r->sdispl = r->scount + p, r->rcount = r->sdispl + p, r->rdispl = r->rcount + p;
    MPI_Allreduce(mine, totals, nb, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    owners(c, totals, p, r->owner);
    send_row(c, r->keys, r->n, r->owner, p, r->scount);
    /* keys in destination order: the send buffer of the alltoallv */
    int *fill = calloc((size_t)p, sizeof *fill);
    for (int i = 0, at = 0; i < p; i++)
        r->sdispl[i] = at, at += r->scount[i];
    long long s = 0;
    for (size_t i = 0; fill && i < r->n; i++) {
        int d = r->owner[bucket_of(c, r->keys[i])];
        r->sendbuf[r->sdispl[d] + fill[d]++] = r->keys[i];
        s += r->keys[i];
    }
    MPI_Allreduce(&s, sum_before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(fill), free(mine), free(totals);
    return 1;
}

static const npb_class_t *find_class(const char *s)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (s && s[0] == classes[i].name && s[1] == '\0')
            return &classes[i];
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run_t r;
    memset(&r, 0, sizeof r);
    app_init(&r.app, "is");
    r.rank = r.app.rank, r.p = r.app.size;
    const char *matrix = NULL;
    int iters = 10, ranks = 0, bad = 0;
    r.c = &classes[0];
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--class") && v)
            bad |= !(r.c = find_class(v)), i++;
        else if (!strcmp(argv[i], "--iters") && v)
            bad |= (iters = atoi(v)) < 1, i++;
        else if (!strcmp(argv[i], "--ranks") && v)
            bad |= (ranks = atoi(v)) < 1, i++;
        else if (!strcmp(argv[i], "--matrix") && v)
            matrix = v, i++;
        else if (!app_common_option(&r.app, 1u << APP_ALLTOALL | 1u << APP_ALLTOALLV, argc, argv,
                                    &i, &bad))
            bad = 1;
    }
    if (bad || (matrix && !ranks)) {
        if (r.rank == 0)
            fprintf(stderr, "usage: npb_is [--class S|W|A] [--algo NAME] [--iters N] [--pair A,B]\n"
                            "       npb_is --class S|W|A --ranks P --matrix FILE\n");
        MPI_Finalize();
        return 2;
    }
    if (matrix) {
        int rc = r.rank == 0 ? write_matrix(r.c, ranks, matrix) : 0;
        MPI_Finalize();
        return rc;
    }
    long long sum_before = 0, sum = 0;
    int ok = setup(&r, &sum_before), rc = MPI_SUCCESS;
    double best = 1e30, total = 0, t_all = 0, c_all = 0;
    /* one untimed iteration first, as NPB IS ranks once before its timer:
       the communicator's set-up (pacoll's, the MPI library's) is not timed */
    if (ok)
        rc = exchange(&r);
    for (int it = 0; ok && it < iters && rc == MPI_SUCCESS; it++) {
        app_start(&r.app);
        app_iteration(&r.app);
        double t0 = MPI_Wtime();
        rc = exchange(&r);
        double t = MPI_Wtime() - t0, tmax;
        int sorted_ok = rc == MPI_SUCCESS && local_sort(&r, &sum);
        app_stop(&r.app);
        t_all += r.app.total_s, c_all += r.app.coll_s;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best = tmax < best ? tmax : best, total += tmax;
        if (rc == MPI_SUCCESS)
            ok = verify(&r, sum_before, sorted_ok, sum);
    }
    r.app.total_s = t_all, r.app.coll_s = c_all;
    ok = ok && rc == MPI_SUCCESS;
    if (r.rank == 0) {
        char used[64];
        app_last_algo(&r.app, APP_ALLTOALLV, used, (int)sizeof used);
        printf("npb_is: class %c, %d ranks, alltoallv %s: exchange %.2f us mean, %.2f us best "
               "over %d iterations; verification %s\n",
               r.c->name, r.p, used, 1e6 * total / iters, 1e6 * best, iters,
               ok ? "SUCCESSFUL" : "FAILED");
    }
    int status = app_report(&r.app, ok, "class=%c iters=%d", r.c->name, iters);
    free(r.keys), free(r.sorted), free(r.owner), free(r.scount), free(r.sendbuf);
    MPI_Finalize();
    return status;
}
