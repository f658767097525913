"""--coverage FILE: the basic blocks the guest executed, per module, written as drcov v2
(Lighthouse, bncov), an lcov tracefile (genhtml; from the modules' DWARF line tables) or text.

Recording is one block counter per engine (Machine.count_blocks). With the compiled event path
it is a C block hook (emutrace/machine/_cover.c) that counts executions in a hash table of block
addresses; Python runs only at a block's first execution, to name its module while the module
map is the one the block ran under, and the counts are drained into the recorder's rows when the
file is written. Without it (EMUTRACE_PURE=1, the reference), a Python block hook counts the same
way. Both write the same bytes (tests/test_coverage_native.py).

A block outside every mapped module (JIT code, a trampoline written to anonymous memory) is
filed under an "[anonymous]" module spanning its memory mapping.
"""
from __future__ import annotations

import bisect
import struct
import weakref
from typing import Dict, List

from emutrace.loader.modules import module_at

from emutrace.dwarf.lines import LineTable
from emutrace.record import record

ANONYMOUS = "[anonymous]"


@record
class CoveredModule:
    id: int
    path: str
    lo: int                 # first mapped address
    hi: int
    base: int               # load bias (for DWARF addresses)
    elf: object = None


class BlockRecorder:
    """The session observer behind --coverage."""

    def __init__(self, notify):
        self.notify = notify                         # the kernel's notice line (emutrace: ...)
        self.modules: List[CoveredModule] = []
        self._module_ids: Dict[tuple, int] = {}
        self.blocks: Dict[tuple, list] = {}          # (module id, offset) → [size, executions]
        self._machines = weakref.WeakSet()           # engines with a counter (an id could be reused)
        self._counters: List[tuple] = []             # (counter, its rows: address → row of blocks)

    # -- session observer ------------------------------------------------------------------
    def attach(self, proc) -> None:
        m = proc.machine
        if m in self._machines:
            return
        self._machines.add(m)
        rows: Dict[int, list] = {}
        kernel = proc.kernel
        owner = weakref.ref(proc)

        def first(addr, size):
            rows[addr] = self._first(kernel.current or owner(), addr, size)
        # The recorder keeps the counter: an exec'd or exited process's engine may be gone
        # before the file is written, its counts not. (The counter holds `first`, which holds
        # the process only weakly, so keeping it does not keep the engine.)
        self._counters.append((m.count_blocks(first), rows))

    def drain(self) -> None:
        """Adds the counters' executions to the rows."""
        lost = 0
        for counter, rows in self._counters:
            for addr, n in counter.drain():
                row = rows.get(addr)
                if row is not None:         # (None: its first() raised, and the run stopped on it)
                    row[1] += n
            lost += counter.lost
        if lost:
            self.notify(f"coverage: {lost} block executions not recorded "
                        "(the block table is full)")

    def _first(self, proc, addr: int, size: int) -> list:
        """A block seen for the first time: find its module, or its anonymous region."""
        mod = module_at(proc.modules, addr)
        if mod is not None:
            key = (mod.path, mod.lo, mod.hi)
            path, lo, hi, base, elf = mod.path, mod.lo, mod.hi, mod.base, mod.elf
        else:
            vma = proc.aspace.find(addr)
            lo, hi = (vma.start, vma.end) if vma is not None else (addr & ~0xFFF, (addr + size + 0xFFF) & ~0xFFF)
            key, path, base, elf = (ANONYMOUS, lo, hi), ANONYMOUS, lo, None
        mid = self._module_ids.get(key)
        if mid is None:
            mid = self._module_ids[key] = len(self.modules)
            self.modules.append(CoveredModule(mid, path, lo, hi, base, elf))
        row = self.blocks.get((mid, addr - lo))
        if row is None:
            row = self.blocks[(mid, addr - lo)] = [size, 0]
        return row

    # -- output ------------------------------------------------------------------------------
    def write(self, f, fmt: str) -> None:
        self.drain()
        WRITERS[fmt](f, self.modules, self.blocks)


