"""`.debug_info`: unit headers (DWARF 2 to 5), abbreviation tables and DIEs, read one unit at
a time and only when asked (the units of the functions a trace reaches).

Every read is bounded: offsets are checked against their section, an abbreviation code the
table lacks or a form this reader does not know ends the unit with DwarfError, a unit holds at
most MAX_DIES entries and nests at most MAX_DEPTH deep. References are turned into
`.debug_info` offsets; strings are decoded for the attributes that name things."""
from __future__ import annotations

import bisect
import struct
from typing import Dict, List, Optional, Tuple

from emutrace.dwarf.errors import DwarfError
from emutrace.dwarf.leb import sleb, uleb

MAX_DIES = 2_000_000
MAX_DEPTH = 256

# attributes (DWARF 5 §7.5.4) this reader uses
AT_sibling, AT_location, AT_name, AT_byte_size, AT_bit_offset, AT_bit_size = 0x01, 0x02, 0x03, 0x0B, 0x0C, 0x0D
AT_low_pc, AT_high_pc, AT_language, AT_const_value, AT_inline = 0x11, 0x12, 0x13, 0x1C, 0x20
AT_upper_bound, AT_abstract_origin, AT_artificial, AT_calling_convention = 0x2F, 0x31, 0x34, 0x36
AT_count, AT_data_member_location, AT_declaration, AT_encoding, AT_external = 0x37, 0x38, 0x3C, 0x3E, 0x3F
AT_frame_base, AT_specification, AT_type, AT_ranges, AT_entry_pc = 0x40, 0x47, 0x49, 0x55, 0x52
AT_data_bit_offset, AT_enum_class, AT_linkage_name, AT_str_offsets_base = 0x6B, 0x6D, 0x6E, 0x72
AT_addr_base, AT_rnglists_base, AT_loclists_base, AT_MIPS_linkage_name = 0x73, 0x74, 0x8C, 0x2007
NAME_ATTRS = {AT_name, AT_linkage_name, AT_MIPS_linkage_name}
REF_ATTRS = {AT_type, AT_abstract_origin, AT_specification, AT_sibling}


class Unit:
    __slots__ = ("off", "end", "version", "addr_size", "off_size", "abbrev_off", "die_off", "unit_type")

    def __init__(self, off, end, version, addr_size, off_size, abbrev_off, die_off, unit_type):
        self.off, self.end, self.version, self.addr_size = off, end, version, addr_size
        self.off_size, self.abbrev_off, self.die_off, self.unit_type = off_size, abbrev_off, die_off, unit_type


class Die:
    """tag, attrs (attribute → value), children (DIE offsets), parent offset."""
    __slots__ = ("off", "tag", "attrs", "children", "parent")

    def __init__(self, off, tag, attrs, parent):
        self.off, self.tag, self.attrs, self.children, self.parent = off, tag, attrs, [], parent


def unit_header(info: bytes, off: int) -> Unit:
    if off + 11 > len(info):
        raise DwarfError(f"unit at {off:#x}: truncated header")
    length, = struct.unpack_from("<I", info, off)
    p = off + 4
    off_size = 4
    if length == 0xFFFFFFFF:
        length, = struct.unpack_from("<Q", info, p)
        p += 8
        off_size = 8
    elif length >= 0xFFFFFFF0:
        raise DwarfError(f"unit at {off:#x}: reserved length {length:#x}")
    end = p + length
    if end > len(info) or length < 7:
        raise DwarfError(f"unit at {off:#x}: length {length:#x} runs past the section")
    version, = struct.unpack_from("<H", info, p)
    p += 2
    unit_type = 1
    if version >= 5:
        unit_type, addr_size = info[p], info[p + 1]
        p += 2
        abbrev_off = int.from_bytes(info[p:p + off_size], "little")
        p += off_size
        if unit_type in (2, 6):          # type unit, split type unit: signature + type offset
            p += 8 + off_size
        elif unit_type in (4, 5):        # skeleton, split compile: dwo id
            p += 8
    elif 2 <= version <= 4:
        abbrev_off = int.from_bytes(info[p:p + off_size], "little")
        p += off_size
        addr_size = info[p]
        p += 1
    else:
        raise DwarfError(f"unit at {off:#x}: DWARF version {version} not supported")
    if addr_size not in (4, 8):
        raise DwarfError(f"unit at {off:#x}: address size {addr_size}")
    return Unit(off, end, version, addr_size, off_size, abbrev_off, p, unit_type)


