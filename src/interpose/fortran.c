/*
 * PMPI interposition for Fortran callers: why this file exists.
 *
 * Open MPI's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call PMPI_*
 * directly, so the C wrappers in c_wrappers.c never see a Fortran program's
 * collectives.  To route an unchanged Fortran program through pacoll under
 * LD_PRELOAD we define the Fortran entry points themselves, ahead of the MPI
 * library's in the dynamic linker's search order:
 *
 *   mpif.h and `use mpi`:  mpi_alltoall_ (gfortran, ifort, flang), plus the
 *                          other manglings mpi_alltoall, mpi_alltoall__ and
 *                          MPI_ALLTOALL, for alltoall, alltoallv, allgather,
 *                          gather and finalize, and for the communicator
 *                          calls that carry info hints (comm_set_info,
 *                          comm_dup_with_info, comm_split_type, comm_get_info);
 *   `use mpi_f08` (Open MPI 4.x): mpi_alltoall_f08_ and friends, which take
 *                          the same arguments (a TYPE(MPI_Comm) is one INTEGER,
 *                          passed by reference; ierror is OPTIONAL, so it may
 *                          be NULL).
 *
 * Each entry converts Fortran to C (handles with MPI_Comm_f2c/MPI_Type_f2c,
 * INTEGER to int, the Fortran MPI_IN_PLACE and MPI_BOTTOM to the C ones),
 * calls pacoll (pc_api_enter, api.h, with the caller's address, which the
 * profiler records; it hands what it does not handle to PMPI) and stores the
 * error code in ierr.  The four collectives are made from the table of
 * api/colls.h.  mpi_finalize_ calls the C MPI_Finalize, so the library
 * core's finalize hook (statistics) runs for Fortran programs too.
 *
 * The Fortran MPI_IN_PLACE and MPI_BOTTOM are variables whose *address* is the
 * sentinel.  Open MPI: common blocks mpi_fortran_in_place_ / mpi_fortran_bottom_
 * (one name per mangling convention; libmpi defines them, and the dynamic
 * linker binds every reference to one copy).  MPICH: pointers MPIR_F_MPI_IN_PLACE
 * and MPIR_F_MPI_BOTTOM that its Fortran MPI_Init fills in.  All are weak
 * references here, so the library loads with either MPI and with none of them.
 *
 * Under SimGrid SMPI there is no Fortran interposition (SMPI programs are not
 * reached by LD_PRELOAD): the file compiles to nothing there.
 */
#include <mpi.h>

#if defined(SMPI_H) || defined(SMPI_HELPERS_H) || defined(PACOLL_SMPI) || \
    defined(PACOLL_NO_FORTRAN)

typedef int pacoll_fortran_interpose_disabled; /* ISO C forbids an empty file */

#else

#include <stdlib.h>

#include "api/api.h"

/* The exported names are aliases of the implementations, which the program
 * enters directly: PC_CALLER in them is the Fortran call site. */
#define PACOLL_F_ALIAS(impl) __attribute__((alias(#impl)))
#define PACOLL_F_WEAK __attribute__((weak))

/* ---- the Fortran sentinels (weak: each MPI defines only its own) ---- */

/* Open MPI: common blocks, one symbol per Fortran mangling convention. */
extern MPI_Fint mpi_fortran_in_place PACOLL_F_WEAK;
extern MPI_Fint mpi_fortran_in_place_ PACOLL_F_WEAK;
extern MPI_Fint mpi_fortran_in_place__ PACOLL_F_WEAK;
extern MPI_Fint MPI_FORTRAN_IN_PLACE PACOLL_F_WEAK;
extern MPI_Fint mpi_fortran_bottom PACOLL_F_WEAK;
extern MPI_Fint mpi_fortran_bottom_ PACOLL_F_WEAK;
extern MPI_Fint mpi_fortran_bottom__ PACOLL_F_WEAK;
extern MPI_Fint MPI_FORTRAN_BOTTOM PACOLL_F_WEAK;
/* MPICH: addresses recorded by its Fortran MPI_Init. */
extern void *MPIR_F_MPI_IN_PLACE PACOLL_F_WEAK;
extern void *MPIR_F_MPI_BOTTOM PACOLL_F_WEAK;

