/*
 * Environment parsing.  Every variable is validated; a bad value records an
 * error (the first one wins) instead of being silently replaced by a default,
 * because a user who typed PACOLL_ALLTOALL=drect must learn it did nothing.
 */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>

#include "alltoallv/sloav.h"
#include "core/algo.h"

static void set_error(pc_config_t *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(pc_config_t *cfg, const char *fmt, ...)
{
    if (cfg->error)
        return;
    cfg->error = MPI_ERR_ARG;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cfg->error_msg, sizeof cfg->error_msg, fmt, ap);
    va_end(ap);
}

int pc_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int pc_parse_size(const char *s, size_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'm' || *end == 'M')
        shift = 20, end++;
    else if (*end == 'g' || *end == 'G')
        shift = 30, end++;
    if (errno || *end != '\0' || v > (~0ULL >> (shift + 1)))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static void read_long(pc_config_t *cfg, const char *var, long lo, long hi, int *dst)
{
    const char *s = getenv(var);
    long v;
    if (!s)
        return;
    if (pc_parse_long(s, lo, hi, &v) != 0) {
        set_error(cfg, "%s='%s' is not valid: expected an integer from %ld to %ld", var, s, lo, hi);
        return;
    }
    *dst = (int)v;
}

/* 1 or 0 for a boolean setting, -1 if s is neither. */
static int parse_bool(const char *s)
{
    if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on"))
        return 1;
    if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off") ||
        !strcmp(s, ""))
        return 0;
    return -1;
}

static void read_bool(pc_config_t *cfg, const char *var, int *dst)
{
    const char *s = getenv(var);
    if (!s)
        return;
    int v = parse_bool(s);
    if (v < 0)
        set_error(cfg, "%s='%s' is not valid: expected 1/yes/true/on or 0/no/false/off", var, s);
    else
        *dst = v;
}

int pc_env_verbose(void)
{
    const char *s = getenv("PACOLL_VERBOSE");
    return s && parse_bool(s) == 1;
}

static void read_size(pc_config_t *cfg, const char *var, size_t lo, size_t *dst)
{
    const char *s = getenv(var);
    size_t v;
    if (!s)
        return;
    if (pc_parse_size(s, &v) != 0 || v < lo) {
        set_error(cfg, "%s='%s' is not valid: expected a byte count >= %zu (suffix k, m or g allowed)",
                  var, s, lo);
        return;
    }
    *dst = v;
}

static void read_node_pattern(pc_config_t *cfg)
{
    const char *s = getenv("PACOLL_NODE_SIZE");
    if (!s)
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v;
        if (n == PC_MAX_NODE_PATTERN || pc_parse_long(tok, 1, 1L << 24, &v) != 0) {
            set_error(cfg,
                      "PACOLL_NODE_SIZE='%s' is not valid: expected k (ranks per virtual node, k >= 1) "
                      "or a list of at most %d sizes such as 3,1,2",
                      s, PC_MAX_NODE_PATTERN);
            return;
        }
        cfg->node_pattern[n++] = (int)v;
    }
    if (n == 0)
        set_error(cfg, "PACOLL_NODE_SIZE is empty: expected k or a list such as 3,1,2");
    cfg->node_pattern_len = n;
}

static void read_forced(pc_config_t *cfg)
{
    static const char *const vars[PACOLL_NCOLL] = {"PACOLL_ALLTOALL", "PACOLL_ALLTOALLV",
                                                   "PACOLL_ALLGATHER", "PACOLL_GATHER"};
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        cfg->forced[c] = -1;
        const char *s = getenv(vars[c]);
        if (!s || !*s || !strcmp(s, "auto"))
            continue;
        int idx = pc_registry_find((pacoll_coll_t)c, s);
        if (idx < 0) {
            char names[PC_MSG_LEN / 2];
            pc_registry_names((pacoll_coll_t)c, names, sizeof names);
            set_error(cfg, "%s='%s' is not an algorithm for %s; valid: auto, %s", vars[c], s,
                      pacoll_coll_name((pacoll_coll_t)c), names);
            continue;
        }
        cfg->forced[c] = idx;
    }
}

/* A variable that names one of n choices: *out = its index, names[0] when
 * unset or empty (each caller's enum lists its values in this order). */
