/*
 * The ucx transport: a peer on another host, over UCX.  One UCP context
 * and worker serve the whole process (struct pc_ucx_proc, owned by the
 * process context, made by the first team that wants it): its endpoints
 * are kept by peer process, so a new communicator connects only to
 * processes no earlier one reached, and a cluster's network resources are
 * opened once, not per communicator.  A team's channel registers its
 * mailboxes (the team's MPI window memory, mpi_rma.c makes it) and is
 * known to the worker's message handler by a number, which every message
 * names; the worker addresses, numbers and remote keys are exchanged over
 * the team's communicator when the channel is made.
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
    uint32_t chan;      /* the target's channel (struct pc_ucx.id) */
    uint32_t kind;      /* BOX: bytes at disp in the mailbox, then the word
                         * (only ever to a newer value); DATA: zero-copy
                         * bytes at address disp, into the receive buffer the
                         * target advertised to sender, then one more landed
                         * in the sender's done counter (word: its call) */
    uint32_t sender;
    uint32_t pad;
    uint64_t disp;
    uint64_t word_disp; /* the word's place in the mailbox, or PC_UCX_NO_WORD */
    uint64_t word;
} pc_ucx_hdr_t;

/* An endpoint to a peer process, found by its worker's address. */
typedef struct pc_ucx_peer {
    uint64_t hash; /* of the address; 0: a free place */
    size_t len;
    void *addr;
    ucp_ep_h ep;
} pc_ucx_peer_t;

struct pc_ucx_proc {
    ucp_context_h ctx;
    ucp_worker_h worker;
    char failed[160];     /* why UCX did not come up here ("": it did, or not tried) */
    pc_ucx_peer_t *peers; /* open addressing, cap a power of two */
    size_t npeers, cap;
    pc_chan_t **chans;    /* the live channels, by the low bits of their number */
    uint32_t nchans, made;
};

#define PC_UCX_SLOT_BITS 20

struct pc_ucx {
    struct pc_ucx_proc *proc;
    uint32_t id;        /* how messages name this channel */
    ucp_mem_h mbox;
    ucp_ep_h *ep;       /* [size] the process's, kept there (NULL: a peer on shm) */
    ucp_rkey_h *rkey;   /* [size] each peer's mailbox */
    uint64_t *rbase;    /* [size] each peer's mailbox address */
    uint32_t *chan;     /* [size] each peer's number of its channel */
    int nkeys;          /* keys unpacked (the first nkeys of rkey[]) */
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
        ucp_worker_progress(u->proc->worker);
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
    struct pc_ucx_proc *proc = arg;
    pc_ucx_hdr_t h;
    if (header_length != sizeof h)
        return pc_log("ucx: a write with a header of %zu bytes", header_length), UCS_OK;
    memcpy(&h, header, sizeof h);
    /* every channel's messages are complete before it goes (flush_together) */
    uint32_t slot = h.chan & ((1u << PC_UCX_SLOT_BITS) - 1);
    pc_chan_t *ch = slot < proc->nchans ? proc->chans[slot] : NULL;
    if (!ch || ch->ucx->id != h.chan)
        return pc_log("ucx: a write for a communicator that is gone"), UCS_OK;
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
        ucs_status_ptr_t sp = ucp_am_recv_data_nbx(proc->worker, data, to, length, &prm);
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
    pc_ucx_hdr_t hdr = {.chan = u->chan[peer], .kind = kind, .sender = (uint32_t)ch->peers.rank,
                        .disp = disp, .word_disp = word_disp, .word = word};
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
    ucp_worker_progress(u->proc->worker);
    PC_WAIT_UNTIL(&c->w, u->inflight == 0, -1);
    ch->unflushed = 0;
    return quiesce(u);
}

static int call_end(pc_chan_t *ch)
{
    ch->unflushed = 0;
    return quiesce(ch->ucx);
}

static void progress(pc_chan_t *ch) { ucp_worker_progress(ch->ucx->proc->worker); }

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

