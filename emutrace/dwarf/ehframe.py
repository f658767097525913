"""`.eh_frame` (the LSB's call-frame information): its pointer encodings (DW_EH_PE_*), read by
one function, and its CIE/FDE records, found by section or by PT_GNU_EH_FRAME's
`eh_frame_ptr`. Function discovery (funcs.py) reads the FDEs' ranges; the unwinder (unwind.py)
their rules.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Optional, Tuple

from emutrace.dwarf.errors import DwarfError
from emutrace.dwarf.leb import sleb, uleb
from emutrace.loader.elf import ElfFile

PT_GNU_EH_FRAME = 0x6474E550

# DWARF pointer encodings (DW_EH_PE_*)
PE_ABSPTR, PE_ULEB128, PE_UDATA2, PE_UDATA4, PE_UDATA8 = 0x00, 0x01, 0x02, 0x03, 0x04
PE_SLEB128, PE_SDATA2, PE_SDATA4, PE_SDATA8 = 0x09, 0x0A, 0x0B, 0x0C
PE_PCREL, PE_TEXTREL, PE_DATAREL, PE_FUNCREL, PE_ALIGNED = 0x10, 0x20, 0x30, 0x40, 0x50
PE_INDIRECT, PE_OMIT = 0x80, 0xFF


class EhFrameError(DwarfError):
    pass


_FIXED = {PE_ABSPTR: "<Q", PE_UDATA2: "<H", PE_UDATA4: "<I", PE_UDATA8: "<Q",
          PE_SDATA2: "<h", PE_SDATA4: "<i", PE_SDATA8: "<q"}


def read_encoded(data: bytes, off: int, enc: int, vaddr: int, datarel: int = 0,
                 indirect: bool = False) -> Tuple[Optional[int], int]:
    """One encoded pointer at data[off] (whose link-time address is `vaddr`): (value, next offset).

    The value is None for DW_EH_PE_omit, and for an indirect pointer (its target is in memory the
    file does not give) unless `indirect`, which gives the address where the value is (the
    unwinder reads no memory through it)."""
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
    if enc & PE_INDIRECT and not indirect:
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
        except (DwarfError, struct.error):
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
    except (DwarfError, struct.error):
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
    except (DwarfError, struct.error):
        return None
    if addr is None:
        return None
    off = elf.vaddr_to_offset(addr)
    if off is None:
        return None
    seg = next((s for s in elf.loads if s.vaddr <= addr < s.vaddr + s.filesz), None)
    end = seg.offset + seg.filesz if seg else len(d)
    return d[off:end], addr
