/* exhaust (hostile): tries to make the kernel hold without bound whatever argv[1] names, and
 * prints the errno that stopped it: "MODE: N units, stopped by ERRNO". `all` runs every mode in
 * one process, keeping what each one got (nothing is freed), to show the host's memory stays
 * bounded with every bound reached at once. Meant to run ONLY under emutrace: natively it fills
 * /tmp, /dev/shm and memory until the real kernel says no.
 *
 * modes: disk unlinked inodes fsize memfd shm truncate pipes files epoll backlog threads procs
 *        forkmem mem all
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char chunk[1 << 20];

static void report(const char *mode, long n, const char *unit, int err)
{
    printf("%s: %ld %s, stopped by %s\n", mode, n, unit, err ? strerrorname_np(err) : "nothing");
    fflush(stdout);
}

/* 1 MiB writes to one overlay file */
static void disk(void)
{
    int fd = open("/tmp/exhaust.disk", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    long n = 0;
    int err = fd < 0 ? errno : 0;
    while (!err) {
        ssize_t w = write(fd, chunk, sizeof chunk);
        if (w < 0)
            err = errno;
        else
            n += w;
    }
    report("disk", n >> 20, "MiB", err);
}

/* files written, unlinked and kept open: their space is not free while they are open */
static void unlinked(void)
{
    long n = 0;
    int err = 0;
    char name[64];
    while (!err) {
        snprintf(name, sizeof name, "/tmp/exhaust.u%ld", n);
        int fd = open(name, O_RDWR | O_CREAT, 0644);
        if (fd < 0) {
            err = errno;
            break;
        }
        unlink(name);
        for (int i = 0; i < 8 && !err; i++)
            if (write(fd, chunk, sizeof chunk) < 0)
                err = errno;
        n++;
    }
    report("unlinked", n, "files", err);
}

/* empty files: metadata only */
static void inodes(void)
{
    long n = 0;
    int err = 0;
    char name[64];
    if (mkdir("/tmp/exhaust.i", 0755) < 0 && errno != EEXIST)
        err = errno;
    while (!err) {
        snprintf(name, sizeof name, "/tmp/exhaust.i/%ld", n);
        int fd = open(name, O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
            err = errno;
        else {
            close(fd);
            n++;
        }
    }
    report("inodes", n, "files", err);
}

static volatile sig_atomic_t got_xfsz;
static void on_xfsz(int sig) { (void)sig; got_xfsz = 1; }

/* RLIMIT_FSIZE: a short write at the limit, then EFBIG and SIGXFSZ */
static void fsize(void)
{
    struct rlimit rl = {1 << 20, 1 << 20};
    signal(SIGXFSZ, on_xfsz);
    setrlimit(RLIMIT_FSIZE, &rl);
    int fd = open("/tmp/exhaust.fsize", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    long n = 0;
    int err = 0;
    while (!err) {
        ssize_t w = write(fd, chunk, 300000);
        if (w < 0)
            err = errno;
        else
            n += w;
    }
    printf("fsize: SIGXFSZ %s\n", got_xfsz ? "caught" : "missing");
    report("fsize", n, "bytes", err);
    rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &rl);
}

static void grow(const char *mode, int fd)
{
    long n = 0;
    int err = fd < 0 ? errno : 0;
    while (!err) {
        if (write(fd, chunk, sizeof chunk) < 0)
            err = errno;
        else
            n++;
    }
    report(mode, n, "MiB", err);
}

static void memfd(void) { grow("memfd", memfd_create("exhaust", 0)); }
static void shm(void) { grow("shm", open("/dev/shm/exhaust", O_RDWR | O_CREAT, 0600)); }

/* a sparse-looking file far past the quota */
/* a 1 TiB sparse file with its last byte written: tmpfs holds one page of it */
static void truncate_big(void)
{
    int fd = open("/tmp/exhaust.trunc", O_RDWR | O_CREAT, 0644);
    int err = ftruncate(fd, 1L << 40) < 0 ? errno : 0;
    struct stat st;
    if (!err && pwrite(fd, "x", 1, (1L << 40) - 1) != 1)
        err = errno;
    if (!err && fstat(fd, &st) == 0)
        printf("truncate: %lld TiB file holding %lld KiB\n", (long long)st.st_size >> 40,
               (long long)st.st_blocks / 2);
    report("truncate", err ? 0 : 1, "TiB", err);
    ftruncate(fd, 0);
}

/* pipes filled to the brim until no more pipes or no more buffer space */
static void pipes(void)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    long n = 0, bytes = 0;
    int err = 0, werr = 0;
    while (!err) {
        int p[2];
        if (pipe2(p, O_NONBLOCK) < 0) {
            err = errno;
            break;
        }
        n++;
        for (int first = 1;; first = 0) {
            ssize_t w = write(p[1], chunk, 65536);
            if (w < 0) {
                if (errno != EAGAIN || first)  /* an empty pipe that takes nothing: all buffers full */
                    werr = errno;
                break;
            }
            bytes += w;
        }
        if (bytes >> 20 >= 1024)        /* far past any default: the bound did not hold */
            break;
        if (werr)
            break;
    }
    printf("pipes: %ld MiB buffered\n", bytes >> 20);
    report("pipes", n, "pipes", err ? err : werr);
}

/* open file descriptions, with RLIMIT_NOFILE raised to its hard limit */
static void files(void)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    long n = 0;
    int err = 0;
    while (!err) {
        if (open("/dev/null", O_RDONLY) < 0)
            err = errno;
        else
            n++;
    }
    report("files", n, "fds", err);
}

