/* splice, tee, vmsplice between pipes, files in a scratch directory (argv[1]) and memory;
   blocking across processes; bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)

static void drain(const char *what, int fd) {
    char buf[64] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    printf("%s: %zd \"%s\"\n", what, n, n > 0 ? buf : "");
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/in.txt", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    for (int fd = 3; fd < 64; fd++)
        close(fd);
    int f = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(f, "hello world", 11);
    int p[2], q[2];
    pipe(p);
    pipe(q);

    loff_t off = 6;
    SHOW("splice file@6 -> pipe", splice(f, &off, p[1], NULL, 5, 0));
    printf("offset now %lld, file position %lld\n", (long long)off, (long long)lseek(f, 0, SEEK_CUR));
    SHOW("tee pipe -> pipe", tee(p[0], q[1], 100, 0));
    drain("copy", q[0]);
    int o = open(out, O_CREAT | O_RDWR | O_TRUNC, 0644);
    SHOW("splice pipe -> file", splice(p[0], NULL, o, NULL, 100, 0));
    char got[6] = {0};
    pread(o, got, 5, 0);
    printf("file has \"%s\"\n", got);
    lseek(f, 0, SEEK_SET);
    SHOW("splice file (position) -> pipe", splice(f, NULL, p[1], NULL, 5, SPLICE_F_MORE));
    printf("file position %lld\n", (long long)lseek(f, 0, SEEK_CUR));
    SHOW("splice pipe -> pipe", splice(p[0], NULL, q[1], NULL, 3, 0));
    drain("moved", q[0]);
    drain("left", p[0]);
    SHOW("splice at end of file", splice(f, &(loff_t){11}, p[1], NULL, 5, 0));

    /* vmsplice both ways */
    struct iovec iv[2] = {{"abc", 3}, {"defg", 4}};
    SHOW("vmsplice into the pipe", vmsplice(p[1], iv, 2, 0));
    char x[3] = {0}, y[8] = {0};
    struct iovec ov[2] = {{x, 2}, {y, 7}};
    SHOW("vmsplice out of the pipe", vmsplice(p[0], ov, 2, 0));
    printf("got \"%.2s\" \"%s\"\n", x, y);

    /* bad input */
    SHOW("len 0", splice(99, NULL, 98, NULL, 0, 0));
    SHOW("bad flags", splice(f, NULL, p[1], NULL, 1, 0x10));
    SHOW("bad fd", splice(99, NULL, p[1], NULL, 1, 0));
    SHOW("no pipe", splice(f, NULL, o, NULL, 1, 0));
    SHOW("offset on the pipe side", splice(p[0], &off, o, NULL, 1, 0));
    SHOW("one pipe both ends", splice(p[0], NULL, p[1], NULL, 1, 0));
    SHOW("pipe write end as input", splice(p[1], NULL, o, NULL, 1, 0));
    SHOW("empty pipe, SPLICE_F_NONBLOCK", splice(p[0], NULL, o, NULL, 1, SPLICE_F_NONBLOCK));
    SHOW("negative offset", splice(f, &(loff_t){-1}, p[1], NULL, 1, 0));
    SHOW("wild offset pointer", splice(f, (loff_t *)16, p[1], NULL, 1, 0));
    int a = open(out, O_WRONLY | O_APPEND);
    write(p[1], "z", 1);
    SHOW("into an O_APPEND file", splice(p[0], NULL, a, NULL, 1, 0));
    read(p[0], x, 1);
    SHOW("tee from a file", tee(f, q[1], 1, 0));
    SHOW("tee one pipe", tee(p[0], p[1], 1, 0));
    SHOW("tee empty, non-blocking", tee(p[0], q[1], 1, SPLICE_F_NONBLOCK));
    SHOW("vmsplice on a file", vmsplice(f, iv, 1, 0));
    SHOW("vmsplice 1025 segments", vmsplice(p[1], iv, 1025, 0));

    /* a blocking splice woken by a child's write */
    pid_t pid = fork();
    if (pid == 0) {
        usleep(10000);
        write(p[1], "late", 4);
        _exit(0);
    }
    SHOW("blocking splice (child writes)", splice(p[0], NULL, q[1], NULL, 10, 0));
    drain("got", q[0]);
    waitpid(pid, NULL, 0);
    close(p[1]);
    SHOW("splice, no writer left", splice(p[0], NULL, q[1], NULL, 10, 0));
    return 0;
}
