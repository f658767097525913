"""The machinery of emutrace.decode.xlat: a named set of Linux constants (Xlat), how a set is
written ("NAME=value NAME ..."; a name emutrace.linux declares takes its value from there), the
registry of sets by name (SETS) and the process-wide print style (strace's -X). The sets
themselves are declared in emutrace.decode.xlatsets; emutrace.decode.xlat is the API.
"""
from __future__ import annotations

from typing import Dict, Iterable, Optional, Tuple

from emutrace.linux import VALUES as LINUX

class Style:
    """How constants print (strace's -X, process-wide in strace): 'abbrev' (O_RDONLY), 'raw'
    (0) or 'verbose' (0 /* O_RDONLY */). The strace formatter sets it while it decodes a call
    (SyscallFormatter: only when its run asked for another style) and puts it back after."""
    __slots__ = ("xlat",)

    def __init__(self):
        self.xlat = "abbrev"


STYLE = Style()


class Xlat:
    """A named set of (value, name) pairs: a bit-flag set (flags=True) or an enum.

    dflt: the '/* X_??? */' comment strace prints after an unknown value (None: no comment).
    Flag sets may have composite parts printed before the flags:
      prefix (an Xlat) over the bits in prefix_mask, e.g. O_ACCMODE (O_RDONLY/O_WRONLY/O_RDWR) of
      the open flags or the map type of mmap; prefix_always: print the prefix even when its value
      has no name (personality: '0x18 /* PER_??? */|ADDR_NO_RANDOMIZE'); otherwise an unknown
      prefix value is left in the flags (socket types).
      field = (shift, mask, name): a number stored in the bits, printed after the flags as
      'N<<name' (MAP_HUGE_SHIFT, MFD_HUGE_SHIFT).
      low_octal: the low 9 bits are permission bits printed last in octal ('IPC_CREAT|0600').
      low_decimal: bits printed last as a decimal number (swapon priorities).
      rest_dflt: the comment for unknown flags after a prefix (default: dflt).
    """

    __slots__ = ("name", "pairs", "flags", "dflt", "prefix", "prefix_mask", "prefix_always",
                 "field", "low_octal", "low_decimal", "rest_dflt", "_by_value")

    def __init__(self, name: str, pairs: Iterable[Tuple[int, str]], flags: bool = False,
                 dflt: Optional[str] = None, prefix: "Xlat" = None, prefix_mask: int = 0,
                 prefix_always: bool = False, field: Tuple[int, int, str] = None,
                 low_octal: bool = False, low_decimal: int = 0, rest_dflt: Optional[str] = "same"):
        self.name = name
        self.pairs = tuple(pairs)
        self.flags = flags
        self.dflt = dflt
        self.prefix = prefix
        self.prefix_mask = prefix_mask
        self.prefix_always = prefix_always
        self.field = field
        self.low_octal = low_octal
        self.low_decimal = low_decimal
        self.rest_dflt = dflt if rest_dflt == "same" else rest_dflt
        self._by_value: Dict[int, str] = {}
        for v, n in self.pairs:
            self._by_value.setdefault(v, n)

    def __repr__(self):
        return f"Xlat({self.name!r}, {len(self.pairs)} {'flags' if self.flags else 'values'})"

    def __contains__(self, value: int) -> bool:
        return value in self._by_value

    def names(self) -> Dict[str, int]:
        return {n: v for v, n in self.pairs}

    def lookup(self, value: int) -> Optional[str]:
        return self._by_value.get(value)

    # -- enums
    def format_enum(self, value: int) -> str:
        name = self._by_value.get(value)
        style = STYLE.xlat
        if style != "abbrev":
            if style == "raw" or name is None:
                text = _hex(value)
                return f"{text} /* {self.dflt} */" if self.dflt and name is None and style != "raw" else text
            return f"{_hex(value)} /* {name} */"
        if name is not None:
            return name
        text = _hex(value)
        return f"{text} /* {self.dflt} */" if self.dflt else text

    # -- flags
    def _plain_flags(self, value: int, dflt: Optional[str]) -> str:
        if value == 0:
            zero = self._by_value.get(0)
            return zero if zero is not None else "0"
        out = []
        rest = value
        for v, n in self.pairs:
            if v and (rest & v) == v:
                out.append(n)
                rest &= ~v
                if not rest:
                    break
        if rest:
            if not out:
                return f"{_hex(rest)} /* {dflt} */" if dflt else _hex(rest)
            out.append(_hex(rest))
        return "|".join(out)

    def format_flags(self, value: int) -> str:
        if not self.flags:
            return self.format_enum(value)
        style = STYLE.xlat
        if style != "abbrev":
            # -X raw: the number alone; -X verbose: the number, then the names in a comment
            # (strace's printflags_ex), the names printed as -X abbrev would
            if style == "raw":
                return _hex(value)
            STYLE.xlat = "abbrev"
            try:
                names = self.format_flags(value)
            finally:
                STYLE.xlat = style
            if names == _hex(value) or names == "0" and value == 0:
                return names
            if " /* " in names and names.startswith(_hex(value)):
                return names                    # (only unknown bits: '0x8 /* MS_??? */' as it is)
            return f"{_hex(value)} /* {names} */"
        tail = []
        if self.field:
            shift, mask, fname = self.field
            n = (value >> shift) & mask
            value &= ~(mask << shift)
            if n:
                tail.append(f"{n}<<{fname}")
        if self.low_octal:
            tail.append(octal(value & 0o777))
            value &= ~0o777
        elif self.low_decimal:
            tail.append(str(value & self.low_decimal))
            value &= ~self.low_decimal
        parts = []
        rest = value
        if self.prefix is not None:
            pv = value & self.prefix_mask
            if self.prefix_always or pv in self.prefix:
                parts.append(self.prefix.format(pv))
                rest = value & ~self.prefix_mask
        if rest or not (parts or tail):
            parts.append(self._plain_flags(rest, self.rest_dflt if parts else self.dflt))
        return "|".join(parts + tail)

    def format(self, value: int) -> str:
        return self.format_flags(value) if self.flags else self.format_enum(value)


def _hex(v: int) -> str:
    return "0" if v == 0 else "%#x" % v


def octal(v: int) -> str:
    """C's %#03o, as strace prints modes: 000, 0644, 04755."""
    return "0%02o" % v


SETS: Dict[str, Xlat] = {}


def _parse(body: str, flags: bool):
    """A set's pairs from its text: a name emutrace.linux declares takes its value from there (it
    is never written twice); another has its value after '=', or in an enum the previous + 1."""
    pairs = []
    nxt = 0
    for tok in body.split():
        name, eq, val = tok.partition("=")
        if name in LINUX:
            if eq:
                raise ValueError(f"{name} is declared in emutrace.linux: write it without a value")
            v = LINUX[name]
        elif eq:
            v = int(val, 0)
        elif flags:
            raise ValueError(f"flag {name} needs a value")
        else:
            v = nxt
        pairs.append((v, name))
        nxt = v + 1
    return pairs


def _F(name, dflt, body, **kw) -> Xlat:
    x = Xlat(name, _parse(body, True), flags=True, dflt=dflt, **kw)
    SETS[name] = x
    return x


def _E(name, dflt, body, **kw) -> Xlat:
    x = Xlat(name, _parse(body, False), flags=False, dflt=dflt, **kw)
    SETS[name] = x
    return x


def _alias(name, other):
    SETS[name] = SETS[other]

