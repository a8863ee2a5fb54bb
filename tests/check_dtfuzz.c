/*
 * check_dtfuzz: random derived datatypes through every collective and
 * every algorithm, byte for byte against PMPI_<coll>.
 *
 * Each case draws, from a seed every rank shares, a collective, an
 * algorithm (automatic, native or a registered one), a communicator (world
 * or a split with a shuffled key), a base type and the number of base
 * elements per block; from a per-rank stream, each rank then builds its own
 * send and receive types of that signature, so matching signatures meet
 * with different layouts.  Types are random trees (up to three levels) of
 *   contiguous, vector and hvector (negative, zero (send side) and gapped
 *   strides), indexed, hindexed, indexed_block and hindexed_block (permuted,
 *   gapped and, on the send side, overlapping displacements), struct (fields
 *   out of order), resized (negative lower bounds, extents smaller or larger
 *   than the data), subarray and darray (C and Fortran order), dup;
 * MPI_IN_PLACE is drawn where the collective allows it, zero counts and
 * large blocks (past the eager limit) too, and some calls start skewed.
 * MPI_BOTTOM cases send and receive through structs of absolute addresses
 * over two arrays in reverse address order, as Fortran programs do.
 *
 * pacoll's receive buffer and PMPI's start with the same bytes and must end
 * with the same bytes, holes included; the send buffer must be unchanged.
 * A receive layout that would write a byte twice is erroneous in MPI and is
 * drawn again.  Failures name the seed and the case, so
 *   check_dtfuzz --seed S --first C --cases 1 --verbose
 * replays one.
 *
 * Options: --cases N  --seed S  --first C  --coll NAME  --algo NAME  --verbose
 * Closing line (check_util.h): "check_dtfuzz: N checks passed, F failed".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_util.h"
#include "pacoll.h"

#define SLACK 32
#define MAX_ALGOS 64
#define RETRIES 12

static int world_rank, verbose;
static long lib_disagreements; /* the MPI library's result is not MPI_Pack/Unpack's */
static const char *only_coll, *only_algo;

/* ------------------------------------------------------------ randomness */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t next(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int below(rng_t *r, int n) { return n > 0 ? (int)(next(r) % (uint64_t)n) : 0; }
static int range(rng_t *r, int lo, int hi) { return lo + below(r, hi - lo + 1); }
static rng_t stream(uint64_t seed, uint64_t a, uint64_t b)
{
    rng_t r = {seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0xABC98388FB8AC03Full)};
    next(&r);
    return r;
}
static void shuffle(rng_t *r, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = below(r, i + 1), t = v[i];
        v[i] = v[j], v[j] = t;
    }
}

/* ----------------------------------------------------------------- types */

static const MPI_Datatype bases[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_SHORT};
static const char *base_names[] = {"INT", "DOUBLE", "CHAR", "SHORT"};
#define NBASES 4

typedef struct {
    MPI_Datatype base;
    int send; /* overlap allowed (send side) */
    char desc[512];
    size_t dlen;
} gen_t;

static void say(gen_t *g, const char *s)
{
    size_t n = strlen(s);
    if (g->dlen + n + 1 < sizeof g->desc)
        memcpy(g->desc + g->dlen, s, n + 1), g->dlen += n;
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, e;
    MPI_Type_get_extent(t, &lb, &e);
    return e;
}
static int size_of(MPI_Datatype t)
{
    int s;
    MPI_Type_size(t, &s);
    return s;
}

static void drop(MPI_Datatype *t)
{
    int ni, na, nd, c;
    MPI_Type_get_envelope(*t, &ni, &na, &nd, &c);
    if (c != MPI_COMBINER_NAMED)
        MPI_Type_free(t);
}

/* Displacements for k blocks of `width` units each: permuted slots with
 * gaps; on the send side sometimes overlapping (a slot used twice). */
static void displs(rng_t *r, gen_t *g, int k, int width, int *d)
{
    int slot[8];
    for (int i = 0; i < k; i++) slot[i] = i;
    shuffle(r, slot, k);
    int gap = range(r, 0, 2), back = below(r, 3) == 0; /* back: descending */
    for (int i = 0; i < k; i++) {
        int s = back ? k - 1 - slot[i] : slot[i];
        d[i] = s * (width + gap) - (below(r, 4) == 0 ? width + gap : 0);
        if (g->send && i > 0 && below(r, 5) == 0)
            d[i] = d[i - 1]; /* reads the same data twice */
    }
}

