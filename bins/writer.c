/* writer (hostile): for each argv path creates it (a directory if it ends in
 * '/', otherwise a file containing "written by writer: PATH"), printing
 * "write PATH: ok" or the errno name; then reads everything back:
 * "read PATH: <content>" / "read PATH: directory" / "read PATH: <errno>". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *errname(int e)
{
#define E(x) case x: return #x;
    switch (e) {
    E(EPERM) E(ENOENT) E(EACCES) E(ELOOP) E(ENOTDIR) E(EROFS) E(EISDIR)
    E(EXDEV) E(EEXIST) E(ENAMETOOLONG) E(EINVAL) E(ENOSPC) E(EDQUOT)
    E(ENOSYS) E(ETXTBSY)
    }
#undef E
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", e);
    return buf;
}

static int is_dir_arg(const char *p)
{
    size_t n = strlen(p);
    return n > 1 && p[n - 1] == '/';
}

int main(int argc, char **argv)
{
    char buf[4200];

    for (int i = 1; i < argc; i++) {
        const char *p = argv[i];
        int ok;
        if (is_dir_arg(p)) {
            ok = mkdir(p, 0755) == 0;
        } else {
            int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ok = fd >= 0;
            if (ok) {
                int len = snprintf(buf, sizeof buf, "written by writer: %s\n", p);
                ok = write(fd, buf, len) == len;
                int saved = errno;
                close(fd);
                errno = saved;
            }
        }
        printf("write %s: %s\n", p, ok ? "ok" : errname(errno));
    }

    for (int i = 1; i < argc; i++) {
        const char *p = argv[i];
        struct stat st;
        if (stat(p, &st) < 0) {
            printf("read %s: %s\n", p, errname(errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            printf("read %s: directory\n", p);
            continue;
        }
        int fd = open(p, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (n < 0) {
            printf("read %s: %s\n", p, errname(errno));
        } else {
            buf[n] = 0;
            buf[strcspn(buf, "\n")] = 0;
            printf("read %s: %s\n", p, buf);
        }
        if (fd >= 0)
            close(fd);
    }
    return 0;
}
