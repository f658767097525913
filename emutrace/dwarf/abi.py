"""Where the SysV x86-64 ABI puts arguments and return values, read as the bytes of each value.

Classes (psABI §3.2.3): INTEGER (rdi, rsi, rdx, rcx, r8, r9), SSE (xmm0-7), structures of up to
16 bytes split into eightbytes of either class when registers remain for all of them, else
MEMORY (on the stack, from rsp+8 at the entry); long double (x87) in memory, returned in st0;
a return value of class MEMORY through a hidden pointer in rdi (returned in rax); a C++ class
with its own destructor or copy constructor passed and returned by invisible reference.

An argument whose DWARF location holds at the entry (a register, a location-list entry, a slot
of the caller's frame) is read there; one in a stack slot the prologue fills (-O0's spills) is
read where the ABI put it; one without a location is optimized out (None). A specialised clone
(constprop, isra) trusts its own locations only."""
from __future__ import annotations

import struct
from typing import List, Optional

from emutrace.dwarf import loc as L
from emutrace.dwarf.types import Array, Enum, Float, Int, Pointer, Signature, Struct, Type

GP = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
DWARF_GP = ("rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
            "r12", "r13", "r14", "r15")
OPT_OUT = None


def _classes(t: Type) -> Optional[List[str]]:
    """Eightbyte classes ("I", "S") of a value passed in registers, or None for memory;
    ["X"] for x87, ["R"] for an invisible reference."""
    s = t.strip()
    if isinstance(s, (Int, Enum, Pointer)):
        return ["I"]
    if isinstance(s, Float):
        return ["S"] if s.size <= 8 else ["X"]
    if isinstance(s, Struct):
        if s.nontrivial:
            return ["R"]
        if s.size == 0 or s.size > 16:
            return None
        cls = ["", ""][: (s.size + 7) // 8]
        if not _flatten(s, 0, cls, 0):
            return None
        return [c or "S" for c in cls]
    if isinstance(s, Array) and s.count:
        return None
    return None


def _flatten(t: Type, base: int, cls: List[str], depth: int) -> bool:
    s = t.strip()
    if depth > 8:
        return False
    if isinstance(s, Struct):
        return all(_flatten(m.type, base + m.offset, cls, depth + 1) for m in s.members)
    if isinstance(s, Array):
        es = s.elem.strip().size
        return all(_flatten(s.elem, base + i * es, cls, depth + 1) for i in range(min(s.count or 0, 16)))
    if isinstance(s, Float) and s.size > 8:
        return False
    i = base // 8
    if i >= len(cls):
        return False
    if isinstance(s, Float):
        if not cls[i]:
            cls[i] = "S"
    else:
        cls[i] = "I"
    return True


MAX_VALUE = 1 << 16             # bytes of one value read (a lying DWARF size stays bounded)


class Entry:
    """The machine at a function's entry (or return): registers, memory, the stack pointer."""
    __slots__ = ("m", "mem", "_rsp")

    def __init__(self, machine, mem, rsp: Optional[int] = None):
        self.m, self.mem = machine, mem
        self._rsp = rsp

    @property
    def rsp(self) -> int:
        if self._rsp is None:               # (read when a location needs it: not per plain call)
            self._rsp = self.m.reg("rsp")
        return self._rsp

    def gp(self, name: str) -> int:
        return self.m.reg(name)

    def xmm(self, i: int) -> bytes:
        return self.m.xmm(i)

    def dwarf_reg(self, n: int) -> Optional[int]:
        if n < 16:
            return self.m.reg(DWARF_GP[n])
        return None

    def read(self, addr: int, size: int) -> Optional[bytes]:
        return self.mem.read(addr, size) if 0 < size <= MAX_VALUE else None


def _u64(v: int) -> bytes:
    return (v & (1 << 64) - 1).to_bytes(8, "little")


def plan(sig: Signature) -> list:
    """How to read each parameter, decided once per function: ("const", bytes), ("opt",),
    ("gp", register, size), ("xmm", i, size) where one register holds it (by the ABI or by a
    DW_OP_regN location), ("abi",) for the ABI's other places, ("expr",) for any other location."""
    out = []
    gi = 1 if ret_in_memory(sig.ret) else 0
    si = 0
    for p in sig.params:
        size = p.type.strip().size or 8
        cls = _classes(p.type)
        here = ("abi",)
        if cls == ["I"] and gi < 6 and size <= 8:
            here = ("gp", GP[gi], size)
        elif cls == ["S"] and si < 8:
            here = ("xmm", si, size)
        if cls and "X" not in cls and cls != ["R"]:
            gi += cls.count("I")
            si += cls.count("S")
        elif cls == ["R"]:
            gi += 1
        w = p.where
        if p.const is not None:
            out.append(("const", p.const if isinstance(p.const, bytes) else _u64(p.const)[:size]))
        elif w is None:
            out.append(("opt",))
        elif len(w) == 1 and 0x50 <= w[0] <= 0x5F and size <= 8:
            out.append(("gp", DWARF_GP[w[0] - 0x50], size))
        elif not sig.clone and not p.from_list and _spill(w, sig.frame_base):
            out.append(here)                   # -O0: a slot the prologue fills; the ABI's place
        else:
            out.append(("expr",))
    return out


def _spill(w: bytes, frame_base) -> bool:
    """DW_OP_fbreg with a negative offset from the CFA: a slot below the return address."""
    if w[:1] != b"\x91" or frame_base != b"\x9c":
        return False
    try:
        off, end = L.sleb(w, 1)
    except (IndexError, ValueError):
        return False
    return end == len(w) and off < 0


def read_planned(sig: Signature, steps: list, e: Entry) -> List[Optional[bytes]]:
    """read_args, by a plan (the common cases without evaluating anything)."""
    out: List[Optional[bytes]] = []
    generic = None
    m = e.m
    for i, st in enumerate(steps):
        k = st[0]
        if k == "gp":
            out.append((m.reg(st[1]) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")[:st[2]])
        elif k == "xmm":
            out.append(m.xmm(st[1])[:st[2]])
        elif k == "const":
            out.append(st[1])
        elif k == "opt":
            out.append(OPT_OUT)
        else:
            if generic is None:
                generic = read_args(sig, e)
            out.append(generic[i])
    return out


def read_args(sig: Signature, e: Entry) -> List[Optional[bytes]]:
    """The bytes of each parameter at entry, or None (optimized out)."""
    abi = [] if sig.clone else _abi_args(sig, e)
    fr = L.Frame(e.dwarf_reg, e.xmm, e.read, e.rsp + 8)
    out = []
    for i, p in enumerate(sig.params):
        size = p.type.strip().size or 8
        if p.const is not None:
            out.append(p.const if isinstance(p.const, bytes) else _u64(p.const)[:size])
            continue
        if p.where is None:
            out.append(OPT_OUT)
            continue
        pieces, doubtful = L.evaluate(p.where, fr, sig.frame_base)
        if doubtful or (not p.from_list and any(k == "unavail" for k, _, _ in pieces)):
            out.append(abi[i] if i < len(abi) else OPT_OUT)
            continue
        out.append(_from_pieces(pieces, size, e))
    return out


def _from_pieces(pieces, size: int, e: Entry) -> Optional[bytes]:
    data = b""
    for kind, what, n in pieces:
        n = n if n is not None else size
        if kind == "unavail":
            return OPT_OUT
        if kind == "reg":
            if 17 <= what <= 32:
                b = e.xmm(what - 17)
            else:
                v = e.dwarf_reg(what)
                if v is None:
                    return OPT_OUT
                b = _u64(v)
            data += b[:n].ljust(n, b"\0")
        elif kind == "mem":
            b = e.read(what, n)
            if b is None:
                return OPT_OUT
            data += b
        elif kind == "value":
            data += _u64(what)[:n].ljust(n, b"\0")
        else:
            data += what[:n]
    return data[:size]


def ret_in_memory(t: Type) -> bool:
    s = t.strip()
    if isinstance(s, Struct):
        return s.nontrivial or _classes(s) is None
    return False


def _abi_args(sig: Signature, e: Entry) -> List[Optional[bytes]]:
    gi = 1 if ret_in_memory(sig.ret) else 0
    si = 0
    stack = e.rsp + 8
    out: List[Optional[bytes]] = []
    for p in sig.params:
        t = p.type.strip()
        size = t.size or 8
        cls = _classes(p.type)
        if cls == ["R"]:
            cls = ["I"]
            by_ref = True
        else:
            by_ref = False
        if cls and "X" not in cls and gi + cls.count("I") <= 6 and si + cls.count("S") <= 8:
            data = b""
            for c in cls:
                if c == "I":
                    data += _u64(e.gp(GP[gi]))
                    gi += 1
                else:
                    data += e.xmm(si)[:8]
                    si += 1
            if by_ref:
                ptr = int.from_bytes(data[:8], "little")
                out.append(e.read(ptr, size))
            else:
                out.append(data[:size])
            continue
        if by_ref:
            b = e.read(stack, 8)
            stack += 8
            out.append(e.read(int.from_bytes(b, "little"), size) if b else None)
            continue
        align = 16 if (isinstance(t, Float) and t.size > 8) else 8
        stack = (stack + align - 1) // align * align
        out.append(e.read(stack, size))
        stack += (size + 7) // 8 * 8
    return out


def read_return(t: Type, m, mem) -> Optional[bytes]:
    """The bytes of a return value of type t, at the return."""
    s = t.strip()
    size = s.size
    if not size or size > MAX_VALUE:
        return None
    if ret_in_memory(t):
        return mem.read(m.reg("rax"), size)
    cls = _classes(t)
    if cls == ["X"]:
        return x87_st0(m)
    if not cls:
        return None
    data = b""
    gi = si = 0
    for c in cls:
        if c == "I":
            data += _u64(m.reg(("rax", "rdx")[gi]))
            gi += 1
        else:
            data += m.xmm(si)[:8]
            si += 1
    return data[:size]


def x87_st0(m) -> Optional[bytes]:
    """st0 as the 10 bytes of an x87 extended value (padded to 16): the physical register the
    status word's TOP names (Unicorn reads FP0-7 by physical number)."""
    from unicorn.x86_const import UC_X86_REG_FP0, UC_X86_REG_FPSW     # deferred: only a long double reads the x87 registers
    try:
        top = (m.uc.reg_read(UC_X86_REG_FPSW) >> 11) & 7
        v = m.uc.reg_read(UC_X86_REG_FP0 + top)
    except (ValueError, TypeError, AttributeError):   # no x87 registers: shown optimized out
        return None
    if isinstance(v, tuple):
        mant, exp = v
        return struct.pack("<QH", mant & (1 << 64) - 1, exp & 0xFFFF).ljust(16, b"\0")
    return None
