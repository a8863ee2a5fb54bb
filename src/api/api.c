/*
 * The pacoll_* entry points: check, choose, normalise, run, count.
 * Everything pacoll does not handle goes to the MPI library (PMPI_*), and
 * PACOLL_VERBOSE says why, once per reason.
 */
#include "api/api.h"
#include "core/context.h"
#include "select/select.h"
#include "profile/profile.h"

static int run_native(const pc_mpi_call_t *c)
{
    switch (c->coll) {
    case PACOLL_ALLTOALL:
        return PMPI_Alltoall(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                             c->recvtype, c->comm);
    case PACOLL_ALLTOALLV:
        return PMPI_Alltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf,
                              c->recvcounts, c->rdispls, c->recvtype, c->comm);
    case PACOLL_ALLGATHER:
        return PMPI_Allgather(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                              c->recvtype, c->comm);
    case PACOLL_GATHER:
        return PMPI_Gather(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                           c->recvtype, c->root, c->comm);
    default:
        return MPI_ERR_ARG;
    }
}

static void say_once(pacoll_team_t *t, const char *fmt, const char *coll, const char *what)
{
    char msg[PC_MSG_LEN];
    pc_context_t *ctx = pc_context_get(0);
    if (!(t ? t->cfg.chan.verbose : pc_env_verbose()))
        return;
    snprintf(msg, sizeof msg, fmt, coll, what);
    if (!ctx || pc_context_first_reason(ctx, msg))
        pc_log("%s", msg);
}

/* alltoallv's block size for the rules: the largest block any rank sends
 * or receives, agreed by an allreduce (pc_agree_bytes_fn).  The arguments
 * are not checked yet, so nothing here may trust them. */
static size_t alltoallv_largest(pacoll_team_t *t, const void *call)
{
    const pc_mpi_call_t *c = call;
    int in_place = c->sendbuf == MPI_IN_PLACE, ss = 0, rs = 0;
    if (!in_place && c->sendtype != MPI_DATATYPE_NULL)
        PMPI_Type_size(c->sendtype, &ss);
    if (c->recvtype != MPI_DATATYPE_NULL)
        PMPI_Type_size(c->recvtype, &rs);
    unsigned long long mine = 0, all = 0;
    for (int p = 0; p < t->size; p++) {
        if (!in_place && c->sendcounts && c->sendcounts[p] > 0 &&
            (unsigned long long)c->sendcounts[p] * (unsigned)ss > mine)
            mine = (unsigned long long)c->sendcounts[p] * (unsigned)ss;
        if (c->recvcounts && c->recvcounts[p] > 0 &&
            (unsigned long long)c->recvcounts[p] * (unsigned)rs > mine)
            mine = (unsigned long long)c->recvcounts[p] * (unsigned)rs;
    }
    if (PMPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, t->comm) != MPI_SUCCESS)
        return 0;
    return (size_t)all;
}

/* The automatic choice.  PACOLL_VERBOSE: rank 0 names it and why, once
 * per collective, communicator and power-of-two range of block sizes. */
static int choose(pacoll_team_t *t, const pc_mpi_call_t *c)
{
    pacoll_coll_t coll = c->coll;
    int v = coll == PACOLL_ALLTOALLV;
    size_t m = v ? 0 : pc_block_bytes(c, t->rank);
    if (!t->cfg.chan.verbose)
        return pc_select_why(t, coll, m, v ? alltoallv_largest : NULL, c, NULL, 0);
    char why[PC_MSG_LEN / 2];
    int idx = pc_select_why(t, coll, m, v ? alltoallv_largest : NULL, c, why, sizeof why);
    int range = 0; /* [2^(range-1), 2^range) bytes; 0 for 0 bytes (alltoallv: always 0) */
    while (range < 63 && ((size_t)1 << range) <= m)
        range++;
    if (t->rank != 0 || (t->said_choice[coll] >> range & 1))
        return idx;
    t->said_choice[coll] |= (uint64_t)1 << range;
    size_t lo = range ? (size_t)1 << (range - 1) : 0, hi = range ? ((size_t)1 << range) - 1 : 0;
    char shape[120], sizes[64] = "", what[80];
    pc_shape_words(t->size, t->nnodes, t->ppn_max, shape, sizeof shape);
    if (!v)
        snprintf(sizes, sizeof sizes, ", %zu-%zu B per block", lo, hi);
    if (idx == pc_registry_native(coll))
        snprintf(what, sizeof what, "the MPI library's own");
    else
        snprintf(what, sizeof what, "pacoll's %s", pc_registry_get(idx)->name);
    pc_log("%s on %s%s: %s, %s", pacoll_coll_name(coll), shape, sizes, what, why);
    return idx;
}

