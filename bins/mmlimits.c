/* mmlimits: address-space requests at Linux's limits. Each line: the request and its result
 * (an errno name, or "ok"), so native output is the reference (vm.max_map_count 65530, the
 * default, and a 47-bit address space).
 *   huge       reserve 2^46 bytes PROT_NONE (Linux: fine, nothing is committed), touch nothing
 *   huge-rw    2^46 bytes PROT_READ|PROT_WRITE, MAP_NORESERVE, one page written at each end
 *   toobig     2^47 + 2^46 bytes: more than the address space (ENOMEM)
 *   churn      map 1 MiB, check it reads zeros, write a byte every 64 KiB, unmap: 20,000
 *              times (the host must not grow)
 *   maxmap     mprotect every other page of a 1 GiB range: ENOMEM once the 65,530th map
 *              would be exceeded, and the range stays usable */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const char *err(int e)
{
    return e == ENOMEM ? "ENOMEM" : e == EINVAL ? "EINVAL" : e == EFAULT ? "EFAULT" : "other";
}

static void report(const char *what, void *p)
{
    printf("%-8s %s\n", what, p == MAP_FAILED ? err(errno) : "ok");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t huge = (size_t)1 << 46;
    void *p = mmap(NULL, huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    report("huge", p);
    if (p != MAP_FAILED)
        munmap(p, huge);
    char *q = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    report("huge-rw", q);
    if (q != MAP_FAILED) {
        q[0] = 1;
        q[huge - 1] = 2;
        printf("huge-rw  ends read %d %d\n", q[0], q[huge - 1]);
        munmap(q, huge);
    }
    report("toobig", mmap(NULL, ((size_t)1 << 47) + huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));

    int churn_ok = 1;
    for (int i = 0; i < 20000; i++) {
        char *c = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED || c[4096 * (i % 256)] != 0) {
            churn_ok = 0;
            break;
        }
        for (int off = 0; off < 1 << 20; off += 1 << 16)
            c[off + i % 4096] = 0x5a;
        munmap(c, 1 << 20);
    }
    printf("churn    %s\n", churn_ok ? "ok" : "FAILED");

    size_t range = (size_t)1 << 30;
    char *r = mmap(NULL, range, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    long n = 0;
    int e = 0;
    for (size_t off = 0; off < range; off += 2 * 4096, n++) {
        if (mprotect(r + off, 4096, PROT_READ)) {
            e = errno;
            break;
        }
    }
    /* the maps before: a few dozen; each mprotect of a page inside splits one map into
     * three, so the limit is reached near 32,700 calls */
    printf("maxmap   %s after %s calls\n", e ? err(e) : "no error", n > 30000 && n < 33000 ? "~32,700" : "an unexpected number of");
    r[4096] = 7;                            /* a page left writable */
    printf("maxmap   still usable: %d\n", r[4096]);
    munmap(r, range);
    char *after = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    report("after", after);
    return 0;
}
