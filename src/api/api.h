/*
 * The api layer: argument checks with MPI's error classes, datatype and
 * MPI_IN_PLACE handling (turning an MPI call into byte-level pc_args_t),
 * algorithm choice, counters, and the hand-off to the MPI library.
 */
#ifndef PACOLL_API_H
#define PACOLL_API_H

#include "core/context.h"
#include "core/team.h"
#include "api/colls.h"
#include "profile/profile.h"

/* The user's call, as MPI describes it (any collective). */
typedef struct pc_mpi_call {
    pacoll_coll_t coll;
    const char *where; /* the call the user made, for messages: "MPI_Alltoall" */
    const void *sendbuf;
    int sendcount;
    const int *sendcounts, *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    const int *recvcounts, *rdispls;
    MPI_Datatype recvtype;
    int root;
    MPI_Comm comm;
} pc_mpi_call_t;

/* A datatype as the api moves it (api/datatype.c): bounds, size, and
 * whether a block is used in place (one increasing run of bytes). */
typedef struct pc_dtinfo {
    MPI_Aint lb, ext, tlb, text;
    size_t size;
    int contig;
} pc_dtinfo_t;
#define PC_NAMED_TYPES 4

/* What the api keeps per team (t->api), made at the team's first call and
 * freed with it (pc_team_ext_set). */
typedef struct pc_team_api {
    /* the plain way: every call handed to the MPI library reads these */
    unsigned char plain[PACOLL_NCOLL]; /* that choice was the MPI library, by the
                                        * rules, with nothing to say or count */
    int plain_count[PACOLL_NCOLL];     /* ... for the block of this count */
    MPI_Datatype plain_type[PACOLL_NCOLL]; /* of this named type (NULL: not known yet) */
    struct pc_prof *prof; /* the profiler (profile/), NULL when off, */
    int prof_known;       /* looked up once per team rather than once per call */
    /* Named datatypes the api has described (datatype.c): a named type's
     * layout never changes and its handle is never freed, so its description
     * is kept rather than asked of MPI on every call. */
    struct {
        MPI_Datatype dt;
        pc_dtinfo_t info;
    } named_types[PC_NAMED_TYPES];
    int named_count, named_next;
    uint64_t said_choice[PACOLL_NCOLL]; /* PACOLL_VERBOSE: size ranges whose choice was said */
    /* Nonblocking calls pacoll runs on this team, in the order they were
     * made (every rank's order): the first runs, the others wait for it
     * (api/nonblocking.c). */
    struct pc_nb_op *nb_head, *nb_tail;
} pc_team_api_t;

struct pc_check;
/* The pieces of a call that nonblocking.c shares with api.c's dispatch. */
void pc_api_say(pacoll_team_t *t, const char *fmt, const char *coll, const char *what);
int pc_api_lost(const struct pc_mpi_call *call, pacoll_team_t *t, int code);
int pc_api_forced(const struct pc_mpi_call *call, pacoll_team_t *t, const char *site, int *idx,
                  struct pc_check *ck);
void pc_api_count(pacoll_team_t *t, const struct pc_mpi_call *call, int idx, size_t bytes);
size_t pc_api_native_bytes(const struct pc_mpi_call *call, int size);
/* Runs pacoll's algorithm idx on a checked call, whose verdict call number
 * is ncall (0: the current call). */
int pc_api_run_algo(const struct pc_mpi_call *call, pacoll_team_t *t, int idx, uint64_t ncall);
int pc_api_reject(const struct pc_mpi_call *call, pacoll_team_t *t, const struct pc_check *ck);

/* The team of call's communicator, made and set up if not yet (collective
 * then, at every rank's same call), its first call's work done (rules,
 * learning, channel): MPI_SUCCESS with *t; PC_API_HAND_OVER when pacoll
 * does not take the communicator (PACOLL_VERBOSE said why); else an error,
 * raised.  *t: the team if the caller found it, else NULL. */
#define PC_API_HAND_OVER (-1)

/* The application's call site, for the profiler (PACOLL_PROFILE): expanded
 * in an entry point the program calls (or a Fortran alias of one), it is
 * that call's return address. */
#define PC_CALLER __builtin_return_address(0)
int pc_api_team(const struct pc_mpi_call *call, pacoll_team_t **t);

