/* The vDSO (docs/time.md): `vdso clock` prints what clock_gettime, gettimeofday, time, getcpu
 * and clock_getres answer around a loop of known work; `vdso unmap` unmaps the vDSO and then
 * reads the clock (SIGSEGV, as on Linux); `vdso protect` makes it PROT_NONE first (the same);
 * `vdso spin` waits for the clock to pass 5 ms in a loop that only reads it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long ns(const struct timespec *t) { return t->tv_sec * 1000000000L + t->tv_nsec; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clock";
    unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
    struct timespec a, b, r;
    if (strcmp(mode, "clock") == 0) {
        printf("vdso %s\n", vdso ? "mapped" : "absent");
        clock_gettime(CLOCK_MONOTONIC, &a);
        volatile unsigned long x = 0;
        for (long i = 0; i < 100000; i++) x += i;
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("loop %ld ns\n", ns(&b) - ns(&a));
        struct timeval tv;
        gettimeofday(&tv, NULL);
        clock_gettime(CLOCK_REALTIME, &a);
        time_t t = time(NULL);
        printf("wall agrees %d\n", tv.tv_sec == a.tv_sec && t == a.tv_sec);
        clock_gettime(CLOCK_MONOTONIC_COARSE, &b);
        clock_gettime(CLOCK_BOOTTIME, &r);
        printf("monotonic never behind %d\n", ns(&r) >= ns(&b));
        clock_getres(CLOCK_MONOTONIC, &r);
        printf("res %ld\n", r.tv_nsec);
        unsigned cpu = 7, node = 7;
#ifdef __GLIBC__
        getcpu(&cpu, &node);
#else
        syscall(SYS_getcpu, &cpu, &node, NULL);       /* (musl has no getcpu) */
#endif
        printf("cpu %u node %u\n", cpu, node);
        return 0;
    }
    if (strcmp(mode, "spin") == 0) {
        long n = 0;
        clock_gettime(CLOCK_MONOTONIC, &a);
        do {
            clock_gettime(CLOCK_MONOTONIC, &b);
            n++;
        } while (ns(&b) - ns(&a) < 5000000);
        printf("spun %s\n", n > 1000 ? "many times" : "few times");
        return 0;
    }
    if (!vdso) return 2;
    /* (Linux's vDSO is two pages, emutrace's one: two pages cover its code either way) */
    /* (Linux's vDSO is two pages, and emutrace's: the whole of it, which is what Linux lets
     * a program unmap) */
    if (strcmp(mode, "unmap") == 0) munmap((void *)vdso, 8192);
    else mprotect((void *)vdso, 8192, PROT_NONE);
    clock_gettime(CLOCK_MONOTONIC, &a);
    printf("survived\n");
    return 1;
}
