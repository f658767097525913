/* escape_symlink (hostile): in directory argv[1] creates the symlinks
 *   abs -> /            and     rel -> ../../../../../../../../../../../..
 * then reads argv[2] (e.g. etc/hostname) through each of them and prints the
 * first line or the errno name; removes the symlinks at the end. */
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
    E(EXDEV) E(EEXIST) E(ENAMETOOLONG) E(EINVAL) E(ENOSYS)
    }
#undef E
    static char buf[32];
    snprintf(buf, sizeof buf, "errno %d", e);
    return buf;
}

static void try_link(const char *dir, const char *name, const char *target,
                     const char *rest)
{
    char link[4096], path[8192], buf[256];

    snprintf(link, sizeof link, "%s/%s", dir, name);
    if (symlink(target, link) < 0)
        printf("symlink %s -> %s: %s\n", name, target, errname(errno));
    else
        printf("symlink %s -> %s: ok\n", name, target);

    snprintf(path, sizeof path, "%s/%s", link, rest);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf("%s/%s: %s\n", name, rest, errname(errno));
    } else {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        if (n < 0) {
            printf("%s/%s: %s\n", name, rest, errname(errno));
        } else {
            buf[n] = 0;
            buf[strcspn(buf, "\n")] = 0;
            printf("%s/%s: %s\n", name, rest, buf);
        }
        close(fd);
    }
    unlink(link);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: escape_symlink DIR PATH\n");
        return 2;
    }
    try_link(argv[1], "abs", "/", argv[2]);
    try_link(argv[1], "rel", "../../../../../../../../../../../..", argv[2]);
    return 0;
}
