/* clone3's argument checks as Linux makes them (strace's suite probes these): a NULL
 * parent_tid with CLONE_PARENT_SETTID is not an error, set_tid and set_tid_size go together.
 * Prints what each call returned: the same lines natively and under emutrace. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long clone3_(struct clone_args *a, size_t size)
{
    return syscall(SYS_clone3, a, size);
}

static void report(const char *what, long r)
{
    if (r == 0)
        _exit(7);                       /* the child */
    if (r > 0) {
        int st = 0;
        waitpid(r, &st, __WALL);
        printf("%s: a child, exit %d\n", what, WEXITSTATUS(st));
    } else {
        printf("%s: -1 errno %d\n", what, errno);
    }
}

int main(void)
{
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = CLONE_PARENT_SETTID;      /* parent_tid NULL: Linux ignores put_user's failure */
    a.exit_signal = SIGCHLD;
    report("PARENT_SETTID NULL", clone3_(&a, sizeof a));
    memset(&a, 0, sizeof a);
    a.flags = CLONE_CHILD_SETTID;
    a.child_tid = 8;                    /* unmapped */
    a.exit_signal = SIGCHLD;
    report("CHILD_SETTID bad", clone3_(&a, sizeof a));
    memset(&a, 0, sizeof a);
    a.set_tid = 0xfacefeedcafebabeULL;  /* an array without its size */
    report("set_tid without size", clone3_(&a, sizeof a));
    memset(&a, 0, sizeof a);
    a.set_tid_size = 33;                /* over MAX_PID_NS_LEVEL */
    report("set_tid_size 33", clone3_(&a, sizeof a));
    return 0;
}
