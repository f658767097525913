/* crash: prints a line, then dies by SIGSEGV (NULL store). */
#include <stdio.h>

int *volatile null_ptr = 0;

int main(void)
{
    printf("before crash\n");
    fflush(stdout);
    *null_ptr = 42;
    printf("after crash (should not happen)\n");
    return 0;
}
