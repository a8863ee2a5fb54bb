/*
 * Learning in place on a team (docs/AUTO.md, "Learning in place"): which
 * candidates a class tries, the clock around its calls, the reductions at
 * the schedule's agreement points (learn.h), PACOLL_VERBOSE's lines, and
 * the learned file (read by each team's rank 0 and broadcast, so every rank
 * starts from the same choices; written by world rank 0 at MPI_Finalize).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel/platform.h"
#include "core/context.h"
#include "select/learn.h"
#include "select/select.h"

/* A candidate the cost model puts this many times above its best estimate
 * is ruled out. */
#define PC_LEARN_MODEL_SPAN 4.0

struct pc_learn_team {
    pc_learn_class_t cls[PACOLL_NCOLL][PC_LEARN_CLASSES];
    unsigned char made[PACOLL_NCOLL][PC_LEARN_CLASSES];
    short preset[PACOLL_NCOLL][PC_LEARN_CLASSES]; /* from the learned file: registry index, or -1 */
    unsigned char learns[PACOLL_NCOLL];          /* learns() at the team's first call */
};

/* The process's learned book, on the context. */
typedef struct pc_learned {
    pc_learn_book_t book;
    int loaded;
    char path[512];
} pc_learned_t;

/* True if coll learns on team t: PACOLL_LEARN=1, or by default where no
 * selection rule is about the team's shape (where rules were measured,
 * their choice stands).  Never alltoallv: its block sizes differ between
 * ranks, and a class every rank agrees on would cost a reduction per call.
 * Never a collective PACOLL_<COLL> names. */
static int learns(const pacoll_team_t *t, pacoll_coll_t coll)
{
    if (coll == PACOLL_ALLTOALLV || t->cfg.forced[coll] >= 0 || !t->sel ||
        t->cfg.learn == PC_LEARNING_OFF)
        return 0;
    if (t->cfg.learn == PC_LEARNING_ON)
        return 1;
    pc_shape_t s;
    pc_team_shape(t, &s);
    return !pc_rules_cover(t->sel->rules, coll, &s);
}

static void learned_free(void *obj)
{
    pc_learned_t *l = obj;
    if (l)
        pc_learn_book_free(&l->book);
    free(l);
}

/* Reads the file once per process.  A file that cannot be read is a first
 * run; one that is not a learned file is ignored, said once, and written
 * over at MPI_Finalize. */
static void learned_load(pc_learned_t *l, int verbose)
{
    if (l->loaded)
        return;
    l->loaded = 1;
    char *text = pc_file_read(l->path);
    char err[256];
    if (!text) {
        if (verbose)
            pc_log("PACOLL_LEARN_FILE='%s' cannot be read: nothing learned yet", l->path);
        return;
    }
    if (pc_learn_book_parse(text, &l->book, err, sizeof err) != 0)
        pc_log("warning: PACOLL_LEARN_FILE='%s' is not a learned file (%s): ignored; MPI_Finalize "
               "writes it anew",
               l->path, err);
    free(text);
}

static void learned_save(pc_context_t *ctx)
{
    pc_learned_t *l = ctx->learned;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!l || rank != 0 || !l->path[0])
        return;
    learned_load(l, 0); /* entries of other shapes are kept */
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0;
    PMPI_Get_processor_name(host, &len);
    for (char *c = host; *c; c++) /* written inside a JSON string */
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = '_';
    snprintf(l->book.host, sizeof l->book.host, "%s", host);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", l->path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && pc_learn_book_write(&l->book, f) == 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (ok && rename(tmp, l->path) != 0)
        ok = 0;
    if (!ok) {
        remove(tmp);
        pc_log("warning: PACOLL_LEARN_FILE='%s' could not be written", l->path);
    }
}

/* The context's book, made with the path if not yet (under its lock). */
static pc_learned_t *learned_of(pc_context_t *ctx, const char *path)
{
    if (!ctx || !path[0])
        return NULL;
    pc_learned_t *l = ctx->learned;
    if (!l && (l = calloc(1, sizeof *l))) {
        snprintf(l->path, sizeof l->path, "%s", path);
        ctx->learned = l;
        ctx->learned_free = learned_free;
        ctx->learned_save = learned_save;
    }
    return l;
}

