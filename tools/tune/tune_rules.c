/* Measurements -> rules, and rules replayed over measurements: see tune.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"
#include "core/config.h"
#include "select/json.h"
#include "select/nic.h"
#include "select/select.h"
#include "tune.h"

static int find(const tune_obs_t *o, const char *name)
{
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->name[i], name))
            return i;
    return -1;
}

static int has_native(const tune_obs_t *o)
{
    for (int i = 0; i < o->n; i++)
        if (tune_is_native(o->name[i]))
            return 1;
    return 0;
}

/* Groups: one collective on one shape; inside, by size. */
static int group_cmp(const tune_obs_t *a, const tune_obs_t *b)
{
    int ka = a->nic < 0, kb = b->nic < 0; /* shapes that know their NIC first */
    if (ka != kb)
        return ka - kb;
    int d[] = {a->coll - b->coll, a->ranks - b->ranks, a->nodes - b->nodes, a->ppn - b->ppn,
               a->nic - b->nic};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i])
            return d[i];
    return 0;
}

static int obs_cmp(const void *x, const void *y)
{
    const tune_obs_t *a = *(tune_obs_t *const *)x, *b = *(tune_obs_t *const *)y;
    int g = group_cmp(a, b);
    return g ? g : (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

/* The verdict over some measurements of one shape: the pacoll algorithm
 * measured in all of them whose worst ratio to every native is at least
 * margin, the best geometric mean among those; name "" = native. */
typedef struct verdict {
    char name[TUNE_NAME];
    double min, gm;
    int pairs;
} verdict_t;

static void judge(tune_obs_t **o, int n, double margin, verdict_t *v)
{
    memset(v, 0, sizeof *v);
    const tune_obs_t *first = NULL;
    for (int k = 0; k < n && !first; k++)
        if (has_native(o[k]))
            first = o[k];
    for (int a = 0; first && a < first->n; a++) {
        const char *cand = first->name[a];
        if (tune_is_native(cand) || !strncmp(cand, "auto", 4))
            continue;
        double mn = INFINITY, lg = 0, need = margin;
        int pairs = 0, everywhere = 1;
        for (int k = 0; k < n && everywhere; k++) {
            if (!has_native(o[k]))
                continue;
            need = o[k]->margin > need ? o[k]->margin : need;
            int c = find(o[k], cand);
            if (c < 0) {
                everywhere = 0;
                break;
            }
            for (int i = 0; i < o[k]->n; i++) {
                if (!tune_is_native(o[k]->name[i]))
                    continue;
                double r = o[k]->us[i] / o[k]->us[c];
                mn = r < mn ? r : mn, lg += log(r), pairs++;
            }
        }
        double gm = pairs ? exp(lg / pairs) : 0;
        if (everywhere && pairs && mn >= need && gm > v->gm) {
            snprintf(v->name, sizeof v->name, "%s", cand);
            v->min = mn, v->gm = gm, v->pairs = pairs;
        }
    }
}

/* Where a group's measurements were taken: "simulated platform
 * modern_16x64", "measured on vm"; the hosts of one kind together
 * ("simulated platforms a, b"), each once, in the order met. */
static void origins(const tune_set_t *s, tune_obs_t *const *o, int n, char *buf, size_t len)
{
    static const char *const kinds[] = {"simulated platform ", "measured on "};
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char hosts[400] = "";
        int nh = 0;
        for (int i = 0; i < n; i++) {
            const char *w = o[i]->src >= 0 && o[i]->src < s->nsrc ? s->kind[o[i]->src] : NULL;
            size_t kl = strlen(kinds[k]);
            if (!w || strncmp(w, kinds[k], kl))
                continue;
            char item[200];
            snprintf(item, sizeof item, ", %s,", w + kl);
            char seen[404];
            snprintf(seen, sizeof seen, ", %s,", hosts);
            if (strstr(seen, item))
                continue;
            size_t u = strlen(hosts);
            snprintf(hosts + u, sizeof hosts - u, "%s%s", u ? ", " : "", w + kl);
            nh++;
        }
        if (!nh)
            continue;
        size_t u = strlen(buf);
        snprintf(buf + u, len - u, "%s%.*s%s %s", u ? "; " : "", (int)strlen(kinds[k]) - 1,
                 kinds[k], nh > 1 && k == 0 ? "s" : "", hosts);
    }
}

static void put_rule(FILE *f, int *nrules, const tune_obs_t *g, const char *algo, double lo,
                     double hi, int bytes, double mn, double gm, int pairs, const char *from)
{
    fprintf(f, "%s\n    {\"coll\": \"%s\", \"algo\": \"%s\"", *nrules ? "," : "",
            pacoll_coll_name((pacoll_coll_t)g->coll), algo);
    if (bytes)
        fprintf(f, ", \"min_bytes\": %.0f, \"max_bytes\": %.0f", lo, hi);
    fprintf(f, ", \"min_ranks\": %d, \"max_ranks\": %d, \"min_nodes\": %d, \"max_nodes\": %d, "
               "\"min_ppn\": %d, \"max_ppn\": %d",
            g->ranks, g->ranks, g->nodes, g->nodes, g->ppn, g->ppn);
    if (g->nic >= 0 && g->nodes > 1)
        fprintf(f, ", \"nic\": \"%s\"", pc_nic_name(g->nic));
    fprintf(f, ", \"comment\": \"native time / %s: %.2f at worst, %.2f geomean, %d pairs",
            algo, mn, gm, pairs);
    if (*from) {
        fputs("; ", f);
        for (const char *c = from; *c; c++) /* a host name is the only text from outside */
            fputc(*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 ? '_' : *c, f);
    }
    fputs("\"}", f);
    ++*nrules;
}

void tune_write_prov(FILE *f, const tune_prov_t *p, const char *sep)
{
    const char *key[] = {"command", "mpi", "host", "date"};
    const char *val[] = {p->command, p->mpi, p->host, p->date};
    for (int i = 0; i < 4; i++) {
        fprintf(f, "%s\"%s\": ", i ? sep : "", key[i]);
        tune_jstr(f, val[i]);
    }
    fprintf(f, "%s\"margin\": %g", sep, p->margin);
}

void tune_jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f), fputc(*s, f);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

