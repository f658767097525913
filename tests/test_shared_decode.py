"""The host process's table of decoded blocks (emutrace/machine/_insncount.c, docs/processes.md)
is shared by every engine of a run: a block's instruction count comes from it when the same
address and size hold the same bytes. Counts drive the virtual clock, which RDTSC shows the guest,
so a count taken from another program's block of the same address and size but other bytes would
be visible. Here two programs' runs put two code bodies of the same size at the same address (16
one-byte nops, or four four-byte nops, then ret) and time the call with RDTSC: run one after the
other in one shell, each must read what it reads alone."""
import shutil
import subprocess

import pytest

from conftest import emutrace

SRC = r"""
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>
int main(int argc, char **argv) {
    unsigned char *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    for (int k = 1; k < argc; k++) {
        if (argv[k][0] == 'a') memset(p, 0x90, 16);
        else for (int i = 0; i < 4; i++) memcpy(p + 4 * i, "\x0f\x1f\x40\x00", 4);
        p[16] = 0xc3;
        unsigned long long a = __rdtsc();
        ((void (*)(void))p)();
        unsigned long long b = __rdtsc();
        printf("%c %llu\n", argv[k][0], b - a);
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def jitcount(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    d = tmp_path_factory.mktemp("jitcount")
    (d / "jc.c").write_text(SRC)
    subprocess.run(["gcc", "-O1", "-o", str(d / "jc"), str(d / "jc.c")], check=True)
    return d / "jc"


def _alone(exe, which: str) -> bytes:
    r = emutrace(["--no-trace", str(exe), which])
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_same_address_and_size_other_bytes_across_exec(jitcount):
    a, b = _alone(jitcount, "a"), _alone(jitcount, "b")
    assert a != b.replace(b"b", b"a")          # (the two bodies do count differently)
    r = emutrace(["--no-trace", "sh", "-c", f"{jitcount} a; {jitcount} b; {jitcount} a; ({jitcount} b)"])
    assert r.returncode == 0, r.stderr
    assert r.stdout == a + b + a + b


@pytest.mark.parametrize("pure", ["0", "1"])
def test_same_address_and_size_other_bytes_in_one_process(jitcount, pure):
    """The engine's own table keys a block by address and size: the page's first fetch after the
    guest rewrote it empties its entries there (tlb.py, rwx_rights), so `b` after `a` reads what
    `b` reads alone, and `a` after `b` what `a` does, on both event paths."""
    env = {"EMUTRACE_PURE": pure}
    a, b = (emutrace(["--no-trace", str(jitcount), w], env=env).stdout for w in ("a", "b"))
    r = emutrace(["--no-trace", str(jitcount), "a", "b", "a", "b"], env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == a + b + a + b
