/*
 * The profiler's output: every communicator's rank 0 formats its call
 * sites (JSON objects and table rows), world rank 0 gathers them, writes
 * PACOLL_PROFILE's file and prints the Table-1-style summary on stderr,
 * each line prefixed "pacoll-profile:".  The caller is resolved with dladdr
 * on the rank that formats it: the object (executable or library), the
 * address's offset in it (what addr2line takes; python -m
 * pacoll_report.profile turns it into file:line) and the nearest exported
 * symbol when there is one.
 */
#include "profile/prof_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

/* ---- a growing string ---- */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int failed;
} sbuf_t;

static void sb_printf(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
    for (;;) {
        if (b->failed)
            return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = 2 * (b->cap + (size_t)n) + 256;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s, b->cap = cap;
    }
}

/* A JSON string literal (names come from the program: escape them). */
static void sb_json_string(sbuf_t *b, const char *s)
{
    sb_printf(b, "\"");
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            sb_printf(b, "\\%c", ch);
        else if (ch < 0x20)
            sb_printf(b, "\\u%04x", ch);
        else
            sb_printf(b, "%c", ch);
    }
    sb_printf(b, "\"");
}

/* A number JSON accepts (no inf, no nan). */
static double finite_or_zero(double x)
{
    return isfinite(x) ? x : 0;
}

/* ---- the caller ---- */
typedef struct caller {
    char object[512], symbol[256], label[800];
    uintptr_t offset, sym_offset;
} caller_t;

static void resolve(const void *ra, caller_t *c)
{
    Dl_info info;
    memset(c, 0, sizeof *c);
    c->offset = (uintptr_t)ra;
    if (ra && dladdr(ra, &info)) {
        c->offset = (uintptr_t)ra - (uintptr_t)info.dli_fbase;
        if (info.dli_fname && strchr(info.dli_fname, '/')) {
            snprintf(c->object, sizeof c->object, "%s", info.dli_fname);
        } else { /* the main program: glibc gives its argv[0] or "" */
            ssize_t n = readlink("/proc/self/exe", c->object, sizeof c->object - 1);
            c->object[n > 0 ? n : 0] = '\0';
            if (n <= 0 && info.dli_fname)
                snprintf(c->object, sizeof c->object, "%s", info.dli_fname);
        }
        if (info.dli_sname) {
            snprintf(c->symbol, sizeof c->symbol, "%s", info.dli_sname);
            c->sym_offset = (uintptr_t)ra - (uintptr_t)info.dli_saddr;
        }
    }
    const char *base = strrchr(c->object, '/');
    base = base ? base + 1 : c->object;
    if (c->symbol[0])
        snprintf(c->label, sizeof c->label, "%s+0x%lx", c->symbol, (unsigned long)c->sym_offset);
    else
        snprintf(c->label, sizeof c->label, "%s+0x%lx", *base ? base : "?",
                 (unsigned long)c->offset);
}

static void comm_label(const pc_prof_result_t *r, char *out, size_t len)
{
    if (r->comm_name[0])
        snprintf(out, len, "%s", r->comm_name);
    else
        snprintf(out, len, "comm%llu.%d", (unsigned long long)r->comm_id, r->world_leader);
}

