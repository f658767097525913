/* codeio: code that arrives by read(2), run; each case rounds over different code at the same
 * address, so code translated from an older round and not dropped would print the old value.
 * A read(2) stores into guest memory on the program's behalf, not by a guest instruction:
 *   wx     a page made RW, code read into it from a pipe, mprotect RX, run (W^X, three rounds)
 *   rwx    an RWX page, code read into it from a pipe while it holds code already run
 *   reuse  a buffer read into while RW, unmapped, mapped again RWX at the same address, then
 *          code read into it and run, twice (nothing of the RW mapping may be remembered)
 *   span   one read across an RW page and the RWX page after it; the code in the second runs
 *   file   code read from a memfd (a file) into an RW page, mprotect RX, run
 *   dual   a memfd mapped RW and RX at two addresses: code read into the RW view, run from the RX
 *   perms  reads into pages made read-only and PROT_NONE after a read into them (EFAULT)
 * Prints one line per step; native output is the reference. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int (*fn_t)(void);

enum { CODE = 6 };

/* mov eax, imm32; ret */
static void emit(unsigned char *p, int value)
{
    p[0] = 0xb8;
    memcpy(p + 1, &value, 4);
    p[5] = 0xc3;
}

/* read(2) of n bytes from a pipe that holds `code` returning value, into dst */
static long code_by_pipe(unsigned char *dst, int value, size_t n)
{
    unsigned char code[64] = {0};
    int fds[2];
    if (n > sizeof code || pipe(fds))
        return -1;
    emit(code + n - CODE, value);
    if (write(fds[1], code, n) != (long)n)
        return -1;
    long got = read(fds[0], dst, n);
    close(fds[0]);
    close(fds[1]);
    return got;
}

/* three rounds of code read(2) into dst from a pipe, each returning round * factor, then run at
 * `run` (dst, or the same bytes seen through another mapping); 1 when a read falls short */
static int pipe_rounds(const char *name, unsigned char *dst, unsigned char *run, int factor)
{
    for (int round = 1; round <= 3; round++) {
        if (code_by_pipe(dst, round * factor, CODE) != CODE)
            return 1;
        printf("%s round %d returns %d\n", name, round, ((fn_t)run)());
    }
    return 0;
}

static int wx(void)
{
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int round = 1; round <= 3; round++) {
        if (mprotect(p, 4096, PROT_READ | PROT_WRITE) || code_by_pipe(p + 64, round * 11, CODE) != CODE
            || mprotect(p, 4096, PROT_READ | PROT_EXEC))
            return 1;
        printf("wx round %d returns %d\n", round, ((fn_t)(p + 64))());
    }
    return munmap(p, 4096);
}

static int rwx(void)
{
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pipe_rounds("rwx", p + 128, p + 128, 13) || munmap(p, 4096);
}

static int reuse(void)
{
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 3; i++)
        if (code_by_pipe(p + 256, 1, CODE) != CODE)
            return 1;
    if (munmap(p, 4096)
        || mmap(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
        return 1;
    return pipe_rounds("reuse", p + 256, p + 256, 17) || munmap(p, 4096);
}

static int span(void)
{
    unsigned char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mprotect(p + 4096, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
        return 1;
    for (int round = 1; round <= 3; round++) {
        /* 10 bytes in the RW page, the code at the start of the RWX one */
        if (code_by_pipe(p + 4086, round * 19, 10 + CODE) != 10 + CODE)
            return 1;
        printf("span round %d returns %d\n", round, ((fn_t)(p + 4096))());
    }
    return munmap(p, 8192);
}

static int file(void)
{
    int fd = memfd_create("code", 0);
    unsigned char code[CODE];
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int round = 1; round <= 3; round++) {
        emit(code, round * 23);
        if (pwrite(fd, code, CODE, 0) != CODE || lseek(fd, 0, SEEK_SET)
            || mprotect(p, 4096, PROT_READ | PROT_WRITE) || read(fd, p + 512, CODE) != CODE
            || mprotect(p, 4096, PROT_READ | PROT_EXEC))
            return 1;
        printf("file round %d returns %d\n", round, ((fn_t)(p + 512))());
    }
    close(fd);
    return munmap(p, 4096);
}

static int dual(void)
{
    int fd = memfd_create("dual", 0);
    if (fd < 0 || ftruncate(fd, 4096))
        return 1;
    unsigned char *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unsigned char *x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    if (w == MAP_FAILED || x == MAP_FAILED)
        return 1;
    if (pipe_rounds("dual", w + 32, x + 32, 29))
        return 1;
    close(fd);
    return munmap(w, 4096) || munmap(x, 4096);
}

static int perms(void)
{
    int zero = open("/dev/zero", O_RDONLY);
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 1;
    long r = read(zero, p, 1);
    printf("perms rw read %ld, byte %d\n", r, p[0]);
    mprotect(p, 4096, PROT_READ);
    r = read(zero, p, 1);
    printf("perms ro read %ld %s\n", r, r < 0 && errno == EFAULT ? "EFAULT" : "?");
    mprotect(p, 4096, PROT_NONE);
    r = read(zero, p, 1);
    printf("perms none read %ld %s\n", r, r < 0 && errno == EFAULT ? "EFAULT" : "?");
    mprotect(p, 4096, PROT_READ | PROT_WRITE);
    p[0] = 2;
    r = read(zero, p, 1);
    printf("perms rw again read %ld, byte %d\n", r, p[0]);
    munmap(p, 4096);
    r = read(zero, p, 1);
    printf("perms unmapped read %ld %s\n", r, r < 0 && errno == EFAULT ? "EFAULT" : "?");
    close(zero);
    return 0;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (wx() || rwx() || reuse() || span() || file() || dual() || perms()) {
        printf("failed: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
