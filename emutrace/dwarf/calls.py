"""Arguments and return values of traced functions from DWARF: what --ftrace -a, the library
call tracer (for functions the prototype database lacks) and the Python API ask.

One DebugTypes per session: each module's DWARF found once (its own sections, else its
separate debug file under the root), each function's signature read at its first call."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, Optional, Tuple

if TYPE_CHECKING:
    from emutrace.dwarf.index import DebugInfo
    from emutrace.dwarf.plan import CallValues, Plan
    from emutrace.dwarf.types import Signature

UNSET = object()


class ArgSpec:
    """uftrace's -A spec after the function pattern: `arg1,arg2,name,retval`; empty: all."""
    __slots__ = ("args", "ret")

    def __init__(self, text: str = ""):
        items = [x for x in text.split(",") if x]
        # (no items: every argument and the return; `retval` alone: the return only)
        self.args = [x for x in items if x not in ("retval", "ret")] if items else None
        self.ret = not items or any(x in ("retval", "ret") for x in items)

    def shows(self, i: int, name: str) -> bool:
        return self.args is None or name in self.args or f"arg{i + 1}" in self.args


class DebugTypes:
    def __init__(self, root: str, warn: Callable[[str], None], string_limit: int = 32,
                 symbolize: Callable[[int], Optional[str]] = lambda a: None):
        self.root = root
        self.warn = warn
        self.limit = string_limit
        self.symbolize = symbolize
        self._files: Dict[str, Optional["DebugInfo"]] = {}
        self._has: Dict[str, bool] = {}
        self._sigs: Dict[Tuple[str, int], Optional[Signature]] = {}
        self._plans: Dict[tuple, tuple] = {}   # (id(signature), id(spec)) → (them, Plan)
        self._said_lying = False

    def has_debug(self, module) -> bool:
        """Might the module have debug information (its own .debug_info, or a separate debug
        file under the root by build-id or .gnu_debuglink)? Asked without reading any DWARF:
        a few stat calls, once per module."""
        got = self._has.get(module.path)
        if got is None:
            from emutrace.dwarf.elfsec import may_have     # deferred: a trace that asks nothing loads no reader
            got = self._has[module.path] = bool(module.elf.data) and may_have(self.root, module.path,
                                                                                module.elf.data)
        return got

    def signature(self, module, addr: int, symbol: str = "") -> Optional["Signature"]:
        """The signature of the function at absolute addr in module, or None. A symbol with a
        suffix (foo.constprop.0, foo.isra.0, foo.part.1) is a specialised clone."""
        key = (module.path, addr - module.base)
        sig = self._sigs.get(key, UNSET)
        if sig is UNSET:
            di = self._files.get(module.path, UNSET)
            if di is UNSET:
                from emutrace.dwarf.index import for_file     # deferred: a trace that asks nothing loads no reader
                di = self._files[module.path] = for_file(self.root, module.path, module.elf.data, self.warn) \
                    if module.elf.data else None
            sig = self._sigs[key] = di.signature(key[1]) if di is not None else None
            if sig is not None and "." in symbol:
                sig.clone = True
        return sig

    def plan(self, sig: "Signature", spec: Optional[ArgSpec] = None) -> "Plan":
        """The function's fetch and render plan for this selection, made once."""
        key = (id(sig), id(spec))
        got = self._plans.get(key)
        if got is None or got[0] is not sig or got[1] is not spec:
            from emutrace.dwarf.plan import Plan     # deferred: library calls typed from DWARF need no plan
            got = self._plans[key] = (sig, spec, Plan(sig, spec, self.limit, self.symbolize, self._lying))
        return got[2]

    def enter(self, sig: "Signature", machine, mem, spec: Optional[ArgSpec] = None) -> Optional["CallValues"]:
        """The call's arguments with their typed values (the API's one-off read at an entry);
        None (shown without them) when the types lie beyond rendering."""
        return self.plan(sig, spec).enter(machine.call_words(), machine, lambda: mem, typed=True)

    def _lying(self, sig: "Signature", e: Exception) -> None:
        if not self._said_lying:
            self._said_lying = True
            self.warn(f"debug information of {sig.name} cannot be rendered ({type(e).__name__}: {e}); "
                      "shown without arguments")


def definition(modules, name: str):
    """(module, absolute address) where the dynamic linker binds `name`, or None."""
    from emutrace.loader.resolve import GotResolver     # deferred: only the API asks by name
    dm, sym = GotResolver(modules).lookup(name, None, for_plt=True)
    if dm is None or sym is None or not getattr(sym, "value", 0):
        return None
    return dm, sym.value + dm.base

