/* determinism: prints everything that normally differs from run to run
 * (clocks, ids, randomness, addresses, host name). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void hex(const char *label, const unsigned char *b, int n)
{
    printf("%s", label);
    for (int i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int main(void)
{
    struct timespec ts;
    struct timeval tv;
    struct utsname un;
    unsigned char rnd[16] = {0};
    int stack_var = 0;

    clock_gettime(CLOCK_REALTIME, &ts);
    printf("realtime = %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    printf("monotonic = %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
    time_t now = time(NULL);
    printf("time = %ld\n", (long)now);
    gettimeofday(&tv, NULL);
    printf("gettimeofday = %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
    printf("pid = %d ppid = %d uid = %d\n", (int)getpid(), (int)getppid(), (int)getuid());

    long r = getrandom(rnd, sizeof rnd, 0);
    printf("getrandom result = %ld\n", r);
    hex("getrandom = ", rnd, 16);
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, rnd, sizeof rnd) != (ssize_t)sizeof rnd)
            printf("short read from /dev/urandom\n");
        close(fd);
        hex("urandom = ", rnd, 16);
    } else {
        printf("urandom = unavailable\n");
    }

    void *p = malloc(100);
    printf("malloc = %p\n", p);
    printf("stack = %p\n", (void *)&stack_var);
    free(p);

    srand((unsigned)now);
    printf("rand = %d\n", rand());
    if (uname(&un) == 0)
        printf("nodename = %s\n", un.nodename);
    return 0;
}
