/* fib: recursive Fibonacci for function tracing (built "plain" and "pg"). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int n)
{
    return n;
}

__attribute__((noinline)) int fib(int n)
{
    if (n < 2)
        return leaf(n);
    return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    printf("fib(%d) = %d\n", n, fib(n));
    return 0;
}
