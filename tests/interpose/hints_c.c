/*
 * hints_c: the info hints pacoll_<coll> (src/api/hints.c, docs/INTERPOSE.md)
 * in a plain MPI program, NOT linked with pacoll.  Preloaded, it checks that
 *   - MPI_Comm_dup_with_info, MPI_Comm_split_type and MPI_Comm_set_info give
 *     a communicator the algorithm a hint names, and MPI_Comm_get_info
 *     reports it;
 *   - MPI_Comm_dup passes the choice on; MPI_Comm_dup_with_info with other
 *     hints and MPI_Comm_split do not;
 *   - MPI_Comm_set_info changes only the hints it carries, also after the
 *     communicator's first collective, and "auto" returns to the rules;
 *   - a value that names no algorithm changes nothing (the message on stderr
 *     is required by the test);
 * and every alltoall's values are right.  Which algorithm ran is asked of
 * pacoll_comm_last_algorithm, found with dlsym: without the preload there is
 * none, and only the values are checked.
 *
 * Prints "hints-c: OK (N ranks, preloaded|not preloaded)" on rank 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;
static long errors;
static int (*last_algorithm)(MPI_Comm, int, char *, int); /* pacoll_comm_last_algorithm */

static void fail(const char *what, const char *got, const char *want)
{
    if (errors++ < 10)
        fprintf(stderr, "hints-c: rank %d: %s: got '%s', expected '%s'\n", rank, what, got, want);
}

static MPI_Info info_of(const char *key, const char *value, const char *key2, const char *value2)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (key)
        MPI_Info_set(info, key, value);
    if (key2)
        MPI_Info_set(info, key2, value2);
    return info;
}

/* comm's hint key as MPI_Comm_get_info reports it ("" when absent). */
static void expect_hint(MPI_Comm comm, const char *key, const char *want, const char *what)
{
    if (!last_algorithm)
        return;
    MPI_Info info;
    char got[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Comm_get_info(comm, &info);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, got, &flag);
    MPI_Info_free(&info);
    if (strcmp(flag ? got : "", want) != 0)
        fail(what, flag ? got : "", want);
}

/* An alltoall of count ints on comm, checked value by value; its algorithm
 * is returned in ran (empty when not preloaded). */
static void alltoall(MPI_Comm comm, int count, char *ran, const char *what)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int *s = malloc(sizeof(int) * (size_t)(p * count)), *d = malloc(sizeof(int) * (size_t)(p * count));
    for (int i = 0; i < p * count; i++)
        s[i] = r * 100000 + i, d[i] = -1;
    if (MPI_Alltoall(s, count, MPI_INT, d, count, MPI_INT, comm) != MPI_SUCCESS)
        fail(what, "an error", "MPI_SUCCESS");
    for (int j = 0; j < p; j++)
        for (int k = 0; k < count; k++)
            if (d[j * count + k] != j * 100000 + r * count + k) {
                fail(what, "wrong values", "the sender's");
                j = p;
                break;
            }
    free(s), free(d);
    ran[0] = '\0';
    if (last_algorithm)
        last_algorithm(comm, 0 /* PACOLL_ALLTOALL */, ran, 64);
}

static void expect_ran(MPI_Comm comm, const char *want, const char *what)
{
    char ran[64];
    alltoall(comm, 5, ran, what);
    if (last_algorithm && strcmp(ran, want) != 0)
        fail(what, ran, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    *(void **)&last_algorithm = dlsym(RTLD_DEFAULT, "pacoll_comm_last_algorithm");

    /* what the rules choose here, on a communicator without hints */
    char rules[64];
    MPI_Comm plain;
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    alltoall(plain, 5, rules, "no hints");
    expect_hint(plain, "pacoll_alltoall", "", "no hints: get_info");
    if (last_algorithm && (!strcmp(rules, "bruck") || !strcmp(rules, "direct")))
        fail("the rules' choice, which the hints below must differ from", rules, "another");

    MPI_Info bruck = info_of("pacoll_alltoall", "bruck", "unrelated_key", "x");
    MPI_Comm a, b, c, d, e, f;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, bruck, &a);
    expect_hint(a, "pacoll_alltoall", "bruck", "dup_with_info: get_info");
    expect_ran(a, "bruck", "dup_with_info");
    MPI_Comm_dup(a, &b); /* a library's duplicate keeps the caller's choice */
    expect_hint(b, "pacoll_alltoall", "bruck", "dup: get_info");
    expect_ran(b, "bruck", "dup");
    MPI_Info none = info_of(NULL, NULL, NULL, NULL);
    MPI_Comm_dup_with_info(a, none, &c); /* its hints instead of a's */
    expect_hint(c, "pacoll_alltoall", "", "dup_with_info without hints: get_info");
    expect_ran(c, rules, "dup_with_info without hints");
    MPI_Comm_split(a, 0, rank, &d); /* split passes no hints on */
    expect_ran(d, rules, "split");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, bruck, &e);
    expect_ran(e, "bruck", "split_type");

    /* set_info on a communicator that has run a collective already */
    MPI_Comm_dup(MPI_COMM_WORLD, &f);
    expect_ran(f, rules, "before set_info");
    MPI_Info direct = info_of("pacoll_alltoall", "direct", NULL, NULL);
    MPI_Comm_set_info(f, direct);
    expect_hint(f, "pacoll_alltoall", "direct", "set_info: get_info");
    expect_ran(f, "direct", "set_info");
    MPI_Info other = info_of("pacoll_gather", "binomial", NULL, NULL);
    MPI_Comm_set_info(f, other); /* pacoll_alltoall not given: kept */
    expect_ran(f, "direct", "set_info of another key");
    expect_hint(f, "pacoll_gather", "binomial", "set_info of another key: get_info");
    MPI_Info bad = info_of("pacoll_alltoall", "drect", NULL, NULL);
    if (MPI_Comm_set_info(f, bad) != MPI_SUCCESS)
        fail("set_info with a bad value", "an error", "MPI_SUCCESS");
    expect_ran(f, "direct", "set_info with a bad value");
    MPI_Info autov = info_of("pacoll_alltoall", "auto", NULL, NULL);
    MPI_Comm_set_info(f, autov);
    expect_hint(f, "pacoll_alltoall", "", "set_info auto: get_info");
    expect_ran(f, rules, "set_info auto");

    MPI_Info_free(&bruck), MPI_Info_free(&none), MPI_Info_free(&direct);
    MPI_Info_free(&other), MPI_Info_free(&bad), MPI_Info_free(&autov);
    MPI_Comm_free(&a), MPI_Comm_free(&b), MPI_Comm_free(&c), MPI_Comm_free(&d);
    MPI_Comm_free(&e), MPI_Comm_free(&f), MPI_Comm_free(&plain);

    long total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("hints-c: OK (%d ranks, %s)\n", nprocs,
                   last_algorithm ? "preloaded" : "not preloaded");
        else
            printf("hints-c: FAILED: %ld mismatches\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
