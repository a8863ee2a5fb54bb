/*
 * radix: a parallel least-significant-digit radix sort of 64-bit keys, the
 * RADIX application of the pap-aware paper (FT, RADIX and N-BODY average
 * 1.44x; its Table 1 profiles RADIX) and of the multirail paper (N-BODY and
 * RADIX, up to 1.47x communication speedup from the allgathers).
 *
 *   radix [--keys N] [--dist uniform|gauss|zipf] [--bits B] [--key-bits K]
 *         [--iters I] [--seed S] [--algo NAME]
 *
 * Every rank makes N keys below 2^K (default 64) from the seed, then each of
 * the ceil(K / B) passes (B-bit digits, default 8) does:
 *   1. the histogram of this rank's digits;
 *   2. MPI_Allgather of the histograms: every rank then knows where each
 *      (digit, source rank) run of keys lands in the global order;
 *   3. a stable local counting sort by digit, and MPI_Alltoallv of the keys
 *      to the ranks that own their positions (blocks of N keys per rank), the
 *      receive counts computed from the histograms;
 *   4. a stable counting sort of what arrived (ordered by source) by digit,
 *      which puts it in global order.
 * Distributions: uniform; gauss (a normal around 2^(K-2), so the high digits
 * fall in few buckets and the alltoallv's counts are very unequal); zipf
 * (a few values repeated very often: value k with probability ~ 1/k, k below
 * 2^20, hashed over the key range).
 * The sort runs I times (each time on the same freshly made keys), after one
 * untimed pass.
 * Verification: each rank's keys are sorted, each rank's last key is at most
 * the next non-empty rank's first, and the multiset is kept: the count, the
 * sum and the sum of a hash of every key are those of the keys made.
 */
#include <math.h>
#include <stdint.h>

#include "app.h"

enum dist { UNIFORM, GAUSS, ZIPF };

typedef struct radix {
    app_t app;
    long n;              /* keys per rank */
    int bits, key_bits, iters;
    enum dist dist;
    unsigned long long seed;
    uint64_t *keys, *tmp;  /* this rank's keys; scratch of the same size */
    int *hist, *all;       /* B buckets; P x B */
    int *sc, *sd, *rc, *rd; /* the alltoallv's counts and displacements */
} radix_t;

static uint64_t mix(uint64_t x)
{
    unsigned long long s = x;
    return app_rand(&s);
}

static void make_keys(radix_t *r)
{
    unsigned long long s = r->seed * 0x100000001B3ULL + (unsigned long long)r->app.rank;
    uint64_t mask = r->key_bits == 64 ? ~0ULL : (1ULL << r->key_bits) - 1;
    for (long i = 0; i < r->n; i++) {
        uint64_t k;
        if (r->dist == UNIFORM) {
            k = app_rand(&s);
        } else if (r->dist == GAUSS) {
            double u1 = app_uniform(&s) + 1e-300, u2 = app_uniform(&s);
            double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
            double mid = ldexp(1.0, r->key_bits - 2), v = mid + z * mid / 8;
            k = v <= 0 ? 0 : v >= ldexp(1.0, r->key_bits) - 1 ? mask : (uint64_t)v;
        } else {
            uint64_t v = (uint64_t)exp(app_uniform(&s) * log(1048576.0)); /* ~1/k */
            k = mix(v);
        }
        r->keys[i] = k & mask;
    }
}

/* Stable counting sort of src[0..n) by the digit at shift into dst. */
static void count_sort(const uint64_t *src, uint64_t *dst, long n, int shift, int bits, int *cnt)
{
    int nb = 1 << bits;
    uint64_t m = (uint64_t)nb - 1;
    memset(cnt, 0, (size_t)nb * sizeof *cnt);
    for (long i = 0; i < n; i++)
        cnt[(src[i] >> shift) & m]++;
    long at = 0;
    for (int d = 0; d < nb; d++) {
        long c = cnt[d];
        cnt[d] = (int)at;
        at += c;
    }
    for (long i = 0; i < n; i++)
        dst[cnt[(src[i] >> shift) & m]++] = src[i];
}

