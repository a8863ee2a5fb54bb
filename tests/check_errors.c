/*
 * check_errors: pacoll's argument checking, its registry calls, and the life
 * of a communicator's team.
 *
 *  1. Every bad input of every collective, with MPI_ERRORS_RETURN, returns the
 *     documented MPI error class: negative count (MPI_ERR_COUNT), the null
 *     datatype (MPI_ERR_TYPE), an invalid root (MPI_ERR_ROOT), MPI_COMM_NULL
 *     (MPI_ERR_COMM), aliased buffers without MPI_IN_PLACE (MPI_ERR_BUFFER),
 *     mismatched type signatures where a rank can see it (MPI_ERR_TRUNCATE or
 *     MPI_ERR_ARG), a NULL buffer holding data (MPI_ERR_BUFFER), an
 *     uncommitted datatype (MPI_ERR_TYPE), a freed communicator's handle
 *     (MPI_ERR_COMM), an unknown algorithm name or one of another collective
 *     (MPI_ERR_ARG).  Every rank makes the same error here (one rank's alone:
 *     check_faults.c); errors only a root sees are tested on MPI_COMM_SELF.
 *     "native" goes to the MPI library before any check of pacoll's: its
 *     verdict must be the MPI library's own (the same call through PMPI).
 *  2. The error goes through the communicator's error handler.
 *  3. The registry: pacoll_algorithm_info in and out of range,
 *     pacoll_coll_name/pacoll_coll_from_name, pacoll_comm_set_algorithm with
 *     good and bad names, pacoll_comm_last_algorithm.
 *  4. After all the errors every algorithm still gives right results.
 *  5. Teams: 50 communicators made, used by every collective and freed (run
 *     under ASan for leaks); a dup of a communicator that has a team; freeing
 *     the parent first; MPI_Comm_free right after a call.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"

/* An aliased send and receive buffer is erroneous; MPICH 4.0.2's own
 * collectives abort the job on it (an internal assertion), so "native" is
 * not given one there. */
#ifdef MPICH_VERSION
#define NATIVE_ALIAS_OK 0
#else
#define NATIVE_ALIAS_OK 1
#endif

static int rank, size;
static long nchecks, nfail;

static const char *class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    default: return "another class";
    }
}

static int err_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

/* rc must be of class want (or want2, when want2 >= 0) */
static void expect(const char *what, int rc, int want, int want2)
{
    int cls = err_class(rc);
    nchecks++;
    if (cls == want || (want2 >= 0 && cls == want2)) return;
    nfail++;
    fprintf(stderr, "check_errors: FAIL rank %d: %s: got %s (%d, code %d), expected %s%s%s\n",
            rank, what, class_name(cls), cls, rc, class_name(want), want2 >= 0 ? " or " : "",
            want2 >= 0 ? class_name(want2) : "");
    fflush(stderr);
}

static void expect_true(const char *what, int ok)
{
    nchecks++;
    if (ok) return;
    nfail++;
    fprintf(stderr, "check_errors: FAIL rank %d: %s\n", rank, what);
    fflush(stderr);
}

/* ------------------------------------------------------------ registry */

static int registered(int coll, const char *name)
{
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
            strcmp(info.name, name) == 0)
            return 1;
    }
    return 0;
}

/* a name registered for another collective but not for coll, or NULL */
static const char *foreign_name(int coll)
{
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) != MPI_SUCCESS) continue;
        if ((int)info.coll != coll && strcmp(info.name, "native") != 0 &&
            !registered(coll, info.name))
            return info.name;
    }
    return NULL;
}

