/* freshcalls: `freshcalls N` makes N x 8 library calls whose arguments are new at every
 * iteration, as real programs make them (benchmark): a varargs snprintf, strlen, memcmp and
 * memcpy on buffers, a multibyte-to-wide conversion, wcschr, wcslen and wctob on wide strings.
 * Built with -fno-builtin so the calls are not optimised away. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static const char *const words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"};

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    char buf[64], prev[64] = "";
    wchar_t wbuf[64];
    long sum = 0;

    for (long i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "item %ld: %s", i, words[i % 7]);
        size_t len = strlen(buf);
        sum += memcmp(buf, prev, 8) < 0;
        memcpy(prev, buf, len + 1);
        mbstowcs(wbuf, buf, 64);
        const wchar_t *colon = wcschr(wbuf, L':');
        sum += (long)wcslen(wbuf) + (colon ? colon - wbuf : 0);
        sum += wctob(wbuf[i % 5]);
    }
    printf("sum = %ld\n", sum);
    return 0;
}
