/* forkwait: fork + waitpid (child exits 3), vfork + _exit(4). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char *what, int status)
{
    if (WIFEXITED(status))
        printf("%s exited with %d\n", what, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("%s killed by signal %d\n", what, WTERMSIG(status));
    else
        printf("%s: status 0x%x\n", what, status);
}

int main(void)
{
    int status;

    puts("parent start");
    fflush(stdout);                 /* don't duplicate buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        puts("child");
        exit(3);
    }
    if (waitpid(pid, &status, 0) != pid) {
        perror("waitpid");
        return 1;
    }
    report("child", status);
    fflush(stdout);

    pid = vfork();
    if (pid < 0) {
        perror("vfork");
        return 1;
    }
    if (pid == 0)
        _exit(4);
    if (waitpid(pid, &status, 0) != pid) {
        perror("waitpid");
        return 1;
    }
    report("vfork child", status);
    return 0;
}
