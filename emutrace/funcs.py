"""Function discovery: where the functions of a module start, and their names.

- `.symtab` when the file has one (every function, static ones included);
- else `.dynsym` (the exported functions) together with the starts of the `.eh_frame` FDEs that
  no dynamic symbol names, called `fun_<addr>` (the link-time address in hex, as `objdump -d`
  shows it). A stripped program keeps `.eh_frame` because unwinding needs it, so its functions
  are still found: every function compiled with unwind tables (the default on x86-64) has an FDE.

For libraries (`--ftrace-libs`) only `.dynsym` is used: their internal functions would be
thousands of anonymous hooks.

`.eh_frame` is parsed by emutrace.dwarf.ehframe (CIE/FDE records; `pc_begin` with the pointer
encoding of the CIE's 'zR' augmentation). FDEs of PLT code are not functions and are left out.
"""
from __future__ import annotations

from typing import Dict

from emutrace.loader.elf import ElfFile
from emutrace.linux.elf import STB_GLOBAL, STB_WEAK, STT_FUNC
from emutrace.dwarf.ehframe import eh_frame_image, parse_eh_frame

PLT_SECTIONS = (".plt", ".plt.sec", ".plt.got", ".iplt")


def _is_plt_code(elf: ElfFile, addr: int) -> bool:
    for name in PLT_SECTIONS:
        sec = elf.section(name)
        if sec is not None and sec.addr <= addr < sec.addr + sec.size:
            return True
    try:
        code = elf.read_vaddr(addr, 12)
    except Exception:
        return True
    if code[:4] == b"\xf3\x0f\x1e\xfa":         # endbr64
        code = code[4:]
    if code[:1] == b"\xf2":                     # bnd
        code = code[1:]
    return code[:2] in (b"\xff\x25", b"\xff\x35")   # jmp *GOT / push GOT+8: PLT entries, PLT0


def _executable(elf: ElfFile, addr: int) -> bool:
    return any(s.vaddr <= addr < s.vaddr + s.filesz and s.flags & 1 for s in elf.loads)


def _rank(sym) -> tuple:
    """Which of several names for one address to show: global, then weak, then local; then a
    name without leading underscores; then the shortest; then by name."""
    bind = {STB_GLOBAL: 0, STB_WEAK: 1}.get(sym.bind, 2)
    return (bind, sym.name.startswith("_"), len(sym.name), sym.name)


def _named(syms) -> Dict[int, str]:
    best: Dict[int, object] = {}
    for s in syms:
        if s.defined and s.type == STT_FUNC and s.value and s.name:
            cur = best.get(s.value)
            if cur is None or _rank(s) < _rank(cur):
                best[s.value] = s
    return {a: s.name for a, s in best.items()}


def discover(elf: ElfFile, program: bool = True) -> Dict[int, str]:
    """Link-time function start → name, for the module's executable code.

    IFUNC symbols are left out: their value is the resolver, which only ld.so calls."""
    if program and any(s.type == STT_FUNC and s.defined and s.value for s in elf.symtab):
        found = _named(elf.symtab)
    else:
        found = _named(elf.dynsyms)
        if program:
            img = eh_frame_image(elf)
            if img is not None:
                for pc, _rng in parse_eh_frame(*img):
                    if pc not in found:
                        found[pc] = f"fun_{pc:x}"
    return {a: n for a, n in sorted(found.items()) if _executable(elf, a) and not _is_plt_code(elf, a)}
