/* hello: the smallest libc program (prebuilt as a musl static binary). */
#include <stdio.h>

int main(void)
{
    puts("hello, world");
    return 0;
}
