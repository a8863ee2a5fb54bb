/* Selection rules: see select.h. */
#include "select/select.h"

#include <math.h>
#include <string.h>

#include "core/context.h"
#include "select/json.h"
#include "select/nic.h"

extern const char pacoll_default_rules_json[];

typedef struct pc_rule {
    int coll, algo;                 /* registry index of the algorithm, or PC_ALGO_MODEL */
    double min_bytes, max_bytes;    /* bytes per block */
    double min_ranks, max_ranks;
    double min_nodes, max_nodes;
    double min_ppn, max_ppn;        /* largest node */
    int nic;                        /* enum pc_nic the team's must be, or -1: any */
    int index, line;                /* its place in the file, for PACOLL_VERBOSE */
} pc_rule_t;

/* A rule skipped because this build lacks its algorithm, for PACOLL_VERBOSE. */
typedef struct pc_rule_skipped {
    int index, line;
    char coll[16], algo[48];
} pc_rule_skipped_t;

struct pc_rules {
    pc_rule_t *rule;
    int n;
    pc_rule_skipped_t *skipped;
    int nskipped;
    char origin[256]; /* "(built in)" or the file */
};

/* The versions of the rules format this build reads ("version" absent: 1). */
#define PC_RULES_VERSION 1
/* The members a rules document may have: a misspelt one ("rule") must
 * fail, not be ignored. */
static const char *const top_keys[] = {"rules", "version", "comment", "provenance"};

static double num_or(const pc_json_t *o, const char *key, double dflt)
{
    const pc_json_t *v = pc_json_get(o, key);
    return v && v->type == PC_JNUM ? v->num : dflt;
}

/* The members a rule may have: a misspelt condition ("max_byte") must fail,
 * not match every call. */
static const char *const rule_keys[] = {"coll",      "algo",      "min_bytes", "max_bytes",
                                        "min_ranks", "max_ranks", "min_nodes", "max_nodes",
                                        "min_ppn",   "max_ppn",   "nic",       "comment"};

static int parse_rule(const pc_json_t *o, pc_rule_t *r, char *err, size_t errlen)
{
    if (o->type != PC_JOBJ) {
        snprintf(err, errlen, "a rule must be an object");
        return -1;
    }
    for (const pc_json_t *m = o->child; m; m = m->next) {
        int known = 0;
        for (size_t k = 0; k < sizeof rule_keys / sizeof rule_keys[0] && !known; k++)
            known = !strcmp(m->key, rule_keys[k]);
        if (!known) {
            snprintf(err, errlen, "unknown condition \"%s\" (known: coll, algo, min_/max_bytes, "
                                  "min_/max_ranks, min_/max_nodes, min_/max_ppn, nic, comment)",
                     m->key);
            return -1;
        }
        if ((!strncmp(m->key, "min_", 4) || !strncmp(m->key, "max_", 4)) && m->type != PC_JNUM) {
            snprintf(err, errlen, "\"%s\" must be a number", m->key);
            return -1;
        }
    }
    const pc_json_t *coll = pc_json_get(o, "coll"), *algo = pc_json_get(o, "algo");
    if (!coll || coll->type != PC_JSTR || !algo || algo->type != PC_JSTR) {
        snprintf(err, errlen, "a rule needs \"coll\" and \"algo\" strings");
        return -1;
    }
    r->coll = pacoll_coll_from_name(coll->str);
    if (r->coll < 0) {
        snprintf(err, errlen, "unknown collective \"%s\"", coll->str);
        return -1;
    }
    r->algo = !strcmp(algo->str, "model") ? PC_ALGO_MODEL
                                          : pc_registry_find((pacoll_coll_t)r->coll, algo->str);
    if (r->algo == -1) /* rules may name algorithms of later versions: skip, do not fail */
        return 1; /* (after the members' checks: a mistyped condition fails even here) */
    r->min_bytes = num_or(o, "min_bytes", 0), r->max_bytes = num_or(o, "max_bytes", INFINITY);
    r->min_ranks = num_or(o, "min_ranks", 0), r->max_ranks = num_or(o, "max_ranks", INFINITY);
    r->min_nodes = num_or(o, "min_nodes", 0), r->max_nodes = num_or(o, "max_nodes", INFINITY);
    r->min_ppn = num_or(o, "min_ppn", 0), r->max_ppn = num_or(o, "max_ppn", INFINITY);
    const pc_json_t *nic = pc_json_get(o, "nic");
    r->nic = -1;
    if (nic) {
        r->nic = pc_nic_kind(nic->type == PC_JSTR ? nic->str : NULL);
        if (r->nic < 0) {
            snprintf(err, errlen, "\"nic\" must be \"onload\", \"offload\" or \"none\"");
            return -1;
        }
    }
    return 0;
}

