"""Where an argument is at a function's entry: location lists (the entry that covers the entry
pc, if any) and location expressions (DWARF 5 §2.5-2.6), evaluated with the registers and
memory of that moment.

The evaluator is bounded (MAX_STEPS operations, a stack of MAX_STACK values, branches that must
land inside the expression): a looping expression ends as "unavailable", never as a hang.
Operations it does not model (implicit pointers, typed stack values) give "unavailable" too,
which prints as `<optimized out>`: never a guessed value."""
from __future__ import annotations

import struct
from typing import List, Optional, Tuple

from emutrace.dwarf.errors import DwarfError
from emutrace.dwarf.leb import sleb, uleb

MAX_STEPS = 1000
MAX_STACK = 64
MASK = (1 << 64) - 1
FBREG, BREG_RBP = "fbreg", "rbp"

Piece = Tuple[str, object, Optional[int]]    # (reg | mem | value | bytes | unavail, what, size in bytes)


def entry_expr(secs, version: int, form_value, entry_pc: int, cu_base: int) -> Tuple[Optional[bytes], bool]:
    """The expression that holds at entry_pc, and whether it came from a location list.
    form_value: bytes (an expression) or an int (a location-list offset)."""
    if isinstance(form_value, bytes):
        return form_value, False
    if not isinstance(form_value, int):
        return None, True
    if version >= 5:
        return _loclists(secs.get(".debug_loclists", b""), form_value, entry_pc, cu_base), True
    return _loc(secs.get(".debug_loc", b""), form_value, entry_pc, cu_base), True


def _loc(data: bytes, off: int, pc: int, base: int) -> Optional[bytes]:
    try:
        for _ in range(100_000):
            a, b = struct.unpack_from("<QQ", data, off)
            off += 16
            if a == 0 and b == 0:
                return None
            if a == MASK:
                base = b
                continue
            n, = struct.unpack_from("<H", data, off)
            off += 2
            if base + a <= pc < base + b:
                return data[off:off + n]
            off += n
    except struct.error:
        raise DwarfError(".debug_loc is truncated") from None
    return None


def _loclists(data: bytes, off: int, pc: int, base: int) -> Optional[bytes]:
    default = None
    try:
        for _ in range(100_000):
            kind = data[off]
            off += 1
            lo = hi = None
            if kind == 0:
                return default
            if kind == 6:
                base, = struct.unpack_from("<Q", data, off)
                off += 8
                continue
            if kind == 4:
                a, off = uleb(data, off)
                b, off = uleb(data, off)
                lo, hi = base + a, base + b
            elif kind == 7:
                lo, hi = struct.unpack_from("<QQ", data, off)
                off += 16
            elif kind == 8:
                lo, = struct.unpack_from("<Q", data, off)
                n, off = uleb(data, off + 8)
                hi = lo + n
            elif kind == 5:
                pass
            else:
                return None            # indexed forms (.debug_addr): not read; shown optimized out
            n, off = uleb(data, off)
            expr = data[off:off + n]
            off += n
            if kind == 5:
                default = expr
            elif lo <= pc < hi:
                return expr
    except (IndexError, struct.error):
        raise DwarfError(".debug_loclists is truncated") from None
    return default


class Frame:
    """What an expression may read at the moment: registers by DWARF number, memory, the CFA."""
    __slots__ = ("reg", "xmm", "read", "cfa")

    def __init__(self, reg, xmm, read, cfa: int):
        self.reg, self.xmm, self.read, self.cfa = reg, xmm, read, cfa


def value(expr: bytes, reg, read_u64, push: Optional[int] = None) -> Optional[int]:
    """The value a DWARF expression computes (CFI's DW_CFA_expression and val_expression rules,
    emutrace.unwind): the top of the stack; a register named by DW_OP_regN gives its value.
    push: a value on the stack before the expression starts (the CFA)."""
    def read(addr, n):
        v = read_u64(addr)
        return None if v is None else v.to_bytes(8, "little")[:n]
    pieces, _ = evaluate(expr, Frame(reg, lambda i: None, read, 0), None, 0, [] if push is None else [push])
    if len(pieces) != 1:
        return None
    kind, what, _ = pieces[0]
    if kind == "reg":
        return reg(what)
    return what if kind in ("mem", "value") else None


