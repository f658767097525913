"""SIGINT, SIGTERM and SIGHUP end the run at once, whatever the guest is doing.

Python runs a signal handler only between bytecodes, and while Unicorn runs a translated loop no
bytecode runs: a guest computing without system calls went on for minutes after Ctrl-C. So:

- `arm()` installs Python handlers that raise `Interrupted` (a KeyboardInterrupt), then, where
  the compiled module `emutrace.machine._interrupt` exists, a C handler in front of them that
  calls uc_emu_stop on the engine running (`enter`/`leave`, called by Machine.emu_start) and then
  Python's. emu_start returns within one translated block, and the Python handler raises.
- Without the compiled module (no compiler at install), the GIL is given up while the guest runs
  (emutrace/machine/gil.py) and a watchdog thread, woken through Python's signal wake-up fd,
  calls emu_stop on the engine running.

A signal that lands while no engine runs (a system call's handler, writing the trace) is raised
at the next bytecode, as Python always does; a blocked host read ends with EINTR and raises.
Only the command arms it (cli.run): the Python API leaves the host's signals alone.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import List

from emutrace.machine import gil

SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


class Interrupted(KeyboardInterrupt):
    """The run was interrupted by host signal `signum`."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


try:
    from emutrace.machine import _interrupt as _ext
except ImportError:                      # (not built: no compiler at install)
    _ext = None

_running: List[object] = []              # the fallback's engines inside emu_start, innermost last


def _py_enter(uc) -> int:
    _running.append(uc)
    return 0


def _py_leave(_previous) -> None:
    if _running:
        _running.pop()


# The signal raised but not yet seen by the run. Python runs the handler at the next bytecode,
# which may be inside a hook that Unicorn's C code called through ctypes (a pure-path block hook):
# an exception leaving such a callback is printed and dropped, and the run would go on. So the
# handler also notes the signal here, and leaving emu_start raises it if it was dropped.
_pending: List[int] = []


def _raise(signum, _frame):
    _pending.append(signum)
    raise Interrupted(signum)


def _leave_then_raise(low_leave):
    def leave(previous) -> None:
        low_leave(previous)
        if _pending:
            signum = _pending[-1]
            _pending.clear()
            raise Interrupted(signum)
    return leave


if _ext is not None:
    enter, leave = _ext.enter, _leave_then_raise(_ext.leave)   # enter(uc handle as int) -> previous
else:
    enter, leave = _py_enter, _leave_then_raise(_py_leave)     # enter(Uc) -> 0; leave(0)
COMPILED = _ext is not None


_saved: List[tuple] = []                # (signal number, handler) as they were before arm()


def restore() -> None:
    """Give back the handlers arm() replaced: a run inside a longer-lived Python process (the
    tests, the API's users) must not leave SIGINT, SIGTERM and SIGHUP ignored behind it."""
    while _saved:
        n, handler = _saved.pop()
        signal.signal(n, handler)


def disarm() -> None:
    """While the run's end is written: these signals are ignored (die_by_signal ends it after)."""
    for name in SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def _unraisable(default):
    """sys.unraisablehook that keeps quiet about an Interrupted dropped by a ctypes callback (it
    is raised again when emu_start returns: _pending) and passes anything else on."""
    def hook(info) -> None:
        if info.exc_type is not None and issubclass(info.exc_type, Interrupted):
            return
        default(info)
    return hook


def arm() -> None:
    """From now on SIGINT, SIGTERM and SIGHUP stop the guest and raise Interrupted."""
    import sys     # deferred: the same
    sys.unraisablehook = _unraisable(sys.unraisablehook)
    numbers = [getattr(signal, name) for name in SIGNALS if hasattr(signal, name)]
    if not _saved:
        _saved.extend((n, signal.getsignal(n)) for n in numbers)
    for n in numbers:
        signal.signal(n, _raise)
    if _ext is not None:
        from unicorn.unicorn_py3.unicorn import uclib     # deferred: only an armed run needs the stop's address
        import ctypes     # deferred: the same
        _ext.arm(ctypes.cast(uclib.uc_emu_stop, ctypes.c_void_p).value, numbers)
        return
    gil.keep_while_running(False)
    r, w = os.pipe()
    os.set_blocking(w, False)
    signal.set_wakeup_fd(w)

    def watch() -> None:
        while os.read(r, 64):
            for uc in list(_running):
                uc.emu_stop()
    threading.Thread(target=watch, name="emutrace-interrupt", daemon=True).start()
