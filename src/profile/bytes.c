/*
 * The message size the profiler records per call: the block one process
 * contributes to (or receives from) one peer, which is what the pap-aware
 * paper's Table 1 calls the average message size (NPB FT class B on 16
 * processes: a 2 MB alltoall block; a 16-byte reduce).  For rooted and
 * reduction collectives that is the whole buffer; for the v forms the mean
 * over peers.  MPI_IN_PLACE takes the receive side's description.  Computed
 * after the exit stamp, so it is not part of the measured call.
 */
#include "profile/profile.h"

static double type_bytes(MPI_Datatype type)
{
    int s = 0;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &s) != MPI_SUCCESS)
        return 0;
    return s;
}

static int comm_size_rank(MPI_Comm comm, int *rank)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, rank);
    return n;
}

static double mean_counts(const int *counts, int n, double tsize)
{
    if (!counts || n <= 0)
        return 0;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += counts[i];
    return sum * tsize / n;
}

double pc_prof_bytes_count(int count, MPI_Datatype type)
{
    return (double)count * type_bytes(type);
}

double pc_prof_bytes_block(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           int recvcount, MPI_Datatype recvtype)
{
    if (sendbuf == MPI_IN_PLACE)
        return pc_prof_bytes_count(recvcount, recvtype);
    return pc_prof_bytes_count(sendcount, sendtype);
}

double pc_prof_bytes_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             const int *recvcounts, MPI_Datatype recvtype, int root,
                             MPI_Comm comm)
{
    int rank;
    comm_size_rank(comm, &rank);
    if (sendbuf == MPI_IN_PLACE && rank == root && recvcounts)
        return pc_prof_bytes_count(recvcounts[root], recvtype);
    return pc_prof_bytes_count(sendcount, sendtype);
}

double pc_prof_bytes_scatter(const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             int sendcount, MPI_Datatype sendtype)
{
    if (recvbuf == MPI_IN_PLACE)
        return pc_prof_bytes_count(sendcount, sendtype);
    return pc_prof_bytes_count(recvcount, recvtype);
}

double pc_prof_bytes_scatterv(const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              const int *sendcounts, MPI_Datatype sendtype, int root,
                              MPI_Comm comm)
{
    int rank;
    comm_size_rank(comm, &rank);
    if (recvbuf == MPI_IN_PLACE && rank == root && sendcounts)
        return pc_prof_bytes_count(sendcounts[root], sendtype);
    return pc_prof_bytes_count(recvcount, recvtype);
}

double pc_prof_bytes_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                const int *recvcounts, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rank;
    comm_size_rank(comm, &rank);
    if (sendbuf == MPI_IN_PLACE && recvcounts)
        return pc_prof_bytes_count(recvcounts[rank], recvtype);
    return pc_prof_bytes_count(sendcount, sendtype);
}

double pc_prof_bytes_vector(const void *sendbuf, const int *sendcounts, MPI_Datatype sendtype,
                            const int *recvcounts, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rank, n = comm_size_rank(comm, &rank);
    if (sendbuf == MPI_IN_PLACE)
        return mean_counts(recvcounts, n, type_bytes(recvtype));
    return mean_counts(sendcounts, n, type_bytes(sendtype));
}

double pc_prof_bytes_alltoallw(const void *sendbuf, const int *sendcounts,
                               const MPI_Datatype *sendtypes, const int *recvcounts,
                               const MPI_Datatype *recvtypes, MPI_Comm comm)
{
    int rank, n = comm_size_rank(comm, &rank);
    const int *counts = sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts;
    const MPI_Datatype *types = sendbuf == MPI_IN_PLACE ? recvtypes : sendtypes;
    if (!counts || !types || n <= 0)
        return 0;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += (double)counts[i] * type_bytes(types[i]);
    return sum / n;
}

double pc_prof_bytes_reduce_scatter(const int *recvcounts, MPI_Datatype type, MPI_Comm comm)
{
    int rank, n = comm_size_rank(comm, &rank);
    return mean_counts(recvcounts, n, type_bytes(type));
}