static void check_registry(void)
{
    char what[256];
    int n = pacoll_algorithm_count();
    expect_true("pacoll_algorithm_count() >= 0", n >= 0);
    pacoll_algo_info_t info;
    expect("pacoll_algorithm_info(-1)", pacoll_algorithm_info(-1, &info), MPI_ERR_ARG, -1);
    expect("pacoll_algorithm_info(count)", pacoll_algorithm_info(n, &info), MPI_ERR_ARG, -1);
    expect("pacoll_algorithm_info(count+100)", pacoll_algorithm_info(n + 100, &info), MPI_ERR_ARG,
           -1);
    int per_coll[PACOLL_NCOLL] = {0};
    for (int i = 0; i < n; i++) {
        memset(&info, 0, sizeof info);
        snprintf(what, sizeof what, "pacoll_algorithm_info(%d) succeeds", i);
        expect(what, pacoll_algorithm_info(i, &info), MPI_SUCCESS, -1);
        snprintf(what, sizeof what, "algorithm %d has a name, a valid collective, a source and a summary", i);
        int ok = info.name && info.name[0] && (int)info.coll >= 0 && info.coll < PACOLL_NCOLL &&
                 info.source && info.summary;
        expect_true(what, ok);
        if (!ok) continue;
        per_coll[info.coll]++;
        for (int j = 0; j < i; j++) { /* names are unique within a collective */
            pacoll_algo_info_t o;
            if (pacoll_algorithm_info(j, &o) == MPI_SUCCESS && o.coll == info.coll &&
                o.name && strcmp(o.name, info.name) == 0) {
                snprintf(what, sizeof what, "algorithm name %s registered twice for %s", info.name,
                         pacoll_coll_name(info.coll));
                expect_true(what, 0);
            }
        }
    }
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        const char *nm = pacoll_coll_name((pacoll_coll_t)c);
        snprintf(what, sizeof what, "pacoll_coll_name(%d) / pacoll_coll_from_name round trip", c);
        expect_true(what, nm && pacoll_coll_from_name(nm) == c);
        if (rank == 0 && nm) printf("check_errors: %s has %d registered algorithms\n", nm, per_coll[c]);
    }
    expect_true("pacoll_coll_name(PACOLL_NCOLL) is NULL", pacoll_coll_name(PACOLL_NCOLL) == NULL);
    expect_true("pacoll_coll_name(-1) is NULL", pacoll_coll_name((pacoll_coll_t)-1) == NULL);
    expect_true("pacoll_coll_from_name(\"bogus\") is -1", pacoll_coll_from_name("bogus") == -1);
    expect_true("pacoll_version() is PACOLL_VERSION_STRING",
                pacoll_version() && strcmp(pacoll_version(), PACOLL_VERSION_STRING) == 0);
}

/* ------------------------------------------------------ the bad inputs */

static void bad_alltoall_like(int coll, MPI_Comm comm)
{
    /* coll: PACOLL_ALLTOALL or PACOLL_ALLGATHER, same signature */
    int (*f)(const char *, const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm) =
        coll == PACOLL_ALLTOALL ? pacoll_alltoall_alg : pacoll_allgather_alg;
    const char *cn = pacoll_coll_name((pacoll_coll_t)coll);
    int *s = calloc((size_t)size * 8, sizeof(int)), *r = calloc((size_t)size * 8, sizeof(int));
    char w[256];
#define W(...) (snprintf(w, sizeof w, __VA_ARGS__), w)
    const char *algos[3] = {NULL, "native", NULL};
    /* also through the first registered algorithm */
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
            strcmp(info.name, "native") != 0) {
            algos[2] = info.name;
            break;
        }
    }
    int (*pf)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm) =
        coll == PACOLL_ALLTOALL ? PMPI_Alltoall : PMPI_Allgather;
    for (int a = 0; a < 3; a++) {
        const char *al = algos[a];
        if (a == 2 && !al) break;
        const char *an = al ? al : "auto";
        /* "native" goes to the MPI library before any check of pacoll's: its
         * verdict must be the MPI library's own (the same call through PMPI) */
#define BAD(desc, sb, sc, st, rb, rn, rt, cm, want, want2)                                        \
    do {                                                                                           \
        int rc_ = f(al, sb, sc, st, rb, rn, rt, cm);                                               \
        if (a == 1)                                                                                \
            expect(W("%s[native] %s: the MPI library's verdict", cn, desc), rc_,                  \
                   err_class(pf(sb, sc, st, rb, rn, rt, cm)), -1);                                 \
        else                                                                                       \
            expect(W("%s[%s] %s", cn, an, desc), rc_, want, want2);                               \
    } while (0)
        BAD("sendcount -1", s, -1, MPI_INT, r, 1, MPI_INT, comm, MPI_ERR_COUNT, -1);
        BAD("recvcount -1", s, 1, MPI_INT, r, -1, MPI_INT, comm, MPI_ERR_COUNT, -1);
        BAD("sendtype MPI_DATATYPE_NULL", s, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, comm,
            MPI_ERR_TYPE, -1);
        BAD("recvtype MPI_DATATYPE_NULL", s, 1, MPI_INT, r, 1, MPI_DATATYPE_NULL, comm,
            MPI_ERR_TYPE, -1);
        expect(W("%s[%s] MPI_COMM_NULL", cn, an), f(al, s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_NULL),
               MPI_ERR_COMM, -1);
        if (a != 1 || NATIVE_ALIAS_OK)
            BAD("sendbuf == recvbuf without MPI_IN_PLACE", r, 1, MPI_INT, r, 1, MPI_INT, comm,
                MPI_ERR_BUFFER, -1);
        BAD("2 INT sent, 3 INT received", s, 2, MPI_INT, r, 3, MPI_INT, comm, MPI_ERR_TRUNCATE,
            MPI_ERR_ARG);
        BAD("3 INT sent, 2 INT received", s, 3, MPI_INT, r, 2, MPI_INT, comm, MPI_ERR_TRUNCATE,
            MPI_ERR_ARG);
        BAD("1 DOUBLE sent, 1 INT received", s, 1, MPI_DOUBLE, r, 1, MPI_INT, comm,
            MPI_ERR_TRUNCATE, MPI_ERR_ARG);
        if (a != 1) { /* (an MPI library may not check these: not run through PMPI) */
            expect(W("%s[%s] sendbuf NULL, 1 INT per block", cn, an),
                   f(al, NULL, 1, MPI_INT, r, 1, MPI_INT, comm), MPI_ERR_BUFFER, -1);
            expect(W("%s[%s] recvbuf NULL, 1 INT per block", cn, an),
                   f(al, s, 1, MPI_INT, NULL, 1, MPI_INT, comm), MPI_ERR_BUFFER, -1);
        }
#undef BAD
    }
    expect(W("%s with algorithm \"bogus\"", cn), f("bogus", s, 1, MPI_INT, r, 1, MPI_INT, comm),
           MPI_ERR_ARG, -1);
    const char *fn = foreign_name(coll);
    if (fn)
        expect(W("%s with algorithm \"%s\" of another collective", cn, fn),
               f(fn, s, 1, MPI_INT, r, 1, MPI_INT, comm), MPI_ERR_ARG, -1);
