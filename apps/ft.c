/*
 * ft: a 3-D complex FFT, forward then inverse, with the data transposed by
 * alltoalls between the 1-D transforms: the NPB FT kernel of the pap-aware
 * paper's application study (FT, RADIX and N-BODY; its Table 1 profiles FT's
 * alltoall), and, as a pencil decomposition, CPMD's pattern of many
 * alltoalls on row and column sub-communicators (multicore slides: CPMD, 33%
 * faster).
 *
 *   ft [--n N] [--iters I] [--decomp slab|pencil|fftw] [--grid RxC] [--algo NAME]
 *
 * An N x N x N array is transformed I times forward and back (FFTW for the
 * local 1-D and 2-D transforms, FFTW_ESTIMATE plans).  Decompositions:
 *   slab    ranks own planes of the first index; one MPI_Alltoall on
 *           MPI_COMM_WORLD per transpose (a 2-D transform, the transpose, a
 *           1-D transform);
 *   pencil  an R x C grid (MPI_Dims_create unless --grid); 1-D transforms
 *           along each index in turn, the transposes alltoalls on the row
 *           (C ranks) and column (R ranks) communicators of MPI_Comm_split;
 *   fftw    the slab decomposition with FFTW's own MPI transposes
 *           (fftw_mpi_plan_many_transpose): an unchanged third-party library
 *           calling MPI_Alltoall, the preload path.  Only in the plain build
 *           against the MPI that libfftw3_mpi is linked with; with --pair,
 *           one plan per arm, on app_arm_comm's communicators (app.h).
 * Verification: after the timed loop the array equals the input (max error
 * below 1e-9 of the largest value); then, untimed, a single plane wave
 * exp(2 pi i k.x / N) must transform to one spike of height N^3 at k, and
 * every other coefficient below 1e-9 N^3.
 */
#include <fftw3.h>
#include <math.h>

#include "app.h"

#ifdef APP_FFTW_MPI
#include <fftw3-mpi.h>
#endif

enum decomp { SLAB, PENCIL, FFTWMPI };

typedef struct ft {
    app_t app;
    int n, iters;
    enum decomp decomp;
    int pr, pc, r, c;                /* the grid and this rank's place (slab: 1 x P) */
    MPI_Comm row, col;               /* pencil: same r (C ranks), same c (R ranks) */
    size_t local;                    /* complex elements per rank */
    fftw_complex *a, *b, *sbuf, *rbuf; /* data, transposed data, alltoall buffers */
    fftw_plan f[3], bk[3];           /* forward / backward local transforms, per stage */
#ifdef APP_FFTW_MPI
    fftw_plan tf[2], tb[2];          /* FFTW's transposes, forward and back, per --pair arm */
    MPI_Comm arm_comm[2];            /* --pair: the arms' communicators (app_arm_comm) */
#endif
    unsigned fftw_flags;             /* FFTW's planner for its MPI transposes */
} ft_t;

/* flops of a 1-D FFT of length n, the usual 5 n log2 n (the SMPI charge) */
static double fft_flops(int n, size_t howmany) { return 5.0 * n * log2((double)n) * (double)howmany; }

static fftw_plan plan1(int n, int howmany, fftw_complex *x, int sign)
{
    return fftw_plan_many_dft(1, &n, howmany, x, NULL, 1, n, x, NULL, 1, n, sign, FFTW_ESTIMATE);
}

/* ---- slab: a[i1l][i2][i3] (N/P planes)  <->  b[j][i1] (j: N^2/P of i2*N+i3) ---- */

#ifdef APP_FFTW_MPI
/* FFTW's own transpose (an MPI_Alltoall inside FFTW), timed as the
 * application's alltoall: with --pair, the plan of the iteration's arm */
static void fftw_transpose(ft_t *t, fftw_plan plan[2], fftw_complex *in, fftw_complex *out)
{
    double t0 = MPI_Wtime();
    fftw_mpi_execute_r2r(plan[t->app.paired ? t->app.arm : APP_ARM_MPI], (double *)in, (double *)out);
    if (t->app.timing)
        t->app.coll_s += MPI_Wtime() - t0, t->app.calls[APP_ALLTOALL]++;
}
#endif

