/* protos: one call for each kind of library-call argument a tracer decodes.
 * Built with -fno-builtin so that every call below is a real library call.
 * Optional argv[1]: directory for the scratch file (default /tmp). */
#define __NO_CTYPE 1          /* glibc: real toupper()/isdigit() calls */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void at_exit_fn(void)
{
    puts("atexit handler ran");
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
    got_usr1 = sig;
}

int main(int argc, char **argv)
{
    const char *tmpdir = argc > 1 ? argv[1] : "/tmp";
    char buf[64], path[256];
    char *end;
    int fd;

    /* strings: escapes, a non-ASCII byte, and a long one */
    puts("tab\there \"quoted\" caf\xc3\xa9 byte\xff nl\\n");
    printf("%s|%s\n", "line1\nline2\t\"q\"", "\x01\x7f");
    puts("This string is definitely longer than forty characters, to test truncation.");

    /* open flags and modes */
    fd = open("/nonexistent/emutrace-missing", O_RDONLY | O_CLOEXEC);
    printf("open missing = %d errno=%s\n", fd, errno == ENOENT ? "ENOENT" : "other");
    snprintf(path, sizeof path, "%s/emutrace-protos-%d.tmp", tmpdir, (int)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    printf("open create ok = %d\n", fd >= 0);
    if (fd >= 0) {
        printf("write = %zd\n", write(fd, "data\n", 5));
        close(fd);
        printf("unlink = %d\n", unlink(path));
    }

    /* NULL and out-parameters */
    printf("strtol(\"456\", NULL, 10) = %ld\n", strtol("456", NULL, 10));
    long v = strtol("123abc", &end, 10);
    printf("strtol(\"123abc\", &end, 10) = %ld end=\"%s\"\n", v, end);
    int fds[2];
    printf("pipe = %d\n", pipe(fds));
    printf("pipe write = %zd\n", write(fds[1], "xyz", 3));
    ssize_t n = read(fds[0], buf, sizeof buf);
    printf("pipe read = %zd \"%.*s\"\n", n, (int)(n > 0 ? n : 0), buf);
    close(fds[0]);
    close(fds[1]);
    int num = 0;
    char word[16];
    int got = sscanf("17 apples", "%d %15s", &num, word);
    printf("sscanf = %d num=%d word=%s\n", got, num, word);

    /* callbacks */
    int arr[] = {5, 3, 9, 1, 7};
    qsort(arr, 5, sizeof arr[0], by_value);
    printf("qsort = %d %d %d %d %d\n", arr[0], arr[1], arr[2], arr[3], arr[4]);
    printf("atexit = %d\n", atexit(at_exit_fn));
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    printf("signal handler got %d\n", (int)got_usr1);

    /* varargs of every common type; %p of NULL is "(nil)" in glibc, "0" in musl */
    printf("%d %u %ld %lu %x %c %s %p %f %.3e %%\n",
           -42, 42u, -1234567890123L, 1234567890123UL, 0xbeefu, 'Z', "str",
           (void *)NULL, 3.5, 12345.678);

    /* size_t arguments */
    char dst[16];
    memcpy(dst, "abcdef", 7);
    printf("memcpy = %s\n", dst);
    strncpy(dst, "hello", sizeof dst);
    printf("strncpy = %s\n", dst);

    /* negative integers and chars */
    printf("abs(-5) = %d\n", abs(-5));
    printf("labs(-1234567890123) = %ld\n", labs(-1234567890123L));
    printf("toupper('a') = %c\n", toupper('a'));
    printf("isdigit('7') = %d\n", isdigit('7') != 0);

    /* a NULL return */
    char *e = getenv("EMUTRACE_TEST_UNSET");
    printf("getenv = %s\n", e ? e : "(null)");

    fflush(stdout);
    return 0;
}
