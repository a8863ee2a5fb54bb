/*
 * pacoll-bench: statistics over ranks and repeats, the text table and the
 * JSON file (schema in docs/BENCH.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- reducing one block over ranks ---- */
void bench_reduce_block(const double *arr, const double *ext, long n, MPI_Comm comm,
                        bench_block_t *out)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    size_t un = n > 0 ? (size_t)n : 1;
    double *mean_arr = malloc(sizeof(double) * un);
    double *mx = malloc(sizeof(double) * 3 * un);
    double *dev = malloc(sizeof(double) * un);
    double *rmx = rank == 0 ? malloc(sizeof(double) * 3 * un) : NULL;
    double *rdev = rank == 0 ? malloc(sizeof(double) * un) : NULL;
    if (!mean_arr || !mx || !dev || (rank == 0 && (!rmx || !rdev))) {
        fprintf(stderr, "pacoll-bench: rank %d: out of memory in statistics\n", rank);
        PMPI_Abort(comm, BENCH_EXIT_FAIL);
    }

    /* this rank's mean time in the call */
    double t = 0;
    for (long i = 0; i < n; i++)
        t += ext[i] - arr[i];
    t = n > 0 ? t / (double)n : 0;
    PMPI_Gather(&t, 1, MPI_DOUBLE, out->rank_us, 1, MPI_DOUBLE, 0, comm);

    /* per iteration: mean arrival (for the average-case imbalance), then
     * max arrival, max exit, min arrival (as max of -a), sum of |a - mean| */
    PMPI_Allreduce(arr, mean_arr, n, MPI_DOUBLE, MPI_SUM, comm);
    for (long i = 0; i < n; i++) {
        mean_arr[i] /= P;
        dev[i] = fabs(arr[i] - mean_arr[i]);
        mx[i] = arr[i];
        mx[n + i] = ext[i];
        mx[2 * n + i] = -arr[i];
    }
    PMPI_Reduce(mx, rmx, (int)(3 * n), MPI_DOUBLE, MPI_MAX, 0, comm);
    PMPI_Reduce(dev, rdev, (int)n, MPI_DOUBLE, MPI_SUM, 0, comm);

    if (rank == 0) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        for (int r = 0; r < P; r++) {
            out->rank_us[r] *= 1e6;
            sum += out->rank_us[r];
            lo = fmin(lo, out->rank_us[r]);
            hi = fmax(hi, out->rank_us[r]);
        }
        out->avg_us = sum / P;
        out->min_us = lo;
        out->max_us = hi;
        double l2l = 0, span = 0, imb = 0, dbar = 0;
        for (long i = 0; i < n; i++) {
            double amax = rmx[i], emax = rmx[n + i], amin = -rmx[2 * n + i];
            l2l += emax - amax;
            span += emax - amin;
            imb += amax - amin;
            dbar += rdev[i] / P;
        }
        double dn = n > 0 ? (double)n : 1;
        out->l2l_us = l2l / dn * 1e6;
        out->span_us = span / dn * 1e6;
        out->imb_us = imb / dn * 1e6;
        out->dbar_us = dbar / dn * 1e6;
    }
    free(mean_arr);
    free(mx);
    free(dev);
    free(rmx);
    free(rdev);
}

/* ---- statistics over repeats ---- */
typedef struct stat3 {
    double median, min, max;
} stat3_t;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum metric { M_AVG, M_MIN, M_MAX, M_L2L, M_SPAN, M_IMB, M_DBAR };

static double metric_of(const bench_block_t *b, enum metric m)
{
    switch (m) {
    case M_AVG: return b->avg_us;
    case M_MIN: return b->min_us;
    case M_MAX: return b->max_us;
    case M_L2L: return b->l2l_us;
    case M_SPAN: return b->span_us;
    case M_IMB: return b->imb_us;
    default: return b->dbar_us;
    }
}

static stat3_t over_repeats(const bench_size_result_t *r, int a, enum metric m)
{
    double v[64], *buf = r->repeat <= 64 ? v : malloc(sizeof(double) * (size_t)r->repeat);
    stat3_t s = {NAN, NAN, NAN};
    if (!buf)
        return s;
    for (int k = 0; k < r->repeat; k++)
        buf[k] = metric_of(&r->blocks[a * r->repeat + k], m);
    qsort(buf, (size_t)r->repeat, sizeof(double), cmp_double);
    int n = r->repeat;
    s.median = n % 2 ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
    s.min = buf[0];
    s.max = buf[n - 1];
    if (buf != v)
        free(buf);
    return s;
}

