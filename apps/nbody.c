/*
 * nbody: all-pairs gravitational N-body (softened gravity, kick-drift-kick
 * leapfrog), positions exchanged with MPI_Allgather every step: the N-BODY
 * application of the pap-aware paper (FT, RADIX and N-BODY average 1.44x;
 * Table 1 profiles N-BODY) and of the multirail paper (N-BODY and RADIX, up
 * to 1.47x communication speedup from the allgathers).
 *
 *   nbody [--n N] [--steps S] [--dt DT] [--eps E] [--offset X] [--tol T]
 *         [--serial-check 0|1] [--algo NAME]
 *
 * N bodies of mass 1/N are drawn from a Plummer sphere (scale 1, cut at
 * radius 10) centred at (X, 0, 0) (default X = 0.5) with random velocities.
 * Rank r owns the bodies whose x falls in the r-th of P equal slabs of
 * [-2, 2] (the outermost slabs take the rest), so the counts per rank, and
 * the work of the all-pairs force loop (count x N), are as uneven as the
 * data makes them: the arrival imbalance at the allgather is the
 * application's own, not an injected delay.  The allgather moves
 * (x, y, z, m) of max-count bodies per rank (unused slots have mass 0).
 * Verification: total energy kept within T (relative, default 1e-4),
 * total momentum kept within 1e-12 of the sum of |m v|, and, when on (by
 * default for N <= 2048), rank 0 repeats the whole integration serially
 * and every body's position and velocity must agree within 1e-12 (the final
 * state comes to rank 0 by MPI_Gather).
 */
#include <math.h>

#include "app.h"

typedef struct body {
    double x[3], v[3];
} body_t;

typedef struct nbody {
    app_t app;
    int n, steps, nmax, serial;
    double dt, eps, offset, tol;
    int *count, *first;  /* bodies per rank, and each rank's first global index */
    body_t *all0;        /* every body's initial state (each rank makes all) */
    body_t *mine;        /* this rank's bodies */
    double *acc;         /* their accelerations */
    double *pos;         /* the gathered (x, y, z, m), P x nmax */
} nbody_t;

static void plummer(nbody_t *s)
{
    unsigned long long seed = 0x9b0d7ULL;
    for (int i = 0; i < s->n; i++) {
        body_t *b = &s->all0[i];
        double r;
        do
            r = 1.0 / sqrt(pow(app_uniform(&seed) + 1e-12, -2.0 / 3.0) - 1.0);
        while (r > 10);
        double ct = 2 * app_uniform(&seed) - 1, ph = 2 * M_PI * app_uniform(&seed);
        double st = sqrt(1 - ct * ct), vs = 0.4 * sqrt(2.0 / sqrt(r * r + 1));
        b->x[0] = s->offset + r * st * cos(ph), b->x[1] = r * st * sin(ph), b->x[2] = r * ct;
        for (int d = 0; d < 3; d++)
            b->v[d] = vs * (2 * app_uniform(&seed) - 1) / sqrt(3.0);
    }
}

static int owner_of(const body_t *b, int p)
{
    int o = (int)floor((b->x[0] + 2.0) / 4.0 * p);
    return o < 0 ? 0 : o >= p ? p - 1 : o;
}

/* Acceleration on n bodies at pos_i from every gathered body (P x nmax,
 * each rank's first count[q] used). */
static void forces(const nbody_t *s, const double *pos, const int *count, int nmax, int p,
                   const double (*xi)[3], int n, double *acc)
{
    double e2 = s->eps * s->eps;
    for (int i = 0; i < n; i++) {
        double a[3] = {0, 0, 0};
        for (int q = 0; q < p; q++)
            for (int j = 0; j < count[q]; j++) {
                const double *y = pos + 4 * ((size_t)q * nmax + j);
                double dx = y[0] - xi[i][0], dy = y[1] - xi[i][1], dz = y[2] - xi[i][2];
                double r2 = dx * dx + dy * dy + dz * dz + e2, w = y[3] / (r2 * sqrt(r2));
                a[0] += w * dx, a[1] += w * dy, a[2] += w * dz;
            }
        for (int d = 0; d < 3; d++)
            acc[3 * i + d] = a[d];
    }
}

static void pack(const body_t *b, int n, double m, double *out)
{
    for (int i = 0; i < n; i++)
        out[4 * i] = b[i].x[0], out[4 * i + 1] = b[i].x[1], out[4 * i + 2] = b[i].x[2],
        out[4 * i + 3] = m;
}

static int exchange(nbody_t *s, double *sbuf)
{
    int me = s->app.rank;
    pack(s->mine, s->count[me], 1.0 / s->n, sbuf);
    for (int i = s->count[me]; i < s->nmax; i++)
        sbuf[4 * i] = sbuf[4 * i + 1] = sbuf[4 * i + 2] = sbuf[4 * i + 3] = 0;
    return app_allgather(&s->app, sbuf, 4 * s->nmax, MPI_DOUBLE, s->pos, 4 * s->nmax, MPI_DOUBLE,
                         MPI_COMM_WORLD);
}