/* One random type of depth at most `depth`; the caller frees it (drop). */
static MPI_Datatype gen(rng_t *r, gen_t *g, int depth)
{
    char buf[96];
    if (depth == 0 || below(r, 5) == 0) {
        say(g, "B");
        return g->base;
    }
    int kind = below(r, 12);
    MPI_Datatype in = gen(r, g, depth - 1), out = MPI_DATATYPE_NULL;
    int k = range(r, 1, 4), bl = range(r, 1, 3), d[8], bls[8];
    MPI_Aint ad[8], ie = extent_of(in);
    if (ie == 0)
        ie = 1;
    switch (kind) {
    case 0:
        MPI_Type_contiguous(k, in, &out);
        snprintf(buf, sizeof buf, " contig(%d)", k);
        break;
    case 1: {
        int stride = g->send ? range(r, -5, 5) : (below(r, 2) ? 1 : -1) * range(r, bl, bl + 2);
        MPI_Type_vector(k, bl, stride, in, &out);
        snprintf(buf, sizeof buf, " vector(%d,%d,%d)", k, bl, stride);
        break;
    }
    case 2: {
        MPI_Aint stride = (below(r, 2) ? 1 : -1) * (MPI_Aint)range(r, g->send ? 0 : bl, bl + 2) * ie;
        MPI_Type_create_hvector(k, bl, stride, in, &out);
        snprintf(buf, sizeof buf, " hvector(%d,%d,%ld)", k, bl, (long)stride);
        break;
    }
    case 3:
        displs(r, g, k, 3, d);
        for (int i = 0; i < k; i++) bls[i] = below(r, 4);
        MPI_Type_indexed(k, bls, d, in, &out);
        snprintf(buf, sizeof buf, " indexed(%d:%d@%d,..)", k, bls[0], d[0]);
        break;
    case 4:
        displs(r, g, k, 3, d);
        for (int i = 0; i < k; i++) bls[i] = below(r, 4), ad[i] = (MPI_Aint)d[i] * ie;
        MPI_Type_create_hindexed(k, bls, ad, in, &out);
        snprintf(buf, sizeof buf, " hindexed(%d:%d@%ld,..)", k, bls[0], (long)ad[0]);
        break;
    case 5:
        displs(r, g, k, bl, d);
        MPI_Type_create_indexed_block(k, bl, d, in, &out);
        snprintf(buf, sizeof buf, " indexed_block(%d,%d:@%d,@%d..)", k, bl, d[0], k > 1 ? d[1] : 0);
        break;
    case 6:
        displs(r, g, k, bl, d);
        for (int i = 0; i < k; i++) ad[i] = (MPI_Aint)d[i] * ie;
        MPI_Type_create_hindexed_block(k, bl, ad, in, &out);
        snprintf(buf, sizeof buf, " hindexed_block(%d,%d)", k, bl);
        break;
    case 7: { /* struct of the inner type and fresh siblings, fields out of order */
        MPI_Datatype tv[4];
        int n = range(r, 1, 3);
        MPI_Aint w = 0;
        tv[0] = in;
        for (int i = 1; i < n; i++) tv[i] = gen(r, g, depth - 1);
        for (int i = 0; i < n; i++) {
            MPI_Aint lb, tlb, text, e;
            MPI_Type_get_extent(tv[i], &lb, &e);
            MPI_Type_get_true_extent(tv[i], &tlb, &text);
            MPI_Aint span = (text > e ? text : e) * 3 + 8;
            if (span > w) w = span;
        }
        displs(r, g, n, 1, d);
        for (int i = 0; i < n; i++) bls[i] = below(r, 3), ad[i] = (MPI_Aint)d[i] * w;
        MPI_Type_create_struct(n, bls, ad, tv, &out);
        for (int i = 1; i < n; i++) drop(&tv[i]);
        snprintf(buf, sizeof buf, " struct(%d)", n);
        break;
    }
    case 8: { /* resized: negative lower bound, extent shrunk or grown */
        MPI_Aint lb = -(MPI_Aint)range(r, 0, 3) * size_of(g->base);
        MPI_Aint e = ie + (MPI_Aint)range(r, g->send ? -1 : 0, 2) * size_of(g->base);
        if (e <= 0) e = ie;
        MPI_Type_create_resized(in, lb, e, &out);
        snprintf(buf, sizeof buf, " resized(%ld,%ld)", (long)lb, (long)e);
        break;
    }
    case 9: { /* subarray, 2 or 3 dimensions */
        int nd = range(r, 2, 3), sizes[3], sub[3], st[3];
        for (int i = 0; i < nd; i++) {
            sizes[i] = range(r, 1, 4);
            sub[i] = range(r, 1, sizes[i]);
            st[i] = range(r, 0, sizes[i] - sub[i]);
        }
        int order = below(r, 2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        MPI_Type_create_subarray(nd, sizes, sub, st, order, in, &out);
        snprintf(buf, sizeof buf, " subarray(%d,%s)", nd, order == MPI_ORDER_C ? "C" : "F");
        break;
    }
    case 10: { /* darray over a 2-D grid of processes */
        int gs[2], ds[2], da[2], ps[2];
        for (int i = 0; i < 2; i++) {
            ps[i] = range(r, 1, 2);
            gs[i] = range(r, 1, 5);
            int c = below(r, 3);
            ds[i] = c == 0 ? MPI_DISTRIBUTE_BLOCK : c == 1 ? MPI_DISTRIBUTE_CYCLIC
                                                           : MPI_DISTRIBUTE_NONE;
            da[i] = ds[i] == MPI_DISTRIBUTE_CYCLIC && below(r, 2) ? range(r, 1, 2)
                                                                   : MPI_DISTRIBUTE_DFLT_DARG;
            if (ds[i] == MPI_DISTRIBUTE_NONE) ps[i] = 1;
        }
        int order = below(r, 2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        int who = below(r, ps[0] * ps[1]);
        if (MPI_Type_create_darray(ps[0] * ps[1], who, 2, gs, ds, da, ps, order, in, &out) !=
            MPI_SUCCESS) /* a combination the library refuses: a dup instead */
            MPI_Type_dup(in, &out);
        snprintf(buf, sizeof buf, " darray(%dx%d,%s)", gs[0], gs[1], order == MPI_ORDER_C ? "C" : "F");
        break;
    }
    default:
        MPI_Type_dup(in, &out);
        snprintf(buf, sizeof buf, " dup");
    }
    drop(&in);
    /* An empty type that still carries bounds, placed inside another, is
     * where Open MPI 4.1's datatype engine contradicts its own extent (it
     * takes the outer type for contiguous and writes past its true
     * extent): neither pacoll nor the reference could be judged there. */
    if (size_of(out) == 0) {
        MPI_Type_free(&out);
        say(g, " (empty: B)");
        return g->base;
    }
    say(g, buf);
    return out;
}

/* ------------------------------------------------------------ a layout */

/* count elements of type t at element displacement d of a buffer: the byte
 * range [lo, hi) they touch, relative to the buffer's origin. */
static void reach(MPI_Datatype t, long d, int count, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint lb, e, tlb, text;
    MPI_Type_get_extent(t, &lb, &e);
    MPI_Type_get_true_extent(t, &tlb, &text);
    if (count <= 0 || size_of(t) == 0)
        return;
    MPI_Aint a = d * e + tlb, b = d * e + (MPI_Aint)(count - 1) * e + tlb;
    MPI_Aint l = a < b ? a : b, h = (a > b ? a : b) + text;
    if (l < *lo) *lo = l;
    if (h > *hi) *hi = h;
}

/* A side's buffer layout: P blocks of counts[p] elements at displs[p]. */
typedef struct {
    MPI_Datatype t;
    int counts[64], displs[64];
    int n;               /* blocks */
    MPI_Aint lo, hi;     /* bytes reached, from the origin */
    MPI_Aint pad;        /* margin on each side */
    char *mem;           /* allocation; origin = mem + pad - lo */
    size_t len;
} side_t;

static char *origin(const side_t *s) { return s->mem + s->pad - s->lo; }

static int side_alloc(side_t *s)
{
    s->lo = 0, s->hi = 0;
    for (int p = 0; p < s->n; p++) reach(s->t, s->displs[p], s->counts[p], &s->lo, &s->hi);
    /* A margin past the true extent: a library whose true extent leaves out
     * part of the data (measured: Open MPI with zero-length blocks) must
     * not write outside the allocation. */
    s->pad = SLACK + 4096 + (s->hi - s->lo);
    s->len = (size_t)(s->hi - s->lo) + 2 * (size_t)s->pad;
    s->mem = malloc(s->len);
    return s->mem != NULL;
}

/* Whether the receive layout writes every byte at most once (MPI makes a
 * receive into overlapping places erroneous): unpack all-ones into zeros. */
static int writes_once(const side_t *s)
{
    size_t total = 0;
    for (int p = 0; p < s->n; p++) total += (size_t)s->counts[p] * (size_t)size_of(s->t);
    if (total == 0)
        return 1;
    char *ones = malloc(total), *z = calloc(1, s->len);
    memset(ones, 0xFF, total);
    size_t off = 0;
    for (int p = 0; p < s->n; p++) {
        int pos = 0, bytes = s->counts[p] * size_of(s->t);
        MPI_Unpack(ones + off, bytes, &pos, z + s->pad - s->lo + (MPI_Aint)s->displs[p] * extent_of(s->t),
                   s->counts[p], s->t, MPI_COMM_SELF);
        off += (size_t)bytes;
    }
    size_t set = 0;
    for (size_t i = 0; i < s->len; i++) set += z[i] != 0;
    free(ones), free(z);
    return set == total;
}

/* ------------------------------------------------------ the reference */

/* What MPI's definition gives: every block packed with MPI_Pack, moved as
 * bytes by PMPI_Alltoallv, unpacked with MPI_Unpack into ref (a copy of
 * the receive buffer as it was before the call). */
static void reference(int coll, int in_place, int root, MPI_Comm comm, const side_t *s,
                      const side_t *r, const char *sorigin, const char *rorigin_before,
                      char *ref_origin)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int sc[64] = {0}, sd[64] = {0}, rc[64] = {0}, rd[64] = {0};
    const side_t *from = in_place && (coll != PACOLL_GATHER || me == root) ? r : s;
    const char *fo = from == r ? rorigin_before : sorigin;
    int fsz = size_of(from->t), rsz = size_of(r->t);
    size_t total = 0;
    for (int p = 0; p < P; p++) {
        int b = coll == PACOLL_ALLTOALL || coll == PACOLL_ALLTOALLV ? p : 0;
        if (from == r && coll != PACOLL_ALLTOALL && coll != PACOLL_ALLTOALLV)
            b = me;
        int send = coll == PACOLL_GATHER ? p == root : 1;
        sc[p] = send ? from->counts[b] * fsz : 0;
        sd[p] = (int)total;
        total += (size_t)sc[p];
    }
    char *packed = malloc(total + 1);
    for (int p = 0; p < P; p++) {
        int b = coll == PACOLL_ALLTOALL || coll == PACOLL_ALLTOALLV ? p : (from == r ? me : 0);
        int pos = 0;
        if (sc[p])
            MPI_Pack(fo + (MPI_Aint)from->displs[b] * extent_of(from->t), from->counts[b], from->t,
                     packed + sd[p], sc[p], &pos, MPI_COMM_SELF);
    }
    size_t rtotal = 0;
    for (int p = 0; p < r->n; p++)
        rc[p] = r->counts[p] * rsz, rd[p] = (int)rtotal, rtotal += (size_t)rc[p];
    char *in = malloc(rtotal + 1);
    PMPI_Alltoallv(packed, sc, sd, MPI_BYTE, in, rc, rd, MPI_BYTE, comm);
    for (int p = 0; p < r->n; p++) {
        int pos = 0;
        if (rc[p] && !(in_place && p == me && coll != PACOLL_ALLTOALL && coll != PACOLL_ALLTOALLV))
            MPI_Unpack(in + rd[p], rc[p], &pos, ref_origin + (MPI_Aint)r->displs[p] * extent_of(r->t),
                       r->counts[p], r->t, MPI_COMM_SELF);
    }
    free(packed), free(in);
}

/* ---------------------------------------------------------- algorithms */

static int algo_list(int coll, const char **names)
{
    int k = 0;
    names[k++] = NULL; /* automatic */
    names[k++] = "native";
    int n = pacoll_algorithm_count();
    for (int i = 0; i < n && k < MAX_ALGOS; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
            strcmp(info.name, "native") != 0)
            names[k++] = info.name;
    }
    if (only_algo) {
        int j = 0;
        for (int i = 0; i < k; i++)
            if (names[i] ? strcmp(names[i], only_algo) == 0 : strcmp(only_algo, "auto") == 0)
                names[j++] = names[i];
        k = j;
    }
    return k;
}

