"""The handler map, made from the table's rows: each row names its handler's module and function
(table.py), so a system call's name is spelled once, in its row.

Most modules are imported here; those of calls most programs never make (sockets, epoll, SysV
and POSIX IPC, inotify, ...: LAZY_MODULES) at the guest's first call of one of theirs: importing
them took ~3.5 ms of every start-up. Until one is imported, each of its calls maps to a stand-in
that imports it (its rows' handlers then replace the stand-ins in HANDLERS), points the calling
kernel's routes at the real handlers and runs the call; the guest sees the same call either way.
LAZY (module -> its calls) is derived from the rows; tests/test_lazy_handlers.py checks that
nothing imports a deferred module early.

The handlers import dispatch; dispatch never imports them. The Kernel takes its handler map
from here.
"""
from __future__ import annotations

import importlib
from typing import Callable, Dict, List, Tuple

from emutrace.kernel.dispatch import HANDLERS
from emutrace.kernel.table import ROWS, Syscall

# the modules imported at a guest's first call of theirs, not at start-up
LAZY_MODULES = frozenset({"epoll", "eventfd", "inotify", "mqueue", "net", "pkeys", "residency", "signalfd",
                          "splice", "sysvipc", "timerfd"})

# handler module -> its rows (one pass over the table)
BY_MODULE: Dict[str, List[Syscall]] = {}
for _row in ROWS:
    if _row.handler:
        BY_MODULE.setdefault(_row.handler_module, []).append(_row)

# module -> the calls it handles, for the deferred modules (derived from the rows)
LAZY: Dict[str, Tuple[str, ...]] = {m: tuple(sorted(r.name for r in BY_MODULE[m])) for m in sorted(LAZY_MODULES)}


def _module(name: str):
    return importlib.import_module(f"{__package__}.{name}")


def _bind(module: str) -> None:
    """Put a module's handlers in HANDLERS, one per row that names it."""
    mod = _module(module)
    for row in BY_MODULE[module]:
        HANDLERS[row.name] = getattr(mod, row.handler_function)


def _stand_in(module: str, name: str) -> Callable:
    """HANDLERS[name] until `module` is imported."""
    def handler(proc, *args):
        real = HANDLERS[name]
        if real is handler:
            _load(module, proc.kernel)
            real = HANDLERS[name]
        return real(proc, *args)
    handler.lazy_module = module
    handler.__qualname__ = f"lazy {module}.{name}"
    return handler


def _load(module: str, kernel) -> None:
    """Import a LAZY module (its rows' handlers replace its stand-ins in HANDLERS) and route
    kernel's calls to it. A kernel made before then routes through the stand-ins, which call the
    real handlers."""
    _bind(module)
    mine = kernel.handlers
    if mine is not HANDLERS:                # a kernel's own copy (inotify wraps some handlers)
        for n in LAZY[module]:
            if getattr(mine.get(n), "lazy_module", None) == module:
                mine[n] = HANDLERS[n]
    kernel.handlers = mine                  # (remakes the kernel's routes by number)


for _m in sorted(set(BY_MODULE) - LAZY_MODULES):
    _bind(_m)
for _m, _names in LAZY.items():
    for _name in _names:
        HANDLERS.setdefault(_name, _stand_in(_m, _name))


def load_all() -> Dict[str, Callable]:
    """The handler map: syscall name -> handler (or its module's stand-in until it is loaded)."""
    return HANDLERS
