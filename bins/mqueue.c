/* mqueue: POSIX message queues between processes: priorities, attributes, blocking and
 * timeouts, mq_notify with a signal, poll, and Linux's errors for bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *en(long r)
{
    if (r >= 0)
        return "ok";
    switch (errno) {
#define E(x) case x: return #x;
    E(EINVAL) E(ENOENT) E(EEXIST) E(EAGAIN) E(EMSGSIZE) E(ETIMEDOUT) E(EBADF) E(EBUSY) E(EACCES) E(EPERM)
    E(ENAMETOOLONG)
#undef E
    }
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", errno);
    return buf;
}

static volatile sig_atomic_t notified, code, value;

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    notified = 1;
    code = si->si_code;
    value = si->si_value.sival_int;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    mq_unlink("/emutrace-q");
    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 32};
    mqd_t q = mq_open("/emutrace-q", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
    const char *o1 = en(q);
    printf("mq_open: %s; again O_EXCL: %s\n", o1, en(mq_open("/emutrace-q", O_CREAT | O_EXCL | O_RDWR, 0600, &attr)));
    mq_send(q, "low", 3, 1);
    mq_send(q, "high", 4, 9);
    mq_send(q, "mid", 3, 5);
    mq_send(q, "mid2", 4, 5);
    struct mq_attr got;
    mq_getattr(q, &got);
    printf("attr: maxmsg %ld msgsize %ld curmsgs %ld flags %ld\n", got.mq_maxmsg, got.mq_msgsize, got.mq_curmsgs, got.mq_flags);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    printf("send to a full queue with a timeout: %s\n", en(mq_timedsend(q, "x", 1, 0, &ts)));
    struct pollfd p = {q, POLLIN | POLLOUT, 0};
    poll(&p, 1, 0);
    printf("poll full: POLLIN=%d POLLOUT=%d\n", !!(p.revents & POLLIN), !!(p.revents & POLLOUT));
    char buf[64];
    unsigned prio;
    for (int i = 0; i < 4; i++) {
        ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
        printf("received \"%.*s\" prio %u\n", (int)n, buf, prio);
    }
    printf("small buffer: %s\n", en(mq_receive(q, buf, 8, &prio)));
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    printf("receive from empty with a timeout: %s\n", en(mq_timedreceive(q, buf, sizeof buf, &prio, &ts)));
    struct mq_attr nb = {.mq_flags = O_NONBLOCK}, old;
    mq_setattr(q, &nb, &old);
    printf("non-blocking: %s (old flags %ld)\n", en(mq_receive(q, buf, sizeof buf, &prio)), old.mq_flags);
    nb.mq_flags = 0;
    mq_setattr(q, &nb, NULL);

    struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
    sigaction(SIGUSR1, &sa, NULL);
    struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1, .sigev_value.sival_int = 42};
    const char *n1 = en(mq_notify(q, &sev));
    printf("mq_notify: %s, twice: %s\n", n1, en(mq_notify(q, &sev)));
    pid_t pid = fork();
    if (pid == 0) {
        mqd_t c = mq_open("/emutrace-q", O_WRONLY);
        usleep(50000);
        mq_send(c, "from the child", 14, 3);
        mq_close(c);
        _exit(0);
    }
    ssize_t n = mq_receive(q, buf, sizeof buf, &prio);      /* blocks until the child sends */
    waitpid(pid, NULL, 0);
    printf("received \"%.*s\" prio %u from the child; notified %d (a receiver was waiting)\n", (int)n, buf, prio, notified);
    pid = fork();
    if (pid == 0) {
        mqd_t c = mq_open("/emutrace-q", O_WRONLY);
        mq_send(c, "ping", 4, 0);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("notified %d, si_code SI_MESGQ %d, value %d\n", notified, code == SI_MESGQ, value);
    mq_receive(q, buf, sizeof buf, &prio);

    struct mq_attr bad = {.mq_maxmsg = 0, .mq_msgsize = 8};
    printf("bad attr %s, missing %s, no slash inside %s, bad prio %s, too long %s, on stdin %s, write-only receive %s\n",
           en(mq_open("/emutrace-bad", O_CREAT | O_RDWR, 0600, &bad)), en(mq_open("/emutrace-none", O_RDONLY)),
           en(mq_open("/a/b", O_CREAT | O_RDWR, 0600, NULL)), en(mq_send(q, "x", 1, 40000)),
           en(mq_send(q, buf, 33, 0)), en(mq_send(0, "x", 1, 0)),
           en(mq_receive(mq_open("/emutrace-q", O_WRONLY), buf, sizeof buf, &prio)));
    const char *u1 = en(mq_unlink("/emutrace-q"));
    printf("unlink %s, again %s\n", u1, en(mq_unlink("/emutrace-q")));
    return 0;
}
