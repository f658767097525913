"""Library calls as the API's hooks see them (LibraryCall), and the library-call tracer's
intercept that finds and runs the hooks of each call site (_CallHooks, _CallFilter).
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple
from emutrace.filters import compile_pattern, FilterError
from emutrace.machine.cpu import REG
from emutrace.api.errors import ApiError
from emutrace.api.memory import GuestMemory, Value, _signed, _to_u64

if TYPE_CHECKING:
    from emutrace.api import Session


class LibraryCall:
    """One library call, as a hook sees it.

    At entry (on_call): `name`, `library` (the module that defines the function, e.g.
    'libc.so.6'), `caller` (the calling module), `return_address`, `args` (the arguments as the
    trace decodes them, e.g. ['"HOME"']), `arg(i)` / `float_arg(i)` / `string_arg(i)` (raw
    values by the SysV ABI), `reg(name)` / `set_reg(name, v)`, `set_arg(i, v)`, `memory`.
    `returns(v)` makes the function return v without running (or: return v from the hook).
    At return (on_return): `return_value` (rax, unsigned), `signed_return`, `float_return`,
    `string_return`; `set_return(v)` (or returning v from the hook) changes what the caller gets.
    """

    def __init__(self, proc, frame, regs, library: str):
        self._proc = proc
        self._frame = frame
        self._regs = regs
        self.name: str = frame.site.name
        self.library: str = library
        self.caller: str = frame.site.caller.name
        self.return_address: int = frame.ret_addr
        self.id: int = frame.id
        self.pid: int = proc.pid
        self.tid: int = proc.thread.tid
        self.depth: int = frame.depth
        self.args: List[str] = list(getattr(frame.state, "left_args", None) or [])
        self.memory = GuestMemory(proc)
        self.skipped = False              # True once the call was replaced by returns()
        self.returned = False             # True in on_return hooks
        self._ret: Value = None
        self._ret_set = False
        self._types = None                # the session's dwarf.calls.DebugTypes (named_args)
        self._named = None

    def __repr__(self) -> str:
        return f"<LibraryCall {self.name}({', '.join(self.args)}) from {self.caller} in {self.library or '?'}>"

    # -- arguments -------------------------------------------------------------
    def arg(self, i: int) -> int:
        """Integer/pointer argument i (0-based; 6 and up from the stack), unsigned 64-bit."""
        return self._regs.int_arg(i)

    def signed_arg(self, i: int) -> int:
        return _signed(self.arg(i))

    def float_arg(self, i: int) -> float:
        """Floating-point argument i (xmm0..xmm7), counted among floating-point arguments only."""
        return self._regs.float_arg(i)

    def string_arg(self, i: int, limit: int = 1 << 20) -> Optional[str]:
        """Argument i read as a C string (None for NULL)."""
        return self.memory.read_string(self.arg(i), limit)

    @property
    def named_args(self) -> Dict[str, object]:
        """The arguments by name, with the types of the defining module's debug information
        (DWARF in the file, or its debug file under the root by build-id or .gnu_debuglink:
        Debian's libc6-dbg): int, float and bool values as Python numbers, everything else
        (strings, enum names, structures `{x=1, y=2}`) as the trace's text; None for an argument
        the compiler optimized out. {} when the function has no debug information. Read at the
        call's entry (in on_call hooks)."""
        if self._named is None:
            self._named = {}
            types = self._types
            if types is not None:
                from emutrace.dwarf.calls import definition     # deferred: only named_args reads DWARF
                from emutrace.traceview import mem_view
                found = definition(self._proc.modules, self.name)
                sig = types.signature(found[0], found[1], self.name) if found else None
                if sig is not None:
                    cv = types.enter(sig, self._proc.machine, mem_view(self._proc), None)
                    if cv is not None:
                        self._named = cv.by_name()
        return self._named

    def set_arg(self, i: int, value: Value) -> None:
        """Change integer/pointer argument i (0..5) before the function runs."""
        if not 0 <= i < 6:
            raise ApiError("set_arg: only the six register arguments (0..5) can be changed")
        self._check_entry("set_arg")
        self.set_reg(("rdi", "rsi", "rdx", "rcx", "r8", "r9")[i], _to_u64(value, self.memory))

    def reg(self, name: str) -> int:
        if name not in REG:
            raise ApiError(f"unknown register {name!r}")
        return self._proc.machine.reg(name)

    def set_reg(self, name: str, value: int) -> None:
        if name not in REG or name == "rip":
            raise ApiError(f"cannot set register {name!r}")
        self._proc.machine.set_reg(name, value)

    # -- replacing the call --------------------------------------------------------
    def returns(self, value: Value = 0) -> None:
        """Skip the function: the caller gets `value` (int, bool, None → NULL, str/bytes → a new
        guest string, float → xmm0)."""
        self._check_entry("returns")
        self._ret, self._ret_set = value, True

    def _check_entry(self, what: str) -> None:
        if self.returned:
            raise ApiError(f"{what}() is only possible at the call's entry (use set_return in on_return)")

    def _apply(self) -> None:
        v = self._ret
        if isinstance(v, float):
            self._proc.machine.set_xmm(0, struct.pack("<d", v) + b"\0" * 8)
        else:
            self._proc.machine.set_reg("rax", _to_u64(v, self.memory))
        self.skipped = True

    # -- the return ------------------------------------------------------------
    @property
    def return_value(self) -> int:
        return self._proc.machine.reg("rax")

    @property
    def signed_return(self) -> int:
        return _signed(self.return_value)

    @property
    def float_return(self) -> float:
        return struct.unpack("<d", self._proc.machine.xmm(0)[:8])[0]

    @property
    def string_return(self) -> Optional[str]:
        return self.memory.read_string(self.return_value)

    def set_return(self, value: Value) -> None:
        """Change the value the caller receives (at return)."""
        if isinstance(value, float):
            self._proc.machine.set_xmm(0, struct.pack("<d", value) + b"\0" * 8)
        else:
            self._proc.machine.set_reg("rax", _to_u64(value, self.memory))


def _pattern(text: str):
    try:
        return compile_pattern(text)
    except FilterError as e:
        raise ApiError(str(e)) from None


def _split_pattern(pattern: str, library: Optional[str]):
    if not isinstance(pattern, str) or not pattern:
        raise ApiError("a hook needs a function name or pattern")
    sym, at, lib = pattern, "", ""
    if not (pattern.startswith("/") and pattern.endswith("/")):
        sym, at, lib = pattern.partition("@")
    if at and library is not None:
        raise ApiError("give the library either in the pattern (name@lib) or as library=, not both")
    lib = library if library is not None else (lib if at else None)
    return _pattern(sym or "*"), (_pattern(lib) if lib else None)


class _CallHooks:
    """The LibcallTracer's intercept: finds the hooks of each call site once, runs them."""

    def __init__(self, api: "Session"):
        self.api = api
        self.entry: List[Tuple[object, object, Callable]] = []
        self.ret: List[Tuple[object, object, Callable]] = []
        self._by_site: Dict[int, tuple] = {}
        self.tracer = None

    def names(self, symbol: str) -> bool:
        return any(sym(symbol) for sym, _, _ in self.entry + self.ret)

    def __bool__(self) -> bool:
        return bool(self.entry or self.ret)

    def _for(self, proc, site):
        got = self._by_site.get(id(site))
        if got is None:
            library = site.definer or (self.tracer._definer(proc, site.name) if self.tracer else "")
            pick = lambda hooks: [fn for sym, lib, fn in hooks
                                  if sym(site.name) and (lib is None or lib(library))]
            got = self._by_site[id(site)] = (site, pick(self.entry), pick(self.ret), library)
        return got

    def wants(self, proc, site) -> bool:
        """Does a hook name this site? (Those stay on the hooked path.)"""
        _, on_entry, on_return, _ = self._for(proc, site)
        return bool(on_entry or on_return)

    def enter(self, proc, frame, regs) -> bool:
        _, on_entry, on_return, library = self._for(proc, frame.site)
        if not on_entry and not on_return:
            return False
        call = LibraryCall(proc, frame, regs, library)
        call._types = self.api._debug_types()
        for fn in on_entry:
            r = fn(call)
            if r is not None and not call._ret_set:
                call.returns(r)
            if call._ret_set:
                break
        if call._ret_set:
            call._apply()
            self._run_return_hooks(call, on_return)
            return True
        if on_return:
            frame.api_call = call
        return False

    def leave(self, proc, frame, regs) -> None:
        call = frame.api_call
        if call is not None:
            self._run_return_hooks(call, self._for(proc, frame.site)[2])

    @staticmethod
    def _run_return_hooks(call: LibraryCall, hooks) -> None:
        call.returned = True
        for fn in hooks:
            r = fn(call)
            if r is not None:
                call.set_return(r)


class _CallFilter:
    """The user's ltrace-style filter, plus every function a hook names (in the program)."""

    def __init__(self, base, hooks: _CallHooks):
        self.base, self.hooks = base, hooks

    def traces_module(self, name: str, is_main: bool) -> bool:
        return bool(self.base and self.base.traces_module(name, is_main)) or (is_main and bool(self.hooks))

    def matches(self, symbol: str, caller: str, is_main: bool, definer: str) -> bool:
        if self.base is not None and self.base.matches(symbol, caller, is_main, definer):
            return True
        return is_main and self.hooks.names(symbol)