static int slab_transform(ft_t *t, int inverse)
{
    int n = t->n, p = t->app.size, rc = MPI_SUCCESS;
    size_t n1l = (size_t)n / p, m = (size_t)n * n, ml = m / p, blk = n1l * ml;
    if (!inverse) {
        fftw_execute(t->f[0]);
        app_compute(&t->app, fft_flops(n, 2 * n1l * n));
#ifdef APP_FFTW_MPI
        if (t->decomp == FFTWMPI)
            fftw_transpose(t, t->tf, t->a, t->b);
        else
#endif
        {
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < n1l; i++)
                    memcpy(t->sbuf[q * blk + i * ml], t->a[i * m + q * ml], ml * sizeof(fftw_complex));
            rc = app_alltoall(&t->app, t->sbuf, (int)(2 * blk), MPI_DOUBLE, t->rbuf, (int)(2 * blk),
                              MPI_DOUBLE, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < n1l; i++)
                    for (size_t j = 0; j < ml; j++)
                        memcpy(t->b[j * n + q * n1l + i], t->rbuf[q * blk + i * ml + j], sizeof(fftw_complex));
        }
        fftw_execute(t->f[1]);
        app_compute(&t->app, fft_flops(n, ml));
    } else {
        fftw_execute(t->bk[1]);
        app_compute(&t->app, fft_flops(n, ml));
#ifdef APP_FFTW_MPI
        if (t->decomp == FFTWMPI)
            fftw_transpose(t, t->tb, t->b, t->a);
        else
#endif
        {
            for (int q = 0; q < p; q++)
                for (size_t j = 0; j < ml; j++)
                    for (size_t i = 0; i < n1l; i++)
                        memcpy(t->sbuf[q * blk + j * n1l + i], t->b[j * n + q * n1l + i], sizeof(fftw_complex));
            rc = app_alltoall(&t->app, t->sbuf, (int)(2 * blk), MPI_DOUBLE, t->rbuf, (int)(2 * blk),
                              MPI_DOUBLE, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                for (size_t j = 0; j < ml; j++)
                    for (size_t i = 0; i < n1l; i++)
                        memcpy(t->a[i * m + q * ml + j], t->rbuf[q * blk + j * n1l + i], sizeof(fftw_complex));
        }
        fftw_execute(t->bk[0]);
        app_compute(&t->app, fft_flops(n, 2 * n1l * n));
    }
    return rc;
}

/* ---- pencil: a[i1l][i2l][i3] -> (row) b[i1l][i3c][i2] -> (col) a[i3c][i2r][i1] ----
 * i1l: N/R of i1 (block r), i2l: N/C of i2 (block c), i3c: N/C of i3 (block c),
 * i2r: N/R of i2 (block r).  The first transpose runs on the row (C ranks),
 * the second on the column (R ranks). */

