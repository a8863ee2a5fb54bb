/*
 * pacoll-bench: the command line.
 *
 * A small hand-written parser (smpicc turns getopt into a macro of its own):
 * "--name value" and "--name=value", one positional COLLECTIVE.  Every rank
 * parses the same argv and reaches the same verdict, so an error never leaves
 * a rank waiting in MPI; only rank 0 prints.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DEFAULT_ITERS 100
#define DEFAULT_WARMUP 10
#define DEFAULT_BUDGET (16u << 20) /* iterations x bytes per peer */
#define MIN_SCALED_ITERS 5

static const char *const coll_names[PACOLL_NCOLL] = {"alltoall", "alltoallv", "allgather",
                                                      "gather"};

const char *bench_coll_str(pacoll_coll_t c)
{
    return (c >= 0 && c < PACOLL_NCOLL) ? coll_names[c] : "?";
}

const char *bench_skew_str(enum bench_skew s)
{
    switch (s) {
    case SKEW_RANDOM: return "random";
    case SKEW_LATE_FRACTION: return "late_fraction";
    case SKEW_LATE_RANKS: return "late_ranks";
    default: return "none";
    }
}

const char *bench_vdist_str(enum bench_vdist v)
{
    switch (v) {
    case VDIST_RANDOM: return "random";
    case VDIST_ZIPF: return "zipf";
    case VDIST_FILE: return "file";
    default: return "uniform";
    }
}

const char *bench_clock_str(enum bench_clock c)
{
    switch (c) {
    case CLOCK_GLOBAL: return "global";
    case CLOCK_NODE: return "node";
    case CLOCK_SYNC: return "sync";
    default: return "auto";
    }
}

