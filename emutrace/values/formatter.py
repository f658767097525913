"""CallFormatter: ltrace's rendering of a call's arguments and return value (see the package's
docstring)."""
from __future__ import annotations

import math
import struct
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from emutrace.machine.guestaccess import MemView
from emutrace.machine.reader import GuestReader
from emutrace.machine.abi import TEXTS
from emutrace.protos import (Array, ArgRef, Pointer, Prim, Prototype, Struct, Type, Zero, default_prototype, FLOATING, SIGNED)
from emutrace.escapes import esc_char, esc_wchar, escape_bytes, escape_wide
from emutrace.renderops import RenderOp, bitvec_text, flags_text, read_prefix
from emutrace.renderops import STRUCT_CLOSE, STRUCT_OPEN
from emutrace.values.state import (DEFAULT_ALIGN, DEFAULT_ARRAY_LIMIT, DEFAULT_STRING_LIMIT, _CHUNK, _M64, CallState,
                                   _Ctx, _Val)
from emutrace.values.fetch import Fetching, _signed
from emutrace.values.plan import Compiling, FastCallState, _INT_KINDS, _STRUCT_FIELD, _UNSET, _int_class

_VOID, _NIL, _TRUE, _FALSE = TEXTS["VOID"], TEXTS["NIL"], TEXTS["TRUE"], TEXTS["FALSE"]    # (machine/abi.py's, C's TXT_*)


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


# ----------------------------------------------------------------------------
# formatting


_HIDDEN = object()           # (_lens_shown: a value not shown)


class CallFormatter(Fetching, Compiling):
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
            st.ret = _VOID
        else:
            r = self._fmt_top(st._retval, ctx)
            st.ret = _VOID if r is None else r
        st.finished = True
        return st.right + ") = " + st.ret

    def summary(self, rows: Iterable[Any]) -> str:
        return format_summary(rows, demangle=self.display_name if self.demangle else None)


    # -- top level formatting -----------------------------------------------
    def _fmt_top(self, v: _Val, ctx: _Ctx) -> Optional[str]:
        return self._fmt(v.type, v.data, v.addr, ctx)

    def _fmt(self, t: Type, data: Optional[bytes], addr: Optional[int], ctx: _Ctx,
             lens_override: Optional[str] = None) -> Optional[str]:
        lens = self._lens_shown(t, t.lens if lens_override is None else lens_override, ctx)
        if lens is _HIDDEN:
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
    def _lens_shown(self, t, lens: Optional[str], ctx: _Ctx):
        """The lens t is shown with (cond(...)'s inner lens when its argument's bits are set), or
        _HIDDEN: not shown (hide, or an unset cond)."""
        if lens == "cond":
            argn, mask = t.cond
            w = self._eval(ArgRef(argn), ctx)
            if w is None or (w & mask) == 0:
                return _HIDDEN
            lens = t.inner_lens
        return _HIDDEN if lens == "hide" else lens

    def _fmt_prim(self, t: Prim, data: bytes, lens: Optional[str]) -> str:
        k = t.kind
        if k == "void":
            return _VOID
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
            return _FALSE if u == 0 else _TRUE
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
            return _FALSE if ptr == 0 else _TRUE
        void_target = isinstance(target, Prim) and target.kind == "void"
        if void_target:
            if lens == "guess":
                return _fmt_integer(ptr, 8, "unknown")
            if lens == "oct":
                return _fmt_integer(ptr, 8, "o")
            return _fmt_integer(ptr, 8, "x")
        if ptr == 0:
            return _NIL
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
        lens = self._lens_shown(f, f.lens, ctx)
        if lens is _HIDDEN:
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

