/* Code that changes at fixed addresses across exec: each generation writes other code at the same
 * addresses (an RWX page by stores, a W^X page by stores then mprotect, a file mapping filled by
 * the kernel, a page released by MADV_DONTNEED and refilled, and the same bytes at one address
 * every time), runs it and prints what it returns, then execs itself for the next generation.
 * An emulator that keeps translations of the previous program (emutrace's engine pool) must run
 * each generation's own bytes. `execjit fork`: the generations in forked children of one parent. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define GENERATIONS 6

typedef int (*fn)(void);

/* mov eax, imm32 ; ret  -- padded with `pad` nops before it, so the block's size changes too */
static size_t emit(unsigned char *p, int imm, int pad)
{
    size_t n = 0;
    for (int i = 0; i < pad; i++) p[n++] = 0x90;
    p[n++] = 0xB8;
    memcpy(p + n, &imm, 4);
    n += 4;
    p[n++] = 0xC3;
    return n;
}

static void *fixed(void *at, int prot)
{
    void *p = mmap(at, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); exit(2); }
    return p;
}

static int run(int gen)
{
    unsigned char buf[64];

    unsigned char *rwx = fixed((void *)0x50000000, PROT_READ | PROT_WRITE | PROT_EXEC);
    emit(rwx, 100 + gen, 0);                           /* same size, other immediate */
    printf("gen %d rwx %d\n", gen, ((fn)rwx)());

    unsigned char *wx = fixed((void *)0x50010000, PROT_READ | PROT_WRITE);
    emit(wx, 200 + gen, gen % 3);                      /* other size every generation */
    mprotect(wx, 4096, PROT_READ | PROT_EXEC);
    printf("gen %d wx %d\n", gen, ((fn)wx)());

    /* a file mapping: the kernel fills it (no store of the guest's) */
    FILE *f = tmpfile();
    if (f == NULL) { perror("tmpfile"); return 2; }
    memset(buf, 0x90, sizeof buf);
    emit(buf, 300 + gen, 0);
    fwrite(buf, 1, sizeof buf, f);
    fflush(f);
    void *fm = mmap((void *)0x50020000, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fileno(f), 0);
    if (fm == MAP_FAILED) { perror("mmap file"); return 2; }
    printf("gen %d file %d\n", gen, ((fn)fm)());

    /* written, run, released, written again (zero pages in between) */
    unsigned char *rel = fixed((void *)0x50030000, PROT_READ | PROT_WRITE | PROT_EXEC);
    emit(rel, 400 + gen, 0);
    int a = ((fn)rel)();
    madvise(rel, 4096, MADV_DONTNEED);
    emit(rel + 16, 500 + gen, 0);
    printf("gen %d released %d %d first byte %d\n", gen, a, ((fn)(rel + 16))(), rel[0]);

    /* the same bytes at the same address in every generation */
    unsigned char *same = fixed((void *)0x50040000, PROT_READ | PROT_WRITE);
    emit(same, 777, 1);
    mprotect(same, 4096, PROT_READ | PROT_EXEC);
    printf("gen %d same %d\n", gen, ((fn)same)());
    fflush(stdout);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        /* the same, each generation in a forked child of one parent */
        for (int g = 0; g < GENERATIONS; g++) {
            pid_t pid = fork();
            if (pid < 0) { perror("fork"); return 2; }
            if (pid == 0) _exit(run(g));
            int status;
            waitpid(pid, &status, 0);
            printf("child %d status %d\n", g, status);
            fflush(stdout);
        }
        return 0;
    }
    int gen = argc > 1 ? atoi(argv[1]) : 0;
    run(gen);

    if (gen + 1 < GENERATIONS) {
        char next[16];
        snprintf(next, sizeof next, "%d", gen + 1);
        char *args[] = {argv[0], next, NULL};
        execv("/proc/self/exe", args);
        perror("execv");
        return 2;
    }
    return 0;
}
