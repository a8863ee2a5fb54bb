/*
 * The arrival profiler: its context, the per-call recording and the
 * finalize sequence (see profile.h and docs/PROFILE.md).
 *
 * Where the state lives: the context (is profiling on, the output path, the
 * clock offsets, the live communicators, the finished summaries) hangs on
 * MPI_COMM_SELF; each profiled communicator carries its own record table.
 * Both are attributes, so the library keeps no global mutable data: the only
 * process-wide objects are the two keyvals, made once and never changed.
 */
#include "profile/prof_internal.h"

static pthread_once_t keyvals_once = PTHREAD_ONCE_INIT;
static int ctx_keyval = MPI_KEYVAL_INVALID;
static int comm_keyval = MPI_KEYVAL_INVALID;
/* PACOLL_PROFILE's answer, fixed when the context is made and never changed
 * after: unprofiled, a wrapper asks MPI nothing (docs/PROFILE.md, "Cost"). */
enum { PROF_UNKNOWN, PROF_OFF, PROF_ON };
static int prof_state = PROF_UNKNOWN;

static const char *const kind_names[PC_PROF_NKINDS] = {
    "barrier",   "bcast",      "reduce",    "allreduce", "gather",         "gatherv",
    "scatter",   "scatterv",   "allgather", "allgatherv", "alltoall",      "alltoallv",
    "alltoallw", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"};

const char *pc_prof_kind_name(pc_prof_kind_t kind)
{
    return (int)kind >= 0 && kind < PC_PROF_NKINDS ? kind_names[kind] : "?";
}

/* ------------------------------------------------------- communicators */

static void comm_free(pc_prof_comm_t *c)
{
    free(c->sites);
    free(c->hash);
    free(c->calls);
    free(c);
}

static void unlink_comm(pc_prof_t *p, pc_prof_comm_t *c)
{
    pthread_mutex_lock(&p->lock);
    for (pc_prof_comm_t **q = &p->live; *q; q = &(*q)->next)
        if (*q == c) {
            *q = c->next;
            break;
        }
    pthread_mutex_unlock(&p->lock);
}

/* MPI_Comm_free (or finalize): a communicator freed by the program is
 * reduced here, while all its members are inside MPI_Comm_free and it still
 * works; clocks are then corrected with the start-up offsets only. */
static int comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    PC_UNUSED(comm), PC_UNUSED(keyval), PC_UNUSED(extra);
    pc_prof_comm_t *c = attr;
    if (c->prof) {
        if (!c->skip && !c->reduced)
            pc_prof_reduce_comm(c->prof, c);
        unlink_comm(c->prof, c);
    }
    comm_free(c);
    return MPI_SUCCESS;
}

static void ctx_free(pc_prof_t *p)
{
    while (p->results) {
        pc_prof_result_t *r = p->results;
        p->results = r->next;
        pc_prof_result_free(r);
    }
    free(p->init.all);
    free(p->fin.all);
    free(p->path);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static int ctx_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    PC_UNUSED(comm), PC_UNUSED(keyval), PC_UNUSED(extra);
    pc_prof_t *p = attr;
    /* Communicators still holding records outlive us only when pacoll's
     * finalize did not run: their callbacks must not reduce any more. */
    for (pc_prof_comm_t *c = p->live; c; c = c->next)
        c->prof = NULL;
    ctx_free(p);
    return MPI_SUCCESS;
}

static void make_keyvals(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ctx_delete, &ctx_keyval, NULL);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &comm_keyval, NULL);
}

/* The context, made on first use from PACOLL_PROFILE (an empty or unset
 * variable makes a context that says "off", and prof_state remembers it). */
static pc_prof_t *ctx_get(void)
{
    static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_once(&keyvals_once, make_keyvals);
    pc_prof_t *p = NULL;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_SELF, ctx_keyval, &p, &flag);
    if (flag)
        return p;
    pthread_mutex_lock(&make_lock);
    PMPI_Comm_get_attr(MPI_COMM_SELF, ctx_keyval, &p, &flag);
    if (!flag && (p = calloc(1, sizeof *p)) != NULL) {
        pthread_mutex_init(&p->lock, NULL);
        const char *path = getenv("PACOLL_PROFILE");
        p->enabled = path && *path && (p->path = strdup(path)) != NULL;
        p->results_tail = &p->results;
        PMPI_Comm_rank(MPI_COMM_WORLD, &p->world_rank);
        PMPI_Comm_size(MPI_COMM_WORLD, &p->world_size);
        PMPI_Comm_set_attr(MPI_COMM_SELF, ctx_keyval, p);
        __atomic_store_n(&prof_state, p->enabled ? PROF_ON : PROF_OFF, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&make_lock);
    return p;
}

