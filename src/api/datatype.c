/*
 * From an MPI call to byte-level arguments.
 *
 * A datatype is used in place (the algorithm reads and writes the user's
 * memory) only when its layout is proven to be one increasing run of bytes
 * without gaps or repeats, and elements abut: size, extent and true extent
 * alone do not prove it, since a reversed vector, permuted blocks or a send
 * type reading one int twice have the same three numbers as an int array.
 * The proof decodes the type (MPI_Type_get_envelope / get_contents) and is
 * cached on it as an attribute, which MPI drops with the type, so a handle
 * freed and made again never inherits a verdict.  Any other datatype is
 * packed into a temporary with PMPI_Pack and unpacked after, so every
 * datatype MPI can describe runs through pacoll and every rank takes the
 * same algorithm (a fallback decided by one rank's datatype alone would
 * deadlock, since another rank may describe the same bytes with a
 * contiguous type).  MPI_IN_PLACE becomes a separate send buffer where the
 * algorithm needs one.
 */
#include <limits.h>

#include "api/api.h"

typedef pc_dtinfo_t dtinfo_t;

/* ------------------------------------------------- the layout proof */

/* Bytes of a typemap seen so far, in typemap order: one run [lo, end) or,
 * once a piece does not start where the last ended, proof lost. */
typedef struct run {
    int any, ok;
    MPI_Aint lo, end;
} run_t;

static void run_add(run_t *r, MPI_Aint start, MPI_Aint len)
{
    if (!r->ok || len == 0)
        return;
    if (!r->any)
        r->any = 1, r->lo = start, r->end = start + len;
    else if (start == r->end)
        r->end += len;
    else
        r->ok = 0;
}

#define LAYOUT_DEPTH 32 /* deeper nesting is packed, not proven */

static int type_run(MPI_Datatype dt, int depth, run_t *out);

/* n copies of inner (its own run ir, extent e) at displacement d: a run
 * when copies abut (n == 1, or e equals the run's length). */
static void run_copies(run_t *r, MPI_Aint d, MPI_Aint n, const run_t *ir, MPI_Aint e)
{
    if (n <= 0 || !ir->any)
        return;
    MPI_Aint len = ir->end - ir->lo;
    if (n > 1 && e != len) {
        r->ok = 0;
        return;
    }
    run_add(r, d + ir->lo, n * len);
}

/* The run of a type whose typemap MPI defines in increasing memory order
 * (a named type, a subarray of such elements): its bytes are one run iff
 * they fill its true extent. */
static void run_filled(MPI_Datatype dt, run_t *r)
{
    int size = 0;
    MPI_Aint tlb = 0, text = 0;
    PMPI_Type_size(dt, &size);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    if ((MPI_Aint)size != text)
        r->ok = 0;
    else
        run_add(r, tlb, text);
}

static int is_named(MPI_Datatype dt)
{
    int ni, na, nd, combiner;
    return PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

/* The run of a derived type from its constructor's arguments. */
static void run_of_contents(int combiner, const int *iv, const MPI_Aint *av,
                            const MPI_Datatype *tv, int nd, int depth, run_t *r)
{
    run_t ir = {.ok = 1};
    MPI_Aint lb = 0, e = 0;
    if (nd < 1 || !type_run(tv[0], depth + 1, &ir)) {
        r->ok = 0;
        return;
    }
    PMPI_Type_get_extent(tv[0], &lb, &e);
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* lb and extent move no data */
        run_copies(r, 0, 1, &ir, e);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        run_copies(r, 0, iv[0], &ir, e);
        break;
    case MPI_COMBINER_VECTOR: /* count, blocklength, stride in extents */
        for (int k = 0; k < iv[0] && r->ok; k++)
            run_copies(r, (MPI_Aint)k * iv[2] * e, iv[1], &ir, e);
        break;
    case MPI_COMBINER_HVECTOR: /* stride in bytes */
        for (int k = 0; k < iv[0] && r->ok; k++)
            run_copies(r, (MPI_Aint)k * av[0], iv[1], &ir, e);
        break;
    case MPI_COMBINER_INDEXED: /* count, blocklengths[count], displs[count] */
        for (int k = 0; k < iv[0] && r->ok; k++)
            run_copies(r, (MPI_Aint)iv[1 + iv[0] + k] * e, iv[1 + k], &ir, e);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int k = 0; k < iv[0] && r->ok; k++)
            run_copies(r, av[k], iv[1 + k], &ir, e);
        break;
    case MPI_COMBINER_INDEXED_BLOCK: /* count, blocklength, displs[count] */
        for (int k = 0; k < iv[0] && r->ok; k++)
            run_copies(r, (MPI_Aint)iv[2 + k] * e, iv[1], &ir, e);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int k = 0; k < iv[0] && r->ok; k++)
            run_copies(r, av[k], iv[1], &ir, e);
        break;
    default:
        r->ok = 0;
    }
}

