/* Parsing and checking parameters: see param.h. */
#include "base/param.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>

int pc_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int pc_parse_size(const char *s, size_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'm' || *end == 'M')
        shift = 20, end++;
    else if (*end == 'g' || *end == 'G')
        shift = 30, end++;
    if (errno || *end != '\0' || v > (~0ULL >> (shift + 1)))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int pc_parse_bool(const char *s)
{
    if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on"))
        return 1;
    if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off") ||
        !strcmp(s, ""))
        return 0;
    return -1;
}

int pc_env_verbose(void)
{
    const char *s = getenv("PACOLL_VERBOSE");
    return s && pc_parse_bool(s) == 1;
}

void pc_param_default_text(const pc_param_t *p, char *buf, size_t len)
{
    static const char suffix[] = "kMG";
    double v = p->dflt;
    if (p->dflt_text)
        snprintf(buf, len, "%s", p->dflt_text);
    else if (p->kind == PC_PARAM_CHOICE && v >= 0 && v < p->nchoices)
        snprintf(buf, len, "%s", p->choices[(int)v]);
    else if (p->kind == PC_PARAM_SIZE && v >= 1024) {
        int k = -1;
        while (k < 2 && fmod(v, 1024) == 0 && v >= 1024)
            v /= 1024, k++;
        snprintf(buf, len, "%.0f%.*s", v, k >= 0, k >= 0 ? &suffix[k] : "");
    } else
        snprintf(buf, len, "%g", v);
}

static void choices_list(const pc_param_t *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < p->nchoices; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i == p->nchoices - 1 ? " or " : ", ",
                 p->choices[i]);
    }
}

int pc_param_read(const pc_param_t *p, double *v, char *err, size_t errlen)
{
    const char *s = getenv(p->env);
    *v = p->dflt;
    if (!s)
        return 0;
    long l;
    size_t z;
    int b;
    char what[PC_MSG_LEN / 2];
    switch (p->kind) {
    case PC_PARAM_INT:
        if (pc_parse_long(s, (long)p->lo, (long)p->hi, &l) == 0)
            return *v = (double)l, 0;
        snprintf(what, sizeof what, "an integer from %.0f to %.0f", p->lo, p->hi);
        break;
    case PC_PARAM_SIZE:
        if (pc_parse_size(s, &z) == 0 && (double)z >= p->lo && (double)z <= p->hi)
            return *v = (double)z, 0;
        if (p->hi >= 0x1p62)
            snprintf(what, sizeof what, "a byte count >= %.0f (suffix k, m or g allowed)", p->lo);
        else
            snprintf(what, sizeof what, "a byte count from %.0f to %.0f (suffix k, m or g allowed)",
                     p->lo, p->hi);
        break;
    case PC_PARAM_BOOL:
        if ((b = pc_parse_bool(s)) >= 0)
            return *v = b, 0;
        snprintf(what, sizeof what, "1/yes/true/on or 0/no/false/off");
        break;
    case PC_PARAM_CHOICE:
        if (!*s)
            return 0;
        for (int i = 0; i < p->nchoices; i++)
            if (!strcmp(s, p->choices[i]))
                return *v = i, 0;
        choices_list(p, what, sizeof what);
        break;
    case PC_PARAM_NUMBER:
        if (pc_parse_positive(s, v) == 0)
            return 0;
        *v = p->dflt;
        snprintf(what, sizeof what, "a positive number (such as 2e9)");
        break;
    case PC_PARAM_CUSTOM:
        if (p->parse(s, v, what, sizeof what) == 0)
            return 0;
        *v = p->dflt;
        break;
    case PC_PARAM_TEXT:
        return 0; /* its reader checks it */
    }
    snprintf(err, errlen, "%s='%s' is not valid: expected %s", p->env, s, what);
    return -1;
}