/* The document's own members: known names, a version this build reads. */
static int check_top(const pc_json_t *root, char *why, size_t len)
{
    if (root->type != PC_JOBJ) {
        snprintf(why, len, "not a JSON object");
        return -1;
    }
    for (const pc_json_t *m = root->child; m; m = m->next) {
        int known = 0;
        for (size_t k = 0; k < sizeof top_keys / sizeof top_keys[0] && !known; k++)
            known = !strcmp(m->key, top_keys[k]);
        if (!known) {
            snprintf(why, len, "unknown member \"%s\" at line %d (known: rules, version, comment, "
                               "provenance)", m->key, m->line);
            return -1;
        }
    }
    const pc_json_t *v = pc_json_get(root, "version");
    if (v && (v->type != PC_JNUM || v->num != PC_RULES_VERSION)) {
        char got[32];
        if (v->type == PC_JNUM)
            snprintf(got, sizeof got, "%g", v->num);
        else
            snprintf(got, sizeof got, "not a number");
        snprintf(why, len, "\"version\" is %s at line %d; this build reads version %d", got,
                 v->line, PC_RULES_VERSION);
        return -1;
    }
    return 0;
}

pc_rules_t *pc_rules_parse(const char *text, const char *origin, char *err, size_t errlen)
{
    char why[200];
    pc_json_t *root = pc_json_parse(text, why, sizeof why);
    const pc_json_t *list = pc_json_get(root, "rules");
    if (!root || check_top(root, why, sizeof why) != 0 || !list || list->type != PC_JARR) {
        snprintf(err, errlen, "selection rules %s: %s", origin,
                 root && why[0] ? why : root ? "no \"rules\" array" : why);
        pc_json_free(root);
        return NULL;
    }
    int n = 0;
    for (const pc_json_t *c = list->child; c; c = c->next)
        n++;
    pc_rules_t *rs = calloc(1, sizeof *rs);
    if (rs)
        rs->rule = calloc((size_t)n + 1, sizeof *rs->rule);
    if (rs)
        rs->skipped = calloc((size_t)n + 1, sizeof *rs->skipped);
    if (!rs || !rs->rule || !rs->skipped) {
        snprintf(err, errlen, "selection rules %s: out of memory", origin);
        pc_rules_free(rs);
        pc_json_free(root);
        return NULL;
    }
    snprintf(rs->origin, sizeof rs->origin, "%s", origin);
    int index = 0;
    for (const pc_json_t *c = list->child; c; c = c->next) {
        int k = parse_rule(c, &rs->rule[rs->n], why, sizeof why);
        index++;
        if (k < 0) {
            snprintf(err, errlen, "selection rules %s, rule %d (line %d): %s", origin, index,
                     c->line, why);
            pc_rules_free(rs);
            pc_json_free(root);
            return NULL;
        }
        if (k == 0) {
            rs->rule[rs->n].index = index, rs->rule[rs->n].line = c->line;
            rs->n++;
        } else { /* its collective and algorithm are strings (parse_rule checked) */
            pc_rule_skipped_t *sk = &rs->skipped[rs->nskipped++];
            sk->index = index, sk->line = c->line;
            snprintf(sk->coll, sizeof sk->coll, "%s", pc_json_get(c, "coll")->str);
            snprintf(sk->algo, sizeof sk->algo, "%s", pc_json_get(c, "algo")->str);
        }
    }
    pc_json_free(root);
    return rs;
}

void pc_rules_free(pc_rules_t *rs)
{
    if (rs)
        free(rs->rule), free(rs->skipped);
    free(rs);
}

int pc_rules_skipped(const pc_rules_t *rs, int i, int *number, int *line, const char **coll,
                     const char **algo)
{
    if (!rs || i < 0 || i >= rs->nskipped)
        return 0;
    const pc_rule_skipped_t *sk = &rs->skipped[i];
    *number = sk->index, *line = sk->line, *coll = sk->coll, *algo = sk->algo;
    return 1;
}

