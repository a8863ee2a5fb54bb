/*
 * When ranks disagree about a call.
 *
 * pacoll checks a call's arguments on each rank.  A legal program passes
 * them everywhere; an erroneous one may fail them on some ranks only (a
 * gather's receive signature is seen by the root alone).  A rank that
 * rejects a call does not take part in it, so the others would wait for it
 * for good.  Instead it tells them, and both sides can tell a
 * consistent rejection (every rank rejected the call: nothing happened,
 * the communicator stays usable) from a split one (some ranks ran it: their
 * channel state no longer matches, so the communicator's pacoll state is
 * lost and every later pacoll call on it fails with MPI_ERR_OTHER, as MPI
 * leaves a program's state undefined after an error).
 *
 * The notices are point-to-point messages on the team's private
 * communicator, sent only on error paths.  A waiting rank looks for them
 * every few hundred polls (wait.c), so a rank that is waiting for one that
 * rejected stops at once instead of waiting for good.  A rank that
 * rejected a call settles it at the start of its next call on the
 * communicator: it waits (in the wait layer) until every other rank has
 * either rejected the same call or said that it ran it.
 */
#ifndef PACOLL_VERDICT_H
#define PACOLL_VERDICT_H

#include "base/internal.h"

typedef struct pc_heard { /* rejections heard of calls not yet settled */
    uint64_t call;
    int count;
} pc_heard_t;

typedef struct pc_verdict {
    /* first, together: all pc_verdict_begin_quiet reads */
    uint64_t ncall;    /* collective calls begun on this communicator */
    uint64_t rejected; /* the call this rank rejected, not yet settled (0: none) */
    int lost;          /* the communicator's pacoll state is lost */
    int nheard;        /* entries of heard */
    uint64_t running;  /* the call whose algorithm runs now (0: none) */
    int lost_told;     /* the loss was reported to the user */
    int announced;     /* this rank has said the state is lost */
    char why[256];     /* what lost it */
    char note[256];    /* an error of the current call that lost nothing */
    pc_heard_t *heard;
    int heard_cap;
    MPI_Request *req;  /* notices in flight, one per peer */
    uint64_t msg[3];   /* their payload: call, kind, error class */
    int nreq;
} pc_verdict_t;

/* Begins call number ++ncall: settles this rank's last rejection first.
 * MPI_SUCCESS, or MPI_ERR_OTHER when the state is lost (t->verdict.why). */
int pc_verdict_begin(pacoll_team_t *t);
/* pc_verdict_begin's whole work when nothing is pending (no rejection to
 * settle or heard of, nothing lost): returns 1 with the call begun, else 0
 * and the caller takes pc_verdict_begin. */
static inline int pc_verdict_begin_quiet(pc_verdict_t *v)
{
    if (v->rejected || v->lost || v->nheard)
        return 0;
    v->ncall++;
    return 1;
}
/* This rank rejects the current call with the error class code. */
void pc_verdict_reject(pacoll_team_t *t, int code);
/* The algorithm of call number `call` (0: the current one; a nonblocking
 * call's runs later, api/nonblocking.c) starts: MPI_ERR_OTHER if another
 * rank is already known to have rejected it (the state is lost then). */
int pc_verdict_run(pacoll_team_t *t, uint64_t call);
/* ... and has ended. */
static inline void pc_verdict_ran(pc_verdict_t *v) { v->running = 0; }
/* This rank could not finish the current call: the state is lost, and the
 * others are told. */
void pc_verdict_lose(pacoll_team_t *t, const char *why);
/* The current call ran on every rank but is wrong here (a block's length
 * differed from the one expected): said with the call's error, nothing is
 * lost. */
void pc_verdict_note(pacoll_team_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From the wait layer: reads the notices that have arrived; MPI_ERR_OTHER
 * when they show that the state is lost. */
int pc_verdict_poll(pacoll_team_t *t);
/* Before the team is freed: completes the sends and reads what is left. */
void pc_verdict_free(pacoll_team_t *t);

#endif
