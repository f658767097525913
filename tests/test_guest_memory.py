"""Guest memory owned by emutrace (emutrace/memory.py, hostmem.py): mprotect, munmap, mremap and
MAP_FIXED change emutrace's mappings, never Unicorn's regions (no copies); released pages go back
to the host and read as zeros; fork copies only touched pages; --max-mem counts committed memory
as Linux does; JIT code never runs stale; Linux's limits give Linux's errors."""
from __future__ import annotations

import pytest

from conftest import built, emutrace, native, status_of

from emutrace.machine.cpu import Machine
from emutrace.machine.memory import MAX_MAP_COUNT, AddressSpace
from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import PAGE

GiB = 1 << 30
BASE = 0x7F0000000000


def _aspace(max_mem=4 * GiB):
    m = Machine()
    a = AddressSpace(m.uc, max_mem)
    a.use_machine(m)
    return m, a


def _regions(uc):
    return sorted(uc.mem_regions())


def _resident(a, start, end):
    """Bytes of [start, end) the host holds for the guest."""
    total = 0
    for lo, n, _ in a.host_pieces(start, end):
        b = [b for b in a.backs if b.start <= lo < b.end][0]
        total += sum(rn for _, rn in b.buf.touched(b.buf_off + lo - b.start, n))
    return total


# ---------------------------------------------------------------- programs against native

@pytest.mark.parametrize("variant", ["pie", "static"])
def test_jit_patterns_like_native(variant):
    """W^X flips, an RWX page rewritten in place, V8's dual-mapped memfd, munmap + MAP_FIXED of
    new code, code inside a large reservation: each rewritten twice, never run stale."""
    exe = built("jit", variant)
    n = native([exe])
    assert n.returncode == 0 and b"dual round 3 returns 301" in n.stdout
    e = emutrace(["--no-trace", exe])
    assert e.stdout == n.stdout, e.stderr.decode(errors="replace")[-2000:]
    assert status_of(e) == status_of(n)


def test_jit_patterns_traced(tmp_path):
    exe = built("jit")
    e = emutrace(["--strace", "-o", str(tmp_path / "t"), exe])
    assert e.stdout == native([exe]).stdout


@pytest.mark.parametrize("variant", ["pie", "static"])
@pytest.mark.parametrize("mode", [["--no-trace"], ["--strace", "-o", "TRACE"]], ids=["untraced", "syscalls"])
def test_code_read_into_pages_like_native(variant, mode, tmp_path):
    """Code that read(2) stores (read's buffer goes straight into host memory where the mapping
    has no exec: AddressSpace.write_window) runs fresh after mprotect RX, in an RWX page, in a
    page mapped again RWX where an RW one was read into, across an RW and an RWX page and
    through a dual-mapped memfd; reads into pages made read-only or PROT_NONE fail."""
    exe = built("codeio", variant)
    n = native([exe])
    assert n.returncode == 0 and b"dual round 3 returns 87" in n.stdout and b"perms none read -1 EFAULT" in n.stdout
    args = [str(tmp_path / "t") if a == "TRACE" else a for a in mode]
    e = emutrace([*args, exe])
    assert e.stdout == n.stdout, e.stderr.decode(errors="replace")[-2000:]
    assert status_of(e) == status_of(n)


def test_address_space_limits_like_native():
    """2^46 reservations (PROT_NONE, and read-write MAP_NORESERVE touched at both ends) work;
    2^47 + 2^46 is ENOMEM; a map/unmap loop keeps reading zeros; mprotect of every other page
    ends in ENOMEM at vm.max_map_count and leaves the range usable."""
    exe = built("mmlimits")
    n = native([exe], timeout=300)
    assert b"maxmap   ENOMEM after ~32,700 calls" in n.stdout and b"toobig   ENOMEM" in n.stdout
    e = emutrace(["--no-trace", exe], timeout=900)
    assert e.stdout == n.stdout, e.stderr.decode(errors="replace")[-2000:]


# ---------------------------------------------------------------- the address space itself

def test_partial_mprotect_and_munmap_leave_unicorn_alone():
    m, a = _aspace()
    a.map(BASE, GiB, 3)
    regions = _regions(m.uc)
    for k in range(0, 64, 2):
        assert a.protect(BASE + k * (1 << 20), PAGE, 1)
    a.unmap(BASE + 3 * (1 << 20), 5 * PAGE)
    a.map(BASE + 5 * (1 << 20), 2 * PAGE, 3)            # MAP_FIXED over an existing mapping
    assert _regions(m.uc) == regions
    assert len(a.vmas) > 60


def test_tlb_enforces_the_new_permissions():
    """With Unicorn's regions left as they are, the guest still faults where mprotect says."""
    m, a = _aspace()
    a.map(0x400000, PAGE, 5)
    a.map(BASE, 4 * PAGE, 3)
    m.write(0x400000, b"\xc6\x03\x01\xf4")              # mov byte [rbx], 1; hlt
    a.protect(BASE + PAGE, PAGE, 1)
    m.set_reg("rbx", BASE + PAGE + 8)
    with pytest.raises(Exception):
        m.uc.emu_start(0x400000, 0x400004)
    assert a.denied[1] == BASE + PAGE
    a.protect(BASE + PAGE, PAGE, 3)
    m.uc.emu_start(0x400000, 0x400003)
    assert m.read(BASE + PAGE + 8, 1) == b"\x01"