/* many epoll sets watching the same descriptors */
static void epoll(void)
{
    int fds[256];
    long n = 0;
    int err = 0;
    for (int i = 0; i < 256; i++)
        fds[i] = open("/dev/null", O_RDONLY);
    while (!err) {
        int ep = epoll_create1(0);
        if (ep < 0) {
            err = errno;
            break;
        }
        for (int i = 0; i < 256 && !err; i++) {
            struct epoll_event ev = {.events = EPOLLIN, .data.fd = fds[i]};
            if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0)
                err = errno;
            else
                n++;
        }
    }
    report("epoll", n, "watches", err);
}

/* connections nobody accepts */
static void backlog(void)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "/tmp/exhaust.sock");
    unlink(a.sun_path);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    long n = 0;
    int err = 0;
    if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1 << 30) < 0)
        err = errno;
    while (!err) {
        int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) < 0)
            err = errno;
        else
            n++;
        if (c >= 0 && err)
            close(c);
    }
    report("backlog", n, "connections", err);
}

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void threads(void)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 65536);
    long n = 0;
    int err = 0;
    while (!err) {
        pthread_t t;
        err = pthread_create(&t, &at, idle, NULL);
        if (!err)
            n++;
    }
    report("threads", n, "threads", err);
}

static void procs(void)
{
    long n = 0;
    int err = 0;
    while (!err) {
        pid_t p = fork();
        if (p < 0)
            err = errno;
        else if (p == 0) {
            for (;;)
                pause();
        } else
            n++;
    }
    report("procs", n, "children", err);
    signal(SIGTERM, SIG_IGN);
    kill(0, SIGTERM);                  /* only ever our own children: we run under emutrace */
    while (wait(NULL) > 0)
        ;
}

/* 1 MiB private anonymous mappings, each written all over, until mmap says no or `max` are
 * held (0: no end); kept */
static long grab(int *err, long max)
{
    long n = 0;
    while (!max || n < max) {
        char *p = mmap(NULL, sizeof chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            *err = errno;
            return n;
        }
        memcpy(p, chunk, sizeof chunk);
        n++;
    }
    return n;
}

static void mem(void)
{
    int err = 0;
    long n = grab(&err, 0);
    report("mem", n, "MiB", err);
}

/* children that each take 32 MiB (or what they can get) and keep it, until fork says no: one
 * bound on memory must hold for all the processes together, not for each one */
static void forkmem(void)
{
    long n = 0, total = 0;
    int err = 0, up[2];
    if (pipe(up) != 0) {
        report("forkmem", 0, "children", errno);
        return;
    }
    while (!err) {
        pid_t p = fork();
        if (p < 0) {
            err = errno;
        } else if (p == 0) {
            int e = 0;
            signal(SIGTERM, SIG_DFL);  /* (`all`: procs left it ignored) */
            long got = grab(&e, 32);       /* 32 MiB each: many children */
            write(up[1], &got, sizeof got);
            for (;;)
                pause();
        } else {
            long got = 0;
            if (read(up[0], &got, sizeof got) == sizeof got)
                total += got;
            n++;
        }
    }
    printf("forkmem: %ld children holding %ld MiB\n", n, total);
    report("forkmem", n, "children", err);
    signal(SIGTERM, SIG_IGN);
    kill(0, SIGTERM);                  /* only ever our own children: we run under emutrace */
    while (wait(NULL) > 0)
        ;
    signal(SIGTERM, SIG_DFL);
}

/* POSIX timers and timerfds, until the kernel's bound on timer objects says no */
static void timers(void)
{
    long n = 0;
    int err = 0;
    struct sigevent ev = {.sigev_notify = SIGEV_NONE};
    for (;;) {
        timer_t t;
        if (n % 2 ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) < 0 : timer_create(CLOCK_MONOTONIC, &ev, &t) != 0) {
            err = errno;
            break;
        }
        n++;
    }
    report("timers", n, "timers", err);
}

/* SysV message queues (IPC ids), until the kernel's bound on such objects says no */
static void kobjects(void)
{
    long n = 0;
    int err = 0;
    for (;;) {
        if (msgget(IPC_PRIVATE, IPC_CREAT | 0600) < 0) {
            err = errno;
            break;
        }
        n++;
    }
    report("kobjects", n, "queues", err);
}

static const struct {
    const char *name;
    void (*run)(void);
} MODES[] = {
    {"disk", disk}, {"unlinked", unlinked}, {"inodes", inodes}, {"fsize", fsize}, {"memfd", memfd},
    {"shm", shm}, {"truncate", truncate_big}, {"pipes", pipes}, {"epoll", epoll}, {"backlog", backlog},
    {"threads", threads}, {"procs", procs}, {"forkmem", forkmem}, {"timers", timers},
    {"kobjects", kobjects},
    {"mem", mem},        /* mem next to last: what follows needs no more guest memory */
    {"files", files},    /* files last: it takes every fd */
};

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    memset(chunk, 'x', sizeof chunk);
    int found = 0;
    for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++)
        if (!strcmp(mode, "all") || !strcmp(mode, MODES[i].name)) {
            MODES[i].run();
            found = 1;
        }
    if (!found) {
        fprintf(stderr, "exhaust: unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
