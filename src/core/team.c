/* Teams: per-communicator state and the node layout (see team.h). */
#include "core/team.h"

#include <unistd.h>

#include "core/context.h"
#include "core/nodes.h"
#include "base/fiber.h"

/* Team creation's allgather of n bytes per rank: the platform's (the MPI
 * library's own on the real one). */
static int setup_allgather(const void *mine, size_t n, void *all, MPI_Comm comm)
{
    return PC_PLATFORM.setup_allgather(mine, n, all, comm);
}

/* Each rank's (host, virtual node) key; nodes are numbered in the order
 * their first rank appears in the communicator, so node 0 holds rank 0
 * whatever the placement. */
static int compute_layout(pacoll_team_t *t)
{
    int world, host_key;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    PMPI_Allreduce(&world, &host_key, 1, MPI_INT, MPI_MIN, t->host_comm);
    int key[2] = {host_key, pc_virtual_node(t->cfg.node_pattern, t->cfg.node_pattern_len, world)};
    int *keys = malloc(2 * (size_t)t->size * sizeof *keys);
    t->node_of = malloc((size_t)t->size * sizeof(int));
    t->local_of = malloc((size_t)t->size * sizeof(int));
    t->host_of = malloc((size_t)t->size * sizeof(int));
    t->node_first = calloc((size_t)t->size + 1, sizeof(int));
    t->node_ranks = malloc((size_t)t->size * sizeof(int));
    if (!keys || !t->node_of || !t->local_of || !t->host_of || !t->node_first || !t->node_ranks) {
        free(keys);
        return MPI_ERR_NO_MEM;
    }
    int rc = setup_allgather(key, sizeof key, keys, t->comm);
    if (rc != MPI_SUCCESS) {
        free(keys);
        return rc;
    }
    pc_nodes_t l = {.size = t->size, .node_of = t->node_of, .local_of = t->local_of,
                    .node_first = t->node_first, .node_ranks = t->node_ranks};
    pc_nodes_make(&l, keys);
    t->nnodes = l.nnodes, t->ppn_max = l.ppn_max;
    for (int r = 0; r < t->size; r++)
        t->host_of[r] = -1;
    free(keys);
    /* Where each rank of my host sits in host_comm (asked, not assumed:
     * SMPI's split_type does not order by key). */
    int *members = malloc((size_t)t->host_size * sizeof *members);
    if (!members)
        return MPI_ERR_NO_MEM;
    rc = setup_allgather(&t->rank, sizeof t->rank, members, t->host_comm);
    for (int h = 0; h < t->host_size && rc == MPI_SUCCESS; h++)
        t->host_of[members[h]] = h;
    free(members);
    if (rc != MPI_SUCCESS)
        return rc;
    t->node = t->node_of[t->rank];
    t->local_rank = t->local_of[t->rank];
    t->local_size = t->node_first[t->node + 1] - t->node_first[t->node];
    return MPI_SUCCESS;
}

