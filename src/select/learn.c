/* Learning in place, the pure logic: see learn.h. */
#include "select/learn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/json.h"

int pc_learn_class_of(size_t m)
{
    int c = 0;
    while (c < PC_LEARN_CLASSES - 1 && ((size_t)1 << c) <= m)
        c++;
    return c;
}

void pc_learn_class_bytes(int cls, size_t *lo, size_t *hi)
{
    *lo = cls ? (size_t)1 << (cls - 1) : 0;
    *hi = cls ? ((size_t)1 << (cls - 1) << 1) - 1 : 0;
}

static int alive_count(const pc_learn_class_t *c)
{
    return __builtin_popcount(c->alive);
}

static void explore(pc_learn_class_t *c)
{
    c->state = PC_LEARN_EXPLORING;
    c->alive = (1u << c->ncand) - 1;
    c->round = c->pos = 0;
    memset(c->t, 0, sizeof c->t);
    memset(c->n, 0, sizeof c->n);
    memset(c->spent, 0, sizeof c->spent);
    memset(c->agreed, 0, sizeof c->agreed);
    c->drift_sum = 0, c->drift_n = 0;
}

static void settle(pc_learn_class_t *c, int choice, double ref)
{
    c->state = PC_LEARN_SETTLED;
    c->choice = choice;
    c->ref = ref;
    c->calls = 0;
    c->drift_sum = 0, c->drift_n = 0;
}

void pc_learn_start(pc_learn_class_t *c, int n, const int *cand)
{
    memset(c, 0, sizeof *c);
    c->ncand = n < 1 ? 1 : n > PC_LEARN_CANDS ? PC_LEARN_CANDS : n;
    memcpy(c->cand, cand, sizeof *cand * (size_t)c->ncand);
    explore(c);
    if (c->ncand == 1)
        settle(c, 0, 0);
}

void pc_learn_settle(pc_learn_class_t *c, int n, const int *cand, int choice, double ref)
{
    pc_learn_start(c, n, cand);
    settle(c, choice >= 0 && choice < c->ncand ? choice : 0, ref);
    c->from_file = 1;
}

int pc_learn_slot(const pc_learn_class_t *c)
{
    if (c->state == PC_LEARN_SETTLED)
        return c->choice;
    int k = c->pos;
    for (int i = 0; i < c->ncand; i++)
        if ((c->alive >> i & 1) && k-- == 0)
            return i;
    return 0;
}

int pc_learn_timed(const pc_learn_class_t *c)
{
    if (c->state == PC_LEARN_EXPLORING)
        return 1;
    return c->choice != 0 && c->calls % PC_LEARN_SAMPLE_EVERY == 0;
}

int pc_learn_active(const pc_learn_class_t *c)
{
    return c->state == PC_LEARN_EXPLORING || c->choice != 0;
}

int pc_learn_record(pc_learn_class_t *c, double sec)
{
    if (!(sec >= 0) || !isfinite(sec))
        sec = 0;
    if (c->state == PC_LEARN_SETTLED) {
        if (c->choice == 0)
            return PC_LEARN_RUN;
        int timed = pc_learn_timed(c);
        c->calls++;
        if (!timed)
            return PC_LEARN_RUN;
        c->drift_sum += sec, c->drift_n++;
        return c->drift_n >= PC_LEARN_DRIFT_SAMPLES ? PC_LEARN_AGREE_DRIFT : PC_LEARN_RUN;
    }
    int s = pc_learn_slot(c);
    c->trial_calls++;
    c->spent[s] += sec;
    if (c->round >= 1 && c->n[s] < PC_LEARN_TRIALS)
        c->t[s][c->n[s]++] = sec;
    if (++c->pos < alive_count(c))
        return PC_LEARN_RUN;
    c->pos = 0;
    c->round++;
    if (c->round == 2 && PC_LEARN_TRIALS > 1)
        return PC_LEARN_AGREE_DROP;
    return c->round > PC_LEARN_TRIALS ? PC_LEARN_AGREE_DECIDE : PC_LEARN_RUN;
}

static double median(const double *v, int n)
{
    double s[PC_LEARN_TRIALS];
    if (n <= 0)
        return 0;
    memcpy(s, v, sizeof *v * (size_t)n);
    for (int i = 1; i < n; i++) /* insertion sort: n <= PC_LEARN_TRIALS */
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double x = s[j];
            s[j] = s[j - 1], s[j - 1] = x;
        }
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

void pc_learn_values(const pc_learn_class_t *c, int kind, double *v)
{
    for (int i = 0; i < PC_LEARN_CANDS; i++)
        v[i] = 0;
    if (kind == PC_LEARN_AGREE_DRIFT) {
        v[0] = c->drift_n ? c->drift_sum / c->drift_n : 0;
        return;
    }
    for (int i = 0; i < c->ncand; i++)
        if (c->alive >> i & 1)
            v[i] = median(c->t[i], c->n[i]);
}

