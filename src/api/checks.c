/*
 * Argument checks of the calls pacoll runs itself (intracommunicators;
 * what goes to the MPI library is checked by the MPI library).  Each
 * check rejects only what the MPI standard makes erroneous, with the
 * error class the standard or the MPI library gives it: docs/CHECKS.md
 * lists them with their rules.  A library that writes straight into remote
 * memory must not trust counts it has not checked.
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

/* A check's verdict: MPI's error class and what was wrong. */
static int fail(pc_check_t *ck, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(pc_check_t *ck, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ck->msg, sizeof ck->msg, fmt, ap);
    va_end(ap);
    return ck->code = code;
}

/* Every message names the call the user made (MPI_Alltoall, pacoll_alltoall, ...). */
static const char *coll_name(const pc_mpi_call_t *call)
{
    return call->where ? call->where : pacoll_coll_name(call->coll);
}

/* A datatype must be a real one and committed before it is used in
 * communication (MPI_ERR_TYPE).  MPI has no query
 * for "committed"; a pack of zero elements is checked by the MPI library
 * for it (Open MPI and MPICH check it in MPI_Pack), on the team's private
 * communicator, whose error handler returns.  Predefined types are
 * committed, so only derived ones are probed. */
static int check_type(const pc_mpi_call_t *call, pc_check_t *ck, MPI_Datatype dt, const char *which)
{
    if (dt == MPI_DATATYPE_NULL)
        return fail(ck, MPI_ERR_TYPE, "%s: %s is MPI_DATATYPE_NULL", coll_name(call), which);
    if (!PC_PLATFORM.guards || ck->probe_comm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return fail(ck, MPI_ERR_TYPE, "%s: %s is not a datatype", coll_name(call), which);
    if (combiner == MPI_COMBINER_NAMED)
        return MPI_SUCCESS;
    char out[1];
    int pos = 0;
    if (PMPI_Pack(out, 0, dt, out, 0, &pos, ck->probe_comm) != MPI_SUCCESS)
        return fail(ck, MPI_ERR_TYPE, "%s: %s is not committed (MPI_Type_commit)", coll_name(call),
                    which);
    return MPI_SUCCESS;
}

static int check_count(const pc_mpi_call_t *call, pc_check_t *ck, int count, const char *which)
{
    if (count < 0)
        return fail(ck, MPI_ERR_COUNT, "%s: %s is negative (%d)", coll_name(call), which, count);
    return MPI_SUCCESS;
}

/* A NULL buffer holding data is only legal as MPI_BOTTOM with a datatype
 * of absolute addresses; with a type whose data starts
 * at its origin it would touch address 0 (MPI_ERR_BUFFER, the class the
 * MPI libraries' own checks give). */
static int check_buffer(const pc_mpi_call_t *call, pc_check_t *ck, const void *buf, size_t count,
                        MPI_Datatype dt, const char *which)
{
    if (buf != NULL || count == 0)
        return MPI_SUCCESS;
    int size = 0;
    MPI_Aint tlb = 0, text = 0;
    PMPI_Type_size(dt, &size);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    if (size > 0 && tlb == 0)
        return fail(ck, MPI_ERR_BUFFER, "%s: %s is NULL but holds %zu elements", coll_name(call),
                    which, count);
    return MPI_SUCCESS;
}

static int check_counts(const pc_mpi_call_t *call, pc_check_t *ck, const int *counts,
                        const int *displs, int size, const char *which)
{
    if (!counts || !displs)
        return fail(ck, MPI_ERR_ARG, "%s: %s or its displacements are NULL", coll_name(call),
                    which);
    for (int p = 0; p < size; p++)
        if (counts[p] < 0)
            return fail(ck, MPI_ERR_COUNT, "%s: %s[%d] is negative (%d)", coll_name(call), which, p,
                        counts[p]);
    return MPI_SUCCESS;
}

static size_t sum_counts(const int *counts, int size)
{
    size_t n = 0;
    for (int p = 0; p < size; p++)
        n += (size_t)counts[p];
    return n;
}

static size_t type_size(MPI_Datatype dt)
{
    int s = 0;
    PMPI_Type_size(dt, &s);
    return (size_t)s;
}

/* Sender and receiver must use matching type signatures; the part one rank can see is its own block to itself (the
 * root's, for gather).  A mismatch would truncate: MPI_ERR_TRUNCATE, as
 * the MPI library reports it at the receiver. */
static int check_signature(const pc_mpi_call_t *call, pc_check_t *ck, int rank)
{
    int is_root = call->coll != PACOLL_GATHER || rank == call->root;
    if (call->sendbuf == MPI_IN_PLACE || !is_root)
        return MPI_SUCCESS;
    size_t s = (size_t)call->sendcount * type_size(call->sendtype);
    size_t r = (size_t)call->recvcount * type_size(call->recvtype);
    if (s != r)
        return fail(ck, MPI_ERR_TRUNCATE,
                    "%s: send and receive type signatures differ (%zu bytes sent per block, %zu "
                    "received)",
                    coll_name(call), s, r);
    return MPI_SUCCESS;
}

static int check_v(const pc_mpi_call_t *call, pc_check_t *ck, int size, int rank)
{
    int rc = MPI_SUCCESS;
    if (call->sendbuf != MPI_IN_PLACE) {
        rc = check_counts(call, ck, call->sendcounts, call->sdispls, size, "sendcounts");
        if (rc == MPI_SUCCESS)
            rc = check_type(call, ck, call->sendtype, "sendtype");
        if (rc == MPI_SUCCESS)
            rc = check_buffer(call, ck, call->sendbuf, sum_counts(call->sendcounts, size),
                              call->sendtype, "sendbuf");
    }
    if (rc == MPI_SUCCESS)
        rc = check_counts(call, ck, call->recvcounts, call->rdispls, size, "recvcounts");
    if (rc == MPI_SUCCESS)
        rc = check_type(call, ck, call->recvtype, "recvtype");
    if (rc == MPI_SUCCESS)
        rc = check_buffer(call, ck, call->recvbuf, sum_counts(call->recvcounts, size),
                          call->recvtype, "recvbuf");
    if (rc != MPI_SUCCESS || call->sendbuf == MPI_IN_PLACE)
        return rc;
    size_t s = (size_t)call->sendcounts[rank] * type_size(call->sendtype);
    size_t r = (size_t)call->recvcounts[rank] * type_size(call->recvtype);
    if (s != r)
        return fail(ck, MPI_ERR_TRUNCATE,
                    "%s: this rank sends itself %zu bytes but expects %zu", coll_name(call), s, r);
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

/* Elements of dt fill their extent: the bytes a buffer of them touches are
 * exactly its span.  Other types are packed and unpacked around the
 * algorithm (datatype.c), so send and receive data interleaved in one
 * array never meet. */
static int dense(MPI_Datatype dt)
{
    int size = 0;
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_size(dt, &size);
    PMPI_Type_get_extent(dt, &lb, &ext);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    return (MPI_Aint)size == text && (MPI_Aint)size == ext;
}

typedef struct { uintptr_t lo, hi; int send; } ival_t;

static int by_lo(const void *a, const void *b)
{
    uintptr_t x = ((const ival_t *)a)->lo, y = ((const ival_t *)b)->lo;
    return x < y ? -1 : x > y;
}

/* alltoallv: do any send block and receive block share a byte?  (Blocks
 * may interleave legally; sorted sweep, O(P log P), only when the spans
 * overlap.)  -1 when out of memory. */
static int blocks_overlap(const pc_mpi_call_t *call, int size)
{
    ival_t *iv = malloc(2 * (size_t)size * sizeof *iv);
    int n = 0;
    if (!iv)
        return -1;
    for (int k = 0; k < 2; k++) {
        const void *buf = k ? call->recvbuf : call->sendbuf;
        const int *cnt = k ? call->recvcounts : call->sendcounts;
        const int *dsp = k ? call->rdispls : call->sdispls;
        MPI_Datatype dt = k ? call->recvtype : call->sendtype;
        MPI_Aint lb, ext;
        PMPI_Type_get_extent(dt, &lb, &ext);
        for (int p = 0; p < size; p++)
            if (cnt[p] > 0) {
                span((const char *)buf + (MPI_Aint)dsp[p] * ext, (size_t)cnt[p], dt, &iv[n].lo,
                     &iv[n].hi);
                iv[n++].send = !k;
            }
    }
    qsort(iv, (size_t)n, sizeof *iv, by_lo);
    int hit = 0;
    uintptr_t reach[2] = {0, 0}; /* furthest end seen so far: receive, send blocks */
    for (int i = 0; i < n && !hit; i++) {
        int k = iv[i].send;
        hit = iv[i].lo < reach[!k];
        if (iv[i].hi > reach[k])
            reach[k] = iv[i].hi;
    }
    free(iv);
    return hit;
}

/* Send and receive buffers must not overlap, except through MPI_IN_PLACE
 * (the standard's rule on aliased arguments). */
static int check_alias(const pc_mpi_call_t *call, pc_check_t *ck, int size, int rank)
{
    if (call->sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    if (call->coll == PACOLL_GATHER && rank != call->root)
        return MPI_SUCCESS;
    uintptr_t slo, shi, rlo, rhi;
    if (call->coll == PACOLL_ALLTOALLV) {
        span_v(call->sendbuf, call->sendcounts, call->sdispls, size, call->sendtype, &slo, &shi);
        span_v(call->recvbuf, call->recvcounts, call->rdispls, size, call->recvtype, &rlo, &rhi);
    } else {
        size_t sblocks = call->coll == PACOLL_ALLTOALL ? (size_t)size : 1;
        span(call->sendbuf, (size_t)call->sendcount * sblocks, call->sendtype, &slo, &shi);
        span(call->recvbuf, (size_t)call->recvcount * (size_t)size, call->recvtype, &rlo, &rhi);
    }
    if (!(slo < shi && rlo < rhi && slo < rhi && rlo < shi))
        return MPI_SUCCESS; /* the spans are apart */
    if (!dense(call->sendtype) || !dense(call->recvtype))
        return MPI_SUCCESS; /* interleaved elements may be disjoint: packed, they are safe */
    if (call->coll == PACOLL_ALLTOALLV && blocks_overlap(call, size) == 0)
        return MPI_SUCCESS;
    return fail(ck, MPI_ERR_BUFFER, "%s: the send and receive buffers overlap; use MPI_IN_PLACE",
                coll_name(call));
}

/* MPI_IN_PLACE is a send buffer only, and for gather only the root's
 */
static int check_in_place(const pc_mpi_call_t *call, pc_check_t *ck, int rank)
{
    if (call->sendbuf == MPI_IN_PLACE && call->coll == PACOLL_GATHER && rank != call->root)
        return fail(ck, MPI_ERR_BUFFER,
                    "%s: MPI_IN_PLACE is only valid as the root's send buffer", coll_name(call));
    if (call->recvbuf == MPI_IN_PLACE)
        return fail(ck, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not a receive buffer", coll_name(call));
    return MPI_SUCCESS;
}

int pc_check_call(const pc_mpi_call_t *call, int size, int rank, pc_check_t *ck)
{
    int rc;
    ck->code = MPI_SUCCESS;
    ck->msg[0] = 0;
    /* the root is the same on every rank and one of them */
    if (call->coll == PACOLL_GATHER && (call->root < 0 || call->root >= size))
        return fail(ck, MPI_ERR_ROOT, "%s: root %d is not a rank of the %d", coll_name(call),
                    call->root, size);
    if ((rc = check_in_place(call, ck, rank)) != MPI_SUCCESS)
        return rc;
    if (call->coll == PACOLL_ALLTOALLV) {
        if ((rc = check_v(call, ck, size, rank)) != MPI_SUCCESS)
            return rc;
        return check_alias(call, ck, size, rank);
    }
    /* a non-root's receive arguments are not significant */
    int recv_matters = call->coll != PACOLL_GATHER || rank == call->root;
    size_t sblocks = call->coll == PACOLL_ALLTOALL ? (size_t)size : 1;
    if (call->sendbuf != MPI_IN_PLACE) {
        if ((rc = check_count(call, ck, call->sendcount, "sendcount")) != MPI_SUCCESS ||
            (rc = check_type(call, ck, call->sendtype, "sendtype")) != MPI_SUCCESS ||
            (rc = check_buffer(call, ck, call->sendbuf, (size_t)call->sendcount * sblocks,
                               call->sendtype, "sendbuf")) != MPI_SUCCESS)
            return rc;
    }
    if (recv_matters) {
        if ((rc = check_count(call, ck, call->recvcount, "recvcount")) != MPI_SUCCESS ||
            (rc = check_type(call, ck, call->recvtype, "recvtype")) != MPI_SUCCESS ||
            (rc = check_buffer(call, ck, call->recvbuf, (size_t)call->recvcount * (size_t)size,
                               call->recvtype, "recvbuf")) != MPI_SUCCESS)
            return rc;
    }
    if ((rc = check_signature(call, ck, rank)) != MPI_SUCCESS)
        return rc;
    return check_alias(call, ck, size, rank);
}
