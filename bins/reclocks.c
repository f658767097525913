/* reclocks DIR: POSIX record locks, OFD locks and flock between processes, with deadlock
 * detection and Linux's errors for bad input. Prints nothing that differs between runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *en(int r)
{
    if (r >= 0)
        return "ok";
    switch (errno) {
#define E(x) case x: return #x;
    E(EAGAIN) E(EDEADLK) E(EINVAL) E(EBADF) E(EFAULT) E(EACCES) E(EINTR) E(ENOLCK)
#undef E
    }
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", errno);
    return buf;
}

static int lk(int fd, int cmd, int type, off_t start, off_t len)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
    return fcntl(fd, cmd, &fl);
}

static void show(int fd, int cmd, int type, off_t start, off_t len, pid_t owner)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
    int r = fcntl(fd, cmd, &fl);
    const char *t = fl.l_type == F_RDLCK ? "F_RDLCK" : fl.l_type == F_WRLCK ? "F_WRLCK" : "F_UNLCK";
    if (fl.l_type == F_UNLCK)
        printf("  getlk %lld+%lld: %s %s\n", (long long)start, (long long)len, en(r), t);
    else
        printf("  getlk %lld+%lld: %s %s at %lld+%lld by %s\n", (long long)start, (long long)len, en(r), t,
               (long long)fl.l_start, (long long)fl.l_len,
               fl.l_pid == owner ? "the owner" : fl.l_pid == -1 ? "an OFD (-1)" : "someone else");
}

/* The parent waits for the child to be about to block before it acts: a pipe says the child
 * has made its non-blocking calls (under strace -f on a loaded machine they can take longer than
 * any fixed sleep), and the sleep after it covers only the child's step into the blocking call. */
static int ready[2];

static void child_ready(void)
{
    write(ready[1], "r", 1);
}

