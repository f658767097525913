"""A DWARF signature as a prototype of the database's model (emutrace.protos), for library
calls the database does not know: the call formatter then shows them as ltrace shows any
call, strings, enums, flags and structures included.

Only what that model passes as the ABI does is converted: a long double, a structure over 16
bytes or with bitfields, a C++ class passed by reference or a layout the model would compute
differently gives None (the call keeps ltrace's default)."""
from __future__ import annotations

from typing import Optional

from emutrace.protos.types import Array as PArray, Pointer as PPointer, Prim, Prototype, Struct as PStruct, Zero
from emutrace.dwarf.types import Array, Enum, Float, FuncType, Int, Pointer, Signature, Struct, Void

_INTS = {(1, True): "char", (1, False): "char", (2, True): "short", (2, False): "ushort",
         (4, True): "int", (4, False): "uint", (8, True): "long", (8, False): "ulong"}


class _No(Exception):
    pass


def _conv(t, depth: int = 0):
    s = t.strip()
    if depth > 4:
        raise _No
    if isinstance(s, Void):
        return Prim("void")
    if isinstance(s, Int):
        kind = _INTS.get((s.size, s.signed))
        if kind is None:
            raise _No
        if s.boolean:
            return Prim("int" if s.size == 4 else kind, "bool")
        return Prim(kind)
    if isinstance(s, Enum):
        p = Prim(_INTS.get((s.size, s.signed)) or "int")
        if s.flags:
            p.flags = [(n, v, v) for n, v in s.values if v]
            p.lens = "flags"
        else:
            p.enum = list(s.values)
            p.lens = "enum"
        return p
    if isinstance(s, Float):
        if s.size == 4:
            return Prim("float")
        if s.size == 8:
            return Prim("double")
        raise _No
    if isinstance(s, Pointer):
        tgt = s.target.strip() if s.target is not None else Void()
        if isinstance(tgt, FuncType):
            return PPointer(Prim("void"), "funcptr")
        if isinstance(tgt, Int) and tgt.char and tgt.size == 1:
            return PPointer(PArray(Prim("char"), Zero(None)), "string")
        return PPointer(Prim("void"))
    if isinstance(s, Struct):
        if s.nontrivial or s.size > 16 or not s.members or s.kind == "union":
            raise _No
        st = PStruct([_conv(m.type, depth + 1) for m in s.members])
        offs, size, _ = st.layout()
        if any(m.bit_size for m in s.members) or offs != [m.offset for m in s.members] or size != s.size:
            raise _No
        return st
    if isinstance(s, Array):
        raise _No
    raise _No


def prototype(sig: Signature) -> Optional[Prototype]:
    try:
        params = [_conv(p.type) for p in sig.params]
        ret = _conv(sig.ret)
    except _No:
        return None
    if sig.clone or any(p.where is None for p in sig.params):
        return None
    return Prototype(name=sig.name, ret=ret, params=params, variadic=sig.variadic, filename="<dwarf>")
