/* A packer in miniature (tests/test_unpacked.py): the payload, x86-64 code that returns 42
 * followed by a marker string, is stored XOR-encoded (key 0x5a), so neither its bytes nor its
 * marker appear in this file. main decodes it into fresh anonymous memory, makes that executable
 * and calls it, as packers do. The report must name the region, and the region's sha256 must be
 * the payload's; `packer --print-payload` writes the decoded payload (to hash it natively).
 *
 * payload: mov eax, 42; ret; "EMUTRACE-PAYLOAD-MARKER-7f3a"; nop; ret  (36 bytes) */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define KEY 0x5a
static const unsigned char enc[] = {0xe2, 0x70, 0x5a, 0x5a, 0x5a, 0x99, 0x1f, 0x17, 0x0f, 0x0e, 0x08, 0x1b, 0x19, 0x1f, 0x77, 0x0a, 0x1b, 0x03, 0x16, 0x15, 0x1b, 0x1e, 0x77, 0x17, 0x1b, 0x08, 0x11, 0x1f, 0x08, 0x77, 0x6d, 0x3c, 0x69, 0x3b, 0xca, 0x99};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--print-payload") == 0) {
        for (size_t i = 0; i < sizeof enc; i++) putchar(enc[i] ^ KEY);
        return 0;
    }
    unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) return 1;
    for (size_t i = 0; i < sizeof enc; i++) code[i] = enc[i] ^ KEY;
    if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return 1;
    int r = ((int (*)(void))code)();
    printf("payload says %d\n", r);
    return r == 42 ? 0 : 1;
}
