/*
 * check_colls: the correctness driver of pacoll's collectives.
 *
 * For every collective and every algorithm registered for it (plus "native"
 * and "auto" = the library's own selection), each call of pacoll_<coll>_alg is
 * compared byte for byte with PMPI_<coll> run on separate buffers, over
 *   - counts 0, 1, 7, 1000 and (full mode, two type pairs) 100000 elements;
 *   - MPI_BYTE, MPI_INT, MPI_DOUBLE, contiguous(3,INT), a resized vector and a
 *     resized struct with holes, and pairs of different but matching type
 *     signatures (3n INT -> n contiguous(3,INT), vector -> INT, INT -> vector);
 *   - MPI_IN_PLACE (alltoall, alltoallv, allgather, gather at the root);
 *   - four communicators used in turn: MPI_COMM_WORLD, a dup, a split with a
 *     shuffled key and a split into two halves of odd sizes;
 *   - gather with every root; alltoallv with irregular counts (zeros, very
 *     unequal ones, whole rows of zeros) and shuffled displacements with gaps;
 *   - bursts of back-to-back calls with changing sizes and fresh buffers on
 *     alternating communicators, checked only after the whole burst;
 *   - seeded, rank-dependent arrival skew (0-2 ms) before some calls
 *     (--skew-max, --skew-every and --late-rank make it heavier, for the
 *     arrival-aware algorithms).
 * Receive buffers start as a sentinel; the bytes no correct collective writes
 * (holes in a type's extent, gaps between displacements, slack past the end)
 * must still be the sentinel afterwards, and send buffers must be unchanged.
 *
 * Options: --quick  --coll NAME  --algo NAME  --seed N  --list  --verbose
 *          --skew-max US  --skew-every K  --late-rank R
 *          --counts N,..  --pairs I,..  --comms world,dup,shuffled,halves
 * Exit status: 0 when every check passed on every rank.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pacoll.h"

#define SENTINEL 0xA5u /* receive buffers, before the call */
#define SEND_HOLE 0xEEu /* holes of a send buffer: must never arrive anywhere */
#define SLACK 64 /* bytes past the end of every receive buffer */
#define MAX_REPORTS 40 /* detailed failure messages per rank */
#define MAX_PAIR_REPORTS 2 /* ... per rank, algorithm and type pair */
#define BURST 8

/* ------------------------------------------------------------------ types */

typedef struct {
    int off, len;
} seg_t;

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Aint extent; /* lb is 0 for all of them */
    int nseg;
    seg_t seg[2];
} dtype_t;

enum { T_BYTE, T_INT, T_DOUBLE, T_C3INT, T_VEC, T_STRUCT, T_COUNT };
static dtype_t types[T_COUNT];

/* A send/receive pair: n "units" are sent as n*smul elements of st and
 * received as n*rmul elements of rt (equal type signatures). */
typedef struct {
    int st, rt, smul, rmul;
    int big; /* also run with the largest count */
} pair_t;

static const pair_t pairs[] = {
    {T_BYTE, T_BYTE, 1, 1, 0},     {T_INT, T_INT, 1, 1, 1},     {T_DOUBLE, T_DOUBLE, 1, 1, 0},
    {T_C3INT, T_C3INT, 1, 1, 0},   {T_VEC, T_VEC, 1, 1, 1},     {T_STRUCT, T_STRUCT, 1, 1, 0},
    {T_INT, T_C3INT, 3, 1, 0},     {T_VEC, T_INT, 1, 2, 0},     {T_INT, T_VEC, 2, 1, 0},
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))
/* the pairs used in --quick mode */
static const int quick_pairs[] = {1, 3, 4, 5, 6, 7, 8};
#define NQUICK ((int)(sizeof quick_pairs / sizeof quick_pairs[0]))

