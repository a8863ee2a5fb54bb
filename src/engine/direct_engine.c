/* The k-port Direct exchange engine, plain and arrival-aware: see
 * direct_engine.h. */
#include "engine/direct_engine.h"

#include <math.h>

#include "core/context.h"
#include "engine/direct_order.h"
#include "select/select.h"

/* ------------------------------------------------------------ parameters */

static const char *const order_names[] = {[PC_ORDER_NODE] = "node", [PC_ORDER_RANK] = "rank"};

const pc_param_t pc_param_direct_order = {
    .env = "PACOLL_DIRECT_ORDER",
    .kind = PC_PARAM_CHOICE,
    .dflt = PC_ORDER_NODE,
    .choices = order_names,
    .nchoices = 2,
    .help = "Direct's step order: node (consecutive steps to consecutive nodes) or rank",
};

/* pap_*: blocks up to this size go copy-based (docs/PAP.md, "Scheme
 * threshold"); unset (-1), it is the channel's eager limit, Direct's own, so
 * the PAP versions use Direct's scheme and are never slower without skew. */
const pc_param_t pc_param_pap_threshold = {
    .env = "PACOLL_PAP_THRESHOLD",
    .kind = PC_PARAM_SIZE,
    .dflt = -1,
    .lo = 0,
    .hi = 0x1p63,
    .flags = PC_PARAM_SLOT,
    .help = "pap_*: largest block sent copy-based (the slots are sized for it); default the "
            "transport's eager limit",
    .dflt_text = "PACOLL_EAGER or PACOLL_NET_EAGER",
};

/* pap_direct: how long the next peer in Direct order is waited for before
 * it is skipped, in microseconds; unset (-1): pap_grace below. */
const pc_param_t pc_param_pap_grace = {
    .env = "PACOLL_PAP_GRACE_US",
    .kind = PC_PARAM_INT,
    .dflt = -1,
    .lo = 0,
    .hi = 0x1p30,
    .help = "pap_*: microseconds the next peer in Direct order is waited for before it is "
            "skipped, and the loop holds its flush while idle (default: 2 modelled latencies)",
    .dflt_text = "2 modelled latencies",
};

const pc_param_t *const pc_direct_params[] = {&pc_param_direct_order, NULL};
const pc_param_t *const pc_pap_params[] = {&pc_param_direct_order, &pc_param_pap_threshold,
                                           &pc_param_pap_grace, NULL};

/* Copy-based or zero-copy for the pair (me, peer) and an n-byte block: the
 * same answer on both sides (both know n and the configuration). */
static int copy_based(const pc_call_t *c, const pc_xopts_t *o, int peer, size_t n)
{
    /* pap_*: their own threshold (copy_max), up to what the slot holds,
     * may pass the eager limit (docs/PAP.md "Scheme threshold") */
    if (o->past_eager)
        return n <= o->copy_max && pc_slot_fits(c, peer, n);
    return n <= o->copy_max && pc_eager_fits(c, peer, n);
}

/* Step i's peer (see direct_engine.h): the arithmetic is direct_order.h's. */
int pc_direct_peer(const pacoll_team_t *t, int i, int dir)
{
    const pc_nodes_t l = {.size = t->size, .nnodes = t->nnodes, .ppn_max = t->ppn_max,
                          .node_of = t->node_of, .local_of = t->local_of,
                          .node_first = t->node_first, .node_ranks = t->node_ranks};
    return pc_direct_order_peer(&l, pc_param(&t->cfg, &pc_param_direct_order) == PC_ORDER_RANK,
                                t->rank, i, dir);
}

