/* AF_UNIX names and int-sized flags, as strace's suite probes them (accept, getpeername,
 * recvfrom, recvmsg on a socketpair bound later; dup3 and pipe2 with garbage above bit 31).
 * Prints what the kernel returned: the same lines natively and under emutrace.
 * argv[1]: a scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static void show(const char *what, struct sockaddr_un *a, socklen_t given, socklen_t len)
{
    printf("%s: len %d => %d family %d", what, (int) given, (int) len, a->sun_family);
    if (len > 2 && len <= given)
        printf(" path \"%s\"", a->sun_path);
    else if (len > given && given > 2)      /* cut to the buffer: no NUL in it */
        printf(" path \"%.*s\"", (int) (given - 2), a->sun_path);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || chdir(argv[1]))
        return 2;
    struct sockaddr_un srv = {.sun_family = AF_UNIX, .sun_path = "srv.sock"};
    struct sockaddr_un cli = {.sun_family = AF_UNIX, .sun_path = "cli.sock"};
    int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(l, (void *) &srv, sizeof srv) || listen(l, 1) || bind(c, (void *) &cli, sizeof cli)
        || connect(c, (void *) &srv, sizeof srv))
        return 3;
    struct sockaddr_un a;
    socklen_t len = sizeof a;
    memset(&a, 'A', sizeof a);
    int s = accept(l, (void *) &a, &len);
    show("accept", &a, sizeof a, len);
    len = 6;                                 /* shorter than the name: cut, the full length back */
    memset(&a, 0, sizeof a);
    getpeername(s, (void *) &a, &len);
    show("getpeername short", &a, 6, len);
    len = sizeof a;
    getsockname(s, (void *) &a, &len);
    show("getsockname accepted", &a, sizeof a, len);
    len = sizeof a;
    getpeername(c, (void *) &a, &len);
    show("getpeername client", &a, sizeof a, len);
    char ch;
    write(c, "x", 1);
    len = sizeof a;
    recvfrom(s, &ch, 1, 0, (void *) &a, &len);
    show("recvfrom", &a, sizeof a, len);

    int sv[2];                               /* a pair: nameless until one end is bound */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[1], "y", 1);
    len = sizeof a;
    recvfrom(sv[0], &ch, 1, 0, (void *) &a, &len);
    printf("pair unnamed: len %d\n", (int) len);
    struct sockaddr_un later = {.sun_family = AF_UNIX, .sun_path = "later.sock"};
    bind(sv[1], (void *) &later, sizeof later);
    write(sv[1], "z", 1);
    struct iovec iov = {&ch, 1};
    struct msghdr m = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &iov, .msg_iovlen = 1};
    recvmsg(sv[0], &m, 0);
    show("recvmsg pair bound later", &a, sizeof a, m.msg_namelen);

    /* flags are an int: the register's upper half is not looked at */
    long r = syscall(SYS_dup3, 1, 9, 0xffffffff00000000UL | O_CLOEXEC);
    printf("dup3 high bits: %ld cloexec %d\n", r, fcntl(9, F_GETFD));
    int p[2];
    r = syscall(SYS_pipe2, p, 0xffffffff00000000UL | O_NONBLOCK);
    printf("pipe2 high bits: %ld nonblock %d\n", r, !!(fcntl(p[0], F_GETFL) & O_NONBLOCK));
    unlink("srv.sock"); unlink("cli.sock"); unlink("later.sock");
    return 0;
}
