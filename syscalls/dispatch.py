"""Syscall handlers register here by name; the table (table.py) maps numbers to names.

A handler is `fn(proc, a0, a1, ...) -> int` receiving the raw 64-bit argument registers and
returning the raw result (negative errno on failure). It may raise VfsError (→ -errno),
GuestFault (→ -EFAULT) or OutOfMemory (→ -ENOMEM); the dispatcher translates them, so handler
code reads like the man page.
"""
from __future__ import annotations

from typing import Callable, Dict

HANDLERS: Dict[str, Callable] = {}


def syscall(*names: str):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


def s64(v: int) -> int:
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >> 63 else v


def s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def load_all() -> Dict[str, Callable]:
    """Import every handler module (each registers its rows) and return the handler map."""
    from . import fs, futex, mm, process, signals, time, net, misc, clone, epoll  # noqa: F401
    from . import eventfd, timerfd, signalfd, posix_timers, inotify, splice, pidfd, residency, pkeys  # noqa: F401
    return HANDLERS
