/*
 * Nonblocking collectives under the preload library (api/nonblocking.c):
 * random cases (printed seed) of MPI_Ialltoall, MPI_Ialltoallv,
 * MPI_Iallgather and MPI_Igather, every result checked against the MPI
 * library's own blocking call (PMPI_*), completed in every way a program
 * may: MPI_Wait, MPI_Test loops, MPI_Waitall / Waitany / Waitsome /
 * Testall on arrays mixed with point-to-point requests,
 * MPI_Request_get_status; two calls in flight on one communicator, calls on
 * two communicators started in a different order on odd and even ranks, a
 * blocking collective on the same communicator while one is in flight, a
 * rank blocked in MPI_Recv while another waits for the collective (progress
 * must come from the MPI library's own loop), ranks late by up to 2 ms,
 * computation between start and wait, MPI_IN_PLACE, a strided datatype, a
 * communicator made while a call is in flight on another, and freed while
 * its own call is in flight.
 *
 * --expect-pacoll: after each call, pacoll_comm_last_algorithm must name the
 * algorithm PACOLL_<COLL> forces (the call ran on pacoll's algorithm, not
 * the library's).  Prints "nonblocking-c: OK (N cases, seed S)".
 */
#define _GNU_SOURCE /* usleep, RTLD_DEFAULT */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { A2A, A2AV, AG, GA, NCOLL };
static const char *coll_names[NCOLL] = {"alltoall", "alltoallv", "allgather", "gather"};
static const char *env_names[NCOLL] = {"PACOLL_ALLTOALL", "PACOLL_ALLTOALLV", "PACOLL_ALLGATHER",
                                       "PACOLL_GATHER"};

static int rank, size, failures;
static unsigned long long rng;
static int (*last_algo)(MPI_Comm, int, char *, int);

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (unsigned)(rng >> 33) % n : 0;
}

typedef struct {
    int coll, count, root, in_place, strided;
    MPI_Comm comm;
    int csize, crank;
    int *sbuf, *rbuf, *ref;
    size_t sn, rn;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype stype; /* MPI_INT, or a vector of count ints at stride 2 */
} call_t;

static void fail(const char *what, int seed_case)
{
    failures++;
    fprintf(stderr, "nonblocking-c: rank %d: FAIL %s (case %d)\n", rank, what, seed_case);
}

static void fill(call_t *c, int round);

/* Buffers and the reference result of one call on comm. */
static void setup(call_t *c, int coll, MPI_Comm comm, int big)
{
    memset(c, 0, sizeof *c);
    c->coll = coll;
    c->comm = comm;
    MPI_Comm_size(comm, &c->csize);
    MPI_Comm_rank(comm, &c->crank);
    c->count = big ? 16384 + (int)rnd(4096) : (int)rnd(5) == 0 ? 0 : 1 + (int)rnd(200);
    c->root = (int)rnd((unsigned)c->csize);
    c->in_place = (coll == AG || coll == GA) && rnd(4) == 0;
    c->strided = (coll == A2A || coll == AG) && !c->in_place && rnd(3) == 0;
    int p = c->csize, n = c->count;
    if (coll == A2AV) {
        c->scounts = malloc(4 * (size_t)p * sizeof(int));
        c->sdispls = c->scounts + p, c->rcounts = c->scounts + 2 * p, c->rdispls = c->scounts + 3 * p;
        /* what rank r sends to s: (r * 7 + s * 3 + seed) % (n + 1), known alike everywhere */
        unsigned salt = rnd(1000);
        int so = 0, ro = 0;
        for (int q = 0; q < p; q++) {
            c->scounts[q] = (int)((c->crank * 7 + q * 3 + salt) % (unsigned)(n + 1));
            c->rcounts[q] = (int)((q * 7 + c->crank * 3 + salt) % (unsigned)(n + 1));
            c->sdispls[q] = so, so += c->scounts[q] + 1; /* a gap between blocks */
            c->rdispls[q] = ro, ro += c->rcounts[q] + 1;
        }
        c->sn = (size_t)so + 1, c->rn = (size_t)ro + 1;
    } else {
        size_t blocks = coll == A2A ? (size_t)p : 1;
        c->sn = (c->strided ? 2 : 1) * (size_t)n * blocks + 1;
        c->rn = (size_t)n * p + 1;
    }
    c->sbuf = malloc(c->sn * sizeof(int));
    c->rbuf = malloc(c->rn * sizeof(int));
    c->ref = malloc(c->rn * sizeof(int));
    c->stype = MPI_INT;
    if (c->strided) {
        MPI_Datatype v;
        MPI_Type_vector(n, 1, 2, MPI_INT, &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * n * (int)sizeof(int)), &c->stype);
        MPI_Type_free(&v);
        MPI_Type_commit(&c->stype);
    }
    fill(c, 0);
}

