/* membomb (hostile): allocates 1 MiB blocks and touches every page until
 * malloc fails or the cap argv[1] (in MiB, default 1048576 = 1 TiB) is hit.
 * Prints "allocated N MiB"; exits 0 if malloc returned NULL, 2 at the cap.
 * Natively, only ever run it with a small cap. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long cap = argc > 1 ? strtoul(argv[1], NULL, 10) : 1048576UL;
    unsigned long mib = 0;

    while (mib < cap) {
        volatile char *p = malloc(1 << 20);
        if (!p) {
            printf("allocated %lu MiB\n", mib);
            return 0;
        }
        for (long off = 0; off < (1 << 20); off += 4096)
            p[off] = 1;
        mib++;
    }
    printf("allocated %lu MiB\n", mib);
    return 2;
}
