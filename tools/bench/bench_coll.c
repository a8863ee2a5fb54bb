/*
 * pacoll-bench: buffers, data patterns, the collective calls, result checks
 * and the alltoallv count distributions.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

/* ---- alltoallv counts ----
 * count(s, d) is a pure function of (options, size, s, d): every rank computes
 * its own row (send counts) and column (receive counts) in O(P), and they agree
 * without any communication or a P x P matrix.  The exception is file, whose
 * matrix rank 0 reads and hands out row by row and column by column
 * (bench_vdist_load): each rank knows its own row and column only. */

/* A keyed pseudo-random permutation of [0, n): a balanced Feistel network of
 * 6 rounds on the smallest even number of bits 2h >= 2 with 2^(2h) >= n,
 * cycle-walking until the value falls inside [0, n) (fewer than 4 steps on
 * average since 2^(2h) < 4n).  A bijection of [0, 2^(2h)) restricted by cycle
 * walking is a bijection of [0, n): O(1) per element, no table. */
static uint64_t permute(uint64_t x, uint64_t n, uint64_t key)
{
    int h = 1;
    while (h < 31 && (1ull << (2 * h)) < n)
        h++;
    const uint64_t mask = (1ull << h) - 1;
    do {
        uint64_t l = x >> h, r = x & mask;
        for (uint64_t round = 0; round < 6; round++) {
            uint64_t t = l ^ (bench_hash4(key, round, r, 0x46454953ull /* "FEIS" */) & mask);
            l = r;
            r = t;
        }
        x = (l << h) | r;
    } while (x >= n);
    return x;
}

int bench_vdist_count(const bench_opts_t *o, size_t m, int nranks, int s, int d)
{
    switch (o->vdist) {
    case VDIST_RANDOM:
        if (m == 0)
            return 0;
        return (int)(bench_hash4(o->seed, 0x76646973ull /* "vdis" */ ^ ((uint64_t)m << 32),
                                 (uint64_t)s, (uint64_t)d) %
                     ((uint64_t)m + 1));
    case VDIST_ZIPF: {
        /* the pair's place k in 1..P^2 of a permutation keyed by the seed alone
         * (not the size: a larger size scales the same matrix) */
        uint64_t P = (uint64_t)nranks;
        uint64_t k = 1 + permute((uint64_t)s * P + (uint64_t)d, P * P,
                                 bench_hash4(o->seed, 0x7a697066ull /* "zipf" */, 0, 0));
        double c = floor((double)m / pow((double)k, o->zipf_s));
        return c >= (double)m ? (int)m : c > 0 ? (int)c : 0;
    }
    case VDIST_FILE:
        if (s == o->vrank)
            return o->vrow[d];
        if (d == o->vrank)
            return o->vcol[s];
        return 0; /* not known here; never asked */
    case VDIST_UNIFORM:
    default: return (int)m;
    }
}

/* ---- --vdist file:PATH ---- */
static int vfail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 2;
}

/* Rank 0: reads PATH into a P x P matrix (row-major), checks every entry and
 * that every row and column sum fits an int (packed displacements). */
