/*
 * Argument checks.  Bad input gets MPI's error class and a message through
 * the communicator's error handler, never a crash or a hang: MPI libraries
 * check little in their fast paths, but a library that writes straight into
 * remote memory must not trust counts it has not checked.
 */
#include <stdarg.h>

#include "api/api.h"

static int handler_returns(MPI_Comm comm)
{
    MPI_Errhandler eh;
    if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS)
        return 0;
    int ret = eh == MPI_ERRORS_RETURN;
    PMPI_Errhandler_free(&eh);
    return ret;
}

int pc_raise(MPI_Comm comm, int code, int always, const char *fmt, ...)
{
    MPI_Comm on = comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm;
    int returns = handler_returns(on);
    if (always || !returns || pc_env_verbose()) {
        char msg[PC_MSG_LEN];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        pc_log("%s", msg);
    }
    /* MPI_ERRORS_RETURN needs no call (and SMPI 3.32 crashes in one). */
    if (!returns)
        PMPI_Comm_call_errhandler(on, code);
    return code;
}

static int check_type(const pc_mpi_call_t *c, MPI_Datatype dt, const char *which)
{
    if (dt == MPI_DATATYPE_NULL)
        return pc_raise(c->comm, MPI_ERR_TYPE, 0, "%s: %s is MPI_DATATYPE_NULL",
                        pacoll_coll_name(c->coll), which);
    return MPI_SUCCESS;
}

static int check_count(const pc_mpi_call_t *c, int count, const char *which)
{
    if (count < 0)
        return pc_raise(c->comm, MPI_ERR_COUNT, 0, "%s: %s is negative (%d)",
                        pacoll_coll_name(c->coll), which, count);
    return MPI_SUCCESS;
}

static int check_counts(const pc_mpi_call_t *c, const int *counts, const int *displs, int size,
                        const char *which)
{
    if (!counts || !displs)
        return pc_raise(c->comm, MPI_ERR_ARG, 0, "%s: %s or its displacements are NULL",
                        pacoll_coll_name(c->coll), which);
    for (int p = 0; p < size; p++)
        if (counts[p] < 0)
            return pc_raise(c->comm, MPI_ERR_COUNT, 0, "%s: %s[%d] is negative (%d)",
                            pacoll_coll_name(c->coll), which, p, counts[p]);
    return MPI_SUCCESS;
}

static size_t type_size(MPI_Datatype dt)
{
    int s = 0;
    PMPI_Type_size(dt, &s);
    return (size_t)s;
}

/* The bytes this rank sends and receives per block must agree (MPI's rule
 * of matching type signatures, the part of it one rank can check). */
static int check_signature(const pc_mpi_call_t *c, int rank)
{
    int is_root = c->coll != PACOLL_GATHER || rank == c->root;
    if (c->sendbuf == MPI_IN_PLACE || !is_root)
        return MPI_SUCCESS;
    size_t s = (size_t)c->sendcount * type_size(c->sendtype);
    size_t r = (size_t)c->recvcount * type_size(c->recvtype);
    if (s != r)
        return pc_raise(c->comm, MPI_ERR_TRUNCATE, 0,
                        "%s: send and receive type signatures differ (%zu bytes sent per block, %zu "
                        "received)",
                        pacoll_coll_name(c->coll), s, r);
    return MPI_SUCCESS;
}

static int check_v(const pc_mpi_call_t *c, int size, int rank)
{
    int rc = MPI_SUCCESS;
    if (c->sendbuf != MPI_IN_PLACE) {
        rc = check_counts(c, c->sendcounts, c->sdispls, size, "sendcounts");
        if (rc == MPI_SUCCESS)
            rc = check_type(c, c->sendtype, "sendtype");
    }
    if (rc == MPI_SUCCESS)
        rc = check_counts(c, c->recvcounts, c->rdispls, size, "recvcounts");
    if (rc == MPI_SUCCESS)
        rc = check_type(c, c->recvtype, "recvtype");
    if (rc != MPI_SUCCESS || c->sendbuf == MPI_IN_PLACE)
        return rc;
    size_t s = (size_t)c->sendcounts[rank] * type_size(c->sendtype);
    size_t r = (size_t)c->recvcounts[rank] * type_size(c->recvtype);
    if (s != r)
        return pc_raise(c->comm, MPI_ERR_TRUNCATE, 0,
                        "alltoallv: this rank sends itself %zu bytes but expects %zu", s, r);
    return MPI_SUCCESS;
}

