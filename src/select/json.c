/* The small JSON reader: see json.h. */
#include "select/json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s, *start;
    char *err;
    size_t errlen;
    int depth;
    const char *counted; /* the line of every value: newlines counted up to here */
    int line;
} parser_t;

static pc_json_t *parse_value(parser_t *p);

static void skip_ws(parser_t *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

/* The error, at the line and column a user's editor shows (1-based). */
static pc_json_t *fail(parser_t *p, const char *what)
{
    if (!p->err || p->err[0] != '\0')
        return NULL;
    long line = 1, col = 1;
    for (const char *c = p->start; c < p->s && *c; c++)
        if (*c == '\n')
            line++, col = 1;
        else
            col++;
    snprintf(p->err, p->errlen, "%s at line %ld, column %ld", what, line, col);
    return NULL;
}

static pc_json_t *node(pc_jtype_t type)
{
    pc_json_t *j = calloc(1, sizeof *j);
    if (j)
        j->type = type;
    return j;
}

/* Four hex digits after \u; -1 if they are not. */
static long hex4(const char *s)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int c = (unsigned char)s[i], d = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Appends len bytes, growing the buffer (freed, NULL on failure). */
static char *append(char *out, size_t *n, size_t *cap, const char *b, size_t len)
{
    if (out && *n + len + 1 > *cap) {
        char *bigger = realloc(out, *cap = 2 * (*cap + len));
        if (!bigger)
            free(out);
        out = bigger;
    }
    if (out)
        memcpy(out + *n, b, len), *n += len;
    return out;
}

static char *parse_string_raw(parser_t *p)
{
    if (*p->s != '"')
        return fail(p, "expected a string"), NULL;
    p->s++;
    size_t cap = 16, n = 0;
    char *out = malloc(cap);
    while (out && *p->s && *p->s != '"') {
        char b[4] = {*p->s++};
        size_t len = 1;
        if (b[0] == '\\') {
            char e = *p->s++;
            b[0] = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            if (e == '\0') {
                free(out);
                return fail(p, "unterminated string"), NULL;
            }
            if (e == 'u') { /* UTF-8; a surrogate pair is one code point */
                long u = hex4(p->s), lo;
                if (u < 0) {
                    free(out);
                    return fail(p, "\\u needs four hex digits"), NULL;
                }
                p->s += 4;
                if (u == 0) { /* a C string ends there: "alltoall\u0000x" is not alltoall */
                    free(out);
                    return fail(p, "\\u0000 (NUL) is not allowed in a string"), NULL;
                }
                if (u >= 0xD800 && u < 0xDC00 && p->s[0] == '\\' && p->s[1] == 'u' &&
                    (lo = hex4(p->s + 2)) >= 0xDC00 && lo < 0xE000)
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00), p->s += 6;
                if (u < 0x80)
                    b[0] = (char)u;
                else if (u < 0x800)
                    b[0] = (char)(0xC0 | u >> 6), b[1] = (char)(0x80 | (u & 63)), len = 2;
                else if (u < 0x10000)
                    b[0] = (char)(0xE0 | u >> 12), b[1] = (char)(0x80 | (u >> 6 & 63)),
                    b[2] = (char)(0x80 | (u & 63)), len = 3;
                else
                    b[0] = (char)(0xF0 | u >> 18), b[1] = (char)(0x80 | (u >> 12 & 63)),
                    b[2] = (char)(0x80 | (u >> 6 & 63)), b[3] = (char)(0x80 | (u & 63)), len = 4;
            }
        }
        out = append(out, &n, &cap, b, len);
    }
    if (!out)
        return fail(p, "out of memory"), NULL;
    if (*p->s != '"') {
        free(out);
        return fail(p, "unterminated string"), NULL;
    }
    p->s++;
    out[n] = '\0';
    return out;
}

static pc_json_t *parse_container(parser_t *p, int is_obj)
{
    pc_json_t *j = node(is_obj ? PC_JOBJ : PC_JARR), **tail = &j->child;
    char close = is_obj ? '}' : ']';
    if (!j || ++p->depth > 64)
        return pc_json_free(j), fail(p, "nesting too deep");
    p->s++;
    skip_ws(p);
    if (*p->s == close) {
        p->s++, p->depth--;
        return j;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(p);
        if (is_obj) {
            if (!(key = parse_string_raw(p)))
                return pc_json_free(j), NULL;
            skip_ws(p);
            if (*p->s++ != ':')
                return free(key), pc_json_free(j), fail(p, "expected ':'");
        }
        pc_json_t *v = parse_value(p);
        if (!v)
            return free(key), pc_json_free(j), NULL;
        v->key = key;
        *tail = v, tail = &v->next;
        skip_ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == close) {
            p->s++, p->depth--;
            return j;
        }
        return pc_json_free(j), fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static pc_json_t *parse_literal(parser_t *p)
{
    static const struct { const char *word; pc_jtype_t type; double num; } lits[] = {
        {"true", PC_JBOOL, 1}, {"false", PC_JBOOL, 0}, {"null", PC_JNULL, 0}};
    for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
        size_t n = strlen(lits[i].word);
        if (strncmp(p->s, lits[i].word, n) == 0) {
            pc_json_t *j = node(lits[i].type);
            if (j)
                j->num = lits[i].num;
            p->s += n;
            return j;
        }
    }
    char *end;
    double v = strtod(p->s, &end);
    if (end == p->s)
        return fail(p, "unexpected character");
    pc_json_t *j = node(PC_JNUM);
    if (j)
        j->num = v;
    p->s = end;
    return j;
}

static pc_json_t *parse_one(parser_t *p)
{
    if (*p->s == '{' || *p->s == '[')
        return parse_container(p, *p->s == '{');
    if (*p->s == '"') {
        char *s = parse_string_raw(p);
        pc_json_t *j = s ? node(PC_JSTR) : NULL;
        if (j)
            j->str = s;
        else
            free(s);
        return j;
    }
    return parse_literal(p);
}

static pc_json_t *parse_value(parser_t *p)
{
    skip_ws(p);
    for (; p->counted < p->s; p->counted++) /* the parser only moves forward */
        p->line += *p->counted == '\n';
    int line = p->line;
    pc_json_t *j = parse_one(p);
    if (j)
        j->line = line;
    return j;
}

pc_json_t *pc_json_parse(const char *text, char *err, size_t errlen)
{
    parser_t p = {.start = text, .s = text, .err = err, .errlen = errlen, .counted = text,
                  .line = 1};
    if (err && errlen)
        err[0] = '\0';
    pc_json_t *j = parse_value(&p);
    if (j) /* after an error p.s may stand one past the text's end */
        skip_ws(&p);
    if (j && *p.s != '\0') {
        pc_json_free(j);
        return fail(&p, "trailing characters");
    }
    return j;
}

void pc_json_free(pc_json_t *j)
{
    while (j) {
        pc_json_t *next = j->next;
        pc_json_free(j->child);
        free(j->str);
        free(j->key);
        free(j);
        j = next;
    }
}

const pc_json_t *pc_json_get(const pc_json_t *obj, const char *key)
{
    if (!obj || obj->type != PC_JOBJ)
        return NULL;
    for (const pc_json_t *c = obj->child; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0)
            return c;
    return NULL;
}
