/*
 * The rules' JSON reader (src/select/json.c): documents it must read, with
 * their tree, strings and numbers and every value's line, and documents it
 * must refuse, with the message and the line and column it gives.  A new
 * case is one row of valid[] or errors[] below.
 */
#include <math.h>
#include <stdlib.h>

#include "select/json.h"
#include "unit.h"

/* ------------------------------------------------------------ helpers */

static int count(const pc_json_t *j)
{
    int n = 0;
    for (const pc_json_t *c = j ? j->child : NULL; c; c = c->next)
        n++;
    return n;
}

static const pc_json_t *nth(const pc_json_t *j, int i)
{
    const pc_json_t *c = j ? j->child : NULL;
    while (c && i-- > 0)
        c = c->next;
    return c;
}

/* Parses text, which must succeed with an empty message. */
static pc_json_t *parse_ok(const char *text)
{
    char err[200] = "untouched";
    pc_json_t *j = pc_json_parse(text, err, sizeof err);
    if (!CHECK(j != NULL))
        fprintf(stderr, "    text %s\n    error %s\n", text, err);
    CHECK_STR(err, "");
    return j;
}

/* ------------------------------------------------------- valid documents */

static void test_scalars(void)
{
    static const struct { const char *text; pc_jtype_t type; double num; } rows[] = {
        {"true", PC_JBOOL, 1},   {"false", PC_JBOOL, 0}, {"null", PC_JNULL, 0},
        {"0", PC_JNUM, 0},       {"-0", PC_JNUM, 0},     {"7", PC_JNUM, 7},
        {"-12", PC_JNUM, -12},   {"3.25", PC_JNUM, 3.25}, {"-1.5e3", PC_JNUM, -1500},
        {"1E-2", PC_JNUM, 0.01}, {"2e+3", PC_JNUM, 2000},
        {"1048576", PC_JNUM, 1048576},
        {"9007199254740992", PC_JNUM, 9007199254740992.0}, /* 2^53: exact in a double */
        {" \t\r\n 5 \n", PC_JNUM, 5},                       /* whitespace around */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pc_json_t *j = parse_ok(rows[i].text);
        if (!j)
            continue;
        CHECK_INT(j->type, rows[i].type);
        if (!CHECK(j->num == rows[i].num))
            fprintf(stderr, "    %s read as %.17g\n", rows[i].text, j->num);
        CHECK(j->child == NULL && j->next == NULL && j->key == NULL && j->str == NULL);
        pc_json_free(j);
    }
}