void bench_usage(FILE *f)
{
    fputs(
        "usage: pacoll-bench COLLECTIVE [options]\n"
        "       pacoll-bench --list [COLLECTIVE]\n"
        "\n"
        "Times pacoll's algorithms (and the MPI library's own, \"native\") for one\n"
        "collective, interleaved size by size, with optional arrival skew.\n"
        "COLLECTIVE: alltoall | alltoallv | allgather | gather\n"
        "Options take their value as \"--opt VALUE\" or \"--opt=VALUE\".\n"
        "\n"
        "Algorithms\n"
        "  --algos A,B,...    algorithms to compare, run through pacoll_<coll>_alg;\n"
        "                     \"native\" is the MPI library's own collective (handed over\n"
        "                     by pacoll, as PACOLL_<COLL>=native does), \"auto\" what a\n"
        "                     program gets by default (pacoll's choice; the table and\n"
        "                     the JSON say which algorithm ran, per size).\n"
        "                     default: native, auto and every algorithm registered for\n"
        "                     COLLECTIVE\n"
        "  --baseline NAME    the algorithm the speedup column compares with (default: the first)\n"
        "  --list             print the registered algorithms (name, collective, needs,\n"
        "                     source, summary) and exit; COLLECTIVE, if given, filters\n"
        "\n"
        "Sizes and iterations\n"
        "  --sizes MIN:MAX    bytes per peer, MIN, 2*MIN, 4*MIN ... up to MAX (default 1:1M);\n"
        "                     a single value runs one size; suffixes k/K = 2^10, m/M = 2^20,\n"
        "                     g/G = 2^30; 0 is followed by 1\n"
        "  --iters N          timed iterations per block (default 100)\n"
        "  --warmup N         untimed iterations before them (default 10)\n"
        "  --budget BYTES     above BYTES/N bytes per peer, iterations (and warm-up in\n"
        "                     proportion) are scaled down so iterations x bytes <= BYTES,\n"
        "                     but never below 5 (default 16M; 0 = never scale)\n"
        "  --repeat R         run every (size, algorithm) block R times, interleaved\n"
        "                     A B A B ...; report the median and min/max over the R (default 1)\n"
        "  --nonblocking US   time MPI_I<coll>, US microseconds of computation (no MPI\n"
        "                     call), then MPI_Wait, from the start to the wait's return:\n"
        "                     with US 0 and again with US about that time, the share of\n"
        "                     the computation the collective hides (docs/BENCH.md);\n"
        "                     pacoll's algorithms are the communicator's choice\n"
        "  --loop             back-to-back calls, no barrier between them, as IMB, OSU and\n"
        "                     applications call; one barrier before each block (default:\n"
        "                     a barrier before every call, which the skew options need)\n"
        "\n"
        ,
        f);
    fputs(
        "Arrival skew (pap-aware paper, sec. 3.2 and 6)\n"
        "  Before every iteration all ranks meet in PMPI_Barrier, then each one computes\n"
        "  for a delay before calling the collective. T(m) is the one-way time of one\n"
        "  message of m bytes, measured by ping-pong between rank 0 and --pp-peer at\n"
        "  start-up of each size.\n"
        "  --mif X            maximum imbalance factor: delay uniform in [0, X*T(m)] on\n"
        "                     every rank (default 0: no delay)\n"
        "  --late F           instead: a fraction F in [0,1] of the ranks, drawn anew each\n"
        "                     iteration, arrive X*T(m) late (needs --mif X > 0)\n"
        "  --late-ranks LIST  instead: these ranks (e.g. 0,3,8-11) arrive X*T(m) late\n"
        "  --seed S           seed of every random draw (default 1); per-rank streams\n"
        "                     come from (seed, rank, size, repeat), so every algorithm\n"
        "                     of a repeat sees the same arrival pattern\n"
        "  --pp-peer R        rank that rank 0 ping-pongs with to measure T(m) (default 1)\n"
        "\n"
        "Data\n"
        "  --check            validate every result against a PMPI_* reference (itself\n"
        "                     checked against the expected data), per-rank patterns;\n"
        "                     exit status 1 on any mismatch\n"
        "  --no-reuse         a fresh, never-touched mapping for every iteration's buffers\n"
        "                     (the send buffer is filled, the receive buffer is touched\n"
        "                     only by the collective)\n"
        "  --sim-shared-buffers  under SMPI: every rank's send and receive buffers are\n"
        "                     one block of memory (SMPI_SHARED_MALLOC), so thousands of\n"
        "                     simulated ranks fit in memory; the data is meaningless,\n"
        "                     so not with --check or --no-reuse\n"
        "  --root R           root of gather (default 0)\n",
        f);
    fputs( /* two pieces: ISO C's 4095-character limit for a string literal */
        "  --vdist D          alltoallv counts (default uniform):\n"
        "                     uniform    every count = size\n"
        "                     random     uniform in [0,size], the same matrix on every\n"
        "                                rank from the seed\n"
        "                     zipf[:S]   heavy-tailed: count = floor(size / k^S), k = the\n"
        "                                pair's place 1..P^2 in a permutation drawn from\n"
        "                                the seed (S > 0, default 1.2)\n"
        "                     file:PATH  a P x P matrix of bytes (row = sender, column =\n"
        "                                receiver; '#' comments), read by rank 0; --sizes\n"
        "                                is ignored: one row, labelled with the largest\n"
        "                                entry\n"
        "\n"
        "Output\n"
        "  --json FILE        write settings, environment and every statistic to FILE\n"
        "  --clock C          common clock for arrival/exit: auto, global, node, sync\n"
        "                     (default auto: global if MPI_WTIME_IS_GLOBAL, node if all\n"
        "                     ranks share one host, else sync = offsets to rank 0 estimated\n"
        "                     by ping-pong before each size)\n"
        "  --quiet            no text table (the JSON file is still written)\n"
        "  --version          print the versions and exit\n"
        "  -h, --help         this text\n"
        "\n"
        "Exit status: 0 ok, 1 --check found a wrong result, 2 bad command line,\n"
        "3 a collective failed. See docs/BENCH.md.\n",
        f);
}