/* The fastest alive candidate by the agreed times. */
static int fastest(const pc_learn_class_t *c)
{
    int best = 0;
    for (int i = 1; i < c->ncand; i++)
        if ((c->alive >> i & 1) && c->agreed[i] < c->agreed[best])
            best = i;
    return best;
}

static void decide(pc_learn_class_t *c, int best)
{
    for (int i = 0; i < c->ncand; i++)
        if (i != best)
            c->lost += c->spent[i];
    c->decisions++;
    settle(c, best, c->agreed[best]);
}

int pc_learn_agree(pc_learn_class_t *c, int kind, const double *sum, int nranks)
{
    double n = nranks > 0 ? nranks : 1;
    if (kind == PC_LEARN_AGREE_DRIFT) {
        double now = sum[0] / n;
        c->drift_sum = 0, c->drift_n = 0;
        if (c->ref <= 0) { /* settled from a file: this run's time is the reference */
            c->ref = now;
            return 0;
        }
        if (now > c->ref * PC_LEARN_DRIFT && c->revisits < PC_LEARN_REVISITS) {
            c->revisits++;
            c->from_file = 0;
            explore(c);
            return 1;
        }
        return 0;
    }
    for (int i = 0; i < c->ncand; i++)
        if (c->alive >> i & 1)
            c->agreed[i] = sum[i] / n;
    if (kind == PC_LEARN_AGREE_DROP) {
        double best = c->agreed[fastest(c)];
        for (int i = 1; i < c->ncand; i++) /* the MPI library's is never dropped */
            if ((c->alive >> i & 1) && c->agreed[i] > best * PC_LEARN_DROP)
                c->alive &= ~(1u << i);
        if (alive_count(c) == 1) { /* only the MPI library's is left */
            decide(c, 0);
            return 1;
        }
        return 0;
    }
    int best = fastest(c);
    /* pacoll's must win clearly: a tie goes to the MPI library, whose
     * calls then cost nothing more (the plain way) */
    if (best != 0 && c->agreed[best] * PC_LEARN_MARGIN > c->agreed[0])
        best = 0;
    decide(c, best);
    return 1;
}

/* ------------------------------------------------ the learned file */

#define PC_LEARN_FILE_VERSION 1

static int get_int(const pc_json_t *o, const char *key, int lo, int hi, int *out, char *err,
                   size_t errlen, int line)
{
    const pc_json_t *v = pc_json_get(o, key);
    if (!v || v->type != PC_JNUM || v->num != floor(v->num) || v->num < lo || v->num > hi) {
        snprintf(err, errlen, "entry at line %d: \"%s\" must be an integer in [%d, %d]", line,
                 key, lo, hi);
        return -1;
    }
    *out = (int)v->num;
    return 0;
}

static int get_str(const pc_json_t *o, const char *key, char *out, size_t len, char *err,
                   size_t errlen, int line)
{
    const pc_json_t *v = pc_json_get(o, key);
    if (!v || v->type != PC_JSTR || !v->str[0] || strlen(v->str) >= len) {
        snprintf(err, errlen, "entry at line %d: \"%s\" must be a name of at most %zu characters",
                 line, key, len - 1);
        return -1;
    }
    snprintf(out, len, "%s", v->str);
    return 0;
}

static int parse_entry(const pc_json_t *o, pc_learn_entry_t *e, char *err, size_t errlen)
{
    int line = o->line;
    memset(e, 0, sizeof *e);
    if (o->type != PC_JOBJ) {
        snprintf(err, errlen, "entry at line %d: must be an object", line);
        return -1;
    }
    if (get_int(o, "ranks", 1, 1 << 30, &e->ranks, err, errlen, line) ||
        get_int(o, "nodes", 1, e->ranks, &e->nodes, err, errlen, line) ||
        get_int(o, "ranks_per_node", 1, e->ranks, &e->ppn, err, errlen, line) ||
        get_str(o, "collective", e->coll, sizeof e->coll, err, errlen, line) ||
        get_int(o, "class", 0, PC_LEARN_CLASSES - 1, &e->cls, err, errlen, line) ||
        get_str(o, "choice", e->choice, sizeof e->choice, err, errlen, line))
        return -1;
    const pc_json_t *cs = pc_json_get(o, "candidates");
    if (!cs || cs->type != PC_JARR || !cs->child) {
        snprintf(err, errlen, "entry at line %d: \"candidates\" must be a non-empty array", line);
        return -1;
    }
    int chosen = 0;
    for (const pc_json_t *c = cs->child; c; c = c->next) {
        if (e->ncand == PC_LEARN_CANDS) {
            snprintf(err, errlen, "entry at line %d: more than %d candidates", line,
                     PC_LEARN_CANDS);
            return -1;
        }
        const pc_json_t *sec = c->type == PC_JOBJ ? pc_json_get(c, "seconds") : NULL;
        if (!sec || sec->type != PC_JNUM || !(sec->num >= 0) || !isfinite(sec->num) ||
            get_str(c, "algo", e->cand[e->ncand], sizeof e->cand[0], err, errlen, c->line)) {
            if (!sec || sec->type != PC_JNUM || !(sec->num >= 0) || !isfinite(sec->num))
                snprintf(err, errlen,
                         "entry at line %d: a candidate must be {\"algo\": name, \"seconds\": "
                         "a number >= 0}",
                         c->line);
            return -1;
        }
        e->sec[e->ncand] = sec->num;
        chosen |= strcmp(e->cand[e->ncand], e->choice) == 0;
        e->ncand++;
    }
    if (!chosen) {
        snprintf(err, errlen, "entry at line %d: the choice '%s' is not one of its candidates",
                 line, e->choice);
        return -1;
    }
    return 0;
}

