/*
 * The shared configuration and the algorithms' own parameters.  Every
 * variable is validated (base/param.c); a bad value records an error (the
 * first one wins) instead of being silently replaced by a default, because
 * a user who typed PACOLL_ALLTOALL=drect must learn it did nothing.
 */
#include "core/config.h"

#include <stdarg.h>
#include <unistd.h>

#include "channel/platform.h"
#include "core/algo.h"

/* ------------------------------------------------ shared parameters */

static const char *const transport_names[] = {"auto", "rma", "ucx"}; /* enum pc_transport_choice */
static const char *const nic_names[] = {"auto", "onload", "offload"}; /* enum pc_nic */

static const pc_param_t p_ports = {
    .env = "PACOLL_PORTS", .kind = PC_PARAM_INT, .dflt = 4, .lo = 1, .hi = 1024,
    .help = "one-sided transfers in flight (the multi-port k ports), a window; pap_* keep one per peer"};
static const pc_param_t p_stripe = {
    .env = "PACOLL_STRIPE", .kind = PC_PARAM_INT, .dflt = 1, .lo = 1, .hi = 64,
    .help = "pieces of a large one-sided put (multi-rail striping)"};
/* MPI has no deadline: a rank may be late by hours (a checkpoint, I/O).
 * The deadline is opt-in, for tests and debugging; a dead peer on the host
 * is found without it (channel/wait.c). */
static const pc_param_t p_timeout = {
    .env = "PACOLL_TIMEOUT", .kind = PC_PARAM_INT, .dflt = 0, .lo = 0, .hi = 0x1p30,
    .help = "opt-in deadline: seconds a rank may wait in one collective before pacoll aborts, "
            "naming the peer; 0 = wait as long as it takes, as MPI does"};
static const pc_param_t p_stats = {
    .env = "PACOLL_STATS", .kind = PC_PARAM_BOOL, .dflt = 0,
    .help = "rank 0 prints calls and bytes per algorithm at MPI_Finalize"};
/* Learning in place (select/learn.h): by default only where the selection
 * rules were not measured, so a shape they cover keeps their choice. */
static int parse_learn(const char *s, double *v, char *err, size_t errlen)
{
    int b = pc_parse_bool(s);
    if (b >= 0 && *s) {
        *v = b ? PC_LEARNING_ON : PC_LEARNING_OFF;
        return 0;
    }
    if (!strcmp(s, "auto") || !*s) {
        *v = PC_LEARNING_UNMEASURED;
        return 0;
    }
    snprintf(err, errlen, "0, 1 or auto");
    return -1;
}
static const pc_param_t p_learn = {
    .env = "PACOLL_LEARN", .kind = PC_PARAM_CUSTOM, .dflt = PC_LEARNING_UNMEASURED,
    .parse = parse_learn, .dflt_text = "auto",
    .help = "auto learns in place: the first calls of each collective and size try candidate "
            "algorithms, the MPI library's included, and keep the fastest; auto: on shapes no "
            "selection rule covers, 1: everywhere, 0: never (docs/AUTO.md)"};
static const pc_param_t p_verbose = {
    .env = "PACOLL_VERBOSE", .kind = PC_PARAM_BOOL, .dflt = 0,
    .help = "explain choices and hand-offs to the MPI library, once per reason"};
static const pc_param_t p_trace = {
    .env = "PACOLL_TRACE", .kind = PC_PARAM_INT, .dflt = 0, .lo = 0, .hi = 2,
    .help = "one line per call: where its time went (1: rank 0, 2: every rank)"};
/* Open MPI 4.1's osc/ucx crashes in MPI_Win_free once buffers that stayed
 * attached were freed by the application: attach for one call only there,
 * unless the user opts in (docs/ARCHITECTURE.md). */
#ifdef OPEN_MPI
#define PC_REGCACHE_DEFAULT 0
#else
#define PC_REGCACHE_DEFAULT 1
#endif
static const pc_param_t p_regcache = {
    .env = "PACOLL_REGCACHE", .kind = PC_PARAM_BOOL, .dflt = PC_REGCACHE_DEFAULT,
    .help = "keep user buffers attached between calls (registration cache)"};