#undef W
    free(s);
    free(r);
}

static void bad_gather(MPI_Comm comm)
{
    int *s = calloc(8, sizeof(int)), *r = calloc((size_t)size * 8, sizeof(int));
    char w[256];
#define W(...) (snprintf(w, sizeof w, __VA_ARGS__), w)
    const char *algos[2] = {NULL, "native"};
    int csize;
    MPI_Comm_size(comm, &csize);
    for (int a = 0; a < 2; a++) {
        const char *al = algos[a], *an = al ? al : "auto";
        /* native: the MPI library's verdict (see bad_alltoall_like) */
#define BAD(desc, sb, sc, st, rb, rn, rt, root, cm, want, want2)                                  \
    do {                                                                                           \
        int rc_ = pacoll_gather_alg(al, sb, sc, st, rb, rn, rt, root, cm);                         \
        if (a == 1)                                                                                \
            expect(W("gather[native] %s: the MPI library's verdict", desc), rc_,                  \
                   err_class(PMPI_Gather(sb, sc, st, rb, rn, rt, root, cm)), -1);                  \
        else                                                                                       \
            expect(W("gather[%s] %s", an, desc), rc_, want, want2);                               \
    } while (0)
        BAD("sendcount -1 everywhere", s, -1, MPI_INT, r, 1, MPI_INT, 0, comm, MPI_ERR_COUNT, -1);
        BAD("sendtype MPI_DATATYPE_NULL everywhere", s, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, 0,
            comm, MPI_ERR_TYPE, -1);
        BAD("root -1", s, 1, MPI_INT, r, 1, MPI_INT, -1, comm, MPI_ERR_ROOT, -1);
        BAD("root = size", s, 1, MPI_INT, r, 1, MPI_INT, csize, comm, MPI_ERR_ROOT, -1);
        BAD("root = size+7", s, 1, MPI_INT, r, 1, MPI_INT, csize + 7, comm, MPI_ERR_ROOT, -1);
        expect(W("gather[%s] MPI_COMM_NULL", an),
               pacoll_gather_alg(al, s, 1, MPI_INT, r, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, -1);
        /* the root's own arguments: on MPI_COMM_SELF, where every rank is the root */
        if (a != 1 || NATIVE_ALIAS_OK)
            BAD("on MPI_COMM_SELF: sendbuf == recvbuf at the root", r, 1, MPI_INT, r, 1, MPI_INT,
                0, MPI_COMM_SELF, MPI_ERR_BUFFER, -1);
        BAD("on MPI_COMM_SELF: recvcount -1 at the root", s, 1, MPI_INT, r, -1, MPI_INT, 0,
            MPI_COMM_SELF, MPI_ERR_COUNT, -1);
        BAD("on MPI_COMM_SELF: recvtype MPI_DATATYPE_NULL at the root", s, 1, MPI_INT, r, 1,
            MPI_DATATYPE_NULL, 0, MPI_COMM_SELF, MPI_ERR_TYPE, -1);
        BAD("on MPI_COMM_SELF: 3 INT sent, 2 INT received", s, 3, MPI_INT, r, 2, MPI_INT, 0,
            MPI_COMM_SELF, MPI_ERR_TRUNCATE, MPI_ERR_ARG);
        if (a != 1)
            expect(W("gather[%s] on MPI_COMM_SELF: recvbuf NULL at the root", an),
                   pacoll_gather_alg(al, s, 1, MPI_INT, NULL, 1, MPI_INT, 0, MPI_COMM_SELF),
                   MPI_ERR_BUFFER, -1);
#undef BAD
    }
    expect("gather with algorithm \"bogus\"",
           pacoll_gather_alg("bogus", s, 1, MPI_INT, r, 1, MPI_INT, 0, comm), MPI_ERR_ARG, -1);
    const char *fn = foreign_name(PACOLL_GATHER);
    if (fn)
        expect(W("gather with algorithm \"%s\" of another collective", fn),
               pacoll_gather_alg(fn, s, 1, MPI_INT, r, 1, MPI_INT, 0, comm), MPI_ERR_ARG, -1);
#undef W
    free(s);
    free(r);
}

static void bad_alltoallv(MPI_Comm comm)
{
    int P;
    MPI_Comm_size(comm, &P);
    int *s = calloc((size_t)P * 8, sizeof(int)), *r = calloc((size_t)P * 8, sizeof(int));
    int *sc = malloc(sizeof(int) * (size_t)P), *rc = malloc(sizeof(int) * (size_t)P);
    int *sd = malloc(sizeof(int) * (size_t)P), *rd = malloc(sizeof(int) * (size_t)P);
    char w[256];
#define W(...) (snprintf(w, sizeof w, __VA_ARGS__), w)
#define RESET()                                                                                    \
    for (int j = 0; j < P; j++) {                                                                  \
        sc[j] = rc[j] = 1;                                                                         \
        sd[j] = rd[j] = j;                                                                         \
    }
    const char *algos[2] = {NULL, "native"};
    for (int a = 0; a < 2; a++) {
        const char *al = algos[a], *an = al ? al : "auto";
        /* native: the MPI library's verdict (see bad_alltoall_like) */
#define BAD(desc, sb, scn, sdp, st, rb, rcn, rdp, rt, cm, want, want2)                            \
    do {                                                                                           \
        int rc_ = pacoll_alltoallv_alg(al, sb, scn, sdp, st, rb, rcn, rdp, rt, cm);                \
        if (a == 1)                                                                                \
            expect(W("alltoallv[native] %s: the MPI library's verdict", desc), rc_,               \
                   err_class(PMPI_Alltoallv(sb, scn, sdp, st, rb, rcn, rdp, rt, cm)), -1);         \
        else                                                                                       \
            expect(W("alltoallv[%s] %s", an, desc), rc_, want, want2);                            \
    } while (0)
        RESET();
        sc[P - 1] = -1;
        BAD("sendcounts[last] -1", s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, MPI_ERR_COUNT, -1);
        RESET();
        rc[0] = -1;
        BAD("recvcounts[0] -1", s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, MPI_ERR_COUNT, -1);
        RESET();
        BAD("sendtype MPI_DATATYPE_NULL", s, sc, sd, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, comm,
            MPI_ERR_TYPE, -1);
        BAD("recvtype MPI_DATATYPE_NULL", s, sc, sd, MPI_INT, r, rc, rd, MPI_DATATYPE_NULL, comm,
            MPI_ERR_TYPE, -1);
        expect(W("alltoallv[%s] MPI_COMM_NULL", an),
               pacoll_alltoallv_alg(al, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_NULL),
               MPI_ERR_COMM, -1);
        if (a != 1 || NATIVE_ALIAS_OK)
            BAD("sendbuf == recvbuf without MPI_IN_PLACE", r, sc, sd, MPI_INT, r, rc, rd, MPI_INT,
                comm, MPI_ERR_BUFFER, -1);
        /* a rank's block to itself: its own mismatch is visible; on SELF */
        int one_s = 3, one_r = 2, zero = 0;
        BAD("on MPI_COMM_SELF: 3 INT sent, 2 INT received", s, &one_s, &zero, MPI_INT, r, &one_r,
            &zero, MPI_INT, MPI_COMM_SELF, MPI_ERR_TRUNCATE, MPI_ERR_ARG);
        if (a != 1)
            expect(W("alltoallv[%s] recvbuf NULL with counts", an),
                   pacoll_alltoallv_alg(al, s, sc, sd, MPI_INT, NULL, rc, rd, MPI_INT, comm),
                   MPI_ERR_BUFFER, -1);
#undef BAD
    }
    RESET();
    expect("alltoallv with algorithm \"bogus\"",
           pacoll_alltoallv_alg("bogus", s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm), MPI_ERR_ARG,
           -1);
    const char *fn = foreign_name(PACOLL_ALLTOALLV);
    if (fn)
        expect(W("alltoallv with algorithm \"%s\" of another collective", fn),
               pacoll_alltoallv_alg(fn, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm), MPI_ERR_ARG,
               -1);
#undef RESET
#undef W
    free(s);
    free(r);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
}

/* An uncommitted datatype (every rank) and a freed communicator's handle. */
static void bad_types_and_comms(MPI_Comm comm)
{
    char w[256];
    int *s = calloc((size_t)size * 16, sizeof(int)), *r = calloc((size_t)size * 16, sizeof(int));
    MPI_Datatype pair, every2;
    MPI_Type_contiguous(2, MPI_INT, &pair);   /* never committed */
    MPI_Type_vector(2, 1, 2, MPI_INT, &every2); /* never committed */
    MPI_Datatype bad[2] = {pair, every2};
    const char *bn[2] = {"contiguous(2,INT)", "vector(2,1,2,INT)"};
    const char *algos[3] = {NULL, "direct", "native"};
#ifdef SMPI_HELPERS_H /* pacoll probes for a commit only on a real MPI (docs/CHECKS.md) */
    const int nbad = 0;
#else
    const int nbad = 2;
#endif
    for (int b = 0; b < nbad; b++)
        for (int a = 0; a < 3; a++) {
            const char *al = algos[a], *an = al ? al : "auto";
            int rc = pacoll_alltoall_alg(al, s, 1, bad[b], r, 2, MPI_INT, comm);
            if (a == 2) {
                snprintf(w, sizeof w, "alltoall[native] uncommitted %s sent: the MPI library's verdict", bn[b]);
                expect(w, rc, err_class(PMPI_Alltoall(s, 1, bad[b], r, 2, MPI_INT, comm)), -1);
            } else {
                snprintf(w, sizeof w, "alltoall[%s] uncommitted %s sent", an, bn[b]);
                expect(w, rc, MPI_ERR_TYPE, -1);
                rc = pacoll_allgather_alg(al, s, 2, MPI_INT, r, 1, bad[b], comm);
                snprintf(w, sizeof w, "allgather[%s] uncommitted %s received", an, bn[b]);
                expect(w, rc, MPI_ERR_TYPE, -1);
            }
        }
    MPI_Type_free(&pair);
    MPI_Type_free(&every2);
    MPI_Comm gone;
    MPI_Comm_dup(comm, &gone);
    MPI_Comm_free(&gone); /* the handle is MPI_COMM_NULL now */
    expect("alltoall on a freed communicator's handle",
           pacoll_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, gone), MPI_ERR_COMM, -1);
    expect("gather on a freed communicator's handle",
           pacoll_gather(s, 1, MPI_INT, r, 1, MPI_INT, 0, gone), MPI_ERR_COMM, -1);
    free(s);
    free(r);
}