/* Nonblocking calls (nonblocking.c).  pc_api_icall: a call of MPI_I<coll>
 * or pacoll_i<coll>, run by one of pacoll's algorithms on a fiber where the
 * MPI library lets pacoll take part in its progress and the rules (or a
 * name) give the call to such an algorithm; else the MPI library's own. */
int pc_api_icall(const struct pc_mpi_call *call, MPI_Request *request, const void *ra);
/* A call PACOLL_PROFILE stamped, recorded (ra: the caller's call site). */
void pc_api_prof_record(const pc_prof_stamp_t *s, const struct pc_mpi_call *call, const void *ra);
/* Persistent requests (MPI_<coll>_init, MPI_Start, MPI_Startall,
 * MPI_Request_free: interpose/c_wrappers_persistent.c, where the MPI library
 * has them).  Each returns PC_API_HAND_OVER for what is not pacoll's: the
 * MPI library's own call then runs. */
int pc_api_pinit(const struct pc_mpi_call *call, MPI_Request *request, const void *ra);
int pc_api_pstart(MPI_Request *request);
int pc_api_prequest_free(MPI_Request *request);
/* Whether any persistent request is pacoll's (the wrappers' quick test). */
int pc_api_persistent_any(void);
/* t is being freed: its persistent requests can no longer start. */
void pc_nb_team_gone(pacoll_team_t *t);
/* Every nonblocking call pacoll runs on t has ended (before a blocking call
 * runs pacoll's algorithm on t, and before t is freed). */
void pc_nb_drain(pacoll_team_t *t);

/* The team's api state, made if not yet; NULL when out of memory. */
pc_team_api_t *pc_api_state(pacoll_team_t *t);

/* pc_comm_choose, and the plain mark of coll forgotten: the next call on
 * comm asks the dispatch again. */
int pc_api_choose(MPI_Comm comm, pacoll_coll_t coll, int idx);

/* Byte-level arguments plus the temporaries that hold them. */
typedef struct pc_norm {
    pc_args_t args;
    void *stmp, *rtmp;   /* packed send data, packed receive area (or NULL) */
    size_t *vec;         /* alltoallv: counts and displacements in bytes */
    size_t sent;         /* bytes this rank sends, for PACOLL_STATS */
} pc_norm_t;

/* Reports an error through comm's error handler and returns it; the
 * message goes to stderr unless the handler is MPI_ERRORS_RETURN (then
 * only with PACOLL_VERBOSE), or when always is set.  Every message starts
 * with the call the user made ("MPI_Alltoall: ..."): the MPI library's
 * handler names only MPI_Comm_call_errhandler. */
int pc_raise(MPI_Comm comm, int code, int always, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A check's verdict: the error class (MPI_SUCCESS when the call is
 * legal) and what is wrong; probe_comm is a communicator whose error
 * handler returns, for the checks the MPI library makes for pacoll. */
typedef struct pc_check {
    int code;
    int always; /* say it even under MPI_ERRORS_RETURN */
    MPI_Comm probe_comm;
    char msg[PC_MSG_LEN];
} pc_check_t;

/* Checks a call on an intracommunicator of size ranks; nothing raised. */
int pc_check_call(const pc_mpi_call_t *call, int size, int rank, pc_check_t *ck);

/* Bytes per block (alltoall, allgather, gather) as every rank sees it. */
size_t pc_block_bytes(const pc_mpi_call_t *call, int rank);
/* The count and type pc_block_bytes measures: the send side, else (in
 * place; gather: at the root) the receive side. */
static inline void pc_block_arg(const pc_mpi_call_t *call, int rank, int *count, MPI_Datatype *dt)
{
    int use_recv =
        call->sendbuf == MPI_IN_PLACE && (call->coll != PACOLL_GATHER || rank == call->root);
    *count = use_recv ? call->recvcount : call->sendcount;
    *dt = use_recv ? call->recvtype : call->sendtype;
}
/* Builds byte-level arguments; pc_norm_finish unpacks and frees. */
int pc_normalize(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n);
int pc_norm_finish(const pc_mpi_call_t *call, pacoll_team_t *t, pc_norm_t *n, int ok);

