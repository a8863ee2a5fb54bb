/* Message and clock helpers used by every layer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "base/internal.h"

#if PACOLL_UNDER_SMPI
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>
#endif

void pc_shape_words(int ranks, int nodes, int ppn_max, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%d rank%s on %d node%s", ranks, ranks == 1 ? "" : "s", nodes,
                     nodes == 1 ? "" : "s");
    if (nodes > 1 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", at most %d on one", ppn_max);
}

void pc_log(const char *fmt, ...)
{
    char line[PC_MSG_LEN + 64];
    int rank = -1, init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = snprintf(line, sizeof line, "pacoll[%d]: ", rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

double pc_deadline_clock(void)
{
#if PACOLL_UNDER_SMPI
    return simgrid_get_clock(); /* no simcall: reading it costs no time */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

void pc_sim_delay(double seconds)
{
#if PACOLL_UNDER_SMPI
    if (seconds > 0)
        smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#else
    PC_UNUSED(seconds);
#endif
}

int pc_parse_positive(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end != '\0' || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

#if PACOLL_UNDER_SMPI
/* Read once per simulated rank (SMPI privatises a linked-in library's
 * statics per rank): a constant of the run, like the platform file it goes
 * with.  A malformed value has already failed the first collective
 * (config.c); the default here only keeps this function total. */
static double sim_copy_bw(void)
{
    static double bw = 0;
    if (bw == 0 && pc_parse_positive(getenv("PACOLL_SIM_COPY_BW"), &bw) != 0)
        bw = PC_SIM_COPY_BW_DEFAULT;
    return bw;
}
#endif

#if PACOLL_UNDER_SMPI
/* Like sim_copy_bw, one per simulated rank: only PACOLL_TRACE reads it. */
static double copy_charged;

/* The fair model's settings, read once per simulated rank as above, and
 * the copy-out already charged by the platform and not yet refunded
 * (pc_copy_refund).  Per simulated rank, SMPI only: simulation accounting,
 * not library state. */
typedef struct sim_fair {
    int read;
    double limit; /* PACOLL_SIM_FAIR: the eager limit, 0 = off */
    double shm_lat, shm_bw;
    size_t credit;
} sim_fair_t;

static sim_fair_t *sim_fair(void)
{
    static sim_fair_t f;
    if (!f.read) {
        if (pc_parse_positive(getenv("PACOLL_SIM_FAIR"), &f.limit) != 0)
            f.limit = 0;
        if (pc_parse_positive(getenv("PACOLL_SIM_SHM_LAT"), &f.shm_lat) != 0)
            f.shm_lat = PC_SIM_SHM_LAT_DEFAULT;
        if (pc_parse_positive(getenv("PACOLL_SIM_SHM_BW"), &f.shm_bw) != 0)
            f.shm_bw = PC_SIM_SHM_BW_DEFAULT;
        f.read = 1;
    }
    return &f;
}
#endif

void pc_copy_charge(size_t n)
{
#if PACOLL_UNDER_SMPI
    sim_fair_t *f = sim_fair();
    size_t paid = f->credit < n ? f->credit : n;
    f->credit -= paid;
    double s = (double)(n - paid) / sim_copy_bw();
    copy_charged += s;
    pc_sim_delay(s);
#else
    PC_UNUSED(n);
#endif
}

void pc_copy_refund(size_t n)
{
#if PACOLL_UNDER_SMPI
    sim_fair_t *f = sim_fair();
    if ((double)n < f->limit) /* smpi/or charges only what was sent eagerly */
        f->credit += n;
#else
    PC_UNUSED(n);
#endif
}

void pc_copy_charge_local(size_t n)
{
#if PACOLL_UNDER_SMPI
    if (sim_fair()->limit > 0)
        return;
#endif
    pc_copy_charge(n);
}

#if PACOLL_UNDER_SMPI
/* What a peer's intra-node message of n bytes pays besides its copies. */
static double shm_message_time(const sim_fair_t *f, size_t n) { return f->shm_lat + (double)n / f->shm_bw; }
#endif

void pc_sim_shm_message(size_t n)
{
#if PACOLL_UNDER_SMPI
    sim_fair_t *f = sim_fair();
    if (f->limit > 0)
        pc_sim_delay(shm_message_time(f, n));
#else
    PC_UNUSED(n);
#endif
}

int pc_sim_fair_rendezvous(size_t n)
{
#if PACOLL_UNDER_SMPI
    double limit = sim_fair()->limit;
    return limit > 0 && (double)n >= limit;
#else
    PC_UNUSED(n);
    return 0;
#endif
}

double pc_sim_shm_visible_at(size_t n)
{
#if PACOLL_UNDER_SMPI
    sim_fair_t *f = sim_fair();
    if (f->limit > 0)
        return simgrid_get_clock() + shm_message_time(f, n);
#else
    PC_UNUSED(n);
#endif
    return 0;
}

int pc_sim_shm_visible(double at, int may_wait)
{
#if PACOLL_UNDER_SMPI
    double now = simgrid_get_clock();
    if (at <= now)
        return 1;
    if (!may_wait)
        return 0;
    pc_sim_delay(at - now);
#else
    PC_UNUSED(at), PC_UNUSED(may_wait);
#endif
    return 1;
}

double pc_copy_charged(void)
{
#if PACOLL_UNDER_SMPI
    return copy_charged;
#else
    return 0;
#endif
}

double pc_trace_clock(void)
{
#if PACOLL_UNDER_SMPI
    return simgrid_get_clock();
#else
    return PMPI_Wtime();
#endif
}

void pc_charge_settle(void)
{
#if PACOLL_UNDER_SMPI
    PMPI_Wtime();
#endif
}

char *pc_file_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) == (size_t)n)
            buf[n] = '\0';
        else
            free(buf), buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}
