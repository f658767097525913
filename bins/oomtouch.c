/* oomtouch: hostile (run only under emutrace). Reserves 4 GiB with MAP_NORESERVE (mmap succeeds:
 * nothing is committed) and writes one byte to each page. Under --max-mem the kernel can only end
 * it as Linux's OOM killer does: SIGKILL, which no handler catches. A SIGSEGV handler reports the
 * wrong ending. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void segv(int sig)
{
    (void)sig;
    static const char msg[] = "oomtouch: SIGSEGV\n";
    write(1, msg, sizeof msg - 1);
    _exit(3);
}

int main(void)
{
    size_t size = (size_t)4 << 30;
    signal(SIGSEGV, segv);
    signal(SIGBUS, segv);
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    printf("oomtouch: reserved 4 GiB\n");
    fflush(stdout);
    for (size_t off = 0; off < size; off += 4096)
        p[off] = 1;
    printf("oomtouch: touched 4 GiB\n");
    return 0;
}
