/* system: system() and popen()/pclose() (both run /bin/sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int main(void)
{
    char line[128];

    fflush(stdout);
    int st = system("echo hello from system");
    printf("system returned %d (exit status %d)\n", st,
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    fflush(stdout);

    FILE *f = popen("echo one; echo two", "r");
    if (!f) {
        perror("popen");
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        printf("popen: %s\n", line);
    }
    st = pclose(f);
    printf("pclose returned %d (exit status %d)\n", st,
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