static int read_matrix(const char *path, int P, int *mat, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return vfail(err, errlen, "--vdist file:%s: cannot open the file: %s", path,
                     strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int rows = 0, rc = 0;
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            rc = vfail(err, errlen, "--vdist file:%s: line %ld: a NUL byte (not a text file?)",
                       path, lineno);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        int cols = 0;
        for (;;) {
            while (isspace((unsigned char)*p))
                p++;
            if (!*p)
                break;
            char *tok = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
            char save = *p;
            *p = '\0';
            int ok = 1;
            for (const char *q = tok; *q; q++)
                if (!isdigit((unsigned char)*q))
                    ok = 0;
            if (!ok) {
                rc = vfail(err, errlen,
                           "--vdist file:%s: line %ld, value %d: '%.40s' is not a non-negative "
                           "integer (bytes from rank %d to rank %d)",
                           path, lineno, cols + 1, tok, rows, cols);
                break;
            }
            errno = 0;
            unsigned long long v = strtoull(tok, NULL, 10);
            if (errno || v > (unsigned long long)INT_MAX) {
                rc = vfail(err, errlen,
                           "--vdist file:%s: line %ld, value %d: %.40s is too large (MPI int "
                           "counts: at most %d)",
                           path, lineno, cols + 1, tok, INT_MAX);
                break;
            }
            *p = save;
            if (rows < P && cols < P)
                mat[(size_t)rows * (size_t)P + (size_t)cols] = (int)v;
            cols++;
        }
        if (rc)
            break;
        if (cols == 0)
            continue; /* blank or comment */
        if (cols != P) {
            rc = vfail(err, errlen,
                       "--vdist file:%s: line %ld (row %d) has %d value%s, expected %d: the "
                       "file must be a %d x %d matrix for %d ranks",
                       path, lineno, rows, cols, cols == 1 ? "" : "s", P, P, P, P);
            break;
        }
        if (++rows > P) {
            rc = vfail(err, errlen,
                       "--vdist file:%s: line %ld: more than %d rows: the file must be a %d x "
                       "%d matrix for %d ranks",
                       path, lineno, P, P, P, P);
            break;
        }
    }
    if (!rc && ferror(f))
        rc = vfail(err, errlen, "--vdist file:%s: read error: %s", path, strerror(errno));
    if (!rc && rows < P)
        rc = vfail(err, errlen,
                   "--vdist file:%s: %d row%s, expected %d: the file must be a %d x %d matrix "
                   "for %d ranks",
                   path, rows, rows == 1 ? "" : "s", P, P, P, P);
    free(line);
    fclose(f);
    for (int i = 0; i < P && !rc; i++) {
        unsigned long long rs = 0, cs = 0;
        for (int j = 0; j < P; j++) {
            rs += (unsigned long long)mat[(size_t)i * (size_t)P + (size_t)j];
            cs += (unsigned long long)mat[(size_t)j * (size_t)P + (size_t)i];
        }
        if (rs > (unsigned long long)INT_MAX)
            rc = vfail(err, errlen,
                       "--vdist file:%s: row %d sums to %llu bytes, more than rank %d can send "
                       "(MPI int displacements: at most %d)",
                       path, i, rs, i, INT_MAX);
        else if (cs > (unsigned long long)INT_MAX)
            rc = vfail(err, errlen,
                       "--vdist file:%s: column %d sums to %llu bytes, more than rank %d can "
                       "receive (MPI int displacements: at most %d)",
                       path, i, cs, i, INT_MAX);
    }
    return rc;
}

/* FNV-1a 64 of the matrix written canonically: each row's decimal values
 * separated by one space, each row ended by a newline, no comments. */
static uint64_t matrix_hash(const int *mat, int P)
{
    uint64_t h = 0xcbf29ce484222325ull;
    char buf[16];
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            int n = snprintf(buf, sizeof buf, "%d%c", mat[(size_t)i * (size_t)P + (size_t)j],
                             j + 1 < P ? ' ' : '\n');
            for (int k = 0; k < n; k++) {
                h ^= (unsigned char)buf[k];
                h *= 0x100000001b3ull;
            }
        }
    return h;
}

int bench_vdist_load(bench_opts_t *o, MPI_Comm comm, char *err, size_t errlen)
{
    if (o->vdist != VDIST_FILE)
        return 0;
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    o->vrank = rank;
    int *mat = NULL, *tr = NULL;
    /* status[0]: 0 ok, 2 error (rank 0's message), 3 out of memory */
    int status = 0;
    err[0] = '\0';
    if (rank == 0) {
        size_t n = (size_t)P * (size_t)P;
        mat = malloc(sizeof(int) * n);
        tr = malloc(sizeof(int) * n);
        if (!mat || !tr)
            status = vfail(err, errlen, "--vdist file:%s: out of memory for a %d x %d matrix",
                           o->vdist_path, P, P);
        else
            status = read_matrix(o->vdist_path, P, mat, err, errlen);
    }
    o->vrow = malloc(sizeof(int) * (size_t)P);
    o->vcol = malloc(sizeof(int) * (size_t)P);
    int mine = (!o->vrow || !o->vcol) ? 2 : 0, any = 0;
    PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    PMPI_Bcast(&status, 1, MPI_INT, 0, comm);
    if (any && !status) {
        status = 2;
        vfail(err, errlen, "--vdist file:%s: out of memory for a row of %d counts",
              o->vdist_path, P);
    }
    if (status) {
        free(mat);
        free(tr);
        free(o->vrow);
        free(o->vcol);
        o->vrow = o->vcol = NULL;
        return 2;
    }
    unsigned long long summary[3] = {0, 0, 0}; /* sum, max, hash */
    if (rank == 0) {
        int mx = 0;
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                int v = mat[(size_t)i * (size_t)P + (size_t)j];
                summary[0] += (unsigned long long)v;
                if (v > mx)
                    mx = v;
                tr[(size_t)j * (size_t)P + (size_t)i] = v;
            }
        summary[1] = (unsigned long long)mx;
        summary[2] = matrix_hash(mat, P);
    }
    PMPI_Bcast(summary, 3, MPI_UNSIGNED_LONG_LONG, 0, comm);
    PMPI_Scatter(mat, P, MPI_INT, o->vrow, P, MPI_INT, 0, comm);
    PMPI_Scatter(tr, P, MPI_INT, o->vcol, P, MPI_INT, 0, comm);
    free(mat);
    free(tr);
    o->vsum = summary[0];
    o->vmax = (int)summary[1];
    o->vhash = (uint64_t)summary[2];
    /* one size, the largest entry: what the table's Size column shows */
    o->min_size = o->max_size = (size_t)o->vmax;
    return 0;
}

