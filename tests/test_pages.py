"""Page permissions under Unicorn's virtual TLB (emutrace/machine/tlb.py): faults where Linux gives them,
with the faulting byte's address (emutrace/machine/faultaddr.py), and code rewritten at run time never
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


@pytest.mark.parametrize("name,code,regs,want", [
    # mov [rbx+rcx*4+0x10], eax
    ("sib store", b"\x89\x44\x8b\x10", {"rbx": 0x200000, "rcx": 0x300}, 0x200000 + 0xC00 + 0x10),
    # mov eax, [rip+0x1ff9ff] (the next instruction is at 0x1006)
    ("rip-relative load", b"\x8b\x05\xfa\xff\x1f\x00", {}, 0x1006 + 0x1FFFFA),
    # mov rax, fs:[0x28]
    ("fs-relative load", b"\x64\x48\x8b\x04\x25\x28\x00\x00\x00", {"fs_base": 0x200400}, 0x200428),
    # push rax: below the stack's lowest mapped byte
    ("push", b"\x50", {"rsp": 0x201000}, 0x200FF8),
    # call +0
    ("call", b"\xe8\x00\x00\x00\x00", {"rsp": 0x201000}, 0x200FF8),
    # leave: pops from rbp
    ("leave", b"\xc9", {"rbp": 0x200123, "rsp": 0x101000}, 0x200123),
    # mov eax, [edi] (32-bit address)
    ("32-bit base", b"\x67\x8b\x07", {"rdi": 0xFFFFFFFF00200456}, 0x200456),
    # mov [rbx-4], rax: an 8-byte store running into the unmapped page from the one before
    ("across pages", b"\x48\x89\x43\xfc", {"rbx": 0x200000}, 0x200000),
])
def test_exact_fault_addresses(name, code, regs, want):
    """The refused page plus the decoded instruction give the faulting byte, as Linux's si_addr."""
    from unicorn import UcError
    from emutrace.machine.faultaddr import exact_address
    from emutrace.machine.cpu import Machine
    from emutrace.machine.memory import AddressSpace
    m = Machine()
    a = AddressSpace(m.uc, 1 << 30)
    a.map(0x1000, 0x1000, 5)                 # code
    a.map(0x100000, 0x1000, 3)               # a stack for `leave`
    a.map(0x1FF000, 0x1000, 3)               # the page before the hole at 0x200000
    m.write(0x1000, code + b"\xf4")
    for r, v in regs.items():
        m.set_reg(r, v)
    with pytest.raises(UcError):
        m.uc.emu_start(0x1000, 0)
    err, page = a.denied
    assert exact_address(m, err, page) == want


def test_a_unicorn_without_virtual_tlb_is_one_clear_error():
    """Unicorn before 2.1 has no virtual TLB mode: the run stops with one line saying so."""
    from unicorn import UcError, unicorn_const as UCC
    from emutrace.machine.cpu import Machine
    from emutrace.machine.memory import AddressSpace
    from emutrace.session import EmutraceError
    m = Machine()

    def refuse(mode):
        raise UcError(UCC.UC_ERR_ARG)
    m.uc.ctl_set_tlb_mode = refuse
    with pytest.raises(EmutraceError, match=r"needs Unicorn 2\.1 or later"):
        AddressSpace(m.uc, 1 << 30)