static const char *needs_str(unsigned needs, char *buf, size_t len)
{
    static const char *const names[] = {"rma", "shm", "pow2", "multinode"};
    buf[0] = '\0';
    for (unsigned i = 0; i < 4; i++) {
        if (needs & (1u << i)) {
            if (buf[0])
                strncat(buf, ",", len - strlen(buf) - 1);
            strncat(buf, names[i], len - strlen(buf) - 1);
        }
    }
    if (!buf[0])
        snprintf(buf, len, "-");
    return buf;
}

/* "native, auto, direct, ...": the names valid for coll, each once.  The
 * registry lists native itself; it comes first here whether registered or
 * not, then auto (pacoll's own choice). */
const char *bench_algo_names(pacoll_coll_t coll, char *buf, size_t len)
{
    int n = pacoll_algorithm_count();
    snprintf(buf, len, "native, auto");
    for (int i = 0; i < n; i++) {
        pacoll_algo_info_t info;
        size_t used = strlen(buf);
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && info.coll == coll && info.name &&
            strcmp(info.name, "native") != 0 && used + strlen(info.name) + 3 < len)
            snprintf(buf + used, len - used, ", %s", info.name);
    }
    return buf;
}

void bench_print_list(FILE *f, int have_coll, pacoll_coll_t coll)
{
    int n = pacoll_algorithm_count();
    fprintf(f, "%-16s %-10s %-14s %s\n%-16s %s\n", "# name", "collective", "needs", "summary", "#",
            "source");
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        if (have_coll && (pacoll_coll_t)c != coll)
            continue;
        int has_native = 0;
        for (int i = 0; i < n; i++) {
            pacoll_algo_info_t info;
            if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && info.coll == (pacoll_coll_t)c &&
                info.name && !strcmp(info.name, "native"))
                has_native = 1;
        }
        if (!has_native)
            fprintf(f, "%-16s %-10s %-14s %s\n%-16s %s\n", "native", coll_names[c], "-",
                    "the MPI library's own collective (PMPI)", "", "MPI library");
        for (int i = 0; i < n; i++) {
            pacoll_algo_info_t info;
            char nb[64];
            if (pacoll_algorithm_info(i, &info) != MPI_SUCCESS || info.coll != (pacoll_coll_t)c)
                continue;
            fprintf(f, "%-16s %-10s %-14s %s\n%-16s %s\n", info.name ? info.name : "?",
                    coll_names[c], needs_str(info.needs, nb, sizeof nb),
                    info.summary ? info.summary : "", "",
                    info.source && info.source[0] ? info.source : "-");
        }
    }
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* A byte count with an optional k/K, m/M, g/G (binary) suffix. */
static int parse_bytes(const char *s, size_t *out)
{
    char *end;
    if (!s || !*s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned long long mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        default: return -1;
        }
        end++;
        if (*end == 'b' || *end == 'B') /* tolerate "4KB" */
            end++;
        if (*end)
            return -1;
    }
    if (v > (unsigned long long)SIZE_MAX / mul || v * mul > (unsigned long long)INT_MAX)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

/* "0,3,8-11" -> malloc'd list */
static int parse_rank_list(const char *s, int **out, int *n)
{
    int cap = 16, cnt = 0;
    int *v = malloc(sizeof(int) * (size_t)cap);
    if (!v)
        return -1;
    const char *p = s;
    if (!*p)
        goto bad;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (errno || a > INT_MAX)
            goto bad;
        b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p))
                goto bad;
            b = strtol(p, &end, 10);
            if (errno || b > INT_MAX || b < a)
                goto bad;
            p = end;
        }
        if (b - a > 1000000)
            goto bad;
        for (long r = a; r <= b; r++) {
            if (cnt == cap) {
                cap *= 2;
                int *nv = realloc(v, sizeof(int) * (size_t)cap);
                if (!nv)
                    goto bad;
                v = nv;
            }
            v[cnt++] = (int)r;
        }
        if (*p == ',') {
            p++;
            if (!*p)
                goto bad;
        } else if (*p) {
            goto bad;
        }
    }
    *out = v;
    *n = cnt;
    return 0;
