/*
 * The selection rules (src/select/select.c) without mpirun: documents
 * parsed, refused with the message, rule number and line a user sees, and
 * queried for shapes (collective, bytes per block, ranks, nodes, largest
 * node, NIC, shared memory) through pc_rules_pick / pc_rules_choose /
 * pc_rules_may_run.  The program links the library for its registry of
 * algorithms but never calls MPI_Init: nothing here talks to MPI.
 * A new case is one row of bad[] or picks[].
 */
#include <stdlib.h>

#include "select/select.h"
#include "unit.h"

#define ORIGIN "t.json"

/* ------------------------------------------------------------ refused */

static const struct {
    const char *text, *err;
} bad[] = {
    {"not json", "selection rules t.json: unexpected character at line 1, column 1"},
    {"{\"rules\": [\n  {\"coll\": \"alltoall\", \"algo\": \"direct\"}\n  {}\n]}",
     "selection rules t.json: expected ',' or ']' at line 3, column 3"},
    {"{}", "selection rules t.json: no \"rules\" array"},
    {"[]", "selection rules t.json: not a JSON object"},
    {"{\"rules\": {}}", "selection rules t.json: no \"rules\" array"},
    {"{\"rule\": []}", "selection rules t.json: unknown member \"rule\" at line 1 (known: rules, "
                         "version, comment, provenance)"},
    {"{\"rules\": [1]}", "selection rules t.json, rule 1 (line 1): a rule must be an object"},
    {"{\"rules\": [\n {\"coll\": \"alltoall\", \"algo\": \"direct\", \"min_bytes\": 1},\n"
     " {\"coll\": \"alltoall\", \"algo\": \"bruck\", \"max_byte\": 64}\n]}",
     "selection rules t.json, rule 2 (line 3): unknown condition \"max_byte\" (known: coll, "
     "algo, min_/max_bytes, min_/max_ranks, min_/max_nodes, min_/max_ppn, nic, comment)"},
    {"{\"rules\": [{\"coll\": \"alltoall\", \"algo\": \"direct\", \"min_bytes\": \"1\"}]}",
     "selection rules t.json, rule 1 (line 1): \"min_bytes\" must be a number"},
    {"{\"rules\": [{\"coll\": \"alltoall\", \"algo\": \"direct\", \"max_ppn\": null}]}",
     "selection rules t.json, rule 1 (line 1): \"max_ppn\" must be a number"},
    {"{\"rules\": [{\"coll\": \"alltoall\"}]}",
     "selection rules t.json, rule 1 (line 1): a rule needs \"coll\" and \"algo\" strings"},
    {"{\"rules\": [{\"algo\": \"direct\"}]}",
     "selection rules t.json, rule 1 (line 1): a rule needs \"coll\" and \"algo\" strings"},
    {"{\"rules\": [{\"coll\": \"alltoall\", \"algo\": 3}]}",
     "selection rules t.json, rule 1 (line 1): a rule needs \"coll\" and \"algo\" strings"},
    {"{\"rules\": [{\"coll\": \"alltoallw\", \"algo\": \"direct\"}]}",
     "selection rules t.json, rule 1 (line 1): unknown collective \"alltoallw\""},
    {"{\"rules\": [{\"coll\": \"alltoall\", \"algo\": \"leader\", \"nic\": \"fast\"}]}",
     "selection rules t.json, rule 1 (line 1): \"nic\" must be \"onload\", \"offload\" or \"none\""},
    {"{\"rules\": [{\"coll\": \"alltoall\", \"algo\": \"leader\", \"nic\": 1}]}",
     "selection rules t.json, rule 1 (line 1): \"nic\" must be \"onload\", \"offload\" or \"none\""},
    /* a skipped rule (a later version's algorithm) still counts in the numbering */
    {"{\"rules\": [\n {\"coll\": \"alltoall\", \"algo\": \"no_such_algorithm\"},\n"
     " {\"coll\": \"gather\", \"algo\": \"direct\"},\n {\"coll\": \"gather\"}\n]}",
     "selection rules t.json, rule 3 (line 4): a rule needs \"coll\" and \"algo\" strings"},
};

static void test_refused(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[600] = "untouched";
        pc_rules_t *rs = pc_rules_parse(bad[i].text, ORIGIN, err, sizeof err);
        if (!CHECK(rs == NULL))
            fprintf(stderr, "    accepted: %s\n", bad[i].text);
        pc_rules_free(rs);
        CHECK_STR(err, bad[i].err);
    }
}

