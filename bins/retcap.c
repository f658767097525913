/* retcap: calls whose shown values the guest call log copies at the return, at their edges.
 *  - output strings as long as the returned value says (read, pread, readlink, mbstowcs,
 *    wcstombs): short, empty, longer than the string limit, a buffer ending at the end of a
 *    mapping (the NUL search reads the byte after it), a failed call (-1: a huge length) on a
 *    readable buffer, a wild pointer and NULL;
 *  - sets of bits in and out (sigemptyset, sigaddset, sigprocmask), one at the end of a mapping
 *    and one at a wild address;
 *  - structures returned in rax:rdx (div, ldiv, lldiv).
 * It prints what it saw, so a run can be compared with a native one. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <wchar.h>

#define WILD ((void *)0x10)

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) != 0)
        return 1;
    char *edge = map + page;                    /* the first unreadable byte */
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    char buf[256];
    long got = 0;

    /* read: short, at the mapping's end, empty, long, failing */
    got += write(fds[1], "hello\nworld\n", 12);
    got += read(fds[0], buf, 6);
    memset(edge - 6, 'x', 6);
    got += read(fds[0], edge - 6, 6);          /* exactly up to the unreadable page */
    got += write(fds[1], "ab", 2);
    got += read(fds[0], edge - 2, 2);
    got += write(fds[1], "a\0b", 3);
    got += read(fds[0], buf, sizeof buf);
    for (int i = 0; i < 3; i++)
        got += write(fds[1], "0123456789abcdefghijklmnopqrstuvwxyz", 36);
    got += read(fds[0], buf, sizeof buf);
    got += read(-1, buf, sizeof buf);           /* -1: a huge length over a readable buffer */
    got += read(-1, WILD, 64);                  /* ... over a wild pointer */
    got += read(-1, NULL, 64);
    got += read(-1, edge - 3, 3);               /* ... running into the unreadable page */
    close(fds[1]);
    got += read(fds[0], buf, sizeof buf);       /* 0: end of file */

    int fd = open("/proc/self/exe", O_RDONLY);
    got += pread(fd, buf, 4, 0);
    got += pread(fd, edge - 4, 4, 0);
    close(fd);
    got += readlink("/proc/self/exe", buf, sizeof buf);
    got += readlink("/proc/self/exe", buf, 3);
    got += readlink("/nonexistent", buf, sizeof buf);

    /* wide strings as long as the returned value says */
    wchar_t wbuf[64];
    wmemset(wbuf, L'z', 64);
    got += (long)mbstowcs(wbuf, "wide string", 64);
    got += (long)mbstowcs(wbuf, "a longer wide string past the string limit", 64);
    got += (long)mbstowcs(wbuf, "abc", 2);
    got += (long)mbstowcs(NULL, "counted", 0);
    got += (long)wcstombs(buf, L"narrow", sizeof buf);
    got += (long)wcstombs(edge - 3, L"abc", 3);
    /* sources with no NUL before the end of the mapping (the C library reads only n of them) */
    memcpy(edge - 2, "ab", 2);
    got += (long)mbstowcs(wbuf, edge - 2, 2);
    wchar_t *wedge = (wchar_t *)(edge - 2 * sizeof(wchar_t));
    wedge[0] = L'x';
    wedge[1] = L'y';
    got += (long)wcstombs(buf, wedge, 2);

    /* sets of bits */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old);
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigprocmask(SIG_BLOCK, NULL, &old);
    sigset_t *at_edge = (sigset_t *)(edge - 8);    /* only its first 8 bytes are readable */
    unsigned long first = 0x202;                    /* SIGINT, SIGUSR1 (no signal glibc keeps) */
    memcpy(at_edge, &first, sizeof first);
    printf("edge set: %d\n", sigprocmask(SIG_BLOCK, at_edge, NULL));
    /* (glibc reads sigprocmask's set itself: a wild one goes to signalfd, which only the
     * kernel reads) */
    printf("wild set: %d\n", signalfd(-1, WILD, 0));
    printf("signalfd of a set at the edge: %d\n", signalfd(-1, at_edge, 0) >= 0);
    sigfillset(&set);
    sigdelset(&set, SIGKILL);
    sigprocmask(SIG_UNBLOCK, &set, &old);

    /* structures returned in rax:rdx */
    div_t d = div(47, 5);
    ldiv_t ld = ldiv(-1000000000000L, 7);
    lldiv_t lld = lldiv(123456789012345LL, -1000);
    printf("div %d %d ldiv %ld %ld lldiv %lld %lld\n", d.quot, d.rem, ld.quot, ld.rem, lld.quot, lld.rem);
    printf("total %ld\n", got);
    return 0;
}
