/* diffprog: built twice, with -DVARIANT=0 and -DVARIANT=1 (build variants
 * "v0" and "v1").  The two builds differ in exactly one library call:
 * variant 0 calls strcmp(), variant 1 calls strncmp(..., 3) instead, which
 * also changes the "compare" line of the output. */
#include <stdio.h>
#include <string.h>

#ifndef VARIANT
#define VARIANT 0
#endif

int main(void)
{
    const char *a = "abcdef", *b = "abcxyz";
    int r;

    puts("diffprog start");
    printf("len = %zu\n", strlen(a));
#if VARIANT == 1
    r = strncmp(a, b, 3);
#else
    r = strcmp(a, b);
#endif
    printf("compare = %d\n", (r > 0) - (r < 0));
    puts("diffprog end");
    return 0;
}
