/*
 * Fibers: a function run on a stack of its own, suspended where it waits and
 * resumed later by whoever drives it.  A nonblocking collective runs its
 * algorithm, written as a blocking loop over the wait layer, on a fiber: each
 * poll of the wait layer hands the core back to the caller (api/nonblocking.c),
 * so MPI_Ialltoall returns at once and the MPI library's progress engine moves
 * the collective on.  One thread runs every fiber: resume and yield are plain
 * context switches (fiber.c says how), no locks.
 */
#ifndef PACOLL_FIBER_H
#define PACOLL_FIBER_H

#include <stddef.h>

typedef struct pc_fiber pc_fiber_t;

/* A fiber that will run fn(arg) on a stack of stack_bytes (rounded up to
 * pages, plus a guard page below it); NULL when memory is short.  Nothing
 * runs until the first pc_fiber_resume. */
pc_fiber_t *pc_fiber_new(size_t stack_bytes, void (*fn)(void *arg), void *arg);
/* Runs f until it yields or returns: 1 once fn has returned (f must not be
 * resumed again), else 0.  Called from outside any fiber. */
int pc_fiber_resume(pc_fiber_t *f);
/* From inside f: back to the pc_fiber_resume that runs it. */
void pc_fiber_yield(pc_fiber_t *f);
/* f, finished, runs fn(arg) from the start at its next resume, on the same
 * stack (a pool of fibers saves a mapping per call).  0, or -1. */
int pc_fiber_restart(pc_fiber_t *f, void (*fn)(void *arg), void *arg);
/* Frees f: not running, and finished or never to be resumed. */
void pc_fiber_free(pc_fiber_t *f);

#endif
