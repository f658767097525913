"""One function's argument fetch and render, compiled once per function: --ftrace -a's
per-call path.

At a function's first call its plan decides, for each shown parameter, where the value is at
the entry (abi.plan: a register, a constant, a location expression, the ABI's place) and which
formatter its type takes. A call then costs one C read of the six integer argument registers
(the function tracer reads them with the stack pointer anyway), and a parameter held in one
of them whose type needs no memory to show (integers, char, bool, enums, plain and function
pointers, `this`) no Python call of its own beyond its formatter; a plain integer none at all.
Values in memory, SSE or x87 registers, location expressions, strings and aggregates take
abi's reader and the Renderer, as the API's one-off reads do.

The typed values (name, type, value, text) that jsonl, the Chrome timeline and the API carry
are made only when an output asks for them (`typed`): the text trace shows the text only, and
a value is never read later than the entry (or the return) it belongs to."""
from __future__ import annotations

import struct
from typing import Callable, List, Optional

from emutrace.dwarf import abi
from emutrace.dwarf.render import Renderer, enum_text, int_text
from emutrace.dwarf.types import Enum, Float, FuncType, Int, Pointer, Qual, Signature, Struct, Unknown, type_name

# step kinds: a word of the integer argument registers shown as a plain integer (no call), the
# word through a formatter of its type, the word as bytes through the Renderer (memory), the
# value read by abi's general reader and shown by the Renderer
W_INT, W_FMT, W_MEM, BYTES = 0, 1, 2, 3
# (rdi, rsi, rdx, rcx, r8, r9, rsp): Machine.call_words' order
WORD = {"rdi": 0, "rsi": 1, "rdx": 2, "rcx": 3, "r8": 4, "r9": 5}
RSP = 6
NO_TYPED: tuple = ()            # a call's typed values when no output asks for them
# what types that lie (sizes, encodings, cycles) can make rendering raise
LYING = (ValueError, OverflowError, TypeError, IndexError, KeyError, AttributeError, RecursionError, struct.error)


def _masks(size: int, signed: bool):
    """(mask, sign bit) that make a register word the value of `size` bytes: ((w & m) ^ s) - s."""
    return (1 << 8 * size) - 1, (1 << 8 * size - 1) if signed else 0


def fast_int(t) -> Optional[bool]:
    """Signedness of a plain integer (its text is its number), or None."""
    s = t.strip()
    if isinstance(s, Int) and not s.boolean and not (s.char and s.name == "char") and s.size in (1, 2, 4, 8):
        return s.signed
    return None


def word_formatter(t, symbolize: Callable[[int], Optional[str]]) -> Optional[Callable[[int], str]]:
    """text(word) for a type shown without reading memory (as Renderer.render shows it), or
    None: char, bool, enums, pointers to anything but strings and structures, function pointers."""
    s = t.strip()
    if isinstance(s, (Int, Enum)) and s.size in (1, 2, 4, 8):
        mask, sign = _masks(s.size, s.signed)
        if isinstance(s, Int):
            return lambda w: int_text(s, ((w & mask) ^ sign) - sign)
        names: dict = {}
        for n, x in s.values:                    # the first name of a value wins, as enum_text's
            names.setdefault(x, n)

        def enum(w: int) -> str:
            v = ((w & mask) ^ sign) - sign
            n = names.get(v)
            return n if n is not None else enum_text(s, v)
        return enum
    if isinstance(s, Pointer) and not s.ref:
        tgt = s.target.strip() if s.target is not None else Unknown()
        if isinstance(tgt, FuncType):
            def function(w: int) -> str:
                name = symbolize(w) if w else None
                return "&" + name if name else "0x%x" % w
            return function
        if isinstance(tgt, Int) and tgt.char and tgt.size == 1:
            return None                          # a C string
        if isinstance(tgt, Struct) and tgt.size and not tgt.declaration:
            return None                          # shown with its members
        return "0x%x".__mod__
    return None


