"""Compiled prototypes: the ops (emutrace.renderops) a prototype renders through on the hot path."""
from __future__ import annotations

from typing import List, Optional

from emutrace.machine.reader import GuestReader
from emutrace.protos import (Array, ArgRef, Const, EltRef, Pointer, Prim, Prototype, Struct, Type, Zero, default_prototype, FLOATING, SIGNED)
from emutrace.renderops import BLOCK, LIVE, RAXRDX, RETLEN, WORD, RenderOp
from emutrace.renderops import STRUCT_CLOSE, STRUCT_HEX, STRUCT_OCT, STRUCT_OPEN, STRUCT_SIGNED, STRUCT_UNSIGNED
from emutrace.machine.abi import STRUCT_DEPTH_MAX, STRUCT_TOKENS_MAX, TEXTS
from emutrace.values.state import CallState, _Ctx
from emutrace.values.fetch import _classify

_VOID = TEXTS["VOID"]    # (machine/abi.py's, C's TXT_*)


# ----------------------------------------------------------------------------
# compiled prototypes: the hot path of library-call tracing
#
# Most prototypes take only integer-class arguments (ints, pointers, strings) whose rendering
# depends on nothing but the argument word and memory. Such a prototype is compiled once into
# a list of render operations (emutrace.renderops: one per shown argument and one for the
# return value), so a call does no type dispatch: it formats the argument words straight from
# the registers. A type no other kind describes is the op `typed`, which defers to the generic
# interpreter below (_fmt). Prototypes that need more than the integer words (floats,
# structures passed by value, format strings, lengths taken from other arguments, cond()) stay
# on the generic path. Both give the same text, byte for byte (tests/test_fastpath.py).

_UNSET = object()
_INT_KINDS = {"char", "short", "ushort", "int", "uint", "long", "ulong", "wchar"}

# (an integer type's class, its lens) -> the op kind rendering it as _fmt_prim does; any other
# pair is `typed`. A class's plain kind (lens None) also renders an enum's values with no name.
_PRIM_OPS = {
    ("signed", None): "signed", ("unsigned", None): "unsigned", ("char", None): "char",
    ("wchar", None): "wchar",
    ("signed", "hex"): "hex", ("unsigned", "hex"): "hex",
    ("signed", "guess"): "guess", ("unsigned", "guess"): "guess",      # (a full word only)
    ("signed", "bool"): "bool", ("unsigned", "bool"): "bool", ("char", "bool"): "bool",
    ("signed", "enum"): "enum", ("unsigned", "enum"): "enum", ("char", "enum"): "enum",
    ("signed", "flags"): "flags", ("unsigned", "flags"): "flags",
    ("signed", "oct"): "oct", ("unsigned", "oct"): "oct",
}


# the integer fields the op `struct` shows, by (_int_class, lens), as _fmt_prim shows them
_STRUCT_FIELD = {("signed", None): STRUCT_SIGNED, ("unsigned", None): STRUCT_UNSIGNED,
                 ("signed", "hex"): STRUCT_HEX, ("unsigned", "hex"): STRUCT_HEX,
                 ("signed", "oct"): STRUCT_OCT, ("unsigned", "oct"): STRUCT_OCT}

# integers _fmt_prim renders as plain decimal numbers (no lens): as fields of the op intstruct
_PLAIN_INTS = {"short", "ushort", "int", "uint", "long", "ulong"}


def _int_class(kind: str) -> str:
    return kind if kind in ("char", "wchar") else "signed" if kind in SIGNED else "unsigned"


class _NotCompiled(Exception):
    pass


class _Plan:
    """A compiled prototype: a list of render operations. ``left_items`` and ``right_items``:
    ((word index, RenderOp), ...) of the shown arguments before and after the split (hidden ones
    left out); ``ret``: the return value's RenderOp (None for void). ``left(words, mem)`` and
    ``right(words, mem)`` (None when nothing is an output parameter) run their ops' word
    renderers."""
    __slots__ = ("proto", "known", "nwords", "left", "right", "ret", "ret_hidden", "left_items",
                 "right_items", "ret_pair")

    def __init__(self, proto, known, nwords, left_items, right_items, ret, has_right: bool):
        self.proto = proto
        self.known = known
        self.nwords = nwords
        self.left_items = left_items
        self.right_items = right_items
        self.left = _args_fn(left_items)
        self.right = _args_fn(right_items) if has_right else None
        self.ret = ret
        self.ret_hidden = ret is not None and ret.kind == "hide"
        # a structure returned in rax and rdx: exit_word's rax is then rax | rdx << 64
        self.ret_pair = ret is not None and ret.capture == RAXRDX


