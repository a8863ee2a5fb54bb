/*
 * Learning in place, the pure logic (src/select/learn.c): the size
 * classes, the trial schedule every rank computes alike, the early drop,
 * the decision (ties to the MPI library), the drift test and its bound,
 * and the learned file: written, read back, and refused when wrong.
 */
#include <math.h>
#include <stdlib.h>

#include "select/learn.h"
#include "unit.h"

/* Runs one call of slot s taking sec; returns the agreement it asks. */
static int run(pc_learn_class_t *c, int want_slot, double sec)
{
    CHECK_INT(pc_learn_slot(c), want_slot);
    return pc_learn_record(c, sec);
}

/* One rank's times by slot: every call of slot i takes times[i]. */
static int explore_round(pc_learn_class_t *c, const double *times)
{
    int kind = PC_LEARN_RUN, n = __builtin_popcount(c->alive);
    for (int k = 0; k < n; k++) {
        int s = pc_learn_slot(c);
        kind = pc_learn_record(c, times[s]);
        if (k < n - 1)
            CHECK_INT(kind, PC_LEARN_RUN);
    }
    return kind;
}

/* The agreement as if nranks ranks gave the same values. */
static int agree(pc_learn_class_t *c, int kind, int nranks)
{
    double v[PC_LEARN_CANDS], sum[PC_LEARN_CANDS];
    pc_learn_values(c, kind, v);
    for (int i = 0; i < PC_LEARN_CANDS; i++)
        sum[i] = v[i] * nranks;
    return pc_learn_agree(c, kind, sum, nranks);
}

static void classes(void)
{
    size_t lo, hi;
    CHECK_INT(pc_learn_class_of(0), 0);
    CHECK_INT(pc_learn_class_of(1), 1);
    CHECK_INT(pc_learn_class_of(2), 2);
    CHECK_INT(pc_learn_class_of(3), 2);
    CHECK_INT(pc_learn_class_of(1024), 11);
    CHECK_INT(pc_learn_class_of(2047), 11);
    pc_learn_class_bytes(11, &lo, &hi);
    CHECK_INT(lo, 1024);
    CHECK_INT(hi, 2047);
    pc_learn_class_bytes(0, &lo, &hi);
    CHECK_INT(hi, 0);
    CHECK(pc_learn_class_of((size_t)-1) < PC_LEARN_CLASSES);
}

static void schedule_and_decision(void)
{
    pc_learn_class_t c;
    int cand[4] = {10, 11, 12, 13};
    pc_learn_start(&c, 4, cand);
    CHECK_INT(c.state, PC_LEARN_EXPLORING);
    CHECK(pc_learn_active(&c));
    /* warm-up round: each candidate once, in slot order, untimed */
    for (int s = 0; s < 4; s++)
        CHECK_INT(run(&c, s, 1.0), s == 3 ? PC_LEARN_RUN : PC_LEARN_RUN);
    CHECK_INT(c.n[0], 0);
    /* first timed round, then the early drop: slot 2 is 3x the best */
    double t1[4] = {10e-6, 6e-6, 30e-6, 7e-6};
    CHECK_INT(explore_round(&c, t1), PC_LEARN_AGREE_DROP);
    CHECK_INT(agree(&c, PC_LEARN_AGREE_DROP, 4), 0);
    CHECK_INT(c.alive, 0xB); /* slots 0, 1, 3 */
    /* the dropped slot is not run again */
    CHECK_INT(pc_learn_slot(&c), 0);
    CHECK_INT(explore_round(&c, t1), PC_LEARN_RUN);
    CHECK_INT(explore_round(&c, t1), PC_LEARN_AGREE_DECIDE);
    CHECK_INT(agree(&c, PC_LEARN_AGREE_DECIDE, 4), 1);
    CHECK_INT(c.state, PC_LEARN_SETTLED);
    CHECK_INT(c.choice, 1);
    CHECK(fabs(c.ref - 6e-6) < 1e-12);
    CHECK_INT(c.trial_calls, 4 + 4 + 3 + 3);
    CHECK_INT(c.decisions, 1);
    /* lost: every trial of slots 0, 2, 3 (warm-up included) */
    CHECK(fabs(c.lost - (3.0 + 3 * 10e-6 + 30e-6 + 3 * 7e-6)) < 1e-9);
    CHECK(pc_learn_active(&c)); /* settled on pacoll's: sampled */
}