/* New send data (round `round` of a persistent request: the same buffers),
 * and the reference: the MPI library's own blocking call. */
static void fill(call_t *c, int round)
{
    int coll = c->coll, n = c->count;
    MPI_Comm comm = c->comm;
    for (size_t i = 0; i < c->sn; i++)
        c->sbuf[i] = (int)(c->crank * 1000003 + (int)i * 7 + 1 + round * 101);
    for (size_t i = 0; i < c->rn; i++)
        c->rbuf[i] = c->ref[i] = -1 - (int)i - round;
    int scount = c->strided ? 1 : n;
    switch (coll) {
    case A2A:
        PMPI_Alltoall(c->sbuf, scount, c->stype, c->ref, n, MPI_INT, comm);
        break;
    case A2AV:
        PMPI_Alltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->ref, c->rcounts, c->rdispls,
                       MPI_INT, comm);
        break;
    case AG:
        if (c->in_place) {
            memcpy(c->ref + (size_t)c->crank * n, c->sbuf, (size_t)n * sizeof(int));
            memcpy(c->rbuf + (size_t)c->crank * n, c->sbuf, (size_t)n * sizeof(int));
            PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->ref, n, MPI_INT, comm);
        } else {
            PMPI_Allgather(c->sbuf, scount, c->stype, c->ref, n, MPI_INT, comm);
        }
        break;
    case GA:
        if (c->in_place && c->crank == c->root) {
            memcpy(c->ref + (size_t)c->crank * n, c->sbuf, (size_t)n * sizeof(int));
            memcpy(c->rbuf + (size_t)c->crank * n, c->sbuf, (size_t)n * sizeof(int));
            PMPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->ref, n, MPI_INT, c->root, comm);
        } else {
            PMPI_Gather(c->sbuf, n, MPI_INT, c->ref, n, MPI_INT, c->root, comm);
        }
        break;
    }
}

static int start(call_t *c, MPI_Request *req)
{
    int n = c->count, scount = c->strided ? 1 : n;
    int ip = c->in_place;
    switch (c->coll) {
    case A2A:
        return MPI_Ialltoall(c->sbuf, scount, c->stype, c->rbuf, n, MPI_INT, c->comm, req);
    case A2AV:
        return MPI_Ialltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf, c->rcounts,
                              c->rdispls, MPI_INT, c->comm, req);
    case AG:
        return MPI_Iallgather(ip ? MPI_IN_PLACE : c->sbuf, ip ? 0 : scount,
                              ip ? MPI_DATATYPE_NULL : c->stype, c->rbuf, n, MPI_INT, c->comm, req);
    default:
        ip = ip && c->crank == c->root;
        return MPI_Igather(ip ? MPI_IN_PLACE : c->sbuf, ip ? 0 : n, ip ? MPI_DATATYPE_NULL : MPI_INT,
                           c->rbuf, n, MPI_INT, c->root, c->comm, req);
    }
}

