/* jmp: non-local exits: longjmp out of nested calls, out of a qsort
 * comparator (i.e. out of the middle of a library call), and
 * sigsetjmp/siglongjmp restoring the signal mask. `jmp N`: then N times out of a signal handler
 * run inside raise(), each leaving raise's frame (and its return address) behind. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static sigjmp_buf senv;
static int compares;

__attribute__((noinline)) static void inner(int depth)
{
    printf("inner depth %d\n", depth);
    if (depth == 3)
        longjmp(env, depth * 10);
    if (depth < 10)
        inner(depth + 1);
    printf("not reached\n");
}

static int cmp_and_escape(const void *a, const void *b)
{
    if (++compares == 3)
        longjmp(env, 99);
    return *(const int *)a - *(const int *)b;
}

static int usr1_blocked(void)
{
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    return sigismember(&cur, SIGUSR1);
}

static sigjmp_buf lenv;

static void on_usr2(int sig)
{
    (void)sig;
    siglongjmp(lenv, 1);
}

/* n calls of raise() left by siglongjmp, all at the same stack depth */
static int leave_raises(int n)
{
    volatile int left = 0;
    signal(SIGUSR2, on_usr2);
    while (left < n) {
        if (sigsetjmp(lenv, 1) == 0)
            raise(SIGUSR2);
        left++;
    }
    return left;
}

int main(int argc, char **argv)
{
    int r = setjmp(env);
    if (r == 0) {
        printf("setjmp returned 0, going deep\n");
        inner(1);
    } else {
        printf("longjmp back with %d\n", r);
    }

    int arr[] = {9, 3, 7, 1, 8, 2, 6};
    r = setjmp(env);
    if (r == 0) {
        qsort(arr, sizeof arr / sizeof arr[0], sizeof arr[0], cmp_and_escape);
        printf("qsort finished (not expected)\n");
    } else {
        printf("escaped from qsort comparator with %d after %d compares\n", r, compares);
    }

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    r = sigsetjmp(senv, 1);
    if (r == 0) {
        sigprocmask(SIG_BLOCK, &set, NULL);
        printf("sigsetjmp 0, SIGUSR1 blocked = %d\n", usr1_blocked());
        siglongjmp(senv, 7);
    }
    printf("siglongjmp back with %d, SIGUSR1 blocked = %d\n", r, usr1_blocked());
    if (argc > 1)
        printf("left %d raises\n", leave_raises(atoi(argv[1])));
    puts("jmp done");
    return 0;
}
