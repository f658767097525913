"""The parser of prototype files, ltrace.conf's syntax with emutrace's extensions.

Syntax (ltrace 0.7.3, see ltrace.conf(5))
-----------------------------------------
One item per line; empty lines and lines starting with ``;`` or ``#`` are
ignored.  After the closing ``)`` of a prototype an optional ``;`` may follow,
and anything after that ``;`` is a comment.

* Prototype: ``LENS NAME(LENS, LENS, ...);``  -- ``+`` before a parameter marks
  the split: that parameter and all after it are output parameters, shown when
  the function returns.  A sole ``void`` parameter means "no parameters";
  other ``void`` parameters are ``hide(int)`` (as ltrace does).
* ``typedef NAME = LENS;`` and forward structs ``typedef NAME = struct;``
  followed by ``typedef NAME = struct(...);`` (recursive structures).
* Types: ``void char short ushort int uint long ulong float double``,
  ``addr`` and ``file`` (a pointer shown in hex, NULL as ``0``), ``TYPE*``,
  ``struct(LENS, ...)``, ``array(LENS, EXPR)``, ``enum(NAME[=VAL], ...)``,
  ``enum[TYPE](...)``, typedef names, and ``itn`` (ltrace's old misspelling).
* Lenses: ``hex(T)``, ``oct(T)``, ``octal`` / ``octal(T)`` (bare ``octal`` is
  ``oct(int)``), ``bool(T)``, ``hide(T)``, ``bitvec(T)``, ``guess(T)``
  (decimal for small values, hex otherwise, what ltrace uses for unknown
  functions), ``string(T)``, ``string[EXPR]``, ``string``, legacy ``stringN``
  (``string[argN]``; ``string0`` is ``string[retval]``), ``format`` (a string
  whose printf conversions add the following arguments).
* Expressions: ``NUM``, ``argN``, ``eltN``, ``retval``, ``zero``,
  ``zero(EXPR)``.

Extensions (not in ltrace 0.7.3)
--------------------------------
* ``...`` as the last parameter: the function is variadic.  With a ``format``
  parameter the printf conversions decide the extra arguments anyway; ``...``
  alone only marks ``Prototype.variadic``.
* ``sformat``: a scanf-style format string.  Its conversions add pointer
  arguments that are output parameters (decoded at return: ``%d`` -> ``int*``,
  ``%s``/``%[`` -> string, ``%c`` -> ``N`` chars, ``%lf`` -> ``double*`` ...;
  ``%*d`` adds nothing).  An implicit split is put before them.
* ``vformat``: a printf format whose arguments are read from the ``va_list``
  passed as the next parameter (x86-64 ``va_list`` layout); that next
  parameter is shown as usual (hex address) and the decoded arguments follow.
* ``vsformat``: the same for scanf conversions (``vsscanf``...).
* ``funcptr``: a code pointer; shown as the symbol name when the formatter's
  ``symbolize`` callback knows the address, else like ``addr`` (hex).
* ``flags(NAME=VAL, ...)`` / ``flags[TYPE](...)``: a bit-set shown as
  ``A|B|0x40``; an entry ``NAME=VAL:MASK`` is a field value (matches when
  ``value & MASK == VAL``, e.g. ``O_RDONLY=0:3``).  Nothing matched and no
  bits left gives ``0``.  Values may be written as in C (``0x10``, ``010``)
  and as ``1<<N``.
* ``cond(argN, MASK, LENS)``: the parameter is shown only when
  ``argN & MASK`` is non-zero (``open``'s mode exists only with ``O_CREAT`` or
  ``O_TMPFILE``); otherwise it is skipped like ``hide``.
* ``bool`` alone means ``bool(int)``; ``llong``/``ullong`` are ``long``/``ulong``.
* ``wchar`` (a 32-bit wide character, ``L'a'``), ``wstring`` /
  ``wstring[EXPR]`` (a ``wchar_t*`` string, ``L"abc"``).
"""
from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Tuple

from emutrace.protos.types import (INTEGRAL, ArgRef, Array, Const, EltRef, Expr, FormatPack, Pointer, Prim, Prototype,
                                   Struct, Type, Zero)


class ConfError(Exception):
    """A bad line in a prototype file.  ``str()`` is ``file:line: message``."""

    def __init__(self, filename: str, lineno: int, message: str):
        self.filename = filename
        self.lineno = lineno
        self.message = message
        super().__init__(f"{filename}:{lineno}: {message}")


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$@]*")
_NUM = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")

_BASIC = {"void", "char", "short", "ushort", "int", "uint", "long", "ulong", "float", "double"}
_ALIASES = {"itn": "int", "llong": "long", "ullong": "ulong", "wchar": "wchar"}
_SIMPLE_LENSES = {"hide": "hide", "octal": "oct", "oct": "oct", "hex": "hex", "bool": "bool",
                  "bitvec": "bitvec", "guess": "guess", "funcptr": "funcptr"}


