/* demo: a program with no C library at all.
 *
 * Built with -nostdlib -ffreestanding; it has its own _start, talks to the
 * kernel with raw syscall instructions (write, exit_group) and is dynamically
 * linked against libdemo.so (DT_NEEDED, rpath $ORIGIN, normal PT_INTERP), so
 * it also runs natively through ld.so.
 */

/* from libdemo.so */
extern int demo_counter;
extern const char demo_version[];
long demo_strlen(const char *s);
int demo_puts(const char *s);
int demo_add(int a, int b);
char *demo_itoa(long v, char *buf);
int demo_apply(int (*fn)(int), int x);
const char *demo_name(int i);

__asm__(
    ".text\n"
    ".globl _start\n"
    ".type _start,@function\n"
    "_start:\n"
    "    xor %ebp, %ebp\n"
    "    mov %rsp, %rdi\n"          /* argc/argv/envp block */
    "    and $-16, %rsp\n"
    "    call demo_main\n"
    "    mov %eax, %edi\n"
    "    mov $231, %eax\n"          /* exit_group(status) */
    "    syscall\n"
    "    hlt\n"
    ".size _start, .-_start\n");

static long sys_write(int fd, const void *buf, unsigned long len)
{
    long ret;
    __asm__ volatile ("syscall"
                      : "=a"(ret)
                      : "0"(1L), "D"((long)fd), "S"(buf), "d"(len)
                      : "rcx", "r11", "memory");
    return ret;
}

static int square(int x)
{
    return x * x;
}

/* "<a><b>" into out (no libc, so no strcat) */
static char *join(char *out, const char *a, const char *b)
{
    char *p = out;
    while (*a)
        *p++ = *a++;
    while (*b)
        *p++ = *b++;
    *p = 0;
    return out;
}

int demo_main(long *sp)
{
    char num[32], line[128];
    /* Taking demo_add's address: in the PIE build it is loaded from the GOT
     * (R_X86_64_GLOB_DAT), and ld then routes the direct calls to demo_add
     * through a .plt.got stub instead of a lazy .plt entry.  In the non-PIE
     * build demo_add gets a canonical PLT entry (JUMP_SLOT, st_value != 0). */
    int (*volatile add_ptr)(int, int) = demo_add;
    (void)sp;

    demo_puts("hello from the demo");

    char *s = demo_itoa(demo_add(2, 3), num);
    demo_puts(join(line, "2 + 3 = ", s));

    s = demo_itoa(demo_strlen("emutrace"), num);
    demo_puts(join(line, "strlen(\"emutrace\") = ", s));

    s = demo_itoa(-1234567L, num);
    demo_puts(join(line, "itoa(-1234567) = ", s));

    s = demo_itoa(demo_apply(square, 7), num);
    demo_puts(join(line, "apply(square, 7) = ", s));

    s = demo_itoa(add_ptr(40, 2), num);
    demo_puts(join(line, "add_ptr(40, 2) = ", s));

    demo_puts(join(line, "name(3) = ", demo_name(3)));
    demo_puts(join(line, "version: ", demo_version));

    s = demo_itoa(demo_counter, num);
    join(line, "counter = ", s);
    line[demo_strlen(line) + 1] = 0;
    line[demo_strlen(line)] = '\n';
    sys_write(1, line, demo_strlen(line));      /* raw write from the program */

    sys_write(1, "bye\n", 4);
    return 0;
}
