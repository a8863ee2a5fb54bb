/* The process context: see context.h. */
#include "core/context.h"

#include "core/algo.h"

static pthread_once_t keyvals_once = PTHREAD_ONCE_INIT;
static int team_keyval = MPI_KEYVAL_INVALID;
static int context_keyval = MPI_KEYVAL_INVALID;
static int choice_keyval = MPI_KEYVAL_INVALID;
static int layout_keyval = MPI_KEYVAL_INVALID;
pc_context_t *pc_context_current; /* from the context's making to its freeing */

static int team_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    PC_UNUSED(comm), PC_UNUSED(keyval), PC_UNUSED(extra);
    pacoll_team_t *t = attr;
    if (t->orphaned) {
        pc_team_free_local(t);
        return MPI_SUCCESS;
    }
    pc_context_t *ctx = pc_context_get(0);
    if (ctx)
        pc_context_remove_team(ctx, t);
    pc_team_free(t);
    return MPI_SUCCESS;
}

static void context_free(pc_context_t *ctx)
{
    __atomic_store_n(&pc_context_current, NULL, __ATOMIC_RELEASE);
    if (ctx->rules_free)
        ctx->rules_free(ctx->rules);
    if (ctx->learned_free)
        ctx->learned_free(ctx->learned);
    if (ctx->nb_end)
        ctx->nb_end(ctx, 1);
    pc_ucx_proc_free(&ctx->ucx);
    free(ctx->rules_path);
    for (int i = 0; i < ctx->nreasons; i++)
        free(ctx->reasons[i]);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

static int context_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    PC_UNUSED(comm), PC_UNUSED(keyval), PC_UNUSED(extra);
    pc_context_t *ctx = attr;
    /* Teams still alive here are being torn down by MPI_Finalize itself
     * (pacoll's finalize did not run): other ranks may be gone, so their
     * delete callbacks must not make collective calls. */
    for (pacoll_team_t *t = ctx->teams; t; t = t->next)
        t->orphaned = 1;
    context_free(ctx);
    return MPI_SUCCESS;
}

static void make_keyvals(void)
{
    int tk = MPI_KEYVAL_INVALID;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, context_delete, &context_keyval, NULL);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, team_delete, &tk, NULL);
    /* the value is the choice itself (team.c): MPI_Comm_dup copies it, and
     * there is nothing to free */
    PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &choice_keyval, NULL);
    /* a datatype's layout verdict (api/datatype.c): a small integer, copied
     * by MPI_Type_dup, gone with the type, so a reused handle has none */
    PMPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &layout_keyval, NULL);
    __atomic_store_n(&team_keyval, tk, __ATOMIC_RELEASE);
}

/* Asked on every call: once made, the keyval is read without pthread_once. */
int pc_team_keyval(void)
{
    int k = __atomic_load_n(&team_keyval, __ATOMIC_ACQUIRE);
    if (k != MPI_KEYVAL_INVALID)
        return k;
    pthread_once(&keyvals_once, make_keyvals);
    return __atomic_load_n(&team_keyval, __ATOMIC_ACQUIRE);
}

int pc_choice_keyval(void)
{
    pthread_once(&keyvals_once, make_keyvals);
    return choice_keyval;
}

int pc_layout_keyval(void)
{
    pthread_once(&keyvals_once, make_keyvals);
    return layout_keyval;
}

pc_context_t *pc_context_get(int create)
{
    static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_once(&keyvals_once, make_keyvals);
    pc_context_t *ctx = NULL;
    int flag = 0;
    pthread_mutex_lock(&make_lock);
    PMPI_Comm_get_attr(MPI_COMM_SELF, context_keyval, &ctx, &flag);
    if (!flag && create) {
        ctx = calloc(1, sizeof *ctx);
        if (ctx) {
            pthread_mutex_init(&ctx->lock, NULL);
            PMPI_Comm_set_attr(MPI_COMM_SELF, context_keyval, ctx);
            __atomic_store_n(&pc_context_current, ctx, __ATOMIC_RELEASE);
            pc_config_warn_unknown(); /* once per process: the context is made once */
        }
    } else if (!flag) {
        ctx = NULL;
    }
    pthread_mutex_unlock(&make_lock);
    return ctx;
}