static int pencil_transform(ft_t *t, int inverse)
{
    size_t n = (size_t)t->n, n1l = n / t->pr, n2l = n / t->pc, n3c = n / t->pc, n2r = n / t->pr;
    size_t blk1 = n1l * n2l * n3c, blk2 = n1l * n3c * n2r;
    int rc = MPI_SUCCESS;
    if (!inverse) {
        fftw_execute(t->f[0]); /* along i3 */
        app_compute(&t->app, fft_flops(t->n, n1l * n2l));
        for (int q = 0; q < t->pc; q++)
            for (size_t i = 0; i < n1l * n2l; i++)
                memcpy(t->sbuf[q * blk1 + i * n3c], t->a[i * n + q * n3c], n3c * sizeof(fftw_complex));
        rc = app_alltoall(&t->app, t->sbuf, (int)(2 * blk1), MPI_DOUBLE, t->rbuf, (int)(2 * blk1),
                          MPI_DOUBLE, t->row);
        for (int q = 0; q < t->pc; q++) /* from q: [i1l][i2 in block q][k] */
            for (size_t i = 0; i < n1l; i++)
                for (size_t j = 0; j < n2l; j++)
                    for (size_t k = 0; k < n3c; k++)
                        memcpy(t->b[(i * n3c + k) * n + q * n2l + j],
                               t->rbuf[q * blk1 + (i * n2l + j) * n3c + k], sizeof(fftw_complex));
        fftw_execute(t->f[1]); /* along i2 */
        app_compute(&t->app, fft_flops(t->n, n1l * n3c));
        for (int q = 0; q < t->pr; q++) /* to q: [i1l][k][i2 in block q] */
            for (size_t i = 0; i < n1l * n3c; i++)
                memcpy(t->sbuf[q * blk2 + i * n2r], t->b[i * n + q * n2r], n2r * sizeof(fftw_complex));
        if (rc == MPI_SUCCESS)
            rc = app_alltoall(&t->app, t->sbuf, (int)(2 * blk2), MPI_DOUBLE, t->rbuf,
                              (int)(2 * blk2), MPI_DOUBLE, t->col);
        for (int q = 0; q < t->pr; q++) /* from q: [i1 in block q][k][j] */
            for (size_t i = 0; i < n1l; i++)
                for (size_t k = 0; k < n3c; k++)
                    for (size_t j = 0; j < n2r; j++)
                        memcpy(t->a[(k * n2r + j) * n + q * n1l + i],
                               t->rbuf[q * blk2 + (i * n3c + k) * n2r + j], sizeof(fftw_complex));
        fftw_execute(t->f[2]); /* along i1 */
        app_compute(&t->app, fft_flops(t->n, n3c * n2r));
    } else {
        fftw_execute(t->bk[2]);
        app_compute(&t->app, fft_flops(t->n, n3c * n2r));
        for (int q = 0; q < t->pr; q++) /* to q: [i1 in block q][k][j] */
            for (size_t i = 0; i < n1l; i++)
                for (size_t k = 0; k < n3c; k++)
                    for (size_t j = 0; j < n2r; j++)
                        memcpy(t->sbuf[q * blk2 + (i * n3c + k) * n2r + j],
                               t->a[(k * n2r + j) * n + q * n1l + i], sizeof(fftw_complex));
        rc = app_alltoall(&t->app, t->sbuf, (int)(2 * blk2), MPI_DOUBLE, t->rbuf, (int)(2 * blk2),
                          MPI_DOUBLE, t->col);
        for (int q = 0; q < t->pr; q++)
            for (size_t i = 0; i < n1l * n3c; i++)
                memcpy(t->b[i * n + q * n2r], t->rbuf[q * blk2 + i * n2r], n2r * sizeof(fftw_complex));
        fftw_execute(t->bk[1]);
        app_compute(&t->app, fft_flops(t->n, n1l * n3c));
        for (int q = 0; q < t->pc; q++)
            for (size_t i = 0; i < n1l; i++)
                for (size_t j = 0; j < n2l; j++)
                    for (size_t k = 0; k < n3c; k++)
                        memcpy(t->sbuf[q * blk1 + (i * n2l + j) * n3c + k],
                               t->b[(i * n3c + k) * n + q * n2l + j], sizeof(fftw_complex));
        if (rc == MPI_SUCCESS)
            rc = app_alltoall(&t->app, t->sbuf, (int)(2 * blk1), MPI_DOUBLE, t->rbuf,
                              (int)(2 * blk1), MPI_DOUBLE, t->row);
        for (int q = 0; q < t->pc; q++)
            for (size_t i = 0; i < n1l * n2l; i++)
                memcpy(t->a[i * n + q * n3c], t->rbuf[q * blk1 + i * n3c], n3c * sizeof(fftw_complex));
        fftw_execute(t->bk[0]);
        app_compute(&t->app, fft_flops(t->n, n1l * n2l));
    }
    return rc;
}

static int transform(ft_t *t, int inverse)
{
    int rc = t->decomp == PENCIL ? pencil_transform(t, inverse) : slab_transform(t, inverse);
    if (inverse) { /* FFTW's backward transform is unnormalised */
        double s = 1.0 / ((double)t->n * t->n * t->n);
        for (size_t i = 0; i < t->local; i++)
            t->a[i][0] *= s, t->a[i][1] *= s;
    }
    return rc;
}

