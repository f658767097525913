"""What a traced call needs of a function's DWARF, kept across runs: its signature (name, each
parameter's entry location and type, the return type) with only the types it reaches, as
they are shown (a C structure passed in memory holds its first members only: types.py), in a
plain format of its own (JSON text of lists), not pickled.

A structure passed in memory is stored to its SHOWN members (and `more`), whatever the language.
A unit's entry (`pack`) is an index (entry pc → where its function's bytes are) and the
functions one after another; a warm run reads the index and decodes a function's bytes at its
first call (`StoredUnit.get`), so the functions a run never calls cost nothing but their
bytes. Reading validates everything (kinds, field types, sizes, references in range): bytes
that do not describe signatures raise StoreError, and the caller then makes the entry again
from the DWARF (the metadata cache's digest has already refused truncated or corrupt files;
this refuses what a planted file could say). Decoding runs no code from the file."""
from __future__ import annotations

import json
from typing import Dict, List, Optional

from emutrace.dwarf.types import (IN_REGISTERS, SHOWN, Array, Enum, Float, FuncType, Int, Member, Param, Pointer,
                                  Qual, Signature, Struct, Type, Typedef, Unknown, Void)

VERSION = 1
MAX_SIZE = 1 << 64              # a byte size, count, offset or bit count read back (as DWARF gave it)
MAX_ITEMS = 1 << 22             # members, enumerators, parameters, types or functions in one list


class StoreError(ValueError):
    """The bytes are not an entry this module wrote."""


# -- writing -----------------------------------------------------------------------------
def _hex(b: Optional[bytes]):
    return b.hex() if isinstance(b, bytes) else None


class _Encoder:
    """One function's types as a table: each type once, references by index (cycles kept)."""

    def __init__(self):
        self.index: Dict[int, int] = {}
        self.rows: List[list] = []
        self._todo: List[Type] = []

    def ref(self, t: Optional[Type]) -> int:
        if t is None:
            return -1
        i = self.index.get(id(t))
        if i is None:
            i = self.index[id(t)] = len(self.rows)
            self.rows.append(None)
            self._todo.append(t)
        return i

    def finish(self) -> List[list]:
        while self._todo:
            t = self._todo.pop()
            self.rows[self.index[id(t)]] = self._row(t)
        return self.rows

    def _row(self, t: Type) -> list:
        if isinstance(t, Qual):                  # (before Typedef: its subclass)
            return ["q", t.name, self.ref(t.target)]
        if isinstance(t, Typedef):
            return ["t", t.name, self.ref(t.target)]
        if isinstance(t, Int):
            return ["i", t.name, t.size, t.signed, t.char, t.boolean]
        if isinstance(t, Float):
            return ["f", t.name, t.size]
        if isinstance(t, Enum):
            return ["e", t.name, t.size, t.signed, [[n, v] for n, v in t.values]]
        if isinstance(t, Pointer):
            return ["p", self.ref(t.target), t.ref]
        if isinstance(t, Struct):
            members, more = t.members, t.more
            if t.size > IN_REGISTERS and len(members) > SHOWN and "<" not in (t.name or ""):
                # passed in memory (or by reference: `nontrivial` is kept), so only shown: what
                # types.py keeps of a C structure, for C++ classes too (templates, whose
                # std::vector and std::string render.py reads by their members, stay whole)
                members, more = members[:SHOWN], True
            return ["s", t.kind, t.name, t.size, t.nontrivial, t.declaration, more,
                    [[m.name, self.ref(m.type), m.offset, m.bit_size, m.bit_offset] for m in members]]
        if isinstance(t, Array):
            return ["a", self.ref(t.elem), t.count]
        if isinstance(t, FuncType):
            return ["F"]
        if isinstance(t, Void):
            return ["v"]
        return ["u", t.name]


def encode(sig: Signature) -> bytes:
    e = _Encoder()
    params = [[p.name, e.ref(p.type), _hex(p.where), p.from_list,
               ["b", p.const.hex()] if isinstance(p.const, bytes) else p.const, p.artificial] for p in sig.params]
    ret = e.ref(sig.ret)
    body = [VERSION, sig.name, params, ret, sig.variadic, _hex(sig.frame_base), sig.klass, e.finish()]
    return json.dumps(body, separators=(",", ":")).encode()


