/* ttyio: writes and calls in turn (printf, fflush, usleep three times), for the order of the
 * program's output and the trace on a terminal (tests/test_terminal.py, against ltrace). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    for (int i = 0; i < 3; i++) {
        printf("line %d\n", i);
        fflush(stdout);
        usleep(1000);
    }
    return 0;
}