/* The communicator's collective state is lost (verdict.h): this call and
 * every later one fail with code; said once even under MPI_ERRORS_RETURN. */
static int lost(const pc_mpi_call_t *c, pacoll_team_t *t, int code)
{
    pc_verdict_t *v = &t->verdict;
    return pc_raise(c->comm, code, !v->lost_told++,
                    "%s: pacoll's collective state of this communicator is lost: %s; this and "
                    "later pacoll collectives on it fail (docs/CHECKS.md)",
                    c->where, v->why);
}

/* This rank rejects the call: the others are told (verdict.h), then the
 * error is raised. */
static int reject(const pc_mpi_call_t *c, pacoll_team_t *t, const pc_check_t *ck)
{
    pc_verdict_reject(t, ck->code);
    return pc_raise(c->comm, ck->code, ck->always, "%s", ck->msg);
}

static int unknown_algo(const pc_mpi_call_t *c, const char *name, pc_check_t *ck)
{
    char names[PC_MSG_LEN / 2];
    pc_registry_names(c->coll, names, sizeof names);
    ck->code = MPI_ERR_ARG;
    ck->always = 1;
    snprintf(ck->msg, sizeof ck->msg, "%s: '%s' is not an algorithm for %s; valid: %s", c->where,
             name, pacoll_coll_name(c->coll), names);
    return ck->code;
}

/* The algorithm asked for by name, by precedence: call site, communicator,
 * environment (see select.h); -1 when none is. */
static int forced(const pc_mpi_call_t *c, pacoll_team_t *t, const char *site, int *idx,
                  pc_check_t *ck)
{
    *idx = -1;
    if (site && *site && strcmp(site, "auto") != 0) {
        *idx = pc_registry_find(c->coll, site);
        return *idx < 0 ? unknown_algo(c, site, ck) : MPI_SUCCESS;
    }
    if (t->comm_choice[c->coll] >= 0)
        *idx = t->comm_choice[c->coll];
    else if (t->cfg.forced[c->coll] >= 0)
        *idx = t->cfg.forced[c->coll];
    return MPI_SUCCESS;
}

static void count(pacoll_team_t *t, const pc_mpi_call_t *c, int idx, size_t bytes)
{
    t->stats[idx].calls++;
    t->stats[idx].bytes += bytes;
    t->last_algo[c->coll] = idx;
}

/* Bytes a native call moves, for PACOLL_STATS; its arguments are the MPI
 * library's to check, so nothing here may trust them. */