/* PACOLL_VERBOSE: the rules skipped for an algorithm this build lacks,
 * said once per process (at the parse every later team shares), by rank 0
 * of MPI_COMM_WORLD. */
static void say_skipped(const pacoll_team_t *t, const pc_rules_t *rs)
{
    int world = 0, number, line;
    const char *coll, *algo;
    if (!t->cfg.chan.verbose || (PMPI_Comm_rank(MPI_COMM_WORLD, &world), world != 0))
        return;
    for (int i = 0; pc_rules_skipped(rs, i, &number, &line, &coll, &algo); i++)
        pc_log("selection rules %s, rule %d (line %d): skipped: this build has no %s algorithm "
               "'%s' (rules may name algorithms of later versions; docs/TUNE.md)",
               rs->origin, number, line, coll, algo);
}

const char *pc_rules_builtin(void) { return pacoll_default_rules_json; }
int pc_rules_count(const pc_rules_t *rs) { return rs ? rs->n : 0; }
const char *pc_rules_origin(const pc_rules_t *rs) { return rs ? rs->origin : "(none)"; }

void pc_rules_source(const pc_rules_t *rs, char *buf, size_t len)
{
    if (!rs || !strcmp(rs->origin, "(built in)"))
        snprintf(buf, len, "the built-in selection rules");
    else
        snprintf(buf, len, "the selection rules in %s", rs->origin);
}

void pc_rules_rule(const pc_rules_t *rs, int i, int *algo, int *number, int *line)
{
    *algo = rs->rule[i].algo, *number = rs->rule[i].index, *line = rs->rule[i].line;
}

int pc_algo_fits(const pc_shape_t *s, const pacoll_algo_t *a, const char **why)
{
    if ((a->needs & PACOLL_NEEDS_POW2) && (s->ranks & (s->ranks - 1))) {
        *why = "it needs a power-of-two number of processes";
        return 0;
    }
    if ((a->needs & PACOLL_NEEDS_MULTINODE) && s->nodes < 2) {
        *why = "it needs more than one node";
        return 0;
    }
    if ((a->needs & PACOLL_NEEDS_SHM) && !s->shm) {
        *why = "it needs a node shared-memory segment";
        return 0;
    }
    return 1;
}

static int shape_matches(const pc_rule_t *r, const pc_shape_t *s)
{
    return s->ranks >= r->min_ranks && s->ranks <= r->max_ranks && s->nodes >= r->min_nodes &&
           s->nodes <= r->max_nodes && s->ppn >= r->min_ppn && s->ppn <= r->max_ppn;
}

int pc_rules_pick(const pc_rules_t *rs, int coll, const pc_shape_t *s, double m)
{
    for (int i = 0; rs && i < rs->n; i++) {
        const pc_rule_t *r = &rs->rule[i];
        const char *cant;
        if (r->coll != coll || !shape_matches(r, s))
            continue;
        if (m < 0 && (r->min_bytes > 0 || r->max_bytes < INFINITY))
            return PC_PICK_NEED_BYTES;
        if (m >= 0 && (m < r->min_bytes || m > r->max_bytes))
            continue;
        if (r->nic >= 0 && s->nic < 0)
            return PC_PICK_NEED_NIC;
        if (r->nic >= 0 && r->nic != s->nic)
            continue;
        if (r->algo == PC_ALGO_MODEL || pc_algo_fits(s, pc_registry_get(r->algo), &cant))
            return i;
    }
    return PC_PICK_NONE;
}

int pc_rules_may_run(const pc_rules_t *rs, int coll, const pc_shape_t *s)
{
    for (int i = 0; rs && i < rs->n; i++) {
        const pc_rule_t *r = &rs->rule[i];
        const char *cant;
        if (r->coll == coll && shape_matches(r, s) &&
            (r->algo == PC_ALGO_MODEL ||
             (pc_registry_get(r->algo)->run && pc_algo_fits(s, pc_registry_get(r->algo), &cant))))
            return 1;
    }
    return 0;
}

int pc_rules_cover(const pc_rules_t *rs, int coll, const pc_shape_t *s)
{
    for (int i = 0; rs && i < rs->n; i++)
        if (rs->rule[i].coll == coll && shape_matches(&rs->rule[i], s))
            return 1;
    return 0;
}

