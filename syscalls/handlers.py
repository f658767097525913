"""Every handler module, imported so that each registers its rows with dispatch.syscall.

The handlers import dispatch; dispatch never imports them. The Kernel takes its handler map
from here.
"""
from __future__ import annotations

from typing import Callable, Dict

from . import clone, epoll, fs, futex, misc, mm, net, process, signals, time  # noqa: F401  (they register)
from . import mqueue, sysvipc  # noqa: F401
from . import eventfd, inotify, pidfd, pkeys, posix_timers, residency, signalfd, splice, timerfd  # noqa: F401
from .dispatch import HANDLERS


def load_all() -> Dict[str, Callable]:
    """The handler map: syscall name -> handler (every handler module is loaded)."""
    return HANDLERS