static size_t native_bytes(const pc_mpi_call_t *c, int size)
{
    if (c->coll != PACOLL_ALLTOALLV) {
        size_t m = pc_block_bytes(c, c->coll == PACOLL_GATHER ? c->root : 0);
        return c->coll == PACOLL_GATHER ? m : m * (size_t)size;
    }
    const int *counts = c->sendbuf == MPI_IN_PLACE ? c->recvcounts : c->sendcounts;
    MPI_Datatype dt = c->sendbuf == MPI_IN_PLACE ? c->recvtype : c->sendtype;
    int s = 0;
    if (!counts || dt == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(dt, &s);
    size_t total = 0;
    for (int p = 0; p < size; p++)
        total += counts[p] > 0 ? (size_t)counts[p] * (size_t)s : 0;
    return total;
}

static int run_algo(const pc_mpi_call_t *c, pacoll_team_t *t, int idx)
{
    const pacoll_algo_t *a = pc_registry_get(idx);
    pc_norm_t n;
    int rc = pc_normalize(c, t, &n);
    if (rc != MPI_SUCCESS) { /* nothing sent yet: a rejection */
        pc_norm_finish(c, t, &n, 0);
        pc_check_t ck = {.code = rc};
        snprintf(ck.msg, sizeof ck.msg, "%s (%s): could not lay out the buffers (MPI error %d)",
                 c->where, a->name, rc);
        return reject(c, t, &ck);
    }
    int skip = c->coll != PACOLL_ALLTOALLV && n.args.m == 0; /* nothing moves, on every rank */
    /* the channel's counters before, to charge this call's share to a */
    pc_chan_stats_t before = pc_chan_stats(&t->chan);
    if (!skip) {
        rc = pc_verdict_run(t);
        if (rc == MPI_SUCCESS)
            rc = a->run(t, &n.args);
        pc_verdict_ran(&t->verdict);
    }
    pc_chan_stats_t after = pc_chan_stats(&t->chan);
    t->stats[idx].adverts += after.adverts - before.adverts;
    t->stats[idx].attaches += after.attaches - before.attaches;
    t->stats[idx].registers += after.registers - before.registers;
    int rc2 = pc_norm_finish(c, t, &n, rc == MPI_SUCCESS);
    count(t, c, idx, n.sent);
    pc_verdict_t *v = &t->verdict;
    if (rc != MPI_SUCCESS && v->note[0] && !v->lost) { /* ran everywhere, wrong here */
        rc = pc_raise(c->comm, rc, 0, "%s (%s): %s", c->where, a->name, v->note);
        v->note[0] = 0;
        return rc;
    }
    if (rc != MPI_SUCCESS) { /* given up half-way: the ranks' channels disagree now */
        char why[96];
        snprintf(why, sizeof why, "%s %s returned MPI error %d", pacoll_coll_name(c->coll),
                 a->name, rc);
        pc_verdict_lose(t, why);
        return lost(c, t, rc);
    }
    if (rc2 != MPI_SUCCESS)
        return pc_raise(c->comm, rc2, 0, "%s (%s): could not unpack the result (MPI error %d)",
                        c->where, a->name, rc2);
    return MPI_SUCCESS;
}

/* What pacoll does not run goes to the MPI library, before any check of
 * pacoll's: the MPI library checks it and gives its own verdict. */
static int hand_over(const pc_mpi_call_t *c, pacoll_team_t *t, const char *why)
{
    say_once(t, "%s: handed to the MPI library: %s", pacoll_coll_name(c->coll), why);
    return run_native(c);
}

static int plain_how(const pacoll_team_t *t, const pc_mpi_call_t *c, const char *site, int chosen)
{
    if (site || !t->prof_known || t->prof || t->cfg.chan.verbose || t->cfg.stats ||
        t->cfg.error || t->thread_multiple)
        return PC_PLAIN_NO;
    if (!chosen || (c->coll == PACOLL_ALLTOALLV && t->pick[c->coll].any_m))
        return PC_PLAIN_ANY;
    return c->coll == PACOLL_ALLTOALLV ? PC_PLAIN_NO : PC_PLAIN_SAME_M;
}

/* A plain call's block is the size the rules gave the MPI library.  After
 * the first such call it is known by its count and type when the type is
 * a named one, whose size never changes (a derived type's handle may be
 * freed and reused for another type); else MPI is asked its size. */
static int plain_same_block(pacoll_team_t *t, const pc_mpi_call_t *c)
{
    int count, combiner, ni, na, nd;
    MPI_Datatype dt;
    if (pc_plain_known_block(t, c, &count, &dt))
        return 1;
    if (pc_block_bytes(c, t->rank) != t->pick[c->coll].m)
        return 0;
    if (dt != MPI_DATATYPE_NULL &&
        PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
        combiner == MPI_COMBINER_NAMED)
        t->plain_count[c->coll] = count, t->plain_type[c->coll] = dt;
    return 1;
}

/* t: the communicator's team if the caller found one, else NULL. */
static int dispatch(const pc_mpi_call_t *c, const char *site, pacoll_team_t *t)
{
    int rc, inter = 0, level = MPI_THREAD_SINGLE;
    if (c->comm == MPI_COMM_NULL)
        return pc_raise(MPI_COMM_NULL, MPI_ERR_COMM, 0, "%s: the communicator is MPI_COMM_NULL",
                        c->where);
    /* A team is only made for an intracommunicator, and records the thread
     * level (fixed at MPI_Init): a communicator with one asks MPI nothing
     * more.  (No team is made for MPI_THREAD_MULTIPLE.) */
    if (!t)
        t = pc_team_find(c->comm);
    if (!t && (PMPI_Comm_test_inter(c->comm, &inter), inter))
        return hand_over(c, NULL, "intercommunicators are not handled by pacoll");
    if (t ? t->thread_multiple : (PMPI_Query_thread(&level), level == MPI_THREAD_MULTIPLE))
        return hand_over(c, t, "pacoll runs collectives up to MPI_THREAD_SERIALIZED");
    if (!t) {
        /* The team's set-up is collective and depends on no argument, so a
         * rank whose arguments fail a check below has set it up with the
         * others before it rejects the call. */
        if (!(t = pc_team_open(c->comm, &rc)))
            return pc_raise(c->comm, rc, 1, "%s: pacoll could not set up the communicator",
                            c->where);
    }
    t->plain[c->coll] = PC_PLAIN_NO; /* set again below if this call goes the plain way */
    t->plain_count[c->coll] = -1, t->plain_type[c->coll] = MPI_DATATYPE_NULL;
    if (!t->rules) { /* the team's first call: a bad rules file fails it */
        pc_rules_load(t);
        t->may_run = pc_team_may_run(t);
    }
    if (t->cfg.error) /* a bad setting: said loudly once per communicator */
        return pc_raise(c->comm, t->cfg.error, !t->cfg.error_told++, "%s: %s", c->where,
                        t->cfg.error_msg);
    /* The channel is made at the team's first call when pacoll may ever run
     * here, whatever this call's arguments: so a rank whose arguments fail a
     * check has made it with the others (docs/CHECKS.md, "The team").  Where
     * the rules never give pacoll this shape, it waits for an algorithm
     * named at a call or on the communicator, which every rank names alike. */
    if (!t->ready && t->may_run && (rc = pc_team_ready(t)) != MPI_SUCCESS && !t->no_room)
        return pc_raise(c->comm, rc, 1, "%s: pacoll could not set up its channel on the communicator",
                        c->where);
    if (pc_verdict_begin(t) != MPI_SUCCESS)
        return lost(c, t, MPI_ERR_OTHER);
    pc_check_t ck; /* its message is written only when a check fails */
    ck.code = MPI_SUCCESS, ck.always = 0, ck.probe_comm = t->comm, ck.msg[0] = '\0';
    int idx, chosen;
    if (forced(c, t, site, &idx, &ck) != MPI_SUCCESS)
        return reject(c, t, &ck);
    if ((chosen = idx < 0)) /* the rules, else the MPI library */
        idx = choose(t, c);
    const pacoll_algo_t *a = pc_registry_get(idx);
    const char *why;
    /* an algorithm named at the call or on the communicator, where the rules
     * never run pacoll: named alike on every rank, so made together */
    if (a->run && !t->ready && (rc = pc_team_ready(t)) != MPI_SUCCESS && !t->no_room)
        return pc_raise(c->comm, rc, 1, "%s: pacoll could not set up its channel on the communicator",
                        c->where);
    /* pacoll's own resource needs never fail a legal call (docs/CHECKS.md,
     * "Resources"): all ranks agreed at set-up, so all hand it over */
    if (a->run && t->no_room) {
        say_once(t, "%s: handed to the MPI library: %s", c->where,
                 "pacoll's windows and shared memory do not fit some host's memory or "
                 "shared-memory space");
        idx = pc_registry_native(c->coll), a = pc_registry_get(idx);
    }
    if (a->run && !pc_algo_can_run(t, a, &why)) {
        say_once(t, "%s: handed to the MPI library: %s", pacoll_coll_name(c->coll), why);
        idx = pc_registry_native(c->coll), a = pc_registry_get(idx);
    }
    if (!a->run) {
        count(t, c, idx, t->cfg.stats ? native_bytes(c, t->size) : 0); /* PACOLL_STATS only */
        t->plain[c->coll] = (unsigned char)plain_how(t, c, site, chosen);
        return run_native(c);
    }
    if (pc_check_call(c, t->size, t->rank, &ck) != MPI_SUCCESS)
        return reject(c, t, &ck);
    return run_algo(c, t, idx);
}

/* PACOLL_PROFILE: the arrival is stamped before the dispatch and the exit
 * after it, so the profile sees what the caller sees (pacoll's own choice,
 * checks and packing included). */
static const pc_prof_kind_t prof_kind[PACOLL_NCOLL] = {PC_PROF_ALLTOALL, PC_PROF_ALLTOALLV,
                                                       PC_PROF_ALLGATHER, PC_PROF_GATHER};

static double prof_bytes(const pc_mpi_call_t *c)
{
    switch (c->coll) {
    case PACOLL_ALLTOALLV:
        return pc_prof_bytes_vector(c->sendbuf, c->sendcounts, c->sendtype, c->recvcounts,
                                    c->recvtype, c->comm);
    default: /* alltoall, allgather, gather: one block (the receive side's in place) */
        return pc_prof_bytes_block(c->sendbuf, c->sendcount, c->sendtype, c->recvcount,
                                   c->recvtype);
    }
}

static int profiled_dispatch(const pc_mpi_call_t *c, const char *site, const void *ra)
{
    /* the team (from the context's cache, else an attribute), which keeps the profiler */
    pacoll_team_t *t = c->comm != MPI_COMM_NULL ? pc_team_find(c->comm) : NULL;
    if (t && !site && t->plain[c->coll] &&
        (t->plain[c->coll] == PC_PLAIN_ANY || plain_same_block(t, c)) &&
        pc_plain_begin(t))
        return run_native(c);
    if (t && !t->prof_known)
        t->prof = pc_prof_handle(), t->prof_known = 1;
    pc_prof_stamp_t s;
    pc_prof_begin_with(&s, c->comm, t ? t->prof : pc_prof_handle());
    int rc = dispatch(c, site, t);
    pc_prof_exit(&s);
    if (s.prof && rc == MPI_SUCCESS)
        pc_prof_record(&s, prof_kind[c->coll], c->comm, ra, prof_bytes(c));
    return rc;
}

/* ------------------------------------------------------ entry points */

/* The internal entry points take the caller's return address (ra): the
 * public pacoll_* functions and the MPI_* / Fortran wrappers pass their own
 * caller's, so the profile names the application's call site.  Each names
 * every member of the call: a partial initializer makes the compiler clear
 * the whole struct first, a measurable part of a call handed to the MPI
 * library (docs/TUNE.md, "The per-call cost"). */
int pc_api_alltoall(const void *ra, const char *where, const char *algo, const void *sendbuf,
                    int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    if (!algo &&
        pc_api_plain(comm, PACOLL_ALLTOALL, sendbuf, sendcount, sendtype, recvcount, recvtype, 0))
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             comm);
    pc_mpi_call_t c = {.coll = PACOLL_ALLTOALL, .where = where, .sendbuf = sendbuf,
                       .sendcount = sendcount,
                       .sendcounts = NULL, .sdispls = NULL, .sendtype = sendtype,
                       .recvbuf = recvbuf, .recvcount = recvcount, .recvcounts = NULL,
                       .rdispls = NULL, .recvtype = recvtype, .root = 0, .comm = comm};
    return profiled_dispatch(&c, algo, ra);
}

