/* jobctl: SIGSTOP stops a process, SIGCONT continues it, and the parent hears of both
 * (SIGCHLD codes, wait4 WUNTRACED/WCONTINUED, waitid WSTOPPED/WCONTINUED, SA_NOCLDSTOP); a
 * signal sent to a stopped process waits for SIGCONT; SIGKILL ends a stopped one; a sleep a
 * stop interrupted goes on after SIGCONT. Output is the same natively and under emutrace. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int codes[16], ncodes;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    if (ncodes < 16)
        codes[ncodes++] = si->si_code;
}

static int up[2];

static void on_usr1(int sig)
{
    (void)sig;
    write(up[1], "u", 1);
}

static const char *code_name(int c)
{
    switch (c) {
    case CLD_EXITED: return "CLD_EXITED";
    case CLD_KILLED: return "CLD_KILLED";
    case CLD_STOPPED: return "CLD_STOPPED";
    case CLD_CONTINUED: return "CLD_CONTINUED";
    default: return "?";
    }
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGSTOP: return "STOP";
    case SIGCONT: return "CONT";
    case SIGKILL: return "KILL";
    case SIGTSTP: return "TSTP";
    default: return "?";
    }
}

static void show(const char *what, int st)
{
    if (WIFSTOPPED(st))
        printf("%s: stopped by %s\n", what, sig_name(WSTOPSIG(st)));
    else if (WIFCONTINUED(st))
        printf("%s: continued\n", what);
    else if (WIFEXITED(st))
        printf("%s: exited %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("%s: killed by %s\n", what, sig_name(WTERMSIG(st)));
    fflush(stdout);
}

/* Linux sends CLD_CONTINUED from the continued child when it next runs, so it can come after
 * the parent's WCONTINUED wait returns; two SIGCHLDs pending at once are one (standard signals
 * do not queue). The parent waits for each notice before it causes the next. */
static void await_codes(int n)
{
    for (int i = 0; ncodes < n && i < 5000; i++)
        usleep(1000);
}

static void drain_codes(const char *what)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    printf("%s: SIGCHLD", what);
    for (int i = 0; i < ncodes; i++)
        printf(" %s", code_name(codes[i]));
    printf("\n");
    fflush(stdout);
    ncodes = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = on_chld;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGCHLD, &sa, NULL);
    pipe(up);
    int st;

    /* 1: the child stops itself; WUNTRACED, SIGCONT, WCONTINUED, then its exit (it waits for
     * the parent's word before it exits: a zombie would be reported instead of the continue) */
    int go[2];
    pipe(go);
    pid_t c = fork();
    if (c == 0) {
        char x;
        close(go[1]);
        raise(SIGSTOP);
        read(go[0], &x, 1);
        _exit(3);
    }
    close(go[0]);
    waitpid(c, &st, WUNTRACED);
    show("raise(SIGSTOP)", st);
    kill(c, SIGCONT);
    waitpid(c, &st, WCONTINUED);
    show("SIGCONT", st);
    await_codes(2);
    close(go[1]);
    waitpid(c, &st, 0);
    show("then", st);
    drain_codes("child 1");

    /* 2: stopped from outside, seen by waitid; a signal sent meanwhile waits (SIGSTOP: the
     * others are discarded natively when the process group is orphaned, as under a job shell) */
    int ready[2];
    pipe(ready);
    c = fork();
    if (c == 0) {
        signal(SIGUSR1, on_usr1);
        write(ready[1], "r", 1);              /* (the handler is in place before any signal) */
        for (;;)
            pause();
    }
    char b;
    read(ready[0], &b, 1);
    kill(c, SIGSTOP);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    waitid(P_PID, c, &si, WSTOPPED);
    printf("waitid: %s status %s\n", code_name(si.si_code), sig_name(si.si_status));
    kill(c, SIGUSR1);
    fcntl(up[0], F_SETFL, O_NONBLOCK);
    ssize_t r = read(up[0], &b, 1);
    printf("while stopped, SIGUSR1 handled: %s\n", r == 1 ? "yes" : errno == EAGAIN ? "no" : "?");
    kill(c, SIGCONT);
    fcntl(up[0], F_SETFL, 0);
    r = read(up[0], &b, 1);
    printf("after SIGCONT, SIGUSR1 handled: %s\n", r == 1 ? "yes" : "no");
    memset(&si, 0, sizeof si);
    waitid(P_PID, c, &si, WCONTINUED);
    printf("waitid: %s status %s\n", code_name(si.si_code), sig_name(si.si_status));
    await_codes(2);
    kill(c, SIGSTOP);
    waitpid(c, &st, WUNTRACED);
    show("SIGSTOP", st);
    await_codes(3);
    kill(c, SIGKILL);
    waitpid(c, &st, 0);
    show("SIGKILL while stopped", st);
    drain_codes("child 2");

    /* 3: SA_NOCLDSTOP: no SIGCHLD for a stop or a continue; a sleep goes on after SIGCONT */
    sa.sa_flags |= SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    c = fork();
    if (c == 0) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        int rc = nanosleep(&ts, NULL);
        _exit(rc == 0 ? 7 : 8);
    }
    usleep(20 * 1000);
    kill(c, SIGSTOP);
    waitpid(c, &st, WUNTRACED);
    show("SIGSTOP during a sleep", st);
    kill(c, SIGCONT);
    waitpid(c, &st, 0);
    show("the sleep went on", st);
    drain_codes("child 3");
    return 0;
}
