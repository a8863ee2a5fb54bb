/*
 * check_env: one collective under the environment ctest gives it, and what
 * pacoll says about it.
 *
 *   check_env COLL error WORD...   the call must return MPI_ERR_ARG (with
 *                                  MPI_ERRORS_RETURN) on every rank, and the
 *                                  library's stderr must contain every WORD
 *   check_env COLL ok [WORD...]    the call must succeed with right values;
 *                                  WORDs, if any, must appear on stderr
 *
 * A WORD may be a|b (either one) or @algos: every algorithm registered for
 * COLL, and "native".  A WORD last=NAME instead requires the algorithm pacoll
 * reports for the call to be NAME.
 *
 * The library's stderr is captured (fd 2 pointed at a temporary file around
 * the call) and printed between ">>>" and "<<<" after "check_env: library
 * said:", so a ctest PASS_REGULAR_EXPRESSION can look at it too.  The last
 * line is "check_env: PASS ..." or "check_env: FAIL ...".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pacoll.h"

static int rank, size;

static char *captured;

/* Under SMPI all ranks share one process (and fd 2): only rank 0 redirects. */
static int capturing(void)
{
#ifdef SMPI_HELPERS_H
    return rank == 0;
#else
    return 1;
#endif
}

static FILE *cap_file;
static int saved_fd = -1;

static void capture_begin(void)
{
    if (!capturing()) return;
    fflush(stderr);
    cap_file = tmpfile();
    if (!cap_file) return;
    saved_fd = dup(2);
    dup2(fileno(cap_file), 2);
}