def parse_abbrevs(abbrev: bytes, off: int) -> Dict[int, tuple]:
    """code → (tag, has_children, [(attribute, form, implicit const)])."""
    table = {}
    i = off
    try:
        while True:
            code, i = uleb(abbrev, i)
            if code == 0:
                return table
            tag, i = uleb(abbrev, i)
            children = abbrev[i]
            i += 1
            specs = []
            while True:
                at, i = uleb(abbrev, i)
                form, i = uleb(abbrev, i)
                ic = None
                if form == 0x21:
                    ic, i = sleb(abbrev, i)
                if at == 0 and form == 0:
                    break
                specs.append((at, form, ic))
                if len(specs) > 1000:
                    raise DwarfError("abbreviation with too many attributes")
            table[code] = (tag, bool(children), specs)
    except IndexError:
        raise DwarfError(f"abbreviation table at {off:#x} runs past its section") from None


_FIXED = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x11: 1, 0x12: 2, 0x13: 4, 0x14: 8, 0x0C: 1,
          0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4, 0x29: 1, 0x2A: 2, 0x2B: 3, 0x2C: 4, 0x1C: 4, 0x24: 8,
          0x20: 8, 0x1E: 16}
FIXED_FORMS = _FIXED                 # (lazy.py steps over DIEs made of these alone)
# forms of an offset's size (strp, line_strp, sec_offset, strp_sup, GNU alt ref and strp) and
# of one LEB128 number (udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU addr/str index)
OFFSET_FORMS = frozenset({0x0E, 0x1F, 0x17, 0x1D, 0x1F20, 0x1F21})
ULEB_FORMS = frozenset({0x0F, 0x15, 0x1A, 0x1B, 0x22, 0x23, 0x1F01, 0x1F02})
_REF_LOCAL = {0x11, 0x12, 0x13, 0x14, 0x15}
_STRX = {0x1A, 0x25, 0x26, 0x27, 0x28, 0x1F02}
_ADDRX = {0x1B, 0x29, 0x2A, 0x2B, 0x2C, 0x1F01}


