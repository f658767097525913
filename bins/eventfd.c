/* eventfd: counter and semaphore modes, blocking across threads and processes, poll, bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)

static int efd;

static void *writer(void *arg) {
    uint64_t v = 7;
    usleep(20000);
    write(efd, &v, 8);
    return arg;
}

int main(void) {
    uint64_t v = 0;
    for (int fd = 3; fd < 64; fd++)      /* descriptors the caller left open must not count */
        close(fd);
    efd = eventfd(3, 0);
    printf("fd %d\n", efd);
    SHOW("write 5", write(efd, &(uint64_t){5}, 8));
    SHOW("read", read(efd, &v, 8));
    printf("value %llu\n", (unsigned long long)v);
    SHOW("read 4-byte buffer", read(efd, &v, 4));
    SHOW("write 4 bytes", write(efd, &v, 4));
    SHOW("write 0xffffffffffffffff", write(efd, &(uint64_t){UINT64_MAX}, 8));
    void *volatile wild = (void *)16;
    SHOW("write from wild pointer", write(efd, wild, 8));
    SHOW("pread", pread(efd, &v, 8, 0));
    SHOW("lseek", lseek(efd, 0, SEEK_SET));
    close(efd);

    int sem = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
    SHOW("FD_CLOEXEC", fcntl(sem, F_GETFD));
    SHOW("O_NONBLOCK", fcntl(sem, F_GETFL) & O_NONBLOCK);
    for (int i = 0; i < 3; i++) {
        v = 0;
        long r = read(sem, &v, 8);
        printf("semaphore read %ld value %llu%s\n", r, (unsigned long long)v, r < 0 && errno == EAGAIN ? " EAGAIN" : "");
    }
    struct pollfd p = {sem, POLLIN | POLLOUT, 0};
    SHOW("poll empty", poll(&p, 1, 0));
    printf("revents %#x\n", p.revents);
    write(sem, &(uint64_t){UINT64_MAX - 1}, 8);
    p.revents = 0;
    SHOW("poll full", poll(&p, 1, 0));
    printf("revents %#x\n", p.revents);
    SHOW("write past max (nonblock)", write(sem, &(uint64_t){1}, 8));
    close(sem);

    SHOW("eventfd2 bad flags", syscall(SYS_eventfd2, 0, 0x10));
    SHOW("eventfd (old call)", syscall(SYS_eventfd, 1) >= 0);
    struct stat st;
    int e = eventfd(0, 0);
    fstat(e, &st);
    printf("mode %o\n", st.st_mode);
    char link[64] = {0};
    char path[32];
    snprintf(path, sizeof path, "/proc/self/fd/%d", e);
    readlink(path, link, sizeof link - 1);
    printf("link %s\n", link);

    /* blocking read woken by another thread */
    efd = e;
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    SHOW("blocking read (thread writes)", read(efd, &v, 8));
    printf("value %llu\n", (unsigned long long)v);
    pthread_join(t, NULL);

    /* ... and by a child process */
    pid_t pid = fork();
    if (pid == 0) {
        usleep(10000);
        write(efd, &(uint64_t){11}, 8);
        _exit(0);
    }
    SHOW("blocking read (child writes)", read(efd, &v, 8));
    printf("value %llu\n", (unsigned long long)v);
    waitpid(pid, NULL, 0);

    /* too many: RLIMIT_NOFILE bounds them as any fd */
    struct rlimit rl = {16, 16};
    setrlimit(RLIMIT_NOFILE, &rl);
    int n = 0;
    while (eventfd(0, 0) >= 0)
        n++;
    printf("created %d more, then %s\n", n, strerrorname_np(errno));
    return 0;
}
