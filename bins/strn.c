/* strn: calls whose string argument is ltrace's `stringN` (a C string of at most argN
 * characters, ending at its NUL), at their edges: strncpy, stpncpy, strncat, write, pwrite,
 * send, sendto with
 *  - a length of 0 (NULL where that is legal), a length smaller than the string, larger than
 *    it, around the string limit (32), and huge lengths on NUL-terminated strings;
 *  - NULs inside the bound, non-ASCII bytes;
 *  - buffers without a NUL ending at a mapping's end (the next page PROT_NONE): the generic
 *    renderer's NUL search reads one byte past the bound there, so such a buffer read whole
 *    shows as its pointer, one read one byte short as text;
 *  - C string arguments of the string limit's length and a little more up to a mapping's end;
 *  - a loop of strncpy calls (bash's pattern).
 * It prints what it saw, so a run can be compared with a native one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) != 0)
        return 1;
    char *edge = map + page;                    /* the first unreadable byte */
    memset(edge - 64, 'e', 64);                 /* no NUL before the unreadable page */
    char *volatile none = NULL;                 /* (NULL where a length of 0 makes it legal) */
    int fds[2], sv[2];
    if (pipe(fds) != 0 || socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
        return 1;
    char dst[256], sink[4096];
    long got = 0;

    /* strncpy: n of 0, smaller than the string, larger, around the limit, at the edge */
    strncpy(dst, "hello, world", 0);
    strncpy(dst, none, 0);
    strncpy(dst, "hello, world", 5);
    strncpy(dst, "hi", 10);
    strncpy(dst, "0123456789abcdefghijklmnopqrstuvwxyz", 31);
    strncpy(dst, "0123456789abcdefghijklmnopqrstuvwxyz", 32);
    strncpy(dst, "0123456789abcdefghijklmnopqrstuvwxyz", 33);
    strncpy(dst, "0123456789abcdefghijklmnopqrstuvwxyz", 200);
    strncpy(dst, "0123456789abcdefghijklmnopqrstuvwxyz012345", 34);
    strncpy(dst, "tab\there\"q'\\\x1b\x7f\xff\xe9\n", 20);
    strncpy(dst, edge - 5, 5);                  /* read whole: the byte after it is unreadable */
    strncpy(dst, edge - 5, 4);
    strncpy(dst, edge - 1, 1);
    strncpy(dst, edge - 33, 33);
    strncpy(dst, edge - 34, 34);                /* limit + 2 bytes, all readable */
    strncpy(dst, edge - 40, 34);
    dst[40] = '\0';
    printf("strncpy: %s\n", dst);

    /* stpncpy and strncat */
    char *end = stpncpy(dst, "stpncpy", 3);
    got += end - dst;
    end = stpncpy(dst, edge - 3, 3);
    got += end - dst;
    end = stpncpy(dst, "x", 0);
    got += end - dst;
    dst[0] = '\0';
    strncat(dst, "cat", 2);
    strncat(dst, edge - 4, 4);
    strncat(dst, "", 100);
    strncat(dst, "more", 0);
    printf("strncat: %s\n", dst);

    /* write, pwrite: text, binary, empty, NULL, at the edge; pwrite to a pipe fails */
    got += write(fds[1], "hello\n", 6);
    got += write(fds[1], "a\0b", 3);
    got += write(fds[1], "\xff\xe9\n\t\\", 5);
    got += write(fds[1], none, 0);
    got += write(fds[1], "", 0);
    got += write(fds[1], edge - 6, 6);
    got += write(fds[1], edge - 7, 6);
    got += write(fds[1], edge - 64, 64);
    got += write(fds[1], "0123456789abcdefghijklmnopqrstuvwxyz", 36);
    got += pwrite(fds[1], "abc", 3, 0);
    got += pwrite(fds[1], edge - 2, 2, 0);
    got += read(fds[0], sink, sizeof sink);

    /* send, sendto on a datagram socket pair */
    got += send(sv[0], "ping", 4, 0);
    got += send(sv[0], edge - 2, 2, 0);
    got += send(sv[0], "", 0, 0);
    got += sendto(sv[0], "pong", 2, 0, NULL, 0);
    got += sendto(sv[0], none, 0, 0, NULL, 0);
    got += send(-1, "bad fd", 6, 0);
    for (int i = 0; i < 5; i++)
        got += recv(sv[1], sink, sizeof sink, MSG_DONTWAIT);

    /* a plain C string argument (strncmp's `string`) of 32 (the limit), 33 and 34 characters
     * up to the unreadable page: the generic renderer's NUL search reads up to 34 bytes, so
     * those of 32 and 33 show as their pointer, the one of 34 as text (strncmp reads 3) */
    got += strncmp(edge - 32, "eee", 3);
    got += strncmp(edge - 33, "eee", 3);
    got += strncmp(edge - 34, "eee", 3);
    /* ... and returned C strings (strchr's) of 34 and 33 characters up to it */
    edge[-35] = 'x';
    got += strchr(edge - 35, 'e') - edge;
    edge[-34] = 'x';
    got += strchr(edge - 34, 'e') - edge;
    edge[-35] = edge[-34] = 'e';

    /* bash's pattern: a strncpy per iteration */
    for (int i = 0; i < 100; i++) {
        char word[16];
        snprintf(word, sizeof word, "w%d", i);
        strncpy(dst, word, i % 7);
    }
    printf("total %ld\n", got);
    return 0;
}
