/* The step exchange of the multi-step algorithms: see steps.h. */
#include "core/steps.h"

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
    pc_call_begin(&st->c, t, what);
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
    pacoll_team_t *t = st->c.t;
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
    rc = pc_eager_wait(&st->c, peer, &data);
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
