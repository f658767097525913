"""Page permissions under Unicorn's virtual TLB (emutrace/tlb.py): faults where Linux gives them,
with the faulting byte's address (emutrace/faultaddr.py), and code rewritten at run time never
run stale. bins/pages prints every fault relative to its mapping, so native output is the
reference."""
from __future__ import annotations

import pytest

from conftest import built, emutrace, native, status_of

VARIANTS = ["pie", "nopie", "fnoplt", "static", "static-pie", "musl-static"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", [["--no-trace"], ["-o", "TRACE"], ["--strace", "-o", "TRACE"]],
                         ids=["untraced", "calls", "syscalls"])
def test_pages_like_native(variant, mode, tmp_path):
    exe = built("pages", variant)
    n = native([exe])
    assert n.returncode == 0 and b"jit round 3 returns 300" in n.stdout
    args = [str(tmp_path / "t") if a == "TRACE" else a for a in mode]
    e = emutrace([*args, exe])
    assert e.stdout == n.stdout, e.stderr.decode(errors="replace")[-2000:]
    assert status_of(e) == status_of(n)


def test_fault_addresses_reach_the_trace(tmp_path):
    """The strace line of each SIGSEGV carries the exact si_addr, not its page."""
    exe = built("pages")
    out = tmp_path / "t"
    e = emutrace(["--strace", "-o", str(out), exe])
    assert e.returncode == 0
    segv = [ln for ln in out.read_text().splitlines() if ln.startswith("--- SIGSEGV")]
    assert len(segv) == 8, segv
    offsets = {int(ln.split("si_addr=")[1].rstrip("} -"), 16) & 0xFFF for ln in segv}
    assert {0x123, 0x45, 0x77, 0x10, 0xFFF} <= offsets


def test_unmapping_code_it_ran(tmp_path):
    """munmap of pages that held translated code goes through Unicorn's code-cache lookup, which
    must not be taken for a guest fault (python3 maps and unmaps its extension modules)."""
    code = "import ctypes, ctypes.util, json, decimal; print(decimal.Decimal(1) / 7)"
    n = native(["/usr/bin/python3", "-c", code])
    e = emutrace(["--no-trace", "/usr/bin/python3", "-c", code])
    assert e.stdout == n.stdout and e.returncode == 0, e.stderr[-2000:]