/* The value of a weak pointer variable, or NULL when no library defines it. */
static const void *weak_pointer_value(void *const *var)
{
    return var != NULL ? *var : NULL;
}

static int is_fortran_in_place(const void *buf)
{
    if (buf == NULL)
        return 0;
    return buf == (const void *)&mpi_fortran_in_place_ ||
           buf == (const void *)&mpi_fortran_in_place ||
           buf == (const void *)&mpi_fortran_in_place__ ||
           buf == (const void *)&MPI_FORTRAN_IN_PLACE ||
           buf == weak_pointer_value(&MPIR_F_MPI_IN_PLACE);
}

static int is_fortran_bottom(const void *buf)
{
    if (buf == NULL)
        return 0;
    return buf == (const void *)&mpi_fortran_bottom_ ||
           buf == (const void *)&mpi_fortran_bottom ||
           buf == (const void *)&mpi_fortran_bottom__ ||
           buf == (const void *)&MPI_FORTRAN_BOTTOM ||
           buf == weak_pointer_value(&MPIR_F_MPI_BOTTOM);
}

/* A send buffer: Fortran MPI_IN_PLACE or MPI_BOTTOM become the C ones. */
static const void *f2c_sendbuf(const void *buf)
{
    if (is_fortran_in_place(buf))
        return MPI_IN_PLACE;
    if (is_fortran_bottom(buf))
        return MPI_BOTTOM;
    return buf;
}

/* A receive buffer: only MPI_BOTTOM is meaningful there. */
static void *f2c_recvbuf(void *buf)
{
    return is_fortran_bottom(buf) ? MPI_BOTTOM : buf;
}

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr != NULL) /* OPTIONAL in mpi_f08 */
        *ierr = (MPI_Fint)rc;
}

/* ---- INTEGER arrays (alltoallv counts and displacements) ---- */

/* Entries in a per-peer array of comm: the remote group for an
 * intercommunicator.  0 when comm is not valid (pacoll then reports it). */
static int peer_array_length(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return 0;
    return n;
}

/* The int view of a Fortran INTEGER array: the array itself when MPI_Fint is
 * int (every LP64 MPI build), else a malloc'd copy stored in *copy, which the
 * caller frees.  NULL when the copy could not be made. */