int tune_write_rules(FILE *f, const tune_set_t *s, const tune_prov_t *p)
{
    tune_obs_t **o = malloc((size_t)(s->n ? s->n : 1) * sizeof *o);
    verdict_t *v = malloc((size_t)(s->n ? s->n : 1) * sizeof *v);
    if (!o || !v) {
        free(o), free(v);
        return -1;
    }
    for (int i = 0; i < s->n; i++)
        o[i] = &s->obs[i];
    qsort(o, (size_t)s->n, sizeof *o, obs_cmp);

    fputs("{\n  \"comment\": \"pacoll selection rules made by pacoll-tune (docs/TUNE.md): a "
          "collective on a communicator of this many ranks, nodes and ranks per node runs "
          "pacoll's algorithm only at the sizes where it beat every native measurement of that "
          "shape by the margin (in every arrival pattern and mode measured); every other call "
          "goes to the MPI library.\",\n  \"version\": 1,\n  \"provenance\": {",
          f);
    tune_write_prov(f, p, ", ");
    fputs(", \"sources\": [", f);
    for (int i = 0; i < s->nsrc; i++) {
        fputs(i ? ", " : "", f);
        tune_jstr(f, s->src[i]);
    }
    fputs("]},\n  \"rules\": [", f);

    int nrules = 0;
    for (int g0 = 0, g1; g0 < s->n; g0 = g1) {
        for (g1 = g0 + 1; g1 < s->n && !group_cmp(o[g0], o[g1]); g1++)
            ;
        const tune_obs_t *g = o[g0];
        char from[512];
        origins(s, o + g0, g1 - g0, from, sizeof from);
        if (g->coll == PACOLL_ALLTOALLV) {
            /* One choice for the sizes measured, up to the largest: not
             * beyond it, where nothing showed that it wins (a logarithmic
             * alltoallv forwards every byte log P times).  The size is the
             * largest block, which the calls then agree on (docs/TUNE.md). */
            verdict_t w;
            judge(o + g0, g1 - g0, p->margin, &w);
            if (w.name[0])
                put_rule(f, &nrules, g, w.name, 0, o[g1 - 1]->bytes, 1, w.min, w.gm, w.pairs,
                         from);
            continue;
        }
        /* sizes: [first obs of each size] */
        int ns = 0, start[256];
        for (int k = g0; k < g1 && ns < 256; k++)
            if (k == g0 || o[k]->bytes != o[k - 1]->bytes)
                start[ns++] = k;
        for (int i = 0; i < ns; i++) {
            int end = i + 1 < ns ? start[i + 1] : g1;
            judge(o + start[i], end - start[i], p->margin, &v[i]);
        }
        for (int i = 0, j; i < ns; i = j + 1) {
            for (j = i; j + 1 < ns && !strcmp(v[j + 1].name, v[i].name); j++)
                ;
            if (!v[i].name[0])
                continue;
            double mn = INFINITY, lg = 0;
            int pairs = 0;
            for (int k = i; k <= j; k++)
                mn = v[k].min < mn ? v[k].min : mn, lg += log(v[k].gm) * v[k].pairs,
                pairs += v[k].pairs;
            /* between a win and the next size's win of another algorithm,
             * this one; between a win and a loss, the MPI library */
            double lo = o[start[i]]->bytes;
            double hi = j + 1 < ns && v[j + 1].name[0] ? o[start[j + 1]]->bytes - 1
                                                        : o[start[j]]->bytes;
            put_rule(f, &nrules, g, v[i].name, lo, hi, 1, mn, exp(lg / pairs), pairs, from);
        }
    }
    fputs("\n  ]\n}\n", f);
    free(o);
    free(v);
    return nrules;
}

/* ---- replay ---- */