void pc_context_add_team(pc_context_t *ctx, pacoll_team_t *t)
{
    pthread_mutex_lock(&ctx->lock);
    t->id = ctx->next_id++;
    t->next = NULL;
    pacoll_team_t **p = &ctx->teams;
    while (*p)
        p = &(*p)->next;
    *p = t;
    pthread_mutex_unlock(&ctx->lock);
}

void pc_context_remove_team(pc_context_t *ctx, pacoll_team_t *t)
{
    pthread_mutex_lock(&ctx->lock);
    for (int i = 0; i < PC_TEAM_CACHE; i++)
        if (ctx->team_cache[i].team == t)
            ctx->team_cache[i].team = NULL, ctx->team_cache[i].api = NULL;
    for (pacoll_team_t **p = &ctx->teams; *p; p = &(*p)->next) {
        if (*p == t) {
            *p = t->next;
            break;
        }
    }
    for (int i = 0; i < PC_MAX_ALGOS; i++) {
        ctx->stats[i].calls += t->stats[i].calls;
        ctx->stats[i].bytes += t->stats[i].bytes;
        ctx->stats[i].adverts += t->stats[i].adverts;
        ctx->stats[i].registers += t->stats[i].registers;
        ctx->stats[i].attaches += t->stats[i].attaches;
    }
    pc_chan_stats_t cs = pc_chan_stats(&t->chan);
    ctx->reg_hits += cs.registers - cs.attaches, ctx->reg_misses += cs.attaches;
    ctx->reg_bytes += cs.attached_bytes, ctx->reg_evictions += cs.evictions;
    ctx->adv_sent += cs.adverts, ctx->zput_bytes += cs.zput_bytes;
    ctx->eager_bytes += cs.eager_bytes, ctx->host_write_bytes += cs.host_write_bytes;
    pthread_mutex_unlock(&ctx->lock);
}

int pc_context_first_reason(pc_context_t *ctx, const char *reason)
{
    int first = 1;
    pthread_mutex_lock(&ctx->lock);
    for (int i = 0; i < ctx->nreasons && first; i++)
        if (strcmp(ctx->reasons[i], reason) == 0)
            first = 0;
    if (first && ctx->nreasons < PC_MAX_REASONS)
        ctx->reasons[ctx->nreasons++] = strdup(reason);
    pthread_mutex_unlock(&ctx->lock);
    return first;
}

/* --------------------------------------------------------------- stats */

enum { PC_EXTRA_STATS = 12 };

/* The opening line: per collective, the calls pacoll's own algorithms
 * ran and those it gave to the MPI library (calls are counted on every
 * rank of the communicator). */
static void print_share(const uint64_t *sum)
{
    char line[PC_MSG_LEN] = "pacoll-stats:";
    size_t u = strlen(line);
    int any = 0;
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        uint64_t own = 0, all = 0;
        for (int i = 0; i < pc_registry_count(); i++) {
            const pacoll_algo_t *a = pc_registry_get(i);
            if ((int)a->coll != c)
                continue;
            all += sum[PC_STAT_FIELDS * i];
            own += a->run ? sum[PC_STAT_FIELDS * i] : 0;
        }
        if (!all || u >= sizeof line)
            continue;
        u += (size_t)snprintf(line + u, sizeof line - u,
                              "%s %s %llu of %llu call%s by pacoll (%llu to the MPI library)",
                              any ? "," : "", pacoll_coll_name((pacoll_coll_t)c),
                              (unsigned long long)own, (unsigned long long)all,
                              all == 1 ? "" : "s", (unsigned long long)(all - own));
        any = 1;
    }
    if (!any)
        snprintf(line + u, sizeof line - u, " no alltoall, alltoallv, allgather or gather call");
    else if (u < sizeof line)
        snprintf(line + u, sizeof line - u, "; a call on P ranks counts P times");
    printf("%s\n", line);
}

