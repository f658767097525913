/* libdemo.so: a tiny shared library that needs no C library at all.
 *
 * Built with -nostdlib -ffreestanding -fPIC -shared.  It gives the demo
 * program something interesting to trace and exercises real dynamic
 * relocations:
 *   - R_X86_64_RELATIVE  : the static table of string pointers in demo_name()
 *   - R_X86_64_JUMP_SLOT : demo_puts() calls the exported demo_strlen()
 *                          through the PLT (it is interposable)
 *   - R_X86_64_GLOB_DAT  : demo_puts() updates the exported demo_counter
 *                          through the GOT
 */

#define EXPORT __attribute__((visibility("default")))

EXPORT int demo_counter = 0;              /* bumped by every demo_puts() */
EXPORT const char demo_version[] = "libdemo 1.0";

static const char *const names[] = {     /* pointers -> RELATIVE relocs */
    "zero", "one", "two", "three", "four",
};

static long raw_write(int fd, const void *buf, unsigned long len)
{
    long ret;
    __asm__ volatile ("syscall"
                      : "=a"(ret)
                      : "0"(1L /* SYS_write */), "D"((long)fd), "S"(buf), "d"(len)
                      : "rcx", "r11", "memory");
    return ret;
}

EXPORT long demo_strlen(const char *s)
{
    long n = 0;
    while (s[n])
        n++;
    return n;
}

/* Writes s and a newline to stdout; returns the number of bytes written. */
EXPORT int demo_puts(const char *s)
{
    long n = demo_strlen(s);           /* PLT call -> JUMP_SLOT */
    long r = raw_write(1, s, n);
    r += raw_write(1, "\n", 1);
    demo_counter++;                    /* GOT access -> GLOB_DAT */
    return (int)r;
}

EXPORT int demo_add(int a, int b)
{
    return a + b;
}

/* Decimal representation of v into buf (at least 21 bytes); returns buf. */
EXPORT char *demo_itoa(long v, char *buf)
{
    char tmp[24];
    unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
    int i = 0, j = 0;
    do {
        tmp[i++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[j++] = '-';
    while (i)
        buf[j++] = tmp[--i];
    buf[j] = 0;
    return buf;
}

/* Calls back into the program. */
EXPORT int demo_apply(int (*fn)(int), int x)
{
    return fn(x);
}

/* Returns a constant string from a table of pointers. */
EXPORT const char *demo_name(int i)
{
    if (i < 0 || i >= (int)(sizeof names / sizeof names[0]))
        return "many";
    return names[i];
}
