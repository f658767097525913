"""One unit's DIEs decoded when asked, not all at once: what a trace needs of a unit is its
functions' DIEs and the types their parameters reach, a small part of a unit whose headers
define thousands of types (C++ with the standard library, or a C program with large
structures: the cold start-up of --ftrace -a on 10 MB of DWARF).

`subprograms()` walks the unit's tree but jumps over the subtrees of type definitions
(structures, classes, unions, enums, arrays, function types: their members, enumerators and
member function declarations define no code) by their DW_AT_sibling, decoding those subtrees
only where the producer gave no sibling. `get(off)` decodes one DIE; its `children` are found
when first asked. Every step moves forward through the unit and is counted, so lying input
(siblings that point back, truncated units) ends as DwarfError, never as a loop."""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional

from emutrace.dwarf import info as I
from emutrace.dwarf.errors import DwarfError

# subtrees that hold no function definition (DWARF 5 §7.5.3 tags: arrays, enums, function
# types). Structures, classes and unions are walked: a method of a local class is defined
# inside its class; their members are stepped over without decoding (fixed-size abbreviations)
NO_CODE_TAGS = frozenset({0x01, 0x04, 0x15})
# in C (which has no member functions) structures and unions hold no code either: jumped over
C_NO_CODE_TAGS = NO_CODE_TAGS | {0x13, 0x17}
C_LANGUAGES = frozenset({0x01, 0x02, 0x0C, 0x1D, 0x2C})      # DW_LANG_C89, C, C99, C11, C17
T_subprogram = 0x2E


class LazyDie:
    """A DIE as info.Die (off, tag, attrs, children), its children found at the first ask."""
    __slots__ = ("off", "tag", "attrs", "end", "has_children", "_kids", "_unit")

    def __init__(self, unit: "LazyUnit", off: int, tag: int, attrs: dict, end: int, has_children: bool):
        self._unit, self.off, self.tag, self.attrs, self.end, self.has_children = unit, off, tag, attrs, end, has_children
        self._kids: Optional[List[int]] = None

    @property
    def children(self) -> List[int]:
        if self._kids is None:
            self._kids = self._unit.children_of(self) if self.has_children else []
        return self._kids

    def iter_children(self) -> Iterator[int]:
        """The children's offsets, each decoded only when the caller comes to it (a reader
        that stops early decodes no more)."""
        if self._kids is not None or not self.has_children:
            return iter(self.children)
        return self._unit.iter_children(self)