/* ---- one call site ---- */
static void format_site(const pc_prof_t *p, const pc_prof_result_t *r, sbuf_t *js, sbuf_t *tab)
{
    caller_t who;
    resolve(r->ra, &who);
    char comm[MPI_MAX_OBJECT_NAME + 32];
    comm_label(r, comm, sizeof comm);
    double calls = (double)r->calls;
    double bytes = r->bytes_sum / calls, T = pc_prof_T(p, bytes);
    double dbar = r->dbar_sum / calls, theta = r->theta_sum / calls;
    double fd = T > 0 ? dbar / T : 0, ft = T > 0 ? theta / T : 0;

    sb_printf(js, ",\n    {\"collective\": \"%s\", \"comm\": ",
              pc_prof_kind_name(r->kind));
    sb_json_string(js, comm);
    sb_printf(js, ", \"comm_id\": %llu, \"comm_size\": %d, \"comm_leader_world_rank\": %d,\n",
              (unsigned long long)r->comm_id, r->comm_size, r->world_leader);
    sb_printf(js, "     \"caller\": {\"address\": \"%p\", \"object\": ", r->ra);
    sb_json_string(js, who.object);
    sb_printf(js, ", \"offset\": \"0x%lx\", \"symbol\": ", (unsigned long)who.offset);
    sb_json_string(js, who.symbol);
    sb_printf(js, ", \"symbol_offset\": \"0x%lx\", \"label\": ", (unsigned long)who.sym_offset);
    sb_json_string(js, who.label);
    sb_printf(js,
              "},\n     \"calls\": %llu, \"calls_mismatch\": %s, \"avg_bytes\": %.17g, "
              "\"T_s\": %.9g,\n     \"avg_dbar_s\": %.9g, \"avg_theta_s\": %.9g, "
              "\"max_theta_s\": %.9g, \"avg_duration_s\": %.9g,\n"
              "     \"avg_dbar_over_T\": %.6g, \"avg_theta_over_T\": %.6g,\n     \"ranks\": [",
              (unsigned long long)r->calls, r->mismatch ? "true" : "false", bytes, T, dbar, theta,
              r->theta_max, r->duration_sum / calls, finite_or_zero(fd), finite_or_zero(ft));
    for (int q = 0; q < r->comm_size; q++) {
        const double *s = r->rank_stats + (size_t)q * PC_PROF_RANK_STATS;
        sb_printf(js,
                  "%s\n       {\"rank\": %d, \"world_rank\": %d, \"mean_delay_s\": %.9g, "
                  "\"max_delay_s\": %.9g, \"mean_inside_s\": %.9g, \"first\": %.0f, "
                  "\"last\": %.0f}",
                  q ? "," : "", q, r->world_ranks[q], s[PC_PROF_DELAY_SUM] / calls,
                  s[PC_PROF_DELAY_MAX], s[PC_PROF_INSIDE_SUM] / calls, s[PC_PROF_FIRST],
                  s[PC_PROF_LAST]);
    }
    sb_printf(js, "]}");
    sb_printf(tab, "pacoll-profile: %-20s %8llu %12.0f %9.2f %11.4g %11.4g  %s(%d) %s%s\n",
              pc_prof_kind_name(r->kind), (unsigned long long)r->calls, bytes, T * 1e6, fd, ft,
              comm, r->comm_size, who.label, r->mismatch ? " [call counts differ]" : "");
}

/* ---- gathering text at world rank 0 ---- */
static char *gather_text(const pc_prof_t *p, const sbuf_t *b, MPI_Comm w)
{
    int len = b->failed ? 0 : (int)b->len, n = p->world_size;
    int *lens = p->world_rank == 0 ? calloc((size_t)n, sizeof(int)) : NULL;
    int *displs = p->world_rank == 0 ? calloc((size_t)n, sizeof(int)) : NULL;
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, w);
    char *all = NULL;
    long long total = 0;
    if (p->world_rank == 0 && lens && displs) {
        for (int r = 0; r < n; r++)
            displs[r] = (int)total, total += lens[r];
        all = malloc((size_t)total + 1);
    }
    PMPI_Gatherv(b->s ? b->s : "", len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, w);
    if (all)
        all[total] = '\0';
    free(lens);
    free(displs);
    return all;
}

/* ---- the header: clocks and T ---- */
static void sync_summary(const pc_prof_t *p, const pc_prof_sync_t *s, const char *when, sbuf_t *js)
{
    double maxoff = 0, maxb = 0;
    for (int r = 0; s->all && r < p->world_size; r++) {
        maxoff = fmax(maxoff, fabs(s->all[2 * r]));
        maxb = fmax(maxb, s->all[2 * r + 1]);
    }
    sb_printf(js, "{\"done\": %s, \"when\": ", s->done ? "true" : "false");
    sb_json_string(js, when);
    sb_printf(js, ", \"max_abs_offset_s\": %.9g, \"max_bound_s\": %.9g, \"offsets_s\": [", maxoff,
              maxb);
    for (int r = 0; s->all && r < p->world_size; r++)
        sb_printf(js, "%s%.9g", r ? ", " : "", s->all[2 * r]);
    sb_printf(js, "], \"bounds_s\": [");
    for (int r = 0; s->all && r < p->world_size; r++)
        sb_printf(js, "%s%.9g", r ? ", " : "", s->all[2 * r + 1]);
    sb_printf(js, "]}");
}

