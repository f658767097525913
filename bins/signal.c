/* signal: sigaction(SA_SIGINFO) + raise, kill with a plain handler, and a
 * blocked signal that stays pending until it is unblocked. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t count1, count2, last_signo, last_code;

static void info_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    count1++;
    last_signo = si->si_signo;
    last_code = si->si_code;
}

static void plain_handler(int sig)
{
    count2++;
    last_signo = sig;
}

static const char *code_name(int code)
{
    switch (code) {
    case SI_USER: return "SI_USER";
    case SI_TKILL: return "SI_TKILL";
    case SI_QUEUE: return "SI_QUEUE";
    case SI_KERNEL: return "SI_KERNEL";
    }
    return "?";
}

int main(void)
{
    struct sigaction sa;
    sigset_t set, pend;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = info_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);

    sa.sa_handler = plain_handler;
    sa.sa_flags = 0;
    sigaction(SIGUSR2, &sa, NULL);

    raise(SIGUSR1);
    printf("raise: count1=%d signo=%d code=%d (%s)\n", (int)count1,
           (int)last_signo, (int)last_code, code_name(last_code));

    kill(getpid(), SIGUSR2);
    printf("kill: count2=%d signo=%d\n", (int)count2, (int)last_signo);

    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    kill(getpid(), SIGUSR1);
    sigpending(&pend);
    printf("blocked: pending=%d count1=%d\n", sigismember(&pend, SIGUSR1), (int)count1);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    printf("unblocked: count1=%d signo=%d code=%d (%s)\n", (int)count1,
           (int)last_signo, (int)last_code, code_name(last_code));
    sigpending(&pend);
    printf("pending after = %d\n", sigismember(&pend, SIGUSR1));
    puts("signal done");
    return 0;
}
