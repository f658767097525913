/* printfs: the printf family with everything its trace renders (tests/test_printflog.py): every
 * conversion kind, widths and precisions (also from `*`), the stack and xmm argument areas, 200
 * conversions, %n, NULL and unterminated strings at the end of a mapping, fprintf to a file and to
 * stdout, sprintf, snprintf with truncation, dprintf and the v* forms. Built with and without
 * -D_FORTIFY_SOURCE=2 (the __*_chk forms). `printfs wild` ends with a %s of a wild pointer and
 * `printfs fmtend` with a format that runs into an unmapped page (the program dies of either:
 * the trace shows the call as the hooked path does). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int vcall(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap, aq, ar;
    va_start(ap, fmt);
    va_copy(aq, ap);
    va_copy(ar, ap);
    int r = vsnprintf(buf, n, fmt, ap);
    r += vprintf(fmt, aq);
    char big[256];
    r += vsprintf(big, fmt, ar);
    va_end(ap);
    va_end(aq);
    va_end(ar);
    return r;
}

static int vfile(FILE *f, int fd, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int r = vfprintf(f, fmt, ap);
    r += vdprintf(fd, fmt, aq);
    va_end(ap);
    va_end(aq);
    return r;
}

int main(int argc, char **argv)
{
    char buf[512], small[8];
    int n1 = 0, n2 = 0;
    double d[12] = {1.5, -2.25, 3e10, 1e-7, 0.0, -0.0, 123456.789, 1e300, 2.5, -7.125, 42.0, 0.1};

    printf("hello %d %s %c\n", 42, "world", 'x');
    printf("%5d|%-5d|%05d|%+d|% d|%*d|%-*d|\n", 1, 2, 3, 4, 5, 6, 7, 8, 9);
    printf("%hhd %hhu %hd %hu %ld %lu %lld %llu %zu %jd\n", (signed char)-3, (unsigned char)250,
           (short)-300, (unsigned short)65000, -5000000000L, 5000000000UL, -1LL, 18446744073709551615ULL,
           (size_t)77, (long long)-9);
    printf("%x %X %#x %o %#o %lx %hhx %p %p\n", 255, 255, 255, 8, 8, 0xdeadbeefcafeUL, 0x1ff, (void *)buf, NULL);
    printf("%s|%.3s|%10s|%-10s|%.*s|%*.*s|%.0s|\n", "abcdef", "abcdef", "ab", "ab", 2, "xyz", 6, 2, "pqrs", "zz");
    printf("%s %s\n", "a string far longer than the thirty-two characters ltrace shows", (char *)NULL);
    printf("%f %e %g %a %.2f %10.3e %G %E\n", d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
    printf("%f %f %f %f %f %f %f %f %f %f %f %f\n", d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7],
           d[8], d[9], d[10], d[11]);
    printf("%d %f %d %f %s %f %d %f %c %f %ld %f %u %f %x %f %d %f %d %f %d\n", 1, d[0], 2, d[1], "s", d[2],
           3, d[3], 'c', d[4], 4L, d[5], 5u, d[6], 6, d[7], 7, d[8], 8, d[9], 9);
    printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
           "%d %d %d %s %s\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
           21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, "stack", "args");
    printf("100%% %n done %m %d%n\n", &n1, 5, &n2);
    printf("%c%c%c %c %c\n", 'a', '\n', '\\', 0, 200);
    printf("FMT200 %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x \n", -300, -293, -286, -279, -272, -265, -258, -251, -244, -237, -230, -223, -216, -209, -202, -195, -188, -181, -174, -167, -160, -153, -146, -139, -132, -125, -118, -111, -104, -97, -90, -83, -76, -69, -62, -55, -48, -41, -34, -27, -20, -13, -6, 1, 8, 15, 22, 29, 36, 43, 50, 57, 64, 71, 78, 85, 92, 99, 106, 113, 120, 127, 134, 141, 148, 155, 162, 169, 176, 183, 190, 197, 204, 211, 218, 225, 232, 239, 246, 253, 260, 267, 274, 281, 288, 295, 302, 309, 316, 323, 330, 337, 344, 351, 358, 365, 372, 379, 386, 393, 400, 407, 414, 421, 428, 435, 442, 449, 456, 463, 470, 477, 484, 491, 498, 505, 512, 519, 526, 533, 540, 547, 554, 561, 568, 575, 582, 589, 596, 603, 610, 617, 624, 631, 638, 645, 652, 659, 666, 673, 680, 687, 694, 701, 708, 715, 722, 729, 736, 743, 750, 757, 764, 771, 778, 785, 792, 799, 806, 813, 820, 827, 834, 841, 848, 855, 862, 869, 876, 883, 890, 897, 904, 911, 918, 925, 932, 939, 946, 953, 960, 967, 974, 981, 988, 995, 1002, 1009, 1016, 1023, 1030, 1037, 1044, 1051, 1058, 1065, 1072, 1079, 1086, 1093);
    printf("no conversions at all\n");
    printf("%s\n", "tab\there \"quoted\" \001\377");

    sprintf(buf, "%s-%d-%s", "left", 12, "right");
    snprintf(small, sizeof small, "%s %d", "truncated output", 123456);
    snprintf(buf, 0, "%d", 5);
    snprintf(NULL, 0, "%s", "measure");
    int r = snprintf(buf, sizeof buf, "%.*s|%s|%5.2f", 3, "precision", small, 3.14159);
    printf("%d %s\n", r, buf);

    FILE *f = fopen("/tmp/printfs.out", "w");
    if (f != NULL) {
        fprintf(f, "to a file %d %s %f\n", 7, "x", 2.5);
        vfile(f, 1, "v-forms %d %s %g\n", 9, "y", 0.5);
        fclose(f);
    }
    fprintf(stdout, "to stdout %lu\n", 99UL);
    fprintf(stderr, "to stderr %s\n", "e");
    dprintf(1, "dprintf %d %s\n", 3, "fd");
    vcall(buf, 16, "vcall %d %s %f %c|", 11, "va_list string", 1.25, 'q');
    printf("\n");

    /* strings at the end of a mapping: the page after it is unreadable */
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
        mprotect(m + pg, pg, PROT_NONE);
        memset(m, 'A', pg);
        char *end = m + pg - 5;
        printf("%.5s|%.3s|%.*s|%.0s\n", end, end + 2, 4, end + 1, end);
        snprintf(buf, sizeof buf, "%.5s %.40s", end, "ok");
        m[pg - 1] = 0;
        printf("%s|%.2s|%.99999s|%.*s\n", end, end, end, -1, end);
        printf("%.4294967295s|%.18446744073709551615s\n", end, end);
        /* the same bytes as the mappings change under them: the trace reads one byte past
         * what printf reads */
        memset(m + pg - 8, 'B', 8);
        printf("[%.8s]\n", m + pg - 8);
        mprotect(m + pg, pg, PROT_READ);
        printf("[%.8s]\n", m + pg - 8);
        mprotect(m + pg, pg, PROT_NONE);
        printf("[%.8s]\n", m + pg - 8);
        munmap(m + pg, pg);
        printf("[%.8s]\n", m + pg - 8);
        mmap(m + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        printf("[%.8s]\n", m + pg - 8);
        if (argc > 1 && strcmp(argv[1], "fmtend") == 0) {
            munmap(m + pg, pg);
            printf(m + pg - 8);         /* an unterminated format at a mapping's end: printf dies */
        }
    }
    int fd = open("/dev/null", O_WRONLY);
    dprintf(fd, "%s %d\n", "null", fd);
    if (argc > 1 && strcmp(argv[1], "wild") == 0)
        printf("%d %s\n", 1, (char *)0x1234);
    return 0;
}
