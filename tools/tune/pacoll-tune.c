/*
 * pacoll-tune: measure pacoll's algorithms against the MPI library on this
 * machine (or a simulated platform) and write selection rules for
 * PACOLL_RULES; check a rules file; or make rules from measurements
 * already taken (docs/TUNE.md).
 *
 *   mpirun -np P pacoll-tune [--out rules.json] [--save measured.json] ...
 *   mpirun -np P pacoll-tune --check rules.json
 *   pacoll-tune --from FILE... [--out rules.json] [--compare rules.json]
 *   pacoll-tune --from-learned LEARNED [--out rules.json]
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pacoll.h"
#include "base/internal.h"
#include "select/nic.h"
#include "select/select.h"
#include "tune.h"

static void usage(FILE *f)
{
    fputs("usage: mpirun -np P pacoll-tune [options]          measure, write rules\n"
          "       mpirun -np P pacoll-tune --check RULES [options]  auto with RULES against native\n"
          "       pacoll-tune --from FILE|DIR... [options]        rules from measurements\n"
          "       pacoll-tune --version | --help\n"
          "options:\n"
          "  --colls LIST      alltoall,alltoallv,allgather,gather (default: all four)\n"
          "  --sizes MIN:MAX   bytes per block, powers of two (default 8:1M; k, M suffixes)\n"
          "  --repeat R        interleaved repeats, the median is kept (default 5)\n"
          "  --iters N         at most N calls timed per size and mode (default 200; fewer\n"
          "                    at large sizes); under SMPI, where times repeat exactly, 5 do\n"
          "  --modes LIST      loop,barrier: back-to-back calls, or a barrier before each (both)\n"
          "  --algos LIST      only these of pacoll's algorithms (default: all that can run)\n"
          "  --margin F        pacoll's algorithm is chosen where native/it >= F everywhere\n"
          "                    measured (default 1.05)\n"
          "  --floor F         the replay and --check flag auto/native below F (default 0.97)\n"
          "  --out FILE        the rules (default pacoll-rules.json; - = standard output)\n"
          "  --save FILE       also the measurements (pacoll-tune/1 JSON), for --from\n"
          "  --from FILE|DIR   measurements to make rules from (--save's, pacoll-bench's,\n"
          "                    a PACOLL_LEARN_FILE's; a directory: its *.json); several\n"
          "                    files, or --from again, give one rules file covering every\n"
          "                    shape measured\n"
          "  --from-learned FILE  the same as --from, for a learned file (docs/AUTO.md)\n"
          "  --compare FILE    --from: exit 1 unless FILE's rules are the ones made\n"
          "  --quiet           no line per measurement\n"
          "A rules file replaces the built-in rules entirely: a shape it has no rule for goes\n"
          "to the MPI library. To cover several job sizes, --save each size's measurements\n"
          "and make one file with --from (docs/TUNE.md).\n",
          f);
}

static void now_utc(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The command line as provenance: the program's name without its
 * directory, and --from's files left to "sources". */
static void joined(char *buf, size_t len, int argc, char **argv, const char *prefix)
{
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    size_t u = (size_t)snprintf(buf, len, "%s%s%s", prefix, *prefix ? " " : "", prog);
    for (int i = 1, files = 0; i < argc && u < len; i++) {
        if (files && strncmp(argv[i], "--", 2))
            continue;
        files = !strcmp(argv[i], "--from");
        u += (size_t)snprintf(buf + u, len - u, " %s%s", argv[i], files ? " (the sources)" : "");
    }
}

typedef struct args {
    tune_opts_t o;
    const char **from; /* every --from's files and directories, in order */
    int nfrom;
} args_t;

