/* heldcall: library calls that are still open at a system call, for the guest log's held
 * calls (emutrace/guestlog.py flush): a read loop over a file (read, lseek, isatty, as bash's
 * read loop), a walk over a directory's files (opendir, readdir, stat, lstat, access, open,
 * fcntl, close, readlink, lgetxattr, write, getcwd: what git status, ls -l or tar make), a
 * signal handler calling library functions while sigprocmask is open (the signal is pending and
 * sigprocmask unblocks it), and, with "thread", a thread reading too.
 * Usage: heldcall [thread|-] [DIR]: DIR is the directory walked (none without it). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *volatile word = "handled";
static volatile size_t seen;

static void handler(int sig)
{
    (void)sig;
    seen += strlen(word);           /* a library call while sigprocmask is open */
    seen += (size_t)abs(-2);
}

static void read_loop(const char *path, int rounds)
{
    char c;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    for (int i = 0; i < rounds; i++) {
        if (read(fd, &c, 1) != 1)
            break;
        lseek(fd, 0, SEEK_CUR);
        isatty(fd);
        seen += strlen(word);
    }
    close(fd);
}

/* the file-walking calls, each of which makes a system call while it is open */
static void walk(const char *dir)
{
    char path[PATH_MAX], link[PATH_MAX];
    struct stat st;
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    int null = open("/dev/null", O_WRONLY);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strlen(dir) + strlen(e->d_name) + 2 > sizeof path)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || stat(path, &st) != 0 || access(path, R_OK) != 0)
            continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            seen += (size_t)fcntl(fd, F_GETFD);
            close(fd);
        }
        ssize_t n = readlink(path, link, sizeof link);
        seen += n < 0 ? 0 : (size_t)n;
        seen += lgetxattr(path, "system.posix_acl_access", NULL, 0) < 0;     /* as ls -l asks */
        seen += write(null, e->d_name, 1) == 1;                             /* as tar writes */
    }
    closedir(d);
    close(null);
    if (getcwd(path, sizeof path) != NULL)
        seen += strlen(path) > 0;
    seen += (size_t)(getpid() > 0) + (size_t)(getuid() == getuid());
    umask(umask(022));
}

static void *reader(void *arg)
{
    read_loop(arg, 20);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *path = argv[0];
    read_loop(path, 20);
    if (argc > 2)
        walk(argv[2]);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    raise(SIGUSR1);
    sigprocmask(SIG_UNBLOCK, &set, NULL);   /* the handler runs before this call returns */

    if (argc > 1 && strcmp(argv[1], "thread") == 0) {
        pthread_t t;
        pthread_create(&t, NULL, reader, (void *)path);
        read_loop(path, 20);
        pthread_join(t, NULL);
    }
    printf("seen %zu\n", (size_t)seen);
    return 0;
}
