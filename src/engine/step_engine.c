/* The step exchange of the multi-step algorithms: see step_engine.h. */
#include "engine/step_engine.h"

enum { MODE_NONE = 0, MODE_EAGER = 1, MODE_ZCOPY = 2 };

static size_t total_bytes(const pc_piece_t *pcs, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += pcs[i].len;
    return s;
}

/* Piece i continues the run of the previous non-empty piece. */
static int continues(const pc_piece_t *pcs, int prev, int i)
{
    return prev >= 0 && pcs[i].off == pcs[prev].off + pcs[prev].len;
}

/* Runs of pieces contiguous in the receiver's area: one zero-copy put each.
 * Both sides compute it from the same offsets, so they agree on the count. */
static uint32_t count_runs(const pc_piece_t *pcs, int n)
{
    uint32_t runs = 0;
    for (int i = 0, prev = -1; i < n; i++) {
        if (pcs[i].len == 0)
            continue;
        runs += !continues(pcs, prev, i);
        prev = i;
    }
    return runs;
}

static void span_of(const pc_piece_t *pcs, int n, size_t *lo, size_t *hi)
{
    *lo = SIZE_MAX, *hi = 0;
    for (int i = 0; i < n; i++) {
        if (pcs[i].len == 0)
            continue;
        if (pcs[i].off < *lo)
            *lo = pcs[i].off;
        if (pcs[i].off + pcs[i].len > *hi)
            *hi = pcs[i].off + pcs[i].len;
    }
}

int pc_steps_begin(pc_steps_t *st, pacoll_team_t *t, const char *what, char *area, size_t area_len)
{
    memset(st, 0, sizeof *st);
    pc_call_begin(&st->c, &t->chan, what);
    st->area = area, st->area_len = area_len;
    size_t p = (size_t)t->size;
    st->lo = calloc(2 * p, sizeof *st->lo);
    st->mode = calloc(2 * p, 1);
    if (!st->lo || !st->mode)
        return MPI_ERR_NO_MEM;
    st->hi = st->lo + p;
    st->sent = st->mode + p;
    return MPI_SUCCESS;
}

int pc_steps_expect(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n)
{
    size_t bytes = total_bytes(pcs, n);
    if (bytes == 0)
        return MPI_SUCCESS;
    if (st->mode[peer] != MODE_NONE) {
        pc_log("internal: two transfers from rank %d in one call", peer);
        return MPI_ERR_INTERN;
    }
    span_of(pcs, n, &st->lo[peer], &st->hi[peer]);
    if (st->hi[peer] > st->area_len) {
        pc_log("internal: a receive from rank %d passes the end of the area", peer);
        return MPI_ERR_INTERN;
    }
    st->mode[peer] = pc_eager_fits(&st->c, peer, bytes) ? MODE_EAGER : MODE_ZCOPY;
    return MPI_SUCCESS;
}

int pc_steps_expose(pc_steps_t *st)
{
    pacoll_team_t *t = pc_call_team(&st->c);
    int any = 0, any_window = 0;
    for (int q = 0; q < t->size; q++) {
        if (st->mode[q] == MODE_ZCOPY) {
            any = 1;
            any_window |= pc_needs_window(&st->c, q);
        }
    }
    if (!any)
        return MPI_SUCCESS;
    int rc = pc_expose_begin(&st->c, st->area, st->area_len, any_window);
    for (int q = 0; q < t->size && rc == MPI_SUCCESS; q++)
        if (st->mode[q] == MODE_ZCOPY)
            rc = pc_advertise(&st->c, q, st->area + st->lo[q], st->hi[q] - st->lo[q]);
    return rc == MPI_SUCCESS ? pc_expose_end(&st->c) : rc;
}

/* Room for n bytes of packed data that must stay valid until the puts
 * reading it are complete: when the buffer is full, complete them first. */
