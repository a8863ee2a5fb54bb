/* What a single-copy write to another process costs beyond its copy: the
 * system call of the fair model's PACOLL_SIM_CMA_CALL (sim/run's
 * FAIR_CMA_CALL; docs/SIM-MODEL.md).  For each size, the median over 15
 * rounds of process_vm_writev into a child's buffer, and of memcpy of the
 * same bytes; the difference is the call.
 *   cc -O2 sim/platforms/cma_cost.c -o /tmp/cma_cost && /tmp/cma_cost */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 15
#define CALLS 4000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    static const size_t sizes[] = {8, 4096, 8192, 12288, 65536};
    size_t most = 1 << 16;
    char *src = malloc(most), *dst = malloc(most);
    if (!src || !dst)
        return 1;
    memset(src, 1, most), memset(dst, 0, most);
    pid_t child = fork(); /* dst is at the same address in the child */
    if (child == 0) {
        pause();
        _exit(0);
    }
    printf("%8s %14s %10s %10s\n", "bytes", "writev us", "memcpy us", "call us");
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t n = sizes[i];
        double w[ROUNDS], c[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now();
            for (int k = 0; k < CALLS; k++) {
                struct iovec l = {src, n}, rr = {dst, n};
                if (process_vm_writev(child, &l, 1, &rr, 1, 0) != (ssize_t)n) {
                    perror("process_vm_writev");
                    kill(child, SIGKILL);
                    return 1;
                }
            }
            w[r] = (now() - t0) / CALLS;
            t0 = now();
            for (int k = 0; k < CALLS; k++) {
                memcpy(dst, src, n);
                __asm__ volatile("" : : "r"(dst) : "memory");
            }
            c[r] = (now() - t0) / CALLS;
        }
        qsort(w, ROUNDS, sizeof *w, cmp), qsort(c, ROUNDS, sizeof *c, cmp);
        double wm = w[ROUNDS / 2], cm = c[ROUNDS / 2];
        printf("%8zu %14.3f %10.3f %10.3f\n", n, wm * 1e6, cm * 1e6, (wm - cm) * 1e6);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return 0;
}