def evaluate(expr: bytes, fr: Frame, frame_base: Optional[bytes] = None, depth: int = 0,
             stack: Optional[List[int]] = None):
    """(pieces, doubtful): doubtful when the result is a stack slot the function's own prologue
    fills (below the CFA, or through rbp), which does not hold the value at entry yet."""
    stack = [] if stack is None else stack
    pieces: List[Piece] = []
    loc: Optional[Piece] = None
    doubtful = False
    i = 0
    steps = 0
    n = len(expr)
    try:
        while i < n:
            steps += 1
            if steps > MAX_STEPS or len(stack) > MAX_STACK:
                return [("unavail", None, None)], False
            op = expr[i]
            i += 1
            if 0x30 <= op <= 0x4F:
                stack.append(op - 0x30)
            elif 0x50 <= op <= 0x6F:
                loc = ("reg", op - 0x50, None)
            elif op == 0x90:
                r, i = uleb(expr, i)
                loc = ("reg", r, None)
            elif 0x70 <= op <= 0x8F or op == 0x92:
                if op == 0x92:
                    r, i = uleb(expr, i)
                else:
                    r = op - 0x70
                off, i = sleb(expr, i)
                v = fr.reg(r)
                if v is None:
                    return [("unavail", None, None)], False
                if r == 6:
                    doubtful = True
                stack.append((v + off) & MASK)
            elif op == 0x91:                       # fbreg
                off, i = sleb(expr, i)
                if frame_base is None or depth:
                    return [("unavail", None, None)], False
                fb, _ = evaluate(frame_base, fr, None, depth + 1)
                if len(fb) != 1 or fb[0][0] not in ("mem", "reg"):
                    return [("unavail", None, None)], False
                if fb[0][0] == "mem":
                    base = fb[0][1]
                else:
                    base = fr.reg(fb[0][1])
                    doubtful = True                # a frame pointer register: set by the prologue
                    if base is None:
                        return [("unavail", None, None)], False
                if base == fr.cfa and off < 0:
                    doubtful = True
                stack.append((base + off) & MASK)
            elif op == 0x9C:                       # call_frame_cfa
                stack.append(fr.cfa)
            elif op == 0x03:                       # addr
                stack.append(int.from_bytes(expr[i:i + 8], "little"))
                i += 8
            elif 0x08 <= op <= 0x0F:               # const1u .. const8s
                w = 1 << ((op - 0x08) >> 1)
                stack.append(int.from_bytes(expr[i:i + w], "little", signed=bool(op & 1)) & MASK)
                i += w
            elif op == 0x10:
                v, i = uleb(expr, i)
                stack.append(v & MASK)
            elif op == 0x11:
                v, i = sleb(expr, i)
                stack.append(v & MASK)
            elif op == 0x12:
                stack.append(stack[-1])
            elif op == 0x13:
                stack.pop()
            elif op == 0x14:
                stack.append(stack[-2])
            elif op == 0x15:
                k = expr[i]
                i += 1
                stack.append(stack[-1 - k])
            elif op == 0x16:
                stack[-1], stack[-2] = stack[-2], stack[-1]
            elif op == 0x17:
                stack[-1], stack[-2], stack[-3] = stack[-2], stack[-3], stack[-1]
            elif op in _BINARY:
                b = stack.pop()
                a = stack.pop()
                r = _BINARY[op](a, b)
                if r is None:
                    return [("unavail", None, None)], False
                stack.append(r & MASK)
            elif op in _UNARY:
                stack.append(_UNARY[op](stack.pop()) & MASK)
            elif op == 0x23:                       # plus_uconst
                v, i = uleb(expr, i)
                stack.append((stack.pop() + v) & MASK)
            elif op in (0x28, 0x2F):               # bra, skip
                off = int.from_bytes(expr[i:i + 2], "little", signed=True)
                i += 2
                if op == 0x2F or stack.pop() != 0:
                    i += off
                    if not 0 <= i <= n:              # branches outside itself: lying input
                        return [("unavail", None, None)], False
            elif op in (0x06, 0x94):               # deref, deref_size
                w = 8
                if op == 0x94:
                    w = expr[i]
                    i += 1
                    if not 1 <= w <= 8:
                        return [("unavail", None, None)], False
                data = fr.read(stack.pop(), w)
                if data is None or len(data) != w:
                    return [("unavail", None, None)], False
                stack.append(int.from_bytes(data, "little"))
            elif op == 0x9F:                       # stack_value
                loc = ("value", stack.pop(), None)
            elif op == 0x9E:                       # implicit_value
                ln, i = uleb(expr, i)
                loc = ("bytes", expr[i:i + ln], None)
                i += ln
            elif op in (0xA3, 0xF3):               # entry_value: at the entry, the value itself
                ln, i = uleb(expr, i)
                sub = expr[i:i + ln]
                i += ln
                if len(sub) == 1 and 0x50 <= sub[0] <= 0x6F:
                    v = fr.reg(sub[0] - 0x50)
                elif len(sub) >= 2 and sub[0] == 0x90:
                    v = fr.reg(uleb(sub, 1)[0])
                else:
                    return [("unavail", None, None)], False
                if v is None:
                    return [("unavail", None, None)], False
                stack.append(v & MASK)
            elif op == 0x93:                       # piece
                size, i = uleb(expr, i)
                if loc is None:
                    loc = ("mem", stack.pop(), None) if stack else ("unavail", None, None)
                pieces.append((loc[0], loc[1], size))
                loc = None
                if len(pieces) > 64:
                    return [("unavail", None, None)], False
            elif op == 0x96:                       # nop
                pass
            else:                                  # implicit pointer, typed values, calls
                return [("unavail", None, None)], False
    except IndexError:
        return [("unavail", None, None)], False
    if pieces:
        return pieces, doubtful
    if loc is not None:
        return [loc], doubtful
    if stack:
        return [("mem", stack[-1], None)], doubtful
    return [("unavail", None, None)], False


