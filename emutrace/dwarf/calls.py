"""Arguments and return values of traced functions from DWARF: what --ftrace -a, the library
call tracer (for functions the prototype database lacks) and the Python API ask.

One DebugTypes per session: each module's DWARF found once (its own sections, else its
separate debug file under the root), each function's signature read at its first call."""
from __future__ import annotations

import struct
from typing import Callable, Dict, List, Optional, Tuple

from emutrace.dwarf import abi
from emutrace.dwarf.index import DebugInfo, for_file
from emutrace.dwarf.render import Renderer, typed
from emutrace.dwarf.types import Enum, Float, Int, Pointer, Qual, Signature, Struct, Unknown, type_name

UNSET = object()
# what types that lie (sizes, encodings, cycles) can make rendering raise
_LYING = (ValueError, OverflowError, TypeError, IndexError, KeyError, AttributeError, RecursionError, struct.error)


class ArgSpec:
    """uftrace's -A spec after the function pattern: `arg1,arg2,name,retval`; empty: all."""
    __slots__ = ("args", "ret")

    def __init__(self, text: str = ""):
        items = [x for x in text.split(",") if x]
        self.args = [x for x in items if x not in ("retval", "ret")] or None
        self.ret = not items or any(x in ("retval", "ret") for x in items)

    def shows(self, i: int, name: str) -> bool:
        return self.args is None or name in self.args or f"arg{i + 1}" in self.args


class CallValues:
    """A call's decoded arguments: text (uftrace's notation), typed (name, type, value, text)
    and the output parameters to show again at the return."""
    __slots__ = ("sig", "texts", "typed", "outs", "spec")

    def __init__(self, sig, texts, typed_, outs, spec):
        self.sig, self.texts, self.typed, self.outs, self.spec = sig, texts, typed_, outs, spec

    def by_name(self) -> Dict[str, object]:
        return {t["name"]: t["value"] for t in self.typed}


