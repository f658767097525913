"""How a system call blocks: its handler raises Block(Wait), and the scheduler (sched.py) puts
the thread to sleep until the Wait says it can go on. Kept apart from the scheduler so that
every handler can block without importing it.
"""
from __future__ import annotations

from typing import Callable, Optional

from emutrace.kernel import errno as E

# The result a call a signal interrupts ends with, by its restart kind: what the program's
# registers hold at the call's exit, so what a tracer sees ("= ? ERESTARTNOHAND"); delivering
# the signal to a handler then turns it into EINTR (or runs the call again).
RESTART_ERRNO = {"sys": E.ERESTARTSYS, "nohand": E.ERESTARTNOHAND, "block": E.ERESTART_RESTARTBLOCK,
                 "always": E.ERESTARTNOINTR}


class Block(Exception):
    """Raised by a system call handler when the calling thread must sleep; carries the Wait."""

    def __init__(self, wait: "Wait"):
        super().__init__(wait.what)
        self.wait = wait


class Wait:
    """What a blocked thread waits for, and how its system call ends.

    restart: what a signal with a handler does to the call, as Linux's restart codes:
      "sys"    (ERESTARTSYS) restarted if the handler has SA_RESTART, else EINTR;
      "nohand" (ERESTARTNOHAND) EINTR;
      "block"  (ERESTART_RESTARTBLOCK: nanosleep's) EINTR;
      "always" (ERESTARTNOINTR) restarted;
      "none"   not interruptible (only SIGKILL ends it).
    result / timeout_result: the call's return value when woken / when the deadline passed;
      None means: run the handler again (it finds the new state, or its expired deadline).
    """

    __slots__ = ("kind", "what", "thread", "deadline", "ready", "done", "result", "timeout_result",
                 "restart", "call", "key", "bitset", "cancel", "on_eintr")

    def __init__(self, kind: str, what: str, thread, *, deadline: Optional[int] = None,
                 ready: Optional[Callable[[], bool]] = None, result=None, timeout_result=None,
                 restart: str = "sys"):
        self.kind = kind
        self.what = what
        self.thread = thread
        self.deadline = deadline          # monotonic ns on the virtual clock, or None
        self.ready = ready
        self.done = False                 # set by an explicit wake (futex, vfork)
        self.result = result
        self.timeout_result = timeout_result
        self.restart = restart
        self.call = None                  # (nr, sc, args, trace state): set by the kernel
        self.key = None
        self.bitset = 0
        self.cancel: Optional[Callable[[], None]] = None   # leave the wait queue (futexes)
        self.on_eintr: Optional[Callable[[], None]] = None  # before EINTR returns (nanosleep's rem)