static void make_types(void)
{
    MPI_Datatype t;
    types[T_BYTE] = (dtype_t){"BYTE", MPI_BYTE, 1, 1, {{0, 1}}};
    types[T_INT] = (dtype_t){"INT", MPI_INT, 4, 1, {{0, 4}}};
    types[T_DOUBLE] = (dtype_t){"DOUBLE", MPI_DOUBLE, 8, 1, {{0, 8}}};

    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_commit(&t);
    types[T_C3INT] = (dtype_t){"contig(3,INT)", t, 12, 1, {{0, 12}}};

    /* vector(2,1,2,INT): ints at 0 and 8, resized to extent 16 -> holes 4..8, 12..16 */
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 16, &t);
    MPI_Type_free(&v);
    MPI_Type_commit(&t);
    types[T_VEC] = (dtype_t){"vector(2,1,2,INT)/16", t, 16, 2, {{0, 4}, {8, 4}}};

    /* struct {int @0; double @8}, resized to 24 -> holes 4..8, 16..24 */
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, 8};
    MPI_Datatype tt[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype s;
    MPI_Type_create_struct(2, bl, dp, tt, &s);
    MPI_Type_create_resized(s, 0, 24, &t);
    MPI_Type_free(&s);
    MPI_Type_commit(&t);
    types[T_STRUCT] = (dtype_t){"struct{int,double}/24", t, 24, 2, {{0, 4}, {8, 8}}};

    for (int i = 0; i < T_COUNT; i++) { /* check our description against MPI's */
        MPI_Aint lb, ext;
        int sz, want = 0;
        MPI_Type_get_extent(types[i].type, &lb, &ext);
        MPI_Type_size(types[i].type, &sz);
        for (int k = 0; k < types[i].nseg; k++) want += types[i].seg[k].len;
        if (lb != 0 || ext != types[i].extent || sz != want) {
            fprintf(stderr, "check_colls: internal error: type %s lb=%ld ext=%ld size=%d\n",
                    types[i].name, (long)lb, (long)ext, sz);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

static void free_types(void)
{
    for (int i = T_C3INT; i < T_COUNT; i++) MPI_Type_free(&types[i].type);
}

/* ------------------------------------------------------------ randomness */

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static uint32_t hash4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint32_t h = mix32(a * 0x9E3779B1u + 0x1234567u);
    h = mix32(h ^ (b + 0x85ebca6bu));
    h = mix32(h ^ (c + 0xc2b2ae35u));
    h = mix32(h ^ (d + 0x27d4eb2fu));
    return h;
}

static uint64_t rng_state;
static uint32_t rng(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* ----------------------------------------------------------- the pattern */

static unsigned seed = 1;
/* Arrival skew: before one call in skew_every, a delay of 0..skew_max_us;
 * world rank late_rank (if >= 0) is skew_max_us late before every call. */
static unsigned skew_max_us = 2000, skew_every = 4;
static int late_rank = -1;

/* The h of the block that src sends to dst (dst = -1: the same to all) in call
 * number call.  The low byte alone already differs between blocks, so even a
 * misplaced one-byte block is seen. */
static uint32_t block_hash(int src, int dst, unsigned call)
{
    uint32_t h = hash4((uint32_t)src, (uint32_t)dst, call, seed);
    uint32_t low = (uint32_t)(src * 37 + (dst + 1) * 11 + call * 3 + 1) & 0xffu;
    return (h & ~0xffu) | low;
}

/* byte k of the signature stream of a block */
static inline uint8_t pat_byte(uint32_t h, size_t k)
{
    uint32_t w = h + (uint32_t)(k >> 2) * 0x9E3779B1u;
    if (k >= 4) w ^= w >> 13;
    return (uint8_t)(w >> (8 * (k & 3)));
}

/* Writes count elements of t holding the pattern stream h at base. */
static void fill_block(unsigned char *base, const dtype_t *t, size_t count, uint32_t h)
{
    size_t k = 0;
    for (size_t e = 0; e < count; e++) {
        unsigned char *el = base + e * (size_t)t->extent;
        for (int s = 0; s < t->nseg; s++)
            for (int b = 0; b < t->seg[s].len; b++) el[t->seg[s].off + b] = pat_byte(h, k++);
    }
}

/* Marks the data bytes of count elements of t at base in mask. */
static void mark_block(unsigned char *mask, const dtype_t *t, size_t count)
{
    for (size_t e = 0; e < count; e++) {
        unsigned char *el = mask + e * (size_t)t->extent;
        for (int s = 0; s < t->nseg; s++) memset(el + t->seg[s].off, 1, (size_t)t->seg[s].len);
    }
}

static unsigned char *buf_alloc(size_t n, unsigned fill)
{
    unsigned char *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "check_colls: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, (int)fill, n ? n : 1); /* touch every page: fresh memory every call */
    return p;
}

static unsigned char *buf_dup(const unsigned char *src, size_t n)
{
    unsigned char *p = buf_alloc(n, 0);
    memcpy(p, src, n);
    return p;
}

/* ------------------------------------------------------------ the setup */

typedef struct {
    const char *name;
    MPI_Comm comm;
    int rank, size;
    int maxsize; /* the largest size of the communicators made by the same split */
} comm_t;

static comm_t comms[4];
static int ncomms;
static int world_rank, world_size;
static int quick, verbose;
static long user_counts[8]; /* --counts */
static int n_user_counts;
static int user_pairs[16]; /* --pairs */
static int n_user_pairs;
static const char *comm_names = "world,dup,shuffled,halves"; /* --comms */
static const char *only_coll, *only_algo;

static long checks, failures;
static int reports, pair_reports[16];
static unsigned call_no; /* the same sequence on every rank */

/* One call's whole description, for the failure message. */
typedef struct {
    int coll;
    const char *algo; /* NULL: automatic selection */
    const comm_t *c;
    const pair_t *p;
    long units; /* count, in units of the pair */
    int inplace;
    int root; /* gather; -1 otherwise */
    unsigned call;
    const char *phase;
} desc_t;

static const char *algo_label(const char *a) { return a ? a : "auto"; }

static void describe(const desc_t *d, char *out, size_t len)
{
    snprintf(out, len,
             "coll=%s algo=%s comm=%s(size %d) count=%ld type=%s->%s (sendcount=%ld recvcount=%ld) "
             "inplace=%d root=%d call=%u phase=%s",
             pacoll_coll_name((pacoll_coll_t)d->coll), algo_label(d->algo), d->c->name, d->c->size,
             d->units, types[d->p->st].name, types[d->p->rt].name, d->units * d->p->smul,
             d->units * d->p->rmul, d->inplace, d->root, d->call, d->phase);
}

static void fail(const desc_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const desc_t *d, const char *fmt, ...)
{
    failures++;
    if (pair_reports[d->p - pairs]++ >= MAX_PAIR_REPORTS) return;
    if (reports++ >= MAX_REPORTS) {
        if (reports == MAX_REPORTS + 1)
            fprintf(stderr, "check_colls[rank %d]: further failures not detailed\n", world_rank);
        return;
    }
    char what[512], msg[512];
    describe(d, what, sizeof what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "check_colls: FAIL rank %d (world %d): %s: %s\n", d->c->rank, world_rank, what,
            msg);
    fflush(stderr);
}

static void check_rc(const desc_t *d, int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        /* MPICH 4.0.2's MPI_Error_string writes past MPI_MAX_ERROR_STRING
         * when its error stack fills the buffer */
        char s[4 * MPI_MAX_ERROR_STRING];
        int len = 0, cls = -1;
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, s, &len);
        fail(d, "%s returned error %d (class %d): %s", what, rc, cls, s);
    }
}

/* Checks the last algorithm pacoll reports for the call just made. */
static int algo_registered(int coll, const char *name);
static void check_last_algorithm(const desc_t *d)
{
    char last[128] = "?";
    int rc = pacoll_comm_last_algorithm(d->c->comm, (pacoll_coll_t)d->coll, last, sizeof last);
    if (rc != MPI_SUCCESS) {
        fail(d, "pacoll_comm_last_algorithm returned %d", rc);
        return;
    }
    if (strcmp(last, "native") == 0) return;
    if (d->algo && strcmp(d->algo, last) == 0) return;
    if (!d->algo && algo_registered(d->coll, last)) return;
    fail(d, "pacoll_comm_last_algorithm says \"%s\"", last);
}

/* The layout of a receive buffer: block j (from rank j) is count[j] elements
 * of rt at element displacement displ[j]. */
typedef struct {
    int n;
    const int *displ;
    const int *count;
    const dtype_t *rt;
} layout_t;

static void locate(const layout_t *L, size_t byte, char *out, size_t len)
{
    size_t ext = (size_t)L->rt->extent;
    for (int j = 0; L && j < L->n; j++) {
        size_t a = (size_t)L->displ[j] * ext, b = a + (size_t)L->count[j] * ext;
        if (byte >= a && byte < b) {
            snprintf(out, len, "block from rank %d, element %zu, byte %zu of extent %zu", j,
                     (byte - a) / ext, (byte - a) % ext, ext);
            return;
        }
    }
    snprintf(out, len, "outside every block");
}

/* Compares a result with the expected image (the pattern every block must
 * hold, and the sentinel everywhere else).  Returns the number of bad bytes;
 * *first and *kind (1: a data byte, 2: a byte no block covers) locate the
 * first. */
static long diff_image(const unsigned char *got, const unsigned char *exp, const unsigned char *mask,
                       size_t n, size_t *first, int *kind)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (got[i] != exp[i]) {
            if (!bad) {
                *first = i;
                *kind = mask[i] ? 1 : 2;
            }
            bad++;
        }
    }
    return bad;
}