class DebugTypes:
    def __init__(self, root: str, warn: Callable[[str], None], string_limit: int = 32,
                 symbolize: Callable[[int], Optional[str]] = lambda a: None):
        self.root = root
        self.warn = warn
        self.limit = string_limit
        self.symbolize = symbolize
        self._files: Dict[str, Optional[DebugInfo]] = {}
        self._sigs: Dict[Tuple[str, int], Optional[Signature]] = {}
        self._plans: Dict[int, tuple] = {}     # id(signature) → (it, abi.plan, per-parameter facts)

    def signature(self, module, addr: int, symbol: str = "") -> Optional[Signature]:
        """The signature of the function at absolute addr in module, or None. A symbol with a
        suffix (foo.constprop.0, foo.isra.0, foo.part.1) is a specialised clone."""
        key = (module.path, addr - module.base)
        sig = self._sigs.get(key, UNSET)
        if sig is UNSET:
            di = self._files.get(module.path, UNSET)
            if di is UNSET:
                di = self._files[module.path] = for_file(self.root, module.path, module.elf.data, self.warn) \
                    if module.elf.data else None
            sig = self._sigs[key] = di.signature(key[1]) if di is not None else None
            if sig is not None and "." in symbol:
                sig.clone = True
        return sig

    def enter(self, sig: Signature, machine, mem, spec: Optional[ArgSpec] = None) -> Optional[CallValues]:
        """The call's arguments; None (shown without them) when the types lie beyond rendering."""
        try:
            return self._enter(sig, machine, mem, spec)
        except _LYING as e:
            self._lying(sig, e)
            return None

    def leave(self, cv: CallValues, machine, mem):
        """(return text or "", typed return or None, [(name, text)] of output parameters)."""
        try:
            return self._leave(cv, machine, mem)
        except _LYING as e:
            self._lying(cv.sig, e)
            return "", None, []

    def _lying(self, sig: Signature, e: Exception) -> None:
        if not getattr(self, "_said_lying", False):
            self._said_lying = True
            self.warn(f"debug information of {sig.name} cannot be rendered ({type(e).__name__}: {e}); "
                      "shown without arguments")

    def _enter(self, sig: Signature, machine, mem, spec: Optional[ArgSpec] = None) -> CallValues:
        r = _LazyRenderer(mem, self.limit, self.symbolize)
        pl = self._plans.get(id(sig))
        if pl is None or pl[0] is not sig:
            pl = self._plans[id(sig)] = (sig, abi.plan(sig), [
                (p, type_name(p.type), _fast_int(p.type), not p.artificial and _is_output(p.type))
                for p in sig.params], (type_name(sig.ret), _fast_int(sig.ret), sig.ret.strip().size))
        raw = abi.read_planned(sig, pl[1], abi.Entry(machine, mem))
        texts: List[str] = []
        typed_: List[dict] = []
        outs = []
        for i, ((p, tname, fast, is_out), data) in enumerate(zip(pl[2], raw)):
            if spec is not None and not spec.shows(i, p.name):
                continue
            if fast is not None and data is not None:
                value = int.from_bytes(data, "little", signed=fast)
                text = str(value)
            elif p.artificial and p.name == "this" and data is not None:
                text = "(%s *)0x%x" % (sig.klass or "?", int.from_bytes(data[:8], "little"))
                value = text
            else:
                text = r.render(p.type, data)
                value = r.value(p.type, data)
            texts.append(text)
            typed_.append({"name": p.name, "type": tname, "value": value, "text": text})
            if data is not None and is_out:
                outs.append((p.name, p.type.strip().target, int.from_bytes(data[:8], "little")))
        return CallValues(sig, texts, typed_, outs, spec)

    def _leave(self, cv: CallValues, machine, mem):
        ret_t = cv.sig.ret
        tname, fast, size = self._plans[id(cv.sig)][3]
        ret_text, ret_typed = "", None
        if (cv.spec is None or cv.spec.ret) and size:
            if fast is not None:                       # a plain integer in rax
                value = int.from_bytes((machine.reg("rax") & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")[:size],
                                       "little", signed=fast)
                ret_text = str(value)
            else:
                r = Renderer(mem, self.limit, self.symbolize)
                data = abi.read_return(ret_t, machine, mem)
                ret_text = r.render(ret_t, data)
                value = r.value(ret_t, data)
            ret_typed = {"name": "return", "type": tname, "value": value, "text": ret_text}
        if not cv.outs:
            return ret_text, ret_typed, []
        r = Renderer(mem, self.limit, self.symbolize)
        outs = []
        for name, t, addr in cv.outs:
            size = t.strip().size
            data = mem.read(addr, size) if 0 < size <= abi.MAX_VALUE else None
            if data is not None:
                outs.append((name, "&" + r.render(t, data, 1)))
        return ret_text, ret_typed, outs


class _LazyRenderer:
    """A Renderer made when a value needs one (plain integers do not)."""
    __slots__ = ("args", "r")

    def __init__(self, *args):
        self.args, self.r = args, None

    def render(self, t, data, depth=0):
        if self.r is None:
            self.r = Renderer(*self.args)
        return self.r.render(t, data, depth)

    def value(self, t, data):
        if self.r is None:
            self.r = Renderer(*self.args)
        return self.r.value(t, data)


def _fast_int(t) -> Optional[bool]:
    """Signedness of a plain integer (its text is its number), or None."""
    s = t.strip()
    if isinstance(s, Int) and not s.boolean and not (s.char and s.name == "char") and s.size in (1, 2, 4, 8):
        return s.signed
    return None


def definition(modules, name: str):
    """(module, absolute address) where the dynamic linker binds `name`, or None."""
    from emutrace.loader.resolve import GotResolver     # deferred: only the API asks by name
    dm, sym = GotResolver(modules).lookup(name, None, for_plt=True)
    if dm is None or sym is None or not getattr(sym, "value", 0):
        return None
    return dm, sym.value + dm.base


def _is_output(t) -> bool:
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
