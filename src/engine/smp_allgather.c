/* The shared engine of the SMP-aware allgathers: see smp_allgather.h. */
#include "engine/smp_allgather.h"

/* ------------------------------------------------------------- layout */

/* Byte offset of rank r's block in the node buffer. */
static size_t rank_pos(const pc_smp_t *s, int r)
{
    const pacoll_team_t *t = s->t;
    return (size_t)(t->node_first[t->node_of[r]] + t->local_of[r]) * s->m;
}

/* The byte ranges of nodes [first, first + count) mod nnodes: one, or two
 * when the range wraps round past the last node.  Returns how many. */
static int pieces(const pc_smp_t *s, int first, int count, size_t off[2], size_t len[2])
{
    const int *nf = s->t->node_first;
    int end = first + count, k = 0;
    int e1 = end < s->nn ? end : s->nn;
    if (count <= 0)
        return 0;
    off[k] = (size_t)nf[first] * s->m, len[k] = (size_t)(nf[e1] - nf[first]) * s->m, k++;
    if (end > s->nn)
        off[k] = 0, len[k] = (size_t)nf[end - s->nn] * s->m, k++;
    return k;
}

size_t pc_smp_range_bytes(const pc_smp_t *s, int first, int count)
{
    size_t off[2], len[2];
    int k = pieces(s, first, count, off, len);
    return k == 0 ? 0 : k == 1 ? len[0] : len[0] + len[1];
}

int pc_smp_fits(const pacoll_team_t *t, size_t m)
{
    return t->ppn_max <= 1 || (size_t)t->size * m <= t->cfg.chan.shm_max;
}

/* ------------------------------------------------------------ copy-out */

/* Copies node n's blocks to my receive buffer in communicator rank order:
 * runs of consecutive ranks in one copy; my own block is already there. */
static void copy_node(pc_smp_t *s, int n)
{
    const pacoll_team_t *t = s->t;
    if (s->use_seg) {
        int hi = t->node_first[n + 1];
        for (int i = t->node_first[n]; i < hi;) {
            int r = t->node_ranks[i], j = i + 1;
            if (r == t->rank) {
                i++;
                continue;
            }
            while (j < hi && t->node_ranks[j] == t->node_ranks[j - 1] + 1 && t->node_ranks[j] != t->rank)
                j++;
            pc_copy(s->a->rbuf + (size_t)r * s->m, s->buf + (size_t)i * s->m, (size_t)(j - i) * s->m);
            i = j;
        }
    }
    s->copied[n] = 1;
    s->ncopied++;
}

/* Copies one landed node not yet copied; 1 if there was one.  Own node
 * first: its blocks are the first to land. */
static int copy_one_landed(pc_smp_t *s)
{
    for (int i = 0; i < s->nn; i++) {
        int n = (s->t->node + i) % s->nn;
        if (s->landed[n] && !s->copied[n]) {
            copy_node(s, n);
            return 1;
        }
    }
    return 0;
}

void pc_smp_copy_landed(pc_smp_t *s)
{
    while (copy_one_landed(s))
        ;
}

/* Nodes [first, first + count) are in the node buffer: tell the local ranks
 * (phase 3 starts for them at once).  In rbuf mode they are in place. */
static void mark_landed(pc_smp_t *s, int first, int count)
{
    pc_charge_settle(); /* the copies made so far pass before the flags rise */
    for (int i = 0; i < count; i++) {
        int n = (first + i) % s->nn;
        s->landed[n] = 1;
        if (s->use_seg)
            pc_seg_post_remote(&s->op, n);
        else
            s->copied[n] = 1, s->ncopied++;
    }
}

