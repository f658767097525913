"""The prototype model: types (with their lenses), the expressions that size arrays and strings,
and Prototype itself; what the parser builds and the call formatter (values.py) reads."""
from __future__ import annotations

import copy
from typing import List, Optional, Tuple

from emutrace.record import field, record


# ----------------------------------------------------------------------------
# expressions

class Expr:
    pass


@record(frozen=True)
class Const(Expr):
    value: int


@record(frozen=True)
class ArgRef(Expr):
    """argN (1-based); index 0 is the return value (``retval``/``arg0``)."""
    index: int


@record(frozen=True)
class EltRef(Expr):
    """eltN (1-based) of the surrounding structure."""
    index: int


@record(frozen=True)
class Zero(Expr):
    """Length of a zero-terminated array, at most ``limit`` elements (if given)."""
    limit: Optional[Expr] = None


# ----------------------------------------------------------------------------
# types

PRIM_SIZES = {
    "void": 0, "char": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4,
    "long": 8, "ulong": 8, "float": 4, "double": 8, "wchar": 4,
}
SIGNED = {"char", "short", "int", "long"}
UNSIGNED = {"ushort", "uint", "ulong"}
INTEGRAL = SIGNED | UNSIGNED | {"wchar"}
FLOATING = {"float", "double"}


