/* printfmaps: printf-family strings where the host memory under guest memory changes
 * (tests/test_printflog.py; the C hooks read guest memory straight from it): a string crossing
 * from one mapping into the next where the two lie on different host memory (private mappings
 * on either side of a 2 MiB boundary, which emutrace backs separately; a private mapping and a
 * shared one, both ways round), a format crossing such an edge, shared anonymous and memfd mappings (one memfd mapped twice),
 * strings ending at a mapping's end before a hole, a PROT_NONE and a write-only page, %.0s of
 * wild pointers (printf reads nothing), snprintf into each kind of mapping (its output shown at
 * the return); then a fork after printf calls whose child changes the strings before printing
 * them, as its parent does after it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define SLAB_EDGE ((char *)0x300000000000)      /* 2 MiB-aligned, far from everything else */
#define SHARED_EDGE ((char *)0x300000800000)
#define SHARED_FIRST ((char *)0x300001000000)

static char *map_at(char *at, long size, int prot, int flags, int fd)
{
    char *m = mmap(at, size, prot, flags | MAP_FIXED_NOREPLACE | (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
    return m == at ? m : NULL;
}

/* a string of `n` bytes of `c` ending at `end` (a NUL there) */
static char *fill_before(char *end, int n, char c)
{
    memset(end - n, c, n);
    *end = 0;
    return end - n;
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char out[64];

    /* two private mappings made apart, on either side of a 2 MiB boundary: one mapping for the
     * guest, two host buffers under it */
    char *lo = map_at(SLAB_EDGE - pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, -1);
    char *hi = map_at(SLAB_EDGE, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, -1);
    if (lo && hi) {
        memset(SLAB_EDGE - 12, 'C', 12);
        fill_before(SLAB_EDGE + 9, 9, 'D');
        printf("slab edge %s|%.14s|%.3s\n", SLAB_EDGE - 12, SLAB_EDGE - 7, SLAB_EDGE - 1);
        strcpy(SLAB_EDGE - 6, "format %s %d across the edge\n");
        printf(SLAB_EDGE - 6, "x", 3);
        snprintf(SLAB_EDGE - 4, 40, "%s", "written across the edge");
        printf("%s\n", SLAB_EDGE - 8);
    }

    /* a private page, then a shared one, then a private one again */
    char *p1 = map_at(SHARED_EDGE - pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, -1);
    char *s1 = map_at(SHARED_EDGE, pg, PROT_READ | PROT_WRITE, MAP_SHARED, -1);
    char *p2 = map_at(SHARED_EDGE + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, -1);
    if (p1 && s1 && p2) {
        memset(SHARED_EDGE - 6, 'P', 6);
        memset(SHARED_EDGE, 'S', pg);
        fill_before(SHARED_EDGE + pg + 5, 5, 'Q');
        memset(SHARED_EDGE + pg - 3, 'S', 3);
        printf("into shared %.20s|out of shared %s\n", SHARED_EDGE - 6, SHARED_EDGE + pg - 3);
        snprintf(SHARED_EDGE - 5, 12, "%s-%d", "sh", 12345678);
        printf("%s %s\n", SHARED_EDGE - 5, SHARED_EDGE + pg - 3);
    }

    /* a shared mapping first, then a private one after it */
    char *s2 = map_at(SHARED_FIRST - pg, pg, PROT_READ | PROT_WRITE, MAP_SHARED, -1);
    char *p3 = map_at(SHARED_FIRST, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, -1);
    if (s2 && p3) {
        memset(SHARED_FIRST - 4, 'T', 4);
        fill_before(SHARED_FIRST + 4, 4, 'U');
        printf("shared then private %s\n", SHARED_FIRST - 4);
    }

    /* a memfd mapped twice: written through one view, shown through the other */
    int fd = memfd_create("printfmaps", 0);
    if (fd >= 0 && ftruncate(fd, 2 * pg) == 0) {
        char *v1 = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        char *v2 = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, 0);
        if (v1 != MAP_FAILED && v2 != MAP_FAILED) {
            strcpy(v1 + pg - 3, "memfd view");
            printf("memfd %s %s\n", v2 + pg - 3, v1 + pg - 3);
            snprintf(v1, 32, "%s %x", "via snprintf", 0xbeef);
            printf("%s|%.4s\n", v2, v2 + 4);
            /* ending at the memfd mapping's end: the next page is a hole */
            munmap(v2 + pg, pg);
            memset(v1 + pg - 6, 'M', 6);
            printf("[%.6s] [%.5s]\n", v2 + pg - 6, v2 + pg - 6);
        }
    }

    /* strings ending at a mapping's end before a PROT_NONE page and a write-only one */
    char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
        memset(m, 'E', 2 * pg);
        m[pg + 2] = 0;
        mprotect(m + pg, pg, PROT_NONE);
        printf("[%.4s] [%.3s]\n", m + pg - 4, m + pg - 4);
        mprotect(m + pg, pg, PROT_WRITE);
        printf("[%.4s] [%.2s]\n", m + pg - 4, m + pg - 4);
        mprotect(m + pg, pg, PROT_READ);
        printf("[%s]\n", m + pg - 4);
    }

    /* wild pointers printf does not read (precision 0) */
    printf("wild [%.0s] [%.0s] [%.0s] [%.0s]\n", (char *)0x1234, (char *)UINTPTR_MAX,
           (char *)(UINTPTR_MAX - 2), SLAB_EDGE + 2 * pg);

    /* a fork after all that: each side changes the strings, then prints them */
    char *shared_word = s1 ? SHARED_EDGE : out;
    strcpy(out, "before fork");
    printf("%s %s\n", out, lo ? SLAB_EDGE - 12 : "-");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        strcpy(out, "child's copy");
        if (lo) strcpy(SLAB_EDGE - 3, "kid");
        printf("%s %s\n", out, lo ? SLAB_EDGE - 12 : "-");
        snprintf(shared_word, 32, "%s %d", "child wrote", 1);
        printf("%s\n", shared_word);
        fflush(stdout);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    strcpy(out, "parent's copy");
    printf("%s %s %s\n", out, lo ? SLAB_EDGE - 12 : "-", shared_word);
    return 0;
}