/* A request UCX started (NULL: it completed at once), progressed to its end. */
static void wait_request(ucp_worker_h worker, ucs_status_ptr_t sp)
{
    if (!sp || UCS_PTR_IS_ERR(sp))
        return;
    while (ucp_request_check_status(sp) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(sp);
}

/* The process's context and worker, its handler set: NULL, or the name of
 * the step that failed with *s. */
static const char *proc_start(struct pc_ucx_proc *proc, size_t neps, ucs_status_t *s)
{
    ucp_config_t *cfg;
    /* PACOLL_UCX_<name> overrides UCX_<name> for pacoll's context only (the
     * MPI library's own UCX keeps UCX_<name>) */
    if ((*s = ucp_config_read("PACOLL", NULL, &cfg)) != UCS_OK)
        return "ucp_config_read";
    ucp_params_t prm = {.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
                        .features = UCP_FEATURE_RMA | UCP_FEATURE_AM,
                        .estimated_num_eps = neps};
    *s = ucp_init(&prm, cfg, &proc->ctx);
    ucp_config_release(cfg);
    if (*s != UCS_OK)
        return proc->ctx = NULL, "ucp_init";
    /* one thread at a time: pacoll runs no collective under MPI_THREAD_MULTIPLE */
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    if ((*s = ucp_worker_create(proc->ctx, &wp, &proc->worker)) != UCS_OK)
        return proc->worker = NULL, "ucp_worker_create";
    ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                               UCP_AM_HANDLER_PARAM_FIELD_CB |
                                               UCP_AM_HANDLER_PARAM_FIELD_ARG |
                                               UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
                                 .id = PC_UCX_AM_WRITE,
                                 .cb = am_write,
                                 .arg = proc,
                                 .flags = UCP_AM_FLAG_WHOLE_MSG};
    if ((*s = ucp_worker_set_am_recv_handler(proc->worker, &hp)) != UCS_OK)
        return "ucp_worker_set_am_recv_handler";
    return NULL;
}

/* The process's UCX: made by the first team that wants it, freed with the
 * process context (pc_ucx_proc_free).  A failure is kept, so that later
 * teams do not try again (each still takes part in the agreement). */
static struct pc_ucx_proc *proc_get(pc_chan_t *ch, char *why, size_t wlen)
{
    struct pc_ucx_proc **pp = ch->peers.ucx_proc, *proc;
    if (!pp)
        return snprintf(why, wlen, "no process context to keep it in"), NULL;
    if (!*pp && !(*pp = calloc(1, sizeof **pp)))
        return snprintf(why, wlen, "out of memory"), NULL;
    proc = *pp;
    if (!proc->failed[0] && !proc->worker) {
        ucs_status_t s;
        const char *step = proc_start(proc, (size_t)ch->peers.size, &s);
        if (step) {
            snprintf(proc->failed, sizeof proc->failed, "%s failed: %s", step,
                     ucs_status_string(s));
            if (proc->worker)
                ucp_worker_destroy(proc->worker), proc->worker = NULL;
            if (proc->ctx)
                ucp_cleanup(proc->ctx), proc->ctx = NULL;
        }
    }
    if (proc->failed[0])
        return snprintf(why, wlen, "%s", proc->failed), NULL;
    return proc;
}

static uint64_t addr_hash(const void *a, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)a)[i]) * 0x100000001b3ull;
    return h ? h : 1;
}

/* The endpoint to the process whose worker has this address: kept, or
 * made now and kept for every later team. */
static ucs_status_t peer_ep(struct pc_ucx_proc *proc, const void *addr, size_t len, ucp_ep_h *ep,
                            int *kept)
{
    *kept = 0;
    if (2 * (proc->npeers + 1) > proc->cap) { /* grow: at most half full */
        size_t cap = proc->cap ? 2 * proc->cap : 64;
        pc_ucx_peer_t *t = calloc(cap, sizeof *t);
        if (!t)
            return UCS_ERR_NO_MEMORY;
        for (size_t i = 0; i < proc->cap; i++) {
            if (!proc->peers[i].hash)
                continue;
            size_t j = proc->peers[i].hash & (cap - 1);
            while (t[j].hash)
                j = (j + 1) & (cap - 1);
            t[j] = proc->peers[i];
        }
        free(proc->peers);
        proc->peers = t, proc->cap = cap;
    }
    uint64_t h = addr_hash(addr, len);
    size_t j = h & (proc->cap - 1);
    for (; proc->peers[j].hash; j = (j + 1) & (proc->cap - 1)) {
        const pc_ucx_peer_t *p = &proc->peers[j];
        if (p->hash == h && p->len == len && memcmp(p->addr, addr, len) == 0)
            return *ep = p->ep, *kept = 1, UCS_OK;
    }
    void *copy = malloc(len);
    if (!copy)
        return UCS_ERR_NO_MEMORY;
    memcpy(copy, addr, len);
    ucp_ep_params_t prm = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                           .address = (const ucp_address_t *)addr};
    ucs_status_t s = ucp_ep_create(proc->worker, &prm, ep);
    if (s != UCS_OK)
        return free(copy), s;
    proc->peers[j] = (pc_ucx_peer_t){.hash = h, .len = len, .addr = copy, .ep = *ep};
    proc->npeers++;
    return UCS_OK;
}

