"""LEB128 numbers (DWARF 5 §7.6), the one reader of them for debug information, line programs
and the unwind tables (.eh_frame).

The unsigned and the signed reader are written out each (they differ in the sign extension
only): a DIE's attributes are mostly LEB128 numbers, and a shared core would cost a Python call
per number on the DWARF index's hot path."""
from __future__ import annotations

from typing import Tuple

from emutrace.dwarf.errors import DwarfError, Truncated


def uleb(b: bytes, i: int) -> Tuple[int, int]:
    """(value, next offset) of the unsigned LEB128 number at b[i]."""
    r = s = 0
    try:
        while True:
            x = b[i]
            i += 1
            r |= (x & 0x7F) << s
            if x < 0x80:
                return r, i
            s += 7
            if s > 70:
                raise DwarfError("LEB128 number too long")
    except IndexError:
        raise Truncated("truncated LEB128") from None


def sleb(b: bytes, i: int) -> Tuple[int, int]:
    """(value, next offset) of the signed LEB128 number at b[i]."""
    r = s = 0
    try:
        while True:
            x = b[i]
            i += 1
            r |= (x & 0x7F) << s
            s += 7
            if x < 0x80:
                return (r - (1 << s) if x & 0x40 else r), i
            if s > 70:
                raise DwarfError("LEB128 number too long")
    except IndexError:
        raise Truncated("truncated LEB128") from None