/* ------------------------------------------------- the error handler path */

static int handler_calls, handler_class;
static void record_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void check_errhandler(void)
{
    MPI_Comm c;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_create_errhandler(record_handler, &eh);
    MPI_Comm_set_errhandler(c, eh);
    int s[4] = {0}, r[4] = {0};
    handler_calls = 0;
    handler_class = -1;
    int rc = pacoll_alltoall(s, -1, MPI_INT, r, 1, MPI_INT, c);
    expect("alltoall count -1 through a user error handler: return value", rc, MPI_ERR_COUNT, -1);
    expect_true("the communicator's error handler was called once with MPI_ERR_COUNT",
                handler_calls == 1 && handler_class == MPI_ERR_COUNT);
    handler_calls = 0;
    handler_class = -1;
    rc = pacoll_gather(s, 1, MPI_INT, r, 1, MPI_INT, -3, c);
    expect_true("gather root -3: the error handler was called once with MPI_ERR_ROOT",
                handler_calls == 1 && handler_class == MPI_ERR_ROOT);
    handler_calls = 0;
    rc = pacoll_allgather_alg("bogus", s, 1, MPI_INT, r, 1, MPI_INT, c);
    expect_true("allgather \"bogus\": the error handler was called once with MPI_ERR_ARG",
                handler_calls == 1 && handler_class == MPI_ERR_ARG);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&c);
}

