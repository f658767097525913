"""`.eh_frame` (the LSB's call-frame information): its pointer encodings (DW_EH_PE_*), read by
one function, and its CIE/FDE records, found by section or by PT_GNU_EH_FRAME's
`eh_frame_ptr`. Function discovery (funcs.py) reads the FDEs' ranges; the unwinder (unwind.py)
their rules.
"""
from __future__ import annotations

import struct
from typing import Callable, Dict, List, Optional, Tuple

from emutrace.dwarf.errors import DwarfError
from emutrace.dwarf.leb import sleb, uleb
from emutrace.loader.elf import ElfFile
from emutrace.record import record

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
                cies[start] = parse_cie(data, off, end, lambda pos: vaddr + pos).fde_enc
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
        except (DwarfError, struct.error, IndexError):
            pass                        # one bad record does not hide the others
        off = end
    return out


def entry_span(d, off: int) -> Tuple[int, int]:
    """(where the contents start, where the entry ends) of the CIE or FDE at off: a 32-bit
    length, or 0xffffffff and a 64-bit one."""
    length = struct.unpack_from("<I", d, off)[0]
    pos = off + 4
    if length == 0xFFFFFFFF:
        length = struct.unpack_from("<Q", d, pos)[0]
        pos += 8
    return pos, pos + length


@record
class Cie:
    code_align: int
    data_align: int
    ra_reg: int
    fde_enc: int
    signal: bool
    has_aug_data: bool
    instructions: bytes


def parse_cie(data, pos: int, end: int, vaddr_of: Callable[[int], int]) -> Cie:
    """The CIE whose contents after its id are data[pos:end]. vaddr_of maps a position in data to
    its link-time address (for pc-relative pointers). Its FDEs' pointer encoding is 'R' of a 'z'
    augmentation (absptr otherwise); 'S' marks a signal frame's."""
    version = data[pos]
    pos += 1
    z = data.find(b"\0", pos, end)             # (find: the data may be a file view, no .index)
    if z < 0:
        raise EhFrameError("CIE augmentation string not terminated")
    aug = data[pos:z].decode("ascii", "replace")
    pos = z + 1
    if "eh" in aug:
        pos += 8
    code_align, pos = uleb(data, pos)
    data_align, pos = sleb(data, pos)
    if version == 1:
        ra, pos = data[pos], pos + 1
    else:
        ra, pos = uleb(data, pos)
    fde_enc, signal = PE_ABSPTR, False
    if aug.startswith("z"):
        alen, pos = uleb(data, pos)
        apos, pos = pos, pos + alen
        for ch in aug[1:]:
            if ch == "R":
                fde_enc, apos = data[apos], apos + 1
            elif ch == "L":
                apos += 1
            elif ch == "P":
                penc = data[apos]
                _, apos = read_encoded(data, apos + 1, penc, vaddr_of(apos + 1), indirect=True)
            elif ch == "S":
                signal = True
            elif ch != "B":
                break                   # unknown augmentation: the rest cannot be read
    return Cie(code_align, data_align, ra, fde_enc, signal, aug.startswith("z"), bytes(data[pos:end]))


def _cie_at(data: bytes, off: int, vaddr: int) -> Optional[int]:
    """The FDE pointer encoding of the CIE at off, or None where there is no CIE."""
    try:
        body, end = entry_span(data, off)
        if struct.unpack_from("<I", data, body)[0] != 0:
            return None
        return parse_cie(data, body + 4, end, lambda pos: vaddr + pos).fde_enc
    except (DwarfError, struct.error, IndexError):
        return None


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