/* The handler finds ch by its number: a free place among the live ones in
 * the low bits, a count of channels made above them. */
static int chan_register(struct pc_ucx_proc *proc, pc_chan_t *ch)
{
    uint32_t slot = 0;
    while (slot < proc->nchans && proc->chans[slot])
        slot++;
    if (slot == proc->nchans) {
        if (slot >> PC_UCX_SLOT_BITS)
            return 0;
        pc_chan_t **t = realloc(proc->chans, (size_t)(slot + 1) * sizeof *t);
        if (!t)
            return 0;
        proc->chans = t, proc->nchans = slot + 1;
    }
    proc->chans[slot] = ch;
    ch->ucx->id = slot | ++proc->made << PC_UCX_SLOT_BITS;
    return 1;
}

static void chan_unregister(struct pc_ucx_proc *proc, const pc_chan_t *ch)
{
    uint32_t slot = ch->ucx->id & ((1u << PC_UCX_SLOT_BITS) - 1);
    if (slot < proc->nchans && proc->chans[slot] == ch)
        proc->chans[slot] = NULL;
}

/* The channel's own UCX state; the endpoints stay with the process. */
static void ucx_free(pc_chan_t *ch)
{
    struct pc_ucx *u = ch->ucx;
    if (!u)
        return;
    for (int i = 0; i < u->nkeys; i++)
        if (u->rkey[i])
            ucp_rkey_destroy(u->rkey[i]);
    if (u->proc) {
        if (u->mbox)
            ucp_mem_unmap(u->proc->ctx, u->mbox);
        chan_unregister(u->proc, ch);
    }
    free(u->ep);
    free(u->rkey);
    free(u->rbase);
    free(u->chan);
    free(u);
    ch->ucx = NULL;
}

void pc_ucx_proc_free(struct pc_ucx_proc **pp)
{
    struct pc_ucx_proc *proc = *pp;
    if (!proc)
        return;
    for (size_t i = 0; i < proc->cap; i++) {
        pc_ucx_peer_t *p = &proc->peers[i];
        if (!p->hash)
            continue;
        /* forced: every team's messages were complete at their targets
         * when the team went (flush_together) */
        ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                   .flags = UCP_EP_CLOSE_FLAG_FORCE};
        wait_request(proc->worker, ucp_ep_close_nbx(p->ep, &prm));
        free(p->addr);
    }
    if (proc->worker)
        ucp_worker_destroy(proc->worker);
    if (proc->ctx)
        ucp_cleanup(proc->ctx);
    free(proc->peers);
    free(proc->chans);
    free(proc);
    *pp = NULL;
}

/* Every message to the team's peers complete at its target, then an
 * agreement that all ranks are there, progressing all along: a peer's
 * flush may need this worker's answers (connection set-up,
 * acknowledgements over tcp).  The team's endpoints only: another
 * communicator's call may be in flight on the same worker. */
static void flush_together(pc_chan_t *ch)
{
    struct pc_ucx *u = ch->ucx;
    ucp_request_param_t prm = {.op_attr_mask = 0};
    for (int r = 0; r < u->nkeys; r++)
        if (u->ep[r])
            wait_request(u->proc->worker, ucp_ep_flush_nbx(u->ep[r], &prm));
    MPI_Request req;
    int done = 0;
    if (PMPI_Ibarrier(ch->peers.comm, &req) == MPI_SUCCESS)
        while (PMPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
            ucp_worker_progress(u->proc->worker);
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
        if (u->ep[r])
            rc = started(u, ucp_get_nbx(u->ep[r], &got[r], sizeof *got, u->rbase[r], u->rkey[r],
                                        &prm), "get");
    if (rc == MPI_SUCCESS)
        rc = quiesce(u);
    flush_together(ch);
    free(got);
    return rc;
}

/* This rank's part: the process's UCX, the mailbox registered, the channel
 * numbered; its worker address and packed mailbox key into *addr / *rkey.
 * 0 after naming the failure in why. */
static int local_init(pc_chan_t *ch, ucp_address_t **addr, size_t *alen, void **rkey, size_t *rlen,
                      char *why, size_t wlen)
{
    struct pc_ucx *u = ch->ucx;
    if (!(u->proc = proc_get(ch, why, wlen)))
        return 0;
    if (!chan_register(u->proc, ch))
        return snprintf(why, wlen, "out of memory"), 0;
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = ch->base,
                               .length = ch->box_bytes};
    ucs_status_t s;
    if ((s = ucp_mem_map(u->proc->ctx, &mp, &u->mbox)) != UCS_OK)
        return u->mbox = NULL,
               snprintf(why, wlen, "ucp_mem_map of the mailbox failed: %s", ucs_status_string(s)), 0;
    if ((s = ucp_rkey_pack(u->proc->ctx, u->mbox, rkey, rlen)) != UCS_OK)
        return snprintf(why, wlen, "ucp_rkey_pack failed: %s", ucs_status_string(s)), 0;
    if ((s = ucp_worker_get_address(u->proc->worker, addr, alen)) != UCS_OK) {
        ucp_rkey_buffer_release(*rkey);
        *rkey = NULL;
        return snprintf(why, wlen, "ucp_worker_get_address failed: %s", ucs_status_string(s)), 0;
    }
    return 1;
}

