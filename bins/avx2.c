/* avx2: a loop gcc -O3 -march=x86-64-v3 vectorizes with ymm registers (AVX2), which the CPU model
 * (x86-64-v2, Unicorn 2.1) lacks: tests/test_illegal_insn.py. */
#include <stdio.h>
int main(int c, char **v){ float a[64], b[64]; for(int i=0;i<64;i++) a[i]=i*c; for(int i=0;i<64;i++) b[i]=a[i]*2.5f+a[63-i]; printf("%f\n", b[10]); return 0; }