int pc_learn_may_run(const pacoll_team_t *t)
{
    for (int i = 0; i < pc_registry_count(); i++) {
        const pacoll_algo_t *a = pc_registry_get(i);
        const char *why;
        if (a->run && learns(t, a->coll) && pc_algo_can_run(t, a, &why))
            return 1;
    }
    return 0;
}

/* Rank 0's reading of the file for this team's shape. */
static void preset_from(pacoll_team_t *t, pc_learn_team_t *lt, const pc_learn_book_t *b)
{
    for (int c = 0; c < PACOLL_NCOLL; c++)
        for (int k = 0; k < PC_LEARN_CLASSES; k++) {
            const pc_learn_entry_t *e = pc_learn_book_find(
                b, t->size, t->nnodes, t->ppn_max, pacoll_coll_name((pacoll_coll_t)c), k);
            int idx = e ? pc_registry_find((pacoll_coll_t)c, e->choice) : -1;
            const char *why;
            if (idx >= 0 && (!pc_registry_get(idx)->run ||
                             pc_algo_can_run(t, pc_registry_get(idx), &why)))
                lt->preset[c][k] = (short)idx;
        }
}

int pc_learn_open(pacoll_team_t *t)
{
    pc_team_select_t *sel = t->sel;
    int any = 0;
    for (int c = 0; c < PACOLL_NCOLL; c++)
        any |= learns(t, (pacoll_coll_t)c);
    if (!sel || sel->learn || !any) /* the same on every rank: shape, rules, settings */
        return MPI_SUCCESS;
    pc_learn_team_t *lt = calloc(1, sizeof *lt);
    if (!lt)
        return MPI_ERR_NO_MEM;
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        lt->learns[c] = (unsigned char)learns(t, (pacoll_coll_t)c);
        for (int k = 0; k < PC_LEARN_CLASSES; k++)
            lt->preset[c][k] = -1;
    }
    sel->learn = lt;
    if (!t->cfg.learn_file[0])
        return MPI_SUCCESS;
    pc_context_t *ctx = pc_context_get(1);
    if (t->rank == 0 && ctx) {
        pthread_mutex_lock(&ctx->lock);
        pc_learned_t *l = learned_of(ctx, t->cfg.learn_file);
        if (l) {
            learned_load(l, t->cfg.chan.verbose);
            preset_from(t, lt, &l->book);
        }
        pthread_mutex_unlock(&ctx->lock);
    } else if (ctx) { /* every rank may be world rank 0 of a later save */
        pthread_mutex_lock(&ctx->lock);
        learned_of(ctx, t->cfg.learn_file);
        pthread_mutex_unlock(&ctx->lock);
    }
    /* one broadcast at the team's first call: every rank starts settled
     * on the same classes, whichever ranks can read the file */
    return PMPI_Bcast(lt->preset, (int)(sizeof lt->preset / sizeof(short)), MPI_SHORT, 0, t->comm);
}

/* Folds what the team learned into the process's book and statistics. */
void pc_learn_close(pacoll_team_t *t, pc_learn_team_t *lt)
{
    if (!lt)
        return;
    /* without asking MPI: a team may be freed while MPI tears down */
    pc_context_t *ctx = pc_context_now();
    if (ctx) {
        pthread_mutex_lock(&ctx->lock);
        pc_learned_t *l = learned_of(ctx, t->cfg.learn_file);
        for (int c = 0; c < PACOLL_NCOLL; c++)
            for (int k = 0; k < PC_LEARN_CLASSES; k++) {
                const pc_learn_class_t *lc = &lt->cls[c][k];
                if (!lt->made[c][k])
                    continue;
                ctx->learn_trials += lc->trial_calls, ctx->learn_decisions += lc->decisions;
                ctx->learn_revisits += (uint64_t)lc->revisits, ctx->learn_lost += lc->lost;
                if (!l || lc->from_file || lc->state != PC_LEARN_SETTLED || !lc->decisions)
                    continue;
                pc_learn_entry_t e = {.ranks = t->size, .nodes = t->nnodes, .ppn = t->ppn_max,
                                      .cls = k, .ncand = lc->ncand};
                snprintf(e.coll, sizeof e.coll, "%s", pacoll_coll_name((pacoll_coll_t)c));
                for (int i = 0; i < lc->ncand; i++) {
                    snprintf(e.cand[i], sizeof e.cand[i], "%s", pc_registry_get(lc->cand[i])->name);
                    e.sec[i] = lc->agreed[i];
                }
                snprintf(e.choice, sizeof e.choice, "%s", e.cand[lc->choice]);
                pc_learn_book_put(&l->book, &e);
            }
        pthread_mutex_unlock(&ctx->lock);
    }
    free(lt);
}

