/*
 * pacoll-info: what this pacoll is and what it would do, without running
 * anything (docs/TUNE.md): its version and build, the MPI library, the
 * selection rules in effect and where they came from, the algorithms, and
 * for a communicator's shape the algorithm an automatic call of each size
 * gets, and why (the rule, or none: the MPI library).
 *
 *   pacoll-info [--ranks P --nodes N --ppn K] [--nic onload|offload|none]
 *               [--rules FILE] [--colls LIST] [--sizes MIN:MAX]
 *
 * It reads PACOLL_RULES as the library does; --rules names another file.
 * No MPI_Init: nothing here communicates (MPI_Get_library_version may be
 * called before it).
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
          "                   [--rules FILE] [--colls LIST] [--sizes MIN:MAX]\n"
          "  without a shape: the version, build, rules and algorithms only\n"
          "  --ppn defaults to ceil(P / N), --nodes to 1, --nic to none\n"
          "  --version prints the version, --help this\n",
          f);
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

int main(int argc, char **argv)
{
    pc_shape_t s = {.ranks = 0, .nodes = 1, .ppn = 0, .nic = PC_NIC_NONE, .shm = 1};
    const char *rules = getenv("PACOLL_RULES"), *colls = NULL;
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
        else if (!strcmp(k, "--rules"))
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

    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    printf("pacoll %s\n  build    %s\n  MPI      %s\n", pacoll_version(), PACOLL_INFO_BUILD, lib);

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
           text ? " (PACOLL_RULES or --rules)" : " (rules/default.json, made by pacoll-tune)");
    provenance(text ? text : pc_rules_builtin());
    printf("  a call no rule matches goes to the MPI library\n");

    for (int c = 0; c < PACOLL_NCOLL; c++) {
        printf("%-9s ", pacoll_coll_name((pacoll_coll_t)c));
        for (int i = 0; i < pc_registry_count(); i++)
            if ((int)pc_registry_get(i)->coll == c)
                printf(" %s", pc_registry_get(i)->name);
        printf("\n");
    }
    if (!s.ranks) {
        pc_rules_free(rs);
        free(text);
        return 0;
    }
    printf("\nautomatic choice on %d ranks, %d node(s), at most %d per node, NIC %s:\n", s.ranks,
           s.nodes, s.ppn, pc_nic_name(s.nic));
    for (int c = 0; c < PACOLL_NCOLL; c++) {
        const char *name = pacoll_coll_name((pacoll_coll_t)c);
        if (colls && !tune_listed(colls, name))
            continue;
        /* sizes with the same answer are one line */
        size_t from = lo, prev_m = lo;
        int prev = -100, prev_rule = -100;
        char prev_line[200] = "";
        for (size_t m = lo;; m = m ? 2 * m : 1) {
            int last = m > hi, i = -100, rule_algo, num = 0, line = 0;
            int algo = last ? -100 : pc_rules_choose(rs, c, &s, (double)m, 4, &i);
            if (!last && i >= 0)
                pc_rules_rule(rs, i, &rule_algo, &num, &line);
            if (last || algo != prev || i != prev_rule) {
                if (prev != -100)
                    printf("  %-9s %9zu - %-9zu B  %s\n", name, from, prev_m, prev_line);
                from = m, prev = algo, prev_rule = i;
                if (i >= 0)
                    snprintf(prev_line, sizeof prev_line, "%-16s rule %d, line %d",
                             pc_registry_get(algo)->name, num, line);
                else
                    snprintf(prev_line, sizeof prev_line, "%-16s no rule: the MPI library",
                             "native");
            }
            if (last)
                break;
            prev_m = m;
        }
        if (c == PACOLL_ALLTOALLV)
            printf("  (alltoallv: the size is the largest block of any rank, agreed by the "
                   "ranks only when a rule asks)\n");
    }
    pc_rules_free(rs);
    free(text);
    return 0;
}