static int make_comms(pacoll_team_t *t)
{
    int rc = PMPI_Comm_split(t->comm, t->node, t->local_rank, &t->node_comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split(t->comm, t->local_rank == 0 ? 0 : MPI_UNDEFINED, t->node,
                             &t->leader_comm);
    return rc;
}

int pc_team_consecutive(const pacoll_team_t *t)
{
    for (int r = 0; r < t->size; r++)
        if (t->node_ranks[r] != r)
            return 0;
    return 1;
}

/* The channel's hooks into the verdict (channel/peers.h). */
static int stop_hook(void *owner) { return pc_verdict_poll(owner) != MPI_SUCCESS; }
static void note_hook(void *owner, const char *msg) { pc_verdict_note(owner, "%s", msg); }
/* A wait on a fiber gives the core back to whoever resumed it. */
static int yield_hook(void *owner)
{
    PC_UNUSED(owner);
    pc_context_t *ctx = pc_context_now();
    if (!ctx || !ctx->fiber_now)
        return 0;
    pc_fiber_yield(ctx->fiber_now);
    return 1;
}

/* What the channel and the node segment may see of the team. */
static void fill_peers(pacoll_team_t *t)
{
    pc_context_t *ctx = pc_context_now();
    t->peers = (pc_peers_t){
        .comm = t->comm,
        .user = t->user,
        .rank = t->rank,
        .size = t->size,
        .host_comm = t->host_comm,
        .host_rank = t->host_rank,
        .host_size = t->host_size,
        .host_of = t->host_of,
        .node_of = t->node_of,
        .oversubscribed = t->oversubscribed,
        .node_comm = t->node_comm,
        .nnodes = t->nnodes,
        .local_rank = t->local_rank,
        .local_size = t->local_size,
        .local_ranks = t->node_ranks + t->node_first[t->node],
        .cfg = &t->cfg.chan,
        .ucx_proc = ctx ? &ctx->ucx : NULL,
        .owner = t,
        /* the verdict's probe costs a simulated run modelled time, and the
         * simulated programs are legal ones: no guard there */
        .stop = PC_PLATFORM.guards ? stop_hook : NULL,
        .note = note_hook,
        .yield = yield_hook,
    };
}

static int team_init(pacoll_team_t *t, MPI_Comm comm)
{
    t->user = comm;
    t->node_comm = t->leader_comm = t->host_comm = MPI_COMM_NULL;
    t->nic = -1;
    pc_config_read(&t->cfg);
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        t->last_algo[c] = -1;
        t->comm_choice[c] = pc_comm_choice(comm, (pacoll_coll_t)c);
    }
    /* The set-up's collectives wait inside the MPI library, which has no
     * deadline: with the opt-in one, the ranks first meet in a barrier the
     * deadline applies to, so a rank late for the first call is treated as
     * one late for any other. */
    int rc = MPI_SUCCESS;
    if (PC_PLATFORM.guards && t->cfg.chan.timeout > 0)
        rc = pc_wait_arrival(comm, t->cfg.chan.timeout,
                             "the first pacoll call on a communicator (setting up)");
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_dup(comm, &t->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    /* pacoll's own traffic reports errors to pacoll, which raises them on
     * the user's communicator with what went wrong */
    if (PC_PLATFORM.guards)
        PMPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(t->comm, &t->rank);
    PMPI_Comm_size(t->comm, &t->size);
    rc = PMPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &t->host_comm);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(t->host_comm, &t->host_rank);
    PMPI_Comm_size(t->host_comm, &t->host_size);
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    t->thread_multiple = level == MPI_THREAD_MULTIPLE;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    t->oversubscribed = cores < 1 || t->host_size > cores;
    rc = compute_layout(t);
    if (rc == MPI_SUCCESS)
        rc = make_comms(t);
    if (rc != MPI_SUCCESS)
        return rc;
    fill_peers(t);
    /* Waits (the verdict's settling) may run before the channel is made. */
    t->chan.peers = t->peers;
    return MPI_SUCCESS;
}

int pc_team_ready(pacoll_team_t *t)
{
    if (t->ready)
        return MPI_SUCCESS;
    if (t->no_room) /* agreed once: not asked again at every call */
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS, room = 1;
    /* A channel made at a later call than the team's first (an algorithm
     * named only then): its set-up waits inside the MPI library too. */
    if (PC_PLATFORM.guards && t->cfg.chan.timeout > 0 && t->verdict.ncall > 0)
        rc = pc_wait_arrival(t->comm, t->cfg.chan.timeout,
                             "a pacoll call making its channel (setting up)");
    if (rc == MPI_SUCCESS)
        rc = pc_chan_create(&t->chan, &t->peers, pc_seg_first_room(&t->peers), &room);
    if (rc == MPI_SUCCESS && !room) {
        t->no_room = 1;
        rc = MPI_ERR_NO_MEM;
        if (t->cfg.chan.verbose && t->rank == 0)
            pc_log("team of %d ranks: no room for pacoll's channel on some host: its calls go to "
                   "the MPI library", t->size);
    } else if (rc == MPI_SUCCESS)
        rc = pc_seg_create(&t->seg, &t->peers);
    if (rc != MPI_SUCCESS) { /* as if never tried: a later call tries again */
        pc_seg_free(&t->seg);
        pc_chan_free(&t->chan);
        t->chan = (pc_chan_t){.peers = t->peers};
        t->seg = (pc_seg_t){0};
        return rc;
    }
    t->ready = 1;
    char tr[16];
    if (t->cfg.chan.verbose && t->rank == 0)
        pc_log("team of %d rank%s: channel made, transport %s", t->size, t->size == 1 ? "" : "s",
               pc_chan_describe(&t->chan, tr, sizeof tr));
    return MPI_SUCCESS;
}

void *pc_team_ext(const pacoll_team_t *t, const void *key)
{
    for (int i = 0; i < PC_TEAM_EXTS; i++)
        if (t->ext[i].key == key)
            return t->ext[i].obj;
    return NULL;
}

int pc_team_ext_set(pacoll_team_t *t, const void *key, void *obj,
                    void (*free_fn)(pacoll_team_t *t, void *obj, int local))
{
    for (int i = 0; i < PC_TEAM_EXTS; i++)
        if (!t->ext[i].key) {
            t->ext[i] = (pc_team_ext_t){.key = key, .obj = obj, .free = free_fn};
            return MPI_SUCCESS;
        }
    return MPI_ERR_INTERN;
}

/* Algorithms' state first: it may live on communicators of this team
 * (multileader's lanes hold sub-teams). */
static void free_exts(pacoll_team_t *t, int local)
{
    for (int i = 0; i < PC_TEAM_EXTS; i++)
        if (t->ext[i].key) {
            t->ext[i].free(t, t->ext[i].obj, local);
            t->ext[i].key = NULL;
        }
}

