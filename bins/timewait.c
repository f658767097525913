/* TCP TIME_WAIT on the loopback: the side that closes first keeps its port for 2*MSL (60 s on
   Linux) after the connection ends, so a bind to it without SO_REUSEADDR is EADDRINUSE; a
   connection reset (close with unread data) leaves no TIME_WAIT. argv[1] "wait": also sleep
   past the 60 s (cheap on a virtual clock) and bind again. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in at(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    return a;
}

static int port_of(int fd)
{
    struct sockaddr_in a;
    socklen_t n = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &n);
    return ntohs(a.sin_port);
}

static const char *try_bind(int port, int reuse)
{
    static char buf[4][32];
    static int i;
    i = (i + 1) % 4;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
    struct sockaddr_in a = at(port);
    int r = bind(s, (struct sockaddr *)&a, sizeof a);
    snprintf(buf[i], sizeof buf[i], "%s", r == 0 ? "ok" : strerrorname_np(errno));
    close(s);
    return buf[i];
}

/* one connection; who closes first; returns the server's and the client's ports */
static void connection(int listener_reuse, int server_first, int unread, int *sport, int *cport)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &listener_reuse, sizeof listener_reuse);
    struct sockaddr_in a = at(0);
    bind(l, (struct sockaddr *)&a, sizeof a);
    listen(l, 1);
    *sport = port_of(l);
    a = at(*sport);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    connect(c, (struct sockaddr *)&a, sizeof a);
    *cport = port_of(c);
    int s = accept(l, NULL, NULL);
    write(c, "hi", 2);
    char b[2];
    if (!unread)
        read(s, b, 2);
    if (server_first) {
        close(s);
        usleep(1000);
        close(c);
    } else {
        close(c);
        usleep(1000);
        close(s);
    }
    close(l);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int sp, cp;
    connection(0, 1, 0, &sp, &cp);
    printf("server closed first: server port %s, with SO_REUSEADDR %s; client port %s\n",
           try_bind(sp, 0), try_bind(sp, 1), try_bind(cp, 0));
    int spr, cpr;
    connection(1, 1, 0, &spr, &cpr);
    printf("listener had SO_REUSEADDR: server port %s, with SO_REUSEADDR %s\n",
           try_bind(spr, 0), try_bind(spr, 1));
    int sp2, cp2;
    connection(0, 0, 0, &sp2, &cp2);
    printf("client closed first: client port %s, with SO_REUSEADDR %s; server port %s\n",
           try_bind(cp2, 0), try_bind(cp2, 1), try_bind(sp2, 0));
    int sp3, cp3;
    connection(0, 1, 1, &sp3, &cp3);
    printf("server reset the connection: server port %s, client port %s\n",
           try_bind(sp3, 0), try_bind(cp3, 0));
    /* a listener on the port in TIME_WAIT, the way a restarted server does it */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = at(spr);
    const char *bound = bind(l, (struct sockaddr *)&a, sizeof a) == 0 ? "ok" : strerrorname_np(errno);
    printf("restarted server (SO_REUSEADDR) binds %s, ", bound);
    printf("listens %s\n", listen(l, 1) == 0 ? "ok" : strerrorname_np(errno));
    close(l);
    /* a socket in TIME_WAIT does not refuse connections: nothing listens, so RST */
    int c = socket(AF_INET, SOCK_STREAM, 0);
    a = at(sp);
    printf("connect to the TIME_WAIT port: %s\n",
           connect(c, (struct sockaddr *)&a, sizeof a) == 0 ? "ok" : strerrorname_np(errno));
    close(c);
    if (argc > 1 && strcmp(argv[1], "wait") == 0) {
        sleep(30);
        printf("30 s later: server port %s\n", try_bind(sp, 0));
        sleep(31);
        printf("61 s later: server port %s, client port %s\n", try_bind(sp, 0), try_bind(cp2, 0));
    }
    return 0;
}
