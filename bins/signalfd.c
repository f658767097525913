/* signalfd: blocked signals read as records (kill, tgkill, SIGCHLD of a child), poll, mask
   updates, bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)

static void show(struct signalfd_siginfo *s, pid_t expect_pid) {
    printf("  signo %u (%s) code %d pid-ok %d uid %u status %d\n", s->ssi_signo, sigabbrev_np(s->ssi_signo),
           s->ssi_code, (pid_t)s->ssi_pid == expect_pid, s->ssi_uid, s->ssi_status);
}

int main(void) {
    struct signalfd_siginfo si[4];
    sigset_t mask;
    for (int fd = 3; fd < 64; fd++)
        close(fd);
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGUSR2);
    sigprocmask(SIG_BLOCK, &mask, NULL);

    SHOW("bad size", syscall(SYS_signalfd4, -1, &mask, 4, 0));
    SHOW("bad flags", signalfd(-1, &mask, 1));
    SHOW("bad fd", signalfd(77, &mask, 0));
    int e = eventfd(0, 0);
    SHOW("an eventfd", signalfd(e, &mask, 0));
    SHOW("wild mask", signalfd(-1, (void *)16, 0));
    int s = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    printf("fd %d cloexec %d nonblock %d\n", s, fcntl(s, F_GETFD), !!(fcntl(s, F_GETFL) & O_NONBLOCK));
    SHOW("read, nothing pending", read(s, si, sizeof si));
    struct pollfd p = {s, POLLIN, 0};
    SHOW("poll, nothing pending", poll(&p, 1, 0));
    kill(getpid(), SIGUSR2);
    raise(SIGUSR1);                    /* tgkill */
    SHOW("poll, two pending", poll(&p, 1, 0));
    SHOW("read 100 bytes", read(s, si, 100));
    SHOW("read one record", read(s, si, sizeof si[0]));
    show(&si[0], getpid());
    SHOW("read the rest", read(s, si, sizeof si));
    show(&si[0], getpid());
    SHOW("the same fd, a new mask", signalfd(s, &mask, 0));

    /* SIGCHLD of a child, read blocking */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int c = signalfd(-1, &chld, 0);
    pid_t pid = fork();
    if (pid == 0) {
        usleep(10000);
        _exit(7);
    }
    SHOW("blocking read SIGCHLD", read(c, si, sizeof si));
    show(&si[0], pid);
    waitpid(pid, NULL, 0);

    /* a signal not in the mask is not read; unblocked signals are delivered, not read */
    sigset_t only2;
    sigemptyset(&only2);
    sigaddset(&only2, SIGUSR2);
    signalfd(s, &only2, 0);
    fcntl(s, F_SETFL, O_NONBLOCK);
    kill(getpid(), SIGUSR1);
    SHOW("read, only SIGUSR1 pending", read(s, si, sizeof si));
    sigset_t pend;
    sigpending(&pend);
    printf("SIGUSR1 still pending %d\n", sigismember(&pend, SIGUSR1));
    return 0;
}
