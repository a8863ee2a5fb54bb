/* Selection rules and cost models: see select.h. */
#include "select/select.h"

#include <math.h>

#include "select/json.h"
#include "select/nic.h"

extern const char pacoll_default_rules_json[];

typedef struct pc_rule {
    int coll, algo;                 /* registry index of the algorithm */
    double min_bytes, max_bytes;    /* bytes per block */
    double min_ranks, max_ranks;
    double min_nodes, max_nodes;
    double min_ppn, max_ppn;        /* largest node */
    int nic;                        /* enum pc_nic the team's must be, or -1: any */
    int index, line;                /* its place in the file, for PACOLL_VERBOSE */
} pc_rule_t;

typedef struct pc_rules {
    pc_rule_t *rule;
    int n;
    char origin[256]; /* "(built in)" or the file */
} pc_rules_t;

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
        if (!strncmp(m->key, "min_", 4) || !strncmp(m->key, "max_", 4)) {
            if (m->type != PC_JNUM) {
                snprintf(err, errlen, "\"%s\" must be a number", m->key);
                return -1;
            }
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
    r->algo = pc_registry_find((pacoll_coll_t)r->coll, algo->str);
    if (r->algo < 0) {
        /* Rules may name algorithms of later versions: skip, do not fail. */
        return 1;
    }
    r->min_bytes = num_or(o, "min_bytes", 0), r->max_bytes = num_or(o, "max_bytes", INFINITY);
    r->min_ranks = num_or(o, "min_ranks", 0), r->max_ranks = num_or(o, "max_ranks", INFINITY);
    r->min_nodes = num_or(o, "min_nodes", 0), r->max_nodes = num_or(o, "max_nodes", INFINITY);
    r->min_ppn = num_or(o, "min_ppn", 0), r->max_ppn = num_or(o, "max_ppn", INFINITY);
    const pc_json_t *nic = pc_json_get(o, "nic");
    r->nic = -1;
    if (nic) {
        static const char *const kinds[] = {[PC_NIC_ONLOAD] = "onload",
                                            [PC_NIC_OFFLOAD] = "offload", [PC_NIC_NONE] = "none"};
        for (int k = PC_NIC_ONLOAD; k <= PC_NIC_NONE && nic->type == PC_JSTR; k++)
            if (!strcmp(nic->str, kinds[k]))
                r->nic = k;
        if (r->nic < 0) {
            snprintf(err, errlen, "\"nic\" must be \"onload\", \"offload\" or \"none\"");
            return -1;
        }
    }
    return 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

static void rules_free(void *p)
{
    pc_rules_t *rs = p;
    if (rs)
        free(rs->rule);
    free(rs);
}

static void parse_rules(pacoll_team_t *t, const char *text, const char *origin)
{
    char err[256];
    pc_json_t *root = pc_json_parse(text, err, sizeof err);
    const pc_json_t *list = pc_json_get(root, "rules");
    if (!root || !list || list->type != PC_JARR) {
        snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg, "selection rules %s: %s", origin,
                 root ? "no \"rules\" array" : err);
        t->cfg.error = MPI_ERR_ARG;
        pc_json_free(root);
        return; /* reported at the first call, like any bad setting */
    }
    pc_rules_t *rs = calloc(1, sizeof *rs);
    if (!rs) {
        pc_json_free(root);
        return;
    }
    snprintf(rs->origin, sizeof rs->origin, "%s", origin);
    int n = 0;
    for (const pc_json_t *c = list->child; c; c = c->next)
        n++;
    rs->rule = calloc((size_t)n + 1, sizeof *rs->rule);
    int index = 0;
    for (const pc_json_t *c = list->child; c && !t->cfg.error; c = c->next) {
        int k = parse_rule(c, &rs->rule[rs->n], err, sizeof err);
        index++;
        if (k < 0) {
            t->cfg.error = MPI_ERR_ARG;
            snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg,
                     "selection rules %s, rule %d (line %d): %s", origin, index, c->line, err);
        } else if (k == 0) {
            rs->rule[rs->n].index = index, rs->rule[rs->n].line = c->line;
            rs->n++;
        }
    }
    pc_json_free(root);
    t->rules = rs;
    t->rules_free = rules_free;
}

