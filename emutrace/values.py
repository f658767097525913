"""Formatting library-call arguments and return values the way ltrace 0.7.3 does.

    from emutrace.values import CallFormatter
    fmt = CallFormatter(string_limit=32, array_limit=4, symbolize=lambda a: "cmp" or None)
    st = fmt.enter("strtol", proto_or_None, regs, mem)  # at the call
    st.text                 # 'strtol("42abc"' : name, '(' and the arguments shown at entry
    rest = fmt.exit(st, regs, mem)                       # at the return
    rest                    # ', 0x7ffd1234) = 42'
    st.text + rest          # the whole call, unaligned
    st.line()               # the whole call as ltrace prints it (' = ' at column 49)
    st.args, st.ret         # every shown argument / the return value, as strings

What ``regs`` and ``mem`` must offer: ``regs.int_arg(i)`` (i-th integer-class
argument slot at function entry: rdi, rsi, rdx, rcx, r8, r9, then the stack
slots [rsp+8], [rsp+16]...), ``regs.float_arg(i)`` (xmm0..xmm7, the low 64
bits read as a double: the raw bits must survive, a ``float`` argument is
taken from the low 32 of them), ``regs.ret_int()`` (rax), ``regs.ret_float()``
(xmm0 as a double) and, optionally, ``regs.ret_int_hi()`` (rdx, for 9..16-byte
structures returned by value).  ``mem.read(addr, size) -> bytes | None`` and
``mem.cstring(addr, limit) -> (bytes, nul_found) | None``.

Entry and exit
--------------
As ltrace, every argument *word* is fetched at the call (registers are
clobbered by the time the function returns), the arguments before the first
output parameter (``+`` in the prototype) are formatted then, and the output
parameters are formatted at the return, reading memory as it is then.
``st.text`` is what ltrace prints before `` <unfinished ...>`` when another
call interrupts the line: ``read(3`` for ``long read(int, +string[retval],
ulong)``.  The delimiter before the first output parameter belongs to the part
printed at return (ltrace prints ``<... read resumed> , "hello\\n", 100)``), so
``fmt.exit`` returns ``', "hello\\n", 100) = 6'`` and ``st.right`` is
``', "hello\\n", 100'``.  When nothing is an output parameter, ``st.text``
holds all the arguments (``strlen("abc"``) and exit returns ``') = 3'``.

Helpers for the output code: ``st.line(align=50)``, ``st.unfinished_line()``,
``st.resumed_line(align=50)`` and :func:`close_call` (pads with spaces to
column ``align - 1`` after ``") "``, like ltrace's ``-a``, default 50).

Rendering rules (checked against the real ltrace 0.7.3 on x86-64)
----------------------------------------------------------------
* strings: ``"..."`` with ``\\0 \\a \\b \\t \\n \\v \\f \\r \\\\`` and ``\\OOO``
  (3 octal digits) for other non-printables; ``"`` and ``'`` are not
  escaped; longer than ``string_limit`` -> cut, ``...`` after the closing
  quote; NULL -> ``nil``.
* chars ``'a'``; ints decimal; unsigned decimal; ``hex`` -> ``0x1f`` (``0`` for
  zero); ``oct`` -> ``0755`` (``00`` for zero); ``bool`` -> ``true``/``false``;
  float and double ``%f`` (``1.500000``), ``hex(double)`` ``%a``.
* ``addr``/``file``/``void*`` -> ``0x55d0c0ffee00``, NULL -> ``0``; any other
  pointer is dereferenced (``int*`` shows the int), NULL -> ``nil``.
* arrays ``[ 1, 2, 3, 4... ]`` (at most ``array_limit`` elements); structs
  ``{ 1, "a" }``; ``bitvec`` ``<1,3-5>`` / ``~<0>``; enums by name, unknown
  values as the number; recursive structures ``recurse^`` and ``...``.
* ``void`` return -> ``<void>``.
* printf-family ``format``: every conversion becomes an argument with ltrace's
  own typing quirks: ``%hhd``/``%hhu``/``%c`` are chars (``'*'``), ``%lld``
  ``%llu`` ``%jd`` are shown unsigned, ``%x`` in hex, ``%o`` in octal,
  ``%p``/``%n`` as hex addresses (NULL -> ``0``), floats from the xmm
  registers in order (then the stack), ``%s`` cut at the limit *and* at the
  field width or precision digits (``%10s`` and ``%.3s`` show at most 10
  and 3 chars, as ltrace), ``%*d`` shows the width as an argument.
* a function without a prototype: ltrace's ``long f(long, long, long, long)``
  with its "guess" rendering: 4 arguments, each decimal when it lies in
  [-10000, 10000], else hex of the 64-bit word; the return value the same.
* a pointer that cannot be read: its address in hex (ltrace would print
  garbage or ``?``); a value that cannot be fetched at all: ``?``.
* ``funcptr`` (extension): the symbol name when ``symbolize(addr)`` returns
  one, else hex like ``addr`` -- so with ``symbolize=None`` the output is
  ltrace's (``qsort(0x7ffd..., 4, 4, 0x5555...)``), with a symbolizer it is
  ``qsort(0x7ffd..., 4, 4, compare)``.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from emutrace.machine.guestaccess import MemView
from emutrace.machine.reader import GuestReader
from emutrace.protos import (Array, ArgRef, Const, EltRef, Expr, Pointer, Prim, Prototype,
                             Struct, Type, Zero, default_prototype, FLOATING, SIGNED)
from emutrace.escapes import esc_char, esc_wchar, escape_bytes, escape_wide
from emutrace.renderops import BLOCK, LIVE, RAXRDX, RETLEN, WORD, RenderOp, bitvec_text, flags_text, read_prefix
from emutrace.renderops import STRUCT_CLOSE, STRUCT_HEX, STRUCT_OCT, STRUCT_OPEN, STRUCT_SIGNED, STRUCT_UNSIGNED

__all__ = ["CallFormatter", "CallState", "FastCallState", "close_call", "escape_bytes", "format_summary",
           "DEFAULT_ALIGN", "DEFAULT_STRING_LIMIT", "DEFAULT_ARRAY_LIMIT"]

DEFAULT_ALIGN = 50          # ltrace -a
DEFAULT_STRING_LIMIT = 32   # ltrace -s
DEFAULT_ARRAY_LIMIT = 4     # ltrace -A
FORMAT_READ_LIMIT = 1 << 16
_M64 = (1 << 64) - 1
_CHUNK = 256                    # bytes of a zero-ended array read at a time (a power of two)


# ----------------------------------------------------------------------------
# small helpers

def close_call(line: str, ret: str, align: int = DEFAULT_ALIGN) -> str:
    """``line`` is what is already on the output line (everything up to the
    last argument); returns it with ``") "``, padding to column ``align - 1``
    and ``"= " + ret``, as ltrace's output_right does."""
    s = line + ") "
    if len(s) < align - 1:
        s += " " * (align - 1 - len(s))
    return s + "= " + ret