static double max_drift_ppm(const pc_prof_t *p)
{
    if (!p->init.done || !p->fin.done || !p->init.all || !p->fin.all || p->fin.t <= p->init.t)
        return 0;
    double m = 0;
    for (int r = 0; r < p->world_size; r++)
        m = fmax(m, fabs(p->fin.all[2 * r] - p->init.all[2 * r]) / (p->fin.t - p->init.t));
    return m * 1e6;
}

static void header(const pc_prof_t *p, sbuf_t *js, sbuf_t *tab)
{
    sb_printf(js, "{\n  \"pacoll_profile\": 1,\n  \"world_size\": %d,\n  \"clock\": "
                  "\"PMPI_Wtime\", \"wtick_s\": %.9g,\n  \"clock_sync\": {\n    \"method\": "
                  "\"ping-pong with world rank 0, best of 16 round trips; bound = half the "
                  "round trip; linear between init and finalize\",\n    \"init\": ",
              p->world_size, PMPI_Wtick());
    sync_summary(p, &p->init, p->init_how ? p->init_how : "none", js);
    sb_printf(js, ",\n    \"finalize\": ");
    sync_summary(p, &p->fin, "MPI_Finalize", js);
    sb_printf(js, ",\n    \"max_drift_ppm\": %.6g\n  },\n  \"T\": {\"method\": \"half the best "
                  "round trip of a ping-pong at MPI_Finalize, linear between buckets\", "
                  "\"world_ranks\": [0, %d], \"buckets\": [",
              max_drift_ppm(p), p->t_peer);
    for (int i = 0; i < p->nbuckets; i++)
        sb_printf(js, "%s{\"bytes\": %.0f, \"T_s\": %.9g}", i ? ", " : "", p->bucket_bytes[i],
                  p->bucket_T[i]);
    sb_printf(js, "]},\n  \"sites\": [");

    const pc_prof_sync_t *s = p->fin.done ? &p->fin : &p->init;
    double maxoff = 0, maxb = 0;
    for (int r = 0; s->all && r < p->world_size; r++)
        maxoff = fmax(maxoff, fabs(s->all[2 * r])), maxb = fmax(maxb, s->all[2 * r + 1]);
    sb_printf(tab,
              "pacoll-profile: %d ranks; clocks synchronised at %s and MPI_Finalize: "
              "max |offset| %.3g us, precision +-%.3g us, drift %.3g ppm\n",
              p->world_size, p->init_how ? p->init_how : "(no start-up sync)", maxoff * 1e6,
              maxb * 1e6, max_drift_ppm(p));
    sb_printf(tab, "pacoll-profile: %-20s %8s %12s %9s %11s %11s  %s\n", "collective", "calls",
              "avg bytes", "T(us)", "d/T", "theta/T", "communicator, caller");
}

int pc_prof_report(pc_prof_t *p)
{
    sbuf_t js = {0}, tab = {0};
    for (pc_prof_result_t *r = p->results; r; r = r->next)
        format_site(p, r, &js, &tab);
    MPI_Comm w;
    int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    char *sites = gather_text(p, &js, w);
    char *rows = gather_text(p, &tab, w);
    PMPI_Comm_free(&w);
    free(js.s);
    free(tab.s);
    if (p->world_rank == 0) {
        sbuf_t out = {0}, top = {0};
        header(p, &out, &top);
        /* each rank's part starts with "," but for the first non-empty one */
        const char *s = sites ? sites : "";
        sb_printf(&out, "%s\n  ]\n}\n", *s == ',' ? s + 1 : s);
        FILE *f = fopen(p->path, "w");
        int ok = f && !out.failed && fputs(out.s, f) >= 0;
        if (f && fclose(f) != 0) /* a full disk shows only here */
            ok = 0;
        if (!ok)
            pc_log("profile: cannot write %s: %s", p->path,
                   out.failed ? "out of memory" : strerror(errno));
        fprintf(stderr, "%s%s", top.s ? top.s : "", rows ? rows : "");
        if (ok) /* the table above is printed either way */
            fprintf(stderr, "pacoll-profile: written to %s\n", p->path);
        fflush(stderr);
        free(out.s);
        free(top.s);
    }
    free(sites);
    free(rows);
    return MPI_SUCCESS;
}
