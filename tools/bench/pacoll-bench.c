/*
 * pacoll-bench: times pacoll's algorithms for one collective, side by side
 * with the MPI library's own ("native"), under controlled arrival skew.
 *
 *   pacoll-bench alltoall --sizes 1:64k --mif 32 --repeat 5 --json out.json
 *
 * Measurement (docs/BENCH.md has the whole story):
 *   for each size m: T(m) = one-way time of an m-byte message (ping-pong rank
 *   0 <-> --pp-peer), then for each repeat, for each algorithm (A B A B ...):
 *     warm-up + timed iterations of
 *       PMPI_Barrier; delay d_i (simulated computation: skew model of the
 *       pap-aware paper, sec. 3.2: uniform in [0, MIF x T(m)], or MIF x T(m)
 *       for a set of late ranks); a_i = now; collective; e_i = now
 *   and reports over ranks the mean of e_i - a_i (avg/min/max over ranks),
 *   max e - max a (last arrival to last exit) and max a - min a (the skew
 *   actually produced) on a common clock.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#ifdef SMPI_HELPERS_H
#include <simgrid/host.h>
#include <smpi/smpi.h>
#endif

/* The reused buffers: --sim-shared-buffers makes every simulated rank's
 * one block (SMPI_SHARED_MALLOC), so a 1024-rank allgather of 32 KB needs
 * 32 MB of memory instead of 32 GB.  Elsewhere, plain aligned memory. */
static void *buf_alloc(const bench_opts_t *o, size_t bytes)
{
#ifdef SMPI_HELPERS_H
    if (o->sim_shared)
        return SMPI_SHARED_MALLOC(bytes ? bytes : 1);
#endif
    (void)o;
    return bench_buf_alloc(bytes, 0);
}

static void buf_free(const bench_opts_t *o, void *p, size_t bytes)
{
#ifdef SMPI_HELPERS_H
    if (o->sim_shared) {
        if (p)
            SMPI_SHARED_FREE(p);
        return;
    }
#endif
    (void)o;
    bench_buf_free(p, bytes, 0);
}

#define TAG_PINGPONG 7301
#define TAG_CLOCK 7302

/* Everything one rank needs during the run (no globals: SMPI ranks are threads). */
typedef struct bench_ctx {
    bench_opts_t *o;
    bench_env_t *e;
    MPI_Comm comm;
    int rank, nranks;
    int i_am_late;              /* --late-ranks */
    unsigned char *late_bitmap; /* --late: who is late this iteration */
    int *late_chosen;
    double offset; /* this rank's clock - rank 0's clock */
    unsigned long long errors;
} bench_ctx_t;

static void die(bench_ctx_t *c, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "pacoll-bench: rank %d: %s%s%s\n", c->rank, what, len ? ": " : "", msg);
    fflush(stderr);
    PMPI_Abort(c->comm, BENCH_EXIT_FAIL);
}

/* ---- the clock of arrival and exit times ----
 * SMPI: MPI_Wtime, one simulated clock.  Real MPI: CLOCK_MONOTONIC, which all
 * processes of one host share (Open MPI's MPI_Wtime counts from a per-process
 * origin, so two ranks' MPI_Wtime values cannot be compared), plus a per-rank
 * offset to rank 0 estimated by ping-pong when ranks span hosts (--clock
 * sync); --clock global trusts MPI_Wtime as it is. */
static double now(const bench_ctx_t *c)
{
#ifdef SMPI_HELPERS_H
    (void)c;
    return MPI_Wtime();
#else
    if (c->e->clock == CLOCK_GLOBAL)
        return MPI_Wtime();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
}

/* ---- the injected delay ---- */
static void compute_for(const bench_ctx_t *c, double seconds, double t0)
{
    if (seconds <= 0)
        return;
#ifdef SMPI_HELPERS_H
    /* Simulated computation: exactly `seconds` of this host's speed.  (Not
     * smpi_execute(), which scales by smpi/host-speed and skips short ones.) */
    (void)t0;
    (void)c;
    smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#else
    /* A rank that computes: it neither sleeps nor calls MPI. */
    while (now(c) - t0 < seconds) {
    }
#endif
}

/* This rank's delay before iteration `it`, in seconds.  All draws of a block
 * come from streams keyed by (seed, size, repeat) - per rank for the random
 * delays, shared by all ranks for the choice of the late ones - so every
 * algorithm of a repeat sees the very same arrival pattern. */
