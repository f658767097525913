"""Values as text and as typed JSON: uftrace's notation for what uftrace shows (integers,
'c' characters, "strings", enum names joined by |, &function, "..."s for std::string), and
members where uftrace shows `{...}`: `{x=1, y=2, name="a"}` to DEPTH levels, as gdb prints them.

A value that could not be read (optimized out) is `<optimized out>`, as gdb prints it; memory
that cannot be read shows the pointer's address only."""
from __future__ import annotations

import struct
from typing import Callable, Optional

from emutrace.dwarf.types import SHOWN, Array, Enum, Float, FuncType, Int, Pointer, Struct, Type, Unknown, type_name

OPTIMIZED_OUT = "<optimized out>"
DEPTH = 2                    # structure levels shown with their members
MAX_ITEMS = SHOWN            # members or elements shown, then "..."
_ESC = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def c_escape(b: bytes, quote: str = '"') -> str:
    out = []
    for x in b:
        if x == 39 and quote == "'":
            out.append("\\'")
        elif x == 34 and quote == "'":
            out.append('"')
        elif x in _ESC:
            out.append(_ESC[x])
        elif 32 <= x < 127:
            out.append(chr(x))
        else:
            out.append("\\%o" % x)
    return "".join(out)


def _float(data: bytes, size: int) -> Optional[float]:
    if size == 4:
        return struct.unpack("<f", data[:4])[0]
    if size == 8:
        return struct.unpack("<d", data[:8])[0]
    if len(data) >= 10:                        # x87 extended precision
        mant, se = struct.unpack_from("<QH", data)
        exp = se & 0x7FFF
        sign = -1.0 if se & 0x8000 else 1.0
        if exp == 0x7FFF:
            return sign * float("inf") if mant << 1 == 0 else float("nan")
        if mant == 0:
            return sign * 0.0
        try:
            return sign * mant * 2.0 ** (exp - 16383 - 63)
        except OverflowError:
            return sign * float("inf")
    return None


def fmt_float(v: float, size: int) -> str:
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if size == 4:                              # the shortest text that reads back as this float
        for n in range(1, 10):
            s = "%.*g" % (n, v)
            if struct.unpack("<f", struct.pack("<f", float(s)))[0] == v:
                return s
    s = repr(v)
    return s[:-2] if s.endswith(".0") else s             # gdb's 4, not 4.0


def int_text(s: Int, v: int) -> str:
    """An integer, bool or char's text from its value."""
    if s.boolean:
        return "true" if v == 1 else "false" if v == 0 else str(v)
    if s.char and s.size == 1 and s.name == "char":      # signed/unsigned char: numbers (uftrace)
        return "'" + c_escape(bytes([v & 0xFF]), "'") + "'"
    return str(v)


def enum_text(s: Enum, v: int) -> str:
    """An enum's name for v; a flag enum's names joined by |; else the number."""
    for n, x in s.values:
        if x == v:
            return n
    if s.flags and v > 0:
        names, rest = [], v
        for n, x in s.values:
            if x and rest & x == x:
                names.append(n)
                rest &= ~x
        if names:
            return "|".join(names + (["%#x" % rest] if rest else []))
    return str(v)


