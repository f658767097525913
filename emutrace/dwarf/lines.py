"""DWARF line tables (`.debug_line`, versions 2 to 5): address → (file, line).

Each unit's header gives the file table and the parameters of the line-number program; the
program (DWARF 5 §6.2.5: special, standard and extended opcodes) builds rows of a state
machine, one per address where the line changes. Version 5 headers describe their directory
and file entries with (content type, form) pairs and may keep the strings in
`.debug_line_str`. Only the columns a backtrace and a coverage report need are kept.
"""
from __future__ import annotations

import bisect
import posixpath
import struct
from typing import Dict, List, Optional, Tuple

from emutrace.dwarf.leb import sleb, uleb

# DW_FORM codes that can appear in v5 directory / file entry formats
_FORM_FIXED = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x1E: 16}
DW_FORM_string, DW_FORM_line_strp, DW_FORM_strp, DW_FORM_udata, DW_FORM_block = 0x08, 0x1F, 0x0E, 0x0F, 0x09
DW_LNCT_path, DW_LNCT_directory_index = 1, 2


class LineTable:
    """Rows sorted by address: lookup(addr) → (file, line) or None; lines_of(lo, hi) for coverage."""

    def __init__(self, rows: List[Tuple[int, str, int, bool]]):
        rows.sort(key=lambda r: (r[0], not r[3]))     # an end at an address before a start there
        self.addrs = [r[0] for r in rows]
        self.rows = rows

    @classmethod
    def of_elf(cls, elf) -> Optional["LineTable"]:
        sec = elf.section(".debug_line")
        if sec is None or not sec.size:
            return None
        data = elf.data[sec.offset:sec.offset + sec.size]
        strs = {}
        for name in (".debug_line_str", ".debug_str"):
            s = elf.section(name)
            if s is not None:
                strs[name] = elf.data[s.offset:s.offset + s.size]
        rows: List[Tuple[int, str, int, bool]] = []
        off = 0
        while off + 4 <= len(data):
            try:
                off = _unit(data, off, strs, rows)
            except (IndexError, struct.error, ValueError):
                break
        return cls(rows) if rows else None

    def lookup(self, addr: int) -> Optional[Tuple[str, int]]:
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return None
        a, path, line, end = self.rows[i]
        return None if end else (path, line)

    def lines_in(self, lo: int, hi: int) -> List[Tuple[str, int]]:
        """(file, line) of every row starting in [lo, hi), and of the row covering lo."""
        out = []
        first = self.lookup(lo)
        if first is not None:
            out.append(first)
        i = bisect.bisect_right(self.addrs, lo)
        while i < len(self.rows) and self.rows[i][0] < hi:
            _, path, line, end = self.rows[i]
            if not end:
                out.append((path, line))
            i += 1
        return out

    def all_lines(self) -> Dict[str, set]:
        out: Dict[str, set] = {}
        for _, path, line, end in self.rows:
            if not end and line:
                out.setdefault(path, set()).add(line)
        return out


def _cstr(data, pos: int) -> Tuple[str, int]:
    z = data.index(b"\0", pos)
    return data[pos:z].decode("utf-8", "surrogateescape"), z + 1


def _strp(strs, name, off) -> str:
    blob = strs.get(name, b"")
    return _cstr(blob, off)[0] if off < len(blob) else ""


def _form(data, pos: int, form: int, offset_size: int, strs):
    if form == DW_FORM_string:
        return _cstr(data, pos)
    if form in (DW_FORM_line_strp, DW_FORM_strp):
        off = int.from_bytes(data[pos:pos + offset_size], "little")
        return _strp(strs, ".debug_line_str" if form == DW_FORM_line_strp else ".debug_str", off), pos + offset_size
    if form == DW_FORM_udata:
        return uleb(data, pos)
    if form in _FORM_FIXED:
        n = _FORM_FIXED[form]
        return int.from_bytes(data[pos:pos + n], "little"), pos + n
    if form == DW_FORM_block:
        n, pos = uleb(data, pos)
        return data[pos:pos + n], pos + n
    raise ValueError(f"form {form:#x}")


def _entries(data, pos, offset_size, strs):
    """A v5 directory or file table: [{content type: value}]."""
    nformats = data[pos]
    pos += 1
    formats = []
    for _ in range(nformats):
        ct, pos = uleb(data, pos)
        form, pos = uleb(data, pos)
        formats.append((ct, form))
    count, pos = uleb(data, pos)
    out = []
    for _ in range(count):
        e = {}
        for ct, form in formats:
            e[ct], pos = _form(data, pos, form, offset_size, strs)
        out.append(e)
    return out, pos


