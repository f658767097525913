"""RDTSC/RDTSCP read the virtual clock: the same values on every run."""
import shutil
import subprocess

import pytest

from conftest import emutrace

SRC = r"""
#include <stdio.h>
#include <x86intrin.h>
int main(void) {
    unsigned int aux;
    unsigned long long a = __rdtsc();
    unsigned long long b = __rdtscp(&aux);
    printf("%llu %llu %u %d\n", a, b, aux, b >= a);
    return 0;
}
"""


def _output_of_two_runs(tmp_path, name, source) -> bytes:
    """Build `source`, run it twice under emutrace: the (identical) output."""
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    exe = tmp_path / name
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(src)], check=True)
    a = emutrace(["--no-trace", str(exe)])
    b = emutrace(["--no-trace", str(exe)])
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    return a.stdout


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_rdtsc_is_virtual_and_deterministic(tmp_path):
    first, second, aux, ordered = _output_of_two_runs(tmp_path, "tsc", SRC).split()
    assert aux == b"0" and ordered == b"1"
    # virtual monotonic time: 10 s of "uptime" plus a few microseconds of syscalls
    assert 10_000_000_000 <= int(first) < 11_000_000_000


JIT_SRC = r"""
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
int main(void) {
    /* rdtsc; shl rdx, 32; or rax, rdx; ret -- written at run time */
    static const unsigned char code[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(p, code, sizeof code);
    unsigned long long t = ((unsigned long long (*)(void))p)();
    printf("%llu\n", t);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_rdtsc_in_code_written_at_run_time(tmp_path):
    """The instruction hook answers RDTSC wherever it runs, not only in the modules' code."""
    assert 10_000_000_000 <= int(_output_of_two_runs(tmp_path, "jit", JIT_SRC)) < 11_000_000_000
