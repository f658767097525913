/* POSIX timers: SIGEV_SIGNAL with a handler and with sigwaitinfo, overruns, SIGEV_NONE,
   SIGEV_THREAD_ID, glibc's SIGEV_THREAD, gettime/delete, bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)
#define MS 1000000L

static volatile sig_atomic_t ticks;
static sem_t notified;
static int notify_value;

static void on_tick(int sig) { (void)sig; ticks++; }

static void on_thread(union sigval v) {
    notify_value = v.sival_int;
    sem_post(&notified);
}

static struct itimerspec its(long value_ns, long interval_ns) {
    struct itimerspec t = {{interval_ns / 1000000000, interval_ns % 1000000000},
                           {value_ns / 1000000000, value_ns % 1000000000}};
    return t;
}

int main(void) {
    timer_t a, b, c;
    struct sigevent ev = {0};
    struct itimerspec cur;
    siginfo_t si;
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);

    /* bad input (raw calls: the kernel's answers) */
    int id;
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    SHOW("create bad clock", syscall(SYS_timer_create, 42, &ev, &id));
    ev.sigev_notify = 3;
    SHOW("create bad notify", syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = 0;
    SHOW("create signal 0", syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
    ev.sigev_signo = 65;
    SHOW("create signal 65", syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
    ev.sigev_signo = SIGUSR1;
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = 999999;
    SHOW("create THREAD_ID, no such thread", syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
    SHOW("create wild sigevent", syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)16, &id));
    SHOW("settime bad id", syscall(SYS_timer_settime, 4242, 0, &(struct itimerspec){0}, NULL));
    SHOW("gettime bad id", syscall(SYS_timer_gettime, 4242, &cur));
    SHOW("getoverrun bad id", syscall(SYS_timer_getoverrun, 4242));
    SHOW("delete bad id", syscall(SYS_timer_delete, 4242));

    /* SIGEV_SIGNAL, taken with sigwaitinfo */
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    ev.sigev_value.sival_int = 77;
    SHOW("create SIGUSR1", timer_create(CLOCK_MONOTONIC, &ev, &a));
    printf("id %ld\n", (long)(intptr_t)a);
    SHOW("create NULL sigevent", timer_create(CLOCK_REALTIME, NULL, &b));
    printf("id %ld\n", (long)(intptr_t)b);
    struct itimerspec bad = its(0, 0);
    bad.it_value.tv_nsec = -1;
    SHOW("settime bad timespec", timer_settime(a, 0, &bad, NULL));
    SHOW("settime NULL", syscall(SYS_timer_settime, (long)(intptr_t)a, 0, NULL, NULL));
    struct itimerspec ten = its(10 * MS, 0);
    SHOW("settime 10 ms", timer_settime(a, 0, &ten, NULL));
    SHOW("sigwaitinfo", sigwaitinfo(&usr1, &si));
    printf("  code %d (SI_TIMER %d) value %d overrun %d timerid-ok %d\n", si.si_code, SI_TIMER,
           si.si_value.sival_int, si.si_overrun, si.si_timerid == (int)(intptr_t)a);
    timer_gettime(a, &cur);
    printf("after one-shot %ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);

    /* overrun: 1 ms periodic while its signal stays blocked for 20 ms */
    struct itimerspec fast = its(1 * MS, 1 * MS);
    timer_settime(a, 0, &fast, NULL);
    struct timespec t20 = {0, 20 * MS};
    nanosleep(&t20, NULL);
    sigwaitinfo(&usr1, &si);
    printf("overrun >= 15: %d, timer_getoverrun agrees: %d\n", si.si_overrun >= 15,
           timer_getoverrun(a) == si.si_overrun);
    timer_settime(a, 0, &(struct itimerspec){0}, NULL);

    /* SIGEV_SIGNAL with a handler, periodic 5 ms, three pauses */
    signal(SIGUSR2, on_tick);
    ev.sigev_signo = SIGUSR2;
    timer_create(CLOCK_MONOTONIC, &ev, &c);
    struct itimerspec five = its(5 * MS, 5 * MS);
    timer_settime(c, 0, &five, NULL);
    while (ticks < 3)
        pause();
    printf("handler ran %d times\n", (int)ticks);
    SHOW("delete", timer_delete(c));
    SHOW("delete again", syscall(SYS_timer_delete, (long)(intptr_t)c));

    /* SIGEV_NONE: nothing is sent, gettime counts down */
    timer_t n;
    ev.sigev_notify = SIGEV_NONE;
    timer_create(CLOCK_MONOTONIC, &ev, &n);
    struct itimerspec ten_s = its(10 * 1000 * MS, 0);   /* long: a loaded machine may oversleep */
    timer_settime(n, 0, &ten_s, NULL);
    nanosleep(&t20, NULL);
    timer_gettime(n, &cur);
    long left = cur.it_value.tv_sec * 1000000000L + cur.it_value.tv_nsec;
    printf("SIGEV_NONE left in [9 s, 9.98 s]: %d\n", left >= 9000 * MS && left <= 9980 * MS);

    /* ABSTIME in the past: fires at once */
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    timer_t p;
    timer_create(CLOCK_MONOTONIC, &ev, &p);
    struct itimerspec past = its(1, 0);
    timer_settime(p, TIMER_ABSTIME, &past, NULL);
    sigset_t pend;
    sigpending(&pend);
    printf("ABSTIME past: pending at once %d\n", sigismember(&pend, SIGUSR1));
    sigwaitinfo(&usr1, &si);

    /* SIGEV_THREAD_ID: to this thread */
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = gettid();
    timer_t th;
    SHOW("create THREAD_ID self", timer_create(CLOCK_MONOTONIC, &ev, &th));
    timer_settime(th, 0, &ten, NULL);
    sigwaitinfo(&usr1, &si);
    printf("thread-directed: signo %d code %d\n", si.si_signo, si.si_code);

    /* glibc's SIGEV_THREAD: a helper thread runs the function */
    sem_init(&notified, 0, 0);
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_notify_function = on_thread;
    ev.sigev_notify_attributes = NULL;
    ev.sigev_value.sival_int = 99;
    timer_t tt;
    SHOW("create SIGEV_THREAD", timer_create(CLOCK_MONOTONIC, &ev, &tt));
    timer_settime(tt, 0, &ten, NULL);
    sem_wait(&notified);
    printf("SIGEV_THREAD ran with %d\n", notify_value);
    return 0;
}