def _div(a, b):
    if b == 0:
        return None
    sa = a - (1 << 64) if a >> 63 else a
    sb = b - (1 << 64) if b >> 63 else b
    return int(sa / sb)


def _signed(a):
    return a - (1 << 64) if a >> 63 else a


_BINARY = {
    0x1A: lambda a, b: a & b, 0x1B: _div, 0x1C: lambda a, b: a - b,
    0x1D: lambda a, b: None if b == 0 else a % b, 0x1E: lambda a, b: a * b,
    0x21: lambda a, b: a | b, 0x22: lambda a, b: a + b, 0x24: lambda a, b: a << b if b < 64 else 0,
    0x25: lambda a, b: a >> b if b < 64 else 0, 0x26: lambda a, b: _signed(a) >> min(b, 63),
    0x27: lambda a, b: a ^ b,
    0x29: lambda a, b: int(_signed(a) == _signed(b)), 0x2A: lambda a, b: int(_signed(a) >= _signed(b)),
    0x2B: lambda a, b: int(_signed(a) > _signed(b)), 0x2C: lambda a, b: int(_signed(a) <= _signed(b)),
    0x2D: lambda a, b: int(_signed(a) < _signed(b)), 0x2E: lambda a, b: int(_signed(a) != _signed(b)),
}
_UNARY = {0x19: lambda a: abs(_signed(a)), 0x1F: lambda a: -_signed(a), 0x20: lambda a: ~a}
