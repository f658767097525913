/* callloop: `callloop N` does N x malloc(64)/strcpy/strlen/free (benchmark).
 * Built with -fno-builtin so the calls are not optimised away. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long sum = 0;

    for (long i = 0; i < n; i++) {
        char *p = malloc(64);
        strcpy(p, "hello, callloop");
        sum += (long)strlen(p);
        free(p);
    }
    printf("sum = %ld\n", sum);
    return 0;
}
