/*
 * The ucx transport: a peer on another host, over UCX.  The mailboxes are
 * the team's MPI window memory (mpi_rma.c makes it), registered once with
 * ucp_mem_map; the worker addresses and remote keys are exchanged over the
 * team's communicator when the channel is made.
 *
 * A mailbox write is one active message that the target's worker applies
 * when pacoll's wait loop progresses it: the bytes into the target's
 * mailbox, then one word (a flag, a call number, a done counter) stored
 * with release order.  So an eager message with its flag, or an
 * advertisement with its call number, is one message on the wire, where a
 * put, a fence and a put of the flag would be two, and four over a fabric
 * without hardware RMA (TCP), whose emulated puts are each acknowledged.
 * A word only ever grows (every one carries its call number in its high
 * bits), so a word that arrives after a newer one is dropped: nothing
 * depends on the order of two messages.  Sources are completed locally at
 * the end of each call (they may then be reused).  Zero-copy data is a
 * message too, received straight into the buffer the target advertised for
 * that call (by rendezvous when large), and the target counts it in the
 * sender's done counter: no window, no flush, no flag after.
 *
 * Without UCX in the build (PACOLL_HAVE_UCX undefined) only
 * pc_ucx_create is here, and it declines: the channel keeps mpi_rma.
 */
#include "channel/transport.h"

#ifdef PACOLL_HAVE_UCX

#include <ucp/api/ucp.h>

/* Headers of messages in flight (a send may read its header until it
 * completes): a ring, completed whole when it wraps. */
#define PC_UCX_HDRS 1024
#define PC_UCX_AM_WRITE 1 /* the active message that writes a mailbox (the worker is pacoll's own) */
#define PC_UCX_NO_WORD UINT64_MAX

enum { PC_UCX_BOX, PC_UCX_DATA };

typedef struct pc_ucx_hdr {
    uint32_t kind;      /* BOX: bytes at disp in the mailbox, then the word
                         * (only ever to a newer value); DATA: zero-copy
                         * bytes at address disp, into the receive buffer the
                         * target advertised to sender, then one more landed
                         * in the sender's done counter (word: its call) */
    uint32_t sender;
    uint64_t disp;
    uint64_t word_disp; /* the word's place in the mailbox, or PC_UCX_NO_WORD */
    uint64_t word;
} pc_ucx_hdr_t;

struct pc_ucx {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_mem_h mbox;
    ucp_ep_h *ep;       /* [size] */
    ucp_rkey_h *rkey;   /* [size] each peer's mailbox */
    uint64_t *rbase;    /* [size] each peer's mailbox address */
    int neps;           /* endpoints made (the first neps of ep[]) */
    long inflight;      /* sends and gets not yet complete locally */
    ucs_status_t err;   /* the first failed completion */
    unsigned nhdrs;
    pc_ucx_hdr_t hdrs[PC_UCX_HDRS];
};

static void done_cb(void *req, ucs_status_t status, void *user)
{
    struct pc_ucx *u = user;
    if (status != UCS_OK && u->err == UCS_OK)
        u->err = status;
    u->inflight--;
    ucp_request_free(req);
}

static int started(struct pc_ucx *u, ucs_status_ptr_t sp, const char *what)
{
    if (sp == NULL)
        return MPI_SUCCESS;
    if (UCS_PTR_IS_ERR(sp)) {
        pc_log("ucx: %s failed: %s", what, ucs_status_string(UCS_PTR_STATUS(sp)));
        return MPI_ERR_OTHER;
    }
    u->inflight++;
    return MPI_SUCCESS;
}

