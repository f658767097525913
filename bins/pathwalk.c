/* pathwalk: the same paths looked up before and after the namespace under them changes (rename,
 * unlink, rmdir, mkdir, a symlink replaced by another, by a rename over it, by a directory), in a
 * scratch subdirectory of argv[1] (default "."), and what open's flags do on symlinks (O_NOFOLLOW,
 * O_CREAT through a dangling link, O_EXCL, O_PATH, O_DIRECTORY, trailing slashes), with ELOOP,
 * ENAMETOOLONG and ENOTDIR. One line per lookup: deterministic facts only. Cleans up. */
#define _GNU_SOURCE         /* O_PATH */
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
    E(ELOOP) E(ENOTEMPTY) E(EXDEV) E(ENAMETOOLONG) E(EBADF)
    }
#undef E
    return "E?";
}

static const char *type_of(mode_t mode)
{
    return S_ISREG(mode) ? "file" : S_ISDIR(mode) ? "dir" : S_ISLNK(mode) ? "symlink" : "other";
}

static char dir[4096];         /* the scratch directory: shown as DIR (its name has the pid) */

static const char *shown(const char *path)
{
    static char out[4200];
    size_t n = strlen(dir);
    if (strncmp(path, dir, n))
        return path;
    snprintf(out, sizeof out, "DIR%s", path + n);
    return out;
}

/* stat (or lstat) of path: its type, and a file's size */
static void look(const char *path, int nofollow)
{
    struct stat st;
    if (fstatat(AT_FDCWD, path, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) < 0) {
        printf("%sstat %s: %s\n", nofollow ? "l" : "", shown(path), errname(errno));
        return;
    }
    printf("%sstat %s: %s", nofollow ? "l" : "", shown(path), type_of(st.st_mode));
    if (S_ISREG(st.st_mode))
        printf(" %ld", (long)st.st_size);
    printf("\n");
}

/* open with flags (named by `how`): the type of what was opened, or the error */
static void try_open(const char *path, int flags, const char *how)
{
    struct stat st;
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        printf("open %s %s: %s\n", path, how, errname(errno));
        return;
    }
    if (fstat(fd, &st) < 0)
        printf("open %s %s: ok, fstat %s\n", path, how, errname(errno));
    else
        printf("open %s %s: %s\n", path, how, type_of(st.st_mode));
    close(fd);
}

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) {
        printf("write %s: %s\n", path, errname(errno));
        exit(1);
    }
    close(fd);
}

#define DO(call) do { if ((call) < 0) { printf("%s: %s\n", #call, errname(errno)); exit(1); } } while (0)

int main(int argc, char **argv)
{
    char full[4200], longname[300];
    snprintf(dir, sizeof dir, "%s/pathwalk.%d.d", argc > 1 ? argv[1] : ".", (int)getpid());
    DO(mkdir(dir, 0755));
    DO(chdir(dir));

    /* a directory renamed, then its parent */
    DO(mkdir("a", 0755));
    DO(mkdir("a/b", 0755));
    put("a/b/f", "one\n");
    look("a/b/f", 0);
    look("a/b/f", 0);
    DO(rename("a", "c"));
    look("a/b/f", 0);
    look("c/b/f", 0);
    try_open("c/b/f/", O_RDONLY, "trailing slash");
    snprintf(full, sizeof full, "%s/c/b/f", dir);
    look(full, 0);
    DO(rename("c/b", "c/x"));
    look(full, 0);
    DO(rename("c/x", "c/b"));
    look(full, 0);

    /* a symlink to a directory, replaced by another, by a rename over it, by a directory */
    DO(symlink("c", "L"));
    look("L/b/f", 0);
    look("L", 1);
    look("L/", 1);
    try_open("L/b/f", O_RDONLY, "O_RDONLY");
    try_open("L", O_RDONLY | O_NOFOLLOW, "O_NOFOLLOW");
    try_open("L/", O_RDONLY | O_NOFOLLOW | O_DIRECTORY, "O_NOFOLLOW|O_DIRECTORY");
    try_open("L", O_RDONLY | O_DIRECTORY, "O_DIRECTORY");
    try_open("L", O_PATH | O_NOFOLLOW, "O_PATH|O_NOFOLLOW");
    DO(mkdir("e", 0755));
    DO(mkdir("e/b", 0755));
    put("e/b/g", "two!\n");
    DO(unlink("L"));
    DO(symlink("e", "L"));
    look("L/b/f", 0);
    look("L/b/g", 0);
    DO(symlink("c", "M"));
    look("M/b/f", 0);
    DO(rename("M", "L"));
    look("L/b/f", 0);
    look("L/b/g", 0);
    look("M/b/f", 0);
    DO(unlink("L"));
    DO(mkdir("L", 0755));
    look("L/b", 0);
    look("L/.", 0);
    DO(rmdir("L"));
    look("L/.", 0);
    put("L", "now a file\n");
    look("L/.", 0);
    look("L/x", 0);
    DO(unlink("L"));

    /* `..` after a symlink: the parent of where it leads */
    DO(symlink("c/b", "B"));
    look("B/../b/f", 0);
    look("B/../../e/b/g", 0);
    DO(unlink("B"));

    /* a name missing, then made */
    look("n/x", 0);
    DO(mkdir("n", 0755));
    look("n/x", 0);
    put("n/x", "3\n");
    look("n/x", 0);
    DO(unlink("n/x"));
    look("n/x", 0);
    DO(rmdir("n"));
    look("n/x", 0);

    /* a dangling symlink: O_CREAT makes its target; O_EXCL and O_NOFOLLOW refuse it */
    DO(symlink("new.txt", "D"));
    try_open("D", O_WRONLY | O_CREAT | O_EXCL, "O_CREAT|O_EXCL");
    try_open("D", O_WRONLY | O_CREAT | O_NOFOLLOW, "O_CREAT|O_NOFOLLOW");
    try_open("D", O_WRONLY | O_CREAT, "O_CREAT");
    look("new.txt", 0);
    try_open("D", O_RDONLY, "O_RDONLY");
    DO(unlink("new.txt"));
    try_open("D", O_RDONLY, "O_RDONLY");
    DO(unlink("D"));

    /* loops and long names */
    DO(symlink("loop", "loop"));
    look("loop/x", 0);
    look("loop", 0);
    look("loop", 1);
    try_open("loop", O_RDONLY, "O_RDONLY");
    DO(unlink("loop"));
    memset(longname, 'n', 256);
    longname[256] = 0;
    look(longname, 0);
    try_open(longname, O_WRONLY | O_CREAT, "O_CREAT");

    /* clean up */
    DO(unlink("c/b/f"));
    DO(rmdir("c/b"));
    DO(rmdir("c"));
    DO(unlink("e/b/g"));
    DO(rmdir("e/b"));
    DO(rmdir("e"));
    DO(chdir(".."));
    DO(rmdir(dir));
    puts("cleaned up");
    return 0;
}