/* ------------------------------------------------------------ queried */

/* Rule numbers (1-based, in the file) and lines; rule 2 is skipped. */
static const char *const doc =
    "{\n"
    "  \"comment\": \"unit_rules\",\n"
    "  \"rules\": [\n"
    "    {\"coll\": \"alltoall\", \"algo\": \"bruck\", \"max_bytes\": 256, \"min_ranks\": 4},\n"
    "    {\"coll\": \"alltoall\", \"algo\": \"no_such_algorithm\"},\n"
    "    {\"coll\": \"alltoall\", \"algo\": \"shm_direct\", \"min_bytes\": 257, \"max_bytes\": 4096,\n"
    "     \"min_nodes\": 2, \"min_ppn\": 2, \"comment\": \"needs the node segment\"},\n"
    "    {\"coll\": \"alltoall\", \"algo\": \"leader\", \"nic\": \"offload\", \"min_nodes\": 2},\n"
    "    {\"coll\": \"alltoall\", \"algo\": \"direct\", \"max_ranks\": 64},\n"
    "    {\"coll\": \"gather\", \"algo\": \"binomial\", \"min_ppn\": 3, \"max_ppn\": 3},\n"
    "    {\"coll\": \"allgather\", \"algo\": \"model\"},\n"
    "    {\"coll\": \"alltoallv\", \"algo\": \"direct\", \"min_bytes\": 100, \"max_nodes\": 1},\n"
    "    {\"coll\": \"alltoallv\", \"algo\": \"native\"}\n"
    "  ]\n"
    "}\n";

/* The rule a query must pick, by its number in the file (0: none, the MPI
 * library), or a PC_PICK_NEED_* answer (negative). */
enum { NEED_NIC = -1000 + PC_PICK_NEED_NIC, NEED_BYTES = -1000 + PC_PICK_NEED_BYTES };
#define ON 1
#define OFF 2  /* enum pc_nic: onload, offload */
#define UNK -1 /* the NIC not measured yet */

static const struct {
    pacoll_coll_t coll;
    double m;
    pc_shape_t s; /* ranks, nodes, ppn, nic, shm */
    int rule;
} picks[] = {
    /* bruck up to 256 bytes from 4 ranks; the bound is inclusive */
    {PACOLL_ALLTOALL, 256, {4, 1, 4, UNK, 1}, 1},
    {PACOLL_ALLTOALL, 0, {4, 1, 4, UNK, 1}, 1},
    {PACOLL_ALLTOALL, 256, {3, 1, 3, UNK, 1}, 5},
    {PACOLL_ALLTOALL, 257, {4, 1, 4, UNK, 1}, 5},
    /* shm_direct needs two nodes of at least two, and the node segment */
    {PACOLL_ALLTOALL, 1000, {8, 2, 4, UNK, 1}, 3},
    {PACOLL_ALLTOALL, 4096, {3, 2, 2, UNK, 1}, 3},
    {PACOLL_ALLTOALL, 1000, {8, 8, 1, UNK, 1}, NEED_NIC}, /* ppn 1: on to the NIC rule */
    {PACOLL_ALLTOALL, 1000, {8, 2, 4, UNK, 0}, NEED_NIC}, /* no segment: shm_direct passed over */
    /* the NIC rule, once the NIC is known: leader (also needs the segment) */
    {PACOLL_ALLTOALL, 1000, {8, 2, 4, OFF, 0}, 5},
    {PACOLL_ALLTOALL, 5000, {8, 2, 4, OFF, 1}, 4},
    {PACOLL_ALLTOALL, 5000, {8, 2, 4, ON, 1}, 5},
    {PACOLL_ALLTOALL, 5000, {8, 1, 8, UNK, 1}, 5}, /* one node: the NIC is never asked */
    /* direct up to 64 ranks, then nothing: the MPI library */
    {PACOLL_ALLTOALL, 5000, {64, 1, 64, UNK, 1}, 5},
    {PACOLL_ALLTOALL, 5000, {65, 1, 65, UNK, 1}, 0},
    /* the size unknown (alltoallv before its agreement) */
    {PACOLL_ALLTOALL, -1, {4, 1, 4, UNK, 1}, NEED_BYTES},
    {PACOLL_ALLTOALL, -1, {3, 1, 3, UNK, 1}, 5}, /* no rule that could match asks for it */
    {PACOLL_ALLTOALLV, -1, {4, 1, 4, UNK, 1}, NEED_BYTES},
    {PACOLL_ALLTOALLV, -1, {4, 2, 2, UNK, 1}, 9}, /* the sized rule's shape does not match */
    {PACOLL_ALLTOALLV, 99, {4, 1, 4, UNK, 1}, 9},
    {PACOLL_ALLTOALLV, 100, {4, 1, 4, UNK, 1}, 8},
    /* the largest node, exactly */
    {PACOLL_GATHER, 10, {6, 2, 3, UNK, 1}, 6},
    {PACOLL_GATHER, 10, {5, 2, 3, UNK, 1}, 6}, /* uneven: 3 and 2 */
    {PACOLL_GATHER, 10, {4, 2, 2, UNK, 1}, 0},
    {PACOLL_GATHER, 10, {8, 2, 4, UNK, 1}, 0},
    /* the cost models, at any shape */
    {PACOLL_ALLGATHER, 1, {2, 1, 2, UNK, 1}, 7},
    {PACOLL_ALLGATHER, 1e6, {128, 16, 8, OFF, 0}, 7},
};

