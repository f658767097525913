/* mprot N [MiB]: N mprotect calls of one 4 KiB page inside a MiB-sized read-write reservation
 * (default 1 GiB), alternating read-only and read-write, the page written in between (benchmark:
 * the marginal cost of mprotect). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    size_t size = (size_t)(argc > 2 ? atol(argv[2]) : 1024) << 20;
    char *r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return 1;
    char *page = r + size / 2;
    for (long i = 0; i < n; i++) {
        if (mprotect(page, 4096, i & 1 ? PROT_READ | PROT_WRITE : PROT_READ))
            return 1;
        if (i & 1)
            page[i & 4095] = (char)i;
    }
    printf("mprot %ld calls in %zu MiB\n", n, size >> 20);
    return 0;
}
