/* daemonlim: daemon() after RLIMIT_NOFILE is lowered to the three standard descriptors, so
 * that its open("/dev/null") fails. Prints what open and daemon() report. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    struct rlimit rl = {3, 3};
    setrlimit(RLIMIT_NOFILE, &rl);
    int fd = open("/dev/null", O_RDWR);
    printf("open: %s\n", fd < 0 ? strerror(errno) : "ok");
    printf("dup2 past the limit: %s\n", dup2(1, 5) < 0 ? strerror(errno) : "ok");
    fflush(stdout);
    pid_t parent = getpid();
    int r = daemon(1, 0);             /* keep the cwd; fails in the child: no fd for /dev/null */
    if (r < 0)                        /* glibc fails in the daemon child, musl before it forks */
        printf("daemon in the %s: %s\n", getpid() == parent ? "caller" : "child", strerror(errno));
    return 0;
}
