/* twicejmp: setjmp's family logged by guest code through return stubs (emutrace/guestlog.py
 * RETURNS_TWICE), and the guest log's code in a forked child that is not traced.
 *
 * - two sigsetjmp calls at one stack depth in one function (the same return slot, two return
 *   addresses), then a longjmp to the first buffer: it must land after the first call;
 * - a setjmp in a loop (one call site, many calls) and longjmps from nested calls;
 * - with `fork`: a child (untraced without -f) making more logged calls than a ring holds,
 *   calling setjmp from a call site the parent never used (a new return stub there), and
 *   passing an unmapped pointer where the callee reads nothing (strncmp with n = 0: the call
 *   log's copy faults, as it does in the parent). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf first, second;
static jmp_buf loop_env;
static volatile int landed;

__attribute__((noinline)) static void jump_to(sigjmp_buf env, int val)
{
    siglongjmp(env, val);
}

__attribute__((noinline)) static void same_slot(void)
{
    volatile int stage = 0;
    int r = sigsetjmp(first, 0);
    if (r) {
        printf("back at the first call with %d (stage %d)\n", r, stage);
        return;
    }
    r = sigsetjmp(second, 1);
    if (r) {
        printf("back at the second call with %d\n", r);
        stage = 2;
        jump_to(first, 5);
    }
    stage = 1;
    jump_to(second, 4);
}

__attribute__((noinline)) static void deep(int depth)
{
    if (depth == 0)
        longjmp(loop_env, 1 + landed % 3);
    deep(depth - 1);
}

static void child_work(long n)
{
    char *bad = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(bad, 4096);
    long s = strncmp("abc", bad, 0);               /* reads nothing: the log's copy faults */
    for (long i = 0; i < n; i++)
        s += (long)strlen("child's calls" + (i & 7));
    jmp_buf env;
    volatile int k = 0;
    if (setjmp(env) < 3) {                         /* a call site the parent never used */
        k++;
        longjmp(env, k);
    }
    printf("child %ld %d\n", s, k);
}

int main(int argc, char **argv)
{
    same_slot();
    for (int i = 0; i < 6; i++) {
        int r = setjmp(loop_env);
        if (r == 0)
            deep(i);
        landed += r;
    }
    printf("landed %d\n", landed);
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            child_work(argc > 2 ? atol(argv[2]) : 20000);
            return 0;
        }
        int st;
        waitpid(p, &st, 0);
        printf("child status %d\n", st);
    }
    return 0;
}
