/*
 * Nonblocking collectives on pacoll's algorithms (docs/INTERPOSE.md,
 * "Nonblocking collectives").
 *
 * pacoll's algorithms are loops over the wait layer (channel/wait.h).  A
 * nonblocking call runs its algorithm on a fiber (base/fiber.h): the wait
 * layer's every poll hands the core back, so MPI_I<coll> returns after the
 * algorithm's first slice (its writes to the peers that are there already)
 * and the rest runs whenever the MPI library makes progress.  The request
 * the caller gets is the MPI library's own generalized request, so every
 * completion call (MPI_Wait, MPI_Test, the arrays' Waitall / Waitany /
 * Waitsome / Testall / ..., MPI_Request_get_status) takes it as any other,
 * mixed with the library's requests, from C and Fortran alike.
 *
 * The library must call pacoll from its own progress engine, from any
 * blocking call, or a legal program deadlocks: a rank blocked in MPI_Recv
 * must still move its part of a collective that another rank waits for.
 * Open MPI runs the callbacks registered with opal_progress_register in its
 * progress loop; MPICH from 4.2 runs MPIX_Async_start's poll functions in
 * its progress engine.  Where neither is found (MPICH before 4.2, SMPI),
 * every nonblocking call goes to the MPI library's own.
 *
 * What runs on a fiber: an algorithm that waits only in the wait layer
 * (pacoll_algo.nonblocking), on a team whose set-up is done (its first
 * collective call, blocking, made it), named for the communicator
 * (PACOLL_<COLL>, its choice or info hints); the rest, and every call where
 * none is named, goes to the MPI library's own nonblocking call: the rules
 * were measured on blocking calls, whose winners are not a nonblocking
 * call's (docs/INTERPOSE.md has the measurements).  Every rank decides
 * alike, from what every rank knows.
 * The calls pacoll runs on one team run in the order they were made (every
 * rank's order), one after the other; a blocking call that runs pacoll's
 * algorithm on the team, and the team's end, wait for them first.
 */
#include "api/api.h"

#include <dlfcn.h>
#include <sched.h>

#include "base/fiber.h"
#include "core/context.h"
#include "select/select.h"

/* A fiber's stack: mapped, only the pages touched are ever committed. */
#define PC_NB_STACK (512u * 1024u)
/* Finished fibers kept for the next calls. */
#define PC_NB_POOL 4

/* MPICH's MPIX_Async interface (4.2 and later), found at run time: this
 * build's mpi.h may be older than the library that runs it. */
#define PC_MPIX_ASYNC_NOPROGRESS 0
#define PC_MPIX_ASYNC_DONE 1
#define PC_MPIX_STREAM_NULL 0x3c000000
typedef int (*pc_async_poll_fn)(void *thing);

enum pc_nb_how {
    PC_NB_LIBRARY, /* no hook into the library's progress: its own calls */
    PC_NB_THREADS, /* MPI_THREAD_SERIALIZED or MULTIPLE: its own calls too */
    PC_NB_OPAL,    /* Open MPI: opal_progress_register */
    PC_NB_ASYNC    /* MPICH: MPIX_Async_start */
};

typedef struct pc_nb_op {
    pc_mpi_call_t call; /* the caller's arguments: theirs until completion (MPI) */
    pacoll_team_t *t;
    int idx;            /* the algorithm */
    uint64_t ncall;     /* its number among the team's calls (core/verdict.h) */
    pc_fiber_t *fiber;
    int rc;
    MPI_Request req;    /* the generalized request the caller holds */
    pc_prof_stamp_t prof; /* PACOLL_PROFILE: arrival at the call, exit at the end */
    const void *ra;     /* the caller's call site, for the profile */
    struct pc_nb_op *next; /* the team's queue */
    /* a persistent request's (MPI_<coll>_init): kept across its starts */
    int persistent, active;
    int tag;               /* its shell's tag */
    MPI_Request shell;     /* what the caller holds: the library's persistent receive of
                            * a message this process sends itself when a start ends */
    struct pc_nb_op *next_persistent;
} pc_nb_op_t;

typedef struct pc_nb {
    int how;  /* enum pc_nb_how */
    int busy; /* pacoll drives fibers or changes its queues now: progress calls return */
    pacoll_team_t **teams; /* teams whose queue is not empty */
    int nteams, cap;
    pc_fiber_t *pool[PC_NB_POOL];
    int npool;
    int async_on; /* PC_NB_ASYNC: a poll function is registered */
    int (*opal_unregister)(int (*cb)(void));
    int (*async_start)(pc_async_poll_fn poll, void *state, int stream);
    /* persistent requests: theirs, and the communicator their shells use */
    pc_nb_op_t *persistent;
    MPI_Comm self;
    int next_tag;
} pc_nb_t;