/* Every send and get issued so far complete locally. */
static int quiesce(struct pc_ucx *u)
{
    while (u->inflight > 0)
        ucp_worker_progress(u->worker);
    u->nhdrs = 0;
    if (u->err != UCS_OK) {
        pc_log("ucx: a send failed: %s", ucs_status_string(u->err));
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

/* A word of my mailbox, as a message asks: only ever to a newer value. */
static void store_word(pc_chan_t *ch, uint64_t disp, uint64_t v)
{
    if (disp == PC_UCX_NO_WORD)
        return;
    uint64_t *w = (uint64_t *)(void *)(ch->base + disp);
    if (v > pc_load_acq(w))
        pc_store_rel(w, v);
}

static int in_mailbox(const pc_chan_t *ch, uint64_t disp, size_t n)
{
    return disp <= ch->box_bytes && n <= ch->box_bytes - disp;
}

/* A message has landed: its word, or one more zero-copy write counted in
 * the done counter of its call (the count is the target's, so the order in
 * which a call's writes land does not matter). */
static void landed(pc_chan_t *ch, const pc_ucx_hdr_t *h)
{
    if (h->kind == PC_UCX_BOX) {
        store_word(ch, h->word_disp, h->word);
        return;
    }
    uint64_t *w = (uint64_t *)(void *)(ch->base + h->word_disp);
    uint64_t call = h->word >> PC_DONE_SHIFT, v = pc_load_acq(w);
    pc_store_rel(w, v >> PC_DONE_SHIFT == call ? v + 1 : call << PC_DONE_SHIFT | 1);
}

/* Where a message's bytes go, or NULL (said why) when they would fall
 * outside the mailbox or the receive buffer advertised for that call. */
static char *target_of(pc_chan_t *ch, const pc_ucx_hdr_t *h, size_t n)
{
    int bad = h->sender >= (uint32_t)ch->peers.size;
    if (h->word_disp == PC_UCX_NO_WORD)
        bad |= h->kind == PC_UCX_DATA;
    else
        bad |= !in_mailbox(ch, h->word_disp, sizeof h->word);
    if (bad) {
        pc_log("ucx: a message names no word of the mailbox");
        return NULL;
    }
    if (h->kind == PC_UCX_BOX) {
        if (in_mailbox(ch, h->disp, n))
            return ch->base + h->disp;
    } else {
        const uint64_t *f = ch->advbuf[h->sender]; /* {addr, len, pid, call} */
        if (f[3] == h->word >> PC_DONE_SHIFT && h->disp >= f[0] && n <= f[1] &&
            h->disp - f[0] <= f[1] - n)
            return (char *)(uintptr_t)h->disp;
    }
    pc_log("ucx: a write from rank %u of %zu bytes falls outside %s", h->sender, n,
           h->kind == PC_UCX_BOX ? "the mailbox" : "the receive buffer advertised to it");
    return NULL;
}

typedef struct { /* a message whose bytes come by rendezvous */
    pc_chan_t *ch;
    pc_ucx_hdr_t h;
} pc_ucx_rndv_t;

static void rndv_done(void *req, ucs_status_t status, size_t length, void *user)
{
    pc_ucx_rndv_t *r = user;
    (void)length;
    if (status == UCS_OK)
        landed(r->ch, &r->h);
    else
        pc_log("ucx: a write's data was lost: %s", ucs_status_string(status));
    free(r);
    ucp_request_free(req);
}

/* The target's side of a write, run by its worker's progress. */
static ucs_status_t am_write(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param)
{
    pc_chan_t *ch = arg;
    pc_ucx_hdr_t h;
    if (header_length != sizeof h)
        return pc_log("ucx: a write with a header of %zu bytes", header_length), UCS_OK;
    memcpy(&h, header, sizeof h);
    char *to = target_of(ch, &h, length);
    if (!to)
        return UCS_OK;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        pc_ucx_rndv_t *r = malloc(sizeof *r);
        if (!r)
            return pc_log("ucx: out of memory for a write's data"), UCS_OK;
        *r = (pc_ucx_rndv_t){.ch = ch, .h = h};
        ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                   UCP_OP_ATTR_FIELD_USER_DATA,
                                   .cb.recv_am = rndv_done,
                                   .user_data = r};
        ucs_status_ptr_t sp = ucp_am_recv_data_nbx(ch->ucx->worker, data, to, length, &prm);
        if (UCS_PTR_IS_ERR(sp)) {
            pc_log("ucx: a write's data: %s", ucs_status_string(UCS_PTR_STATUS(sp)));
            free(r);
        } else if (sp == NULL) {
            landed(ch, &h);
            free(r);
        }
        return UCS_OK;
    }
    if (length)
        memcpy(to, data, length);
    landed(ch, &h);
    return UCS_OK;
}

