/*
 * pacoll-info: what this pacoll is and what it would do, without running
 * anything (docs/TUNE.md): its version and build, the MPI library, the
 * selection rules in effect and where they came from, the algorithms, and
 * for a communicator's shape the algorithm an automatic call of each size
 * gets, and why (the environment, a rule, or none: the MPI library).
 *
 *   pacoll-info [--ranks P --nodes N --ppn K] [--nic onload|offload|none]
 *               [--rules-file FILE] [--colls LIST] [--sizes MIN:MAX]
 *   pacoll-info --settings      every setting: default, value here, meaning
 *   pacoll-info --settings-table  every setting, tab-separated: name, owning
 *                               algorithm (or -), default, meaning; what
 *                               tools/info/env-md makes docs/ENV.md from
 *   pacoll-info --rules         the rules in effect, numbered as
 *                               PACOLL_VERBOSE cites them
 *   pacoll-info --version | --help
 *
 * It reads the environment as the library does (core/config.c: the same
 * parameter table, the same checks), so a value the library would refuse
 * is refused here, and PACOLL_<COLL> forces a collective's algorithm here
 * as it does there.  No MPI_Init: nothing here communicates
 * (MPI_Get_library_version may be called before it).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pacoll.h"
#include "base/internal.h"
#include "core/config.h"
#include "select/json.h"
#include "select/nic.h"
#include "select/select.h"
#include "../tune/tune.h"

#ifndef PACOLL_INFO_BUILD
#define PACOLL_INFO_BUILD "(unknown)"
#endif

static void usage(FILE *f)
{
    fputs("usage: pacoll-info [--ranks P --nodes N --ppn K] [--nic onload|offload|none]\n"
          "                   [--rules-file FILE] [--colls LIST] [--sizes MIN:MAX]\n"
          "       pacoll-info --settings     every PACOLL_* setting: default, value here, meaning\n"
          "       pacoll-info --settings-table  the same, tab-separated: name, algorithm (or -),\n"
          "                                  default, meaning (no environment read)\n"
          "       pacoll-info --rules        the selection rules in effect, with the numbers and\n"
          "                                  lines PACOLL_VERBOSE cites, and where they came from\n"
          "       pacoll-info --version | --help\n"
          "  without a shape: the version, build, rules and algorithms only\n"
          "  --ppn defaults to ceil(P / N), --nodes to 1, --nic to none\n"
          "  --rules-file FILE: these rules instead of PACOLL_RULES or the built-in ones\n"
          "  the environment counts as it does in a run: PACOLL_ALLTOALL=direct forces\n"
          "  direct, and a value the library would refuse is refused (exit 1)\n",
          f);
}

/* ------------------------------------------------------------ --settings */

static void print_setting(const pc_param_t *p, const char *owner, void *arg)
{
    PC_UNUSED(arg);
    char dflt[64];
    pc_param_default_text(p, dflt, sizeof dflt);
    const char *now = getenv(p->env);
    char here[80];
    snprintf(here, sizeof here, "%s", now ? now : "(unset)");
    if (now && !*now)
        snprintf(here, sizeof here, "(empty)");
    PC_UNUSED(owner); /* the help names the algorithms */
    printf("%-22s %-20s %-16s %s\n", p->env, dflt, here, p->help);
}

static void settings(void)
{
    printf("%-22s %-20s %-16s %s\n", "setting", "default", "here", "meaning");
    pc_params_each(print_setting, NULL);
    printf("docs/ENV.md says more of each.\n");
}

/* The registry as data, independent of the environment: docs/ENV.md is
 * generated from it (tools/info/env-md). */
static void print_setting_row(const pc_param_t *p, const char *owner, void *arg)
{
    PC_UNUSED(arg);
    char dflt[64];
    pc_param_default_text(p, dflt, sizeof dflt);
    printf("%s\t%s\t%s\t%s\n", p->env, owner ? owner : "-", dflt, p->help);
}

/* --------------------------------------------------------------- --rules */

/* "simulated platform ..." or "measured on ...": pacoll-tune writes where
 * a rule's measurements came from at the end of its comment. */
static int rule_kind(const pc_json_t *rule)
{
    const pc_json_t *c = pc_json_get(rule, "comment");
    if (!c || c->type != PC_JSTR)
        return 0;
    return (strstr(c->str, "simulated platform") ? 1 : 0) | (strstr(c->str, "measured on") ? 2 : 0);
}

/* How many rules came from simulated platforms and how many from real
 * machines, as a sentence. */
