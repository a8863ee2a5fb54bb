/*
 * pacoll-plainbench: a plain MPI benchmark of MPI_Alltoall, MPI_Alltoallv
 * (uniform counts), MPI_Allgather and MPI_Gather (root 0), MPI_BYTE.
 *
 * It includes mpi.h and the C library only and links only MPI: it knows
 * nothing of pacoll, so the same binary measures the MPI library alone and,
 * run with LD_PRELOAD=libpacoll_preload.so, what a program gets from pacoll
 * by default (tools/plain/preload-vs-native runs both; docs/AUTO.md).
 *
 *   mpirun -np 2 pacoll-plainbench [--colls LIST] [--modes loop,barrier]
 *          [--sizes LIST] [--iters N] [--blocks B] [--warmup N] [--budget BYTES]
 *          [--check] [--json FILE]
 *   mpirun -np 1 pacoll-plainbench --percall [--calls N] [--samples S] [--json FILE]
 *   mpirun -np 2 pacoll-plainbench --first [--colls LIST] [--sizes LIST] [--samples S]
 *   mpirun -np 2 pacoll-plainbench --pair A,B [the sweep's options]
 *
 * Times (rank 0 prints one line per collective, mode and size):
 *   loop     W warm-up calls, then B blocks of MPI_Barrier + N back-to-back
 *            calls; a block's time per call is the largest over the ranks of
 *            (the rank's block time / N); the result is the median over the
 *            B blocks (one preempted block does not decide it).
 *   barrier  W warm-up iterations, then N iterations of MPI_Barrier + one
 *            call; a rank's time of an iteration runs from its exit from the
 *            barrier to its exit from the call; per iteration the largest over
 *            the ranks is kept; the result is the interquartile mean over the
 *            iterations (the mean of the middle half: as robust as the median
 *            to outliers, and it resolves below the clock's step).
 *   percall  ns per call at 0 and 8 bytes in loop mode: S samples of N calls
 *            (each after a barrier, largest over ranks), the fastest sample.
 *   first    the first and the second call on a new communicator (a dup of
 *            MPI_COMM_WORLD, made and freed S times per collective and size),
 *            each after a barrier, largest over ranks, median of the S: what
 *            a library that sets a communicator up at its first call costs.
 *   pair     A,B of mpi and pmpi: each point is timed twice in one process,
 *            through the MPI_ names (A or B = mpi: what the program gets, pacoll
 *            when preloaded) and the PMPI_ names (pmpi: the MPI library itself,
 *            preloaded or not), alternating A B B A ...: loop mode by blocks,
 *            barrier mode by iterations, each arm with its own buffers (the
 *            one-sided algorithms' cost depends on whose caches hold the
 *            receive buffer).  Loop: the ratio A / B is the median of
 *            the per-pair-of-blocks ratios; barrier: the ratio of the two
 *            interquartile means.  pmpi,mpi under the preload is native /
 *            preload; pmpi,pmpi is its A/A control.  No process-to-process
 *            difference (placement, the host's phase, the previous run)
 *            enters the ratio.
 * N = min(--iters, max(MIN_ITERS, --budget / size)); W = max(1, N / 10).
 * Clock: clock_gettime(CLOCK_MONOTONIC), one origin for all processes of a
 * host (Open MPI's MPI_Wtime counts from each process' first call); on the
 * development VM both move in steps of about 10 ns, 4 % of a 0.25 us call,
 * hence the interquartile mean in barrier mode.
 *
 * --check: every send byte is a hash of (source, destination, offset), never
 * 0; before every call (warm-up and timed) the receive buffer is cleared,
 * after it the received bytes and the unchanged send buffer are verified.
 * Each rank reports its first wrong byte on stderr; the exit status is 1.  The
 * times then include the checks and mean nothing.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <mpi.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_ITERS 1000
#define DEFAULT_BLOCKS 5
#define DEFAULT_BUDGET (64L << 20) /* calls x bytes per block */
#define MIN_ITERS 20
#define MAX_SIZES 64
#define NCOLL 4