static void capture_end(void)
{
    if (!capturing() || !cap_file) return;
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    /* the file offset moved through fd 2, not through the FILE */
    long n = (long)lseek(fileno(cap_file), 0, SEEK_END);
    if (n < 0) n = 0;
    captured = calloc((size_t)n + 1, 1);
    lseek(fileno(cap_file), 0, SEEK_SET);
    size_t got = 0;
    while ((long)got < n) {
        ssize_t k = read(fileno(cap_file), captured + got, (size_t)n - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    fclose(cap_file);
    fputs(captured, stderr); /* still shown where it would have gone */
}

static int contains(const char *word)
{
    if (!captured) return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", word);
    for (char *alt = strtok(buf, "|"); alt; alt = strtok(NULL, "|"))
        if (strstr(captured, alt)) return 1;
    return 0;
}

/* runs coll once on comm with small, checkable data; *bad counts wrong values */
static int run(int coll, MPI_Comm comm, long *bad)
{
    int P, me, n = 3, rc = MPI_SUCCESS;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int *s = malloc(sizeof(int) * (size_t)(P * n)), *r = malloc(sizeof(int) * (size_t)(P * n));
    int *cnt = malloc(sizeof(int) * (size_t)P), *dsp = malloc(sizeof(int) * (size_t)P);
    for (int j = 0; j < P; j++) {
        cnt[j] = n;
        dsp[j] = j * n;
        for (int i = 0; i < n; i++) s[j * n + i] = coll == PACOLL_ALLTOALL || coll == PACOLL_ALLTOALLV
                                                         ? me * 10000 + j * 100 + i
                                                         : me * 10000 + i;
    }
    memset(r, 0xff, sizeof(int) * (size_t)(P * n));
    switch (coll) {
    case PACOLL_ALLTOALL: rc = pacoll_alltoall(s, n, MPI_INT, r, n, MPI_INT, comm); break;
    case PACOLL_ALLTOALLV:
        rc = pacoll_alltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, comm);
        break;
    case PACOLL_ALLGATHER: rc = pacoll_allgather(s, n, MPI_INT, r, n, MPI_INT, comm); break;
    case PACOLL_GATHER: rc = pacoll_gather(s, n, MPI_INT, r, n, MPI_INT, 0, comm); break;
    }
    *bad = 0;
    if (rc == MPI_SUCCESS && (coll != PACOLL_GATHER || me == 0))
        for (int j = 0; j < P; j++)
            for (int i = 0; i < n; i++) {
                int want = coll == PACOLL_ALLTOALL || coll == PACOLL_ALLTOALLV
                               ? j * 10000 + me * 100 + i
                               : j * 10000 + i;
                *bad += r[j * n + i] != want;
            }
    free(s);
    free(r);
    free(cnt);
    free(dsp);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || pacoll_coll_from_name(argv[1]) < 0 ||
        (strcmp(argv[2], "error") && strcmp(argv[2], "ok"))) {
        if (rank == 0) fprintf(stderr, "usage: check_env COLL error|ok [WORD...]\n");
        MPI_Finalize();
        return 2;
    }
    int coll = pacoll_coll_from_name(argv[1]);
    int want_error = strcmp(argv[2], "error") == 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    long bad = 0;
    capture_begin();
    int rc = run(coll, comm, &bad);
    capture_end();

    char why[1024] = "";
    size_t wl = 0;
#define WHY(...) (wl += (size_t)snprintf(why + wl, wl < sizeof why ? sizeof why - wl : 0, __VA_ARGS__))
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    int ok = 1;
    if (want_error && cls != MPI_ERR_ARG) {
        ok = 0;
        WHY(" %s returned class %d, not MPI_ERR_ARG (%d);", argv[1], cls, MPI_ERR_ARG);
    }
    if (!want_error && rc != MPI_SUCCESS) {
        ok = 0;
        WHY(" %s returned error class %d;", argv[1], cls);
    }
    if (!want_error && bad) {
        ok = 0;
        WHY(" %s gave %ld wrong values;", argv[1], bad);
    }
    /* the stderr words: one rank having said everything is enough */
    int said = 1;
    for (int a = 3; a < argc; a++) {
        if (strncmp(argv[a], "last=", 5) == 0) {
            char last[64] = "";
            pacoll_comm_last_algorithm(comm, (pacoll_coll_t)coll, last, sizeof last);
            if (strcmp(last, argv[a] + 5) != 0) {
                ok = 0;
                WHY(" last algorithm is \"%s\", not \"%s\";", last, argv[a] + 5);
            }
        } else if (strcmp(argv[a], "@algos") == 0) {
            if (!contains("native")) {
                said = 0;
                if (capturing()) WHY(" stderr does not name \"native\";");
            }
            int n = pacoll_algorithm_count();
            for (int i = 0; i < n; i++) {
                pacoll_algo_info_t info;
                if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
                    !contains(info.name)) {
                    said = 0;
                    if (capturing()) WHY(" stderr does not name algorithm \"%s\";", info.name);
                }
            }
        } else if (!contains(argv[a])) {
            said = 0;
            if (capturing()) WHY(" stderr does not contain \"%s\";", argv[a]);
        }
    }
    if (!capturing()) said = 0;
    int any_said = 0, all_ok = 0;
    MPI_Allreduce(&said, &any_said, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok && rank != 0) fprintf(stdout, "check_env: rank %d:%s\n", rank, why);
    if (rank == 0) {
        printf("check_env: library said: >>>%s<<<\n", captured ? captured : "");
        if (!ok || !any_said) printf("check_env: rank 0:%s\n", why);
        const char *env[] = {"PACOLL_ALLTOALL", "PACOLL_ALLTOALLV", "PACOLL_ALLGATHER",
                             "PACOLL_GATHER",   "PACOLL_NODE_SIZE", "PACOLL_PORTS",
                             "PACOLL_TRANSPORT"};
        char envs[512] = "";
        size_t el = 0;
        for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
            if (getenv(env[i]))
                el += (size_t)snprintf(envs + el, el < sizeof envs ? sizeof envs - el : 0, " %s=%s",
                                       env[i], getenv(env[i]));
        printf("check_env: %s: %s %s on %d ranks with%s\n", all_ok && any_said ? "PASS" : "FAIL",
               argv[1], want_error ? "expected to fail" : "expected to work", size,
               envs[0] ? envs : " no PACOLL_ variables");
        fflush(stdout);
    }
    free(captured);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all_ok && any_said ? 0 : 1;
}
