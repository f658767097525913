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


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_rdtsc_is_virtual_and_deterministic(tmp_path):
    src = tmp_path / "tsc.c"
    src.write_text(SRC)
    exe = tmp_path / "tsc"
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(src)], check=True)
    a = emutrace(["--no-trace", str(exe)])
    b = emutrace(["--no-trace", str(exe)])
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    first, second, aux, ordered = a.stdout.split()
    assert aux == b"0" and ordered == b"1"
    # virtual monotonic time: 10 s of "uptime" plus a few microseconds of syscalls
    assert 10_000_000_000 <= int(first) < 11_000_000_000