def test_released_pages_go_back_to_the_host_and_read_zeros():
    m, a = _aspace()
    a.map(BASE, 64 << 20, 3)
    m.write(BASE, b"\x5a" * (8 << 20))
    assert _resident(a, BASE, BASE + (64 << 20)) >= 8 << 20
    a.discard(BASE, BASE + (4 << 20))                   # MADV_DONTNEED
    assert m.read(BASE + 100, 4) == bytes(4)
    a.unmap(BASE + (4 << 20), 4 << 20)                  # munmap
    assert _resident(a, BASE, BASE + (64 << 20)) < 1 << 20
    a.map(BASE + (4 << 20), 4 << 20, 3)                 # a fresh mapping where data was
    assert m.read(BASE + (6 << 20), 16) == bytes(16)


def test_fork_copies_touched_pages_only():
    m, a = _aspace()
    a.map(BASE, 4 * GiB - (64 << 20), 3, noreserve=True)
    a.map(BASE - GiB, GiB, 0)                           # a PROT_NONE reservation
    m.write(BASE + 12345, b"parent data")
    m.write(BASE + 3 * GiB, b"far away")
    m2, child = _aspace()
    child.copy_from(a)
    assert m2.read(BASE + 12345, 11) == b"parent data" and m2.read(BASE + 3 * GiB, 8) == b"far away"
    assert _resident(child, BASE, BASE + 4 * GiB) <= 64 * PAGE
    assert [(v.start, v.end, v.prot) for v in child.vmas] == [(v.start, v.end, v.prot) for v in a.vmas]
    m.write(BASE + 12345, b"PARENT")                    # the copy is the child's own
    assert m2.read(BASE + 12345, 6) == b"parent"


def test_mremap_moves_touched_pages(tmp_path):
    m, a = _aspace()
    a.map(BASE, GiB, 3)
    m.write(BASE + GiB - 5, b"tail!")
    a.map(BASE + 2 * GiB, 2 * GiB, 3, contents=True)
    a.copy_touched(a, BASE, BASE + GiB, BASE + 2 * GiB)
    a.unmap(BASE, GiB)
    assert m.read(BASE + 3 * GiB - 5, 5) == b"tail!"
    assert _resident(a, BASE + 2 * GiB, BASE + 4 * GiB) <= 16 * PAGE


def test_commit_charge_follows_linux_accounting():
    m, a = _aspace(max_mem=256 << 20)
    a.map(BASE, 8 * GiB, 0)                             # PROT_NONE: not charged
    a.map(BASE - 2 * GiB, GiB, 1)                       # read-only: not charged
    a.map(BASE - 4 * GiB, GiB, 3, noreserve=True)       # MAP_NORESERVE: charged when written
    assert a.committed == 0
    with pytest.raises(OutOfMemory):
        a.map(BASE + 16 * GiB, 512 << 20, 3)            # read-write: charged at once
    assert a.protect(BASE, 128 << 20, 3)                # made writable: charged now
    assert a.committed == 128 << 20
    with pytest.raises(OutOfMemory):
        a.protect(BASE + GiB, 256 << 20, 3)
    assert all(a.touch(BASE - 4 * GiB + k * PAGE) for k in range(100))
    assert not all(a.touch(BASE - 4 * GiB + (200 + k) * PAGE) for k in range(128 << 20 >> 12))
    a.unmap(BASE - 4 * GiB, GiB)
    assert not a.nr_touched


def test_max_map_count():
    m, a = _aspace()
    a.map(BASE, GiB, 3)
    with pytest.raises(OutOfMemory):
        for k in range(MAX_MAP_COUNT):
            a.protect(BASE + 2 * k * PAGE, PAGE, 1)
    assert len(a.vmas) <= MAX_MAP_COUNT
    a.protect(BASE, GiB, 3)                             # merged back into one mapping
    assert len(a.vmas) == 1


def test_mprotect_back_and_forth_does_not_pile_up_mappings():
    m, a = _aspace()
    a.map(BASE, GiB, 3)
    for k in range(1001):
        a.protect(BASE + 7 * PAGE, PAGE, 1 if k & 1 else 3)
    assert len(a.vmas) == 1
    for k in range(100):                                # a guard page walking through
        a.protect(BASE + k * PAGE, PAGE, 0)
        a.protect(BASE + k * PAGE, PAGE, 3)
    assert len(a.vmas) == 1


def test_noreserve_pages_over_max_mem_fault_in_the_guest():
    m, a = _aspace(max_mem=1 << 20)
    a.map(0x400000, PAGE, 5)
    a.map(BASE, GiB, 3, noreserve=True)
    # rep stosb over 2 MiB: the first store past 1 MiB of touched pages is refused
    m.write(0x400000, b"\xf3\xaa\xf4")
    m.set_reg("rdi", BASE)
    m.set_reg("rcx", 2 << 20)
    with pytest.raises(Exception):
        m.uc.emu_start(0x400000, 0x400003)
    assert a.denied is not None and BASE + (1 << 20) - 2 * PAGE <= a.denied[1] <= BASE + (1 << 20)