bad:
    free(v);
    return -1;
}

static int parse_algos(const char *s, bench_opts_t *o, char *err, size_t errlen)
{
    const char *p = s;
    o->nalgos = 0;
    if (!*s)
        return fail(err, errlen, "--algos: empty list");
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return fail(err, errlen, "--algos '%s': empty name", s);
        if (len >= BENCH_NAME_LEN)
            return fail(err, errlen, "--algos: name too long: '%.*s'", (int)len, p);
        if (o->nalgos == BENCH_MAX_ALGOS)
            return fail(err, errlen, "--algos: at most %d algorithms", BENCH_MAX_ALGOS);
        memcpy(o->algos[o->nalgos], p, len);
        o->algos[o->nalgos][len] = '\0';
        for (int i = 0; i < o->nalgos; i++)
            if (!strcmp(o->algos[i], o->algos[o->nalgos]))
                return fail(err, errlen, "--algos: '%s' is listed twice", o->algos[i]);
        o->nalgos++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

/* Options that take a value, in one table so that "--opt=value" and
 * "--opt value" are handled in one place. */
static const char *const valued[] = {"algos",  "baseline", "sizes", "iters", "warmup",
                                     "budget", "repeat",   "root",  "mif",   "late",
                                     "late-ranks", "seed", "vdist", "json",  "clock",
                                     "pp-peer", "nonblocking", NULL};

int bench_parse(int argc, char **argv, bench_opts_t *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->min_size = 1;
    o->max_size = 1u << 20;
    o->iters = DEFAULT_ITERS;
    o->warmup = DEFAULT_WARMUP;
    o->budget = DEFAULT_BUDGET;
    o->repeat = 1;
    o->seed = 1;
    o->pp_peer = 1;
    o->late_fraction = -1.0;
    err[0] = '\0';

    int late_given = 0, late_ranks_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (o->have_coll)
                return fail(err, errlen, "unexpected argument '%s' (collective already given: %s)",
                            a, coll_names[o->coll]);
            int c = -1;
            for (int k = 0; k < PACOLL_NCOLL; k++)
                if (!strcmp(a, coll_names[k]))
                    c = k;
            if (c < 0)
                return fail(err, errlen,
                            "unknown collective '%s' (alltoall, alltoallv, allgather, gather)", a);
            o->coll = (pacoll_coll_t)c;
            o->have_coll = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            continue;
        }
        if (a[1] != '-')
            return fail(err, errlen, "unknown option '%s' (see --help)", a);
        /* --name[=value] */
        char name[32];
        const char *eq = strchr(a + 2, '=');
        size_t nlen = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        if (nlen == 0 || nlen >= sizeof name)
            return fail(err, errlen, "unknown option '%s' (see --help)", a);
        memcpy(name, a + 2, nlen);
        name[nlen] = '\0';
        const char *val = NULL;
        int takes = 0;
        for (int k = 0; valued[k]; k++)
            if (!strcmp(name, valued[k]))
                takes = 1;
        if (takes) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                return fail(err, errlen, "option --%s needs a value (see --help)", name);
        } else if (eq) {
            return fail(err, errlen, "option --%s takes no value", name);
        }
        long lv;
        if (!strcmp(name, "list")) {
            o->list = 1;
        } else if (!strcmp(name, "version")) {
            o->version = 1;
        } else if (!strcmp(name, "check")) {
            o->check = 1;
        } else if (!strcmp(name, "no-reuse")) {
            o->no_reuse = 1;
        } else if (!strcmp(name, "sim-shared-buffers")) {
            o->sim_shared = 1;
        } else if (!strcmp(name, "quiet")) {
            o->quiet = 1;
        } else if (!strcmp(name, "loop")) {
            o->loop = 1;
        } else if (!strcmp(name, "nonblocking")) {
            double us;
            char *end;
            us = strtod(val, &end);
            if (end == val || *end || !(us >= 0) || us > 1e9)
                return fail(err, errlen, "--nonblocking: '%s' is not a number of microseconds", val);
            o->nonblocking = 1;
            o->compute = us * 1e-6;
        } else if (!strcmp(name, "algos")) {
            int rc = parse_algos(val, o, err, errlen);
            if (rc)
                return rc;
        } else if (!strcmp(name, "baseline")) {
            if (!*val || strlen(val) >= BENCH_NAME_LEN)
                return fail(err, errlen, "--baseline: bad name '%s'", val);
            strcpy(o->baseline, val);
        } else if (!strcmp(name, "sizes")) {
            const char *colon = strchr(val, ':');
            if (colon) {
                char lo[64];
                size_t l = (size_t)(colon - val);
                if (l >= sizeof lo)
                    return fail(err, errlen, "--sizes '%s': expected MIN:MAX", val);
                memcpy(lo, val, l);
                lo[l] = '\0';
                if (parse_bytes(lo, &o->min_size) || parse_bytes(colon + 1, &o->max_size))
                    return fail(err, errlen,
                                "--sizes '%s': expected MIN:MAX in bytes (suffix k, m, g; at "
                                "most 2^31-1)",
                                val);
            } else {
                if (parse_bytes(val, &o->min_size))
                    return fail(err, errlen,
                                "--sizes '%s': expected a size in bytes (suffix k, m, g; at most "
                                "2^31-1) or MIN:MAX",
                                val);
                o->max_size = o->min_size;
            }
            if (o->min_size > o->max_size)
                return fail(err, errlen, "--sizes '%s': MIN is larger than MAX", val);
        } else if (!strcmp(name, "iters")) {
            if (parse_long(val, 1, 100000000L, &o->iters))
                return fail(err, errlen, "--iters '%s': expected an integer >= 1", val);
        } else if (!strcmp(name, "warmup")) {
            if (parse_long(val, 0, 100000000L, &o->warmup))
                return fail(err, errlen, "--warmup '%s': expected an integer >= 0", val);
        } else if (!strcmp(name, "budget")) {
            if (parse_bytes(val, &o->budget))
                return fail(err, errlen, "--budget '%s': expected bytes (suffix k, m, g)", val);
        } else if (!strcmp(name, "repeat")) {
            if (parse_long(val, 1, 100000, &lv))
                return fail(err, errlen, "--repeat '%s': expected an integer >= 1", val);
            o->repeat = (int)lv;
        } else if (!strcmp(name, "root")) {
            if (parse_long(val, 0, INT_MAX, &lv))
                return fail(err, errlen, "--root '%s': expected a rank", val);
            o->root = (int)lv;
        } else if (!strcmp(name, "pp-peer")) {
            if (parse_long(val, 1, INT_MAX, &lv))
                return fail(err, errlen, "--pp-peer '%s': expected a rank >= 1", val);
            o->pp_peer = (int)lv;
        } else if (!strcmp(name, "mif")) {
            if (parse_double(val, 0.0, 1e9, &o->mif))
                return fail(err, errlen, "--mif '%s': expected a number >= 0", val);
        } else if (!strcmp(name, "late")) {
            if (parse_double(val, 0.0, 1.0, &o->late_fraction))
                return fail(err, errlen, "--late '%s': expected a fraction in [0,1]", val);
            late_given = 1;
        } else if (!strcmp(name, "late-ranks")) {
            free(o->late_ranks);
            o->late_ranks = NULL;
            if (parse_rank_list(val, &o->late_ranks, &o->nlate_ranks))
                return fail(err, errlen, "--late-ranks '%s': expected ranks like 0,3,8-11", val);
            late_ranks_given = 1;
        } else if (!strcmp(name, "seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 0);
            if (!*val || *end || errno || val[0] == '-')
                return fail(err, errlen, "--seed '%s': expected an unsigned integer", val);
            o->seed = (uint64_t)s;
        } else if (!strcmp(name, "vdist")) {
            if (!strcmp(val, "uniform"))
                o->vdist = VDIST_UNIFORM;
            else if (!strcmp(val, "random"))
                o->vdist = VDIST_RANDOM;
            else if (!strcmp(val, "zipf")) {
                o->vdist = VDIST_ZIPF;
                o->zipf_s = BENCH_ZIPF_DEFAULT_S;
            } else if (!strncmp(val, "zipf:", 5)) {
                o->vdist = VDIST_ZIPF;
                if (parse_double(val + 5, 0.0, 64.0, &o->zipf_s) || o->zipf_s <= 0)
                    return fail(err, errlen,
                                "--vdist '%s': expected zipf:S with an exponent 0 < S <= 64", val);
            } else if (!strncmp(val, "file:", 5)) {
                if (!val[5])
                    return fail(err, errlen, "--vdist file: needs a path (file:PATH)");
                o->vdist = VDIST_FILE;
                o->vdist_path = val + 5;
            } else
                return fail(err, errlen,
                            "--vdist '%s': expected uniform, random, zipf[:S] or file:PATH", val);
        } else if (!strcmp(name, "json")) {
            if (!*val)
                return fail(err, errlen, "--json: empty file name");
            o->json_path = val;
        } else if (!strcmp(name, "clock")) {
            if (!strcmp(val, "auto"))
                o->clock = CLOCK_AUTO;
            else if (!strcmp(val, "global"))
                o->clock = CLOCK_GLOBAL;
            else if (!strcmp(val, "node"))
                o->clock = CLOCK_NODE;
            else if (!strcmp(val, "sync"))
                o->clock = CLOCK_SYNC;
            else
                return fail(err, errlen, "--clock '%s': expected auto, global, node or sync", val);
        } else {
            return fail(err, errlen, "unknown option '--%s' (see --help)", name);
        }
    }
    if (o->help || o->version)
        return 1;
    if (late_given && late_ranks_given)
        return fail(err, errlen, "--late and --late-ranks exclude each other");
    if (late_given || late_ranks_given) {
        if (o->mif <= 0)
            return fail(err, errlen, "--late/--late-ranks: give the lateness with --mif X > 0");
        o->skew = late_given ? SKEW_LATE_FRACTION : SKEW_LATE_RANKS;
    } else {
        o->skew = o->mif > 0 ? SKEW_RANDOM : SKEW_NONE;
    }
    if (o->loop && o->skew != SKEW_NONE)
        return fail(err, errlen, "--loop times back-to-back calls; arrival skew (--mif, --late, "
                                 "--late-ranks) needs the barrier before every call");
    if (!o->have_coll && !o->list)
        return fail(err, errlen, "which collective? (alltoall, alltoallv, allgather, gather; see "
                                 "--help)");
    if (o->root && o->have_coll && o->coll != PACOLL_GATHER)
        return fail(err, errlen, "--root applies to gather only");
    if (o->vdist != VDIST_UNIFORM && o->have_coll && o->coll != PACOLL_ALLTOALLV)
        return fail(err, errlen, "--vdist applies to alltoallv only");
    return 0;
}