enum { A2A, A2AV, AG, GATHER };
static const char *const coll_names[NCOLL] = {"alltoall", "alltoallv", "allgather", "gather"};
enum { LOOP, BARRIER };
static const char *const mode_names[2] = {"loop", "barrier"};
enum { ARM_MPI, ARM_PMPI };
enum { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const kind_names[3] = {"blocking", "nonblocking", "persistent"};
static const char *const arm_names[2] = {"mpi", "pmpi"};

typedef struct {
    int colls[NCOLL], ncolls;
    int modes[2], nmodes;
    long sizes[MAX_SIZES];
    int nsizes;
    long iters, blocks, warmup, budget; /* warmup < 0: iters / 10 */
    int check, percall, first;
    int kind; /* --kind: BLOCKING, NONBLOCKING (MPI_I<coll> + MPI_Wait), PERSISTENT */
    int pair[2]; /* --pair: the arms, ARM_MPI or ARM_PMPI; pair[0] < 0: no --pair */
    long calls, samples;
    const char *json;
} opts_t;

typedef struct {
    int coll, mode;
    long bytes, iters, warmup;
    double us, us_b, ratio; /* --pair: arm A's, arm B's and A / B; else us only */
} result_t;

typedef struct {
    int rank, nranks;
    char *sb, *rb;        /* the current arm's buffers */
    char *sbk[2], *rbk[2]; /* --pair: each arm its own, so that neither finds the
                            * other's data in its caches (as a program's calls
                            * all find their own); else both are sbk[0], rbk[0] */
    int *counts, *displs;
    MPI_Comm comm; /* MPI_COMM_WORLD, or --first's new communicator */
    long errors; /* wrong bytes seen by this rank */
    int kind;    /* opts_t's */
    /* --kind persistent: each arm's request for the point (coll, m) it was made for */
    MPI_Request preq[2];
    int pcoll[2];
    long pm[2];
    char *psb[2];
} ctx_t;

/* ---------------------------------------------------------------- options */

static int fail(int rank, const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "pacoll-plainbench: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, " (--help lists the options)\n");
    }
    return 2;
}

/* bytes with an optional k/K, m/M, g/G (2^10, 2^20, 2^30) suffix and a trailing B */
static int parse_bytes(const char *s, long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1ull << 10, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1ull << 20, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1ull << 30, end++;
    if (*end == 'B')
        end++;
    if (*end || v > (unsigned long long)LONG_MAX / mul)
        return -1;
    *out = (long)(v * mul);
    return 0;
}

static int parse_names(const char *val, const char *const *names, int n, int *out, int *nout)
{
    char buf[256];
    if (strlen(val) >= sizeof buf)
        return -1;
    strcpy(buf, val);
    *nout = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < n && strcmp(t, names[k]))
            k++;
        if (k == n || *nout == n)
            return -1;
        for (int j = 0; j < *nout; j++)
            if (out[j] == k)
                return -1;
        out[(*nout)++] = k;
    }
    return *nout ? 0 : -1;
}

/* "0,8:1M": single sizes and MIN:MAX ranges (MIN, 2 MIN, ... MAX; 0 is followed by 1) */
static int parse_sizes(const char *val, opts_t *o)
{
    char buf[256];
    if (strlen(val) >= sizeof buf)
        return -1;
    strcpy(buf, val);
    o->nsizes = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long lo, hi;
        char *colon = strchr(t, ':');
        if (colon) {
            *colon = '\0';
            if (parse_bytes(t, &lo) || parse_bytes(colon + 1, &hi) || hi < lo)
                return -1;
        } else if (parse_bytes(t, &lo)) {
            return -1;
        } else {
            hi = lo;
        }
        for (long m = lo; m <= hi; m = m ? 2 * m : 1) {
            if (o->nsizes == MAX_SIZES)
                return -1;
            o->sizes[o->nsizes++] = m;
        }
    }
    return o->nsizes ? 0 : -1;
}

static void usage(void)
{
    puts("usage: mpirun -np P pacoll-plainbench [options]\n"
         "       mpirun -np P pacoll-plainbench --percall [--calls N] [--samples S]\n"
         "       mpirun -np P pacoll-plainbench --first [--colls L] [--sizes L] [--samples S]\n"
         "       mpirun -np P pacoll-plainbench --pair A,B [options]\n"
         "\n"
         "A plain MPI benchmark (no pacoll in it) of MPI_Alltoall, MPI_Alltoallv\n"
         "(uniform counts), MPI_Allgather and MPI_Gather (root 0) with MPI_BYTE.\n"
         "\n"
         "  --colls LIST    collectives (default alltoall,alltoallv,allgather,gather)\n"
         "  --modes LIST    loop: blocks of N back-to-back calls after one barrier, time\n"
         "                  per call = block time / N, largest over ranks, median over\n"
         "                  blocks; barrier: a barrier before every call, per iteration\n"
         "                  the largest time over ranks, mean of the middle half of\n"
         "                  the iterations (interquartile mean)\n"
         "                  (default loop,barrier)\n"
         "  --sizes LIST    bytes per block: values and MIN:MAX ranges of powers of two,\n"
         "                  suffixes k, M, G (default 0,8:1M)\n"
         "  --iters N       calls per block (loop) or iterations (barrier), at most\n"
         "                  (default 1000)\n"
         "  --blocks B      loop: blocks per point, the median is reported (default 5)\n"
         "  --budget BYTES  fewer at large sizes: N = max(20, BYTES / size) (default 64M;\n"
         "                  0 = always --iters)\n"
         "  --warmup N      untimed calls before each block (default N / 10, at least 1)\n"
         "  --check         verify every received byte and the send buffer; exit 1 on a\n"
         "                  mismatch (times then include the checks)\n"
         "  --percall       ns per call at 0 and 8 bytes, loop mode, the fastest of\n"
         "                  --samples (5) samples of --calls (200000) calls\n"
         "  --first         us of the first and the second call on a new communicator\n"
         "                  (MPI_Comm_dup), median of --samples (5) communicators\n"
         "  --pair A,B      A and B each mpi (the MPI_ names: pacoll when preloaded) or\n"
         "                  pmpi (the PMPI_ names: the MPI library): each point timed\n"
         "                  through both in one process, alternating A B B A by block\n"
         "                  (loop) or iteration (barrier); prints both and A / B\n"
         "  --kind K        blocking (default); nonblocking: MPI_I<coll> then MPI_Wait;\n"
         "                  persistent: MPI_<coll>_init once per point and arm, then\n"
         "                  MPI_Start and MPI_Wait per call (where MPI has them)\n"
         "  --json FILE     also write the results as JSON (rank 0)");
}