static void await_child(void)
{
    char c;
    read(ready[0], &c, 1);
    usleep(200000);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    pipe(ready);
    char path[512];
    snprintf(path, sizeof path, "%s/locked", argc > 1 ? argv[1] : "/tmp");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    char zeros[100] = {0};
    write(fd, zeros, sizeof zeros);
    pid_t me = getpid();

    const char *r1 = en(lk(fd, F_SETLK, F_WRLCK, 0, 10));
    const char *r2 = en(lk(fd, F_SETLK, F_RDLCK, 20, 10));
    printf("parent: write lock 0+10: %s, read lock 20+10: %s\n", r1, r2);
    show(fd, F_GETLK, F_WRLCK, 0, 10, me);                /* one's own locks never conflict */
    pid_t pid = fork();
    if (pid == 0) {
        printf("child sees:\n");
        show(fd, F_GETLK, F_WRLCK, 5, 1, me);
        show(fd, F_GETLK, F_RDLCK, 20, 0, me);
        show(fd, F_GETLK, F_WRLCK, 40, 10, me);
        const char *c1 = en(lk(fd, F_SETLK, F_WRLCK, 0, 10));
        const char *c2 = en(lk(fd, F_SETLK, F_RDLCK, 20, 10));
        const char *c3 = en(lk(fd, F_SETLK, F_WRLCK, 50, 10));
        printf("child: write 0+10 %s, read 20+10 %s, write 50+10 %s\n", c1, c2, c3);
        printf("child: waits for 0+10\n");
        child_ready();
        int r = lk(fd, F_SETLKW, F_WRLCK, 0, 10);      /* parent then closes the cycle: EDEADLK */
        _exit(r == 0 ? 7 : 1);
    }
    await_child();
    printf("parent: wait for 50+10 (held by the waiting child): %s\n", en(lk(fd, F_SETLKW, F_WRLCK, 50, 10)));
    printf("parent: unlock 0+10: %s\n", en(lk(fd, F_SETLK, F_UNLCK, 0, 10)));
    int st;
    waitpid(pid, &st, 0);
    printf("child got 0+10 after the wait: %s\n", WEXITSTATUS(st) == 7 ? "ok" : "no");
    printf("after the child's exit:\n");
    pid = fork();
    if (pid == 0) {
        show(fd, F_GETLK, F_WRLCK, 50, 10, me);
        show(fd, F_GETLK, F_WRLCK, 0, 100, me);
        _exit(0);
    }
    waitpid(pid, &st, 0);

    /* closing any descriptor of the file drops the process's POSIX locks on it */
    int other = open(path, O_RDONLY);
    close(other);
    pid = fork();
    if (pid == 0) {
        printf("after closing another descriptor:\n");
        show(fd, F_GETLK, F_WRLCK, 0, 100, me);
        _exit(0);
    }
    waitpid(pid, &st, 0);

    /* OFD locks: owned by the open file description, so two opens in one process conflict */
    int a = open(path, O_RDWR), b = open(path, O_RDWR);
    r1 = en(lk(a, F_OFD_SETLK, F_WRLCK, 0, 10));
    r2 = en(lk(b, F_OFD_SETLK, F_WRLCK, 5, 1));
    const char *r3 = en(lk(b, F_SETLK, F_WRLCK, 5, 1));
    printf("ofd: a writes 0+10 %s, b writes 5+1 %s, posix on b %s\n", r1, r2, r3);
    show(b, F_OFD_GETLK, F_WRLCK, 0, 0, me);
    close(a);
    printf("ofd: after closing a, b writes 5+1 %s\n", en(lk(b, F_OFD_SETLK, F_WRLCK, 5, 1)));
    close(b);

    /* flock: per open file description, inherited across fork */
    a = open(path, O_RDONLY);
    b = open(path, O_RDONLY);
    r1 = en(flock(a, LOCK_EX));
    r2 = en(flock(b, LOCK_EX | LOCK_NB));
    r3 = en(flock(b, LOCK_SH | LOCK_NB));
    printf("flock: a LOCK_EX %s, b LOCK_EX|LOCK_NB %s, b LOCK_SH|LOCK_NB %s\n", r1, r2, r3);
    pid = fork();
    if (pid == 0) {
        const char *f1 = en(flock(a, LOCK_EX | LOCK_NB));
        const char *f2 = en(flock(b, LOCK_EX | LOCK_NB));
        printf("flock: child on inherited a %s, child on b %s\n", f1, f2);
        printf("flock: child waits on b\n");
        child_ready();
        _exit(flock(b, LOCK_EX) == 0 ? 7 : 1);
    }
    await_child();
    printf("flock: parent unlocks a: %s\n", en(flock(a, LOCK_UN)));
    waitpid(pid, &st, 0);
    printf("flock: child got b after the wait: %s\n", WEXITSTATUS(st) == 7 ? "ok" : "no");
    close(a);
    close(b);

    int ro = open(path, O_RDONLY);
    struct flock bad = {.l_type = 7, .l_whence = SEEK_SET};
    printf("bad type %s, ", en(fcntl(fd, F_SETLK, &bad)));
    bad.l_type = F_WRLCK;
    bad.l_whence = 9;
    printf("bad whence %s, ", en(fcntl(fd, F_SETLK, &bad)));
    bad.l_whence = SEEK_SET;
    bad.l_start = -5;
    printf("negative start %s, ", en(fcntl(fd, F_SETLK, &bad)));
    bad.l_start = 0;
    bad.l_pid = 1;
    printf("ofd with l_pid %s\n", en(fcntl(fd, F_OFD_SETLK, &bad)));
    printf("write lock on a read-only fd %s, bad fd %s, wild pointer %s, flock op 0 %s, flock bad fd %s\n",
           en(lk(ro, F_SETLK, F_WRLCK, 0, 1)), en(lk(99, F_SETLK, F_RDLCK, 0, 1)),
           en(fcntl(fd, F_SETLK, (struct flock *)16)), en(flock(fd, 0)), en(flock(99, LOCK_SH)));
    unlink(path);
    return 0;
}
