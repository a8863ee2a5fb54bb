/*
 * The step exchange: how the multi-step algorithms (binomial tree, Bruck,
 * Standard Exchange; multirail §5.1) sit on pacoll's channel.
 *
 * A multi-step algorithm is a sequence of steps; in step s a rank sends one
 * transfer to each of up to k partners and receives one transfer from each
 * of up to k partners (k = PACOLL_PORTS).  Partners differ from step to
 * step, so within one call every ordered pair (sender -> receiver) carries
 * at most ONE transfer, which is exactly what the channel allows: one eager
 * message, or one advertisement followed by counted zero-copy puts.
 *
 * A transfer is a byte stream described by pieces.  The receiver names, for
 * each piece, its offset in the receive AREA (one buffer per call: the user's
 * receive buffer, or a temporary buffer); the sender names the same offsets
 * (it knows the receiver's layout: all of pacoll's layouts are the same
 * function on every rank) plus where each piece comes from.  Only the
 * differences between offsets must agree: the sender may count them from
 * any origin (e.g. the start of the receiver's region for this transfer),
 * because a zero-copy piece goes at (off - lowest off) of the span the
 * receiver advertised.  Then:
 *
 *   - small transfers (pc_eager_fits on the total) go copy-based: the sender
 *     packs the pieces into one eager message (no copy when there is one
 *     piece), the receiver scatters it into the area.  No wait for the
 *     receiver, no registration.
 *   - larger ones go zero-copy: at call start the receiver registers its area
 *     once and advertises to each such sender the span its pieces cover; in
 *     the step the sender writes each run of pieces contiguous in the area
 *     with one pc_zput (a run made of several source pieces is packed first),
 *     and the receiver waits for that many puts.  Advertising every receive
 *     area at call start (one registration per call) means that, from the
 *     second step on, the advertisement is already there when it is needed.
 *
 * Usage (one call):
 *     pc_steps_begin(&st, t, "allgather bruck", area, area_len);
 *     for every transfer this rank will receive: pc_steps_expect(&st, q, pcs, n);
 *     pc_steps_expose(&st);
 *     for each step: pc_steps_send(...) for its sends, pc_steps_recv(...) for
 *                    its receives, pc_steps_step_end(&st);
 *     return pc_steps_end(&st, rc);
 * A rank that receives nothing still calls pc_steps_expose.  Transfers of 0
 * bytes are skipped by both sides.
 */
#ifndef PACOLL_STEPS_H
#define PACOLL_STEPS_H

#include "channel/channel.h"
#include "core/team.h"

/* One piece of a transfer: len bytes that go to offset off of the
 * receiver's area; src is where the sender takes them from (unused on the
 * receiving side). */
typedef struct pc_piece {
    const char *src;
    size_t off, len;
} pc_piece_t;

typedef struct pc_steps {
    pc_call_t c;
    char *area;       /* this rank's receive area (may be NULL if none) */
    size_t area_len;
    /* per peer: receive span advertised [lo, hi), whether it is eager */
    size_t *lo, *hi;
    unsigned char *mode; /* 0 nothing expected, 1 eager, 2 zero-copy */
    unsigned char *sent; /* a transfer to this peer was sent in this call */
    char *stage;      /* packing buffer for multi-piece sends */
    size_t stage_len, stage_used;
} pc_steps_t;

/* Starts the call (pc_call_begin) with the receive area. */
int pc_steps_begin(pc_steps_t *st, pacoll_team_t *t, const char *what, char *area, size_t area_len);
/* Declares the transfer this rank will receive from peer in this call. */
int pc_steps_expect(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n);
/* Registers the area (if any transfer is zero-copy) and advertises. */
int pc_steps_expose(pc_steps_t *st);
/* Sends one transfer to peer (eager, or zero-copy once peer advertised). */
int pc_steps_send(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n);
/* Waits for the transfer from peer (declared with pc_steps_expect) to be in
 * the area. */
int pc_steps_recv(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n);
/* Completes this step's puts (their sources may be reused after). */
int pc_steps_step_end(pc_steps_t *st);
/* Ends the call and frees the bookkeeping; returns rc, or the end's error. */
int pc_steps_end(pc_steps_t *st, int rc);

/* ---- arithmetic shared by the k-port algorithms ---- */

/* ceil(log_b(n)) for n >= 1, b >= 2: the number of steps of a k-port tree or
 * Bruck (b = k + 1). */
int pc_ceil_log(long n, long b);
/* The largest power of b that is <= n (n >= 1). */
long pc_floor_pow(long n, long b);



/* ---- the digit exchange behind alltoall "bruck" and "exchange" ---- */

enum pc_digits_mode {
    PC_DIGITS_BRUCK,   /* shifts with carries, any N (Bruck et al. 1997) */
    PC_DIGITS_EXCHANGE /* base-(k+1) digits without carries over the largest
                          power of k+1, plus correction rounds (Bokhari) */
};

/* The k-port alltoall over base-(k+1) digits; see the comment in step_engine.c. */
int pc_alltoall_digits(pacoll_team_t *t, const pc_args_t *a, enum pc_digits_mode mode,
                       const char *what);
/* Its Hockney cost (network and local copies). */
double pc_alltoall_digits_cost(const pc_cost_ctx_t *ctx, size_t m, enum pc_digits_mode mode);

#endif
