/*
 * The large-count collectives (MPI_<coll>_c) under the preload library,
 * against the MPI library's own (PMPI_<coll>_c): a plain MPI program.
 *
 *   count_c [--seed S] [--cases N]   random cases: the four collectives, in
 *       place or not, contiguous and derived types, counts 0 to some
 *       thousands; then the calls pacoll hands to the library: a count
 *       beyond INT_MAX of a type of size 0 (nothing moves), and an
 *       alltoallv displacement beyond INT_MAX on one rank only (the ranks
 *       agree to hand it over).  Prints "count-c: OK".
 *   count_c --big    blocks whose buffers pass 2 GiB: allgather of
 *       1.2e9 bytes per rank (pacoll's way: the receive offsets pass 2^31)
 *       and, on rank 0 alone, an alltoall of a 2 GiB + 64 B block on
 *       MPI_COMM_SELF (the library's); values checked by pattern.  Skipped
 *       ("count-c: SKIP") when MemAvailable is below what it needs.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int rank, size;

static void die(const char *what)
{
    fprintf(stderr, "count-c[%d]: FAIL %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint64_t rng;
static unsigned next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

/* The types of the random cases: a named one, a contiguous one, and one
 * with holes whose extent is resized (a buffer's holes must stay as they
 * were). */
static MPI_Datatype types[3];
static void make_types(void)
{
    types[0] = MPI_INT;
    MPI_Type_contiguous(3, MPI_INT, &types[1]);
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 4 * (MPI_Aint)sizeof(int), &types[2]);
    MPI_Type_free(&v);
    MPI_Type_commit(&types[1]);
    MPI_Type_commit(&types[2]);
}

static size_t extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return (size_t)ext;
}

static void fill(char *p, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(i * 131 + (size_t)salt * 7 + 1);
}

static void one_case(int cs)
{
    int coll = (int)(next() % 4), ti = (int)(next() % 3), root = (int)(next() % (unsigned)size);
    int in_place = next() % 3 == 0;
    static const int counts[] = {0, 1, 3, 17, 100, 1000, 4000};
    MPI_Count c = counts[next() % 7];
    MPI_Datatype t = types[ti];
    size_t ext = extent_of(t), block = (size_t)c * ext, n = (size_t)size;
    MPI_Count *sc = calloc(n, sizeof *sc), *rc = calloc(n, sizeof *rc);
    MPI_Aint *sd = calloc(n, sizeof *sd), *rd = calloc(n, sizeof *rd);
    /* alltoallv: counts (rank+peer) % 5 * c / 4 elements, packed backwards */
    size_t vs = 0, vr = 0;
    for (int p = size - 1; p >= 0; p--) {
        sc[p] = (MPI_Count)((rank + p) % 5) * c / 4, sd[p] = (MPI_Aint)vs, vs += (size_t)sc[p];
        rc[p] = (MPI_Count)((p + rank) % 5) * c / 4, rd[p] = (MPI_Aint)vr, vr += (size_t)rc[p];
    }
    size_t sbytes = coll == 1 ? vs * ext : block * (coll == 0 ? n : 1);
    size_t rbytes = coll == 1 ? vr * ext : block * n;
    if (coll == 1 && in_place) { /* in place: the receive side's layout both ways */
        for (int p = 0; p < size; p++)
            rc[p] = c, rd[p] = (MPI_Aint)((size_t)p * (size_t)c);
        rbytes = block * n;
    }
    char *s = malloc(sbytes + 1), *r1 = malloc(rbytes + 1), *r2 = malloc(rbytes + 1);
    fill(s, sbytes, rank + cs);
    fill(r1, rbytes, 1000 + rank + cs);
    memcpy(r2, r1, rbytes);
    const void *sb = s;
    int e1 = 0, e2 = 0;
    if (in_place) {
        /* the receive buffer holds this rank's contribution where it belongs */
        fill(r1, rbytes, 2000 + rank + cs);
        memcpy(r2, r1, rbytes);
        sb = MPI_IN_PLACE;
    }
    switch (coll) {
    case 0:
        e1 = MPI_Alltoall_c(sb, c, t, r1, c, t, MPI_COMM_WORLD);
        e2 = PMPI_Alltoall_c(sb, c, t, r2, c, t, MPI_COMM_WORLD);
        break;
    case 1:
        e1 = MPI_Alltoallv_c(sb, sc, sd, t, r1, rc, rd, t, MPI_COMM_WORLD);
        e2 = PMPI_Alltoallv_c(sb, sc, sd, t, r2, rc, rd, t, MPI_COMM_WORLD);
        break;
    case 2:
        e1 = MPI_Allgather_c(sb, c, t, r1, c, t, MPI_COMM_WORLD);
        e2 = PMPI_Allgather_c(sb, c, t, r2, c, t, MPI_COMM_WORLD);
        break;
    default:
        if (in_place && rank != root)
            sb = s; /* in place only at the root */
        e1 = MPI_Gather_c(sb, c, t, r1, c, t, root, MPI_COMM_WORLD);
        e2 = PMPI_Gather_c(sb, c, t, r2, c, t, root, MPI_COMM_WORLD);
        break;
    }
    if (e1 != MPI_SUCCESS || e2 != MPI_SUCCESS)
        die("a call failed");
    if (memcmp(r1, r2, rbytes) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "case %d: coll %d type %d count %lld in place %d root %d differs",
                 cs, coll, ti, (long long)c, in_place, root);
        die(msg);
    }
    free(s), free(r1), free(r2), free(sc), free(rc), free(sd), free(rd);
}