static void rules_origin_line(const pc_json_t *list)
{
    int sim = 0, real = 0, both = 0, unknown = 0;
    for (const pc_json_t *r = list ? list->child : NULL; r; r = r->next) {
        int k = rule_kind(r);
        sim += k == 1, real += k == 2, both += k == 3, unknown += k == 0;
    }
    printf("  where from: %d rule%s measured on simulated platforms (SMPI), %d on real machines",
           sim, sim == 1 ? "" : "s", real);
    if (both)
        printf(", %d on both", both);
    if (unknown)
        printf(", %d that do not say", unknown);
    printf("\n");
}

static void conditions(const pc_json_t *r, char *buf, size_t len)
{
    static const char *const dims[] = {"bytes", "ranks", "nodes", "ppn"};
    buf[0] = '\0';
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        char kmin[16], kmax[16];
        snprintf(kmin, sizeof kmin, "min_%s", dims[d]);
        snprintf(kmax, sizeof kmax, "max_%s", dims[d]);
        const pc_json_t *lo = pc_json_get(r, kmin), *hi = pc_json_get(r, kmax);
        lo = lo && lo->type == PC_JNUM ? lo : NULL, hi = hi && hi->type == PC_JNUM ? hi : NULL;
        size_t u = strlen(buf);
        const char *sep = u ? ", " : "";
        if (lo && hi && lo->num == hi->num)
            snprintf(buf + u, len - u, "%s%s %g", sep, dims[d], lo->num);
        else if (lo && hi)
            snprintf(buf + u, len - u, "%s%s %g-%g", sep, dims[d], lo->num, hi->num);
        else if (lo)
            snprintf(buf + u, len - u, "%s%s from %g", sep, dims[d], lo->num);
        else if (hi)
            snprintf(buf + u, len - u, "%s%s up to %g", sep, dims[d], hi->num);
    }
    const pc_json_t *nic = pc_json_get(r, "nic");
    if (nic && nic->type == PC_JSTR) {
        size_t u = strlen(buf);
        snprintf(buf + u, len - u, "%snic %s", u ? ", " : "", nic->str);
    }
    if (!buf[0])
        snprintf(buf, len, "every call");
}

/* Every rule with the number and line PACOLL_VERBOSE cites (the parsed
 * rules' own, so the two cannot disagree), its conditions and comment. */
static void print_rules(const pc_rules_t *rs, const char *text)
{
    char err[200], from[300];
    pc_json_t *root = pc_json_parse(text, err, sizeof err);
    const pc_json_t *list = pc_json_get(root, "rules");
    pc_rules_source(rs, from, sizeof from);
    printf("\n%s, tried in order; the first that matches a call chooses, and a call none\n"
           "matches goes to the MPI library:\n", from);
    int j = 0, index = 0;
    for (const pc_json_t *r = list ? list->child : NULL; r; r = r->next) {
        index++;
        int algo = 0, num = 0, line = r->line;
        if (j < pc_rules_count(rs))
            pc_rules_rule(rs, j, &algo, &num, &line);
        const pc_json_t *coll = pc_json_get(r, "coll"), *an = pc_json_get(r, "algo");
        const char *cn = coll && coll->type == PC_JSTR ? coll->str : "?";
        const char *name = an && an->type == PC_JSTR ? an->str : "?";
        if (num != index) { /* skipped by the parser: an algorithm this build lacks */
            printf("  rule %d at line %d: %s %s: skipped, this build has no such algorithm\n",
                   index, r->line, cn, name);
            continue;
        }
        j++;
        char cond[256];
        conditions(r, cond, sizeof cond);
        printf("  rule %d at line %d: %s %s where %s\n", num, line, cn,
               algo == PC_ALGO_MODEL ? "by the cost models" : name, cond);
        const pc_json_t *c = pc_json_get(r, "comment");
        if (c && c->type == PC_JSTR)
            printf("      %s\n", c->str);
    }
    pc_json_free(root);
}