static void op_main(void *arg)
{
    pc_nb_op_t *op = arg;
    op->rc = pc_api_run_algo(&op->call, op->t, op->idx, op->ncall);
    pc_prof_exit(&op->prof);
    if (op->rc == MPI_SUCCESS)
        pc_api_prof_record(&op->prof, &op->call, op->ra);
}

/* ---------------------------------------------------- the generalized request */

static int op_query(void *extra, MPI_Status *status)
{
    const pc_nb_op_t *op = extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return op->rc;
}

/* MPI calls it once the request is both complete and freed (MPI_Wait,
 * MPI_Test, MPI_Request_free): the op has left every queue by then. */
static int op_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

/* A collective is not cancelled: MPI_Cancel leaves it to complete. */
static int op_cancel(void *extra, int complete)
{
    PC_UNUSED(extra), PC_UNUSED(complete);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ the scheduler */

static pc_fiber_t *fiber_get(pc_nb_t *nb, pc_nb_op_t *op)
{
    if (nb->npool > 0) {
        pc_fiber_t *f = nb->pool[--nb->npool];
        if (pc_fiber_restart(f, op_main, op) == 0)
            return f;
        pc_fiber_free(f);
    }
    return pc_fiber_new(PC_NB_STACK, op_main, op);
}

static void fiber_put(pc_nb_t *nb, pc_fiber_t *f)
{
    if (nb->npool < PC_NB_POOL)
        nb->pool[nb->npool++] = f;
    else
        pc_fiber_free(f);
}

static void persistent_unlink(pc_nb_t *nb, pc_nb_op_t *op)
{
    for (pc_nb_op_t **p = &nb->persistent; *p; p = &(*p)->next_persistent)
        if (*p == op) {
            *p = op->next_persistent;
            break;
        }
    free(op);
}

/* The op's algorithm has ended: the caller's request completes.  A
 * persistent one's shell, a receive posted at MPI_Start, gets its message:
 * so every completion call of the library, in any language, sees it end. */
static void op_done(pc_nb_t *nb, pc_nb_op_t *op)
{
    if (!op->persistent) {
        PMPI_Grequest_complete(op->req); /* op is MPI's to free from here */
        return;
    }
    MPI_Request s;
    op->active = 0;
    if (PMPI_Isend(NULL, 0, MPI_BYTE, 0, op->tag, nb->self, &s) == MPI_SUCCESS)
        PMPI_Request_free(&s);
}

/* One slice of t's first call; when it ends, it is completed and the next
 * one's first slice runs. */
static void team_step(pc_context_t *ctx, pc_nb_t *nb, pacoll_team_t *t)
{
    pc_team_api_t *a = t->api;
    pc_nb_op_t *op;
    while ((op = a->nb_head)) {
        ctx->fiber_now = op->fiber;
        int done = pc_fiber_resume(op->fiber);
        ctx->fiber_now = NULL;
        if (!done)
            return;
        if (!(a->nb_head = op->next))
            a->nb_tail = NULL;
        fiber_put(nb, op->fiber);
        op->fiber = NULL;
        op_done(nb, op);
    }
}

/* A slice of every team's first call; teams whose queue emptied leave the
 * list. */
static void progress_all(pc_context_t *ctx, pc_nb_t *nb)
{
    nb->busy = 1;
    for (int i = 0; i < nb->nteams;) {
        pacoll_team_t *t = nb->teams[i];
        team_step(ctx, nb, t);
        if (t->api->nb_head)
            i++;
        else
            nb->teams[i] = nb->teams[--nb->nteams];
    }
    nb->busy = 0;
}

/* Open MPI's progress loop calls this, from every blocking call and every
 * test.  Nothing counted as an event: the loop still yields when idle. */
static int opal_progress_cb(void)
{
    pc_context_t *ctx = pc_context_now();
    pc_nb_t *nb = ctx ? ctx->nb : NULL;
    if (nb && !nb->busy && nb->nteams)
        progress_all(ctx, nb);
    return 0;
}

/* MPICH's progress engine calls this while it is registered: one poll
 * function for every team, done when no call is left. */
static int async_poll(void *thing)
{
    PC_UNUSED(thing);
    pc_context_t *ctx = pc_context_now();
    pc_nb_t *nb = ctx ? ctx->nb : NULL;
    if (!nb)
        return PC_MPIX_ASYNC_DONE;
    if (!nb->busy && nb->nteams)
        progress_all(ctx, nb);
    if (nb->nteams || nb->busy)
        return PC_MPIX_ASYNC_NOPROGRESS;
    nb->async_on = 0;
    return PC_MPIX_ASYNC_DONE;
}

static void nb_end(pc_context_t *ctx, int local)
{
    pc_nb_t *nb = ctx->nb;
    if (!nb)
        return;
    if (!local) {
        /* requests freed while active, or never waited for (erroneous):
         * their collectives still end on every rank */
        while (nb->nteams) {
            progress_all(ctx, nb);
            sched_yield();
        }
        if (nb->how == PC_NB_OPAL && nb->opal_unregister)
            nb->opal_unregister(opal_progress_cb);
    }
    for (int i = 0; i < nb->npool; i++)
        pc_fiber_free(nb->pool[i]);
    while (nb->persistent) { /* never freed: MPI frees their shells */
        pc_nb_op_t *op = nb->persistent;
        nb->persistent = op->next_persistent;
        free(op);
    }
    if (!local && nb->self != MPI_COMM_NULL)
        PMPI_Comm_free(&nb->self);
    free(nb->teams);
    free(nb);
    ctx->nb = NULL;
}

/* A function of the MPI library by name, NULL when it has none (POSIX lets a
 * data pointer from dlsym hold a function's address). */
static void sym(void *fn, size_t len, const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    memcpy(fn, &p, len);
}

/* How this process's MPI library lets pacoll into its progress, found once. */
static int find_hook(pc_nb_t *nb)
{
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    /* a fiber resumed by another thread than the one that started it would
     * see that thread's thread-local state: one thread calls MPI, or none */
    if (level >= MPI_THREAD_SERIALIZED)
        return PC_NB_THREADS;
    int (*reg)(int (*)(void)) = NULL;
    sym(&reg, sizeof reg, "opal_progress_register");
    sym(&nb->opal_unregister, sizeof nb->opal_unregister, "opal_progress_unregister");
    if (reg && nb->opal_unregister && reg(opal_progress_cb) == 0)
        return PC_NB_OPAL;
    sym(&nb->async_start, sizeof nb->async_start, "MPIX_Async_start");
    if (nb->async_start)
        return PC_NB_ASYNC;
    return PC_NB_LIBRARY;
}

/* pacoll runs nonblocking calls here (the hooks come last in pc_nb_how). */
static int hooked(const pc_nb_t *nb) { return nb && nb->how >= PC_NB_OPAL; }

static const char *hook_words(int how)
{
    return how == PC_NB_OPAL    ? "pacoll takes part in Open MPI's progress (opal_progress_register)"
           : how == PC_NB_ASYNC ? "pacoll takes part in MPICH's progress (MPIX_Async_start)"
           : how == PC_NB_THREADS
               ? "more than one thread may call MPI, and a fiber must be resumed by the thread "
                 "that started it, so every nonblocking call goes to the MPI library's own"
               : "the MPI library offers pacoll no part in its progress, so every nonblocking "
                 "call goes to its own";
}

static pc_nb_t *nb_state(pc_context_t *ctx, pacoll_team_t *t)
{
    if (ctx->nb)
        return ctx->nb;
    pc_nb_t *nb = calloc(1, sizeof *nb);
    if (!nb)
        return NULL;
    nb->self = MPI_COMM_NULL;
    nb->how = find_hook(nb);
    ctx->nb = nb;
    ctx->nb_end = nb_end;
    pc_api_say(t, "nonblocking collectives: %s%s", hook_words(nb->how), "");
    return nb;
}

/* ------------------------------------------------------------ the calls */

/* The MPI library's own nonblocking call. */
static int inative(const pc_mpi_call_t *call, MPI_Request *request)
{
    switch (call->coll) {
#define PC_INATIVE_CASE(lower, Camel, UPPER, shape) \
    case PACOLL_##UPPER:                            \
        return PMPI_I##lower(PC_CALL_ARGS_##shape(call), request);
        PC_COLLS(PC_INATIVE_CASE)
#undef PC_INATIVE_CASE
    default:
        return MPI_ERR_ARG;
    }
}

static int to_library(pacoll_team_t *t, const pc_mpi_call_t *call, MPI_Request *request)
{
    int idx = pc_registry_native(call->coll);
    pc_api_count(t, call, idx, t->cfg.stats ? pc_api_native_bytes(call, t->size) : 0);
    return inative(call, request);
}

/* The algorithm for this call, decided alike on every rank with no
 * communication: a name (communicator, PACOLL_<COLL>), else the rules
 * where they need no measurement; the MPI library's own otherwise, and for
 * an algorithm that cannot run on a fiber. */
static int choose(pacoll_team_t *t, const pc_mpi_call_t *call)
{
    int idx = -1, native = pc_registry_native(call->coll);
    pc_check_t ck;
    const char *name = pacoll_coll_name(call->coll), *why;
    pc_api_forced(call, t, NULL, &idx, &ck); /* (no call-site name: cannot fail) */
    if (idx < 0) {
        pc_api_say(t, "%s: nonblocking call handed to the MPI library: %s", name,
                   "no algorithm is named for it (the rules were measured on blocking calls: "
                   "docs/INTERPOSE.md)");
        return native;
    }
    const pacoll_algo_t *a = pc_registry_get(idx);
    if (!a->run)
        return idx;
    if (!a->nonblocking) {
        char what[160];
        snprintf(what, sizeof what,
                 "%s waits inside the MPI library or builds sub-teams, which a nonblocking call "
                 "must not",
                 a->name);
        pc_api_say(t, "%s: nonblocking call handed to the MPI library: %s", name, what);
        return native;
    }
    if (!pc_algo_can_run(t, a, &why)) {
        pc_api_say(t, "%s: nonblocking call handed to the MPI library: %s", name, why);
        return native;
    }
    return idx;
}

/* Where fibers or requests cannot be had: the call runs at once, as a
 * blocking one, and its request is complete (memory exhausted only). */
static void run_now(pc_context_t *ctx, pc_nb_t *nb, pc_nb_op_t *op)
{
    while (op->t->api->nb_head) {
        progress_all(ctx, nb);
        sched_yield();
    }
    op_main(op);
    op_done(nb, op);
}

/* The op, its request made, joins its team's queue; it runs its first slice
 * at once when the team has no other call in flight. */
static void launch(pc_context_t *ctx, pc_nb_t *nb, pc_nb_op_t *op)
{
    pacoll_team_t *t = op->t;
    pc_team_api_t *a = t->api;
    if (!a->prof_known)
        a->prof = pc_prof_handle(), a->prof_known = 1;
    pc_prof_begin_with(&op->prof, op->call.comm, a->prof);
    nb->busy = 1; /* the library's progress, called from here, leaves the queues alone */
    op->next = NULL;
    if (!(op->fiber = fiber_get(nb, op))) {
        run_now(ctx, nb, op);
        nb->busy = 0;
        return;
    }
    if (!a->nb_head && nb->nteams == nb->cap) {
        int cap = nb->cap ? 2 * nb->cap : 8;
        pacoll_team_t **teams = realloc(nb->teams, (size_t)cap * sizeof *teams);
        if (!teams) { /* (memory exhausted) */
            fiber_put(nb, op->fiber);
            op->fiber = NULL;
            run_now(ctx, nb, op);
            nb->busy = 0;
            return;
        }
        nb->teams = teams, nb->cap = cap;
    }
    if (a->nb_tail)
        a->nb_tail->next = op;
    else
        a->nb_head = op;
    a->nb_tail = op;
    if (a->nb_head == op) {
        nb->teams[nb->nteams++] = t;
        team_step(ctx, nb, t); /* its first slice: writes to the peers already there */
        if (!a->nb_head)
            nb->teams[--nb->nteams] = NULL; /* done already: the team just added leaves */
    }
    nb->busy = 0;
    if (nb->how == PC_NB_ASYNC && nb->nteams && !nb->async_on) {
        nb->async_on = 1;
        if (nb->async_start(async_poll, NULL, PC_MPIX_STREAM_NULL) != MPI_SUCCESS)
            nb->async_on = 0;
    }
}

int pc_api_icall(const pc_mpi_call_t *call, MPI_Request *request, const void *ra)
{
    pc_context_t *ctx = pc_context_now();
    const pc_team_slot_t *slot = call->comm != MPI_COMM_NULL ? pc_api_cached(call->comm) : NULL;
    pacoll_team_t *t = slot ? slot->team : NULL;
    /* no algorithm named for this collective (the default), nothing to count
     * or say: the MPI library's own at once, as the blocking plain way */
    if (t && t->comm_choice[call->coll] < 0 && t->cfg.forced[call->coll] < 0 && !t->cfg.stats &&
        !t->cfg.chan.verbose && pc_plain_begin(t))
        return inative(call, request);
    if (!t && ctx && call->comm != MPI_COMM_NULL) /* (not in the cache, which differs by rank) */
        t = pc_team_find(call->comm);
    if (!t || t->thread_multiple)
        return inative(call, request);
    /* every call on a team is numbered, whichever way it goes, as the
     * blocking ones are: the ranks' numbers must agree (core/verdict.h) */
    if (!pc_verdict_begin_quiet(&t->verdict) && pc_verdict_begin(t) != MPI_SUCCESS)
        return pc_api_lost(call, t, MPI_ERR_OTHER);
    /* a team pacoll has run on, or may: its set-up is done (a blocking call
     * made it, collectively), so nothing here waits for another rank */
    if (!t->api || !t->sel || !t->ready || t->no_room || t->cfg.error)
        return inative(call, request);
    pc_nb_t *nb = nb_state(ctx, t);
    if (!hooked(nb))
        return inative(call, request);
    int idx = choose(t, call);
    if (!pc_registry_get(idx)->run)
        return to_library(t, call, request);
    pc_check_t ck;
    ck.code = MPI_SUCCESS, ck.always = 0, ck.probe_comm = t->comm, ck.msg[0] = '\0';
    if (pc_check_call(call, t->size, t->rank, &ck) != MPI_SUCCESS)
        return pc_api_reject(call, t, &ck);
    pc_nb_op_t *op = calloc(1, sizeof *op);
    if (!op || PMPI_Grequest_start(op_query, op_free, op_cancel, op, &op->req) != MPI_SUCCESS) {
        free(op);
        pc_verdict_lose(t, "no memory for a nonblocking call");
        return pc_api_lost(call, t, MPI_ERR_NO_MEM);
    }
    op->call = *call, op->t = t, op->idx = idx, op->ncall = t->verdict.ncall, op->ra = ra;
    *request = op->req;
    launch(ctx, nb, op);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------ persistent requests */

static int persistent_find_tag(const pc_nb_t *nb, int tag)
{
    for (pc_nb_op_t *op = nb->persistent; op; op = op->next_persistent)
        if (op->tag == tag)
            return 1;
    return 0;
}

static pc_nb_op_t *persistent_find(const pc_nb_t *nb, MPI_Request request)
{
    for (pc_nb_op_t *op = nb->persistent; op; op = op->next_persistent)
        if (op->shell == request)
            return op;
    return NULL;
}

int pc_api_pinit(const pc_mpi_call_t *call, MPI_Request *request, const void *ra)
{
    /* an initialization is collective: the team may be set up here */
    pacoll_team_t *t = NULL;
    int rc = pc_api_team(call, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    pc_context_t *ctx = pc_context_now();
    pc_nb_t *nb = ctx ? nb_state(ctx, t) : NULL;
    if (!hooked(nb) || !t->ready || t->no_room)
        return PC_API_HAND_OVER;
    int idx = choose(t, call);
    if (!pc_registry_get(idx)->run)
        return PC_API_HAND_OVER;
    pc_check_t ck;
    ck.code = MPI_SUCCESS, ck.always = 0, ck.probe_comm = t->comm, ck.msg[0] = '\0';
    if (pc_check_call(call, t->size, t->rank, &ck) != MPI_SUCCESS)
        return pc_api_reject(call, t, &ck);
    if (nb->self == MPI_COMM_NULL) { /* errors on it are the caller's: returned */
        if (PMPI_Comm_dup(MPI_COMM_SELF, &nb->self) != MPI_SUCCESS)
            return pc_raise(call->comm, MPI_ERR_NO_MEM, 1, "%s: could not make a request",
                            call->where);
        PMPI_Comm_set_errhandler(nb->self, MPI_ERRORS_RETURN);
    }
    pc_nb_op_t *op = calloc(1, sizeof *op);
    if (!op)
        return pc_raise(call->comm, MPI_ERR_NO_MEM, 1, "%s: could not make a request", call->where);
    /* a tag no other live request of this process uses */
    do
        op->tag = nb->next_tag = (nb->next_tag + 1) % 32768;
    while (persistent_find_tag(nb, op->tag));
    if (PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, op->tag, nb->self, &op->shell) != MPI_SUCCESS) {
        free(op);
        return pc_raise(call->comm, MPI_ERR_NO_MEM, 1, "%s: could not make a request", call->where);
    }
    op->persistent = 1, op->call = *call, op->t = t, op->idx = idx, op->ra = ra;
    op->next_persistent = nb->persistent;
    nb->persistent = op;
    *request = op->shell;
    return MPI_SUCCESS;
}

int pc_api_persistent_any(void)
{
    pc_context_t *ctx = pc_context_now();
    return ctx && ctx->nb && ctx->nb->persistent;
}

/* The persistent op whose shell request is, with the scheduler (*nb);
 * NULL when request is not pacoll's. */
static pc_nb_op_t *persistent_of(MPI_Request request, pc_nb_t **nb)
{
    pc_context_t *ctx = pc_context_now();
    *nb = ctx ? ctx->nb : NULL;
    return *nb && (*nb)->persistent ? persistent_find(*nb, request) : NULL;
}

int pc_api_pstart(MPI_Request *request)
{
    pc_nb_t *nb;
    pc_nb_op_t *op = persistent_of(*request, &nb);
    if (!op)
        return PC_API_HAND_OVER;
    pacoll_team_t *t = op->t;
    if (!t)
        return pc_raise(MPI_COMM_NULL, MPI_ERR_COMM, 0,
                        "MPI_Start: the persistent collective request's communicator was freed");
    /* Starting an active request is erroneous: said here while its algorithm
     * runs; after, its shell is active until the caller completes it, and
     * the library says so as it does for its own requests. */
    if (op->active || PMPI_Start(&op->shell) != MPI_SUCCESS)
        return pc_raise(op->call.comm, MPI_ERR_REQUEST, 0,
                        "MPI_Start: the persistent collective request is active (%s)",
                        op->call.where);
    if (!pc_verdict_begin_quiet(&t->verdict) && pc_verdict_begin(t) != MPI_SUCCESS) {
        op->active = 1, op_done(nb, op); /* its shell completes: nothing waits for good */
        return pc_api_lost(&op->call, t, MPI_ERR_OTHER);
    }
    op->active = 1, op->ncall = t->verdict.ncall;
    launch(pc_context_now(), nb, op);
    return MPI_SUCCESS;
}

int pc_api_prequest_free(MPI_Request *request)
{
    pc_nb_t *nb;
    pc_nb_op_t *op = persistent_of(*request, &nb);
    if (!op)
        return PC_API_HAND_OVER;
    /* MPI-4: freeing an active persistent collective request is erroneous */
    if (op->active)
        return pc_raise(op->t ? op->call.comm : MPI_COMM_NULL, MPI_ERR_REQUEST, 0,
                        "MPI_Request_free: the persistent collective request is active (%s)",
                        op->call.where);
    int rc = PMPI_Request_free(&op->shell);
    persistent_unlink(nb, op);
    *request = MPI_REQUEST_NULL;
    return rc;
}

void pc_nb_drain(pacoll_team_t *t)
{
    pc_context_t *ctx = pc_context_now();
    pc_nb_t *nb = ctx ? ctx->nb : NULL;
    if (!nb || nb->busy || !t->api)
        return;
    /* every team's calls move meanwhile: another rank may need this one's
     * part of them before it comes to the call t waits for */
    while (t->api->nb_head) {
        progress_all(ctx, nb);
        if (t->api->nb_head && t->oversubscribed)
            sched_yield();
    }
}

void pc_nb_team_gone(pacoll_team_t *t)
{
    pc_context_t *ctx = pc_context_now();
    pc_nb_t *nb = ctx ? ctx->nb : NULL;
    for (pc_nb_op_t *op = nb ? nb->persistent : NULL; op; op = op->next_persistent)
        if (op->t == t)
            op->t = NULL; /* a later MPI_Start of it fails with MPI_ERR_COMM */
}

/* pacoll_i<coll> (pacoll.h): MPI's signatures. */
#define PC_IPUBLIC(lower, Camel, UPPER, shape)                                  \
    PC_EXPORT int pacoll_i##lower(PC_PARAMS_##shape, MPI_Request *request)      \
    {                                                                           \
        pc_mpi_call_t call = {PC_CALL_##shape(PACOLL_##UPPER, "pacoll_i" #lower)}; \
        return pc_api_icall(&call, request, __builtin_return_address(0));       \
    }
PC_COLLS(PC_IPUBLIC)
#undef PC_IPUBLIC