int bench_layout_init(bench_layout_t *l, const bench_opts_t *o, size_t m, int nranks, int rank)
{
    memset(l, 0, sizeof *l);
    l->coll = o->coll;
    l->m = m;
    l->nranks = nranks;
    l->rank = rank;
    l->root = o->root;
    size_t P = (size_t)nranks;
    switch (o->coll) {
    case PACOLL_ALLTOALL:
        l->send_bytes = l->recv_bytes = P * m;
        break;
    case PACOLL_ALLGATHER:
        l->send_bytes = m;
        l->recv_bytes = P * m;
        break;
    case PACOLL_GATHER:
        l->send_bytes = m;
        l->recv_bytes = rank == o->root ? P * m : 0;
        break;
    case PACOLL_ALLTOALLV: {
        l->scounts = malloc(sizeof(int) * P);
        l->sdispls = malloc(sizeof(int) * P);
        l->rcounts = malloc(sizeof(int) * P);
        l->rdispls = malloc(sizeof(int) * P);
        if (!l->scounts || !l->sdispls || !l->rcounts || !l->rdispls) {
            bench_layout_free(l);
            return -1;
        }
        size_t so = 0, ro = 0;
        for (int p = 0; p < nranks; p++) {
            l->scounts[p] = bench_vdist_count(o, m, nranks, rank, p);
            l->rcounts[p] = bench_vdist_count(o, m, nranks, p, rank);
            l->sdispls[p] = (int)so; /* <= INT_MAX: bench_validate, bench_vdist_load */
            l->rdispls[p] = (int)ro;
            so += (size_t)l->scounts[p];
            ro += (size_t)l->rcounts[p];
        }
        l->send_bytes = so;
        l->recv_bytes = ro;
        break;
    }
    default: return -1;
    }
    return 0;
}

void bench_layout_free(bench_layout_t *l)
{
    free(l->scounts);
    free(l->sdispls);
    free(l->rcounts);
    free(l->rdispls);
    l->scounts = l->sdispls = l->rcounts = l->rdispls = NULL;
}

static size_t page_round(size_t bytes)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t p = pg > 0 ? (size_t)pg : 4096;
    if (bytes == 0)
        bytes = 1;
    return (bytes + p - 1) / p * p;
}

void *bench_buf_alloc(size_t bytes, int fresh)
{
    if (fresh) {
        /* A new anonymous mapping: no page of it exists until touched. */
        void *p = mmap(NULL, page_round(bytes), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1))
        return NULL;
    return p;
}

void bench_buf_free(void *p, size_t bytes, int fresh)
{
    if (!p)
        return;
    if (fresh)
        munmap(p, page_round(bytes));
    else
        free(p);
}

/* The byte that rank s sends to rank d at offset k of that block: never 0,
 * so an untouched (zero) or cleared receive buffer never passes. */
static inline unsigned char pat(int s, int d, size_t k)
{
    uint32_t x = (uint32_t)s * 0x9E3779B1u ^ (uint32_t)d * 0x85EBCA77u ^
                 (uint32_t)k * 0xC2B2AE3Du ^ (uint32_t)((uint64_t)k >> 32);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (unsigned char)(1u + x % 255u);
}

static void fill_block(unsigned char *p, size_t n, int s, int d)
{
    for (size_t k = 0; k < n; k++)
        p[k] = pat(s, d, k);
}

void bench_fill_send(const bench_layout_t *l, unsigned char *sb)
{
    switch (l->coll) {
    case PACOLL_ALLTOALL:
        for (int d = 0; d < l->nranks; d++)
            fill_block(sb + (size_t)d * l->m, l->m, l->rank, d);
        break;
    case PACOLL_ALLTOALLV:
        for (int d = 0; d < l->nranks; d++)
            fill_block(sb + l->sdispls[d], (size_t)l->scounts[d], l->rank, d);
        break;
    default: /* allgather, gather: one block for everyone */
        fill_block(sb, l->m, l->rank, -1);
        break;
    }
}

void bench_expected(const bench_layout_t *l, unsigned char *out)
{
    switch (l->coll) {
    case PACOLL_ALLTOALL:
        for (int s = 0; s < l->nranks; s++)
            fill_block(out + (size_t)s * l->m, l->m, s, l->rank);
        break;
    case PACOLL_ALLTOALLV:
        for (int s = 0; s < l->nranks; s++)
            fill_block(out + l->rdispls[s], (size_t)l->rcounts[s], s, l->rank);
        break;
    default:
        if (l->recv_bytes)
            for (int s = 0; s < l->nranks; s++)
                fill_block(out + (size_t)s * l->m, l->m, s, -1);
        break;
    }
}