static long ref_failures;
static int ref_reports;

/* pacoll's result must equal the expected image; so must the reference
 * PMPI result (when it does not, the MPI library itself is wrong there: that
 * is reported as a warning, and pacoll is still judged by the pattern). */
static int compare(const desc_t *d, const unsigned char *got, const unsigned char *ref,
                   const unsigned char *exp, size_t n, const layout_t *L)
{
    unsigned char *mask = calloc(n ? n : 1, 1);
    for (int j = 0; j < L->n; j++)
        mark_block(mask + (size_t)L->displ[j] * (size_t)L->rt->extent, L->rt, (size_t)L->count[j]);
    size_t first = 0, rfirst = 0;
    int kind = 0, rkind = 0;
    long bad = diff_image(got, exp, mask, n, &first, &kind);
    long rbad = diff_image(ref, exp, mask, n, &rfirst, &rkind);
    free(mask);
    char where[160];
    if (rbad) {
        ref_failures++;
        if (ref_reports++ < 5) {
            char what[512];
            describe(d, what, sizeof what);
            locate(L, rfirst, where, sizeof where);
            fprintf(stderr,
                    "check_colls: WARNING rank %d: the reference PMPI call itself is wrong: %s: "
                    "%ld bad bytes, first %zu (%s): expected 0x%02x reference 0x%02x\n",
                    d->c->rank, what, rbad, rfirst, where, exp[rfirst], ref[rfirst]);
        }
    }
    if (!bad) return 0;
    locate(L, first, where, sizeof where);
    if (kind == 1)
        fail(d,
             "%ld bad bytes; first bad byte %zu (%s): expected 0x%02x actual 0x%02x (reference "
             "PMPI result 0x%02x)",
             bad, first, where, exp[first], got[first], ref[first]);
    else
        fail(d,
             "%ld bad bytes; first bad byte %zu (%s, a byte no block covers) was overwritten: "
             "expected sentinel 0x%02x actual 0x%02x",
             bad, first, where, SENTINEL, got[first]);
    return 1;
}

static void check_send_intact(const desc_t *d, const unsigned char *s, const unsigned char *copy,
                              size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != copy[i]) {
            fail(d, "the send buffer was modified at byte %zu: 0x%02x -> 0x%02x", i, copy[i], s[i]);
            return;
        }
}

/* ------------------------------------------------------------------ skew */

static void skew(const comm_t *c, unsigned call)
{
    uint32_t r = hash4(seed, (uint32_t)world_rank, call, 0x5eedu);
    unsigned us = r % skew_every == 0 ? (r >> 8) % (skew_max_us + 1u) : 0;
    if (world_rank == late_rank) us = skew_max_us;
    (void)c;
    if (us == 0) return;
#ifdef SMPI_HELPERS_H
    smpi_execute(us * 1e-6);
#else
    usleep(us);
#endif
}

/* ------------------------------------------------------------ algorithms */

static int algo_registered(int coll, const char *name)
{
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
            info.name && strcmp(info.name, name) == 0)
            return 1;
    }
    return 0;
}

#define MAX_ALGOS 64
/* names[0] = NULL (automatic), "native", then the registered ones */
static int algo_list(int coll, const char **names)
{
    int k = 0;
    if (!only_algo || strcmp(only_algo, "auto") == 0) names[k++] = NULL;
    if (!only_algo || strcmp(only_algo, "native") == 0) names[k++] = "native";
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n && k < MAX_ALGOS; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) != MPI_SUCCESS || (int)info.coll != coll) continue;
        if (strcmp(info.name, "native") == 0) continue;
        if (only_algo && strcmp(only_algo, info.name) != 0) continue;
        names[k++] = info.name;
    }
    return k;
}

