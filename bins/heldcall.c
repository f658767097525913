/* heldcall: library calls that are still open at a system call, for the guest log's held
 * calls (emutrace/guestlog.py flush): a read loop over a file (read, lseek, isatty, as bash's
 * read loop), a signal handler calling library functions while sigprocmask is open (the signal
 * is pending and sigprocmask unblocks it), and, with an argument, a thread reading too. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *volatile word = "handled";
static volatile size_t seen;

static void handler(int sig)
{
    (void)sig;
    seen += strlen(word);           /* a library call while sigprocmask is open */
    seen += (size_t)abs(-2);
}

static void read_loop(const char *path, int rounds)
{
    char c;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    for (int i = 0; i < rounds; i++) {
        if (read(fd, &c, 1) != 1)
            break;
        lseek(fd, 0, SEEK_CUR);
        isatty(fd);
        seen += strlen(word);
    }
    close(fd);
}

static void *reader(void *arg)
{
    read_loop(arg, 20);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *path = argv[0];
    read_loop(path, 20);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    raise(SIGUSR1);
    sigprocmask(SIG_UNBLOCK, &set, NULL);   /* the handler runs before this call returns */

    if (argc > 1) {
        pthread_t t;
        pthread_create(&t, NULL, reader, (void *)path);
        read_loop(path, 20);
        pthread_join(t, NULL);
    }
    printf("seen %zu\n", (size_t)seen);
    return 0;
}
