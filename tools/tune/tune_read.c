/* Measurements from files: see tune.h. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pacoll.h"
#include "base/internal.h"
#include "core/config.h"
#include "select/json.h"
#include "select/learn.h"
#include "select/nic.h"
#include "tune.h"

tune_obs_t *tune_add(tune_set_t *s)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        tune_obs_t *o = realloc(s->obs, (size_t)cap * sizeof *o);
        if (!o)
            return NULL;
        s->obs = o, s->cap = cap;
    }
    tune_obs_t *o = &s->obs[s->n++];
    memset(o, 0, sizeof *o);
    o->nic = -1;
    return o;
}

int tune_add_src(tune_set_t *s, const char *what)
{
    char **v = realloc(s->src, (size_t)(s->nsrc + 1) * sizeof *v);
    if (!v)
        return -1;
    s->src = v;
    char **k = realloc(s->kind, (size_t)(s->nsrc + 1) * sizeof *k);
    if (!k)
        return -1;
    s->kind = k;
    s->src[s->nsrc] = strdup(what);
    s->kind[s->nsrc] = NULL;
    return s->nsrc++;
}

void tune_set_free(tune_set_t *s)
{
    for (int i = 0; i < s->nsrc; i++)
        free(s->src[i]), free(s->kind[i]);
    free(s->src);
    free(s->kind);
    free(s->obs);
    memset(s, 0, sizeof *s);
}

int tune_is_native(const char *name) { return !strncmp(name, "native", 6); }

static double num(const pc_json_t *o, const char *key, double dflt)
{
    const pc_json_t *v = pc_json_get(o, key);
    return v && v->type == PC_JNUM ? v->num : dflt;
}

static const char *str(const pc_json_t *o, const char *key)
{
    const pc_json_t *v = pc_json_get(o, key);
    return v && v->type == PC_JSTR ? v->str : NULL;
}

static void put(tune_obs_t *o, const char *name, double us)
{
    if (o->n < TUNE_MAX_ALGOS && us > 0 && isfinite(us) && strlen(name) < TUNE_NAME) {
        strcpy(o->name[o->n], name);
        o->us[o->n++] = us;
    }
}

/* pacoll-bench/1: one file per (collective, communicator, arrival
 * pattern); a row per size; an algorithm's time is the median over
 * repeats of the mean over ranks (avg_us, what docs/RESULTS.md compares). */
static int read_bench(tune_set_t *s, const pc_json_t *root, int src, char *err, size_t errlen)
{
    int coll = pacoll_coll_from_name(str(root, "collective") ? str(root, "collective") : "");
    int ranks = (int)num(root, "ranks", 0), nodes = (int)num(root, "nodes", 0);
    if (coll < 0 || ranks < 1 || nodes < 1) {
        snprintf(err, errlen, "no collective, ranks or nodes");
        return -1;
    }
    const pc_json_t *st = pc_json_get(root, "settings"), *res = pc_json_get(root, "results");
    char mode[32];
    const char *skew = st ? str(st, "skew") : NULL;
    double mif = st ? num(st, "mif", 0) : 0;
    if (skew && strcmp(skew, "none"))
        snprintf(mode, sizeof mode, "%.6s-mif%.0f", skew, mif);
    else
        snprintf(mode, sizeof mode, "%s", st && str(st, "mode") ? str(st, "mode") : "barrier");
    for (const pc_json_t *r = res && res->type == PC_JARR ? res->child : NULL; r; r = r->next) {
        tune_obs_t *o = tune_add(s);
        if (!o) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        o->coll = coll, o->ranks = ranks, o->nodes = nodes, o->src = src;
        o->ppn = (int)num(root, "ppn", (ranks + nodes - 1) / nodes);
        o->nic = pc_nic_kind(str(root, "nic"));
        o->bytes = num(r, "bytes", -1);
        snprintf(o->mode, sizeof o->mode, "%s", mode);
        const pc_json_t *algos = pc_json_get(r, "algos");
        for (const pc_json_t *a = algos ? algos->child : NULL; a; a = a->next) {
            const pc_json_t *sum = pc_json_get(a, "summary"), *avg = sum ? pc_json_get(sum, "avg_us") : NULL;
            if (str(a, "name") && avg)
                put(o, str(a, "name"), num(avg, "median", -1));
        }
        if (o->bytes < 0 || o->n == 0)
            s->n--;
    }
    return 0;
}