/* 1 and the type's run in *out when its typemap is one increasing run of
 * bytes (or empty); 0 when that is not proven. */
static int type_run(MPI_Datatype dt, int depth, run_t *out)
{
    int ni, na, nd, combiner;
    run_t r = {.ok = 1};
    if (depth > LAYOUT_DEPTH || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    switch (combiner) {
    case MPI_COMBINER_NAMED:
    case MPI_COMBINER_F90_REAL:
    case MPI_COMBINER_F90_COMPLEX:
    case MPI_COMBINER_F90_INTEGER:
        run_filled(dt, &r);
        *out = r;
        return r.ok;
    case MPI_COMBINER_DARRAY: /* packed: too rare to be worth a proof */
        return 0;
    default:
        break;
    }
    int *iv = malloc(((size_t)ni + 1) * sizeof *iv);
    MPI_Aint *av = malloc(((size_t)na + 1) * sizeof *av);
    MPI_Datatype *tv = malloc(((size_t)nd + 1) * sizeof *tv);
    if (!iv || !av || !tv ||
        PMPI_Type_get_contents(dt, ni, na, nd, iv, av, tv) != MPI_SUCCESS) {
        free(iv), free(av), free(tv);
        return 0;
    }
    if (combiner == MPI_COMBINER_STRUCT) { /* count, blocklengths; displs; types */
        for (int k = 0; k < iv[0] && r.ok; k++) {
            run_t ir = {.ok = 1};
            MPI_Aint lb = 0, e = 0;
            if (!type_run(tv[k], depth + 1, &ir))
                r.ok = 0;
            PMPI_Type_get_extent(tv[k], &lb, &e);
            run_copies(&r, av[k], iv[1 + k], &ir, e);
        }
    } else if (combiner == MPI_COMBINER_SUBARRAY) { /* increasing by definition */
        run_t ir = {.ok = 1};
        if (nd < 1 || !type_run(tv[0], depth + 1, &ir))
            r.ok = 0;
        else
            run_filled(dt, &r);
    } else {
        run_of_contents(combiner, iv, av, tv, nd, depth, &r);
    }
    for (int k = 0; k < nd; k++) /* derived types get_contents made are ours to free */
        if (!is_named(tv[k]))
            PMPI_Type_free(&tv[k]);
    free(iv), free(av), free(tv);
    *out = r;
    return r.ok;
}

/* Whether a derived type's bytes are one increasing run: proven once and
 * kept on the type (pc_layout_keyval). */
static int layout_in_order(MPI_Datatype dt, const dtinfo_t *d)
{
    int key = pc_layout_keyval(), flag = 0;
    void *v = NULL;
    if (key != MPI_KEYVAL_INVALID && PMPI_Type_get_attr(dt, key, &v, &flag) == MPI_SUCCESS && flag)
        return (intptr_t)v == 2;
    run_t r;
    int ok = type_run(dt, 0, &r) && (!r.any || (r.lo == d->tlb && (size_t)(r.end - r.lo) == d->size));
    if (key != MPI_KEYVAL_INVALID)
        PMPI_Type_set_attr(dt, key, (void *)(intptr_t)(ok ? 2 : 1));
    return ok;
}

static void dt_info(pacoll_team_t *t, MPI_Datatype dt, dtinfo_t *d)
{
    for (int i = 0; i < t->api->named_count; i++)
        if (t->api->named_types[i].dt == dt) {
            *d = t->api->named_types[i].info;
            return;
        }
    int s = 0, ni, na, nd, combiner;
    PMPI_Type_size(dt, &s);
    PMPI_Type_get_extent(dt, &d->lb, &d->ext);
    PMPI_Type_get_true_extent(dt, &d->tlb, &d->text);
    d->size = (size_t)s;
    d->contig = (size_t)d->text == d->size && (size_t)d->ext == d->size;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) {
        d->contig = 0;
    } else if (combiner == MPI_COMBINER_NAMED) { /* in memory order by definition */
        pc_team_api_t *api = t->api;
        int i = api->named_count < PC_NAMED_TYPES ? api->named_count++
                                                  : api->named_next++ % PC_NAMED_TYPES;
        api->named_types[i].dt = dt;
        api->named_types[i].info = *d;
    } else if (d->contig) {
        d->contig = layout_in_order(dt, d);
    }
}

