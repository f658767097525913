/* epoll (and select) over eventfd, timerfd, signalfd, inotify and a pidfd: each source made
   ready in turn, and exactly that one reported; pidfd_open/pidfd_send_signal and bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)

static const char *names[8];

static void wait_one(int ep, const char *what) {
    struct epoll_event ev[8];
    int n = epoll_wait(ep, ev, 8, -1);
    printf("%s: %d ready:", what, n);
    for (int i = 0; i < n; i++)
        printf(" %s(%#x)", names[ev[i].data.u32], ev[i].events);
    printf("\n");
}

static int pidfd_open(pid_t pid, unsigned flags) { return syscall(SYS_pidfd_open, pid, flags); }

int main(void) {
    for (int fd = 3; fd < 64; fd++)
        close(fd);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int efd = eventfd(0, EFD_NONBLOCK);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigaddset(&m, SIGCHLD);
    sigprocmask(SIG_BLOCK, &m, NULL);
    sigdelset(&m, SIGCHLD);
    int sfd = signalfd(-1, &m, SFD_NONBLOCK);
    int ifd = inotify_init1(IN_NONBLOCK);
    inotify_add_watch(ifd, "/tmp", IN_CREATE);
    int fds[] = {efd, tfd, sfd, ifd};
    const char *labels[] = {"eventfd", "timerfd", "signalfd", "inotify"};
    for (int i = 0; i < 4; i++) {
        names[i] = labels[i];
        struct epoll_event ev = {EPOLLIN, {.u32 = i}};
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
    }
    struct epoll_event none[4];
    SHOW("epoll_wait, nothing ready", epoll_wait(ep, none, 4, 0));

    write(efd, &(uint64_t){1}, 8);
    wait_one(ep, "eventfd written");
    uint64_t v;
    read(efd, &v, 8);

    struct itimerspec t = {{0, 0}, {0, 15000000}};
    timerfd_settime(tfd, 0, &t, NULL);
    wait_one(ep, "timer expired");
    read(tfd, &v, 8);

    kill(getpid(), SIGUSR1);
    wait_one(ep, "signal sent");
    struct signalfd_siginfo si;
    read(sfd, &si, sizeof si);

    close(open("/tmp/epoll_events.tmp", O_CREAT | O_WRONLY, 0600));
    unlink("/tmp/epoll_events.tmp");
    wait_one(ep, "file created");
    char buf[256];
    read(ifd, buf, sizeof buf);

    /* select sees an eventfd too */
    write(efd, &(uint64_t){1}, 8);
    fd_set r;
    FD_ZERO(&r);
    FD_SET(efd, &r);
    FD_SET(tfd, &r);
    SHOW("select", select(tfd + 1, &r, NULL, NULL, NULL));
    printf("eventfd set %d timerfd set %d\n", FD_ISSET(efd, &r), FD_ISSET(tfd, &r));
    read(efd, &v, 8);

    /* pidfd: readable once the child exits */
    SHOW("pidfd_open bad flags", pidfd_open(getpid(), 1));
    SHOW("pidfd_open pid 0", pidfd_open(0, 0));
    SHOW("pidfd_open no such process", pidfd_open(999999, 0));
    SHOW("pidfd_send_signal on an eventfd", syscall(SYS_pidfd_send_signal, efd, SIGTERM, NULL, 0));
    int go[2];
    pipe(go);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(go[0], &c, 1);
        _exit(5);
    }
    int pfd = pidfd_open(pid, 0);
    printf("pidfd cloexec %d\n", fcntl(pfd, F_GETFD));
    names[4] = "pidfd";
    struct epoll_event pev = {EPOLLIN, {.u32 = 4}};
    epoll_ctl(ep, EPOLL_CTL_ADD, pfd, &pev);
    SHOW("epoll_wait, child alive", epoll_wait(ep, none, 4, 0));
    write(go[1], "x", 1);
    wait_one(ep, "child exited");
    SHOW("pidfd_send_signal bad flags", syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 8));
    SHOW("pidfd_send_signal to a zombie", syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0));
    siginfo_t wi;
    SHOW("waitid P_PIDFD on an eventfd", waitid(P_PIDFD, efd, &wi, WEXITED));
    SHOW("waitid P_PIDFD", waitid(P_PIDFD, pfd, &wi, WEXITED));
    printf("child exit %d code %d pid-ok %d\n", wi.si_status, wi.si_code, wi.si_pid == pid);
    int st;
    epoll_ctl(ep, EPOLL_CTL_DEL, pfd, NULL);
    close(pfd);

    pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_UNBLOCK, &m, NULL);
        for (;;)
            pause();
    }
    pfd = pidfd_open(pid, O_NONBLOCK);
    SHOW("waitid, non-blocking pidfd", waitid(P_PIDFD, pfd, &wi, WEXITED));
    SHOW("pidfd_send_signal SIGTERM", syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0));
    waitpid(pid, &st, 0);
    printf("killed by %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);

    /* CLONE_PIDFD: the pidfd comes with the child */
    int cfd = -1;
    SHOW("clone PIDFD|PARENT_SETTID", syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &cfd, 0, 0));
    fflush(stdout);                       /* the child shares no stdio buffer it would flush */
    long cr = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &cfd, 0, 0);
    if (cr == 0)
        _exit(9);
    printf("clone PIDFD: pidfd %d cloexec %d\n", cfd, fcntl(cfd, F_GETFD));
    struct pollfd cp = {cfd, POLLIN, 0};
    SHOW("poll the clone's pidfd", poll(&cp, 1, -1));
    waitid(P_PIDFD, cfd, &wi, WEXITED);
    printf("clone child exit %d\n", wi.si_status);
    return 0;
}
