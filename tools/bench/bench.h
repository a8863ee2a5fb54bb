/*
 * pacoll-bench: shared declarations of the benchmark's pieces.
 *
 *   pacoll-bench.c   main: set-up, the measurement loop, skew injection, clocks
 *   bench_options.c  the command line (hand-written parser, --help, --list)
 *   bench_coll.c     buffers, patterns, the collective calls, --check, --vdist
 *   bench_report.c   statistics over ranks and repeats, text and JSON output
 *
 * No mutable global state: under SMPI every rank is a thread of one process.
 */
#ifndef PACOLL_BENCH_H
#define PACOLL_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pacoll.h"

#define BENCH_MAX_ALGOS 64
#define BENCH_NAME_LEN 64
#define BENCH_MAX_SIZES 64

/* Exit codes. */
#define BENCH_EXIT_OK 0
#define BENCH_EXIT_CHECK 1 /* --check found a wrong result */
#define BENCH_EXIT_USAGE 2 /* bad command line */
#define BENCH_EXIT_FAIL 3  /* a collective returned an error, out of memory, I/O */

enum bench_skew {
    SKEW_NONE = 0,          /* no injected delay */
    SKEW_RANDOM = 1,        /* every rank: uniform in [0, MIF x T(m)] */
    SKEW_LATE_FRACTION = 2, /* a random fraction F of ranks: MIF x T(m) */
    SKEW_LATE_RANKS = 3     /* a fixed list of ranks: MIF x T(m) */
};

/* alltoallv count distributions; count(s, d) must be computable on any rank
 * from (seed, size, s, d) alone, so that send and receive counts agree. */
enum bench_vdist {
    VDIST_UNIFORM = 0, /* every count = size */
    VDIST_RANDOM = 1,  /* uniform random in [0, size] */
    VDIST_ZIPF = 2,    /* floor(size / k^S), k = the pair's place in a seeded permutation */
    VDIST_FILE = 3     /* a P x P matrix from a file (--sizes ignored) */
};

#define BENCH_ZIPF_DEFAULT_S 1.2

enum bench_clock {
    CLOCK_AUTO = 0,   /* global if MPI_WTIME_IS_GLOBAL, else node if one host, else sync */
    CLOCK_GLOBAL = 1, /* trust MPI_Wtime to be one clock (SMPI) */
    CLOCK_NODE = 2,   /* all ranks on one host: its clock is shared */
    CLOCK_SYNC = 3    /* estimate each rank's offset to rank 0 by ping-pong, per size */
};

typedef struct bench_opts {
    int have_coll;
    pacoll_coll_t coll;
    int nalgos; /* 0: native + every registered algorithm */
    char algos[BENCH_MAX_ALGOS][BENCH_NAME_LEN];
    char baseline[BENCH_NAME_LEN]; /* "" = the first algorithm */
    int list, help, version;
    size_t min_size, max_size;
    long iters, warmup;
    size_t budget; /* iterations x bytes per peer bound; 0 = never scale */
    int repeat;
    int check, no_reuse;
    int nonblocking;          /* --nonblocking: MPI_I<coll> ... MPI_Wait */
    double compute;           /* --nonblocking's computation between them, seconds */
    int sim_shared; /* --sim-shared-buffers (SMPI only) */
    int root;
    double mif;
    double late_fraction;
    enum bench_skew skew;
    int *late_ranks; /* malloc'd, nlate_ranks entries, as given */
    int nlate_ranks;
    uint64_t seed;
    enum bench_vdist vdist;
    double zipf_s;          /* --vdist zipf[:S] exponent */
    const char *vdist_path; /* --vdist file:PATH (points into argv) */
    /* --vdist file, filled by bench_vdist_load: this rank's row (send counts)
     * and column (receive counts) of the matrix, and the matrix' summary */
    int *vrow, *vcol;
    int vrank;
    unsigned long long vsum;
    int vmax;
    uint64_t vhash; /* FNV-1a 64 of the canonical text (docs/BENCH.md) */
    const char *json_path; /* NULL: no JSON */
    int argc;              /* the command line, recorded in the JSON */
    char **argv;
    enum bench_clock clock;
    int pp_peer;
    int quiet;
    int loop; /* --loop: no barrier between calls */
} bench_opts_t;

