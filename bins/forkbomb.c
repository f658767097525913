/* forkbomb: hostile (run only under emutrace). Every process forks as fast as it can, and every
 * child does the same, until a fork fails; then it waits for its own children and exits. The first
 * process prints how its own forks ended and how many processes the whole tree made (counted
 * through a MAP_SHARED counter). Under a process limit the tree must end by itself with EAGAIN
 * (or ENOMEM), the host's memory inside the bound. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    long *made = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (made == MAP_FAILED)
        return 2;
    pid_t root = getpid();
    int err = 0;
    for (;;) {
        pid_t p = fork();
        if (p < 0) {
            err = errno;
            break;
        }
        if (p > 0)
            __atomic_add_fetch(made, 1, __ATOMIC_RELAXED);
        /* parent and child alike go on forking */
    }
    while (wait(NULL) > 0)
        ;
    if (getpid() == root)
        printf("forkbomb: stopped by %s after %s processes\n",
               err == EAGAIN ? "EAGAIN" : err == ENOMEM ? "ENOMEM" : strerror(err),
               *made > 8 ? "more than 8" : "at most 8");
    return 0;
}
