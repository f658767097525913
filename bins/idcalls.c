/* idcalls: strace's %pure calls (getpid, gettid, getppid, getuid, geteuid, getgid, getegid,
 * getpgrp) in loops, between the calls that change their answers or what must happen after them:
 * setpgid, fork, threads, an interval timer whose SIGALRM arrives at a system call's return.
 * `idcalls N` prints what each loop saw and the monotonic clock around it (under emutrace the
 * clock advances 1 us per system call, so the times show every call counted). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long n = 1000;
static volatile sig_atomic_t alarms;

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long tid(void)
{
    return syscall(SYS_gettid);
}

/* every pure call n times; prints the first answers, a checksum of all of them and the time spent */
static void loop(const char *who)
{
    long long t0 = now_us();
    long first[8] = {getpid(), tid(), getppid(), getuid(), geteuid(), getgid(), getegid(), getpgrp()};
    unsigned long sum = 0;
    for (long i = 0; i < n; i++) {
        sum = sum * 31 + (unsigned long)getpid();
        sum = sum * 31 + (unsigned long)tid();
        sum = sum * 31 + (unsigned long)getppid();
        sum = sum * 31 + (unsigned long)getuid() + (unsigned long)geteuid();
        sum = sum * 31 + (unsigned long)getgid() + (unsigned long)getegid();
        sum = sum * 31 + (unsigned long)getpgrp();
    }
    long long t1 = now_us();
    printf("%s: pid %ld tid %ld ppid %ld uid %ld/%ld gid %ld/%ld pgrp %ld sum %lx time %lld alarms %d\n",
           who, first[0], first[1], first[2], first[3], first[4], first[5], first[6], first[7],
           sum, t1 - t0, (int)alarms);
    fflush(stdout);
}

static void *thread_main(void *arg)
{
    loop((const char *)arg);
    return NULL;
}

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atol(argv[1]);
    loop("main");

    pid_t child = fork();               /* another process: other answers, on another machine */
    if (child == 0) {
        loop("child");
        setpgid(0, 0);                  /* its process group changes between two loops */
        loop("child after setpgid");
        _exit(0);
    }
    waitpid(child, NULL, 0);
    loop("main after the child");

    pthread_t t[2];                     /* threads: each its own tid, sharing one engine */
    pthread_create(&t[0], NULL, thread_main, "thread 1");
    pthread_create(&t[1], NULL, thread_main, "thread 2");
    loop("main beside its threads");
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    loop("main after its threads");

    struct sigaction sa;                /* an interval timer: SIGALRM arrives at a call's return */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 250}, {0, 250}};
    setitimer(ITIMER_REAL, &it, NULL);
    loop("main with a timer");
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    loop("main after the timer");
    return 0;
}
