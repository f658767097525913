/* Spins without system calls until a 10 ms ualarm fires: the work-driven clock must reach it. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile sig_atomic_t fired;
static void on_alarm(int s) { fired = 1; }
int main(void) { signal(SIGALRM, on_alarm); ualarm(10000, 0); unsigned long n = 0; while (!fired) n++; printf("alarm after spinning %s\n", n > 1000 ? "yes" : "no"); return 0; }