/* n bytes from src to peer, then the word: one message (BOX: disp in the
 * mailbox; DATA: an address in the receive buffer peer advertised).  src
 * is read until the call ends. */
static int send_write(pc_chan_t *ch, int peer, uint32_t kind, uint64_t disp, const void *src,
                      size_t n, uint64_t word_disp, uint64_t word)
{
    struct pc_ucx *u = ch->ucx;
    pc_ucx_hdr_t hdr = {.kind = kind, .sender = (uint32_t)ch->peers.rank, .disp = disp,
                        .word_disp = word_disp, .word = word};
    if (peer == ch->peers.rank) { /* to myself */
        char *to = target_of(ch, &hdr, n);
        if (!to)
            return MPI_ERR_INTERN;
        if (n)
            memcpy(to, src, n);
        landed(ch, &hdr);
        return MPI_SUCCESS;
    }
    if (u->nhdrs == PC_UCX_HDRS) {
        int rc = quiesce(u);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    pc_ucx_hdr_t *h = &u->hdrs[u->nhdrs++];
    *h = hdr;
    /* Mailbox writes, and zero-copy data up to PACOLL_ZCOPY_EAGER, go eagerly:
     * one message, applied as it arrives (the target advertised its buffer
     * already; a rendezvous would be a second handshake).  Larger data goes
     * as UCX chooses, by rendezvous straight into the buffer from its
     * threshold up. */
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA |
                                               UCP_OP_ATTR_FIELD_FLAGS,
                               .cb.send = done_cb,
                               .user_data = u,
                               .flags = kind == PC_UCX_BOX || n <= ch->peers.cfg->zcopy_eager
                                            ? UCP_AM_SEND_FLAG_EAGER
                                            : 0};
    ucs_status_ptr_t sp = ucp_am_send_nbx(u->ep[peer], PC_UCX_AM_WRITE, h, sizeof *h, src, n, &prm);
    if (sp != NULL && !UCS_PTR_IS_ERR(sp))
        ch->unflushed = 1;
    return started(u, sp, "write");
}

static int write_box(pc_chan_t *ch, int peer, size_t disp, const void *src, size_t n,
                     uint64_t word_disp, uint64_t word)
{
    return send_write(ch, peer, PC_UCX_BOX, disp, src, n, word_disp, word);
}

static size_t flag_disp(int sender, int gen)
{
    return pc_entry_off(sender) + offsetof(pc_entry_t, flag) + (size_t)gen * 8;
}

static int eager_put(pc_call_t *c, int peer, int gen, const void *src, size_t n)
{
    pc_chan_t *ch = c->ch;
    int me = ch->peers.rank;
    return write_box(ch, peer, pc_slot_off(ch->peers.size, me, gen, ch->slot), src, n,
                     flag_disp(me, gen), pc_eager_flag(c->seq, n));
}

static const void *eager_poll(pc_call_t *c, int peer, int gen, uint64_t *flag)
{
    if (!pc_flag_of_call(*flag = pc_load_acq(&pc_win_entry(c->ch, peer)->flag[gen]), c->seq))
        return NULL;
    return pc_win_slot(c->ch, peer, gen);
}

/* The address, its length and process, then the call number that makes
 * them valid: one message. */
static int advertise(pc_call_t *c, int peer, uint64_t *f)
{
    pc_chan_t *ch = c->ch;
    size_t at = pc_entry_off(ch->peers.rank);
    /* f is the channel's advbuf[peer], kept until the call ends */
    return write_box(ch, peer, at + offsetof(pc_entry_t, adv_addr), f, 3 * sizeof *f,
                     at + offsetof(pc_entry_t, adv_seq), c->seq);
}

/* Zero-copy: the data and one more landed for the done counter, one
 * message; the target counts what has landed (no flush, no flag after). */
static int zput(pc_call_t *c, int peer, uint64_t addr, uint64_t pid, const void *src, size_t n,
                uint64_t done)
{
    pc_chan_t *ch = c->ch;
    PC_UNUSED(pid);
    return send_write(ch, peer, PC_UCX_DATA, addr, src, n,
                      pc_entry_off(ch->peers.rank) + offsetof(pc_entry_t, done), done);
}