int pc_api_alltoallv(const void *ra, const char *where, const char *algo, const void *sendbuf,
                     const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm)
{
    /* alltoallv's plain mark is never by block (plain_how) */
    if (!algo && pc_api_plain(comm, PACOLL_ALLTOALLV, sendbuf, 0, sendtype, 0, recvtype, 0))
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
    pc_mpi_call_t c = {.coll = PACOLL_ALLTOALLV, .where = where, .sendbuf = sendbuf, .sendcount = 0,
                       .sendcounts = sendcounts, .sdispls = sdispls, .sendtype = sendtype,
                       .recvbuf = recvbuf, .recvcount = 0, .recvcounts = recvcounts,
                       .rdispls = rdispls, .recvtype = recvtype, .root = 0, .comm = comm};
    return profiled_dispatch(&c, algo, ra);
}

int pc_api_allgather(const void *ra, const char *where, const char *algo, const void *sendbuf,
                     int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm)
{
    if (!algo &&
        pc_api_plain(comm, PACOLL_ALLGATHER, sendbuf, sendcount, sendtype, recvcount, recvtype, 0))
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              comm);
    pc_mpi_call_t c = {.coll = PACOLL_ALLGATHER, .where = where, .sendbuf = sendbuf,
                       .sendcount = sendcount,
                       .sendcounts = NULL, .sdispls = NULL, .sendtype = sendtype,
                       .recvbuf = recvbuf, .recvcount = recvcount, .recvcounts = NULL,
                       .rdispls = NULL, .recvtype = recvtype, .root = 0, .comm = comm};
    return profiled_dispatch(&c, algo, ra);
}

