"""The types and function signatures DWARF describes, as plain objects (pickled in the
metadata cache), and their making from DIEs.

Building follows references with a memo, so a structure that points at itself is one object
with a cycle, and a chain of typedefs or qualifiers that loops (lying input) ends as Unknown."""
from __future__ import annotations

from typing import Dict, List, Optional

from emutrace.dwarf import info as I

# tags (DWARF 5 §7.5.3)
T_array, T_class, T_enum, T_formal, T_lexical, T_member, T_pointer, T_reference = 0x01, 0x02, 0x04, 0x05, 0x0B, 0x0D, 0x0F, 0x10
T_cu, T_struct, T_subroutine, T_typedef, T_union, T_unspec_params = 0x11, 0x13, 0x15, 0x16, 0x17, 0x18
T_inheritance, T_subrange, T_base, T_const, T_enumerator, T_subprogram = 0x1C, 0x21, 0x24, 0x26, 0x28, 0x2E
T_volatile, T_restrict, T_namespace, T_unspec, T_rvalue_ref, T_atomic = 0x35, 0x37, 0x39, 0x3B, 0x42, 0x47
T_ptr_to_member = 0x1F
QUALIFIERS = {T_const: "const", T_volatile: "volatile", T_restrict: "restrict", T_atomic: "_Atomic"}
# base type encodings
ATE_boolean, ATE_float, ATE_signed, ATE_signed_char, ATE_unsigned, ATE_unsigned_char, ATE_UTF = 2, 4, 5, 6, 7, 8, 0x10
MAX_CHAIN = 64
# members (and elements) a value shows before "..." (render.py): a structure passed in memory
# (over 16 bytes) of a C unit keeps no more, since nothing else reads them (docs/dwarf.md)
SHOWN = 16
IN_REGISTERS = 16               # bytes: a larger structure is of class MEMORY (abi.py)


class Type:
    __slots__ = ("name",)
    size = 0

    def strip(self) -> "Type":
        """Without typedefs and qualifiers."""
        return self


class Unknown(Type):
    __slots__ = ()

    def __init__(self, name="?"):
        self.name = name


class Void(Type):
    __slots__ = ()

    def __init__(self):
        self.name = "void"


class Int(Type):
    """Integers, char and bool: `char` set for character types, `boolean` for bool."""
    __slots__ = ("size", "signed", "char", "boolean")

    def __init__(self, name, size, signed, char=False, boolean=False):
        self.name, self.size, self.signed, self.char, self.boolean = name, size, signed, char, boolean


class Float(Type):
    __slots__ = ("size",)

    def __init__(self, name, size):
        self.name, self.size = name, size


class Enum(Type):
    __slots__ = ("size", "signed", "values", "flags")

    def __init__(self, name, size, signed, values):
        self.name, self.size, self.signed, self.values = name, size, signed, values
        # a flag enum: every value is 0 or one bit, and there are two bits at least
        bits = [v for _, v in values if v]
        self.flags = len(bits) >= 2 and all(v > 0 and v & (v - 1) == 0 for v in bits)


class Pointer(Type):
    """Pointers and references (`ref`: & or &&), 8 bytes."""
    __slots__ = ("target", "ref")
    size = 8

    def __init__(self, target, ref=""):
        self.target, self.ref = target, ref
        self.name = None

    @property
    def display(self) -> str:
        return type_name(self)


class Member:
    __slots__ = ("name", "type", "offset", "bit_size", "bit_offset")

    def __init__(self, name, type_, offset, bit_size=0, bit_offset=0):
        self.name, self.type, self.offset, self.bit_size, self.bit_offset = name, type_, offset, bit_size, bit_offset

    def __reduce__(self):
        # pickled by the thousand in the metadata cache: its arguments, not a dict of its slots
        # (a warm run of 10 MB of DWARF loads a quarter faster)
        return (Member, (self.name, self.type, self.offset, self.bit_size, self.bit_offset))