def _unit(data, off: int, strs, rows) -> int:
    length = struct.unpack_from("<I", data, off)[0]
    pos, offset_size = off + 4, 4
    if length == 0xFFFFFFFF:
        length = struct.unpack_from("<Q", data, pos)[0]
        pos, offset_size = pos + 8, 8
    end = pos + length
    version = struct.unpack_from("<H", data, pos)[0]
    pos += 2
    if version >= 5:
        pos += 2                                     # address_size, segment_selector_size
    header_length = int.from_bytes(data[pos:pos + offset_size], "little")
    pos += offset_size
    program = pos + header_length
    min_inst = data[pos]
    pos += 1
    if version >= 4:
        pos += 1                                     # maximum_operations_per_instruction
    default_is_stmt = data[pos]
    line_base = struct.unpack_from("<b", data, pos + 1)[0]
    line_range = data[pos + 2]
    opcode_base = data[pos + 3]
    lengths = data[pos + 4:pos + 4 + opcode_base - 1]
    pos += 4 + opcode_base - 1
    if version >= 5:
        dirs_e, pos = _entries(data, pos, offset_size, strs)
        files_e, pos = _entries(data, pos, offset_size, strs)
        dirs = [d.get(DW_LNCT_path, "") for d in dirs_e]
        files = [_join(dirs, f.get(DW_LNCT_directory_index, 0), f.get(DW_LNCT_path, "")) for f in files_e]
    else:
        dirs = [""]
        while data[pos]:
            d, pos = _cstr(data, pos)
            dirs.append(d)
        pos += 1
        files = [""]                                 # file numbers count from 1 before v5
        while data[pos]:
            name, pos = _cstr(data, pos)
            di, pos = uleb(data, pos)
            _, pos = uleb(data, pos)
            _, pos = uleb(data, pos)
            files.append(_join(dirs, di, name))
        pos += 1
    if version < 5 and dirs and not dirs[0]:
        dirs[0] = ""
    _run(data, program, end, min_inst, default_is_stmt, line_base, line_range, opcode_base, lengths,
         files, version, rows)
    return end


def _join(dirs, index, name) -> str:
    if not isinstance(name, str):
        return ""
    if name.startswith("/") or not (0 <= index < len(dirs)) or not dirs[index]:
        return name
    return posixpath.join(dirs[index], name)


def _run(data, pos, end, min_inst, default_is_stmt, line_base, line_range, opcode_base, lengths,
         files, version, rows) -> None:
    first_file = 1
    addr, file, line, is_stmt = 0, first_file, 1, default_is_stmt

    def name_of(i):
        return files[i] if 0 <= i < len(files) else ""

    def emit(end_seq=False):
        rows.append((addr, name_of(file), line, end_seq))      # (is_stmt or not, as addr2line)

    while pos < end:
        op = data[pos]
        pos += 1
        if op >= opcode_base:
            adj = op - opcode_base
            addr += (adj // line_range) * min_inst
            line += line_base + adj % line_range
            emit()
        elif op == 0:
            n, pos = uleb(data, pos)
            sub, body = data[pos], pos + 1
            pos += n
            if sub == 1:
                emit(True)
                addr, file, line, is_stmt = 0, first_file, 1, default_is_stmt
            elif sub == 2:
                addr = int.from_bytes(data[body:pos], "little")
            elif sub == 3 and version < 5:
                name, p = _cstr(data, body)
                files.append(name)
        elif op == 1:
            emit()
        elif op == 2:
            v, pos = uleb(data, pos)
            addr += v * min_inst
        elif op == 3:
            v, pos = sleb(data, pos)
            line += v
        elif op == 4:
            file, pos = uleb(data, pos)
        elif op == 6:
            is_stmt = not is_stmt
        elif op == 8:
            addr += ((255 - opcode_base) // line_range) * min_inst
        elif op == 9:
            addr += struct.unpack_from("<H", data, pos)[0]
            pos += 2
        elif op in (7, 10, 11):
            pass
        else:                                          # 5 set_column, 12 set_isa, unknown: skip args
            for _ in range(lengths[op - 1] if op - 1 < len(lengths) else 0):
                _, pos = uleb(data, pos)
