/* strings: common <string.h>/<stdlib.h>/<stdio.h> calls; prints every result.
 * Built with -fno-builtin so that each call really is a library call. */
#define __NO_CTYPE 1          /* glibc: real toupper() call, not an inline */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sign(int v) { return (v > 0) - (v < 0); }

int main(void)
{
    char buf[64], out[128];
    const char *hay = "the quick brown fox";

    printf("strlen(\"%s\") = %zu\n", hay, strlen(hay));
    strcpy(buf, "hello");
    strcat(buf, ", world");
    printf("strcpy+strcat = \"%s\"\n", buf);
    printf("strcmp(abc, abd) = %d\n", sign(strcmp("abc", "abd")));
    printf("strncmp(abcdef, abcxyz, 3) = %d\n", strncmp("abcdef", "abcxyz", 3));
    printf("strchr(o) = \"%s\"\n", strchr(hay, 'o'));
    printf("strrchr(o) = \"%s\"\n", strrchr(hay, 'o'));
    printf("strstr(brown) = \"%s\"\n", strstr(hay, "brown"));
    printf("strstr(cat) = %s\n", strstr(hay, "cat") ? "found" : "NULL");

    memset(buf, 'x', 8);
    buf[8] = 0;
    printf("memset = \"%s\"\n", buf);
    memcpy(buf, "ABCD", 4);
    printf("memcpy = \"%s\"\n", buf);
    printf("memcmp = %d\n", sign(memcmp("abc", "abd", 3)));
    printf("toupper('q') = %c\n", toupper('q'));

    int n = snprintf(out, sizeof out, "%d-%s-%05.1f", 42, "x", 3.14159);
    printf("snprintf = \"%s\" (%d)\n", out, n);
    n = snprintf(out, 8, "%s", "truncated string");
    printf("snprintf truncated = \"%s\" (%d)\n", out, n);
    sprintf(out, "%x/%o/%e", 255, 8, 1234.5);
    printf("sprintf = \"%s\"\n", out);

    printf("atoi(\"  -123xyz\") = %d\n", atoi("  -123xyz"));
    char *end;
    long v = strtol("0x1fz", &end, 16);
    printf("strtol(\"0x1fz\", 16) = %ld rest=\"%s\"\n", v, end);

    char *d = strdup(hay);
    d[0] = (char)toupper(d[0]);
    puts(d);
    free(d);
    puts("strings done");
    return 0;
}