static int baseline_index(const bench_opts_t *o)
{
    for (int a = 0; a < o->nalgos; a++)
        if (o->baseline[0] && !strcmp(o->algos[a], o->baseline))
            return a;
    return 0;
}

/* A forced algorithm pacoll could not run here (auto runs whatever it
 * chose: not a fallback). */
static int fell_back(const bench_opts_t *o, const bench_size_result_t *r, int a)
{
    return r->ran[a][0] && strcmp(r->ran[a], o->algos[a]) != 0 && strcmp(o->algos[a], "auto") != 0;
}

/* ---- text ---- */
static void fmt_bytes(char *buf, size_t len, size_t b)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0)
        snprintf(buf, len, "%zu GiB", b >> 30);
    else if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", b >> 20);
    else if (b >= (1u << 10) && b % (1u << 10) == 0)
        snprintf(buf, len, "%zu KiB", b >> 10);
    else
        snprintf(buf, len, "%zu B", b);
}

void bench_print_header(FILE *f, const bench_opts_t *o, const bench_env_t *e)
{
    char b1[32], b2[32];
    fprintf(f, "# pacoll-bench (pacoll %s): %s, %d rank%s on %d node%s (%s)\n", pacoll_version(),
            bench_coll_str(o->coll), e->nranks, e->nranks == 1 ? "" : "s", e->nnodes,
            e->nnodes == 1 ? "" : "s", e->host);
    fprintf(f, "# MPI: %s (MPI %d.%d)\n", e->mpi_library, e->mpi_version, e->mpi_subversion);
    fprintf(f, "# algorithms:");
    for (int a = 0; a < o->nalgos; a++)
        fprintf(f, " %s", o->algos[a]);
    fprintf(f, "  (speedup vs %s)\n", o->algos[baseline_index(o)]);
    if (o->coll == PACOLL_ALLTOALLV && o->vdist == VDIST_FILE) {
        fprintf(f, "# vdist file:%s (%d x %d bytes, sum %llu, max %d, fnv1a64 %016llx)\n",
                o->vdist_path, e->nranks, e->nranks, o->vsum, o->vmax,
                (unsigned long long)o->vhash);
        fprintf(f, "# sizes: --sizes ignored; one row, Size = the matrix' largest entry (%d B)",
                o->vmax);
    } else {
        fmt_bytes(b1, sizeof b1, o->min_size);
        fmt_bytes(b2, sizeof b2, o->max_size);
        fprintf(f, "# sizes: %s .. %s per peer", b1, b2);
    }
    if (o->coll == PACOLL_ALLTOALLV && o->vdist == VDIST_ZIPF)
        fprintf(f, " (vdist zipf:%g: count = floor(size / k^%g), k = 1..%d^2 permuted; Size = "
                   "the largest count)",
                o->zipf_s, o->zipf_s, e->nranks);
    else if (o->coll == PACOLL_ALLTOALLV && o->vdist != VDIST_FILE)
        fprintf(f, " (vdist %s)", bench_vdist_str(o->vdist));
    if (o->coll == PACOLL_GATHER)
        fprintf(f, ", root %d", o->root);
    fprintf(f, "; %ld iterations, %ld warm-up", o->iters, o->warmup);
    if (o->budget) {
        fmt_bytes(b1, sizeof b1, o->budget);
        fprintf(f, " (scaled so iterations x bytes <= %s)", b1);
    }
    fprintf(f, "; repeat %d%s\n", o->repeat, o->repeat > 1 ? " (median; spread = (max-min)/median of Avg)" : "");
    switch (o->skew) {
    case SKEW_NONE: fprintf(f, "# skew: none (barrier, then call)"); break;
    case SKEW_RANDOM:
        fprintf(f, "# skew: random, every rank waits U[0, %g x T(m)]", o->mif);
        break;
    case SKEW_LATE_FRACTION:
        fprintf(f, "# skew: %g of the ranks (random each iteration) arrive %g x T(m) late",
                o->late_fraction, o->mif);
        break;
    case SKEW_LATE_RANKS:
        fprintf(f, "# skew: ranks");
        for (int i = 0; i < o->nlate_ranks && i < 16; i++)
            fprintf(f, "%s%d", i ? "," : " ", o->late_ranks[i]);
        fprintf(f, "%s arrive %g x T(m) late", o->nlate_ranks > 16 ? ",..." : "", o->mif);
        break;
    }
    fprintf(f, "; seed %llu; T(m) = rank 0 <-> %d ping-pong\n", (unsigned long long)o->seed,
            o->pp_peer);
    fprintf(f, "# calls: %s\n", o->loop ? "back to back (--loop), one barrier per block"
                                         : "a barrier before every call");
    fprintf(f, "# clock: %s; buffers: %s%s\n", bench_clock_str(e->clock),
            o->no_reuse    ? "fresh mapping every iteration"
            : o->sim_shared ? "reused, one block shared by all ranks (SMPI)"
                            : "reused",
            o->check ? "; results checked" : "");
    fprintf(f, "# Avg/Min/Max: over ranks of each rank's mean time in the call (from its own "
               "arrival); L->exit: last arrival to last exit; Imb/T: max-min arrival / T(m)\n");
    fprintf(f, "%-10s %-18s %6s %9s %11s %11s %11s %11s %7s %7s %8s\n", "# Size(B)", "Algorithm",
            "Iters", "T(m)(us)", "Avg(us)", "Min(us)", "Max(us)", "L->exit", "Imb/T", "Spread",
            "Speedup");
    fflush(f);
}