static int stage(pc_steps_t *st, size_t n, char **out)
{
    if (st->stage_used + n > st->stage_len) {
        int rc = pc_flush(&st->c);
        if (rc != MPI_SUCCESS)
            return rc;
        st->stage_used = 0;
        if (n > st->stage_len) {
            char *p = realloc(st->stage, n);
            if (!p)
                return MPI_ERR_NO_MEM;
            st->stage = p, st->stage_len = n;
        }
    }
    *out = st->stage + st->stage_used;
    st->stage_used += n;
    return MPI_SUCCESS;
}

/* Packs pieces [i, j) into the staging buffer. */
static int pack(pc_steps_t *st, const pc_piece_t *pcs, int i, int j, size_t bytes, const char **out)
{
    char *buf;
    int rc = stage(st, bytes, &buf);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t at = 0;
    for (int x = i; x < j; x++) {
        pc_copy(buf + at, pcs[x].src, pcs[x].len);
        at += pcs[x].len;
    }
    *out = buf;
    return MPI_SUCCESS;
}

static int send_eager(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n, size_t bytes)
{
    const char *src = NULL;
    int nonempty = 0, one = -1;
    for (int i = 0; i < n; i++)
        if (pcs[i].len > 0)
            nonempty++, one = i;
    if (nonempty == 1) {
        src = pcs[one].src;
    } else {
        int rc = pack(st, pcs, 0, n, bytes, &src);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return pc_eager_put(&st->c, peer, src, bytes);
}

static int send_zcopy(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n)
{
    pc_remote_t rem;
    size_t lo, hi;
    span_of(pcs, n, &lo, &hi);
    int rc = pc_adv_wait(&st->c, peer, &rem);
    /* Each run of pieces contiguous at the receiver is one put. */
    for (int i = 0; i < n && rc == MPI_SUCCESS;) {
        if (pcs[i].len == 0) {
            i++;
            continue;
        }
        int j = i + 1, last = i;
        size_t bytes = pcs[i].len;
        while (j < n && (pcs[j].len == 0 || continues(pcs, last, j))) {
            if (pcs[j].len > 0)
                bytes += pcs[j].len, last = j;
            j++;
        }
        const char *src = pcs[i].src;
        if (last != i)
            rc = pack(st, pcs, i, j, bytes, &src);
        if (rc == MPI_SUCCESS)
            rc = pc_zput(&st->c, peer, &rem, pcs[i].off - lo, src, bytes);
        i = j;
    }
    return rc;
}

int pc_steps_send(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n)
{
    size_t bytes = total_bytes(pcs, n);
    if (bytes == 0)
        return MPI_SUCCESS;
    if (st->sent[peer]) {
        pc_log("internal: two transfers to rank %d in one call", peer);
        return MPI_ERR_INTERN;
    }
    st->sent[peer] = 1;
    if (pc_eager_fits(&st->c, peer, bytes))
        return send_eager(st, peer, pcs, n, bytes);
    return send_zcopy(st, peer, pcs, n);
}

int pc_steps_recv(pc_steps_t *st, int peer, const pc_piece_t *pcs, int n)
{
    if (total_bytes(pcs, n) == 0)
        return MPI_SUCCESS;
    /* Puts still held back for the k-port window must go out before we
     * wait: the peer may be waiting for them to send what we wait for. */
    int rc = pc_flush(&st->c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (st->mode[peer] == MODE_ZCOPY)
        return pc_done_wait(&st->c, peer, count_runs(pcs, n));
    const void *data;
    rc = pc_eager_wait(&st->c, peer, total_bytes(pcs, n), &data);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *p = data;
    for (int i = 0; i < n; i++) {
        pc_copy(st->area + pcs[i].off, p, pcs[i].len);
        p += pcs[i].len;
    }
    return MPI_SUCCESS;
}

int pc_steps_step_end(pc_steps_t *st)
{
    int rc = pc_flush(&st->c); /* the staged data may be reused after this */
    st->stage_used = 0;
    return rc;
}

int pc_steps_end(pc_steps_t *st, int rc)
{
    int rc2 = pc_call_end(&st->c);
    free(st->lo);
    free(st->mode);
    free(st->stage);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int pc_ceil_log(long n, long b)
{
    int s = 0;
    for (long reach = 1; reach < n; reach *= b)
        s++;
    return s;
}

long pc_floor_pow(long n, long b)
{
    long p = 1;
    while (p <= n / b)
        p *= b;
    return p;
}

/* ======================================================================
 * The digit exchange: alltoall "bruck" and "exchange" (multirail §5.1.3).
 *
 * K = k + 1.  P "cores" exchange "fat blocks"; the fat block (S, D) holds
 * the blocks from every rank S stands for to every rank D stands for.
 *   - Bruck: every rank is a core (P = N), L = ceil(log_K N), and digit
 *     arithmetic has carries (mod N): partners are c +- d K^i.
 *   - Standard Exchange: P = K^L is the largest power of K not above N,
 *     arithmetic is per digit without carries (c (+) x changes digit i of c
 *     only), and rank e >= P is an extra standing behind core e mod P: core
 *     c stands for ranks c, c+P, c+2P, .. (at most K of them).
 * Core c keeps its P fat blocks by a virtual index V: before step i, the
 * block at V goes from core c (-) V_{<i} to core c (+) V_{>=i} (V_{<i}: the
 * digits of V below i).  In step i core c sends to c (+) x K^i, x = 1..k,
 * the fat blocks whose digit i is x, and receives the same V's from
 * c (-) x K^i; after L steps the block at V comes from c (-) V and is for
 * c.  This is the paper's phase 2; its phase 1 (rotate so that the own
 * block is on top) is the index arithmetic V = dst (-) c, never a copy; its
 * phase 3 (the inverse rotation) is folded into the copy-out to the receive
 * buffer.  For N not a power of K (exchange), two correction rounds: each
 * extra first writes its whole send buffer to its core, and at the end the
 * core writes each extra its column straight into the extra's receive
 * buffer.
 *
 * On the channel (one call): every (step, x) has its own region of a
 * temporary area, advertised at call start, so no step waits for a
 * receiver to be ready and no block is ever overwritten; a block that
 * moved is sent from the region it landed in (loc[V]), one that never
 * moved straight from the send buffer.  A step's message is the fat blocks
 * packed into one contiguous stream: one eager message, or one zero-copy put
 * of the packed data (the blocks of one message are scattered, and packing
 * them is the Bruck algorithm's memory copy that §7.3 measures).
 * ====================================================================== */

typedef struct dx {
    int n, K, L, P, me;
    enum pc_digits_mode mode;
    size_t m;
    long *pw;           /* [L+1] powers of K */
    const char *sbuf;
    char *area;         /* pre-step area, then one region per (step, x) */
    size_t *region;     /* [L*K] offset of region (i, x) in area */
    size_t area_len;
    char **loc;         /* [P] where fat block V is now (NULL: not moved) */
    pc_piece_t *pcs;
} dx_t;

/* Ranks core c stands for. */
static int dx_ns(const dx_t *x, int c)
{
    return x->mode == PC_DIGITS_BRUCK ? 1 : (x->n - 1 - c) / x->P + 1;
}

static int dx_digit(const dx_t *x, long v, int i) { return (int)(v / x->pw[i] % x->K); }

/* a (+) b (sign 1) or a (-) b (sign -1), in the mode's arithmetic. */
static int dx_comb(const dx_t *x, long a, long b, int sign)
{
    if (x->mode == PC_DIGITS_BRUCK)
        return (int)(((a + sign * b) % x->P + x->P) % x->P);
    long r = 0;
    for (int i = 0; i < x->L; i++) {
        long d = (dx_digit(x, a, i) + sign * dx_digit(x, b, i) + x->K) % x->K;
        r += d * x->pw[i];
    }
    return (int)r;
}

static size_t dx_fat(const dx_t *x, int holder, long v, int i)
{
    long low = v % x->pw[i];
    int src = dx_comb(x, holder, low, -1), dst = dx_comb(x, holder, v - low, 1);
    return (size_t)dx_ns(x, src) * (size_t)dx_ns(x, dst) * x->m;
}

/* Bytes core `holder` sends in step i to the core x K^i ahead. */
static size_t dx_msg(const dx_t *x, int holder, int i, int d)
{
    size_t s = 0;
    for (long v = (long)d * x->pw[i]; v < x->P; v++)
        if (dx_digit(x, v, i) == d)
            s += dx_fat(x, holder, v, i);
    return s;
}

/* Block from rank s = me + sl P to rank d, before it moves. */
static const char *dx_initial(const dx_t *x, int sl, int d)
{
    if (sl == 0)
        return x->sbuf + (size_t)d * x->m;
    return x->area + ((size_t)(sl - 1) * (size_t)x->n + (size_t)d) * x->m;
}

/* My fat blocks with digit i = d, as pieces of one stream. */
static int dx_step_pieces(dx_t *x, int i, int d)
{
    int np = 0;
    size_t off = 0;
    for (long v = (long)d * x->pw[i]; v < x->P; v++) {
        if (dx_digit(x, v, i) != d)
            continue;
        size_t bytes = dx_fat(x, x->me, v, i);
        if (x->loc[v]) {
            x->pcs[np++] = (pc_piece_t){x->loc[v], off, bytes};
            off += bytes;
            continue;
        }
        /* never moved: it still comes from me, in (source, destination) order */
        int dst = dx_comb(x, x->me, v, 1), nd = dx_ns(x, dst);
        for (int sl = 0; sl < dx_ns(x, x->me); sl++)
            for (int dl = 0; dl < nd; dl++, off += x->m)
                x->pcs[np++] = (pc_piece_t){dx_initial(x, sl, dst + dl * x->P), off, x->m};
    }
    return np;
}

/* Where the block from rank s = S + sl P to my dl-th rank is at the end. */
static const char *dx_final(const dx_t *x, long v, int sl, int dl)
{
    if (!x->loc[v]) /* V = 0: my own blocks never move */
        return dx_initial(x, sl, x->me + dl * x->P);
    return x->loc[v] + ((size_t)sl * (size_t)dx_ns(x, x->me) + (size_t)dl) * x->m;
}

/* What core c gives its dl-th rank at the end, in one order both sides
 * know: per V, per source; offsets are the source's place in rbuf. */
static int dx_column(const dx_t *x, int c, int dl, int with_src)
{
    int np = 0;
    for (long v = 0; v < x->P; v++) {
        int src = dx_comb(x, c, v, -1);
        for (int sl = 0; sl < dx_ns(x, src); sl++) {
            size_t s = (size_t)src + (size_t)sl * (size_t)x->P;
            x->pcs[np++] = (pc_piece_t){with_src ? dx_final(x, v, sl, dl) : NULL, s * x->m, x->m};
        }
    }
    return np;
}

/* Lays out my temporary area: the extras' send buffers, then the regions. */
static int dx_layout(dx_t *x)
{
    size_t at = (size_t)(dx_ns(x, x->me) - 1) * (size_t)x->n * x->m;
    for (int i = 0; i < x->L; i++)
        for (int d = 1; d < x->K; d++) {
            x->region[i * x->K + d] = at;
            if ((long)d * x->pw[i] < x->P)
                at += dx_msg(x, dx_comb(x, x->me, (long)d * x->pw[i], -1), i, d);
        }
    x->area_len = at;
    x->area = malloc(at ? at : 1);
    return x->area ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int dx_expect(pc_steps_t *st, dx_t *x)
{
    int rc = MPI_SUCCESS;
    for (int sl = 1; sl < dx_ns(x, x->me) && rc == MPI_SUCCESS; sl++) {
        pc_piece_t pre = {NULL, (size_t)(sl - 1) * (size_t)x->n * x->m, (size_t)x->n * x->m};
        rc = pc_steps_expect(st, x->me + sl * x->P, &pre, 1);
    }
    for (int i = 0; i < x->L && rc == MPI_SUCCESS; i++)
        for (int d = 1; d < x->K && (long)d * x->pw[i] < x->P && rc == MPI_SUCCESS; d++) {
            int from = dx_comb(x, x->me, (long)d * x->pw[i], -1);
            pc_piece_t all = {NULL, x->region[i * x->K + d], dx_msg(x, from, i, d)};
            rc = pc_steps_expect(st, from, &all, 1);
        }
    return rc;
}

static int dx_step(pc_steps_t *st, dx_t *x, int i)
{
    int rc = MPI_SUCCESS;
    for (int d = 1; d < x->K && (long)d * x->pw[i] < x->P && rc == MPI_SUCCESS; d++) {
        int np = dx_step_pieces(x, i, d);
        rc = pc_steps_send(st, dx_comb(x, x->me, (long)d * x->pw[i], 1), x->pcs, np);
    }
    for (int d = 1; d < x->K && (long)d * x->pw[i] < x->P && rc == MPI_SUCCESS; d++) {
        int from = dx_comb(x, x->me, (long)d * x->pw[i], -1);
        size_t at = x->region[i * x->K + d];
        pc_piece_t all = {NULL, at, dx_msg(x, from, i, d)};
        rc = pc_steps_recv(st, from, &all, 1);
        /* the blocks with digit i = d now live in this region */
        for (long v = (long)d * x->pw[i]; v < x->P && rc == MPI_SUCCESS; v++)
            if (dx_digit(x, v, i) == d) {
                x->loc[v] = x->area + at;
                at += dx_fat(x, from, v, i);
            }
    }
    return rc == MPI_SUCCESS ? pc_steps_step_end(st) : rc;
}

static int dx_core(pc_steps_t *st, dx_t *x, char *rbuf)
{
    int rc = MPI_SUCCESS, ns = dx_ns(x, x->me);
    for (int sl = 1; sl < ns && rc == MPI_SUCCESS; sl++) {
        pc_piece_t pre = {NULL, (size_t)(sl - 1) * (size_t)x->n * x->m, (size_t)x->n * x->m};
        rc = pc_steps_recv(st, x->me + sl * x->P, &pre, 1);
    }
    for (int i = 0; i < x->L && rc == MPI_SUCCESS; i++)
        rc = dx_step(st, x, i);
    for (int dl = 1; dl < ns && rc == MPI_SUCCESS; dl++) {
        int np = dx_column(x, x->me, dl, 1);
        rc = pc_steps_send(st, x->me + dl * x->P, x->pcs, np);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    /* phase 3, folded: every block to its final place (my own one straight
     * from my send buffer) */
    int np = dx_column(x, x->me, 0, 1);
    const char *own = dx_initial(x, 0, x->me);
    for (int j = 0; j < np; j++) {
        if (x->pcs[j].src == own)
            pc_copy_own(rbuf + x->pcs[j].off, own, x->pcs[j].len);
        else
            pc_copy(rbuf + x->pcs[j].off, x->pcs[j].src, x->pcs[j].len);
    }
    return MPI_SUCCESS;
}

static int dx_extra(pc_steps_t *st, dx_t *x)
{
    int core = x->me % x->P;
    pc_piece_t all = {x->sbuf, 0, (size_t)x->n * x->m};
    int rc = pc_steps_send(st, core, &all, 1);
    if (rc == MPI_SUCCESS)
        rc = pc_steps_step_end(st);
    if (rc == MPI_SUCCESS)
        rc = pc_steps_recv(st, core, x->pcs, dx_column(x, core, x->me / x->P, 0));
    return rc;
}

int pc_alltoall_digits(pacoll_team_t *t, const pc_args_t *a, enum pc_digits_mode mode,
                       const char *what)
{
    dx_t x = {.n = t->size, .K = t->cfg.chan.ports + 1, .me = t->rank, .mode = mode, .m = a->m,
              .sbuf = a->sbuf};
    if (mode == PC_DIGITS_BRUCK) {
        x.P = x.n, x.L = pc_ceil_log(x.n, x.K);
    } else {
        if (x.K > x.n) /* more ports than partners would make every rank an extra */
            x.K = x.n > 1 ? x.n : 2;
        x.P = (int)pc_floor_pow(x.n, x.K), x.L = pc_ceil_log(x.P, x.K);
    }
    int extra = x.me >= x.P, ns_max = (x.n + x.P - 1) / x.P;
    x.pw = malloc((size_t)(x.L + 1) * sizeof *x.pw);
    x.region = calloc((size_t)x.L * (size_t)x.K + 1, sizeof *x.region);
    x.loc = calloc((size_t)x.P, sizeof *x.loc);
    /* a message is at most all the blocks a core holds: N per rank it stands for */
    x.pcs = malloc(((size_t)x.n * (size_t)ns_max + 1) * sizeof *x.pcs);
    int rc = x.pw && x.region && x.loc && x.pcs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0; rc == MPI_SUCCESS && i <= x.L; i++)
        x.pw[i] = i ? x.pw[i - 1] * x.K : 1;
    if (rc == MPI_SUCCESS && !extra)
        rc = dx_layout(&x);
    pc_steps_t st;
    if (rc == MPI_SUCCESS) {
        rc = pc_steps_begin(&st, t, what, extra ? a->rbuf : x.area,
                            extra ? (size_t)x.n * x.m : x.area_len);
        if (rc == MPI_SUCCESS)
            rc = extra ? pc_steps_expect(&st, x.me % x.P, x.pcs,
                                         dx_column(&x, x.me % x.P, x.me / x.P, 0))
                       : dx_expect(&st, &x);
        if (rc == MPI_SUCCESS)
            rc = pc_steps_expose(&st);
        if (rc == MPI_SUCCESS)
            rc = extra ? dx_extra(&st, &x) : dx_core(&st, &x, a->rbuf);
        if (rc == MPI_SUCCESS && a->m > 0) /* every rank's blocks reached me */
            pc_call_all_arrived(&st.c);
        rc = pc_steps_end(&st, rc);
    }
    free(x.pw);
    free(x.region);
    free(x.loc);
    free(x.pcs);
    free(x.area);
    return rc;
}

double pc_alltoall_digits_cost(const pc_cost_ctx_t *ctx, size_t m, enum pc_digits_mode mode)
{
    int k = ctx->ports > 0 ? ctx->ports : 1, K = k + 1, p = ctx->p;
    if (mode == PC_DIGITS_EXCHANGE && K > p)
        K = p > 1 ? p : 2, k = K - 1;
    long P = mode == PC_DIGITS_BRUCK ? p : pc_floor_pow(p, K);
    int L = pc_ceil_log(P, K);
    double ns = (double)((p + P - 1) / P);
    /* per step: about P/K fat blocks of ns^2 blocks to each partner, packed
     * (one local copy of what is sent); then the copy-out */
    double per_step = (double)P / K * ns * ns * (double)m;
    double t = L * (ctx->alpha + per_step * ctx->beta + k * per_step * ctx->beta_shm);
    t += (double)p * (double)m * ctx->beta_shm;
    if (P != p) /* the two correction rounds: a send buffer in, a column out */
        t += 2 * (ctx->alpha + (double)p * (double)m * ctx->beta);
    return t;
}
