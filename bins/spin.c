/* spin (hostile): loops forever without making a single syscall. With an argument it first says
 * "spinning" on stdout (one write), so a test knows the guest has reached its loop. */
#include <unistd.h>

int main(int argc, char **argv)
{
    volatile unsigned long counter = 0;
    (void)argv;
    if (argc > 1)
        write(1, "spinning\n", 9);
    for (;;)
        counter++;
}
