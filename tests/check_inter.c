/*
 * check_inter: the four collectives on intercommunicators, through pacoll
 * with the automatic choice, "native" and every registered algorithm by
 * name, against the MPI library's own result (PMPI_*) and against the
 * values every block must hold.
 *
 * MPI_COMM_WORLD is split into two groups of unequal sizes where it can be
 * (low: the first size/3+1 ranks), joined by MPI_Intercomm_create.  Each
 * group sends its own count per block and receives the other group's (one
 * side's count is zero in some rounds); alltoallv's arrays are sized by the
 * remote group; gather runs with each group as the root group (MPI_ROOT at
 * the root, MPI_PROC_NULL at its group's other ranks, the root's rank in
 * the other group).  Rounds run under MPI_ERRORS_RETURN and under the
 * default handler, on an intercommunicator and on a dup of it.  A bad
 * count on an intercommunicator must get the MPI library's verdict.
 *
 * Last line of rank 0: "check_inter: N checks passed, F failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "pacoll.h"

static int wrank, wsize;

static int val(int src, int dst, int i, int salt) { return src * 100003 + dst * 1009 + i * 7 + salt; }

typedef struct side {
    MPI_Comm inter;
    int low;           /* this rank is in the low group */
    int lrank, lsize;  /* in my group */
    int rsize;         /* of the remote group */
    int *rworld;       /* world rank of each remote rank */
    int *lworld;       /* world rank of each local rank */
} side_t;

/* The algorithms to run for coll: NULL (auto), "native", every registered. */
static int algos(int coll, const char **out, int max)
{
    int n = 0;
    out[n++] = NULL;
    out[n++] = "native";
    for (int i = 0; i < pacoll_algorithm_count() && n < max; i++) {
        pacoll_algo_info_t info;
        if (pacoll_algorithm_info(i, &info) == MPI_SUCCESS && (int)info.coll == coll &&
            strcmp(info.name, "native") != 0)
            out[n++] = info.name;
    }
    return n;
}

/* per-group element counts of a round: low sends nlow per block, high nhigh */
static void counts_of(int round, int *nlow, int *nhigh)
{
    static const int c[][2] = {{3, 5}, {0, 4}, {2, 0}, {1, 1}, {0, 0}, {1000, 7}};
    *nlow = c[round % 6][0], *nhigh = c[round % 6][1];
}

static void check_rc(const char *what, int rc)
{
    char w[256];
    snprintf(w, sizeof w, "%s returned %d (class %d)", what, rc, err_class(rc));
    expect_true(w, rc == MPI_SUCCESS);
}

static void run_alltoall(const side_t *s, int round, const char *algo, int salt)
{
    int nlow, nhigh;
    counts_of(round, &nlow, &nhigh);
    int ns = s->low ? nlow : nhigh, nr = s->low ? nhigh : nlow;
    int *sb = malloc(sizeof(int) * ((size_t)ns * s->rsize + 1));
    int *rb = malloc(sizeof(int) * ((size_t)nr * s->rsize + 1));
    int *ref = malloc(sizeof(int) * ((size_t)nr * s->rsize + 1));
    for (int j = 0; j < s->rsize; j++)
        for (int i = 0; i < ns; i++)
            sb[j * ns + i] = val(wrank, s->rworld[j], i, salt);
    memset(rb, 0xa5, sizeof(int) * ((size_t)nr * s->rsize + 1));
    memset(ref, 0xa5, sizeof(int) * ((size_t)nr * s->rsize + 1));
    char w[256];
    snprintf(w, sizeof w, "alltoall[%s] inter round %d", algo ? algo : "auto", round);
    check_rc(w, pacoll_alltoall_alg(algo, sb, ns, MPI_INT, rb, nr, MPI_INT, s->inter));
    check_rc("PMPI_Alltoall inter", PMPI_Alltoall(sb, ns, MPI_INT, ref, nr, MPI_INT, s->inter));
    int bad = memcmp(rb, ref, sizeof(int) * ((size_t)nr * s->rsize + 1)) != 0;
    for (int j = 0; j < s->rsize; j++)
        for (int i = 0; i < nr; i++)
            bad |= rb[j * nr + i] != val(s->rworld[j], wrank, i, salt);
    snprintf(w, sizeof w, "alltoall[%s] inter round %d (send %d, receive %d per block): values",
             algo ? algo : "auto", round, ns, nr);
    expect_true(w, !bad);
    free(sb), free(rb), free(ref);
}

