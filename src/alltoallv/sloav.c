/*
 * alltoallv "sloav": Scalable LOgarithmic AlltoallV, radix r.
 *
 * Source: sloavx-logarithmic-alltoallv §III (SLOAV), generalised to radix r
 * as in Fan et al., HPDC'22 (TuNA): ceil(log_r N) rounds, r-1 partners per
 * round.  See docs/SLOAV.md.
 *
 * Bruck without moving data.  Position i of rank p holds the element bound
 * for rank p+i (mod N); in round k, for each digit value d = 1..r-1, every
 * position whose k-th base-r digit is d goes, merged into one message, to
 * rank p + d r^k, and the same positions arrive from p - d r^k.  After the
 * last round position i holds the block from rank p-i.  The Element Index
 * Table (EIT, §III-B1) keeps a (pointer, length) per position, so the local
 * rotations of Bruck's steps 1 and 3 are index arithmetic: nothing is moved.
 *
 * Two-phase transmission (§III-B2) on the channel.  The receiver of a
 * merged message does not know its size.  Per pair and call the channel
 * allows one eager message and one advertisement (channel.h), and each pair
 * (p, p + d r^k) is used in exactly one round (the distances d r^k are all
 * different).  The eager message always starts with the size word:
 *   - size and message together in the eager slot when they fit (the small
 *     message case SLOAV is for: one start-up per partner, not two);
 *   - else the size alone goes eager, the receiver advertises a region of
 *     the SLOAV buffer of exactly that size, and the message follows
 *     zero-copy (size, advertisement, data: the paper's two phases).
 * A message is [u32 count][u32 length per element][data] (§III-B2).
 *
 * Where received elements live (§III-B3).  The paper copies an arriving
 * element into its segment of the input buffer, or into the SLOAV buffer
 * when it is larger.  Here an element stays where it landed: in the eager
 * slot (written once per pair per call, so valid until the call ends) or in
 * its region of the per-call SLOAV buffer, and the EIT points there.  The
 * segment/spill rule, and its copy, disappear; a final element (one whose
 * last hop this was) is copied once, into the receive buffer.  The merge
 * buffer for outgoing messages is recycled every round, once the round's
 * puts are complete.
 *
 * The linear switch (§III-C), per element.  The paper switches the whole
 * call to the linear algorithm when the largest block is large; but no rank
 * knows the largest block without an agreement that costs as much as SLOAV
 * itself (an allreduce: ceil(log2 N) start-ups).  Both ends of an element
 * know its size (the sender's count, the receiver's matching count), so the
 * decision is made per element: an element that would be relayed (its
 * position has two or more non-zero digits) and is larger than
 * PACOLL_SLOAV_LINEAR goes straight to its destination, as in `direct`
 * (eager or zero-copy into the receive buffer).  Its pair is never a
 * round's pair, since its distance is not d r^k.  With every block above the
 * threshold this is the linear algorithm plus (r-1) ceil(log_r N) one-hop
 * messages; with every block below, pure SLOAV.  Every relayed element is
 * then at most PACOLL_SLOAV_LINEAR bytes, which bounds the SLOAV buffer.
 *
 * Memory (per call, besides the receive buffer): the EIT (16 N bytes), the
 * merge buffer (one round's outgoing messages: at most (r-1)(12 + ...)
 * bytes, see docs), and the SLOAV buffer, reserved only for partners whose
 * largest possible message exceeds the eager slot: at most
 *     sum over rounds and partners of 4 + 4 n + F + n_relay * T
 * (n elements, F bytes of final elements, T = PACOLL_SLOAV_LINEAR), i.e.
 * at most R + ceil(log_r N) N (T + 4) + direct zero-copy blocks, R the
 * rank's receive bytes; only the pages actually written are touched.
 *
 * Cost (Hockney, k ports, elements of m bytes, K = ceil(log_r N)):
 *     T = K ceil((r-1)/k) (alpha + (N/r)(m+4) beta) + K N m beta_copy
 * when a merged message fits the eager slot (one start-up per partner), and
 * 3 start-ups per partner (size, advertisement, data) when it does not; the
 * paper's eq. (3)-(4) is the radix-2 case with two start-ups.
 */
#include "alltoallv/sloav.h"

#include <math.h>

#include "engine/direct_engine.h"

