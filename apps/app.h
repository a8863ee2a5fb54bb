/*
 * app.h: what the applications of apps/ share (docs/APPS.md).
 *
 * Every application is built twice from one source:
 *   - linked with pacoll (APP_PACOLL defined; also the SMPI build): the
 *     collectives are pacoll_<coll>_alg calls, so `--algo NAME` forces one of
 *     pacoll's algorithms at the call site;
 *   - as a plain MPI program (name suffix -mpi): MPI_<coll> calls, linked with
 *     MPI only, run on the MPI library or under LD_PRELOAD of
 *     libpacoll_preload.so (then PACOLL_<COLL>=NAME forces an algorithm).
 * Both print one result line (app_report) that apps/run and the ctests read:
 *   app=NAME mode=pacoll|mpi|preload|smpi ranks=P ... total_s=T coll_s=C
 *   algo=COLL:NAME,... verified=yes|no
 * total_s is the slowest rank's timed region, coll_s the largest time any
 * rank spent inside the collectives of that region (both in seconds).
 *
 * --pair A,B (plain build, A and B each mpi or pmpi): the timed iterations
 * alternate A B B A ... between the MPI_ names (mpi: pacoll's under the
 * preload library) and the MPI library's own PMPI_ names (pmpi) for the
 * application's collectives.  An iteration's time is the slowest rank's;
 * the result line adds each arm's median time per iteration, whole and in
 * collectives, and the medians of the per-pair ratios A / B (the j-th
 * iteration of A against the j-th of B):
 *   pair=A,B a_iter_s= b_iter_s= a_coll_iter_s= b_coll_iter_s= pair_iters=N
 *   pair_ratio= pair_coll_ratio=
 * Under the preload, pmpi,mpi is native against pacoll in one process, and
 * pmpi,pmpi its A/A control (apps/run --paired; docs/APPS.md).  The loop of
 * each application calls app_iteration at the top of every timed iteration.
 * Collectives a library makes for the application (ft --decomp fftw: FFTW's
 * transposes) have no PMPI_ names to take: their pmpi arm runs on a
 * communicator of app_arm_comm, whose info hints give every collective to the
 * MPI library (pacoll_<coll>=native, docs/INTERPOSE.md "Info hints"), so its
 * calls reach PMPI_ by the preload library's plain way, a few ns each.
 *
 * Header-only (static functions): each application is one .c file.
 */
#ifndef PACOLL_APP_H
#define PACOLL_APP_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef APP_PACOLL
#include "pacoll.h"
#else
#include <dlfcn.h>
#endif

enum { APP_ALLTOALL, APP_ALLTOALLV, APP_ALLGATHER, APP_GATHER, APP_NCOLL };
enum { APP_ARM_MPI, APP_ARM_PMPI }; /* --pair: which names the collectives use */
static const char *const app_arm_names[2] = {"mpi", "pmpi"};
static const char *const app_coll_names[APP_NCOLL] = {"alltoall", "alltoallv", "allgather",
                                                      "gather"};

typedef struct app {
    const char *name;
    int rank, size;
    const char *algo[APP_NCOLL]; /* forced per collective (linked build), else NULL */
    char algo_buf[APP_NCOLL][48];
    MPI_Comm last_comm[APP_NCOLL]; /* where each collective last ran (for its algorithm) */
    long calls[APP_NCOLL];
    double coll_s;     /* this rank's time inside collectives since app_start */
    double t_start, total_s;
    int timing;        /* collectives are timed only between app_start and app_stop */
    /* --pair: the two arms (A, B), the current iteration's (its place k in
     * the pair, its names) and per place the times of its iterations, whole
     * and in collectives (app_iteration) */
    int pair[2], paired, k, arm, it_open;
    long iter, k_n[2], k_cap[2];
    double *k_total[2], *k_coll[2], it_t0, it_c0;
} app_t;

/* ------------------------------------------------------------ options */

/* Parses --algo's value: NAME (every collective that registers NAME, or
 * "native"/"auto" for all) or COLL=NAME[,COLL=NAME...].  Returns 0 on a bad
 * value, with a message. */
