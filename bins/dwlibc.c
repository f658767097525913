/* Library calls the prototype database does not know (issue 38): with libc6-dbg in the root,
 * --ftrace -a shows their arguments with the types of libc's own DWARF. */
#define _GNU_SOURCE
#include <argz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char buf[32] = "";  /* zeroed: the trace shows dest at the call, which must not be stack left by the path */
    int decpt, sign;
    const char argz[] = "one\0two\0three";
    int n = strfromd(buf, sizeof buf, "%.3f", 2.5);
    char *digits = ecvt(3.25, 4, &decpt, &sign);
    size_t words = argz_count(argz, sizeof argz);
    printf("%d %s %s %d %zu\n", n, buf, digits, decpt, words);
    return 0;
}