/* Message header: the size word (eager) then the element count. */
#define SIZE_WORD 8
#define COUNT_WORD 4
#define LEN_WORD 4
/* Smallest eager slot the protocol needs (a size word and then some); the
 * channel's slots are 0 or a multiple of 64 bytes. */
#define SLOAV_MIN_SLOT 64

typedef struct eit {
    const char *ptr;
    size_t len;
} eit_t;

/* One round partner of the current call, as receiver. */
typedef struct rpeer {
    size_t bound;    /* largest possible payload (count, lengths, data) */
    size_t land_off; /* its region of the SLOAV buffer, if bound > slot */
    int may_zc;      /* the message may not fit the eager slot */
} rpeer_t;

typedef struct sloav {
    pacoll_team_t *t;
    const pc_args_t *a;
    pc_call_t c;
    int n, me, r, rounds;
    size_t linear;
    size_t *pw;     /* [rounds+1] r^k */
    eit_t *eit;     /* [n] by position */
    int *pos;       /* [n] scratch: positions of one (round, digit) */
    rpeer_t *rp;    /* [rounds][r-1] */
    char *merge;    /* outgoing messages of one round (recycled) */
    size_t merge_cap;
    char *land;     /* the SLOAV buffer (zero-copy landing regions) */
    size_t land_len;
    int land_is_rbuf; /* direct blocks land in rbuf itself */
    int any_window;   /* some zero-copy sender needs the dynamic window */
    size_t rspan;
} sloav_t;

int pc_sloav_rounds(int p, int radix)
{
    int k = 0;
    for (size_t w = 1; w < (size_t)p; w *= (size_t)radix)
        k++;
    return k;
}

/* ------------------------------------------------------------ positions */


/* The round of a position's last hop (its highest non-zero digit). */
static int last_round(const sloav_t *s, int i)
{
    int k = 0;
    while (k + 1 < s->rounds && (size_t)i >= s->pw[k + 1])
        k++;
    return k;
}

/* Relayed: two or more non-zero digits (more than one hop). */
static int relayed(const sloav_t *s, int i)
{
    return (size_t)i % s->pw[last_round(s, i)] != 0;
}

/* Partners of round k: digit values d with d r^k < N. */
static int partners(const sloav_t *s, int k)
{
    size_t most = ((size_t)s->n - 1) / s->pw[k];
    return most < (size_t)(s->r - 1) ? (int)most : s->r - 1;
}

/* Fills s->pos with the positions whose k-th digit is d; returns how many. */
static int positions(sloav_t *s, int k, int d)
{
    int cnt = 0;
    size_t w = s->pw[k], span = s->pw[k + 1];
    for (size_t base = (size_t)d * w; base < (size_t)s->n; base += span)
        for (size_t lo = 0; lo < w && base + lo < (size_t)s->n; lo++)
            s->pos[cnt++] = (int)(base + lo);
    return cnt;
}

static int peer_at(const sloav_t *s, int dist) { return (int)(((size_t)s->me + (size_t)dist) % (size_t)s->n); }
static int peer_from(const sloav_t *s, int dist)
{
    return (int)(((size_t)s->me + (size_t)s->n - (size_t)dist % (size_t)s->n) % (size_t)s->n);
}

/* Straight (linear) elements, decided by both ends from the element size. */
static int straight_out(const sloav_t *s, int i)
{
    return i > 0 && relayed(s, i) && s->a->scounts[peer_at(s, i)] > s->linear;
}
static int straight_in(const sloav_t *s, int i)
{
    return i > 0 && relayed(s, i) && s->a->rcounts[peer_from(s, i)] > s->linear;
}

/* Many small pieces are copied with memcpy and charged once per message
 * (pc_copy_charge): one charge per piece would make a 1024-rank simulation
 * crawl. */
static void charge_copy(size_t bytes) { pc_copy_charge(bytes); }

static uint32_t len_word(size_t len) { return len < UINT32_MAX ? (uint32_t)len : UINT32_MAX; }

/* ----------------------------------------------------------- set-up */

/* The receiver's bound on the payload from partner (k, d): final elements
 * have known sizes, relayed ones at most `linear` bytes. */
