/* Fibers (src/base/fiber.c): a function suspended at its yields and resumed
 * in turn, its locals kept; several at once interleaved; deep stacks. */
#include "base/fiber.h"
#include "unit.h"

#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    pc_fiber_t *self;
    int steps, at, trace[16], ntrace, id;
    int *shared; /* the order every fiber's steps ran in */
    int *nshared;
} job_t;

static void job(void *arg)
{
    job_t *j = arg;
    int local = j->id * 100; /* kept across yields, on the fiber's own stack */
    for (j->at = 0; j->at < j->steps; j->at++) {
        j->trace[j->ntrace++] = local + j->at;
        j->shared[(*j->nshared)++] = j->id;
        pc_fiber_yield(j->self);
    }
}

static unsigned long deep(int n, volatile char *prev)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    pad[1023] = prev ? prev[0] : 0;
    return n == 0 ? (unsigned long)pad[0] : (unsigned long)pad[1023] + deep(n - 1, pad);
}

static void set_one(void *arg) { *(int *)arg = 1; }

/* The floating-point control state is each side's own, and a fiber's stack
 * is aligned for what the compiler and the C library put on it. */
typedef struct {
    pc_fiber_t *self;
    int round_before, round_after, aligned;
    double third; /* 1/3 in the fiber's rounding mode, by the vector unit */
    char text[32];
} fp_job_t;

static volatile double one = 1.0, three = 3.0;

static void fp_job(void *arg)
{
    fp_job_t *j = arg;
    _Alignas(16) volatile char line[16];
    j->aligned = ((uintptr_t)line % 16) == 0;
    fesetround(FE_UPWARD);
    j->round_before = fegetround();
    pc_fiber_yield(j->self);
    j->round_after = fegetround();
    j->third = one / three;
    snprintf(j->text, sizeof j->text, "%.3f", j->third);
    fesetround(FE_TONEAREST);
}

static void deep_job(void *arg) { *(unsigned long *)arg = deep(200, NULL); }

int main(void)
{
    int order[64], norder = 0;
    job_t a = {.steps = 3, .id = 1, .shared = order, .nshared = &norder};
    job_t b = {.steps = 2, .id = 2, .shared = order, .nshared = &norder};
    a.self = pc_fiber_new(64 * 1024, job, &a);
    b.self = pc_fiber_new(64 * 1024, job, &b);
    CHECK(a.self && b.self);
    /* nothing runs before the first resume */
    CHECK_INT(a.ntrace, 0);
    CHECK_INT(pc_fiber_resume(a.self), 0);
    CHECK_INT(a.ntrace, 1);
    CHECK_INT(pc_fiber_resume(b.self), 0);
    CHECK_INT(pc_fiber_resume(a.self), 0);
    CHECK_INT(pc_fiber_resume(b.self), 0);
    CHECK_INT(pc_fiber_resume(b.self), 1); /* b's loop ends after its 2nd yield */
    CHECK_INT(pc_fiber_resume(b.self), 1); /* finished stays finished */
    CHECK_INT(pc_fiber_resume(a.self), 0);
    CHECK_INT(pc_fiber_resume(a.self), 1);
    CHECK_INT(a.ntrace, 3);
    CHECK_INT(b.ntrace, 2);
    CHECK_INT(a.trace[0], 100);
    CHECK_INT(a.trace[2], 102);
    CHECK_INT(b.trace[1], 201);
    int want[] = {1, 2, 1, 2, 1};
    CHECK_INT(norder, 5);
    for (int i = 0; i < 5 && i < norder; i++)
        CHECK_INT(order[i], want[i]);
    pc_fiber_free(a.self);
    pc_fiber_free(b.self);

    /* a stack of 256 KB takes 200 frames of 1 KB */
    unsigned long r = 0;
    pc_fiber_t *d = pc_fiber_new(256 * 1024, deep_job, &r);
    CHECK(d != NULL);
    CHECK_INT(pc_fiber_resume(d), 1);
    CHECK(r == deep(200, NULL));
    pc_fiber_free(d);

    /* many made and freed (a nonblocking collective makes one per call) */
    int made = 0;
    for (int i = 0; i < 1000; i++) {
        job_t c = {.steps = 1, .id = 3, .shared = order, .nshared = &norder};
        norder = 0;
        c.self = pc_fiber_new(64 * 1024, job, &c);
        if (!c.self)
            break;
        pc_fiber_resume(c.self);
        made += pc_fiber_resume(c.self);
        pc_fiber_free(c.self);
    }
    CHECK_INT(made, 1000);
    /* a finished fiber runs another function on its stack */
    job_t e = {.steps = 2, .id = 4, .shared = order, .nshared = &norder};
    norder = 0;
    int one = 0;
    e.self = pc_fiber_new(64 * 1024, set_one, &one);
    CHECK_INT(pc_fiber_resume(e.self), 1);
    CHECK_INT(one, 1);
    CHECK_INT(pc_fiber_restart(e.self, job, &e), 0);
    CHECK_INT(pc_fiber_resume(e.self), 0);
    CHECK_INT(pc_fiber_resume(e.self), 0);
    CHECK_INT(pc_fiber_resume(e.self), 1);
    CHECK_INT(e.ntrace, 2);
    CHECK_INT(e.trace[1], 401);
    pc_fiber_free(e.self);

    double third = one / three; /* to nearest */
    fp_job_t fj = {0};
    fj.self = pc_fiber_new(64 * 1024, fp_job, &fj);
    CHECK(fj.self != NULL);
    CHECK_INT(pc_fiber_resume(fj.self), 0);
    CHECK_INT(fj.round_before, FE_UPWARD);
    CHECK_INT(fegetround(), FE_TONEAREST); /* the fiber's mode stays the fiber's */
    CHECK(one / three == third);
    fesetround(FE_DOWNWARD);
    CHECK_INT(pc_fiber_resume(fj.self), 1);
    CHECK_INT(fegetround(), FE_DOWNWARD);
    fesetround(FE_TONEAREST);
    CHECK_INT(fj.round_after, FE_UPWARD);
    CHECK(fj.third > third); /* the caller's mode did not leak in */
    CHECK_INT(fj.aligned, 1);
    CHECK(strcmp(fj.text, "0.334") == 0); /* rounded up, as the fiber asked */
    pc_fiber_free(fj.self);
    pc_fiber_free(NULL);
    return unit_done("unit_fiber");
}