static void ties_go_native(void)
{
    pc_learn_class_t c;
    int cand[2] = {0, 5};
    pc_learn_start(&c, 2, cand);
    double t[2] = {10e-6, 9.9e-6}; /* 1% faster: inside the margin */
    CHECK_INT(explore_round(&c, t), PC_LEARN_RUN);
    CHECK_INT(explore_round(&c, t), PC_LEARN_AGREE_DROP);
    CHECK_INT(agree(&c, PC_LEARN_AGREE_DROP, 2), 0);
    CHECK_INT(explore_round(&c, t), PC_LEARN_RUN);
    CHECK_INT(explore_round(&c, t), PC_LEARN_AGREE_DECIDE);
    CHECK_INT(agree(&c, PC_LEARN_AGREE_DECIDE, 2), 1);
    CHECK_INT(c.choice, 0);
    CHECK(!pc_learn_active(&c)); /* the plain way from now on */
    CHECK_INT(pc_learn_record(&c, 1.0), PC_LEARN_RUN);

    /* only the MPI library's left after the drop: decided at once */
    pc_learn_start(&c, 2, cand);
    double slow[2] = {1e-6, 5e-6};
    explore_round(&c, slow);
    CHECK_INT(explore_round(&c, slow), PC_LEARN_AGREE_DROP);
    CHECK_INT(agree(&c, PC_LEARN_AGREE_DROP, 3), 1);
    CHECK_INT(c.state, PC_LEARN_SETTLED);
    CHECK_INT(c.choice, 0);

    /* one candidate: settled, nothing to try */
    pc_learn_start(&c, 1, cand);
    CHECK_INT(c.state, PC_LEARN_SETTLED);
    CHECK(!pc_learn_active(&c));
}

/* Ranks that disagree in their own times still agree on the decision:
 * it is made from the sums only. */
static void decision_from_sums(void)
{
    pc_learn_class_t c;
    int cand[3] = {0, 1, 2};
    pc_learn_start(&c, 3, cand);
    double sum[PC_LEARN_CANDS] = {3 * 5e-6, 3 * 4e-6, 3 * 6e-6, 0};
    c.round = 3; /* as after the timed rounds */
    CHECK_INT(pc_learn_agree(&c, PC_LEARN_AGREE_DECIDE, sum, 3), 1);
    CHECK_INT(c.choice, 1);
}

static void drift(void)
{
    pc_learn_class_t c;
    int cand[2] = {0, 7};
    pc_learn_settle(&c, 2, cand, 1, 4e-6);
    CHECK(c.from_file);
    int agreements = 0;
    /* sampled: one call in PC_LEARN_SAMPLE_EVERY, a check every
     * PC_LEARN_DRIFT_SAMPLES samples */
    for (int i = 0; i < PC_LEARN_SAMPLE_EVERY * PC_LEARN_DRIFT_SAMPLES; i++) {
        CHECK_INT(pc_learn_timed(&c), i % PC_LEARN_SAMPLE_EVERY == 0);
        int k = pc_learn_record(&c, 5e-6);
        if (k == PC_LEARN_AGREE_DRIFT) {
            agreements++;
            CHECK_INT(i, PC_LEARN_SAMPLE_EVERY * (PC_LEARN_DRIFT_SAMPLES - 1));
            CHECK_INT(agree(&c, k, 2), 0); /* 1.25x: no drift */
        }
    }
    CHECK_INT(agreements, 1);
    CHECK_INT(c.state, PC_LEARN_SETTLED);
    /* a phase change: twice as slow, explored again, at most
     * PC_LEARN_REVISITS times */
    for (int r = 0; r < PC_LEARN_REVISITS + 1; r++) {
        pc_learn_settle(&c, 2, cand, 1, 4e-6);
        c.revisits = r;
        double sum[PC_LEARN_CANDS] = {2 * 9e-6, 0, 0, 0};
        c.drift_n = PC_LEARN_DRIFT_SAMPLES;
        int again = pc_learn_agree(&c, PC_LEARN_AGREE_DRIFT, sum, 2);
        CHECK_INT(again, r < PC_LEARN_REVISITS);
        CHECK_INT(c.state, r < PC_LEARN_REVISITS ? PC_LEARN_EXPLORING : PC_LEARN_SETTLED);
    }
    /* settled from a file without a time: the first check sets it */
    pc_learn_settle(&c, 2, cand, 1, 0);
    double sum[PC_LEARN_CANDS] = {2 * 3e-6, 0, 0, 0};
    CHECK_INT(pc_learn_agree(&c, PC_LEARN_AGREE_DRIFT, sum, 2), 0);
    CHECK(fabs(c.ref - 3e-6) < 1e-12);
}