static void read_choice(pc_config_t *cfg, const char *var, const char *const *names, int n,
                        int *out)
{
    const char *s = getenv(var);
    *out = 0;
    if (!s || !*s)
        return;
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) {
            *out = i;
            return;
        }
    char list[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    set_error(cfg, "%s='%s' is not valid: expected %s", var, s, list);
}

static void read_transport(pc_config_t *cfg)
{
    static const char *const names[] = {"auto", "rma"}; /* enum pc_transport */
    read_choice(cfg, "PACOLL_TRANSPORT", names, 2, &cfg->transport);
}

/* PACOLL_SIM_PUT (SMPI only): how a zero-copy write is simulated (rma.c,
 * "RDMA writes under SMPI"). */
static void read_sim_put(pc_config_t *cfg)
{
    static const char *const names[] = {"window", "transfer"}; /* enum pc_sim_put */
    read_choice(cfg, "PACOLL_SIM_PUT", names, 2, &cfg->sim_put);
}

static void read_nic(pc_config_t *cfg)
{
    static const char *const names[] = {"auto", "onload", "offload"}; /* enum pc_nic */
    read_choice(cfg, "PACOLL_NIC", names, 3, &cfg->nic);
}

/* PACOLL_DIRECT_ORDER: whom Direct writes to at each step (exchange.h). */
static void read_direct_order(pc_config_t *cfg)
{
    static const char *const names[] = {"node", "rank"}; /* enum pc_order */
    read_choice(cfg, "PACOLL_DIRECT_ORDER", names, 2, &cfg->direct_order);
}

/* An algorithm the leaders (or lanes) of a hierarchical scheme may run
 * among themselves: anything but another scheme built on the node segment
 * (they would recurse, and there is one rank per node there). */
static int inter_node_algo(pacoll_coll_t coll, const char *name)
{
    int idx = pc_registry_find(coll, name);
    return idx >= 0 && !(pc_registry_get(idx)->needs & PACOLL_NEEDS_SHM) ? idx : -1;
}

static void read_leader_alg(pc_config_t *cfg)
{
    const char *s = getenv("PACOLL_LEADER_ALG");
    cfg->leader_alg[0] = pc_registry_find(PACOLL_ALLTOALL, "direct");
    cfg->leader_alg[1] = pc_registry_find(PACOLL_ALLTOALLV, "direct");
    if (!s || !*s || !strcmp(s, "direct"))
        return;
    if (!strcmp(s, "auto")) {
        cfg->leader_alg_auto = 1;
        return;
    }
    int a = inter_node_algo(PACOLL_ALLTOALL, s), v = inter_node_algo(PACOLL_ALLTOALLV, s);
    if (a < 0 && v < 0) {
        char names[PC_MSG_LEN / 2];
        size_t used = 0;
        names[0] = '\0';
        for (int i = 0; i < pc_registry_count() && used < sizeof names; i++) {
            const pacoll_algo_t *x = pc_registry_get(i);
            int mine = x->coll == PACOLL_ALLTOALL ||
                       (x->coll == PACOLL_ALLTOALLV && pc_registry_find(PACOLL_ALLTOALL, x->name) < 0);
            if (mine && !(x->needs & PACOLL_NEEDS_SHM)) {
                int n = snprintf(names + used, sizeof names - used, ", %s", x->name);
                used += n > 0 ? (size_t)n : 0;
            }
        }
        set_error(cfg,
                  "PACOLL_LEADER_ALG='%s' is not valid: expected auto or an inter-node alltoall "
                  "algorithm (not a hierarchical one): auto%s",
                  s, names);
        return;
    }
    /* A name only one collective knows: the other phase keeps direct. */
    if (a >= 0)
        cfg->leader_alg[0] = a;
    if (v >= 0)
        cfg->leader_alg[1] = v;
}

/* alltoallv sloav / sloavx (docs/SLOAV.md): the radix of the Bruck rounds
 * and the largest element that is relayed rather than sent straight. */
