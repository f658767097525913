"""Fixed-size C structs in guest memory, written out as data (name, offset, struct format), and
the one struct the CPU itself defines: the FXSAVE image of the x87/SSE state.

Linux's layouts (the kernel's layouts.py) are built from the same Layout.
"""
from __future__ import annotations

import struct
from typing import Dict, Iterable, Mapping, Tuple


class Layout:
    """A fixed-size C struct. Fields may overlap (unions); pack() writes only the fields given."""

    __slots__ = ("name", "size", "fields", "_by_name")

    def __init__(self, name: str, size: int, fields: Iterable[Tuple[str, int, str]]):
        self.name = name
        self.size = size
        self.fields = tuple((fname, off, struct.Struct("<" + fmt)) for fname, off, fmt in fields)
        self._by_name = {fname: (off, st) for fname, off, st in self.fields}
        for fname, off, st in self.fields:
            if off + st.size > size:
                raise ValueError(f"{name}.{fname} overruns the struct")

    def pack(self, values: Mapping[str, object] = None, **kw) -> bytes:
        buf = bytearray(self.size)
        vals = dict(values or {}, **kw)
        for fname, v in vals.items():
            off, st = self._by_name[fname]
            if isinstance(v, (bytes, bytearray)):
                st.pack_into(buf, off, bytes(v))
            elif isinstance(v, (tuple, list)):
                st.pack_into(buf, off, *v)
            else:
                st.pack_into(buf, off, v)
        return bytes(buf)

    def unpack(self, data: bytes) -> Dict[str, object]:
        if len(data) < self.size:
            raise ValueError(f"{self.name}: {len(data)} bytes, need {self.size}")
        out = {}
        for fname, off, st in self.fields:
            v = st.unpack_from(data, off)
            out[fname] = v[0] if len(v) == 1 else v
        return out

    def offset(self, fname: str) -> int:
        return self._by_name[fname][0]


# FXSAVE format, 512 bytes (Linux's struct _fpstate in a signal frame)
FXSAVE = Layout("fxsave", 512, [
    ("cwd", 0, "H"), ("swd", 2, "H"), ("ftw", 4, "H"), ("fop", 6, "H"),
    ("rip", 8, "Q"), ("rdp", 16, "Q"), ("mxcsr", 24, "I"), ("mxcsr_mask", 28, "I"),
    ("st_space", 32, "128s"), ("xmm_space", 160, "256s")])
