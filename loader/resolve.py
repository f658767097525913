"""emutrace's own resolution of every GOT slot: which function each slot reaches.

For each JUMP_SLOT and GLOB_DAT relocation of every module, find the defining module and
symbol as ld.so would: global scope in breadth-first load order (the program first), symbol
versions (the version the reference asks for, else the default one), weak definitions only
when nothing strong exists. An IFUNC is named by its IFUNC symbol (`strlen`), whatever
implementation its resolver picks. This is how calls are named whatever the PLT layout, and
a test checks it against what ld.so actually wrote into the GOT.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from emutrace.record import record

from emutrace.loader.elf import R_GLOB_DAT, R_JUMP_SLOT
from emutrace.loader.linker import Scope
from emutrace.loader.modules import Module
from emutrace.linux.elf import STT_FUNC, STT_GNU_IFUNC, STT_TLS



@record(frozen=True)
class GotSlot:
    module: Module            # the module whose GOT holds the slot
    address: int              # absolute address of the slot
    name: str                 # the referenced symbol
    version: Optional[str]
    kind: int                 # R_JUMP_SLOT or R_GLOB_DAT
    definer: Optional[Module]
    value: Optional[int]      # the address ld.so writes (None for IFUNC: the resolver decides)
    ifunc: bool = False


def scope_order(modules: List[Module]) -> List[Module]:
    """The global scope: the program, then its DT_NEEDED closure breadth-first, by soname."""
    if not modules:
        return []
    by_name: Dict[str, Module] = {}
    for m in modules:
        by_name.setdefault(m.name, m)
        if m.elf.soname:
            by_name.setdefault(m.elf.soname, m)
    order = [modules[0]]
    seen = {id(modules[0])}
    i = 0
    while i < len(order):
        for name in order[i].elf.needed:
            m = by_name.get(name) or by_name.get(name.rsplit("/", 1)[-1])
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                order.append(m)
        i += 1
    for m in modules:                 # anything mapped but not needed (dlopen) comes last
        if id(m) not in seen:
            seen.add(id(m))
            order.append(m)
    return order


class GotResolver:
    def __init__(self, modules: List[Module]):
        self.order = scope_order(modules)
        self.scope = Scope(self.order)
        self._cache: Dict[tuple, tuple] = {}

    def lookup(self, name: str, version: Optional[str], for_plt: bool = False):
        key = (name, version, for_plt)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self.scope.lookup(name, version, for_plt=for_plt) or (None, None)
        return hit

    def slots(self, module: Module, functions_only: bool = True) -> List[GotSlot]:
        out = []
        syms = module.elf.dynsyms
        for r in module.elf.plt_relocs + module.elf.relocs:
            if r.type not in (R_JUMP_SLOT, R_GLOB_DAT) or not 0 < r.sym < len(syms):
                continue
            ref = syms[r.sym]
            if ref.type == STT_TLS:
                continue
            dm, ds = self.lookup(ref.name, ref.version, for_plt=r.type == R_JUMP_SLOT)
            if functions_only and r.type == R_GLOB_DAT:
                typ = ds.type if ds is not None else ref.type
                if typ not in (STT_FUNC, STT_GNU_IFUNC):
                    continue
            ifunc = ds is not None and ds.type == STT_GNU_IFUNC
            value = None if ds is None or ifunc else ds.value + dm.base
            out.append(GotSlot(module, r.offset + module.base, ref.name, ref.version, r.type, dm, value, ifunc))
        return out