class LazyUnit:
    """The DIEs of unit u of reader r, by .debug_info offset (a mapping's `get`)."""

    def __init__(self, r: "I.Reader", u: "I.Unit"):
        self.r, self.u = r, u
        self.table = r.abbrevs(u.abbrev_off)
        self._dies: Dict[int, Optional[LazyDie]] = {}
        self.steps = 0                       # DIEs decoded or skipped, bounded by MAX_DIES
        # abbreviation code → how to step over its attributes (skip_program), or None
        self._skip: Dict[int, Optional[tuple]] = {}

    def _count(self) -> None:
        self.steps += 1
        if self.steps > I.MAX_DIES:
            raise DwarfError(f"unit at {self.u.off:#x} has too many entries")

    def get(self, off) -> Optional[LazyDie]:
        if not isinstance(off, int) or not self.u.die_off <= off < self.u.end:
            return None                      # outside this unit
        if off in self._dies:
            return self._dies[off]
        d = self._decode(off)
        self._dies[off] = d
        return d

    def _decode(self, off: int) -> Optional[LazyDie]:
        """The DIE at off (None for a null entry)."""
        self._count()
        try:
            code, i = I.uleb(self.r.info, off)
            if code == 0:
                return None
            tag, has_children, attrs, end = self.r.die_body(self.u, self.table, code, off, i)
        except IndexError:
            raise DwarfError(f"unit at {self.u.off:#x} is truncated") from None
        return LazyDie(self, off, tag, attrs, end, has_children)

    def _after(self, d: LazyDie) -> int:
        """The offset just past d and its subtree: its sibling when the producer says where
        (and that is ahead of it), else found by walking the subtree."""
        if not d.has_children:
            return d.end
        sib = d.attrs.get(I.AT_sibling)
        if isinstance(sib, int) and d.end <= sib <= self.u.end:
            return sib
        off = d.end
        for _ in range(I.MAX_DIES):          # the children, then the null entry that ends them
            c = self.get(off)
            if c is None:
                return off + 1
            off = self._after(c)
        raise DwarfError(f"DIE at {d.off:#x}: too many children")

    def children_of(self, d: LazyDie) -> List[int]:
        return list(self.iter_children(d))

    def iter_children(self, d: LazyDie) -> Iterator[int]:
        off = d.end
        while off < self.u.end:              # (each step moves forward: _after is past c)
            c = self.get(off)
            if c is None:
                return
            yield off
            off = self._after(c)

    def _skipper(self, code: int) -> Optional[tuple]:
        k = self._skip.get(code, -1)
        if k == -1:
            k = self._skip[code] = skip_program(self.table[code][2], self.u) if code in self.table else None
        return k

    def _scan(self, d: LazyDie) -> Iterator[tuple]:
        """(offset, tag, has children) of d's children, stepping over a childless DIE that is
        not a function without decoding its attributes (a structure's members)."""
        info, end = self.r.info, self.u.end
        off = d.end
        while off < end:
            self._count()
            try:
                code, i = I.uleb(info, off)
                if code == 0:
                    return
                ab = self.table.get(code)
                prog = self._skipper(code) if ab is not None and not ab[1] and ab[0] != T_subprogram else None
                if prog is not None:
                    yield off, ab[0], False
                    off = skip(info, i, prog)
                    if off > end:
                        raise DwarfError(f"DIE at {off:#x} runs past its unit")
                    continue
            except IndexError:
                raise DwarfError(f"unit at {self.u.off:#x} is truncated") from None
            c = self.get(off)
            if c is None:
                return
            yield off, c.tag, c.has_children
            off = self._after(c)

    def subprograms(self) -> Iterator[LazyDie]:
        """Every subprogram DIE of the unit outside arrays, enums and function types (and, in
        C, structures and unions), in offset order."""
        root = self.get(self.u.die_off)
        if root is None:
            return
        no_code = C_NO_CODE_TAGS if root.attrs.get(I.AT_language) in C_LANGUAGES else NO_CODE_TAGS
        stack = [self._scan(root)]
        while stack:
            got = next(stack[-1], None)
            if got is None:
                stack.pop()
                continue
            off, tag, kids = got
            if tag == T_subprogram:
                yield self.get(off)
            if kids and tag not in no_code:
                if len(stack) >= I.MAX_DEPTH:
                    raise DwarfError(f"DIE at {off:#x}: nested too deep")
                stack.append(self._scan(self.get(off)))


_LEB = I.ULEB_FORMS | {0x0D}             # (and sdata: stepped over alike)


def skip_program(specs, u: "I.Unit") -> Optional[tuple]:
    """How to step over a DIE's attributes without decoding them: a tuple of byte counts (a
    fixed-size run) and the markers "s" (a NUL-terminated string), "l" (a LEB128 number), "b"
    (a LEB128 length and that many bytes); None for a form it does not step over."""
    ops: list = []
    for _at, form, _ic in specs:
        k = I.FIXED_FORMS.get(form)
        if k is None:
            if form == 0x01:                                # addr
                k = u.addr_size
            elif form in I.OFFSET_FORMS:
                k = u.off_size
            elif form in (0x19, 0x21):                      # flag_present, implicit_const
                k = 0
            elif form == 0x08:
                ops.append("s")
                continue
            elif form in _LEB:
                ops.append("l")
                continue
            elif form in (0x09, 0x18):                      # block, exprloc
                ops.append("b")
                continue
            else:
                return None
        if ops and isinstance(ops[-1], int):
            ops[-1] += k
        else:
            ops.append(k)
    return tuple(ops)


def skip(info: bytes, i: int, prog: tuple) -> int:
    """The offset past attributes starting at i, stepped over by skip_program's ops."""
    for op in prog:
        if op.__class__ is int:
            i += op
        elif op == "s":
            i = info.index(b"\0", i) + 1      # (ValueError past the section: caught as lying input)
        elif op == "l":
            while info[i] & 0x80:
                i += 1
            i += 1
        else:
            n, i = I.uleb(info, i)
            i += n
    return i