void bench_print_size(FILE *f, const bench_opts_t *o, const bench_size_result_t *r)
{
    int base = baseline_index(o);
    stat3_t bavg = over_repeats(r, base, M_AVG);
    for (int a = 0; a < r->nalgos; a++) {
        stat3_t avg = over_repeats(r, a, M_AVG), mn = over_repeats(r, a, M_MIN),
                mx = over_repeats(r, a, M_MAX), l2l = over_repeats(r, a, M_L2L),
                imb = over_repeats(r, a, M_IMB);
        char name[2 * BENCH_NAME_LEN + 8], imbs[16], spread[16], speed[16];
        if (!strcmp(o->algos[a], "auto") && r->ran[a][0]) /* auto:direct */
            snprintf(name, sizeof name, "auto:%s", r->ran[a]);
        else
            snprintf(name, sizeof name, "%s%s", o->algos[a], fell_back(o, r, a) ? "*" : "");
        if (r->tm_us > 0)
            snprintf(imbs, sizeof imbs, "%.2f", imb.median / r->tm_us);
        else
            snprintf(imbs, sizeof imbs, "-");
        if (r->repeat > 1 && avg.median > 0)
            snprintf(spread, sizeof spread, "%.1f%%", 100.0 * (avg.max - avg.min) / avg.median);
        else
            snprintf(spread, sizeof spread, "-");
        if (r->nalgos > 1 && avg.median > 0)
            snprintf(speed, sizeof speed, "%.2f", bavg.median / avg.median);
        else
            snprintf(speed, sizeof speed, "-");
        fprintf(f, "%-10zu %-18s %6ld %9.2f %11.2f %11.2f %11.2f %11.2f %7s %7s %8s%s\n",
                r->bytes, name, r->iters, r->tm_us, avg.median, mn.median, mx.median, l2l.median,
                imbs, spread, speed, r->errors[a] ? "  CHECK FAILED" : "");
    }
    fflush(f);
}

void bench_print_footer(FILE *f, const bench_opts_t *o, unsigned long long errors, int fallbacks)
{
    if (fallbacks)
        fprintf(f, "# * pacoll could not run the forced algorithm at this size and handed the "
                   "call to another (see \"ran\" in --json, PACOLL_VERBOSE=1)\n");
    if (o->check)
        fprintf(f, "# check: %s (%llu wrong bytes over all ranks)\n",
                errors ? "FAILED" : "all results correct", errors);
    fflush(f);
}

/* ---- JSON ---- */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void jstat(FILE *f, const char *key, stat3_t s)
{
    fprintf(f, "\"%s\": {\"median\": ", key);
    jnum(f, s.median);
    fputs(", \"min\": ", f);
    jnum(f, s.min);
    fputs(", \"max\": ", f);
    jnum(f, s.max);
    fputs("}", f);
}