/* The candidates of a class: the MPI library's; the rules' choice; then
 * pacoll's algorithms that can run here, in the order of the cost
 * models' estimates for m, within PC_LEARN_MODEL_SPAN of the best. */
static int candidates(pacoll_team_t *t, pacoll_coll_t coll, size_t m, int rules_idx, int *cand)
{
    int n = 0, native = pc_registry_native(coll);
    const char *why;
    cand[n++] = native;
    if (rules_idx != native && pc_algo_can_run(t, pc_registry_get(rules_idx), &why))
        cand[n++] = rules_idx;
    pc_cost_ctx_t ctx;
    pc_cost_ctx(t, &ctx);
    int idx[PC_MAX_ALGOS], k = 0;
    double cost[PC_MAX_ALGOS], best = INFINITY;
    for (int i = 0; i < pc_registry_count() && k < PC_MAX_ALGOS; i++) {
        const pacoll_algo_t *a = pc_registry_get(i);
        if (a->coll != coll || !a->run || !a->cost || i == rules_idx ||
            !pc_algo_can_run(t, a, &why))
            continue;
        double c = a->cost(&ctx, m);
        if (!(c >= 0) || !isfinite(c))
            continue;
        int j = k++;
        for (; j > 0 && cost[j - 1] > c; j--) /* sorted, ties by registry order */
            cost[j] = cost[j - 1], idx[j] = idx[j - 1];
        cost[j] = c, idx[j] = i;
        best = c < best ? c : best;
    }
    for (int j = 0; j < k && n < PC_LEARN_CANDS; j++)
        if (cost[j] <= best * PC_LEARN_MODEL_SPAN)
            cand[n++] = idx[j];
    return n;
}

static void class_words(const pacoll_team_t *t, pacoll_coll_t coll, int k, char *buf, size_t len)
{
    char shape[120];
    size_t lo, hi;
    pc_learn_class_bytes(k, &lo, &hi);
    pc_shape_words(t->size, t->nnodes, t->ppn_max, shape, sizeof shape);
    snprintf(buf, len, "%s on %s, %zu-%zu B per block", pacoll_coll_name(coll), shape, lo, hi);
}

static const char *algo_words(int idx, char *buf, size_t len)
{
    const pacoll_algo_t *a = pc_registry_get(idx);
    if (!a->run)
        snprintf(buf, len, "the MPI library's own");
    else
        snprintf(buf, len, "pacoll's %s", a->name);
    return buf;
}

static void say_start(const pacoll_team_t *t, pacoll_coll_t coll, int k, const pc_learn_class_t *c)
{
    char what[200], list[200] = "", w[80];
    size_t u = 0;
    class_words(t, coll, k, what, sizeof what);
    for (int i = 0; i < c->ncand && u < sizeof list; i++)
        u += (size_t)snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "",
                              pc_registry_get(c->cand[i])->name);
    if (c->from_file)
        pc_log("%s: %s, settled from the learned file %s", what,
               algo_words(c->cand[c->choice], w, sizeof w), t->cfg.learn_file);
    else if (c->ncand == 1)
        pc_log("%s: the MPI library's own: no candidate of pacoll's to learn from", what);
    else
        pc_log("%s: learning in place: trying %s (%d warm-up and %d timed calls each)", what,
               list, 1, PC_LEARN_TRIALS);
}

