/* pages: page permissions as the CPU enforces them, and code written at run time.
 * Each fault is caught (SIGSEGV handler + siglongjmp) and printed with its si_code and its
 * si_addr relative to the mapping, so the output is the same on every run and machine:
 * unmapped and read-only accesses at an offset inside a page, an access running into the next
 * page, execution of a page without PROT_EXEC, a stack overflow into a guard page, and
 * a JIT's W^X cycle that rewrites code it has run before (stale translated code would print
 * the old value). */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile uintptr_t fault_addr;
static volatile int fault_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    fault_addr = (uintptr_t)si->si_addr;
    fault_code = si->si_code;
    siglongjmp(env, 1);
}

#define TRY(what, base, stmt)                                                              \
    do {                                                                                   \
        if (sigsetjmp(env, 1) == 0) {                                                      \
            stmt;                                                                          \
            printf("%-28s no fault\n", what);                                              \
        } else {                                                                           \
            printf("%-28s SIGSEGV code=%d at base%+ld\n", what, fault_code,                \
                   (long)(fault_addr - (uintptr_t)(base)));                                \
        }                                                                                  \
    } while (0)

static long depth(long n)
{
    volatile char pad[512];
    pad[0] = (char)n;
    return n ? depth(n - 1) + pad[0] : 0;
}

typedef int (*fn_t)(void);

/* mov eax, imm32; ret */
static void emit(unsigned char *p, int value)
{
    p[0] = 0xb8;
    memcpy(p + 1, &value, 4);
    p[5] = 0xc3;
}

int main(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    static char altstack[1 << 16];
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
    sigaltstack(&ss, NULL);
    sigaction(SIGSEGV, &sa, NULL);

    /* two pages: the first read-write, the second gone */
    unsigned char *p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + ps, ps);
    p[100] = 1;
    volatile unsigned char *vp = p;
    TRY("read unmapped +0x123", p, (void)vp[ps + 0x123]);
    TRY("write unmapped +0x45", p, vp[ps + 0x45] = 1);
    TRY("8-byte write across pages", p, *(volatile uint64_t *)(p + ps - 4) = 1);

    mprotect(p, ps, PROT_READ);
    TRY("write read-only +0x77", p, vp[0x77] = 2);
    TRY("read read-only", p, (void)vp[0x77]);
    mprotect(p, ps, PROT_NONE);
    TRY("read PROT_NONE +0x10", p, (void)vp[0x10]);
    mprotect(p, ps, PROT_READ | PROT_WRITE);
    TRY("write after mprotect RW", p, vp[0x77] = 3);
    printf("byte kept across mprotects: %d\n", p[100]);

    /* code in a page without exec */
    emit(p, 7);
    TRY("call a page without exec", p, printf("returned %d\n", ((fn_t)p)()));

    /* W^X: write, make executable, run; rewrite the same bytes; run again */
    for (int round = 1; round <= 3; round++) {
        mprotect(p, ps, PROT_READ | PROT_WRITE);
        emit(p, 100 * round);
        mprotect(p, ps, PROT_READ | PROT_EXEC);
        printf("jit round %d returns %d\n", round, ((fn_t)p)());
    }
    TRY("write code page (RX)", p, vp[0] = 0xc3);

    /* RWX: code rewritten in place without mprotect */
    unsigned char *x = mmap(NULL, ps, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int round = 1; round <= 3; round++) {
        emit(x, round);
        printf("rwx round %d returns %d\n", round, ((fn_t)x)());
    }

    /* a guard page below a stack-like area */
    unsigned char *g = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(g, ps, PROT_NONE);
    TRY("write into guard page top", g, ((volatile unsigned char *)g)[ps - 1] = 1);

    printf("deep recursion: %ld\n", depth(200));
    return 0;
}