static void read_sloav(pc_config_t *cfg)
{
    cfg->sloav_radix = PC_SLOAV_RADIX_DEFAULT;
    cfg->sloav_linear = PC_SLOAV_LINEAR_DEFAULT;
    read_long(cfg, "PACOLL_SLOAV_RADIX", 2, 1L << 20, &cfg->sloav_radix);
    const char *s = getenv("PACOLL_SLOAV_LINEAR");
    size_t v;
    if (!s)
        return;
    if (pc_parse_size(s, &v) != 0 || v > PC_SLOAV_LINEAR_MAX) {
        set_error(cfg,
                  "PACOLL_SLOAV_LINEAR='%s' is not valid: expected a byte count from 0 to %zu "
                  "(suffix k, m or g allowed)",
                  s, PC_SLOAV_LINEAR_MAX);
        return;
    }
    cfg->sloav_linear = v;
}

/* PACOLL_SIM_COPY_BW (SMPI only, pc_copy_charge reads it): validated here
 * like every variable, so a typo fails the first collective. */
static void read_sim_copy_bw(pc_config_t *cfg)
{
    const char *s = getenv("PACOLL_SIM_COPY_BW");
    double v;
    if (s && pc_parse_positive(s, &v) != 0)
        set_error(cfg, "PACOLL_SIM_COPY_BW='%s' is not valid: expected a positive number of bytes "
                  "per second (such as 2e9)", s);
}

void pc_config_read(pc_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->ports = 4;
    cfg->stripe = 1;
    cfg->timeout = 600.0;
#ifdef OPEN_MPI
    /* Open MPI 4.1's osc/ucx crashes in MPI_Win_free once buffers that
     * stayed attached were freed by the application (measured here):
     * attach for one call only unless the user opts in. */
    cfg->regcache = 0;
#else
    cfg->regcache = 1;
#endif
    cfg->eager_bytes = 4096; /* measured: single-copy wins above 4 KB on one host */
    /* SMPI keeps every simulated rank in one process: a smaller default
     * keeps a 1024-rank simulation within this machine's memory. */
    cfg->slot_budget = PACOLL_UNDER_SMPI ? (size_t)1 << 20 : (size_t)4 << 20;
    cfg->shm_max = (size_t)1 << 30;
    /* rd_rdma: steps exchanging at most this many bytes go copy-based
     * (rdma-allgather §4.2's M_T; measured, see docs/RDMA_ALLGATHER.md).
     * The eager slot size caps it. */
    cfg->rd_threshold = 4096;

    read_forced(cfg);
    read_node_pattern(cfg);
    read_long(cfg, "PACOLL_PORTS", 1, 1024, &cfg->ports);
    read_long(cfg, "PACOLL_STRIPE", 1, 64, &cfg->stripe);
    int timeout = (int)cfg->timeout;
    read_long(cfg, "PACOLL_TIMEOUT", 0, 1L << 30, &timeout);
    cfg->timeout = timeout;
    read_bool(cfg, "PACOLL_STATS", &cfg->stats);
    read_bool(cfg, "PACOLL_VERBOSE", &cfg->verbose);
    read_bool(cfg, "PACOLL_REGCACHE", &cfg->regcache);
    read_transport(cfg);
    read_sim_put(cfg);
    read_nic(cfg);
    read_direct_order(cfg);
    read_leader_alg(cfg);
    read_size(cfg, "PACOLL_EAGER", 0, &cfg->eager_bytes);
    read_size(cfg, "PACOLL_SLOT_BUDGET", 4096, &cfg->slot_budget);
    read_size(cfg, "PACOLL_SHM_MAX", 4096, &cfg->shm_max);
    read_size(cfg, "PACOLL_RD_THRESHOLD", 0, &cfg->rd_threshold);
    /* pap_*: their copy-based threshold follows PACOLL_EAGER unless set
     * (config.h says why, above enum pc_order) */
    cfg->pap_threshold = cfg->eager_bytes;
    read_size(cfg, "PACOLL_PAP_THRESHOLD", 0, &cfg->pap_threshold);
    int grace_us = -1;
    read_long(cfg, "PACOLL_PAP_GRACE_US", 0, 1L << 30, &grace_us);
    cfg->pap_grace = grace_us < 0 ? -1.0 : grace_us * 1e-6;
    cfg->sim_tested = 0;
    read_long(cfg, "PACOLL_SIM_TESTED", 0, 1, &cfg->sim_tested);
    read_sloav(cfg);
    read_sim_copy_bw(cfg);
    const char *rules = getenv("PACOLL_RULES");
    if (rules)
        snprintf(cfg->rules_path, sizeof cfg->rules_path, "%s", rules);
}