def _c_int(text: str) -> int:
    t = text.strip()
    sign = 1
    if t[:1] in "+-":
        if t[0] == "-":
            sign = -1
        t = t[1:]
    if t[:2].lower() == "0x":
        return sign * int(t[2:], 16)
    if len(t) > 1 and t[0] == "0":
        return sign * int(t[1:], 8)
    return sign * int(t, 10)


class _Parser:
    def __init__(self, text: str, filename: str, lineno: int, typedefs: Dict[str, Type],
                 local_typedefs: set):
        self.s = text
        self.i = 0
        self.filename = filename
        self.lineno = lineno
        self.typedefs = typedefs
        self.local = local_typedefs
        # per-prototype state
        self.pack: Optional[Tuple[str, int]] = None

    # -- low level
    def err(self, msg: str):
        raise ConfError(self.filename, self.lineno, msg)

    def ws(self):
        s, i = self.s, self.i
        while i < len(s) and s[i] in " \t\r\n\f\v":
            i += 1
        self.i = i

    def peek(self) -> str:
        self.ws()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, ch: str):
        if self.peek() != ch:
            got = self.s[self.i] if self.i < len(self.s) else "end of line"
            self.err("expected '%s', got '%s'" % (ch, got))
        self.i += 1

    def accept(self, ch: str) -> bool:
        if self.peek() == ch:
            self.i += 1
            return True
        return False

    def kw(self, word: str) -> bool:
        """Consume keyword ``word`` if it is next (not followed by an ident char)."""
        self.ws()
        s, i = self.s, self.i
        if s.startswith(word, i):
            j = i + len(word)
            if j >= len(s) or not (s[j].isalnum() or s[j] == "_"):
                self.i = j
                return True
        return False

    def ident(self, what="identifier") -> str:
        self.ws()
        m = _IDENT.match(self.s, self.i)
        if not m:
            self.err("bad %s around '%s'" % (what, self.s[self.i:self.i + 20]))
        self.i = m.end()
        return m.group(0)

    def number(self) -> int:
        self.ws()
        m = _NUM.match(self.s, self.i)
        if not m:
            self.err("bad number around '%s'" % self.s[self.i:self.i + 20])
        self.i = m.end()
        return _c_int(m.group(0))

    def const_value(self) -> int:
        """Integer constant for enum/flags values: C-style numbers, '1<<N',
        and '|' of those."""
        v = self._const_term()
        while True:
            if self.peek() == "|":
                self.i += 1
                v |= self._const_term()
            else:
                return v

    def _const_term(self) -> int:
        self.ws()
        if self.accept("("):
            v = self.const_value()
            self.expect(")")
        else:
            v = self.number()
        self.ws()
        if self.s.startswith("<<", self.i):
            self.i += 2
            v <<= self.number()
        return v

    # -- expressions
    def expr(self, zero_wrap: bool = False) -> Expr:
        self.ws()
        c = self.peek()
        if c.isdigit():
            n = self.number()
            if n < 0:
                self.err("expected non-negative value, got %d" % n)
            e: Expr = Const(n)
        else:
            name = self.ident("length expression")
            m = re.fullmatch(r"(arg|elt)(\d+)", name)
            if m:
                n = int(m.group(2))
                if m.group(1) == "arg":
                    e = ArgRef(n)
                else:
                    if n < 1:
                        self.err("bad element number %d" % n)
                    e = EltRef(n)
            elif name == "retval":
                e = ArgRef(0)
            elif name == "zero":
                if self.accept("("):
                    inner = self.expr()
                    self.expect(")")
                    return Zero(inner)
                return Zero(None)
            else:
                self.err("Unknown length specifier: '%s'" % name)
        return Zero(e) if zero_wrap else e

    # -- types
    def lens(self, param_index: Optional[int] = None) -> Type:
        """LENS := lensname '(' LENS ')' | 'octal' | TYPE"""
        self.ws()
        for word, lens in _SIMPLE_LENSES.items():
            save = self.i
            if self.kw(word):
                if self.peek() != "(":
                    if word == "octal" or word == "oct":
                        t: Type = Prim("int")
                        return self._pointer_suffix(t.with_lens("oct"))
                    if word == "bool":
                        return self._pointer_suffix(Prim("int", "bool"))
                    if word == "funcptr":
                        return self._pointer_suffix(Pointer(Prim("void"), "funcptr"))
                    self.i = save
                    # maybe a typedef named like the lens; fall through to type
                    break
                self.expect("(")
                inner = self.lens(param_index)
                self.expect(")")
                t = self._apply_lens(inner, lens)
                return self._pointer_suffix(t)
        if self.kw("cond"):
            self.expect("(")
            ref = self.expr()
            if not isinstance(ref, ArgRef) or ref.index < 1:
                self.err("cond() needs argN as its first argument")
            self.expect(",")
            mask = self.const_value()
            self.expect(",")
            inner = self.lens(param_index)
            self.expect(")")
            t = inner.with_lens("cond", cond=(ref.index, mask), inner_lens=inner.lens)
            return t
        return self.type_(param_index)

    def _apply_lens(self, t: Type, lens: str) -> Type:
        if lens == "funcptr":
            return Pointer(Prim("void"), "funcptr")
        return t.with_lens(lens)

    def _pointer_suffix(self, t: Type) -> Type:
        while self.peek() == "*":
            self.i += 1
            t = Pointer(t)
        return t

    def type_(self, param_index: Optional[int] = None) -> Type:
        t = self.nonpointer(param_index)
        return self._pointer_suffix(t)

    def nonpointer(self, param_index: Optional[int]) -> Type:
        self.ws()
        s = self.s
        # string family: string, stringN, string[EXPR], string(TYPE)
        if s.startswith("string", self.i) and not s.startswith("string_", self.i):
            j = self.i + 6
            rest_is_ident = j < len(s) and (s[j].isalpha() or s[j] == "_")
            if not rest_is_ident:
                self.i = j
                return self._string(wide=False)
        if s.startswith("wstring", self.i):
            j = self.i + 7
            if not (j < len(s) and (s[j].isalnum() or s[j] == "_")) or (j < len(s) and s[j] == "["):
                self.i = j
                return self._string(wide=True)
        for kw, kind in (("format", "printf"), ("sformat", "scanf"), ("vformat", "vprintf"),
                         ("vsformat", "vscanf")):
            if self.kw(kw):
                if param_index is None:
                    self.err("'%s' type in unexpected context" % kw)
                if self.pack is not None:
                    self.err("only one 'format' type per function supported")
                self.pack = (kind, param_index)
                return self._string_type(Zero(None))
        if self.kw("enum"):
            return self._enum()
        if self.kw("flags"):
            return self._flags()
        if self.kw("struct"):
            return self._struct()
        if self.kw("array"):
            self.expect("(")
            elem = self.lens()
            self.expect(",")
            length = self.expr()
            self.expect(")")
            return Array(elem, length)
        if self.kw("addr") or self.kw("file"):
            return Pointer(Prim("void"))
        for name in _BASIC:
            if self.kw(name):
                return Prim(name)
        for name, kind in _ALIASES.items():
            if self.kw(name):
                return Prim(kind)
        m = _IDENT.match(s, self.i)
        if m and m.group(0) in self.typedefs:
            self.i = m.end()
            return self.typedefs[m.group(0)]
        self.err("unknown type around '%s'" % s[self.i:self.i + 30].rstrip())

    def _string_type(self, length: Expr, wide: bool = False) -> Type:
        elem = Prim("wchar" if wide else "char")
        p = Pointer(Array(elem, length), "string")
        p.wide = wide
        return p

    def _string(self, wide: bool) -> Type:
        s = self.s
        if not wide and self.i < len(s) and s[self.i].isdigit():
            n = self.number()
            return self._string_type(Zero(ArgRef(n)))
        c = self.peek()
        if c == "[":
            self.i += 1
            length = self.expr(zero_wrap=True)
            if isinstance(length, Zero) and isinstance(length.limit, Zero):
                length = length.limit
            self.expect("]")
            return self._string_type(length, wide)
        if c == "(" and not wide:
            self.i += 1
            inner = self.type_()
            self.expect(")")
            if isinstance(inner, Pointer) and isinstance(inner.target, Prim) and inner.target.kind == "char":
                return self._string_type(Zero(None))
            return inner.with_lens("string")
        return self._string_type(Zero(None), wide)

    def _integral_base(self, what: str) -> Prim:
        """The optional [TYPE] of enum[TYPE](...) and flags[TYPE](...): an integral type, int
        when none is given."""
        base = Prim("int")
        if self.accept("["):
            b = self.type_()
            if not (isinstance(b, Prim) and b.kind in INTEGRAL):
                self.err(f"integral type required as {what} argument")
            base = Prim(b.kind)
            self.expect("]")
        return base

    def _items(self, item: Callable[[], object]) -> list:
        """(ITEM, ITEM, ...), each parsed by item()."""
        self.expect("(")
        items: list = []
        while True:
            if self.peek() == ")" or self.peek() == "":
                self.expect(")")
                return items
            if items:
                self.expect(",")
            items.append(item())

    def _enum(self) -> Type:
        base = self._integral_base("enum")
        last = -1

        def value() -> Tuple[str, int]:             # NAME[=VAL]: one more than the last by default
            nonlocal last
            name = self.ident("enum name")
            last = self.const_value() if self.accept("=") else last + 1
            return name, last
        t = base.with_lens("enum")
        t.enum = self._items(value)
        return t

    def _flags(self) -> Type:
        base = self._integral_base("flags")

        def flag() -> Tuple[str, int, int]:         # NAME=VAL or NAME=VAL:MASK
            name = self.ident("flag name")
            self.expect("=")
            v = self.const_value()
            return name, v, self.const_value() if self.accept(":") else v
        t = base.with_lens("flags")
        t.flags = self._items(flag)
        return t

    def _struct(self, forward_ok: bool = False) -> Type:
        if forward_ok and self.peek() in (";", ""):
            st = Struct()
            st.forward = True
            return st
        return Struct(self._items(self.lens))


