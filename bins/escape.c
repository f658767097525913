/* escape (hostile): tries to read each path given in argv, e.g.
 *   escape ../../../../etc/hostname /proc/self/root/etc/hostname
 * For each PATH prints "PATH: <first line>" or "PATH: <errno name>", then
 * "PATH: opendir: <N> entries" or "PATH: opendir: <errno name>". */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *errname(int e)
{
#define E(x) case x: return #x;
    switch (e) {
    E(EPERM) E(ENOENT) E(EACCES) E(ELOOP) E(ENOTDIR) E(EROFS) E(EISDIR)
    E(EXDEV) E(ENAMETOOLONG) E(EBADF) E(EINVAL) E(EFAULT) E(ENOSYS)
    E(ENXIO) E(ENODEV) E(EMFILE) E(EIO)
    }
#undef E
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", e);
    return buf;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *path = argv[i];
        char buf[256];
        int fd = open(path, O_RDONLY);
        if (fd < 0) {
            printf("%s: %s\n", path, errname(errno));
        } else {
            ssize_t n = read(fd, buf, sizeof buf - 1);
            if (n < 0) {
                printf("%s: %s\n", path, errname(errno));
            } else {
                buf[n] = 0;
                buf[strcspn(buf, "\n")] = 0;
                printf("%s: %s\n", path, buf);
            }
            close(fd);
        }

        DIR *d = opendir(path);
        if (!d) {
            printf("%s: opendir: %s\n", path, errname(errno));
        } else {
            int count = 0;
            while (readdir(d))
                count++;
            closedir(d);
            printf("%s: opendir: %d entries\n", path, count);
        }
        fflush(stdout);
    }
    return 0;
}