/* Elements per PMPI_Pack call, so its int byte counts never overflow. */
static size_t chunk_elems(const dtinfo_t *d)
{
    size_t k = d->size ? (size_t)INT_MAX / d->size : (size_t)INT_MAX;
    return k > (size_t)INT_MAX ? (size_t)INT_MAX : (k ? k : 1);
}

/* buf + off as an address: MPI_BOTTOM is NULL, and a datatype of absolute
 * addresses reaches its data from there (C forbids offsets on NULL). */
static char *addr(const void *buf, MPI_Aint off)
{
    return (char *)((uintptr_t)buf + (uintptr_t)off);
}

/* One PMPI_Pack (pack set) or PMPI_Unpack of n elements of dt at `at` to
 * or from bytes.  MPICH 4.0 rejects a NULL buffer with MPI_ERR_ARG even
 * when the datatype holds absolute addresses (MPI_BOTTOM), so there the
 * elements are described from address 1 by a struct displaced by -1. */
static int pack_run(int pack, char *at, size_t n, MPI_Datatype dt, char *bytes, size_t len,
                    MPI_Comm comm)
{
    MPI_Datatype use = dt;
    int count = (int)n, pos = 0, rc;
    if (!at) {
        int bl = count;
        MPI_Aint disp = -1;
        rc = PMPI_Type_create_struct(1, &bl, &disp, &dt, &use);
        if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&use)) != MPI_SUCCESS)
            PMPI_Type_free(&use);
        if (rc != MPI_SUCCESS)
            return rc;
        at = addr(NULL, 1), count = 1;
    }
    rc = pack ? PMPI_Pack(at, count, use, bytes, (int)len, &pos, comm)
              : PMPI_Unpack(bytes, (int)len, &pos, at, count, use, comm);
    if (use != dt)
        PMPI_Type_free(&use);
    return rc;
}

/* Packs count elements of dt starting at element `first` of ubuf into out
 * (pack set), or unpacks them from out into ubuf. */