static void run_alltoallv(const side_t *s, int round, const char *algo, int salt)
{
    int P = s->rsize;
    int *sc = malloc(sizeof(int) * P), *sd = malloc(sizeof(int) * P);
    int *rc = malloc(sizeof(int) * P), *rd = malloc(sizeof(int) * P);
    /* from world a to world b: (a + 2b + round) % 4 elements, 0 in round 1 from the high group */
    int so = 0, ro = 0;
    for (int j = P - 1; j >= 0; j--) { /* blocks in reverse order */
        int to = s->rworld[j];
        sc[j] = (round == 1 && !s->low) ? 0 : (wrank + 2 * to + round) % 4;
        rc[j] = (round == 1 && s->low) ? 0 : (to + 2 * wrank + round) % 4;
        sd[j] = so, so += sc[j] + 1; /* a gap after each block */
        rd[j] = ro, ro += rc[j] + 1;
    }
    int *sb = malloc(sizeof(int) * (so + 1)), *rb = malloc(sizeof(int) * (ro + 1));
    int *ref = malloc(sizeof(int) * (ro + 1));
    for (int j = 0; j < P; j++)
        for (int i = 0; i < sc[j]; i++)
            sb[sd[j] + i] = val(wrank, s->rworld[j], i, salt);
    memset(rb, 0xa5, sizeof(int) * (ro + 1));
    memset(ref, 0xa5, sizeof(int) * (ro + 1));
    char w[256];
    snprintf(w, sizeof w, "alltoallv[%s] inter round %d", algo ? algo : "auto", round);
    check_rc(w, pacoll_alltoallv_alg(algo, sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, s->inter));
    check_rc("PMPI_Alltoallv inter", PMPI_Alltoallv(sb, sc, sd, MPI_INT, ref, rc, rd, MPI_INT, s->inter));
    int bad = memcmp(rb, ref, sizeof(int) * (ro + 1)) != 0;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < rc[j]; i++)
            bad |= rb[rd[j] + i] != val(s->rworld[j], wrank, i, salt);
    snprintf(w, sizeof w, "alltoallv[%s] inter round %d: values", algo ? algo : "auto", round);
    expect_true(w, !bad);
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb), free(ref);
}

static void run_allgather(const side_t *s, int round, const char *algo, int salt)
{
    int nlow, nhigh;
    counts_of(round, &nlow, &nhigh);
    int ns = s->low ? nlow : nhigh, nr = s->low ? nhigh : nlow;
    int *sb = malloc(sizeof(int) * (ns + 1));
    int *rb = malloc(sizeof(int) * ((size_t)nr * s->rsize + 1));
    int *ref = malloc(sizeof(int) * ((size_t)nr * s->rsize + 1));
    for (int i = 0; i < ns; i++)
        sb[i] = val(wrank, -1, i, salt);
    memset(rb, 0xa5, sizeof(int) * ((size_t)nr * s->rsize + 1));
    memset(ref, 0xa5, sizeof(int) * ((size_t)nr * s->rsize + 1));
    char w[256];
    snprintf(w, sizeof w, "allgather[%s] inter round %d", algo ? algo : "auto", round);
    check_rc(w, pacoll_allgather_alg(algo, sb, ns, MPI_INT, rb, nr, MPI_INT, s->inter));
    check_rc("PMPI_Allgather inter", PMPI_Allgather(sb, ns, MPI_INT, ref, nr, MPI_INT, s->inter));
    int bad = memcmp(rb, ref, sizeof(int) * ((size_t)nr * s->rsize + 1)) != 0;
    for (int j = 0; j < s->rsize; j++)
        for (int i = 0; i < nr; i++)
            bad |= rb[j * nr + i] != val(s->rworld[j], -1, i, salt);
    snprintf(w, sizeof w, "allgather[%s] inter round %d: values", algo ? algo : "auto", round);
    expect_true(w, !bad);
    free(sb), free(rb), free(ref);
}