int pc_api_gather(const void *ra, const char *where, const char *algo, const void *sendbuf,
                  int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    if (!algo &&
        pc_api_plain(comm, PACOLL_GATHER, sendbuf, sendcount, sendtype, recvcount, recvtype, root))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
    pc_mpi_call_t c = {.coll = PACOLL_GATHER, .where = where, .sendbuf = sendbuf,
                       .sendcount = sendcount,
                       .sendcounts = NULL, .sdispls = NULL, .sendtype = sendtype,
                       .recvbuf = recvbuf, .recvcount = recvcount, .recvcounts = NULL,
                       .rdispls = NULL, .recvtype = recvtype, .root = root, .comm = comm};
    return profiled_dispatch(&c, algo, ra);
}

#define PC_CALLER __builtin_return_address(0)

PC_EXPORT int pacoll_alltoall_alg(const char *algo, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype, MPI_Comm comm)
{
    return pc_api_alltoall(PC_CALLER, "pacoll_alltoall_alg", algo, sendbuf, sendcount, sendtype,
                           recvbuf, recvcount,
                           recvtype, comm);
}

PC_EXPORT int pacoll_alltoallv_alg(const char *algo, const void *sendbuf, const int sendcounts[],
                                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return pc_api_alltoallv(PC_CALLER, "pacoll_alltoallv_alg", algo, sendbuf, sendcounts, sdispls,
                            sendtype, recvbuf,
                            recvcounts, rdispls, recvtype, comm);
}