static const pc_entry_t *adv_poll(pc_call_t *c, int peer)
{
    const pc_entry_t *e = pc_win_entry(c->ch, peer);
    return pc_load_acq(&e->adv_seq) == c->seq ? e : NULL;
}

static int done_poll(pc_call_t *c, int peer, uint64_t want)
{
    return pc_load_acq(&pc_win_entry(c->ch, peer)->done) >= want;
}

/* Every write issued so far complete locally, its source reusable (an
 * algorithm may rewrite a buffer after pc_flush); waits in the wait layer,
 * whose polls progress the worker. */
static int flush(pc_call_t *c)
{
    pc_chan_t *ch = c->ch;
    struct pc_ucx *u = ch->ucx;
    ucp_worker_progress(u->worker);
    PC_WAIT_UNTIL(&c->w, u->inflight == 0, -1);
    ch->unflushed = 0;
    return quiesce(u);
}

static int call_end(pc_chan_t *ch)
{
    ch->unflushed = 0;
    return quiesce(ch->ucx);
}

static void progress(pc_chan_t *ch) { ucp_worker_progress(ch->ucx->worker); }

static const pc_transport_t pc_transport_ucx = {
    .name = "ucx",
    .eager_put = eager_put,
    .eager_poll = eager_poll,
    .advertise = advertise,
    .adv_poll = adv_poll,
    .zput = zput,
    .zput_without_window = 1,
    .done_poll = done_poll,
    /* a peer's progress word by MPI_Get on the window the mailboxes are:
     * the MPI library answers it from any MPI call, where UCX's software
     * RMA would wait for the peer to progress this worker */
    .read_progress = pc_rma_read_progress,
    .read_progress_start = pc_rma_read_progress_start,
    .read_progress_end = pc_rma_read_progress_end,
    /* (a peer on this host without cross-memory copy: shm.c's zput) */
    .write_data = pc_rma_write_data,
    .complete_data = pc_rma_complete_data,
    /* no flag is ever pending: each message carries its own word */
    .flush = flush,
    .call_end = call_end,
    .progress = progress,
};

/* ------------------------------------------------------------- set-up */

static void ucx_free(pc_chan_t *ch)
{
    struct pc_ucx *u = ch->ucx;
    if (!u)
        return;
    for (int i = 0; i < u->neps; i++) {
        if (u->rkey && u->rkey[i])
            ucp_rkey_destroy(u->rkey[i]);
        /* forced: every put was awaited by its target within its call */
        ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                   .flags = UCP_EP_CLOSE_FLAG_FORCE};
        ucs_status_ptr_t sp = u->ep[i] ? ucp_ep_close_nbx(u->ep[i], &prm) : NULL;
        if (sp && !UCS_PTR_IS_ERR(sp)) {
            while (ucp_request_check_status(sp) == UCS_INPROGRESS)
                ucp_worker_progress(u->worker);
            ucp_request_free(sp);
        }
    }
    if (u->mbox)
        ucp_mem_unmap(u->ctx, u->mbox);
    if (u->worker)
        ucp_worker_destroy(u->worker);
    if (u->ctx)
        ucp_cleanup(u->ctx);
    free(u->ep);
    free(u->rkey);
    free(u->rbase);
    free(u);
    ch->ucx = NULL;
}

/* Every operation complete at its target, then an agreement that all
 * ranks are there, progressing all along: a peer's flush may need this
 * worker's answers (connection set-up, acknowledgements over tcp). */