static void local_forces(nbody_t *s)
{
    int n = s->count[s->app.rank];
    double (*xi)[3] = malloc((size_t)(n ? n : 1) * sizeof *xi);
    for (int i = 0; xi && i < n; i++)
        memcpy(xi[i], s->mine[i].x, sizeof xi[i]);
    forces(s, s->pos, s->count, s->nmax, s->app.size, (const double (*)[3])xi, n, s->acc);
    app_compute(&s->app, 20.0 * n * s->n);
    free(xi);
}

/* kinetic + potential energy (from the gathered positions), and momentum */
static void invariants(const nbody_t *s, double out[5])
{
    int n = s->count[s->app.rank], p = s->app.size;
    double m = 1.0 / s->n, e2 = s->eps * s->eps, mine[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const body_t *b = &s->mine[i];
        for (int d = 0; d < 3; d++)
            mine[0] += 0.5 * m * b->v[d] * b->v[d], mine[2 + d] += m * b->v[d];
        for (int q = 0; q < p; q++)
            for (int j = 0; j < s->count[q]; j++) {
                if (q == s->app.rank && j == i)
                    continue;
                const double *y = s->pos + 4 * ((size_t)q * s->nmax + j);
                double dx = y[0] - b->x[0], dy = y[1] - b->x[1], dz = y[2] - b->x[2];
                mine[1] -= 0.5 * m * y[3] / sqrt(dx * dx + dy * dy + dz * dz + e2);
            }
    }
    MPI_Allreduce(mine, out, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static int step(nbody_t *s, double *sbuf)
{
    int n = s->count[s->app.rank];
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            s->mine[i].v[d] += 0.5 * s->dt * s->acc[3 * i + d];
            s->mine[i].x[d] += s->dt * s->mine[i].v[d];
        }
    int rc = exchange(s, sbuf);
    local_forces(s);
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 3; d++)
            s->mine[i].v[d] += 0.5 * s->dt * s->acc[3 * i + d];
    return rc;
}

/* Rank 0: the same integration on one process, bodies in the same order
 * (by owner, then index), so the same sums in the same order. */
static double serial_diff(const nbody_t *s, const body_t *final)
{
    int n = s->n, p = s->app.size;
    body_t *b = malloc((size_t)n * sizeof *b);
    double *pos = malloc(4 * (size_t)p * s->nmax * sizeof *pos), *acc = malloc(3 * (size_t)n * sizeof *acc);
    double (*xi)[3] = malloc((size_t)n * sizeof *xi), diff = INFINITY;
    if (!b || !pos || !acc || !xi)
        goto out;
    for (int q = 0, k = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            if (owner_of(&s->all0[i], p) == q)
                b[k++] = s->all0[i];
    memset(pos, 0, 4 * (size_t)p * s->nmax * sizeof *pos);
    for (int st = 0; st <= s->steps; st++) {
        if (st > 0)
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 3; d++)
                    b[i].v[d] += 0.5 * s->dt * acc[3 * i + d], b[i].x[d] += s->dt * b[i].v[d];
        for (int q = 0; q < p; q++)
            pack(b + s->first[q], s->count[q], 1.0 / n, pos + 4 * (size_t)q * s->nmax);
        for (int i = 0; i < n; i++)
            memcpy(xi[i], b[i].x, sizeof xi[i]);
        forces(s, pos, s->count, s->nmax, p, (const double (*)[3])xi, n, acc);
        if (st > 0)
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 3; d++)
                    b[i].v[d] += 0.5 * s->dt * acc[3 * i + d];
    }
    diff = 0;
    for (int q = 0; q < p; q++)
        for (int i = 0; i < s->count[q]; i++)
            for (int d = 0; d < 3; d++) {
                const body_t *x = &final[(size_t)q * s->nmax + i], *y = &b[s->first[q] + i];
                diff = fmax(diff, fmax(fabs(x->x[d] - y->x[d]), fabs(x->v[d] - y->v[d])));
            }