/* Each rank's blob: its mailbox address, its worker address's length and
 * its channel's number, then the worker address, then the packed key. */
typedef struct {
    uint64_t base, alen, chan;
} pc_ucx_blob_t;

static int connect_all(pc_chan_t *ch, const char *all, const int *off, int *reach, int *kept,
                       char *why, size_t wlen)
{
    struct pc_ucx *u = ch->ucx;
    int n = ch->peers.size;
    u->ep = calloc((size_t)n, sizeof *u->ep);
    u->rkey = calloc((size_t)n, sizeof *u->rkey);
    u->rbase = calloc((size_t)n, sizeof *u->rbase);
    u->chan = calloc((size_t)n, sizeof *u->chan);
    if (!u->ep || !u->rkey || !u->rbase || !u->chan)
        return snprintf(why, wlen, "out of memory"), 0;
    for (int r = 0; r < n; r++, u->nkeys = r) {
        const char *b = all + off[r];
        pc_ucx_blob_t hdr;
        memcpy(&hdr, b, sizeof hdr);
        u->rbase[r] = hdr.base;
        u->chan[r] = (uint32_t)hdr.chan;
        if (pc_on_shm(ch, r)) /* (the shm transport's) */
            continue;
        ++*reach;
        int old;
        ucs_status_t s = peer_ep(u->proc, b + sizeof hdr, hdr.alen, &u->ep[r], &old);
        *kept += old;
        if (s != UCS_OK)
            return snprintf(why, wlen, "no UCX transport reaches rank %d: %s", r,
                            ucs_status_string(s)), 0;
        s = ucp_ep_rkey_unpack(u->ep[r], b + sizeof hdr + hdr.alen, &u->rkey[r]);
        if (s != UCS_OK)
            return u->rkey[r] = NULL,
                   snprintf(why, wlen, "rank %d's mailbox key does not unpack: %s", r,
                            ucs_status_string(s)), 0;
    }
    return 1;
}

size_t pc_ucx_eager(const pc_chan_cfg_t *cfg)
{
    return cfg->net_eager;
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
    pc_ucx_blob_t hdr = {(uint64_t)(uintptr_t)ch->base, alen, ok ? ch->ucx->id : 0};
    int mine = ok ? (int)(sizeof hdr + alen + rlen) : 0;
    char *blob = malloc((size_t)mine + 1), *all = NULL;
    int *len = calloc((size_t)p->size, sizeof *len), *off = calloc((size_t)p->size, sizeof *off);
    if (ok && blob) {
        memcpy(blob, &hdr, sizeof hdr);
        memcpy(blob + sizeof hdr, addr, alen);
        memcpy(blob + sizeof hdr + alen, rkey, rlen);
    }
    if (addr)
        ucp_worker_release_address(ch->ucx->proc->worker, addr);
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
    int reach = 0, kept = 0;
    ok = ok && all_ok && all && rc == MPI_SUCCESS &&
         connect_all(ch, all, off, &reach, &kept, why, wlen);
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
    ch->remote_eager = pc_ucx_eager(p->cfg);
    if (p->cfg->verbose && p->rank == 0)
        pc_log("ucx: %d of the %d processes it reaches through UCX by endpoints kept from an "
               "earlier communicator", kept, reach);
    return wire_up(ch);
}

#else /* no UCX in this build */

size_t pc_ucx_eager(const pc_chan_cfg_t *cfg)
{
    PC_UNUSED(cfg);
    return 0;
}

int pc_ucx_create(pc_chan_t *ch, char *why, size_t wlen)
{
    PC_UNUSED(ch);
    snprintf(why, wlen, "this pacoll was built without UCX");
    return MPI_SUCCESS;
}

void pc_ucx_free(pc_chan_t *ch) { PC_UNUSED(ch); }

void pc_ucx_proc_free(struct pc_ucx_proc **pp) { PC_UNUSED(pp); }

#endif