static const pc_param_t p_transport = {
    .env = "PACOLL_TRANSPORT", .kind = PC_PARAM_CHOICE, .dflt = PC_TRANSPORT_AUTO,
    .choices = transport_names, .nchoices = 3,
    .help = "auto: shared memory on a host, UCX between hosts where the build has it (else, or "
            "where UCX does not come up, MPI RMA); rma: MPI RMA everywhere; ucx: UCX for every "
            "peer (MPI RMA where UCX cannot be used)"};
/* Single-copy wins above 4 KB on one host (docs/ARCHITECTURE.md). */
static const pc_param_t p_eager = {
    .env = "PACOLL_EAGER", .kind = PC_PARAM_SIZE, .dflt = 4096, .lo = 0, .hi = 0x1p63,
    .help = "largest block sent copy-based through the pre-registered slots (to a peer on the "
            "host, or over MPI RMA; PACOLL_NET_EAGER over UCX)"};
/* A copy-based block to a peer on another host costs a copy at each end;
 * a zero-copy one waits for the receiver's advertisement, one network
 * latency, which over a network outweighs copying some KB (where MPI
 * libraries over InfiniBand put their eager limits, 12-17 KB; over TCP
 * 8 KB went 0.9x -> 1.3-1.6x of the library's alltoall:
 * docs/ARCHITECTURE.md, "The ucx transport"). */
static const pc_param_t p_net_eager = {
    .env = "PACOLL_NET_EAGER", .kind = PC_PARAM_SIZE, .dflt = 16384, .lo = 0, .hi = 0x1p63,
    .help = "ucx transport: largest block sent copy-based through the pre-registered slots (above "
            "it, zero-copy)"};
/* Over TCP UCX's rendezvous costs several round trips on top of pacoll's
 * own advertisement, and an eager message up to 128 KB was faster than
 * the MPI library's own over the same transport (docs/ARCHITECTURE.md,
 * "The ucx transport"); 64 KB also bounds the copies on fabrics with
 * hardware RMA. */
static const pc_param_t p_zcopy_eager = {
    .env = "PACOLL_ZCOPY_EAGER", .kind = PC_PARAM_SIZE, .dflt = 65536, .lo = 0, .hi = 0x1p63,
    .help = "ucx transport: largest zero-copy block sent as one eager message (above it, "
            "UCX's rendezvous)"};
/* The default is the platform's (smaller where one process runs every
 * rank: channel/platform.h). */
static const pc_param_t p_slot_budget = {
    .env = "PACOLL_SLOT_BUDGET", .kind = PC_PARAM_SIZE,
    .dflt = (double)PC_PLATFORM_SLOT_BUDGET, .lo = 4096, .hi = 0x1p63,
    .help = "bytes of eager slots per rank (3 generations x peers)"};
static const pc_param_t p_shm_max = {
    .env = "PACOLL_SHM_MAX", .kind = PC_PARAM_SIZE, .dflt = 0x1p30, .lo = 4096, .hi = 0x1p63,
    .help = "largest node shared-memory segment"};
static const pc_param_t p_nic = {
    .env = "PACOLL_NIC", .kind = PC_PARAM_CHOICE, .dflt = PC_NIC_AUTO, .choices = nic_names,
    .nchoices = 3, .help = "what the network interface does when more cores push (a rule condition)"};

/* Settings read by their own code below (or by the profiler), described
 * here so that pacoll-info --settings lists every setting. */
