"""What every strace subject module shares: the small renderings (hex, pointers, clock ticks,
dates, quoted strings) and guest memory reads that never raise.

Memory: mem.read(addr, size) -> bytes | None and mem.cstring(addr, limit) -> (bytes, nul_found)
| None (emutrace.machine.reader.GuestReader); read_bytes and read_cstring give None for anything
unreadable, whatever the reader does.
"""
from __future__ import annotations

import functools
import re
import time as _time
from typing import Dict, Optional

from emutrace.machine.abi import STRACE_ERRNO_MAX, STRACE_TEXTS, strace_byte_texts, strace_octal

PATH_MAX = 4096
MASK64 = (1 << 64) - 1
NULL = STRACE_TEXTS["NULL"]             # (strace's small texts: machine/abi.py, which C shares)
ELLIPSIS = STRACE_TEXTS["ELLIPSIS"]
ID_UNCHANGED = STRACE_TEXTS["ID_UNCHANGED"]


class UnlinkedPath(str):
    """A descriptor's path whose file is no longer reached by it: strace prints '(deleted)'
    after the brackets (fd_path returns one)."""
    __slots__ = ()


def hexval(v: int) -> str:
    v &= MASK64
    return "0" if v == 0 else "%#x" % v


def pointer(v: int) -> str:
    v &= MASK64
    return NULL if v == 0 else "%#x" % v


def written_u32(mem, addr: int, at: int, failed: bool):
    """(None, the 32-bit value a call wrote at `at`), or (the text strace prints for the argument
    at `addr` instead, None): NULL for a null addr, its address when the call failed, `at` is
    null or unreadable."""
    if addr == 0:
        return NULL, None
    v = None if failed or at == 0 else read_u32(mem, at)
    return (hexval(addr), None) if v is None else (None, v)


def id_text(v: int) -> str:
    """A uid or gid: all ones (32 bits) is strace's -1, "leave it unchanged"."""
    v &= 0xffffffff
    return ID_UNCHANGED if v == 0xffffffff else str(v)


def is_error(ret: int) -> bool:
    return -STRACE_ERRNO_MAX <= ret < 0


def clock_ticks(v: int) -> str:
    """clock_t ticks with strace's seconds comment (USER_HZ = 100)."""
    if v == 0:
        return "0"
    return f"{v} /* {v // 100}.{v % 100:02d} s */"


def date_text(sec: int, nsec: Optional[int] = None, digits: int = 9, local: bool = False) -> str:
    """2023-11-14T22:13:20+0000, as strace's sprinttime. strace uses the tracer's local time;
    emutrace prints UTC unless asked (local=True), so traces do not depend on the host."""
    try:
        tm = _time.localtime(sec) if local else _time.gmtime(sec)
    except (OverflowError, OSError, ValueError):
        return ""
    text = _time.strftime("%Y-%m-%dT%H:%M:%S", tm)
    if nsec is not None:
        text += "." + ("%09d" % nsec)[:digits]
    return text + (_time.strftime("%z", tm) if local else "+0000")


def time_comment(sec: int, frac: int, frac_max: int = 999999999, digits: int = 9, local: bool = False) -> str:
    """' /* DATE */' after a time, as strace's sprinttime_ex: none for 0.0, for a fraction out of
    range or a date out of range; no fraction when it is 0."""
    if (sec == 0 and frac == 0) or not 0 <= frac <= frac_max:
        return ""
    date = date_text(sec, frac * (10 ** (9 - digits)) if frac else None, digits, local)
    return f" /* {date} */" if date else ""


@functools.lru_cache(maxsize=None)
def _quote_tables(extra_escape: str):
    """(each byte's text, the pattern of bytes printed in octal that an octal digit follows) for
    quote_string: machine/abi.py's strace_byte_texts (C's STRACE_BYTE_TEXTS), the bytes of
    extra_escape in octal too."""
    table = strace_byte_texts()
    for c in {ord(c) for c in extra_escape}:
        table[c] = strace_octal(c)
    octal = [c for c in range(256) if table[c] == strace_octal(c)]
    before_digit = re.compile(b"[" + b"".join(b"\\x%02x" % c for c in octal) + b"](?=[0-7])")
    return table, before_digit