out:
    free(b), free(pos), free(acc), free(xi);
    return diff;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    nbody_t s;
    memset(&s, 0, sizeof s);
    app_init(&s.app, "nbody");
    s.n = 2048, s.steps = 10, s.dt = 1e-3, s.eps = 0.05, s.offset = 0.5, s.tol = 1e-4, s.serial = -1;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--n") && v)
            bad |= (s.n = atoi(v)) < 2, i++;
        else if (!strcmp(argv[i], "--steps") && v)
            bad |= (s.steps = atoi(v)) < 1, i++;
        else if (!strcmp(argv[i], "--dt") && v)
            bad |= (s.dt = atof(v)) <= 0, i++;
        else if (!strcmp(argv[i], "--eps") && v)
            bad |= (s.eps = atof(v)) <= 0, i++;
        else if (!strcmp(argv[i], "--offset") && v)
            s.offset = atof(v), i++;
        else if (!strcmp(argv[i], "--tol") && v)
            bad |= (s.tol = atof(v)) <= 0, i++;
        else if (!strcmp(argv[i], "--serial-check") && v)
            s.serial = atoi(v) != 0, i++;
        else if (!app_common_option(&s.app, 1u << APP_ALLGATHER | 1u << APP_GATHER, argc, argv,
                                    &i, &bad))
            bad = 1;
    }
    int p = s.app.size, me = s.app.rank;
    if (s.serial < 0)
        s.serial = s.n <= 2048;
    s.all0 = malloc((size_t)s.n * sizeof *s.all0);
    s.count = calloc(2 * (size_t)p, sizeof *s.count);
    if (bad || !s.all0 || !s.count) {
        if (me == 0)
            fprintf(stderr, "usage: nbody [--n N] [--steps S] [--dt DT] [--eps E] [--offset X] "
                            "[--tol T] [--serial-check 0|1] [--algo NAME] [--pair A,B]\n");
        free(s.all0), free(s.count);
        MPI_Finalize();
        return 2;
    }
    s.first = s.count + p;
    plummer(&s);
    for (int i = 0; i < s.n; i++)
        s.count[owner_of(&s.all0[i], p)]++;
    for (int q = 0; q < p; q++) {
        s.nmax = s.count[q] > s.nmax ? s.count[q] : s.nmax;
        s.first[q] = q ? s.first[q - 1] + s.count[q - 1] : 0;
    }
    s.mine = malloc((size_t)(s.nmax ? s.nmax : 1) * sizeof *s.mine);
    s.acc = malloc(3 * (size_t)(s.nmax ? s.nmax : 1) * sizeof *s.acc);
    s.pos = malloc(4 * (size_t)p * s.nmax * sizeof *s.pos);
    double *sbuf = malloc(4 * (size_t)(s.nmax ? s.nmax : 1) * sizeof *sbuf);
    if (!s.mine || !s.acc || !s.pos || !sbuf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0, k = 0; i < s.n; i++)
        if (owner_of(&s.all0[i], p) == me)
            s.mine[k++] = s.all0[i];
    int rc = exchange(&s, sbuf);
    local_forces(&s);
    double inv0[5], inv1[5];
    invariants(&s, inv0);
    app_start(&s.app);
    for (int st = 0; st < s.steps && rc == MPI_SUCCESS; st++) {
        app_iteration(&s.app);
        rc = step(&s, sbuf);
    }
    app_stop(&s.app);
    invariants(&s, inv1);
    double de = fabs((inv1[0] + inv1[1]) - (inv0[0] + inv0[1])) / fabs(inv0[0] + inv0[1]);
    double scale = 0, dp = 0;
    for (int i = 0; i < s.n; i++)
        for (int d = 0; d < 3; d++)
            scale += fabs(s.all0[i].v[d]) / s.n;
    for (int d = 0; d < 3; d++)
        dp = fmax(dp, fabs(inv1[2 + d] - inv0[2 + d]));
    int ok = rc == MPI_SUCCESS && de < s.tol && dp < 1e-12 * scale;
    double serial = -1;
    if (s.serial && rc == MPI_SUCCESS) {
        body_t *final = me == 0 ? malloc((size_t)p * s.nmax * sizeof *final) : NULL;
        body_t *send = calloc((size_t)s.nmax, sizeof *send);
        memcpy(send, s.mine, (size_t)s.count[me] * sizeof *send);
        rc = app_gather(&s.app, send, 6 * s.nmax, MPI_DOUBLE, final, 6 * s.nmax, MPI_DOUBLE, 0,
                        MPI_COMM_WORLD);
        if (me == 0) {
            serial = rc == MPI_SUCCESS ? serial_diff(&s, final) : INFINITY;
            ok &= serial <= 1e-12;
        }
        ok &= rc == MPI_SUCCESS;
        free(final), free(send);
    }
    int cmin = s.count[0], cmax = s.count[0];
    for (int q = 1; q < p; q++)
        cmin = s.count[q] < cmin ? s.count[q] : cmin, cmax = s.count[q] > cmax ? s.count[q] : cmax;
    int status = app_report(&s.app, ok, "n=%d steps=%d bodies_per_rank=%d..%d dE=%.1e dP=%.1e serial_diff=%.1e",
                            s.n, s.steps, cmin, cmax, de, dp, serial);
    free(s.all0), free(s.count), free(s.mine), free(s.acc), free(s.pos), free(sbuf);
    MPI_Finalize();
    return status;
}