def is_output(t) -> bool:
    """A pointer to something the callee may fill (not const, not char: ltrace's `+` params)."""
    s = t.strip()
    if not isinstance(s, Pointer) or s.ref or s.target is None:
        return False
    t = s.target
    for _ in range(8):                       # typedefs over qualifiers: any const makes it input
        if isinstance(t, Qual) and t.name == "const":
            return False
        if not hasattr(t, "target") or isinstance(t, Pointer):
            break
        t = t.target
    tgt = s.target.strip()
    if isinstance(tgt, Int) and tgt.char:
        return False
    return isinstance(tgt, (Int, Enum, Float, Struct)) and not isinstance(tgt, Unknown) and bool(tgt.size) \
        and not (isinstance(tgt, Struct) and tgt.declaration)


class CallValues:
    """A call's decoded arguments: text (uftrace's notation), typed (name, type, value, text;
    NO_TYPED when no output asked) and the output parameters to show again at the return."""
    __slots__ = ("sig", "texts", "typed", "outs", "spec", "plan")

    def __init__(self, sig, texts, typed_, outs, spec, plan=None):
        self.sig, self.texts, self.typed, self.outs, self.spec, self.plan = sig, texts, typed_, outs, spec, plan

    def by_name(self):
        return {t["name"]: t["value"] for t in self.typed}


