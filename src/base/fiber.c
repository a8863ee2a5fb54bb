/* Fibers on ucontext: see fiber.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include "base/fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PC_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PC_FIBER_ASAN 1
#endif
#endif
#ifdef PC_FIBER_ASAN
/* AddressSanitizer must be told when the stack changes, or it takes the
 * fiber's frames for overflows of the caller's. */
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif

struct pc_fiber {
    ucontext_t self, caller;
    void (*fn)(void *);
    void *arg;
    char *map;      /* the mapping: guard page, then the stack */
    size_t map_len;
    char *stack;
    size_t stack_len;
    int done;
#ifdef PC_FIBER_ASAN
    void *fake;               /* ASan's fake stack of the side switched away from */
    const void *caller_bottom; /* the caller's stack, as ASan knows it */
    size_t caller_size;
#endif
};

static void switch_begin(pc_fiber_t *f, int into, int finishing)
{
#ifdef PC_FIBER_ASAN
    if (into)
        __sanitizer_start_switch_fiber(&f->fake, f->stack, f->stack_len);
    else
        __sanitizer_start_switch_fiber(finishing ? NULL : &f->fake, f->caller_bottom,
                                       f->caller_size);
#else
    (void)f, (void)into, (void)finishing;
#endif
}

static void switch_end(pc_fiber_t *f, int into)
{
#ifdef PC_FIBER_ASAN
    if (into)
        __sanitizer_finish_switch_fiber(f->fake, &f->caller_bottom, &f->caller_size);
    else
        __sanitizer_finish_switch_fiber(f->fake, NULL, NULL);
#else
    (void)f, (void)into;
#endif
}

/* makecontext passes int arguments: the fiber's address in two halves. */
static void trampoline(unsigned hi, unsigned lo)
{
    pc_fiber_t *f = (pc_fiber_t *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    switch_end(f, 1);
    f->fn(f->arg);
    f->done = 1;
    switch_begin(f, 0, 1);
    swapcontext(&f->self, &f->caller); /* never comes back */
}

/* getcontext returns twice: kept apart, so the caller's locals are safe. */
static __attribute__((noinline)) int make(pc_fiber_t *f)
{
    if (getcontext(&f->self) != 0)
        return -1;
    f->self.uc_stack.ss_sp = f->stack;
    f->self.uc_stack.ss_size = f->stack_len;
    f->self.uc_link = NULL;
    uintptr_t p = (uintptr_t)f;
    makecontext(&f->self, (void (*)(void))trampoline, 2, (unsigned)(p >> 32),
                (unsigned)(p & 0xffffffffu));
    return 0;
}

pc_fiber_t *pc_fiber_new(size_t stack_bytes, void (*fn)(void *arg), void *arg)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (stack_bytes + page - 1) / page * page;
    pc_fiber_t *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->map_len = len + page;
    f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                  -1, 0);
    if (f->map == MAP_FAILED) {
        free(f);
        return NULL;
    }
    mprotect(f->map, page, PROT_NONE); /* a stack overflow faults instead of corrupting */
    f->stack = f->map + page;
    f->stack_len = len;
    f->fn = fn;
    f->arg = arg;
    if (make(f) != 0) {
        munmap(f->map, f->map_len);
        free(f);
        return NULL;
    }
    return f;
}

int pc_fiber_resume(pc_fiber_t *f)
{
    if (f->done)
        return 1;
    switch_begin(f, 1, 0);
    swapcontext(&f->caller, &f->self);
    switch_end(f, 0);
    return f->done;
}

void pc_fiber_yield(pc_fiber_t *f)
{
    switch_begin(f, 0, 0);
    swapcontext(&f->self, &f->caller);
    switch_end(f, 1);
}

int pc_fiber_restart(pc_fiber_t *f, void (*fn)(void *arg), void *arg)
{
    f->fn = fn;
    f->arg = arg;
    f->done = 0;
    return make(f);
}

void pc_fiber_free(pc_fiber_t *f)
{
    if (!f)
        return;
    munmap(f->map, f->map_len);
    free(f);
}