/* The rules' provenance, if the document has one. */
static void provenance(const char *text)
{
    char err[200];
    pc_json_t *root = pc_json_parse(text, err, sizeof err);
    const pc_json_t *p = pc_json_get(root, "provenance"), *v;
    if (p) {
        const char *keys[] = {"command", "date", "mpi", "host"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if ((v = pc_json_get(p, keys[i])) && v->type == PC_JSTR)
                printf("  %-8s %s\n", keys[i], v->str);
        if ((v = pc_json_get(p, "margin")) && v->type == PC_JNUM)
            printf("  margin   %g\n", v->num);
        int n = 0;
        for (v = (v = pc_json_get(p, "sources")) ? v->child : NULL; v; v = v->next)
            n++;
        printf("  sources  %d measurement file(s)\n", n);
    }
    pc_json_free(root);
}

/* No rule gives coll to pacoll on this shape: how to measure it. */
static void suggest_tune(const pc_shape_t *s, const char *coll, const char *from)
{
    printf("  %-9s no rule of %s matches this shape: every call goes to the MPI library.\n"
           "            To measure it, on %d node%s with %d rank%s each:\n"
           "              mpirun -np %d pacoll-tune --colls %s --save measured-%d.json --out rules.json\n"
           "            then PACOLL_RULES=rules.json (docs/TUNE.md: several job sizes in one file)\n",
           coll, from, s->nodes, s->nodes == 1 ? "" : "s", s->ppn, s->ppn == 1 ? "" : "s", s->ranks,
           coll, s->ranks);
}

/* The automatic choice for coll on shape s at every size, sizes with the
 * same answer on one line. */
static void shape_choices(const pc_rules_t *rs, const pc_config_t *cfg, const pc_shape_t *s,
                          int c, size_t lo, size_t hi, const char *from)
{
    const char *name = pacoll_coll_name((pacoll_coll_t)c);
    if (cfg->forced[c] >= 0) { /* PACOLL_<COLL> comes before the rules */
        const pacoll_algo_t *a = pc_registry_get(cfg->forced[c]);
        const char *why;
        char var[40];
        snprintf(var, sizeof var, "PACOLL_%s", name);
        for (char *q = var; *q; q++)
            *q = (char)(*q >= 'a' && *q <= 'z' ? *q - 'a' + 'A' : *q);
        if (a->run && !pc_algo_fits(s, a, &why))
            printf("  %-9s every size: the MPI library's own: %s=%s forces %s, but %s\n", name,
                   var, a->name, a->name, why);
        else
            printf("  %-9s every size: %s, forced by %s=%s in the environment\n", name, a->name,
                   var, a->name);
        return;
    }
    size_t from_m = lo, prev_m = lo;
    int prev = -100, prev_rule = -100, any_rule = 0;
    char prev_line[200] = "";
    for (size_t m = lo;; m = m ? 2 * m : 1) {
        int last = m > hi, i = -100, rule_algo, num = 0, line = 0;
        int algo = last ? -100 : pc_rules_choose(rs, c, s, (double)m, cfg->chan.ports, &i);
        if (!last && i >= 0)
            pc_rules_rule(rs, i, &rule_algo, &num, &line), any_rule = 1;
        if (last || algo != prev || i != prev_rule) {
            if (prev != -100 && (any_rule || !last))
                printf("  %-9s %9zu - %-9zu B  %s\n", name, from_m, prev_m, prev_line);
            from_m = m, prev = algo, prev_rule = i;
            if (i >= 0)
                snprintf(prev_line, sizeof prev_line, "%-16s rule %d, line %d",
                         pc_registry_get(algo)->name, num, line);
            else
                snprintf(prev_line, sizeof prev_line, "%-16s no rule: the MPI library", "native");
        }
        if (last)
            break;
        prev_m = m;
    }
    if (!any_rule)
        suggest_tune(s, name, from);
}

int main(int argc, char **argv)
{
    pc_shape_t s = {.ranks = 0, .nodes = 1, .ppn = 0, .nic = PC_NIC_NONE, .shm = 1};
    const char *rules = NULL, *colls = NULL;
    int show_settings = 0, show_rules = 0;
    size_t lo = 1, hi = 1 << 20;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(k, "--version")) {
            printf("pacoll-info (pacoll) %s\n", pacoll_version());
            return 0;
        }
        if (!strcmp(k, "--settings-table")) {
            pc_params_each(print_setting_row, NULL);
            return 0;
        }
        if (!strcmp(k, "--settings") || !strcmp(k, "--rules")) {
            *(!strcmp(k, "--settings") ? &show_settings : &show_rules) = 1;
            continue;
        }
        if (strncmp(k, "--", 2)) { /* --rules once took a file */
            fprintf(stderr, "pacoll-info: unexpected %s (a rules file is --rules-file FILE)\n", k);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "pacoll-info: %s needs a value\n", k);
            return 2;
        }
        i++;
        if (!strcmp(k, "--ranks"))
            s.ranks = atoi(v);
        else if (!strcmp(k, "--nodes"))
            s.nodes = atoi(v);
        else if (!strcmp(k, "--ppn"))
            s.ppn = atoi(v);
        else if (!strcmp(k, "--rules-file"))
            rules = v;
        else if (!strcmp(k, "--colls"))
            colls = v;
        else if (!strcmp(k, "--sizes")) {
            const char *c = strchr(v, ':');
            lo = tune_size_arg(v), hi = c ? tune_size_arg(c + 1) : lo;
        } else if (!strcmp(k, "--nic")) {
            s.nic = pc_nic_kind(v);
            if (s.nic < 0) {
                fprintf(stderr, "pacoll-info: --nic %s: onload, offload or none\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "pacoll-info: unknown option %s\n", k);
            usage(stderr);
            return 2;
        }
    }
    if (s.ranks && !s.ppn)
        s.ppn = (s.ranks + s.nodes - 1) / s.nodes;
    if ((s.ranks || s.nodes != 1 || s.ppn) &&
        (s.ranks < 1 || s.nodes < 1 || s.nodes > s.ranks || s.ppn < 1 || s.ppn > s.ranks ||
         (long)s.ppn * s.nodes < s.ranks || hi < lo)) {
        fprintf(stderr, "pacoll-info: not a shape: %d ranks on %d nodes, at most %d per node\n",
                s.ranks, s.nodes, s.ppn);
        return 2;
    }
    s.shm = s.ppn > 1;

    /* the environment, read and checked as the library reads it */
    pc_config_t cfg;
    pc_config_read(&cfg);
    if (cfg.error) {
        fprintf(stderr, "pacoll-info: %s\n", cfg.error_msg);
        return 1;
    }
    if (show_settings) {
        settings();
        if (!show_rules && !s.ranks)
            return 0;
    }
    if (!rules && cfg.rules_path[0])
        rules = cfg.rules_path;

    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    printf("%spacoll %s\n  build    %s\n  MPI      %s\n", show_settings ? "\n" : "",
           pacoll_version(), PACOLL_INFO_BUILD, lib);

    char *text = rules && *rules ? pc_file_read(rules) : NULL, err[300];
    if (rules && *rules && !text) {
        fprintf(stderr, "pacoll-info: rules %s cannot be read\n", rules);
        return 1;
    }
    const char *origin = text ? rules : "(built in)";
    pc_rules_t *rs = pc_rules_parse(text ? text : pc_rules_builtin(), origin, err, sizeof err);
    if (!rs) {
        fprintf(stderr, "pacoll-info: %s\n", err);
        free(text);
        return 1;
    }
    printf("rules %s: %d rule(s)%s\n", origin, pc_rules_count(rs),
           text ? " (PACOLL_RULES or --rules-file), instead of the built-in ones"
                : " (rules/default.json, made by pacoll-tune)");
    provenance(text ? text : pc_rules_builtin());
    {
        char e[200];
        pc_json_t *root = pc_json_parse(text ? text : pc_rules_builtin(), e, sizeof e);
        rules_origin_line(pc_json_get(root, "rules"));
        pc_json_free(root);
    }
    printf("  a call no rule matches goes to the MPI library; pacoll-tune makes rules for this\n"
           "  cluster (docs/TUNE.md), and a rules file replaces these entirely\n");
    char from[300];
    pc_rules_source(rs, from, sizeof from);
    if (show_rules)
        print_rules(rs, text ? text : pc_rules_builtin());

    if (!show_rules) {
        for (int c = 0; c < PACOLL_NCOLL; c++) {
            printf("%-9s ", pacoll_coll_name((pacoll_coll_t)c));
            for (int i = 0; i < pc_registry_count(); i++)
                if ((int)pc_registry_get(i)->coll == c)
                    printf(" %s", pc_registry_get(i)->name);
            printf("\n");
        }
    }
    if (!s.ranks) {
        pc_rules_free(rs);
        free(text);
        return 0;
    }
    printf("\nautomatic choice on %d rank%s, %d node%s, at most %d per node, NIC %s:\n", s.ranks,
           s.ranks == 1 ? "" : "s", s.nodes, s.nodes == 1 ? "" : "s", s.ppn, pc_nic_name(s.nic));
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        if (colls && !tune_listed(colls, pacoll_coll_name((pacoll_coll_t)c)))
            continue;
        shape_choices(rs, &cfg, &s, c, lo, hi, from);
        if (c == PACOLL_ALLTOALLV && cfg.forced[c] < 0)
            printf("  (alltoallv: the size is the largest block of any rank, agreed by the "
                   "ranks only when a rule asks)\n");
    }
    pc_rules_free(rs);
    free(text);
    return 0;
}