class Plan:
    """How one function's shown arguments and return value are fetched and rendered."""
    __slots__ = ("sig", "spec", "steps", "abi_steps", "params", "outs", "ret", "lying", "limit", "symbolize")

    def __init__(self, sig: Signature, spec, limit: int, symbolize, lying: Callable):
        self.sig, self.spec, self.limit, self.symbolize, self.lying = sig, spec, limit, symbolize, lying
        self.abi_steps = abi.plan(sig)
        # (kind, word, a, b, j): W_INT (mask, sign), W_FMT (formatter), W_MEM (size), j the
        # index in params; BYTES (None, None, i, j), i the parameter's index in abi_steps
        self.steps: List[tuple] = []
        self.params: List[tuple] = []         # per step: (param, type name, fast-int signedness, size)
        self.outs: List[int] = []             # steps whose pointer the callee may fill
        for i, (p, st) in enumerate(zip(sig.params, self.abi_steps)):
            if spec is not None and not spec.shows(i, p.name):
                continue
            fast = fast_int(p.type)
            size = p.type.strip().size or 8
            j = len(self.params)
            step = (BYTES, None, None, i, j)
            if st[0] == "gp" and st[1] in WORD and size == st[2]:
                w = WORD[st[1]]
                if fast is not None:
                    mask, sign = _masks(size, fast)
                    step = (W_INT, w, mask, sign, j)
                elif p.artificial and p.name == "this":
                    step = (W_FMT, w, ("(%s *)" % (sig.klass or "?") + "0x%x").__mod__, None, j)
                else:
                    fmt = word_formatter(p.type, symbolize)
                    step = (W_FMT, w, fmt, None, j) if fmt is not None else (W_MEM, w, size, None, j)
            if not p.artificial and is_output(p.type):
                self.outs.append(j)
            self.steps.append(step)
            self.params.append((p, type_name(p.type), fast, size))
        r = sig.ret.strip()
        self.ret = None                       # (kind, a, b) for the return value, or None
        if (spec is None or spec.ret) and r.size:
            rfast = fast_int(sig.ret)
            if rfast is not None:
                self.ret = (W_INT,) + _masks(r.size, rfast)
            elif abi._classes(sig.ret) == ["I"] and r.size <= 8 and not abi.ret_in_memory(sig.ret):
                fmt = word_formatter(sig.ret, symbolize)
                self.ret = (W_FMT, fmt, None) if fmt is not None else (BYTES, None, None)
            else:
                self.ret = (BYTES, None, None)

    # -- at the entry ------------------------------------------------------------------
    def enter(self, words, machine, mem, typed: bool = False) -> Optional[CallValues]:
        """The call's arguments from `words` (Machine.call_words at the entry); None (shown
        without them) when the types lie beyond rendering. `mem()` gives the memory view.
        (One frame per call: the hot path. The try costs nothing until something raises.)"""
        try:
            texts: List[str] = []
            raws: list = []
            r = generic = None
            for kind, where, a, b, j in self.steps:
                if kind == W_INT:
                    w = words[where]
                    texts.append(str(((w & a) ^ b) - b))
                    raws.append(w)
                elif kind == W_FMT:
                    w = words[where]
                    texts.append(a(w))
                    raws.append(w)
                else:
                    if kind == W_MEM:
                        data = (words[where] & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")[:a]
                    else:
                        if generic is None:
                            generic = self._read(words, machine, mem)
                        data = generic[b]
                    p, _, fast, _ = self.params[j]
                    if fast is not None and data is not None:
                        text = str(int.from_bytes(data, "little", signed=fast))
                    elif p.artificial and p.name == "this" and data is not None:
                        text = "(%s *)0x%x" % (self.sig.klass or "?", int.from_bytes(data[:8], "little"))
                    else:
                        if r is None:
                            r = Renderer(mem(), self.limit, self.symbolize)
                        text = r.render(p.type, data)
                    texts.append(text)
                    raws.append(data)
            outs = []
            for k in self.outs:
                raw = raws[k]
                if raw is not None:
                    p = self.params[k][0]
                    outs.append((p.name, p.type.strip().target,
                                 raw if raw.__class__ is int else int.from_bytes(raw[:8], "little")))
            return CallValues(self.sig, texts, self._typed(texts, raws, mem) if typed else NO_TYPED, outs,
                              self.spec, self)
        except LYING as e:
            self.lying(self.sig, e)
            return None

    def _read(self, words, machine, mem) -> list:
        """The bytes of every parameter by abi's plan (the general reader where it needs one)."""
        e = abi.Entry(machine, mem(), words[RSP])
        return abi.read_planned(self.sig, self.abi_steps, e)

    def _typed(self, texts: List[str], raws: list, mem) -> list:
        r = Renderer(mem(), self.limit, self.symbolize)
        out = []
        for (p, tname, fast, size), text, raw in zip(self.params, texts, raws):
            data = (raw & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")[:size] if raw.__class__ is int else raw
            if fast is not None and data is not None:
                value = int.from_bytes(data, "little", signed=fast)
            elif p.artificial and p.name == "this" and data is not None:
                value = text
            else:
                value = r.value(p.type, data)
            out.append({"name": p.name, "type": tname, "value": value, "text": text})
        return out

    # -- at the return -------------------------------------------------------------------
    def leave(self, cv: CallValues, rax: int, machine, mem, typed: bool = False):
        """(return text or "", typed return or None, [(name, text)] of output parameters), with
        `rax` as the function returned it."""
        try:
            ret_text, ret_typed, value = "", None, None
            ret = self.ret
            if ret is not None:
                kind, a, b = ret
                if kind == W_INT:
                    value = ((rax & a) ^ b) - b
                    ret_text = str(value)
                elif kind == W_FMT:
                    ret_text = a(rax)
                if kind != W_INT and (kind == BYTES or typed):
                    t = self.sig.ret
                    r = Renderer(mem(), self.limit, self.symbolize)
                    data = abi.read_return(t, machine, mem()) if kind == BYTES else \
                        (rax & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")[:t.strip().size]
                    if kind == BYTES:
                        ret_text = r.render(t, data)
                    value = r.value(t, data) if typed else None
                if typed:
                    ret_typed = {"name": "return", "type": type_name(self.sig.ret), "value": value, "text": ret_text}
            if not cv.outs:
                return ret_text, ret_typed, []
            r = Renderer(mem(), self.limit, self.symbolize)
            outs = []
            for name, t, addr in cv.outs:
                size = t.strip().size
                data = r.mem.read(addr, size) if 0 < size <= abi.MAX_VALUE else None
                if data is not None:
                    outs.append((name, "&" + r.render(t, data, 1)))
            return ret_text, ret_typed, outs
        except LYING as e:
            self.lying(self.sig, e)
            return "", None, []
