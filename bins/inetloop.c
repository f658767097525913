#define _GNU_SOURCE
/* inetloop: TCP and UDP over 127.0.0.1 and ::1 between processes and threads.
 * Prints only what is the same on every Linux (no port numbers), so its output can be
 * compared with a native run.
 *   inetloop            the loopback checks
 *   inetloop ADDR PORT  one connect to ADDR:PORT (IPv4), printing its errno name
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *en(int e)
{
#define E(x) case x: return #x;
    switch (e) {
    E(EADDRINUSE) E(EADDRNOTAVAIL) E(ECONNREFUSED) E(ECONNRESET) E(ENETUNREACH) E(EPIPE)
    E(EINPROGRESS) E(EAGAIN) E(ENOTCONN) E(EISCONN) E(EINVAL) E(EAFNOSUPPORT) E(EDESTADDRREQ)
    E(EOPNOTSUPP) E(EBADF) E(ENOTSOCK) E(EFAULT) E(EHOSTUNREACH) E(ETIMEDOUT)
    case 0: return "ok";
    }
#undef E
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", e);
    return buf;
}

#define R(call) ((call) < 0 ? en(errno) : "ok")

static struct sockaddr_in v4(const char *ip, int port)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    inet_pton(AF_INET, ip, &sa.sin_addr);
    return sa;
}

static int port_of(int fd)
{
    struct sockaddr_storage ss;
    socklen_t n = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &n);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static const char *name_of(int fd, int peer)
{
    static char buf[64];
    struct sockaddr_storage ss;
    socklen_t n = sizeof ss;
    if ((peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &n) < 0)
        return en(errno);
    if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, sizeof buf);
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf, sizeof buf);
    int port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    strcat(buf, port >= 32768 && port <= 60999 ? " ephemeral" : port ? " fixed" : " 0");
    return buf;
}

static int listener(int backlog)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = v4("127.0.0.1", 0);
    bind(s, (struct sockaddr *)&sa, sizeof sa);
    listen(s, backlog);
    return s;
}

/* a server process and a client process; the client half-closes, the server answers after EOF */
static void tcp_fork(void)
{
    int s = listener(8);
    int port = port_of(s);
    pid_t pid = fork();
    if (pid == 0) {
        close(s);
        int c = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = v4("127.0.0.1", port);
        /* what the child saw is printed once the server has answered, after the server's own
           lines: the two processes' output then has one order, natively too */
        char seen[512];
        int k = snprintf(seen, sizeof seen, "child connect: %s\n", R(connect(c, (struct sockaddr *)&sa, sizeof sa)));
        snprintf(seen + k, sizeof seen - k, "child local %s, peer %s\n", name_of(c, 0), name_of(c, 1));
        write(c, "request line 1\n", 15);
        write(c, "request line 2\n", 15);
        shutdown(c, SHUT_WR);
        char buf[256];
        ssize_t n, total = 0;
        while ((n = read(c, buf + total, sizeof buf - 1 - total)) > 0)
            total += n;
        buf[total] = 0;
        printf("%schild got %zd bytes: %s", seen, total, buf);
        close(c);
        fflush(stdout);
        _exit(0);
    }
    int a = accept4(s, NULL, NULL, SOCK_CLOEXEC);
    printf("accepted: local %s, peer %s\n", name_of(a, 0), name_of(a, 1));
    char buf[256];
    ssize_t n, total = 0;
    while ((n = read(a, buf + total, sizeof buf - 1 - total)) > 0)
        total += n;
    buf[total] = 0;
    printf("server read %zd bytes until EOF\n", total);
    struct pollfd p = {a, POLLIN | POLLOUT | POLLRDHUP, 0};
    poll(&p, 1, 0);
    printf("after half-close: POLLIN=%d POLLOUT=%d POLLRDHUP=%d POLLHUP=%d\n", !!(p.revents & POLLIN),
           !!(p.revents & POLLOUT), !!(p.revents & POLLRDHUP), !!(p.revents & POLLHUP));
    dprintf(a, "reply to %zd bytes\n", total);
    close(a);
    int st;
    waitpid(pid, &st, 0);
    fflush(stdout);
    printf("child status %d\n", WEXITSTATUS(st));
    close(s);
}