/* ---------------------------------------------------- valid calls, checked */

static int val(int src, int dst, int i, int salt) { return src * 1000003 + dst * 1009 + i * 7 + salt; }

/* every collective once through algo on comm, results verified directly;
 * returns the number of wrong values */
static long valid_calls(const char *algo, int coll_mask, MPI_Comm comm, int salt)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const int n = 5;
    int *s = malloc(sizeof(int) * (size_t)(P * n + 8)), *r = malloc(sizeof(int) * (size_t)(P * n + 8));
    long bad = 0;
    char w[256];
    const char *an = algo ? algo : "auto";
    if (coll_mask & (1 << PACOLL_ALLTOALL)) {
        for (int j = 0; j < P; j++)
            for (int i = 0; i < n; i++) s[j * n + i] = val(me, j, i, salt);
        memset(r, 0xff, sizeof(int) * (size_t)(P * n));
        snprintf(w, sizeof w, "valid alltoall[%s]", an);
        expect(w, pacoll_alltoall_alg(algo, s, n, MPI_INT, r, n, MPI_INT, comm), MPI_SUCCESS, -1);
        for (int j = 0; j < P; j++)
            for (int i = 0; i < n; i++) bad += r[j * n + i] != val(j, me, i, salt);
    }
    if (coll_mask & (1 << PACOLL_ALLTOALLV)) {
        int *sc = malloc(sizeof(int) * (size_t)P), *sd = malloc(sizeof(int) * (size_t)P);
        int *rc = malloc(sizeof(int) * (size_t)P), *rd = malloc(sizeof(int) * (size_t)P);
        /* from i to j: (i + j) % 3 elements, in reverse order */
        int so = 0, ro = 0;
        for (int j = P - 1; j >= 0; j--) {
            sc[j] = (me + j) % 3;
            sd[j] = so;
            so += sc[j];
            rc[j] = (j + me) % 3;
            rd[j] = ro;
            ro += rc[j];
        }
        for (int j = 0; j < P; j++)
            for (int i = 0; i < sc[j]; i++) s[sd[j] + i] = val(me, j, i, salt);
        memset(r, 0xff, sizeof(int) * (size_t)(P * n));
        snprintf(w, sizeof w, "valid alltoallv[%s]", an);
        expect(w, pacoll_alltoallv_alg(algo, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm),
               MPI_SUCCESS, -1);
        for (int j = 0; j < P; j++)
            for (int i = 0; i < rc[j]; i++) bad += r[rd[j] + i] != val(j, me, i, salt);
        free(sc);
        free(sd);
        free(rc);
        free(rd);
    }
    if (coll_mask & (1 << PACOLL_ALLGATHER)) {
        for (int i = 0; i < n; i++) s[i] = val(me, -1, i, salt);
        memset(r, 0xff, sizeof(int) * (size_t)(P * n));
        snprintf(w, sizeof w, "valid allgather[%s]", an);
        expect(w, pacoll_allgather_alg(algo, s, n, MPI_INT, r, n, MPI_INT, comm), MPI_SUCCESS, -1);
        for (int j = 0; j < P; j++)
            for (int i = 0; i < n; i++) bad += r[j * n + i] != val(j, -1, i, salt);
    }
    if (coll_mask & (1 << PACOLL_GATHER)) {
        int root = (salt & 0xffff) % P;
        for (int i = 0; i < n; i++) s[i] = val(me, -2, i, salt);
        memset(r, 0xff, sizeof(int) * (size_t)(P * n));
        snprintf(w, sizeof w, "valid gather[%s] root %d", an, root);
        expect(w, pacoll_gather_alg(algo, s, n, MPI_INT, r, n, MPI_INT, root, comm), MPI_SUCCESS, -1);
        if (me == root)
            for (int j = 0; j < P; j++)
                for (int i = 0; i < n; i++) bad += r[j * n + i] != val(j, -2, i, salt);
    }
    free(s);
    free(r);
    return bad;
}

