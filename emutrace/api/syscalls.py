"""System calls as the API's hooks see them (SystemCall), and the kernel's intercept that runs
the hooks (_SyscallHooks, chained in the session's hooks).
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, List, Optional, Tuple, Union
from emutrace.kernel import errno as _E
from emutrace.api.errors import ApiError, GuestMemoryError
from emutrace.api.memory import GuestMemory, _signed


def _errno(value: Union[int, str]) -> int:
    if isinstance(value, str):
        by_name = {n: k for k, n in _E.NAME.items()}
        if value not in by_name:
            raise ApiError(f"unknown errno name {value!r}")
        return by_name[value]
    if isinstance(value, int) and 0 < value < 4096:
        return value
    raise ApiError(f"an errno is a positive number below 4096 or a name like 'EACCES', not {value!r}")


class SystemCall:
    """One system call, as a hook sees it.

    `name`, `nr`, `args` (six raw unsigned values), `arg(i)`, `signed_arg(i)`, `string_arg(i)`,
    `path` (the first path argument as the program gave it, or None), `pid`, `memory`.
    At entry (on_syscall): `deny(errno)` fails it (errno as a number or a name, 'EACCES'),
    `fake(v)` returns v; either way the kernel does not run it. Returning an int from the hook
    is the same as fake(). At return (on_syscall_return): `result` (negative: -errno), `errno`
    (its name or None); `fake(v)` / `deny(e)` / returning an int changes what the program gets.
    """

    def __init__(self, proc, nr: int, row, args: tuple):
        self._proc = proc
        self.nr = nr
        self.name: str = row.name if row is not None else f"syscall_{nr:#x}"
        self._kinds: Tuple[str, ...] = tuple(row.args) if row is not None else ()
        self.args: Tuple[int, ...] = tuple(args)
        self.pid: int = proc.pid
        self.tid: int = proc.thread.tid
        self.memory = GuestMemory(proc)
        self.result: Optional[int] = None
        self._set: Optional[int] = None

    def __repr__(self) -> str:
        return f"<SystemCall {self.name} args={[hex(a) for a in self.args[:len(self._kinds) or 6]]}>"

    def arg(self, i: int) -> int:
        return self.args[i]

    def signed_arg(self, i: int) -> int:
        return _signed(self.args[i])

    def string_arg(self, i: int, limit: int = 4096) -> Optional[str]:
        return self.memory.read_string(self.args[i], limit)

    @property
    def path(self) -> Optional[str]:
        for i, kind in enumerate(self._kinds):
            if kind.split(":")[0] == "path":
                try:
                    return self.string_arg(i)
                except GuestMemoryError:
                    return None
        return None

    @property
    def errno(self) -> Optional[str]:
        r = self.result
        return _E.NAME.get(-r) if r is not None and -4096 < r < 0 else None

    def deny(self, errno: Union[int, str] = "EPERM") -> None:
        self._set = -_errno(errno)

    def fake(self, value: int) -> None:
        if not isinstance(value, int):
            raise ApiError("a system call's result is an int")
        self._set = _signed(value & 0xFFFFFFFFFFFFFFFF)


class _SyscallHooks:
    """The Kernel's intercept: counts every syscall and runs the hooks registered for it."""

    def __init__(self):
        self.entry: List[Tuple[object, Callable]] = []
        self.ret: List[Tuple[object, Callable]] = []
        self.counts: Counter = Counter()
        self._by_name: Dict[str, tuple] = {}

    def _for(self, name: str):
        got = self._by_name.get(name)
        if got is None:
            got = self._by_name[name] = ([fn for p, fn in self.entry if p(name)],
                                         [fn for p, fn in self.ret if p(name)])
        return got

    @staticmethod
    def _run(sc: SystemCall, hooks) -> Optional[int]:
        for fn in hooks:
            r = fn(sc)
            if r is not None and sc._set is None:
                sc.fake(r)
            if sc._set is not None:
                return sc._set
        return None

    def enter(self, proc, nr, row, args):
        name = row.name if row is not None else f"syscall_{nr:#x}"
        self.counts[name] += 1
        on_entry, on_return = self._for(name)
        if not on_entry:
            return None
        return self._run(SystemCall(proc, nr, row, args), on_entry)

    def exit(self, proc, nr, row, args, ret):
        on_return = self._for(row.name if row is not None else f"syscall_{nr:#x}")[1]
        if not on_return or not isinstance(ret, int):
            return ret
        sc = SystemCall(proc, nr, row, args)
        sc.result = ret
        r = self._run(sc, on_return)
        return ret if r is None else r