/* Makes comm's record table on the first profiled call that returned on
 * it.  Every member gets here at the same call (MPI orders a communicator's
 * collectives alike on all members), so the one allreduce that agrees on
 * an id is safe. */
static pc_prof_comm_t *comm_make(pc_prof_t *p, MPI_Comm comm)
{
    pc_prof_comm_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->comm = comm;
    c->prof = p;
    int inter = 0, len = 0;
    PMPI_Comm_test_inter(comm, &inter);
    c->skip = inter;
    PMPI_Comm_rank(comm, &c->rank);
    PMPI_Comm_size(comm, &c->size);
    PMPI_Comm_get_name(comm, c->name, &len);
    if (!inter) {
        MPI_Group g, wg;
        int zero = 0;
        PMPI_Comm_group(comm, &g);
        PMPI_Comm_group(MPI_COMM_WORLD, &wg);
        PMPI_Group_translate_ranks(g, 1, &zero, wg, &c->world_leader);
        PMPI_Group_free(&g);
        PMPI_Group_free(&wg);
        uint64_t mine;
        pthread_mutex_lock(&p->lock);
        mine = p->next_id;
        pthread_mutex_unlock(&p->lock);
        PMPI_Allreduce(&mine, &c->id, 1, MPI_UINT64_T, MPI_MAX, comm);
        pthread_mutex_lock(&p->lock);
        if (p->next_id <= c->id)
            p->next_id = c->id + 1;
        c->next = p->live;
        p->live = c;
        pthread_mutex_unlock(&p->lock);
    }
    PMPI_Comm_set_attr(comm, comm_keyval, c);
    return c;
}