static void free_comm(MPI_Comm *c)
{
    if (*c != MPI_COMM_NULL)
        PMPI_Comm_free(c);
}

static void free_memory(pacoll_team_t *t)
{
    free(t->node_of);
    free(t->local_of);
    free(t->host_of);
    free(t->node_first);
    free(t->node_ranks);
    free(t);
}

void pc_team_free(pacoll_team_t *t)
{
    if (!t)
        return;
    free_exts(t, 0);
    pc_seg_free(&t->seg);
    pc_chan_free(&t->chan);
    pc_verdict_free(t);
    free_comm(&t->leader_comm);
    free_comm(&t->node_comm);
    free_comm(&t->host_comm);
    free_comm(&t->comm);
    free_memory(t);
}

void pc_team_free_local(pacoll_team_t *t)
{
    free_exts(t, 1);
    pc_chan_free_local(&t->chan);
    t->comm = MPI_COMM_NULL; /* no MPI calls: MPI is gone */
    pc_verdict_free(t);
    free_memory(t);
}

/* The attribute's value is the choices themselves, 16 bits per collective
 * (registry index + 1; 0 is automatic): copied by MPI_COMM_DUP_FN, never
 * freed. */
#define CHOICE_BITS 16
_Static_assert(PACOLL_NCOLL * CHOICE_BITS <= 64 && PC_MAX_ALGOS < (1 << CHOICE_BITS),
               "a communicator's choices fit in one attribute value");

static uint64_t choices_of(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, pc_choice_keyval(), &v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return (uint64_t)(uintptr_t)v;
}

int pc_comm_choice(MPI_Comm comm, pacoll_coll_t coll)
{
    return (int)((choices_of(comm) >> (CHOICE_BITS * coll)) & ((1u << CHOICE_BITS) - 1)) - 1;
}

int pc_comm_choose(MPI_Comm comm, pacoll_coll_t coll, int idx)
{
    uint64_t mask = (uint64_t)((1u << CHOICE_BITS) - 1) << (CHOICE_BITS * coll);
    uint64_t v = (choices_of(comm) & ~mask) | ((uint64_t)(idx + 1) << (CHOICE_BITS * coll));
    int rc = PMPI_Comm_set_attr(comm, pc_choice_keyval(), (void *)(uintptr_t)v);
    if (rc != MPI_SUCCESS)
        return rc;
    pacoll_team_t *t = pc_team_find(comm);
    if (t)
        t->comm_choice[coll] = idx;
    return MPI_SUCCESS;
}

pacoll_team_t *pc_team_find(MPI_Comm comm)
{
    pc_context_t *ctx = pc_context_now();
    pc_team_slot_t *slot = ctx ? pc_context_slot(ctx, comm) : NULL;
    if (slot && slot->team && slot->comm == comm)
        return slot->team;
    pacoll_team_t *t = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, pc_team_keyval(), &t, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    if (slot && !t->thread_multiple) /* one thread at a time calls MPI */
        slot->comm = comm, slot->team = t, slot->api = t->api;
    return t;
}

void pc_team_cache_refresh(pacoll_team_t *t)
{
    pc_context_t *ctx = pc_context_now();
    pc_team_slot_t *slot = ctx ? pc_context_slot(ctx, t->user) : NULL;
    if (slot && slot->team == t)
        slot->api = t->api;
}

pacoll_team_t *pc_team_open(MPI_Comm comm, int *err)
{
    pacoll_team_t *t = NULL;
    int flag = 0, keyval = pc_team_keyval();
    *err = PMPI_Comm_get_attr(comm, keyval, &t, &flag);
    if (*err != MPI_SUCCESS)
        return NULL;
    if (flag)
        return t;
    pc_context_t *ctx = pc_context_get(1);
    t = calloc(1, sizeof *t);
    if (!t || !ctx) {
        free(t);
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    *err = team_init(t, comm);
    if (*err == MPI_SUCCESS)
        *err = PMPI_Comm_set_attr(comm, keyval, t);
    if (*err != MPI_SUCCESS) {
        pc_log("could not set up pacoll on a communicator (MPI error %d)", *err);
        pc_team_free(t);
        return NULL;
    }
    pc_context_add_team(ctx, t);
    if (t->cfg.chan.verbose && t->rank == 0) {
        char shape[120];
        pc_shape_words(t->size, t->nnodes, t->ppn_max, shape, sizeof shape);
        pc_log("team: %s, %d on this host", shape, t->host_size);
    }
    return t;
}

pacoll_team_t *pc_team_get(MPI_Comm comm, int *err)
{
    pacoll_team_t *t = pc_team_open(comm, err);
    if (t && (*err = pc_team_ready(t)) != MPI_SUCCESS) {
        pc_log("could not set up pacoll's channel on a communicator (MPI error %d)", *err);
        return NULL; /* the team stays, without a channel, until its communicator goes */
    }
    return t;
}