PC_EXPORT int pacoll_allgather_alg(const char *algo, const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return pc_api_allgather(PC_CALLER, "pacoll_allgather_alg", algo, sendbuf, sendcount, sendtype,
                            recvbuf, recvcount,
                            recvtype, comm);
}

PC_EXPORT int pacoll_gather_alg(const char *algo, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return pc_api_gather(PC_CALLER, "pacoll_gather_alg", algo, sendbuf, sendcount, sendtype,
                         recvbuf, recvcount,
                         recvtype, root, comm);
}

PC_EXPORT int pacoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return pc_api_alltoall(PC_CALLER, "pacoll_alltoall", NULL, sendbuf, sendcount, sendtype,
                           recvbuf, recvcount,
                           recvtype, comm);
}

PC_EXPORT int pacoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return pc_api_alltoallv(PC_CALLER, "pacoll_alltoallv", NULL, sendbuf, sendcounts, sdispls,
                            sendtype, recvbuf,
                            recvcounts, rdispls, recvtype, comm);
}

PC_EXPORT int pacoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return pc_api_allgather(PC_CALLER, "pacoll_allgather", NULL, sendbuf, sendcount, sendtype,
                            recvbuf, recvcount,
                            recvtype, comm);
}

PC_EXPORT int pacoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm)
{
    return pc_api_gather(PC_CALLER, "pacoll_gather", NULL, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount,
                         recvtype, root, comm);
}

/* ------------------------------------------------ per-communicator choice */

PC_EXPORT int pacoll_comm_set_algorithm(MPI_Comm comm, pacoll_coll_t coll, const char *algo)
{
    if (comm == MPI_COMM_NULL)
        return pc_raise(MPI_COMM_NULL, MPI_ERR_COMM, 0, "pacoll_comm_set_algorithm: MPI_COMM_NULL");
    if ((int)coll < 0 || coll >= PACOLL_NCOLL)
        return pc_raise(comm, MPI_ERR_ARG, 0, "pacoll_comm_set_algorithm: no collective %d",
                        (int)coll);
    int idx = -1;
    if (algo && *algo && strcmp(algo, "auto") != 0) {
        idx = pc_registry_find(coll, algo);
        if (idx < 0) {
            pc_mpi_call_t c = {.coll = coll, .where = "pacoll_comm_set_algorithm", .comm = comm};
            pc_check_t ck;
            return pc_raise(comm, unknown_algo(&c, algo, &ck), 1, "%s", ck.msg);
        }
    }
    int rc, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return pc_raise(comm, MPI_ERR_COMM, 0, "pacoll_comm_set_algorithm: intercommunicator");
    if ((rc = pc_comm_choose(comm, coll, idx)) != MPI_SUCCESS)
        return pc_raise(comm, rc, 1, "pacoll_comm_set_algorithm: could not record the choice");
    return MPI_SUCCESS;
}

PC_EXPORT int pacoll_comm_last_algorithm(MPI_Comm comm, pacoll_coll_t coll, char *name, int len)
{
    if (!name || len <= 0 || (int)coll < 0 || coll >= PACOLL_NCOLL || comm == MPI_COMM_NULL)
        return MPI_ERR_ARG;
    pacoll_team_t *t = pc_team_find(comm);
    const char *s = t && t->last_algo[coll] >= 0 ? pc_registry_get(t->last_algo[coll])->name : "";
    snprintf(name, (size_t)len, "%s", s);
    return MPI_SUCCESS;
}
