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
    return 0;
}

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

static inline void app_stop(app_t *a)
{
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
    APP_TIMED(a, APP_ALLTOALL, comm, MPI_Alltoall(sb, sc, st, rb, rcnt, rt, comm));
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
    APP_TIMED(a, APP_ALLTOALLV, comm, MPI_Alltoallv(sb, sc, sd, st, rb, rcnt, rd, rt, comm));
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
    APP_TIMED(a, APP_ALLGATHER, comm, MPI_Allgather(sb, sc, st, rb, rcnt, rt, comm));
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
    APP_TIMED(a, APP_GATHER, comm, MPI_Gather(sb, sc, st, rb, rcnt, rt, root, comm));
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

/* Collective over MPI_COMM_WORLD: agrees on ok, prints the result line on
 * rank 0 (extra: the application's own key=value fields) and returns the
 * exit status (0 when every rank verified). */
static inline int app_report(app_t *a, int ok, const char *fmt, ...)
{
    double mine[2] = {a->total_s, a->coll_s}, mx[2], sum_coll;
    int all_ok;
    MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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
        printf("app=%s mode=%s ranks=%d %s total_s=%.6f coll_s=%.6f coll_avg_s=%.6f algo=%s "
               "verified=%s\n",
               a->name, app_mode(), a->size, extra, mx[0], mx[1], sum_coll / a->size,
               algos[0] ? algos : "none", all_ok ? "yes" : "no");
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
