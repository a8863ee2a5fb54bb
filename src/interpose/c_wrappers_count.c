/*
 * The large-count forms (MPI-4's MPI_<coll>_c) of the four collectives, for
 * unchanged C programs under LD_PRELOAD.  Built only where the MPI library's
 * mpi.h declares them (CMakeLists.txt checks; MPICH 4 has them, Open MPI
 * 4.1 and 5.0 do not), so no #if here.
 *
 * pacoll's algorithms take int counts.  A call is given to them, the way of
 * MPI_<coll> (the plain way included), when its counts can be said in int
 * without changing what moves; any other goes to the MPI library's own
 * PMPI_<coll>_c, and PACOLL_VERBOSE says so once.  Every rank must decide
 * the same, or some would run pacoll's algorithm and others the library's:
 *  - alltoall, allgather, gather: the decision is taken on a block's bytes
 *    (count times the type's size), which matching type signatures make the
 *    same on every rank: below 2 GiB every count of a type with a size fits
 *    in int, and a count of a type of size 0 moves nothing, so 0 stands for
 *    it; from 2 GiB up, the library.
 *  - alltoallv: blocks differ per peer and displacements are local, so the
 *    ranks agree with one reduction whether every count and displacement
 *    fits in int (the int path agrees on the block size with one too).
 * Intercommunicators go to the library, as pacoll's int path does with them.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <mpi.h>

#include "api/api.h"

/* The int forms with the caller's address, as MPI_<coll> would be entered,
 * but named MPI_<coll>_c in messages. */
#define PC_INT_FORM(lower, Camel, UPPER, shape)                                          \
    static inline __attribute__((always_inline)) int int_##lower(PC_PARAMS_##shape,        \
                                                                 const void *ra)          \
    {                                                                                    \
        PC_API_ENTER(lower, Camel, UPPER, shape, "MPI_" #Camel "_c", NULL, ra);          \
    }
PC_COLLS(PC_INT_FORM)
#undef PC_INT_FORM

/* A block of count elements of dt said in int: 1 with *n set when it is
 * below 2 GiB (a type of size 0 moves nothing: 0 elements), else 0; also 0
 * when dt's size cannot be had (the library then judges the call). */
static int block_in_int(MPI_Count count, MPI_Datatype dt, int *n)
{
    MPI_Count size = 0;
    if (count < 0) { /* erroneous: pacoll's checks say so, with MPI's class */
        *n = count < INT_MIN ? INT_MIN : (int)count;
        return 1;
    }
    if (dt == MPI_DATATYPE_NULL) { /* erroneous too: the checks say so */
        *n = count > INT_MAX ? INT_MAX : (int)count;
        return 1;
    }
    if (PMPI_Type_size_x(dt, &size) != MPI_SUCCESS || size < 0 || size == MPI_UNDEFINED)
        return 0;
    if (size == 0) {
        *n = count > INT_MAX ? 0 : (int)count;
        return 1;
    }
    if (count > INT_MAX || (uint64_t)count * (uint64_t)size > (uint64_t)INT_MAX)
        return 0;
    *n = (int)count;
    return 1;
}

static int is_inter(MPI_Comm comm)
{
    int inter = 0;
    return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

/* alltoall and allgather: in place, the send side is not significant. */
#define PC_COUNT_BLOCK(lower, Camel)                                                        \
    PC_EXPORT int MPI_##Camel##_c(const void *sendbuf, MPI_Count sendcount,                 \
                                  MPI_Datatype sendtype, void *recvbuf,                    \
                                  MPI_Count recvcount, MPI_Datatype recvtype,              \
                                  MPI_Comm comm)                                           \
    {                                                                                       \
        int s = 0, r = 0;                                                                   \
        if (is_inter(comm) ||                                                               \
            !(sendbuf == MPI_IN_PLACE || block_in_int(sendcount, sendtype, &s)) ||          \
            !block_in_int(recvcount, recvtype, &r)) {                                       \
            pc_api_say_handoff(comm, "MPI_" #Camel "_c", why_block);                        \
            return PMPI_##Camel##_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,       \
                                    recvtype, comm);                                        \
        }                                                                                   \
        return int_##lower(sendbuf, s, sendtype, recvbuf, r, recvtype, comm, PC_CALLER);    \
    }

static const char why_block[] =
    "a block of 2 GiB or more, or an intercommunicator, goes to the MPI library's "
    "large-count call";

PC_COUNT_BLOCK(alltoall, Alltoall)
PC_COUNT_BLOCK(allgather, Allgather)

/* gather: the receive side is significant at the root only, the send side
 * everywhere but at a root in place. */
PC_EXPORT int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int s = 0, r = 0, rank = -1;
    int ok = !is_inter(comm);
    if (ok && comm != MPI_COMM_NULL && PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        ok = 0;
    int at_root = rank == root;
    if (ok && !(at_root && sendbuf == MPI_IN_PLACE))
        ok = block_in_int(sendcount, sendtype, &s);
    if (ok && at_root)
        ok = block_in_int(recvcount, recvtype, &r);
    if (!ok) {
        pc_api_say_handoff(comm, "MPI_Gather_c", why_block);
        return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm);
    }
    return int_gather(sendbuf, s, sendtype, recvbuf, r, recvtype, root, comm, PC_CALLER);
}

/* alltoallv: counts and displacements as int, when every rank's fit (one
 * reduction agrees on it); in place, the send side is not significant. */
static int fits_int(MPI_Count v) { return v >= INT_MIN && v <= INT_MAX; }

PC_EXPORT int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    int n = 0, in_place = sendbuf == MPI_IN_PLACE;
    int intra = comm != MPI_COMM_NULL && !is_inter(comm);
    int mine = 1, all = 0;
    int *a = NULL;
    if (!intra || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
        mine = 0;
    if (mine && !(a = malloc(4 * (size_t)(n > 0 ? n : 1) * sizeof *a)))
        mine = 0;
    for (int i = 0; mine && i < n; i++) {
        if (!in_place && !(sendcounts && sdispls && fits_int(sendcounts[i]) &&
                           fits_int((MPI_Count)sdispls[i]))) {
            mine = 0;
            break;
        }
        if (!(recvcounts && rdispls && fits_int(recvcounts[i]) && fits_int((MPI_Count)rdispls[i]))) {
            mine = 0;
            break;
        }
        if (!in_place)
            a[i] = (int)sendcounts[i], a[n + i] = (int)sdispls[i];
        a[2 * n + i] = (int)recvcounts[i], a[3 * n + i] = (int)rdispls[i];
    }
    /* an intercommunicator or no communicator: nothing to agree on */
    if (intra && PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        all = 0;
    if (!all) {
        free(a);
        pc_api_say_handoff(comm, "MPI_Alltoallv_c",
                           "counts or displacements beyond int on some rank, or an "
                           "intercommunicator, go to the MPI library's large-count call");
        return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
    }
    int rc = int_alltoallv(sendbuf, in_place ? NULL : a, in_place ? NULL : a + n, sendtype, recvbuf,
                           a + 2 * n, a + 3 * n, recvtype, comm, PC_CALLER);
    free(a);
    return rc;
}