static void test_strings(void)
{
    static const struct { const char *text, *want; } rows[] = {
        {"\"\"", ""},
        {"\"plain text\"", "plain text"},
        {"\"a\\\"b\"", "a\"b"},
        {"\"back\\\\slash\"", "back\\slash"},
        {"\"\\/\"", "/"},
        {"\"\\n\\t\\r\\b\\f\"", "\n\t\r\b\f"},
        {"\"\\u0041\\u0062\"", "Ab"},                       /* one byte */
        {"\"\\u00e9\"", "\xc3\xa9"},                        /* two bytes */
        {"\"\\u20AC\"", "\xe2\x82\xac"},                    /* three, upper-case hex */
        {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80"},         /* a surrogate pair: one code point */
        {"\"caf\xc3\xa9\"", "caf\xc3\xa9"},                 /* UTF-8 passes through */
        {"\"{[,:]}\"", "{[,:]}"},                           /* structure inside a string */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pc_json_t *j = parse_ok(rows[i].text);
        if (!j)
            continue;
        CHECK_INT(j->type, PC_JSTR);
        CHECK_STR(j->str, rows[i].want);
        pc_json_free(j);
    }
    /* a longer string than the reader's first buffer, with escapes spread over it */
    char text[4200], want[4200];
    size_t n = 0, w = 0;
    text[n++] = '"';
    for (int i = 0; i < 1000; i++) {
        memcpy(text + n, "ab\\n", 4), n += 4;
        memcpy(want + w, "ab\n", 3), w += 3;
    }
    text[n++] = '"', text[n] = '\0', want[w] = '\0';
    pc_json_t *j = parse_ok(text);
    if (j)
        CHECK(j->type == PC_JSTR && strcmp(j->str, want) == 0);
    pc_json_free(j);
}

static void test_containers(void)
{
    pc_json_t *j = parse_ok("{}");
    CHECK(j && j->type == PC_JOBJ && j->child == NULL);
    pc_json_free(j);
    j = parse_ok("[ ]");
    CHECK(j && j->type == PC_JARR && j->child == NULL);
    pc_json_free(j);

    j = parse_ok("{\"a\": [1, {\"b\": [true, false, null]}, \"s\"], \"c\": {\"d\": {}}, \"e\": -2}");
    if (!j)
        return;
    CHECK_INT(j->type, PC_JOBJ);
    CHECK_INT(count(j), 3);
    const pc_json_t *a = pc_json_get(j, "a");
    CHECK(a && a->type == PC_JARR && count(a) == 3 && strcmp(a->key, "a") == 0);
    CHECK(nth(a, 0) && nth(a, 0)->type == PC_JNUM && nth(a, 0)->num == 1 && nth(a, 0)->key == NULL);
    const pc_json_t *b = pc_json_get(nth(a, 1), "b");
    CHECK(b && b->type == PC_JARR && count(b) == 3);
    CHECK(nth(b, 0) && nth(b, 0)->type == PC_JBOOL && nth(b, 0)->num == 1);
    CHECK(nth(b, 1) && nth(b, 1)->type == PC_JBOOL && nth(b, 1)->num == 0);
    CHECK(nth(b, 2) && nth(b, 2)->type == PC_JNULL);
    CHECK(nth(a, 2) && nth(a, 2)->type == PC_JSTR && strcmp(nth(a, 2)->str, "s") == 0);
    const pc_json_t *d = pc_json_get(pc_json_get(j, "c"), "d");
    CHECK(d && d->type == PC_JOBJ && d->child == NULL);
    CHECK(pc_json_get(j, "e") && pc_json_get(j, "e")->num == -2);
    /* members in document order, keys kept */
    CHECK_STR(nth(j, 0)->key, "a");
    CHECK_STR(nth(j, 1)->key, "c");
    CHECK_STR(nth(j, 2)->key, "e");
    /* pc_json_get: absent, on a non-object, on NULL, case-sensitive */
    CHECK(pc_json_get(j, "z") == NULL);
    CHECK(pc_json_get(j, "A") == NULL);
    CHECK(pc_json_get(a, "a") == NULL);
    CHECK(pc_json_get(NULL, "a") == NULL);
    pc_json_free(j);

    /* a repeated member: pc_json_get gives the first, both are kept */
    j = parse_ok("{\"k\": 1, \"k\": 2}");
    CHECK(j && count(j) == 2 && pc_json_get(j, "k") && pc_json_get(j, "k")->num == 1);
    pc_json_free(j);
    /* escapes in keys */
    j = parse_ok("{\"a\\u0062\\\"c\": true}");
    CHECK(j && pc_json_get(j, "ab\"c") != NULL);
    pc_json_free(j);
}

/* 64 levels of arrays are read; the 65th is refused. */
static void test_depth(void)
{
    char text[300];
    for (int depth = 63; depth <= 65; depth++) {
        int n = 0;
        for (int i = 0; i < depth; i++)
            text[n++] = '[';
        for (int i = 0; i < depth; i++)
            text[n++] = ']';
        text[n] = '\0';
        char err[200];
        pc_json_t *j = pc_json_parse(text, err, sizeof err);
        if (depth <= 64) {
            CHECK(j != NULL);
            const pc_json_t *c = j;
            int levels = 0;
            for (; c; c = c->child)
                levels++;
            CHECK_INT(levels, depth);
        } else {
            CHECK(j == NULL);
            CHECK_STR(err, "nesting too deep at line 1, column 65");
        }
        pc_json_free(j);
    }
}

/* Every value's line: where it starts, counted from 1. */
static void test_lines(void)
{
    const char *text = "{\n"
                       "  \"rules\": [\n"
                       "    {\"coll\": \"alltoall\"},\n"
                       "\n"
                       "    {\"coll\":\n"
                       "       \"gather\"}\n"
                       "  ],\n"
                       "  \"n\": 3\n"
                       "}\n";
    pc_json_t *j = parse_ok(text);
    if (!j)
        return;
    const pc_json_t *rules = pc_json_get(j, "rules");
    CHECK_INT(j->line, 1);
    CHECK_INT(rules->line, 2);
    CHECK_INT(nth(rules, 0)->line, 3);
    CHECK_INT(pc_json_get(nth(rules, 0), "coll")->line, 3);
    CHECK_INT(nth(rules, 1)->line, 5);
    CHECK_INT(pc_json_get(nth(rules, 1), "coll")->line, 6);
    CHECK_INT(pc_json_get(j, "n")->line, 8);
    pc_json_free(j);
}

/* ------------------------------------------------------------ errors */

static const struct {
    const char *text, *err;
} errors[] = {
    {"", "unexpected character at line 1, column 1"},
    {"   ", "unexpected character at line 1, column 4"},
    {"x", "unexpected character at line 1, column 1"},
    {"tru", "unexpected character at line 1, column 1"},
    {"nul", "unexpected character at line 1, column 1"},
    {"[1,]", "unexpected character at line 1, column 4"},
    {"[,1]", "unexpected character at line 1, column 2"},
    {"{\"a\": }", "unexpected character at line 1, column 7"},
    {"[1 2]", "expected ',' or ']' at line 1, column 4"},
    {"[1", "expected ',' or ']' at line 1, column 3"},
    {"{\"a\": 1 \"b\": 2}", "expected ',' or '}' at line 1, column 9"},
    {"{\"a\": 1", "expected ',' or '}' at line 1, column 8"},
    {"{1: 2}", "expected a string at line 1, column 2"},
    {"{,}", "expected a string at line 1, column 2"},
    /* the column after the character that should have been ':' */
    {"{\"a\" 1}", "expected ':' at line 1, column 7"},
    {"{\"a\",}", "expected ':' at line 1, column 6"},
    {"{\"a\"", "expected ':' at line 1, column 5"}, /* the text ends */
    {"\"abc", "unterminated string at line 1, column 5"},
    {"\"ab\\", "unterminated string at line 1, column 5"},
    {"[\"a]", "unterminated string at line 1, column 5"},
    {"\"\\u12G4\"", "\\u needs four hex digits at line 1, column 4"},
    {"\"\\u12\"", "\\u needs four hex digits at line 1, column 4"},
    {"[1] x", "trailing characters at line 1, column 5"},
    {"{} {}", "trailing characters at line 1, column 4"},
    {"1 2", "trailing characters at line 1, column 3"},
    /* lines and columns across newlines (tests/rules/bad_syntax.json) */
    {"{\n  \"rules\": [\n    {\"coll\": \"alltoall\", \"algo\": \"direct\"}\n"
     "    {\"coll\": \"gather\", \"algo\": \"binomial\"}\n  ]\n}\n",
     "expected ',' or ']' at line 4, column 5"},
    {"[\n1,\n\n  @]", "unexpected character at line 4, column 3"},
    {"{\"a\":\n\"new\nline\" x}", "expected ',' or '}' at line 3, column 7"},
};

static void test_errors(void)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        char err[200] = "untouched";
        pc_json_t *j = pc_json_parse(errors[i].text, err, sizeof err);
        if (!CHECK(j == NULL))
            fprintf(stderr, "    accepted: %s\n", errors[i].text);
        pc_json_free(j);
        CHECK_STR(err, errors[i].err);
    }
    /* the error in the middle of a tree frees what was read (ASan's leak check) */
    char err[200];
    CHECK(pc_json_parse("{\"a\": [1, 2, {\"b\": \"c\"}], \"d\": [true, @]}", err, sizeof err) == NULL);
    CHECK_STR(err, "unexpected character at line 1, column 39");
    /* a short message buffer is cut, and still a string */
    char small[12];
    CHECK(pc_json_parse("[1 2]", small, sizeof small) == NULL);
    CHECK_STR(small, "expected ',");
    /* no message buffer at all */
    CHECK(pc_json_parse("[1 2]", NULL, 0) == NULL);
    /* a success clears an earlier message */
    char reused[64] = "stale text";
    pc_json_t *j = pc_json_parse("[]", reused, sizeof reused);
    CHECK(j != NULL);
    CHECK_STR(reused, "");
    pc_json_free(j);
    pc_json_free(NULL);
}

int main(void)
{
    test_scalars();
    test_strings();
    test_containers();
    test_depth();
    test_lines();
    test_errors();
    return unit_done("unit_json");
}
