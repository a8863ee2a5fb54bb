/* When ranks disagree about a call: see verdict.h. */
#include "core/verdict.h"

#include <stdarg.h>

#include "core/team.h"
#include "channel/wait.h"

#define PC_TAG_VERDICT 7091
enum { NOTICE_REJECTED = 1, NOTICE_LOST = 2 };

static const char *class_name(int code)
{
    int cls = code;
    PMPI_Error_class(code, &cls);
    switch (cls) {
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM";
    default: return "an MPI error";
    }
}

/* Sends one notice to every other rank (nonblocking: a notice is a few
 * bytes, and the previous batch has long completed when the next one is
 * sent; an error path, so the wait is harmless). */
static void tell_all(pacoll_team_t *t, uint64_t call, int kind, int code)
{
    pc_verdict_t *v = &t->verdict;
    if (v->nreq)
        PMPI_Waitall(v->nreq, v->req, MPI_STATUSES_IGNORE);
    v->nreq = 0;
    if (!v->req && !(v->req = malloc((size_t)t->size * sizeof *v->req)))
        return; /* the others then wait (until PACOLL_TIMEOUT, if set) */
    v->msg[0] = call, v->msg[1] = (uint64_t)kind, v->msg[2] = (uint64_t)code;
    for (int p = 0; p < t->size; p++)
        if (p != t->rank &&
            PMPI_Isend(v->msg, (int)sizeof v->msg, MPI_BYTE, p, PC_TAG_VERDICT, t->comm,
                       &v->req[v->nreq]) == MPI_SUCCESS)
            v->nreq++;
}

static void lose(pacoll_team_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lose(pacoll_team_t *t, const char *fmt, ...)
{
    pc_verdict_t *v = &t->verdict;
    if (!v->lost) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->why, sizeof v->why, fmt, ap);
        va_end(ap);
        v->lost = 1;
    }
    if (!v->announced) {
        v->announced = 1;
        tell_all(t, v->ncall, NOTICE_LOST, MPI_ERR_OTHER);
    }
}

void pc_verdict_note(pacoll_team_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->verdict.note, sizeof t->verdict.note, fmt, ap);
    va_end(ap);
}

void pc_verdict_lose(pacoll_team_t *t, const char *why)
{
    lose(t, "this rank could not finish call %llu (%s)", (unsigned long long)t->verdict.ncall,
         why);
}

static pc_heard_t *heard_of(pc_verdict_t *v, uint64_t call, int add)
{
    for (int i = 0; i < v->nheard; i++)
        if (v->heard[i].call == call)
            return &v->heard[i];
    if (!add)
        return NULL;
    if (v->nheard == v->heard_cap) {
        int cap = v->heard_cap ? 2 * v->heard_cap : 4;
        pc_heard_t *h = realloc(v->heard, (size_t)cap * sizeof *h);
        if (!h)
            return NULL;
        v->heard = h, v->heard_cap = cap;
    }
    v->heard[v->nheard] = (pc_heard_t){.call = call, .count = 0};
    return &v->heard[v->nheard++];
}

static void forget(pc_verdict_t *v, uint64_t call)
{
    for (int i = 0; i < v->nheard; i++)
        if (v->heard[i].call == call) {
            v->heard[i] = v->heard[--v->nheard];
            return;
        }
}

/* One notice from rank `from`. */
static void take(pacoll_team_t *t, int from, const uint64_t m[3])
{
    pc_verdict_t *v = &t->verdict;
    unsigned long long call = (unsigned long long)m[0];
    if (m[1] == NOTICE_LOST) {
        lose(t, "rank %d of this communicator could not finish call %llu", from, call);
        return;
    }
    /* A rejection of a call this rank rejected too, or has not decided yet. */
    if (m[0] == v->rejected || m[0] > v->ncall || (m[0] == v->ncall && !v->running)) {
        pc_heard_t *h = heard_of(v, m[0], 1);
        if (h)
            h->count++;
        return;
    }
    lose(t, "rank %d rejected call %llu (%s), which this rank ran", from, call,
         class_name((int)m[2]));
}

int pc_verdict_poll(pacoll_team_t *t)
{
    for (pacoll_team_t *u = t; u; u = u->parent) {
        int flag = 1;
        while (flag) {
            MPI_Status st;
            uint64_t m[3];
            flag = 0;
            if (PMPI_Iprobe(MPI_ANY_SOURCE, PC_TAG_VERDICT, u->comm, &flag, &st) != MPI_SUCCESS ||
                !flag)
                break;
            if (PMPI_Recv(m, (int)sizeof m, MPI_BYTE, st.MPI_SOURCE, PC_TAG_VERDICT, u->comm,
                          MPI_STATUS_IGNORE) == MPI_SUCCESS)
                take(u, st.MPI_SOURCE, m);
        }
        if (u != t && u->verdict.lost)
            lose(t, "%s", u->verdict.why);
    }
    return t->verdict.lost ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int pc_verdict_begin(pacoll_team_t *t)
{
    pc_verdict_t *v = &t->verdict;
    v->ncall++;
    if (!v->lost && v->rejected) {
        /* Settle the last rejection: every other rank rejected it too, or
         * some ran it and the state is lost. */
        pc_wait_t w;
        pc_wait_init(&w, &t->chan, "a call that this rank rejected (settling)");
        pc_heard_t *h;
        while (pc_verdict_poll(t) == MPI_SUCCESS &&
               (!(h = heard_of(v, v->rejected, 0)) || h->count < t->size - 1))
            if (pc_wait_poll(&w, -1) != MPI_SUCCESS)
                break;
        forget(v, v->rejected);
        v->rejected = 0;
    }
    /* A rejection heard of a call this rank has since run. */
    for (int i = 0; i < v->nheard && !v->lost; i++)
        if (v->heard[i].call < v->ncall)
            lose(t, "another rank rejected call %llu, which this rank ran",
                 (unsigned long long)v->heard[i].call);
    return v->lost ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int pc_verdict_run(pacoll_team_t *t, uint64_t call)
{
    pc_verdict_t *v = &t->verdict;
    v->running = call ? call : v->ncall;
    if (!v->lost && heard_of(v, v->running, 0))
        lose(t, "another rank rejected call %llu, which this rank was about to run",
             (unsigned long long)v->running);
    return v->lost ? MPI_ERR_OTHER : MPI_SUCCESS;
}

void pc_verdict_reject(pacoll_team_t *t, int code)
{
    pc_verdict_t *v = &t->verdict;
    if (v->lost || t->size < 2)
        return;
    v->rejected = v->ncall;
    tell_all(t, v->ncall, NOTICE_REJECTED, code);
}

void pc_verdict_free(pacoll_team_t *t)
{
    pc_verdict_t *v = &t->verdict;
    if (t->comm != MPI_COMM_NULL) {
        /* the sends must complete; notices nobody read are read here, so
         * the communicator is freed with no message pending */
        if (v->nreq)
            PMPI_Waitall(v->nreq, v->req, MPI_STATUSES_IGNORE);
        for (int flag = 1; flag;) {
            MPI_Status st;
            uint64_t m[3];
            if (PMPI_Iprobe(MPI_ANY_SOURCE, PC_TAG_VERDICT, t->comm, &flag, &st) != MPI_SUCCESS)
                break;
            if (flag)
                PMPI_Recv(m, (int)sizeof m, MPI_BYTE, st.MPI_SOURCE, PC_TAG_VERDICT, t->comm,
                          MPI_STATUS_IGNORE);
        }
    }
    free(v->req);
    free(v->heard);
    memset(v, 0, sizeof *v);
}
