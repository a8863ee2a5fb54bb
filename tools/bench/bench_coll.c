/*
 * pacoll-bench: buffers, data patterns, the collective calls, result checks
 * and the alltoallv count distributions.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

/* ---- alltoallv counts ----
 * count(s, d) is a pure function of (options, size, s, d): every rank computes
 * its own row (send counts) and column (receive counts) in O(P), and they agree
 * without any communication or a P x P matrix.  A new distribution is one more
 * case here (zipf: a rank-popularity law from the seed; file: a matrix read
 * once per rank, row and column only). */
int bench_vdist_count(const bench_opts_t *o, size_t m, int s, int d)
{
    switch (o->vdist) {
    case VDIST_RANDOM:
        if (m == 0)
            return 0;
        return (int)(bench_hash4(o->seed, 0x76646973ull /* "vdis" */ ^ ((uint64_t)m << 32),
                                 (uint64_t)s, (uint64_t)d) %
                     ((uint64_t)m + 1));
    case VDIST_UNIFORM:
    default: return (int)m;
    }
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
            l->scounts[p] = bench_vdist_count(o, m, rank, p);
            l->rcounts[p] = bench_vdist_count(o, m, p, rank);
            l->sdispls[p] = (int)so; /* <= P * m <= INT_MAX, checked by bench_validate */
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