_SHORT_MAX = 8                  # byte strings this short are quoted once and remembered ...
_SHORT_QUOTED: Dict[bytes, str] = {}
_SHORT_QUOTED_MAX = 4096        # ... up to this many of them


class HexStyle:
    """strace's -x (1: a string holding a byte that is neither printable ASCII nor whitespace
    prints wholly in \\xNN) and -xx (2: every string in \\xNN), process-wide in strace: set by
    the strace formatter while it decodes a call, when its run asked for it."""
    __slots__ = ("level",)

    def __init__(self):
        self.level = 0


HEX = HexStyle()


def _wants_hex(data) -> bool:
    level = HEX.level
    if level == 2:
        return True
    return any(c > 0x7e or (c < 0x20 and not 9 <= c <= 13) for c in data)


def quote_string(data: bytes, force_hex: bool = False, quotes: bool = True,
                 extra_escape: str = "") -> str:
    """strace's string_quote: printable ASCII as is, \\n \\t \\r \\v \\f \\" \\\\ escaped, other bytes as
    the shortest octal escape (\\0, \\33, \\177) unless an octal digit follows (then 3 digits).
    force_hex prints every byte as \\xNN (getrandom). extra_escape: characters printed in octal
    too (strace -y escapes < and > in paths)."""
    if HEX.level and not force_hex:
        if HEX.level == NON_ASCII_CHARS:
            return _quote_chars(data, quotes, extra_escape)
        force_hex = _wants_hex(data)
    if data.__class__ is bytes and len(data) <= _SHORT_MAX and quotes and not force_hex and not extra_escape:
        # read(2)'s and write(2)'s few bytes, the same ones again and again: quoted once
        got = _SHORT_QUOTED.get(data)
        if got is None:
            got = _quote(data, False, True, "")
            if len(_SHORT_QUOTED) < _SHORT_QUOTED_MAX:
                _SHORT_QUOTED[bytes(data)] = got
        return got
    return _quote(data, force_hex, quotes, extra_escape)


NON_ASCII_CHARS = 3         # HEX.level of --strings-in-hex=non-ascii-chars
_C_ESCAPES = {0x22: '\\"', 0x5c: "\\\\", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x0b: "\\v"}


def _quote_chars(data: bytes, quotes: bool, extra_escape: str) -> str:
    """--strings-in-hex=non-ascii-chars (strace 7.x): C's escapes as usual, each other
    non-printable byte as \\xNN on its own (never the whole string, never octal)."""
    out = []
    for c in data:
        esc = _C_ESCAPES.get(c)
        if esc is not None:
            out.append(esc)
        elif 0x20 <= c < 0x7f and chr(c) not in extra_escape:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    text = "".join(out)
    return f'"{text}"' if quotes else text


def _quote(data: bytes, force_hex: bool, quotes: bool, extra_escape: str) -> str:
    if force_hex:
        text = "".join(["\\x%02x" % c for c in data])
    else:
        if not extra_escape and data.isascii():
            text = data.decode("ascii")
            if text.isprintable() and '"' not in text and "\\" not in text:
                return f'"{text}"' if quotes else text     # (most strings: nothing to escape)
        table, octal_before_digit = _quote_tables(extra_escape)
        out = [table[c] for c in data]
        for m in octal_before_digit.finditer(data):
            out[m.start()] = strace_octal(data[m.start()], True)
        text = "".join(out)
    return f'"{text}"' if quotes else text


class NoMem:
    """A GuestReader with nothing readable."""

    def read(self, addr, size):
        return None

    def cstring(self, addr, limit):
        return None