static int expose_receives(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o)
{
    pacoll_team_t *t = pc_call_team(c);
    int any = 0, any_window = 0;
    for (int src = 0; src < t->size; src++) {
        size_t n = x->recv_count(x, src);
        if (src != t->rank && n > 0 && !copy_based(c, o, src, n)) {
            any = 1;
            any_window |= pc_needs_window(c, src);
        }
    }
    if (!any)
        return MPI_SUCCESS;
    int rc = pc_expose_begin(c, x->a->rbuf, x->recv_span, any_window);
    for (int i = 1; i < t->size && rc == MPI_SUCCESS; i++) {
        int src = pc_direct_peer(t, i, -1);
        size_t n = x->recv_count(x, src);
        if (n > 0 && !copy_based(c, o, src, n))
            rc = pc_advertise(c, src, x->a->rbuf + x->recv_disp(x, src), n);
    }
    return rc == MPI_SUCCESS ? pc_expose_end(c) : rc;
}

/* Sends dst its block: into its slot, or zero-copy into rem (advertised). */
static int send_block(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o, int dst,
                      const pc_remote_t *rem)
{
    size_t n = x->send_count(x, dst);
    const char *src = x->a->sbuf + x->send_disp(x, dst);
    if (copy_based(c, o, dst, n))
        return pc_eager_put(c, dst, src, n);
    return pc_zput(c, dst, rem, 0, src, n);
}

/* 1 when src's block is in the receive buffer (copying it out of the slot
 * first if it came copy-based), 0 if not yet. */
static int take_block(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o, int src)
{
    size_t n = x->recv_count(x, src);
    if (copy_based(c, o, src, n)) {
        const void *data = pc_eager_poll(c, src, n);
        if (!data)
            return 0;
        pc_copy(x->a->rbuf + x->recv_disp(x, src), data, n);
    } else if (!pc_done_poll(c, src, 1)) {
        return 0;
    }
    if (o->landed)
        o->landed(o->ctx, src);
    return 1;
}

/* ------------------------------------------------------ plain Direct */