typedef struct native_stat {
    char name[TUNE_NAME];
    int n, below;
    double lg, worst;
    const tune_obs_t *at;
    char ran[TUNE_NAME];
} native_stat_t;

int tune_replay(FILE *f, const char *rules_text, const char *origin, const tune_set_t *s,
                double floor)
{
    char err[300];
    pc_rules_t *rs = pc_rules_parse(rules_text, origin, err, sizeof err);
    if (!rs) {
        fprintf(stderr, "pacoll-tune: %s\n", err);
        return -1;
    }
    native_stat_t st[16];
    int nst = 0, below = 0, unmeasured = 0, ran_pacoll = 0, total = 0;
    for (int k = 0; k < s->n; k++) {
        const tune_obs_t *o = &s->obs[k];
        if (!has_native(o))
            continue;
        pc_shape_t sh = {.ranks = o->ranks, .nodes = o->nodes, .ppn = o->ppn, .nic = o->nic,
                         .shm = 1};
        const char *name =
            pc_registry_get(pc_rules_choose(rs, o->coll, &sh, o->bytes, 4, NULL))->name;
        int c = tune_is_native(name) ? -1 : find(o, name);
        total++;
        if (!tune_is_native(name) && c < 0) {
            unmeasured++;
            continue;
        }
        ran_pacoll += c >= 0;
        for (int n = 0; n < o->n; n++) {
            if (!tune_is_native(o->name[n]))
                continue;
            double r = c >= 0 ? o->us[n] / o->us[c] : 1.0;
            int x = 0;
            while (x < nst && strcmp(st[x].name, o->name[n]))
                x++;
            if (x == nst) {
                if (nst == 16)
                    continue;
                memset(&st[nst], 0, sizeof st[nst]);
                snprintf(st[nst].name, TUNE_NAME, "%s", o->name[n]);
                st[nst++].worst = INFINITY;
            }
            native_stat_t *q = &st[x];
            q->n++, q->lg += log(r);
            if (r < floor)
                q->below++, below++;
            if (r < q->worst)
                q->worst = r, q->at = o, snprintf(q->ran, TUNE_NAME, "%s", name);
        }
    }
    fprintf(f, "replay of %s over %d measurements: auto runs pacoll's algorithm at %d, the MPI "
               "library at %d%s\n",
            origin, total, ran_pacoll, total - ran_pacoll - unmeasured,
            unmeasured ? " (and names an unmeasured algorithm at some: not judged)" : "");
    fprintf(f, "%-18s %7s %14s %8s  %-44s %s\n", "against", "points", "geomean native/auto",
            "worst", "worst at", "below");
    for (int x = 0; x < nst; x++) {
        const native_stat_t *q = &st[x];
        char at[96] = "";
        if (q->at)
            snprintf(at, sizeof at, "%s %dr %dn %.0f B %s (%s)",
                     pacoll_coll_name((pacoll_coll_t)q->at->coll), q->at->ranks, q->at->nodes,
                     q->at->bytes, q->at->mode, q->ran);
        fprintf(f, "%-18s %7d %14.3f %8.3f  %-44s %d < %.2f\n", q->name, q->n,
                q->n ? exp(q->lg / q->n) : 0, q->worst, at, q->below, floor);
    }
    if (unmeasured)
        fprintf(f, "%d measurement(s) where the rules name an algorithm not measured there\n",
                unmeasured);
    pc_rules_free(rs);
    return below;
}

/* ---- compare ---- */

static int json_equal(const pc_json_t *a, const pc_json_t *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case PC_JNUM:
    case PC_JBOOL:
        return a->num == b->num;
    case PC_JSTR:
        return !strcmp(a->str, b->str);
    case PC_JARR:
    case PC_JOBJ:
        for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
            if ((a->key || b->key) && (!a->key || !b->key || strcmp(a->key, b->key)))
                return 0;
            else if (!json_equal(a, b))
                return 0;
        return !a && !b;
    default:
        return 1;
    }
}

int tune_compare(FILE *f, const char *made, const char *file_text, const char *file_name)
{
    char err[200];
    pc_json_t *a = pc_json_parse(made, err, sizeof err), *b = NULL;
    if (a)
        b = pc_json_parse(file_text, err, sizeof err);
    if (!a || !b) {
        fprintf(stderr, "pacoll-tune: %s: %s\n", a ? file_name : "(made)", err);
        pc_json_free(a);
        return -1;
    }
    const pc_json_t *ra = pc_json_get(a, "rules"), *rb = pc_json_get(b, "rules");
    const pc_json_t *x = ra ? ra->child : NULL, *y = rb ? rb->child : NULL;
    int n = 1, rc = 0;
    for (; x && y; x = x->next, y = y->next, n++)
        if (!json_equal(x, y))
            break;
    if (x || y) {
        fprintf(f, "%s disagrees with the measurements at rule %d (line %d of the file): the "
                   "measurements give %s\n",
                file_name, n, y ? y->line : -1, x ? "another rule there" : "no rule there");
        rc = 1;
    }
    pc_json_free(a);
    pc_json_free(b);
    return rc;
}