class Type:
    """Base of all types.  ``lens`` is None (default rendering) or one of
    'hex', 'oct', 'bool', 'hide', 'bitvec', 'guess', 'string', 'enum', 'flags',
    'funcptr', 'cond'."""

    lens: Optional[str] = None

    def size(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def align(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def with_lens(self, lens: Optional[str], **extra) -> "Type":
        t = copy.copy(self)
        t.lens = lens
        for k, v in extra.items():
            setattr(t, k, v)
        return t

    # helpers used by the formatter
    def is_void(self) -> bool:
        return False


class Prim(Type):
    __slots__ = ("kind", "lens", "enum", "flags", "cond", "inner_lens")

    def __init__(self, kind: str, lens: Optional[str] = None):
        self.kind = kind
        self.lens = lens
        self.enum: Optional[List[Tuple[str, int]]] = None
        self.flags: Optional[List[Tuple[str, int, int]]] = None   # (name, value, mask)
        self.cond: Optional[Tuple[int, int]] = None            # (argN, mask)
        self.inner_lens: Optional[str] = None                  # lens under cond()

    def size(self) -> int:
        return PRIM_SIZES[self.kind]

    def align(self) -> int:
        return max(1, PRIM_SIZES[self.kind])

    def is_void(self) -> bool:
        return self.kind == "void"

    def __copy__(self):
        t = Prim(self.kind, self.lens)
        t.enum, t.flags, t.cond, t.inner_lens = self.enum, self.flags, self.cond, self.inner_lens
        return t

    def __eq__(self, other):
        return (isinstance(other, Prim) and self.kind == other.kind and self.lens == other.lens
                and self.enum == other.enum and self.flags == other.flags and self.cond == other.cond)

    def __hash__(self):
        return hash((self.kind, self.lens))

    def __repr__(self):
        s = self.kind
        if self.enum is not None:
            s = "enum[%s](%s)" % (self.kind, ", ".join("%s=%d" % kv for kv in self.enum))
        elif self.flags is not None:
            s = "flags[%s](%s)" % (self.kind, ", ".join("%s=%d:%d" % f for f in self.flags))
        elif self.lens:
            s = "%s(%s)" % (self.lens, self.kind)
        return s


class Pointer(Type):
    __slots__ = ("target", "lens", "cond", "inner_lens", "wide")

    def __init__(self, target: Type, lens: Optional[str] = None):
        self.target = target
        self.lens = lens
        self.cond = None
        self.inner_lens = None
        self.wide = False

    def size(self) -> int:
        return 8

    def align(self) -> int:
        return 8

    def __copy__(self):
        t = Pointer(self.target, self.lens)
        t.cond, t.inner_lens, t.wide = self.cond, self.inner_lens, self.wide
        return t

    def __eq__(self, other):
        return (isinstance(other, Pointer) and self.lens == other.lens
                and (self.target is other.target or self.target == other.target))

    def __hash__(self):
        return hash(("ptr", self.lens))

    def __repr__(self):
        r = "%r*" % (self.target,)
        return "%s(%s)" % (self.lens, r) if self.lens else r


class Array(Type):
    __slots__ = ("elem", "length", "lens", "cond", "inner_lens")

    def __init__(self, elem: Type, length: Expr, lens: Optional[str] = None):
        self.elem = elem
        self.length = length
        self.lens = lens
        self.cond = None
        self.inner_lens = None

    def size(self) -> int:
        if isinstance(self.length, Const):
            return self.elem.size() * max(0, self.length.value)
        return 0

    def align(self) -> int:
        return self.elem.align()

    def __copy__(self):
        t = Array(self.elem, self.length, self.lens)
        t.cond, t.inner_lens = self.cond, self.inner_lens
        return t

    def __eq__(self, other):
        return (isinstance(other, Array) and self.lens == other.lens and self.length == other.length
                and self.elem == other.elem)

    def __hash__(self):
        return hash(("array", self.lens))

    def __repr__(self):
        r = "array(%r, %r)" % (self.elem, self.length)
        return "%s(%s)" % (self.lens, r) if self.lens else r


class Struct(Type):
    """A structure.  Forward-declared structures are completed in place, so
    every reference sees the fields (recursive structures)."""

    __slots__ = ("fields", "lens", "name", "forward", "cond", "inner_lens", "_id")
    _counter = 0

    def __init__(self, fields: Optional[List[Type]] = None, name: Optional[str] = None):
        self.fields = fields if fields is not None else []
        self.lens = None
        self.name = name
        self.forward = False
        self.cond = None
        self.inner_lens = None
        Struct._counter += 1
        self._id = Struct._counter

    def layout(self) -> Tuple[List[int], int, int]:
        """(offsets, size, align) with the usual C alignment rules."""
        off = 0
        al = 1
        offsets = []
        for f in self.fields:
            # (a nested structure laid out once for both: asking it for its alignment and then
            # its size lays it out twice at every level, 2**depth times in all)
            fsize, a = f.layout()[1:] if isinstance(f, Struct) else (f.size(), f.align())
            al = max(al, a)
            off = (off + a - 1) // a * a
            offsets.append(off)
            off += fsize
        size = (off + al - 1) // al * al
        return offsets, size, al

    def size(self) -> int:
        return self.layout()[1]

    def align(self) -> int:
        return self.layout()[2]

    def __copy__(self):
        # A lens on a struct: share the field list (so forward completion is seen).
        t = Struct.__new__(Struct)
        t.fields, t.lens, t.name, t.forward = self.fields, self.lens, self.name, self.forward
        t.cond, t.inner_lens, t._id = self.cond, self.inner_lens, self._id
        return t

    def __eq__(self, other):
        return isinstance(other, Struct) and self._id == other._id and self.lens == other.lens

    def __hash__(self):
        return hash(("struct", self._id))

    def __repr__(self):
        if self.name:
            return "struct %s" % self.name
        return "struct(%s)" % ", ".join(repr(f) for f in self.fields)


@record(frozen=True)
class FormatPack:
    """Marker for the arguments generated from a format string parameter.

    kind: 'printf' | 'scanf' | 'vprintf' | 'vscanf';  ``fmt_index`` is the
    0-based index of the format parameter in ``Prototype.params``."""
    kind: str
    fmt_index: int


@record
class Prototype:
    name: str
    ret: Type
    params: List[Type] = field(default_factory=list)
    variadic: bool = False
    split: Optional[int] = None      # index of the first output ('+') parameter, or None
    pack: Optional[FormatPack] = None  # format-string parameter pack, if any
    filename: str = ""
    lineno: int = 0

    @property
    def out_start(self) -> int:
        """Index where the right (shown-on-return) portion starts."""
        return len(self.params) if self.split is None else self.split

    def __repr__(self):
        return "Prototype(%s %s(%s%s)%s)" % (
            self.ret, self.name, ", ".join(
                ("+" if self.split == i else "") + repr(t) for i, t in enumerate(self.params)),
            ", ..." if self.variadic else "", "")


def default_prototype(name: str) -> Prototype:
    """What ltrace 0.7.3 uses for a function it has no prototype for:
    ``long NAME(long, long, long, long)``, all four with the guess lens."""
    g = Prim("long", "guess")
    return Prototype(name=name, ret=g, params=[g, g, g, g], variadic=False, filename="<default>")
