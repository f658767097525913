"""Mapping an ELF image into an address space: its PT_LOAD segments with their own permissions,
at a load bias chosen as the kernel chooses it. Shared by exec (the program, its interpreter)
and the builtin linker (the libraries).
"""
from __future__ import annotations

from typing import Optional

from emutrace.machine.hostmem import forget_resident
from emutrace.machine.memory import AddressSpace
from emutrace.machine.pages import page_down, page_up

from emutrace.loader.elf import ET_DYN, PF_R, PF_W, PF_X, ElfFile

COPY_PIECE = 4 << 20           # a segment goes into guest memory this much at a time


def _prot(flags: int) -> int:
    return (1 if flags & PF_R else 0) | (2 if flags & PF_W else 0) | (4 if flags & PF_X else 0)


def map_elf(aspace: AddressSpace, machine, elf: ElfFile, bias: int, name: str) -> None:
    """Map the PT_LOAD segments at `bias`, with their real permissions."""
    prev_end, prev_prot = 0, 0
    for seg in sorted(elf.loads, key=lambda s: s.vaddr):
        start = page_down(seg.vaddr + bias)
        end = page_up(seg.vaddr + bias + seg.memsz)
        prot = _prot(seg.flags)
        if start < prev_end:                 # a page shared with the previous segment
            aspace.protect(start, prev_end - start, prev_prot | prot)
            start = prev_end
        if end > start:
            aspace.map(start, end - start, prot, name, page_down(seg.offset))
        for off in range(0, seg.filesz, COPY_PIECE):     # (pieces: no copy of a whole segment)
            n = min(COPY_PIECE, seg.filesz - off)
            machine.write(seg.vaddr + bias + off, elf.data[seg.offset + off:seg.offset + off + n])
            forget_resident(elf.data, seg.offset + off, n)   # (a file view: read pages leave the RSS)
        prev_end, prev_prot = max(prev_end, end), prot


def choose_bias(aspace: AddressSpace, elf: ElfFile, preferred: Optional[int]) -> int:
    lo, hi = elf.span()
    if elf.type != ET_DYN:
        return 0
    if preferred is not None:
        return preferred - lo
    return aspace.find_free(hi - lo) - lo