static void flush_together(pc_chan_t *ch)
{
    struct pc_ucx *u = ch->ucx;
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucs_status_ptr_t sp = ucp_worker_flush_nbx(u->worker, &prm);
    if (sp && !UCS_PTR_IS_ERR(sp)) {
        while (ucp_request_check_status(sp) == UCS_INPROGRESS)
            ucp_worker_progress(u->worker);
        ucp_request_free(sp);
    }
    MPI_Request req;
    int done = 0;
    if (PMPI_Ibarrier(ch->peers.comm, &req) == MPI_SUCCESS)
        while (PMPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
            ucp_worker_progress(u->worker);
}

void pc_ucx_free(pc_chan_t *ch)
{
    if (!ch->ucx)
        return;
    quiesce(ch->ucx);
    flush_together(ch);
    ucx_free(ch);
}

/* Connects every endpoint now, while every rank progresses: a connection
 * made lazily inside a call would need the peer's progress, and the peer
 * may by then be in an MPI call of the program's. */
static int wire_up(pc_chan_t *ch)
{
    struct pc_ucx *u = ch->ucx;
    uint64_t *got = calloc((size_t)ch->peers.size, sizeof *got);
    int rc = got ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.send = done_cb,
                               .user_data = u};
    for (int r = 0; r < ch->peers.size && rc == MPI_SUCCESS; r++)
        rc = started(u, ucp_get_nbx(u->ep[r], &got[r], sizeof *got, u->rbase[r], u->rkey[r], &prm),
                     "get");
    if (rc == MPI_SUCCESS)
        rc = quiesce(u);
    flush_together(ch);
    free(got);
    return rc;
}

/* This rank's UCX objects: context, worker, the mailbox registered; its
 * worker address and packed mailbox key into *addr / *rkey.  NULL after
 * naming the failure in why. */
static int local_init(pc_chan_t *ch, ucp_address_t **addr, size_t *alen, void **rkey, size_t *rlen,
                      char *why, size_t wlen)
{
    struct pc_ucx *u = ch->ucx;
    ucp_config_t *cfg;
    /* PACOLL_UCX_<name> overrides UCX_<name> for pacoll's context only (the
     * MPI library's own UCX keeps UCX_<name>) */
    ucs_status_t s = ucp_config_read("PACOLL", NULL, &cfg);
    if (s != UCS_OK)
        return snprintf(why, wlen, "ucp_config_read failed: %s", ucs_status_string(s)), 0;
    ucp_params_t prm = {.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
                        .features = UCP_FEATURE_RMA | UCP_FEATURE_AM,
                        .estimated_num_eps = (size_t)ch->peers.size};
    s = ucp_init(&prm, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (s != UCS_OK)
        return u->ctx = NULL, snprintf(why, wlen, "ucp_init failed: %s", ucs_status_string(s)), 0;
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    if ((s = ucp_worker_create(u->ctx, &wp, &u->worker)) != UCS_OK)
        return u->worker = NULL,
               snprintf(why, wlen, "ucp_worker_create failed: %s", ucs_status_string(s)), 0;
    ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                               UCP_AM_HANDLER_PARAM_FIELD_CB |
                                               UCP_AM_HANDLER_PARAM_FIELD_ARG |
                                               UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
                                 .id = PC_UCX_AM_WRITE,
                                 .cb = am_write,
                                 .arg = ch,
                                 .flags = UCP_AM_FLAG_WHOLE_MSG};
    if ((s = ucp_worker_set_am_recv_handler(u->worker, &hp)) != UCS_OK)
        return snprintf(why, wlen, "ucp_worker_set_am_recv_handler failed: %s",
                        ucs_status_string(s)), 0;
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = ch->base,
                               .length = ch->box_bytes};
    if ((s = ucp_mem_map(u->ctx, &mp, &u->mbox)) != UCS_OK)
        return u->mbox = NULL,
               snprintf(why, wlen, "ucp_mem_map of the mailbox failed: %s", ucs_status_string(s)), 0;
    if ((s = ucp_rkey_pack(u->ctx, u->mbox, rkey, rlen)) != UCS_OK)
        return snprintf(why, wlen, "ucp_rkey_pack failed: %s", ucs_status_string(s)), 0;
    if ((s = ucp_worker_get_address(u->worker, addr, alen)) != UCS_OK) {
        ucp_rkey_buffer_release(*rkey);
        *rkey = NULL;
        return snprintf(why, wlen, "ucp_worker_get_address failed: %s", ucs_status_string(s)), 0;
    }
    return 1;
}

/* Each rank's blob: its mailbox address, then its worker address, then its
 * packed mailbox key. */