/* pacoll-tune/1: the live sweep's own measurements (--save). */
static int read_tune(tune_set_t *s, const pc_json_t *root, int src, char *err, size_t errlen)
{
    double margin = num(root, "margin", 0); /* noisy real runs carry a wider one */
    const pc_json_t *list = pc_json_get(root, "observations");
    for (const pc_json_t *m = list && list->type == PC_JARR ? list->child : NULL; m; m = m->next) {
        tune_obs_t *o = tune_add(s);
        if (!o) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        o->coll = pacoll_coll_from_name(str(m, "coll") ? str(m, "coll") : "");
        o->ranks = (int)num(m, "ranks", 0), o->nodes = (int)num(m, "nodes", 0);
        o->ppn = (int)num(m, "ppn", 0), o->nic = pc_nic_kind(str(m, "nic"));
        o->bytes = num(m, "bytes", -1), o->src = src, o->margin = margin;
        snprintf(o->mode, sizeof o->mode, "%s", str(m, "mode") ? str(m, "mode") : "");
        const pc_json_t *us = pc_json_get(m, "us");
        for (const pc_json_t *a = us && us->type == PC_JOBJ ? us->child : NULL; a; a = a->next)
            if (a->type == PC_JNUM)
                put(o, a->key, a->num);
        if (o->coll < 0 || o->ranks < 1 || o->nodes < 1 || o->ppn < 1 || o->bytes < 0) {
            snprintf(err, errlen, "observation at line %d: needs coll, ranks, nodes, ppn, bytes",
                     m->line);
            return -1;
        }
    }
    return 0;
}

/* pacoll-learned/1 (PACOLL_LEARN_FILE): what learning in place measured on
 * the application's own calls; each class becomes two measurements, at
 * its smallest and largest block, so that a rule made from it covers the
 * class. */
static int read_learned(tune_set_t *s, const char *text, int src, char *err, size_t errlen)
{
    pc_learn_book_t b = {0};
    if (pc_learn_book_parse(text, &b, err, errlen) != 0)
        return -1;
    for (int i = 0; i < b.n; i++) {
        const pc_learn_entry_t *e = &b.e[i];
        size_t lo, hi;
        int coll = pacoll_coll_from_name(e->coll);
        if (coll < 0 || e->cls == 0)
            continue;
        pc_learn_class_bytes(e->cls, &lo, &hi);
        for (int end = 0; end < 2; end++) {
            tune_obs_t *o = tune_add(s);
            if (!o) {
                snprintf(err, errlen, "out of memory");
                pc_learn_book_free(&b);
                return -1;
            }
            o->coll = coll, o->ranks = e->ranks, o->nodes = e->nodes, o->ppn = e->ppn;
            o->bytes = (double)(end ? hi : lo), o->src = src;
            snprintf(o->mode, sizeof o->mode, "learned");
            for (int k = 0; k < e->ncand; k++)
                put(o, e->cand[k], e->sec[k] * 1e6);
            if (o->n < 2)
                s->n--;
        }
    }
    pc_learn_book_free(&b);
    return 0;
}

/* Where a file's measurements were taken, for the rules' comments: a
 * simulated platform (SMPI) or a real machine. */
static void set_kind(tune_set_t *s, int src, const pc_json_t *root)
{
    const pc_json_t *mpi = pc_json_get(root, "mpi");
    const char *engine = mpi && mpi->type == PC_JOBJ ? str(mpi, "engine") : NULL;
    const char *lib = mpi && mpi->type == PC_JSTR ? mpi->str : NULL;
    const char *host = str(root, "host") ? str(root, "host") : "?";
    int sim = (engine && !strcmp(engine, "smpi")) || (lib && strstr(lib, "SMPI"));
    char buf[200];
    snprintf(buf, sizeof buf, "%s %s", sim ? "simulated platform" : "measured on", host);
    s->kind[src] = strdup(buf);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int json_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* A directory: every *.json file in it, in name order. */
static int read_dir(tune_set_t *s, const char *path, char *err, size_t errlen)
{
    struct dirent **list;
    int n = scandir(path, &list, json_name, by_name), rc = 0;
    if (n < 0) {
        snprintf(err, errlen, "%s: cannot be read", path);
        return -1;
    }
    if (n == 0) {
        snprintf(err, errlen, "%s: no *.json measurements in it", path);
        rc = -1;
    }
    for (int i = 0; i < n; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, list[i]->d_name);
        if (!rc)
            rc = tune_read_file(s, file, err, errlen);
        free(list[i]);
    }
    free(list);
    return rc;
}

int tune_read_file(tune_set_t *s, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return read_dir(s, path, err, errlen);
    char *text = pc_file_read(path), why[200];
    if (!text) {
        snprintf(err, errlen, "%s: cannot be read", path);
        return -1;
    }
    pc_json_t *root = pc_json_parse(text, why, sizeof why);
    if (!root) {
        free(text);
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    const char *schema = str(root, "schema");
    int src = tune_add_src(s, path), rc;
    if (src >= 0)
        set_kind(s, src, root);
    if (schema && !strcmp(schema, "pacoll-bench/1"))
        rc = read_bench(s, root, src, why, sizeof why);
    else if (schema && !strcmp(schema, "pacoll-tune/1"))
        rc = read_tune(s, root, src, why, sizeof why);
    else if (schema && !strcmp(schema, "pacoll-learned/1"))
        rc = read_learned(s, text, src, why, sizeof why);
    else
        rc = -1, snprintf(why, sizeof why,
                          "not a pacoll-bench/1, pacoll-tune/1 or pacoll-learned/1 file");
    free(text);
    if (rc)
        snprintf(err, errlen, "%s: %s", path, why);
    pc_json_free(root);
    return rc;
}