int pc_team_may_run(const pacoll_team_t *t)
{
    pc_shape_t s;
    pc_team_shape(t, &s);
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        int f = t->cfg.forced[c]; /* PACOLL_<COLL> overrides the rules */
        if (f >= 0 ? pc_registry_get(f)->run != NULL : pc_rules_may_run(t->sel->rules, c, &s))
            return 1;
    }
    return 0;
}

/* The rules every team of the process shares (the context's, from one
 * path; "" built in): the context's if they came from path, else NULL. */
static pc_rules_t *shared_rules(pc_context_t *ctx, const char *path)
{
    pc_rules_t *rs = NULL;
    pthread_mutex_lock(&ctx->lock);
    if (ctx->rules && strcmp(ctx->rules_path, path) == 0)
        rs = ctx->rules;
    pthread_mutex_unlock(&ctx->lock);
    return rs;
}

/* Gives rules parsed from path to the context if it has none yet: 1 when
 * it took them (the team must not free them then). */
static int share_rules(pc_context_t *ctx, const char *path, pc_rules_t *rs)
{
    char *copy = strdup(path);
    int taken = 0;
    pthread_mutex_lock(&ctx->lock);
    if (copy && !ctx->rules)
        ctx->rules = rs, ctx->rules_path = copy, ctx->rules_free = pc_rules_free, taken = 1;
    pthread_mutex_unlock(&ctx->lock);
    if (!taken)
        free(copy);
    return taken;
}

/* Leaves sel->rules set (empty after an error, which the first call reports
 * as a bad setting), so a team reads its rules once; the process parses
 * them once, at its first team, and every later team shares them. */
static void rules_load(pacoll_team_t *t, pc_team_select_t *sel)
{
    char err[sizeof t->cfg.error_msg];
    pc_context_t *ctx = pc_context_get(1);
    pc_rules_t *rs = ctx ? shared_rules(ctx, t->cfg.rules_path) : NULL;
    if (rs) { /* the context's: not the team's to free */
        sel->rules = rs;
        return;
    }
    if (!t->cfg.rules_path[0]) {
        rs = pc_rules_parse(pacoll_default_rules_json, "(built in)", err, sizeof err);
    } else {
        char *text = pc_file_read(t->cfg.rules_path);
        if (text)
            rs = pc_rules_parse(text, t->cfg.rules_path, err, sizeof err);
        else
            snprintf(err, sizeof err, "PACOLL_RULES='%s' cannot be read", t->cfg.rules_path);
        free(text);
    }
    if (rs)
        say_skipped(t, rs);
    if (rs && ctx && share_rules(ctx, t->cfg.rules_path, rs)) {
        sel->rules = rs;
        return;
    }
    if (!rs) {
        t->cfg.error = MPI_ERR_ARG; /* reported at the first call, like any bad setting */
        snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg, "%s", err);
        rs = calloc(1, sizeof *rs);
    }
    sel->rules = rs;
    sel->own = 1;
}

static void select_free(pacoll_team_t *t, void *obj, int local)
{
    pc_team_select_t *sel = obj;
    (void)local;
    pc_learn_close(t, sel->learn);
    if (sel->own)
        pc_rules_free(sel->rules);
    t->sel = NULL;
    free(sel);
}

int pc_rules_load(pacoll_team_t *t)
{
    static const char key = 0; /* the selection's on pc_team_ext */
    if (t->sel)
        return MPI_SUCCESS;
    pc_team_select_t *sel = calloc(1, sizeof *sel);
    if (!sel)
        return MPI_ERR_NO_MEM;
    for (int c = 0; c < PACOLL_NCOLL; c++)
        sel->pick[c].idx = -1;
    if (pc_team_ext_set(t, &key, sel, select_free) != MPI_SUCCESS) {
        free(sel);
        return MPI_ERR_NO_MEM;
    }
    rules_load(t, sel);
    t->sel = sel;
    return MPI_SUCCESS;
}

void pc_team_shape(const pacoll_team_t *t, pc_shape_t *s)
{
    /* before its channel is made, a team counts on the node segment it will
     * get (a team that cannot make one fails at that call) */
    *s = (pc_shape_t){.ranks = t->size, .nodes = t->nnodes, .ppn = t->ppn_max, .nic = t->nic,
                      .shm = t->ready ? t->seg.have : 1};
}

int pc_algo_can_run(const pacoll_team_t *t, const pacoll_algo_t *a, const char **why)
{
    pc_shape_t s;
    pc_team_shape(t, &s);
    return pc_algo_fits(&s, a, why);
}

