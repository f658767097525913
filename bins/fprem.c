/* fprem: the x87 partial remainder of a long double with all 64 significand bits in use.
 * musl's fmodl is this loop, and its strtod/strtof/strtold use fmodl to round subnormals. */
#include <stdio.h>
#include <stdlib.h>

static long double fprem(long double x, long double y, int ieee)
{
    long double r;
    if (ieee)
        __asm__ ("1: fprem1\n\tfnstsw %%ax\n\ttestb $4, %%ah\n\tjnz 1b" : "=t"(r) : "0"(x), "u"(y) : "ax", "cc");
    else
        __asm__ ("1: fprem\n\tfnstsw %%ax\n\ttestb $4, %%ah\n\tjnz 1b" : "=t"(r) : "0"(x), "u"(y) : "ax", "cc");
    return r;
}

int main(void)
{
    volatile long double y = 18446744073709551615.0L;      /* 2^64 - 1 */
    printf("fprem(2^64-1, 2048) = %.1Lf\n", fprem(y, 2048.0L, 0));
    printf("fprem1(2^64-1, 2048) = %.1Lf\n", fprem(y, 2048.0L, 1));
    printf("strtod(\"2.2250738585072011e-308\") = %a\n", strtod("2.2250738585072011e-308", NULL));
    return 0;
}