static inline int app_set_algo(app_t *a, const char *v)
{
#ifdef APP_PACOLL
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    int any = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const char *name = eq ? eq + 1 : tok;
        if (eq)
            *eq = '\0'; /* tok is now the collective's name */
        for (int c = 0; c < APP_NCOLL; c++) {
            if (eq && strcmp(tok, app_coll_names[c]) != 0)
                continue;
            int ok = !strcmp(name, "native") || !strcmp(name, "auto");
            for (int i = 0; !ok && i < pacoll_algorithm_count(); i++) {
                pacoll_algo_info_t info;
                ok = pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == c &&
                     !strcmp(info.name, name);
            }
            if (ok) {
                snprintf(a->algo_buf[c], sizeof a->algo_buf[c], "%s", name);
                a->algo[c] = strcmp(name, "auto") ? a->algo_buf[c] : NULL;
                any = 1;
            }
        }
    }
    if (!any && a->rank == 0)
        fprintf(stderr, "%s: --algo %s: no collective of this application registers it\n",
                a->name, v);
    return any;
#else
    if (a->rank == 0)
        fprintf(stderr, "%s: --algo %s: this is the plain MPI build; under the preload "
                        "library set PACOLL_<COLL>=NAME instead\n", a->name, v);
    return 0;
#endif
}

/* --list: rank 0 prints "COLL: NAME..." for each collective in mask (bit
 * 1 << APP_<COLL>) the application uses: pacoll's algorithms registered for
 * it (what `--algo COLL=NAME` accepts; tests/apps/each_algo.sh loops over
 * them).  The plain build has none to list. */
static inline void app_list(const app_t *a, unsigned mask)
{
    for (int c = 0; c < APP_NCOLL && a->rank == 0; c++) {
        if (!(mask & (1u << c)))
            continue;
        printf("%s:", app_coll_names[c]);
#ifdef APP_PACOLL
        for (int i = 0; i < pacoll_algorithm_count(); i++) {
            pacoll_algo_info_t info;
            if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == c)
                printf(" %s", info.name);
        }
#endif
        printf("\n");
    }
}

/* The options every application takes, tried after its own: --list (prints
 * the collectives in mask and ends the program) and --algo NAME.  Returns 1
 * when argv[*i] was one of them (*i then on its value; *bad set when the
 * value is wrong), 0 when it was not. */
static inline int app_common_option(app_t *a, unsigned mask, int argc, char **argv, int *i,
                                    int *bad)
{
    if (!strcmp(argv[*i], "--list")) {
        app_list(a, mask);
        MPI_Finalize();
        exit(0);
    }
    if (!strcmp(argv[*i], "--algo") && *i + 1 < argc) {
        *bad |= !app_set_algo(a, argv[*i + 1]);
        ++*i;
        return 1;
    }
    if (!strcmp(argv[*i], "--pair") && *i + 1 < argc) {
        const char *v = argv[++*i];
#ifdef APP_PACOLL
        if (a->rank == 0)
            fprintf(stderr, "%s: --pair %s: only the plain MPI build (NAME-mpi) has two sets of "
                            "names to pair\n", a->name, v);
        *bad = 1;
#else
        char x[8] = "", y[8] = "";
        int n = -1;
        int ok = sscanf(v, "%7[a-z],%7[a-z]%n", x, y, &n) == 2 && v[n] == '\0';
        for (int k = 0; ok && k < 2; k++) {
            const char *w = k ? y : x;
            a->pair[k] = !strcmp(w, "mpi") ? APP_ARM_MPI : !strcmp(w, "pmpi") ? APP_ARM_PMPI : -1;
            ok = a->pair[k] >= 0;
        }
        if (!ok && a->rank == 0)
            fprintf(stderr, "%s: --pair %s: expected A,B, each mpi or pmpi\n", a->name, v);
        a->paired = ok;
        *bad |= !ok;
#endif
        return 1;
    }
    return 0;
}

#ifndef APP_PACOLL
/* --pair: a duplicate of MPI_COMM_WORLD for arm (see above); the caller
 * frees it.  Without the preload the hints are the MPI library's to ignore. */