/* -------------------------------------------------------------- one case */

typedef struct {
    int coll, in_place, root;
    const char *algo;
    MPI_Comm comm;
    int P, me;
    char what[160];
} case_t;

static int run_pacoll(const case_t *c, const side_t *s, const side_t *r, void *sb, void *rb)
{
    const char *a = c->algo;
    switch (c->coll) {
    case PACOLL_ALLTOALL:
        return a ? pacoll_alltoall_alg(a, sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->comm)
                 : pacoll_alltoall(sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->comm);
    case PACOLL_ALLTOALLV:
        return a ? pacoll_alltoallv_alg(a, sb, s->counts, s->displs, s->t, rb, r->counts,
                                        r->displs, r->t, c->comm)
                 : pacoll_alltoallv(sb, s->counts, s->displs, s->t, rb, r->counts, r->displs,
                                    r->t, c->comm);
    case PACOLL_ALLGATHER:
        return a ? pacoll_allgather_alg(a, sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->comm)
                 : pacoll_allgather(sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->comm);
    default:
        return a ? pacoll_gather_alg(a, sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->root,
                                     c->comm)
                 : pacoll_gather(sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->root, c->comm);
    }
}

static int run_pmpi(const case_t *c, const side_t *s, const side_t *r, void *sb, void *rb)
{
    switch (c->coll) {
    case PACOLL_ALLTOALL:
        return PMPI_Alltoall(sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->comm);
    case PACOLL_ALLTOALLV:
        return PMPI_Alltoallv(sb, s->counts, s->displs, s->t, rb, r->counts, r->displs, r->t,
                              c->comm);
    case PACOLL_ALLGATHER:
        return PMPI_Allgather(sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->comm);
    default:
        return PMPI_Gather(sb, s->counts[0], s->t, rb, r->counts[0], r->t, c->root, c->comm);
    }
}