static const pc_param_t p_forced[PACOLL_NCOLL] = {
    {.env = "PACOLL_ALLTOALL", .kind = PC_PARAM_TEXT, .dflt_text = "auto",
     .help = "alltoall's algorithm: auto (the selection rules), native (the MPI library's) or a name"},
    {.env = "PACOLL_ALLTOALLV", .kind = PC_PARAM_TEXT, .dflt_text = "auto",
     .help = "alltoallv's algorithm: auto (the selection rules), native (the MPI library's) or a name"},
    {.env = "PACOLL_ALLGATHER", .kind = PC_PARAM_TEXT, .dflt_text = "auto",
     .help = "allgather's algorithm: auto (the selection rules), native (the MPI library's) or a name"},
    {.env = "PACOLL_GATHER", .kind = PC_PARAM_TEXT, .dflt_text = "auto",
     .help = "gather's algorithm: auto (the selection rules), native (the MPI library's) or a name"},
};
static const pc_param_t p_node_size = {
    .env = "PACOLL_NODE_SIZE", .kind = PC_PARAM_TEXT, .dflt_text = "physical nodes",
    .help = "k: virtual nodes of k consecutive world ranks; or a list such as 3,1,2 (sizes in turn)"};
static const pc_param_t p_rules = {
    .env = "PACOLL_RULES", .kind = PC_PARAM_TEXT, .dflt_text = "built in",
    .help = "a selection-rules file (pacoll-tune writes one) instead of the built-in rules, entirely"};
static const pc_param_t p_profile = {
    .env = "PACOLL_PROFILE", .kind = PC_PARAM_TEXT, .dflt_text = "off",
    .help = "file: the arrival profiler's JSON, and a summary at MPI_Finalize"};

static const pc_param_t p_learn_file = {
    .env = "PACOLL_LEARN_FILE", .kind = PC_PARAM_TEXT, .dflt_text = "none",
    .help = "where auto learns in place: what was learned is read from this file at the start "
            "and written to it by rank 0 at MPI_Finalize (JSON)"};

static const pc_param_t *const text_params[] = {&p_forced[0], &p_forced[1], &p_forced[2],
                                                &p_forced[3], &p_node_size, &p_rules, &p_profile,
                                                &p_learn_file, NULL};

/* The PACOLL_* variables pacoll reads that are not one value of a
 * descriptor (lists, paths, algorithm names, pacoll-run's own), for the
 * warning about unknown names below; tools/lint/params.py holds this list
 * to every name src/ reads. */
static const char *const other_names[] = {
    "PACOLL_ALLTOALL", "PACOLL_ALLTOALLV", "PACOLL_ALLGATHER", "PACOLL_GATHER",
    "PACOLL_NODE_SIZE", "PACOLL_RULES",    "PACOLL_PROFILE",   "PACOLL_RUN_CHECK",
    "PACOLL_LEARN_FILE", NULL};

/* (the platform's own settings are listed between the two) */
static const pc_param_t *const shared_params[] = {
    &p_ports, &p_stripe, &p_timeout, &p_stats, &p_learn, &p_verbose, &p_trace, &p_regcache, &p_transport,
    NULL};
static const pc_param_t *const shared_params_2[] = {&p_eager, &p_net_eager, &p_zcopy_eager, &p_slot_budget, &p_shm_max, &p_nic,
                                                    NULL};

/* ---------------------------------------------------------- reading */

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

static double read_param(pc_config_t *cfg, const pc_param_t *p)
{
    double v;
    char err[PC_MSG_LEN];
    if (pc_param_read(p, &v, err, sizeof err) != 0)
        set_error(cfg, "%s", err);
    return v;
}

/* k, or sizes separated by single commas: every field a number (an empty
 * field, as in "1,,2" or "2,", is an error, not skipped). */
static void read_node_pattern(pc_config_t *cfg)
{
    const char *s = getenv(p_node_size.env);
    if (!s)
        return;
    if (!*s) {
        set_error(cfg, "PACOLL_NODE_SIZE is empty: expected k or a list such as 3,1,2");
        return;
    }
    int n = 0;
    for (const char *f = s;; f++) {
        const char *end = strchr(f, ',');
        size_t len = end ? (size_t)(end - f) : strlen(f);
        char field[24];
        long v;
        if (len > 0 && len < sizeof field)
            memcpy(field, f, len), field[len] = '\0';
        if (n == PC_MAX_NODE_PATTERN || len == 0 || len >= sizeof field ||
            pc_parse_long(field, 1, 1L << 24, &v) != 0) {
            set_error(cfg,
                      "PACOLL_NODE_SIZE='%s' is not valid: expected k (ranks per virtual node, k >= 1) "
                      "or a list of at most %d such sizes separated by single commas, such as "
                      "3,1,2",
                      s, PC_MAX_NODE_PATTERN);
            cfg->node_pattern_len = 0;
            return;
        }
        cfg->node_pattern[n++] = (int)v;
        if (!end)
            break;
        f = end;
    }
    cfg->node_pattern_len = n;
}