static uint32_t site_hash(const void *ra, int kind)
{
    uint64_t h = ((uint64_t)(uintptr_t)ra ^ (uint64_t)kind) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static int hash_insert(uint32_t *hash, uint32_t cap, const pc_prof_site_t *sites, uint32_t idx)
{
    uint32_t h = site_hash(sites[idx].ra, sites[idx].kind) & (cap - 1);
    while (hash[h] != 0)
        h = (h + 1) & (cap - 1);
    hash[h] = idx + 1;
    return 0;
}

/* The index of (ra, kind) in c's sites, added when new; UINT32_MAX when out
 * of memory.  The last site used is checked first: loops repeat one site. */
static uint32_t site_index(pc_prof_comm_t *c, const void *ra, int kind)
{
    if (c->nsites && c->sites[c->last_site].ra == ra && c->sites[c->last_site].kind == kind)
        return c->last_site;
    if (c->hash_cap) {
        for (uint32_t h = site_hash(ra, kind) & (c->hash_cap - 1); c->hash[h];
             h = (h + 1) & (c->hash_cap - 1)) {
            const pc_prof_site_t *s = &c->sites[c->hash[h] - 1];
            if (s->ra == ra && s->kind == kind)
                return c->last_site = c->hash[h] - 1;
        }
    }
    if (c->nsites == c->cap_sites) {
        uint32_t cap = c->cap_sites ? 2 * c->cap_sites : 8;
        pc_prof_site_t *s = realloc(c->sites, cap * sizeof *s);
        if (!s)
            return UINT32_MAX;
        c->sites = s, c->cap_sites = cap;
    }
    c->sites[c->nsites] = (pc_prof_site_t){ra, kind};
    if (2 * (c->nsites + 1) > c->hash_cap) { /* keep the load under 1/2 */
        uint32_t cap = c->hash_cap ? 2 * c->hash_cap : 16;
        uint32_t *hash = calloc(cap, sizeof *hash);
        if (!hash)
            return UINT32_MAX;
        free(c->hash);
        c->hash = hash, c->hash_cap = cap;
        for (uint32_t i = 0; i < c->nsites; i++)
            hash_insert(c->hash, cap, c->sites, i);
    }
    hash_insert(c->hash, c->hash_cap, c->sites, c->nsites);
    return c->last_site = c->nsites++;
}

/* ----------------------------------------------------------- per call */

pc_prof_t *pc_prof_handle(void)
{
    if (__atomic_load_n(&prof_state, __ATOMIC_ACQUIRE) == PROF_OFF)
        return NULL;
    pc_prof_t *p = ctx_get();
    return p && p->enabled ? p : NULL;
}

void pc_prof_begin(pc_prof_stamp_t *s, MPI_Comm comm)
{
    pc_prof_begin_with(s, comm, pc_prof_handle());
}

void pc_prof_begin_with(pc_prof_stamp_t *s, MPI_Comm comm, pc_prof_t *p)
{
    s->prof = p;
    if (!p)
        return;
    /* A linked program's MPI_Init is not intercepted: the first call on
     * MPI_COMM_WORLD is the first point where every rank meets. */
    if (!p->init.done && !p->init_how && comm == MPI_COMM_WORLD) {
        p->init_how = "first MPI_COMM_WORLD collective";
        pc_prof_sync(p, &p->init);
    }
    s->arrival = PMPI_Wtime();
}

void pc_prof_record(const pc_prof_stamp_t *s, pc_prof_kind_t kind, MPI_Comm comm, const void *ra,
                    double bytes)
{
    if (!s->prof || comm == MPI_COMM_NULL)
        return;
    pc_prof_comm_t *c = NULL;
    int flag = 0;
    PMPI_Comm_get_attr(comm, comm_keyval, &c, &flag);
    if (!flag && !(c = comm_make(s->prof, comm)))
        return;
    if (c->skip)
        return;
    if (c->ncalls == c->cap_calls) {
        size_t cap = c->cap_calls ? 2 * c->cap_calls : 1024;
        pc_prof_call_t *calls = realloc(c->calls, cap * sizeof *calls);
        if (!calls)
            return;
        c->calls = calls, c->cap_calls = cap;
    }
    uint32_t site = site_index(c, ra, (int)kind);
    if (site == UINT32_MAX)
        return;
    c->calls[c->ncalls++] = (pc_prof_call_t){.arrival = s->arrival, .exit = s->exit, .bytes = bytes, .site = site};
}

/* ------------------------------------------------------ init, finalize */

void pc_prof_init(void)
{
    pc_prof_t *p = ctx_get();
    if (!p || !p->enabled || p->init.done)
        return;
    p->init_how = "MPI_Init";
    pc_prof_sync(p, &p->init);
}

static int comm_order(const void *a, const void *b)
{
    const pc_prof_comm_t *x = *(pc_prof_comm_t *const *)a, *y = *(pc_prof_comm_t *const *)b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->world_leader > y->world_leader) - (x->world_leader < y->world_leader);
}

/* Reduces every live communicator in one order all ranks share: by (id,
 * leader), which is unique and the same on every member, so the smallest
 * communicator not yet done always has all its members ready for it. */
static void reduce_live(pc_prof_t *p)
{
    size_t n = 0;
    for (pc_prof_comm_t *c = p->live; c; c = c->next)
        n++;
    pc_prof_comm_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return;
    n = 0;
    for (pc_prof_comm_t *c = p->live; c; c = c->next)
        v[n++] = c;
    qsort(v, n, sizeof *v, comm_order);
    for (size_t i = 0; i < n; i++) {
        pc_prof_reduce_comm(p, v[i]);
        v[i]->reduced = 1;
        PMPI_Comm_delete_attr(v[i]->comm, comm_keyval); /* frees, unlinks */
    }
    free(v);
}

void pc_prof_finalize(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin)
        return;
    /* Every rank takes part, also one that never made a collective call. */
    pc_prof_t *p = ctx_get();
    if (!p)
        return;
    if (p->enabled) {
        pc_prof_sync(p, &p->fin);
        reduce_live(p);
        double mine = 0, most = 0;
        for (pc_prof_result_t *r = p->results; r; r = r->next)
            if (r->calls && r->bytes_sum / (double)r->calls > mine)
                mine = r->bytes_sum / (double)r->calls;
        PMPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        pc_prof_measure_T(p, most);
        pc_prof_report(p);
    }
    PMPI_Comm_delete_attr(MPI_COMM_SELF, ctx_keyval);
}