/* ====================================================== one call, staged
 *
 * A call is prepared (buffers, reference inputs), run through pacoll, and
 * later verified: the reference PMPI call runs in verify(), so a burst of
 * pacoll calls can run back to back before any reference. */

typedef struct {
    desc_t d;
    int rc;
    /* pacoll's buffers */
    unsigned char *sbuf, *rbuf;
    size_t sbytes, rbytes;
    /* the reference's */
    unsigned char *sref, *rref;
    /* counts and displacements (alltoallv), element units */
    int *scounts, *sdispls, *rcounts, *rdispls;
    int scount, rcount;
    layout_t L;
    int *lcount, *ldispl; /* layout arrays for the fixed-count collectives */
} call_t;

static uint32_t units_hash(int i, int j, unsigned call)
{
    return hash4((uint32_t)i, (uint32_t)j, call, seed ^ 0xabcdu);
}

/* The alltoallv count, in units, from i to j (symmetric when inplace). */
static long v_units(long n, int i, int j, unsigned call, int symmetric, int size)
{
    if (symmetric && i > j) {
        int t = i;
        i = j;
        j = t;
    }
    if (n == 0) return 0;
    if (!symmetric && i == (int)(call % (unsigned)size) && (call % 3u) == 0) return 0; /* a row of zeros */
    uint32_t u = units_hash(i, j, call) % 8u;
    switch (u) {
    case 0:
    case 1: return 0;
    case 2:
    case 3:
    case 4: return n;
    case 5: return 2 * n + 1;
    case 6: return n / 7 + 1;
    default: return n >= 1000 ? 8 * n : 20 * n; /* very unequal */
    }
}

/* Shuffled order of the blocks with gaps: returns the total number of elements. */
static int place_blocks(int size, const int *counts, int *displs, uint32_t h)
{
    int *perm = malloc(sizeof(int) * (size_t)size);
    for (int j = 0; j < size; j++) perm[j] = j;
    for (int j = size - 1; j > 0; j--) {
        int k = (int)(mix32(h + (uint32_t)j) % (uint32_t)(j + 1));
        int t = perm[j];
        perm[j] = perm[k];
        perm[k] = t;
    }
    int cur = (int)(mix32(h ^ 0x77u) % 3u); /* a gap before the first block, sometimes */
    for (int k = 0; k < size; k++) {
        int j = perm[k];
        displs[j] = cur;
        cur += counts[j] + (int)(mix32(h + 1000u + (uint32_t)k) % 4u); /* gap 0..3 elements */
    }
    free(perm);
    return cur;
}

static void prepare(call_t *x)
{
    const desc_t *d = &x->d;
    const comm_t *c = d->c;
    int me = c->rank, P = c->size;
    const dtype_t *st = &types[d->p->st], *rt = &types[d->p->rt];
    size_t sext = (size_t)st->extent, rext = (size_t)rt->extent;
    unsigned call = d->call;

    x->scount = (int)(d->units * d->p->smul);
    x->rcount = (int)(d->units * d->p->rmul);
    x->lcount = calloc((size_t)P, sizeof(int));
    x->ldispl = calloc((size_t)P, sizeof(int));
    x->L.n = P;
    x->L.rt = rt;
    x->L.count = x->lcount;
    x->L.displ = x->ldispl;

    switch (d->coll) {
    case PACOLL_ALLTOALL: {
        for (int j = 0; j < P; j++) {
            x->lcount[j] = x->rcount;
            x->ldispl[j] = j * x->rcount;
        }
        x->rbytes = (size_t)P * (size_t)x->rcount * rext + SLACK;
        x->rbuf = buf_alloc(x->rbytes, SENTINEL);
        x->rref = buf_alloc(x->rbytes, SENTINEL);
        if (d->inplace) {
            for (int j = 0; j < P; j++)
                fill_block(x->rbuf + (size_t)j * (size_t)x->rcount * rext, rt, (size_t)x->rcount,
                           block_hash(me, j, call));
            x->sbytes = x->rbytes;
            x->sref = buf_dup(x->rbuf, x->rbytes); /* the reference's send buffer */
        } else {
            x->sbytes = (size_t)P * (size_t)x->scount * sext;
            x->sbuf = buf_alloc(x->sbytes, SEND_HOLE);
            for (int j = 0; j < P; j++)
                fill_block(x->sbuf + (size_t)j * (size_t)x->scount * sext, st, (size_t)x->scount,
                           block_hash(me, j, call));
            x->sref = buf_dup(x->sbuf, x->sbytes);
        }
        break;
    }
    case PACOLL_ALLGATHER:
    case PACOLL_GATHER: {
        int root = d->coll == PACOLL_GATHER ? d->root : -1;
        int receiver = d->coll == PACOLL_ALLGATHER || me == root;
        int dst = d->coll == PACOLL_GATHER ? root : -1;
        for (int j = 0; j < P; j++) {
            x->lcount[j] = x->rcount;
            x->ldispl[j] = j * x->rcount;
        }
        if (!receiver) x->L.n = 0;
        x->rbytes = receiver ? (size_t)P * (size_t)x->rcount * rext + SLACK : 0;
        /* a non-root gives NULL as recvbuf in every other call */
        if (receiver || (call & 1u) == 0) {
            x->rbuf = buf_alloc(x->rbytes, SENTINEL);
            x->rref = buf_alloc(x->rbytes, SENTINEL);
        }
        if (d->inplace && receiver) {
            fill_block(x->rbuf + (size_t)me * (size_t)x->rcount * rext, rt, (size_t)x->rcount,
                       block_hash(me, dst, call));
            x->sbytes = x->rbytes;
            x->sref = buf_dup(x->rbuf, x->rbytes);
        } else {
            x->sbytes = (size_t)x->scount * sext;
            x->sbuf = buf_alloc(x->sbytes, SEND_HOLE);
            fill_block(x->sbuf, st, (size_t)x->scount, block_hash(me, dst, call));
            x->sref = buf_dup(x->sbuf, x->sbytes);
        }
        break;
    }
    case PACOLL_ALLTOALLV: {
        x->scounts = calloc((size_t)P, sizeof(int));
        x->sdispls = calloc((size_t)P, sizeof(int));
        x->rcounts = calloc((size_t)P, sizeof(int));
        x->rdispls = calloc((size_t)P, sizeof(int));
        for (int j = 0; j < P; j++) {
            x->scounts[j] = (int)(v_units(d->units, me, j, call, d->inplace, P) * d->p->smul);
            x->rcounts[j] = (int)(v_units(d->units, j, me, call, d->inplace, P) * d->p->rmul);
        }
        int rtotal = place_blocks(P, x->rcounts, x->rdispls, hash4((uint32_t)me, call, 2u, seed));
        for (int j = 0; j < P; j++) {
            x->lcount[j] = x->rcounts[j];
            x->ldispl[j] = x->rdispls[j];
        }
        x->rbytes = (size_t)rtotal * rext + SLACK;
        x->rbuf = buf_alloc(x->rbytes, SENTINEL);
        x->rref = buf_alloc(x->rbytes, SENTINEL);
        if (d->inplace) {
            for (int j = 0; j < P; j++)
                fill_block(x->rbuf + (size_t)x->rdispls[j] * rext, rt, (size_t)x->rcounts[j],
                           block_hash(me, j, call));
            x->sbytes = x->rbytes;
            x->sref = buf_dup(x->rbuf, x->rbytes);
        } else {
            int stotal =
                place_blocks(P, x->scounts, x->sdispls, hash4((uint32_t)me, call, 1u, seed));
            x->sbytes = (size_t)stotal * sext;
            x->sbuf = buf_alloc(x->sbytes, SEND_HOLE);
            for (int j = 0; j < P; j++)
                fill_block(x->sbuf + (size_t)x->sdispls[j] * sext, st, (size_t)x->scounts[j],
                           block_hash(me, j, call));
            x->sref = buf_dup(x->sbuf, x->sbytes);
        }
        break;
    }
    }
}