def pack(sigs: Dict[int, Signature]) -> bytes:
    """A unit's entry: a first line indexing [pc, offset, length] of each function's bytes."""
    blobs, index, off = [], [], 0
    for pc in sorted(sigs):
        b = encode(sigs[pc])
        index.append([pc, off, len(b)])
        blobs.append(b)
        off += len(b)
    return json.dumps([VERSION, index], separators=(",", ":")).encode() + b"\n" + b"".join(blobs)


# -- reading -----------------------------------------------------------------------------
def _check(ok: bool, what: str) -> None:
    if not ok:
        raise StoreError(what)


def _int(v, lo: int = 0, hi: int = MAX_SIZE) -> int:
    _check(v.__class__ is int and lo <= v < hi, "a number out of range")
    return v


def _bool(v) -> bool:
    _check(v.__class__ is bool, "not a flag")
    return v


def _name(v) -> Optional[str]:
    _check(v is None or v.__class__ is str, "not a name")
    return v


def _bytes(v) -> Optional[bytes]:
    if v is None:
        return None
    _check(v.__class__ is str, "not bytes")
    try:
        return bytes.fromhex(v)
    except ValueError:
        raise StoreError("not bytes") from None


def _list(v, n: Optional[int] = None) -> list:
    _check(v.__class__ is list and len(v) <= MAX_ITEMS and (n is None or len(v) == n), "not a list")
    return v


_NAME = (str, type(None))
_NUM = (int, type(None))
_LIST = list


def _types(rows) -> List[Type]:
    """The table's types: made first, joined by reference after (cycles are allowed). (Checked
    inline, field by field: a warm run decodes every function it calls here.)"""
    _list(rows)
    n = len(rows)
    out: List[Type] = []
    add = out.append
    for r in rows:
        if not (r.__class__ is _LIST and len(r) >= 1):
            raise StoreError("not a type")
        k = r[0]
        if k == "s":
            _, kind, name, size, nontrivial, decl, more, members = r
            if not (kind in ("struct", "class", "union") and name.__class__ in _NAME and size.__class__ is int
                    and 0 <= size < MAX_SIZE and nontrivial.__class__ is bool and decl.__class__ is bool
                    and more.__class__ is bool and members.__class__ is _LIST and len(members) <= MAX_ITEMS):
                raise StoreError("not a structure")
            t = Struct(kind, name, size)
            t.nontrivial, t.declaration, t.more = nontrivial, decl, more
        elif k == "i":
            _, name, size, signed, char, boolean = r
            if not (name.__class__ in _NAME and size.__class__ is int and 0 <= size < MAX_SIZE
                    and signed.__class__ is bool and char.__class__ is bool and boolean.__class__ is bool):
                raise StoreError("not an integer type")
            t = Int(name, size, signed, char, boolean)
        elif k == "p":
            _, _target, ref = r
            if not (ref in ("", "&", "&&")):
                raise StoreError("not a pointer")
            t = Pointer(None, ref)
        elif k in ("t", "q"):
            _, name, _target = r
            if not (name.__class__ in _NAME):
                raise StoreError("not a typedef")
            t = (Typedef if k == "t" else Qual)(name, None)
        elif k == "e":
            _, name, size, signed, values = r
            if not (name.__class__ in _NAME and size.__class__ is int and 0 <= size < MAX_SIZE
                    and signed.__class__ is bool and values.__class__ is _LIST and len(values) <= MAX_ITEMS):
                raise StoreError("not an enum")
            vals = []
            for vn, v in values:
                if not (vn.__class__ is str and v.__class__ is int and -MAX_SIZE < v < MAX_SIZE):
                    raise StoreError("not an enumerator")
                vals.append((vn, v))
            t = Enum(name, size, signed, vals)
        elif k == "f":
            _, name, size = r
            if not (name.__class__ in _NAME and size.__class__ is int and 0 <= size < MAX_SIZE):
                raise StoreError("not a float type")
            t = Float(name, size)
        elif k == "a":
            _, _elem, count = r
            if not (count is None or count.__class__ is int and 0 <= count < MAX_SIZE):
                raise StoreError("not an array")
            t = Array(None, count)
        elif k == "F" and len(r) == 1:
            t = FuncType()
        elif k == "v" and len(r) == 1:
            t = Void()
        elif k == "u":
            _, name = r
            if not (name.__class__ in _NAME):
                raise StoreError("not a type")
            t = Unknown(name)
        else:
            raise StoreError("an unknown kind of type")
        add(t)

    def ref(v) -> Type:
        if not (v.__class__ is int and 0 <= v < n):
            raise StoreError("a reference out of range")
        return out[v]
    for r, t in zip(rows, out):
        k = r[0]
        if k == "p":
            t.target = None if r[1] == -1 else ref(r[1])
        elif k == "s":
            ms = t.members
            for name, ti, off, bits, bitoff in r[7]:
                if not (name.__class__ in _NAME and ti.__class__ is int and 0 <= ti < n and off.__class__ is int
                        and bits.__class__ is int and bitoff.__class__ is int and 0 <= off < MAX_SIZE
                        and 0 <= bits < MAX_SIZE and 0 <= bitoff < MAX_SIZE):
                    raise StoreError("not a member")
                ms.append(Member(name, out[ti], off, bits, bitoff))
        elif k in ("t", "q"):
            t.target = ref(r[2])
        elif k == "a":
            t.elem = ref(r[1])
    return out


