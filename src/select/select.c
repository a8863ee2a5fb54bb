/* Selection rules and cost models: see select.h. */
#include "select/select.h"

#include <math.h>

#include "engine/hier.h"
#include "select/json.h"

extern const char pacoll_default_rules_json[];

typedef struct pc_rule {
    int coll, algo;                 /* registry index of the algorithm */
    double min_bytes, max_bytes;    /* bytes per block */
    double min_ranks, max_ranks;
    double min_nodes, max_nodes;
    double min_ppn, max_ppn;        /* largest node */
} pc_rule_t;

typedef struct pc_rules {
    pc_rule_t *rule;
    int n;
} pc_rules_t;

static double num_or(const pc_json_t *o, const char *key, double dflt)
{
    const pc_json_t *v = pc_json_get(o, key);
    return v && v->type == PC_JNUM ? v->num : dflt;
}

static int parse_rule(const pc_json_t *o, pc_rule_t *r, char *err, size_t errlen)
{
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

static int parse_rules(pacoll_team_t *t, const char *text, const char *origin)
{
    char err[256];
    pc_json_t *root = pc_json_parse(text, err, sizeof err);
    const pc_json_t *list = pc_json_get(root, "rules");
    if (!root || !list || list->type != PC_JARR) {
        snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg, "selection rules %s: %s", origin,
                 root ? "no \"rules\" array" : err);
        t->cfg.error = MPI_ERR_ARG;
        pc_json_free(root);
        return MPI_SUCCESS; /* reported at the first call, like any bad setting */
    }
    pc_rules_t *rs = calloc(1, sizeof *rs);
    int n = 0;
    for (const pc_json_t *c = list->child; c; c = c->next)
        n++;
    rs->rule = calloc((size_t)n + 1, sizeof *rs->rule);
    for (const pc_json_t *c = list->child; c && !t->cfg.error; c = c->next) {
        int k = parse_rule(c, &rs->rule[rs->n], err, sizeof err);
        if (k < 0) {
            t->cfg.error = MPI_ERR_ARG;
            snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg, "selection rules %s, rule %d: %s",
                     origin, rs->n + 1, err);
        } else if (k == 0) {
            rs->n++;
        }
    }
    pc_json_free(root);
    t->rules = rs;
    return MPI_SUCCESS;
}

int pc_rules_load(pacoll_team_t *t)
{
    if (!t->cfg.rules_path[0])
        return parse_rules(t, pacoll_default_rules_json, "(built in)");
    char *text = read_file(t->cfg.rules_path);
    if (!text) {
        t->cfg.error = MPI_ERR_ARG;
        snprintf(t->cfg.error_msg, sizeof t->cfg.error_msg, "PACOLL_RULES='%s' cannot be read",
                 t->cfg.rules_path);
        return MPI_SUCCESS;
    }
    int rc = parse_rules(t, text, t->cfg.rules_path);
    free(text);
    return rc;
}

void pc_rules_free(pacoll_team_t *t)
{
    pc_rules_t *rs = t->rules;
    if (rs)
        free(rs->rule);
    free(rs);
    t->rules = NULL;
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
    if ((a->needs & PACOLL_NEEDS_SHM) && !t->shm.have) {
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
    ctx->ports = t->cfg.ports;
    /* Order-of-magnitude defaults (an InfiniBand-class network, one
     * core's memcpy); the tuner's rules replace the guesses. */
    ctx->alpha = 2e-6, ctx->beta = 1.0 / 10e9;
    ctx->alpha_shm = 2e-7, ctx->beta_shm = 1.0 / 10e9;
    ctx->nic = t->nic >= 0 ? t->nic : t->cfg.nic; /* never measures from here */
}

static int rule_matches(const pc_rule_t *r, const pacoll_team_t *t, int coll, double m)
{
    return r->coll == coll && m >= r->min_bytes && m <= r->max_bytes && t->size >= r->min_ranks &&
           t->size <= r->max_ranks && t->nnodes >= r->min_nodes && t->nnodes <= r->max_nodes &&
           t->ppn_max >= r->min_ppn && t->ppn_max <= r->max_ppn;
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

/* PACOLL_NIC (multicore slides): on several nodes of several ranks, the
 * network interface's nature picks the alltoall scheme ahead of the rules
 * (they know sizes, ranks and nodes, not the interface): onload ->
 * multileader, offload -> leader, up to the block size where each was
 * measured to win (docs/MULTICORE.md).  On auto the first such call
 * measures (collective: every rank selects at the same call); with no NIC
 * between the nodes (one host, virtual nodes) nothing is preferred. */
static int nic_choice(pacoll_team_t *t, pacoll_coll_t coll, size_t m)
{
    if (coll != PACOLL_ALLTOALL || t->nnodes < 2 || t->ppn_max < 2)
        return -1;
    int kind = pc_nic_kind(t);
    const char *name = kind == PC_NIC_ONLOAD && m <= PC_NIC_ONLOAD_MAX_BYTES     ? "multileader"
                       : kind == PC_NIC_OFFLOAD && m <= PC_NIC_OFFLOAD_MAX_BYTES ? "leader"
                                                                                 : NULL;
    int idx = name ? pc_registry_find(coll, name) : -1;
    const char *why;
    return idx >= 0 && pc_algo_can_run(t, pc_registry_get(idx), &why) ? idx : -1;
}

int pc_select(pacoll_team_t *t, pacoll_coll_t coll, size_t m)
{
    int nic = nic_choice(t, coll, m);
    if (nic >= 0)
        return nic;
    const pc_rules_t *rs = t->rules;
    for (int i = 0; rs && i < rs->n; i++) {
        const pc_rule_t *r = &rs->rule[i];
        const char *why;
        if (rule_matches(r, t, coll, (double)m) && pc_algo_can_run(t, pc_registry_get(r->algo), &why))
            return r->algo;
    }
    return by_cost(t, coll, m);
}
