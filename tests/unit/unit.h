/*
 * The unit tests' few checks: plain programs, no MPI_Init, no mpirun.
 * Each CHECK counts; a failed one prints where and what; unit_done() prints
 * "<program>: N checks, F failed" and gives the exit status.
 */
#ifndef PACOLL_UNIT_H
#define PACOLL_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_checks, unit_failed;

static inline int unit_check(int ok, const char *file, int line, const char *what)
{
    unit_checks++;
    if (!ok) {
        unit_failed++;
        fprintf(stderr, "%s:%d: FAIL %s\n", file, line, what);
    }
    return ok;
}

#define CHECK(cond) unit_check((cond) != 0, __FILE__, __LINE__, #cond)
/* Integers and strings, printing both values on failure. */
#define CHECK_INT(got, want)                                                                      \
    do {                                                                                          \
        long long g_ = (long long)(got), w_ = (long long)(want);                                  \
        if (!unit_check(g_ == w_, __FILE__, __LINE__, #got " == " #want))                         \
            fprintf(stderr, "    got %lld, want %lld\n", g_, w_);                                 \
    } while (0)
#define CHECK_STR(got, want)                                                                      \
    do {                                                                                          \
        const char *g_ = (got), *w_ = (want);                                                     \
        if (!unit_check(g_ && w_ && strcmp(g_, w_) == 0, __FILE__, __LINE__, #got " == " #want))  \
            fprintf(stderr, "    got \"%s\"\n    want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
    } while (0)
/* want is a part of got. */
#define CHECK_HAS(got, want)                                                                      \
    do {                                                                                          \
        const char *g_ = (got), *w_ = (want);                                                     \
        if (!unit_check(g_ && w_ && strstr(g_, w_) != NULL, __FILE__, __LINE__,                   \
                        #got " contains " #want))                                                 \
            fprintf(stderr, "    got \"%s\"\n    want a part \"%s\"\n", g_ ? g_ : "(null)", w_);  \
    } while (0)

static inline int unit_done(const char *prog)
{
    printf("%s: %d checks, %d failed\n", prog, unit_checks, unit_failed);
    return unit_failed ? 1 : 0;
}

#endif