def _c_float(x: float) -> str:
    """C's "%f"."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return "%f" % x


def _c_hexfloat(x: float) -> str:
    """C's "%a"."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    h = float.hex(x)
    sign = ""
    if h.startswith("-"):
        sign, h = "-", h[1:]
    mant, exp = h[2:].split("p")
    if "." in mant:
        ip, frac = mant.split(".")
    else:
        ip, frac = mant, ""
    frac = frac.rstrip("0")
    return sign + "0x" + ip + ("." + frac if frac else "") + "p" + exp


def _u64(v: int) -> bytes:
    return struct.pack("<Q", v & _M64)


def _f64(d: float) -> bytes:
    return struct.pack("<d", d)


def _signed(u: int, bits: int) -> int:
    return u - (1 << bits) if u >> (bits - 1) & 1 else u


# ----------------------------------------------------------------------------
# fetching argument words (SysV x86-64)

class _RegFetcher:
    """Integer and SSE argument slots in order, with the stack shared."""

    def __init__(self, regs, first_gp: int = 0):
        self.regs = regs
        self.gp = first_gp
        self.fp = 0
        self.stack = 0

    def _stack_word(self) -> Optional[bytes]:
        try:
            v = self.regs.int_arg(6 + self.stack)
        except Exception:
            v = None
        self.stack += 1
        return None if v is None else _u64(v)

    def next_int(self) -> Optional[bytes]:
        if self.gp < 6:
            try:
                v = self.regs.int_arg(self.gp)
            except Exception:
                v = None
            self.gp += 1
            return None if v is None else _u64(v)
        return self._stack_word()

    def next_float(self) -> Optional[bytes]:
        if self.fp < 8:
            try:
                d = self.regs.float_arg(self.fp)
            except Exception:
                d = None
            self.fp += 1
            return None if d is None else _f64(d)
        return self._stack_word()

    def next_memory(self, size: int) -> Optional[bytes]:
        out = b""
        for _ in range((size + 7) // 8):
            w = self._stack_word()
            if w is None:
                return None
            out += w
        return out[:size]

    def next_struct(self, t: Struct) -> Optional[bytes]:
        size = t.size()
        if size == 0:
            return b""
        classes = _classify(t)
        if classes is None:
            return self.next_memory(size)
        need_gp = classes.count("INT")
        need_fp = classes.count("SSE")
        if self.gp + need_gp > 6 or self.fp + need_fp > 8:
            return self.next_memory(size)
        out = b""
        for c in classes:
            w = self.next_int() if c == "INT" else self.next_float()
            if w is None:
                return None
            out += w
        return out[:size]


class _VaListFetcher:
    """Arguments taken from an x86-64 ``va_list``
    (``{u32 gp_offset, u32 fp_offset, void *overflow_arg_area, void *reg_save_area}``)."""

    def __init__(self, mem, ptr: int):
        self.mem = mem
        self.ok = False
        raw = mem.read(ptr, 24) if ptr else None
        if raw is None or len(raw) < 24:
            return
        self.gp, self.fp, self.over, self.save = struct.unpack("<IIQQ", raw)
        self.ok = True

    def _read(self, addr: int) -> Optional[bytes]:
        b = self.mem.read(addr, 8)
        return b if b is not None and len(b) == 8 else None

    def next_int(self) -> Optional[bytes]:
        if not self.ok:
            return None
        if self.gp < 48:
            w = self._read(self.save + self.gp)
            self.gp += 8
        else:
            w = self._read(self.over)
            self.over += 8
        return w

    def next_float(self) -> Optional[bytes]:
        if not self.ok:
            return None
        if self.fp < 176:
            w = self._read(self.save + self.fp)
            self.fp += 16
        else:
            w = self._read(self.over)
            self.over += 8
        return w

    def next_struct(self, t: Struct) -> Optional[bytes]:
        out = b""
        for _ in range((t.size() + 7) // 8):
            w = self.next_int()
            if w is None:
                return None
            out += w
        return out[:t.size()]


def _flatten(t: Type, base: int, out: List[Tuple[int, int, bool]]):
    """(offset, size, is_float) of every scalar in t."""
    if isinstance(t, Struct):
        offs, _, _ = t.layout()
        for f, o in zip(t.fields, offs):
            _flatten(f, base + o, out)
    elif isinstance(t, Array):
        n = t.length.value if isinstance(t.length, Const) else 0
        es = t.elem.size()
        for k in range(n):
            _flatten(t.elem, base + k * es, out)
    elif isinstance(t, Prim):
        out.append((base, t.size(), t.kind in FLOATING))
    else:
        out.append((base, 8, False))


def _classify(t: Struct) -> Optional[List[str]]:
    """SysV eightbyte classes of a by-value struct, or None for MEMORY."""
    size = t.size()
    if size > 16 or size == 0:
        return None
    scalars: List[Tuple[int, int, bool]] = []
    _flatten(t, 0, scalars)
    n = (size + 7) // 8
    classes = ["SSE"] * n
    seen = [False] * n
    for off, sz, isf in scalars:
        k = off // 8
        if k >= n:
            continue
        seen[k] = True
        if not isf:
            classes[k] = "INT"
    for k in range(n):
        if not seen[k]:
            classes[k] = "SSE"
    return classes


# ----------------------------------------------------------------------------
# printf / scanf conversions -> types

def _string_ptr(length: Expr) -> Pointer:
    return Pointer(Array(Prim("char"), length), "string")


class _PrintfPack:
    """ltrace 0.7.3's printf parameter pack (printf.c), one conversion at a time."""

    _INTS = ["char", "short", "int", "long", "ulong"]
    _UINTS = ["char", "ushort", "uint", "ulong", "ulong"]

    def __init__(self, fmt: bytes):
        self.fmt = fmt
        self.pos = 0
        self.percent = False
        self.future = False        # '*' seen: a pending length taken from argument values
        self.future_len = 0

    def next(self) -> Optional[Type]:
        hlf = lng = 0
        len_buf = ""
        s = self.fmt
        while self.pos < len(s):
            c = chr(s[self.pos])
            if not self.percent:
                if c == "%":
                    self.percent = True
                self.pos += 1
                continue
            if c in "# -+I'":
                self.pos += 1
                continue
            if c == "*":
                self.future = True
                self.pos += 1
                return self._form("int", None, hlf, lng, len_buf)
            if c.isdigit():
                if len(len_buf) < 24:
                    len_buf += c
                self.pos += 1
                continue
            if c == "h":
                hlf = min(hlf + 1, 2)
                self.pos += 1
                continue
            if c == "l":
                lng = min(lng + 1, 2)
                self.pos += 1
                continue
            if c in "qj":
                lng = 2
                self.pos += 1
                continue
            if c in "L":
                lng = 1
                self.pos += 1
                continue
            if c in "tZz":
                lng = 1
                self.pos += 1
                continue
            self.pos += 1
            if c in "di":
                self.percent = False
                return self._form("int", None, hlf, lng, len_buf)
            if c == "o":
                self.percent = False
                return self._form("uint", "oct", hlf, lng, len_buf)
            if c in "xX":
                self.percent = False
                return self._form("uint", "hex", hlf, lng, len_buf)
            if c == "u":
                self.percent = False
                return self._form("uint", None, hlf, lng, len_buf)
            if c in "eEfFgGaA":
                self.percent = False
                return Prim("double")
            if c in "cC":
                self.percent = False
                return Prim("char")
            if c in "sS":
                self.percent = False
                if self.future:
                    n = self.future_len
                    self.future = False
                    length: Expr = Zero(Const(n & _M64))
                elif len_buf:
                    length = Zero(Const(int(len_buf)))
                else:
                    length = Zero(None)
                return _string_ptr(length)
            if c in "pn":
                self.percent = False
                return Pointer(Prim("void"))
            if c in "m%":
                self.percent = False
                hlf = lng = 0
                continue
            # anything else: keep scanning the same conversion
        return None

    def _form(self, kind: str, lens: Optional[str], hlf: int, lng: int, len_buf: str) -> Type:
        idx = 2 + lng - hlf
        name = (self._INTS if kind == "int" else self._UINTS)[idx]
        t = Prim(name)
        if lens:
            t = t.with_lens(lens)
        return t

    def stop(self, value: Optional[int]):
        """Called with each fetched argument's value: after a '*', ltrace keeps
        the latest argument value as the length of the next %s."""
        if self.future and value is not None:
            self.future_len = value


def _scanf_types(fmt: bytes) -> List[Type]:
    """Output-pointer types of a scanf format (extension)."""
    out: List[Type] = []
    s = fmt
    i = 0
    n = len(s)
    while i < n:
        if s[i] != 0x25:  # '%'
            i += 1
            continue
        i += 1
        if i < n and s[i] == 0x25:
            i += 1
            continue
        suppress = False
        if i < n and s[i] == 0x2A:  # '*'
            suppress = True
            i += 1
        # positional n$ : skip
        width = ""
        while i < n and chr(s[i]).isdigit():
            width += chr(s[i])
            i += 1
        if i < n and s[i] == 0x24:  # '$'
            i += 1
            width = ""
            while i < n and chr(s[i]).isdigit():
                width += chr(s[i])
                i += 1
        if i < n and s[i] == 0x6D:  # 'm' (allocate)
            i += 1
        hlf = lng = 0
        big = False
        while i < n and chr(s[i]) in "hlLqjzt":
            c = chr(s[i])
            if c == "h":
                hlf += 1
            elif c == "l":
                lng += 1
            elif c in "Lq":
                big = True
                lng = 2
            else:
                lng = 1
            i += 1
        if i >= n:
            break
        c = chr(s[i])
        i += 1
        t: Optional[Type] = None
        if c in "di":
            kind = "char" if hlf >= 2 else "short" if hlf == 1 else "long" if lng else "int"
            t = Pointer(Prim(kind))
        elif c in "uoxX":
            kind = "char" if hlf >= 2 else "ushort" if hlf == 1 else "ulong" if lng else "uint"
            p = Prim(kind)
            if c == "o":
                p = p.with_lens("oct")
            elif c in "xX":
                p = p.with_lens("hex")
            t = Pointer(p)
        elif c in "eEfFgGaA":
            if big:
                t = Pointer(Prim("void"))
            else:
                t = Pointer(Prim("double" if lng else "float"))
        elif c in "sS":
            t = _string_ptr(Zero(None))
        elif c == "[":
            # skip the scanset
            if i < n and s[i] == 0x5E:
                i += 1
            if i < n and s[i] == 0x5D:
                i += 1
            while i < n and s[i] != 0x5D:
                i += 1
            i += 1
            t = _string_ptr(Zero(None))
        elif c in "cC":
            w = int(width) if width else 1
            t = Pointer(Array(Prim("char"), Const(w)), "string")
        elif c == "p":
            t = Pointer(Pointer(Prim("void")))
        elif c == "n":
            t = Pointer(Prim("int"))
        else:
            continue
        if not suppress:
            out.append(t)
    return out


# ----------------------------------------------------------------------------
# the call state

class _Val:
    __slots__ = ("type", "data", "addr")

    def __init__(self, t: Type, data: Optional[bytes], addr: Optional[int] = None):
        self.type = t
        self.data = data
        self.addr = addr


class CallState:
    """One call being traced.  ``text`` after enter; ``right``, ``args``,
    ``ret`` and ``finished`` after exit."""

    def __init__(self, name: str, display_name: str, proto: Prototype, known: bool):
        self.name = name
        self.display_name = display_name
        self.proto = proto
        self.known = known
        self.text = ""
        self.right = ""
        self.args: List[str] = []
        self.ret = ""
        self.finished = False
        self._vals: List[_Val] = []
        self._split = 0
        self._left_args: List[str] = []
        self._retval: Optional[_Val] = None

    @property
    def left_args(self) -> List[str]:
        """The arguments shown at entry (those in ``text``)."""
        return self._left_args

    # output helpers
    def line(self, align: int = DEFAULT_ALIGN, prefix: str = "") -> str:
        """The whole call on one line, as ltrace prints it."""
        return close_call(prefix + self.text + self.right, self.ret, align)

    def unfinished_line(self, prefix: str = "") -> str:
        return prefix + self.text + " <unfinished ...>"

    def resumed_line(self, align: int = DEFAULT_ALIGN, prefix: str = "") -> str:
        return close_call(prefix + "<... %s resumed> " % self.display_name + self.right, self.ret, align)

    def __repr__(self):
        return "CallState(%r, text=%r, right=%r, ret=%r)" % (self.name, self.text, self.right, self.ret)


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
STRUCT_TOKENS_MAX = 512             # (the C renderer's bound)

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


# ----------------------------------------------------------------------------
# formatting

class _Ctx:
    def __init__(self, f: "CallFormatter", mem, st: CallState):
        self.f = f
        self.mem = mem
        self.st = st
        self.structs: List[Tuple[Struct, bytes, Optional[int]]] = []
        self.ptrs: List[Tuple[Any, int]] = []


class CallFormatter:
    def __init__(self, string_limit: int = DEFAULT_STRING_LIMIT,
                 symbolize: Optional[Callable[[int], Optional[str]]] = None,
                 array_limit: int = DEFAULT_ARRAY_LIMIT, demangle: bool = False,
                 align: int = DEFAULT_ALIGN, compiled: bool = True):
        self.string_limit = string_limit
        self.array_limit = array_limit
        self.symbolize = symbolize
        self.demangle = demangle
        self.align = align
        # prototypes compiled into per-argument formatters (see _Plan); compiled=False keeps
        # every call on the generic path (tests compare the two)
        self.compiled = compiled
        self._plans: dict = {}
        self._default_plan: Any = _UNSET
        # id(struct) -> (struct, [(field, offset, size)], its size)
        self._layouts: Dict[int, tuple] = {}
        self._flat: Dict[int, tuple] = {}       # id(struct) -> (struct, _flat_fields' list or None)
        self._ops: Dict[tuple, RenderOp] = {}   # (kind, parameters) -> the op, shared by the plans

    # -- public API ---------------------------------------------------------
    def display_name(self, name: str) -> str:
        if self.demangle and name.startswith("_Z"):
            try:
                from emutrace.demangle import demangle     # deferred: only -C demangles
                d = demangle(name)
                if d:
                    return d
            except Exception:
                pass
        return name

    def enter(self, name: str, proto: Optional[Prototype], regs, mem: GuestReader) -> CallState:
        plan = self.plan(proto) if self.compiled else None
        if plan is not None:
            try:
                words = [regs.int_arg(i) & _M64 for i in range(plan.nwords)]
            except Exception:           # the generic path shows what could not be fetched as '?'
                plan = None
            else:
                return self.enter_words(name, self.display_name(name), plan, words, mem)
        return self._enter_generic(name, proto, regs, mem)

    def _enter_generic(self, name: str, proto: Optional[Prototype], regs, mem) -> CallState:
        known = proto is not None
        if proto is None:
            proto = default_prototype(name)
        st = CallState(name, self.display_name(name), proto, known)
        self._fetch(st, regs, mem)
        ctx = _Ctx(self, mem, st)
        left = []
        for v in st._vals[:st._split]:
            s = self._fmt_top(v, ctx)
            if s is not None:
                left.append(s)
        st._left_args = left
        st.text = st.display_name + "(" + ", ".join(left)
        return st

    def exit(self, st: CallState, regs, mem: GuestReader) -> str:
        if type(st) is FastCallState:
            try:
                rax = regs.ret_int() & _M64
                if st.plan.ret_pair:
                    rax |= (regs.ret_int_hi() & _M64) << 64
            except Exception:
                rax = None
            return self.exit_word(st, rax, mem)
        proto = st.proto
        rt = proto.ret
        st._retval = _Val(rt, self._fetch_ret(rt, regs, mem))
        ctx = _Ctx(self, mem, st)
        right = []
        for v in st._vals[st._split:]:
            s = self._fmt_top(v, ctx)
            if s is not None:
                right.append(s)
        joined = ", ".join(right)
        if right and st._left_args:
            joined = ", " + joined
        st.right = joined
        st.args = st._left_args + right
        if isinstance(rt, Prim) and rt.kind == "void" and rt.lens in (None, "hide"):
            st.ret = "<void>"
        else:
            r = self._fmt_top(st._retval, ctx)
            st.ret = "<void>" if r is None else r
        st.finished = True
        return st.right + ") = " + st.ret

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
            st.ret = "<void>"
        elif rax is None:
            st.ret = "<void>" if plan.ret_hidden else "?"
        else:
            r = op.word(rax, mem)
            st.ret = "<void>" if r is None else r
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
            if tokens is not None and len(tokens) <= STRUCT_TOKENS_MAX:
                return self._op("struct", type=t, size=size, names=tuple(tokens))
        if size:
            return self._op("typed", type=t, capture=BLOCK, cap=size)
        return self._op("typed", type=t, capture=LIVE)

    def summary(self, rows: Iterable[Any]) -> str:
        return format_summary(rows, demangle=self.display_name if self.demangle else None)

    # -- fetching -----------------------------------------------------------
    def _fetch(self, st: CallState, regs, mem):
        proto = st.proto
        rt = proto.ret
        first_gp = 1 if (isinstance(rt, Struct) and rt.size() > 16) else 0
        fetcher = _RegFetcher(regs, first_gp)
        vals: List[_Val] = []
        for t in proto.params:
            vals.append(self._fetch_one(fetcher, t))
        split = proto.out_start
        pack = proto.pack
        if pack is not None and pack.fmt_index < len(vals):
            fv = vals[pack.fmt_index]
            fmt_bytes = b""
            ptr = self._word(fv)
            if ptr:
                got = mem.cstring(ptr, FORMAT_READ_LIMIT)
                if got is not None:
                    fmt_bytes = got[0]
            src: Any = fetcher
            if pack.kind in ("vprintf", "vscanf"):
                vl = vals[pack.fmt_index + 1] if pack.fmt_index + 1 < len(vals) else None
                src = _VaListFetcher(mem, self._word(vl) if vl else 0)
            if pack.kind in ("printf", "vprintf"):
                pp = _PrintfPack(fmt_bytes)
                for _ in range(4096):
                    t = pp.next()
                    if t is None:
                        break
                    v = self._fetch_one(src, t)
                    pp.stop(self._val_long(v))
                    vals.append(v)
                if proto.split is None:     # (as ltrace: a format's values show at the call)
                    split = len(vals)
            else:
                if proto.split is None:
                    split = len(vals)
                for t in _scanf_types(fmt_bytes):
                    vals.append(self._fetch_one(src, t))
        st._vals = vals
        st._split = min(split, len(vals))

    @staticmethod
    def _word(v: Optional[_Val]) -> int:
        if v is None or v.data is None:
            return 0
        return int.from_bytes(v.data[:8].ljust(8, b"\0"), "little")

    def _fetch_one(self, fetcher, t: Type) -> _Val:
        if isinstance(t, Array):
            # arrays decay into pointers (the lens goes with the pointer)
            inner = t.with_lens(None)
            p = Pointer(inner, t.lens)
            p.cond, p.inner_lens = t.cond, t.inner_lens
            t = p
        if isinstance(t, Prim) and t.kind in FLOATING:
            return _Val(t, fetcher.next_float())
        if isinstance(t, Struct):
            return _Val(t, fetcher.next_struct(t))
        return _Val(t, fetcher.next_int())

    def _fetch_ret(self, t: Type, regs, mem) -> Optional[bytes]:
        try:
            if isinstance(t, Prim) and t.kind in FLOATING:
                return _f64(regs.ret_float())
            if isinstance(t, Struct):
                size = t.size()
                if size > 16:
                    ptr = regs.ret_int()
                    return mem.read(ptr, size)
                classes = _classify(t) or []
                out = b""
                ints = [regs.ret_int()]
                hi = getattr(regs, "ret_int_hi", None)
                ints.append(hi() if hi else 0)
                floats = [regs.ret_float(), 0.0]
                for c in classes:
                    if c == "INT":
                        out += _u64(ints.pop(0))
                    else:
                        out += _f64(floats.pop(0))
                return out[:size]
            return _u64(regs.ret_int())
        except Exception:
            return None

    # -- expressions --------------------------------------------------------
    def _val_long(self, v: _Val) -> Optional[int]:
        """ltrace's value_extract_word: the value's bytes zero-extended to a
        long (read as signed when the value is 8 bytes wide)."""
        if v is None or v.data is None:
            return None
        t = v.type
        size = 8
        if isinstance(t, Prim):
            size = max(1, t.size())
        u = int.from_bytes(v.data[:size].ljust(size, b"\0"), "little")
        return _signed(u, 64) if size >= 8 else u

    def _eval(self, e: Expr, ctx: _Ctx) -> Optional[int]:
        if isinstance(e, Const):
            return e.value
        if isinstance(e, ArgRef):
            if e.index == 0:
                return self._val_long(ctx.st._retval) if ctx.st._retval is not None else None
            n = len(ctx.st.proto.params)
            if 1 <= e.index <= n and e.index - 1 < len(ctx.st._vals):
                return self._val_long(ctx.st._vals[e.index - 1])
            return None
        if isinstance(e, EltRef):
            if not ctx.structs:
                return None
            stype, data, addr = ctx.structs[-1]
            if e.index - 1 >= len(stype.fields):
                return None
            offs, _, _ = stype.layout()
            ft = stype.fields[e.index - 1]
            o = offs[e.index - 1]
            return self._val_long(_Val(ft, data[o:o + ft.size()]))
        return None

    # -- top level formatting -----------------------------------------------
    def _fmt_top(self, v: _Val, ctx: _Ctx) -> Optional[str]:
        return self._fmt(v.type, v.data, v.addr, ctx)

    def _fmt(self, t: Type, data: Optional[bytes], addr: Optional[int], ctx: _Ctx,
             lens_override: Optional[str] = None) -> Optional[str]:
        lens = t.lens if lens_override is None else lens_override
        if lens == "cond":
            argn, mask = t.cond
            w = self._eval(ArgRef(argn), ctx)
            if w is None or (w & mask) == 0:
                return None
            lens = t.inner_lens
        if lens == "hide":
            return None
        if data is None:
            return "?"
        if isinstance(t, Prim):
            return self._fmt_prim(t, data, lens)
        if isinstance(t, Pointer):
            return self._fmt_pointer(t, data, lens, ctx)
        if isinstance(t, Array):
            return self._fmt_array(t, addr, data, lens, ctx)
        if isinstance(t, Struct):
            if lens == "bitvec":
                return _bitvec(data[:t.size()])
            return self._fmt_struct(t, data, addr, ctx)
        return "?"

    # -- scalars
    def _fmt_prim(self, t: Prim, data: bytes, lens: Optional[str]) -> str:
        k = t.kind
        if k == "void":
            return "<void>"
        if k in FLOATING:
            if k == "float":
                x = struct.unpack("<f", data[:4].ljust(4, b"\0"))[0]
            else:
                x = struct.unpack("<d", data[:8].ljust(8, b"\0"))[0]
            if lens == "hex":
                return _c_hexfloat(x)
            return _c_float(x)
        size = t.size()
        u = int.from_bytes(data[:size].ljust(size, b"\0"), "little")
        if lens == "bool":
            return "false" if u == 0 else "true"
        if lens == "bitvec":
            return _bitvec(u.to_bytes(size, "little"))
        if lens == "enum" and t.enum is not None:
            sv = _signed(u, size * 8)
            for name, val in t.enum:
                if val == sv or (val & ((1 << (size * 8)) - 1)) == u:
                    return name
            lens = None
        if lens == "flags" and t.flags is not None:
            return _flags(u, t.flags, size)
        if k == "char" and lens in (None, "string", "enum", "flags"):
            c = esc_char(u & 0xFF)
            return c if lens == "string" else "'" + c + "'"
        if k == "wchar" and lens in (None, "string", "enum", "flags"):
            c = esc_wchar(u)
            return c if lens == "string" else "L'" + c + "'"
        if lens == "funcptr":
            lens = "hex"
        fmt = {"hex": "x", "oct": "o", "guess": "unknown"}.get(lens or "", None)
        if fmt is None:
            fmt = "i" if k in SIGNED else "u"
        return _fmt_integer(u, size, fmt)

    # -- pointers
    def _fmt_pointer(self, t: Pointer, data: bytes, lens: Optional[str], ctx: _Ctx) -> str:
        ptr = int.from_bytes(data[:8].ljust(8, b"\0"), "little")
        target = t.target
        if lens == "funcptr":
            if ptr and self.symbolize is not None:
                try:
                    name = self.symbolize(ptr)
                except Exception:
                    name = None
                if name:
                    return name
            return _fmt_integer(ptr, 8, "x")
        if lens == "bool":
            return "false" if ptr == 0 else "true"
        void_target = isinstance(target, Prim) and target.kind == "void"
        if void_target:
            if lens == "guess":
                return _fmt_integer(ptr, 8, "unknown")
            if lens == "oct":
                return _fmt_integer(ptr, 8, "o")
            return _fmt_integer(ptr, 8, "x")
        if ptr == 0:
            return "nil"
        # strings
        if lens == "string" or getattr(t, "wide", False):
            if isinstance(target, Prim) and target.kind in ("char", "wchar"):
                target = Array(target, Zero(None))
            if isinstance(target, Array):
                return self._fmt_array(target, ptr, None, "string", ctx, wide=(target.elem.kind == "wchar"
                                                                               if isinstance(target.elem, Prim) else False))
        # pointer lenses that pass through to the pointee
        inner_lens = None
        if lens in ("bitvec",):
            inner_lens = lens
        # recursion detection, as ltrace's format_pointer
        if isinstance(target, Struct):
            depth = sum(1 for (tt, _) in ctx.ptrs if tt is target or (isinstance(tt, Struct) and tt == target))
            if depth >= self.array_limit:
                return "..."
        for i in range(len(ctx.ptrs) - 1, -1, -1):
            if ctx.ptrs[i][1] == ptr:
                return "recurse" + "^" * (len(ctx.ptrs) - i - 1)
        ctx.ptrs.append((target, ptr))
        try:
            if isinstance(target, Array):
                return self._fmt_array(target, ptr, None, inner_lens or target.lens, ctx)
            size = self._struct_size(target) if isinstance(target, Struct) else target.size()
            if size <= 0:
                r = self._fmt(target, b"", ptr, ctx, lens_override=inner_lens)
                return "" if r is None else r
            b = ctx.mem.read(ptr, size)
            if b is None or len(b) < size:
                return _fmt_integer(ptr, 8, "x")
            r = self._fmt(target, b, ptr, ctx, lens_override=inner_lens)
            return "" if r is None else r
        finally:
            ctx.ptrs.pop()

    # -- arrays
    def _array_length(self, t: Array, addr: Optional[int], inline: Optional[bytes], ctx: _Ctx,
                      need: int) -> Optional[int]:
        """Number of elements to consider (capped at ``need``)."""
        e = t.length
        if isinstance(e, Zero):
            lim = None
            if e.limit is not None:
                lv = self._eval(e.limit, ctx)
                if lv is not None:
                    lim = lv & _M64
            cap = need if lim is None else min(need, lim)
            es = max(1, t.elem.size())
            if es == 1 and addr is not None and inline is None:
                got = ctx.mem.cstring(addr, cap)
                if got is None:
                    if cap == 0:
                        return 0
                    return None
                s, found = got
                return min(len(s), cap)
            if addr is not None and inline is None and isinstance(ctx.mem, MemView):
                return self._zero_ended_length(ctx.mem, addr, es, cap)
            n = 0
            while n < cap:
                b = self._elem_bytes(t, addr, inline, n, ctx)
                if b is None:
                    break
                if not any(b):
                    break
                n += 1
            return n
        lv = self._eval(e, ctx)
        if lv is None:
            return None
        lv &= _M64
        return min(lv, need)

    def _zero_ended_length(self, mem, addr: int, es: int, cap: int) -> int:
        """Elements of `es` bytes before the first all-zero one (a wide string's length), at
        most cap, stopping where memory stops being readable: what reading element by element
        finds, read a chunk at a time (a guest memory read per element was most of what a
        wide-string argument cost). Live memory only (a MemView): there a chunk that reads
        whole holds elements that each read whole."""
        zero = bytes(es)
        n = 0
        while n < cap:
            a = addr + n * es
            want = min(cap - n, max(1, (_CHUNK - (a & (_CHUNK - 1))) // es)) * es
            raw = mem.read(a, want)
            if raw is None or len(raw) < want:
                # unreadable within the chunk: element by element up to where it stops
                while n < cap:
                    b = mem.read(addr + n * es, es)
                    if b is None or len(b) < es or b == zero:
                        return n
                    n += 1
                return n
            for k in range(0, want, es):
                if raw[k:k + es] == zero:
                    return n
                n += 1
        return n

    def _elem_bytes(self, t: Array, addr: Optional[int], inline: Optional[bytes], i: int,
                    ctx: _Ctx) -> Optional[bytes]:
        es = t.elem.size()
        if inline is not None and (i + 1) * es <= len(inline):
            return inline[i * es:(i + 1) * es]
        if addr is None:
            return None
        b = ctx.mem.read(addr + i * es, es)
        if b is None or len(b) < es:
            return None
        return b

    def _fmt_array(self, t: Array, addr: Optional[int], inline: Optional[bytes], lens: Optional[str],
                   ctx: _Ctx, wide: bool = False) -> str:
        if lens == "bitvec":
            n = self._array_length(t, addr, inline, ctx, 1 << 16)
            if n is None:
                return _fmt_integer(addr or 0, 8, "x") if addr else "?"
            nb = n * t.elem.size()
            if inline is not None and nb <= len(inline):
                raw = inline[:nb]
            else:
                raw = read_prefix(ctx.mem, addr, nb) if addr is not None else None
            if raw is None or len(raw) < nb:
                return _fmt_integer(addr or 0, 8, "x") if addr else "?"
            return _bitvec(raw)
        is_string = lens == "string" and isinstance(t.elem, Prim) and t.elem.kind in ("char", "wchar")
        maxlen = self.string_limit if is_string else self.array_limit
        n = self._array_length(t, addr, inline, ctx, maxlen + 1)
        if n is None:
            return _fmt_integer(addr or 0, 8, "x") if addr else "?"
        shown = min(n, maxlen)
        # ltrace's format_array: a string of exactly maxlen chars gets "..." too
        more = n >= maxlen if is_string else n > maxlen
        if is_string:
            es = t.elem.size()
            if inline is not None and shown * es <= len(inline):
                raw = inline[:shown * es]
            elif addr is not None:
                raw = read_prefix(ctx.mem, addr, shown * es)
                if raw is None:
                    return _fmt_integer(addr, 8, "x") if shown else '""'
            else:
                raw = b""
            if es == 1:
                body = escape_bytes(raw)
            elif es == 4:
                body = escape_wide(raw)
            else:
                body = "".join(esc_wchar(int.from_bytes(raw[k:k + es], "little"))
                               for k in range(0, len(raw) - es + 1, es))
            if len(raw) < shown * es:
                body += "?"
            pre = "L" if es != 1 else ""
            return pre + '"' + body + '"' + ("..." if more else "")
        parts = []
        for i in range(shown):
            b = self._elem_bytes(t, addr, inline, i, ctx)
            if b is None:
                if i == 0 and addr:
                    return _fmt_integer(addr, 8, "x")
                parts.append("?")
                break
            ea = (addr + i * t.elem.size()) if addr is not None else None
            s = self._fmt(t.elem, b, ea, ctx)
            if s is None:
                continue
            parts.append(s)
        body = ", ".join(parts)
        return "[ " + body + ("..." if more else "") + " ]"

    # -- structs
    def _struct_fields(self, t: Struct):
        """[(field, offset, size)] of a struct, computed once per struct (a struct rendered at
        every call, statx's, would otherwise lay itself out field by field each time). Kept with
        the struct, whose id then cannot be reused; structs are complete by the time they are
        rendered (forward declarations are completed while the prototypes are parsed)."""
        return self._struct_layout(t)[1]

    def _struct_size(self, t: Struct) -> int:
        """t.size(), kept with its layout (Struct lays itself out anew at every call)."""
        return self._struct_layout(t)[2]

    def _struct_layout(self, t: Struct) -> tuple:
        got = self._layouts.get(id(t))
        if got is None:
            offs, size, _ = t.layout()
            got = self._layouts[id(t)] = (t, [(f, o, f.size()) for f, o in zip(t.fields, offs)], size)
        return got

    def _flat_fields(self, t: Struct) -> Optional[list]:
        """[(offset, size, field, lens, the nested struct's own list or None)] of a struct whose
        shown fields are integers or such structs (stat's, timespec's): rendered without the
        generic dispatch and its context (none of them reads another value); None for any other
        struct. Computed once per struct, as _struct_fields."""
        got = self._flat.get(id(t))
        if got is None:
            flat: Optional[list] = []
            for f, o, fs in self._struct_fields(t):
                lens = f.lens
                if lens == "hide":
                    continue                # (_fmt shows nothing for it, data or not)
                sub = self._flat_fields(f) if isinstance(f, Struct) and lens is None else None
                if lens == "cond" or not (isinstance(f, Prim) or sub is not None):
                    flat = None
                    break
                flat.append((o, fs, f, lens, sub))
            got = self._flat[id(t)] = (t, flat)
        return got[1]

    def _struct_tokens(self, t: Struct, base: int) -> Optional[list]:
        """The layout of a struct whose shown fields are integers shown as plain numbers, in hex
        or in octal, or such structs, as the op `struct`'s tokens (renderops.STRUCT_*, offsets
        from `base`): what _fmt_flat shows, for the C renderer. None for any other struct."""
        flat = self._flat_fields(t)
        if flat is None:
            return None
        tokens = [(STRUCT_OPEN, 0, 0)]
        for o, fs, f, lens, sub in flat:
            if sub is not None:
                inner = self._struct_tokens(f, base + o)
                if inner is None:
                    return None
                tokens += inner
                continue
            kind = _STRUCT_FIELD.get((_int_class(f.kind) if f.kind in _INT_KINDS else None, lens))
            if kind is None or fs not in (1, 2, 4, 8) or f.size() != fs:
                return None
            tokens.append((kind, base + o, fs))
        tokens.append((STRUCT_CLOSE, 0, 0))
        return tokens

    def _fmt_flat(self, flat: list, data: bytes) -> str:
        """_fmt_struct of a struct with a _flat_fields list: the same text."""
        parts = []
        n = len(data)
        for o, fs, f, lens, sub in flat:
            if o + fs > n:
                parts.append("?")
            elif sub is None:
                parts.append(self._fmt_prim(f, data[o:o + fs], lens))
            else:
                parts.append(self._fmt_flat(sub, data[o:o + fs]))
        return "{ " + ", ".join(parts) + " }"

    def _fmt_struct(self, t: Struct, data: bytes, addr: Optional[int], ctx: _Ctx) -> str:
        flat = self._flat_fields(t)
        if flat is not None:
            return self._fmt_flat(flat, data)
        fields = self._struct_fields(t)
        ctx.structs.append((t, data, addr))
        try:
            parts = []
            for f, o, fs in fields:
                if isinstance(f, Array):
                    fa = (addr + o) if addr is not None else None
                    inl = data[o:o + fs] if o + fs <= len(data) else None
                    s = self._fmt_inline_array(f, fa, inl, ctx)
                else:
                    fd = data[o:o + fs] if o + fs <= len(data) else None
                    s = self._fmt(f, fd, (addr + o) if addr is not None else None, ctx)
                if s is not None:
                    parts.append(s)
            return "{ " + ", ".join(parts) + " }"
        finally:
            ctx.structs.pop()

    def _fmt_inline_array(self, f: Array, addr: Optional[int], inline: Optional[bytes], ctx: _Ctx):
        lens = f.lens
        if lens == "cond":
            argn, mask = f.cond
            w = self._eval(ArgRef(argn), ctx)
            if w is None or (w & mask) == 0:
                return None
            lens = f.inner_lens
        if lens == "hide":
            return None
        if lens == "bitvec" and inline is not None:
            return _bitvec(inline)
        return self._fmt_array(f, addr, inline, lens, ctx)


def _fmt_integer(u: int, size: int, fmt: str) -> str:
    """ltrace's format_integer; ``u`` is the raw unsigned value of ``size`` bytes."""
    bits = size * 8
    u &= (1 << bits) - 1
    i = _signed(u, bits)
    if fmt == "unknown":
        l = i if size >= 8 else u
        if l < -10000 or l > 10000:
            return "0x%x" % u if u else "0"
        return str(i)
    if fmt == "x":
        return "0x%x" % u if u else "0"
    if fmt == "o":
        return "0%o" % u
    if fmt == "u":
        return str(u)
    return str(i)


_bitvec = bitvec_text          # ltrace's bitvec lens (emutrace.renderops)


_flags = flags_text            # ltrace's flags lens (emutrace.renderops)


# ----------------------------------------------------------------------------
# -c summary

def _row_fields(r: Any) -> Tuple[str, int, int]:
    """(name, calls, usecs) from a tuple (name, calls, seconds), a dict or an object."""
    if isinstance(r, dict):
        name = r["name"]
        calls = r.get("calls", r.get("count"))
        usecs = r.get("usecs")
        secs = r.get("seconds", r.get("time"))
    elif isinstance(r, (tuple, list)):
        name, calls, secs = r[0], r[1], r[2]
        usecs = None
    else:
        name = getattr(r, "name")
        calls = getattr(r, "calls", None)
        if calls is None:
            calls = getattr(r, "count")
        usecs = getattr(r, "usecs", None)
        secs = getattr(r, "seconds", None)
    if usecs is None:
        usecs = int(round(float(secs or 0) * 1e6))
    return str(name), int(calls), int(usecs)


def format_summary(rows: Iterable[Any], demangle: Optional[Callable[[str], str]] = None) -> str:
    """ltrace -c's table.  Each row: ``(name, calls, seconds)``, or a dict /
    object with ``name``, ``calls`` and ``seconds`` (or ``usecs``).  Sorted by
    time, largest first; equal times keep the order given (ltrace leaves it
    to qsort)."""
    ents = [_row_fields(r) for r in rows]
    ents = sorted(ents, key=lambda e: -e[2])
    tot_usecs = sum(e[2] for e in ents)
    tot_calls = sum(e[1] for e in ents)
    out = ["% time     seconds  usecs/call     calls      function",
           "------ ----------- ----------- --------- --------------------"]
    for name, calls, c in ents:
        p = (100000 * c // tot_usecs if tot_usecs else 0) + 5
        percall = c // calls if calls else 0
        nm = demangle(name) if demangle else name
        out.append("%3d.%02d %4d.%06d %11d %9d %s" % (p // 1000, (p // 10) % 100, c // 1000000,
                                                      c % 1000000, percall, calls, nm))
    out.append("------ ----------- ----------- --------- --------------------")
    out.append("100.00 %4d.%06d             %9d total" % (tot_usecs // 1000000, tot_usecs % 1000000,
                                                         tot_calls))
    return "\n".join(out) + "\n"