static const int *f2c_int_array(const MPI_Fint *f, int n, int **copy)
{
    *copy = NULL;
    if (sizeof(MPI_Fint) == sizeof(int) || f == NULL)
        return (const int *)(const void *)f;
    if (n <= 0)
        return NULL;
    *copy = malloc((size_t)n * sizeof(int));
    if (*copy == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        (*copy)[i] = (int)f[i];
    return *copy;
}

/* ---- the implementations (one per collective, all manglings alias them) ---- */

/* Per shape of api/colls.h: the Fortran parameters (every argument by
 * reference, ierr last), and the C call made of them.  VECTOR's INTEGER
 * arrays become int arrays (copies only where MPI_Fint is not int, freed
 * after the call). */
#define PC_FPARAMS_BLOCK                                                                    \
    const void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf, \
        const MPI_Fint *recvcount, const MPI_Fint *recvtype, const MPI_Fint *comm,          \
        MPI_Fint *ierr
#define PC_FPARAMS_ROOTED                                                                   \
    const void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf, \
        const MPI_Fint *recvcount, const MPI_Fint *recvtype, const MPI_Fint *root,          \
        const MPI_Fint *comm, MPI_Fint *ierr
#define PC_FPARAMS_VECTOR                                                                 \
    const void *sendbuf, const MPI_Fint *sendcounts, const MPI_Fint *sdispls,             \
        const MPI_Fint *sendtype, void *recvbuf, const MPI_Fint *recvcounts,              \
        const MPI_Fint *rdispls, const MPI_Fint *recvtype, const MPI_Fint *comm,          \
        MPI_Fint *ierr

#define PC_FCALL_BLOCK(coll, where)                                                        \
    PC_CALL_FIELDS(coll, where, f2c_sendbuf(sendbuf), (int)*sendcount, NULL, NULL,        \
                   MPI_Type_f2c(*sendtype), f2c_recvbuf(recvbuf), (int)*recvcount, NULL,  \
                   NULL, MPI_Type_f2c(*recvtype), 0, c_comm)
#define PC_FCALL_ROOTED(coll, where)                                                       \
    PC_CALL_FIELDS(coll, where, f2c_sendbuf(sendbuf), (int)*sendcount, NULL, NULL,        \
                   MPI_Type_f2c(*sendtype), f2c_recvbuf(recvbuf), (int)*recvcount, NULL,  \
                   NULL, MPI_Type_f2c(*recvtype), (int)*root, c_comm)
#define PC_FCALL_VECTOR(coll, where)                                                       \
    PC_CALL_FIELDS(coll, where, f2c_sendbuf(sendbuf), 0,                                  \
                   f2c_int_array(sendcounts, n, &copies[0]),                              \
                   f2c_int_array(sdispls, n, &copies[1]), MPI_Type_f2c(*sendtype),        \
                   f2c_recvbuf(recvbuf), 0, f2c_int_array(recvcounts, n, &copies[2]),     \
                   f2c_int_array(rdispls, n, &copies[3]), MPI_Type_f2c(*recvtype), 0,     \
                   c_comm)

#define PC_FBEGIN_BLOCK
#define PC_FBEGIN_ROOTED
#define PC_FBEGIN_VECTOR                                                  \
    int n = sizeof(MPI_Fint) == sizeof(int) ? 0 : peer_array_length(c_comm); \
    int *copies[4];
#define PC_FEND_BLOCK
#define PC_FEND_ROOTED
#define PC_FEND_VECTOR              \
    for (int i = 0; i < 4; i++) \
        free(copies[i]);

#define PC_F_IMPL(lower, Camel, UPPER, shape)                                           \
    static void f_##lower(PC_FPARAMS_##shape)                                          \
    {                                                                                   \
        MPI_Comm c_comm = MPI_Comm_f2c(*comm);                                          \
        PC_FBEGIN_##shape                                                               \
        pc_mpi_call_t call = {PC_FCALL_##shape(PACOLL_##UPPER, "MPI_" #UPPER)};         \
        set_ierr(ierr, pc_api_enter(&call, NULL, PC_CALLER));                           \
        PC_FEND_##shape                                                                 \
    }
PC_COLLS(PC_F_IMPL)
#undef PC_F_IMPL

/* Through the C MPI_Finalize, which the library core defines (statistics,
 * then PMPI_Finalize); Open MPI's own mpi_finalize_ would skip it. */
static void f_finalize(MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Finalize());
}

/* ---- info hints (api/hints.c): the MPI library's call, then pacoll's keys ---- */

static void f_comm_set_info(const MPI_Fint *comm, const MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Comm c_comm = MPI_Comm_f2c(*comm);
    MPI_Info i = MPI_Info_f2c(*info);
    int rc = PMPI_Comm_set_info(c_comm, i);
    set_ierr(ierr, rc == MPI_SUCCESS ? pc_api_hints_set("MPI_COMM_SET_INFO", c_comm, i, 0) : rc);
}

static void f_comm_dup_with_info(const MPI_Fint *comm, const MPI_Fint *info, MPI_Fint *newcomm,
                                 MPI_Fint *ierr)
{
    MPI_Comm n = MPI_COMM_NULL;
    MPI_Info i = MPI_Info_f2c(*info);
    int rc = PMPI_Comm_dup_with_info(MPI_Comm_f2c(*comm), i, &n);
    if (rc == MPI_SUCCESS) {
        *newcomm = MPI_Comm_c2f(n);
        rc = pc_api_hints_set("MPI_COMM_DUP_WITH_INFO", n, i, 1);
    }
    set_ierr(ierr, rc);
}

static void f_comm_split_type(const MPI_Fint *comm, const MPI_Fint *split_type, const MPI_Fint *key,
                              const MPI_Fint *info, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm n = MPI_COMM_NULL;
    MPI_Info i = MPI_Info_f2c(*info);
    int rc = PMPI_Comm_split_type(MPI_Comm_f2c(*comm), (int)*split_type, (int)*key, i, &n);
    if (rc == MPI_SUCCESS) {
        *newcomm = MPI_Comm_c2f(n);
        rc = pc_api_hints_set("MPI_COMM_SPLIT_TYPE", n, i, 1);
    }
    set_ierr(ierr, rc);
}

static void f_comm_get_info(const MPI_Fint *comm, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Comm c_comm = MPI_Comm_f2c(*comm);
    MPI_Info i = MPI_INFO_NULL;
    int rc = PMPI_Comm_get_info(c_comm, &i);
    if (rc == MPI_SUCCESS) {
        *info_used = MPI_Info_c2f(i);
        rc = pc_api_hints_get(c_comm, i);
    }
    set_ierr(ierr, rc);
}

/* ---- the exported names ---- */

#define PACOLL_FINALIZE_PARAMS (MPI_Fint *ierr)
#define PACOLL_SET_INFO_PARAMS (const MPI_Fint *comm, const MPI_Fint *info, MPI_Fint *ierr)
#define PACOLL_DUP_WITH_INFO_PARAMS \
    (const MPI_Fint *comm, const MPI_Fint *info, MPI_Fint *newcomm, MPI_Fint *ierr)
#define PACOLL_SPLIT_TYPE_PARAMS                                                           \
    (const MPI_Fint *comm, const MPI_Fint *split_type, const MPI_Fint *key, const MPI_Fint *info, \
     MPI_Fint *newcomm, MPI_Fint *ierr)
#define PACOLL_GET_INFO_PARAMS (const MPI_Fint *comm, MPI_Fint *info_used, MPI_Fint *ierr)

/* The four Fortran 77 manglings of one routine, plus Open MPI's mpi_f08 name
 * (gfortran's mangling of the module's specific procedure MPI_Xxx_f08). */
#define PACOLL_F_NAMES(lower, upper, impl, params)                                   \
    PC_EXPORT void lower params PACOLL_F_ALIAS(impl);                                \
    PC_EXPORT void lower##_ params PACOLL_F_ALIAS(impl);                             \
    PC_EXPORT void lower##__ params PACOLL_F_ALIAS(impl);                            \
    PC_EXPORT void upper params PACOLL_F_ALIAS(impl);                                \
    PC_EXPORT void lower##_f08_ params PACOLL_F_ALIAS(impl)

#define PC_F_COLL_NAMES(lower, Camel, UPPER, shape) \
    PACOLL_F_NAMES(mpi_##lower, MPI_##UPPER, f_##lower, (PC_FPARAMS_##shape));
PC_COLLS(PC_F_COLL_NAMES)
#undef PC_F_COLL_NAMES
PACOLL_F_NAMES(mpi_finalize, MPI_FINALIZE, f_finalize, PACOLL_FINALIZE_PARAMS);
PACOLL_F_NAMES(mpi_comm_set_info, MPI_COMM_SET_INFO, f_comm_set_info, PACOLL_SET_INFO_PARAMS);
PACOLL_F_NAMES(mpi_comm_dup_with_info, MPI_COMM_DUP_WITH_INFO, f_comm_dup_with_info,
               PACOLL_DUP_WITH_INFO_PARAMS);
PACOLL_F_NAMES(mpi_comm_split_type, MPI_COMM_SPLIT_TYPE, f_comm_split_type,
               PACOLL_SPLIT_TYPE_PARAMS);
PACOLL_F_NAMES(mpi_comm_get_info, MPI_COMM_GET_INFO, f_comm_get_info, PACOLL_GET_INFO_PARAMS);

#endif /* not SMPI */