int pc_learn_book_parse(const char *text, pc_learn_book_t *b, char *err, size_t errlen)
{
    pc_learn_book_free(b);
    pc_json_t *j = pc_json_parse(text ? text : "", err, errlen);
    if (!j)
        return -1;
    int rc = -1;
    const pc_json_t *v = j->type == PC_JOBJ ? pc_json_get(j, "version") : NULL;
    const pc_json_t *list = j->type == PC_JOBJ ? pc_json_get(j, "learned") : NULL;
    if (j->type != PC_JOBJ || !list || list->type != PC_JARR) {
        snprintf(err, errlen, "not a learned file: no \"learned\" array");
    } else if (v && (v->type != PC_JNUM || v->num != PC_LEARN_FILE_VERSION)) {
        snprintf(err, errlen, "\"version\" must be %d", PC_LEARN_FILE_VERSION);
    } else {
        rc = 0;
        const pc_json_t *h = pc_json_get(j, "host");
        if (h && h->type == PC_JSTR)
            snprintf(b->host, sizeof b->host, "%s", h->str);
        for (const pc_json_t *o = list->child; o && rc == 0; o = o->next) {
            pc_learn_entry_t e;
            if (parse_entry(o, &e, err, errlen) != 0 || pc_learn_book_put(b, &e) != 0)
                rc = -1;
        }
    }
    pc_json_free(j);
    if (rc != 0)
        pc_learn_book_free(b);
    return rc;
}

int pc_learn_book_write(const pc_learn_book_t *b, FILE *f)
{
    fprintf(f, "{\n  \"schema\": \"pacoll-learned/1\",\n  \"comment\": \"what pacoll learned in "
               "place (PACOLL_LEARN_FILE, docs/AUTO.md); seconds: the mean over ranks of each "
               "rank's median time per call, 0 if not measured\",\n  \"version\": %d,\n"
               "  \"host\": \"%s\",\n  \"learned\": [",
            PC_LEARN_FILE_VERSION, b->host);
    for (int i = 0; i < b->n; i++) {
        const pc_learn_entry_t *e = &b->e[i];
        size_t lo, hi;
        pc_learn_class_bytes(e->cls, &lo, &hi);
        fprintf(f,
                "%s\n    {\"ranks\": %d, \"nodes\": %d, \"ranks_per_node\": %d, \"collective\": "
                "\"%s\", \"class\": %d, \"min_bytes\": %zu, \"max_bytes\": %zu, \"candidates\": [",
                i ? "," : "", e->ranks, e->nodes, e->ppn, e->coll, e->cls, lo, hi);
        for (int k = 0; k < e->ncand; k++)
            fprintf(f, "%s{\"algo\": \"%s\", \"seconds\": %.9g}", k ? ", " : "", e->cand[k],
                    e->sec[k]);
        fprintf(f, "], \"choice\": \"%s\"}", e->choice);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}

static pc_learn_entry_t *find(const pc_learn_book_t *b, int ranks, int nodes, int ppn,
                              const char *coll, int cls)
{
    for (int i = 0; i < b->n; i++) {
        pc_learn_entry_t *e = &b->e[i];
        if (e->ranks == ranks && e->nodes == nodes && e->ppn == ppn && e->cls == cls &&
            strcmp(e->coll, coll) == 0)
            return e;
    }
    return NULL;
}

int pc_learn_book_put(pc_learn_book_t *b, const pc_learn_entry_t *e)
{
    pc_learn_entry_t *old = find(b, e->ranks, e->nodes, e->ppn, e->coll, e->cls);
    if (old) {
        *old = *e;
        return 0;
    }
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        pc_learn_entry_t *ne = realloc(b->e, sizeof *ne * (size_t)cap);
        if (!ne)
            return -1;
        b->e = ne, b->cap = cap;
    }
    b->e[b->n++] = *e;
    return 0;
}

const pc_learn_entry_t *pc_learn_book_find(const pc_learn_book_t *b, int ranks, int nodes, int ppn,
                                           const char *coll, int cls)
{
    return find(b, ranks, nodes, ppn, coll, cls);
}

void pc_learn_book_free(pc_learn_book_t *b)
{
    free(b->e);
    b->e = NULL, b->n = b->cap = 0;
    b->host[0] = '\0';
}
