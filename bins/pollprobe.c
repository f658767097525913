/* poll/ppoll/select/pselect6 as Linux answers them (strace's suite probes these): pipe ends
 * polled for what only the other end can do, invalid timeouts, nfds with garbage above bit 31,
 * the time left written back, and a signal handler that interrupts pause (EINTR).
 * Prints what each call returned: the same lines natively and under emutrace. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void on_alarm(int sig) { (void) sig; }

int main(void)
{
    int p[2];
    if (pipe(p))
        return 2;
    struct pollfd fds[2] = {{p[1], POLLIN | POLLRDNORM, 0}, {p[0], POLLOUT | POLLWRNORM, 0}};
    struct timespec ts = {0, 999};
    long r = syscall(SYS_ppoll, fds, 0xffffffff00000002UL, &ts, NULL, 8);
    printf("ppoll other end's events: %ld revents %#x %#x\n", r, fds[0].revents, fds[1].revents);
    struct pollfd both[2] = {{p[0], POLLIN | POLLRDNORM, 0}, {p[1], POLLOUT | POLLWRNORM, 0}};
    write(p[1], "x", 1);
    ts.tv_sec = 5; ts.tv_nsec = 0;
    r = syscall(SYS_ppoll, both, 2, &ts, NULL, 8);
    /* (the time left, rounded: a native run spends microseconds in the call) */
    printf("ppoll ready: %ld revents %#x %#x left ~%ld s\n", r, both[0].revents, both[1].revents,
           (long) ts.tv_sec + (ts.tv_nsec >= 500000000));
    ts.tv_sec = 0; ts.tv_nsec = 1000000000;
    r = syscall(SYS_ppoll, NULL, 0, &ts, NULL, 8);
    printf("ppoll tv_nsec 1e9: %ld errno %d\n", r, r < 0 ? errno : 0);
    ts.tv_sec = -1; ts.tv_nsec = 0;
    r = syscall(SYS_ppoll, NULL, 0, &ts, NULL, 8);
    printf("ppoll tv_sec -1: %ld errno %d\n", r, r < 0 ? errno : 0);
    sigset_t none;
    sigemptyset(&none);
    ts.tv_sec = 0; ts.tv_nsec = 1;
    r = syscall(SYS_ppoll, NULL, 0, &ts, &none, 4);
    printf("ppoll sigsetsize 4: %ld errno %d\n", r, r < 0 ? errno : 0);

    fd_set rs, ws;
    FD_ZERO(&rs); FD_ZERO(&ws);
    FD_SET(p[0], &rs); FD_SET(p[1], &rs); FD_SET(p[0], &ws); FD_SET(p[1], &ws);
    struct timeval tv = {3, 2500000};      /* usec past a second: counted in */
    r = syscall(SYS_select, 0xffffffff00000000UL | (p[1] + 1), &rs, &ws, NULL, &tv);
    long tenths = tv.tv_sec * 10 + (tv.tv_usec + 50000) / 100000;
    printf("select: %ld read %d%d write %d%d left ~%ld.%ld s\n", r, FD_ISSET(p[0], &rs), FD_ISSET(p[1], &rs),
           FD_ISSET(p[0], &ws), FD_ISSET(p[1], &ws), tenths / 10, tenths % 10);
    tv.tv_sec = 0; tv.tv_usec = -1;
    r = syscall(SYS_select, 0, NULL, NULL, NULL, &tv);
    printf("select usec -1: %ld errno %d\n", r, r < 0 ? errno : 0);
    FD_ZERO(&rs);
    FD_SET(p[0], &rs);
    r = syscall(SYS_select, 0x7fffffff, &rs, NULL, NULL, NULL);
    printf("select nfds 2**31-1: %ld\n", r);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 0}, {0, 20000}};
    setitimer(ITIMER_REAL, &it, NULL);
    r = pause();
    printf("pause: %ld errno %d\n", r, errno);
    setitimer(ITIMER_REAL, &it, NULL);
    struct timespec req = {5, 0}, rem = {0, 0};
    r = nanosleep(&req, &rem);
    printf("nanosleep: %ld errno %d rem > 4 s %d\n", r, errno, rem.tv_sec >= 4);
    return 0;
}
