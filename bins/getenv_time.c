/* getenv_time: HOME and the current time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void)
{
    const char *home = getenv("HOME");
    printf("HOME=%s\n", home ? home : "(null)");
    printf("time=%ld\n", (long)time(NULL));
    return 0;
}