static void refused_and_reuse(void)
{
    int s = listener(1);
    int port = port_of(s);
    close(s);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = v4("127.0.0.1", port);
    printf("connect to a closed port: %s\n", R(connect(c, (struct sockaddr *)&sa, sizeof sa)));
    close(c);

    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    printf("non-blocking connect to a closed port: %s\n", R(connect(c, (struct sockaddr *)&sa, sizeof sa)));
    struct pollfd p = {c, POLLOUT, 0};
    poll(&p, 1, 1000);
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
    printf("  poll POLLERR=%d POLLHUP=%d, SO_ERROR %s\n", !!(p.revents & POLLERR), !!(p.revents & POLLHUP), en(err));
    close(c);

    int a = socket(AF_INET, SOCK_STREAM, 0), b = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in any = v4("127.0.0.1", 0);
    bind(a, (struct sockaddr *)&any, sizeof any);
    sa = v4("127.0.0.1", port_of(a));
    printf("second bind, no SO_REUSEADDR: %s\n", R(bind(b, (struct sockaddr *)&sa, sizeof sa)));
    close(a);
    close(b);
    int one = 1;
    a = socket(AF_INET, SOCK_STREAM, 0);
    b = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(a, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(b, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    bind(a, (struct sockaddr *)&any, sizeof any);
    sa = v4("127.0.0.1", port_of(a));
    printf("second bind, both SO_REUSEADDR: %s\n", R(bind(b, (struct sockaddr *)&sa, sizeof sa)));
    printf("listen a: %s, listen b: %s\n", R(listen(a, 1)), R(listen(b, 1)));
    close(a);
    close(b);

    struct sockaddr_in other = v4("127.0.0.1", 0);
    c = socket(AF_INET, SOCK_STREAM, 0);
    const char *r = R(bind(c, (struct sockaddr *)&other, sizeof other));
    printf("bind 127.0.0.1:0: %s, %s\n", r, name_of(c, 0));
    printf("getpeername unconnected: %s\n", name_of(c, 1));
    printf("second bind: %s\n", R(bind(c, (struct sockaddr *)&other, sizeof other)));
    close(c);
}

/* backlog 1: Linux queues backlog+1 connections; the next waits until accept makes room */
static void backlog(void)
{
    int s = listener(1);
    struct sockaddr_in sa = v4("127.0.0.1", port_of(s));
    int c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        const char *r = R(connect(c[i], (struct sockaddr *)&sa, sizeof sa));
        struct pollfd p = {c[i], POLLOUT, 0};
        poll(&p, 1, 100);
        printf("connect %d: %s, writable %d\n", i, r, !!(p.revents & POLLOUT));
    }
    for (int i = 0; i < 2; i++) {
        int a = accept(s, NULL, NULL);
        printf("accept %d: %s\n", i, a >= 0 ? "ok" : en(errno));
        close(a);
    }
    for (int i = 0; i < 3; i++)
        close(c[i]);
    close(s);
}

static void reset(void)
{
    int s = listener(4);
    struct sockaddr_in sa = v4("127.0.0.1", port_of(s));
    int c = socket(AF_INET, SOCK_STREAM, 0);
    connect(c, (struct sockaddr *)&sa, sizeof sa);
    int a = accept(s, NULL, NULL);
    write(c, "never read", 10);
    close(a);                                   /* unread data: RST */
    char buf[16];
    ssize_t n = read(c, buf, sizeof buf);
    printf("read after RST: %s\n", n < 0 ? en(errno) : "data");
    n = read(c, buf, sizeof buf);
    printf("read again: %zd\n", n);
    close(c);

    c = socket(AF_INET, SOCK_STREAM, 0);
    connect(c, (struct sockaddr *)&sa, sizeof sa);
    a = accept(s, NULL, NULL);
    close(a);                                   /* FIN: the first write gets an RST back */
    signal(SIGPIPE, SIG_IGN);
    const char *r1 = R(write(c, "x", 1));
    usleep(10000);
    const char *r2 = R(write(c, "x", 1));
    const char *r3 = R(write(c, "x", 1));
    printf("writes to a closed peer: %s %s %s\n", r1, r2, r3);
    close(c);
    close(s);
}

static int udp_server;

static void *udp_thread(void *arg)
{
    (void)arg;
    char buf[64];
    struct sockaddr_in from;
    for (int i = 0; i < 3; i++) {
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(udp_server, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
        sendto(udp_server, buf, n, 0, (struct sockaddr *)&from, fl);
    }
    return NULL;
}

static void udp(void)
{
    udp_server = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = v4("127.0.0.1", 0);
    bind(udp_server, (struct sockaddr *)&sa, sizeof sa);
    sa = v4("127.0.0.1", port_of(udp_server));
    pthread_t t;
    pthread_create(&t, NULL, udp_thread, NULL);
    int c = socket(AF_INET, SOCK_DGRAM, 0);
    printf("udp send before bind: %s\n", R(send(c, "x", 1, 0)));
    for (int i = 0; i < 3; i++) {
        char msg[32], buf[64];
        int len = snprintf(msg, sizeof msg, "datagram %d", i);
        sendto(c, msg, len, 0, (struct sockaddr *)&sa, sizeof sa);
        ssize_t n = recv(c, buf, i == 2 ? 4 : sizeof buf, i == 2 ? MSG_TRUNC : 0);
        printf("udp echo %d: %zd bytes\n", i, n);
    }
    pthread_join(t, NULL);
    printf("udp client %s\n", name_of(c, 0));
    close(udp_server);
    /* a connected UDP socket hears "port unreachable" as ECONNREFUSED */
    printf("udp connect: %s\n", R(connect(c, (struct sockaddr *)&sa, sizeof sa)));
    send(c, "x", 1, 0);
    char buf[4];
    struct pollfd p = {c, POLLIN, 0};
    poll(&p, 1, 1000);
    printf("udp to a closed port: POLLERR=%d, recv %s\n", !!(p.revents & POLLERR), R(recv(c, buf, sizeof buf, 0)));
    close(c);
}

static void v6_epoll(void)
{
    int s = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 sa;
    memset(&sa, 0, sizeof sa);
    sa.sin6_family = AF_INET6;
    sa.sin6_addr = in6addr_any;
    bind(s, (struct sockaddr *)&sa, sizeof sa);
    listen(s, 4);
    int port = port_of(s);
    /* a dual-stack listener on :: takes IPv4 connections too */
    int c4 = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa4 = v4("127.0.0.1", port);
    printf("v4 to a v6 listener: %s\n", R(connect(c4, (struct sockaddr *)&sa4, sizeof sa4)));
    int c6 = socket(AF_INET6, SOCK_STREAM, 0);
    sa.sin6_addr = in6addr_loopback;
    sa.sin6_port = htons(port);
    const char *r = R(connect(c6, (struct sockaddr *)&sa, sizeof sa));
    printf("v6 connect to ::1: %s, local %s\n", r, name_of(c6, 0));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = s};
    epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
    for (int i = 0; i < 2; i++) {
        struct epoll_event out;
        int n = epoll_wait(ep, &out, 1, 1000);
        int a = accept(s, NULL, NULL);
        printf("epoll %d: %d ready, accepted from %s\n", i, n, name_of(a, 1));
        close(a);
    }
    close(ep);
    close(c4);
    close(c6);
    close(s);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 2) {
        int c = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = v4(argv[1], atoi(argv[2]));
        printf("connect %s: %s\n", argv[1], R(connect(c, (struct sockaddr *)&sa, sizeof sa)));
        int u = socket(AF_INET, SOCK_DGRAM, 0);
        printf("sendto %s: %s\n", argv[1], R(sendto(u, "x", 1, 0, (struct sockaddr *)&sa, sizeof sa)));
        struct sockaddr_in b = v4(argv[1], 0);
        printf("bind %s: %s\n", argv[1], R(bind(u, (struct sockaddr *)&b, sizeof b)));
        return 0;
    }
    tcp_fork();
    refused_and_reuse();
    backlog();
    reset();
    udp();
    v6_epoll();
    return 0;
}
