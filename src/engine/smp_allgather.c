/* The shared engine of the SMP-aware allgathers: see smp_allgather.h. */
#include "engine/smp_allgather.h"

#include <unistd.h>

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

/* ------------------------------------------------ the shared copy-out */

/* Every local rank copies the whole result, P m bytes, out of the node
 * buffer, and only once it has arrived.  Under random arrival every node's
 * last rank comes within microseconds of the last of all (measured under
 * SMPI, docs/SMP.md), so every node's block is complete at about the
 * same time and every rank then copies all P m bytes, the last one too.
 * So the copy-out is cut into chunks that any local rank may claim: a rank
 * claims its own as they become ready (the own node's as each local rank
 * posts, a remote node's when it lands), and once all of its own are
 * claimed it copies ready chunks into the receive buffers of the local
 * ranks still copying (process_vm_writev, pc_host_write).  Without skew
 * every rank has its own to copy until the end, as before. */
const pc_param_t pc_param_smp_share = {
    .env = "PACOLL_SMP_SHARE",
    .kind = PC_PARAM_BOOL,
    .dflt = 1,
    .help = "smp_*: a node's ranks share the copy-out into their receive buffers (needs process_vm_writev)",
};
const pc_param_t *const pc_smp_params[] = {&pc_param_smp_share, NULL};

/* A chunk: large against a process_vm_writev's fixed cost (2 MB is 64 of
 * them), and at most MAX_CHUNKS of them per receive buffer.  A smaller
 * piece (a whole small result) is not worth another rank's help: the owner
 * would wait for the helper's flag longer than it copies. */
#define CHUNK ((size_t)32 << 10)
#define MAX_CHUNKS 512
#define HELP_MIN (CHUNK / 2)

/* Each local rank's row of the node segment (pc_seg_row): its receive
 * buffer's address and pid, how many of its chunks have been copied (by
 * anyone), the operation it takes part in, then one claim byte per chunk.
 * A rank fills its row before it posts its block, and the others read it
 * only after that post; the segment is reused only once every local rank
 * has ended the operation (pc_seg_begin), so no row is touched by two
 * operations.  A layout that does not fit the row (thousands of nodes)
 * leaves the copy-out unshared. */
enum { ROW_ADDR, ROW_PID, ROW_DONE, ROW_TICKET, ROW_CLAIMS = 4 * 8 };

static size_t chunk_bytes(size_t len)
{
    size_t c = (len + MAX_CHUNKS - 1) / MAX_CHUNKS;
    return c > CHUNK ? c : CHUNK;
}

/* Chunks of node n's block (at least one: a block may be empty). */
static int node_chunks(const pacoll_team_t *t, int n, size_t m, size_t chunk)
{
    size_t bytes = (size_t)(t->node_first[n + 1] - t->node_first[n]) * m;
    return bytes == 0 ? 1 : (int)((bytes + chunk - 1) / chunk);
}

static uint64_t *row(const pc_smp_t *s, int local) { return (uint64_t *)pc_seg_row(&s->op, local); }
static char *claims(const pc_smp_t *s, int local) { return (char *)row(s, local) + ROW_CLAIMS; }

int pc_smp_fits(pacoll_team_t *t, size_t m)
{
    return t->ppn_max <= 1 || pc_seg_fits(&t->seg, (size_t)t->size * m);
}

/* The chunk layout and my row, before my block is posted. */
static int share_begin(pc_smp_t *s)
{
    const pacoll_team_t *t = s->t;
    int nn = s->nn;
    s->first = calloc((size_t)(nn + 1) + (size_t)t->local_size * (size_t)nn, sizeof *s->first);
    s->spent = calloc((size_t)nn, 1);
    if (!s->first || !s->spent)
        return MPI_ERR_NO_MEM;
    s->hint = s->first + nn + 1;
    s->chunk = chunk_bytes(s->len);
    for (int n = 0; n < nn; n++)
        s->first[n + 1] = s->first[n] + node_chunks(t, n, s->m, s->chunk);
    if (ROW_CLAIMS + (size_t)s->first[nn] > PC_SEG_ROW) { /* the same on every local rank */
        s->share = 0;
        return MPI_SUCCESS;
    }
    for (int d = 0; d < t->local_size; d++)
        for (int n = 0; n < nn; n++)
            s->hint[d * nn + n] = s->first[n];
    uint64_t *r = row(s, t->local_rank);
    memset(claims(s, t->local_rank), 0, (size_t)s->first[nn]);
    r[ROW_ADDR] = (uint64_t)(uintptr_t)s->a->rbuf;
    r[ROW_PID] = (uint64_t)getpid();
    r[ROW_DONE] = 0;
    r[ROW_TICKET] = s->op.ticket; /* all published by pc_seg_post's release */
    return MPI_SUCCESS;
}

