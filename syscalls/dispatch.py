"""The handler map, by name: emutrace.kernel.handlers fills it from the table's rows (table.py
binds each number and name to its handler's module).

A handler is `fn(proc, a0, a1, ...) -> int` receiving the raw 64-bit argument registers and
returning the raw result (negative errno on failure). It may raise VfsError (→ -errno),
GuestFault (→ -EFAULT) or OutOfMemory (→ -ENOMEM); the dispatcher translates them, so handler
code reads like the man page.
"""
from __future__ import annotations

from typing import Callable, Dict

from emutrace.machine.words import s32, s64  # noqa: F401  (the handlers take them from here)

HANDLERS: Dict[str, Callable] = {}
