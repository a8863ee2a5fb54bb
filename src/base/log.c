/* Message, number and file helpers used by every layer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>

#include "base/internal.h"

void pc_shape_words(int ranks, int nodes, int ppn_max, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%d rank%s on %d node%s", ranks, ranks == 1 ? "" : "s", nodes,
                     nodes == 1 ? "" : "s");
    if (nodes > 1 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", at most %d on one", ppn_max);
}

void pc_log(const char *fmt, ...)
{
    char line[PC_MSG_LEN + 64];
    int rank = -1, init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = snprintf(line, sizeof line, "pacoll[%d]: ", rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

int pc_parse_positive(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end != '\0' || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

char *pc_file_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) == (size_t)n)
            buf[n] = '\0';
        else
            free(buf), buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}
