"""printf-family calls in the guest call log: their arguments rendered by C hooks, not Python.

A printf-family prototype (`format` or `vformat` in the prototype database) shows one argument
per conversion of a format string read at the call, so guest code alone cannot capture it. With
the compiled path (emutrace.machine._native's PrintfHooks, in _printfcap.c), such a site still
gets a guest-log trampoline (emutrace.guestlog), whose record is completed by a C code hook at one
instruction of it: the hook parses the format as values._PrintfPack does, fetches the values as
the hooked path does (registers, xmm registers, stack, va_list), renders the arguments shown at
the call and keeps the others' values until a second C hook, on the printf sites' own entry of
the return trampoline (GuestLog.ret_printf: an instruction just before the shared entry, which
only these sites put in their return slot, so that other returns run no hook), renders them as
memory is at the return (what CallFormatter.exit reads). The
record carries a sequence number after its head; the decoder takes the texts from the
PrintfStore by it. So no Python frame runs per call.

Without the compiled path (EMUTRACE_PURE=1), or when a prototype has arguments the hooks do not
render, the site keeps the hooked path: the reference these texts must equal byte for byte
(tests/test_printflog.py).
"""
from __future__ import annotations

import ctypes
import struct
from typing import Dict, List, Optional, Tuple

from unicorn import x86_const as X
from unicorn.unicorn_py3.unicorn import uclib

from emutrace.guestlog import FastSite, HEAD, RET_SIZE, RET_TAG
from emutrace.machine.native import native
from emutrace.protos import ArgRef, Array, Const, Pointer, Prim, Zero
from emutrace.renderops import WORD
from emutrace.machine.abi import result_at
from emutrace.values import LEAF_COLUMN
_Q = struct.Struct("<Q")
# a call record and the return record after it, from the slot on (see PrintfSite._quick): slot,
# return address, sequence number; RET_TAG, slot, return address, rax, captured?, output bytes;
# the next record's tag
_PAIR = struct.Struct(f"<{HEAD - 16}x3Q6QQ")
_VMA = struct.Struct("<QQQQ")
_REGS = (X.UC_X86_REG_RAX, X.UC_X86_REG_RDI, X.UC_X86_REG_RSI, X.UC_X86_REG_RDX, X.UC_X86_REG_RCX,
         X.UC_X86_REG_R8, X.UC_X86_REG_R9, X.UC_X86_REG_RSP) + \
    tuple(getattr(X, f"UC_X86_REG_XMM{i}") for i in range(8))
OPEN_MAX = 64                           # open calls kept per argument words (see PrintfSite.open)

# a fixed argument's type -> how the hooks render its word (kind, size); string pointers apart
_WORD_KINDS = {("int", None): "PF_SIGNED", ("long", None): "PF_SIGNED", ("uint", None): "PF_UNSIGNED",
               ("ulong", None): "PF_UNSIGNED"}
_SIZES = {"int": 4, "long": 8, "uint": 4, "ulong": 8}


def _fixed(t, nparams: int) -> Optional[Tuple[int, int, int, int]]:
    """(kind, size, length bound's kind, bound) of one fixed argument, as CallFormatter renders
    it; None for a type the hooks do not render."""
    if getattr(t, "cond", None) is not None:
        return None
    if isinstance(t, Prim):
        kind = _WORD_KINDS.get((t.kind, t.lens))
        if kind is None or t.enum is not None or t.flags is not None:
            return None
        return getattr(native, kind), _SIZES[t.kind], native.PF_LIM_NONE, 0
    if not isinstance(t, Pointer):
        return None
    target = t.target
    if isinstance(target, Prim) and target.kind == "void":
        return (native.PF_ADDR, 8, native.PF_LIM_NONE, 0) if t.lens is None else None
    if t.lens != "string" or t.wide or t.inner_lens is not None:
        return None
    if not (isinstance(target, Array) and isinstance(target.elem, Prim) and target.elem.kind == "char"
            and target.elem.lens is None and isinstance(target.length, Zero)):
        return None
    lim = target.length.limit
    if lim is None:
        return native.PF_STR, 8, native.PF_LIM_NONE, 0
    if isinstance(lim, Const):
        return native.PF_STR, 8, native.PF_LIM_CONST, lim.value & ((1 << 64) - 1)
    if isinstance(lim, ArgRef) and 1 <= lim.index <= nparams:
        return native.PF_STR, 8, native.PF_LIM_ARG, lim.index - 1
    return None