static int send_all(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o)
{
    pacoll_team_t *t = pc_call_team(c);
    for (int i = 1; i < t->size; i++) {
        int dst = pc_direct_peer(t, i, +1);
        size_t n = x->send_count(x, dst);
        int rc = MPI_SUCCESS;
        pc_remote_t rem = {0, 0, 0};
        if (n == 0)
            continue;
        if (!copy_based(c, o, dst, n))
            rc = pc_adv_wait(c, dst, &rem); /* Direct, not PAP: wait in order */
        if (rc == MPI_SUCCESS)
            rc = send_block(c, x, o, dst, &rem);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return pc_flush(c);
}

/* Polls every incoming block, taking them in whatever order they land. */
static int receive_all(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o)
{
    pacoll_team_t *t = pc_call_team(c);
    int left = 0, last = -1;
    char *got = calloc((size_t)t->size, 1);
    if (!got)
        return MPI_ERR_NO_MEM;
    for (int src = 0; src < t->size; src++) {
        got[src] = src == t->rank || x->recv_count(x, src) == 0;
        left += !got[src];
    }
    while (left > 0) {
        for (int i = 1; i < t->size; i++) {
            int src = pc_direct_peer(t, i, -1);
            if (got[src] || !take_block(c, x, o, src))
                continue;
            got[src] = 1, left--;
            pc_wait_new_condition(&c->w);
        }
        for (int i = 0; i < t->size && left > 0; i++)
            if (!got[i])
                last = i;
        if (left > 0) {
            int rc = pc_wait_poll(&c->w, last);
            if (rc != MPI_SUCCESS) {
                free(got);
                return rc;
            }
        }
    }
    free(got);
    return MPI_SUCCESS;
}

static int plain_run(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o)
{
    int rc = send_all(c, x, o);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Blocks are taken in landing order, as polling RDMA flags takes them;
     * the simulator otherwise blocks on the first one sent (channel/sim/smpi.c). */
    pc_chan_poll_only(c->ch, 1);
    rc = receive_all(c, x, o);
    pc_chan_poll_only(c->ch, 0);
    return rc;
}

/* ------------------------------------------- arrival-aware (pap-aware §4.2) */

enum { PAP_SENT = 1, PAP_GOT = 2, PAP_ARRIVED = 4 };

typedef struct pap {
    pc_call_t *c;
    const pc_layout_t *x;
    const pc_xopts_t *o;
    unsigned char *st; /* per peer: PAP_* bits */
    int to_send, to_recv;
    int blind_next; /* step of the next copy-based send to a peer not known to have arrived */
    int waiting_for; /* a peer we still need, for the deadline message */
    double alpha;    /* the cost model's network latency, for the grace */
    double head_since; /* when the next peer in Direct order was first found absent */
    int head;        /* that peer, or -1 */
    double idle_since; /* when the loop last found nothing to do with puts unflushed, or -1 */
    double grace;      /* PACOLL_PAP_GRACE_US in seconds, or -1 */
    int order;         /* pap_send_arrived's PAP_ORDER_* */
} pap_t;

enum { PAP_ORDER_UNSET, PAP_ORDER_DIRECT, PAP_ORDER_NETWORK_FIRST };
/* pap_send_pass's peers: all, those on other hosts, those on this one */
enum { PASS_ALL = -1, PASS_OTHER_HOSTS = 0, PASS_THIS_HOST = 1 };

/* Takes every block of one scheme (copy-based or zero-copy) that has
 * landed; data from a peer is its arrival notice. */
static int pap_receive(pap_t *s, int copy_based_ones)
{
    pacoll_team_t *t = pc_call_team(s->c);
    int moved = 0;
    for (int i = 1; i < t->size && s->to_recv > 0; i++) {
        int src = pc_direct_peer(t, i, -1);
        if (s->st[src] & PAP_GOT ||
            copy_based(s->c, s->o, src, s->x->recv_count(s->x, src)) != copy_based_ones)
            continue;
        if (!take_block(s->c, s->x, s->o, src)) {
            s->waiting_for = src;
            continue;
        }
        s->st[src] |= PAP_GOT | PAP_ARRIVED;
        s->to_recv--, moved = 1;
    }
    return moved;
}

/* Notes which copy-based senders have arrived (their block is in my slot)
 * without copying the blocks out: while I still have blocks to send, the
 * copies wait, since a late rank that copied its 15 landed blocks out
 * before sending its own held up every peer waiting for its data
 * (docs/PAP.md, "Send before copying out"). */
static int pap_note_arrivals(pap_t *s)
{
    pacoll_team_t *t = pc_call_team(s->c);
    int moved = 0;
    for (int i = 1; i < t->size; i++) {
        int src = pc_direct_peer(t, i, -1);
        if (s->st[src] & (PAP_GOT | PAP_ARRIVED) ||
            !copy_based(s->c, s->o, src, s->x->recv_count(s->x, src)))
            continue;
        if (pc_eager_poll(s->c, src, PC_EAGER_ANY)) { /* arrived; take_block reads it */
            s->st[src] |= PAP_ARRIVED;
            moved = 1;
        }
    }
    return moved;
}

/* How long the next peer in Direct order is waited for before it is
 * skipped: PACOLL_PAP_GRACE_US, or two modelled network latencies.  Ranks
 * that arrive together are that close; a longer hold, growing with the
 * block, only delayed the sends under skew (docs/PAP.md, "Grace"). */
static double pap_grace(const pap_t *s)
{
    return s->grace >= 0 ? s->grace : 2 * s->alpha;
}

/* True while the first unsent peer in Direct order, absent, is still within
 * its grace time: skipping a peer that is only a message time late breaks
 * Direct's permutation order (every step a different receiver per sender)
 * and makes early senders converge on the same few receivers. */
static int hold_for_head(pap_t *s, int dst)
{
    double now = PMPI_Wtime();
    if (s->head != dst)
        s->head = dst, s->head_since = now;
    return now - s->head_since < pap_grace(s);
}

/* Whether dst, which gets n bytes, is known to have arrived: a zero-copy
 * peer's advertisement is there (in rem), a copy-based peer's data came. */
static int pap_peer_there(pap_t *s, int dst, size_t n, pc_remote_t *rem)
{
    return copy_based(s->c, s->o, dst, n) ? (s->st[dst] & PAP_ARRIVED) != 0
                                          : pc_adv_poll(s->c, dst, rem) != 0;
}

/* One pass from (p+1) mod N over the peers of `host` (PASS_*): sends to
 * every one known to have arrived. */
static int pap_send_pass(pap_t *s, int *rc, int host)
{
    pacoll_team_t *t = pc_call_team(s->c);
    int moved = 0, first = host != PASS_THIS_HOST; /* Direct's order matters on the network only */
    for (int i = 1; i < t->size && s->to_send > 0 && *rc == MPI_SUCCESS; i++) {
        int dst = pc_direct_peer(t, i, +1);
        pc_remote_t rem = {0, 0, 0};
        if (s->st[dst] & PAP_SENT || (host != PASS_ALL && pc_team_same_host(t, dst) != host))
            continue;
        size_t n = s->x->send_count(s->x, dst);
        if (!pap_peer_there(s, dst, n, &rem)) {
            s->waiting_for = dst;
            if (first && !copy_based(s->c, s->o, dst, n) && hold_for_head(s, dst))
                break;
            first = 0;
            continue;
        }
        *rc = send_block(s->c, s->x, s->o, dst, &rem);
        s->st[dst] |= PAP_SENT | PAP_ARRIVED;
        s->to_send--, moved = 1;
    }
    return moved;
}

/* Whether at least half the peers this rank sends to are known to be there
 * (looked at once, at the call's first pass). */
static int pap_mostly_there(pap_t *s)
{
    pacoll_team_t *t = pc_call_team(s->c);
    int there = 0, all = 0;
    for (int i = 1; i < t->size; i++) {
        int dst = pc_direct_peer(t, i, +1);
        pc_remote_t rem = {0, 0, 0};
        size_t n = s->x->send_count(s->x, dst);
        if (n == 0)
            continue;
        all++;
        there += (s->st[dst] & PAP_SENT) || pap_peer_there(s, dst, n, &rem);
    }
    return 2 * there >= all;
}

/* A rank that finds most of its peers there when it starts (it is late)
 * sends to the peers on other hosts first, in Direct's order, then to its
 * host's: a write to another host is started and goes on by itself, where
 * a block to a host peer is a copy by this CPU, so a late rank would hold
 * its network writes behind up to (ranks per host - 1) copies.  A rank that
 * is not late keeps Direct's order, whose interleaving of host copies
 * spreads its network writes better when the ranks arrive together
 * (docs/PAP.md, "Network writes before host copies"). */
static int pap_send_arrived(pap_t *s, int *rc)
{
    if (s->order == PAP_ORDER_UNSET)
        s->order = pap_mostly_there(s) ? PAP_ORDER_NETWORK_FIRST : PAP_ORDER_DIRECT;
    if (s->order == PAP_ORDER_DIRECT)
        return pap_send_pass(s, rc, PASS_ALL);
    int moved = pap_send_pass(s, rc, PASS_OTHER_HOSTS);
    return pap_send_pass(s, rc, PASS_THIS_HOST) | moved;
}

/* Blocks sent blind between two looks for arrivals: the ports, and at
 * least sqrt(N), which bounds the rescans at about sqrt(N) per call. */
static int pap_batch(const pacoll_team_t *t)
{
    int root = (int)sqrt((double)t->size);
    return t->cfg.chan.ports > root ? t->cfg.chan.ports : root;
}

/* Copy-based blocks need no receiver: when no known-arrived peer is left,
 * send to the next few not-yet-arrived ones in Direct order, then look for
 * arrivals again (so a peer that arrives meanwhile is served next). */
static int pap_send_blind(pap_t *s, int *rc)
{
    pacoll_team_t *t = pc_call_team(s->c);
    int batch = pap_batch(t), sent = 0;
    for (; s->blind_next < t->size && sent < batch && *rc == MPI_SUCCESS; s->blind_next++) {
        int dst = pc_direct_peer(t, s->blind_next, +1);
        if (s->st[dst] & PAP_SENT)
            continue;
        size_t n = s->x->send_count(s->x, dst);
        if (!copy_based(s->c, s->o, dst, n))
            continue;
        *rc = send_block(s->c, s->x, s->o, dst, NULL);
        s->st[dst] |= PAP_SENT;
        s->to_send--, sent++;
    }
    return sent > 0;
}

/* True while my unflushed puts should stay unflushed: blocks are still to
 * be sent and I have been idle for less than the grace.  A flush waits for
 * every pending put to complete, so flushing on each idle pass puts one
 * receiver's block at a time when the receivers' advertisements come in
 * a few microseconds apart (every call without skew); plain Direct posts
 * all its puts and flushes once (docs/PAP.md has the effect).  Past the
 * grace the flags go out, so a receiver never waits on a sender that waits
 * on a late one. */
static int hold_flush(pap_t *s)
{
    if (s->to_send == 0 || pc_puts_pending(s->c) == 0) {
        s->idle_since = -1;
        return 0;
    }
    double now = PMPI_Wtime();
    if (s->idle_since < 0)
        s->idle_since = now;
    if (now - s->idle_since < pap_grace(s))
        return 1;
    s->idle_since = -1;
    return 0;
}

/* PACOLL_VERBOSE: says once, on rank 0, that the arrival-aware loop sent
 * in Direct's order, and why. */
static void say_direct_order(pc_call_t *c, size_t m, int peers)
{
    pacoll_team_t *t = pc_call_team(c);
    char msg[PC_MSG_LEN];
    if (!t->cfg.chan.verbose || t->rank != 0)
        return;
    snprintf(msg, sizeof msg,
             "%s: %zu-byte copy-based blocks cost less to send than polling %d peers for "
             "arrival: sent in Direct's order (docs/PAP.md, \"When the order pays\")",
             c->w.what, m, peers);
    pc_context_t *ctx = pc_context_get(0);
    if (!ctx || pc_context_first_reason(ctx, msg))
        pc_log("%s", msg);
}

/* What one look at a peer's notification costs: a flag read that misses
 * the cache (docs/PAP.md, "When the order pays"). */
#define PC_POLL_COST 20e-9

/* True when ordering the sends by arrival can pay for itself.  A zero-copy
 * block waits for its receiver's advertisement, so there the order is what
 * keeps one late peer from stalling the rest: always.  With copy-based
 * blocks only, nothing waits for a receiver (plain Direct never stalls
 * either) and the order is all the loop can win, while learning arrivals
 * costs a look at every peer not yet seen, about once per batch of blind
 * sends.  It pays when a batch of blocks takes longer to send than one
 * such scan, in the cost model: batch * m beta >= peers * poll, peers the
 * ranks a block goes to or comes from (docs/PAP.md, "When the order pays":
 * the thresholds this gives, and what the loop lost below them).  Every
 * rank may decide for itself: both paths speak the same channel protocol. */
static int arrival_order_pays(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o,
                              double beta)
{
    pacoll_team_t *t = pc_call_team(c);
    size_t most = 0;
    int peers = 0; /* those a block goes to or comes from: the ones polled */
    for (int p = 0; p < t->size; p++) {
        size_t sn = p == t->rank ? 0 : x->send_count(x, p);
        size_t rn = p == t->rank ? 0 : x->recv_count(x, p);
        if ((sn > 0 && !copy_based(c, o, p, sn)) || (rn > 0 && !copy_based(c, o, p, rn)))
            return 1;
        if (sn > most)
            most = sn;
        peers += sn > 0 || rn > 0;
    }
    int batch = pap_batch(t) < peers ? pap_batch(t) : peers;
    if (peers == 0 || batch * (double)most * beta >= peers * PC_POLL_COST)
        return 1;
    say_direct_order(c, most, peers);
    return 0;
}

static int pap_run(pc_call_t *c, const pc_layout_t *x, const pc_xopts_t *o)
{
    pacoll_team_t *t = pc_call_team(c);
    pc_cost_ctx_t cx;
    pc_cost_ctx(t, &cx);
    if (!arrival_order_pays(c, x, o, cx.beta))
        return plain_run(c, x, o);
    double grace_us = pc_param(&t->cfg, &pc_param_pap_grace);
    pap_t s = {
        .c = c,
        .x = x,
        .o = o,
        .st = calloc((size_t)t->size, 1),
        .blind_next = 1,
        .waiting_for = -1,
        .head = -1,
        .idle_since = -1,
        .grace = grace_us < 0 ? -1.0 : grace_us * 1e-6,
    };
    if (!s.st)
        return MPI_ERR_NO_MEM;
    s.alpha = cx.alpha;
    for (int p = 0; p < t->size; p++) {
        if (p == t->rank || x->send_count(x, p) == 0)
            s.st[p] |= PAP_SENT;
        if (p == t->rank || x->recv_count(x, p) == 0)
            s.st[p] |= PAP_GOT;
        s.to_send += !(s.st[p] & PAP_SENT);
        s.to_recv += !(s.st[p] & PAP_GOT);
    }
    int rc = MPI_SUCCESS;
    /* Where a put's completion can be tested (an RDMA completion queue, the
     * simulator's host transfers), the loop never waits for its own puts:
     * each flag goes out when its data has landed, and a newly arrived peer
     * is served meanwhile; once all is sent it waits for them (pc_flush,
     * flags in landing order).  MPI RMA can only wait (MPI_Win_flush): there
     * the loop flushes when idle, held by hold_flush. */
    int testable = pc_puts_testable(&t->chan);
    /* pap-aware §4.2: a process posts its writes to every peer that has
     * arrived, then polls the completion queue; no port limit (PACOLL_PORTS
     * is the multi-port Direct's k; docs/PAP.md, "Writes in flight"). */
    pc_call_set_window(c, t->size);
    pc_chan_poll_only(&t->chan, 1); /* polls must not block: sends go on meanwhile */
    while (rc == MPI_SUCCESS && (s.to_send > 0 || s.to_recv > 0)) {
        int moved = pap_receive(&s, 0); /* zero-copy: nothing to copy out */
        if (s.to_send > 0)
            moved |= pap_note_arrivals(&s);
        moved |= pap_send_arrived(&s, &rc);
        if (rc == MPI_SUCCESS && !moved && s.to_send > 0)
            moved = pap_send_blind(&s, &rc);
        /* copy blocks out once all is sent, or while nobody can be sent to */
        if (rc == MPI_SUCCESS && (s.to_send == 0 || !moved))
            moved |= pap_receive(&s, 1);
        if (rc == MPI_SUCCESS && testable) /* flags of landed writes go out now */
            rc = pc_flush_landed(c);
        if (rc != MPI_SUCCESS)
            break;
        if (moved) {
            pc_wait_new_condition(&c->w);
            continue;
        }
        if ((testable && s.to_send > 0) || hold_flush(&s)) {
            rc = pc_wait_poll(&c->w, s.waiting_for);
            continue;
        }
        /* Nothing to do until someone arrives: let my puts' flags go out. */
        rc = pc_flush(c);
        if (rc == MPI_SUCCESS)
            rc = pc_wait_poll(&c->w, s.waiting_for);
    }
    pc_chan_poll_only(&t->chan, 0);
    free(s.st);
    return rc == MPI_SUCCESS ? pc_flush(c) : rc;
}

/* ------------------------------------------------------------- driver */

/* Data came from every peer: every peer is in this call (flow credit). */
static int heard_from_all(const pacoll_team_t *t, const pc_layout_t *x)
{
    for (int src = 0; src < t->size; src++)
        if (src != t->rank && x->recv_count(x, src) == 0)
            return 0;
    return 1;
}

int pc_direct_run(pacoll_team_t *t, const char *what, const pc_layout_t *x, const pc_xopts_t *o)
{
    pc_call_t c;
    pc_call_begin(&c, &t->chan, what);
    /* Advertise first: senders of zero-copy blocks wait for it (and under
     * PAP it is this rank's arrival notice).  Then copy my own block while
     * their writes fly. */
    int rc = expose_receives(&c, x, o);
    size_t own = x->recv_count(x, t->rank);
    if (own > 0 && x->a->rbuf)
        pc_copy_own(x->a->rbuf + x->recv_disp(x, t->rank), x->a->sbuf + x->send_disp(x, t->rank),
                    own);
    if (rc == MPI_SUCCESS && o->before_send)
        rc = o->before_send(o->ctx);
    if (rc == MPI_SUCCESS)
        rc = o->pap ? pap_run(&c, x, o) : plain_run(&c, x, o);
    if (rc == MPI_SUCCESS && heard_from_all(t, x))
        pc_call_all_arrived(&c);
    int rc2 = pc_call_end(&c);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int pc_direct_exchange(pacoll_team_t *t, const char *what, const pc_layout_t *x)
{
    pc_xopts_t o = {.pap = 0, .copy_max = SIZE_MAX};
    return pc_direct_run(t, what, x, &o);
}

pc_xopts_t pc_pap_opts(const pacoll_team_t *t)
{
    double thr = pc_param(&t->cfg, &pc_param_pap_threshold);
    pc_xopts_t o = {.pap = 1, .copy_max = thr < 0 ? SIZE_MAX : (size_t)thr, .past_eager = thr >= 0};
    return o;
}

/* ------------------------------------------------------------ layouts */

static size_t block(const pc_layout_t *x, int peer) { return PC_UNUSED(peer), x->a->m; }
static size_t at_peer(const pc_layout_t *x, int peer) { return (size_t)peer * x->a->m; }
static size_t at_zero(const pc_layout_t *x, int peer) { return PC_UNUSED(x), PC_UNUSED(peer), 0; }

void pc_layout_alltoall(pc_layout_t *x, const pc_args_t *a, int size)
{
    *x = (pc_layout_t){.a = a, .send_count = block, .send_disp = at_peer, .recv_count = block,
                       .recv_disp = at_peer, .recv_span = (size_t)size * a->m};
}

void pc_layout_allgather(pc_layout_t *x, const pc_args_t *a, int size)
{
    *x = (pc_layout_t){.a = a, .send_count = block, .send_disp = at_zero, .recv_count = block,
                       .recv_disp = at_peer, .recv_span = (size_t)size * a->m};
}

static size_t scount(const pc_layout_t *x, int p) { return x->a->scounts[p]; }
static size_t sdisp(const pc_layout_t *x, int p) { return x->a->sdispls[p]; }
static size_t rcount(const pc_layout_t *x, int p) { return x->a->rcounts[p]; }
static size_t rdisp(const pc_layout_t *x, int p) { return x->a->rdispls[p]; }

void pc_layout_alltoallv(pc_layout_t *x, const pc_args_t *a, int size)
{
    size_t span = 0;
    for (int p = 0; p < size; p++)
        if (a->rcounts[p] > 0 && a->rdispls[p] + a->rcounts[p] > span)
            span = a->rdispls[p] + a->rcounts[p];
    *x = (pc_layout_t){.a = a, .send_count = scount, .send_disp = sdisp, .recv_count = rcount,
                       .recv_disp = rdisp, .recv_span = span};
}

double pc_direct_cost(const pc_cost_ctx_t *ctx, size_t m)
{
    double steps = ceil((double)(ctx->p - 1) / (double)(ctx->ports > 0 ? ctx->ports : 1));
    return steps * (ctx->alpha + (double)m * ctx->beta);
}
