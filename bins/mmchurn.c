/* mmchurn N: the mmap/mprotect/munmap pattern of runtimes, N times: reserve 64 MiB PROT_NONE,
 * commit 1 MiB of it read-write, write it, make a guard page, release half, unmap the rest
 * (benchmark). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    size_t res = 64 << 20, commit = 1 << 20;
    unsigned long sum = 0;
    for (long i = 0; i < n; i++) {
        char *r = mmap(NULL, res, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        char *c = r + (i % 32) * (2 << 20);
        if (r == MAP_FAILED || mprotect(c, commit, PROT_READ | PROT_WRITE))
            return 1;
        memset(c, (int)i, commit);
        mprotect(c, 4096, PROT_NONE);
        madvise(c + commit / 2, commit / 2, MADV_DONTNEED);
        sum += (unsigned char)c[commit / 2 + 1] + (unsigned char)c[4096];
        munmap(r, res);
    }
    printf("mmchurn %ld rounds, sum %lu\n", n, sum);
    return 0;
}
