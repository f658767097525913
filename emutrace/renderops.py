"""Render operations: the one description of how a compiled call site shows its values.

A prototype the formatter compiles (emutrace.values.CallFormatter.plan) becomes a list of
RenderOps, one per shown argument and one for the return value. An op is a kind from KINDS and
that kind's parameters (a mask, a size, a string limit, enum names...). The kind says, once for
every consumer:

- `word`: how Python renders the argument word, read from live memory where it points
  (built per op: fn(word, mem) -> str, or fn(word, mem, length word) for a buffer);
- `capture`: what the guest call log (emutrace.guestlog) must copy for the op so that it renders
  without live memory, and `from_bytes`: how Python renders it from those bytes;
- `inline`: where guestlog's per-site code inlines the op, its Python expression;
- `native`: whether emutrace.machine._native renders it too, as its operation OP_<KIND>: exactly
  the kinds emutrace/machine/abi.py numbers (OP_KINDS, from which C's _abi.h is generated;
  emutrace.nativelog builds the operations). tests/test_native_render.py fuzzes C against these
  functions.

The kind `typed` is the fallback: it defers to the generic type interpreter
(CallFormatter._fmt), for every type the other kinds do not describe (octal, flags, bitvec,
pointers dereferenced as structures or arrays...). A compiled site is thus always a list of ops.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence, Tuple

from emutrace.escapes import ESC_TABLE, esc_wchar, escape_bytes, escape_wide
from emutrace.machine.abi import GUESS_DECIMAL_MAX, OP, TEXTS, STRUCT_CLOSE, STRUCT_HEX, STRUCT_OCT, STRUCT_OPEN, STRUCT_SIGNED, STRUCT_UNSIGNED

__all__ = ["RenderOp", "KINDS", "WORD", "CSTR", "CSTRN", "LENGTH", "FIXED_SIZE", "BLOCK", "RETLEN", "RAXRDX", "LIVE",
           "read_prefix"]

# What the guest log copies for an op (RenderOp.capture), `cap` bytes of it:
WORD = "word"        # nothing: the op reads its word alone
CSTR = "cstr"        # a C string: `cap` bytes from the pointer, or up to its NUL
CSTRN = "cstrn"      # a C string bounded by the length word `len_arg` (ltrace's stringN): copied as a
                     # C string, `cap` bytes from the pointer or up to its NUL (fewer up to unreadable
                     # memory); the bound is applied when rendering
LENGTH = "length"    # a buffer: min(cap, the length word `len_arg`) bytes from the pointer
FIXED_SIZE = "fixed"  # `cap` bytes from the pointer, as far as they are readable (a wide string)
BLOCK = "block"      # a block of `cap` bytes with no pointer in it, copied at the return (stat's)
RETLEN = "retlen"    # an output string as long as the returned value says (read's), copied at the
                     # return: min(returned value, limit + 1) characters (and, for a C string, the
                     # byte after them, which MemView.cstring reads too); `cap` bytes at most
RAXRDX = "raxrdx"    # a return value in rax and rdx (a structure of two eightbytes): the op's word is
                     # rax | rdx << 64, and the return trampoline copies rdx
LIVE = "live"        # live memory the log does not copy: such a call is hooked, not logged

# the texts every renderer writes (machine/abi.py's TEXTS, which C has as TXT_*)
_NIL, _TRUE, _FALSE = TEXTS["NIL"], TEXTS["TRUE"], TEXTS["FALSE"]


def read_prefix(mem, addr: int, n: int) -> Optional[bytes]:
    """The first n bytes at addr, or the longest readable prefix of them (None: none)."""
    if n <= 0:
        return b""
    b = mem.read(addr, n)
    if b is not None and len(b) >= n:
        return b[:n]
    # the longest readable prefix, page by page
    out = b""
    a = addr
    while len(out) < n:
        chunk = min(n - len(out), 4096 - (a & 4095))
        c = mem.read(a, chunk)
        if c is None or len(c) < chunk:
            break
        out += c
        a += chunk
    return out if out else None


# ----------------------------------------------------------------------------
# Python renderers, one builder per kind: builder(op, typed) -> fn. `typed(type)` is the
# generic interpreter's renderer of a type's word (only the kind `typed` uses it). Parameters
# are bound as defaults: a call looks up nothing.

def _unsigned(op, typed):
    def unsigned(w, mem, mask=op.mask):
        return str(w & mask)
    return unsigned


def _signed(op, typed):
    def signed(w, mem, mask=op.mask, top=1 << (op.size * 8 - 1), full=1 << (op.size * 8)):
        u = w & mask
        return str(u - full if u & top else u)
    return signed


def _hex(op, typed):
    def hexa(w, mem, mask=op.mask):
        u = w & mask
        return "0x%x" % u if u else "0"
    return hexa


def _guess(op, typed):
    def guess(w, mem):              # ltrace's guess for a 64-bit word: decimal near zero, else hex
        i = w - (1 << 64) if w >> 63 else w
        if i < -GUESS_DECIMAL_MAX or i > GUESS_DECIMAL_MAX:
            return "0x%x" % w
        return str(i)
    return guess


def _addr(op, typed):
    def address(w, mem):
        return "0x%x" % w if w else "0"
    return address


def _char(op, typed):
    def char(w, mem, table=ESC_TABLE):
        return "'" + table[w & 0xFF] + "'"
    return char


def _wchar(op, typed):
    def wchar(w, mem, mask=op.mask):
        return "L'" + esc_wchar(w & mask) + "'"
    return wchar


def _bool(op, typed):
    def boolean(w, mem, mask=op.mask):
        return _TRUE if w & mask else _FALSE
    return boolean


def _enum(op, typed):
    named: Dict[int, str] = {}
    for value, name in op.names:            # the first name of a value wins
        named.setdefault(value, name)
    plain = KINDS[op.fallback].word(op, typed)

    def enum(w, mem, mask=op.mask, get=named.get):
        name = get(w & mask)
        return plain(w, mem) if name is None else name
    return enum



def flags_text(u: int, flags: Sequence[Tuple[str, int, int]], size: int) -> str:
    """ltrace's flags lens: the names of the flags set in u (`size` bytes), joined by "|", and
    what no name covers in hex. `flags`: (name, value, mask) in declaration order; a value with
    its own mask (NAME=VAL:MASK, O_RDONLY=0:3) names a field, one without (mask == value) a bit."""
    rest = u
    names = []
    for name, val, mask in flags:
        if mask != val:
            # a field value (NAME=VAL:MASK)
            if (u & mask) == val and (rest & mask) == (u & mask):
                names.append(name)
                rest &= ~mask
        elif val and (rest & val) == val:
            names.append(name)
            rest &= ~val
    rest &= (1 << (size * 8)) - 1
    if rest or not names:
        if not names:
            zero = [n for n, v, m in flags if v == 0 and m == 0]
            if u == 0 and zero:
                return zero[0]
            return "0x%x" % u if u else "0"
        names.append("0x%x" % rest)
    return "|".join(names)


def _flags(op, typed):
    def flags(w, mem, mask=op.mask, names=op.names, size=op.size):
        return flags_text(w & mask, names, size)
    return flags


def _oct(op, typed):
    def octal(w, mem, mask=op.mask):
        return "0%o" % (w & mask)
    return octal

def _cstr(op, typed):
    def string(w, mem, limit=op.limit, cap=op.limit + 1):
        if not w:
            return _NIL
        got = mem.cstring(w, cap)
        if got is None:
            return "0x%x" % w
        s = got[0]
        n = len(s)
        if n > cap:
            n = cap
        if n >= limit:
            return '"' + escape_bytes(s[:limit]) + '"...'
        return '"' + escape_bytes(s[:n]) + '"'
    return string


def _cstr_from(op):
    def string_from(w, area, limit=op.limit):
        """From the string's first `cap` bytes copied at the call, limit + 2 (None: unreadable
        without a NUL), every byte MemView.cstring(w, limit + 1) reads: so a string of limit + 1
        characters before unreadable memory shows as its pointer, as in the generic path. With
        w != 0 and 0 <= NUL < limit: '"' + escaped area[:NUL] + '"' (guestlog keeps such texts by
        their bytes)."""
        if not w:
            return _NIL
        if area is None:
            return "0x%x" % w
        nul = area.find(b"\0")
        if nul < 0 or nul >= limit:
            return '"' + escape_bytes(area[:limit]) + '"...'
        return '"' + escape_bytes(area[:nul]) + '"'
    return string_from


def _quoted_prefix(w: int, raw: Optional[bytes], shown: int, truncated: bool) -> str:
    """A buffer of which `shown` bytes are shown, from `raw`, the readable bytes from its pointer
    on (None: none readable): its pointer when nothing is readable, a '?' after a text cut short
    by unreadable memory, '...' after one cut by the string limit (`truncated`)."""
    if raw is None:
        return "0x%x" % w if shown else '""'
    raw = raw[:shown]
    body = escape_bytes(raw)
    if len(raw) < shown:
        body += "?"
    return '"' + body + ('"...' if truncated else '"')


def _buf(op, typed):
    def bounded(w, mem, n, limit=op.limit):
        if not w:
            return _NIL
        if n > limit:
            n = limit + 1
        shown = n if n < limit else limit
        return _quoted_prefix(w, read_prefix(mem, w, shown), shown, n >= limit)
    return bounded


def _buf_from(op):
    def bounded_from(w, raw, n, limit=op.limit):
        """From the bytes copied at the call (min(n, limit + 1) of them; fewer when the buffer
        ran into unreadable memory, None when none was readable)."""
        if not w:
            return _NIL
        if n > limit:
            n = limit + 1
        return _quoted_prefix(w, raw, n if n < limit else limit, n >= limit)
    return bounded_from


def _wide_text(raw: bytes, limit: int) -> str:
    """A wide string from `raw`, the readable bytes from its pointer on (at least limit + 1
    characters' worth, or up to unreadable memory); it ends at a zero character or where raw
    ends."""
    m = min(len(raw) // 4, limit + 1)
    n = 0
    while n < m and raw[4 * n:4 * n + 4] != b"\0\0\0\0":
        n += 1
    shown = n if n < limit else limit
    return 'L"' + escape_wide(raw[:4 * shown]) + ('"...' if n >= limit else '"')


def _wide_prefix(mem, w: int, count: int) -> bytes:
    """The first `count` wide characters at w, or, where they are not all readable, those read
    one by one up to unreadable memory or a zero character (which the text ends at anyway)."""
    raw = mem.read(w, 4 * count) if count else b""
    if raw is not None and len(raw) >= 4 * count:
        return raw
    raw = b""
    for k in range(count):
        c = mem.read(w + 4 * k, 4)
        if c is None or len(c) < 4:
            break
        raw += c
        if c == b"\0\0\0\0":
            break
    return raw


def _wstr(op, typed):
    def wstring(w, mem, limit=op.limit, cap=op.limit + 1):
        if not w:
            return _NIL
        return _wide_text(_wide_prefix(mem, w, cap), limit)
    return wstring


def _wstr_from(op):
    def wstring_from(w, raw, limit=op.limit):
        """From the bytes copied at the call (4 * (limit + 1) of them, fewer when unreadable
        memory came first)."""
        if not w:
            return _NIL
        return _wide_text(raw or b"", limit)
    return wstring_from


def _ret_length(n: Optional[int], mask: int, limit: int) -> int:
    """How many characters an output string bounded by the returned value `n` may have before
    the string limit stops it: what the generic interpreter's `_array_length` takes as the
    array's cap (ltrace's value_extract_word of the return value: its `mask` bytes, unsigned)."""
    return limit + 1 if n is None else min(n & mask, limit + 1)


def _cstring_upto(w: int, mem, k: int, limit: int) -> str:
    """A C string of at most k characters, as _fmt_array renders it from live memory (its
    length from MemView.cstring(w, k), whose NUL search reads one byte past them: unreadable
    there, without a NUL before, it shows as the pointer, unless k is 0)."""
    got = mem.cstring(w, k)
    if got is None:
        if k:
            return "0x%x" % w
        n = 0
    else:
        n = min(len(got[0]), k)
    shown = n if n < limit else limit
    return _quoted_prefix(w, read_prefix(mem, w, shown), shown, n >= limit)


def _retstr(op, typed):
    def string_to_retval(w, mem, n, limit=op.limit, mask=op.mask):
        """`+string[retval]` (read's buffer): a C string of at most the returned value's
        characters, as _fmt_array renders it from live memory."""
        if not w:
            return _NIL
        return _cstring_upto(w, mem, _ret_length(n, mask, limit), limit)
    return string_to_retval


def _strn(op, typed):
    def string_n(w, mem, n, limit=op.limit, mask=op.mask):
        """ltrace's `stringN` (strncpy's source, write's buffer): a C string of at most the
        length word's characters (its `mask` bytes, unsigned, as _array_length evaluates it),
        as _fmt_array renders it from live memory."""
        if not w:
            return _NIL
        n &= mask
        return _cstring_upto(w, mem, n if n < limit + 1 else limit + 1, limit)
    return string_n


def _strn_from(op):
    def string_n_from(w, area, n, limit=op.limit, mask=op.mask):
        """From the copy made at the call (CSTRN): the bytes from w up to its NUL or limit + 2
        of them, fewer when unreadable memory came first (None: nothing readable). That holds
        every byte MemView.cstring(w, k) reads, k = min(n, limit + 1): k + 1 of them at most, the
        byte past the k characters included; so its answer is known from the copy."""
        if not w:
            return _NIL
        raw = area or b""
        n &= mask
        k = n if n < limit + 1 else limit + 1
        nul = raw.find(b"\0", 0, k + 1)
        if nul >= 0:
            m = nul
        elif len(raw) > k:
            m = k
        elif k:
            return "0x%x" % w       # (unreadable before the NUL search's last byte)
        else:
            m = 0
        shown = m if m < limit else limit
        return '"' + escape_bytes(raw[:shown]) + ('"...' if m >= limit else '"')
    return string_n_from


def _retwstr(op, typed):
    def wstring_to_retval(w, mem, n, limit=op.limit, mask=op.mask):
        """`+wstring[retval]` (mbstowcs's): the wide characters before a zero one, at most the
        returned value's, as far as readable."""
        if not w:
            return _NIL
        return _wide_text(_wide_prefix(mem, w, _ret_length(n, mask, limit)), limit)
    return wstring_to_retval


def bitvec_text(data: bytes) -> str:
    """ltrace's bitvec lens over bytes in memory order (bit 0 = LSB of byte 0)."""
    sz = len(data)
    bits = sum(bin(b).count("1") for b in data)
    neg = 0xFF if bits > sz * 4 else 0
    out = []
    low = -1
    bitno = 0
    for b in data:
        d = b ^ neg
        for k in range(8):
            if d >> k & 1:
                if low < 0:
                    low = bitno
            else:
                if low >= 0:
                    out.append(str(low) if low == bitno - 1 else "%d-%d" % (low, bitno - 1))
                    low = -1
            bitno += 1
    if low >= 0:
        out.append(str(low) if low == bitno - 1 else "%d-%d" % (low, bitno - 1))
    return ("~" if neg else "") + "<" + ",".join(out) + ">"


def _bitvec(op, typed):
    def bitvec_at(w, mem, size=op.size):
        """A pointer to a `size`-byte set of bits (sigset_t), as the generic interpreter
        renders `bitvec(ulong)*`: nil, its address when unreadable, else its bits."""
        if not w:
            return _NIL
        b = mem.read(w, size)
        if b is None or len(b) < size:
            return "0x%x" % w
        return bitvec_text(b[:size])
    return bitvec_at


def _intstruct(op, typed):
    def int_struct(w, mem, fields=op.names):
        """A structure of integers returned in rax and rdx (w = rax | rdx << 64; ldiv's): its
        fields ((offset, size, signed), ...) as _fmt_struct renders plain integer fields."""
        out = []
        for off, size, signed in fields:
            u = (w >> (8 * off)) & ((1 << (8 * size)) - 1)
            if signed and u >> (8 * size - 1):
                u -= 1 << (8 * size)
            out.append(str(u))
        return "{ " + ", ".join(out) + " }"
    return int_struct


def _hide(op, typed):
    def hidden(w, mem):
        return None
    return hidden


def _typed(op, typed):
    return typed(op.type)


class BytesAt:
    """A GuestReader over the bytes copied from one address (a block the guest log copied, as
    far as it was readable): anything else reads as unreadable. A block has no pointer in it, so
    its renderer reads nothing else."""
    __slots__ = ("addr", "data")

    def __init__(self, addr: int, data: Optional[bytes]):
        self.addr = addr
        self.data = data or b""

    def read(self, addr: int, size: int) -> Optional[bytes]:
        d = addr - self.addr
        if d < 0 or d + size > len(self.data):
            return None
        return self.data[d:d + size]

    def cstring(self, addr: int, limit: int):
        return None


def _block_from(word):
    """from_bytes of an op whose capture is BLOCK (a pointer to a structure with no pointer in
    it, copied at the call): its word renderer reading the copy (None: nothing was readable)."""
    def block_from(w, area):
        return word(w, BytesAt(w, area))
    return block_from


class Kind:
    """One kind of render operation (see the module's docstring)."""
    __slots__ = ("word", "capture", "cap", "from_bytes", "inline", "native")

    def __init__(self, word: Callable, capture: Optional[str] = WORD, cap: Optional[Callable] = None,
                 from_bytes: Optional[Callable] = None, inline: Optional[str] = None):
        self.word = word                # builder(op, typed) -> the Python renderer of the word
        self.capture = capture          # what the guest log copies (None: the op says)
        self.cap = cap                  # fn(op) -> the bytes it copies
        self.from_bytes = from_bytes    # builder(op) -> the Python renderer from those bytes
        # The op as a Python expression (str.format template) for guestlog's per-site code:
        # {w} the word's variable, the op's {mask} and {limit}; for a capture, {area} the offset
        # of its bytes in `data` (the record) and {n} the length word's variable; `esc` is
        # escape_bytes. Only where every byte was copied (guestlog's quick path).
        self.inline = inline
        self.native = False             # emutrace.machine._native has OP_<KIND> (set below, from abi.OP)


def _string_cap(op) -> int:
    return op.limit + 1


# Parameters each kind reads: unsigned, hex, oct, bool, wchar: mask; signed: mask and size (bytes);
# enum: mask, size, names ((value & mask, name), ...) and fallback (the kind rendering a value
# with no name); flags: mask, size and names ((name, value, mask), ... as flags_text takes them); cstr, buf, wstr: limit (-s), buf: len_arg (the length's word index); strn: limit,
# len_arg, and mask and size: the length argument's (its type's bytes); retstr,
# retwstr: limit, and mask and size: the returned value's (their length); bitvec: size (bytes
# of the set); intstruct: names, its fields ((offset, size, signed), ...); struct: type, size
# (bytes) and names, the tokens of its layout ((STRUCT_OPEN or _CLOSE, 0, 0) and (STRUCT_UNSIGNED,
# _SIGNED, _HEX or _OCT, offset, size)).
KINDS: Dict[str, Kind] = {
    "unsigned": Kind(_unsigned, inline="str({w} & {mask})"),
    "signed": Kind(_signed),
    "hex": Kind(_hex, inline='("0x%x" % ({w} & {mask}) if {w} & {mask} else "0")'),
    "guess": Kind(_guess),
    "addr": Kind(_addr, inline='("0x%x" % {w} if {w} else "0")'),
    "char": Kind(_char),
    "wchar": Kind(_wchar),
    "bool": Kind(_bool),
    "enum": Kind(_enum),
    "flags": Kind(_flags),
    "oct": Kind(_oct, inline='"0%o" % ({w} & {mask})'),
    # (a C string copies limit + 2 bytes: the live renderer's NUL search reads that many)
    "cstr": Kind(_cstr, CSTR, lambda op: op.limit + 2, _cstr_from),
    "buf": Kind(_buf, LENGTH, _string_cap, _buf_from,
                inline="('\"' + esc(data[{area}:{area} + ({n} if {n} < {limit} else {limit})])"
                       " + ('\"...' if {n} >= {limit} else '\"') if {w} else " + repr(_NIL) + ")"),
    # a C string of at most the length word's characters (ltrace's stringN: strncpy's, write's):
    # copied as a C string, limit + 2 bytes (every byte MemView.cstring reads for it), bounded
    # by the length word when rendered
    "strn": Kind(_strn, CSTRN, lambda op: op.limit + 2, _strn_from),
    "wstr": Kind(_wstr, FIXED_SIZE, lambda op: 4 * (op.limit + 1), _wstr_from),
    # output strings bounded by the returned value: word(w, mem, returned value) renders them
    # from live memory or from what the return copied (guestlog's _Captured reads it)
    "retstr": Kind(_retstr, RETLEN, lambda op: op.limit + 2),
    "retwstr": Kind(_retwstr, RETLEN, lambda op: 4 * (op.limit + 1)),
    # a pointer to a set of bits: copied at the call as an input, at the return as an output
    "bitvec": Kind(_bitvec, BLOCK, lambda op: op.size),
    # a structure of plain integers returned in rax and rdx
    "intstruct": Kind(_intstruct, RAXRDX),
    # a pointer to a structure of integers and such structures (stat's, timespec's): copied at
    # the call as an input, at the return as an output, and rendered by the generic interpreter
    # (the reference); `names` is its layout for the C renderer (values.py _struct_tokens)
    "struct": Kind(_typed, BLOCK, lambda op: op.size),
    "hide": Kind(_hide),                                # shows nothing
    "typed": Kind(_typed, None),                        # the generic type interpreter
}
for _name, _kind in KINDS.items():
    _kind.native = _name in OP                   # (the C renderer's ops: machine/abi.py numbers them)


# the tokens of a struct op's layout (STRUCT_OPEN... the C renderer's render_struct reads them): a
# brace, or an integer field shown as _fmt_integer shows it; numbered in machine/abi.py

class RenderOp:
    """One argument's or return value's rendering: a kind of KINDS and its parameters, and what
    the kind makes of them (`word`, `capture` and `cap`, `from_bytes`)."""
    __slots__ = ("kind", "mask", "size", "limit", "names", "fallback", "len_arg", "type", "capture", "cap",
                 "word", "from_bytes")

    def __init__(self, kind: str, typed: Callable, mask: int = 0, size: int = 0, limit: int = 0,
                 names: tuple = (), fallback: Optional[str] = None, len_arg: Optional[int] = None,
                 type=None, capture: Optional[str] = None, cap: int = 0):
        spec = KINDS[kind]
        self.kind = kind
        self.mask = mask
        self.size = size
        self.limit = limit
        self.names = names
        self.fallback = fallback
        self.len_arg = len_arg          # buf, strn: the word index of its length
        self.type = type                # typed: the type the generic interpreter renders
        self.capture = spec.capture if capture is None else capture
        self.cap = spec.cap(self) if spec.cap is not None else cap
        self.word = spec.word(self, typed)
        self.from_bytes = spec.from_bytes(self) if spec.from_bytes is not None else None
        if self.from_bytes is None and self.capture == BLOCK:
            self.from_bytes = _block_from(self.word)

    @property
    def native(self) -> bool:
        return KINDS[self.kind].native

    def inline(self, w: str, area: Optional[str] = None, n: Optional[str] = None) -> Optional[str]:
        """The op as a Python expression of the word variable `w` (see Kind.inline), or None."""
        template = KINDS[self.kind].inline
        if template is None:
            return None
        return template.format(w=w, mask=self.mask, limit=self.limit, area=area, n=n)

    def __repr__(self):
        return "RenderOp(%r, capture=%r, cap=%r)" % (self.kind, self.capture, self.cap)