/* A rank's type with n base elements dividing unit, drawn again up to
 * RETRIES times; else the base type itself. */
static MPI_Datatype type_dividing(rng_t *r, gen_t *g, int unit, int *n)
{
    for (int i = 0; i < RETRIES; i++) {
        g->dlen = 0, g->desc[0] = 0;
        MPI_Datatype t = gen(r, g, 3);
        int k = size_of(t) / size_of(g->base);
        if (k > 0 && unit % k == 0) {
            if (t != g->base)
                MPI_Type_commit(&t);
            *n = k;
            return t;
        }
        drop(&t);
    }
    g->dlen = 0, g->desc[0] = 0;
    say(g, "B");
    *n = 1;
    return g->base;
}

static void report(const case_t *c, uint64_t seed, long k, const char *msg, const gen_t *gs,
                   const gen_t *gr)
{
    char line[1400];
    snprintf(line, sizeof line,
             "seed %llu case %ld (%s): %s\n    send type:%s\n    recv type:%s",
             (unsigned long long)seed, k, c->what, msg, gs->desc, gr->desc);
    expect_true(line, 0);
}

/* Units of the block p sends q (alltoallv), known to both; symmetric in
 * place, where what p sends q is what q expects from p at the same place. */
static int block_units(uint64_t seed, long k, int p, int q, int sym)
{
    if (sym && p > q) {
        int t = p;
        p = q, q = t;
    }
    rng_t r = stream(seed, (uint64_t)k * 4099 + 17, (uint64_t)p * 257 + (uint64_t)q);
    return below(&r, 6) == 0 ? 0 : range(&r, 1, 4);
}