/* A call handed to the MPI library before pacoll looks at it (a large-count
 * call pacoll's int counts cannot say: interpose/c_wrappers_count.c):
 * PACOLL_VERBOSE says so, once per message. */
void pc_api_say_handoff(MPI_Comm comm, const char *where, const char *why);

/* The info hints pacoll_<coll> (hints.c): taken from info for comm, where
 * is the MPI call for messages.  replace: the hints not in info become
 * automatic (MPI_Comm_dup_with_info, MPI_Comm_split_type), else they keep
 * their values (MPI_Comm_set_info).  _get adds comm's to info. */
int pc_api_hints_set(const char *where, MPI_Comm comm, MPI_Info info, int replace);
int pc_api_hints_get(MPI_Comm comm, MPI_Info info);

/* The plain way (docs/TUNE.md, "The per-call cost"): a call that went to the MPI
 * library without being named at its call site goes there again without
 * dispatch's look-ups, when the team has nothing to profile, report, count
 * or settle.  t->api->plain[coll] says when: PC_PLAIN_SAME_M while the rules
 * gave that size to the MPI library (the pick cache holds it), PC_PLAIN_ANY
 * when every call does (PACOLL_<COLL>=native, the communicator's choice, or
 * an alltoallv choice that looked at no size).  api.c's dispatch sets it
 * after such a call and clears it at every other; pc_api_choose (a choice
 * for the communicator) clears it. */
enum { PC_PLAIN_NO, PC_PLAIN_SAME_M, PC_PLAIN_ANY };

/* A plain call begins: nothing pending on the verdict (else 0: dispatch
 * settles it).  Nothing to count: PACOLL_STATS keeps calls off the plain
 * way (api.c plain_how). */
static inline int pc_plain_begin(pacoll_team_t *t)
{
    return pc_verdict_begin_quiet(&t->verdict);
}

/* The MPI library's own collective for a call of coll.  Inline, so an
 * entry point, whose collective is a constant, calls PMPI_<coll> with no
 * switch (coll is passed apart: once call's address has been taken, the
 * compiler no longer knows call->coll). */
static inline __attribute__((always_inline)) int pc_api_native_of(pacoll_coll_t coll,
                                                                  const pc_mpi_call_t *call)
{
    switch (coll) {
#define PC_NATIVE_CASE(lower, Camel, UPPER, shape) \
    case PACOLL_##UPPER:                           \
        return PMPI_##Camel(PC_CALL_ARGS_##shape(call));
        PC_COLLS(PC_NATIVE_CASE)
#undef PC_NATIVE_CASE
    default:
        return MPI_ERR_ARG;
    }
}

static inline int pc_api_native(const pc_mpi_call_t *call)
{
    return pc_api_native_of(call->coll, call);
}

/* What the plain way's test found (pc_api_plain_test). */
enum {
    PC_PLAIN_OFF,  /* not plain: the call goes to dispatch */
    PC_PLAIN_GO,   /* plain, begun: the caller hands the call to the MPI library */
    PC_PLAIN_ASK   /* marked plain for one block size, and this block's type is not
                    * the one remembered: pc_api_call asks MPI its size */
};

/* The plain way's test, the only one a call makes, on the entry point's own
 * arguments (no pc_mpi_call_t is built for a plain call): t marked plain
 * for this collective, for this block when the mark says so (the block
 * pc_block_arg measures), with nothing pending on the verdict. */
static inline __attribute__((always_inline)) int
pc_api_plain_test(pacoll_team_t *t, const pc_team_api_t *a, pacoll_coll_t coll,
                  const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                  MPI_Datatype recvtype, int root)
{
    unsigned char how = a ? a->plain[coll] : PC_PLAIN_NO;
    if (!how)
        return PC_PLAIN_OFF;
    if (how == PC_PLAIN_SAME_M) {
        int use_recv = sendbuf == MPI_IN_PLACE && (coll != PACOLL_GATHER || t->rank == root);
        if ((use_recv ? recvtype : sendtype) != a->plain_type[coll] ||
            (use_recv ? recvcount : sendcount) != a->plain_count[coll])
            return PC_PLAIN_ASK;
    }
    return pc_plain_begin(t) ? PC_PLAIN_GO : PC_PLAIN_OFF;
}