/* 0 to go on, 1 done (help), 2 usage error. */
static int parse(int argc, char **argv, args_t *a)
{
    tune_opts_t *o = &a->o;
    *o = (tune_opts_t){.colls = 15, .min_size = 8, .max_size = 1 << 20, .repeat = 5, .iters = 200,
                       .margin = 1.05, .floor = 0.97, .loop = 1, .barrier = 1,
                       .out = "pacoll-rules.json"};
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(k, "--quiet") && strcmp(k, "--help") && strcmp(k, "-h") &&
                    strcmp(k, "--from") && strcmp(k, "--from-learned") && strcmp(k, "--version");
        if (takes && !v) {
            fprintf(stderr, "pacoll-tune: %s needs a value\n", k);
            return 2;
        }
        if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(k, "--version")) {
            printf("pacoll-tune (pacoll) %s\n", pacoll_version());
            return 1;
        } else if (!strcmp(k, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(k, "--from") || !strcmp(k, "--from-learned")) {
            int had = a->nfrom;
            if (!a->from && !(a->from = calloc((size_t)argc, sizeof *a->from))) {
                fprintf(stderr, "pacoll-tune: out of memory\n");
                return 2;
            }
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2))
                a->from[a->nfrom++] = argv[++i];
            if (a->nfrom == had) {
                fprintf(stderr, "pacoll-tune: --from needs files or directories\n");
                return 2;
            }
        } else if (!strcmp(k, "--colls")) {
            o->colls = 0;
            for (int c = 0; c < PACOLL_NCOLL; c++)
                o->colls |= (unsigned)tune_listed(v, pacoll_coll_name((pacoll_coll_t)c)) << c;
            if (!o->colls) {
                fprintf(stderr, "pacoll-tune: --colls %s: no collective named\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(k, "--sizes")) {
            const char *c = strchr(v, ':');
            o->min_size = tune_size_arg(v), o->max_size = c ? tune_size_arg(c + 1) : o->min_size;
            if (o->max_size < o->min_size || o->max_size > (1u << 30)) {
                fprintf(stderr, "pacoll-tune: --sizes %s: MIN:MAX, MAX <= 1G\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(k, "--repeat")) {
            o->repeat = atoi(v), i++;
            if (o->repeat < 1 || o->repeat > 64) {
                fprintf(stderr, "pacoll-tune: --repeat %s: 1 to 64\n", v);
                return 2;
            }
        } else if (!strcmp(k, "--iters")) {
            o->iters = atoi(v), i++;
            if (o->iters < 1 || o->iters > 100000) {
                fprintf(stderr, "pacoll-tune: --iters %s: 1 to 100000\n", v);
                return 2;
            }
        } else if (!strcmp(k, "--modes")) {
            o->loop = strstr(v, "loop") != NULL, o->barrier = strstr(v, "barrier") != NULL, i++;
            if (!o->loop && !o->barrier) {
                fprintf(stderr, "pacoll-tune: --modes %s: loop, barrier or both\n", v);
                return 2;
            }
        } else if (!strcmp(k, "--margin") || !strcmp(k, "--floor")) {
            char *end;
            double x = strtod(v, &end);
            if (*end || !(x > 0 && x < 100)) {
                fprintf(stderr, "pacoll-tune: %s %s: a positive number\n", k, v);
                return 2;
            }
            *(!strcmp(k, "--margin") ? &o->margin : &o->floor) = x, i++;
        } else if (!strcmp(k, "--algos")) {
            o->algos = v, i++;
        } else if (!strcmp(k, "--out")) {
            o->out = v, i++;
        } else if (!strcmp(k, "--save")) {
            o->save = v, i++;
        } else if (!strcmp(k, "--check")) {
            o->check = v, i++;
        } else if (!strcmp(k, "--compare")) {
            o->compare = v, i++;
        } else {
            fprintf(stderr, "pacoll-tune: unknown option %s (--help)\n", k);
            return 2;
        }
    }
    if (a->nfrom && o->check) {
        fprintf(stderr, "pacoll-tune: --from and --check do not go together\n");
        return 2;
    }
    return 0;
}

static int save(const char *path, const tune_set_t *s, const tune_prov_t *p)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        return -1;
    fputs("{\n  \"schema\": \"pacoll-tune/1\",\n  ", f);
    tune_write_prov(f, p, ",\n  ");
    fputs(",\n  \"observations\": [", f);
    for (int k = 0; k < s->n; k++) {
        const tune_obs_t *o = &s->obs[k];
        fprintf(f, "%s\n    {\"coll\": \"%s\", \"ranks\": %d, \"nodes\": %d, \"ppn\": %d, "
                   "\"nic\": %s%s%s, \"mode\": \"%s\", \"bytes\": %.0f, \"us\": {",
                k ? "," : "", pacoll_coll_name((pacoll_coll_t)o->coll), o->ranks, o->nodes, o->ppn,
                pc_nic_name(o->nic) ? "\"" : "", pc_nic_name(o->nic) ? pc_nic_name(o->nic) : "null",
                pc_nic_name(o->nic) ? "\"" : "", o->mode, o->bytes);
        for (int a = 0; a < o->n; a++)
            fprintf(f, "%s\"%s\": %.17g", a ? ", " : "", o->name[a], o->us[a]); /* exact: --from remakes the same rules */
        fputs("}}", f);
    }
    fputs("\n  ]\n}\n", f);
    return f == stdout ? 0 : fclose(f);
}

static int write_rules(const char *path, const tune_set_t *s, const tune_prov_t *p, char **text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -1;
    int n = tune_write_rules(m, s, p);
    fclose(m);
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");
    if (n < 0 || !f || fputs(buf, f) < 0 || (f != stdout && fclose(f))) {
        free(buf);
        return -1;
    }
    *text = buf;
    return n;
}

/* The check's verdicts: auto against native, and whether auto ran what
 * the rules name (this is deterministic, unlike the times).  Below the
 * floor, a point where a rule ran pacoll's algorithm is a loss of that
 * rule; a point passed through to the MPI library ran native on both
 * sides, so its ratio is pacoll's per-call cost and the noise, not a
 * choice that lost. */
static int check_table(const tune_set_t *s, char (*ran)[TUNE_NAME], const char *rules,
                       double floor)
{
    char *text = pc_file_read(rules), err[300];
    pc_rules_t *rs = text ? pc_rules_parse(text, rules, err, sizeof err) : NULL;
    free(text);
    if (!rs) {
        fprintf(stderr, "pacoll-tune: %s\n", text ? err : "the rules cannot be read");
        return 2;
    }
    int wrong = 0, lost = 0, through = 0;
    printf("%-9s %9s %-7s %10s %10s %11s  %-14s %-14s %s\n", "coll", "bytes", "mode", "native us",
           "auto us", "native/auto", "auto ran", "rules say", "verdict");
    for (int k = 0; k < s->n; k++) {
        const tune_obs_t *o = &s->obs[k];
        pc_shape_t sh = {.ranks = o->ranks, .nodes = o->nodes, .ppn = o->ppn, .nic = o->nic,
                         .shm = 1};
        int i, algo = -1, num, line;
        const char *want = pc_registry_get(pc_rules_choose(rs, o->coll, &sh, o->bytes, 4, &i))->name;
        if (i >= 0)
            pc_rules_rule(rs, i, &algo, &num, &line);
        double r = o->us[0] / o->us[1];
        /* the cost models see the team's PACOLL_PORTS, not 4: any choice of theirs */
        int same = !strcmp(want, ran[k]) || algo == PC_ALGO_MODEL;
        int native = tune_is_native(ran[k]);
        const char *verdict = !same            ? "WRONG CHOICE"
                              : r >= floor     ? "ok"
                              : native         ? "pass-through, within noise"
                                               : "pacoll's rule lost";
        wrong += !same, lost += same && r < floor && !native, through += same && r < floor && native;
        printf("%-9s %9.0f %-7s %10.2f %10.2f %11.3f  %-14s %-14s %s\n",
               pacoll_coll_name((pacoll_coll_t)o->coll), o->bytes, o->mode, o->us[0], o->us[1], r,
               ran[k], want, verdict);
    }
    printf("pacoll-tune --check %s: %d measurements, %d where auto ran another algorithm than "
           "the rules name, %d where pacoll's rule lost (native/auto < %.2f), %d passed through "
           "to the MPI library below %.2f (native on both sides: pacoll's per-call cost and "
           "noise, not a loss)\n",
           rules, s->n, wrong, lost, floor, through, floor);
    pc_rules_free(rs);
    return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
    args_t a = {0};
    int pr = parse(argc, argv, &a);
    if (pr == 1) { /* --help, --version: nothing to measure, no MPI */
        free(a.from);
        return 0;
    }
    /* --check: auto must read the rules being checked, and only them:
     * learning in place would choose by its own trials on shapes the rules
     * leave to the MPI library (set before MPI_Init, where pacoll reads its
     * environment; under SMPI the ranks are threads of one process, so the
     * environment must come from smpirun) */
    if (!pr && a.o.check) {
        const char *cur = getenv("PACOLL_RULES"), *learn = getenv("PACOLL_LEARN");
        if (!cur || strcmp(cur, a.o.check) || !learn || strcmp(learn, "0")) {
#ifdef SMPI_HELPERS_H
            fprintf(stderr, "pacoll-tune: under SMPI set PACOLL_RULES=%s PACOLL_LEARN=0 in "
                            "smpirun's environment for --check\n", a.o.check);
            pr = 2;
#else
            setenv("PACOLL_RULES", a.o.check, 1);
            setenv("PACOLL_LEARN", "0", 1);
#endif
        }
    }
    MPI_Init(&argc, &argv);
    int me = 0, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (pr) {
        if (pr == 2 && me == 0)
            usage(stderr);
        free(a.from);
        MPI_Finalize();
        return pr == 1 ? 0 : 2;
    }
    char cmd[2048], mpi[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "", host[MPI_MAX_PROCESSOR_NAME + 1],
                                                              date[40];
    int len = 0;
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, "\n")] = '\0';
    MPI_Get_processor_name(host, &len);
    now_utc(date, sizeof date);
    tune_set_t s = {0};
    tune_prov_t prov = {.command = cmd, .mpi = mpi, .host = host, .date = date,
                        .margin = a.o.margin};
    if (a.nfrom) { /* measurements already taken: one process does it all */
        joined(cmd, sizeof cmd, argc, argv, "");
        prov.mpi = "(from the measurements' files)", prov.host = "(from the measurements' files)";
        char err[400];
        for (int i = 0; i < a.nfrom && !rc && me == 0; i++)
            if (tune_read_file(&s, a.from[i], err, sizeof err))
                fprintf(stderr, "pacoll-tune: %s\n", err), rc = 2;
    } else {
        int P;
        MPI_Comm_size(MPI_COMM_WORLD, &P);
        char np[32];
        snprintf(np, sizeof np, "mpirun -np %d", P);
        joined(cmd, sizeof cmd, argc, argv, np);
        char(*ran)[TUNE_NAME] = calloc(4096, TUNE_NAME);
        int e = ran ? tune_measure(MPI_COMM_WORLD, &a.o, &s, ran, 4096) : MPI_ERR_NO_MEM;
        if (e != MPI_SUCCESS) {
            if (me == 0)
                fprintf(stderr, "pacoll-tune: a collective failed (MPI error %d)\n", e);
            rc = 3;
        } else if (a.o.check && me == 0) {
            rc = check_table(&s, ran, a.o.check, a.o.floor);
        }
        free(ran);
    }
    if (me == 0 && !rc && a.o.save && save(a.o.save, &s, &prov)) {
        fprintf(stderr, "pacoll-tune: %s cannot be written\n", a.o.save);
        rc = 3;
    }
    if (me == 0 && !rc && !a.o.check) {
        char *text = NULL;
        int n = write_rules(a.o.out, &s, &prov, &text);
        if (n < 0) {
            fprintf(stderr, "pacoll-tune: %s cannot be written\n", a.o.out);
            rc = 3;
        } else {
            FILE *info = strcmp(a.o.out, "-") ? stdout : stderr;
            fprintf(info, "pacoll-tune: %d rules from %d measurements written to %s\n", n, s.n,
                    a.o.out);
            int below = tune_replay(info, text, "the rules made", &s, a.o.floor);
            if (below != 0)
                rc = 1;
            if (a.o.compare) {
                char *file = pc_file_read(a.o.compare);
                int d = file ? tune_compare(info, text, file, a.o.compare) : -1;
                if (!file)
                    fprintf(stderr, "pacoll-tune: %s cannot be read\n", a.o.compare);
                if (d)
                    rc = 1;
                else
                    fprintf(info, "pacoll-tune: %s has exactly these rules\n", a.o.compare);
                free(file);
            }
        }
        free(text);
    }
    tune_set_free(&s);
    free(a.from);
    MPI_Finalize();
    return rc;
}