static double draw_delay(bench_ctx_t *c, bench_rng_t *mine, bench_rng_t *shared, double tm)
{
    const bench_opts_t *o = c->o;
    double late = o->mif * tm;
    switch (o->skew) {
    case SKEW_RANDOM: return bench_rng_double(mine) * late;
    case SKEW_LATE_RANKS: return c->i_am_late ? late : 0;
    case SKEW_LATE_FRACTION: {
        /* Floyd's sampling of k of P ranks, identical on every rank. */
        int P = c->nranks, k = (int)floor(o->late_fraction * P + 0.5);
        if (k > P)
            k = P;
        for (int j = P - k, n = 0; j < P; j++, n++) {
            int t = (int)bench_rng_upto(shared, (uint64_t)j);
            int pick = (c->late_bitmap[t >> 3] >> (t & 7)) & 1 ? j : t;
            c->late_bitmap[pick >> 3] |= (unsigned char)(1u << (pick & 7));
            c->late_chosen[n] = pick;
        }
        int me = (c->late_bitmap[c->rank >> 3] >> (c->rank & 7)) & 1;
        for (int n = 0; n < k; n++)
            c->late_bitmap[c->late_chosen[n] >> 3] = 0;
        return me ? late : 0;
    }
    default: return 0;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- T(m): one-way time of one m-byte message, rank 0 <-> peer ---- */
static double measure_tm(bench_ctx_t *c, size_t m)
{
    double tm = 0;
    if (c->nranks < 2)
        return 0;
    int peer = c->o->pp_peer, cnt = (int)m;
    long reps = (long)((4u << 20) / (m ? m : 1));
    reps = reps < 10 ? 10 : reps > 100 ? 100 : reps;
    const long warm = 3;
    char *buf = malloc(m ? m : 1);
    if (!buf)
        die(c, "out of memory (ping-pong buffer)", MPI_SUCCESS);
    memset(buf, 0x5a, m ? m : 1);
    PMPI_Barrier(c->comm);
    if (c->rank == 0) {
        /* the median round trip: robust to a descheduled rank (oversubscription) */
        double rtt[100];
        for (long i = 0; i < warm + reps; i++) {
            double t0 = MPI_Wtime();
            PMPI_Send(buf, cnt, MPI_BYTE, peer, TAG_PINGPONG, c->comm);
            PMPI_Recv(buf, cnt, MPI_BYTE, peer, TAG_PINGPONG, c->comm, MPI_STATUS_IGNORE);
            if (i >= warm)
                rtt[i - warm] = MPI_Wtime() - t0;
        }
        qsort(rtt, (size_t)reps, sizeof(double), cmp_double);
        tm = (reps % 2 ? rtt[reps / 2] : 0.5 * (rtt[reps / 2 - 1] + rtt[reps / 2])) / 2.0;
    } else if (c->rank == peer) {
        for (long i = 0; i < warm + reps; i++) {
            PMPI_Recv(buf, cnt, MPI_BYTE, 0, TAG_PINGPONG, c->comm, MPI_STATUS_IGNORE);
            PMPI_Send(buf, cnt, MPI_BYTE, 0, TAG_PINGPONG, c->comm);
        }
    }
    free(buf);
    PMPI_Bcast(&tm, 1, MPI_DOUBLE, 0, c->comm);
    return tm;
}

/* ---- common clock: offset of this rank's MPI_Wtime to rank 0's ----
 * Cristian's method: the reply with the shortest round trip wins; its error
 * is at most half that round trip. */
static double clock_offset(bench_ctx_t *c)
{
    const int K = 10;
    double off = 0;
    if (c->rank == 0) {
        for (int r = 1; r < c->nranks; r++)
            for (int k = 0; k < K; k++) {
                double t;
                PMPI_Recv(&t, 1, MPI_DOUBLE, r, TAG_CLOCK, c->comm, MPI_STATUS_IGNORE);
                t = now(c);
                PMPI_Send(&t, 1, MPI_DOUBLE, r, TAG_CLOCK, c->comm);
            }
    } else {
        double best = INFINITY;
        for (int k = 0; k < K; k++) {
            double t1 = now(c), t0;
            PMPI_Send(&t1, 1, MPI_DOUBLE, 0, TAG_CLOCK, c->comm);
            PMPI_Recv(&t0, 1, MPI_DOUBLE, 0, TAG_CLOCK, c->comm, MPI_STATUS_IGNORE);
            double t2 = now(c);
            if (t2 - t1 < best) {
                best = t2 - t1;
                off = (t1 + t2) / 2 - t0;
            }
        }
    }
    PMPI_Barrier(c->comm);
    return off; /* common time = local time - off */
}

/* ---- one block: (size, repeat, algorithm) ---- */
typedef struct block_args {
    const bench_layout_t *l;
    size_t si;
    int rep, algo;
    long iters, warmup;
    double tm;
    void *sb, *rb;      /* reused buffers (NULL with --no-reuse) */
    const void *ref;    /* PMPI reference result (--check) */
    double *arr, *ext;  /* [iters] */
    char *ran;          /* rank 0: what pacoll ran */
    unsigned long long errors;
} block_args_t;

static void run_block(bench_ctx_t *c, block_args_t *b)
{
    const bench_opts_t *o = c->o;
    const bench_layout_t *l = b->l;
    const char *algo = o->algos[b->algo];
    bench_rng_t mine, shared;
    bench_rng_seed(&mine, bench_hash4(o->seed, (uint64_t)c->rank, (uint64_t)l->m,
                                      (uint64_t)b->rep));
    bench_rng_seed(&shared, bench_hash4(o->seed ^ 0x4c415445ull /* "LATE" */, (uint64_t)l->m,
                                        (uint64_t)b->rep, 0x5348ull));
    b->errors = 0;
    /* --nonblocking: pacoll's algorithm is the communicator's choice, as a
     * nonblocking call names none (native: the library's own call) */
    const char *nb_algo = algo && strcmp(algo, "native") != 0 ? algo : NULL;
    if (o->nonblocking && nb_algo &&
        pacoll_comm_set_algorithm(c->comm, o->coll, strcmp(algo, "auto") ? algo : NULL) != MPI_SUCCESS)
        die(c, "pacoll_comm_set_algorithm failed", MPI_SUCCESS);
    /* a communicator's first calls are blocking ones: they set pacoll up on it */
    if (o->nonblocking && nb_algo && b->sb)
        bench_call(l, algo, b->sb, b->rb, c->comm);
    for (long it = 0; it < b->warmup + b->iters; it++) {
        void *sb = b->sb, *rb = b->rb;
        if (o->no_reuse) {
            sb = bench_buf_alloc(l->send_bytes, 1);
            rb = l->recv_bytes ? bench_buf_alloc(l->recv_bytes, 1) : NULL;
            if (!sb || (l->recv_bytes && !rb))
                die(c, "cannot map a fresh buffer (--no-reuse)", MPI_SUCCESS);
            bench_fill_send(l, sb); /* the receive buffer stays untouched */
        } else if (o->check && rb) {
            memset(rb, 0, l->recv_bytes); /* no pattern byte is 0 */
        }
        double d = draw_delay(c, &mine, &shared, b->tm);

        /* --loop: back to back, one barrier before the block */
        if (!o->loop || it == 0)
            PMPI_Barrier(c->comm);
        double t0 = now(c);
        if (!o->loop)
            compute_for(c, d, t0);
        double ta = now(c);
        int rc;
        if (o->nonblocking) {
            MPI_Request req = MPI_REQUEST_NULL;
            rc = bench_icall(l, nb_algo, sb, rb, c->comm, &req);
            compute_for(c, o->compute, now(c));
            if (rc == MPI_SUCCESS)
                rc = PMPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            rc = bench_call(l, algo, sb, rb, c->comm);
        }
        double te = now(c);

        if (rc != MPI_SUCCESS) {
            char what[160];
            snprintf(what, sizeof what, "%s '%s' failed at %zu bytes", bench_coll_str(o->coll),
                     algo, l->m);
            die(c, what, rc);
        }
        if (it >= b->warmup) {
            b->arr[it - b->warmup] = ta - c->offset;
            b->ext[it - b->warmup] = te - c->offset;
        }
        if (it == 0 && c->rank == 0 && strcmp(algo, "native") != 0) {
            if (pacoll_comm_last_algorithm(c->comm, o->coll, b->ran, BENCH_NAME_LEN) !=
                MPI_SUCCESS)
                b->ran[0] = '\0';
        } else if (it == 0 && c->rank == 0) {
            strcpy(b->ran, "native");
        }
        if (o->check) {
            char label[200];
            snprintf(label, sizeof label, "%s '%s' %zu B/peer, repeat %d, %s %ld",
                     bench_coll_str(o->coll), algo, l->m, b->rep,
                     it < b->warmup ? "warm-up iteration" : "iteration",
                     it < b->warmup ? it : it - b->warmup);
            size_t bad = bench_compare(l, rb, b->ref, b->errors ? NULL : label);
            size_t sbad = bench_check_send(l, sb);
            if (sbad && !b->errors)
                fprintf(stderr, "pacoll-bench: CHECK FAILED rank %d: %s: the send buffer was "
                                "modified (%zu bytes)\n",
                        c->rank, label, sbad);
            b->errors += bad + sbad;
        }
        if (o->no_reuse) {
            bench_buf_free(sb, l->send_bytes, 1);
            bench_buf_free(rb, l->recv_bytes, 1);
        }
    }
}

/* ---- environment ---- */
static void probe_env(bench_ctx_t *c, bench_env_t *e)
{
    memset(e, 0, sizeof *e);
    e->rank = c->rank;
    e->nranks = c->nranks;
    int len = 0;
    MPI_Get_library_version(e->mpi_library_full, &len);
    e->mpi_library_full[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
    size_t n = strcspn(e->mpi_library_full, "\n");
    if (n >= sizeof e->mpi_library)
        n = sizeof e->mpi_library - 1;
    memcpy(e->mpi_library, e->mpi_library_full, n);
    e->mpi_library[n] = '\0';
    while (n > 0 && (e->mpi_library[n - 1] == ' ' || e->mpi_library[n - 1] == ',' ||
                     e->mpi_library[n - 1] == '\t' || e->mpi_library[n - 1] == '\r'))
        e->mpi_library[--n] = '\0';
    MPI_Get_version(&e->mpi_version, &e->mpi_subversion);

    int flag = 0, *val = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag);
    e->wtime_is_global = flag && val && *val;

#ifdef SMPI_HELPERS_H
    e->engine = "smpi";
    strcpy(e->host, "smpi");
#else
    e->engine = strstr(e->mpi_library, "Open MPI")  ? "openmpi"
                : strstr(e->mpi_library, "MPICH")   ? "mpich"
                : strstr(e->mpi_library, "MVAPICH") ? "mvapich"
                                                    : "mpi";
    if (gethostname(e->host, sizeof e->host - 1))
        strcpy(e->host, "unknown");
    e->host[sizeof e->host - 1] = '\0';
#endif
    /* nodes = number of shared-memory domains */
    MPI_Comm node;
    int lr = 0, one;
    PMPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lr);
    PMPI_Comm_free(&node);
    one = lr == 0;
    PMPI_Allreduce(&one, &e->nnodes, 1, MPI_INT, MPI_SUM, c->comm);

    e->clock = c->o->clock;
#ifdef SMPI_HELPERS_H
    if (e->clock == CLOCK_AUTO || e->clock == CLOCK_NODE)
        e->clock = CLOCK_GLOBAL; /* one simulated clock; offsets are 0 */
#else
    if (e->clock == CLOCK_AUTO)
        e->clock = e->nnodes == 1 ? CLOCK_NODE : e->wtime_is_global ? CLOCK_GLOBAL : CLOCK_SYNC;
#endif
}

static int finish(int rc, bench_opts_t *o)
{
    bench_free_opts(o);
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_ctx_t ctx;
    bench_opts_t opts;
    bench_env_t env;
    char err[1024];
    memset(&ctx, 0, sizeof ctx);
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx.nranks);
    ctx.o = &opts;
    ctx.e = &env;
    int rank = ctx.rank;

    /* every rank parses the same argv and takes the same branch */
    int st = bench_parse(argc, argv, &opts, err, sizeof err);
    opts.argc = argc, opts.argv = argv;
    if (st == 0 && !opts.list)
        st = bench_validate(&opts, ctx.nranks, err, sizeof err);
#ifndef SMPI_HELPERS_H
    if (st == 0 && opts.sim_shared)
        st = 2, snprintf(err, sizeof err, "--sim-shared-buffers: only in an SMPI build (smpicc)");
#endif
    if (st == 0 && !opts.list)
        st = bench_resolve_algos(&opts, err, sizeof err);
    /* --vdist file: rank 0 reads the matrix (collective; every rank learns
     * the verdict, so a bad file is an exit 2 on every rank, never a hang) */
    if (st == 0 && !opts.list)
        st = bench_vdist_load(&opts, MPI_COMM_WORLD, err, sizeof err);
    if (st == 1) {
        if (rank == 0) {
            if (opts.help)
                bench_usage(stdout);
            else {
                char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
                int len = 0;
                MPI_Get_library_version(lib, &len);
                lib[strcspn(lib, "\n")] = '\0';
                printf("pacoll-bench %s (pacoll %s)\n%s\n", PACOLL_VERSION_STRING,
                       pacoll_version(), lib);
            }
        }
        return finish(BENCH_EXIT_OK, &opts);
    }
    if (st) {
        if (rank == 0)
            fprintf(stderr, "pacoll-bench: %s\n", err);
        return finish(BENCH_EXIT_USAGE, &opts);
    }
    if (opts.list) {
        if (rank == 0)
            bench_print_list(stdout, opts.have_coll, opts.coll);
        return finish(BENCH_EXIT_OK, &opts);
    }

    PMPI_Comm_dup(MPI_COMM_WORLD, &ctx.comm);
    MPI_Comm_set_errhandler(ctx.comm, MPI_ERRORS_RETURN);
    probe_env(&ctx, &env);

    /* the JSON file: rank 0 opens it, everyone learns whether it could */
    FILE *json = NULL;
    int json_ok = 1;
    if (rank == 0 && opts.json_path) {
        json = fopen(opts.json_path, "w");
        if (!json) {
            fprintf(stderr, "pacoll-bench: --json %s: cannot write the file\n", opts.json_path);
            json_ok = 0;
        }
    }
    PMPI_Bcast(&json_ok, 1, MPI_INT, 0, ctx.comm);
    if (!json_ok) {
        PMPI_Comm_free(&ctx.comm);
        return finish(BENCH_EXIT_USAGE, &opts);
    }

    for (int i = 0; i < opts.nlate_ranks; i++)
        if (opts.late_ranks[i] == rank)
            ctx.i_am_late = 1;
    if (opts.skew == SKEW_LATE_FRACTION) {
        ctx.late_bitmap = calloc((size_t)ctx.nranks / 8 + 1, 1);
        ctx.late_chosen = malloc(sizeof(int) * (size_t)ctx.nranks);
        if (!ctx.late_bitmap || !ctx.late_chosen)
            die(&ctx, "out of memory", MPI_SUCCESS);
    }

    size_t sizes[BENCH_MAX_SIZES];
    int nsizes = bench_sizes(&opts, sizes, BENCH_MAX_SIZES);
    FILE *out = (rank == 0 && !opts.quiet) ? stdout : NULL;
    if (out)
        bench_print_header(out, &opts, &env);
    if (json)
        bench_json_begin(json, &opts, &env);

    double wall0 = MPI_Wtime();
    int fallbacks = 0;
    long max_iters = 0, w;
    for (int si = 0; si < nsizes; si++) {
        long it;
        bench_iters_at(&opts, sizes[si], &it, &w);
        if (it > max_iters)
            max_iters = it;
    }
    double *arr = malloc(sizeof(double) * (size_t)max_iters);
    double *ext = malloc(sizeof(double) * (size_t)max_iters);
    bench_size_result_t res;
    memset(&res, 0, sizeof res);
    res.blocks = calloc((size_t)opts.nalgos * (size_t)opts.repeat, sizeof(bench_block_t));
    if (!arr || !ext || !res.blocks)
        die(&ctx, "out of memory", MPI_SUCCESS);
    if (rank == 0)
        for (int k = 0; k < opts.nalgos * opts.repeat; k++) {
            res.blocks[k].rank_us = malloc(sizeof(double) * (size_t)ctx.nranks);
            if (!res.blocks[k].rank_us)
                die(&ctx, "out of memory", MPI_SUCCESS);
        }

    for (int si = 0; si < nsizes; si++) {
        size_t m = sizes[si];
        bench_layout_t l;
        if (bench_layout_init(&l, &opts, m, ctx.nranks, rank))
            die(&ctx, "out of memory (layout)", MPI_SUCCESS);
        res.bytes = m;
        res.nalgos = opts.nalgos;
        res.repeat = opts.repeat;
        res.nranks = ctx.nranks;
        bench_iters_at(&opts, m, &res.iters, &res.warmup);
        res.tm_us = measure_tm(&ctx, m) * 1e6;
        ctx.offset = env.clock == CLOCK_SYNC ? clock_offset(&ctx) : 0;
        memset(res.ran, 0, sizeof res.ran);
        memset(res.errors, 0, sizeof res.errors);

        /* reused buffers, and the PMPI reference for --check */
        void *sb = NULL, *rb = NULL, *ref = NULL;
        if (!opts.no_reuse || opts.check) {
            sb = buf_alloc(&opts, l.send_bytes);
            rb = l.recv_bytes ? buf_alloc(&opts, l.recv_bytes) : NULL;
            if (!sb || (l.recv_bytes && !rb))
                die(&ctx, "out of memory (buffers)", MPI_SUCCESS);
            bench_fill_send(&l, sb);
        }
        if (opts.check) {
            ref = l.recv_bytes ? bench_buf_alloc(l.recv_bytes, 0) : NULL;
            if (l.recv_bytes && !ref)
                die(&ctx, "out of memory (reference)", MPI_SUCCESS);
            if (ref)
                memset(ref, 0, l.recv_bytes);
            int rc = bench_call(&l, NULL, sb, ref, ctx.comm);
            if (rc != MPI_SUCCESS)
                die(&ctx, "the PMPI reference collective failed", rc);
            if (rb) {
                /* the reference itself must hold the expected data */
                bench_expected(&l, rb);
                char label[128];
                snprintf(label, sizeof label, "PMPI_%s reference at %zu B/peer (MPI library)",
                         bench_coll_str(opts.coll), m);
                ctx.errors += bench_compare(&l, ref, rb, label);
            }
        }
        if (opts.no_reuse) {
            bench_buf_free(sb, l.send_bytes, 0);
            bench_buf_free(rb, l.recv_bytes, 0);
            sb = rb = NULL;
        }

        for (int rep = 0; rep < opts.repeat; rep++)
            for (int a = 0; a < opts.nalgos; a++) {
                block_args_t b = {.l = &l, .si = (size_t)si, .rep = rep, .algo = a,
                                  .iters = res.iters, .warmup = res.warmup,
                                  .tm = res.tm_us * 1e-6, .sb = sb, .rb = rb, .ref = ref,
                                  .arr = arr, .ext = ext, .ran = res.ran[a]};
                char ran[BENCH_NAME_LEN] = "";
                if (rep > 0)
                    b.ran = ran; /* keep the first repeat's answer */
                run_block(&ctx, &b);
                bench_reduce_block(arr, ext, res.iters, ctx.comm,
                                   &res.blocks[a * opts.repeat + rep]);
                unsigned long long e = b.errors, etot = 0;
                PMPI_Reduce(&e, &etot, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, ctx.comm);
                res.errors[a] += etot;
                ctx.errors += b.errors;
            }

        if (rank == 0) {
            for (int a = 0; a < opts.nalgos; a++)
                if (res.ran[a][0] && strcmp(res.ran[a], opts.algos[a]) &&
                    strcmp(opts.algos[a], "auto"))
                    fallbacks = 1;
            if (out)
                bench_print_size(out, &opts, &res);
            if (json)
                bench_json_size(json, &opts, &res, si == 0);
        }
        buf_free(&opts, sb, l.send_bytes);
        buf_free(&opts, rb, l.recv_bytes);
        bench_buf_free(ref, l.recv_bytes, 0);
        bench_layout_free(&l);
    }

    unsigned long long total = 0;
    PMPI_Allreduce(&ctx.errors, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx.comm);
    double wall = MPI_Wtime() - wall0;
    if (out)
        bench_print_footer(out, &opts, total, fallbacks);
    if (json) {
        bench_json_end(json, total, wall);
        fclose(json);
    }
    if (rank == 0)
        for (int k = 0; k < opts.nalgos * opts.repeat; k++)
            free(res.blocks[k].rank_us);
    free(res.blocks);
    free(arr);
    free(ext);
    free(ctx.late_bitmap);
    free(ctx.late_chosen);
    PMPI_Comm_free(&ctx.comm);
    return finish(total ? BENCH_EXIT_CHECK : BENCH_EXIT_OK, &opts);
}