static inline MPI_Comm app_arm_comm(int arm)
{
    MPI_Comm c;
    MPI_Info info;
    MPI_Info_create(&info);
    for (int k = 0; arm == APP_ARM_PMPI && k < APP_NCOLL; k++) {
        char key[32];
        snprintf(key, sizeof key, "pacoll_%s", app_coll_names[k]);
        MPI_Info_set(info, key, "native");
    }
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    return c;
}
#endif

static inline void app_init(app_t *a, const char *name)
{
    memset(a, 0, sizeof *a);
    a->name = name;
    for (int c = 0; c < APP_NCOLL; c++)
        a->last_comm[c] = MPI_COMM_NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &a->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &a->size);
}

/* ------------------------------------------------------------ timing */

static inline void app_start(app_t *a)
{
    MPI_Barrier(MPI_COMM_WORLD);
    a->coll_s = 0;
    for (int c = 0; c < APP_NCOLL; c++)
        a->calls[c] = 0;
    a->timing = 1;
    a->t_start = MPI_Wtime();
}

/* --pair: the iteration begun last ends; its time goes to its arm. */
static inline void app_iteration_end(app_t *a)
{
    if (!a->it_open)
        return;
    int k = a->k;
    if (a->k_n[k] == a->k_cap[k]) {
        long cap = a->k_cap[k] ? 2 * a->k_cap[k] : 64;
        double *t = realloc(a->k_total[k], (size_t)cap * sizeof *t);
        double *c = t ? realloc(a->k_coll[k], (size_t)cap * sizeof *c) : NULL;
        if (t)
            a->k_total[k] = t;
        if (!t || !c) {
            fprintf(stderr, "%s: --pair: out of memory\n", a->name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        a->k_coll[k] = c, a->k_cap[k] = cap;
    }
    a->k_total[k][a->k_n[k]] = MPI_Wtime() - a->it_t0;
    a->k_coll[k][a->k_n[k]++] = a->coll_s - a->it_c0;
    a->it_open = 0, a->arm = APP_ARM_MPI;
}

/* At the top of every timed iteration: with --pair, the previous one ends
 * and this one runs on the next arm, A B B A A B B A ... (neither arm always
 * first, nor always after the other). */
static inline void app_iteration(app_t *a)
{
    if (!a->paired)
        return;
    app_iteration_end(a);
    a->k = (int)((a->iter++ + 1) / 2 % 2);
    a->arm = a->pair[a->k];
    a->it_open = 1, a->it_t0 = MPI_Wtime(), a->it_c0 = a->coll_s;
}

static inline void app_stop(app_t *a)
{
    app_iteration_end(a);
    a->total_s = MPI_Wtime() - a->t_start;
    a->timing = 0;
}

/* Modelled computation: under SMPI (where the host's own computing is not
 * simulated, so runs stay deterministic) the application charges the flops
 * it did, so arrival imbalance comes from its data as on a real machine. */
static inline void app_compute(app_t *a, double flops)
{
    (void)a;
#ifdef SMPI_HELPERS_H
    if (flops > 0)
        smpi_execute_flops(flops);
#else
    (void)flops;
#endif
}

#define APP_TIMED(a, c, comm, call)                                                                \
    do {                                                                                           \
        double t0_ = MPI_Wtime();                                                                  \
        rc = (call);                                                                               \
        if ((a)->timing) {                                                                         \
            (a)->coll_s += MPI_Wtime() - t0_;                                                      \
            (a)->calls[c]++;                                                                       \
        }                                                                                          \
        (a)->last_comm[c] = (comm);                                                                \
    } while (0)

static inline int app_alltoall(app_t *a, const void *sb, int sc, MPI_Datatype st, void *rb, int rcnt,
                        MPI_Datatype rt, MPI_Comm comm)
{
    int rc;
#ifdef APP_PACOLL
    APP_TIMED(a, APP_ALLTOALL, comm, pacoll_alltoall_alg(a->algo[APP_ALLTOALL], sb, sc, st, rb, rcnt, rt, comm));
#else
    APP_TIMED(a, APP_ALLTOALL, comm,
              a->arm == APP_ARM_PMPI ? PMPI_Alltoall(sb, sc, st, rb, rcnt, rt, comm)
                                     : MPI_Alltoall(sb, sc, st, rb, rcnt, rt, comm));
#endif
    return rc;
}

static inline int app_alltoallv(app_t *a, const void *sb, const int *sc, const int *sd, MPI_Datatype st,
                         void *rb, const int *rcnt, const int *rd, MPI_Datatype rt, MPI_Comm comm)
{
    int rc;
#ifdef APP_PACOLL
    APP_TIMED(a, APP_ALLTOALLV, comm,
              pacoll_alltoallv_alg(a->algo[APP_ALLTOALLV], sb, sc, sd, st, rb, rcnt, rd, rt, comm));
#else
    APP_TIMED(a, APP_ALLTOALLV, comm,
              a->arm == APP_ARM_PMPI ? PMPI_Alltoallv(sb, sc, sd, st, rb, rcnt, rd, rt, comm)
                                     : MPI_Alltoallv(sb, sc, sd, st, rb, rcnt, rd, rt, comm));
#endif
    return rc;
}

static inline int app_allgather(app_t *a, const void *sb, int sc, MPI_Datatype st, void *rb, int rcnt,
                         MPI_Datatype rt, MPI_Comm comm)
{
    int rc;
#ifdef APP_PACOLL
    APP_TIMED(a, APP_ALLGATHER, comm, pacoll_allgather_alg(a->algo[APP_ALLGATHER], sb, sc, st, rb, rcnt, rt, comm));
#else
    APP_TIMED(a, APP_ALLGATHER, comm,
              a->arm == APP_ARM_PMPI ? PMPI_Allgather(sb, sc, st, rb, rcnt, rt, comm)
                                     : MPI_Allgather(sb, sc, st, rb, rcnt, rt, comm));
#endif
    return rc;
}

static inline int app_gather(app_t *a, const void *sb, int sc, MPI_Datatype st, void *rb, int rcnt,
                      MPI_Datatype rt, int root, MPI_Comm comm)
{
    int rc;
#ifdef APP_PACOLL
    APP_TIMED(a, APP_GATHER, comm, pacoll_gather_alg(a->algo[APP_GATHER], sb, sc, st, rb, rcnt, rt, root, comm));
#else
    APP_TIMED(a, APP_GATHER, comm,
              a->arm == APP_ARM_PMPI ? PMPI_Gather(sb, sc, st, rb, rcnt, rt, root, comm)
                                     : MPI_Gather(sb, sc, st, rb, rcnt, rt, root, comm));
#endif
    return rc;
}

/* ------------------------------------------------------------ the result line */

typedef int (*app_last_fn)(MPI_Comm, int, char *, int);

/* The algorithm the last call of collective c ran, as pacoll reports it
 * (linked build, or the preload library found by name), else "mpi". */
static inline void app_last_algo(const app_t *a, int c, char *out, int len)
{
    /* a library's own communicator (FFTW's dup) is not known here */
    snprintf(out, (size_t)len, "%s", a->last_comm[c] == MPI_COMM_NULL ? "unknown" : "mpi");
    if (a->last_comm[c] == MPI_COMM_NULL)
        return;
#ifdef APP_PACOLL
    pacoll_comm_last_algorithm(a->last_comm[c], (pacoll_coll_t)c, out, len);
#else
    app_last_fn fn;
    void *sym = dlsym(RTLD_DEFAULT, "pacoll_comm_last_algorithm");
    memcpy(&fn, &sym, sizeof fn); /* object to function pointer, as POSIX allows */
    if (fn)
        fn(a->last_comm[c], c, out, len);
#endif
}

static inline const char *app_mode(void)
{
#if defined(SMPI_HELPERS_H)
    return "smpi";
#elif defined(APP_PACOLL)
    return "pacoll";
#else
    return dlsym(RTLD_DEFAULT, "pacoll_comm_last_algorithm") ? "preload" : "mpi";
#endif
}

static int app_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double app_median(double *v, long n) /* sorts v */
{
    qsort(v, (size_t)n, sizeof *v, app_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* --pair: out = {A's median iteration, B's, A's median in collectives, B's,
 * the median of the per-pair ratios A / B, the same in collectives}, over
 * the slowest rank's time of each iteration (collective over the world). */
static inline void app_pair_medians(app_t *a, double out[6])
{
    long n = a->k_n[0] < a->k_n[1] ? a->k_n[0] : a->k_n[1]; /* the pairs */
    double *m = malloc(6 * (size_t)n * sizeof *m);
    if (!m) {
        fprintf(stderr, "%s: --pair: out of memory\n", a->name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *ta = m, *tb = m + n, *ca = m + 2 * n, *cb = m + 3 * n, *r = m + 4 * n, *rc = m + 5 * n;
    MPI_Allreduce(a->k_total[0], ta, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(a->k_total[1], tb, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(a->k_coll[0], ca, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(a->k_coll[1], cb, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (long j = 0; j < n; j++) {
        r[j] = tb[j] > 0 ? ta[j] / tb[j] : 1;
        rc[j] = cb[j] > 0 ? ca[j] / cb[j] : 1;
    }
    out[4] = app_median(r, n), out[5] = app_median(rc, n);
    out[0] = app_median(ta, n), out[1] = app_median(tb, n);
    out[2] = app_median(ca, n), out[3] = app_median(cb, n);
    free(m);
}

/* Collective over MPI_COMM_WORLD: agrees on ok, prints the result line on
 * rank 0 (extra: the application's own key=value fields) and returns the
 * exit status (0 when every rank verified). */
static inline int app_report(app_t *a, int ok, const char *fmt, ...)
{
    double mine[2] = {a->total_s, a->coll_s}, mx[2], sum_coll;
    int all_ok;
    MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* --pair: A's medians, B's, the per-pair ratios' (whole, then in
     * collectives) over the slowest rank's iterations; every rank ran the
     * same iterations */
    double pmx[6] = {0, 0, 0, 0, 1, 1};
    long n_it = a->k_n[0] + a->k_n[1];
    if (a->paired && a->k_n[0] && a->k_n[1])
        app_pair_medians(a, pmx);
    for (int k = 0; k < 2; k++)
        free(a->k_total[k]), free(a->k_coll[k]), a->k_total[k] = a->k_coll[k] = NULL;
    MPI_Allreduce(&a->coll_s, &sum_coll, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (a->rank == 0) {
        char extra[512] = "", algos[256] = "", one[64];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(extra, sizeof extra, fmt, ap);
        va_end(ap);
        for (int c = 0; c < APP_NCOLL; c++) {
            if (!a->calls[c])
                continue;
            app_last_algo(a, c, one, (int)sizeof one);
            size_t at = strlen(algos);
            snprintf(algos + at, sizeof algos - at, "%s%s:%s", at ? "," : "", app_coll_names[c],
                     one);
        }
        char pair[320] = "";
        if (a->paired)
            snprintf(pair, sizeof pair, " pair=%s,%s a_iter_s=%.6e b_iter_s=%.6e "
                     "a_coll_iter_s=%.6e b_coll_iter_s=%.6e pair_iters=%ld pair_ratio=%.4f "
                     "pair_coll_ratio=%.4f",
                     app_arm_names[a->pair[0]], app_arm_names[a->pair[1]], pmx[0], pmx[1],
                     pmx[2], pmx[3], n_it, pmx[4], pmx[5]);
        printf("app=%s mode=%s ranks=%d %s total_s=%.6f coll_s=%.6f coll_avg_s=%.6f algo=%s%s "
               "verified=%s\n",
               a->name, app_mode(), a->size, extra, mx[0], mx[1], sum_coll / a->size,
               algos[0] ? algos : "none", pair, all_ok ? "yes" : "no");
        fflush(stdout);
    }
    return all_ok ? 0 : 1;
}

/* A deterministic generator (splitmix64): every rank can make any part of
 * the data from the seed alone. */
static inline unsigned long long app_rand(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline double app_uniform(unsigned long long *s) /* [0, 1) */
{
    return (double)(app_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