/* Open MPI 4.1's osc/ucx fails in MPI_Win_attach (MPI_ERR_INTERN) or
 * crashes in MPI_Win_free at finalize once buffers stay attached to the
 * dynamic window between calls (docs/ARCHITECTURE.md): with every peer
 * reached through MPI RMA, the registration cache is refused there.
 * Judged from the library that runs, not the one built against. */
static void check_regcache(pc_config_t *cfg)
{
    int major = 0, minor = 0;
    char name[128];
    if (!PC_PLATFORM.guards || !cfg->chan.regcache || cfg->chan.transport != PC_TRANSPORT_RMA)
        return;
    if (pc_mpi_running(&major, &minor, name, sizeof name) == PC_MPI_OPENMPI && major == 4 &&
        minor == 1)
        set_error(cfg,
                  "PACOLL_REGCACHE=1 with PACOLL_TRANSPORT=rma is refused on %s: its osc/ucx fails "
                  "in MPI_Win_attach or crashes in MPI_Win_free once buffers stay attached; set "
                  "PACOLL_REGCACHE=0 or PACOLL_TRANSPORT=auto (docs/ARCHITECTURE.md)",
                  name);
}

static void read_forced(pc_config_t *cfg)
{
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        const char *var = p_forced[c].env;
        cfg->forced[c] = -1;
        const char *s = getenv(var);
        if (!s || !*s || !strcmp(s, "auto"))
            continue;
        int idx = pc_registry_find((pacoll_coll_t)c, s);
        if (idx < 0) {
            char names[PC_MSG_LEN / 2];
            pc_registry_names((pacoll_coll_t)c, names, sizeof names);
            set_error(cfg, "%s='%s' is not an algorithm for %s; valid: auto, %s", var, s,
                      pacoll_coll_name((pacoll_coll_t)c), names);
            continue;
        }
        cfg->forced[c] = idx;
    }
}

/* Calls fn for every algorithm parameter once (several algorithms may
 * share one: the Direct engine's order). */
static void each_algo_param(void (*fn)(const pc_param_t *p, const char *owner, void *arg), void *arg)
{
    const pc_param_t *seen[PC_MAX_PARAMS];
    int nseen = 0;
    for (int i = 0; i < pc_registry_count(); i++) {
        const pacoll_algo_t *a = pc_registry_get(i);
        for (const pc_param_t *const *p = a->params; p && *p; p++) {
            int dup = 0;
            for (int k = 0; k < nseen && !dup; k++)
                dup = seen[k] == *p;
            if (dup || nseen == PC_MAX_PARAMS)
                continue;
            seen[nseen++] = *p;
            fn(*p, a->name, arg);
        }
    }
}

void pc_params_each(void (*fn)(const pc_param_t *p, const char *owner, void *arg), void *arg)
{
    for (const pc_param_t *const *p = text_params; *p; p++)
        fn(*p, NULL, arg);
    for (const pc_param_t *const *p = shared_params; *p; p++)
        fn(*p, NULL, arg);
    for (const pc_param_t *const *p = pc_platform_settings; *p; p++)
        fn(*p, NULL, arg);
    for (const pc_param_t *const *p = shared_params_2; *p; p++)
        fn(*p, NULL, arg);
    each_algo_param(fn, arg);
}

static void read_algo_param(const pc_param_t *p, const char *owner, void *arg)
{
    pc_config_t *cfg = arg;
    PC_UNUSED(owner);
    double v = read_param(cfg, p);
    cfg->param[cfg->nparams++] = (pc_param_value_t){.p = p, .v = v};
    /* the slots must hold the largest copy-based block asked for */
    if ((p->flags & PC_PARAM_SLOT) && v >= 0 && (size_t)v > cfg->chan.slot_want)
        cfg->chan.slot_want = (size_t)v;
}

