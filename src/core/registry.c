/*
 * The one table of algorithms.  Adding an algorithm = one file defining its
 * descriptor + one line here.  The table is constant data (SimGrid's
 * COLL_APPLY registry macros are the model: one place names them all).
 */
#include "core/algo.h"

#define NATIVE(var, coll_id, what)                                                               \
    static const pacoll_algo_t var = {.name = "native",                                          \
                                      .coll = coll_id,                                           \
                                      .needs = PACOLL_NEEDS_NOTHING,                             \
                                      .source = "the MPI library's own " what,                   \
                                      .summary = "handed to PMPI_" what}
NATIVE(native_alltoall, PACOLL_ALLTOALL, "Alltoall");
NATIVE(native_alltoallv, PACOLL_ALLTOALLV, "Alltoallv");
NATIVE(native_allgather, PACOLL_ALLGATHER, "Allgather");
NATIVE(native_gather, PACOLL_GATHER, "Gather");

extern const pacoll_algo_t pc_alltoall_direct;
extern const pacoll_algo_t pc_alltoallv_direct;
extern const pacoll_algo_t pc_allgather_direct;
extern const pacoll_algo_t pc_gather_direct;
extern const pacoll_algo_t pc_allgather_rd_rdma, pc_allgather_ring_rdma;
/* multirail (flat k-port algorithms) */
extern const pacoll_algo_t pc_gather_binomial;
/* beyond the seeds: MVAPICH2's two-level gather */
extern const pacoll_algo_t pc_gather_two_level;
extern const pacoll_algo_t pc_allgather_bruck;
extern const pacoll_algo_t pc_allgather_exchange;
extern const pacoll_algo_t pc_alltoall_bruck;
extern const pacoll_algo_t pc_alltoall_exchange;
extern const pacoll_algo_t pc_alltoall_pap_direct, pc_alltoall_shm_direct, pc_alltoall_pap_shm_direct;
extern const pacoll_algo_t pc_allgather_pap_direct, pc_allgather_shm_direct, pc_allgather_pap_shm_direct;
extern const pacoll_algo_t pc_alltoall_leader, pc_alltoall_multileader;
extern const pacoll_algo_t pc_allgather_smp_gather_bcast, pc_allgather_smp_direct, pc_allgather_smp_bruck;
extern const pacoll_algo_t pc_alltoallv_sloav;
extern const pacoll_algo_t pc_alltoallv_sloavx;

static const pacoll_algo_t *const table[] = {
    &native_alltoall,  &pc_alltoall_direct,  &native_alltoallv, &pc_alltoallv_direct,
    &native_allgather, &pc_allgather_direct, &native_gather,    &pc_gather_direct,
    &pc_allgather_rd_rdma, &pc_allgather_ring_rdma,
    /* multirail (flat k-port algorithms) */
    &pc_gather_binomial, &pc_allgather_bruck, &pc_allgather_exchange, &pc_alltoall_bruck,
    &pc_alltoall_exchange,
    /* pap-aware (docs/PAP.md) */
    &pc_alltoall_pap_direct, &pc_alltoall_shm_direct, &pc_alltoall_pap_shm_direct,
    &pc_allgather_pap_direct, &pc_allgather_shm_direct, &pc_allgather_pap_shm_direct,
    &pc_alltoall_leader, &pc_alltoall_multileader,
    &pc_allgather_smp_gather_bcast, &pc_allgather_smp_direct, &pc_allgather_smp_bruck,
    &pc_alltoallv_sloav, &pc_alltoallv_sloavx,
    /* beyond the seeds */
    &pc_gather_two_level,
};

_Static_assert(sizeof table / sizeof table[0] <= PC_MAX_ALGOS, "raise PC_MAX_ALGOS");

int pc_registry_count(void) { return (int)(sizeof table / sizeof table[0]); }

const pacoll_algo_t *pc_registry_get(int index)
{
    if (index < 0 || index >= pc_registry_count())
        return NULL;
    return table[index];
}

int pc_registry_find(pacoll_coll_t coll, const char *name)
{
    for (int i = 0; i < pc_registry_count(); i++)
        if (table[i]->coll == coll && strcmp(table[i]->name, name) == 0)
            return i;
    return -1;
}

int pc_registry_native(pacoll_coll_t coll) { return pc_registry_find(coll, "native"); }

void pc_registry_names(pacoll_coll_t coll, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < pc_registry_count() && used < len; i++) {
        if (table[i]->coll != coll)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", table[i]->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* ---- public listing ---- */
PC_EXPORT int pacoll_algorithm_count(void) { return pc_registry_count(); }

PC_EXPORT int pacoll_algorithm_info(int index, pacoll_algo_info_t *info)
{
    const pacoll_algo_t *a = pc_registry_get(index);
    if (!a || !info)
        return MPI_ERR_ARG;
    info->name = a->name;
    info->coll = a->coll;
    info->needs = a->needs;
    info->source = a->source;
    info->summary = a->summary;
    return MPI_SUCCESS;
}

static const char *const coll_names[PACOLL_NCOLL] = {"alltoall", "alltoallv", "allgather",
                                                      "gather"};

PC_EXPORT const char *pacoll_coll_name(pacoll_coll_t coll)
{
    if ((int)coll < 0 || coll >= PACOLL_NCOLL)
        return NULL;
    return coll_names[coll];
}

PC_EXPORT int pacoll_coll_from_name(const char *name)
{
    for (int c = 0; name && c < PACOLL_NCOLL; c++)
        if (strcmp(name, coll_names[c]) == 0)
            return c;
    return -1;
}

PC_EXPORT const char *pacoll_version(void) { return PACOLL_VERSION_STRING; }