def read_bytes(mem, addr: int, size: int) -> Optional[bytes]:
    if addr == 0 and size:
        return None
    if size == 0:
        return b""
    try:
        data = mem.read(addr & MASK64, size)
    except Exception:
        return None
    if data is None or len(data) < size:
        return None
    return bytes(data[:size])


def read_cstring(mem, addr: int, limit: int):
    try:
        got = mem.cstring(addr & MASK64, limit)
    except Exception:
        return None
    if got is None:
        return None
    data, found = got
    return bytes(data), bool(found)


def read_u32(mem, addr: int) -> Optional[int]:
    d = read_bytes(mem, addr, 4)
    return None if d is None else int.from_bytes(d, "little")


def read_u64(mem, addr: int) -> Optional[int]:
    d = read_bytes(mem, addr, 8)
    return None if d is None else int.from_bytes(d, "little")


def nonzero_tail(f, mem, addr: int, known: int, size: int) -> str:
    """strace's print_nonzero_bytes, for a struct the program says is bigger (size) than the one
    strace knows (known), up to a page: '???' when those bytes cannot be read, nothing when all
    are zero, else '/* bytes K..N */' and the bytes in hex, cut at the string limit."""
    end = min(size, 4096)
    if end <= known:
        return ""
    data = read_bytes(mem, addr + known, end - known)
    if data is None:
        return "???"
    if not any(data):
        return ""
    return f"/* bytes {known}..{end - 1} */ " + f.buf(mem, addr + known, len(data), force_hex=True)


def element_array(f, mem, addr: int, count: int, size: int, render) -> str:
    """strace's print_array, element by element: each element of size bytes is fetched first
    (an unreadable one ends the array with '... /* its address */', the first one: the address
    alone), then the -s limit cuts it with '...'; render(bytes) -> an element's text."""
    items = []
    for i in range(count):
        data = read_bytes(mem, addr + size * i, size)
        if data is None:
            if i == 0:
                return hexval(addr)
            items.append(f"... /* {hexval(addr + size * i)} */")
            break
        if i >= f.string_limit:
            items.append("...")
            break
        items.append(render(data))
    return "[" + ", ".join(items) + "]"


def cstr_n(f, mem, addr: int, n: int) -> str:
    """strace's printstr_ex(addr, n, QUOTE_0_TERMINATED): a NUL-terminated string of at most n
    bytes (memfd_create's name, fsconfig's key), at most the string limit shown; '...' when no
    NUL came within what was shown."""
    if addr == 0:
        return "NULL"
    limit = f.string_limit
    size = min(limit + 1, n)
    # (a reader's cstring(addr, k) reads k + 1 bytes: here no byte past size may be needed)
    got = read_cstring(mem, addr, size - 1) if size else (b"", False)
    if got is None:
        return hexval(addr)
    data, found = got
    if not found and size:
        data = read_bytes(mem, addr, size) or data
    shown = min(size, limit)
    if found and len(data) < shown:
        return quote_string(data)
    return quote_string(data[:shown]) + ("..." if n else "")


def array_of(f, mem, addr: int, n: int, size: int, render, most: int = 1 << 16) -> str:
    """strace's print_array: n elements of `size` bytes, each rendered from its int; [] for none,
    the address when the first cannot be read or the span wraps, '... /* addr */' where reading
    stops, '...' after the string limit's count (not under -v)."""
    if addr == 0:
        return "NULL"
    if n == 0:
        return "[]"
    if n * size > MASK64 - addr:
        return hexval(addr)
    most = most if f.verbose else f.string_limit
    items = []
    for k in range(min(n, most + 1)):      # (strace reads the element after the last shown too)
        d = read_bytes(mem, addr + size * k, size)
        if d is None:
            if not items:
                return hexval(addr)
            items.append(f"... /* {hexval(addr + size * k)} */")
            break
        if k == most:
            items.append("...")
            break
        items.append(render(int.from_bytes(d, "little")))
    return "[" + ", ".join(items) + "]"
