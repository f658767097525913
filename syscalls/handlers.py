"""Every handler module, each registering its rows with dispatch.syscall: most imported here, the
others (LAZY) at the guest's first call of one of theirs.

The handlers import dispatch; dispatch never imports them. The Kernel takes its handler map
from here.

LAZY holds the modules of calls most programs never make (sockets, epoll, SysV and POSIX IPC,
inotify, ...): importing them took ~3.5 ms of every start-up. Until one is imported, each of its
names maps to a stand-in that imports it (its rows then replace the stand-ins in HANDLERS),
points the calling kernel's routes at the real handlers and runs the call; the guest sees the
same call either way. tests/test_lazy_handlers.py checks that LAZY names exactly the rows each
module registers.
"""
from __future__ import annotations

import importlib
from typing import Callable, Dict, Tuple

from . import (clone, dirs, fs, fsstat, futex, ioctl, misc, mm, poll, process, rw, signals, time,  # noqa: F401
               xattr)                                                          # (they register)
from .dispatch import HANDLERS

LAZY: Dict[str, Tuple[str, ...]] = {
    "epoll": ("epoll_create", "epoll_create1", "epoll_ctl", "epoll_pwait", "epoll_pwait2", "epoll_wait"),
    "eventfd": ("eventfd", "eventfd2"),
    "inotify": ("inotify_add_watch", "inotify_init", "inotify_init1", "inotify_rm_watch"),
    "mqueue": ("mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedsend", "mq_unlink"),
    "net": ("accept", "accept4", "bind", "connect", "getpeername", "getsockname", "getsockopt", "listen",
            "recvfrom", "recvmmsg", "recvmsg", "sendmmsg", "sendmsg", "sendto", "setsockopt", "shutdown",
            "socket", "socketpair"),
    "pkeys": ("pkey_alloc", "pkey_free"),
    "residency": ("mincore",),
    "signalfd": ("signalfd", "signalfd4"),
    "splice": ("splice", "tee", "vmsplice"),
    "sysvipc": ("msgctl", "msgget", "msgrcv", "msgsnd", "semctl", "semget", "semop", "semtimedop",
                "shmat", "shmctl", "shmdt", "shmget"),
    "timerfd": ("timerfd_create", "timerfd_gettime", "timerfd_settime"),
}


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
    """Import a LAZY module (its rows replace its stand-ins in HANDLERS) and route kernel's calls
    to it. A kernel made before then routes through the stand-ins, which call the real handlers."""
    importlib.import_module(f"{__package__}.{module}")
    mine = kernel.handlers
    if mine is not HANDLERS:                # a kernel's own copy (inotify wraps some handlers)
        for n in LAZY[module]:
            if getattr(mine.get(n), "lazy_module", None) == module:
                mine[n] = HANDLERS[n]
    kernel.handlers = mine                  # (remakes the kernel's routes by number)


for _module, _names in LAZY.items():
    for _name in _names:
        HANDLERS.setdefault(_name, _stand_in(_module, _name))


def load_all() -> Dict[str, Callable]:
    """The handler map: syscall name -> handler (or its module's stand-in until it is loaded)."""
    return HANDLERS