static void run_pacoll(call_t *x)
{
    const desc_t *d = &x->d;
    MPI_Datatype st = types[d->p->st].type, rt = types[d->p->rt].type;
    MPI_Comm comm = d->c->comm;
    /* with MPI_IN_PLACE the send arguments are ignored: give typical values */
    int alt = (d->call & 1u) != 0;
    switch (d->coll) {
    case PACOLL_ALLTOALL:
        if (d->inplace)
            x->rc = pacoll_alltoall_alg(d->algo, MPI_IN_PLACE, alt ? 0 : x->rcount,
                                        alt ? MPI_INT : rt, x->rbuf, x->rcount, rt, comm);
        else
            x->rc = pacoll_alltoall_alg(d->algo, x->sbuf, x->scount, st, x->rbuf, x->rcount, rt,
                                        comm);
        break;
    case PACOLL_ALLGATHER:
        if (d->inplace)
            x->rc = pacoll_allgather_alg(d->algo, MPI_IN_PLACE, alt ? 0 : x->rcount,
                                         alt ? MPI_INT : rt, x->rbuf, x->rcount, rt, comm);
        else
            x->rc = pacoll_allgather_alg(d->algo, x->sbuf, x->scount, st, x->rbuf, x->rcount, rt,
                                         comm);
        break;
    case PACOLL_GATHER:
        if (d->inplace && d->c->rank == d->root)
            x->rc = pacoll_gather_alg(d->algo, MPI_IN_PLACE, alt ? 0 : x->rcount,
                                      alt ? MPI_INT : rt, x->rbuf, x->rcount, rt, d->root, comm);
        else
            x->rc = pacoll_gather_alg(d->algo, x->sbuf, x->scount, st, x->rbuf, x->rcount, rt,
                                      d->root, comm);
        break;
    case PACOLL_ALLTOALLV:
        if (d->inplace)
            x->rc = pacoll_alltoallv_alg(d->algo, MPI_IN_PLACE, x->rcounts, x->rdispls, rt, x->rbuf,
                                         x->rcounts, x->rdispls, rt, comm);
        else
            x->rc = pacoll_alltoallv_alg(d->algo, x->sbuf, x->scounts, x->sdispls, st, x->rbuf,
                                         x->rcounts, x->rdispls, rt, comm);
        break;
    }
}

/* The reference, on separate buffers, never in place (MPI_IN_PLACE means
 * "my send data is in recvbuf", so the reference sends from a copy). */