/* Global indices of local element e of the input layout (a) or of the
 * transformed layout (slab: b, pencil: a). */
static void global_index(const ft_t *t, size_t e, int transformed, int g[3])
{
    size_t n = (size_t)t->n;
    if (t->decomp != PENCIL) {
        size_t p = (size_t)t->app.size, rank = (size_t)t->app.rank;
        if (!transformed) {
            g[0] = (int)(rank * (n / p) + e / (n * n)), g[1] = (int)(e / n % n), g[2] = (int)(e % n);
        } else {
            size_t j = rank * (n * n / p) + e / n;
            g[0] = (int)(e % n), g[1] = (int)(j / n), g[2] = (int)(j % n);
        }
        return;
    }
    size_t n1l = n / t->pr, n2l = n / t->pc, n3c = n / t->pc, n2r = n / t->pr;
    if (!transformed) {
        g[0] = (int)(t->r * n1l + e / (n2l * n)), g[1] = (int)(t->c * n2l + e / n % n2l),
        g[2] = (int)(e % n);
    } else {
        g[2] = (int)(t->c * n3c + e / (n2r * n)), g[1] = (int)(t->r * n2r + e / n % n2r),
        g[0] = (int)(e % n);
    }
}

static double input_value(unsigned long long seed, const int g[3], int n, int part)
{
    unsigned long long s = seed + ((unsigned long long)g[0] * n + g[1]) * n + g[2];
    s = app_rand(&s) + (unsigned long long)part;
    return app_uniform(&s) - 0.5;
}

static int setup(ft_t *t)
{
    int n = t->n, p = t->app.size;
    if (t->decomp == PENCIL) {
        if (!t->pr) {
            int dims[2] = {0, 0};
            MPI_Dims_create(p, 2, dims);
            t->pr = dims[0], t->pc = dims[1];
        }
    } else {
        t->pr = 1, t->pc = p;
    }
    if (t->pr * t->pc != p || n % t->pr || n % t->pc || (t->decomp != PENCIL && (size_t)n * n % p)) {
        if (t->app.rank == 0)
            fprintf(stderr, "ft: N=%d does not divide over %d x %d ranks\n", n, t->pr, t->pc);
        return 0;
    }
    t->r = t->app.rank / t->pc, t->c = t->app.rank % t->pc;
    t->local = (size_t)n * n * n / p;
    size_t alloc = t->local;
#ifdef APP_FFTW_MPI
    if (t->decomp == FFTWMPI) {
        ptrdiff_t l0, s0, l1, s1;
        ptrdiff_t want = fftw_mpi_local_size_many_transposed(2, (ptrdiff_t[]){n, (ptrdiff_t)n * n}, 2,
            FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &l0, &s0, &l1, &s1);
        alloc = (size_t)want / 2 + 1 > alloc ? (size_t)want / 2 + 1 : alloc;
    }
#endif
    t->a = fftw_alloc_complex(alloc), t->b = fftw_alloc_complex(alloc);
    t->sbuf = fftw_alloc_complex(alloc), t->rbuf = fftw_alloc_complex(alloc);
    if (!t->a || !t->b || !t->sbuf || !t->rbuf)
        return 0;
    if (t->decomp == PENCIL) {
        MPI_Comm_split(MPI_COMM_WORLD, t->r, t->c, &t->row);
        MPI_Comm_split(MPI_COMM_WORLD, t->c, t->r, &t->col);
        size_t n1l = n / t->pr, n2l = n / t->pc, n3c = n / t->pc, n2r = n / t->pr;
        int hm[3] = {(int)(n1l * n2l), (int)(n1l * n3c), (int)(n3c * n2r)};
        fftw_complex *x[3] = {t->a, t->b, t->a};
        for (int s = 0; s < 3; s++) {
            t->f[s] = plan1(n, hm[s], x[s], FFTW_FORWARD);
            t->bk[s] = plan1(n, hm[s], x[s], FFTW_BACKWARD);
        }
    } else {
        int n2[2] = {n, n}, n1l = n / p, ml = n * n / p;
        t->f[0] = fftw_plan_many_dft(2, n2, n1l, t->a, NULL, 1, n * n, t->a, NULL, 1, n * n,
                                     FFTW_FORWARD, FFTW_ESTIMATE);
        t->bk[0] = fftw_plan_many_dft(2, n2, n1l, t->a, NULL, 1, n * n, t->a, NULL, 1, n * n,
                                      FFTW_BACKWARD, FFTW_ESTIMATE);
        t->f[1] = plan1(n, ml, t->b, FFTW_FORWARD);
        t->bk[1] = plan1(n, ml, t->b, FFTW_BACKWARD);
#ifdef APP_FFTW_MPI
        /* --pair: a plan per arm, each on its arm's communicator */
        for (int arm = 0; t->decomp == FFTWMPI && arm < 1 + t->app.paired; arm++) {
            MPI_Comm comm = MPI_COMM_WORLD;
            if (t->app.paired)
                comm = t->arm_comm[arm] = app_arm_comm(arm);
            t->tf[arm] = fftw_mpi_plan_many_transpose(n, (ptrdiff_t)n * n, 2, FFTW_MPI_DEFAULT_BLOCK,
                FFTW_MPI_DEFAULT_BLOCK, (double *)t->a, (double *)t->b, comm, t->fftw_flags | FFTW_DESTROY_INPUT);
            t->tb[arm] = fftw_mpi_plan_many_transpose((ptrdiff_t)n * n, n, 2, FFTW_MPI_DEFAULT_BLOCK,
                FFTW_MPI_DEFAULT_BLOCK, (double *)t->b, (double *)t->a, comm, t->fftw_flags | FFTW_DESTROY_INPUT);
            if (!t->tf[arm] || !t->tb[arm])
                return 0;
        }
#endif
    }
    return 1;
}