static int parse_opts(int argc, char **argv, int rank, opts_t *o)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < NCOLL; k++)
        o->colls[k] = k;
    o->ncolls = NCOLL;
    o->modes[0] = LOOP, o->modes[1] = BARRIER, o->nmodes = 2;
    parse_sizes("0,8:1M", o);
    o->iters = DEFAULT_ITERS, o->blocks = DEFAULT_BLOCKS, o->warmup = -1;
    o->budget = DEFAULT_BUDGET;
    o->calls = 200000, o->samples = 5;
    o->pair[0] = o->pair[1] = -1;
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *a = argv[i], *val = NULL, *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) || strlen(a) >= sizeof name)
            return fail(rank, "unexpected argument '%s'", a);
        if (eq) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            strcpy(name, a);
        }
        if (!strcmp(name, "--help")) {
            if (rank == 0)
                usage();
            return 1;
        }
        if (!strcmp(name, "--check") || !strcmp(name, "--percall") ||
            !strcmp(name, "--first")) {
            if (val)
                return fail(rank, "%s takes no value", name);
            if (!strcmp(name, "--check"))
                o->check = 1;
            else if (!strcmp(name, "--percall"))
                o->percall = 1;
            else
                o->first = 1;
            continue;
        }
        static const char *const valued[] = {"--colls", "--modes",  "--sizes", "--json",
                                             "--budget", "--iters", "--warmup", "--calls",
                                             "--samples", "--blocks", "--pair", "--kind"};
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            known |= !strcmp(name, valued[k]);
        if (!known)
            return fail(rank, "unknown option '%s'", name);
        if (!val) {
            if (i + 1 >= argc)
                return fail(rank, "%s needs a value", name);
            val = argv[++i];
        }
        long v = 0;
        if (!strcmp(name, "--colls")) {
            if (parse_names(val, coll_names, NCOLL, o->colls, &o->ncolls))
                return fail(rank, "--colls '%s': expected names of alltoall, alltoallv, "
                                  "allgather, gather, comma separated, each once", val);
        } else if (!strcmp(name, "--modes")) {
            if (parse_names(val, mode_names, 2, o->modes, &o->nmodes))
                return fail(rank, "--modes '%s': expected loop, barrier or both", val);
        } else if (!strcmp(name, "--sizes")) {
            if (parse_sizes(val, o))
                return fail(rank, "--sizes '%s': expected sizes and MIN:MAX ranges in bytes, "
                                  "comma separated (at most 64 sizes)", val);
        } else if (!strcmp(name, "--pair")) {
            char a[8], b[8];
            int n = -1;
            if (sscanf(val, "%7[a-z],%7[a-z]%n", a, b, &n) != 2 || val[n] != '\0')
                return fail(rank, "--pair '%s': expected A,B, each mpi or pmpi", val);
            for (int k = 0; k < 2; k++) {
                const char *w = k ? b : a;
                o->pair[k] = !strcmp(w, "mpi") ? ARM_MPI : !strcmp(w, "pmpi") ? ARM_PMPI : -1;
                if (o->pair[k] < 0)
                    return fail(rank, "--pair '%s': expected A,B, each mpi or pmpi", val);
            }
        } else if (!strcmp(name, "--kind")) {
            int k = !strcmp(val, "blocking") ? BLOCKING : !strcmp(val, "nonblocking") ? NONBLOCKING
                      : !strcmp(val, "persistent") ? PERSISTENT : -1;
#ifndef PLAINBENCH_PERSISTENT
            if (k == PERSISTENT)
                return fail(rank, "--kind %s: this MPI has no persistent collectives", val);
#endif
            if (k < 0)
                return fail(rank, "--kind '%s': expected blocking, nonblocking or persistent", val);
            o->kind = k;
        } else if (!strcmp(name, "--json")) {
            o->json = val;
        } else if (!strcmp(name, "--budget")) {
            if (parse_bytes(val, &o->budget))
                return fail(rank, "--budget '%s': expected bytes", val);
        } else { /* --iters, --blocks, --warmup, --calls, --samples */
            int positive = strcmp(name, "--warmup") != 0;
            if (parse_bytes(val, &v) || v > INT_MAX || (positive && v < 1))
                return fail(rank, "bad count '%s'", val);
            if (!strcmp(name, "--iters"))
                o->iters = v;
            else if (!strcmp(name, "--blocks"))
                o->blocks = v;
            else if (!strcmp(name, "--warmup"))
                o->warmup = v;
            else if (!strcmp(name, "--calls"))
                o->calls = v;
            else
                o->samples = v;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ data, check */

/* the byte source s sends to destination d at offset k (d = P: to everyone) */
static unsigned char pattern(int s, int d, long k)
{
    uint32_t h = (uint32_t)s * 0x9E3779B1u ^ (uint32_t)d * 0x85EBCA77u ^
                 (uint32_t)k * 0xC2B2AE3Du ^ (uint32_t)((uint64_t)k >> 32);
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return (unsigned char)(1 + h % 255);
}

static int per_peer(int coll)
{
    return coll == A2A || coll == A2AV; /* a block for each peer, else one for all */
}

static void fill_send(ctx_t *c, int coll, long m)
{
    int P = c->nranks;
    if (per_peer(coll)) {
        for (int d = 0; d < P; d++)
            for (long k = 0; k < m; k++)
                c->sb[(long)d * m + k] = (char)pattern(c->rank, d, k);
    } else {
        for (long k = 0; k < m; k++)
            c->sb[k] = (char)pattern(c->rank, P, k);
    }
}

static void verify(ctx_t *c, int coll, const char *mode, long m, long it)
{
    int P = c->nranks, dest = per_peer(coll) ? c->rank : P;
    long bad = 0;
    char first[200] = "";
    int receives = coll != GATHER || c->rank == 0;
    for (int s = 0; receives && s < P; s++)
        for (long k = 0; k < m; k++) {
            unsigned char got = (unsigned char)c->rb[(long)s * m + k], want = pattern(s, dest, k);
            if (got != want && !bad++)
                snprintf(first, sizeof first, "byte %ld from rank %d: got %u, expected %u", k, s,
                         got, want);
        }
    long sent = per_peer(coll) ? (long)P * m : m;
    for (long k = 0; k < sent; k++) {
        int d = per_peer(coll) ? (int)(k / m) : P;
        unsigned char want = pattern(c->rank, d, per_peer(coll) ? k % m : k);
        if ((unsigned char)c->sb[k] != want && !bad++)
            snprintf(first, sizeof first, "send buffer modified at byte %ld", k);
    }
    if (bad && !c->errors)
        fprintf(stderr,
                "pacoll-plainbench: CHECK FAILED rank %d: %s %s %ld B, %s %ld: %s (%ld wrong "
                "bytes)\n",
                c->rank, coll_names[coll], mode, m, it < 0 ? "warm-up, call" : "timed call",
                it < 0 ? -it - 1 : it, first, bad);
    c->errors += bad;
}

/* ---------------------------------------------------------------- the calls */

/* The four collectives by one set of names: the MPI_ names, which a
 * preloaded library takes, or the MPI library's own PMPI_ names. */
typedef struct {
    int (*alltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*alltoallv)(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                     const int[], MPI_Datatype, MPI_Comm);
    int (*allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*gather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*ialltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                     MPI_Request *);
    int (*ialltoallv)(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                      const int[], MPI_Datatype, MPI_Comm, MPI_Request *);
    int (*iallgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                      MPI_Request *);
    int (*igather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm,
                   MPI_Request *);
#ifdef PLAINBENCH_PERSISTENT
    int (*alltoall_init)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                         MPI_Info, MPI_Request *);
    int (*alltoallv_init)(const void *, const int[], const int[], MPI_Datatype, void *,
                          const int[], const int[], MPI_Datatype, MPI_Comm, MPI_Info,
                          MPI_Request *);
    int (*allgather_init)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                          MPI_Info, MPI_Request *);
    int (*gather_init)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
                       MPI_Comm, MPI_Info, MPI_Request *);
    int (*start)(MPI_Request *);
    int (*request_free)(MPI_Request *);
