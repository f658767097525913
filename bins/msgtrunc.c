/* Truncated datagrams: recvmsg's msg_flags MSG_TRUNC, and the MSG_TRUNC flag that makes
   recv/recvfrom/recvmsg return a datagram's real length, over UDP on 127.0.0.1 and over
   AF_UNIX SOCK_DGRAM and SOCK_SEQPACKET socket pairs; TCP's MSG_TRUNC discards bytes. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void show_msg(const char *what, int fd, int flags, size_t room)
{
    char buf[64];
    struct iovec iov = { buf, room };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_flags = 0x7fff0000;        /* garbage in: the kernel always writes msg_flags */
    memset(buf, 0, sizeof buf);
    ssize_t n = recvmsg(fd, &m, flags);
    printf("%s: recvmsg(room %zu%s) = %zd flags=%#x data=\"%.*s\"\n", what, room,
           flags & MSG_TRUNC ? ", MSG_TRUNC" : "", n, m.msg_flags,
           (int)(n < 0 ? 0 : (size_t)n < room ? (size_t)n : room), buf);
}

static void show_recv(const char *what, int fd, int flags, size_t room)
{
    char buf[64];
    memset(buf, 0, sizeof buf);
    ssize_t n = recv(fd, buf, room, flags);
    printf("%s: recv(room %zu%s%s) = %zd data=\"%.*s\"\n", what, room,
           flags & MSG_TRUNC ? ", MSG_TRUNC" : "", flags & MSG_PEEK ? ", MSG_PEEK" : "", n,
           (int)(n < 0 ? 0 : (size_t)n < room ? (size_t)n : room), buf);
}

static void datagrams(const char *what, int a, int b)
{
    send(a, "twenty-six letters a to z", 25, 0);
    show_msg(what, b, 0, 6);                   /* truncated: MSG_TRUNC in msg_flags, 6 back */
    send(a, "short", 5, 0);
    show_msg(what, b, 0, 16);                  /* fits: no flag */
    send(a, "the whole length", 16, 0);
    show_msg(what, b, MSG_TRUNC, 4);           /* the flag: the real length comes back */
    send(a, "peeked then read", 16, 0);
    show_recv(what, b, MSG_PEEK | MSG_TRUNC, 3);
    show_recv(what, b, MSG_TRUNC, 3);
    send(a, "one", 3, 0);
    send(a, "two", 3, 0);
    show_recv(what, b, 0, 2);                  /* the rest of "one" is gone, "two" is next */
    show_recv(what, b, 0, 8);
    send(a, "", 0, 0);
    show_msg(what, b, 0, 8);                   /* an empty datagram is one too */
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    datagrams("unix dgram", sv[0], sv[1]);
    close(sv[0]);
    close(sv[1]);
    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
    datagrams("unix seqpacket", sv[0], sv[1]);
    close(sv[0]);
    show_msg("unix seqpacket after close", sv[1], 0, 8);
    close(sv[1]);

    int u = socket(AF_INET, SOCK_DGRAM, 0), c = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sa;
    bind(u, (struct sockaddr *)&sa, sizeof sa);
    getsockname(u, (struct sockaddr *)&sa, &len);
    connect(c, (struct sockaddr *)&sa, sizeof sa);
    datagrams("udp", c, u);
    char small[4];
    struct sockaddr_in from;
    len = sizeof from;
    send(c, "from whom", 9, 0);
    ssize_t n = recvfrom(u, small, sizeof small, MSG_TRUNC, (struct sockaddr *)&from, &len);
    printf("udp: recvfrom(room 4, MSG_TRUNC) = %zd from 127.0.0.1? %d\n", n,
           from.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
    close(u);
    close(c);

    int l = socket(AF_INET, SOCK_STREAM, 0);
    sa.sin_port = 0;
    bind(l, (struct sockaddr *)&sa, sizeof sa);
    listen(l, 1);
    len = sizeof sa;
    getsockname(l, (struct sockaddr *)&sa, &len);
    int t = socket(AF_INET, SOCK_STREAM, 0);
    connect(t, (struct sockaddr *)&sa, sizeof sa);
    int s = accept(l, NULL, NULL);
    send(t, "discard-me|keep", 15, 0);
    usleep(10000);
    show_recv("tcp", s, MSG_TRUNC, 11);        /* TCP: the bytes are dropped, not copied */
    show_msg("tcp", s, 0, 16);
    close(t);
    close(s);
    close(l);

    /* a blocking AF_UNIX recv waits for the peer, whatever the socket type */
    int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
    for (int i = 0; i < 3; i++) {
        socketpair(AF_UNIX, types[i], 0, sv);
        pid_t pid = fork();
        if (pid == 0) {
            usleep(20000);
            send(sv[1], "late", 4, 0);
            _exit(0);
        }
        char b[8];
        ssize_t got = recv(sv[0], b, sizeof b, 0);
        printf("type %d: blocking recv = %zd \"%.*s\"\n", types[i], got, (int)(got > 0 ? got : 0), b);
        waitpid(pid, NULL, 0);
        close(sv[0]);
        close(sv[1]);
    }

    /* the peer gone: SOCK_DGRAM has no end of file and refuses once, then is not connected;
       SOCK_SEQPACKET and SOCK_STREAM read end of file and get EPIPE */
    signal(SIGPIPE, SIG_IGN);
    for (int i = 0; i < 3; i++) {
        socketpair(AF_UNIX, types[i], 0, sv);
        send(sv[1], "x", 1, 0);
        close(sv[1]);
        char b[4];
        ssize_t r[4];
        int e[4];
        r[0] = recv(sv[0], b, 4, MSG_DONTWAIT), e[0] = errno;
        r[1] = recv(sv[0], b, 4, MSG_DONTWAIT), e[1] = errno;
        r[2] = send(sv[0], "y", 1, 0), e[2] = errno;
        r[3] = send(sv[0], "y", 1, 0), e[3] = errno;
        printf("type %d, peer gone:", types[i]);
        for (int k = 0; k < 4; k++)
            printf(" %zd %s", r[k], r[k] < 0 ? strerrorname_np(e[k]) : "");
        printf("\n");
        close(sv[0]);
    }
    return 0;
}