/* comm's slot of the context's team cache when it holds comm's team, else
 * NULL (the call then looks the team up: pc_team_find fills the cache).
 * The slot's api is the team's (t->api), one load sooner. */
static inline __attribute__((always_inline)) const pc_team_slot_t *pc_api_cached(MPI_Comm comm)
{
    pc_context_t *ctx = pc_context_now();
    if (!ctx)
        return NULL;
    const pc_team_slot_t *s = pc_context_slot(ctx, comm);
    return s->team && s->comm == comm ? s : NULL;
}

/* Everything else a call does (api.c).  t is the communicator's team when
 * the context's cache held it, else NULL and the call looks it up; plain is
 * what pc_api_plain_test said of it (PC_PLAIN_OFF when t is NULL). */
int pc_api_call(const pc_mpi_call_t *call, const char *algo, const void *ra, pacoll_team_t *t,
                int plain);

/* The plain test's arguments per shape of api/colls.h (alltoallv's plain
 * mark is never by block: api.c plain_how). */
#define PC_PLAIN_ARGS_BLOCK sendbuf, sendcount, sendtype, recvcount, recvtype, 0
#define PC_PLAIN_ARGS_ROOTED sendbuf, sendcount, sendtype, recvcount, recvtype, root
#define PC_PLAIN_ARGS_VECTOR sendbuf, 0, sendtype, 0, recvtype, 0

/* A call that is not plain, described once (pc_mpi_call_t) and handed to
 * pc_api_call: out of line (api.c), so an entry point's plain way keeps no
 * stack frame.  One per collective, from PC_COLLS. */
#define PC_API_SLOW_DECL(lower, Camel, UPPER, shape)                                          \
    int pc_api_slow_##lower(const char *where, const char *algo, const void *ra,              \
                            pacoll_team_t *t, int plain, PC_PARAMS_##shape);
PC_COLLS(PC_API_SLOW_DECL)
#undef PC_API_SLOW_DECL

/* Every C entry point's body (the MPI_* wrappers of interpose/, pacoll_*
 * and pacoll_*_alg), in a function whose parameters are PC_PARAMS_<shape>:
 * one team lookup and one plain test on the arguments as they came, and a
 * call the rules gave to the MPI library goes there with no call of
 * pacoll's between; any other call goes to pc_api_slow_<lower>.  where:
 * the call the user made, for messages; algo: the one named at the call
 * site, NULL for the usual selection; ra: the caller's return address, for
 * the profiler. */
#define PC_API_ENTER(lower, Camel, UPPER, shape, where, algo, ra)                             \
    do {                                                                                      \
        const pc_team_slot_t *pc_s_ = pc_api_cached(comm);                                   \
        int pc_plain_ = pc_s_ && !(algo) ? pc_api_plain_test(pc_s_->team, pc_s_->api,        \
                                                             PACOLL_##UPPER,                  \
                                                             PC_PLAIN_ARGS_##shape)           \
                                         : PC_PLAIN_OFF;                                      \
        if (pc_plain_ == PC_PLAIN_GO)                                                         \
            return PMPI_##Camel(PC_ARGS_##shape);                                             \
        return pc_api_slow_##lower(where, algo, ra, pc_s_ ? pc_s_->team : NULL, pc_plain_,    \
                                   PC_ARGS_##shape);                                          \
    } while (0)

/* The same for a call already described (the Fortran wrappers, whose
 * arguments are converted first). */
static inline __attribute__((always_inline)) int pc_api_enter(const pc_mpi_call_t *call,
                                                               const char *algo, const void *ra)
{
    pacoll_coll_t coll = call->coll;
    const pc_team_slot_t *s = pc_api_cached(call->comm);
    pacoll_team_t *t = s ? s->team : NULL;
    int plain = s && !algo ? pc_api_plain_test(t, s->api, coll, call->sendbuf, call->sendcount,
                                               call->sendtype, call->recvcount, call->recvtype,
                                               call->root)
                           : PC_PLAIN_OFF;
    if (plain == PC_PLAIN_GO)
        return pc_api_native_of(coll, call);
    return pc_api_call(call, algo, ra, t, plain);
}

#endif