/* The plane wave check: the transformed array holds N^3 at k only. */
static int plane_wave(ft_t *t, int *rc)
{
    int n = t->n, g[3], k[3] = {1 % n, (n / 2 + 1) % n, (n - 3 + 3 * n) % n};
    for (size_t e = 0; e < t->local; e++) {
        global_index(t, e, 0, g);
        double ph = 2 * M_PI * ((double)k[0] * g[0] + (double)k[1] * g[1] + (double)k[2] * g[2]) / n;
        t->a[e][0] = cos(ph), t->a[e][1] = sin(ph);
    }
    *rc = t->decomp == PENCIL ? pencil_transform(t, 0) : slab_transform(t, 0);
    fftw_complex *out = t->decomp == PENCIL ? t->a : t->b;
    double big = (double)n * n * n, err = 0;
    for (size_t e = 0; e < t->local; e++) {
        global_index(t, e, 1, g);
        double want = g[0] == k[0] && g[1] == k[1] && g[2] == k[2] ? big : 0;
        double d = hypot(out[e][0] - want, out[e][1]);
        err = d > err ? d : err;
    }
    return err < 1e-9 * big;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ft_t t;
    memset(&t, 0, sizeof t);
    app_init(&t.app, "ft");
    t.n = 32, t.iters = 4, t.fftw_flags = FFTW_ESTIMATE;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--n") && v)
            bad |= (t.n = atoi(v)) < 2, i++;
        else if (!strcmp(argv[i], "--iters") && v)
            bad |= (t.iters = atoi(v)) < 1, i++;
        else if (!strcmp(argv[i], "--grid") && v)
            bad |= sscanf(v, "%dx%d", &t.pr, &t.pc) != 2 || t.pr < 1 || t.pc < 1, i++;
        else if (!strcmp(argv[i], "--decomp") && v) {
            t.decomp = !strcmp(v, "pencil") ? PENCIL : !strcmp(v, "fftw") ? FFTWMPI : SLAB;
            bad |= strcmp(v, "pencil") && strcmp(v, "fftw") && strcmp(v, "slab");
#ifndef APP_FFTW_MPI
            if (t.decomp == FFTWMPI) {
                if (t.app.rank == 0)
                    fprintf(stderr, "ft: --decomp fftw: FFTW's MPI transposes are not in this "
                                    "build (only the plain build against the MPI libfftw3_mpi uses)\n");
                MPI_Finalize();
                return 77; /* skipped, as ctest's SKIP_RETURN_CODE */
            }
#endif
            i++;
        } else if (!strcmp(argv[i], "--fftw-plan") && v) {
            /* how FFTW plans its MPI transposes: it may pick pairwise
               MPI_Sendrecv instead of MPI_Alltoall */
            t.fftw_flags = !strcmp(v, "measure") ? FFTW_MEASURE : !strcmp(v, "patient") ? FFTW_PATIENT : FFTW_ESTIMATE;
            bad |= strcmp(v, "measure") && strcmp(v, "patient") && strcmp(v, "estimate");
            i++;
        } else if (!app_common_option(&t.app, 1u << APP_ALLTOALL, argc, argv, &i, &bad))
            bad = 1;
    }
    if (bad) {
        if (t.app.rank == 0)
            fprintf(stderr, "usage: ft [--n N] [--iters I] [--decomp slab|pencil|fftw] "
                            "[--grid RxC] [--algo NAME] [--pair A,B]\n");
        MPI_Finalize();
        return 2;
    }