class Renderer:
    """render(type, bytes) → text; value(type, bytes) → a JSON value. `mem` reads guest memory,
    `symbolize` names a code address."""

    def __init__(self, mem, string_limit: int = 32, symbolize: Callable[[int], Optional[str]] = lambda a: None):
        self.mem = _Bounded(mem)
        self.limit = string_limit
        self.symbolize = symbolize

    # -- text --------------------------------------------------------------------------
    def render(self, t: Type, data: Optional[bytes], depth: int = 0) -> str:
        if data is None:
            return OPTIMIZED_OUT
        s = t.strip()
        if isinstance(s, Int):
            return self._int(s, data)
        if isinstance(s, Enum):
            return self._enum(s, data)
        if isinstance(s, Float):
            v = _float(data, s.size)
            return OPTIMIZED_OUT if v is None else fmt_float(v, s.size)
        if isinstance(s, Pointer):
            return self._pointer(s, data, depth)
        if isinstance(s, Struct):
            return self._struct(s, data, depth)
        if isinstance(s, Array):
            return self._array(s, data, depth)
        return "0x%x" % int.from_bytes(data[:8], "little") if data else "?"

    def _int(self, s: Int, data: bytes) -> str:
        return int_text(s, int.from_bytes(data[:s.size or 1], "little", signed=s.signed))

    def _enum(self, s: Enum, data: bytes) -> str:
        return enum_text(s, int.from_bytes(data[:s.size], "little", signed=s.signed))

    def _pointer(self, p: Pointer, data: bytes, depth: int) -> str:
        addr = int.from_bytes(data[:8], "little")
        tgt = p.target.strip() if p.target is not None else Unknown()
        if p.ref:                                          # a reference: the value it refers to
            if isinstance(tgt, (Struct, Array, Int, Enum, Float, Pointer)) and depth <= DEPTH and tgt.size:
                b = self.mem.read(addr, tgt.size)
                if b is not None:
                    return self.render(tgt, b, depth)
            return "0x%x" % addr
        if addr == 0:
            return "0x0"
        if isinstance(tgt, FuncType):
            name = self.symbolize(addr)
            return "&" + name if name else "0x%x" % addr
        if isinstance(tgt, Int) and tgt.char and tgt.size == 1:
            return self._cstring(addr)
        if isinstance(tgt, Struct) and depth < DEPTH and tgt.size and not tgt.declaration:
            b = self.mem.read(addr, tgt.size)
            if b is not None:
                return "&" + self._struct(tgt, b, depth + 1)
        return "0x%x" % addr

    def _cstring(self, addr: int) -> str:
        got = self.mem.cstring(addr, self.limit)
        if got is None:
            return "0x%x" % addr
        data, whole = got
        return '"' + c_escape(data) + '"' + ("" if whole else "...")

    def _special(self, s: Struct, data: bytes) -> Optional[str]:
        """std::string as "..."s (uftrace), std::vector as its size and first elements."""
        name = s.name or ""
        if name.startswith("basic_string<char,") and len(data) >= 16:
            ptr, n = struct.unpack_from("<QQ", data)
            b = self.mem.read(ptr, min(n, self.limit)) if n else b""
            if b is None:
                return None
            return '"' + c_escape(b) + '"' + ("...s" if n > self.limit else "s")
        if name.startswith("vector<") and len(data) >= 24:
            start, finish = struct.unpack_from("<QQ", data)
            elem = _first_pointer_target(s)
            if elem is None or not elem.strip().size or finish < start:
                return None
            es = elem.strip().size
            n = (finish - start) // es
            shown = []
            for i in range(min(n, MAX_ITEMS)):
                b = self.mem.read(start + i * es, es)
                if b is None:
                    break
                shown.append(self.render(elem, b, DEPTH))
            return "vector[%d]{%s}" % (n, ", ".join(shown) + (", ..." if n > len(shown) else ""))
        return None

    def _struct(self, s: Struct, data: bytes, depth: int) -> str:
        sp = self._special(s, data)
        if sp is not None:
            return sp
        if depth > DEPTH:
            return "{...}"
        shown = s.shown
        if shown is None:
            shown = s.shown = _shown(s)
        parts = []
        for label, m, ms, size, signed in shown:
            if size:                             # a plain integer: its number, read here
                chunk = data[m.offset:m.offset + size]
                text = str(int.from_bytes(chunk, "little", signed=signed)) if len(chunk) == size else "?"
            elif m.bit_size:
                raw = int.from_bytes(data[m.offset:m.offset + 8], "little")
                v = (raw >> m.bit_offset) & ((1 << m.bit_size) - 1)
                if getattr(ms, "signed", False) and v >> (m.bit_size - 1):
                    v -= 1 << m.bit_size
                text = self._enum(ms, v.to_bytes(ms.size, "little", signed=v < 0)) if isinstance(ms, Enum) else str(v)
            else:
                size = ms.size
                chunk = data[m.offset:m.offset + size]
                text = self.render(m.type, chunk, depth + 1) if len(chunk) == size else "?"
            parts.append(label + text)
        if len(s.members) > MAX_ITEMS or s.more:
            parts.append("...")
        return "{" + ", ".join(parts) + "}"

    def _array(self, a: Array, data: bytes, depth: int) -> str:
        es = a.elem.strip()
        if isinstance(es, Int) and es.char and es.size == 1:
            raw = data.split(b"\0", 1)[0]
            return '"' + c_escape(raw[:self.limit]) + '"' + ("..." if len(raw) > self.limit else "")
        n = a.count or 0
        size = es.size
        items = [self.render(a.elem, data[i * size:(i + 1) * size], depth + 1) for i in range(min(n, MAX_ITEMS))]
        return "{" + ", ".join(items) + (", ..." if n > MAX_ITEMS else "") + "}"

    # -- JSON ----------------------------------------------------------------------------
    def value(self, t: Type, data: Optional[bytes]):
        """A JSON value: numbers, true/false, strings for names and text, None when optimized out."""
        if data is None:
            return None
        s = t.strip()
        if isinstance(s, Int) and not (s.char and s.size == 1 and s.name == "char"):
            v = int.from_bytes(data[:s.size or 1], "little", signed=s.signed)
            return bool(v) if s.boolean and v in (0, 1) else v
        if isinstance(s, Float):
            v = _float(data, s.size)
            return v if v is None or v == v and abs(v) != float("inf") else str(v)
        if isinstance(s, Pointer) and not s.ref and len(data) >= 8:
            addr = int.from_bytes(data[:8], "little")
            tgt = s.target.strip() if s.target is not None else None
            if isinstance(tgt, Int) and tgt.char and tgt.size == 1 and addr:
                got = self.mem.cstring(addr, self.limit)
                if got is not None:                    # the string itself (cut at -s)
                    return got[0].decode("utf-8", "backslashreplace")
            if not isinstance(tgt, (Struct, FuncType)):
                return addr
        return self.render(t, data)