class Reader:
    """The DWARF of one file (its debug sections, inflated): units found by address."""

    def __init__(self, secs: Dict[str, bytes]):
        self.secs = secs
        self.info = secs.get(".debug_info", b"")
        self.abbrev = secs.get(".debug_abbrev", b"")
        self.str = secs.get(".debug_str", b"")
        self.line_str = secs.get(".debug_line_str", b"")
        self._abbrevs: Dict[int, Dict[int, tuple]] = {}
        self._ranges: Optional[Tuple[List[int], List[int], List[int]]] = None   # lo, hi, unit offset

    # -- units by address --------------------------------------------------------------
    def unit_ranges(self) -> Tuple[List[int], List[int], List[int]]:
        if self._ranges is None:
            rows = self._aranges() or self._cu_ranges()
            rows.sort()
            self._ranges = ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
        return self._ranges

    def unit_at(self, addr: int) -> Optional[int]:
        lo, hi, units = self.unit_ranges()
        i = bisect.bisect_right(lo, addr) - 1
        while i >= 0 and lo[i] <= addr:
            if addr < hi[i]:
                return units[i]
            i -= 1
            if len(lo) - i > 64:          # overlapping ranges are rare; do not scan them all
                break
        return None

    def _aranges(self) -> List[tuple]:
        data = self.secs.get(".debug_aranges")
        rows: List[tuple] = []
        if not data:
            return rows
        off = 0
        try:
            while off + 12 <= len(data):
                length, = struct.unpack_from("<I", data, off)
                p, osz = off + 4, 4
                if length == 0xFFFFFFFF:
                    length, = struct.unpack_from("<Q", data, p)
                    p, osz = p + 8, 8
                end = p + length
                if end > len(data) or length < 8:
                    raise DwarfError(".debug_aranges: a set runs past its section")
                p += 2                                    # version
                cu = int.from_bytes(data[p:p + osz], "little")
                p += osz
                asz, ssz = data[p], data[p + 1]
                p += 2
                if asz != 8 or ssz:
                    raise DwarfError(".debug_aranges: unsupported address size")
                p = off + (p - off + 15) // 16 * 16
                while p + 16 <= end:
                    a, n = struct.unpack_from("<QQ", data, p)
                    p += 16
                    if a == 0 and n == 0:
                        break
                    rows.append((a, a + n, cu))
                off = end
        except (IndexError, struct.error):
            raise DwarfError(".debug_aranges is truncated") from None
        return rows

    def _cu_ranges(self) -> List[tuple]:
        """Without .debug_aranges: each unit's own low/high pc or ranges (its first DIE only)."""
        rows = []
        off = 0
        while off < len(self.info):
            u = unit_header(self.info, off)
            die = self.first_die(u)
            if die is not None:
                for lo, hi in self.die_ranges(u, die):
                    rows.append((lo, hi, u.off))
            off = u.end
        return rows

    # -- DIEs --------------------------------------------------------------------------
    def abbrevs(self, off: int) -> Dict[int, tuple]:
        t = self._abbrevs.get(off)
        if t is None:
            if off >= len(self.abbrev):
                raise DwarfError(f"abbreviation offset {off:#x} is outside .debug_abbrev")
            t = self._abbrevs[off] = parse_abbrevs(self.abbrev, off)
        return t

    def first_die(self, u: Unit) -> Optional[Die]:
        dies = self.parse_unit(u, limit=1)
        return dies.get(u.die_off)

    def parse_unit(self, u: Unit, limit: int = MAX_DIES) -> Dict[int, Die]:
        """Every DIE of the unit, by .debug_info offset (the first `limit` only)."""
        info = self.info
        table = self.abbrevs(u.abbrev_off)
        dies: Dict[int, Die] = {}
        parents: List[Optional[int]] = [None]
        i = u.die_off
        try:
            while i < u.end and len(dies) < limit:
                off = i
                code, i = uleb(info, i)
                if code == 0:
                    if len(parents) > 1:
                        parents.pop()
                    continue
                tag, has_children, attrs, i = self.die_body(u, table, code, off, i)
                d = Die(off, tag, attrs, parents[-1])
                dies[off] = d
                if parents[-1] is not None:
                    p = dies.get(parents[-1])
                    if p is not None:
                        p.children.append(off)
                if has_children:
                    parents.append(off)
                    if len(parents) > MAX_DEPTH:
                        raise DwarfError(f"DIE at {off:#x}: nested too deep")
        except (IndexError, struct.error):
            raise DwarfError(f"unit at {u.off:#x} is truncated") from None
        if len(dies) >= MAX_DIES:
            raise DwarfError(f"unit at {u.off:#x} has too many entries")
        return dies

    def die_body(self, u: Unit, table: Dict[int, tuple], code: int, off: int, i: int):
        """(tag, has children, attributes, end) of the DIE at off whose abbreviation code
        (read up to i) is code."""
        ab = table.get(code)
        if ab is None:
            raise DwarfError(f"DIE at {off:#x}: abbreviation {code} is not in its table")
        tag, has_children, specs = ab
        attrs = {}
        base = u.off
        for at, form, ic in specs:
            v, i = self._form(u, form, i, ic, 0)
            if at in REF_ATTRS and (form in _REF_LOCAL):
                v += base
            elif at in NAME_ATTRS:
                v = self._string(u, form, v)
            attrs[at] = v
        if i > u.end:
            raise DwarfError(f"DIE at {off:#x} runs past its unit")
        return tag, has_children, attrs, i

    def _form(self, u: Unit, form: int, i: int, ic, depth: int):
        info = self.info
        n = _FIXED.get(form)
        if n is not None:
            if i + n > len(info):
                raise IndexError
            return int.from_bytes(info[i:i + n], "little"), i + n
        if form == 0x01:                                  # addr
            return int.from_bytes(info[i:i + u.addr_size], "little"), i + u.addr_size
        if form in OFFSET_FORMS:
            return int.from_bytes(info[i:i + u.off_size], "little"), i + u.off_size
        if form == 0x10:                                  # ref_addr
            n = u.addr_size if u.version == 2 else u.off_size
            return int.from_bytes(info[i:i + n], "little"), i + n
        if form in ULEB_FORMS:
            return uleb(info, i)
        if form == 0x0D:
            return sleb(info, i)
        if form == 0x08:                                  # string
            end = info.find(b"\0", i, u.end)
            if end < 0:
                raise DwarfError("unterminated string")
            return info[i:end], end + 1
        if form in (0x09, 0x18):                          # block, exprloc
            n, i = uleb(info, i)
            if i + n > u.end:
                raise IndexError
            return info[i:i + n], i + n
        if form in (0x0A, 0x03, 0x04):                    # block1, block2, block4
            w = {0x0A: 1, 0x03: 2, 0x04: 4}[form]
            n = int.from_bytes(info[i:i + w], "little")
            i += w
            if i + n > u.end:
                raise IndexError
            return info[i:i + n], i + n
        if form == 0x19:                                  # flag_present
            return 1, i
        if form == 0x21:                                  # implicit_const
            return ic, i
        if form == 0x16 and depth == 0:                   # indirect
            f, i = uleb(info, i)
            return self._form(u, f, i, ic, 1)
        raise DwarfError(f"unknown attribute form {form:#x}")

    def _string(self, u: Unit, form: int, v) -> Optional[str]:
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        sec = self.str if form == 0x0E else self.line_str if form == 0x1F else None
        if sec is None:
            return None                   # strx / alt strings: names from other files are not read
        if not isinstance(v, int) or v >= len(sec):
            raise DwarfError(f"string offset {v:#x} is outside its section")
        end = sec.find(b"\0", v)
        return sec[v:end if end >= 0 else len(sec)].decode("utf-8", "replace")

    # -- ranges ------------------------------------------------------------------------
    def die_ranges(self, u: Unit, die: Die, cu_base: int = 0) -> List[Tuple[int, int]]:
        """The [lo, hi) ranges of a DIE; cu_base: its unit's base address (range lists'
        offsets are from it)."""
        a = die.attrs
        lo = a.get(AT_low_pc)
        hi = a.get(AT_high_pc)
        if isinstance(lo, int) and isinstance(hi, int):
            return [(lo, hi if hi > lo else lo + hi)]
        r = a.get(AT_ranges)
        if isinstance(r, int):
            return self._range_list(u, r, lo if isinstance(lo, int) else cu_base)
        return []

    def _range_list(self, u: Unit, off: int, base: int) -> List[Tuple[int, int]]:
        out = []
        if u.version < 5:
            data = self.secs.get(".debug_ranges", b"")
            for _ in range(100_000):
                if off + 16 > len(data):
                    break
                a, b = struct.unpack_from("<QQ", data, off)
                off += 16
                if a == 0 and b == 0:
                    break
                if a == 0xFFFFFFFFFFFFFFFF:
                    base = b
                    continue
                out.append((a + base, b + base))
            return out
        data = self.secs.get(".debug_rnglists", b"")
        try:
            for _ in range(100_000):
                kind = data[off]
                off += 1
                if kind == 0:                              # end_of_list
                    break
                if kind == 5:                              # base_address
                    base, = struct.unpack_from("<Q", data, off)
                    off += 8
                elif kind == 6:                            # start_end
                    a, b = struct.unpack_from("<QQ", data, off)
                    off += 16
                    out.append((a, b))
                elif kind == 7:                            # start_length
                    a, = struct.unpack_from("<Q", data, off)
                    n, off = uleb(data, off + 8)
                    out.append((a, a + n))
                elif kind == 4:                            # offset_pair
                    a, off = uleb(data, off)
                    b, off = uleb(data, off)
                    out.append((base + a, base + b))
                else:                                      # indexed forms need .debug_addr
                    break
        except (IndexError, struct.error):
            raise DwarfError(".debug_rnglists is truncated") from None
        return out
