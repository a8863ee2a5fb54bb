/* Fibers: see fiber.h.  On x86-64 a switch saves and loads the callee-saved
 * registers only (tens of nanoseconds); elsewhere ucontext, whose
 * swapcontext also saves the signal mask with a system call each time
 * (docs/INTERPOSE.md, "Nonblocking and persistent calls", has the cost). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include "base/fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

#if defined(__x86_64__) && !defined(PC_FIBER_UCONTEXT)
#define PC_FIBER_ASM 1
/* pc_ctx_switch(&from_sp, to_sp): pushes what the System V ABI says a callee
 * keeps (rbx, rbp, r12-r15, and the SSE and x87 control words), stores the
 * stack pointer in *from_sp, and pops the same from to_sp.  A new fiber's
 * stack is laid out as if it had switched away just before pc_ctx_start,
 * which calls fn (r13) with arg (r12). */
__asm__(".text\n"
        ".p2align 4\n"
        ".type pc_ctx_switch, @function\n"
        "pc_ctx_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size pc_ctx_switch, .-pc_ctx_switch\n"
        ".p2align 4\n"
        ".type pc_ctx_start, @function\n"
        "pc_ctx_start:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size pc_ctx_start, .-pc_ctx_start\n");
void pc_ctx_switch(void **from_sp, void *to_sp) __asm__("pc_ctx_switch");
void pc_ctx_start(void) __asm__("pc_ctx_start");
#endif

struct pc_fiber {
#ifdef PC_FIBER_ASM
    void *sp, *caller_sp; /* saved stack pointers of the side not running */
#else
    ucontext_t self, caller;
#endif
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

/* The switches themselves, into f and back out to its caller. */
static void to_fiber(pc_fiber_t *f)
{
#ifdef PC_FIBER_ASM
    pc_ctx_switch(&f->caller_sp, f->sp);
#else
    swapcontext(&f->caller, &f->self);
#endif
}

static void to_caller(pc_fiber_t *f)
{
#ifdef PC_FIBER_ASM
    pc_ctx_switch(&f->sp, f->caller_sp);
#else
    swapcontext(&f->self, &f->caller);
#endif
}

/* Where every fiber starts; it never returns: the last switch leaves it. */
static void fiber_main(pc_fiber_t *f)
{
    switch_end(f, 1);
    f->fn(f->arg);
    f->done = 1;
    switch_begin(f, 0, 1);
    to_caller(f);
}

#ifdef PC_FIBER_ASM
static int make(pc_fiber_t *f)
{
    /* from the top: pc_ctx_start as the return address, placed so that the
     * stack is 16-byte aligned at its call; then rbp, rbx, r12 (f), r13
     * (fiber_main), r14, r15, and the control words as they are now. */
    uintptr_t top = ((uintptr_t)f->stack + f->stack_len) & ~(uintptr_t)15;
    void **frame = (void **)(top - 80);
    uint32_t csr;
    uint16_t cw;
    __asm__ volatile("stmxcsr %0" : "=m"(csr));
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    uint64_t ctl = (uint64_t)csr | (uint64_t)cw << 32;
    memcpy(&frame[0], &ctl, sizeof ctl);
    frame[1] = NULL;                              /* r15 */
    frame[2] = NULL;                              /* r14 */
    frame[3] = (void *)(uintptr_t)fiber_main;     /* r13 */
    frame[4] = f;                                 /* r12 */
    frame[5] = NULL;                              /* rbx */
    frame[6] = NULL;                              /* rbp */
    frame[7] = (void *)(uintptr_t)pc_ctx_start;   /* return address */
    f->sp = frame;
    return 0;
}
#else
/* makecontext passes int arguments: the fiber's address in two halves. */
static void trampoline(unsigned hi, unsigned lo)
{
    fiber_main((pc_fiber_t *)(((uintptr_t)hi << 32) | (uintptr_t)lo));
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
#endif

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
    to_fiber(f);
    switch_end(f, 0);
    return f->done;
}

void pc_fiber_yield(pc_fiber_t *f)
{
    switch_begin(f, 0, 0);
    to_caller(f);
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