/* ---- options (bench_options.c) ---- */
/* Returns 0 to run, 1 to stop successfully (--help/--version), 2 on a usage
 * error with the message in err.  Every rank parses the same argv, so every
 * rank takes the same branch: no rank is left waiting in MPI. */
int bench_parse(int argc, char **argv, bench_opts_t *o, char *err, size_t errlen);
/* Checks that need the number of ranks; 0 or 2 with a message. */
int bench_validate(bench_opts_t *o, int nranks, char *err, size_t errlen);
/* Fills o->algos when none were given and checks every name against the
 * registry; 0 or 2 with a message. */
int bench_resolve_algos(bench_opts_t *o, char *err, size_t errlen);
void bench_usage(FILE *f);
void bench_print_list(FILE *f, int have_coll, pacoll_coll_t coll);
/* "native, direct, ...": the algorithm names valid for coll, each once. */
const char *bench_algo_names(pacoll_coll_t coll, char *buf, size_t len);
void bench_free_opts(bench_opts_t *o);
const char *bench_coll_str(pacoll_coll_t c);
const char *bench_skew_str(enum bench_skew s);
const char *bench_vdist_str(enum bench_vdist v);
const char *bench_clock_str(enum bench_clock c);
/* The list of sizes: min, 2 min, 4 min ... <= max (0 is followed by 1). */
int bench_sizes(const bench_opts_t *o, size_t *sizes, int max);
/* Iterations and warm-up at this size (scaled down by the budget). */
void bench_iters_at(const bench_opts_t *o, size_t bytes, long *iters, long *warmup);

/* ---- random numbers: splitmix64 to seed, xoshiro256** streams ---- */
typedef struct bench_rng {
    uint64_t s[4];
} bench_rng_t;

static inline uint64_t bench_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A well-mixed 64-bit hash of up to four words (counter-based draws). */
static inline uint64_t bench_hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t x = a;
    uint64_t h = bench_splitmix64(&x);
    x = h ^ b;
    h = bench_splitmix64(&x);
    x = h ^ c;
    h = bench_splitmix64(&x);
    x = h ^ d;
    return bench_splitmix64(&x);
}

static inline void bench_rng_seed(bench_rng_t *r, uint64_t key)
{
    uint64_t x = key;
    for (int i = 0; i < 4; i++)
        r->s[i] = bench_splitmix64(&x);
}

