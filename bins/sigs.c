/* sigs: SA_SIGINFO details, recovering from SIGSEGV with siglongjmp, and
 * alarm(1) + pause() (takes one second). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf recover;
static volatile sig_atomic_t info_signo, info_code, segv_code;
static void *volatile segv_addr;

static void on_info(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    info_signo = si->si_signo;
    info_code = si->si_code;
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    segv_code = si->si_code;
    segv_addr = si->si_addr;
    siglongjmp(recover, 1);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "alarm\n";
    write(1, msg, sizeof msg - 1);
}

static void install(int sig, void (*h)(int, siginfo_t *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

int main(void)
{
    install(SIGUSR1, on_info);
    raise(SIGUSR1);
    printf("SIGUSR1: si_signo=%d si_code=%d\n", (int)info_signo, (int)info_code);

    install(SIGSEGV, on_segv);
    if (sigsetjmp(recover, 1) == 0) {
        volatile int *bad = (volatile int *)16;
        *bad = 1;
        puts("no fault?");
    } else {
        printf("recovered from SIGSEGV (si_code=%d si_addr=%p)\n",
               (int)segv_code, segv_addr);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    fflush(stdout);                 /* the handler writes with write(2) */
    alarm(1);
    pause();
    puts("after pause");
    return 0;
}