static void test_picks(void)
{
    char err[600];
    pc_rules_t *rs = pc_rules_parse(doc, ORIGIN, err, sizeof err);
    if (!CHECK(rs != NULL)) {
        fprintf(stderr, "    %s\n", err);
        return;
    }
    CHECK_INT(pc_rules_count(rs), 8); /* nine rules, one skipped */
    CHECK_STR(pc_rules_origin(rs), ORIGIN);
    /* each rule's algorithm, number and line */
    static const struct { pacoll_coll_t coll; const char *algo; int number, line; } rules[] = {
        {PACOLL_ALLTOALL, "bruck", 1, 4},      {PACOLL_ALLTOALL, "shm_direct", 3, 6},
        {PACOLL_ALLTOALL, "leader", 4, 8},     {PACOLL_ALLTOALL, "direct", 5, 9},
        {PACOLL_GATHER, "binomial", 6, 10},    {PACOLL_ALLGATHER, "model", 7, 11},
        {PACOLL_ALLTOALLV, "direct", 8, 12},   {PACOLL_ALLTOALLV, "native", 9, 13},
    };
    int pos_of[16] = {0};
    for (int i = 0; i < 8; i++) {
        int algo, number, line;
        pc_rules_rule(rs, i, &algo, &number, &line);
        int want = strcmp(rules[i].algo, "model") ? pc_registry_find(rules[i].coll, rules[i].algo)
                                                  : PC_ALGO_MODEL;
        CHECK(want != -1);
        CHECK_INT(algo, want);
        CHECK_INT(number, rules[i].number);
        CHECK_INT(line, rules[i].line);
        pos_of[rules[i].number] = i;
    }
    for (size_t q = 0; q < sizeof picks / sizeof picks[0]; q++) {
        const pc_shape_t *s = &picks[q].s;
        int got = pc_rules_pick(rs, picks[q].coll, s, picks[q].m);
        int want = picks[q].rule == 0 ? PC_PICK_NONE
                   : picks[q].rule < 0 ? picks[q].rule + 1000
                                       : pos_of[picks[q].rule];
        if (!CHECK(got == want))
            fprintf(stderr, "    query %zu (%s, m %g, ranks %d nodes %d ppn %d nic %d shm %d): "
                            "pick %d, want %d (rule %d)\n",
                    q, pacoll_coll_name(picks[q].coll), picks[q].m, s->ranks, s->nodes, s->ppn,
                    s->nic, s->shm, got, want, picks[q].rule);
        /* what a call gets: the rule's algorithm, the MPI library when none
         * matches or one asks for what the query does not say, the cost
         * models' choice (one of pacoll's that fits the shape) for "model" */
        int pick, idx = pc_rules_choose(rs, picks[q].coll, s, picks[q].m, 2, &pick);
        CHECK_INT(pick, got);
        if (got < 0) {
            CHECK_INT(idx, pc_registry_native(picks[q].coll));
        } else {
            int algo, number, line;
            pc_rules_rule(rs, got, &algo, &number, &line);
            if (algo != PC_ALGO_MODEL) {
                CHECK_INT(idx, algo);
            } else {
                const char *why;
                const pacoll_algo_t *a = pc_registry_get(idx);
                CHECK(a->coll == picks[q].coll && pc_algo_fits(s, a, &why));
            }
        }
    }
    /* whether pacoll may run at some size: not for gather on nodes of 2
     * (only binomial, at ppn 3), nor where only native could be chosen */
    pc_shape_t s = {4, 2, 2, UNK, 1};
    CHECK_INT(pc_rules_may_run(rs, PACOLL_GATHER, &s), 0);
    s = (pc_shape_t){6, 2, 3, UNK, 1};
    CHECK_INT(pc_rules_may_run(rs, PACOLL_GATHER, &s), 1);
    s = (pc_shape_t){65, 1, 65, UNK, 1};
    CHECK_INT(pc_rules_may_run(rs, PACOLL_ALLTOALL, &s), 1); /* bruck, small blocks */
    s = (pc_shape_t){3, 1, 3, UNK, 1};
    CHECK_INT(pc_rules_may_run(rs, PACOLL_ALLTOALLV, &s), 1);
    s = (pc_shape_t){4, 2, 2, UNK, 1};
    CHECK_INT(pc_rules_may_run(rs, PACOLL_ALLTOALLV, &s), 0); /* native only */
    CHECK_INT(pc_rules_may_run(rs, PACOLL_ALLGATHER, &s), 1);
    pc_rules_free(rs);
    /* no rules at all: the MPI library everywhere */
    CHECK_INT(pc_rules_pick(NULL, PACOLL_ALLTOALL, &s, 8), PC_PICK_NONE);
    CHECK_INT(pc_rules_may_run(NULL, PACOLL_ALLTOALL, &s), 0);
    rs = pc_rules_parse("{\"rules\": []}", ORIGIN, err, sizeof err);
    CHECK(rs && pc_rules_count(rs) == 0);
    CHECK_INT(pc_rules_pick(rs, PACOLL_ALLTOALL, &s, 8), PC_PICK_NONE);
    pc_rules_free(rs);
}

