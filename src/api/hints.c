/*
 * Info hints naming a communicator's algorithms (docs/INTERPOSE.md, "Info
 * hints"): the keys pacoll_alltoall, pacoll_alltoallv,
 * pacoll_allgather and pacoll_gather take what PACOLL_<COLL> takes ("auto",
 * "native" or an algorithm's name) and do what pacoll_comm_set_algorithm
 * does.  MPI_Comm_set_info, MPI_Comm_dup_with_info and MPI_Comm_split_type
 * give them (the preload library's wrappers, interpose/); MPI_Comm_get_info
 * reports them.  The MPI library may drop keys it does not know (MPICH does),
 * so the choice is kept by pacoll (pc_comm_choose), and MPI_Comm_dup passes
 * it on.  A value that names no algorithm is ignored, as MPI lets a library
 * ignore a hint, and said on stderr: a user who typed a hint must learn it did
 * nothing.
 */
#include "api/api.h"

static void hint_key(pacoll_coll_t coll, char *key, size_t len)
{
    snprintf(key, len, "pacoll_%s", pacoll_coll_name(coll));
}

/* The algorithm info names for coll: 0 and *idx set, else 1 (no key, or a
 * bad value, said by rank 0 of comm). */
static int read_hint(const char *where, MPI_Comm comm, MPI_Info info, pacoll_coll_t coll, int *idx)
{
    char key[32], val[MPI_MAX_INFO_VAL + 1];
    int len = 0, flag = 0, rank = 0;
    hint_key(coll, key, sizeof key);
    if (PMPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS || !flag)
        return 1;
    if (len > MPI_MAX_INFO_VAL)
        len = MPI_MAX_INFO_VAL;
    if (PMPI_Info_get(info, key, len, val, &flag) != MPI_SUCCESS || !flag)
        return 1;
    val[len] = '\0';
    if (!val[0] || !strcmp(val, "auto")) {
        *idx = -1;
        return 0;
    }
    if ((*idx = pc_registry_find(coll, val)) >= 0)
        return 0;
    char names[PC_MSG_LEN / 2];
    pc_registry_names(coll, names, sizeof names);
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0)
        pc_log("%s: %s='%s' is not an algorithm for %s (valid: auto, %s): the hint is ignored",
               where, key, val, pacoll_coll_name(coll), names);
    return 1;
}

int pc_api_hints_set(const char *where, MPI_Comm comm, MPI_Info info, int replace)
{
    int inter = 0, rc = MPI_SUCCESS;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return MPI_SUCCESS; /* pacoll hands every intercommunicator call over */
    for (int c = 0; c < PACOLL_NCOLL && rc == MPI_SUCCESS; c++) {
        int idx = -1;
        if (info != MPI_INFO_NULL && read_hint(where, comm, info, (pacoll_coll_t)c, &idx) != 0) {
            if (!replace)
                continue; /* set_info: a hint not given keeps its value */
            idx = -1;
        }
        if (idx >= 0 || pc_comm_choice(comm, (pacoll_coll_t)c) >= 0)
            rc = pc_api_choose(comm, (pacoll_coll_t)c, idx);
    }
    return rc;
}

int pc_api_hints_get(MPI_Comm comm, MPI_Info info)
{
    int rc = MPI_SUCCESS;
    for (int c = 0; c < PACOLL_NCOLL && rc == MPI_SUCCESS && info != MPI_INFO_NULL; c++) {
        int idx = pc_comm_choice(comm, (pacoll_coll_t)c);
        char key[32];
        hint_key((pacoll_coll_t)c, key, sizeof key);
        if (idx >= 0)
            rc = PMPI_Info_set(info, key, pc_registry_get(idx)->name);
    }
    return rc;
}
