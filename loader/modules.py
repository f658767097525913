"""A loaded module: one ELF file mapped at a base address, and what can be asked of it."""
from __future__ import annotations

import bisect
from typing import List, Optional, Tuple

from emutrace.loader.elf import ElfFile
from emutrace.linux.elf import STT_FUNC, STT_GNU_IFUNC


class Module:
    def __init__(self, path: str, elf: ElfFile, base: int):
        self.path = path
        self.elf = elf
        self.base = base
        lo, hi = elf.span()
        self.lo, self.hi = lo + base, hi + base
        self.name = path.rsplit("/", 1)[-1]
        self._funcs: Optional[Tuple[List[int], List[str]]] = None

    def __repr__(self):
        return f"Module({self.name} @ {self.base:#x})"

    def contains(self, addr: int) -> bool:
        return self.lo <= addr < self.hi

    def _index(self):
        if self._funcs is None:
            seen = {}
            for syms in (self.elf.dynsyms, self.elf.symtab):
                for s in syms:
                    if s.defined and s.value and s.type in (STT_FUNC, STT_GNU_IFUNC):
                        seen.setdefault(s.value + self.base, s.name)
            addrs = sorted(seen)
            self._funcs = (addrs, [seen[a] for a in addrs])
        return self._funcs

    def symbolize(self, addr: int) -> Optional[str]:
        """`name` or `name+0xoff` for an address inside this module's functions."""
        addrs, names = self._index()
        i = bisect.bisect_right(addrs, addr) - 1
        if i < 0:
            return None
        off = addr - addrs[i]
        return names[i] if off == 0 else f"{names[i]}+{off:#x}"

    def function_at(self, addr: int) -> Optional[str]:
        addrs, names = self._index()
        i = bisect.bisect_left(addrs, addr)
        return names[i] if i < len(addrs) and addrs[i] == addr else None


def module_at(modules: List[Module], addr: int) -> Optional[Module]:
    for m in modules:
        if m.contains(addr):
            return m
    return None