int bench_validate(bench_opts_t *o, int nranks, char *err, size_t errlen)
{
    if (o->sim_shared && (o->check || o->no_reuse))
        return fail(err, errlen, "--sim-shared-buffers: all ranks share one buffer, so results "
                                 "cannot be checked and buffers cannot be fresh; drop --%s",
                    o->check ? "check" : "no-reuse");
    if (o->root >= nranks)
        return fail(err, errlen, "--root %d: only %d ranks", o->root, nranks);
    if (o->pp_peer >= nranks && nranks > 1)
        return fail(err, errlen, "--pp-peer %d: only %d ranks", o->pp_peer, nranks);
    for (int i = 0; i < o->nlate_ranks; i++)
        if (o->late_ranks[i] >= nranks)
            return fail(err, errlen, "--late-ranks: rank %d does not exist (%d ranks)",
                        o->late_ranks[i], nranks);
    /* counts and displacements are ints (in bytes): nranks x size must fit
     * (--vdist file ignores --sizes; bench_vdist_load checks its sums) */
    if (o->vdist != VDIST_FILE &&
        (unsigned long long)o->max_size * (unsigned long long)nranks > (unsigned long long)INT_MAX)
        return fail(err, errlen,
                    "--sizes: %zu bytes per peer x %d ranks exceeds 2^31-1 bytes (MPI int "
                    "counts); lower MAX to %llu",
                    o->max_size, nranks, (unsigned long long)INT_MAX / (unsigned long long)nranks);
    return 0;
}

