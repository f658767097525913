"""Argument fetching: the words and memory a call's arguments and return value are read from
(registers, the stack, a va_list), and what a printf or scanf format says follows."""
from __future__ import annotations

import struct
from typing import Any, List, Optional, Tuple

from emutrace.protos import Array, ArgRef, Const, EltRef, Expr, Pointer, Prim, Struct, Type, Zero, FLOATING
from emutrace.machine.abi import PRINTF_CONVERSIONS_MAX
from emutrace.values.state import _M64, FORMAT_READ_LIMIT, CallState, _Ctx, _Val


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


class Fetching:
    """CallFormatter's generic path: the values of a call's arguments and return (a part of CallFormatter)."""

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
                for _ in range(PRINTF_CONVERSIONS_MAX):
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

