/*
 * The pacoll_* entry points: check, choose, normalise, run, count.
 * Everything pacoll does not handle goes to the MPI library (PMPI_*), and
 * PACOLL_VERBOSE says why, once per reason.
 */
#include "api/api.h"
#include "core/context.h"
#include "select/select.h"
#include "profile/profile.h"

void pc_api_say(pacoll_team_t *t, const char *fmt, const char *coll, const char *what)
{
    char msg[PC_MSG_LEN];
    pc_context_t *ctx = pc_context_get(0);
    if (!(t ? t->cfg.chan.verbose : pc_env_verbose()))
        return;
    snprintf(msg, sizeof msg, fmt, coll, what);
    if (!ctx || pc_context_first_reason(ctx, msg))
        pc_log("%s", msg);
}

void pc_api_say_handoff(MPI_Comm comm, const char *where, const char *why)
{
    pacoll_team_t *t = comm != MPI_COMM_NULL ? pc_team_find(comm) : NULL;
    pc_api_say(t, "%s: %s", where, why);
}

/* alltoallv's block size for the rules: the largest block any rank sends
 * or receives, agreed by an allreduce (pc_agree_bytes_fn).  The arguments
 * are not checked yet, so nothing here may trust them. */
static size_t alltoallv_largest(pacoll_team_t *t, const void *arg)
{
    const pc_mpi_call_t *call = arg;
    int in_place = call->sendbuf == MPI_IN_PLACE, ss = 0, rs = 0;
    if (!in_place && call->sendtype != MPI_DATATYPE_NULL)
        PMPI_Type_size(call->sendtype, &ss);
    if (call->recvtype != MPI_DATATYPE_NULL)
        PMPI_Type_size(call->recvtype, &rs);
    unsigned long long mine = 0, all = 0;
    for (int p = 0; p < t->size; p++) {
        if (!in_place && call->sendcounts && call->sendcounts[p] > 0 &&
            (unsigned long long)call->sendcounts[p] * (unsigned)ss > mine)
            mine = (unsigned long long)call->sendcounts[p] * (unsigned)ss;
        if (call->recvcounts && call->recvcounts[p] > 0 &&
            (unsigned long long)call->recvcounts[p] * (unsigned)rs > mine)
            mine = (unsigned long long)call->recvcounts[p] * (unsigned)rs;
    }
    if (PMPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, t->comm) != MPI_SUCCESS)
        return 0;
    return (size_t)all;
}

/* The automatic choice.  PACOLL_VERBOSE: rank 0 names it and why, once
 * per collective, communicator and power-of-two range of block sizes. */