class Struct(Type):
    """struct, class and union (kind), with members; `nontrivial`: a C++ class with a
    destructor or copy constructor of its own, passed by invisible reference (Itanium ABI);
    `more`: members after the SHOWN kept were not read (render shows "...")."""
    __slots__ = ("kind", "size", "members", "nontrivial", "declaration", "more", "shown")

    def __init__(self, kind, name, size):
        self.kind, self.name, self.size = kind, name, size
        self.members: List[Member] = []
        self.nontrivial = False
        self.declaration = False
        self.more = False
        self.shown = None           # render.py's compiled list of the members it shows (made there)


class Array(Type):
    __slots__ = ("elem", "count")

    def __init__(self, elem, count):
        self.elem, self.count = elem, count
        self.name = None

    @property
    def size(self):
        return (self.count or 0) * self.elem.strip().size


class FuncType(Type):
    __slots__ = ()

    def __init__(self):
        self.name = "function"


class Typedef(Type):
    __slots__ = ("target",)

    def __init__(self, name, target):
        self.name, self.target = name, target

    @property
    def size(self):
        return self.strip().size

    def strip(self):
        t = self.target
        for _ in range(MAX_CHAIN):
            if not isinstance(t, (Typedef, Qual)):
                return t
            t = t.target
        return Unknown()


class Qual(Typedef):
    __slots__ = ()


def type_name(t: Type, depth: int = 0) -> str:
    if depth > 8:
        return "?"
    if isinstance(t, Qual):
        if isinstance(t.target, Pointer):            # int * const: the pointer is qualified
            return f"{type_name(t.target, depth + 1)} {t.name}"
        return f"{t.name} {type_name(t.target, depth + 1)}"
    if isinstance(t, Pointer):
        tgt = t.target.strip() if t.target is not None else None
        if isinstance(tgt, FuncType):
            return "function *"
        return type_name(t.target, depth + 1) + " " + (t.ref or "*")
    if isinstance(t, Array):
        return f"{type_name(t.elem, depth + 1)} [{t.count if t.count is not None else ''}]"
    if isinstance(t, Struct):
        return t.name or t.kind
    if isinstance(t, Enum):
        return t.name or "enum"
    return t.name or "?"


class Param:
    """name, type, `where`: the entry-time expression (None: optimized out), `from_list`: it
    came from a location list, `const`: a DW_AT_const_value."""
    __slots__ = ("name", "type", "where", "from_list", "const", "artificial")

    def __init__(self, name, type_, where, from_list, const=None, artificial=False):
        self.name, self.type, self.where, self.from_list, self.const, self.artificial = \
            name, type_, where, from_list, const, artificial


class Signature:
    """A function as DWARF describes it. `clone`: a specialised copy (constprop, isra) whose
    parameters need not follow the declared list, so only their own locations are trusted."""
    __slots__ = ("name", "params", "ret", "variadic", "frame_base", "clone", "klass")

    def __init__(self, name, params, ret, variadic, frame_base, clone, klass):
        self.name, self.params, self.ret, self.variadic = name, params, ret, variadic
        self.frame_base, self.clone, self.klass = frame_base, clone, klass