/* Leaves t->rules set (empty after an error, which the first call reports
 * as a bad setting), so a team reads its rules once. */
static void rules_load(pacoll_team_t *t)
{
    char *text = NULL;
    if (!t->cfg.rules_path[0]) {
        parse_rules(t, pacoll_default_rules_json, "(built in)");
    } else if ((text = read_file(t->cfg.rules_path)) != NULL) {
        parse_rules(t, text, t->cfg.rules_path);
        free(text);
    } else {
        t->cfg.error = MPI_ERR_ARG;
        snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg, "PACOLL_RULES='%s' cannot be read",
                 t->cfg.rules_path);
    }
    if (!t->rules) {
        t->rules = calloc(1, sizeof(pc_rules_t));
        t->rules_free = rules_free;
    }
}

void pc_rules_load(pacoll_team_t *t)
{
    if (!t->rules)
        rules_load(t);
}

int pc_algo_can_run(const pacoll_team_t *t, const pacoll_algo_t *a, const char **why)
{
    if ((a->needs & PACOLL_NEEDS_POW2) && (t->size & (t->size - 1))) {
        *why = "it needs a power-of-two number of processes";
        return 0;
    }
    if ((a->needs & PACOLL_NEEDS_MULTINODE) && t->nnodes < 2) {
        *why = "it needs more than one node";
        return 0;
    }
    if ((a->needs & PACOLL_NEEDS_SHM) && !t->seg.have) {
        *why = "it needs a node shared-memory segment";
        return 0;
    }
    return 1;
}

void pc_cost_ctx(const pacoll_team_t *t, pc_cost_ctx_t *ctx)
{
    ctx->p = t->size;
    ctx->nnodes = t->nnodes;
    ctx->ppn_max = t->ppn_max;
    ctx->ports = t->cfg.chan.ports;
    /* Order-of-magnitude defaults (an InfiniBand-class network, one
     * core's memcpy); the tuner's rules replace the guesses. */
    ctx->alpha = 2e-6, ctx->beta = 1.0 / 10e9;
    ctx->alpha_shm = 2e-7, ctx->beta_shm = 1.0 / 10e9;
    ctx->nic = t->nic >= 0 ? t->nic : t->cfg.nic;
}

static int rule_matches(const pc_rule_t *r, const pacoll_team_t *t, int coll, double m)
{
    return r->coll == coll && m >= r->min_bytes && m <= r->max_bytes && t->size >= r->min_ranks &&
           t->size <= r->max_ranks && t->nnodes >= r->min_nodes && t->nnodes <= r->max_nodes &&
           t->ppn_max >= r->min_ppn && t->ppn_max <= r->max_ppn && (r->nic < 0 || r->nic == t->nic);
}

static int by_cost(pacoll_team_t *t, pacoll_coll_t coll, size_t m)
{
    pc_cost_ctx_t ctx;
    pc_cost_ctx(t, &ctx);
    int best = pc_registry_native(coll);
    double best_cost = INFINITY;
    for (int i = 0; i < pc_registry_count(); i++) {
        const pacoll_algo_t *a = pc_registry_get(i);
        const char *why;
        if (a->coll != coll || !a->cost || !pc_algo_can_run(t, a, &why))
            continue;
        double c = a->cost(&ctx, m);
        if (c < best_cost)
            best = i, best_cost = c;
    }
    return best;
}

int pc_select_why(pacoll_team_t *t, pacoll_coll_t coll, size_t m, char *why, size_t len)
{
    if (!t->rules) /* a sub-team, made inside an algorithm: the rules only */
        rules_load(t);
    const pc_rules_t *rs = t->rules;
    for (int i = 0; rs && i < rs->n; i++) {
        const pc_rule_t *r = &rs->rule[i];
        const char *cant;
        if (rule_matches(r, t, coll, (double)m) && pc_algo_can_run(t, pc_registry_get(r->algo), &cant)) {
            if (why)
                snprintf(why, len, "rule %d, line %d of the selection rules %s", r->index,
                         r->line, rs->origin);
            return r->algo;
        }
    }
    if (why)
        snprintf(why, len, "no rule matched: the cost models");
    return by_cost(t, coll, m);
}

int pc_select(pacoll_team_t *t, pacoll_coll_t coll, size_t m)
{
    return pc_select_why(t, coll, m, NULL, 0);
}
