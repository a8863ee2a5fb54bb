/* Command-line pieces pacoll-tune and pacoll-info share: see tune.h. */
#include <stdlib.h>
#include <string.h>

#include "tune.h"

size_t tune_size_arg(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K')
        v *= 1024;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024;
    return (size_t)v;
}

int tune_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
        if (strcspn(p, ",") == n && !strncmp(p, name, n))
            return 1;
    return 0;
}