def printf_spec(proto) -> Optional[Tuple[int, int, int, tuple]]:
    """(vformat, format's index, split, fixed arguments) for PrintfHooks.add_site, or None when
    the prototype is no printf-family one the hooks render whole (the hooked path keeps it)."""
    if native is None or proto is None or proto.pack is None or proto.pack.kind not in ("printf", "vprintf"):
        return None
    rt = proto.ret
    if not (isinstance(rt, Prim) and rt.kind == "int" and rt.lens is None and rt.enum is None
            and rt.flags is None and rt.cond is None):
        return None
    params = proto.params
    if len(params) > 6:
        return None
    fixed = []
    for t in params:
        f = _fixed(t, len(params))
        if f is None:
            return None
        fixed.append(f)
    idx = proto.pack.fmt_index
    vformat = proto.pack.kind == "vprintf"
    if not 0 <= idx < len(params) or fixed[idx][0] != native.PF_STR or fixed[idx][2] != native.PF_LIM_NONE:
        return None
    if vformat and (idx + 1 >= len(params) or fixed[idx + 1][0] != native.PF_ADDR):
        return None
    # (no output parameter: the format's values show at the call, as ltrace shows them)
    split = 1 << 20 if proto.split is None else proto.split
    return int(vformat), idx, split, tuple(fixed)


class _IntReturn:
    """The return value's op: an int, as CallFormatter renders it (never rendered by leaf_run)."""
    kind = "printf_int"
    capture = WORD
    native = False
    cap = 0
    len_arg = None

    @staticmethod
    def word(w: int, mem) -> str:
        u = w & 0xFFFFFFFF
        return str(u - (1 << 32) if u >> 31 else u)

    @staticmethod
    def inline(*args, **kw):
        return None


class _PrintfPlan:
    """What the guest log and LibcallTracer.returned read of a compiled prototype (values._Plan),
    for a printf site: no per-argument ops; `right(words, mem)` gives the texts the return hook
    rendered."""
    __slots__ = ("proto", "known", "nwords", "left_items", "right_items", "left", "right", "ret",
                 "ret_hidden", "ret_pair")

    def __init__(self, proto, right):
        self.proto = proto
        self.known = True
        self.nwords = len(proto.params)
        self.left_items = ()
        self.right_items = ()
        self.left = None
        self.right = right
        self.ret = _IntReturn
        self.ret_hidden = False
        self.ret_pair = False           # (an int: never a structure returned in rax and rdx)


