/* inotify: events for what this process and a child do in a scratch directory (argv[1]):
   create, open, write, close, attrib, mkdir, rename (cookies), unlink, rmdir, a watch on a
   file (DELETE_SELF, IGNORED), coalescing, poll, and bad input. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
    printf("%-34s = %ld%s%s\n", what, r_, r_ < 0 ? " " : "", r_ < 0 ? strerrorname_np(errno) : ""); } while (0)

static const struct { unsigned bit; const char *name; } NAMES[] = {
    {IN_ACCESS, "ACCESS"}, {IN_MODIFY, "MODIFY"}, {IN_ATTRIB, "ATTRIB"}, {IN_CLOSE_WRITE, "CLOSE_WRITE"},
    {IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"}, {IN_OPEN, "OPEN"}, {IN_MOVED_FROM, "MOVED_FROM"},
    {IN_MOVED_TO, "MOVED_TO"}, {IN_CREATE, "CREATE"}, {IN_DELETE, "DELETE"},
    {IN_DELETE_SELF, "DELETE_SELF"}, {IN_MOVE_SELF, "MOVE_SELF"}, {IN_Q_OVERFLOW, "Q_OVERFLOW"},
    {IN_IGNORED, "IGNORED"}, {IN_ISDIR, "ISDIR"},
};

static unsigned last_cookie;

static void drain(int fd) {
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            return;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            printf("  wd %d", ev->wd);
            for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
                if (ev->mask & NAMES[i].bit)
                    printf(" %s", NAMES[i].name);
            if (ev->cookie) {
                printf(" cookie %s", ev->cookie == last_cookie ? "same" : "new");
                last_cookie = ev->cookie;
            }
            printf(" len %u name \"%s\"\n", ev->len, ev->len ? ev->name : "");
            p += sizeof *ev + ev->len;
        }
    }
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char f[512], g[512], sub[512];
    snprintf(f, sizeof f, "%s/f", dir);
    snprintf(g, sizeof g, "%s/g", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    for (int fd = 3; fd < 64; fd++)
        close(fd);

    SHOW("init1 bad flags", inotify_init1(1));
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    printf("fd %d cloexec %d\n", in, fcntl(in, F_GETFD));
    SHOW("read, no event", read(in, f, 16));
    SHOW("add_watch mask 0", inotify_add_watch(in, dir, 0));
    SHOW("add_watch bad fd", inotify_add_watch(55, dir, IN_ALL_EVENTS));
    int e = eventfd(0, 0);
    SHOW("add_watch on an eventfd", inotify_add_watch(e, dir, IN_ALL_EVENTS));
    SHOW("add_watch missing path", inotify_add_watch(in, "/no/such/path", IN_ALL_EVENTS));
    SHOW("add_watch wild path", inotify_add_watch(in, (char *)16, IN_ALL_EVENTS));
    SHOW("add_watch ONLYDIR on a file", inotify_add_watch(in, "/etc/passwd", IN_ONLYDIR | IN_OPEN));
    SHOW("MASK_ADD|MASK_CREATE", inotify_add_watch(in, dir, IN_MASK_ADD | IN_MASK_CREATE | IN_OPEN));
    SHOW("rm_watch unknown wd", inotify_rm_watch(in, 99));
    int wd = inotify_add_watch(in, dir, IN_ALL_EVENTS);
    printf("wd %d\n", wd);
    SHOW("the same directory again", inotify_add_watch(in, dir, IN_ALL_EVENTS));
    SHOW("MASK_CREATE on a watched one", inotify_add_watch(in, dir, IN_MASK_CREATE | IN_OPEN));

    int fd = open(f, O_CREAT | O_WRONLY, 0644);
    write(fd, "hello", 5);
    write(fd, "hello", 5);                 /* the same event again: merged */
    close(fd);
    printf("create, write twice, close:\n");
    drain(in);

    struct pollfd p = {in, POLLIN, 0};
    SHOW("poll, nothing queued", poll(&p, 1, 0));
    fd = open(f, O_RDONLY);
    char b[8];
    read(fd, b, sizeof b);
    close(fd);
    SHOW("poll, events queued", poll(&p, 1, 0));
    int queued = -1;
    ioctl(in, FIONREAD, &queued);
    printf("FIONREAD %d\n", queued);
    SHOW("read into 8 bytes", read(in, b, 8));
    printf("open, read, close:\n");
    drain(in);

    chmod(f, 0600);
    mkdir(sub, 0755);
    rename(f, g);
    printf("chmod, mkdir, rename:\n");
    drain(in);

    int fw = inotify_add_watch(in, g, IN_ALL_EVENTS);
    printf("file watch %d\n", fw);
    pid_t pid = fork();
    if (pid == 0) {                         /* a child's changes are seen too */
        truncate(g, 1);
        unlink(g);
        rmdir(sub);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("a child truncates, unlinks, rmdirs:\n");
    drain(in);
    SHOW("rm_watch the ended file watch", inotify_rm_watch(in, fw));
    SHOW("rm_watch", inotify_rm_watch(in, wd));
    drain(in);
    /* reading the watched directory itself */
    wd = inotify_add_watch(in, dir, IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE);
    DIR *d = opendir(dir);
    while (readdir(d))
        ;
    closedir(d);
    printf("opendir, readdir, closedir:\n");
    drain(in);
    /* a rename over a watched file, then the moved file unlinked */
    inotify_rm_watch(in, wd);
    drain(in);
    close(open(f, O_CREAT | O_WRONLY, 0600));
    close(open(g, O_CREAT | O_WRONLY, 0600));
    wd = inotify_add_watch(in, dir, IN_ALL_EVENTS);
    inotify_add_watch(in, f, IN_ALL_EVENTS);
    inotify_add_watch(in, g, IN_ALL_EVENTS);
    rename(f, g);
    unlink(g);
    printf("rename over a watched file, unlink:\n");
    drain(in);
    /* IN_ONESHOT ends after one event; IN_MASK_ADD adds to a watch's mask */
    inotify_rm_watch(in, wd);
    drain(in);
    fd = open(f, O_CREAT | O_WRONLY, 0600);
    int one = inotify_add_watch(in, f, IN_MODIFY | IN_ONESHOT);
    write(fd, "a", 1);
    close(fd);
    fd = open(f, O_WRONLY);
    write(fd, "b", 1);
    printf("oneshot watch %d:\n", one);
    drain(in);
    int add = inotify_add_watch(in, f, IN_CLOSE_WRITE);
    SHOW("MASK_ADD", inotify_add_watch(in, f, IN_ATTRIB | IN_MASK_ADD) == add);
    fchmod(fd, 0644);
    close(fd);
    printf("after MASK_ADD:\n");
    drain(in);
    unlink(f);
    SHOW("inotify_init (old call)", inotify_init() >= 0);
    return 0;
}