def _top(data: bytes, n: int, what: str) -> list:
    """The list of n items, this VERSION's, that data holds as JSON."""
    try:
        top = json.loads(data)
    except (ValueError, RecursionError):     # (RecursionError: nesting deeper than the parser goes)
        raise StoreError(f"not {what}") from None
    top = _list(top, n)
    _check(top[0] == VERSION, "another version")
    return top


def decode(data: bytes) -> Signature:
    body = _top(data, 8, "an entry")
    try:
        types = _types(body[7])
    except (ValueError, TypeError):      # (a row of the wrong length or shape: unpacking fails)
        raise StoreError("not a type table") from None

    def ref(v) -> Type:
        return types[_int(v, 0, len(types))]
    params = []
    for p in _list(body[2]):
        p = _list(p, 6)
        const = p[4]
        if const.__class__ is list:
            _check(len(const) == 2 and const[0] == "b", "not a constant")
            const = _bytes(const[1])
        elif const is not None:
            const = _int(const, -(1 << 64), 1 << 64)
        params.append(Param(_name(p[0]), ref(p[1]), _bytes(p[2]), _bool(p[3]), const, _bool(p[5])))
    _check(all(p.name is not None for p in params), "a parameter without a name")
    name = _name(body[1])
    _check(name is not None, "a function without a name")
    return Signature(name, params, ref(body[3]), _bool(body[4]), _bytes(body[5]), False, _name(body[6]))


def pack_units(units) -> bytes:
    """The unit table (index.py: lows, highs, unit offsets, sorted by low)."""
    return json.dumps([VERSION] + [list(x) for x in units], separators=(",", ":")).encode()


def unpack_units(data: bytes) -> tuple:
    top = _top(data, 4, "a unit table")
    lo, hi, offs = (_list(x) for x in top[1:])
    _check(len(lo) == len(hi) == len(offs), "columns of different lengths")
    for col in (lo, hi, offs):
        for v in col:
            _int(v)
    _check(all(a <= b for a, b in zip(lo, lo[1:])), "not sorted")
    return lo, hi, offs


class StoredUnit:
    """A unit's entry read back: functions decoded by entry pc at their first ask."""

    def __init__(self, data: bytes):
        head, sep, self._blobs = data.partition(b"\n")
        _check(bool(sep), "no index")
        top = _top(head, 2, "an index")
        size = len(self._blobs)
        self._where: Dict[int, tuple] = {}
        for row in _list(top[1]):
            pc, off, n = _list(row, 3)
            _int(pc, 0, 1 << 64)
            _int(off, 0, size + 1)
            _int(n, 1, size - off + 1)
            self._where[pc] = (off, n)
        self._got: Dict[int, Optional[Signature]] = {}

    def get(self, pc: int) -> Optional[Signature]:
        """The signature at pc, or None (no function of the unit starts there); StoreError
        when its bytes are not one."""
        sig = self._got.get(pc)
        if sig is None and pc not in self._got:
            at = self._where.get(pc)
            sig = self._got[pc] = decode(self._blobs[at[0]:at[0] + at[1]]) if at is not None else None
        return sig
