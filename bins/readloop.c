/* readloop: `readloop N [PATH]` does N one-byte read() calls from PATH
 * (default: stdin), stopping early at EOF; prints the count of bytes read. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int fd = 0;
    long count = 0;
    char c;

    if (argc > 2 && (fd = open(argv[2], O_RDONLY)) < 0) {
        perror(argv[2]);
        return 1;
    }
    for (long i = 0; i < n; i++) {
        if (read(fd, &c, 1) != 1)
            break;
        count++;
    }
    printf("count = %ld\n", count);
    return 0;
}
