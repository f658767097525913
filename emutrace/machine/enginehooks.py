"""One owner of every hook on one Unicorn engine, by handle, whoever added it.

Hooks reach an engine three ways: Python callbacks through the binding (`uc.hook_add`: the CPUID
answer, library-call entries, ftrace, the debugger's watchpoints, the interrupt hook), ctypes
callbacks straight from Unicorn's C code (`Machine.hook_code` and friends), and compiled objects
that call uc_hook_add themselves (InsnCounter, SyscallHook, TlbFill, BlockCounter, PrintfHooks, the
positions' watch, the RDTSC answers). The first two are added here; the compiled ones are given
`hook_add_address`, a uc_hook_add that files each new handle under its engine (_hookreg.c), and are
`attach`ed here, which keeps them alive as long as the engine may call them.

So `reset()` can give an engine back in its just-made state: every hook deleted, every callback and
compiled object let go. A process that leaves its engine must leave nothing on it that could run a
system call twice or report an event of a dead process in the next one (docs/processes.md).

Note (Unicorn 2.1, uc.c): deleting a code or block hook invalidates every translation block
translated while it existed (the hook's `hooked_regions`), so a reset engine keeps no translation.
"""
from __future__ import annotations

import ctypes
import weakref
from typing import Dict, List

from unicorn import UcError
from unicorn import unicorn_const as UCC
from unicorn.unicorn_py3.unicorn import uclib

from emutrace.machine.native import native

_RAW = ctypes.PyDLL(uclib._name, handle=uclib._handle)
_HOOK_DEL = _RAW.uc_hook_del
_HOOK_DEL.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_HOOK_DEL.restype = ctypes.c_int

# uc_hook_add is variadic: unicorn.h declares 7 fixed parameters (engine, handle, type, callback,
# user data, begin, end), then the hook type's extras (the instruction of UC_HOOK_INSN). ctypes
# passes arguments past `argtypes` the variadic way (ffi_prep_cif_var), which Apple's arm64 ABI
# needs (variadic arguments go on the stack there, not in registers), but only when argtypes names
# exactly the fixed parameters. So emutrace calls it through its own prototype, not the binding's.
HOOK_ADD = _RAW.uc_hook_add
HOOK_ADD.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_int, ctypes.c_void_p,
                     ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)
HOOK_ADD.restype = ctypes.c_int


def _address(fn) -> int:
    return ctypes.cast(fn, ctypes.c_void_p).value


def _recording_hook_add() -> int:
    """The uc_hook_add compiled objects are given: the recording one where the compiled module has
    it (_hookreg.c), else Unicorn's own (the pure path makes no compiled objects)."""
    registry = getattr(native, "hook_registry", None)
    if registry is None:
        return _address(uclib.uc_hook_add)
    return registry(_address(uclib.uc_hook_add), UCC.UC_HOOK_INSN, UCC.UC_HOOK_TCG_OPCODE)


HOOK_ADD_ADDRESS = _recording_hook_add()


def _recording_hook_del() -> int:
    """The uc_hook_del compiled objects are given when they delete hooks they added themselves
    (the debugger's fine mode): it unfiles the handle, as `delete` does for Python's."""
    deleter = getattr(native, "hook_deleter", None)
    if deleter is None:
        return _address(uclib.uc_hook_del)
    return deleter(_address(uclib.uc_hook_del))


HOOK_DEL_ADDRESS = _recording_hook_del()
_RECORDED = getattr(native, "engine_hooks", None) is not None
_RANGES = getattr(native, "hook_ranges", None) is not None
# the hook types Unicorn compiles into translations (translator.c: a translated block calls the
# code and block hooks that covered it when it was made; deleting one drops those blocks)
_TRANSLATED = UCC.UC_HOOK_CODE | UCC.UC_HOOK_BLOCK

# the registry of each engine by its handle, for the code that has only the binding's Uc (the
# TLB fill, an AddressSpace's alias hooks). Weak values: the Machine holds its registry (a table
# holding it would keep every engine whose hooks refer back to their Machine alive for good);
# an AddressSpace made on a bare Uc, as tests do, gets one that lives as long as what it attached.
_BY_ENGINE: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def _engine_of(uc) -> int:
    return uc._uch.value if isinstance(uc._uch, ctypes.c_void_p) else uc._uch


def of(uc) -> "EngineHooks":
    """The registry of engine uc (made on first use)."""
    hooks = _BY_ENGINE.get(_engine_of(uc))
    if hooks is None:
        hooks = EngineHooks(uc)
        _BY_ENGINE[hooks._engine] = hooks
    return hooks