static int run_reference(call_t *x)
{
    const desc_t *d = &x->d;
    MPI_Datatype st = types[d->p->st].type, rt = types[d->p->rt].type;
    size_t rext = (size_t)types[d->p->rt].extent;
    MPI_Comm comm = d->c->comm;
    int me = d->c->rank;
    switch (d->coll) {
    case PACOLL_ALLTOALL:
        if (d->inplace)
            return PMPI_Alltoall(x->sref, x->rcount, rt, x->rref, x->rcount, rt, comm);
        return PMPI_Alltoall(x->sref, x->scount, st, x->rref, x->rcount, rt, comm);
    case PACOLL_ALLGATHER:
        if (d->inplace)
            return PMPI_Allgather(x->sref + (size_t)me * (size_t)x->rcount * rext, x->rcount, rt,
                                  x->rref, x->rcount, rt, comm);
        return PMPI_Allgather(x->sref, x->scount, st, x->rref, x->rcount, rt, comm);
    case PACOLL_GATHER:
        if (d->inplace && me == d->root)
            return PMPI_Gather(x->sref + (size_t)me * (size_t)x->rcount * rext, x->rcount, rt,
                               x->rref, x->rcount, rt, d->root, comm);
        return PMPI_Gather(x->sref, x->scount, st, x->rref, x->rcount, rt, d->root, comm);
    case PACOLL_ALLTOALLV:
        if (d->inplace)
            return PMPI_Alltoallv(x->sref, x->rcounts, x->rdispls, rt, x->rref, x->rcounts,
                                  x->rdispls, rt, comm);
        return PMPI_Alltoallv(x->sref, x->scounts, x->sdispls, st, x->rref, x->rcounts, x->rdispls,
                              rt, comm);
    }
    return MPI_ERR_OTHER;
}

static void verify(call_t *x)
{
    const desc_t *d = &x->d;
    int ok_before = (int)failures;
    check_rc(d, x->rc, "the pacoll call");
    int rc = run_reference(x);
    if (rc != MPI_SUCCESS) {
        check_rc(d, rc, "the reference PMPI call");
    } else if (x->rbuf && x->L.n > 0) {
        /* the expected image: every block's pattern, the sentinel elsewhere */
        const dtype_t *rt = &types[d->p->rt];
        int me = d->c->rank;
        int dst = d->coll == PACOLL_ALLGATHER ? -1 : d->coll == PACOLL_GATHER ? d->root : me;
        unsigned char *exp = buf_alloc(x->rbytes, SENTINEL);
        for (int j = 0; j < x->L.n; j++)
            fill_block(exp + (size_t)x->L.displ[j] * (size_t)rt->extent, rt,
                       (size_t)x->L.count[j], block_hash(j, dst, d->call));
        compare(d, x->rbuf, x->rref, exp, x->rbytes, &x->L);
        free(exp);
    }
    if (x->sbuf) check_send_intact(d, x->sbuf, x->sref, x->sbytes);
    checks++;
    if (verbose && (int)failures == ok_before && world_rank == 0) {
        char what[512];
        describe(d, what, sizeof what);
        printf("ok %s\n", what);
    }
}

static void release(call_t *x)
{
    free(x->sbuf);
    free(x->rbuf);
    free(x->sref);
    free(x->rref);
    free(x->scounts);
    free(x->sdispls);
    free(x->rcounts);
    free(x->rdispls);
    free(x->lcount);
    free(x->ldispl);
    memset(x, 0, sizeof *x);
}

/* One complete checked call. */
static void one_call(int coll, const char *algo, const comm_t *c, const pair_t *p, long units,
                     int inplace, int root, const char *phase)
{
    call_t x;
    memset(&x, 0, sizeof x);
    x.d = (desc_t){coll, algo, c, p, units, inplace, root, call_no++, phase};
    prepare(&x);
    skew(c, x.d.call);
    run_pacoll(&x);
    if (x.rc == MPI_SUCCESS) check_last_algorithm(&x.d);
    verify(&x);
    release(&x);
}

/* ================================================================ phases */

static long big_count(int coll, int P)
{
    /* 100000 elements; less when the buffers would grow past ~3 M elements */
    long n = 100000;
    long per = (coll == PACOLL_GATHER) ? 1 : P;
    if (coll == PACOLL_ALLTOALL || coll == PACOLL_ALLTOALLV || coll == PACOLL_ALLGATHER) {
        while (n * per * (coll == PACOLL_ALLTOALLV ? 3 : 1) > 1600000 && n > 1000) n /= 2;
    }
    return n;
}

/* Cases where the MPI library's own collective is wrong, so that neither a
 * reference nor pacoll's fallback to it can be trusted (found with
 * --algo native: the reference agrees with native on a wrong result):
 *  - Open MPI 4.1 MPI_Alltoall with different datatypes on the two sides
 *    (e.g. 1 vector -> 2 INT) at 16 ranks: wrong data and heap corruption
 *    ("free(): invalid size"); 12 ranks were fine;
 *  - SimGrid SMPI 3.32 MPI_Alltoall with different datatypes on the two
 *    sides, and MPI_Alltoallv in place with a non-contiguous type.
 * The decision depends only on world-wide values, so every rank makes the
 * same calls. */
static int mpi_broken(int coll, const pair_t *p, int inplace)
{
#if defined(SMPI_HELPERS_H)
    if (coll == PACOLL_ALLTOALL && p->st != p->rt) return 1;
    if (coll == PACOLL_ALLTOALLV && inplace && types[p->rt].nseg > 1) return 1;
#elif defined(OMPI_MAJOR_VERSION)
    if (coll == PACOLL_ALLTOALL && p->st != p->rt && world_size > 12) return 1;
    (void)inplace;
#else
    (void)coll;
    (void)p;
    (void)inplace;
#endif
    return 0;
}