def _args_fn(items):
    """fn(words, mem, rax=None) -> [str, ...] for ((word index, op), ...), unrolled for the usual
    counts. An op with a `len_arg` also gets that word (a buffer and its length), an op whose
    length is the returned value (RETLEN) gets rax."""
    n = len(items)
    if any(op.len_arg is not None or op.capture == RETLEN for _, op in items):
        triples = tuple((i, op.word, _RAX if op.capture == RETLEN else op.len_arg) for i, op in items)
        return lambda w, mem, rax=None: [f(w[i], mem) if j is None else f(w[i], mem, rax) if j is _RAX
                                         else f(w[i], mem, w[j]) for i, f, j in triples]
    fns = tuple((i, op.word) for i, op in items)
    if n == 0:
        return lambda w, mem, rax=None: []
    if n == 1:
        (i0, f0), = fns
        return lambda w, mem, rax=None: [f0(w[i0], mem)]
    if n == 2:
        (i0, f0), (i1, f1) = fns
        return lambda w, mem, rax=None: [f0(w[i0], mem), f1(w[i1], mem)]
    if n == 3:
        (i0, f0), (i1, f1), (i2, f2) = fns
        return lambda w, mem, rax=None: [f0(w[i0], mem), f1(w[i1], mem), f2(w[i2], mem)]
    return lambda w, mem, rax=None: [f(w[i], mem) for i, f in fns]


_RAX = object()             # (_args_fn: the op's length is the returned value)


class FastCallState:
    """A call traced through a compiled prototype: the same public fields as CallState."""
    __slots__ = ("name", "display_name", "plan", "words", "text", "right", "args", "ret",
                 "finished", "_left_args")

    def __init__(self, name: str, display_name: str, plan: _Plan, words, text: str, left: List[str]):
        self.name = name
        self.display_name = display_name
        self.plan = plan
        self.words = words
        self.text = text
        self._left_args = left
        self.right = ""
        self.args: List[str] = []
        self.ret = ""
        self.finished = False

    @property
    def proto(self) -> Prototype:
        return self.plan.proto

    @property
    def known(self) -> bool:
        return self.plan.known

    @property
    def left_args(self) -> List[str]:
        return self._left_args

    line = CallState.line
    unfinished_line = CallState.unfinished_line
    resumed_line = CallState.resumed_line

    def __repr__(self):
        return "CallState(%r, text=%r, right=%r, ret=%r)" % (self.name, self.text, self.right, self.ret)


def _expr_self_contained(e) -> bool:
    if isinstance(e, Const):
        return True
    if isinstance(e, Zero):
        return e.limit is None or _expr_self_contained(e.limit)
    if isinstance(e, EltRef):
        return True             # the surrounding structure, known while formatting it
    return False                # ArgRef: another argument or the return value


def _self_contained(t, seen: set) -> bool:
    """True when rendering t needs no other argument (no argN/retval lengths, no cond())."""
    if id(t) in seen:
        return True
    seen.add(id(t))
    if t.lens == "cond" or getattr(t, "cond", None) is not None:
        return False
    if isinstance(t, Prim):
        return True
    if isinstance(t, Pointer):
        return _self_contained(t.target, seen)
    if isinstance(t, Array):
        return _expr_self_contained(t.length) and _self_contained(t.elem, seen)
    if isinstance(t, Struct):
        return all(_self_contained(f, seen) for f in t.fields)
    return False


def _flat_size(t) -> Optional[int]:
    """The size of a value with no pointer in it (integers, fixed arrays of them, structures of
    those), whose rendering reads only its own bytes; None otherwise."""
    if getattr(t, "cond", None) is not None or t.lens == "cond":
        return None
    if isinstance(t, Prim):             # any lens: a primitive renders from its own bytes
        return t.size() if t.kind not in ("void",) else None
    if isinstance(t, Array):
        if not isinstance(t.length, Const):
            return None
        es = _flat_size(t.elem)
        return es * t.length.value if es is not None else None
    if isinstance(t, Struct):
        if not t.fields or any(_flat_size(f) is None for f in t.fields):
            return None
        return t.size()
    return None


