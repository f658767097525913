/* Four functions of known, different costs, called from main in one loop: a profile must rank
 * them heavy > medium > light > tiny, each taking a known share (tests/test_profile_clock.py
 * compares emutrace --ftrace -c with uftrace report on the -pg build). Each does the same kind
 * of work (an integer hash) for a different number of rounds: 8000, 4000, 2000 and 500. */
#include <stdio.h>

static volatile unsigned sink;

/* each function's own loop (no shared helper): its self time is its total time */
#define MIX(name, rounds)                                          \
    __attribute__((noinline)) unsigned name(unsigned x)            \
    {                                                              \
        for (int i = 0; i < (rounds); i++)                         \
            x = (x ^ (x >> 13)) * 2654435761u + (unsigned)i;       \
        return x;                                                  \
    }

MIX(heavy, 8000)
MIX(medium, 4000)
MIX(light, 2000)
MIX(tiny, 500)

int main(void)
{
    unsigned x = 1;
    for (int i = 0; i < 200; i++) {
        x = heavy(x);
        x = medium(x);
        x = light(x);
        x = tiny(x);
    }
    sink = x;
    printf("%u\n", x);
    return 0;
}
