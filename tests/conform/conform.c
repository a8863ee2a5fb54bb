/*
 * pacoll-conform: a random conformance sweep of pacoll's four collectives
 * (alltoall, alltoallv, allgather, gather) with the MPI library as the
 * oracle, and the driver of the soak (scripts/soak.sh).
 *
 * Case K of seed S is derived from (S, K) alone, so every rank builds the same
 * case without communicating: the collective, the algorithm, the kind of
 * communicator, the datatype pair, the counts, MPI_IN_PLACE, the root; the
 * per-rank parts (alltoallv counts, displacements) come from hashes of
 * (S, K, sender, receiver).  Each case is run
 *   - through pacoll: pacoll_<coll>_alg(algo, ...) (or pacoll_<coll>(...), or
 *     pacoll_comm_set_algorithm + pacoll_<coll>) in pacoll-conform; through the
 *     plain MPI_<coll> names in pacoll-conform-preload, a program that does not
 *     link pacoll and gets it by LD_PRELOAD=libpacoll_preload.so (it finds
 *     pacoll_comm_set_algorithm with dlsym to force the algorithm);
 *   - through PMPI_<coll> on separate buffers (never in place),
 * and both receive buffers are compared byte for byte with an independently
 * computed expected image: the data pattern in every block, the sentinel in
 * the holes of non-contiguous types, the gaps between alltoallv blocks and
 * 64-byte guards before and after.  Where PMPI disagrees with the image, the
 * MPI library is wrong there: a WARNING, and pacoll is judged by the image.
 * The send buffer must be unchanged.
 *
 * Communicators: MPI_COMM_WORLD, MPI_Comm_split (1-3 colours, shuffled keys),
 * MPI_Comm_dup (of the world or of the split), MPI_Comm_create_group (a random
 * subgroup in shuffled order; the others skip the case), and an
 * intercommunicator between two unequal parts of the world (inter semantics:
 * counts sized by the remote group, MPI_ROOT / MPI_PROC_NULL for gather,
 * zero counts in one direction).  Every --churn cases all of them are freed
 * and made anew (different groups, keys and sizes).
 *
 * A failure prints one line on the failing rank, with a reproducer:
 *   conform: FAIL seed=S case=K coll=.. algo=.. comm=.. type=.. count=..
 *     inplace=.. root=.. rank=..: <what differed>; reproduce: mpirun ...
 * The last line of rank 0 is "conform: N cases, C calls, F failed" (C: calls
 * checked, summed over ranks); the exit status is non-zero on any failure.
 * Run with --help for the options; docs/TESTING.md, "Conformance sweep and
 * soak", says what runs where.
 */
#include <mpi.h>
#include <dirent.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CONFORM_PRELOAD
#include <dlfcn.h>
#endif

#include "pacoll.h"

#if defined(SMPI_HELPERS_H)
#define CONFORM_SMPI 1
#else
#define CONFORM_SMPI 0
#endif

#define SENTINEL 0xA5u   /* receive buffers, before the call */
#define SEND_HOLE 0xEEu  /* holes of a send buffer: must never arrive anywhere */
#define GUARD 64         /* bytes before and after every buffer */
#define IDS 4096         /* intercommunicator ids: side * IDS + rank */
#define MAX_ALGOS 48
#define MAX_FAIL_LINES 12 /* FAIL lines per rank */
#define MAX_WARN_LINES 5
#define CHECKPOINT 8 /* cases between two agreements of the ranks */

extern char **environ;

/* ------------------------------------------------------------- options */

static int world_rank, world_size;
static unsigned seed = 1;
static long opt_cases = -1;      /* --cases */
static double opt_duration = 0;  /* --duration, seconds */
static long opt_case = -1;       /* --case */
static const char *opt_colls, *opt_comms, *opt_algos;
static int opt_skew, opt_verbose, opt_list;
static double opt_report = 0;    /* --report-every, seconds */
static long opt_churn = 25;      /* --churn */
static long opt_budget = 100000; /* --budget: largest receive, elements per rank */
static int opt_watchdog = 40;    /* --watchdog, seconds */

static const char *coll_names[PACOLL_NCOLL] = {"alltoall", "alltoallv", "allgather", "gather"};

/* ---------------------------------------------------- the pacoll API used */

#ifdef CONFORM_PRELOAD
/* Found at run time: the program is linked with the MPI library only. */
static int (*api_count)(void);
static int (*api_info)(int, pacoll_algo_info_t *);
static int (*api_set)(MPI_Comm, pacoll_coll_t, const char *);
static int (*api_last)(MPI_Comm, pacoll_coll_t, char *, int);
static const char *(*api_version)(void);

static int find_sym(const char *name, void *fp)
{
    void *s = dlsym(RTLD_DEFAULT, name);
    if (!s)
        return 0;
    memcpy(fp, &s, sizeof s);
    return 1;
}

static int find_api(void)
{
    return find_sym("pacoll_algorithm_count", &api_count) &&
           find_sym("pacoll_algorithm_info", &api_info) &&
           find_sym("pacoll_comm_set_algorithm", &api_set) &&
           find_sym("pacoll_comm_last_algorithm", &api_last) &&
           find_sym("pacoll_version", &api_version);
}
#else
#define api_count pacoll_algorithm_count
#define api_info pacoll_algorithm_info
#define api_set pacoll_comm_set_algorithm
#define api_last pacoll_comm_last_algorithm
#define api_version pacoll_version
#endif

/* ------------------------------------------------------------------ types */

typedef struct {
    int off, len;
} seg_t;

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Aint lb, extent; /* MPI's */
    MPI_Aint tlb, tub;   /* first data byte, one past the last, of one element */
    int size, nseg;
    seg_t seg[4]; /* the data bytes of one element, in type-map order */
} dtype_t;

enum {
    T_BYTE,
    T_INT,
    T_DOUBLE,
    T_C3INT,
    T_VEC,
    T_IDX,
    T_STRUCT,
    T_STRUCT2,
    T_RESIZED,
    T_HNEG,
    T_RNEG,
    T_COUNT
};
static dtype_t types[T_COUNT];

/* n units go as n*smul elements of st and arrive as n*rmul elements of rt
 * (equal type signatures) */
typedef struct {
    int st, rt, smul, rmul;
} pair_t;

static const pair_t pairs[] = {
    {T_BYTE, T_BYTE, 1, 1},       {T_INT, T_INT, 1, 1},         {T_DOUBLE, T_DOUBLE, 1, 1},
    {T_C3INT, T_C3INT, 1, 1},     {T_VEC, T_VEC, 1, 1},         {T_IDX, T_IDX, 1, 1},
    {T_STRUCT, T_STRUCT, 1, 1},   {T_STRUCT2, T_STRUCT2, 1, 1}, {T_RESIZED, T_RESIZED, 1, 1},
    {T_HNEG, T_HNEG, 1, 1},       {T_RNEG, T_RNEG, 1, 1},
    /* different but matching signatures */
    {T_INT, T_C3INT, 3, 1},       {T_C3INT, T_INT, 1, 3},       {T_VEC, T_INT, 1, 2},
    {T_INT, T_VEC, 2, 1},         {T_IDX, T_INT, 1, 4},         {T_INT, T_IDX, 4, 1},
    {T_HNEG, T_INT, 1, 2},        {T_INT, T_HNEG, 2, 1},        {T_RNEG, T_RESIZED, 1, 1},
    {T_C3INT, T_IDX, 4, 3},       {T_HNEG, T_VEC, 1, 1},
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))
#define PAIR_INT 1

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "conform[rank %d]: ", world_rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

static void def_type(int i, const char *name, MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, int nseg,
                     const seg_t *seg)
{
    dtype_t *d = &types[i];
    d->name = name;
    d->type = t;
    d->lb = lb;
    d->extent = ext;
    d->nseg = nseg;
    d->size = 0;
    d->tlb = seg[0].off;
    d->tub = seg[0].off + seg[0].len;
    for (int k = 0; k < nseg; k++) {
        d->seg[k] = seg[k];
        d->size += seg[k].len;
        if (seg[k].off < d->tlb)
            d->tlb = seg[k].off;
        if (seg[k].off + seg[k].len > d->tub)
            d->tub = seg[k].off + seg[k].len;
    }
}

static MPI_Datatype committed(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, int free_old)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, lb, ext, &r);
    if (free_old)
        MPI_Type_free(&t);
    return committed(r);
}