def write_drcov(f, modules: List[CoveredModule], blocks) -> None:
    """drcov v2: a text header and module table, then `BB Table: N bbs` and N packed
    struct { uint32 start; uint16 size; uint16 module id } (offsets from the module's base)."""
    lines = ["DRCOV VERSION: 2", "DRCOV FLAVOR: emutrace",
             f"Module Table: version 2, count {len(modules)}",
             "Columns: id, base, end, entry, checksum, timestamp, path"]
    for m in modules:
        lines.append(f"{m.id:3d}, {m.lo:#018x}, {m.hi:#018x}, {0:#018x}, {0:#010x}, {0:#010x}, {m.path}")
    rows = []
    for (mid, off), (size, _n) in sorted(blocks.items()):
        while size > 0:                    # a block longer than 64 KiB becomes several entries
            part = min(size, 0xFFFF)
            rows.append(struct.pack("<IHH", off & 0xFFFFFFFF, part, mid))
            off, size = off + part, size - part
    lines.append(f"BB Table: {len(rows)} bbs")
    f.write(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    f.write(b"".join(rows))


def write_text(f, modules: List[CoveredModule], blocks) -> None:
    """One module per section: `module PATH LO-HI`, then `  +OFFSET SIZE EXECUTIONS FUNCTION`."""
    by_module: Dict[int, list] = {}
    for (mid, off), (size, n) in blocks.items():
        by_module.setdefault(mid, []).append((off, size, n))
    for m in modules:
        rows = sorted(by_module.get(m.id, ()))
        f.write(f"module {m.path} {m.lo:#x}-{m.hi:#x} blocks {len(rows)}\n")
        names = _function_index(m)
        for off, size, n in rows:
            f.write(f"  +{off:#x} {size} {n} {names(m.lo + off)}\n")


def _function_index(m: CoveredModule):
    if m.elf is None:
        return lambda addr: ""
    funcs = sorted((s.value + m.base, s.name) for s in m.elf.functions())
    addrs = [a for a, _ in funcs]

    def name(addr):
        i = bisect.bisect_right(addrs, addr) - 1
        return funcs[i][1] if i >= 0 else ""
    return name


def write_lcov(f, modules: List[CoveredModule], blocks) -> None:
    """An lcov tracefile: for every source file of a module with DWARF lines, DA:line,count for
    each line the line table lists (count: executions of the blocks covering its code)."""
    hits: Dict[str, Dict[int, int]] = {}
    for m in modules:
        table = LineTable.of_elf(m.elf) if m.elf is not None else None
        if table is None:
            continue
        for path, lines in table.all_lines().items():
            file_hits = hits.setdefault(path, {})
            for ln in lines:
                file_hits.setdefault(ln, 0)
        delta = m.lo - m.base             # module offset → the ELF's virtual address
        for (mid, off), (size, n) in blocks.items():
            if mid != m.id:
                continue
            lo = off + delta
            for path, ln in set(table.lines_in(lo, lo + size)):
                hits.setdefault(path, {})[ln] = hits.setdefault(path, {}).get(ln, 0) + n
    f.write("TN:\n")
    for path in sorted(hits):
        if not path:
            continue
        lines = hits[path]
        f.write(f"SF:{path}\n")
        for ln in sorted(lines):
            if ln > 0:
                f.write(f"DA:{ln},{lines[ln]}\n")
        found = sum(1 for ln in lines if ln > 0)
        hit = sum(1 for ln, n in lines.items() if ln > 0 and n)
        f.write(f"LF:{found}\nLH:{hit}\nend_of_record\n")


WRITERS = {"drcov": write_drcov, "lcov": write_lcov, "text": write_text}
BINARY = {"drcov"}


def open_output(path: str, fmt: str):
    """The coverage file, opened before the run so that a bad path fails at once."""
    return open(path, "wb") if fmt in BINARY else open(path, "w", encoding="utf-8", errors="surrogateescape")