static void say_decision(const pacoll_team_t *t, pacoll_coll_t coll, int k,
                         const pc_learn_class_t *c, int revisit)
{
    char what[200], times[400] = "", w[80];
    size_t u = 0;
    class_words(t, coll, k, what, sizeof what);
    if (revisit) {
        pc_log("%s: %s drifted (sampled calls slower than %.1fx its %.2f us when chosen): "
               "learning again (%d of at most %d)",
               what, pc_registry_get(c->cand[c->choice])->name, PC_LEARN_DRIFT, c->ref * 1e6,
               c->revisits, PC_LEARN_REVISITS);
        return;
    }
    for (int i = 0; i < c->ncand && u < sizeof times; i++) {
        const char *name = pc_registry_get(c->cand[i])->name;
        if (c->agreed[i] > 0 && (c->alive >> i & 1))
            u += (size_t)snprintf(times + u, sizeof times - u, "%s%s %.2f us", i ? ", " : "", name,
                                  c->agreed[i] * 1e6);
        else if (c->agreed[i] > 0)
            u += (size_t)snprintf(times + u, sizeof times - u, "%s%s %.2f us (dropped early)",
                                  i ? ", " : "", name, c->agreed[i] * 1e6);
        else
            u += (size_t)snprintf(times + u, sizeof times - u, "%s%s not measured", i ? ", " : "",
                                  name);
    }
    pc_log("%s: learned %s after %llu trial calls (mean over ranks of each rank's median: %s)%s",
           what, algo_words(c->cand[c->choice], w, sizeof w), (unsigned long long)c->trial_calls,
           times,
           c->choice ? "; one call in 16 is timed, and a drift learns again"
                     : "; its calls go to the MPI library at no cost");
}

int pc_learn_pick(pacoll_team_t *t, pacoll_coll_t coll, size_t m, int rules_idx,
                  pc_learn_call_t *lc)
{
    lc->cls = NULL;
    pc_learn_team_t *lt = t->sel ? t->sel->learn : NULL;
    if (!lt || !lt->learns[coll] || m == 0)
        return rules_idx;
    int k = pc_learn_class_of(m);
    pc_learn_class_t *c = &lt->cls[coll][k];
    if (!lt->made[coll][k]) {
        int cand[PC_LEARN_CANDS], n = candidates(t, coll, m, rules_idx, cand);
        int p = lt->preset[coll][k];
        lt->made[coll][k] = 1;
        if (p >= 0) {
            int slot = 0;
            if (p != cand[0]) {
                cand[1] = p;
                n = 2, slot = 1;
            } else {
                n = 1;
            }
            pc_learn_settle(c, n, cand, slot, 0);
        } else {
            pc_learn_start(c, n, cand);
        }
        if (t->cfg.chan.verbose && t->rank == 0)
            say_start(t, coll, k, c);
    }
    if (!pc_learn_active(c))
        return c->cand[c->choice];
    lc->cls = c, lc->coll = coll, lc->k = k;
    lc->timed = pc_learn_timed(c);
    lc->t0 = lc->timed ? pc_clock() : 0;
    return c->cand[pc_learn_slot(c)];
}

void pc_learn_done(pacoll_team_t *t, pc_learn_call_t *lc)
{
    pc_learn_class_t *c = lc->cls;
    if (!c)
        return;
    double sec = lc->timed ? pc_clock() - lc->t0 : 0;
    int kind = pc_learn_record(c, sec);
    if (kind == PC_LEARN_RUN)
        return;
    double v[PC_LEARN_CANDS], sum[PC_LEARN_CANDS];
    pc_learn_values(c, kind, v);
    /* the schedule's agreement point: every rank reaches it at the same
     * call of the class, so the reduction lines up */
    if (PMPI_Allreduce(v, sum, PC_LEARN_CANDS, MPI_DOUBLE, MPI_SUM, t->comm) != MPI_SUCCESS)
        memcpy(sum, v, sizeof sum);
    if (pc_learn_agree(c, kind, sum, t->size) && t->cfg.chan.verbose && t->rank == 0)
        say_decision(t, (pacoll_coll_t)lc->coll, lc->k, c, kind == PC_LEARN_AGREE_DRIFT);
}
