/* jit: the ways JITs write code at run time, each run twice with different code at the same
 * address, so stale translated code would print the old value:
 *   wx    W^X as HotSpot/V8 do it: write (RW), mprotect RX, run, mprotect RW, rewrite, RX, run
 *   rwx   one RWX page rewritten in place while it runs code
 *   dual  V8's dual mapping: one memfd mapped RW at one address and RX at another; code is
 *         written through the RW view and run through the RX view
 *   remap munmap the code and mmap new code at the same address (MAP_FIXED)
 *   part  code in the middle of a large RWX reservation, the rest mprotected around it
 * Prints one line per step; native output is the reference. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int (*fn_t)(void);

/* mov eax, imm32; ret */
static void emit(unsigned char *p, int value)
{
    p[0] = 0xb8;
    memcpy(p + 1, &value, 4);
    p[5] = 0xc3;
}

static int wx(void)
{
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int round = 1; round <= 3; round++) {
        if (mprotect(p, 4096, PROT_READ | PROT_WRITE))
            return 1;
        emit(p + 64, round * 11);
        if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
            return 1;
        printf("wx round %d returns %d\n", round, ((fn_t)(p + 64))());
    }
    return munmap(p, 4096);
}

static int rwx(void)
{
    unsigned char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int round = 1; round <= 3; round++) {
        emit(p + 4090, round * 7);          /* straddles the two pages */
        printf("rwx round %d returns %d\n", round, ((fn_t)(p + 4090))());
    }
    return munmap(p, 8192);
}

static int dual(void)
{
    int fd = memfd_create("jit-code", 0);
    if (fd < 0 || ftruncate(fd, 65536))
        return 1;
    unsigned char *w = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unsigned char *x = mmap(NULL, 65536, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    if (w == MAP_FAILED || x == MAP_FAILED)
        return 1;
    for (int round = 1; round <= 3; round++) {
        emit(w + 8192 + 16, round * 100 + 1);
        printf("dual round %d returns %d\n", round, ((fn_t)(x + 8192 + 16))());
    }
    munmap(w, 65536);
    munmap(x, 65536);
    return close(fd);
}

static int remap(void)
{
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int round = 1; round <= 3; round++) {
        munmap(p, 4096);
        unsigned char *q = mmap(p, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (q != p || q[64] != 0)           /* a fresh mapping reads zeros */
            return 1;
        emit(q + 64, round * 5);
        mprotect(q, 4096, PROT_READ | PROT_EXEC);
        printf("remap round %d returns %d\n", round, ((fn_t)(q + 64))());
    }
    return munmap(p, 4096);
}

static int part(void)
{
    size_t size = 64 << 20;
    unsigned char *r = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    unsigned char *code = r + (32 << 20);
    for (int round = 1; round <= 3; round++) {
        mprotect(code - 4096, 3 * 4096, PROT_READ | PROT_WRITE);
        emit(code, round * 3);
        emit(code + 4096, round * 1000);
        mprotect(code, 4096, PROT_READ | PROT_EXEC);
        mprotect(code - 4096, 4096, PROT_NONE);
        printf("part round %d returns %d\n", round, ((fn_t)code)());
        mprotect(code + 4096, 4096, PROT_READ | PROT_EXEC);
        printf("part round %d next page returns %d\n", round, ((fn_t)(code + 4096))());
    }
    return munmap(r, size);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int bad = wx() | rwx() | dual() | remap() | part();
    printf("jit %s\n", bad ? "FAILED" : "ok");
    return bad;
}