class _Bounded:
    """Guest memory as the renderer reads it: no read larger than MAX_READ (a size from lying
    DWARF), none of a negative size."""
    MAX_READ = 1 << 16

    def __init__(self, mem):
        self.m = mem

    def read(self, addr: int, size: int):
        return self.m.read(addr, size) if 0 < size <= self.MAX_READ and 0 <= addr < 1 << 64 else None

    def cstring(self, addr: int, limit: int):
        return self.m.cstring(addr, limit)


def typed(name: str, t: Type, text: str, value) -> dict:
    return {"name": name, "type": type_name(t), "value": value, "text": text}


def _shown(s: Struct) -> list:
    """A structure's shown members, compiled once: (label, member, its type stripped, the size
    of a plain integer read inline or 0, its signedness)."""
    out = []
    for m in s.members[:MAX_ITEMS]:
        ms = m.type.strip()
        plain = isinstance(ms, Int) and not m.bit_size and not ms.boolean and ms.size in (1, 2, 4, 8) \
            and not (ms.char and ms.name == "char")
        out.append((f"{m.name}=" if m.name else "", m, ms, ms.size if plain else 0, ms.signed if plain else False))
    return out


def _first_pointer_target(s: Struct, depth: int = 0):
    for m in s.members:
        ms = m.type.strip()
        if isinstance(ms, Pointer) and m.offset == 0:
            return ms.target
        if isinstance(ms, Struct) and m.offset == 0 and depth < 6:
            r = _first_pointer_target(ms, depth + 1)
            if r is not None:
                return r
    return None