static void file_roundtrip(void)
{
    pc_learn_book_t b = {0}, back = {0};
    pc_learn_entry_t e = {.ranks = 4, .nodes = 2, .ppn = 2, .cls = 11, .ncand = 3};
    snprintf(e.coll, sizeof e.coll, "alltoall");
    snprintf(e.cand[0], sizeof e.cand[0], "native");
    snprintf(e.cand[1], sizeof e.cand[1], "direct");
    snprintf(e.cand[2], sizeof e.cand[2], "bruck");
    e.sec[0] = 3e-6, e.sec[1] = 2e-6, e.sec[2] = 0;
    snprintf(e.choice, sizeof e.choice, "direct");
    CHECK_INT(pc_learn_book_put(&b, &e), 0);
    e.cls = 3;
    snprintf(e.choice, sizeof e.choice, "native");
    CHECK_INT(pc_learn_book_put(&b, &e), 0);
    CHECK_INT(pc_learn_book_put(&b, &e), 0); /* the same key replaces */
    CHECK_INT(b.n, 2);
    FILE *f = tmpfile();
    CHECK_INT(pc_learn_book_write(&b, f), 0);
    long len = ftell(f);
    char *text = calloc(1, (size_t)len + 1);
    rewind(f);
    CHECK_INT(fread(text, 1, (size_t)len, f), len);
    fclose(f);
    char err[256] = "";
    CHECK_INT(pc_learn_book_parse(text, &back, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_INT(back.n, 2);
    const pc_learn_entry_t *g = pc_learn_book_find(&back, 4, 2, 2, "alltoall", 11);
    CHECK(g != NULL);
    if (g) {
        CHECK_STR(g->choice, "direct");
        CHECK_INT(g->ncand, 3);
        CHECK_STR(g->cand[2], "bruck");
        CHECK(fabs(g->sec[1] - 2e-6) < 1e-15);
    }
    CHECK(pc_learn_book_find(&back, 4, 2, 1, "alltoall", 11) == NULL);
    CHECK_HAS(text, "\"min_bytes\": 1024, \"max_bytes\": 2047");
    free(text);
    pc_learn_book_free(&b);
    pc_learn_book_free(&back);
}

static void file_refused(void)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "line 1"},
        {"garbage{[", "line 1"},
        {"[]", "no \"learned\" array"},
        {"{\"learned\": 3}", "no \"learned\" array"},
        {"{\"version\": 2, \"learned\": []}", "\"version\" must be 1"},
        {"{\"learned\": [7]}", "must be an object"},
        {"{\"learned\": [{\"ranks\": \"two\"}]}", "\"ranks\" must be an integer"},
        {"{\"learned\": [{\"ranks\": 2, \"nodes\": 3}]}", "\"nodes\" must be an integer"},
        {"{\"learned\": [{\"ranks\": 2, \"nodes\": 1, \"ranks_per_node\": 2, \"collective\": "
         "\"alltoall\", \"class\": 64, \"choice\": \"x\"}]}",
         "\"class\" must be an integer in [0, 63]"},
        {"{\"learned\": [{\"ranks\": 2, \"nodes\": 1, \"ranks_per_node\": 2, \"collective\": "
         "\"alltoall\", \"class\": 4, \"choice\": \"direct\", \"candidates\": []}]}",
         "non-empty array"},
        {"{\"learned\": [{\"ranks\": 2, \"nodes\": 1, \"ranks_per_node\": 2, \"collective\": "
         "\"alltoall\", \"class\": 4, \"choice\": \"direct\", \"candidates\": [{\"algo\": "
         "\"native\", \"seconds\": -1}]}]}",
         "a candidate must be"},
        {"{\"learned\": [{\"ranks\": 2, \"nodes\": 1, \"ranks_per_node\": 2, \"collective\": "
         "\"alltoall\", \"class\": 4, \"choice\": \"direct\", \"candidates\": [{\"algo\": "
         "\"native\", \"seconds\": 1}]}]}",
         "not one of its candidates"},
        {"{\"learned\": [{\"ranks\": 2, \"nodes\": 1, \"ranks_per_node\": 2, \"collective\": "
         "\"alltoall\", \"class\": 4, \"choice\": \"a\", \"candidates\": [{\"algo\": \"a\", "
         "\"seconds\": 1}, {\"algo\": \"b\", \"seconds\": 1}, {\"algo\": \"c\", \"seconds\": 1}, "
         "{\"algo\": \"d\", \"seconds\": 1}, {\"algo\": \"e\", \"seconds\": 1}]}]}",
         "more than 4 candidates"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pc_learn_book_t b = {0};
        char err[256] = "";
        CHECK_INT(pc_learn_book_parse(bad[i].text, &b, err, sizeof err), -1);
        CHECK_HAS(err, bad[i].msg);
        CHECK_INT(b.n, 0);
        CHECK(b.e == NULL);
    }
    pc_learn_book_t b = {0};
    char err[256];
    CHECK_INT(pc_learn_book_parse(NULL, &b, err, sizeof err), -1);
    CHECK_INT(pc_learn_book_parse("{\"learned\": []}", &b, err, sizeof err), 0);
    CHECK_INT(b.n, 0);
}

int main(void)
{
    classes();
    schedule_and_decision();
    ties_go_native();
    decision_from_sums();
    drift();
    file_roundtrip();
    file_refused();
    return unit_done("unit_learn");
}