class PrintfSite(FastSite):
    """A printf-family call site logged by guest code and rendered by the C hooks: its record is
    the head and the sequence number of its texts in the PrintfStore."""
    native_point = True

    def __init__(self, tag: int, site, spec, entry: int, store, string_limit: int):
        plan = _PrintfPlan(site.proto, self._right)
        super().__init__(tag, site, plan, (), entry)
        self.size = HEAD + 8
        self.pair_end = self.size + RET_SIZE
        self.spec = spec
        self.prefix = site.display + "("
        self.string_limit = string_limit
        self.store = store
        # the calls whose record was read but whose return was not, by argument words (what
        # LibcallTracer.returned hands plan.right): sequence numbers, the latest last
        self.open: Dict[tuple, List[int]] = {}
        self.left = self._left
        self.leaf = self._leaf
        self.quick = self._quick

    def placed(self, gl, proc, at: int) -> None:
        """The trampoline is in guest memory, its hook instruction at `at`: hook it."""
        hooks = engine_hooks(gl, proc, self.store, self.string_limit)
        hooks.add_site(at, *self.spec)
        hooks.add_return(gl.ret_printf)           # (only printf sites return there)

    def native_leaf(self, gl):
        """guestlog's FastSite.native_leaf: leaf_run renders this site's leaf calls, their lines
        made from the store as _line makes them."""
        return native.PrintfLeaf(self.store, self.prefix, LEAF_COLUMN)

    def _seq(self, data, off: int) -> int:
        return _Q.unpack_from(data, off + HEAD)[0]

    def _left(self, w, data, off: int) -> List[str]:
        seq = self._seq(data, off)
        words = tuple(w[1:7])
        pending = self.open.setdefault(words, [])
        pending.append(seq)
        if len(pending) > OPEN_MAX:         # (calls left by longjmp never return)
            del pending[0]
        return self.store.take_left(seq) or []

    def _right(self, words, mem, rax=None) -> List[str]:
        # (plan.right's signature: rax is for outputs bounded by the returned value; the return
        # hook rendered these texts already)
        pending = self.open.get(tuple(words))
        if not pending:
            return []
        seq = pending.pop()
        if not pending:
            del self.open[tuple(words)]
        return self.store.take_right(seq) or []

    def _leaf(self, w, data, off: int, rax: int, suffix: str) -> str:
        """The line of a call whose return record follows its call record."""
        return self._line(self._seq(data, off), rax, suffix)

    def _quick(self, data, off: int, top: int, suffix: str, append):
        """guestlog's FastSite.quick: the line of the leaf call at data[off:] appended, and the
        next record's tag returned; None (nothing appended) when it is no leaf call or a frame at
        `top` or below is open."""
        slot, ret, seq, tag, rslot, rret, rax, captured, outn, nxt = _PAIR.unpack_from(data, off)
        if tag != RET_TAG or rslot != slot or rret != ret or top <= slot or captured or outn:
            return None
        append(self._line(seq, rax, suffix))
        return nxt

    def _line(self, seq: int, rax: int, suffix: str) -> str:
        """The line of a leaf call: display(left, right) padded, "= " and the int it returned (the
        store joins what its hooks rendered; test_printflog compares with _line_of)."""
        return self.store.take_line(seq, self.prefix, rax, suffix, LEAF_COLUMN)

    def _line_of(self, seq: int, rax: int, suffix: str) -> str:
        """_line from the texts as lists: the same line, made in Python."""
        store = self.store
        left = store.take_left(seq) or []
        right = store.take_right(seq) or []
        text = self.prefix + ", ".join(left)
        if right:
            text += (", " if left else "") + ", ".join(right)
        return result_at(text + ")", _IntReturn.word(rax, None), LEAF_COLUMN) + suffix


def printf_site(tracer, proc, tag: int, site, entry: int, string_limit: int) -> Optional[PrintfSite]:
    """A PrintfSite for `site`, or None when its calls keep the hooked path (no compiled path, a
    prototype the hooks do not render, or no compiled permission cache to read memory by)."""
    if native is None or not isinstance(proc.aspace.page_perms, getattr(native, "TlbFill", ())):
        return None
    spec = printf_spec(site.proto)
    if spec is None:
        return None
    store = getattr(tracer, "printf_store", None)
    if store is None:
        store = tracer.printf_store = native.PrintfStore()
    return PrintfSite(tag, site, spec, entry, store, string_limit)


def _vmas_of(aspace):
    """() -> the mappings as PrintfHooks reads them: (start, end, prot, host address) quads, by
    address; each mapping cut where the host memory under it changes (Backings, or a shared
    mapping's SharedMemory extents), host 0 where it has none (read as unreadable)."""
    pack = _VMA.pack

    def table() -> bytes:
        out = []
        for v in aspace.vmas:
            start, end, prot = v.start, v.end, v.prot
            if v.shm is None:
                pieces = aspace.host_pieces(start, end)
            else:
                delta = start - v.shm_off
                pieces = [(o + delta, n, host) for o, n, host in v.shm.pieces(v.shm_off, v.shm_off + (end - start))]
            at = start
            for lo, n, host in pieces:
                if lo > at:
                    out.append(pack(at, lo, prot, 0))
                out.append(pack(lo, lo + n, prot, host))
                at = lo + n
            if at < end:
                out.append(pack(at, end, prot, 0))
        return b"".join(out)
    return table


def _address(fn) -> int:
    """The address of a function of the loaded Unicorn library."""
    return ctypes.cast(fn, ctypes.c_void_p).value


def engine_hooks(gl, proc, store, string_limit: int):
    """The PrintfHooks of the guest log's engine (made on first use)."""
    hooks = gl.printf_hooks
    if hooks is None:
        m = gl.m
        hooks = gl.printf_hooks = native.PrintfHooks(
            m.engine_hooks.hook_add_address, _address(uclib.uc_reg_read),
            _address(uclib.uc_mem_read), _address(uclib.uc_mem_write), m.uc._uch.value, m.uc, store,
            proc.aspace.page_perms, _vmas_of(proc.aspace), _REGS, gl.ctrl, string_limit)
        m.engine_hooks.attach(hooks)        # (it adds a hook at each printf-like site it is given)
    return hooks