/* counts x pairs x communicators, with and without MPI_IN_PLACE */
static void phase_matrix(int coll, const char *algo)
{
    static const long full_counts[] = {0, 1, 7, 1000};
    static const long quick_counts[] = {0, 1, 7, 300};
    const long *counts = n_user_counts ? user_counts : quick ? quick_counts : full_counts;
    int ncounts = n_user_counts ? n_user_counts : 4;
    int np = n_user_pairs ? n_user_pairs : quick ? NQUICK : NPAIRS;
    for (int pi = 0; pi < np; pi++) {
        const pair_t *p = &pairs[n_user_pairs ? user_pairs[pi] : quick ? quick_pairs[pi] : pi];
        if (mpi_broken(coll, p, 0)) continue;
        for (int ci = 0; ci < ncounts + 1; ci++) {
            long n;
            if (ci < ncounts) {
                n = counts[ci];
            } else {
                if (quick || n_user_counts || !p->big) continue;
                n = big_count(coll, world_size);
            }
            for (int k = 0; k < ncomms; k++) {
                /* the largest count on one communicator only */
                if (ci == ncounts && k != pi % ncomms) continue;
                const comm_t *c = &comms[k];
                int root = coll == PACOLL_GATHER ? (int)((call_no + (unsigned)ci) % (unsigned)c->size)
                                                 : -1;
                one_call(coll, algo, c, p, n, 0, root, "matrix");
            }
            /* in place: one type for both sides, so only same-type pairs;
             * skip the largest count to bound the time */
            if (p->st == p->rt && ci < ncounts && !mpi_broken(coll, p, 1)) {
                for (int k = 0; k < ncomms; k++) {
                    const comm_t *c = &comms[(k + pi) % ncomms];
                    int root = coll == PACOLL_GATHER ? (int)(call_no % (unsigned)c->size) : -1;
                    one_call(coll, algo, c, p, n, 1, root, "inplace");
                }
            }
        }
    }
}

/* gather: every root, small counts */
static void phase_roots(const char *algo)
{
    static const int rp[] = {1, 4, 6};
    long counts[2] = {1, 7};
    for (int k = 0; k < ncomms; k++) {
        const comm_t *c = &comms[k];
        /* both halves make the same number of calls */
        for (int r = 0; r < c->maxsize; r++) {
            int root = r % c->size;
            for (int ci = 0; ci < (quick ? 1 : 2); ci++) {
                const pair_t *p = &pairs[rp[(root + ci) % 3]];
                one_call(PACOLL_GATHER, algo, c, p, counts[(root + ci) % 2], (root % 3) == 1, root,
                         "roots");
            }
        }
    }
}

/* back to back, changing sizes, fresh buffers, alternating communicators;
 * the references only after the whole burst */
static void phase_burst(int coll, const char *algo)
{
    static const long bcounts[BURST] = {1, 1000, 0, 7, 100, 3, 1000, 1};
    static const int bpairs[BURST] = {1, 4, 6, 0, 7, 8, 1, 5};
    call_t xs[BURST];
    int rounds = quick ? 1 : 2;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < BURST; i++) {
            memset(&xs[i], 0, sizeof xs[i]);
            const comm_t *c = &comms[(i + r) % ncomms];
            const pair_t *p = &pairs[bpairs[(i + 3 * r) % BURST]];
            if (mpi_broken(coll, p, 0)) p = &pairs[1];
            int inplace = (i % 3 == 2) && p->st == p->rt && !mpi_broken(coll, p, 1);
            int root = coll == PACOLL_GATHER ? (int)((unsigned)(i * 5 + r) % (unsigned)c->size) : -1;
            xs[i].d = (desc_t){coll, algo, c, p, bcounts[(i + r) % BURST], inplace, root, call_no++,
                               "burst"};
            prepare(&xs[i]);
            if (i % 2) skew(c, xs[i].d.call);
            run_pacoll(&xs[i]);
            if (xs[i].rc == MPI_SUCCESS) check_last_algorithm(&xs[i].d);
        }
        for (int i = 0; i < BURST; i++) {
            verify(&xs[i]);
            release(&xs[i]);
        }
    }
}

/* ================================================================== main */

static void usage(void)
{
    if (world_rank == 0)
        fprintf(stderr,
                "usage: check_colls [--quick] [--coll NAME] [--algo NAME] [--seed N] [--list]\n"
                "                   [--counts N,N,..] [--pairs I,I,..] [--comms LIST] [--verbose]\n"
                "                   [--skew-max US] [--skew-every K] [--late-rank R]\n"
                "  --algo NAME  a registered algorithm, native, or auto\n"
                "  --counts     the counts of the matrix phase (no 100000 then)\n"
                "  --pairs      indices of the type pairs (see --list)\n"
                "  --comms      some of world,dup,shuffled,halves\n"
                "  --skew-max   largest arrival delay in microseconds (2000)\n"
                "  --skew-every delay before one call in K (4; 1 = every call)\n"
                "  --late-rank  this world rank is skew-max late before every call\n");
}