#ifdef APP_FFTW_MPI
    fftw_mpi_init();
#endif
    if (!setup(&t)) {
        MPI_Finalize();
        return 2;
    }
    unsigned long long seed = 0x5eed0f7ULL;
    int g[3], rc = MPI_SUCCESS;
    for (size_t e = 0; e < t.local; e++) {
        global_index(&t, e, 0, g);
        t.a[e][0] = input_value(seed, g, t.n, 0), t.a[e][1] = input_value(seed, g, t.n, 1);
    }
    /* one untimed round trip first (per --pair arm: the arms' plans have
       communicators of their own): pacoll's and the MPI library's set-up
       of the communicators, FFTW's first touches */
    for (int arm = 0; arm < 1 + t.app.paired && rc == MPI_SUCCESS; arm++) {
        t.app.arm = arm;
        rc = transform(&t, 0);
        if (rc == MPI_SUCCESS)
            rc = transform(&t, 1);
    }
    t.app.arm = APP_ARM_MPI;
    app_start(&t.app);
    for (int it = 0; it < t.iters && rc == MPI_SUCCESS; it++) {
        app_iteration(&t.app);
        rc = transform(&t, 0);
        if (rc == MPI_SUCCESS)
            rc = transform(&t, 1);
    }
    app_stop(&t.app);
    double err = 0;
    for (size_t e = 0; e < t.local; e++) {
        global_index(&t, e, 0, g);
        double d = hypot(t.a[e][0] - input_value(seed, g, t.n, 0), t.a[e][1] - input_value(seed, g, t.n, 1));
        err = d > err ? d : err;
    }
    int ok = rc == MPI_SUCCESS && err < 1e-9;
    int wave = ok && plane_wave(&t, &rc);
    ok = ok && wave && rc == MPI_SUCCESS;
    double gerr;
    MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    static const char *const names[] = {"slab", "pencil", "fftw"};
    int status = app_report(&t.app, ok, "n=%d iters=%d decomp=%s grid=%dx%d roundtrip_err=%.1e",
                            t.n, t.iters, names[t.decomp], t.pr, t.pc, gerr);
    for (int s = 0; s < 3; s++) {
        if (t.f[s])
            fftw_destroy_plan(t.f[s]), fftw_destroy_plan(t.bk[s]);
    }
#ifdef APP_FFTW_MPI
    for (int arm = 0; t.decomp == FFTWMPI && arm < 1 + t.app.paired; arm++) {
        fftw_destroy_plan(t.tf[arm]), fftw_destroy_plan(t.tb[arm]);
        if (t.app.paired)
            MPI_Comm_free(&t.arm_comm[arm]);
    }
#endif
    fftw_free(t.a), fftw_free(t.b), fftw_free(t.sbuf), fftw_free(t.rbuf);
    if (t.decomp == PENCIL)
        MPI_Comm_free(&t.row), MPI_Comm_free(&t.col);
#ifdef APP_FFTW_MPI
    fftw_mpi_cleanup(); /* FFTW's planner memory: nothing left for leak checkers */
#else
    fftw_cleanup();
#endif
    MPI_Finalize();
    return status;
}
