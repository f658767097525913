/* A program for the gdb server's tests (tests/test_gdb.py): each mode one scenario.
 *   corrupt [N]  a global corrupted by a store, a crash N loop iterations later (reverse-continue)
 *   readbuf  read(2) from a pipe into a buffer (a watchpoint on the kernel's store)
 *   libcall  strlen and a loop (reverse-finish out of a library call, reverse-step)
 *   loop N   N iterations of arithmetic (benchmarks: continue, reverse-stepi far into a run)
 *   sig      raise(SIGUSR1) with a handler
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int guard = 42;
volatile int handled;
char message[32] = "hello, gdb";

static int *victim(int i)
{
    return i == 3 ? &guard : NULL;
}

static void corrupt_one(int i)
{
    int *p = victim(i);
    if (p)
        *p = 7;                                 /* the corrupting store */
}

static long work(long n)
{
    long acc = 0;
    for (long i = 0; i < n; i++)
        acc += (i * 7) ^ (acc >> 3);
    return acc;
}

static void on_usr1(int sig)
{
    handled = sig;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "corrupt";
    if (!strcmp(mode, "corrupt")) {
        for (int i = 0; i < 5; i++)
            corrupt_one(i);
        long acc = work(argc > 2 ? atol(argv[2]) : 1000);
        printf("acc %ld\n", acc);
        if (guard != 42)
            *(volatile int *)(long)guard = 1;   /* the crash, long after the store */
        return 0;
    }
    if (!strcmp(mode, "readbuf")) {
        char buf[16] = {0};
        int fds[2];
        if (pipe(fds))
            return 1;
        write(fds[1], "payload", 7);
        ssize_t n = read(fds[0], buf, sizeof buf);
        printf("read %zd: %s\n", n, buf);
        return 0;
    }
    if (!strcmp(mode, "libcall")) {
        size_t len = strlen(message);
        long total = work((long)len);
        printf("len %zu total %ld\n", len, total);
        return 0;
    }
    if (!strcmp(mode, "loop")) {
        long n = argc > 2 ? atol(argv[2]) : 1000000;
        printf("%ld\n", work(n));
        return 0;
    }
    if (!strcmp(mode, "sig")) {
        signal(SIGUSR1, on_usr1);
        raise(SIGUSR1);
        printf("handled %d\n", handled);
        return 0;
    }
    return 2;
}
