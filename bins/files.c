/* files: file-system calls in a scratch subdirectory of argv[1] (default ".").
 * Prints only deterministic facts (sizes, types, names) and cleans up. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *errname(int e)
{
#define E(x) case x: return #x;
    switch (e) {
    E(EPERM) E(ENOENT) E(EACCES) E(EEXIST) E(ENOTDIR) E(EISDIR) E(EINVAL)
    E(ELOOP) E(EROFS) E(ENOTEMPTY) E(EXDEV) E(ENAMETOOLONG) E(EBADF)
    }
#undef E
    return "E?";
}

static char dir[4096];

static const char *P(const char *name)          /* dir/name */
{
    static char path[2][4200];
    static int i;
    i ^= 1;
    snprintf(path[i], sizeof path[i], "%s/%s", dir, name);
    return path[i];
}

#define CHECK(what, call) do { if ((call) < 0) { \
    printf("%s failed: %s\n", what, errname(errno)); exit(1); } } while (0)

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *base = argc > 1 ? argv[1] : ".";
    struct stat st;
    char buf[64];
    int fd;
    ssize_t n;

    snprintf(dir, sizeof dir, "%s/emutrace-files.d", base);
    CHECK("mkdir", mkdir(dir, 0755));
    puts("mkdir ok");

    CHECK("open", fd = open(P("a.txt"), O_RDWR | O_CREAT | O_TRUNC, 0644));
    n = write(fd, "hello world\n", 12);
    printf("write = %zd\n", n);
    printf("lseek(6, SET) = %ld\n", (long)lseek(fd, 6, SEEK_SET));
    n = read(fd, buf, 5);
    buf[n < 0 ? 0 : n] = 0;
    printf("read = %zd \"%s\"\n", n, buf);
    printf("lseek(0, END) = %ld\n", (long)lseek(fd, 0, SEEK_END));
    CHECK("fstat", fstat(fd, &st));
    printf("fstat size = %ld regular = %d\n", (long)st.st_size, S_ISREG(st.st_mode));
    close(fd);

    CHECK("stat", stat(P("a.txt"), &st));
    printf("stat size = %ld mode = %o\n", (long)st.st_size, (unsigned)(st.st_mode & 0777));

    CHECK("symlink", symlink("a.txt", P("link")));
    CHECK("lstat", lstat(P("link"), &st));
    printf("lstat link: symlink = %d size = %ld\n", S_ISLNK(st.st_mode), (long)st.st_size);
    CHECK("stat link", stat(P("link"), &st));
    printf("stat link: regular = %d size = %ld\n", S_ISREG(st.st_mode), (long)st.st_size);
    n = readlink(P("link"), buf, sizeof buf - 1);
    buf[n < 0 ? 0 : n] = 0;
    printf("readlink = %zd \"%s\"\n", n, buf);

    CHECK("rename", rename(P("a.txt"), P("b.txt")));
    printf("access(b.txt, R_OK) = %d\n", access(P("b.txt"), R_OK));
    int r = access(P("a.txt"), F_OK);
    printf("access(a.txt, F_OK) = %d %s\n", r, r < 0 ? errname(errno) : "");
    r = stat(P("link"), &st);
    printf("stat dangling link = %d %s\n", r, r < 0 ? errname(errno) : "");

    CHECK("open c", fd = open(P("c.txt"), O_WRONLY | O_CREAT | O_EXCL, 0600));
    close(fd);
    r = open(P("c.txt"), O_WRONLY | O_CREAT | O_EXCL, 0600);
    printf("open O_EXCL again = %d %s\n", r, r < 0 ? errname(errno) : "");
    CHECK("mkdir d", mkdir(P("d"), 0700));

    DIR *dp = opendir(dir);
    if (!dp) {
        printf("opendir failed: %s\n", errname(errno));
        return 1;
    }
    char *names[16];
    int count = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL && count < 16)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            names[count++] = strdup(de->d_name);
    closedir(dp);
    qsort(names, count, sizeof names[0], cmp);
    printf("entries (%d):", count);
    for (int i = 0; i < count; i++) {
        printf(" %s", names[i]);
        free(names[i]);
    }
    printf("\n");

    r = rmdir(dir);
    printf("rmdir non-empty = %d %s\n", r, r < 0 ? errname(errno) : "");
    CHECK("unlink link", unlink(P("link")));
    CHECK("unlink b", unlink(P("b.txt")));
    CHECK("unlink c", unlink(P("c.txt")));
    CHECK("rmdir d", rmdir(P("d")));
    CHECK("rmdir", rmdir(dir));
    puts("cleaned up");
    return 0;
}