static void one_case(uint64_t seed, long k, MPI_Comm split, const char **algos[4], int nalg[4])
{
    rng_t sh = stream(seed, (uint64_t)k, 0xC0FFEE);
    case_t c = {0};
    static const int colls[4] = {PACOLL_ALLTOALL, PACOLL_ALLTOALLV, PACOLL_ALLGATHER,
                                 PACOLL_GATHER};
    do c.coll = colls[below(&sh, 4)];
    while (only_coll && strcmp(pacoll_coll_name(c.coll), only_coll) != 0);
    c.algo = algos[c.coll][below(&sh, nalg[c.coll])];
    c.comm = below(&sh, 3) == 0 ? split : MPI_COMM_WORLD;
    MPI_Comm_size(c.comm, &c.P);
    MPI_Comm_rank(c.comm, &c.me);
    c.root = below(&sh, c.P);
    int bi = below(&sh, NBASES);
    int big = below(&sh, 12) == 0;
    c.in_place = below(&sh, 6) == 0;
    int unit = 12 * (big ? range(&sh, 100, 1200) : range(&sh, 0, 2)); /* base elements per unit */
    int skew_us = below(&sh, 5) == 0 ? range(&sh, 0, 300) : 0;
    snprintf(c.what, sizeof c.what, "%s %s, %s, %d ranks, %s, unit %d%s", pacoll_coll_name(c.coll),
             c.algo ? c.algo : "auto", c.comm == split ? "split" : "world", c.P, base_names[bi],
             unit, c.in_place ? ", MPI_IN_PLACE" : "");

    rng_t mine = stream(seed, (uint64_t)k, 0x51DE + (uint64_t)world_rank);
    gen_t gs = {.base = bases[bi], .send = 1}, gr = {.base = bases[bi], .send = 0};
    side_t s = {.t = MPI_DATATYPE_NULL}, r = {.t = MPI_DATATYPE_NULL};
    int ns = 1, nr = 1, P = c.P, me = c.me;
    int is_root = c.coll != PACOLL_GATHER || me == c.root;
    int u = unit ? unit : 12;
    /* receive side: drawn until it writes each byte once */
    for (int tries = 0;; tries++) {
        r.t = type_dividing(&mine, &gr, u, &nr);
        r.n = is_root ? P : 0;
        int slot[64];
        for (int p = 0; p < P; p++) slot[p] = p;
        if (c.coll == PACOLL_ALLTOALLV)
            shuffle(&mine, slot, P);
        int at = 0;
        for (int p = 0; p < r.n; p++) {
            int units = c.coll == PACOLL_ALLTOALLV ? block_units(seed, k, p, me, c.in_place) : 1;
            r.counts[p] = unit ? units * (unit / nr) : 0;
            r.displs[p] = p * (unit / nr);
        }
        if (c.coll == PACOLL_ALLTOALLV) /* permuted, gapped displacements */
            for (int i = 0; i < P; i++) {
                int p = slot[i];
                r.displs[p] = at;
                at += r.counts[p] + below(&mine, 3);
            }
        if (!unit) /* zero counts: any count-0 layout */
            for (int p = 0; p < r.n; p++) r.counts[p] = 0;
        side_alloc(&r);
        if (writes_once(&r) || tries == RETRIES) {
            if (!writes_once(&r)) { /* contiguous base elements never overlap */
                free(r.mem), drop(&r.t);
                r.t = bases[bi], nr = 1, gr.dlen = 0, say(&gr, "B (fallback)");
                for (int p = 0; p < r.n; p++) {
                    int units = c.coll == PACOLL_ALLTOALLV ? block_units(seed, k, p, me, c.in_place) : 1;
                    r.counts[p] = unit ? units * unit : 0;
                    r.displs[p] = p * unit * 3;
                }
                side_alloc(&r);
            }
            break;
        }
        free(r.mem), drop(&r.t);
    }
    /* send side */
    s.t = type_dividing(&mine, &gs, u, &ns);
    s.n = c.coll == PACOLL_ALLTOALL || c.coll == PACOLL_ALLTOALLV ? P : 1;
    for (int p = 0; p < s.n; p++) {
        int units = c.coll == PACOLL_ALLTOALLV ? block_units(seed, k, me, p, c.in_place) : 1;
        s.counts[p] = unit ? units * (unit / ns) : 0;
        s.displs[p] = p * (unit / ns);
    }
    if (c.coll == PACOLL_ALLTOALLV) {
        int slot[64], at = 0;
        for (int p = 0; p < P; p++) slot[p] = p;
        shuffle(&mine, slot, P);
        for (int i = 0; i < P; i++) {
            int p = slot[i];
            s.displs[p] = below(&mine, 6) == 0 && i > 0 ? s.displs[slot[i - 1]] : at;
            at += s.counts[p] + below(&mine, 3);
        }
    }
    side_alloc(&s);
    for (size_t i = 0; i < s.len; i++) s.mem[i] = (char)next(&mine);
    char *r2 = malloc(r.len), *r3 = malloc(r.len), *r0 = malloc(r.len), *s_copy = malloc(s.len);
    for (size_t i = 0; i < r.len; i++) r.mem[i] = (char)next(&mine);
    memcpy(r2, r.mem, r.len);
    memcpy(r3, r.mem, r.len);
    memcpy(r0, r.mem, r.len);
    memcpy(s_copy, s.mem, s.len);

    void *sb = origin(&s), *rb = r.n ? origin(&r) : NULL, *rb2 = r.n ? r2 + (origin(&r) - r.mem) : NULL;
    void *sb2 = sb;
    if (c.in_place && is_root) /* in place: the data is in the receive buffer */
        sb = sb2 = MPI_IN_PLACE;
    if (!is_root)
        rb = rb2 = NULL;
    if (verbose)
        printf("case %ld, world rank %d: %s\n    send type:%s (count %d)\n    recv type:%s (count %d)\n",
               k, world_rank, c.what, gs.desc, s.counts[0], gr.desc, r.n ? r.counts[0] : 0),
            fflush(stdout);
    if (skew_us && (world_rank + k) % 3 == 0)
        usleep((useconds_t)skew_us);
    int rc = run_pacoll(&c, &s, &r, sb, rb);
    int rc2 = run_pmpi(&c, &s, &r, sb2, rb2);
    reference(c.coll, c.in_place, c.root, c.comm, &s, &r, origin(&s), r0 + (origin(&r) - r.mem),
              r3 + (origin(&r) - r.mem));
    char msg[300];
    int lib_ok = !r.n || memcmp(r2, r3, r.len) == 0;
    int as_def = !r.n || memcmp(r.mem, r3, r.len) == 0, as_lib = !r.n || memcmp(r.mem, r2, r.len) == 0;
    if (!lib_ok) {
        lib_disagreements++;
        if (verbose || lib_disagreements <= 2)
            printf("check_dtfuzz: note: world rank %d, seed %llu case %ld (%s): the MPI library's "
                   "own result differs from MPI_Pack/Unpack's; pacoll's %s\n",
                   world_rank, (unsigned long long)seed, k, c.what,
                   as_def ? "agrees with MPI_Pack/Unpack" : as_lib ? "is the library's" : "is neither"),
                fflush(stdout);
    }
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
        snprintf(msg, sizeof msg, "pacoll returned %d, the MPI library %d", err_class(rc),
                 err_class(rc2));
        report(&c, seed, k, msg, &gs, &gr);
    } else if (!as_def && !as_lib) { /* right is what MPI defines or what the library gives */
        size_t first = 0;
        long diff = 0;
        for (size_t i = 0; i < r.len; i++)
            if (r.mem[i] != r3[i]) {
                if (!diff) first = i;
                diff++;
            }
        snprintf(msg, sizeof msg, "%ld receive bytes differ from MPI_Pack/Unpack's, the first at "
                 "byte %ld of the receive buffer; the MPI library %s",
                 diff, (long)first - (long)r.pad + (long)r.lo,
                 lib_ok ? "agrees with MPI_Pack/Unpack" : "gives a third result");
        report(&c, seed, k, msg, &gs, &gr);
    } else if (memcmp(s.mem, s_copy, s.len) != 0) {
        report(&c, seed, k, "the send buffer changed", &gs, &gr);
    } else {
        expect_true("", 1);
    }
    free(r2), free(r3), free(r0), free(s_copy), free(s.mem), free(r.mem);
    drop(&s.t), drop(&r.t);
}