static int connect_all(pc_chan_t *ch, const char *all, const int *len, const int *off, char *why,
                       size_t wlen)
{
    struct pc_ucx *u = ch->ucx;
    int n = ch->peers.size;
    u->ep = calloc((size_t)n, sizeof *u->ep);
    u->rkey = calloc((size_t)n, sizeof *u->rkey);
    u->rbase = calloc((size_t)n, sizeof *u->rbase);
    if (!u->ep || !u->rkey || !u->rbase)
        return snprintf(why, wlen, "out of memory"), 0;
    for (int r = 0; r < n; r++, u->neps = r) {
        const char *b = all + off[r];
        uint64_t hdr[2]; /* mailbox address, worker address length */
        memcpy(hdr, b, sizeof hdr);
        u->rbase[r] = hdr[0];
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                              .address = (const ucp_address_t *)(b + sizeof hdr)};
        ucs_status_t s = ucp_ep_create(u->worker, &ep, &u->ep[r]);
        if (s != UCS_OK)
            return u->ep[r] = NULL,
                   snprintf(why, wlen, "no UCX transport reaches rank %d: %s", r,
                            ucs_status_string(s)), 0;
        s = ucp_ep_rkey_unpack(u->ep[r], b + sizeof hdr + hdr[1], &u->rkey[r]);
        if (s != UCS_OK)
            return u->rkey[r] = NULL,
                   snprintf(why, wlen, "rank %d's mailbox key does not unpack: %s", r,
                            ucs_status_string(s)), 0;
        (void)len;
    }
    return 1;
}

int pc_ucx_create(pc_chan_t *ch, char *why, size_t wlen)
{
    if (ch->peers.size < 2)
        return snprintf(why, wlen, "a team of one rank"), MPI_SUCCESS;
    const pc_peers_t *p = &ch->peers;
    ucp_address_t *addr = NULL;
    void *rkey = NULL;
    size_t alen = 0, rlen = 0;
    int ok = (ch->ucx = calloc(1, sizeof *ch->ucx)) != NULL;
    if (!ok)
        snprintf(why, wlen, "out of memory");
    else
        ok = local_init(ch, &addr, &alen, &rkey, &rlen, why, wlen);
    /* every rank takes part in every step below, whatever its own state */
    uint64_t hdr[2] = {(uint64_t)(uintptr_t)ch->base, alen};
    int mine = ok ? (int)(sizeof hdr + alen + rlen) : 0;
    char *blob = malloc((size_t)mine + 1), *all = NULL;
    int *len = calloc((size_t)p->size, sizeof *len), *off = calloc((size_t)p->size, sizeof *off);
    if (ok && blob) {
        memcpy(blob, hdr, sizeof hdr);
        memcpy(blob + sizeof hdr, addr, alen);
        memcpy(blob + sizeof hdr + alen, rkey, rlen);
    }
    if (addr)
        ucp_worker_release_address(ch->ucx->worker, addr);
    if (rkey)
        ucp_rkey_buffer_release(rkey);
    int rc = PMPI_Allgather(&mine, 1, MPI_INT, len, 1, MPI_INT, p->comm);
    size_t total = 0;
    for (int r = 0; r < p->size && len && off; r++)
        off[r] = (int)total, total += (size_t)len[r];
    int all_ok = 1;
    for (int r = 0; r < p->size && len; r++)
        all_ok &= len[r] > 0;
    if (rc == MPI_SUCCESS && all_ok && blob && len && off && (all = malloc(total)) != NULL)
        rc = PMPI_Allgatherv(blob, mine, MPI_BYTE, all, len, off, MPI_BYTE, p->comm);
    if (ok && !all_ok)
        snprintf(why, wlen, "UCX did not initialize on another rank");
    ok = ok && all_ok && all && rc == MPI_SUCCESS && connect_all(ch, all, len, off, why, wlen);
    int every = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, p->comm);
    if (ok && !every)
        snprintf(why, wlen, "UCX could not reach every rank from another rank");
    free(blob), free(all), free(len), free(off);
    if (rc != MPI_SUCCESS || !every) {
        ucx_free(ch);
        return rc;
    }
    ch->remote = &pc_transport_ucx;
    return wire_up(ch);
}

#else /* no UCX in this build */

int pc_ucx_create(pc_chan_t *ch, char *why, size_t wlen)
{
    PC_UNUSED(ch);
    snprintf(why, wlen, "this pacoll was built without UCX");
    return MPI_SUCCESS;
}

void pc_ucx_free(pc_chan_t *ch) { PC_UNUSED(ch); }

#endif
