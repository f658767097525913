"""Structs whose strace text is only their fields, one after another: the layout as data, one
renderer for all of them.

    TIMESPEC = StructText("timespec", 16, [("tv_sec", 0, "q"), ("tv_nsec", 8, "Q")])
    TIMESPEC.text(data)         # '{tv_sec=1, tv_nsec=500}'

A field is (name, offset, format[, render[, when]]): format is a `struct` code (a count like "3Q"
gives a tuple) or another StructText (the nested struct, printed by its own text); render turns
the value into text (str when left out); when, given the struct's values by field name, says
whether strace prints the field (sa_restorer only with SA_RESTORER). more=True ends the text with
', ...' as strace abbreviates a struct. Structs whose text needs guest memory, the formatter's
options or arithmetic across fields keep a decoder written by hand.

Also the two structs every subject nests: TIMESPEC and TIMEVAL.
"""
from __future__ import annotations

import struct
from typing import Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from emutrace.decode import xlat as _x

Render = Callable[[object], str]                 # a field's value -> its text
Shown = Callable[[Mapping[str, object]], object]  # the struct's values -> is the field printed (truthy)


class StructText:
    """How strace prints one fixed-size struct: each field as name=text, in order."""

    __slots__ = ("name", "size", "more", "_unpack", "_fields", "_conditional")

    def __init__(self, name: str, size: int, fields: Iterable[tuple], more: bool = False):
        fields = [tuple(fl) + (None,) * (5 - len(fl)) for fl in fields]
        self.name = name
        self.size = size
        self.more = more
        # One struct.Struct reads every field (in memory order, the gaps as pad bytes), and each
        # field takes its run of the values ("3Q": three): strace's order is not always memory's.
        codes = [f"{kind.size}s" if isinstance(kind, StructText) else kind for _, _, kind, _, _ in fields]
        fmt, end, count, first, runs = "<", 0, 0, {}, {}
        for k in sorted(range(len(fields)), key=lambda k: fields[k][1]):
            off, one = fields[k][1], struct.Struct("<" + codes[k])
            if off < end or off + one.size > size:
                raise ValueError(f"{name}.{fields[k][0]} overlaps another field or overruns the struct")
            fmt += (f"{off - end}x" if off > end else "") + codes[k]
            first[k], runs[k] = count, len(one.unpack(bytes(one.size)))
            count += runs[k]
            end = off + one.size
        self._unpack = struct.Struct(fmt).unpack_from
        # per field: "name=", where its values start, how many, how to render, when it is printed
        self._fields: Tuple[Tuple[str, int, int, Render, Optional[Shown]], ...] = tuple(
            (fname + "=", first[k], runs[k], kind.text if isinstance(kind, StructText) else (render or str), when)
            for k, (fname, _, kind, render, when) in enumerate(fields))
        self._conditional = any(when is not None for *_, when in self._fields)

    def text(self, data: bytes) -> str:
        flat = self._unpack(data)
        if self._conditional:
            values = {label[:-1]: flat[i] if n == 1 else flat[i:i + n] for label, i, n, _, _ in self._fields}
            parts = [label + render(values[label[:-1]]) for label, _, _, render, when in self._fields
                     if when is None or when(values)]
        else:
            parts = [label + render(flat[i] if n == 1 else flat[i:i + n]) for label, i, n, render, _ in self._fields]
        return "{" + ", ".join(parts) + (", ...}" if self.more else "}")

    def __call__(self, f, data: bytes, mem) -> str:
        """A struct decoder (formatter, the struct's bytes, guest memory), like those by hand."""
        return self.text(data)


def decoders(*texts: StructText) -> Dict[str, Tuple[int, Callable]]:
    """{name: (size, decoder)} for a subject's STRUCTS table."""
    return {t.name: (t.size, t) for t in texts}


def in_sequence(names: Sequence[str], fmt: str, size: int, start: int = 0) -> list:
    """Fields of one format laid out one after another from start (the kernel's info structs)."""
    return [(name, start + k * size, fmt) for k, name in enumerate(names)]


def flags(set_name: str, mask: Optional[int] = None) -> Render:
    """Renders a field as the names of the flag set's bits."""
    if mask is None:
        return lambda v: _x.format_flags(set_name, v)
    return lambda v: _x.format_flags(set_name, v & mask)


def enum(set_name: str) -> Render:
    """Renders a field as the name of its value in the set."""
    return lambda v: _x.format_enum(set_name, v)


TIMESPEC = StructText("timespec", 16, [("tv_sec", 0, "q"), ("tv_nsec", 8, "Q")])
TIMEVAL = StructText("timeval", 16, [("tv_sec", 0, "q"), ("tv_usec", 8, "Q")])