/* ------------------------------------------------------- MPI_BOTTOM cases */

/* Two arrays in one allocation, y before x in memory; a struct {n at x, n
 * at y} of absolute addresses (fields out of address order), resized so
 * that element p is x[p*n..], y[p*n..]: the Fortran idiom with
 * MPI_Get_address and MPI_BOTTOM. */
static MPI_Datatype bottom_type(int *x, int *y, int n)
{
    int bl[2] = {n, n};
    MPI_Aint ad[2];
    MPI_Datatype tv[2] = {MPI_INT, MPI_INT}, st, t;
    MPI_Get_address(x, &ad[0]);
    MPI_Get_address(y, &ad[1]);
    MPI_Type_create_struct(2, bl, ad, tv, &st);
    MPI_Type_create_resized(st, 0, (MPI_Aint)n * (MPI_Aint)sizeof(int), &t);
    MPI_Type_free(&st);
    MPI_Type_commit(&t);
    return t;
}

static void bottom_case(uint64_t seed, long k, const char **algos[4], int nalg[4])
{
    rng_t sh = stream(seed, (uint64_t)k, 0xB0770);
    static const int colls[4] = {PACOLL_ALLTOALL, PACOLL_ALLTOALLV, PACOLL_ALLGATHER,
                                 PACOLL_GATHER};
    case_t c = {.coll = colls[below(&sh, 4)], .comm = MPI_COMM_WORLD};
    if (only_coll && strcmp(pacoll_coll_name(c.coll), only_coll) != 0)
        return;
    c.algo = algos[c.coll][below(&sh, nalg[c.coll])];
    MPI_Comm_size(c.comm, &c.P);
    MPI_Comm_rank(c.comm, &c.me);
    c.root = below(&sh, c.P);
    int n = range(&sh, 1, 9), P = c.P, gap = range(&sh, 1, 5);
    snprintf(c.what, sizeof c.what, "MPI_BOTTOM %s %s, %d ranks, n %d", pacoll_coll_name(c.coll),
             c.algo ? c.algo : "auto", P, n);
    size_t per = (size_t)P * (size_t)n; /* ints in each of x and y */
    /* send: y then x; receive (twice: pacoll, PMPI): likewise */
    int *sm = calloc(2 * per + (size_t)gap, sizeof(int));
    int *ra = calloc(2 * per + (size_t)gap + 2, sizeof(int)), *rb = calloc(2 * per + (size_t)gap + 2, sizeof(int));
    int *sy = sm, *sx = sm + per + gap;
    for (size_t i = 0; i < 2 * per + (size_t)gap; i++) sm[i] = (int)(c.me * 100000 + (int)i);
    MPI_Datatype st = bottom_type(sx, sy, n);
    MPI_Datatype rta = bottom_type(ra + per + gap + 1, ra + 1, n), rtb = bottom_type(rb + per + gap + 1, rb + 1, n);
    int one[64], dsp[64];
    for (int p = 0; p < P; p++) one[p] = 1, dsp[p] = p;
    int is_root = c.coll != PACOLL_GATHER || c.me == c.root;
    side_t s = {.t = st, .n = 1}, r = {.t = rta, .n = 1};
    s.counts[0] = 1, r.counts[0] = is_root ? 1 : 0;
    int rc, rc2;
    if (c.coll == PACOLL_ALLTOALLV) {
        memcpy(s.counts, one, sizeof one), memcpy(s.displs, dsp, sizeof dsp);
        memcpy(r.counts, one, sizeof one), memcpy(r.displs, dsp, sizeof dsp);
    }
    rc = run_pacoll(&c, &s, &r, MPI_BOTTOM, is_root ? MPI_BOTTOM : NULL);
    r.t = rtb;
    rc2 = run_pmpi(&c, &s, &r, MPI_BOTTOM, is_root ? MPI_BOTTOM : NULL);
    gen_t gd = {.base = MPI_INT};
    say(&gd, " struct{x,y} of absolute addresses, y below x");
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
        char msg[100];
        snprintf(msg, sizeof msg, "pacoll returned %d, the MPI library %d", err_class(rc),
                 err_class(rc2));
        report(&c, seed, k, msg, &gd, &gd);
    } else if (memcmp(ra, rb, (2 * per + (size_t)gap + 2) * sizeof(int)) != 0) {
        report(&c, seed, k, "received ints differ from the MPI library's", &gd, &gd);
    } else {
        expect_true("", 1);
    }
    MPI_Type_free(&st), MPI_Type_free(&rta), MPI_Type_free(&rtb);
    free(sm), free(ra), free(rb);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    long cases = 1000, first = 0;
    uint64_t seed = 0;
    int have_seed = 0;
    MPI_Init(&argc, &argv);
    check_prog = "check_dtfuzz";
    /* errors are returned: constructors the library refuses, and the calls'
     * return codes compared below */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0), have_seed = 1;
        else if (!strcmp(argv[i], "--first") && i + 1 < argc) first = atol(argv[++i]);
        else if (!strcmp(argv[i], "--coll") && i + 1 < argc) only_coll = argv[++i];
        else if (!strcmp(argv[i], "--algo") && i + 1 < argc) only_algo = argv[++i];
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else {
            if (world_rank == 0)
                fprintf(stderr, "check_dtfuzz: unknown option %s\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (!have_seed)
        seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("check_dtfuzz: seed %llu, cases %ld-%ld (replay: --seed %llu --first C --cases 1)\n",
               (unsigned long long)seed, first, first + cases - 1, (unsigned long long)seed),
            fflush(stdout);
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (P > 64) {
        if (world_rank == 0)
            fprintf(stderr, "check_dtfuzz: at most 64 ranks\n");
        MPI_Finalize();
        return 2;
    }
    /* a split with a shuffled key: ranks in another order, odd sizes */
    rng_t kr = stream(seed, 7, (uint64_t)world_rank);
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, P > 2 ? world_rank % 3 == 2 : 0, (int)(next(&kr) % 1000), &split);
    const char *a0[MAX_ALGOS], *a1[MAX_ALGOS], *a2[MAX_ALGOS], *a3[MAX_ALGOS];
    const char **algos[4] = {a0, a1, a2, a3};
    int nalg[4];
    for (int coll = 0; coll < 4; coll++) nalg[coll] = algo_list(coll, algos[coll]);
    for (int coll = 0; coll < 4; coll++)
        if (nalg[coll] == 0) {
            if (world_rank == 0)
                fprintf(stderr, "check_dtfuzz: no algorithm %s\n", only_algo);
            MPI_Finalize();
            return 2;
        }
    for (long k = first; k < first + cases; k++) {
        if (k % 16 == 15)
            bottom_case(seed, k, algos, nalg);
        else
            one_case(seed, k, split, algos, nalg);
    }
    MPI_Comm_free(&split);
    long all = 0;
    MPI_Reduce(&lib_disagreements, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("check_dtfuzz: %ld results where the MPI library's own differs from MPI_Pack/Unpack's\n",
               all);
    int bad = check_summary();
    MPI_Finalize();
    return bad;
}