static void make_types(void)
{
    MPI_Datatype t;
    def_type(T_BYTE, "BYTE", MPI_BYTE, 0, 1, 1, (seg_t[]){{0, 1}});
    def_type(T_INT, "INT", MPI_INT, 0, 4, 1, (seg_t[]){{0, 4}});
    def_type(T_DOUBLE, "DOUBLE", MPI_DOUBLE, 0, 8, 1, (seg_t[]){{0, 8}});
    MPI_Type_contiguous(3, MPI_INT, &t);
    def_type(T_C3INT, "contig(3,INT)", committed(t), 0, 12, 1, (seg_t[]){{0, 12}});
    /* ints at 0 and 8 of 16 bytes */
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    def_type(T_VEC, "vector(2,1,2,INT)/16", resized(t, 0, 16, 1), 0, 16, 2,
             (seg_t[]){{0, 4}, {8, 4}});
    /* ints at 0, 4, 12, 20 of 24 bytes */
    int ibl[3] = {2, 1, 1}, idp[3] = {0, 3, 5};
    MPI_Type_indexed(3, ibl, idp, MPI_INT, &t);
    def_type(T_IDX, "indexed({2,1,1},{0,3,5},INT)", committed(t), 0, 24, 3,
             (seg_t[]){{0, 8}, {12, 4}, {20, 4}});
    /* struct {int @0; double @8} of 24 bytes: holes 4..8, 16..24 */
    int bl[3] = {1, 1, 1};
    MPI_Aint dp[3] = {0, 8, 0};
    MPI_Datatype tt[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, bl, dp, tt, &t);
    def_type(T_STRUCT, "struct{int,double}/24", resized(t, 0, 24, 1), 0, 24, 2,
             (seg_t[]){{0, 4}, {8, 8}});
    /* struct {char @1; int @4; double @16} of 32 bytes: holes 0, 2..4, 8..16, 24..32 */
    MPI_Aint dp2[3] = {1, 4, 16};
    MPI_Datatype tt2[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(3, bl, dp2, tt2, &t);
    def_type(T_STRUCT2, "struct{char@1,int@4,double@16}/32", resized(t, 0, 32, 1), 0, 32, 3,
             (seg_t[]){{1, 1}, {4, 4}, {16, 8}});
    def_type(T_RESIZED, "resized(INT,0,12)", resized(MPI_INT, 0, 12, 0), 0, 12, 1,
             (seg_t[]){{0, 4}});
    /* negative lower bounds: an int at -8 and one at 4 (lb -8, extent 16),
     * and an int at 0 with lb -8, extent 8 (lb = -extent) */
    int hbl[2] = {1, 1};
    MPI_Aint hdp[2] = {-8, 4};
    MPI_Type_create_hindexed(2, hbl, hdp, MPI_INT, &t);
    def_type(T_HNEG, "hindexed({-8,4},INT)", committed(t), -8, 16, 2, (seg_t[]){{-8, 4}, {4, 4}});
    def_type(T_RNEG, "resized(INT,-8,8)", resized(MPI_INT, -8, 8, 0), -8, 8, 1, (seg_t[]){{0, 4}});

    for (int i = 0; i < T_COUNT; i++) { /* our description against MPI's */
        MPI_Aint lb, ext, tlb, text;
        int sz;
        MPI_Type_get_extent(types[i].type, &lb, &ext);
        MPI_Type_get_true_extent(types[i].type, &tlb, &text);
        MPI_Type_size(types[i].type, &sz);
        /* SMPI 3.32 gives a resized type's extent as its true extent */
        int true_ok = CONFORM_SMPI || (tlb == types[i].tlb && tlb + text == types[i].tub);
        if (lb != types[i].lb || ext != types[i].extent || !true_ok || sz != types[i].size)
            die("internal error: type %s: lb %ld ext %ld true lb %ld true extent %ld size %d",
                types[i].name, (long)lb, (long)ext, (long)tlb, (long)text, sz);
    }
}

static void free_types(void)
{
    for (int i = T_C3INT; i < T_COUNT; i++)
        MPI_Type_free(&types[i].type);
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

/* One draw of case (or epoch) k: every field has its own stream, so a value
 * does not change when another field's list (--colls, --algos, --comms) does:
 * a reproducer that pins the collective, the algorithm and the communicator
 * gets the same types, counts and roots. */
enum {
    F_COLL = 1,
    F_ALGO,
    F_COMM,
    F_PAIR,
    F_UNITS,
    F_UNITS2,
    F_ZSIDE,
    F_INPLACE,
    F_ROOT,
    F_RSIDE,
    F_VZON,
    F_VZROW,
    F_VZCOL,
    F_VCOUNT,
    F_SDISP,
    F_RDISP,
    F_ENTRY,
    F_JUNK,
    F_ALT,
    F_SKEW,
    F_BLOCK,
    /* epochs (communicators) */
    F_SPLITN = 100,
    F_COLOR,
    F_SPERM,
    F_GSIZE,
    F_GPERM,
    F_ISIZE,
    F_IPERM,
};

static uint32_t hk(unsigned long k, uint32_t field, uint32_t a, uint32_t b)
{
    uint32_t h = hash4(seed, (uint32_t)k, (uint32_t)((uint64_t)k >> 32) + field * 0x9E3779B1u, a);
    return mix32(h ^ (b * 0x85ebca6bu + 0x165667b1u));
}

/* ----------------------------------------------------------- the pattern */

/* The pattern of the block src sends to dst (dst -1: the same to all) in
 * case k; the low byte alone differs between blocks, so even a misplaced
 * one-byte block is seen. */
static uint32_t block_hash(int src, int dst, unsigned long k)
{
    uint32_t h = hk(k, F_BLOCK, (uint32_t)src, (uint32_t)(dst + 1));
    uint32_t low = (uint32_t)(src * 37 + (dst + 1) * 11 + (int)(k % 1024) * 3 + 1) & 0xffu;
    return (h & ~0xffu) | low;
}

static inline uint8_t pat_byte(uint32_t h, size_t k)
{
    uint32_t w = h + (uint32_t)(k >> 2) * 0x9E3779B1u;
    if (k >= 4)
        w ^= w >> 13;
    return (uint8_t)(w >> (8 * (k & 3)));
}

/* count elements of t at el0 (an element's origin: its data may lie below) */
static void fill_block(unsigned char *el0, const dtype_t *t, size_t count, uint32_t h)
{
    size_t k = 0;
    for (size_t e = 0; e < count; e++) {
        unsigned char *el = el0 + (ptrdiff_t)e * t->extent;
        for (int s = 0; s < t->nseg; s++)
            for (int b = 0; b < t->seg[s].len; b++)
                el[t->seg[s].off + b] = pat_byte(h, k++);
    }
}

static void mark_block(unsigned char *el0, const dtype_t *t, size_t count)
{
    for (size_t e = 0; e < count; e++) {
        unsigned char *el = el0 + (ptrdiff_t)e * t->extent;
        for (int s = 0; s < t->nseg; s++)
            memset(el + t->seg[s].off, 1, (size_t)t->seg[s].len);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory (%zu bytes)", n);
    return p;
}

/* ---------------------------------------------------------- the buffers */

/* A buffer of n blocks: block j is count[j] elements of t at element
 * displacement displ[j] from origin (the pointer the call gets). */
typedef struct {
    const dtype_t *t;
    int n;
    const int *count, *displ;
    unsigned char *base, *origin; /* allocation: guard, the span, guard */
    size_t bytes;
} lay_t;

static void lay_alloc(lay_t *L, const dtype_t *t, int n, const int *count, const int *displ,
                      unsigned fill)
{
    ptrdiff_t lo = 0, hi = 0, ext = t->extent;
    for (int j = 0; j < n; j++) {
        if (count[j] <= 0)
            continue;
        ptrdiff_t a = (ptrdiff_t)displ[j] * ext + t->tlb;
        ptrdiff_t b = ((ptrdiff_t)displ[j] + count[j] - 1) * ext + t->tub;
        if (a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    L->t = t;
    L->n = n;
    L->count = count;
    L->displ = displ;
    L->bytes = (size_t)(GUARD + (hi - lo) + GUARD);
    L->base = xmalloc(L->bytes);
    memset(L->base, (int)fill, L->bytes); /* touch every page: fresh memory every call */
    L->origin = L->base + GUARD - lo;
}

static void lay_copy(lay_t *dst, const lay_t *src)
{
    *dst = *src;
    dst->base = xmalloc(src->bytes);
    memcpy(dst->base, src->base, src->bytes);
    dst->origin = dst->base + (src->origin - src->base);
}

static void lay_fill(lay_t *L, int j, uint32_t h)
{
    fill_block(L->origin + (ptrdiff_t)L->displ[j] * L->t->extent, L->t, (size_t)L->count[j], h);
}

static void lay_free(lay_t *L)
{
    free(L->base);
    L->base = L->origin = NULL;
}

/* Shuffled order of the blocks with 0-3 element gaps. */
static void place_blocks(int n, const int *count, int *displ, uint32_t h)
{
    int *perm = xmalloc(sizeof(int) * (size_t)n);
    for (int j = 0; j < n; j++)
        perm[j] = j;
    for (int j = n - 1; j > 0; j--) {
        int k = (int)(mix32(h + (uint32_t)j) % (uint32_t)(j + 1));
        int t = perm[j];
        perm[j] = perm[k];
        perm[k] = t;
    }
    int cur = (int)(mix32(h ^ 0x77u) % 3u);
    for (int k = 0; k < n; k++) {
        displ[perm[k]] = cur;
        cur += count[perm[k]] + (int)(mix32(h + 1000u + (uint32_t)k) % 4u);
    }
    free(perm);
}

/* ------------------------------------------------------- communicators */

enum { K_WORLD, K_SPLIT, K_DUP, K_GROUP, K_INTER, K_COUNT };
static const char *kind_names[K_COUNT] = {"world", "split", "dup", "group", "inter"};

typedef struct {
    MPI_Comm comm;  /* MPI_COMM_NULL: this rank is not in it */
    MPI_Comm local; /* inter: this rank's part */
    int inter, rank, size, rsize, side;
    int members; /* world ranks in it: the same number on every rank */
    char desc[64];
} ccomm_t;

static ccomm_t cc[K_COUNT];

static void perm_make(int *perm, int n, long epoch, uint32_t salt)
{
    for (int j = 0; j < n; j++)
        perm[j] = j;
    for (int j = n - 1; j > 0; j--) {
        int k = (int)(hk((unsigned long)epoch, salt, (uint32_t)j, 0) % (uint32_t)(j + 1));
        int t = perm[j];
        perm[j] = perm[k];
        perm[k] = t;
    }
}

static void comm_fill(ccomm_t *m)
{
    if (m->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->size);
    MPI_Comm_test_inter(m->comm, &m->inter);
    m->rsize = m->size;
    if (m->inter)
        MPI_Comm_remote_size(m->comm, &m->rsize);
}

/* The communicators of one epoch (collective over the world). */
static void make_comms(long epoch)
{
    int P = world_size, me = world_rank;
    int *perm = xmalloc(sizeof(int) * (size_t)P), *pos = xmalloc(sizeof(int) * (size_t)P);
    memset(cc, 0, sizeof cc);
    for (int i = 0; i < K_COUNT; i++)
        cc[i].comm = cc[i].local = MPI_COMM_NULL;

    cc[K_WORLD].comm = MPI_COMM_WORLD;
    cc[K_WORLD].members = P;
    comm_fill(&cc[K_WORLD]);
    snprintf(cc[K_WORLD].desc, sizeof cc[K_WORLD].desc, "world(%d)", P);

    /* split: 1-3 colours, keys a permutation */
    int ng = 1 + (int)(hk((unsigned long)epoch, F_SPLITN, 0, 0) % (uint32_t)(P < 3 ? P : 3));
    perm_make(perm, P, epoch, F_SPERM);
    int color = (int)(hk((unsigned long)epoch, F_COLOR, (uint32_t)me, 0) % (uint32_t)ng);
    MPI_Comm_split(MPI_COMM_WORLD, color, perm[me], &cc[K_SPLIT].comm);
    cc[K_SPLIT].members = P;
    comm_fill(&cc[K_SPLIT]);
    snprintf(cc[K_SPLIT].desc, sizeof cc[K_SPLIT].desc, "split(%d colours, size %d)", ng,
             cc[K_SPLIT].size);

    /* dup: of the world in even epochs, of the split in odd ones */
    MPI_Comm_dup(epoch % 2 ? cc[K_SPLIT].comm : MPI_COMM_WORLD, &cc[K_DUP].comm);
    cc[K_DUP].members = P;
    comm_fill(&cc[K_DUP]);
    snprintf(cc[K_DUP].desc, sizeof cc[K_DUP].desc, "dup(%s, size %d)",
             epoch % 2 ? "split" : "world", cc[K_DUP].size);

    /* create_group: a random subgroup, in shuffled order */
    int gsize = 1 + (int)(hk((unsigned long)epoch, F_GSIZE, 0, 0) % (uint32_t)P);
    perm_make(perm, P, epoch, F_GPERM);
    int in = 0;
    for (int j = 0; j < gsize; j++)
        in |= perm[j] == me;
    if (in) {
        MPI_Group wg, g;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, gsize, perm, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 77, &cc[K_GROUP].comm);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    cc[K_GROUP].members = gsize;
    comm_fill(&cc[K_GROUP]);
    snprintf(cc[K_GROUP].desc, sizeof cc[K_GROUP].desc, "group(%d of %d)", gsize, P);

    /* inter: parts of a and P-a world ranks, unequal where possible */
    if (P >= 2 && !CONFORM_SMPI) {
        int a = 1 + (int)(hk((unsigned long)epoch, F_ISIZE, 0, 0) % (uint32_t)(P - 1));
        if (2 * a == P && P > 2)
            a = a + 1 <= P - 1 ? a + 1 : a - 1;
        perm_make(perm, P, epoch, F_IPERM);
        for (int j = 0; j < P; j++)
            pos[perm[j]] = j;
        int side = pos[me] < a ? 0 : 1;
        MPI_Comm_split(MPI_COMM_WORLD, side, pos[me], &cc[K_INTER].local);
        int remote_leader = side == 0 ? perm[a] : perm[0];
        MPI_Intercomm_create(cc[K_INTER].local, 0, MPI_COMM_WORLD, remote_leader, 78,
                             &cc[K_INTER].comm);
        cc[K_INTER].members = P;
        cc[K_INTER].side = side;
        comm_fill(&cc[K_INTER]);
        snprintf(cc[K_INTER].desc, sizeof cc[K_INTER].desc, "inter(%d|%d, side %d)", a, P - a,
                 side);
        if (!cc[K_INTER].inter)
            die("internal error: MPI_Intercomm_create did not make an intercommunicator");
    }
    free(perm);
    free(pos);
}

static void free_comms(void)
{
    for (int i = 0; i < K_COUNT; i++) {
        if (cc[i].comm != MPI_COMM_NULL && cc[i].comm != MPI_COMM_WORLD)
            MPI_Comm_free(&cc[i].comm);
        if (cc[i].local != MPI_COMM_NULL)
            MPI_Comm_free(&cc[i].local);
    }
}

/* ------------------------------------------------------------ algorithms */

static const char *algos[PACOLL_NCOLL][MAX_ALGOS]; /* NULL: auto */
static int nalgos[PACOLL_NCOLL];
static int colls_on[PACOLL_NCOLL], ncolls_on;
static int comms_on[K_COUNT], ncomms_on;

static const char *algo_label(const char *a) { return a ? a : "auto"; }

static int algo_registered(int coll, const char *name)
{
    int n = api_count();
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        if (api_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll && info.name &&
            strcmp(info.name, name) == 0)
            return 1;
    }
    return 0;
}

static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* Returns 0 and names the offender in bad when a list has an unknown word. */
static int build_lists(char *bad, size_t badlen)
{
    /* every word of --algos must be auto or registered for some collective */
    for (const char *p = opt_algos; p && *p;) {
        const char *e = strchr(p, ',');
        char w[64];
        snprintf(w, sizeof w, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
        int known = strcmp(w, "auto") == 0;
        for (int c = 0; c < PACOLL_NCOLL && !known; c++)
            known = algo_registered(c, w);
        if (!known) {
            snprintf(bad, badlen, "--algos: '%s' is not auto nor an algorithm of any collective", w);
            return 0;
        }
        p = e ? e + 1 : NULL;
    }
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        int k = 0;
        if (!opt_algos || in_list(opt_algos, "auto"))
            algos[c][k++] = NULL;
        int n = api_count();
        for (int i = 0; i < n && k < MAX_ALGOS; i++) {
            pacoll_algo_info_t info;
            if (api_info(i, &info) != MPI_SUCCESS || (int)info.coll != c)
                continue;
            if (opt_algos && !in_list(opt_algos, info.name))
                continue;
            algos[c][k++] = info.name;
        }
        nalgos[c] = k;
    }
    for (const char *p = opt_colls; p && *p;) {
        const char *e = strchr(p, ',');
        char w[64];
        snprintf(w, sizeof w, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
        int known = 0;
        for (int c = 0; c < PACOLL_NCOLL; c++)
            known |= strcmp(w, coll_names[c]) == 0;
        if (!known) {
            snprintf(bad, badlen, "--colls: unknown collective '%s'", w);
            return 0;
        }
        p = e ? e + 1 : NULL;
    }
    ncolls_on = 0;
    for (int c = 0; c < PACOLL_NCOLL; c++)
        if ((!opt_colls || in_list(opt_colls, coll_names[c])) && nalgos[c] > 0)
            colls_on[ncolls_on++] = c;
    if (ncolls_on == 0) {
        snprintf(bad, badlen, "no collective has an algorithm of --algos");
        return 0;
    }
    for (const char *p = opt_comms; p && *p;) {
        const char *e = strchr(p, ',');
        char w[64];
        snprintf(w, sizeof w, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
        int known = 0;
        for (int c = 0; c < K_COUNT; c++)
            known |= strcmp(w, kind_names[c]) == 0;
        if (!known) {
            snprintf(bad, badlen, "--comms: unknown kind '%s' (world,split,dup,group,inter)", w);
            return 0;
        }
        p = e ? e + 1 : NULL;
    }
    ncomms_on = 0;
    for (int c = 0; c < K_COUNT; c++) {
        if (opt_comms && !in_list(opt_comms, kind_names[c]))
            continue;
        if (c == K_INTER && (world_size < 2 || CONFORM_SMPI))
            continue; /* no two parts; SMPI: not tried */
        comms_on[ncomms_on++] = c;
    }
    if (ncomms_on == 0) {
        snprintf(bad, badlen, "--comms: nothing left to run on %d rank(s)", world_size);
        return 0;
    }
    return 1;
}

/* ================================================================ a case */

typedef struct {
    unsigned long k;
    int coll, kind, pair, algo_i;
    const char *algo; /* NULL: auto */
    long units;       /* per block; inter: from side 0 to side 1 */
    long units_ba;    /* inter: from side 1 to side 0 */
    int inplace, root_side, vzero, entry, junk, alt;
} case_t;

/* The MPI library's own collective is wrong in a few cases, so neither the
 * reference nor pacoll's hand-off to it can be trusted there (tests/check_colls.c,
 * mpi_broken()).  Decided from world-wide values: every rank agrees. */
static void avoid_mpi_bugs(case_t *c)
{
    const pair_t *p = &pairs[c->pair];
#if CONFORM_SMPI
    /* SimGrid SMPI 3.32: a datatype with a negative lower bound is packed
     * and received wrongly (the reference and pacoll's fallback agree on a
     * wrong result); alltoall with different datatypes, alltoallv in place
     * with a non-contiguous one, as in check_colls */
    if (p->st == T_HNEG || p->st == T_RNEG || p->rt == T_HNEG || p->rt == T_RNEG)
        c->pair = PAIR_INT;
    if (c->coll == PACOLL_ALLTOALL && p->st != p->rt)
        c->pair = PAIR_INT;
    p = &pairs[c->pair];
    if (c->coll == PACOLL_ALLTOALLV && c->inplace &&
        (types[p->rt].nseg > 1 || types[p->rt].extent != types[p->rt].size))
        c->inplace = 0;
#elif defined(OMPI_MAJOR_VERSION)
    /* Open MPI 4.1 MPI_Alltoall with different datatypes on the two sides
     * at 16 ranks: wrong data and heap corruption (12 were fine) */
    if (c->coll == PACOLL_ALLTOALL && p->st != p->rt && world_size > 12)
        c->pair = PAIR_INT;
#elif defined(MPICH_VERSION)
    /* MPICH 4.0.2 (Debian 12), seen with --algos native and in small
     * programs: MPI_Gather, in-place MPI_Alltoall(v) and intercommunicator
     * MPI_Allgather of the struct types fail with MPI_ERR_TRUNCATE from a few
     * hundred elements on; an intercommunicator MPI_Gather with a
     * non-contiguous or a different datatype returns wrong data or hangs */
    if (p->st == T_STRUCT || p->st == T_STRUCT2 || p->rt == T_STRUCT || p->rt == T_STRUCT2)
        c->pair = PAIR_INT;
    if (c->kind == K_INTER && c->coll == PACOLL_GATHER)
        c->pair = PAIR_INT;
#else
    (void)p;
    (void)c;
#endif
}

static long draw_units(unsigned long k, uint32_t field, int coll, const pair_t *p)
{
    uint32_t r = hk(k, field, 0, 0) % 100u, v = hk(k, field, 1, 0);
    long blocks = coll == PACOLL_ALLTOALLV ? 4L * world_size : world_size;
    long max = opt_budget / (blocks * p->rmul);
    if (max < 1)
        max = 1;
    long n;
    if (r < 8)
        return 0;
    if (r < 20)
        n = 1;
    else if (r < 55)
        n = 2 + (long)(v % 15u); /* small */
    else if (r < 88)
        n = 17 + (long)(v % 584u); /* medium */
    else {                      /* large: up to the budget */
        long lo = max / 4 < 1000 ? max / 4 : 1000;
        n = lo + (long)(v % (uint32_t)(max - lo + 1));
    }
    return n < max ? n : max;
}

static void gen_case(unsigned long k, case_t *c)
{
    memset(c, 0, sizeof *c);
    c->k = k;
    c->coll = colls_on[hk(k, F_COLL, 0, 0) % (uint32_t)ncolls_on];
    c->algo_i = (int)(hk(k, F_ALGO, 0, 0) % (uint32_t)nalgos[c->coll]);
    c->algo = algos[c->coll][c->algo_i];
    c->kind = comms_on[hk(k, F_COMM, 0, 0) % (uint32_t)ncomms_on];
    c->pair = (int)(hk(k, F_PAIR, 0, 0) % (uint32_t)NPAIRS);
    int inter = c->kind == K_INTER;
    c->entry = (int)(hk(k, F_ENTRY, 0, 0) % 3u);
    c->junk = (int)(hk(k, F_JUNK, 0, 0) % 3u);
    c->alt = (int)(hk(k, F_ALT, 0, 0) % 2u);
    c->root_side = (int)(hk(k, F_RSIDE, 0, 0) % 2u);
    c->vzero = hk(k, F_VZON, 0, 0) % 3u == 0;
    const pair_t *p = &pairs[c->pair];
    c->units = draw_units(k, F_UNITS, c->coll, p);
    c->units_ba = c->units;
    if (inter) {
        c->units_ba = draw_units(k, F_UNITS2, c->coll, p);
        uint32_t z = hk(k, F_ZSIDE, 0, 0) % 8u; /* nothing in one direction */
        if (z == 0)
            c->units = 0;
        else if (z == 1)
            c->units_ba = 0;
    }
    int same = p->st == p->rt && p->smul == p->rmul;
    c->inplace = !inter && same && hk(k, F_INPLACE, 0, 0) % 4u == 0;
#ifdef CONFORM_PRELOAD
    if (inter) /* pacoll_comm_set_algorithm refuses intercommunicators */
        c->algo = NULL;
#endif
    if (inter && c->entry == 2)
        c->entry = 0;
    avoid_mpi_bugs(c);
}

/* ====================================================== one call, staged */

typedef struct {
    case_t c;
    const ccomm_t *m;
    const pair_t *p;
    const dtype_t *st, *rt;
    int me, npeer, my_id;
    int root_arg, root_id, receiver, sender;
    int in_place; /* this rank passes MPI_IN_PLACE */
    int scount, rcount;
    int *sc, *sd, *rc, *rd; /* per block, elements */
    lay_t S, Sref, R, Rref, E;
    int has_S, has_R;
    unsigned char *junk; /* gather non-root: a receive buffer nothing may touch */
    int junk_count;
    MPI_Datatype junk_type;
    int rcode, rrcode;
} call_t;

static int peer_id(const call_t *x, int j) { return x->m->inter ? (1 - x->m->side) * IDS + j : j; }

/* alltoallv: units from id i to id j */
static long v_units(const call_t *x, int i, int j)
{
    const case_t *c = &x->c;
    long n = x->m->inter && i >= IDS ? c->units_ba : c->units;
    if (c->inplace && i > j) { /* symmetric */
        int t = i;
        i = j;
        j = t;
    }
    if (n == 0)
        return 0;
    if (c->vzero) { /* whole rows (a sender sends nothing) and columns of zeros */
        int zi = hk(c->k, F_VZROW, (uint32_t)i, 0) % 4u == 0;
        int zj = c->inplace ? hk(c->k, F_VZROW, (uint32_t)j, 0) % 4u == 0
                            : hk(c->k, F_VZCOL, (uint32_t)j, 0) % 5u == 0;
        if (zi || zj)
            return 0;
    }
    switch (hk(c->k, F_VCOUNT, (uint32_t)i, (uint32_t)j) % 8u) {
    case 0:
    case 1:
        return 0;
    case 2:
    case 3:
    case 4:
        return n;
    case 5:
        return 2 * n + 1;
    case 6:
        return n / 7 + 1;
    default:
        return n >= 1000 ? 8 * n : 20 * n; /* very unequal */
    }
}

static void prepare(call_t *x)
{
    const case_t *c = &x->c;
    const ccomm_t *m = x->m;
    x->p = &pairs[c->pair];
    x->st = &types[x->p->st];
    x->rt = &types[x->p->rt];
    x->me = m->rank;
    x->npeer = m->inter ? m->rsize : m->size;
    x->my_id = m->inter ? m->side * IDS + m->rank : m->rank;
    int P = x->npeer;
    long u_out = c->units, u_in = c->units;
    if (m->inter && c->coll != PACOLL_GATHER) {
        u_out = m->side == 0 ? c->units : c->units_ba;
        u_in = m->side == 0 ? c->units_ba : c->units;
    }
    x->scount = (int)(u_out * x->p->smul);
    x->rcount = (int)(u_in * x->p->rmul);
    x->root_arg = x->root_id = -1;
    x->receiver = x->sender = 1;
    if (c->coll == PACOLL_GATHER) {
        if (!m->inter) {
            int root = (int)(hk(c->k, F_ROOT, 0, 0) % (uint32_t)m->size);
            x->root_arg = x->root_id = root;
            x->receiver = x->me == root;
        } else {
            int rs = c->root_side, rsz = rs == m->side ? m->size : m->rsize;
            int root = (int)(hk(c->k, F_ROOT, 0, 0) % (uint32_t)rsz);
            x->root_id = rs * IDS + root;
            if (m->side == rs) {
                x->sender = 0;
                x->receiver = x->me == root;
                x->root_arg = x->receiver ? MPI_ROOT : MPI_PROC_NULL;
            } else {
                x->receiver = 0;
                x->root_arg = root;
            }
        }
    }
    x->in_place = c->inplace && x->receiver; /* gather: at the root only */
    x->sc = calloc((size_t)P + 1, sizeof(int));
    x->sd = calloc((size_t)P + 1, sizeof(int));
    x->rc = calloc((size_t)P + 1, sizeof(int));
    x->rd = calloc((size_t)P + 1, sizeof(int));
    if (!x->sc || !x->sd || !x->rc || !x->rd)
        die("out of memory");
    unsigned long k = c->k;

    /* the receive side */
    int dst_all = c->coll == PACOLL_ALLGATHER ? -1 : c->coll == PACOLL_GATHER ? x->root_id : x->my_id;
    if (x->receiver) {
        if (c->coll == PACOLL_ALLTOALLV) {
            for (int j = 0; j < P; j++)
                x->rc[j] = (int)(v_units(x, peer_id(x, j), x->my_id) * x->p->rmul);
            place_blocks(P, x->rc, x->rd, hk(k, F_RDISP, (uint32_t)x->my_id, 0));
        } else {
            for (int j = 0; j < P; j++) {
                x->rc[j] = x->rcount;
                x->rd[j] = j * x->rcount;
            }
        }
        lay_alloc(&x->R, x->rt, P, x->rc, x->rd, SENTINEL);
        lay_alloc(&x->Rref, x->rt, P, x->rc, x->rd, SENTINEL);
        lay_alloc(&x->E, x->rt, P, x->rc, x->rd, SENTINEL);
        for (int j = 0; j < P; j++)
            lay_fill(&x->E, j, block_hash(peer_id(x, j), dst_all, k));
        x->has_R = 1;
    } else {
        /* gather, not the root: the receive arguments are not significant */
        x->junk_count = c->junk == 1 ? 0 : x->rcount;
        x->junk_type = c->junk == 1 ? MPI_BYTE : x->rt->type;
        if (c->junk == 2) {
            x->junk = xmalloc(GUARD);
            memset(x->junk, SENTINEL, GUARD);
        }
    }

    /* the send side */
    if (!x->sender)
        return;
    if (x->in_place) { /* my data where it would arrive */
        if (c->coll == PACOLL_ALLTOALL || c->coll == PACOLL_ALLTOALLV) {
            for (int j = 0; j < P; j++)
                lay_fill(&x->R, j, block_hash(x->my_id, peer_id(x, j), k));
        } else {
            lay_fill(&x->R, x->me, block_hash(x->my_id, dst_all, k));
        }
        lay_copy(&x->Sref, &x->R); /* what the reference sends */
        return;
    }
    if (c->coll == PACOLL_ALLTOALLV) {
        for (int j = 0; j < P; j++)
            x->sc[j] = (int)(v_units(x, x->my_id, peer_id(x, j)) * x->p->smul);
        place_blocks(P, x->sc, x->sd, hk(k, F_SDISP, (uint32_t)x->my_id, 0));
        lay_alloc(&x->S, x->st, P, x->sc, x->sd, SEND_HOLE);
        for (int j = 0; j < P; j++)
            lay_fill(&x->S, j, block_hash(x->my_id, peer_id(x, j), k));
    } else if (c->coll == PACOLL_ALLTOALL) {
        for (int j = 0; j < P; j++) {
            x->sc[j] = x->scount;
            x->sd[j] = j * x->scount;
        }
        lay_alloc(&x->S, x->st, P, x->sc, x->sd, SEND_HOLE);
        for (int j = 0; j < P; j++)
            lay_fill(&x->S, j, block_hash(x->my_id, peer_id(x, j), k));
    } else {
        x->sc[0] = x->scount;
        x->sd[0] = 0;
        lay_alloc(&x->S, x->st, 1, x->sc, x->sd, SEND_HOLE);
        lay_fill(&x->S, 0, block_hash(x->my_id, dst_all, k));
    }
    lay_copy(&x->Sref, &x->S);
    x->has_S = 1;
}

static void release(call_t *x)
{
    lay_free(&x->S);
    lay_free(&x->Sref);
    lay_free(&x->R);
    lay_free(&x->Rref);
    lay_free(&x->E);
    free(x->junk);
    free(x->sc);
    free(x->sd);
    free(x->rc);
    free(x->rd);
}

/* ------------------------------------------------------------ the calls */

typedef struct {
    const void *sb;
    int scount;
    const int *scs, *sds;
    MPI_Datatype st;
    void *rb;
    int rcount;
    const int *rcs, *rds;
    MPI_Datatype rt;
} args_t;

static void make_args(const call_t *x, int ref, args_t *a)
{
    const case_t *c = &x->c;
    MPI_Datatype st = x->st->type, rt = x->rt->type;
    a->scs = x->sc;
    a->sds = x->sd;
    a->rcs = x->rc;
    a->rds = x->rd;
    a->rb = x->has_R ? (ref ? x->Rref.origin : x->R.origin) : ref ? NULL : x->junk;
    a->rcount = x->has_R ? x->rcount : x->junk_count;
    a->rt = x->has_R ? rt : x->junk_type;
    if (!x->sender) { /* inter gather, MPI_PROC_NULL: nothing is significant */
        a->sb = NULL;
        a->scount = 0;
        a->st = MPI_BYTE;
        return;
    }
    if (x->in_place && !ref) {
        /* the ignored send arguments: the receive ones, or others */
        a->sb = MPI_IN_PLACE;
        a->scount = c->alt ? 0 : x->rcount;
        a->st = c->alt ? MPI_INT : rt;
        return;
    }
    if (x->in_place) { /* the reference sends from a copy of what pacoll got in place */
        const unsigned char *o = x->Sref.origin;
        if (c->coll == PACOLL_ALLGATHER || c->coll == PACOLL_GATHER)
            o += (ptrdiff_t)x->me * x->rcount * x->rt->extent;
        a->sb = o;
        a->scount = x->rcount;
        a->st = rt;
        a->scs = x->rc;
        a->sds = x->rd;
        return;
    }
    a->sb = ref ? x->Sref.origin : x->S.origin;
    a->scount = x->scount;
    a->st = st;
}

static int call_pmpi(const call_t *x, const args_t *a)
{
    MPI_Comm comm = x->m->comm;
    switch (x->c.coll) {
    case PACOLL_ALLTOALL:
        return PMPI_Alltoall(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, comm);
    case PACOLL_ALLTOALLV:
        return PMPI_Alltoallv(a->sb, a->scs, a->sds, a->st, a->rb, a->rcs, a->rds, a->rt, comm);
    case PACOLL_ALLGATHER:
        return PMPI_Allgather(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, comm);
    default:
        return PMPI_Gather(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, x->root_arg, comm);
    }
}

#ifdef CONFORM_PRELOAD
/* The interposed path: the plain MPI names, the algorithm forced on the
 * communicator (intracommunicators) through the preloaded library. */
static int call_pacoll(const call_t *x, const args_t *a)
{
    MPI_Comm comm = x->m->comm;
    int rc;
    if (!x->m->inter && (rc = api_set(comm, (pacoll_coll_t)x->c.coll, x->c.algo)) != MPI_SUCCESS)
        return rc;
    switch (x->c.coll) {
    case PACOLL_ALLTOALL:
        return MPI_Alltoall(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, comm);
    case PACOLL_ALLTOALLV:
        return MPI_Alltoallv(a->sb, a->scs, a->sds, a->st, a->rb, a->rcs, a->rds, a->rt, comm);
    case PACOLL_ALLGATHER:
        return MPI_Allgather(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, comm);
    default:
        return MPI_Gather(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, x->root_arg, comm);
    }
}
#else
/* entry 0: pacoll_<coll>_alg(name or NULL); 1: pacoll_<coll>() for auto,
 * _alg(name) otherwise; 2: pacoll_comm_set_algorithm + pacoll_<coll>(), or
 * _alg("auto") for auto. */
static int call_pacoll(const call_t *x, const args_t *a)
{
    MPI_Comm comm = x->m->comm;
    const char *algo = x->c.algo;
    int e = x->c.entry, rc, plain = 0;
    if (!algo && e == 1)
        plain = 1;
    else if (!algo && e == 2)
        algo = "auto";
    else if (algo && e == 2) {
        if ((rc = pacoll_comm_set_algorithm(comm, (pacoll_coll_t)x->c.coll, algo)) != MPI_SUCCESS)
            return rc;
        plain = 1;
    }
    switch (x->c.coll) {
    case PACOLL_ALLTOALL:
        rc = plain ? pacoll_alltoall(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, comm)
                   : pacoll_alltoall_alg(algo, a->sb, a->scount, a->st, a->rb, a->rcount, a->rt,
                                         comm);
        break;
    case PACOLL_ALLTOALLV:
        rc = plain ? pacoll_alltoallv(a->sb, a->scs, a->sds, a->st, a->rb, a->rcs, a->rds, a->rt,
                                      comm)
                   : pacoll_alltoallv_alg(algo, a->sb, a->scs, a->sds, a->st, a->rb, a->rcs,
                                          a->rds, a->rt, comm);
        break;
    case PACOLL_ALLGATHER:
        rc = plain ? pacoll_allgather(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, comm)
                   : pacoll_allgather_alg(algo, a->sb, a->scount, a->st, a->rb, a->rcount, a->rt,
                                          comm);
        break;
    default:
        rc = plain ? pacoll_gather(a->sb, a->scount, a->st, a->rb, a->rcount, a->rt, x->root_arg,
                                   comm)
                   : pacoll_gather_alg(algo, a->sb, a->scount, a->st, a->rb, a->rcount, a->rt,
                                       x->root_arg, comm);
        break;
    }
    if (x->c.algo && e == 2) /* back to automatic selection */
        pacoll_comm_set_algorithm(comm, (pacoll_coll_t)x->c.coll, NULL);
    return rc;
}
#endif

/* ------------------------------------------------------------ reporting */

static char exe_path[1024], env_prefix[1024], preload_prefix[1100];
static long checks, failures, ref_warnings, expected_checks;
static unsigned long ncases;
static int fail_lines, warn_lines;
static long case_stats[PACOLL_NCOLL][MAX_ALGOS][2]; /* cases, failed checks */

static void repro_setup(const char *argv0)
{
    /* SMPI: every rank is a thread of smpimain, whose path /proc gives */
    ssize_t n = CONFORM_SMPI ? 0 : readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    if (n <= 0)
        snprintf(exe_path, sizeof exe_path, "%s", argv0);
    else
        exe_path[n] = 0;
    size_t len = 0;
    env_prefix[0] = 0;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "PACOLL_", 7) == 0 && len + strlen(*e) + 2 < sizeof env_prefix)
            len += (size_t)snprintf(env_prefix + len, sizeof env_prefix - len, "%s ", *e);
    preload_prefix[0] = 0;
#ifdef CONFORM_PRELOAD
    const char *pl = getenv("LD_PRELOAD");
    snprintf(preload_prefix, sizeof preload_prefix, "env LD_PRELOAD=%s ", pl ? pl : "");
#endif
}

static void repro(const call_t *x, char *out, size_t len)
{
    char extra[128] = "";
    size_t n = 0;
    if (opt_skew)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --skew");
    if (opt_churn != 25)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --churn %ld", opt_churn);
    if (opt_budget != 100000)
        n += (size_t)snprintf(extra + n, sizeof extra - n, " --budget %ld", opt_budget);
    snprintf(out, len,
             "%smpirun -np %d%s %s%s --seed %u --case %lu --colls %s --comms %s --algos %s%s",
             env_prefix, world_size,
#if defined(OMPI_MAJOR_VERSION) && !CONFORM_SMPI
             " --oversubscribe --mca osc ^rdma",
#else
             "",
#endif
             preload_prefix, exe_path, seed, x->c.k, coll_names[x->c.coll], kind_names[x->c.kind],
             algo_label(x->c.algo), extra);
}

static void describe(const call_t *x, char *out, size_t len)
{
    const case_t *c = &x->c;
    char count[64], root[48];
    if (x->m->inter)
        snprintf(count, sizeof count, "%ld|%ld", c->units, c->units_ba);
    else
        snprintf(count, sizeof count, "%ld", c->units);
    if (c->coll != PACOLL_ALLTOALLV)
        snprintf(count + strlen(count), sizeof count - strlen(count),
                 " (sendcount=%d recvcount=%d)", x->scount, x->rcount);
    if (c->coll != PACOLL_GATHER)
        snprintf(root, sizeof root, "-");
    else if (!x->m->inter)
        snprintf(root, sizeof root, "%d", x->root_arg);
    else
        snprintf(root, sizeof root, "%s (rank %d of side %d)",
                 x->root_arg == MPI_ROOT       ? "MPI_ROOT"
                 : x->root_arg == MPI_PROC_NULL ? "MPI_PROC_NULL"
                                                : "remote",
                 x->root_id % IDS, x->root_id / IDS);
    snprintf(out, len,
             "seed=%u case=%lu coll=%s algo=%s comm=%s type=%s->%s count=%s inplace=%d root=%s "
             "rank=%d (world %d)",
             seed, c->k, coll_names[c->coll], algo_label(c->algo), x->m->desc, x->st->name,
             x->rt->name, count, x->in_place, root, x->me, world_rank);
}

static void fail(const call_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const call_t *x, const char *fmt, ...)
{
    failures++;
    case_stats[x->c.coll][x->c.algo_i][1]++;
    if (fail_lines++ >= MAX_FAIL_LINES) {
        if (fail_lines == MAX_FAIL_LINES + 1)
            fprintf(stderr, "conform[rank %d]: further failures not printed\n", world_rank);
        return;
    }
    char what[512], msg[512], rep[4096];
    describe(x, what, sizeof what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    repro(x, rep, sizeof rep);
    fprintf(stderr, "conform: FAIL %s: %s; reproduce: %s\n", what, msg, rep);
    fflush(stderr);
}

/* The hang watchdog: SIGALRM when one case takes longer than --watchdog
 * seconds; the line is written before the case starts. */
static const char *volatile hang_phase = "";

#if !CONFORM_SMPI
static char hang_head[2600], hang_tail[4200];

static void on_alarm(int sig)
{
    (void)sig;
    const char *ph = (const char *)hang_phase;
    ssize_t rc = write(2, hang_head, strlen(hang_head));
    rc = write(2, ph, strlen(ph));
    rc = write(2, hang_tail, strlen(hang_tail));
    (void)rc;
    _exit(4);
}
#endif

static void watchdog_arm(const call_t *x)
{
#if !CONFORM_SMPI
    if (opt_watchdog <= 0)
        return;
    char what[512], rep[4096];
    describe(x, what, sizeof what);
    repro(x, rep, sizeof rep);
    snprintf(hang_head, sizeof hang_head, "conform: HANG %s: no return after %d s from ", what,
             opt_watchdog);
    snprintf(hang_tail, sizeof hang_tail, "; reproduce: %s\n", rep);
    hang_phase = "the pacoll call";
    alarm((unsigned)opt_watchdog);
#else
    (void)x;
#endif
}

static void watchdog_off(void)
{
#if !CONFORM_SMPI
    if (opt_watchdog > 0)
        alarm(0);
#endif
}

/* ---------------------------------------------------------- the verdict */

/* Where byte i of a buffer of layout L is. */
static void locate(const lay_t *L, size_t i, char *out, size_t len)
{
    ptrdiff_t off = (ptrdiff_t)i - (L->origin - L->base), ext = L->t->extent;
    ptrdiff_t lo = 0, hi = 0;
    int any = 0;
    for (int j = 0; j < L->n; j++) {
        if (L->count[j] <= 0)
            continue;
        ptrdiff_t a = (ptrdiff_t)L->displ[j] * ext + L->t->tlb;
        ptrdiff_t b = ((ptrdiff_t)L->displ[j] + L->count[j] - 1) * ext + L->t->tub;
        if (!any || a < lo)
            lo = a;
        if (!any || b > hi)
            hi = b;
        any = 1;
        if (off >= a && off < b) {
            ptrdiff_t rel = off - (ptrdiff_t)L->displ[j] * ext;
            ptrdiff_t e = (rel - L->t->tlb) / ext;
            snprintf(out, len, "byte %td from the buffer pointer: block from peer %d, element %td, byte %td",
                     off, j, e, rel - e * ext);
            return;
        }
    }
    if (!any || off < lo)
        snprintf(out, len, "byte %td from the buffer pointer: before the data (guard)", off);
    else if (off >= hi)
        snprintf(out, len, "byte %td from the buffer pointer: past the end (guard)", off);
    else
        snprintf(out, len, "byte %td from the buffer pointer: a gap between blocks", off);
}

static long diff(const unsigned char *a, const unsigned char *b, size_t n, size_t *first)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i] && !bad++)
            *first = i;
    return bad;
}

static int is_data(const lay_t *L, size_t i)
{
    unsigned char *mask = calloc(L->bytes, 1);
    if (!mask)
        return 1;
    unsigned char *o = mask + (L->origin - L->base);
    for (int j = 0; j < L->n; j++)
        mark_block(o + (ptrdiff_t)L->displ[j] * L->t->extent, L->t, (size_t)L->count[j]);
    int d = mask[i];
    free(mask);
    return d;
}

static void judge(call_t *x)
{
    char where[160];
    if (x->rcode != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0, cls = -1;
        MPI_Error_class(x->rcode, &cls);
        MPI_Error_string(x->rcode, s, &len);
        for (char *q = s; *q; q++) /* one line: MPICH's strings hold a stack */
            if (*q == '\n')
                *q = ' ';
        fail(x, "the call returned error %d (class %d): %s", x->rcode, cls, s);
        return;
    }
    if (x->rrcode != MPI_SUCCESS && warn_lines++ < MAX_WARN_LINES) {
        char d[512];
        describe(x, d, sizeof d);
        fprintf(stderr, "conform: WARNING %s: the reference PMPI call returned error %d\n", d,
                x->rrcode);
    }
    if (x->rrcode != MPI_SUCCESS)
        ref_warnings++;
    if (x->has_S) {
        size_t i = 0;
        if (diff(x->S.base, x->Sref.base, x->S.bytes, &i)) {
            locate(&x->S, i, where, sizeof where);
            fail(x, "the send buffer was modified at %s: 0x%02x -> 0x%02x", where, x->Sref.base[i],
                 x->S.base[i]);
            return;
        }
    }
    if (x->junk) {
        for (int i = 0; i < GUARD; i++)
            if (x->junk[i] != SENTINEL) {
                fail(x, "a non-root's receive buffer (not significant) was written at byte %d", i);
                return;
            }
    }
    if (x->has_R) {
        size_t i = 0, ri = 0;
        long rbad = x->rrcode == MPI_SUCCESS ? diff(x->Rref.base, x->E.base, x->E.bytes, &ri) : 0;
        if (rbad) {
            ref_warnings++;
            if (warn_lines++ < MAX_WARN_LINES) {
                char d[512];
                describe(x, d, sizeof d);
                locate(&x->E, ri, where, sizeof where);
                fprintf(stderr,
                        "conform: WARNING %s: the reference PMPI result differs from the expected "
                        "image (the MPI library is wrong there; pacoll is judged by the image): %ld "
                        "bytes, first at %s: expected 0x%02x PMPI 0x%02x\n",
                        d, rbad, where, x->E.base[ri], x->Rref.base[ri]);
            }
        }
        long bad = diff(x->R.base, x->E.base, x->E.bytes, &i);
        if (bad) {
            locate(&x->E, i, where, sizeof where);
            if (is_data(&x->E, i))
                fail(x, "%ld bad bytes; first at %s: expected 0x%02x got 0x%02x (PMPI 0x%02x)",
                     bad, where, x->E.base[i], x->R.base[i], x->Rref.base[i]);
            else
                fail(x,
                     "%ld bad bytes; first at %s, which no block covers (a hole, a gap or a "
                     "guard): expected the sentinel 0x%02x got 0x%02x",
                     bad, where, SENTINEL, x->R.base[i]);
            return;
        }
    }
    if (!x->m->inter) { /* the algorithm pacoll says it ran */
        char last[128] = "?";
        int rc = api_last(x->m->comm, (pacoll_coll_t)x->c.coll, last, sizeof last);
        if (rc != MPI_SUCCESS)
            fail(x, "pacoll_comm_last_algorithm returned %d", rc);
        else if (strcmp(last, "native") != 0 && !(x->c.algo && strcmp(x->c.algo, last) == 0) &&
                 !(!x->c.algo && algo_registered(x->c.coll, last)))
            fail(x, "pacoll_comm_last_algorithm says \"%s\"%s", last,
                 last[0] ? "" : " (did the call reach pacoll?)");
    }
}

/* ------------------------------------------------------------------ skew */

static void skew(unsigned long k)
{
    if (!opt_skew)
        return;
    uint32_t r = hk(k, F_SKEW, (uint32_t)world_rank, 0);
    if (r % 4u)
        return;
    unsigned us = (r >> 8) % 2001u;
    if (!us)
        return;
#if CONFORM_SMPI
    smpi_execute(us * 1e-6);
#else
    usleep(us);
#endif
}

/* ------------------------------------------------------------- one case */

static void run_case(unsigned long k)
{
    call_t x;
    memset(&x, 0, sizeof x);
    gen_case(k, &x.c);
    ncases++;
    case_stats[x.c.coll][x.c.algo_i][0]++;
    const ccomm_t *m = &cc[x.c.kind];
    expected_checks += m->members;
    if (opt_verbose && world_rank == 0) {
        const pair_t *p = &pairs[x.c.pair];
        printf("conform: case %lu %s %s %s %s->%s count=%ld|%ld inplace=%d\n", k,
               coll_names[x.c.coll], algo_label(x.c.algo), kind_names[x.c.kind],
               types[p->st].name, types[p->rt].name, x.c.units, x.c.units_ba, x.c.inplace);
        fflush(stdout);
    }
    if (m->comm == MPI_COMM_NULL)
        return; /* not in this case's subgroup */
    x.m = m;
    prepare(&x);
    args_t a;
    watchdog_arm(&x);
    skew(k);
    make_args(&x, 0, &a);
    x.rcode = call_pacoll(&x, &a);
    hang_phase = "the reference PMPI call";
    make_args(&x, 1, &a);
    x.rrcode = call_pmpi(&x, &a);
    watchdog_off();
    judge(&x);
    release(&x);
    checks++;
}

/* ------------------------------------------------- agreement, progress */

static long read_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0) {
            v = strtol(line + n, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    int ch;
    if (!f)
        return -1;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

static long count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 2;
}

/* Memory of this process, and its mappings and descriptors (shared memory
 * segments, windows): pacoll's own counters (registrations, attaches) are
 * not readable while it runs; PACOLL_STATS=1 prints them at MPI_Finalize. */
static unsigned long progress_at = (unsigned long)-1; /* ncases at the last line */

static void progress(double t)
{
    if (progress_at == ncases)
        return; /* the same line again (the last checkpoint printed it) */
    progress_at = ncases;
    long loc[2] = {checks, failures}, sum[2] = {0, 0};
    long mx[4] = {read_status_kb("VmRSS:"), read_status_kb("VmHWM:"), count_lines("/proc/self/maps"),
                  count_fds()},
         gmx[4] = {0, 0, 0, 0};
    long rss = mx[0], rss_sum = 0;
    PMPI_Reduce(loc, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(mx, gmx, 4, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&rss, &rss_sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("conform: progress t=%.1f cases=%lu calls=%ld failed=%ld rss_max_kB=%ld "
               "rss_sum_kB=%ld hwm_max_kB=%ld maps_max=%ld fds_max=%ld\n",
               t, ncases, sum[0], sum[1], gmx[0], rss_sum, gmx[1], gmx[2], gmx[3]);
        fflush(stdout);
    }
}

/* Every CHECKPOINT cases: the ranks must have run the same cases; rank 0
 * says whether time is up and whether to print a progress line. */
static int checkpoint(double t0)
{
    static double next_report = -1;
    long v[4] = {(long)ncases, -(long)ncases, 0, 0};
    double now = PMPI_Wtime() - t0;
    if (next_report < 0)
        next_report = opt_report;
    if (world_rank == 0) {
        if (opt_duration > 0 && now >= opt_duration)
            v[2] = 1;
        if (opt_report > 0 && now >= next_report) {
            v[3] = 1;
            while (next_report <= now)
                next_report += opt_report;
        }
    }
    PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (v[0] != -v[1])
        die("ranks disagree on the number of cases run (%ld..%ld)", -v[1], v[0]);
    if (v[3])
        progress(now);
    return (int)v[2];
}

/* ================================================================== main */

static double parse_duration(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    if (e == s || v < 0)
        return -1;
    if (*e == 0 || !strcmp(e, "s"))
        return v;
    if (!strcmp(e, "m"))
        return v * 60;
    if (!strcmp(e, "h"))
        return v * 3600;
    return -1;
}

static void usage(void)
{
    if (world_rank != 0)
        return;
    fprintf(stderr,
            "usage: pacoll-conform [--seed N] [--cases N] [--duration T] [--case K]\n"
            "         [--colls LIST] [--comms LIST] [--algos LIST | --algo NAME] [--skew]\n"
            "         [--report-every T] [--churn K] [--budget N] [--watchdog S] [--list] "
            "[--verbose]\n"
            "  --seed N          the seed every case is derived from (1)\n"
            "  --cases N         run N cases (200 unless --duration is given)\n"
            "  --duration T      run until T is up (90, 90s, 30m, 2h); with --cases: first wins\n"
            "  --case K          run case K only (reproduction)\n"
            "  --colls LIST      some of alltoall,alltoallv,allgather,gather\n"
            "  --comms LIST      some of world,split,dup,group,inter\n"
            "  --algos LIST      auto and/or registered names (default: auto and every one)\n"
            "  --skew            ranks sleep 0-2 ms before one call in four (seeded)\n"
            "  --report-every T  a progress line (calls, failures, memory) every T\n"
            "  --churn K         free and remake the communicators every K cases (25)\n"
            "  --budget N        largest receive buffer, elements per rank (100000)\n"
            "  --watchdog S      a case that takes S seconds is a HANG: print, exit (40; 0 off)\n"
            "  --list            print the algorithms, type pairs and communicators\n"
            "  --verbose         rank 0 prints every case\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--skew"))
            opt_skew = 1;
        else if (!strcmp(o, "--verbose"))
            opt_verbose = 1;
        else if (!strcmp(o, "--list"))
            opt_list = 1;
        else if (!v)
            bad = 1;
        else if (!strcmp(o, "--seed"))
            seed = (unsigned)strtoul(v, NULL, 0), i++;
        else if (!strcmp(o, "--cases"))
            opt_cases = strtol(v, NULL, 0), i++;
        else if (!strcmp(o, "--case"))
            opt_case = strtol(v, NULL, 0), i++;
        else if (!strcmp(o, "--duration"))
            bad = (opt_duration = parse_duration(v)) < 0, i++;
        else if (!strcmp(o, "--report-every"))
            bad = (opt_report = parse_duration(v)) < 0, i++;
        else if (!strcmp(o, "--colls"))
            opt_colls = v, i++;
        else if (!strcmp(o, "--comms"))
            opt_comms = v, i++;
        else if (!strcmp(o, "--algos") || !strcmp(o, "--algo"))
            opt_algos = v, i++;
        else if (!strcmp(o, "--churn"))
            bad = (opt_churn = strtol(v, NULL, 0)) < 1, i++;
        else if (!strcmp(o, "--budget"))
            bad = (opt_budget = strtol(v, NULL, 0)) < 1, i++;
        else if (!strcmp(o, "--watchdog"))
            opt_watchdog = atoi(v), i++;
        else
            bad = 1;
    }
    if (bad) {
        usage();
        MPI_Finalize();
        return 2;
    }
#ifdef CONFORM_PRELOAD
    if (!find_api()) {
        if (world_rank == 0)
            fprintf(stderr, "conform: pacoll is not loaded: run this program with "
                            "LD_PRELOAD=libpacoll_preload.so (mpirun ... env LD_PRELOAD=... %s)\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
#endif
    char why[256];
    if (!build_lists(why, sizeof why)) {
        if (world_rank == 0)
            fprintf(stderr, "conform: %s\n", why);
        MPI_Finalize();
        return 2;
    }
    make_types();
    repro_setup(argv[0]);
#if !CONFORM_SMPI
    if (opt_watchdog > 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
    }
#endif

    if (opt_list) {
        if (world_rank == 0) {
            for (int c = 0; c < PACOLL_NCOLL; c++) {
                printf("%s:", coll_names[c]);
                for (int i = 0; i < nalgos[c]; i++)
                    printf(" %s", algo_label(algos[c][i]));
                printf("\n");
            }
            for (int i = 0; i < NPAIRS; i++)
                printf("pair %d: %d x %s -> %d x %s\n", i, pairs[i].smul, types[pairs[i].st].name,
                       pairs[i].rmul, types[pairs[i].rt].name);
            printf("communicators:");
            for (int i = 0; i < ncomms_on; i++)
                printf(" %s", kind_names[comms_on[i]]);
            printf("\n");
        }
        free_types();
        MPI_Finalize();
        return 0;
    }

    unsigned long first = 0;
    long limit = opt_cases > 0 ? opt_cases : opt_duration > 0 ? 0 : 200;
    if (opt_case >= 0) {
        first = (unsigned long)opt_case;
        limit = 1;
    }
    if (world_rank == 0) {
        printf("conform: np=%d seed=%u pacoll %s%s, ", world_size, seed, api_version(),
#ifdef CONFORM_PRELOAD
               " (LD_PRELOAD, plain MPI_* calls)"
#else
               ""
#endif
        );
        if (opt_case >= 0)
            printf("case %ld only", opt_case);
        else if (limit > 0)
            printf("%ld cases from %lu", limit, first);
        else
            printf("cases from %lu", first);
        if (opt_duration > 0)
            printf(", at most %.0f s", opt_duration);
        printf("%s%s%s\n", opt_skew ? ", skew" : "", env_prefix[0] ? ", env: " : "", env_prefix);
        if (opt_report > 0)
            printf("conform: progress lines every %.0f s: the ranks' VmRSS/VmHWM, mappings and "
                   "descriptors (pacoll's registration and window counters are not readable while "
                   "it runs; PACOLL_STATS=1 prints them at MPI_Finalize)\n",
                   opt_report);
        fflush(stdout);
    }

    double t0 = PMPI_Wtime();
    long epoch = -1;
    for (unsigned long k = first;; k++) {
        long e = (long)(k / (unsigned long)opt_churn);
        if (e != epoch) { /* churn: every communicator anew */
            if (epoch >= 0)
                free_comms();
            make_comms(e);
            epoch = e;
        }
        run_case(k);
        int last = limit > 0 && (long)ncases >= limit;
        if ((ncases % CHECKPOINT == 0 || last) && (checkpoint(t0) || last))
            break;
    }
    double elapsed = PMPI_Wtime() - t0;
    if (opt_report > 0)
        progress(elapsed);
    free_comms();

    /* every rank must have made the checks the cases imply */
    long loc[3] = {checks, failures, ref_warnings}, tot[3];
    PMPI_Allreduce(loc, tot, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long ex[2] = {expected_checks, -expected_checks};
    PMPI_Allreduce(MPI_IN_PLACE, ex, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (ex[0] != -ex[1] || tot[0] != ex[0])
        die("ranks disagree on the number of checks: %ld made, %ld..%ld expected", tot[0], -ex[1],
            ex[0]);
    static long fsum[PACOLL_NCOLL][MAX_ALGOS];
    long floc[PACOLL_NCOLL][MAX_ALGOS];
    for (int c = 0; c < PACOLL_NCOLL; c++)
        for (int i = 0; i < MAX_ALGOS; i++)
            floc[c][i] = case_stats[c][i][1];
    PMPI_Reduce(floc, fsum, PACOLL_NCOLL * MAX_ALGOS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        for (int c = 0; c < PACOLL_NCOLL; c++) {
            long n = 0;
            for (int i = 0; i < nalgos[c]; i++)
                n += case_stats[c][i][0];
            if (!n)
                continue;
            printf("conform: %-9s %5ld cases:", coll_names[c], n);
            for (int i = 0; i < nalgos[c]; i++) {
                printf(" %s %ld", algo_label(algos[c][i]), case_stats[c][i][0]);
                if (fsum[c][i])
                    printf(" (%ld FAILED)", fsum[c][i]);
            }
            printf("\n");
        }
        printf("conform: np=%d seed=%u cases %lu..%lu, %.1f s\n", world_size, seed, first,
               first + ncases - 1, elapsed);
        if (tot[2])
            printf("conform: WARNING: %ld reference PMPI results (summed over ranks) differ from the "
                   "expected image or failed: the MPI library is wrong there\n",
                   tot[2]);
        fflush(stdout);
    }
    int status = tot[1] != 0;
    free_types();
    MPI_Finalize();
    /* after MPI_Finalize, where PACOLL_STATS=1 prints pacoll's counters */
    if (world_rank == 0) {
        printf("conform: %lu cases, %ld calls, %ld failed\n", ncases, tot[0], tot[1]);
        fflush(stdout);
    }
    return status ? 1 : 0;
}
