/* Is a process on this host still there?  See pc_proc_t in internal.h. */
#include "base/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads /proc/<pid>/stat (pid 0: self) into buf.  Plain system calls: the
 * check runs in the wait loop, where nothing should allocate. */
static ssize_t read_stat(uint64_t pid, char *buf, size_t len)
{
    char path[48];
    if (pid)
        snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
    else
        snprintf(path, sizeof path, "/proc/self/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* The state letter, thread count (field 20) and start time (field 22,
 * clock ticks after boot) of a stat line.  The command name (field 2) may
 * hold spaces and parentheses: the fields after it start at its last ')'.
 * 0 if the line is not one. */
static int parse_stat(const char *s, char *state, long *threads, uint64_t *start)
{
    const char *p = strrchr(s, ')');
    if (!p || p[1] != ' ' || !p[2])
        return 0;
    *state = p[2];
    p += 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p)
            return 0;
        p++;
        if (field + 1 == 20)
            *threads = strtol(p, NULL, 10);
    }
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (end == p)
        return 0;
    *start = v;
    return 1;
}

pc_proc_t pc_proc_self(void)
{
    pc_proc_t me = {.pid = (uint64_t)getpid()};
    char buf[1024], link[32];
    char state;
    long threads;
    struct stat ns;
    /* /proc must show this process under the pid it has (a /proc of
     * another pid namespace would name others), and the namespace must be
     * known: pids of another namespace mean nothing here. */
    ssize_t n = readlink("/proc/self", link, sizeof link - 1);
    if (n <= 0)
        return me;
    link[n] = '\0';
    if (strtoull(link, NULL, 10) != me.pid || stat("/proc/self/ns/pid", &ns) != 0 ||
        read_stat(0, buf, sizeof buf) <= 0 || !parse_stat(buf, &state, &threads, &me.start))
        return me;
    me.ns = (uint64_t)ns.st_ino;
    return me;
}

int pc_proc_checkable(const pc_proc_t *me, const pc_proc_t *p)
{
    return me->ns && me->start && p->ns == me->ns && p->start && p->pid;
}

int pc_proc_gone(const pc_proc_t *p)
{
    char buf[1024], state;
    long threads = 0;
    uint64_t start;
    if (read_stat(p->pid, buf, sizeof buf) < 0)
        return errno == ENOENT || errno == ESRCH; /* reaped; other errors tell nothing */
    if (!parse_stat(buf, &state, &threads, &start))
        return 0;
    if (start != p->start)
        return 1; /* the pid names a newer process */
    /* exited, not reaped yet (a main thread that ended while others run
     * shows Z too: the process lives) */
    return (state == 'Z' || state == 'X') && threads <= 1;
}
