/*
 * check_deadline: the wait layer's two ends of a wait, as unit checks
 * (no mpirun, no MPI_Init).
 *
 *   - PACOLL_TIMEOUT is opt-in: its descriptor's default is 0 (no
 *     deadline), and the configuration read with the variable unset has
 *     none; a value set is read as given.
 *   - A process's liveness (base/proc.c), which the wait layer looks at
 *     when a peer on the host kept it waiting: a running child is there;
 *     killed and not yet reaped (a zombie) it is gone; reaped it is gone;
 *     an identity whose start time differs (the pid reused) is gone; one
 *     of another pid namespace cannot be checked; a process whose main
 *     thread ended while another runs (shown as a zombie) is not gone.
 *
 * Last line: "check_deadline: N checks passed, F failed".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"

static int checks, failed;

static void expect(const char *what, int ok)
{
    checks++;
    if (!ok) {
        failed++;
        printf("check_deadline: FAIL: %s\n", what);
    }
}

static void find_timeout(const pc_param_t *p, const char *owner, void *arg)
{
    (void)owner;
    if (!strcmp(p->env, "PACOLL_TIMEOUT"))
        *(const pc_param_t **)arg = p;
}

static void check_default(void)
{
    const pc_param_t *p = NULL;
    pc_params_each(find_timeout, &p);
    expect("PACOLL_TIMEOUT is a registered parameter", p != NULL);
    expect("PACOLL_TIMEOUT's default is 0: no deadline", p && p->dflt == 0);
    unsetenv("PACOLL_TIMEOUT");
    pc_config_t cfg;
    pc_config_read(&cfg);
    expect("unset, the configuration has no deadline", cfg.error == 0 && cfg.chan.timeout == 0);
    setenv("PACOLL_TIMEOUT", "7", 1);
    pc_config_read(&cfg);
    expect("PACOLL_TIMEOUT=7 is a deadline of 7 s", cfg.error == 0 && cfg.chan.timeout == 7);
    unsetenv("PACOLL_TIMEOUT");
}

/* pc_proc_gone(p) becomes want within 10 s (a killed process takes a
 * moment to become a zombie). */
static int becomes(const pc_proc_t *p, int want)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 1000; i++) {
        if (pc_proc_gone(p) == want)
            return 1;
        nanosleep(&tick, NULL);
    }
    return 0;
}

static void check_liveness(void)
{
    pc_proc_t me = pc_proc_self();
    expect("this process's identity is known (/proc)", me.start != 0 && me.ns != 0);
    expect("this process can check itself", pc_proc_checkable(&me, &me));
    expect("this process is not gone", !pc_proc_gone(&me));
    int fd[2];
    if (pipe(fd) != 0) {
        expect("pipe", 0);
        return;
    }
    pid_t child = fork();
    if (child == 0) {
        pc_proc_t c = pc_proc_self();
        if (write(fd[1], &c, sizeof c) != (ssize_t)sizeof c)
            _exit(1);
        for (;;)
            pause();
    }
    pc_proc_t c = {0};
    int got = child > 0 && read(fd[0], &c, sizeof c) == (ssize_t)sizeof c;
    close(fd[0]);
    close(fd[1]);
    expect("the child told its identity", got && c.pid == (uint64_t)child);
    if (!got)
        return;
    expect("a child can be checked", pc_proc_checkable(&me, &c));
    expect("a running child is not gone", !pc_proc_gone(&c));
    pc_proc_t reused = c;
    reused.start++;
    expect("the pid with another start time (reused) is gone", pc_proc_gone(&reused));
    pc_proc_t other_ns = c;
    other_ns.ns++;
    expect("a process of another pid namespace cannot be checked",
           !pc_proc_checkable(&me, &other_ns));
    kill(child, SIGKILL);
    expect("a killed child, not yet reaped, is gone", becomes(&c, 1));
    waitpid(child, NULL, 0);
    expect("a reaped child is gone", pc_proc_gone(&c));
}

static void *linger(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void check_main_thread_ended(void)
{
    pc_proc_t me = pc_proc_self();
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t child = fork();
    if (child == 0) {
        pc_proc_t c = pc_proc_self();
        pthread_t t;
        if (write(fd[1], &c, sizeof c) != (ssize_t)sizeof c ||
            pthread_create(&t, NULL, linger, NULL) != 0)
            _exit(1);
        pthread_exit(NULL);
    }
    pc_proc_t c = {0};
    int got = child > 0 && read(fd[0], &c, sizeof c) == (ssize_t)sizeof c;
    close(fd[0]);
    close(fd[1]);
    if (!got) {
        expect("the threaded child told its identity", 0);
        return;
    }
    expect("a threaded child can be checked", pc_proc_checkable(&me, &c));
    /* its main thread ends at once; give it a moment, then it must not count as gone */
    struct timespec moment = {0, 200 * 1000 * 1000};
    nanosleep(&moment, NULL);
    expect("a process whose main thread ended while another runs is not gone", !pc_proc_gone(&c));
    kill(child, SIGKILL);
    expect("... and gone once killed", becomes(&c, 1));
    waitpid(child, NULL, 0);
}

int main(void)
{
    check_default();
    check_liveness();
    check_main_thread_ended();
    printf("check_deadline: %d checks passed, %d failed\n", checks - failed, failed);
    return failed != 0;
}