static void cost_ctx(const pc_shape_t *s, int ports, pc_cost_ctx_t *ctx)
{
    *ctx = (pc_cost_ctx_t){.p = s->ranks, .nnodes = s->nodes, .ppn_max = s->ppn, .ports = ports,
                           .nic = s->nic >= 0 ? s->nic : PC_NIC_NONE};
    /* Order-of-magnitude defaults (an InfiniBand-class network, one core's
     * memcpy): the models order pacoll's algorithms where a rule asks them
     * to ("algo": "model"); measured rules decide everything else. */
    ctx->alpha = 2e-6, ctx->beta = 1.0 / 10e9;
    ctx->alpha_shm = 2e-7, ctx->beta_shm = 1.0 / 10e9;
}

void pc_cost_ctx(const pacoll_team_t *t, pc_cost_ctx_t *ctx)
{
    pc_shape_t s;
    pc_team_shape(t, &s);
    if (s.nic < 0)
        s.nic = t->cfg.nic;
    cost_ctx(&s, t->cfg.chan.ports, ctx);
}

int pc_model_pick(const pc_shape_t *s, int ports, pacoll_coll_t coll, size_t m)
{
    pc_cost_ctx_t ctx;
    cost_ctx(s, ports, &ctx);
    int best = pc_registry_native(coll);
    double best_cost = INFINITY;
    for (int i = 0; i < pc_registry_count(); i++) {
        const pacoll_algo_t *a = pc_registry_get(i);
        const char *why;
        if (a->coll != coll || !a->cost || !pc_algo_fits(s, a, &why))
            continue;
        double c = a->cost(&ctx, m);
        if (c < best_cost)
            best = i, best_cost = c;
    }
    return best;
}

int pc_rules_choose(const pc_rules_t *rs, int coll, const pc_shape_t *s, double m, int ports,
                    int *pick)
{
    int i = pc_rules_pick(rs, coll, s, m);
    if (pick)
        *pick = i;
    if (i < 0)
        return pc_registry_native((pacoll_coll_t)coll);
    int algo = rs->rule[i].algo;
    return algo == PC_ALGO_MODEL ? pc_model_pick(s, ports, (pacoll_coll_t)coll, m > 0 ? (size_t)m : 0)
                                 : algo;
}

int pc_select_why(pacoll_team_t *t, pacoll_coll_t coll, size_t m, pc_agree_bytes_fn agree,
                  const void *call, char *why, size_t len)
{
    if (!t->sel && pc_rules_load(t) != MPI_SUCCESS) /* a sub-team, made inside an
                                                      * algorithm: the rules only */
        return pc_registry_native(coll);
    /* The same answer as last time, without looking at the rules: they, the
     * shape and the NIC do not change, so only the size could. */
    if (!why && t->sel->pick[coll].idx >= 0 &&
        (t->sel->pick[coll].any_m || (!agree && t->sel->pick[coll].m == m)))
        return t->sel->pick[coll].idx;
    const pc_rules_t *rs = t->sel->rules;
    pc_shape_t s;
    pc_team_shape(t, &s);
    double mm = agree ? -1 : (double)m;
    int i, idx;
    /* Each answer asks for at most one more input; every rank asks at the
     * same rule, so the collective measurements line up. */
    while ((idx = pc_rules_choose(rs, coll, &s, mm, t->cfg.chan.ports, &i)),
           i == PC_PICK_NEED_NIC || i == PC_PICK_NEED_BYTES) {
        if (i == PC_PICK_NEED_NIC)
            s.nic = t->nic = pc_nic_measure(t);
        else
            mm = (double)(m = agree(t, call));
    }
    if (why) {
        char from[300];
        pc_rules_source(rs, from, sizeof from);
        if (i == PC_PICK_NONE)
            snprintf(why, len, "since no rule of %s matches", from);
        else
            snprintf(why, len, "%s rule %d at line %d of %s",
                     rs->rule[i].algo == PC_ALGO_MODEL ? "by the cost models, as asked by" : "by",
                     rs->rule[i].index, rs->rule[i].line, from);
    }
    t->sel->pick[coll].m = m, t->sel->pick[coll].idx = idx, t->sel->pick[coll].any_m = agree && mm < 0;
    return idx;
}

int pc_select(pacoll_team_t *t, pacoll_coll_t coll, size_t m)
{
    return pc_select_why(t, coll, m, NULL, NULL, NULL, 0);
}
