/* qsort: sorts strings with a comparator that calls strcmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(void)
{
    const char *words[] = {"delta", "alpha", "echo", "charlie", "bravo", "foxtrot"};
    size_t n = sizeof words / sizeof words[0];

    qsort(words, n, sizeof words[0], cmp);
    for (size_t i = 0; i < n; i++)
        printf("%zu: %s\n", i, words[i]);
    return 0;
}