static int choose_rules(pacoll_team_t *t, const pc_mpi_call_t *call, size_t m)
{
    pacoll_coll_t coll = call->coll;
    int v = coll == PACOLL_ALLTOALLV;
    if (!t->cfg.chan.verbose)
        return pc_select_why(t, coll, m, v ? alltoallv_largest : NULL, call, NULL, 0);
    char why[PC_MSG_LEN / 2];
    int idx = pc_select_why(t, coll, m, v ? alltoallv_largest : NULL, call, why, sizeof why);
    int range = 0; /* [2^(range-1), 2^range) bytes; 0 for 0 bytes (alltoallv: always 0) */
    while (range < 63 && ((size_t)1 << range) <= m)
        range++;
    if (t->rank != 0 || (t->api->said_choice[coll] >> range & 1))
        return idx;
    t->api->said_choice[coll] |= (uint64_t)1 << range;
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

/* The rules' choice, which learning in place may replace (lc: whether this
 * call learns; select/learn_team.c). */
static int choose(pacoll_team_t *t, const pc_mpi_call_t *call, pc_learn_call_t *lc)
{
    size_t m = call->coll == PACOLL_ALLTOALLV ? 0 : pc_block_bytes(call, t->rank);
    return pc_learn_pick(t, call->coll, m, choose_rules(t, call, m), lc);
}

/* The communicator's collective state is lost (verdict.h): this call and
 * every later one fail with code; said once even under MPI_ERRORS_RETURN. */
int pc_api_lost(const pc_mpi_call_t *call, pacoll_team_t *t, int code)
{
    pc_verdict_t *v = &t->verdict;
    return pc_raise(call->comm, code, !v->lost_told++,
                    "%s: pacoll's collective state of this communicator is lost: %s; this and "
                    "later pacoll collectives on it fail (docs/CHECKS.md)",
                    call->where, v->why);
}

/* This rank rejects the call: the others are told (verdict.h), then the
 * error is raised. */
int pc_api_reject(const pc_mpi_call_t *call, pacoll_team_t *t, const pc_check_t *ck)
{
    pc_verdict_reject(t, ck->code);
    return pc_raise(call->comm, ck->code, ck->always, "%s", ck->msg);
}

static int unknown_algo(const pc_mpi_call_t *call, const char *name, pc_check_t *ck)
{
    char names[PC_MSG_LEN / 2];
    pc_registry_names(call->coll, names, sizeof names);
    ck->code = MPI_ERR_ARG;
    ck->always = 1;
    snprintf(ck->msg, sizeof ck->msg, "%s: '%s' is not an algorithm for %s; valid: %s", call->where,
             name, pacoll_coll_name(call->coll), names);
    return ck->code;
}

/* The algorithm asked for by name, by precedence: call site, communicator,
 * environment (see select.h); -1 when none is. */
int pc_api_forced(const pc_mpi_call_t *call, pacoll_team_t *t, const char *site, int *idx,
                  pc_check_t *ck)
{
    *idx = -1;
    if (site && *site && strcmp(site, "auto") != 0) {
        *idx = pc_registry_find(call->coll, site);
        return *idx < 0 ? unknown_algo(call, site, ck) : MPI_SUCCESS;
    }
    if (t->comm_choice[call->coll] >= 0)
        *idx = t->comm_choice[call->coll];
    else if (t->cfg.forced[call->coll] >= 0)
        *idx = t->cfg.forced[call->coll];
    return MPI_SUCCESS;
}

void pc_api_count(pacoll_team_t *t, const pc_mpi_call_t *call, int idx, size_t bytes)
{
    t->stats[idx].calls++;
    t->stats[idx].bytes += bytes;
    t->last_algo[call->coll] = idx;
}

/* Bytes a native call moves, for PACOLL_STATS; its arguments are the MPI
 * library's to check, so nothing here may trust them. */
static size_t native_bytes_BLOCK(const pc_mpi_call_t *call, int size)
{
    return pc_block_bytes(call, 0) * (size_t)size;
}

static size_t native_bytes_ROOTED(const pc_mpi_call_t *call, int size)
{
    (void)size;
    return pc_block_bytes(call, call->root);
}

static size_t native_bytes_VECTOR(const pc_mpi_call_t *call, int size)
{
    const int *counts = call->sendbuf == MPI_IN_PLACE ? call->recvcounts : call->sendcounts;
    MPI_Datatype dt = call->sendbuf == MPI_IN_PLACE ? call->recvtype : call->sendtype;
    int s = 0;
    if (!counts || dt == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(dt, &s);
    size_t total = 0;
    for (int p = 0; p < size; p++)
        total += counts[p] > 0 ? (size_t)counts[p] * (size_t)s : 0;
    return total;
}

#define PC_NATIVE_BYTES(lower, Camel, UPPER, shape) [PACOLL_##UPPER] = native_bytes_##shape,
static size_t (*const native_bytes[PACOLL_NCOLL])(const pc_mpi_call_t *, int) = {
    PC_COLLS(PC_NATIVE_BYTES)};
#undef PC_NATIVE_BYTES

size_t pc_api_native_bytes(const pc_mpi_call_t *call, int size)
{
    return native_bytes[call->coll](call, size);
}

int pc_api_run_algo(const pc_mpi_call_t *call, pacoll_team_t *t, int idx, uint64_t ncall)
{
    const pacoll_algo_t *a = pc_registry_get(idx);
    pc_norm_t n;
    int rc = pc_normalize(call, t, &n);
    if (rc != MPI_SUCCESS) { /* nothing sent yet: a rejection */
        pc_norm_finish(call, t, &n, 0);
        pc_check_t ck = {.code = rc};
        snprintf(ck.msg, sizeof ck.msg, "%s (%s): could not lay out the buffers (MPI error %d)",
                 call->where, a->name, rc);
        return pc_api_reject(call, t, &ck);
    }
    int skip = call->coll != PACOLL_ALLTOALLV && n.args.m == 0; /* nothing moves, on every rank */
    /* the channel's counters before, to charge this call's share to a */
    pc_chan_stats_t before = pc_chan_stats(&t->chan);
    if (!skip) {
        rc = pc_verdict_run(t, ncall);
        if (rc == MPI_SUCCESS)
            rc = a->run(t, &n.args);
        pc_verdict_ran(&t->verdict);
    }
    pc_chan_stats_t after = pc_chan_stats(&t->chan);
    t->stats[idx].adverts += after.adverts - before.adverts;
    t->stats[idx].attaches += after.attaches - before.attaches;
    t->stats[idx].registers += after.registers - before.registers;
    int rc2 = pc_norm_finish(call, t, &n, rc == MPI_SUCCESS);
    pc_api_count(t, call, idx, n.sent);
    pc_verdict_t *v = &t->verdict;
    if (rc != MPI_SUCCESS && v->note[0] && !v->lost) { /* ran everywhere, wrong here */
        rc = pc_raise(call->comm, rc, 0, "%s (%s): %s", call->where, a->name, v->note);
        v->note[0] = 0;
        return rc;
    }
    if (rc != MPI_SUCCESS) { /* given up half-way: the ranks' channels disagree now */
        char why[96];
        snprintf(why, sizeof why, "%s %s returned MPI error %d", pacoll_coll_name(call->coll),
                 a->name, rc);
        pc_verdict_lose(t, why);
        return pc_api_lost(call, t, rc);
    }
    if (rc2 != MPI_SUCCESS)
        return pc_raise(call->comm, rc2, 0, "%s (%s): could not unpack the result (MPI error %d)",
                        call->where, a->name, rc2);
    return MPI_SUCCESS;
}


static int plain_how(const pacoll_team_t *t, const pc_mpi_call_t *call, const char *site,
                     int chosen)
{
    if (site || !t->api->prof_known || t->api->prof || t->cfg.chan.verbose || t->cfg.stats ||
        t->cfg.error || t->thread_multiple)
        return PC_PLAIN_NO;
    if (!chosen || (call->coll == PACOLL_ALLTOALLV && t->sel->pick[call->coll].any_m))
        return PC_PLAIN_ANY;
    return call->coll == PACOLL_ALLTOALLV ? PC_PLAIN_NO : PC_PLAIN_SAME_M;
}

/* A plain call's block is the size the rules gave the MPI library.  After
 * the first such call it is known by its count and type when the type is
 * a named one, whose size never changes (a derived type's handle may be
 * freed and reused for another type); else MPI is asked its size. */
static int plain_block(pacoll_team_t *t, const pc_mpi_call_t *call)
{
    int combiner, ni, na, nd, count;
    MPI_Datatype dt;
    pc_block_arg(call, t->rank, &count, &dt);
    if (pc_block_bytes(call, t->rank) != t->sel->pick[call->coll].m)
        return 0;
    if (dt != MPI_DATATYPE_NULL &&
        PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
        combiner == MPI_COMBINER_NAMED)
        t->api->plain_count[call->coll] = count, t->api->plain_type[call->coll] = dt;
    return 1;
}

static void api_state_free(pacoll_team_t *t, void *obj, int local)
{
    if (!local) /* MPI_Comm_free: the calls still running on it end first */
        pc_nb_drain(t);
    pc_nb_team_gone(t);
    t->api = NULL;
    pc_team_cache_refresh(t);
    free(obj);
}

pc_team_api_t *pc_api_state(pacoll_team_t *t)
{
    static const char key = 0; /* the api's on pc_team_ext */
    pc_team_api_t *a = t->api;
    if (a)
        return a;
    if (!(a = calloc(1, sizeof *a)))
        return NULL;
    if (pc_team_ext_set(t, &key, a, api_state_free) != MPI_SUCCESS) {
        free(a);
        return NULL;
    }
    t->api = a;
    pc_team_cache_refresh(t);
    return a;
}

int pc_api_choose(MPI_Comm comm, pacoll_coll_t coll, int idx)
{
    int rc = pc_comm_choose(comm, coll, idx);
    pacoll_team_t *t = rc == MPI_SUCCESS ? pc_team_find(comm) : NULL;
    if (t && t->api)
        t->api->plain[coll] = PC_PLAIN_NO;
    return rc;
}

static int run_chosen(const pc_mpi_call_t *call, const char *site, pacoll_team_t *t, int idx,
                      int chosen, const pc_learn_call_t *lc);

int pc_api_team(const pc_mpi_call_t *call, pacoll_team_t **tp)
{
    int rc, inter = 0, level = MPI_THREAD_SINGLE;
    pacoll_team_t *t = *tp;
    if (call->comm == MPI_COMM_NULL)
        return pc_raise(MPI_COMM_NULL, MPI_ERR_COMM, 0, "%s: the communicator is MPI_COMM_NULL",
                        call->where);
    /* A team is only made for an intracommunicator, and records the thread
     * level (fixed at MPI_Init): a communicator with one asks MPI nothing
     * more.  (No team is made for MPI_THREAD_MULTIPLE.) */
    if (!t)
        t = pc_team_find(call->comm);
    if (!t && (PMPI_Comm_test_inter(call->comm, &inter), inter)) {
        pc_api_say(NULL, "%s: handed to the MPI library: %s", pacoll_coll_name(call->coll),
                   "intercommunicators are not handled by pacoll");
        return PC_API_HAND_OVER;
    }
    if (t ? t->thread_multiple : (PMPI_Query_thread(&level), level == MPI_THREAD_MULTIPLE)) {
        pc_api_say(t, "%s: handed to the MPI library: %s", pacoll_coll_name(call->coll),
                   "pacoll runs collectives up to MPI_THREAD_SERIALIZED");
        return PC_API_HAND_OVER;
    }
    if (!t) {
        /* The team's set-up is collective and depends on no argument, so a
         * rank whose arguments fail a check below has set it up with the
         * others before it rejects the call. */
        if (!(t = pc_team_open(call->comm, &rc)))
            return pc_raise(call->comm, rc, 1, "%s: pacoll could not set up the communicator",
                            call->where);
    }
    *tp = t;
    pc_team_api_t *api = pc_api_state(t);
    if (!api)
        return pc_raise(call->comm, MPI_ERR_NO_MEM, 1,
                        "%s: pacoll could not set up the communicator", call->where);
    if (api->nb_head) /* nonblocking calls still running here end first */
        pc_nb_drain(t);
    api->plain[call->coll] = PC_PLAIN_NO; /* set again below if this call goes the plain way */
    api->plain_count[call->coll] = -1, api->plain_type[call->coll] = MPI_DATATYPE_NULL;
    if (!t->sel) { /* the team's first call: a bad rules file fails it */
        if (pc_rules_load(t) != MPI_SUCCESS)
            return pc_raise(call->comm, MPI_ERR_NO_MEM, 1,
                            "%s: pacoll could not set up the communicator", call->where);
        t->may_run = pc_team_may_run(t) || pc_learn_may_run(t);
        if ((rc = pc_learn_open(t)) != MPI_SUCCESS)
            return pc_raise(call->comm, rc, 1, "%s: pacoll could not set up the communicator",
                            call->where);
    }
    if (t->cfg.error) /* a bad setting: said loudly once per communicator */
        return pc_raise(call->comm, t->cfg.error, !t->cfg.error_told++, "%s: %s", call->where,
                        t->cfg.error_msg);
    /* The channel is made at the team's first call when pacoll may ever run
     * here, whatever this call's arguments: so a rank whose arguments fail a
     * check has made it with the others (docs/CHECKS.md, "The team").  Where
     * the rules never give pacoll this shape, it waits for an algorithm
     * named at a call or on the communicator, which every rank names alike. */
    if (!t->ready && t->may_run && (rc = pc_team_ready(t)) != MPI_SUCCESS && !t->no_room)
        return pc_raise(call->comm, rc, 1,
                        "%s: pacoll could not set up its channel on the communicator", call->where);
    return MPI_SUCCESS;
}

/* t: the communicator's team if the caller found one, else NULL. */
static int dispatch(const pc_mpi_call_t *call, const char *site, pacoll_team_t *t)
{
    int rc = pc_api_team(call, &t);
    if (rc == PC_API_HAND_OVER)
        return pc_api_native(call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (pc_verdict_begin(t) != MPI_SUCCESS)
        return pc_api_lost(call, t, MPI_ERR_OTHER);
    pc_check_t ck; /* its message is written only when a check fails */
    ck.code = MPI_SUCCESS, ck.always = 0, ck.probe_comm = t->comm, ck.msg[0] = '\0';
    int idx, chosen;
    pc_learn_call_t lc = {.cls = NULL};
    if (pc_api_forced(call, t, site, &idx, &ck) != MPI_SUCCESS)
        return pc_api_reject(call, t, &ck);
    if ((chosen = idx < 0)) /* the rules, else the MPI library; or learning */
        idx = choose(t, call, &lc);
    rc = run_chosen(call, site, t, idx, chosen, &lc);
    pc_learn_done(t, &lc); /* on every rank, whatever the call returned */
    return rc;
}

/* The rest of dispatch, once the algorithm is chosen. */
static int run_chosen(const pc_mpi_call_t *call, const char *site, pacoll_team_t *t, int idx,
                      int chosen, const pc_learn_call_t *lc)
{
    int rc;
    pc_team_api_t *api = t->api;
    pc_check_t ck;
    ck.code = MPI_SUCCESS, ck.always = 0, ck.probe_comm = t->comm, ck.msg[0] = '\0';
    const pacoll_algo_t *a = pc_registry_get(idx);
    const char *why;
    /* an algorithm named at the call or on the communicator, where the rules
     * never run pacoll: named alike on every rank, so made together */
    if (a->run && !t->ready && (rc = pc_team_ready(t)) != MPI_SUCCESS && !t->no_room)
        return pc_raise(call->comm, rc, 1,
                        "%s: pacoll could not set up its channel on the communicator", call->where);
    /* pacoll's own resource needs never fail a legal call (docs/CHECKS.md,
     * "Resources"): all ranks agreed at set-up, so all hand it over */
    if (a->run && t->no_room) {
        pc_api_say(t, "%s: handed to the MPI library: %s", call->where,
                 "pacoll's windows and shared memory do not fit some host's memory or "
                 "shared-memory space");
        idx = pc_registry_native(call->coll), a = pc_registry_get(idx);
    }
    if (a->run && !pc_algo_can_run(t, a, &why)) {
        pc_api_say(t, "%s: handed to the MPI library: %s", pacoll_coll_name(call->coll), why);
        idx = pc_registry_native(call->coll), a = pc_registry_get(idx);
    }
    if (!a->run) {
        /* bytes for PACOLL_STATS only */
        pc_api_count(t, call, idx, t->cfg.stats ? native_bytes[call->coll](call, t->size) : 0);
        /* a class still learning comes back to dispatch at every call */
        api->plain[call->coll] =
            lc->cls ? PC_PLAIN_NO : (unsigned char)plain_how(t, call, site, chosen);
        return pc_api_native(call);
    }
    if (pc_check_call(call, t->size, t->rank, &ck) != MPI_SUCCESS)
        return pc_api_reject(call, t, &ck);
    return pc_api_run_algo(call, t, idx, 0);
}

/* PACOLL_PROFILE: the arrival is stamped before the dispatch and the exit
 * after it, so the profile sees what the caller sees (pacoll's own choice,
 * checks and packing included). */
#define PC_PROF_KIND(lower, Camel, UPPER, shape) [PACOLL_##UPPER] = PC_PROF_##UPPER,
static const pc_prof_kind_t prof_kind[PACOLL_NCOLL] = {PC_COLLS(PC_PROF_KIND)};
#undef PC_PROF_KIND

/* One block (the receive side's in place), or alltoallv's vectors. */
static double prof_bytes_BLOCK(const pc_mpi_call_t *call)
{
    return pc_prof_bytes_block(call->sendbuf, call->sendcount, call->sendtype, call->recvcount,
                               call->recvtype);
}
#define prof_bytes_ROOTED prof_bytes_BLOCK

static double prof_bytes_VECTOR(const pc_mpi_call_t *call)
{
    return pc_prof_bytes_vector(call->sendbuf, call->sendcounts, call->sendtype, call->recvcounts,
                                call->recvtype, call->comm);
}

#define PC_PROF_BYTES(lower, Camel, UPPER, shape) [PACOLL_##UPPER] = prof_bytes_##shape,
static double (*const prof_bytes[PACOLL_NCOLL])(const pc_mpi_call_t *) = {
    PC_COLLS(PC_PROF_BYTES)};
#undef PC_PROF_BYTES

void pc_api_prof_record(const pc_prof_stamp_t *s, const pc_mpi_call_t *call, const void *ra)
{
    if (s->prof)
        pc_prof_record(s, prof_kind[call->coll], call->comm, ra, prof_bytes[call->coll](call));
}

int pc_api_call(const pc_mpi_call_t *call, const char *site, const void *ra, pacoll_team_t *t,
                int plain)
{
    /* not in the context's cache: the team is the communicator's attribute
     * (pc_team_find caches it), and the plain way is tested here instead */
    if (!t && call->comm != MPI_COMM_NULL && (t = pc_team_find(call->comm)) && !site)
        plain = pc_api_plain_test(t, t->api, call->coll, call->sendbuf, call->sendcount,
                                  call->sendtype, call->recvcount, call->recvtype, call->root);
    if (plain == PC_PLAIN_ASK)
        plain = plain_block(t, call) && pc_plain_begin(t) ? PC_PLAIN_GO : PC_PLAIN_OFF;
    if (plain == PC_PLAIN_GO)
        return pc_api_native(call);
    /* (a team under MPI_THREAD_MULTIPLE is handed over: nothing kept on it) */
    pc_team_api_t *api = t && !t->thread_multiple ? pc_api_state(t) : NULL;
    if (api && !api->prof_known)
        api->prof = pc_prof_handle(), api->prof_known = 1;
    pc_prof_stamp_t s;
    pc_prof_begin_with(&s, call->comm, api ? api->prof : pc_prof_handle());
    int rc = dispatch(call, site, t);
    pc_prof_exit(&s);
    if (s.prof && rc == MPI_SUCCESS)
        pc_prof_record(&s, prof_kind[call->coll], call->comm, ra, prof_bytes[call->coll](call));
    return rc;
}

/* ------------------------------------------------------ entry points */

#define PC_API_SLOW(lower, Camel, UPPER, shape)                                              \
    int pc_api_slow_##lower(const char *where, const char *algo, const void *ra,             \
                            pacoll_team_t *t, int plain, PC_PARAMS_##shape)                  \
    {                                                                                        \
        pc_mpi_call_t call = {PC_CALL_##shape(PACOLL_##UPPER, where)};                       \
        return pc_api_call(&call, algo, ra, t, plain);                                       \
    }
PC_COLLS(PC_API_SLOW)
#undef PC_API_SLOW

/* pacoll_<coll> and pacoll_<coll>_alg (pacoll.h), from the table of
 * api/colls.h.  The profile names their caller's call site. */
#define PC_PUBLIC(lower, Camel, UPPER, shape)                                             \
    PC_EXPORT int pacoll_##lower(PC_PARAMS_##shape)                                       \
    {                                                                                     \
        PC_API_ENTER(lower, Camel, UPPER, shape, "pacoll_" #lower, NULL, PC_CALLER);      \
    }                                                                                     \
    PC_EXPORT int pacoll_##lower##_alg(const char *algo, PC_PARAMS_##shape)               \
    {                                                                                     \
        PC_API_ENTER(lower, Camel, UPPER, shape, "pacoll_" #lower "_alg", algo, PC_CALLER); \
    }
PC_COLLS(PC_PUBLIC)
#undef PC_PUBLIC

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
            pc_mpi_call_t call = {.coll = coll, .where = "pacoll_comm_set_algorithm", .comm = comm};
            pc_check_t ck;
            return pc_raise(comm, unknown_algo(&call, algo, &ck), 1, "%s", ck.msg);
        }
    }
    int rc, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return pc_raise(comm, MPI_ERR_COMM, 0, "pacoll_comm_set_algorithm: intercommunicator");
    if ((rc = pc_api_choose(comm, coll, idx)) != MPI_SUCCESS)
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