/* ------------------------------------------------- the project's files */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n)
        free(text), text = NULL;
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* The built-in rules and tests/rules/: what a program given one of them in
 * PACOLL_RULES sees at its first call, here without a job (the MPI test
 * rules_bad_syntax checks that path once, end to end). */
static void test_files(void)
{
    char err[600];
    pc_rules_t *rs = pc_rules_parse(pc_rules_builtin(), "(built in)", err, sizeof err);
    if (CHECK(rs != NULL))
        CHECK(pc_rules_count(rs) > 0);
    else
        fprintf(stderr, "    %s\n", err);
    pc_rules_free(rs);

    static const struct { const char *file; int count; const char *err; } files[] = {
        {"handwritten.json", 20, NULL},
        {"native.json", 1, NULL},
        {"bruck_small.json", 2, NULL}, /* the unknown algorithm skipped */
        {"bad_syntax.json", 0, "expected ',' or ']' at line 4, column 5"},
        {"bad_key.json", 0, "rule 2 (line 4): unknown condition \"max_byte\""},
        {"bad_nic.json", 0, "rule 1 (line 3): \"nic\" must be"},
        {"bad_no_rules.json", 0, "no \"rules\" array"},
        {"bad_nul.json", 0, "\\u0000 (NUL) is not allowed"},
        {"bad_nul.json", 0, "line 3"},
        {"bad_top.json", 0, "unknown member \"rule\" at line 3"},
        {"bad_version.json", 0, "\"version\" is 2 at line 3"},
        {"bad_version.json", 0, "this build reads version 1"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", UNIT_RULES_DIR, files[i].file);
        char *text = read_file(path);
        if (!CHECK(text != NULL)) {
            fprintf(stderr, "    cannot read %s\n", path);
            continue;
        }
        err[0] = '\0';
        rs = pc_rules_parse(text, path, err, sizeof err);
        if (files[i].err) {
            CHECK(rs == NULL);
            CHECK_HAS(err, path);
            CHECK_HAS(err, files[i].err);
        } else if (CHECK(rs != NULL)) {
            CHECK_INT(pc_rules_count(rs), files[i].count);
        } else {
            fprintf(stderr, "    %s\n", err);
        }
        pc_rules_free(rs);
        free(text);
    }
}

int main(void)
{
    test_refused();
    test_picks();
    test_files();
    return unit_done("unit_rules");
}