static size_t payload_bound(sloav_t *s, int k, int d)
{
    int cnt = positions(s, k, d);
    size_t b = COUNT_WORD + (size_t)cnt * LEN_WORD;
    for (int j = 0; j < cnt; j++) {
        int i = s->pos[j];
        if (last_round(s, i) != k)
            b += s->linear;
        else if (!straight_in(s, i))
            b += s->a->rcounts[peer_from(s, i)];
    }
    return b;
}

/* Allocates and attaches the SLOAV buffer: once per call, at the start if
 * straight blocks land there, else when the first message needs it (so the
 * small-message case never allocates nor registers anything). */
static int attach_landing(sloav_t *s)
{
    if (s->land)
        return MPI_SUCCESS;
    if (s->land_is_rbuf) {
        s->land = s->a->rbuf;
    } else {
        s->land = malloc(s->land_len + 1);
        if (!s->land)
            return MPI_ERR_NO_MEM;
    }
    /* One byte more than any put needs: SimGrid 3.32's Win_detach leaves a
     * dynamic window's size at -1, so after the registration cache evicts
     * a region the next attach of n bytes admits puts of n - 1 at most. */
    return pc_expose_begin(&s->c, s->land, s->land_len + !s->land_is_rbuf, s->any_window);
}

/* Lays out the SLOAV buffer: one region per straight zero-copy block and
 * per round partner whose message may not fit its eager slot; attaches it
 * once (one registration per call) and advertises the straight blocks. */
static int setup_landing(sloav_t *s)
{
    pc_call_t *c = &s->c;
    int any_window = 0, any_straight = 0, any_round_zc = 0;
    size_t straight_bytes = 0, round_bytes = 0;
    for (int i = 1; i < s->n; i++) {
        int src = peer_from(s, i);
        size_t len = s->a->rcounts[src];
        if (straight_in(s, i) && !pc_eager_fits(c, src, len)) {
            any_straight = 1, straight_bytes += len;
            any_window |= pc_needs_window(c, src);
        }
    }
    for (int k = 0; k < s->rounds; k++) {
        for (int d = 1; d <= partners(s, k); d++) {
            rpeer_t *p = &s->rp[k * (s->r - 1) + d - 1];
            int src = peer_from(s, d * (int)s->pw[k]);
            p->bound = payload_bound(s, k, d);
            p->may_zc = !pc_eager_fits(c, src, SIZE_WORD + p->bound);
            if (p->may_zc) {
                p->land_off = straight_bytes + round_bytes;
                round_bytes += p->bound;
                any_round_zc = 1;
                any_window |= pc_needs_window(c, src);
            }
        }
    }
    s->any_window = any_window;
    s->land_len = straight_bytes + round_bytes;
    if (!any_straight)
        return MPI_SUCCESS; /* attached later, if a message needs it */
    /* Straight blocks alone: they land in place, as in `direct`. */
    s->land_is_rbuf = !any_round_zc;
    if (s->land_is_rbuf)
        s->land_len = s->rspan;
    int rc = attach_landing(s);
    size_t off = 0;
    for (int i = 1; i < s->n && rc == MPI_SUCCESS; i++) {
        int src = peer_from(s, i);
        size_t len = s->a->rcounts[src];
        if (!straight_in(s, i) || pc_eager_fits(c, src, len))
            continue;
        char *at = s->land_is_rbuf ? s->a->rbuf + s->a->rdispls[src] : s->land + off;
        off += len;
        rc = pc_advertise(c, src, at, len);
    }
    return rc == MPI_SUCCESS ? pc_expose_end(c) : rc;
}

static int setup(sloav_t *s)
{
    const pc_args_t *a = s->a;
    s->pw = malloc(((size_t)s->rounds + 1) * sizeof *s->pw);
    s->eit = malloc((size_t)s->n * sizeof *s->eit);
    s->pos = malloc((size_t)s->n * sizeof *s->pos);
    s->rp = calloc((size_t)(s->rounds ? s->rounds : 1) * (size_t)(s->r - 1), sizeof *s->rp);
    if (!s->pw || !s->eit || !s->pos || !s->rp)
        return MPI_ERR_NO_MEM;
    s->pw[0] = 1;
    for (int k = 1; k <= s->rounds; k++) /* r^K < N r: no overflow */
        s->pw[k] = s->pw[k - 1] * (size_t)s->r;
    /* Step 1 (local rotation) is index arithmetic: position i -> rank me+i. */
    for (int i = 0; i < s->n; i++) {
        int dst = peer_at(s, i);
        s->eit[i].ptr = a->sbuf + a->sdispls[dst];
        s->eit[i].len = straight_out(s, i) ? 0 : a->scounts[dst];
    }
    for (int p = 0; p < s->n; p++)
        if (a->rcounts[p] > 0 && a->rdispls[p] + a->rcounts[p] > s->rspan)
            s->rspan = a->rdispls[p] + a->rcounts[p];
    return setup_landing(s);
}