static int copy_elems(int pack, const void *ubuf, MPI_Datatype dt, const dtinfo_t *d,
                      MPI_Aint first, size_t count, char *bytes, MPI_Comm comm)
{
    char *at = addr(ubuf, first * d->ext);
    if (count == 0 || d->size == 0)
        return MPI_SUCCESS;
    if (d->contig) {
        if (pack)
            memcpy(bytes, addr(at, d->tlb), count * d->size);
        else
            memcpy(addr(at, d->tlb), bytes, count * d->size);
        return MPI_SUCCESS;
    }
    for (size_t done = 0, k = chunk_elems(d); done < count; done += k) {
        size_t n = count - done < k ? count - done : k;
        int rc = pack_run(pack, addr(at, (MPI_Aint)done * d->ext), n, dt, bytes + done * d->size,
                          n * d->size, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int copy_in(const void *ubuf, MPI_Datatype dt, const dtinfo_t *d, MPI_Aint first,
                   size_t count, char *out, MPI_Comm comm)
{
    return copy_elems(1, ubuf, dt, d, first, count, out, comm);
}

static int copy_out(const char *in, void *ubuf, MPI_Datatype dt, const dtinfo_t *d, MPI_Aint first,
                    size_t count, MPI_Comm comm)
{
    return copy_elems(0, ubuf, dt, d, first, count, (char *)in, comm);
}

size_t pc_block_bytes(const pc_mpi_call_t *call, int rank)
{
    int count;
    MPI_Datatype dt;
    pc_block_arg(call, rank, &count, &dt);
    int s = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL) /* unchecked arguments select too */
        return 0;
    PMPI_Type_size(dt, &s);
    return (size_t)count * (size_t)s;
}

/* ------------------------------------------- alltoall, allgather, gather */

static int norm_uniform(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n)
{
    int P = t->size, me = t->rank;
    int is_root = call->coll != PACOLL_GATHER || me == call->root;
    size_t m = pc_block_bytes(call, me);
    dtinfo_t s = {0}, r = {0};
    if (call->sendbuf != MPI_IN_PLACE)
        dt_info(t, call->sendtype, &s);
    if (is_root)
        dt_info(t, call->recvtype, &r);
    pc_args_t *a = &n->args;
    a->m = m;
    a->root = call->root;
    size_t sblocks = call->coll == PACOLL_ALLTOALL ? (size_t)P : 1;
    n->sent = m * (call->coll == PACOLL_GATHER ? 1 : (size_t)P);
    /* receive area */
    if (is_root && (r.contig || m == 0)) {
        a->rbuf = addr(call->recvbuf, r.tlb);
    } else if (is_root) {
        if (!(n->rtmp = malloc((size_t)P * m)))
            return MPI_ERR_NO_MEM;
        a->rbuf = n->rtmp;
    }
    /* send data */
    if (call->sendbuf == MPI_IN_PLACE && call->coll == PACOLL_ALLTOALL) {
        if (!(n->stmp = malloc((size_t)P * m)))
            return MPI_ERR_NO_MEM;
        for (int p = 0; p < P; p++) {
            int rc = copy_in(call->recvbuf, call->recvtype, &r, (MPI_Aint)p * call->recvcount,
                             (size_t)call->recvcount, (char *)n->stmp + (size_t)p * m, call->comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        a->sbuf = n->stmp;
    } else if (call->sendbuf == MPI_IN_PLACE) { /* allgather, gather root: my block is in rbuf */
        char *mine = a->rbuf + (size_t)me * m;
        if (n->rtmp) {
            int rc = copy_in(call->recvbuf, call->recvtype, &r, (MPI_Aint)me * call->recvcount,
                             (size_t)call->recvcount, mine, call->comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        a->sbuf = mine;
    } else if (s.contig || m == 0) {
        a->sbuf = addr(call->sendbuf, s.tlb);
    } else {
        if (!(n->stmp = malloc(sblocks * m)))
            return MPI_ERR_NO_MEM;
        size_t per = (size_t)call->sendcount;
        for (size_t p = 0; p < sblocks; p++) {
            int rc = copy_in(call->sendbuf, call->sendtype, &s, (MPI_Aint)(p * per), per,
                             (char *)n->stmp + p * m, call->comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        a->sbuf = n->stmp;
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ alltoallv */

/* Byte counts and displacements of one side.  A contiguous type keeps the
 * user's layout (displacements rebased to the lowest, which may be
 * negative); any other type, or force_tmp, lays blocks back to back in a
 * temporary, filled from the user's buffer when fill is set (send side). */
static int norm_side(pacoll_team_t *t, const void *ubuf, const int *counts, const int *displs,
                     MPI_Datatype dt, int P,
                     size_t *bcounts, size_t *bdispls, const char **base, void **tmp,
                     int force_tmp, int fill, MPI_Comm comm)
{
    dtinfo_t d;
    dt_info(t, dt, &d);
    size_t total = 0;
    for (int p = 0; p < P; p++)
        bcounts[p] = (size_t)counts[p] * d.size, total += bcounts[p];
    if (d.contig && !force_tmp) {
        MPI_Aint lo = 0;
        int first = 1;
        for (int p = 0; p < P; p++)
            if (bcounts[p] && (first || (MPI_Aint)displs[p] * d.ext < lo))
                lo = (MPI_Aint)displs[p] * d.ext, first = 0;
        for (int p = 0; p < P; p++)
            bdispls[p] = bcounts[p] ? (size_t)((MPI_Aint)displs[p] * d.ext - lo) : 0;
        *base = addr(ubuf, d.tlb + lo);
        return MPI_SUCCESS;
    }
    if (!(*tmp = malloc(total ? total : 1)))
        return MPI_ERR_NO_MEM;
    size_t off = 0;
    for (int p = 0; p < P; p++) {
        bdispls[p] = off;
        if (fill) {
            int rc = copy_in(ubuf, dt, &d, displs[p], (size_t)counts[p], (char *)*tmp + off, comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        off += bcounts[p];
    }
    *base = *tmp;
    return MPI_SUCCESS;
}

static int norm_v(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n)
{
    int P = t->size;
    if (!(n->vec = malloc(4 * (size_t)P * sizeof(size_t))))
        return MPI_ERR_NO_MEM;
    size_t *sc = n->vec, *sd = sc + P, *rc_ = sd + P, *rd = rc_ + P;
    const char *rbase;
    int rc = norm_side(t, call->recvbuf, call->recvcounts, call->rdispls, call->recvtype, P, rc_,
                       rd, &rbase, &n->rtmp, 0, 0, call->comm);
    n->args.rbuf = (char *)rbase;
    if (rc != MPI_SUCCESS)
        return rc;
    if (call->sendbuf == MPI_IN_PLACE) /* send what the receive buffer holds */
        rc = norm_side(t, call->recvbuf, call->recvcounts, call->rdispls, call->recvtype, P, sc, sd,
                       &n->args.sbuf, &n->stmp, 1, 1, call->comm);
    else
        rc = norm_side(t, call->sendbuf, call->sendcounts, call->sdispls, call->sendtype, P, sc, sd,
                       &n->args.sbuf, &n->stmp, 0, 1, call->comm);
    n->args.scounts = sc, n->args.sdispls = sd, n->args.rcounts = rc_, n->args.rdispls = rd;
    n->sent = 0;
    for (int p = 0; p < P; p++)
        n->sent += sc[p];
    return rc;
}

int pc_normalize(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n)
{
    memset(n, 0, sizeof *n);
    n->args.coll = call->coll;
    return call->coll == PACOLL_ALLTOALLV ? norm_v(call, t, n) : norm_uniform(call, t, n);
}

static int unpack_all(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n)
{
    int P = t->size;
    dtinfo_t r;
    dt_info(t, call->recvtype, &r);
    for (int p = 0; p < P; p++) {
        int rc;
        if (call->coll == PACOLL_ALLTOALLV)
            rc = copy_out(n->args.rbuf + n->args.rdispls[p], call->recvbuf, call->recvtype, &r,
                          call->rdispls[p], (size_t)call->recvcounts[p], call->comm);
        else
            rc = copy_out(n->args.rbuf + (size_t)p * n->args.m, call->recvbuf, call->recvtype, &r,
                          (MPI_Aint)p * call->recvcount, (size_t)call->recvcount, call->comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int pc_norm_finish(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n, int ok)
{
    int rc = MPI_SUCCESS;
    if (ok && n->rtmp)
        rc = unpack_all(call, t, n);
    free(n->stmp);
    free(n->rtmp);
    free(n->vec);
    n->stmp = n->rtmp = NULL, n->vec = NULL;
    return rc;
}