/* Bytes [*lo, *hi) of the node buffer that node n's chunk chunk_no covers. */
static void chunk_span(const pc_smp_t *s, int n, int chunk_no, size_t *lo, size_t *hi)
{
    const int *nf = s->t->node_first;
    size_t end = (size_t)nf[n + 1] * s->m;
    *lo = (size_t)nf[n] * s->m + (size_t)(chunk_no - s->first[n]) * s->chunk;
    *hi = *lo + s->chunk < end ? *lo + s->chunk : end;
}

/* Whether node n's chunk chunk_no is in the node buffer: a remote node once it
 * has landed, my own node's blocks once their ranks have posted. */
static int chunk_ready(pc_smp_t *s, int n, int chunk_no)
{
    const pacoll_team_t *t = s->t;
    if (pc_seg_remote_posted(&s->op, n))
        return 1;
    if (n != t->node)
        return 0;
    size_t lo, hi;
    chunk_span(s, n, chunk_no, &lo, &hi);
    for (int i = (int)(lo / s->m); (size_t)i * s->m < hi; i++)
        if (i - t->node_first[n] != t->local_rank && !pc_seg_posted(&s->op, i - t->node_first[n]))
            return 0;
    return 1;
}

/* Copies bytes [lo, hi) of the node buffer to their places in local rank
 * `local`'s receive buffer: runs of consecutive ranks in one copy, that
 * rank's own block left out (it is there already); mine by pc_copy, another
 * rank's by pc_host_write to the address its row gives. */
static int copy_span(pc_smp_t *s, int local, size_t lo, size_t hi)
{
    const pacoll_team_t *t = s->t;
    int self = local == t->local_rank, owner = t->node_ranks[t->node_first[t->node] + local];
    size_t m = s->m;
    int rc = MPI_SUCCESS;
    if (lo >= hi)
        return MPI_SUCCESS;
    for (int i = (int)(lo / m); (size_t)i * m < hi && rc == MPI_SUCCESS;) {
        int rk = t->node_ranks[i], j = i + 1;
        if (rk == owner) {
            i++;
            continue;
        }
        while ((size_t)j * m < hi && t->node_ranks[j] == t->node_ranks[j - 1] + 1 && t->node_ranks[j] != owner)
            j++;
        size_t from = (size_t)i * m > lo ? (size_t)i * m : lo, to = (size_t)j * m < hi ? (size_t)j * m : hi;
        size_t at = (size_t)rk * m + (from - (size_t)i * m);
        if (self) {
            pc_copy(s->a->rbuf + at, s->buf + from, to - from);
        } else {
            const uint64_t *r = row(s, local);
            rc = pc_host_write(&s->t->chan, r[ROW_PID], r[ROW_ADDR] + at, s->buf + from, to - from);
        }
        i = j;
    }
    return rc;
}

/* Copies node n's chunk chunk_no into local rank `local`'s receive buffer, then
 * counts it in that rank's row (a failure is kept in share_rc). */
static void copy_chunk(pc_smp_t *s, int local, int n, int chunk_no)
{
    size_t lo, hi;
    chunk_span(s, n, chunk_no, &lo, &hi);
    int rc = copy_span(s, local, lo, hi);
    if (rc != MPI_SUCCESS) {
        s->share_rc = rc;
        return;
    }
    if (local != s->t->local_rank) { /* a flag another rank waits on, as the segment's own */
        pc_charge_settle();
        pc_flag_publish_add(&row(s, local)[ROW_DONE], 1);
    } else {
        __atomic_fetch_add(&row(s, local)[ROW_DONE], 1, __ATOMIC_RELEASE);
    }
}

/* Claims a ready chunk of node n in local rank `local`'s row, from its hint
 * on, of at least min bytes; -1 if none, and *spent = 1 if every chunk of
 * it is claimed. */
static int claim(pc_smp_t *s, int local, int n, size_t min, int *spent)
{
    char *cl = claims(s, local);
    int *h = &s->hint[local * s->nn + n];
    size_t lo, hi;
    *spent = 0;
    while (*h < s->first[n + 1] && __atomic_load_n(&cl[*h], __ATOMIC_RELAXED))
        (*h)++;
    if (*h == s->first[n + 1]) {
        *spent = 1;
        return -1;
    }
    for (int chunk_no = *h; chunk_no < s->first[n + 1]; chunk_no++) {
        if (__atomic_load_n(&cl[chunk_no], __ATOMIC_RELAXED) || !chunk_ready(s, n, chunk_no))
            continue;
        chunk_span(s, n, chunk_no, &lo, &hi);
        if (hi - lo >= min && !__atomic_exchange_n(&cl[chunk_no], 1, __ATOMIC_ACQ_REL))
            return chunk_no;
    }
    return -1;
}

