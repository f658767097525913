/* sock (hostile): socket(AF_INET, SOCK_STREAM) + connect to HOST:PORT
 *   sock PORT [HOST]      (HOST defaults to 127.0.0.1)
 * Prints "socket: ok|<errno>" and "connect HOST:PORT: ok|<errno>"; when
 * connected it sends "hello from sock\n". */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *errname(int e)
{
#define E(x) case x: return #x;
    switch (e) {
    E(EPERM) E(EACCES) E(ECONNREFUSED) E(ENETUNREACH) E(EHOSTUNREACH)
    E(ETIMEDOUT) E(EAFNOSUPPORT) E(EADDRNOTAVAIL) E(EINVAL) E(ENOSYS)
    E(EPROTONOSUPPORT) E(ENOENT)
    }
#undef E
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", e);
    return buf;
}

int main(int argc, char **argv)
{
    int port = argc > 1 ? atoi(argv[1]) : 9;
    const char *host = argc > 2 ? argv[2] : "127.0.0.1";
    struct sockaddr_in sa;

    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        printf("socket: %s\n", errname(errno));
        return 1;
    }
    printf("socket: ok\n");

    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        printf("bad address %s\n", host);
        return 1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        printf("connect %s:%d: %s\n", host, port, errname(errno));
        close(fd);
        return 1;
    }
    printf("connect %s:%d: ok\n", host, port);
    const char msg[] = "hello from sock\n";
    printf("send = %zd\n", write(fd, msg, sizeof msg - 1));
    close(fd);
    return 0;
}