#endif
} names_t;

/* One arm's names: P is MPI_ or PMPI_. */
#ifdef PLAINBENCH_PERSISTENT
#define ARM_PERSISTENT(P)                                                                \
    .alltoall_init = P##Alltoall_init, .alltoallv_init = P##Alltoallv_init,             \
    .allgather_init = P##Allgather_init, .gather_init = P##Gather_init, .start = P##Start, \
    .request_free = P##Request_free,
#else
#define ARM_PERSISTENT(P)
#endif
#define ARM_NAMES(P)                                                                       \
    {.alltoall = P##Alltoall, .alltoallv = P##Alltoallv, .allgather = P##Allgather,       \
     .gather = P##Gather, .ialltoall = P##Ialltoall, .ialltoallv = P##Ialltoallv,         \
     .iallgather = P##Iallgather, .igather = P##Igather, ARM_PERSISTENT(P)}

static const names_t arm_calls[2] = {[ARM_MPI] = ARM_NAMES(MPI_), [ARM_PMPI] = ARM_NAMES(PMPI_)};

static void call_nonblocking(ctx_t *c, const names_t *f, int coll, int n)
{
    MPI_Request r = MPI_REQUEST_NULL;
    switch (coll) {
    case A2A:
        f->ialltoall(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, c->comm, &r);
        break;
    case A2AV:
        f->ialltoallv(c->sb, c->counts, c->displs, MPI_BYTE, c->rb, c->counts, c->displs,
                      MPI_BYTE, c->comm, &r);
        break;
    case AG:
        f->iallgather(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, c->comm, &r);
        break;
    default:
        f->igather(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, 0, c->comm, &r);
        break;
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

#ifdef PLAINBENCH_PERSISTENT
/* The arm's persistent request for (coll, n) on its own buffers, made at its
 * first call (collective: every rank calls in the same order) and freed when
 * the point changes; then one start and its wait. */
static void call_persistent(ctx_t *c, const names_t *f, int arm, int coll, int n)
{
    MPI_Request *r = &c->preq[arm];
    if (*r != MPI_REQUEST_NULL && (c->pcoll[arm] != coll || c->pm[arm] != n || c->psb[arm] != c->sb))
        f->request_free(r);
    if (*r == MPI_REQUEST_NULL) {
        switch (coll) {
        case A2A:
            f->alltoall_init(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, c->comm, MPI_INFO_NULL, r);
            break;
        case A2AV:
            f->alltoallv_init(c->sb, c->counts, c->displs, MPI_BYTE, c->rb, c->counts, c->displs,
                              MPI_BYTE, c->comm, MPI_INFO_NULL, r);
            break;
        case AG:
            f->allgather_init(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, c->comm, MPI_INFO_NULL, r);
            break;
        default:
            f->gather_init(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, 0, c->comm, MPI_INFO_NULL, r);
            break;
        }
        c->pcoll[arm] = coll, c->pm[arm] = n, c->psb[arm] = c->sb;
    }
    f->start(r);
    MPI_Wait(r, MPI_STATUS_IGNORE);
}
#endif

static void call(ctx_t *c, int arm, int coll, long m)
{
    const names_t *f = &arm_calls[arm];
    int n = (int)m;
    if (c->kind == NONBLOCKING) {
        call_nonblocking(c, f, coll, n);
        return;
    }
#ifdef PLAINBENCH_PERSISTENT
    if (c->kind == PERSISTENT) {
        call_persistent(c, f, arm, coll, n);
        return;
    }
#endif
    switch (coll) {
    case A2A:
        f->alltoall(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, c->comm);
        break;
    case A2AV:
        f->alltoallv(c->sb, c->counts, c->displs, MPI_BYTE, c->rb, c->counts, c->displs,
                     MPI_BYTE, c->comm);
        break;
    case AG:
        f->allgather(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, c->comm);
        break;
    default:
        f->gather(c->sb, n, MPI_BYTE, c->rb, n, MPI_BYTE, 0, c->comm);
        break;
    }
}

/* one call, or with --check: clear, call, verify (it < 0: warm-up call -it - 1) */
static void one(ctx_t *c, const opts_t *o, int arm, int coll, int mode, long m, long it)
{
    if (!o->check) {
        call(c, arm, coll, m);
        return;
    }
    memset(c->rb, 0, (size_t)c->nranks * (size_t)m);
    call(c, arm, coll, m);
    verify(c, coll, mode_names[mode], m, it);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* the mean of the middle half of v (sorted in place) */
static double iq_mean(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    long lo = n / 4, hi = n - n / 4;
    double sum = 0;
    for (long i = lo; i < hi; i++)
        sum += v[i];
    return sum / (double)(hi - lo);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* one point: the time per call in seconds, meaningful on rank 0; with --pair
 * arm A's, and arm B's in *us_b and A / B in *ratio.  t holds 4 max(iters,
 * blocks) doubles. */
static double block(ctx_t *c, const opts_t *o, int coll, int mode, long m, long iters,
                    long warmup, double *t, double *us_b, double *ratio)
{
    for (int p = 0; p < c->nranks; p++)
        c->counts[p] = (int)m, c->displs[p] = (int)((long)p * m);
    int narms = o->pair[0] >= 0 ? 2 : 1;
    for (int k = 0; o->check && k < narms; k++) {
        c->sb = c->sbk[k], c->rb = c->rbk[k];
        fill_send(c, coll, m);
    }
    int arms[2] = {narms == 2 ? o->pair[0] : ARM_MPI, narms == 2 ? o->pair[1] : ARM_MPI};
    long n = mode == LOOP ? o->blocks : iters; /* samples per arm */
    double *mine[2] = {t, t + n}, *mx[2] = {t + 2 * n, t + 3 * n}; /* mx: on rank 0 */
    for (int a = 0; a < narms; a++)
        for (long i = 0; i < warmup; i++) {
            c->sb = c->sbk[a], c->rb = c->rbk[a];
            if (mode == BARRIER)
                MPI_Barrier(MPI_COMM_WORLD);
            one(c, o, arms[a], coll, mode, m, -i - 1);
        }
    /* A B, then B A: neither arm always runs first or after the other */
    for (long s = 0; s < n; s++)
        for (int k = 0; k < narms; k++) {
            int a = s % 2 ? narms - 1 - k : k;
            c->sb = c->sbk[a], c->rb = c->rbk[a];
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            if (mode == LOOP) {
                for (long i = 0; i < iters; i++)
                    one(c, o, arms[a], coll, mode, m, s * iters + i);
                mine[a][s] = (now() - t0) / (double)iters;
            } else {
                one(c, o, arms[a], coll, mode, m, s);
                mine[a][s] = now() - t0;
            }
        }
    for (int a = 0; a < narms; a++)
        MPI_Reduce(mine[a], mx[a], (int)n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (c->rank != 0)
        return 0;
    if (narms == 2 && mode == LOOP) { /* per pair of blocks, before the sorts below */
        for (long s = 0; s < n; s++)
            mine[0][s] = mx[1][s] > 0 ? mx[0][s] / mx[1][s] : 1;
        *ratio = median(mine[0], n);
    }
    double res[2] = {0, 0};
    for (int a = 0; a < narms; a++)
        res[a] = mode == LOOP ? median(mx[a], n) : iq_mean(mx[a], n);
    if (narms == 2) {
        *us_b = res[1];
        if (mode == BARRIER)
            *ratio = res[1] > 0 ? res[0] / res[1] : 1;
    }
    return res[0];
}

/* ---------------------------------------------------------------- output */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static int write_json(const opts_t *o, int nranks, const char *lib, const result_t *r, int nr,
                      const double *pc_ns, long errors)
{
    FILE *f = fopen(o->json, "w");
    if (!f) {
        perror(o->json);
        return 1;
    }
    const char *pre = getenv("LD_PRELOAD");
    fprintf(f, "{\n  \"schema\": \"pacoll-plainbench/1\",\n  \"ranks\": %d,\n  \"mpi_library\": ",
            nranks);
    json_str(f, lib);
    fputs(",\n  \"ld_preload\": ", f);
    json_str(f, pre ? pre : "");
    fprintf(f, ",\n  \"settings\": {\"iters\": %ld, \"blocks\": %ld, \"budget\": %ld, "
               "\"min_iters\": %d, \"check\": %s, \"percall\": %s, \"calls\": %ld, "
               "\"samples\": %ld",
            o->iters, o->blocks, o->budget, MIN_ITERS, o->check ? "true" : "false",
            o->percall ? "true" : "false", o->calls, o->samples);
    if (o->pair[0] >= 0)
        fprintf(f, ", \"pair\": [\"%s\", \"%s\"]", arm_names[o->pair[0]], arm_names[o->pair[1]]);
    fputs("},\n", f);
    fputs("  \"results\": [", f);
    for (int i = 0; i < nr; i++) {
        fprintf(f, "%s\n    {\"coll\": \"%s\", \"mode\": \"%s\", \"bytes\": %ld, \"iters\": %ld, "
                   "\"warmup\": %ld, \"us\": %.6g",
                i ? "," : "", coll_names[r[i].coll], mode_names[r[i].mode], r[i].bytes,
                r[i].iters, r[i].warmup, r[i].us);
        if (o->pair[0] >= 0) /* us: arm A's */
            fprintf(f, ", \"us_b\": %.6g, \"ratio\": %.6g", r[i].us_b, r[i].ratio);
        fputc('}', f);
    }
    fputs(nr ? "\n  ],\n  \"percall\": [" : "],\n  \"percall\": [", f);
    int first = 1;
    for (int k = 0; pc_ns && k < NCOLL; k++)
        for (int s = 0; s < 2; s++) {
            if (pc_ns[2 * k + s] < 0)
                continue;
            fprintf(f, "%s\n    {\"coll\": \"%s\", \"bytes\": %d, \"calls\": %ld, \"samples\": %ld, "
                       "\"ns\": %.6g}",
                    first ? "" : ",", coll_names[k], 8 * s, o->calls, o->samples, pc_ns[2 * k + s]);
            first = 0;
        }
    fprintf(f, "%s],\n  \"check_errors\": %ld\n}\n", first ? "" : "\n  ", errors);
    return fclose(f) ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t c = {0};
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
    opts_t o;
    int rc = parse_opts(argc, argv, c.rank, &o);
    if (!rc && o.first && (o.percall || o.json || o.check))
        rc = fail(c.rank, "%s", "--first takes no --percall, --json or --check");
    if (!rc && o.pair[0] >= 0 && (o.percall || o.first))
        rc = fail(c.rank, "%s", "--pair takes no --percall or --first");
    if (!rc && o.kind != BLOCKING && (o.percall || o.first))
        rc = fail(c.rank, "%s", "--kind takes no --percall or --first");
    c.kind = o.kind;
    c.preq[0] = c.preq[1] = MPI_REQUEST_NULL;
    if (rc) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    int P = c.nranks;
    long maxm = 8;
    for (int i = 0; !o.percall && i < o.nsizes; i++)
        if (o.sizes[i] > maxm)
            maxm = o.sizes[i];
    if ((long)P * maxm > INT_MAX) {
        if (c.rank == 0)
            fprintf(stderr, "pacoll-plainbench: %d ranks x %ld bytes do not fit in an int\n", P,
                    maxm);
        MPI_Finalize();
        return 2;
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[len] = '\0';
    lib[strcspn(lib, "\n,")] = '\0';

    size_t bytes = (size_t)P * (size_t)maxm;
    int nbuf = o.pair[0] >= 0 ? 2 : 1;
    for (int k = 0; k < nbuf; k++)
        c.sbk[k] = malloc(bytes), c.rbk[k] = malloc(bytes);
    if (nbuf == 1)
        c.sbk[1] = c.sbk[0], c.rbk[1] = c.rbk[0];
    c.sb = c.sbk[0], c.rb = c.rbk[0];
    c.counts = malloc(sizeof(int) * (size_t)P);
    c.displs = malloc(sizeof(int) * (size_t)P);
    long tn = o.iters > o.blocks ? o.iters : o.blocks;
    double *t = o.percall ? NULL : malloc(sizeof(double) * 4 * (size_t)tn);
    result_t *res = malloc(sizeof(result_t) * (size_t)(NCOLL * 2 * MAX_SIZES));
    if (!c.sbk[0] || !c.rbk[0] || !c.sbk[1] || !c.rbk[1] || !c.counts || !c.displs ||
        (!o.percall && !t) || !res) {
        fprintf(stderr, "pacoll-plainbench: rank %d: out of memory\n", c.rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 0; k < nbuf; k++) { /* touch every page before any timing */
        memset(c.sbk[k], 1, bytes);
        memset(c.rbk[k], 0, bytes);
    }

    const char *pre = getenv("LD_PRELOAD");
    if (c.rank == 0)
        printf("# pacoll-plainbench: %d ranks, %s, LD_PRELOAD=%s%s\n", P, lib,
               pre && *pre ? pre : "(none)", o.check ? "; --check: times include the checks" : "");

    int nr = 0;
    double pc_ns[2 * NCOLL];
    if (o.percall) {
        if (c.rank == 0)
            printf("# percall: ns per call, loop mode, fastest of %ld samples of %ld calls "
                   "(largest over ranks)\n# %-10s %5s %10s\n",
                   o.samples, o.calls, "coll", "bytes", "ns");
        for (int k = 0; k < 2 * NCOLL; k++)
            pc_ns[k] = -1;
        for (int ci = 0; ci < o.ncolls; ci++) {
            int coll = o.colls[ci];
            for (long m = 0; m <= 8; m += 8) {
                for (int p = 0; p < P; p++)
                    c.counts[p] = (int)m, c.displs[p] = (int)((long)p * m);
                for (long i = 0; i < o.calls / 10 + 1; i++)
                    call(&c, ARM_MPI, coll, m);
                double best = 1e30;
                for (long s = 0; s < o.samples; s++) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = now();
                    for (long i = 0; i < o.calls; i++)
                        call(&c, ARM_MPI, coll, m);
                    double mine = (now() - t0) / (double)o.calls * 1e9, mx = 0;
                    MPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                    if (mx < best)
                        best = mx;
                }
                pc_ns[2 * coll + m / 8] = best;
                if (c.rank == 0)
                    printf("percall  %-10s %5ld %10.1f\n", coll_names[coll], m, best);
            }
        }
    } else if (o.first) {
        if (c.rank == 0)
            printf("# first: us of the first and the second call on a new communicator "
                   "(MPI_Comm_dup), largest over ranks, median of %ld\n# %-10s %8s %10s %10s\n",
                   o.samples, "coll", "bytes", "first", "second");
        double *f = malloc(sizeof(double) * 2 * (size_t)o.samples);
        for (int ci = 0; f && ci < o.ncolls; ci++)
            for (int si = 0; si < o.nsizes; si++) {
                int coll = o.colls[ci];
                long m = o.sizes[si];
                for (int p = 0; p < P; p++)
                    c.counts[p] = (int)m, c.displs[p] = (int)((long)p * m);
                for (long k = 0; k < o.samples; k++) {
                    MPI_Comm_dup(MPI_COMM_WORLD, &c.comm);
                    for (int n = 0; n < 2; n++) {
                        MPI_Barrier(MPI_COMM_WORLD);
                        double t0 = now();
                        call(&c, ARM_MPI, coll, m);
                        double mine = now() - t0;
                        MPI_Allreduce(&mine, &f[n * o.samples + k], 1, MPI_DOUBLE, MPI_MAX,
                                      MPI_COMM_WORLD);
                    }
                    MPI_Comm_free(&c.comm);
                }
                c.comm = MPI_COMM_WORLD;
                if (c.rank == 0) /* f: the first calls, then the second ones */
                    printf("first    %-10s %8ld %10.1f %10.1f\n", coll_names[coll], m,
                           median(f, o.samples) * 1e6, median(f + o.samples, o.samples) * 1e6);
            }
        free(f);
    } else {
        if (c.rank == 0)
            printf("# loop: %ld blocks of barrier + N back-to-back calls; block time / N, largest "
                   "over ranks, median over blocks\n# barrier: N x (barrier + 1 call), largest "
                   "over ranks, interquartile mean over iterations\n",
                   o.blocks);
        if (c.rank == 0)
            printf("# kind: %s\n", kind_names[o.kind]);
        /* a communicator's first pacoll call is a blocking one (nonblocking
         * calls never set pacoll up: docs/INTERPOSE.md) */
        if (o.kind != BLOCKING) {
            c.sb = c.sbk[0], c.rb = c.rbk[0];
            MPI_Alltoall(c.sb, 1, MPI_BYTE, c.rb, 1, MPI_BYTE, c.comm);
        }
        if (c.rank == 0 && o.pair[0] >= 0)
            printf("# pair: arms A = %s, B = %s, alternating A B B A; A / B: loop the median "
                   "of the per-pair ratios, barrier the ratio of the means\n"
                   "# %-10s %-8s %8s %6s %12s %12s %8s\n",
                   arm_names[o.pair[0]], arm_names[o.pair[1]], "coll", "mode", "bytes", "N",
                   "us A", "us B", "A / B");
        else if (c.rank == 0)
            printf("# %-10s %-8s %8s %6s %12s\n", "coll", "mode", "bytes", "N", "us");
        for (int ci = 0; ci < o.ncolls; ci++)
            for (int mi = 0; mi < o.nmodes; mi++)
                for (int si = 0; si < o.nsizes; si++) {
                    int coll = o.colls[ci], mode = o.modes[mi];
                    long m = o.sizes[si], iters = o.iters;
                    if (o.budget > 0 && m > 0 && iters > o.budget / m)
                        iters = o.budget / m > MIN_ITERS ? o.budget / m : MIN_ITERS;
                    if (iters > o.iters)
                        iters = o.iters;
                    long warmup = o.warmup >= 0 ? o.warmup : (iters / 10 > 1 ? iters / 10 : 1);
                    double us_b = 0, ratio = 0;
                    double s = block(&c, &o, coll, mode, m, iters, warmup, t, &us_b, &ratio);
                    res[nr++] = (result_t){coll, mode, m, iters, warmup, s * 1e6, us_b * 1e6,
                                           ratio};
                    if (c.rank == 0 && o.pair[0] >= 0)
                        printf("%-12s %-8s %8ld %6ld %12.3f %12.3f %8.3f\n", coll_names[coll],
                               mode_names[mode], m, iters, s * 1e6, us_b * 1e6, ratio);
                    else if (c.rank == 0)
                        printf("%-12s %-8s %8ld %6ld %12.3f\n", coll_names[coll],
                               mode_names[mode], m, iters, s * 1e6);
                    fflush(stdout);
                }
    }

    long errors = 0;
    MPI_Allreduce(&c.errors, &errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (c.rank == 0 && o.check) {
        if (errors)
            printf("check: FAILED, %ld wrong bytes\n", errors);
        else
            printf("check: all results correct\n");
    }
    int status = errors ? 1 : 0;
    if (c.rank == 0 && o.json &&
        write_json(&o, P, lib, res, nr, o.percall ? pc_ns : NULL, errors))
        status = 1;
#ifdef PLAINBENCH_PERSISTENT
    for (int arm = 0; arm < 2; arm++)
        if (c.preq[arm] != MPI_REQUEST_NULL)
            arm_calls[arm].request_free(&c.preq[arm]);
#endif
    for (int k = 0; k < nbuf; k++)
        free(c.sbk[k]), free(c.rbk[k]);
    free(c.counts), free(c.displs), free(t), free(res);
    MPI_Finalize();
    return status;
}
