/* timerfd: one-shot and periodic timers, TFD_TIMER_ABSTIME, gettime, blocking and non-blocking
   reads, bad input. argv[1]: periodic reads of a 10 ms timer (default 100). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)
#define MS 1000000L

static struct itimerspec its(long value_ns, long interval_ns) {
    struct itimerspec t = {{interval_ns / 1000000000, interval_ns % 1000000000},
                           {value_ns / 1000000000, value_ns % 1000000000}};
    return t;
}

static long now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(int argc, char **argv) {
    long loops = argc > 1 ? atol(argv[1]) : 100;
    uint64_t n = 0;
    struct itimerspec cur, old;
    for (int fd = 3; fd < 64; fd++)
        close(fd);

    SHOW("create bad clock", timerfd_create(42, 0));
    SHOW("create CLOCK_PROCESS_CPUTIME_ID", timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0));
    SHOW("create bad flags", timerfd_create(CLOCK_MONOTONIC, 1));
    int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    printf("fd %d cloexec %d\n", t, fcntl(t, F_GETFD));
    struct itimerspec bad = its(0, 0);
    bad.it_value.tv_nsec = 1000000000;
    SHOW("settime nsec 1e9", timerfd_settime(t, 0, &bad, NULL));
    bad.it_value.tv_nsec = 0; bad.it_value.tv_sec = -1;
    SHOW("settime negative", timerfd_settime(t, 0, &bad, NULL));
    struct itimerspec one = its(10 * MS, 0);
    SHOW("settime bad flags", timerfd_settime(t, 4, &one, NULL));
    SHOW("settime bad fd", timerfd_settime(99, 0, &one, NULL));
    int e = eventfd(0, 0);
    SHOW("settime on an eventfd", timerfd_settime(e, 0, &one, NULL));
    SHOW("gettime on an eventfd", timerfd_gettime(e, &cur));
    SHOW("settime wild new", timerfd_settime(t, 0, (void *)16, NULL));
    SHOW("gettime wild", timerfd_gettime(t, (void *)16));

    /* one-shot, blocking read */
    SHOW("gettime disarmed", timerfd_gettime(t, &cur));
    printf("disarmed value %ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
    SHOW("settime 10 ms", timerfd_settime(t, 0, &one, &old));
    timerfd_gettime(t, &cur);
    printf("armed %d (value in (0, 10 ms])\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0 && cur.it_value.tv_nsec <= 10 * MS);
    SHOW("read 4-byte buffer", read(t, &n, 4));
    SHOW("write", write(t, &n, 8));
    SHOW("blocking read", read(t, &n, 8));
    printf("expirations %llu\n", (unsigned long long)n);
    timerfd_gettime(t, &cur);
    printf("after one-shot %ld.%09ld interval %ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec, cur.it_interval.tv_nsec);

    /* non-blocking: EAGAIN before the expiry, poll sees it after */
    int nb = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
    struct itimerspec twenty = its(20 * MS, 0);
    timerfd_settime(nb, 0, &twenty, NULL);
    SHOW("non-blocking read before expiry", read(nb, &n, 8));
    struct pollfd p = {nb, POLLIN, 0};
    SHOW("poll 0 ms", poll(&p, 1, 0));
    SHOW("poll forever", poll(&p, 1, -1));
    printf("revents %#x\n", p.revents);
    SHOW("read", read(nb, &n, 8));
    printf("expirations %llu\n", (unsigned long long)n);

    /* absolute: CLOCK_REALTIME 30 ms from now, and a time already past */
    long at = now_ns(CLOCK_REALTIME) + 30 * MS;
    struct itimerspec abs = its(at, 0);
    SHOW("settime ABSTIME", timerfd_settime(nb, TFD_TIMER_ABSTIME, &abs, NULL));
    p.revents = 0;
    SHOW("poll forever", poll(&p, 1, -1));
    printf("not before its time %d\n", now_ns(CLOCK_REALTIME) >= at);
    read(nb, &n, 8);
    struct itimerspec past = its(1 * 1000000000L, 0);
    SHOW("settime ABSTIME in the past", timerfd_settime(nb, TFD_TIMER_ABSTIME, &past, NULL));
    SHOW("read at once", read(nb, &n, 8));
    printf("expirations %llu\n", (unsigned long long)n);
    SHOW("CANCEL_ON_SET", timerfd_settime(nb, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &abs, NULL));

    /* periodic 10 ms, `loops` blocking reads */
    struct itimerspec per = its(10 * MS, 10 * MS);
    timerfd_settime(t, 0, &per, NULL);
    timerfd_gettime(t, &cur);
    printf("periodic interval %ld ns\n", cur.it_interval.tv_nsec);
    long start = now_ns(CLOCK_MONOTONIC);
    uint64_t total = 0;
    int all_ones_or_more = 1;
    for (long i = 0; i < loops; i++) {
        if (read(t, &n, 8) != 8)
            return 1;
        total += n;
        all_ones_or_more &= n >= 1;
    }
    long took = now_ns(CLOCK_MONOTONIC) - start;
    printf("%ld reads, each >= 1 expiration: %d, total >= reads: %d, took >= %ld ms: %d\n", loops,
           all_ones_or_more, total >= (uint64_t)loops, loops * 10, took >= loops * 10 * MS - 10 * MS);
    /* disarm: old value shows the interval */
    struct itimerspec zero = its(0, 0);
    timerfd_settime(t, 0, &zero, &old);
    printf("old interval %ld ns\n", old.it_interval.tv_nsec);
    SHOW("non-blocking read disarmed", (fcntl(t, F_SETFL, O_NONBLOCK), read(t, &n, 8)));
    return 0;
}