#ifdef PC_TEST_PERSISTENT
/* The persistent form (MPI-4). */
static int pinit(call_t *c, MPI_Request *req)
{
    int n = c->count, scount = c->strided ? 1 : n;
    int ip = c->in_place;
    switch (c->coll) {
    case A2A:
        return MPI_Alltoall_init(c->sbuf, scount, c->stype, c->rbuf, n, MPI_INT, c->comm,
                                 MPI_INFO_NULL, req);
    case A2AV:
        return MPI_Alltoallv_init(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf, c->rcounts,
                                  c->rdispls, MPI_INT, c->comm, MPI_INFO_NULL, req);
    case AG:
        return MPI_Allgather_init(ip ? MPI_IN_PLACE : c->sbuf, ip ? 0 : scount,
                                  ip ? MPI_DATATYPE_NULL : c->stype, c->rbuf, n, MPI_INT, c->comm,
                                  MPI_INFO_NULL, req);
    default:
        ip = ip && c->crank == c->root;
        return MPI_Gather_init(ip ? MPI_IN_PLACE : c->sbuf, ip ? 0 : n,
                               ip ? MPI_DATATYPE_NULL : MPI_INT, c->rbuf, n, MPI_INT, c->root,
                               c->comm, MPI_INFO_NULL, req);
    }
}
#endif

/* The same call, blocking, through the preload library. */
static void blocking(call_t *c)
{
    int n = c->count, scount = c->strided ? 1 : n, ip = c->in_place;
    switch (c->coll) {
    case A2A:
        MPI_Alltoall(c->sbuf, scount, c->stype, c->rbuf, n, MPI_INT, c->comm);
        break;
    case A2AV:
        MPI_Alltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf, c->rcounts, c->rdispls,
                      MPI_INT, c->comm);
        break;
    case AG:
        MPI_Allgather(ip ? MPI_IN_PLACE : c->sbuf, ip ? 0 : scount, ip ? MPI_DATATYPE_NULL : c->stype,
                      c->rbuf, n, MPI_INT, c->comm);
        break;
    default:
        ip = ip && c->crank == c->root;
        MPI_Gather(ip ? MPI_IN_PLACE : c->sbuf, ip ? 0 : n, ip ? MPI_DATATYPE_NULL : MPI_INT, c->rbuf,
                   n, MPI_INT, c->root, c->comm);
    }
}

/* The result, and which algorithm ran it; the buffers are kept. */
static void finish_round(call_t *c, int kase, int expect)
{
    int check = c->coll != GA || c->crank == c->root;
    if (check && memcmp(c->rbuf, c->ref, c->rn * sizeof(int)) != 0) {
        char what[96];
        snprintf(what, sizeof what, "%s of %d ints on %d ranks differs from PMPI's",
                 coll_names[c->coll], c->count, c->csize);
        fail(what, kase);
    }
    const char *want = getenv(env_names[c->coll]);
    if (expect && last_algo && want && c->comm != MPI_COMM_NULL) {
        char got[64] = "";
        last_algo(c->comm, c->coll, got, sizeof got);
        if (strcmp(got, want) != 0) {
            char what[160];
            snprintf(what, sizeof what, "%s ran '%s', not the forced '%s'", coll_names[c->coll], got,
                     want);
            fail(what, kase);
        }
    }
}

/* ... and the buffers freed. */
static void finish(call_t *c, int kase, int expect)
{
    if (kase >= -1)
        finish_round(c, kase, expect);
    if (c->strided)
        MPI_Type_free(&c->stype);
    free(c->sbuf), free(c->rbuf), free(c->ref), free(c->scounts);
}

static void compute(double seconds)
{
    double t0 = MPI_Wtime();
    volatile double x = 1;
    while (MPI_Wtime() - t0 < seconds)
        x = x * 1.0000001 + 1e-9;
}

/* A ring exchange in flight beside the collective: two requests. */
static void ring_start(MPI_Comm comm, int *out, int *in, MPI_Request *r)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    *out = me * 31 + 5;
    *in = -1;
    MPI_Irecv(in, 1, MPI_INT, (me + p - 1) % p, 77, comm, &r[0]);
    MPI_Isend(out, 1, MPI_INT, (me + 1) % p, 77, comm, &r[1]);
}

