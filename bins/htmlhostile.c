/* hostile: puts markup, script, javascript: URLs, NUL bytes and invalid UTF-8 into every field
 * of the behaviour report (tests/test_report_html.py): the HTML page must escape all of it and run
 * none of it. NEVER run it natively: it writes under /tmp and /etc.
 * argv and the environment come from the test; it adds paths, file names and contents, an
 * execve attempt, a socket path, a host name, compared strings, a process name, and strings
 * left in memory at exit. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define EVIL "<script>alert('x')</script></style><img src=x onerror=alert(1)>javascript:alert(1)"
static char *volatile keep;

static void put(const char *path, const char *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        write(fd, data, n);
        close(fd);
    }
}

int main(int argc, char **argv)
{
    static const char content[] = EVIL "\0\xff\xfe\x80 bad utf-8 \xc3\x28 </textarea><!-- -->";
    mkdir("/tmp/<script>", 0755);
    put("/tmp/<script>/alert(1).html", content, sizeof content);
    put("/tmp/javascript:alert(1)", content, sizeof content);
    put("/tmp/\xff\xfe</style>\x01", content, sizeof content);
    put("/etc/cron.d/<script>alert(2)</script>", "* * * * * root javascript:alert(3)\n", 36);
    prctl(PR_SET_NAME, "<b>x</b>", 0, 0, 0);
    if (strcmp(argc > 1 ? argv[1] : "", "</style><script>alert(4)</script>") == 0)
        puts("matched");
    struct addrinfo *ai = NULL;
    if (getaddrinfo("<script>alert(5)</script>.example", "80", NULL, &ai) == 0) freeaddrinfo(ai);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    strcpy(un.sun_path, "/run/<script>alert(6)</script>\xff");
    connect(s, (struct sockaddr *)&un, sizeof un);
    keep = strdup("leftover <script>alert(7)</script> javascript:alert(8) in memory");
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"<script>alert(9)</script>", "\xff\xfe", "javascript:alert(10)", NULL};
        char *env[] = {"X=</style><script>alert(11)</script>", NULL};
        execve("/tmp/<script>/missing\xff", args, env);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
    return 0;
}