static void make_comms(void)
{
    int n = 0;
    comms[n++] = (comm_t){"world", MPI_COMM_WORLD, 0, 0, 0};
    MPI_Comm dup, shuf, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    comms[n++] = (comm_t){"dup", dup, 0, 0, 0};
    /* key = (rank*7919) % size, reversed: a shuffled rank order */
    int key = world_size - 1 - (int)(((long)world_rank * 7919L) % world_size);
    MPI_Comm_split(MPI_COMM_WORLD, 0, key, &shuf);
    comms[n++] = (comm_t){"split-shuffled", shuf, 0, 0, 0};
    /* two halves, odd sizes where possible: the first has the largest odd
     * size <= world/2 (at least 1) */
    int a = world_size / 2;
    if (a % 2 == 0) a--;
    if (a < 1) a = 1;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < a, world_rank, &half);
    comms[n++] = (comm_t){world_rank < a ? "half-low" : "half-high", half, 0, 0, 0};
    /* keep the ones --comms names */
    static const char *keys[4] = {"world", "dup", "shuffled", "halves"};
    int m = 0;
    for (int k = 0; k < n; k++) {
        char list[128];
        int keep = 0;
        snprintf(list, sizeof list, "%s", comm_names);
        for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
            if (strcmp(t, keys[k]) == 0) keep = 1;
        if (keep)
            comms[m++] = comms[k];
        else if (k > 0)
            MPI_Comm_free(&comms[k].comm);
    }
    if (m == 0) comms[m++] = (comm_t){"world", MPI_COMM_WORLD, 0, 0, 0};
    ncomms = m;
    for (int k = 0; k < ncomms; k++) {
        MPI_Comm_rank(comms[k].comm, &comms[k].rank);
        MPI_Comm_size(comms[k].comm, &comms[k].size);
        MPI_Comm_set_errhandler(comms[k].comm, MPI_ERRORS_RETURN);
        MPI_Allreduce(&comms[k].size, &comms[k].maxsize, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--verbose")) {
            verbose = 1;
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if (!strcmp(argv[i], "--coll") && i + 1 < argc) {
            only_coll = argv[++i];
        } else if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
            only_algo = argv[++i];
        } else if (!strcmp(argv[i], "--counts") && i + 1 < argc) {
            char *t = argv[++i], *e;
            n_user_counts = 0;
            while (*t && n_user_counts < 8) {
                user_counts[n_user_counts++] = strtol(t, &e, 10);
                t = *e == ',' ? e + 1 : e;
                if (e == t && *t) break;
            }
        } else if (!strcmp(argv[i], "--pairs") && i + 1 < argc) {
            char *t = argv[++i], *e;
            n_user_pairs = 0;
            while (*t && n_user_pairs < 16) {
                long v = strtol(t, &e, 10);
                if (e == t || v < 0 || v >= NPAIRS) {
                    if (world_rank == 0) fprintf(stderr, "check_colls: bad --pairs\n");
                    MPI_Finalize();
                    return 2;
                }
                user_pairs[n_user_pairs++] = (int)v;
                t = *e == ',' ? e + 1 : e;
            }
        } else if (!strcmp(argv[i], "--comms") && i + 1 < argc) {
            comm_names = argv[++i];
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--skew-max") && i + 1 < argc) {
            skew_max_us = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--skew-every") && i + 1 < argc) {
            skew_every = (unsigned)strtoul(argv[++i], NULL, 0);
            if (skew_every == 0) skew_every = 1;
        } else if (!strcmp(argv[i], "--late-rank") && i + 1 < argc) {
            late_rank = (int)strtol(argv[++i], NULL, 0);
        } else {
            usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (only_coll && pacoll_coll_from_name(only_coll) < 0) {
        if (world_rank == 0) fprintf(stderr, "check_colls: unknown collective %s\n", only_coll);
        MPI_Finalize();
        return 2;
    }
    rng_state = seed;
    (void)rng;

    make_types();
    make_comms();

    if (list && world_rank == 0) {
        for (int i = 0; i < NPAIRS; i++)
            printf("pair %d: %s -> %s (x%d -> x%d)\n", i, types[pairs[i].st].name,
                   types[pairs[i].rt].name, pairs[i].smul, pairs[i].rmul);
        for (int coll = 0; coll < PACOLL_NCOLL; coll++) {
            const char *names[MAX_ALGOS];
            int n = algo_list(coll, names);
            printf("%s:", pacoll_coll_name((pacoll_coll_t)coll));
            for (int i = 0; i < n; i++) printf(" %s", algo_label(names[i]));
            printf("\n");
        }
    }

    double t0 = MPI_Wtime();
    int algos_run = 0;
    for (int coll = 0; coll < PACOLL_NCOLL && !list; coll++) {
        if (only_coll && pacoll_coll_from_name(only_coll) != coll) continue;
        const char *names[MAX_ALGOS];
        int n = algo_list(coll, names);
        for (int a = 0; a < n; a++) {
            double t1 = MPI_Wtime();
            long c0 = checks, f0 = failures;
            memset(pair_reports, 0, sizeof pair_reports);
            phase_matrix(coll, names[a]);
            phase_burst(coll, names[a]);
            if (coll == PACOLL_GATHER) phase_roots(names[a]);
            algos_run++;
            long l[2] = {checks - c0, failures - f0}, g[2];
            MPI_Allreduce(l, g, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (world_rank == 0)
                printf("check_colls: %-9s %-22s %6ld checks %4ld failed  %.2f s\n",
                       pacoll_coll_name((pacoll_coll_t)coll), algo_label(names[a]), g[0], g[1],
                       MPI_Wtime() - t1);
            fflush(stdout);
        }
    }

    /* every rank must have made the same number of checks */
    long mm[2] = {checks, -checks}, mmr[2];
    MPI_Allreduce(mm, mmr, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (mmr[0] != -mmr[1]) {
        if (world_rank == 0)
            fprintf(stderr, "check_colls: ranks disagree on the number of checks (%ld..%ld)\n",
                -mmr[1], mmr[0]);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    long loc[2] = {checks, failures}, tot[2];
    MPI_Allreduce(loc, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long rtot = 0;
    MPI_Allreduce(&ref_failures, &rtot, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (!list && algos_run == 0)
            fprintf(stderr, "check_colls: no algorithm matched --coll/--algo\n");
        printf("check_colls: np=%d seed=%u%s, %.1f s\n", world_size, seed, quick ? " quick" : "",
               MPI_Wtime() - t0);
        if (rtot)
            printf("check_colls: WARNING: %ld reference PMPI results (summed over ranks) differ "
                   "from the expected pattern: the MPI library's own collective is wrong there\n",
                   rtot);
        printf("check_colls: %ld checks passed, %ld failed\n", tot[0] - tot[1], tot[1]);
        fflush(stdout);
    }
    int status = tot[1] != 0 || (!list && algos_run == 0 && world_rank == 0);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    for (int k = 0; k < ncomms; k++)
        if (comms[k].comm != MPI_COMM_WORLD) MPI_Comm_free(&comms[k].comm);
    free_types();
    MPI_Finalize();
    return status ? 1 : 0;
}
