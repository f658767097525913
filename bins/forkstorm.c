/* forkstorm [N] [live]: a SIGUSR1 handler forks N children (default 200), then main reaps
 * them all. With "live", every child waits on a pipe until all N exist, so N processes are
 * alive at once. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int n = 200, live, forked, failed, fds[2];
static int first_errno;

static void handler(int sig)
{
    (void)sig;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            if (!failed++)
                first_errno = errno;
            continue;
        }
        if (pid == 0) {
            if (live) {
                char c;
                close(fds[1]);
                read(fds[0], &c, 1);          /* end of file once the parent closes its end */
            }
            _exit(i % 7);
        }
        forked++;
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atoi(argv[1]);
    live = argc > 2 && strcmp(argv[2], "live") == 0;
    pipe(fds);
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    close(fds[1]);
    int reaped = 0, sum = 0, st;
    while (wait(&st) > 0) {
        reaped++;
        sum += WEXITSTATUS(st);
    }
    printf("forked %d, failed %d (%s), reaped %d, status sum %d\n", forked, failed,
           failed ? strerror(first_errno) : "-", reaped, sum);
    return 0;
}