/* A rank other than the master: copy every node out as its flag rises. */
static int drain(pc_smp_t *s)
{
    pacoll_team_t *t = s->t;
    int master = pc_smp_master_of(t, t->node);
    pc_wait_new_condition(&s->c.w);
    while (s->ncopied < s->nn) {
        int fresh = 0;
        for (int i = 0; i < s->nn; i++) {
            int n = (t->node + i) % s->nn;
            if (!s->copied[n] && pc_seg_remote_posted(&s->op, n))
                copy_node(s, n), fresh = 1;
        }
        if (fresh) {
            pc_wait_new_condition(&s->c.w);
            continue;
        }
        int rc = pc_wait_poll(&s->c.w, master);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- phases */

int pc_smp_begin(pc_smp_t *s, pacoll_team_t *t, const pc_args_t *a, const char *what)
{
    memset(s, 0, sizeof *s);
    s->t = t, s->a = a, s->m = a->m, s->nn = t->nnodes;
    s->master = t->local_rank == 0;
    s->use_seg = t->ppn_max > 1;
    s->len = (size_t)t->size * a->m;
    pc_call_begin(&s->c, &t->chan, what);
    s->landed = calloc(2 * (size_t)s->nn, 1);
    if (!s->landed)
        return MPI_ERR_NO_MEM;
    s->copied = s->landed + s->nn;
    /* My own block goes straight to my receive buffer (nothing in place). */
    pc_copy_own(a->rbuf + (size_t)t->rank * s->m, a->sbuf, s->m);
    if (!s->use_seg) { /* node n is rank n: receive in place */
        s->buf = a->rbuf;
        mark_landed(s, t->node, 1);
        return MPI_SUCCESS;
    }
    int rc = pc_seg_begin(&t->seg, s->len, &s->c.w, &s->op);
    if (rc != MPI_SUCCESS)
        return rc;
    s->in_op = 1;
    s->buf = s->op.buf;
    pc_copy(s->buf + rank_pos(s, t->rank), a->sbuf, s->m);
    pc_seg_post(&s->op);
    return MPI_SUCCESS;
}

int pc_smp_local_ready(pc_smp_t *s)
{
    if (!s->use_seg)
        return MPI_SUCCESS;
    int rc = pc_seg_wait_all_posts(&s->op);
    if (rc == MPI_SUCCESS)
        mark_landed(s, s->t->node, 1);
    return rc;
}

static int zero_copy(pc_smp_t *s, int node, size_t bytes)
{
    return bytes > 0 && !pc_eager_fits(&s->c, pc_smp_master_of(s->t, node), bytes);
}

int pc_smp_expose(pc_smp_t *s, const pc_smp_xfer_t *recvs, int n)
{
    int any = 0, window = 0;
    for (int i = 0; i < n; i++) {
        if (zero_copy(s, recvs[i].node, pc_smp_range_bytes(s, recvs[i].first, recvs[i].count))) {
            any = 1;
            window |= pc_needs_window(&s->c, pc_smp_master_of(s->t, recvs[i].node));
        }
    }
    if (!any)
        return MPI_SUCCESS;
    /* The whole node buffer, to every sender: ranges that wrap round are
     * two puts at absolute offsets. */
    int rc = pc_expose_begin(&s->c, s->buf, s->len, window);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (zero_copy(s, recvs[i].node, pc_smp_range_bytes(s, recvs[i].first, recvs[i].count)))
            rc = pc_advertise(&s->c, pc_smp_master_of(s->t, recvs[i].node), s->buf, s->len);
    return rc == MPI_SUCCESS ? pc_expose_end(&s->c) : rc;
}

/* A wrapped range sent eagerly is packed first; over MPI RMA the put reads
 * the packed copy until the next flush, so each one lives until the end. */
static char *new_pack(pc_smp_t *s, size_t bytes)
{
    char **list = realloc(s->packs, (size_t)(s->npacks + 1) * sizeof *list);
    if (!list)
        return NULL;
    s->packs = list;
    char *p = malloc(bytes);
    if (p)
        s->packs[s->npacks++] = p;
    return p;
}

int pc_smp_send(pc_smp_t *s, const pc_smp_xfer_t *x)
{
    size_t off[2], len[2];
    int k = pieces(s, x->first, x->count, off, len);
    int peer = pc_smp_master_of(s->t, x->node);
    size_t bytes = pc_smp_range_bytes(s, x->first, x->count);
    if (bytes == 0)
        return MPI_SUCCESS;
    if (pc_eager_fits(&s->c, peer, bytes)) {
        const char *src = s->buf + off[0];
        if (k == 2) {
            char *p = new_pack(s, bytes);
            if (!p)
                return MPI_ERR_NO_MEM;
            pc_copy(p, s->buf + off[0], len[0]);
            pc_copy(p + len[0], s->buf + off[1], len[1]);
            src = p;
        }
        return pc_eager_put(&s->c, peer, src, bytes);
    }
    pc_remote_t rem;
    int rc = pc_adv_wait(&s->c, peer, &rem);
    for (int i = 0; i < k && rc == MPI_SUCCESS; i++)
        rc = pc_zput(&s->c, peer, &rem, off[i], s->buf + off[i], len[i]);
    return rc;
}

/* One look at a receive: *done = 1 once its nodes are in the node buffer. */
static void poll_one(pc_smp_t *s, const pc_smp_xfer_t *x, int *done)
{
    size_t off[2], len[2];
    int k = pieces(s, x->first, x->count, off, len);
    int peer = pc_smp_master_of(s->t, x->node);
    size_t bytes = pc_smp_range_bytes(s, x->first, x->count);
    *done = 0;
    if (pc_eager_fits(&s->c, peer, bytes)) {
        const char *d = pc_eager_poll(&s->c, peer, bytes);
        if (!d)
            return;
        for (int i = 0; i < k; i++) {
            pc_copy(s->buf + off[i], d, len[i]);
            d += len[i];
        }
    } else if (!pc_done_poll(&s->c, peer, (uint32_t)k)) {
        return;
    }
    mark_landed(s, x->first, x->count);
    *done = 1;
}

int pc_smp_recv_all(pc_smp_t *s, const pc_smp_xfer_t *recvs, int n)
{
    char *got = calloc((size_t)n + 1, 1);
    int left = 0, rc = MPI_SUCCESS;
    if (!got)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        got[i] = pc_smp_range_bytes(s, recvs[i].first, recvs[i].count) == 0;
        left += !got[i];
    }
    pc_wait_new_condition(&s->c.w);
    while (left > 0 && rc == MPI_SUCCESS) {
        int fresh = 0, last = -1;
        for (int i = 0; i < n; i++) {
            int done;
            if (got[i])
                continue;
            poll_one(s, &recvs[i], &done);
            if (done)
                got[i] = 1, left--, fresh = 1;
            else
                last = pc_smp_master_of(s->t, recvs[i].node);
        }
        if (left == 0)
            break;
        /* While waiting, copy out one landed node at a time, so a block to
         * forward (Bruck, the tree) is never held up long. */
        if (fresh || copy_one_landed(s))
            pc_wait_new_condition(&s->c.w);
        else
            rc = pc_wait_poll(&s->c.w, last);
    }
    free(got);
    return rc;
}

int pc_smp_end(pc_smp_t *s, int rc)
{
    if (rc == MPI_SUCCESS && s->landed) {
        if (s->master) {
            pc_smp_copy_landed(s);
            if (s->ncopied != s->nn) {
                pc_log("%s: %d of %d node blocks arrived (internal error)", s->c.w.what,
                       s->ncopied, s->nn);
                rc = MPI_ERR_INTERN;
            }
        } else {
            rc = drain(s);
        }
    }
    /* The call ends first: my puts out of the segment complete before the
     * local ranks may reuse it. */
    int rc2 = pc_call_end(&s->c);
    if (s->in_op)
        pc_seg_end(&s->op);
    for (int i = 0; i < s->npacks; i++)
        free(s->packs[i]);
    free(s->packs);
    free(s->landed);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* --------------------------------------------------------------- cost */

double pc_smp_cost(const pc_cost_ctx_t *ctx, size_t m, double t_inter)
{
    if (ctx->ppn_max <= 1)
        return t_inter;
    double bm = (double)m * ctx->beta_shm, L = ctx->ppn_max;
    double gather = ctx->alpha_shm + bm;
    double own = L * bm;
    double rest = ctx->alpha_shm + ((double)ctx->p - L) * bm;
    return gather + (t_inter > own ? t_inter : own) + rest;
}