static inline uint64_t bench_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t bench_rng_next(bench_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = bench_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = bench_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1). */
static inline double bench_rng_double(bench_rng_t *r)
{
    return (double)(bench_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n] (n + 1 values), n < 2^63. */
static inline uint64_t bench_rng_upto(bench_rng_t *r, uint64_t n)
{
    if (n == UINT64_MAX)
        return bench_rng_next(r);
    uint64_t range = n + 1, lim = UINT64_MAX - UINT64_MAX % range, x;
    do {
        x = bench_rng_next(r);
    } while (x >= lim);
    return x % range;
}

/* ---- collectives (bench_coll.c) ---- */
typedef struct bench_layout {
    pacoll_coll_t coll;
    size_t m; /* bytes per peer (alltoallv: the maximum) */
    int nranks, rank, root;
    size_t send_bytes, recv_bytes; /* recv_bytes is 0 on a gather non-root */
    int *scounts, *sdispls, *rcounts, *rdispls; /* alltoallv only (bytes) */
} bench_layout_t;

int bench_layout_init(bench_layout_t *l, const bench_opts_t *o, size_t m, int nranks, int rank);
void bench_layout_free(bench_layout_t *l);
/* alltoallv count from s to d at size m (same value on every rank).  With
 * --vdist file only this rank's row and column are known (s or d = its rank). */
int bench_vdist_count(const bench_opts_t *o, size_t m, int nranks, int s, int d);
/* --vdist file: rank 0 reads and checks the matrix, every rank gets its row
 * and column; sets min_size = max_size = the largest entry.  Collective over
 * comm; returns 0, or 2 with the message in err (meaningful on rank 0) on
 * every rank.  Does nothing for the other distributions. */
int bench_vdist_load(bench_opts_t *o, MPI_Comm comm, char *err, size_t errlen);

/* A buffer: fresh = a new anonymous mapping no one has touched. */
void *bench_buf_alloc(size_t bytes, int fresh);
void bench_buf_free(void *p, size_t bytes, int fresh);

/* The send pattern of this rank (distinct per rank, peer and offset; never 0). */
void bench_fill_send(const bench_layout_t *l, unsigned char *sb);
/* Counts the bytes of rb that differ from ref; reports the first one on
 * stderr with what it means (source rank, offset) when label is not NULL. */
size_t bench_compare(const bench_layout_t *l, const unsigned char *rb, const unsigned char *ref,
                     const char *label);
/* The expected receive buffer computed from the patterns, no MPI involved. */
void bench_expected(const bench_layout_t *l, unsigned char *out);
/* Checks that the send buffer still holds this rank's pattern. */
size_t bench_check_send(const bench_layout_t *l, const unsigned char *sb);

/* algo: NULL for the PMPI reference, else the name passed to pacoll_*_alg. */
/* The nonblocking call (--nonblocking): algo NULL for the MPI library's
 * own; pacoll's is the communicator's choice (pacoll_comm_set_algorithm). */
int bench_icall(const bench_layout_t *l, const char *algo, const void *sb, void *rb,
                MPI_Comm comm, MPI_Request *req);
int bench_call(const bench_layout_t *l, const char *algo, const void *sb, void *rb,
               MPI_Comm comm);

/* ---- statistics and reports (bench_report.c) ---- */
/* One block = (size, repeat, algorithm): iters timed iterations. */
typedef struct bench_block {
    double avg_us, min_us, max_us; /* over ranks of each rank's mean time in the call */
    double l2l_us;                 /* mean over iterations: last exit - last arrival */
    double span_us;                /* mean over iterations: last exit - first arrival */
    double imb_us;                 /* mean over iterations: max - min arrival (theta) */
    double dbar_us;                /* mean over iterations: mean |a_i - mean a| */
    double *rank_us;               /* per rank mean time in the call (root only) */
} bench_block_t;

typedef struct bench_env {
    int nranks, nnodes, rank;
    char mpi_library[512]; /* first line of MPI_Get_library_version */
    char mpi_library_full[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int mpi_version, mpi_subversion;
    char host[256]; /* rank 0's hostname, or "smpi" */
    const char *engine;
    enum bench_clock clock; /* resolved */
    int wtime_is_global;
} bench_env_t;

typedef struct bench_size_result {
    size_t bytes;
    long iters, warmup;
    double tm_us;
    int nalgos, repeat, nranks;
    char ran[BENCH_MAX_ALGOS][BENCH_NAME_LEN]; /* what pacoll actually ran */
    unsigned long long errors[BENCH_MAX_ALGOS];
    bench_block_t *blocks; /* [algo * repeat + rep] */
} bench_size_result_t;

/* Collective over comm: reduces one block's samples (arrival and exit times on
 * the common clock) onto root 0. */
void bench_reduce_block(const double *arr, const double *ext, long n, MPI_Comm comm,
                        bench_block_t *out);

void bench_print_header(FILE *f, const bench_opts_t *o, const bench_env_t *e);
void bench_print_size(FILE *f, const bench_opts_t *o, const bench_size_result_t *r);
void bench_print_footer(FILE *f, const bench_opts_t *o, unsigned long long errors, int fallbacks);

void bench_json_begin(FILE *f, const bench_opts_t *o, const bench_env_t *e);
void bench_json_size(FILE *f, const bench_opts_t *o, const bench_size_result_t *r, int first);
void bench_json_end(FILE *f, unsigned long long errors, double wall_s);

#endif /* PACOLL_BENCH_H */