def _is_wstring(target) -> bool:
    """A NUL-terminated wchar_t string (wcslen's `wstring`), which the op `wstr` renders."""
    arr = target
    if isinstance(arr, Prim) and arr.kind == "wchar":
        arr = Array(arr, Zero(None))
    return (isinstance(arr, Array) and isinstance(arr.elem, Prim) and arr.elem.kind == "wchar"
            and arr.elem.size() == 4 and isinstance(arr.length, Zero) and arr.length.limit is None)


class Compiling:
    """CallFormatter's compiled prototypes (a part of CallFormatter)."""

    # -- compiled prototypes (the hot path) ----------------------------------
    def plan(self, proto: Optional[Prototype]) -> Optional[_Plan]:
        """The compiled form of ``proto`` (None: ltrace's default prototype), or None when it
        needs the generic path. Computed once per prototype."""
        if proto is None:
            if self._default_plan is _UNSET:
                self._default_plan = self._compile(default_prototype(""), False)
            return self._default_plan
        got = self._plans.get(id(proto))
        if got is None or got[0] is not proto:
            got = self._plans[id(proto)] = (proto, self._compile(proto, True))
        return got[1]

    def enter_words(self, name: str, display_name: str, plan: _Plan, words, mem: GuestReader) -> FastCallState:
        """``enter`` through a compiled prototype: ``words`` are the integer argument slots
        (rdi, rsi, rdx, rcx, r8, r9, then the stack), at least ``plan.nwords`` of them."""
        left = plan.left(words, mem)
        return FastCallState(name, display_name, plan, words,
                             display_name + "(" + ", ".join(left), left)

    def exit_word(self, st: FastCallState, rax: Optional[int], mem: GuestReader) -> str:
        """``exit`` through a compiled prototype, with the return register's value (rax | rdx << 64
        for a structure returned in both: plan.ret_pair)."""
        plan = st.plan
        left = st._left_args
        if plan.right is not None:
            right = plan.right(st.words, mem, rax)
            joined = ", ".join(right)
            if right and left:
                joined = ", " + joined
            st.right = joined
            st.args = left + right
        else:
            st.args = left[:]
        op = plan.ret
        if op is None:
            st.ret = _VOID
        elif rax is None:
            st.ret = _VOID if plan.ret_hidden else "?"
        else:
            r = op.word(rax, mem)
            st.ret = _VOID if r is None else r
        st.finished = True
        return st.right + ") = " + st.ret

    def _compile(self, proto: Prototype, known: bool) -> Optional[_Plan]:
        rt = proto.ret
        if proto.pack is not None:
            return None
        try:
            ops = [self._bounded_string(t, proto) or self._ret_bounded_string(t, proto, i) or
                   self._length_bounded_cstring(t, proto, i) or self._compile_word(t, True)
                   for i, t in enumerate(proto.params)]
            if isinstance(rt, Prim) and rt.kind == "void" and rt.lens in (None, "hide"):
                ret = None
            elif isinstance(rt, Struct):
                ret = self._compile_ret_pair(rt)
            else:
                ret = self._compile_word(rt, False)
        except _NotCompiled:
            return None
        split = min(proto.out_start, len(ops))
        # hidden arguments take their word and show nothing
        left = tuple((i, op) for i, op in enumerate(ops[:split]) if op.kind != "hide")
        right = tuple((i + split, op) for i, op in enumerate(ops[split:]) if op.kind != "hide")
        return _Plan(proto, known, len(ops), left, right, ret, split < len(ops))

    def _op(self, kind: str, **params) -> RenderOp:
        """The op of `kind` with `params`. Ops are immutable and their renderers keep no state,
        so one is made per kind and parameters and shared (most of a database's arguments are a
        few of them: making each anew was most of what compiling a prototype cost); `typed` ops
        belong to their type."""
        if kind in ("typed", "struct"):
            return RenderOp(kind, self._typed_word, **params)
        key = (kind, *params.items())
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = RenderOp(kind, self._typed_word, **params)
        return op

    def _typed_word(self, t: Type):
        """fn(word, mem): the generic interpreter's rendering of a value of type t held in one
        integer register (the op `typed`)."""
        if isinstance(t, Prim):
            fmt_prim, lens = self._fmt_prim, t.lens
            return lambda w, mem: fmt_prim(t, w.to_bytes(8, "little"), lens)
        fmt = self._fmt
        return lambda w, mem: fmt(t, w.to_bytes(8, "little"), None, _Ctx(self, mem, None))

    def _bounded_string(self, t: Type, proto: Prototype) -> Optional[RenderOp]:
        """A char buffer whose length is another argument (memcmp's `string(array(char, arg3)*)`,
        write's `string3`), when that argument is a 64-bit integer: the op `buf`, rendered as
        _fmt_array renders it; None for anything else."""
        if isinstance(t, Array) or not isinstance(t, Pointer) or t.lens != "string" or getattr(t, "wide", False):
            return None
        arr = t.target
        if not (isinstance(arr, Array) and isinstance(arr.elem, Prim) and arr.elem.kind == "char"
                and isinstance(arr.length, ArgRef) and 1 <= arr.length.index <= len(proto.params)):
            return None
        if getattr(t, "cond", None) is not None or t.inner_lens not in (None, "string"):
            return None
        lt = proto.params[arr.length.index - 1]
        if not (isinstance(lt, Prim) and lt.kind in ("long", "ulong") and lt.lens is None):
            return None
        return self._op("buf", limit=self.string_limit, len_arg=arr.length.index - 1)

    def _length_bounded_cstring(self, t: Type, proto: Prototype, index: int) -> Optional[RenderOp]:
        """ltrace's `stringN` shown at the call (strncpy's source, write's buffer:
        `string(array(char, zero(argN))*)`): a C string of at most argN's characters, when argN
        is an integer: the op `strn`, rendered as _fmt_array renders it; None for anything else.
        The length is argN's value as _eval reads it (value_extract_word: its bytes zero-extended,
        so a 4-byte length is the word's low half): the op's mask."""
        if index >= proto.out_start or isinstance(t, Array) or not isinstance(t, Pointer):
            return None             # (an output string is read at the return: the generic path)
        if t.lens != "string" or getattr(t, "wide", False) or getattr(t, "cond", None) is not None \
                or t.inner_lens not in (None, "string"):
            return None
        arr = t.target
        if not (isinstance(arr, Array) and isinstance(arr.elem, Prim) and arr.elem.kind == "char"
                and isinstance(arr.length, Zero) and isinstance(arr.length.limit, ArgRef)
                and 1 <= arr.length.limit.index <= len(proto.params)):
            return None
        lt = proto.params[arr.length.limit.index - 1]
        if not (isinstance(lt, Prim) and lt.kind in _INT_KINDS and lt.size() in (1, 2, 4, 8)):
            return None
        size = lt.size()
        return self._op("strn", limit=self.string_limit, len_arg=arr.length.limit.index - 1,
                        mask=(1 << (8 * size)) - 1, size=size)

    def _compile_ret_pair(self, t: Struct) -> RenderOp:
        """A structure returned in rax (and rdx): of at most 16 bytes with no pointer in it and
        only integers (both eightbytes of class INTEGER), rendered by the generic interpreter
        from rax | rdx << 64 as _fetch_ret assembles them; _NotCompiled otherwise."""
        size = _flat_size(t)
        classes = _classify(t) if size else None
        if not size or size > 16 or not classes or any(c != "INT" for c in classes):
            raise _NotCompiled
        if t.lens is None and all(isinstance(f, Prim) and f.kind in _PLAIN_INTS and f.lens is None for f in t.fields):
            # plain integers (ldiv_t, std::pair<bool, size_t>'s two words): the op intstruct
            offs, _, _ = t.layout()
            return self._op("intstruct", names=tuple((o, f.size(), f.kind in SIGNED) for f, o in zip(t.fields, offs)))
        fmt = self._fmt

        def pair(w, mem):
            return fmt(t, w.to_bytes(16, "little")[:size], None, _Ctx(self, mem, None))
        return RenderOp("typed", lambda _t: pair, type=t, capture=RAXRDX)

    def _ret_bounded_string(self, t: Type, proto: Prototype, index: int) -> Optional[RenderOp]:
        """An output string whose length is at most the returned value (read's
        `+string[retval]`, mbstowcs's `+wstring[retval]`), when the return type is a 4- or
        8-byte integer: the op `retstr` or `retwstr`, rendered as _fmt_array renders it; None for
        anything else."""
        if index < proto.out_start or isinstance(t, Array) or not isinstance(t, Pointer):
            return None
        if getattr(t, "cond", None) is not None or t.inner_lens not in (None, "string"):
            return None
        arr, rt = t.target, proto.ret
        if not (isinstance(arr, Array) and isinstance(arr.length, Zero) and isinstance(arr.length.limit, ArgRef)
                and arr.length.limit.index == 0 and isinstance(arr.elem, Prim) and arr.elem.lens is None):
            return None
        if not (isinstance(rt, Prim) and rt.kind in _INT_KINDS and rt.size() in (4, 8)):
            return None
        size = rt.size()
        if arr.elem.kind == "char" and t.lens == "string" and not getattr(t, "wide", False):
            kind = "retstr"
        elif arr.elem.kind == "wchar" and arr.elem.size() == 4 and (t.lens == "string" or getattr(t, "wide", False)):
            kind = "retwstr"
        else:
            return None
        return self._op(kind, limit=self.string_limit, mask=(1 << (8 * size)) - 1, size=size)

    def _compile_word(self, t: Type, param: bool) -> RenderOp:
        """The op rendering a value held in one integer register exactly as ``_fmt`` renders its
        8 bytes; _NotCompiled when the generic path is needed."""
        if isinstance(t, Array):
            if not param:
                raise _NotCompiled
            inner = t.with_lens(None)           # arrays decay into pointers, as _fetch_one
            p = Pointer(inner, t.lens)
            p.cond, p.inner_lens = t.cond, t.inner_lens
            t = p
        if isinstance(t, Struct) or (isinstance(t, Prim) and t.kind in FLOATING):
            raise _NotCompiled
        if not _self_contained(t, set()):
            raise _NotCompiled
        lens = t.lens
        if lens == "hide":
            return self._op("hide")
        if isinstance(t, Prim):
            return self._compile_prim(t, lens)
        if isinstance(t, Pointer):
            return self._compile_pointer(t, lens)
        raise _NotCompiled

    def _compile_prim(self, t: Prim, lens: Optional[str]) -> RenderOp:
        k = t.kind
        kind = _PRIM_OPS.get((_int_class(k), lens)) if k in _INT_KINDS else None
        size = t.size()
        if kind is None or (kind == "guess" and size != 8) or (kind == "enum" and t.enum is None) \
                or (kind == "flags" and t.flags is None):
            return self._op("typed", type=t, capture=WORD)
        mask = (1 << (size * 8)) - 1
        if kind == "flags":
            return self._op("flags", mask=mask, size=size, names=tuple(t.flags))
        if kind == "enum":
            return self._op("enum", mask=mask, size=size, names=tuple((val & mask, name) for name, val in t.enum),
                            fallback=_PRIM_OPS[(_int_class(k), None)])
        return self._op(kind, mask=mask, size=size)

    def _compile_pointer(self, t: Pointer, lens: Optional[str]) -> RenderOp:
        target = t.target
        if isinstance(target, Prim) and target.kind == "void":
            if lens not in ("funcptr", "bool", "guess", "oct"):
                return self._op("addr")
        elif lens == "string" and not getattr(t, "wide", False):
            arr = target
            if isinstance(arr, Prim) and arr.kind == "char":
                arr = Array(arr, Zero(None))
            if isinstance(arr, Array) and isinstance(arr.elem, Prim) and arr.elem.kind == "char" \
                    and isinstance(arr.length, Zero) and arr.length.limit is None:
                return self._op("cstr", limit=self.string_limit)
        elif getattr(t, "wide", False) and lens in (None, "string") and _is_wstring(target):
            return self._op("wstr", limit=self.string_limit)
        elif lens in (None, "bitvec") and isinstance(target, Prim) and target.kind in _INT_KINDS \
                and "bitvec" in (lens, target.lens) and getattr(target, "cond", None) is None:
            # a set of bits (sigset_t): read as the generic interpreter reads it, the op `bitvec`
            return self._op("bitvec", size=target.size())
        # the generic interpreter; a pointer to a value with no pointer in it reads
        # [w, w + size) and nothing else (an output argument the guest log copies)
        size = _flat_size(target) if lens in (None, "hex") else None
        if size and lens is None and isinstance(target, Struct) and self.array_limit >= 1 \
                and target.lens is None and size == self._struct_size(target):
            tokens = self._struct_tokens(target, 0)
            if tokens is not None and len(tokens) <= STRUCT_TOKENS_MAX and _nesting(tokens) <= STRUCT_DEPTH_MAX:
                return self._op("struct", type=t, size=size, names=tuple(tokens))
        if size:
            return self._op("typed", type=t, capture=BLOCK, cap=size)
        return self._op("typed", type=t, capture=LIVE)


def _nesting(tokens) -> int:
    """How deep a struct op's layout nests structures (the outermost counts 1)."""
    depth = deepest = 0
    for kind, _off, _size in tokens:
        if kind == STRUCT_OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif kind == STRUCT_CLOSE:
            depth -= 1
    return deepest