void bench_json_begin(FILE *f, const bench_opts_t *o, const bench_env_t *e)
{
    fputs("{\n  \"schema\": \"pacoll-bench/1\",\n  \"pacoll_version\": ", f);
    jstr(f, pacoll_version());
    fputs(",\n  \"argv\": [", f);
    for (int i = 0; i < o->argc; i++) {
        if (i)
            fputs(", ", f);
        jstr(f, o->argv[i]);
    }
    fputs("],\n  \"collective\": ", f);
    jstr(f, bench_coll_str(o->coll));
    fprintf(f, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"host\": ", e->nranks, e->nnodes);
    jstr(f, e->host);
    fputs(",\n  \"mpi\": {\"engine\": ", f);
    jstr(f, e->engine);
    fputs(", \"library\": ", f);
    jstr(f, e->mpi_library);
    fputs(", \"library_full\": ", f);
    jstr(f, e->mpi_library_full);
    fprintf(f, ", \"standard\": \"%d.%d\", \"wtime_is_global\": %s},\n", e->mpi_version,
            e->mpi_subversion, e->wtime_is_global ? "true" : "false");
    fputs("  \"clock\": ", f);
    jstr(f, bench_clock_str(e->clock));
    fputs(",\n  \"settings\": {\n    \"algorithms\": [", f);
    for (int a = 0; a < o->nalgos; a++) {
        if (a)
            fputs(", ", f);
        jstr(f, o->algos[a]);
    }
    fputs("],\n    \"baseline\": ", f);
    jstr(f, o->algos[baseline_index(o)]);
    fprintf(f, ",\n    \"min_size\": %zu, \"max_size\": %zu, \"iters\": %ld, \"warmup\": %ld, "
               "\"budget\": %zu, \"repeat\": %d,\n",
            o->min_size, o->max_size, o->iters, o->warmup, o->budget, o->repeat);
    fprintf(f, "    \"mode\": \"%s\",\n", o->loop ? "loop" : "barrier");
    if (o->nonblocking)
        fprintf(f, "    \"nonblocking_compute_us\": %.3f,\n", o->compute * 1e6);
    fprintf(f, "    \"check\": %s, \"no_reuse\": %s, \"sim_shared_buffers\": %s, \"root\": %d, "
               "\"vdist\": \"%s\",\n",
            o->check ? "true" : "false", o->no_reuse ? "true" : "false",
            o->sim_shared ? "true" : "false", o->root,
            bench_vdist_str(o->vdist));
    /* the distribution's parameters ("vdist" stays the mode's name) */
    fputs("    \"vdist_params\": {", f);
    switch (o->vdist) {
    case VDIST_RANDOM:
        fprintf(f, "\"count\": \"uniform in [0, size]\", \"seed\": %llu",
                (unsigned long long)o->seed);
        break;
    case VDIST_ZIPF:
        fputs("\"exponent\": ", f);
        jnum(f, o->zipf_s);
        fprintf(f, ", \"pairs\": %llu, \"count\": \"floor(size / k^exponent)\", \"seed\": %llu",
                (unsigned long long)e->nranks * (unsigned long long)e->nranks,
                (unsigned long long)o->seed);
        break;
    case VDIST_FILE:
        fputs("\"path\": ", f);
        jstr(f, o->vdist_path);
        fprintf(f, ", \"rows\": %d, \"sum\": %llu, \"max\": %d, \"fnv1a64\": \"%016llx\"",
                e->nranks, o->vsum, o->vmax, (unsigned long long)o->vhash);
        break;
    default: fputs("\"count\": \"size\"", f); break;
    }
    fputs("},\n", f);
    fprintf(f, "    \"skew\": \"%s\", \"mif\": ", bench_skew_str(o->skew));
    jnum(f, o->mif);
    fputs(", \"late_fraction\": ", f);
    if (o->skew == SKEW_LATE_FRACTION)
        jnum(f, o->late_fraction);
    else
        fputs("null", f);
    fputs(", \"late_ranks\": [", f);
    for (int i = 0; i < o->nlate_ranks; i++)
        fprintf(f, "%s%d", i ? ", " : "", o->late_ranks[i]);
    fprintf(f, "],\n    \"seed\": %llu, \"pp_peer\": %d\n  },\n  \"algorithms\": [",
            (unsigned long long)o->seed, o->pp_peer);
    /* what the registry says about each one */
    int n = pacoll_algorithm_count();
    for (int a = 0; a < o->nalgos; a++) {
        pacoll_algo_info_t info;
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && info.coll == o->coll &&
                info.name && !strcmp(info.name, o->algos[a]))
                found = 1;
        fputs(a ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        jstr(f, o->algos[a]);
        if (found) {
            fprintf(f, ", \"needs\": %u, \"source\": ", info.needs);
            jstr(f, info.source);
            fputs(", \"summary\": ", f);
            jstr(f, info.summary);
        } else {
            fputs(", \"needs\": 0, \"source\": \"MPI library\", \"summary\": \"the MPI "
                  "library's own collective\"",
                  f);
        }
        fputs("}", f);
    }
    fputs("\n  ],\n  \"results\": [", f);
    fflush(f);
}