def _strip_comment_tail(p: _Parser):
    """After the prototype/typedef: optional ';' and a comment."""
    p.ws()
    if p.i >= len(p.s):
        return
    if p.s[p.i] == ";":
        return
    p.err("syntax error around \"%s\"" % p.s[p.i:].strip())


def _parse_line(line: str, filename: str, lineno: int, typedefs: Dict[str, Type],
                local: set, out: Dict[str, Prototype]):
    stripped = line.strip()
    if not stripped or stripped[0] in ";#":
        return
    p = _Parser(line, filename, lineno, typedefs, local)
    if p.kw("typedef"):
        name = p.ident("typedef name")
        p.expect("=")
        existing = typedefs.get(name)
        if p.kw("struct"):
            t = p._struct(forward_ok=True)
        else:
            t = p.lens()
        _strip_comment_tail(p)
        if existing is not None and name in local:
            if isinstance(existing, Struct) and existing.forward and isinstance(t, Struct) and not t.forward:
                existing.fields[:] = t.fields
                existing.forward = False
                return
            if isinstance(existing, Struct) and existing.forward and isinstance(t, Struct) and t.forward:
                return
            if isinstance(existing, Struct) and existing.forward:
                p.err("Definition of forward '%s' must be a structure." % name)
            p.err("Redefinition of typedef '%s'" % name)
        if isinstance(t, Struct) and t.name is None:
            t.name = name
        typedefs[name] = t
        local.add(name)
        return

    ret = p.lens()
    p.ws()
    m = _NAME.match(p.s, p.i)
    if not m:
        p.err("syntax error: expected a function name around '%s'" % p.s[p.i:p.i + 30].strip())
    name = m.group(0)
    p.i = m.end()
    p.expect("(")
    params: List[Type] = []
    split: Optional[int] = None
    variadic = False
    while True:
        c = p.peek()
        if c == ")":
            p.i += 1
            break
        if c == "":
            p.err("syntax error: missing ')'")
        if params or variadic:
            p.expect(",")
            c = p.peek()
        if variadic:
            p.err("'...' must be the last parameter")
        if p.s.startswith("...", p.i):
            p.i += 3
            variadic = True
            continue
        if c == "+":
            p.i += 1
            if split is None:
                split = len(params)
        t = p.lens(param_index=len(params))
        params.append(t)
    _strip_comment_tail(p)
    # 'void' parameters, as ltrace: a sole one means none, others are hide(int)
    if len(params) == 1 and isinstance(params[0], Prim) and params[0].kind == "void" and params[0].lens is None:
        params = []
        if split is not None:
            split = None
    else:
        params = [Prim("int", "hide") if (isinstance(t, Prim) and t.kind == "void" and t.lens is None) else t
                  for t in params]
    pack = None
    if p.pack is not None:
        kind, idx = p.pack
        pack = FormatPack(kind, idx)
        variadic = True
        if kind in ("vprintf", "vscanf") and idx + 1 >= len(params):
            p.err("'%s' must be followed by a va_list parameter" % ("vformat" if kind == "vprintf" else "vsformat"))
    out[name] = Prototype(name=name, ret=ret, params=params, variadic=variadic, split=split,
                          pack=pack, filename=filename, lineno=lineno)


def parse_conf(text: str, filename: str = "<string>",
               typedefs: Optional[Dict[str, Type]] = None) -> Dict[str, Prototype]:
    """Parse one file's text.  ``typedefs`` (optional) is a shared dictionary of
    type names: earlier files' names are visible, and this file's are added."""
    if typedefs is None:
        typedefs = {}
    local: set = set()
    out: Dict[str, Prototype] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        _parse_line(line, filename, lineno, typedefs, local, out)
    for name in local:
        t = typedefs.get(name)
        if isinstance(t, Struct) and t.forward:
            # a forward never completed: keep it as an empty struct
            t.forward = False
    return out