/* One ready chunk of my own row, my node first; 0 if none. */
static int own_step(pc_smp_t *s)
{
    int me = s->t->local_rank;
    for (int i = 0; i < s->nn; i++) {
        int n = (s->t->node + i) % s->nn, spent, chunk_no;
        if (s->spent[n])
            continue;
        if ((chunk_no = claim(s, me, n, 0, &spent)) >= 0) {
            copy_chunk(s, me, n, chunk_no);
            return 1;
        }
        if (spent)
            s->spent[n] = 1, s->nspent++;
    }
    return 0;
}

/* One ready chunk for another local rank of this operation; 0 if none. */
static int help_step(pc_smp_t *s)
{
    int me = s->t->local_rank, size = s->t->local_size;
    for (int j = 1; j < size; j++) {
        int d = (me + j) % size, spent, chunk_no;
        if (!pc_seg_posted(&s->op, d) || row(s, d)[ROW_TICKET] != s->op.ticket)
            continue;
        for (int i = 0; i < s->nn; i++) {
            int n = (s->t->node + i) % s->nn;
            if ((chunk_no = claim(s, d, n, HELP_MIN, &spent)) >= 0) {
                copy_chunk(s, d, n, chunk_no);
                return 1;
            }
        }
    }
    return 0;
}

/* Phase 3, shared: my chunks as they become ready, then, all of mine
 * claimed, the others' while any is ready; done when every chunk of mine
 * has been copied, by whoever claimed it. */
static int finish_shared(pc_smp_t *s)
{
    uint64_t *mine = row(s, s->t->local_rank);
    uint64_t total = (uint64_t)s->first[s->nn];
    pc_wait_new_condition(&s->c.w);
    while (s->share_rc == MPI_SUCCESS) {
        if (own_step(s) || (s->nspent == s->nn && help_step(s))) {
            pc_wait_new_condition(&s->c.w);
            continue;
        }
        if (__atomic_load_n(&mine[ROW_DONE], __ATOMIC_ACQUIRE) == total)
            return MPI_SUCCESS;
        int rc = pc_wait_poll(&s->c.w, -1);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return s->share_rc;
}

/* ------------------------------------------------------------ copy-out */

/* Copies node n's blocks to my receive buffer in communicator rank order:
 * runs of consecutive ranks in one copy; my own block is already there. */
static void copy_node(pc_smp_t *s, int n)
{
    const int *nf = s->t->node_first;
    if (s->use_seg) /* my own copies: nothing can fail */
        copy_span(s, s->t->local_rank, (size_t)nf[n] * s->m, (size_t)nf[n + 1] * s->m);
    s->copied[n] = 1;
    s->ncopied++;
}

/* Copies one landed node not yet copied; 1 if there was one.  Own node
 * first: its blocks are the first to land. */
static int copy_one_landed(pc_smp_t *s)
{
    if (s->share) /* one chunk (a failure is kept for finish_shared) */
        return own_step(s) && s->share_rc == MPI_SUCCESS;
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

int pc_smp_copy_and_flush(pc_smp_t *s)
{
    int testable = pc_puts_testable(s->c.ch), rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && copy_one_landed(s))
        if (testable && pc_puts_pending(&s->c))
            rc = pc_flush_landed(&s->c);
    return rc == MPI_SUCCESS ? pc_flush(&s->c) : rc;
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
    s->share = s->m > 0 && pc_param(&t->cfg, &pc_param_smp_share) && pc_host_write_ok(&t->chan);
    if (s->share && (rc = share_begin(s)) != MPI_SUCCESS)
        return rc;
    pc_copy(s->buf + rank_pos(s, t->rank), a->sbuf, s->m);
    pc_seg_post(&s->op);
    return MPI_SUCCESS;
}

int pc_smp_local_ready(pc_smp_t *s)
{
    const pacoll_team_t *t = s->t;
    int rc = MPI_SUCCESS;
    if (!s->use_seg)
        return MPI_SUCCESS;
    if (!s->share) {
        rc = pc_seg_wait_all_posts(&s->op);
    } else {
        pc_wait_new_condition(&s->c.w);
        for (int i = 0; i < t->local_size && rc == MPI_SUCCESS;) {
            if (i == t->local_rank || pc_seg_posted(&s->op, i)) {
                i++;
                continue;
            }
            /* A local rank is late: meanwhile I copy my chunks of the ranks
             * that are here, but only while it is late: the moment my node
             * is complete its block must go out, before any copy. */
            if (own_step(s) && s->share_rc == MPI_SUCCESS)
                pc_wait_new_condition(&s->c.w);
            else
                rc = pc_wait_poll(&s->c.w, t->node_ranks[t->node_first[t->node] + i]);
        }
    }
    if (rc == MPI_SUCCESS)
        mark_landed(s, t->node, 1);
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
        /* While waiting, copy out one landed node (shared: one chunk) at a
         * time, so a block to forward (Bruck, the tree) is never held up
         * long. */
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
    if (rc == MPI_SUCCESS && s->share) {
        rc = finish_shared(s);
    } else if (rc == MPI_SUCCESS && s->landed) {
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
    free(s->first);
    free(s->spent);
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