class Builder:
    """Types and signatures of one unit's DIEs (dies: offset → Die). `c_unit`: the unit is C,
    whose structures have no member functions or destructors, so one passed in memory is only
    ever shown, and its members after the SHOWN first are not decoded (lazy.py finds children
    one by one: a 200-member structure costs 17 DIEs, not 200)."""

    def __init__(self, reader, unit, dies: Dict[int, "I.Die"], c_unit: bool = False):
        self.r, self.u, self.dies = reader, unit, dies
        self.c_unit = c_unit
        self.memo: Dict[int, Type] = {}
        self.busy: set = set()

    def type_at(self, off) -> Type:
        if off is None:
            return Void()
        t = self.memo.get(off)
        if t is not None:
            return t
        d = self.dies.get(off)
        if d is None or off in self.busy:
            return Unknown()                       # outside this unit, or a loop of typedefs
        self.busy.add(off)
        try:
            t = self._make(d)
        finally:
            self.busy.discard(off)
        self.memo[off] = t
        return t

    def _make(self, d) -> Type:
        a = d.attrs
        tag = d.tag
        name = a.get(I.AT_name)
        size = a.get(I.AT_byte_size)
        size = size if isinstance(size, int) else 0
        if tag == T_base:
            enc = a.get(I.AT_encoding)
            if enc == ATE_float:
                return Float(name or "float", size)
            if enc == ATE_boolean:
                return Int(name or "bool", size, False, boolean=True)
            if enc in (ATE_signed, ATE_signed_char, ATE_unsigned, ATE_unsigned_char, ATE_UTF):
                char = enc in (ATE_signed_char, ATE_unsigned_char)
                return Int(name or "int", size, enc in (ATE_signed, ATE_signed_char), char=char)
            return Unknown(name or "?")
        if tag in (T_pointer, T_reference, T_rvalue_ref, T_ptr_to_member):
            p = Pointer(None, {T_reference: "&", T_rvalue_ref: "&&"}.get(tag, ""))
            self.memo[d.off] = p                   # a structure that points at itself
            p.target = self.type_at(a.get(I.AT_type))
            return p
        if tag in QUALIFIERS or tag == T_typedef:
            cls = Qual if tag in QUALIFIERS else Typedef
            t = cls(QUALIFIERS.get(tag, name or "?"), None)
            self.memo[d.off] = t
            t.target = self.type_at(a.get(I.AT_type))
            return t
        if tag in (T_struct, T_class, T_union):
            kind = {T_struct: "struct", T_class: "class", T_union: "union"}[tag]
            s = Struct(kind, name, size)
            s.declaration = bool(a.get(I.AT_declaration))
            self.memo[d.off] = s
            cc = a.get(I.AT_calling_convention)
            s.nontrivial = cc == 5
            cut = self.c_unit and size > IN_REGISTERS and cc is None
            kids = getattr(d, "iter_children", None)
            for c in kids() if kids is not None else d.children:
                cd = self.dies.get(c)
                if cd is None:
                    continue
                if cd.tag in (T_member, T_inheritance) and not cd.attrs.get(I.AT_declaration):
                    m = self._member(cd)
                    if m is not None:
                        if cut and len(s.members) == SHOWN:
                            s.more = True          # (one more exists: that is all render asks)
                            break
                        s.members.append(m)
                elif cd.tag == T_subprogram and cc is None:
                    n = cd.attrs.get(I.AT_name) or ""
                    if n.startswith("~") and not cd.attrs.get(I.AT_artificial):
                        s.nontrivial = True
            if cc is None and not s.nontrivial:
                s.nontrivial = any(isinstance(m.type.strip(), Struct) and m.type.strip().nontrivial
                                   for m in s.members)
            return s
        if tag == T_enum:
            vals = []
            for c in d.children:
                cd = self.dies.get(c)
                if cd is not None and cd.tag == T_enumerator:
                    v = cd.attrs.get(I.AT_const_value)
                    if isinstance(v, int):
                        vals.append((cd.attrs.get(I.AT_name) or "?", v))
            under = self.type_at(a.get(I.AT_type)).strip() if I.AT_type in a else None
            signed = under.signed if isinstance(under, Int) else any(v < 0 for _, v in vals)
            # unsigned data forms of negative enumerators: make them signed for the size
            if signed and size:
                vals = [(n, v - (1 << (8 * size)) if v >> (8 * size - 1) else v) for n, v in vals]
            return Enum(name, size or 4, signed, vals)
        if tag == T_array:
            elem = self.type_at(a.get(I.AT_type))
            counts = []
            for c in d.children:
                cd = self.dies.get(c)
                if cd is not None and cd.tag == T_subrange:
                    cnt = cd.attrs.get(I.AT_count)
                    ub = cd.attrs.get(I.AT_upper_bound)
                    counts.append(cnt if isinstance(cnt, int) else ub + 1 if isinstance(ub, int) else None)
            t = elem
            for cnt in reversed(counts or [None]):
                t = Array(t, cnt)
            return t
        if tag == T_subroutine:
            return FuncType()
        if tag == T_unspec:
            return Unknown(name or "?")
        return Unknown(name or "?")

    def _member(self, cd) -> Optional[Member]:
        a = cd.attrs
        off = a.get(I.AT_data_member_location, 0)
        if isinstance(off, bytes):                 # an expression: DW_OP_plus_uconst N (DWARF 2)
            if off[:1] == b"\x23":
                off = I.uleb(off, 1)[0]
            else:
                return None
        bits = a.get(I.AT_bit_size, 0)
        bitoff = a.get(I.AT_data_bit_offset)
        t = self.type_at(a.get(I.AT_type))
        if bits and isinstance(bitoff, int):
            off, bitoff = bitoff // 8, bitoff % 8
        elif bits:                                 # DWARF 2-3 DW_AT_bit_offset, from the top
            size = a.get(I.AT_byte_size) or t.strip().size or 4
            bo = a.get(I.AT_bit_offset, 0)
            total = size * 8 - bo - bits
            off, bitoff = off + total // 8, total % 8
        name = a.get(I.AT_name)
        if cd.tag == T_inheritance:
            name = "<" + (type_name(t) or "base") + ">"
        return Member(name or "", t, off if isinstance(off, int) else 0, bits or 0, bitoff or 0)

    # -- functions ---------------------------------------------------------------------
    def origin(self, d, seen=None):
        """The DIE a concrete instance or a definition takes its declaration from."""
        for _ in range(8):
            nxt = d.attrs.get(I.AT_abstract_origin, d.attrs.get(I.AT_specification))
            if nxt is None:
                return d
            nd = self.dies.get(nxt)
            if nd is None or nd is d:
                return d
            d = nd
        return d

    def attr(self, d, at):
        """An attribute of d or of the DIEs it is an instance or a definition of."""
        for _ in range(8):
            if at in d.attrs:
                return d.attrs[at]
            nxt = d.attrs.get(I.AT_abstract_origin, d.attrs.get(I.AT_specification))
            nd = self.dies.get(nxt) if nxt is not None else None
            if nd is None or nd is d:
                return None
            d = nd
        return None

    def signature(self, d, entry_pc: int, cu_base: int, loc_of) -> Signature:
        name = self.attr(d, I.AT_name) or "?"
        ret = self.type_at(self.attr(d, I.AT_type))
        clone = False                 # set by the caller, which knows the symbol (foo.isra.0)
        params: List[Param] = []
        variadic = False
        fb = d.attrs.get(I.AT_frame_base)
        kids = d.children or self.origin(d).children
        klass = None
        for c in kids:
            cd = self.dies.get(c)
            if cd is None:
                continue
            if cd.tag == T_unspec_params:
                variadic = True
                continue
            if cd.tag != T_formal:
                continue
            pname = self.attr(cd, I.AT_name) or f"arg{len(params) + 1}"
            ptype = self.type_at(self.attr(cd, I.AT_type))
            art = bool(self.attr(cd, I.AT_artificial))
            where, from_list = loc_of(cd.attrs.get(I.AT_location), entry_pc, cu_base) \
                if I.AT_location in cd.attrs else (None, False)
            const = cd.attrs.get(I.AT_const_value)
            params.append(Param(pname, ptype, where, from_list, const, art))
            if art and pname == "this" and isinstance(ptype.strip(), Pointer):
                tgt = ptype.strip().target
                klass = type_name(tgt.strip()) if tgt is not None else None
        return Signature(name, params, ret, variadic, fb if isinstance(fb, bytes) else None, clone, klass)
