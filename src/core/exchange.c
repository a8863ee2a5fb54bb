/* The k-port Direct exchange engine: see exchange.h. */
#include "core/exchange.h"

#include <math.h>

static int expose_receives(pc_call_t *c, const pc_layout_t *x)
{
    pacoll_team_t *t = c->t;
    int any = 0, any_window = 0;
    for (int src = 0; src < t->size; src++) {
        size_t n = x->recv_count(x, src);
        if (src != t->rank && n > 0 && !pc_eager_fits(c, src, n)) {
            any = 1;
            any_window |= pc_needs_window(c, src);
        }
    }
    if (!any)
        return MPI_SUCCESS;
    int rc = pc_expose_begin(c, x->a->rbuf, x->recv_span, any_window);
    for (int i = 1; i < t->size && rc == MPI_SUCCESS; i++) {
        int src = (t->rank - i + t->size) % t->size;
        size_t n = x->recv_count(x, src);
        if (n > 0 && !pc_eager_fits(c, src, n))
            rc = pc_advertise(c, src, x->a->rbuf + x->recv_disp(x, src), n);
    }
    return rc == MPI_SUCCESS ? pc_expose_end(c) : rc;
}

static int send_all(pc_call_t *c, const pc_layout_t *x)
{
    pacoll_team_t *t = c->t;
    for (int i = 1; i < t->size; i++) {
        int dst = (t->rank + i) % t->size;
        size_t n = x->send_count(x, dst);
        const char *src = x->a->sbuf + x->send_disp(x, dst);
        int rc = MPI_SUCCESS;
        if (n == 0)
            continue;
        if (pc_eager_fits(c, dst, n)) {
            rc = pc_eager_put(c, dst, src, n);
        } else {
            pc_remote_t rem;
            rc = pc_adv_wait(c, dst, &rem); /* Direct, not PAP: wait in order */
            if (rc == MPI_SUCCESS)
                rc = pc_zput(c, dst, &rem, 0, src, n);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return pc_flush(c);
}

/* Polls every incoming block, taking them in whatever order they land. */
static int receive_all(pc_call_t *c, const pc_layout_t *x)
{
    pacoll_team_t *t = c->t;
    int left = 0, last = -1;
    char *got = calloc((size_t)t->size, 1);
    if (!got)
        return MPI_ERR_NO_MEM;
    for (int src = 0; src < t->size; src++) {
        got[src] = src == t->rank || x->recv_count(x, src) == 0;
        left += !got[src];
    }
    /* Data from every peer: every peer is in this call (flow credit). */
    if (left == t->size - 1)
        pc_call_all_arrived(c);
    while (left > 0) {
        for (int i = 1; i < t->size; i++) {
            int src = (t->rank - i + t->size) % t->size;
            size_t n = x->recv_count(x, src);
            if (got[src])
                continue;
            if (pc_eager_fits(c, src, n)) {
                const void *data = pc_eager_poll(c, src);
                if (!data)
                    continue;
                pc_copy(x->a->rbuf + x->recv_disp(x, src), data, n);
            } else if (!pc_done_poll(c, src, 1)) {
                continue;
            }
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

int pc_direct_exchange(pacoll_team_t *t, const char *what, const pc_layout_t *x)
{
    pc_call_t c;
    pc_call_begin(&c, t, what);
    /* Advertise first: senders of zero-copy blocks wait for it.  Then copy
     * my own block while their writes fly. */
    int rc = expose_receives(&c, x);
    size_t own = x->recv_count(x, t->rank);
    if (own > 0 && x->a->rbuf)
        pc_copy(x->a->rbuf + x->recv_disp(x, t->rank), x->a->sbuf + x->send_disp(x, t->rank), own);
    if (rc == MPI_SUCCESS)
        rc = send_all(&c, x);
    if (rc == MPI_SUCCESS)
        rc = receive_all(&c, x);
    int rc2 = pc_call_end(&c);
    return rc != MPI_SUCCESS ? rc : rc2;
}

double pc_direct_cost(const pc_cost_ctx_t *ctx, size_t m)
{
    double steps = ceil((double)(ctx->p - 1) / (double)(ctx->ports > 0 ? ctx->ports : 1));
    return steps * (ctx->alpha + (double)m * ctx->beta);
}