/* every collective through every algorithm (auto, native, registered) */
static void all_valid(MPI_Comm comm, const char *when)
{
    char w[256];
    long bad = valid_calls(NULL, 0xf, comm, 11);
    bad += valid_calls("native", 0xf, comm, 12);
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) != MPI_SUCCESS) continue;
        long b = valid_calls(info.name, 1 << info.coll, comm, 100 + i);
        snprintf(w, sizeof w, "%s: %s[%s] gives the right values", when,
                 pacoll_coll_name(info.coll), info.name);
        expect_true(w, b == 0);
    }
    snprintf(w, sizeof w, "%s: auto and native give the right values", when);
    expect_true(w, bad == 0);
}

/* --------------------------------------------- choosing per communicator */

static void check_set_algorithm(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    char name[64], w[256];
    for (int coll = 0; coll < PACOLL_NCOLL; coll++) {
        const char *cn = pacoll_coll_name((pacoll_coll_t)coll);
        memset(name, 'x', sizeof name);
        int rc = pacoll_comm_last_algorithm(c, (pacoll_coll_t)coll, name, sizeof name);
        snprintf(w, sizeof w, "last algorithm of %s on a fresh communicator is \"\"", cn);
        expect_true(w, rc == MPI_SUCCESS && name[0] == '\0');
        snprintf(w, sizeof w, "pacoll_comm_set_algorithm(%s, \"bogus\")", cn);
        expect(w, pacoll_comm_set_algorithm(c, (pacoll_coll_t)coll, "bogus"), MPI_ERR_ARG, -1);
        const char *fn = foreign_name(coll);
        if (fn) {
            snprintf(w, sizeof w, "pacoll_comm_set_algorithm(%s, \"%s\" of another collective)", cn, fn);
            expect(w, pacoll_comm_set_algorithm(c, (pacoll_coll_t)coll, fn), MPI_ERR_ARG, -1);
        }
        /* a bad name leaves the previous choice (automatic) in place */
        long bad = valid_calls(NULL, 1 << coll, c, 200 + coll);
        snprintf(w, sizeof w, "%s still right after a bad pacoll_comm_set_algorithm", cn);
        expect_true(w, bad == 0);
        /* every registered name (and native) set, used, reported */
        int n = pacoll_algorithm_count();
        for (int i = -1; i < n; i++) {
            const char *an = "native";
            if (i >= 0) {
                pacoll_algo_info_t info;
                if (pacoll_algorithm_info(i, &info) != MPI_SUCCESS || (int)info.coll != coll)
                    continue;
                an = info.name;
            }
            snprintf(w, sizeof w, "pacoll_comm_set_algorithm(%s, \"%s\")", cn, an);
            expect(w, pacoll_comm_set_algorithm(c, (pacoll_coll_t)coll, an), MPI_SUCCESS, -1);
            bad = valid_calls(NULL, 1 << coll, c, 300 + i);
            snprintf(w, sizeof w, "%s right with \"%s\" set on the communicator", cn, an);
            expect_true(w, bad == 0);
            pacoll_comm_last_algorithm(c, (pacoll_coll_t)coll, name, sizeof name);
            snprintf(w, sizeof w, "%s with \"%s\" set: last algorithm \"%s\" is it or native", cn,
                     an, name);
            expect_true(w, strcmp(name, an) == 0 || strcmp(name, "native") == 0);
        }
        snprintf(w, sizeof w, "pacoll_comm_set_algorithm(%s, NULL)", cn);
        expect(w, pacoll_comm_set_algorithm(c, (pacoll_coll_t)coll, NULL), MPI_SUCCESS, -1);
        snprintf(w, sizeof w, "pacoll_comm_set_algorithm(%s, \"\")", cn);
        expect(w, pacoll_comm_set_algorithm(c, (pacoll_coll_t)coll, ""), MPI_SUCCESS, -1);
        bad = valid_calls(NULL, 1 << coll, c, 400 + coll);
        snprintf(w, sizeof w, "%s right after returning to automatic selection", cn);
        expect_true(w, bad == 0);
        /* a short name buffer: NUL-terminated within len */
        char small[3] = {'x', 'x', 'x'};
        rc = pacoll_comm_last_algorithm(c, (pacoll_coll_t)coll, small, 3);
        snprintf(w, sizeof w, "pacoll_comm_last_algorithm(%s) with len 3 terminates the name", cn);
        expect_true(w, rc == MPI_SUCCESS && memchr(small, '\0', 3) != NULL);
    }
    expect("pacoll_comm_set_algorithm(PACOLL_NCOLL, \"native\")",
           pacoll_comm_set_algorithm(c, PACOLL_NCOLL, "native"), MPI_ERR_ARG, -1);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------- teams */

static void check_teams(void)
{
    char w[256];
    int n = pacoll_algorithm_count();
    long bad = 0;
    /* 50 communicators, each used by every collective, then freed */
    for (int it = 0; it < 50; it++) {
        MPI_Comm c;
        switch (it % 3) {
        case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
        case 1: MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &c); break;
        default: {
            MPI_Group g, h;
            MPI_Comm_group(MPI_COMM_WORLD, &g);
            int range[1][3] = {{size - 1, 0, -1}}; /* every rank, reversed */
            MPI_Group_range_incl(g, 1, range, &h);
            MPI_Comm_create(MPI_COMM_WORLD, h, &c);
            MPI_Group_free(&g);
            MPI_Group_free(&h);
        }
        }
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        bad += valid_calls(NULL, 0xf, c, 1000 + it);
        /* and one forced registered algorithm, a different one each time */
        if (n > 0) {
            pacoll_algo_info_t info;
            if (pacoll_algorithm_info(it % n, &info) == MPI_SUCCESS)
                bad += valid_calls(info.name, 1 << info.coll, c, 2000 + it);
        }
        MPI_Comm_free(&c);
    }
    expect_true("50 communicators made, used and freed: right values", bad == 0);

    /* a dup of a communicator that has a team, then the parent freed first */
    MPI_Comm a, b, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    bad = valid_calls(NULL, 0xf, a, 3000);
    MPI_Comm_dup(a, &b); /* attributes are copied here: b must get its own team */
    MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
    bad += valid_calls(NULL, 0xf, b, 3001);
    bad += valid_calls(NULL, 0xf, a, 3002);
    MPI_Comm_free(&a);
    bad += valid_calls(NULL, 0xf, b, 3003);
    MPI_Comm_split(b, 0, rank % 2 ? rank : -rank, &d);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    MPI_Comm_free(&b);
    bad += valid_calls(NULL, 0xf, d, 3004);
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS)
            bad += valid_calls(info.name, 1 << info.coll, d, 3100 + i);
    }
    MPI_Comm_free(&d);
    snprintf(w, sizeof w, "dup of a communicator with a team, parent freed first: right values");
    expect_true(w, bad == 0);

    /* MPI_Comm_free right after a call with every algorithm, no sync between */
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) != MPI_SUCCESS) continue;
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        long b2 = valid_calls(info.name, 1 << info.coll, c, 4000 + i);
        b2 += valid_calls(info.name, 1 << info.coll, c, 4100 + i);
        MPI_Comm_free(&c);
        snprintf(w, sizeof w, "%s[%s] twice then MPI_Comm_free at once", pacoll_coll_name(info.coll),
                 info.name);
        expect_true(w, b2 == 0);
    }

    /* MPI_COMM_SELF and a communicator with MPI_UNDEFINED members */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    expect_true("every collective on MPI_COMM_SELF", valid_calls(NULL, 0xf, MPI_COMM_SELF, 5000) == 0);
    MPI_Comm e;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 && size > 1 ? MPI_UNDEFINED : 1, rank, &e);
    if (e != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(e, MPI_ERRORS_RETURN);
        expect_true("every collective on a split without rank 0",
                    valid_calls(NULL, 0xf, e, 5001) == 0);
        MPI_Comm_free(&e);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    (void)argc;
    (void)argv;
    /* MPI_COMM_NULL errors are raised on MPI_COMM_WORLD (MPI-3) or
     * MPI_COMM_SELF (MPI-4): make both return */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    check_registry();
    all_valid(comm, "before the errors");
    /* the errors, on a communicator with a team and on one without */
    for (int pass = 0; pass < 2; pass++) {
        MPI_Comm c = comm;
        if (pass == 1) {
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        }
        bad_alltoall_like(PACOLL_ALLTOALL, c);
        bad_alltoall_like(PACOLL_ALLGATHER, c);
        bad_gather(c);
        bad_alltoallv(c);
        bad_types_and_comms(c);
        all_valid(c, pass ? "after the errors (fresh communicator)" : "after the errors");
        if (pass == 1) MPI_Comm_free(&c);
    }
    check_errhandler();
    check_set_algorithm();
    check_teams();
    all_valid(comm, "at the end");
    all_valid(MPI_COMM_WORLD, "at the end, on MPI_COMM_WORLD");
    MPI_Comm_free(&comm);

    long l[2] = {nchecks, nfail}, g[2];
    MPI_Allreduce(l, g, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("check_errors: %ld checks passed, %ld failed\n", g[0] - g[1], g[1]);
        fflush(stdout);
    }
    MPI_Finalize();
    return g[1] ? 1 : 0;
}