/* gather with the low group (root_low) or the high group as the root group */
static void run_gather(const side_t *s, int round, const char *algo, int salt, int root_low)
{
    int nlow, nhigh;
    counts_of(round, &nlow, &nhigh);
    int n = root_low ? nhigh : nlow; /* the other group sends n each */
    int in_root_group = s->low == root_low;
    int root_local = round % (in_root_group ? s->lsize : s->rsize); /* the root's rank in its group */
    int root, is_root = in_root_group && s->lrank == root_local;
    if (in_root_group)
        root = is_root ? MPI_ROOT : MPI_PROC_NULL;
    else
        root = root_local;
    int *sb = malloc(sizeof(int) * (n + 1));
    size_t rn = is_root ? (size_t)n * s->rsize + 1 : 1;
    int *rb = malloc(sizeof(int) * rn), *ref = malloc(sizeof(int) * rn);
    for (int i = 0; i < n; i++)
        sb[i] = val(wrank, -2, i, salt);
    memset(rb, 0xa5, sizeof(int) * rn);
    memset(ref, 0xa5, sizeof(int) * rn);
    char w[256];
    snprintf(w, sizeof w, "gather[%s] inter round %d root group %s", algo ? algo : "auto", round,
             root_low ? "low" : "high");
    /* the root group's non-roots pass nothing significant: NULL and garbage */
    if (in_root_group && !is_root) {
        check_rc(w, pacoll_gather_alg(algo, NULL, -1, MPI_DATATYPE_NULL, NULL, -1,
                                      MPI_DATATYPE_NULL, root, s->inter));
        check_rc("PMPI_Gather inter", PMPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, s->inter));
    } else {
        check_rc(w, pacoll_gather_alg(algo, sb, in_root_group ? 0 : n, MPI_INT, is_root ? rb : NULL,
                                      n, MPI_INT, root, s->inter));
        check_rc("PMPI_Gather inter",
                 PMPI_Gather(sb, in_root_group ? 0 : n, MPI_INT, is_root ? ref : NULL, n, MPI_INT,
                             root, s->inter));
    }
    if (is_root) {
        int bad = memcmp(rb, ref, sizeof(int) * rn) != 0;
        for (int j = 0; j < s->rsize; j++)
            for (int i = 0; i < n; i++)
                bad |= rb[j * n + i] != val(s->rworld[j], -2, i, salt);
        snprintf(w, sizeof w, "gather[%s] inter round %d root group %s: values at the root",
                 algo ? algo : "auto", round, root_low ? "low" : "high");
        expect_true(w, !bad);
    }
    free(sb), free(rb), free(ref);
}

static void run_all(const side_t *s, int salt)
{
    const char *al[64];
    for (int round = 0; round < 6; round++) {
        int n = algos(PACOLL_ALLTOALL, al, 64);
        for (int a = 0; a < n; a++)
            run_alltoall(s, round, al[a], salt + 100 * round + a);
        n = algos(PACOLL_ALLTOALLV, al, 64);
        for (int a = 0; a < n; a++)
            run_alltoallv(s, round, al[a], salt + 100 * round + a);
        n = algos(PACOLL_ALLGATHER, al, 64);
        for (int a = 0; a < n; a++)
            run_allgather(s, round, al[a], salt + 100 * round + a);
        n = algos(PACOLL_GATHER, al, 64);
        for (int a = 0; a < n; a++) {
            run_gather(s, round, al[a], salt + 100 * round + a, 1);
            run_gather(s, round, al[a], salt + 100 * round + a + 50, 0);
        }
    }
}