static void print_stats(const uint64_t *sum)
{
    print_share(sum);
    for (int i = 0; i < pc_registry_count(); i++) {
        const pacoll_algo_t *a = pc_registry_get(i);
        const uint64_t *f = sum + PC_STAT_FIELDS * i;
        if (f[0] == 0)
            continue;
        /* calls are summed over ranks, so x / calls is per rank and call */
        printf("pacoll-stats: %s %s calls=%llu bytes=%llu address_exchanges=%llu "
               "buffers_exposed=%llu buffers_attached=%llu address_exchanges_per_call=%.2f "
               "buffers_exposed_per_call=%.2f buffers_attached_per_call=%.2f\n",
               pacoll_coll_name(a->coll), a->name, (unsigned long long)f[0],
               (unsigned long long)f[1], (unsigned long long)f[2], (unsigned long long)f[3],
               (unsigned long long)f[4], (double)f[2] / (double)f[0], (double)f[3] / (double)f[0],
               (double)f[4] / (double)f[0]);
    }
    const uint64_t *x = sum + PC_STAT_FIELDS * PC_MAX_ALGOS;
    printf("pacoll-stats: regcache hits=%llu misses=%llu attached_bytes=%llu evictions=%llu "
           "address_exchanges=%llu zero_copy_bytes=%llu eager_bytes=%llu shared_copy_bytes=%llu\n",
           (unsigned long long)x[0], (unsigned long long)x[1], (unsigned long long)x[2],
           (unsigned long long)x[3], (unsigned long long)x[4], (unsigned long long)x[5],
           (unsigned long long)x[6], (unsigned long long)x[7]);
    if (x[8] || x[9]) /* learning in place: summed over ranks, like calls */
        printf("pacoll-stats: learning trial_calls=%llu decisions=%llu revisits=%llu "
               "lost_trial_seconds=%.6f\n",
               (unsigned long long)x[8], (unsigned long long)x[9], (unsigned long long)x[10],
               (double)x[11] * 1e-9);
    fflush(stdout);
}

static void reduce_and_print_stats(pc_context_t *ctx)
{
    enum { N = PC_STAT_FIELDS * PC_MAX_ALGOS + PC_EXTRA_STATS };
    uint64_t mine[N] = {0}, sum[N];
    if (ctx) {
        for (int i = 0; i < PC_MAX_ALGOS; i++) {
            const pc_stat_t *st = &ctx->stats[i];
            uint64_t *f = mine + PC_STAT_FIELDS * i;
            f[0] = st->calls, f[1] = st->bytes, f[2] = st->adverts;
            f[3] = st->registers, f[4] = st->attaches;
        }
        uint64_t *x = mine + PC_STAT_FIELDS * PC_MAX_ALGOS;
        x[0] = ctx->reg_hits, x[1] = ctx->reg_misses, x[2] = ctx->reg_bytes;
        x[3] = ctx->reg_evictions, x[4] = ctx->adv_sent, x[5] = ctx->zput_bytes;
        x[6] = ctx->eager_bytes, x[7] = ctx->host_write_bytes;
        x[8] = ctx->learn_trials, x[9] = ctx->learn_decisions, x[10] = ctx->learn_revisits;
        x[11] = (uint64_t)(ctx->learn_lost * 1e9);
    }
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Reduce(mine, sum, N, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        print_stats(sum);
}

void pc_context_finalize(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin)
        return;
    pc_context_t *ctx = pc_context_get(0);
    /* nonblocking collectives still running (freed requests) end first */
    if (ctx && ctx->nb_end)
        ctx->nb_end(ctx, 0), ctx->nb_end = NULL;
    /* Free teams oldest first: every rank created the teams it shares with
     * others in the same order (creation is collective), so this order is
     * consistent and the collective frees cannot deadlock. */
    while (ctx && ctx->teams) {
        pacoll_team_t *t = ctx->teams;
        PMPI_Comm_delete_attr(t->user, pc_team_keyval());
        if (ctx->teams == t) { /* the communicator was no longer valid */
            pc_context_remove_team(ctx, t);
            pc_team_free(t);
        }
    }
    pc_config_t cfg;
    pc_config_read(&cfg);
    if (cfg.stats)
        reduce_and_print_stats(ctx);
    if (ctx && ctx->learned_save)
        ctx->learned_save(ctx);
    if (ctx)
        PMPI_Comm_delete_attr(MPI_COMM_SELF, context_keyval);
}
