/* stdio_id: what the guest sees of its standard streams and of file times.
 * For each of fd 0, 1, 2: the fstat type, inode, device, times and where /proc/self/fd/N
 * leads (readlink, then stat through it, as `stat -L` does). Then every time it sees (stat
 * of ".", "/", /etc files, its own binary, each argv path) against time(0): "future" lines
 * mean a file looked newer than the clock. Exits 1 if any did. Output goes to stderr, so
 * stdout can be a file, a pipe or /dev/null alike. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int check(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    time_t now = time(NULL);
    if (st.st_mtime > now || st.st_ctime > now || st.st_atime > now) {
        fprintf(stderr, "future %s: mtime %ld ctime %ld atime %ld > time %ld\n", path, (long)st.st_mtime,
                (long)st.st_ctime, (long)st.st_atime, (long)now);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    for (int fd = 0; fd < 3; fd++) {
        struct stat st, via;
        char link[64], target[256] = "";
        fstat(fd, &st);
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        int ok = stat(link, &via) == 0 && via.st_ino == st.st_ino && via.st_dev == st.st_dev;
        fprintf(stderr, "fd %d: mode %o ino %lu dev %lx mtime %ld ctime %ld -> %s (stat -L %s)\n", fd,
                st.st_mode, (unsigned long)st.st_ino, (unsigned long)st.st_dev, (long)st.st_mtime,
                (long)st.st_ctime, target, ok ? "same" : "differs");
    }
    const char *fixed[] = {".", "/", "/etc", "/etc/passwd", "/etc/hostname", "/proc/self/exe", "/usr/bin"};
    int bad = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        bad |= check(fixed[i]);
    for (int i = 0; i < argc; i++)
        bad |= check(argv[i]);
    int p[2];
    struct stat ps;
    if (pipe(p) == 0 && fstat(p[0], &ps) == 0)
        bad |= ps.st_mtime > time(NULL);
    fprintf(stderr, "causality %s\n", bad ? "broken" : "holds");
    printf("stdout data\n");
    return bad;
}
