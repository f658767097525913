"""Function discovery: where the functions of a module start, and their names.

- `.symtab` when the file has one (every function, static ones included);
- else `.dynsym` (the exported functions) together with the starts of the `.eh_frame` FDEs that
  no dynamic symbol names, called `fun_<addr>` (the link-time address in hex, as `objdump -d`
  shows it). A stripped program keeps `.eh_frame` because unwinding needs it, so its functions
  are still found: every function compiled with unwind tables (the default on x86-64) has an FDE.

For libraries (`--ftrace-libs`) only `.dynsym` is used: their internal functions would be
thousands of anonymous hooks.

`.eh_frame` is parsed here (CIE/FDE records; `pc_begin` with the pointer encoding of the CIE's
'zR' augmentation), from the section when there is a section table, else from
PT_GNU_EH_FRAME's `eh_frame_ptr`. FDEs of PLT code are not functions and are left out.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Optional, Tuple

from emutrace.loader.elf import ElfFile
from emutrace.linux.elf import STB_GLOBAL, STB_WEAK, STT_FUNC

PT_GNU_EH_FRAME = 0x6474E550

# DWARF pointer encodings (DW_EH_PE_*)
PE_ABSPTR, PE_ULEB128, PE_UDATA2, PE_UDATA4, PE_UDATA8 = 0x00, 0x01, 0x02, 0x03, 0x04
PE_SLEB128, PE_SDATA2, PE_SDATA4, PE_SDATA8 = 0x09, 0x0A, 0x0B, 0x0C
PE_PCREL, PE_TEXTREL, PE_DATAREL, PE_FUNCREL, PE_ALIGNED = 0x10, 0x20, 0x30, 0x40, 0x50
PE_INDIRECT, PE_OMIT = 0x80, 0xFF

PLT_SECTIONS = (".plt", ".plt.sec", ".plt.got", ".iplt")


class EhFrameError(ValueError):
    pass


def _leb(data: bytes, off: int, signed: bool) -> Tuple[int, int]:
    """(value, next offset) of a LEB128 number."""
    result = shift = 0
    while True:
        if off >= len(data):
            raise EhFrameError("truncated LEB128")
        b = data[off]
        off += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            if signed and b & 0x40:
                result -= 1 << shift
            return result, off


def uleb(data: bytes, off: int) -> Tuple[int, int]:
    return _leb(data, off, False)


def sleb(data: bytes, off: int) -> Tuple[int, int]:
    return _leb(data, off, True)


_FIXED = {PE_ABSPTR: "<Q", PE_UDATA2: "<H", PE_UDATA4: "<I", PE_UDATA8: "<Q",
          PE_SDATA2: "<h", PE_SDATA4: "<i", PE_SDATA8: "<q"}


def read_encoded(data: bytes, off: int, enc: int, vaddr: int, datarel: int = 0) -> Tuple[Optional[int], int]:
    """One encoded pointer at data[off] (whose link-time address is `vaddr`): (value, next offset).

    The value is None for DW_EH_PE_omit and for indirect pointers (their target is in memory the
    file does not give)."""
    if enc == PE_OMIT:
        return None, off
    fmt = enc & 0x0F
    if fmt == PE_ULEB128:
        val, nxt = uleb(data, off)
    elif fmt == PE_SLEB128:
        val, nxt = sleb(data, off)
    elif fmt in _FIXED:
        f = _FIXED[fmt]
        size = struct.calcsize(f)
        if off + size > len(data):
            raise EhFrameError("truncated pointer")
        val = struct.unpack_from(f, data, off)[0]
        nxt = off + size
    else:
        raise EhFrameError(f"unknown pointer encoding {enc:#x}")
    app = enc & 0x70
    if app == PE_PCREL:
        val += vaddr
    elif app == PE_DATAREL:
        val += datarel
    elif app not in (0, PE_ALIGNED):
        raise EhFrameError(f"unsupported pointer application {app:#x}")
    if enc & PE_INDIRECT:
        return None, nxt
    return val & 0xFFFFFFFFFFFFFFFF, nxt


def parse_eh_frame(data: bytes, vaddr: int) -> List[Tuple[int, int]]:
    """(pc_begin, pc_range) of every FDE in an .eh_frame image loaded at link-time address `vaddr`."""
    out: List[Tuple[int, int]] = []
    cies: Dict[int, int] = {}           # CIE offset → FDE pointer encoding
    off = 0
    while off + 4 <= len(data):
        start = off
        (length,) = struct.unpack_from("<I", data, off)
        off += 4
        if length == 0:                 # terminator
            break
        if length == 0xFFFFFFFF:
            if off + 8 > len(data):
                break
            (length,) = struct.unpack_from("<Q", data, off)
            off += 8
        end = off + length
        if end > len(data) or length < 4:
            break
        id_off = off
        (cie_id,) = struct.unpack_from("<I", data, off)
        off += 4
        try:
            if cie_id == 0:
                cies[start] = _parse_cie(data, off, end, vaddr)
            else:
                cie_off = id_off - cie_id
                enc = cies.get(cie_off)
                if enc is None and 0 <= cie_off < len(data):
                    enc = _cie_at(data, cie_off, vaddr)
                    if enc is not None:
                        cies[cie_off] = enc
                if enc is not None:
                    pc, nxt = read_encoded(data, off, enc, vaddr + off)
                    rng, _ = read_encoded(data, nxt, enc & 0x0F, vaddr + nxt)
                    if pc and rng:
                        out.append((pc, rng))
        except (EhFrameError, struct.error):
            pass                        # one bad record does not hide the others
        off = end
    return out


def _cie_at(data: bytes, off: int, vaddr: int) -> Optional[int]:
    try:
        (length,) = struct.unpack_from("<I", data, off)
        body = off + 4
        if length == 0xFFFFFFFF:
            (length,) = struct.unpack_from("<Q", data, body)
            body += 8
        if struct.unpack_from("<I", data, body)[0] != 0:
            return None
        return _parse_cie(data, body + 4, body + length, vaddr)
    except (EhFrameError, struct.error):
        return None


def _parse_cie(data: bytes, off: int, end: int, vaddr: int) -> int:
    """The FDE pointer encoding a CIE declares ('R' in a 'z' augmentation; absptr otherwise)."""
    version = data[off]
    off += 1
    aug_end = data.find(b"\0", off, end)
    if aug_end < 0:
        raise EhFrameError("CIE augmentation string not terminated")
    aug = data[off:aug_end].decode("ascii", "replace")
    off = aug_end + 1
    if "eh" in aug:
        off += 8
    _, off = uleb(data, off)           # code alignment
    _, off = sleb(data, off)           # data alignment
    if version == 1:
        off += 1                        # return address register
    else:
        _, off = uleb(data, off)
    enc = PE_ABSPTR
    if aug.startswith("z"):
        _, off = uleb(data, off)       # augmentation data length
        for ch in aug[1:]:
            if ch == "R":
                enc = data[off]
                off += 1
            elif ch == "P":
                penc = data[off]
                off += 1
                _, off = read_encoded(data, off, penc & 0x7F, vaddr + off)
            elif ch == "L":
                off += 1
            elif ch in "SB":
                pass
            else:
                break                   # unknown augmentation: the rest cannot be read
    return enc


def eh_frame_image(elf: ElfFile) -> Optional[Tuple[bytes, int]]:
    """The bytes of .eh_frame and their link-time address, or None."""
    sec = elf.section(".eh_frame")
    if sec is not None and sec.size and sec.offset + sec.size <= len(elf.data):
        return elf.data[sec.offset:sec.offset + sec.size], sec.addr
    hdr = next((s for s in elf.segments if s.type == PT_GNU_EH_FRAME), None)
    if hdr is None or hdr.offset + 4 > len(elf.data):
        return None
    d = elf.data
    version, ptr_enc = d[hdr.offset], d[hdr.offset + 1]
    if version != 1:
        return None
    try:
        addr, _ = read_encoded(d, hdr.offset + 4, ptr_enc, hdr.vaddr + 4, datarel=hdr.vaddr)
    except (EhFrameError, struct.error):
        return None
    if addr is None:
        return None
    off = elf.vaddr_to_offset(addr)
    if off is None:
        return None
    seg = next((s for s in elf.loads if s.vaddr <= addr < s.vaddr + s.filesz), None)
    end = seg.offset + seg.filesz if seg else len(d)
    return d[off:end], addr


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