/* Counts of the global positions [lo, lo+len) that fall in each rank's
 * block of n, added to out[rank]. */
static void split(long lo, long len, long n, int *out)
{
    while (len > 0) {
        long owner = lo / n, room = (owner + 1) * n - lo, take = len < room ? len : room;
        out[owner] += (int)take;
        lo += take, len -= take;
    }
}

static int one_pass(radix_t *r, int shift)
{
    int p = r->app.size, me = r->app.rank, nb = 1 << r->bits, rc;
    uint64_t m = (uint64_t)nb - 1;
    memset(r->hist, 0, (size_t)nb * sizeof *r->hist);
    for (long i = 0; i < r->n; i++)
        r->hist[(r->keys[i] >> shift) & m]++;
    rc = app_allgather(&r->app, r->hist, nb, MPI_INT, r->all, nb, MPI_INT, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return rc;
    /* where each (digit, source) run starts in the global order */
    memset(r->sc, 0, (size_t)p * sizeof *r->sc);
    memset(r->rc, 0, (size_t)p * sizeof *r->rc);
    long base = 0, mylo = (long)me * r->n, myhi = mylo + r->n;
    for (int d = 0; d < nb; d++) {
        long at = base;
        for (int q = 0; q < p; q++) {
            long len = r->all[q * nb + d];
            if (q == me)
                split(at, len, r->n, r->sc);
            /* the part of q's run that lands in my block */
            long lo = at > mylo ? at : mylo, hi = at + len < myhi ? at + len : myhi;
            if (hi > lo)
                r->rc[q] += (int)(hi - lo);
            at += len;
        }
        base = at;
    }
    for (int q = 0, s = 0, t = 0; q < p; q++) {
        r->sd[q] = s, r->rd[q] = t;
        s += r->sc[q], t += r->rc[q];
    }
    count_sort(r->keys, r->tmp, r->n, shift, r->bits, r->hist);
    app_compute(&r->app, 12.0 * (double)r->n);
    rc = app_alltoallv(&r->app, r->tmp, r->sc, r->sd, MPI_UINT64_T, r->keys, r->rc, r->rd,
                       MPI_UINT64_T, MPI_COMM_WORLD);
    /* arrived by source, each source's keys by digit: by digit, stably */
    count_sort(r->keys, r->tmp, r->n, shift, r->bits, r->hist);
    uint64_t *x = r->keys;
    r->keys = r->tmp, r->tmp = x;
    app_compute(&r->app, 8.0 * (double)r->n);
    return rc;
}

/* count, sum and hash sum of this rank's keys, summed over ranks */
static void fingerprint(const radix_t *r, unsigned long long out[3])
{
    unsigned long long mine[3] = {(unsigned long long)r->n, 0, 0};
    for (long i = 0; i < r->n; i++)
        mine[1] += r->keys[i], mine[2] += mix(r->keys[i] ^ 0xabcdefULL);
    MPI_Allreduce(mine, out, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static int sorted_globally(const radix_t *r)
{
    int ok = 1, p = r->app.size;
    for (long i = 1; i < r->n; i++)
        ok &= r->keys[i - 1] <= r->keys[i];
    unsigned long long ends[3] = {(unsigned long long)(r->n > 0), r->n ? r->keys[0] : 0,
                                  r->n ? r->keys[r->n - 1] : 0};
    unsigned long long *all = malloc(3 * (size_t)p * sizeof *all);
    if (!all)
        return 0;
    MPI_Allgather(ends, 3, MPI_UNSIGNED_LONG_LONG, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    unsigned long long last = 0;
    for (int q = 0; q < p; q++) {
        if (!all[3 * q])
            continue;
        ok &= all[3 * q + 1] >= last;
        last = all[3 * q + 2];
    }
    free(all);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    radix_t r;
    memset(&r, 0, sizeof r);
    app_init(&r.app, "radix");
    r.n = 1 << 16, r.bits = 8, r.key_bits = 64, r.iters = 1, r.seed = 7;
    int bad = 0;
    const char *dname = "uniform";
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--keys") && v)
            bad |= (r.n = atol(v)) < 1, i++;
        else if (!strcmp(argv[i], "--bits") && v)
            bad |= (r.bits = atoi(v)) < 1 || r.bits > 16, i++;
        else if (!strcmp(argv[i], "--key-bits") && v)
            bad |= (r.key_bits = atoi(v)) < 8 || r.key_bits > 64, i++;
        else if (!strcmp(argv[i], "--iters") && v)
            bad |= (r.iters = atoi(v)) < 1, i++;
        else if (!strcmp(argv[i], "--seed") && v)
            r.seed = strtoull(v, NULL, 10), i++;
        else if (!strcmp(argv[i], "--dist") && v) {
            dname = v, i++;
            r.dist = !strcmp(v, "gauss") ? GAUSS : !strcmp(v, "zipf") ? ZIPF : UNIFORM;
            bad |= r.dist == UNIFORM && strcmp(v, "uniform");
        } else if (!app_common_option(&r.app, 1u << APP_ALLGATHER | 1u << APP_ALLTOALLV, argc,
                                      argv, &i, &bad))
            bad = 1;
    }
    int p = r.app.size, nb = 1 << r.bits;
    r.keys = malloc((size_t)r.n * sizeof *r.keys), r.tmp = malloc((size_t)r.n * sizeof *r.tmp);
    r.hist = malloc((size_t)nb * sizeof *r.hist), r.all = malloc((size_t)p * nb * sizeof *r.all);
    r.sc = malloc(4 * (size_t)p * sizeof *r.sc);
    if (bad || !r.keys || !r.tmp || !r.hist || !r.all || !r.sc) {
        if (r.app.rank == 0)
            fprintf(stderr, "usage: radix [--keys N] [--dist uniform|gauss|zipf] [--bits B] "
                            "[--key-bits K] [--iters I] [--seed S] [--algo NAME] [--pair A,B]\n");
        free(r.keys), free(r.tmp), free(r.hist), free(r.all), free(r.sc);
        MPI_Finalize();
        return 2;
    }
    r.sd = r.sc + p, r.rc = r.sd + p, r.rd = r.rc + p;
    int passes = (r.key_bits + r.bits - 1) / r.bits, rc = MPI_SUCCESS, ok = 1;
    unsigned long long before[3], after[3];
    double t_total = 0, t_coll = 0;
    for (int it = 0; it < r.iters && ok; it++) {
        make_keys(&r);
        fingerprint(&r, before);
        /* one untimed pass first (it only permutes the keys): the
           communicator's set-up, pacoll's and the MPI library's, is not timed */
        if (it == 0)
            rc = one_pass(&r, 0);
        app_start(&r.app);
        app_iteration(&r.app);
        for (int s = 0; s < passes && rc == MPI_SUCCESS; s++)
            rc = one_pass(&r, s * r.bits);
        app_stop(&r.app);
        t_total += r.app.total_s, t_coll += r.app.coll_s;
        fingerprint(&r, after);
        ok = rc == MPI_SUCCESS && sorted_globally(&r) && !memcmp(before, after, sizeof before);
    }
    r.app.total_s = t_total, r.app.coll_s = t_coll;
    int status = app_report(&r.app, ok, "keys=%ld dist=%s bits=%d key_bits=%d passes=%d iters=%d",
                            r.n, dname, r.bits, r.key_bits, passes, r.iters);
    free(r.keys), free(r.tmp), free(r.hist), free(r.all), free(r.sc);
    MPI_Finalize();
    return status;
}
