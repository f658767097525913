/* calllog: the cases where logging calls in guest code could go wrong, each printing what it
 * saw so a run can be compared with a native one.
 *  - a string argument that ends at the end of a mapping (no NUL before the unmapped page);
 *  - a buffer argument whose length runs past the end of a mapping but is never read there;
 *  - a wide string ending at the end of a mapping (copied as a fixed number of bytes);
 *  - a thread cancelled inside sleep(): the forced unwind walks through a logged call;
 *  - backtrace() called below logged calls, and a deep recursion through logged calls;
 *  - a longjmp out of a signal handler that interrupted nothing in particular. */
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wchar.h>

static void cleanup(void *arg)
{
    printf("cleanup ran: %s\n", (const char *)arg);
}

static void *sleeper(void *arg)
{
    pthread_cleanup_push(cleanup, arg);
    for (;;)
        sleep(1000);                  /* a cancellation point, reached through the PLT */
    pthread_cleanup_pop(0);
    return NULL;
}

static int depth_sum(int n)
{
    if (n == 0) {
        void *frames[64];
        int got = backtrace(frames, 64);
        printf("backtrace depth ok: %s\n", got >= 5 ? "yes" : "no");
        return 0;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%d", n);
    return (int)strlen(buf) + depth_sum(n - 1);    /* strlen logged at every level */
}

static sigjmp_buf env;

static void on_alarm(int sig)
{
    (void)sig;
    siglongjmp(env, 1);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED)
        return 1;
    munmap(two + page, page);
    char *edge = two + page - 3;
    memcpy(edge, "abc", 3);                       /* no NUL: the page ends right after */
    printf("strncmp at the edge: %d\n", strncmp(edge, "abc", 3));
    printf("memcmp at the edge: %d\n", memcmp(edge, "abd", 3));
    printf("strnlen at the edge: %zu\n", strnlen(edge, 3));
    wchar_t *wedge = (wchar_t *)(two + page - 3 * sizeof(wchar_t));
    wedge[0] = L'x'; wedge[1] = L'y'; wedge[2] = 0;   /* a wide string ending at the page end */
    printf("wide: %zu %zu %d\n", wcslen(wedge), wcslen(L"wide"), wcscmp(L"wide", L"wider") < 0);
    /* returned wide strings whose copy at the return runs into the unmapped page, and NULL */
    printf("wide returns: %d %d %d %d\n", wcschr(wedge, L'y') == wedge + 1, wcschr(wedge, 0) == wedge + 2,
           wcschr(wedge, L'q') == NULL, wcsrchr(L"wide", L'i') != NULL);

    pthread_t t;
    pthread_create(&t, NULL, sleeper, "sleeper");
    usleep(1000);
    pthread_cancel(t);
    void *res;
    pthread_join(t, &res);
    printf("joined: %s\n", res == PTHREAD_CANCELED ? "canceled" : "returned");

    printf("depth sum: %d\n", depth_sum(200));

    signal(SIGALRM, on_alarm);
    if (sigsetjmp(env, 1) == 0) {
        raise(SIGALRM);
        puts("not reached");
    }
    printf("after siglongjmp: %zu\n", strlen("back"));
    return 0;
}