size_t bench_check_send(const bench_layout_t *l, const unsigned char *sb)
{
    size_t bad = 0;
    switch (l->coll) {
    case PACOLL_ALLTOALL:
        for (int d = 0; d < l->nranks; d++)
            for (size_t k = 0; k < l->m; k++)
                bad += sb[(size_t)d * l->m + k] != pat(l->rank, d, k);
        break;
    case PACOLL_ALLTOALLV:
        for (int d = 0; d < l->nranks; d++)
            for (size_t k = 0; k < (size_t)l->scounts[d]; k++)
                bad += sb[(size_t)l->sdispls[d] + k] != pat(l->rank, d, k);
        break;
    default:
        for (size_t k = 0; k < l->m; k++)
            bad += sb[k] != pat(l->rank, -1, k);
        break;
    }
    return bad;
}

/* Which source block an offset of the receive buffer belongs to. */
static void locate(const bench_layout_t *l, size_t off, int *src, size_t *k)
{
    if (l->coll == PACOLL_ALLTOALLV) {
        for (int s = l->nranks - 1; s >= 0; s--)
            if ((size_t)l->rdispls[s] <= off && l->rcounts[s] > 0) {
                *src = s;
                *k = off - (size_t)l->rdispls[s];
                return;
            }
        *src = -1;
        *k = off;
        return;
    }
    *src = l->m ? (int)(off / l->m) : -1;
    *k = l->m ? off % l->m : off;
}

size_t bench_compare(const bench_layout_t *l, const unsigned char *rb, const unsigned char *ref,
                     const char *label)
{
    if (!l->recv_bytes || !memcmp(rb, ref, l->recv_bytes))
        return 0;
    size_t bad = 0, first = SIZE_MAX;
    for (size_t i = 0; i < l->recv_bytes; i++)
        if (rb[i] != ref[i]) {
            if (first == SIZE_MAX)
                first = i;
            bad++;
        }
    if (label) {
        int src;
        size_t k;
        locate(l, first, &src, &k);
        fprintf(stderr,
                "pacoll-bench: CHECK FAILED rank %d: %s: %zu of %zu bytes wrong; first at byte "
                "%zu (from rank %d, offset %zu): got 0x%02x, expected 0x%02x\n",
                l->rank, label, bad, l->recv_bytes, first, src, k, rb[first], ref[first]);
    }
    return bad;
}

int bench_icall(const bench_layout_t *l, const char *algo, const void *sb, void *rb,
                MPI_Comm comm, MPI_Request *req)
{
    int cnt = (int)l->m;
    switch (l->coll) {
    case PACOLL_ALLTOALL:
        return algo ? pacoll_ialltoall(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm, req)
                    : PMPI_Ialltoall(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm, req);
    case PACOLL_ALLTOALLV:
        return algo ? pacoll_ialltoallv(sb, l->scounts, l->sdispls, MPI_BYTE, rb, l->rcounts,
                                        l->rdispls, MPI_BYTE, comm, req)
                    : PMPI_Ialltoallv(sb, l->scounts, l->sdispls, MPI_BYTE, rb, l->rcounts,
                                      l->rdispls, MPI_BYTE, comm, req);
    case PACOLL_ALLGATHER:
        return algo ? pacoll_iallgather(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm, req)
                    : PMPI_Iallgather(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm, req);
    case PACOLL_GATHER:
        return algo ? pacoll_igather(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, l->root, comm, req)
                    : PMPI_Igather(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, l->root, comm, req);
    default: return MPI_ERR_ARG;
    }
}

int bench_call(const bench_layout_t *l, const char *algo, const void *sb, void *rb,
               MPI_Comm comm)
{
    int cnt = (int)l->m; /* <= INT_MAX by bench_validate */
    switch (l->coll) {
    case PACOLL_ALLTOALL:
        if (!algo)
            return PMPI_Alltoall(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm);
        return pacoll_alltoall_alg(algo, sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm);
    case PACOLL_ALLTOALLV:
        if (!algo)
            return PMPI_Alltoallv(sb, l->scounts, l->sdispls, MPI_BYTE, rb, l->rcounts,
                                  l->rdispls, MPI_BYTE, comm);
        return pacoll_alltoallv_alg(algo, sb, l->scounts, l->sdispls, MPI_BYTE, rb, l->rcounts,
                                    l->rdispls, MPI_BYTE, comm);
    case PACOLL_ALLGATHER:
        if (!algo)
            return PMPI_Allgather(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm);
        return pacoll_allgather_alg(algo, sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, comm);
    case PACOLL_GATHER:
        if (!algo)
            return PMPI_Gather(sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, l->root, comm);
        return pacoll_gather_alg(algo, sb, cnt, MPI_BYTE, rb, cnt, MPI_BYTE, l->root, comm);
    default: return MPI_ERR_ARG;
    }
}