static void ring_check(MPI_Comm comm, int in, int kase)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    if (in != ((me + p - 1) % p) * 31 + 5)
        fail("the point-to-point message beside the collective", kase);
}

/* Erroneous use has the standard's error class and leaves the communicator
 * usable: a negative count (every rank alike) under MPI_ERRORS_RETURN. */
static void erroneous(MPI_Comm comm, int persistent)
{
    MPI_Comm c;
    MPI_Request r = MPI_REQUEST_NULL;
    int x[4] = {0}, y[4 * 64] = {0}, cls = MPI_SUCCESS, rc;
    MPI_Comm_dup(comm, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Alltoall(x, 1, MPI_INT, y, 1, MPI_INT, c); /* sets pacoll up on it */
#ifdef PC_TEST_PERSISTENT
    if (persistent)
        rc = MPI_Alltoall_init(x, -1, MPI_INT, y, -1, MPI_INT, c, MPI_INFO_NULL, &r);
    else
#endif
        rc = MPI_Ialltoall(x, -1, MPI_INT, y, -1, MPI_INT, c, &r);
    (void)persistent;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COUNT)
        fail(persistent ? "MPI_Alltoall_init with a negative count is not MPI_ERR_COUNT"
                        : "MPI_Ialltoall with a negative count is not MPI_ERR_COUNT",
             -1);
    if (rc == MPI_SUCCESS && r != MPI_REQUEST_NULL) /* (not reached when it failed) */
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    call_t ok;
    setup(&ok, A2A, c, 0);
    start(&ok, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    finish(&ok, -1, 0);
    MPI_Comm_free(&c);
}

#ifdef PC_TEST_PERSISTENT
/* Persistent requests: made once, started several times over the same
 * buffers (new data each round), completed every way; Startall of two;
 * freed once inactive. */
static void persistent_cases(MPI_Comm *comms, int cases, int expect)
{
    for (int kase = 0; kase < cases; kase++) {
        MPI_Comm comm = comms[rnd(2)];
        call_t c, d;
        MPI_Request r[4];
        int out, in, flag, idx, rounds = 1 + (int)rnd(4), pattern = (int)rnd(6);
        setup(&c, (int)rnd(NCOLL), comm, rnd(8) == 0);
        setup(&d, (int)rnd(NCOLL), comm, 0);
        pinit(&c, &r[0]);
        pinit(&d, &r[3]);
        for (int round = 0; round < rounds; round++) {
            if (round)
                fill(&c, round), fill(&d, round);
            if (rnd(3) == 0)
                usleep((useconds_t)(rnd(1000) * (unsigned)(rank % 3)));
            switch (pattern) {
            case 0:
                MPI_Start(&r[0]);
                MPI_Wait(&r[0], MPI_STATUS_IGNORE);
                break;
            case 1:
                MPI_Start(&r[0]);
                while (MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE), !flag)
                    compute(20e-6);
                break;
            case 2: { /* Startall of two, with point-to-point beside them */
                MPI_Request two[2] = {r[0], r[3]}, all[4];
                MPI_Startall(2, two);
                ring_start(comm, &out, &in, &r[1]);
                all[0] = two[0], all[1] = r[1], all[2] = r[2], all[3] = two[1];
                MPI_Waitall(4, all, MPI_STATUSES_IGNORE);
                if (all[0] != r[0] || all[3] != r[3])
                    fail("Waitall changed a persistent request's handle", kase);
                ring_check(comm, in, kase);
                finish_round(&d, kase, expect);
                break;
            }
            case 3: { /* waitany over the collective and point-to-point */
                MPI_Request all[3];
                MPI_Start(&r[0]);
                ring_start(comm, &out, &in, &r[1]);
                all[0] = r[1], all[1] = r[0], all[2] = r[2];
                for (int k = 0; k < 3; k++)
                    MPI_Waitany(3, all, &idx, MPI_STATUS_IGNORE);
                ring_check(comm, in, kase);
                break;
            }
            case 4: { /* MPI_Request_get_status */
                MPI_Status st;
                MPI_Start(&r[0]);
                while (MPI_Request_get_status(r[0], &flag, &st), !flag)
                    compute(10e-6);
                MPI_Wait(&r[0], &st);
                if (r[0] == MPI_REQUEST_NULL)
                    fail("Wait freed a persistent request", kase);
                break;
            }
            default: /* freed once inactive, in the last round (freeing an active
                      * persistent collective request is erroneous, MPI-4) */
                MPI_Start(&r[0]);
                MPI_Wait(&r[0], MPI_STATUS_IGNORE);
                if (round == rounds - 1) {
                    MPI_Request_free(&r[0]);
                    if (r[0] != MPI_REQUEST_NULL)
                        fail("MPI_Request_free left the handle", kase);
                }
            }
            finish_round(&c, kase, expect);
        }
        if (r[0] != MPI_REQUEST_NULL)
            MPI_Request_free(&r[0]);
        MPI_Request_free(&r[3]);
        finish(&c, -2, 0); /* (-2: the buffers only) */
        finish(&d, -2, 0);
    }
}
#endif