class EngineHooks:
    """Every hook of one engine: `add` (ctypes callbacks), `add_binding` (the binding's Python
    callbacks), `attach` (compiled objects, which add through `hook_add_address`), `delete`,
    `handles`, and `reset`, which deletes them all."""

    hook_add_address = HOOK_ADD_ADDRESS
    hook_del_address = HOOK_DEL_ADDRESS

    def __init__(self, uc):
        self._uc = weakref.ref(uc)
        self._engine = _engine_of(uc)
        self._keep: Dict[int, object] = {}      # handle -> what keeps its callback alive (Python-added)
        self._binding: set = set()              # handles added through the binding (uc._callbacks)
        self._attached: List[object] = []       # compiled objects holding hooks of this engine
        self._ranges: Dict[int, tuple] = {}     # handle -> (begin, end) of Python-added code/block hooks

    # -- adding --------------------------------------------------------------
    def add(self, cb, htype: int, begin: int, end: int, *extra) -> int:
        """A ctypes callback `cb` (Unicorn's C code calls it directly) as a hook: its handle."""
        handle = ctypes.c_size_t()
        err = HOOK_ADD(self._engine, ctypes.byref(handle), htype, ctypes.cast(cb, ctypes.c_void_p), None,
                        begin, end, *extra)
        if err != UCC.UC_ERR_OK:
            raise UcError(err)
        self._keep[handle.value] = cb       # the C side keeps only a pointer
        if htype & _TRANSLATED:
            self._ranges[handle.value] = (begin, end)
        return handle.value

    def add_binding(self, htype: int, fn, user_data=None, begin: int = 1, end: int = 0, aux1: int = 0) -> int:
        """fn through the binding's hook_add (its argument conversions): its handle."""
        handle = self._uc().hook_add(htype, fn, user_data, begin, end, aux1)
        self._keep[handle] = None           # (the binding keeps the callback in uc._callbacks)
        self._binding.add(handle)
        if htype & _TRANSLATED:
            self._ranges[handle] = (begin, end)
        return handle

    def attach(self, obj):
        """A compiled object that added hooks to this engine through hook_add_address (now or
        later): kept alive until reset, since the engine holds only pointers into it."""
        self._attached.append(obj)
        return obj

    # -- knowing and deleting --------------------------------------------------
    def handles(self) -> List[int]:
        """Every hook of the engine now: Python's and the compiled objects'."""
        compiled = native.engine_hooks(self._engine) if _RECORDED else []
        return list(self._keep) + list(compiled)

    def code_ranges(self, but=()) -> List[tuple]:
        """(begin, end) of every code and block hook of the engine but the handles `but`: the
        hooks Unicorn compiles into the translations it makes while they exist (begin > end:
        every address)."""
        ranges = [r for h, r in self._ranges.items() if h not in but]
        if _RANGES:
            ranges += [(b, e) for h, b, e in native.hook_ranges(self._engine, _TRANSLATED) if h not in but]
        return ranges

    def code_handles(self, but=()) -> List[int]:
        """The handles of the code and block hooks (code_ranges), but the handles `but`."""
        handles = [h for h in self._ranges if h not in but]
        if _RANGES:
            handles += [h for h, _b, _e in native.hook_ranges(self._engine, _TRANSLATED) if h not in but]
        return handles

    def attached(self) -> List[object]:
        return list(self._attached)

    def delete(self, handle: int) -> None:
        """Remove one hook (whoever added it)."""
        err = _HOOK_DEL(self._engine, handle)
        if err != UCC.UC_ERR_OK:
            raise UcError(err)
        self._forget(handle)

    def _forget(self, handle: int) -> None:
        self._keep.pop(handle, None)
        self._ranges.pop(handle, None)
        if handle in self._binding:
            self._binding.discard(handle)
            uc = self._uc()
            if uc is not None:
                uc._callbacks.pop(handle, None)
        elif _RECORDED:
            native.forget_hook(self._engine, handle)

    def reset(self) -> None:
        """Delete every hook of the engine and let go of every callback and compiled object: the
        engine calls nothing of any process any more. (Unicorn unlinks deleted hooks at the end
        of the engine's next emu_start and never calls them meanwhile.)"""
        for handle in self.handles():
            self.delete(handle)
        self._keep.clear()
        self._binding.clear()
        self._attached.clear()
        self._ranges.clear()
        self._ranges.clear()

    def reset_but(self, keep_handles, keep_object) -> None:
        """reset(), but the hooks `keep_handles` (of the compiled `keep_object`, still attached)
        stay: a reused engine keeps its instruction counter's block hook, whose deletion would drop
        every translation (emutrace/machine/reuse.py)."""
        for handle in self.handles():
            if handle not in keep_handles:
                self.delete(handle)
        self._keep = {h: cb for h, cb in self._keep.items() if h in keep_handles}
        self._ranges = {h: r for h, r in self._ranges.items() if h in keep_handles}
        self._binding &= set(keep_handles)
        self._attached = [keep_object] if keep_object is not None else []

    def __del__(self):
        # (a registry dropped without forget(), with its engine: a later engine at the same host
        # address must not inherit these records, whose handles may then name its own hooks)
        if _RECORDED and native is not None and self._keep is not None:
            native.forget_engine(self._engine)

    def forget(self) -> None:
        """The engine is being closed (uc_close frees its hooks): drop every record of them, so
        that a later engine at the same host address inherits none."""
        if _RECORDED:
            native.forget_engine(self._engine)
        if _BY_ENGINE.get(self._engine) is self:
            del _BY_ENGINE[self._engine]
        self._keep.clear()
        self._binding.clear()
        self._attached.clear()
        self._ranges.clear()
