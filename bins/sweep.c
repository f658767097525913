/* sweep [GiB]: reads one byte of every page of a large read-only reservation (default 4 GiB),
 * which costs no commit charge: what the host keeps per page must stay bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    size_t size = (size_t)(argc > 1 ? atol(argv[1]) : 4) << 30;
    volatile char *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    long sum = 0;
    for (size_t off = 0; off < size; off += 4096)
        sum += p[off];
    printf("swept %zu MiB, sum %ld\n", size >> 20, sum);
    return 0;
}