/* ------------------------------------------------- straight elements */

/* Sends the straight elements: eager ones at once, zero-copy ones whose
 * advertisement is there; with wait, all remaining ones. */
static int send_straight(sloav_t *s, char *sent, int wait)
{
    pc_call_t *c = &s->c;
    for (int i = 1; i < s->n; i++) {
        if (sent[i] || !straight_out(s, i))
            continue;
        int dst = peer_at(s, i);
        const char *src = s->a->sbuf + s->a->sdispls[dst];
        size_t len = s->a->scounts[dst];
        int rc;
        if (pc_eager_fits(c, dst, len)) {
            rc = pc_eager_put(c, dst, src, len);
        } else {
            pc_remote_t rem;
            if (!wait && !pc_adv_poll(c, dst, &rem))
                continue;
            rc = wait ? pc_adv_wait(c, dst, &rem) : MPI_SUCCESS;
            if (rc == MPI_SUCCESS)
                rc = pc_zput(c, dst, &rem, 0, src, len);
        }
        if (rc != MPI_SUCCESS)
            return rc;
        sent[i] = 1;
    }
    return MPI_SUCCESS;
}

static int recv_straight(sloav_t *s)
{
    pc_call_t *c = &s->c;
    const pc_args_t *a = s->a;
    size_t off = 0;
    for (int i = 1; i < s->n; i++) {
        if (!straight_in(s, i))
            continue;
        int src = peer_from(s, i);
        size_t len = a->rcounts[src];
        char *dst = a->rbuf + a->rdispls[src];
        if (pc_eager_fits(c, src, len)) {
            const void *data;
            int rc = pc_eager_wait(c, src, len, &data);
            if (rc != MPI_SUCCESS)
                return rc;
            pc_copy(dst, data, len);
        } else {
            int rc = pc_done_wait(c, src, 1);
            if (rc != MPI_SUCCESS)
                return rc;
            if (!s->land_is_rbuf)
                pc_copy(dst, s->land + off, len);
            off += len;
        }
    }
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- the rounds */

/* Merges the elements of (k, d) into out: [size word][count][lengths][data];
 * returns the payload size (everything after the size word). */
static size_t merge(sloav_t *s, int k, int d, char *out, int write)
{
    int cnt = positions(s, k, d);
    size_t data = SIZE_WORD + COUNT_WORD + (size_t)cnt * LEN_WORD;
    for (int j = 0; j < cnt; j++) {
        const eit_t *e = &s->eit[s->pos[j]];
        if (write) {
            uint32_t w = len_word(e->len);
            memcpy(out + SIZE_WORD + COUNT_WORD + (size_t)j * LEN_WORD, &w, LEN_WORD);
            if (e->len)
                memcpy(out + data, e->ptr, e->len);
        }
        data += e->len;
    }
    size_t payload = data - SIZE_WORD;
    if (write) {
        uint32_t n32 = (uint32_t)cnt;
        memcpy(out + SIZE_WORD, &n32, COUNT_WORD);
        charge_copy(payload);
    }
    return payload;
}

static int bad_message(sloav_t *s, int src, const char *why)
{
    pc_log("alltoallv sloav: message from rank %d: %s (send and receive counts do not match, or "
           "PACOLL_SLOAV_LINEAR differs between ranks)",
           src, why);
    PC_UNUSED(s);
    return MPI_ERR_TRUNCATE;
}

/* Takes the message of (k, d) apart: final elements into the receive
 * buffer, relayed ones into the EIT (pointing into the message). */
static int unmerge(sloav_t *s, int k, int d, int src, const char *body, size_t payload)
{
    const pc_args_t *a = s->a;
    int cnt = positions(s, k, d);
    uint32_t n32;
    if (payload < COUNT_WORD)
        return bad_message(s, src, "too short");
    memcpy(&n32, body, COUNT_WORD);
    size_t off = COUNT_WORD + (size_t)cnt * LEN_WORD, copied = 0;
    if (n32 != (uint32_t)cnt || off > payload)
        return bad_message(s, src, "wrong element count");
    for (int j = 0; j < cnt; j++) {
        int i = s->pos[j];
        uint32_t w;
        memcpy(&w, body + COUNT_WORD + (size_t)j * LEN_WORD, LEN_WORD);
        size_t len = w;
        if (last_round(s, i) == k) { /* arrived: the block from rank me-i */
            int from = peer_from(s, i);
            len = straight_in(s, i) ? 0 : a->rcounts[from];
            if (w != len_word(len) || off + len > payload)
                return bad_message(s, src, "element size differs from the receive count");
            if (len) {
                memcpy(a->rbuf + a->rdispls[from], body + off, len);
                copied += len;
            }
        } else {
            if (len > s->linear || off + len > payload)
                return bad_message(s, src, "relayed element above PACOLL_SLOAV_LINEAR");
            s->eit[i].ptr = body + off;
            s->eit[i].len = len;
        }
        off += len;
    }
    charge_copy(copied);
    return off == payload ? MPI_SUCCESS : bad_message(s, src, "trailing bytes");
}

static int grow_merge(sloav_t *s, size_t need)
{
    if (need <= s->merge_cap)
        return MPI_SUCCESS;
    char *m = realloc(s->merge, need);
    if (!m)
        return MPI_ERR_NO_MEM;
    s->merge = m, s->merge_cap = need;
    return MPI_SUCCESS;
}

/* Phase 1 of round k: merge and send every partner's message (whole, or
 * its size word only).  zc_off[d] = offset of a zero-copy payload in the
 * merge buffer, or (size_t)-1. */
static int round_send(sloav_t *s, int k, size_t *zc_off, size_t *zc_len)
{
    pc_call_t *c = &s->c;
    int np = partners(s, k);
    size_t total = 0;
    for (int d = 1; d <= np; d++)
        total += SIZE_WORD + merge(s, k, d, NULL, 0);
    int rc = grow_merge(s, total);
    size_t at = 0;
    for (int d = 1; d <= np && rc == MPI_SUCCESS; d++) {
        int dst = peer_at(s, d * (int)s->pw[k]);
        char *out = s->merge + at;
        size_t payload = merge(s, k, d, out, 1);
        int whole = pc_eager_fits(c, dst, SIZE_WORD + payload);
        uint64_t word = ((uint64_t)payload << 1) | (uint64_t)whole;
        memcpy(out, &word, SIZE_WORD);
        zc_off[d] = whole ? (size_t)-1 : at + SIZE_WORD;
        zc_len[d] = payload;
        rc = pc_eager_put(c, dst, out, whole ? SIZE_WORD + payload : SIZE_WORD);
        at += SIZE_WORD + payload;
    }
    return rc == MPI_SUCCESS ? pc_flush(c) : rc;
}

/* Phase 2 of round k: take whole messages as they land, advertise a region
 * of the SLOAV buffer for the others (their size word says how much). */
static int round_headers(sloav_t *s, int k, char *zc_in, size_t *in_len)
{
    pc_call_t *c = &s->c;
    int np = partners(s, k), left = np, last = -1;
    char seen[64 + 1];
    char *got = np < 64 ? seen : malloc((size_t)np + 1);
    if (!got)
        return MPI_ERR_NO_MEM;
    memset(got, 0, (size_t)np + 1);
    int rc = MPI_SUCCESS;
    pc_wait_new_condition(&c->w);
    while (left > 0 && rc == MPI_SUCCESS) {
        for (int d = 1; d <= np && rc == MPI_SUCCESS; d++) {
            if (got[d])
                continue;
            int src = peer_from(s, d * (int)s->pw[k]);
            const void *msg = NULL;
            if (left == 1) /* the last partner: wait for it alone (a blocking wait where the transport has one) */
                rc = pc_eager_wait(c, src, PC_EAGER_ANY, &msg); /* sized by its word */
            else
                msg = pc_eager_poll(c, src, PC_EAGER_ANY);
            if (rc != MPI_SUCCESS)
                break;
            if (!msg) {
                last = src;
                continue;
            }
            uint64_t word;
            memcpy(&word, msg, SIZE_WORD);
            size_t payload = (size_t)(word >> 1);
            got[d] = 1, left--;
            pc_wait_new_condition(&c->w);
            zc_in[d] = !(word & 1);
            in_len[d] = payload;
            if (!zc_in[d]) {
                if (SIZE_WORD + payload > pc_eager_capacity(c, src))
                    rc = bad_message(s, src, "larger than the eager slot");
                else
                    rc = unmerge(s, k, d, src, (const char *)msg + SIZE_WORD, payload);
                continue;
            }
            const rpeer_t *p = &s->rp[k * (s->r - 1) + d - 1];
            if (!p->may_zc || payload > p->bound) {
                rc = bad_message(s, src, "larger than its bound");
                continue;
            }
            rc = attach_landing(s);
            if (rc == MPI_SUCCESS)
                rc = pc_advertise(c, src, s->land + p->land_off, payload);
            if (rc == MPI_SUCCESS)
                rc = pc_expose_end(c);
        }
        if (left > 0 && rc == MPI_SUCCESS)
            rc = pc_wait_poll(&c->w, last);
    }
    if (got != seen)
        free(got);
    return rc;
}

static int one_round(sloav_t *s, int k)
{
    pc_call_t *c = &s->c;
    int np = partners(s, k);
    size_t *zc_off = malloc(4 * ((size_t)np + 1) * sizeof *zc_off);
    char *zc_in = calloc((size_t)np + 1, 1);
    if (!zc_off || !zc_in) {
        free(zc_off), free(zc_in);
        return MPI_ERR_NO_MEM;
    }
    size_t *zc_len = zc_off + np + 1, *in_len = zc_len + np + 1;
    int rc = round_send(s, k, zc_off, zc_len);
    if (rc == MPI_SUCCESS)
        rc = round_headers(s, k, zc_in, in_len);
    /* Phase 3: the large messages, zero-copy into the advertised regions. */
    for (int d = 1; d <= np && rc == MPI_SUCCESS; d++) {
        if (zc_off[d] == (size_t)-1)
            continue;
        int dst = peer_at(s, d * (int)s->pw[k]);
        pc_remote_t rem;
        rc = pc_adv_wait(c, dst, &rem);
        if (rc == MPI_SUCCESS)
            rc = pc_zput(c, dst, &rem, 0, s->merge + zc_off[d], zc_len[d]);
    }
    if (rc == MPI_SUCCESS)
        rc = pc_flush(c); /* the merge buffer may be reused after this */
    for (int d = 1; d <= np && rc == MPI_SUCCESS; d++) {
        if (!zc_in[d])
            continue;
        int src = peer_from(s, d * (int)s->pw[k]);
        rc = pc_done_wait(c, src, 1);
        if (rc == MPI_SUCCESS)
            rc = unmerge(s, k, d, src, s->land + s->rp[k * (s->r - 1) + d - 1].land_off, in_len[d]);
    }
    free(zc_off), free(zc_in);
    return rc;
}

/* ----------------------------------------------------------- the call */

/* The eager path every round needs exists for every pair exactly when the
 * configuration gives RMA slots of at least SLOAV_MIN_SLOT bytes to N
 * peers (shared-memory slots are never smaller): the same answer on every
 * rank, so they all fall back to `direct` together when it does not. */
static int eager_usable(const pacoll_team_t *t)
{
    size_t per = t->cfg.chan.slot_budget / ((size_t)PC_GENS * (size_t)t->size);
    return t->cfg.chan.eager_bytes >= SLOAV_MIN_SLOT && per >= SLOAV_MIN_SLOT;
}


static int run_direct(pacoll_team_t *t, const char *what, const pc_args_t *a)
{
    pc_layout_t x;
    pc_layout_alltoallv(&x, a, t->size);
    return pc_direct_exchange(t, what, &x);
}

static void sloav_free(sloav_t *s)
{
    if (!s->land_is_rbuf)
        free(s->land);
    free(s->merge), free(s->rp), free(s->pos), free(s->eit), free(s->pw);
}

int pc_sloav_exchange(pacoll_team_t *t, const char *what, const pc_args_t *a, int radix,
                      size_t linear)
{
    /* A radix of N or more is one round in which every element travels
     * straight to its destination: that is `direct`, without the size
     * words.  (Both tests give the same answer on every rank.) */
    if (t->size > 1 && (radix >= t->size || !eager_usable(t)))
        return run_direct(t, what, a);
    sloav_t s;
    memset(&s, 0, sizeof s);
    s.t = t, s.a = a, s.n = t->size, s.me = t->rank;
    s.r = radix < 2 ? 2 : radix;
    s.rounds = pc_sloav_rounds(s.n, s.r);
    s.linear = linear;
    pc_call_begin(&s.c, &t->chan, what);
    /* The own block never travels. */
    if (a->scounts[s.me] > 0)
        pc_copy_own(a->rbuf + a->rdispls[s.me], a->sbuf + a->sdispls[s.me], a->scounts[s.me]);
    int rc = setup(&s);
    char *sent = rc == MPI_SUCCESS ? calloc((size_t)s.n, 1) : NULL;
    if (rc == MPI_SUCCESS && !sent)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = send_straight(&s, sent, 0);
    for (int k = 0; k < s.rounds && rc == MPI_SUCCESS; k++)
        rc = one_round(&s, k);
    if (rc == MPI_SUCCESS)
        rc = send_straight(&s, sent, 1);
    if (rc == MPI_SUCCESS)
        rc = pc_flush(&s.c);
    if (rc == MPI_SUCCESS)
        rc = recv_straight(&s);
    int rc2 = pc_call_end(&s.c);
    free(sent);
    sloav_free(&s);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* ------------------------------------------------------------ the cost */

double pc_sloav_model(int p, int radix, int ports, size_t m, double alpha, double beta,
                      double beta_copy)
{
    if (p <= 1)
        return 0.0;
    int r = radix < 2 ? 2 : (radix > p ? p : radix);
    int k = pc_sloav_rounds(p, r);
    double per_msg = ceil((double)p / r) * ((double)m + LEN_WORD) + SIZE_WORD + COUNT_WORD;
    /* Eager slots are at most 4 KB by default: beyond, size then data. */
    double starts = per_msg <= 4096.0 ? 1.0 : 3.0;
    double waves = ceil((double)(r - 1) / (ports > 0 ? ports : 1));
    return k * waves * (starts * alpha + per_msg * beta) + k * (double)p * (double)m * beta_copy;
}

const pc_param_t pc_param_sloav_radix = {
    .env = "PACOLL_SLOAV_RADIX",
    .kind = PC_PARAM_INT,
    .dflt = PC_SLOAV_RADIX_DEFAULT,
    .lo = 2,
    .hi = 1 << 20,
    .help = "sloav/sloavx: radix r of the Bruck rounds (ceil(log_r N) rounds)",
};
const pc_param_t pc_param_sloav_linear = {
    .env = "PACOLL_SLOAV_LINEAR",
    .kind = PC_PARAM_SIZE,
    .dflt = (double)PC_SLOAV_LINEAR_DEFAULT,
    .lo = 0,
    .hi = (double)PC_SLOAV_LINEAR_MAX,
    .help = "sloav/sloavx: elements larger than this go straight, not relayed",
};
const pc_param_t *const pc_sloav_params[] = {&pc_param_sloav_radix, &pc_param_sloav_linear,
                                             &pc_param_direct_order, NULL};

static double cost(const pc_cost_ctx_t *ctx, size_t m)
{
    return pc_sloav_model(ctx->p, PC_SLOAV_RADIX_DEFAULT, ctx->ports, m, ctx->alpha, ctx->beta,
                          ctx->beta_shm);
}

static int run(pacoll_team_t *t, const pc_args_t *a)
{
    return pc_sloav_exchange(t, "alltoallv sloav", a, (int)pc_param(&t->cfg, &pc_param_sloav_radix),
                             (size_t)pc_param(&t->cfg, &pc_param_sloav_linear));
}

const pacoll_algo_t pc_alltoallv_sloav = {
    .name = "sloav",
    .coll = PACOLL_ALLTOALLV,
    .needs = PACOLL_NEEDS_RMA,
    .source = "sloavx-logarithmic-alltoallv §III; radix r after Fan et al. HPDC'22 (TuNA)",
    .summary = "SLOAV: radix-r Bruck in ceil(log_r N) rounds with an element index table, size+data per merged message; elements above PACOLL_SLOAV_LINEAR go straight",
    .run = run,
    .cost = cost,
    .params = pc_sloav_params,
    .nonblocking = 1,
};