int bench_resolve_algos(bench_opts_t *o, char *err, size_t errlen)
{
    int n = pacoll_algorithm_count();
    if (o->nalgos == 0) {
        strcpy(o->algos[o->nalgos++], "native");
        strcpy(o->algos[o->nalgos++], "auto");
        for (int i = 0; i < n && o->nalgos < BENCH_MAX_ALGOS; i++) {
            pacoll_algo_info_t info;
            if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && info.coll == o->coll &&
                info.name && strlen(info.name) < BENCH_NAME_LEN && strcmp(info.name, "native"))
                strcpy(o->algos[o->nalgos++], info.name);
        }
    } else {
        for (int a = 0; a < o->nalgos; a++) {
            int found = !strcmp(o->algos[a], "native") || !strcmp(o->algos[a], "auto");
            for (int i = 0; i < n && !found; i++) {
                pacoll_algo_info_t info;
                if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && info.coll == o->coll &&
                    info.name && !strcmp(info.name, o->algos[a]))
                    found = 1;
            }
            if (!found) {
                char list[1024];
                return fail(err, errlen, "--algos: no algorithm '%s' for %s (known: %s)",
                            o->algos[a], coll_names[o->coll],
                            bench_algo_names(o->coll, list, sizeof list));
            }
        }
    }
    if (o->baseline[0]) {
        int found = 0;
        for (int a = 0; a < o->nalgos; a++)
            if (!strcmp(o->algos[a], o->baseline))
                found = 1;
        if (!found)
            return fail(err, errlen, "--baseline %s: not among the algorithms run", o->baseline);
    }
    return 0;
}

