"""--coverage FILE: the basic blocks the guest executed, per module, written as drcov v2
(Lighthouse, bncov), an lcov tracefile (genhtml; from the modules' DWARF line tables) or text.

Recording is one block hook per machine (BlockRecorder.install). It is a Python UC_HOOK_BLOCK
callback for now, ~1 µs per executed block; the recorder keeps its state in one dict (block
address → [size, executions]) that a native block hook can fill in its place: the first sight of
a block is all that needs Python (naming its module or anonymous region).

A block outside every mapped module (JIT code, a trampoline written to anonymous memory) is
filed under an "[anonymous]" module spanning its memory mapping.
"""
from __future__ import annotations

import bisect
import struct
from typing import Dict, List

from emutrace.loader.modules import module_at

from .dwarfline import LineTable
from .machine.record import record

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

    def __init__(self, session):
        self.session = session
        self.modules: List[CoveredModule] = []
        self._module_ids: Dict[tuple, int] = {}
        self.blocks: Dict[tuple, list] = {}          # (module id, offset) → [size, executions]
        self._machines = set()

    # -- session observer ------------------------------------------------------------------
    def attach(self, proc) -> None:
        m = proc.machine
        if id(m) in self._machines:
            return
        self._machines.add(id(m))
        seen: Dict[int, list] = {}
        kernel = proc.kernel

        def on_block(addr, size):
            row = seen.get(addr)
            if row is None:
                row = seen[addr] = self._first(kernel.current or proc, addr, size)
            row[1] += 1
        m.hook_block(on_block)

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