/* [lo, hi) of the bytes count elements of dt at buf may touch. */
static void span(const void *buf, size_t count, MPI_Datatype dt, uintptr_t *lo, uintptr_t *hi)
{
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(dt, &lb, &ext);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    *lo = (uintptr_t)buf + (uintptr_t)tlb;
    *hi = count == 0 ? *lo : *lo + (uintptr_t)((MPI_Aint)(count - 1) * ext + text);
}

/* [lo, hi) of the bytes the blocks (counts, displs) of dt at buf touch. */
static void span_v(const void *buf, const int *counts, const int *displs, int size,
                   MPI_Datatype dt, uintptr_t *lo, uintptr_t *hi)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    int first = 1;
    *lo = *hi = 0;
    for (int p = 0; p < size; p++) {
        uintptr_t l, h;
        if (counts[p] == 0)
            continue;
        span((const char *)buf + (MPI_Aint)displs[p] * ext, (size_t)counts[p], dt, &l, &h);
        if (first || l < *lo)
            *lo = l;
        if (first || h > *hi)
            *hi = h;
        first = 0;
    }
}

static int check_alias(const pc_mpi_call_t *c, int size, int rank)
{
    if (c->sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    if (c->coll == PACOLL_GATHER && rank != c->root)
        return MPI_SUCCESS;
    uintptr_t slo, shi, rlo, rhi;
    if (c->coll == PACOLL_ALLTOALLV) {
        span_v(c->sendbuf, c->sendcounts, c->sdispls, size, c->sendtype, &slo, &shi);
        span_v(c->recvbuf, c->recvcounts, c->rdispls, size, c->recvtype, &rlo, &rhi);
    } else {
        size_t sblocks = c->coll == PACOLL_ALLTOALL ? (size_t)size : 1;
        span(c->sendbuf, (size_t)c->sendcount * sblocks, c->sendtype, &slo, &shi);
        span(c->recvbuf, (size_t)c->recvcount * (size_t)size, c->recvtype, &rlo, &rhi);
    }
    if (slo < shi && rlo < rhi && slo < rhi && rlo < shi)
        return pc_raise(c->comm, MPI_ERR_BUFFER, 0,
                        "%s: the send and receive buffers overlap; use MPI_IN_PLACE",
                        pacoll_coll_name(c->coll));
    return MPI_SUCCESS;
}

static int check_in_place(const pc_mpi_call_t *c, int rank)
{
    if (c->sendbuf == MPI_IN_PLACE && c->coll == PACOLL_GATHER && rank != c->root)
        return pc_raise(c->comm, MPI_ERR_BUFFER, 0,
                        "gather: MPI_IN_PLACE is only valid as the root's send buffer");
    if (c->recvbuf == MPI_IN_PLACE)
        return pc_raise(c->comm, MPI_ERR_BUFFER, 0, "%s: MPI_IN_PLACE is not a receive buffer",
                        pacoll_coll_name(c->coll));
    return MPI_SUCCESS;
}

int pc_check_call(const pc_mpi_call_t *c)
{
    int size, rank, rc;
    if (c->comm == MPI_COMM_NULL)
        return pc_raise(MPI_COMM_NULL, MPI_ERR_COMM, 0, "%s: the communicator is MPI_COMM_NULL",
                        pacoll_coll_name(c->coll));
    PMPI_Comm_size(c->comm, &size);
    PMPI_Comm_rank(c->comm, &rank);
    if (c->coll == PACOLL_GATHER && (c->root < 0 || c->root >= size))
        return pc_raise(c->comm, MPI_ERR_ROOT, 0, "gather: root %d is not a rank of the %d",
                        c->root, size);
    if ((rc = check_in_place(c, rank)) != MPI_SUCCESS)
        return rc;
    if (c->coll == PACOLL_ALLTOALLV) {
        if ((rc = check_v(c, size, rank)) != MPI_SUCCESS)
            return rc;
        return check_alias(c, size, rank);
    }
    int recv_matters = c->coll != PACOLL_GATHER || rank == c->root;
    if (c->sendbuf != MPI_IN_PLACE) {
        if ((rc = check_count(c, c->sendcount, "sendcount")) != MPI_SUCCESS ||
            (rc = check_type(c, c->sendtype, "sendtype")) != MPI_SUCCESS)
            return rc;
    }
    if (recv_matters) {
        if ((rc = check_count(c, c->recvcount, "recvcount")) != MPI_SUCCESS ||
            (rc = check_type(c, c->recvtype, "recvtype")) != MPI_SUCCESS)
            return rc;
    }
    if ((rc = check_signature(c, rank)) != MPI_SUCCESS)
        return rc;
    return check_alias(c, size, rank);
}