void pc_config_read(pc_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    pc_chan_cfg_t *ch = &cfg->chan;
    read_forced(cfg);
    read_node_pattern(cfg);
    ch->ports = (int)read_param(cfg, &p_ports);
    ch->stripe = (int)read_param(cfg, &p_stripe);
    ch->timeout = read_param(cfg, &p_timeout);
    cfg->stats = (int)read_param(cfg, &p_stats);
    cfg->learn = (int)read_param(cfg, &p_learn);
    ch->verbose = (int)read_param(cfg, &p_verbose);
    ch->trace = (int)read_param(cfg, &p_trace);
    ch->regcache = (int)read_param(cfg, &p_regcache);
    ch->transport = (int)read_param(cfg, &p_transport);
    for (int i = 0; i < PC_PLATFORM_SETTINGS && pc_platform_settings[i]; i++)
        ch->platform[i] = read_param(cfg, pc_platform_settings[i]);
    ch->eager_bytes = (size_t)read_param(cfg, &p_eager);
    ch->net_eager = (size_t)read_param(cfg, &p_net_eager);
    ch->zcopy_eager = (size_t)read_param(cfg, &p_zcopy_eager);
    ch->slot_budget = (size_t)read_param(cfg, &p_slot_budget);
    ch->shm_max = (size_t)read_param(cfg, &p_shm_max);
    cfg->nic = (int)read_param(cfg, &p_nic);
    ch->slot_want = ch->eager_bytes;
    check_regcache(cfg);
    each_algo_param(read_algo_param, cfg);
    const char *rules = getenv(p_rules.env);
    if (rules)
        snprintf(cfg->rules_path, sizeof cfg->rules_path, "%s", rules);
    const char *learned = getenv(p_learn_file.env);
    if (learned)
        snprintf(cfg->learn_file, sizeof cfg->learn_file, "%s", learned);
}

/* ------------------------------------------- unknown PACOLL_* names */

/* Edit distance (insertions, deletions, substitutions) of two names of
 * at most 63 characters; longer ones count as far apart. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 1 << 20;
    int row[64];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up, row[j] = best;
        }
    }
    return row[m];
}

typedef struct {
    const char *name;    /* the unknown variable's name */
    int known;           /* it is a setting after all */
    const char *closest; /* the nearest setting so far */
    int dist;
} near_t;

static void consider(near_t *q, const char *setting)
{
    if (q->known)
        return;
    if (!strcmp(q->name, setting)) {
        q->known = 1;
        return;
    }
    int d = distance(q->name, setting);
    if (d < q->dist)
        q->dist = d, q->closest = setting;
}

static void consider_param(const pc_param_t *p, const char *owner, void *arg)
{
    PC_UNUSED(owner);
    consider(arg, p->env);
}

void pc_config_warn_unknown(void)
{
    extern char **environ;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 || !environ)
        return;
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        char name[128];
        if (strncmp(*e, "PACOLL_", 7) != 0 || !eq || (size_t)(eq - *e) >= sizeof name)
            continue;
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = '\0';
        /* UCX's own settings for pacoll's UCX context, PACOLL_ then UCX_<name> (channel/ucx.c) */
        if (strncmp(name + 7, "UCX_", 4) == 0)
            continue;
        near_t q = {.name = name, .dist = 1 << 20};
        pc_params_each(consider_param, &q);
        for (const char *const *o = other_names; *o; o++)
            consider(&q, *o);
        if (q.known)
            continue;
        /* a suggestion only when it is plausibly what was meant */
        if (q.closest && q.dist <= 3 && (size_t)q.dist * 3 <= strlen(name))
            fprintf(stderr, "pacoll: %s is not a pacoll setting; did you mean %s?\n", name,
                    q.closest);
        else
            fprintf(stderr,
                    "pacoll: %s is not a pacoll setting (pacoll-info --settings and "
                    "docs/ENV.md list them)\n",
                    name);
    }
    fflush(stderr);
}