void bench_json_size(FILE *f, const bench_opts_t *o, const bench_size_result_t *r, int first)
{
    int base = baseline_index(o);
    stat3_t bavg = over_repeats(r, base, M_AVG);
    fprintf(f, "%s\n    {\"bytes\": %zu, \"iters\": %ld, \"warmup\": %ld, \"tm_us\": ",
            first ? "" : ",", r->bytes, r->iters, r->warmup);
    jnum(f, r->tm_us);
    fputs(", \"algos\": [", f);
    for (int a = 0; a < r->nalgos; a++) {
        stat3_t avg = over_repeats(r, a, M_AVG);
        fputs(a ? ",\n      {\"name\": " : "\n      {\"name\": ", f);
        jstr(f, o->algos[a]);
        fputs(", \"ran\": ", f);
        jstr(f, r->ran[a]);
        fprintf(f, ", \"check_errors\": %llu, \"speedup\": ", r->errors[a]);
        jnum(f, avg.median > 0 ? bavg.median / avg.median : NAN);
        fputs(",\n       \"summary\": {", f);
        jstat(f, "avg_us", avg);
        fputs(", ", f);
        jstat(f, "min_us", over_repeats(r, a, M_MIN));
        fputs(", ", f);
        jstat(f, "max_us", over_repeats(r, a, M_MAX));
        fputs(",\n         ", f);
        jstat(f, "last_arrival_to_last_exit_us", over_repeats(r, a, M_L2L));
        fputs(", ", f);
        jstat(f, "first_arrival_to_last_exit_us", over_repeats(r, a, M_SPAN));
        fputs(",\n         ", f);
        jstat(f, "imbalance_us", over_repeats(r, a, M_IMB));
        fputs(", ", f);
        jstat(f, "avg_imbalance_us", over_repeats(r, a, M_DBAR));
        fputs("},\n       \"repeats\": [", f);
        for (int k = 0; k < r->repeat; k++) {
            const bench_block_t *b = &r->blocks[a * r->repeat + k];
            fputs(k ? ",\n         {" : "\n         {", f);
            fputs("\"avg_us\": ", f);
            jnum(f, b->avg_us);
            fputs(", \"min_us\": ", f);
            jnum(f, b->min_us);
            fputs(", \"max_us\": ", f);
            jnum(f, b->max_us);
            fputs(", \"last_arrival_to_last_exit_us\": ", f);
            jnum(f, b->l2l_us);
            fputs(", \"first_arrival_to_last_exit_us\": ", f);
            jnum(f, b->span_us);
            fputs(", \"imbalance_us\": ", f);
            jnum(f, b->imb_us);
            fputs(", \"avg_imbalance_us\": ", f);
            jnum(f, b->dbar_us);
            fputs(", \"imbalance_factor\": ", f);
            jnum(f, r->tm_us > 0 ? b->imb_us / r->tm_us : NAN);
            fputs(", \"avg_imbalance_factor\": ", f);
            jnum(f, r->tm_us > 0 ? b->dbar_us / r->tm_us : NAN);
            fputs(",\n          \"rank_us\": [", f);
            for (int p = 0; b->rank_us && p < r->nranks; p++) {
                if (p)
                    fputs(p % 8 ? ", " : ",\n                     ", f);
                jnum(f, b->rank_us[p]);
            }
            fputs("]}", f);
        }
        fputs("]}", f);
    }
    fputs("]}", f);
    fflush(f);
}

void bench_json_end(FILE *f, unsigned long long errors, double wall_s)
{
    fprintf(f, "\n  ],\n  \"check_errors\": %llu,\n  \"wall_seconds\": ", errors);
    jnum(f, wall_s);
    fputs("\n}\n", f);
    fflush(f);
}