int main(int argc, char **argv)
{
    unsigned seed = 1;
    int cases = 100, expect = 0, persistent = 0, cases_done = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--expect-pacoll"))
            expect = 1;
        else if (!strcmp(argv[i], "--persistent"))
            persistent = 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *p = dlsym(RTLD_DEFAULT, "pacoll_comm_last_algorithm");
    memcpy(&last_algo, &p, sizeof p);
    rng = seed;
    if (rank == 0)
        printf("nonblocking-c: seed %u, %d cases, %d ranks\n", seed, cases, size);

    /* two communicators; a blocking call of each collective on each sets
     * up pacoll's team (a communicator's first calls are blocking ones) */
    MPI_Comm comms[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 || size < 3 ? 0 : 1, size - rank, &comms[1]);
    for (int k = 0; k < 2; k++)
        for (int coll = 0; coll < NCOLL; coll++) {
            call_t c;
            setup(&c, coll, comms[k], 0);
            blocking(&c);
            finish(&c, -1, 0);
        }

    erroneous(MPI_COMM_WORLD, persistent);
#ifdef PC_TEST_PERSISTENT
    if (persistent) {
        persistent_cases(comms, cases, expect);
        cases_done = cases;
    }
#else
    if (persistent) {
        if (rank == 0)
            printf("nonblocking-c: SKIP: this MPI has no persistent collectives\n");
        MPI_Finalize();
        return 0;
    }
#endif
    for (int kase = 0; kase < cases && !cases_done; kase++) {
        int coll = (int)rnd(NCOLL), pattern = (int)rnd(11), big = rnd(8) == 0;
        MPI_Comm comm = comms[rnd(2)];
        call_t c, d;
        MPI_Request r[4];
        int out, in, flag = 0, idx;
        setup(&c, coll, comm, big);
        if (rnd(3) == 0) /* a late rank */
            usleep((useconds_t)(rnd(2000) * (unsigned)(rank % 3)));
        switch (pattern) {
        case 0: /* wait */
            start(&c, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            break;
        case 1: /* test until done, computing between */
            start(&c, &r[0]);
            while (MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE), !flag)
                compute(20e-6);
            break;
        case 2: /* mixed with point-to-point, waitall */
            start(&c, &r[0]);
            ring_start(comm, &out, &in, &r[1]);
            MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
            ring_check(comm, in, kase);
            break;
        case 3: /* waitany until all */
            ring_start(comm, &out, &in, &r[0]);
            start(&c, &r[2]);
            for (int k = 0; k < 3; k++)
                MPI_Waitany(3, r, &idx, MPI_STATUS_IGNORE);
            ring_check(comm, in, kase);
            if (r[0] != MPI_REQUEST_NULL || r[1] != MPI_REQUEST_NULL || r[2] != MPI_REQUEST_NULL)
                fail("Waitany left a request", kase);
            break;
        case 4: { /* waitsome, then testall */
            start(&c, &r[0]);
            ring_start(comm, &out, &in, &r[1]);
            int outcount, idxs[3];
            MPI_Waitsome(3, r, &outcount, idxs, MPI_STATUSES_IGNORE);
            if (outcount < 1)
                fail("Waitsome completed nothing", kase);
            while (MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE), !flag)
                ;
            ring_check(comm, in, kase);
            break;
        }
        case 5: { /* MPI_Request_get_status, then wait */
            MPI_Status st;
            start(&c, &r[0]);
            while (MPI_Request_get_status(r[0], &flag, &st), !flag)
                compute(10e-6);
            /* (MPI leaves a library's collective status undefined but for
             * MPI_ERROR; pacoll's is empty) */
            int cancelled = 0;
            MPI_Test_cancelled(&st, &cancelled);
            if (expect && cancelled)
                fail("the status says cancelled", kase);
            MPI_Wait(&r[0], &st);
            if (r[0] != MPI_REQUEST_NULL)
                fail("Wait left the request", kase);
            break;
        }
        case 6: /* two calls in flight on one communicator */
            setup(&d, (int)rnd(NCOLL), comm, 0);
            start(&c, &r[0]);
            start(&d, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            finish(&d, kase, expect);
            break;
        case 7: /* two communicators, started in a different order by odd and even ranks */
            setup(&d, (int)rnd(NCOLL), comm == comms[0] ? comms[1] : comms[0], 0);
            if (rank % 2) {
                start(&c, &r[0]);
                start(&d, &r[1]);
            } else {
                start(&d, &r[1]);
                start(&c, &r[0]);
            }
            MPI_Wait(&r[rank % 2], MPI_STATUS_IGNORE);
            MPI_Wait(&r[1 - rank % 2], MPI_STATUS_IGNORE);
            finish(&d, kase, expect);
            break;
        case 8: { /* a blocking collective on the same communicator while one is in flight */
            int x = rank + 1, sum = 0, want = 0;
            start(&c, &r[0]);
            MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm);
            PMPI_Allreduce(&x, &want, 1, MPI_INT, MPI_SUM, comm);
            if (sum != want)
                fail("the allreduce beside the collective", kase);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            break;
        }
        case 9: { /* rank 0 blocked in MPI_Recv while rank 1 waits for the collective */
            static int msg[65536];
            int me, cp;
            MPI_Comm_rank(comm, &me);
            MPI_Comm_size(comm, &cp);
            start(&c, &r[0]);
            if (cp >= 2 && me == 0)
                MPI_Recv(msg, 65536, MPI_INT, 1, 78, comm, MPI_STATUS_IGNORE);
            if (cp >= 2 && me == 1) {
                MPI_Wait(&r[0], MPI_STATUS_IGNORE);
                MPI_Send(msg, 65536, MPI_INT, 0, 78, comm);
            } else {
                MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            }
            break;
        }
        default: { /* a communicator made (pacoll's team set up on it) while a call is in
                    * flight on another, then freed while its own call is in flight */
            MPI_Comm dup;
            call_t w, x;
            start(&c, &r[0]);
            MPI_Comm_dup(comm, &dup);
            setup(&w, coll, dup, 0); /* its first call, blocking, sets up the team */
            blocking(&w);
            finish(&w, kase, 0);
            setup(&x, (int)rnd(NCOLL), dup, 0);
            start(&x, &r[1]);
            MPI_Comm_free(&dup);
            x.comm = MPI_COMM_NULL;
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            finish(&x, kase, 0);
            break;
        }
        }
        finish(&c, kase, expect);
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("nonblocking-c: OK (%d cases, seed %u)\n", cases, seed);
    else if (rank == 0)
        printf("nonblocking-c: %d failures\n", all);
    MPI_Finalize();
    return all != 0;
}