static void fill_side(side_t *s, MPI_Comm inter, int low)
{
    s->inter = inter;
    s->low = low;
    MPI_Comm_rank(inter, &s->lrank);
    MPI_Comm_size(inter, &s->lsize);
    MPI_Comm_remote_size(inter, &s->rsize);
    s->rworld = malloc(sizeof(int) * s->rsize);
    s->lworld = malloc(sizeof(int) * s->lsize);
    /* every rank's world rank, local group then remote group */
    MPI_Group lg, rg, wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(inter, &lg);
    MPI_Comm_remote_group(inter, &rg);
    int *idx = malloc(sizeof(int) * (s->lsize > s->rsize ? s->lsize : s->rsize));
    for (int i = 0; i < s->rsize; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(rg, s->rsize, idx, wg, s->rworld);
    for (int i = 0; i < s->lsize; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(lg, s->lsize, idx, wg, s->lworld);
    free(idx);
    MPI_Group_free(&lg), MPI_Group_free(&rg), MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_prog = "check_inter";
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (wrank == 0)
            printf("check_inter: needs 2 ranks or more\ncheck_inter: 0 checks passed, 1 failed\n");
        MPI_Finalize();
        return 1;
    }
    int nlow = wsize / 3 + 1, low = wrank < nlow;
    MPI_Comm local, inter, dup;
    MPI_Comm_split(MPI_COMM_WORLD, low, wsize - wrank, &local); /* reversed order inside */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? wsize - 1 : nlow - 1, 77, &inter);
    side_t s;

    /* the default handler (errors are fatal): legal calls only */
    fill_side(&s, inter, low);
    run_all(&s, 1);
    /* MPI_ERRORS_RETURN, on a dup */
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    side_t d = s;
    d.inter = dup;
    run_all(&d, 2);
    /* a bad count on every rank of an intercommunicator: the MPI library's verdict */
    {
        int sb[4] = {0}, rb[4] = {0};
        int rc = pacoll_alltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, dup);
        int ref = PMPI_Alltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, dup);
        char w[160];
        snprintf(w, sizeof w, "alltoall count -1 on an intercommunicator: class %d, the MPI "
                 "library's %d", err_class(rc), err_class(ref));
        expect_true(w, err_class(rc) == err_class(ref) && rc != MPI_SUCCESS);
        char name[32] = "x";
        pacoll_comm_last_algorithm(dup, PACOLL_ALLTOALL, name, sizeof name);
        expect_true("an intercommunicator has no pacoll team (nothing chosen)", name[0] == 0);
    }
    MPI_Comm_free(&dup);
    /* the intercommunicator's intracommunicator (MPI_Intercomm_merge) is pacoll's again */
    {
        MPI_Comm merged;
        MPI_Intercomm_merge(inter, !low, &merged);
        int P, me;
        MPI_Comm_size(merged, &P);
        MPI_Comm_rank(merged, &me);
        int *sb = malloc(sizeof(int) * P), *rb = malloc(sizeof(int) * P);
        for (int j = 0; j < P; j++)
            sb[j] = val(me, j, 0, 9);
        check_rc("alltoall[direct] on the merged intracommunicator",
                 pacoll_alltoall_alg("direct", sb, 1, MPI_INT, rb, 1, MPI_INT, merged));
        int bad = 0;
        for (int j = 0; j < P; j++)
            bad |= rb[j] != val(j, me, 0, 9);
        expect_true("alltoall[direct] on the merged intracommunicator: values", !bad);
        char name[32] = "";
        pacoll_comm_last_algorithm(merged, PACOLL_ALLTOALL, name, sizeof name);
        expect_true("the merged intracommunicator ran direct", strcmp(name, "direct") == 0);
        free(sb), free(rb);
        MPI_Comm_free(&merged);
    }
    free(s.rworld), free(s.lworld);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);

    int failed = check_summary();
    MPI_Finalize();
    return failed;
}