/* What pacoll hands to the library: it must still be right. */
static void handed_over(void)
{
    MPI_Datatype none; /* size 0, extent 0 */
    MPI_Type_contiguous(0, MPI_INT, &none);
    MPI_Type_commit(&none);
    int gs[4] = {7, 7, 7, 7}, gr[4] = {9, 9, 9, 9};
    MPI_Count huge = (MPI_Count)INT_MAX + 5;
    if (MPI_Alltoall_c(gs, huge, none, gr, huge, none, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allgather_c(gs, huge, none, gr, huge, none, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Gather_c(gs, huge, none, gr, huge, none, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("a size-0 type with a count beyond INT_MAX");
    if (gr[0] != 9 || gr[3] != 9)
        die("a size-0 type moved bytes");
    /* alltoallv: ints first (pacoll's way), then blocks of the size-0 type
     * with a displacement beyond INT_MAX on rank 0 only (every rank hands
     * the call over); the receive buffer keeps the ints */
    size_t n = (size_t)size;
    MPI_Count *sc = malloc(n * sizeof *sc), *rc = malloc(n * sizeof *rc);
    MPI_Aint *sd = malloc(n * sizeof *sd), *rd = malloc(n * sizeof *rd);
    int *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r);
    for (size_t p = 0; p < n; p++)
        sc[p] = rc[p] = 1, sd[p] = rd[p] = (MPI_Aint)p, s[p] = rank * 1000 + (int)p, r[p] = -1;
    if (MPI_Alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("alltoallv_c");
    for (size_t p = 0; p < n; p++)
        if (r[p] != (int)p * 1000 + rank)
            die("alltoallv_c values");
    if (rank == 0)
        sd[n - 1] = (MPI_Aint)INT_MAX + 3;
    if (MPI_Alltoallv_c(s, sc, sd, none, r, rc, rd, none, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("alltoallv_c with a displacement beyond INT_MAX");
    for (size_t p = 0; p < n; p++)
        if (r[p] != (int)p * 1000 + rank)
            die("alltoallv_c of a size-0 type changed the receive buffer");
    free(sc), free(rc), free(sd), free(rd), free(s), free(r);
    MPI_Type_free(&none);
}

static long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

static int big(void)
{
    const MPI_Count m = 1200000000; /* bytes per rank: size * m passes 2 GiB */
    const MPI_Count g = (MPI_Count)INT_MAX + 65;
    long long need = (long long)size * (long long)(m + (MPI_Count)size * m) + 3 * (long long)g;
    int ok = mem_available() > need + (1ll << 30), all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
        return 0;
    unsigned char *s = malloc((size_t)m), *r = malloc((size_t)(m * size));
    if (!s || !r)
        die("malloc");
    for (MPI_Count i = 0; i < m; i++)
        s[i] = (unsigned char)(i * 7 + (MPI_Count)rank * 31);
    if (MPI_Allgather_c(s, m, MPI_BYTE, r, m, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("allgather_c of 1.2e9 bytes");
    for (MPI_Count p = 0; p < size; p++)
        for (MPI_Count i = 0; i < m; i += 4093)
            if (r[p * m + i] != (unsigned char)(i * 7 + p * 31))
                die("allgather_c of 1.2e9 bytes: values");
    if (r[(MPI_Count)size * m - 1] != (unsigned char)((m - 1) * 7 + (MPI_Count)(size - 1) * 31))
        die("allgather_c of 1.2e9 bytes: last byte");
    free(s), free(r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *a = malloc((size_t)g), *b = malloc((size_t)g);
        if (!a || !b)
            die("malloc");
        for (MPI_Count i = 0; i < g; i += 4096)
            a[i] = (unsigned char)(i >> 12);
        a[g - 1] = 0x5a;
        if (MPI_Alltoall_c(a, g, MPI_BYTE, b, g, MPI_BYTE, MPI_COMM_SELF) != MPI_SUCCESS)
            die("alltoall_c of a 2 GiB + 64 B block");
        for (MPI_Count i = 0; i < g; i += 4096)
            if (b[i] != (unsigned char)(i >> 12))
                die("alltoall_c of a 2 GiB + 64 B block: values");
        if (b[g - 1] != 0x5a)
            die("alltoall_c of a 2 GiB + 64 B block: last byte");
        free(a), free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1;
    int cases = 200, do_big = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--big"))
            do_big = 1;
    }
    if (do_big) {
        int ran = big();
        if (rank == 0)
            printf(ran ? "count-c: OK (blocks past 2 GiB, %d ranks)\n"
                       : "count-c: SKIP (not enough memory for blocks past 2 GiB, %d ranks)\n",
                   size);
        MPI_Finalize();
        return 0;
    }
    if (rank == 0)
        printf("count-c: seed %llu, %d cases\n", seed, cases);
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    make_types();
    for (int cs = 0; cs < cases; cs++)
        one_case(cs);
    handed_over();
    MPI_Type_free(&types[1]);
    MPI_Type_free(&types[2]);
    if (rank == 0)
        printf("count-c: OK (%d cases, %d ranks)\n", cases, size);
    MPI_Finalize();
    return 0;
}