void bench_free_opts(bench_opts_t *o)
{
    free(o->vrow);
    free(o->vcol);
    o->vrow = o->vcol = NULL;
    free(o->late_ranks);
    o->late_ranks = NULL;
    o->nlate_ranks = 0;
}

int bench_sizes(const bench_opts_t *o, size_t *sizes, int max)
{
    int n = 0;
    size_t m = o->min_size;
    while (n < max && m <= o->max_size) {
        sizes[n++] = m;
        if (m == 0)
            m = 1;
        else if (m > o->max_size / 2)
            break;
        else
            m *= 2;
    }
    return n;
}

void bench_iters_at(const bench_opts_t *o, size_t bytes, long *iters, long *warmup)
{
    long it = o->iters, wu = o->warmup;
    if (o->budget && bytes && (size_t)it * bytes > o->budget) {
        long scaled = (long)(o->budget / bytes);
        long floor_it = it < MIN_SCALED_ITERS ? it : MIN_SCALED_ITERS;
        if (scaled < floor_it)
            scaled = floor_it;
        if (scaled < it) {
            long w = (long)((double)wu * (double)scaled / (double)it + 0.5);
            if (wu > 0 && w < 1)
                w = 1;
            wu = w;
            it = scaled;
        }
    }
    *iters = it;
    *warmup = wu;
}
