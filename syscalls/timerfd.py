"""timerfd_create/settime/gettime: a timer on the virtual clock read as a file.

read returns the number of expirations since the last read (8 bytes) and blocks while there
is none; the fd is readable from the first expiry on. Expirations are counted from the clock
when asked (ktimers.Expiry), so a periodic timer costs nothing between reads.
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.anonfd import AnonInodeFile, install
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import WouldBlock
from emutrace.kernel.ktimers import Expiry, read_itimerspec, timers_of, to_monotonic
from emutrace.kernel.layouts import ITIMERSPEC
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import O_CLOEXEC, O_NONBLOCK
from emutrace.linux.poll import POLLIN, TFD_TIMER_ABSTIME, TFD_TIMER_CANCEL_ON_SET

TFD_CLOEXEC, TFD_NONBLOCK = O_CLOEXEC, O_NONBLOCK
# CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM
TIMERFD_CLOCKS = frozenset({0, 1, 7, 8, 9})


class TimerFd(AnonInodeFile):
    kind = "timerfd"

    def __init__(self, kernel, clock_id: int, flags: int):
        self.held = kernel.limits.hold(self, "timers")     # the kernel's "timers" bound (EAGAIN)
        super().__init__(kernel, flags & O_NONBLOCK)
        self.clock_id = clock_id
        self.expiry = Expiry()
        self.timers = timers_of(kernel)

    def _now(self) -> int:
        return self.kernel.world.monotonic_ns()

    # the kernel timer protocol (ktimers.KernelTimers)
    def wake_at(self, now: int):
        e = self.expiry
        e.catch_up(now)
        return e.next_ns if e.next_ns and not e.ticks else None

    def fire(self, now: int) -> None:
        pass                                     # expirations are counted when read or polled

    def read(self, n: int) -> bytes:
        if n < 8:
            raise VfsError(E.EINVAL)
        e = self.expiry
        e.catch_up(self._now())
        if not e.ticks:
            raise WouldBlock()
        ticks, e.ticks = e.ticks, 0
        if not e.next_ns:
            self.timers.disarm(self)
        return struct.pack("<Q", ticks)

    def write(self, data: bytes) -> int:
        raise VfsError(E.EINVAL)

    def ready(self) -> int:
        e = self.expiry
        e.catch_up(self._now())
        return POLLIN if e.ticks else 0

    def settime(self, value_ns: int, interval_ns: int, absolute: bool) -> None:
        at = to_monotonic(self.kernel.world, self.clock_id, value_ns, absolute)
        self.expiry.set(at, interval_ns, self._now())
        if at:
            self.timers.arm(self)
        else:
            self.timers.disarm(self)

    def close(self) -> None:
        self.timers.disarm(self)
        super().close()


def _timerfd(proc, fd) -> TimerFd:
    f = proc.fds.get(s32(fd))                   # EBADF for a closed fd
    if not isinstance(f, TimerFd):
        raise VfsError(E.EINVAL)
    return f


def sys_timerfd_create(proc, clockid, flags, *_):
    clockid, flags = s32(clockid), flags & 0xFFFFFFFF
    if clockid not in TIMERFD_CLOCKS or flags & ~(TFD_CLOEXEC | TFD_NONBLOCK):
        return -E.EINVAL
    return install(proc, TimerFd(proc.kernel, clockid, flags), bool(flags & TFD_CLOEXEC))


def sys_timerfd_settime(proc, fd, flags, new, old, *_):
    flags &= 0xFFFFFFFF
    if flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET):
        return -E.EINVAL
    f = _timerfd(proc, fd)
    try:
        value, interval = read_itimerspec(proc, new)
    except ValueError:
        return -E.EINVAL
    if old:
        proc.aspace.check(old, ITIMERSPEC.size, 2)
        proc.aspace.write(old, f.expiry.packed(f._now()))
    # TFD_TIMER_CANCEL_ON_SET is accepted: the virtual wall clock is never set, so it never cancels
    f.settime(value, interval, bool(flags & TFD_TIMER_ABSTIME))
    return 0


def sys_timerfd_gettime(proc, fd, cur, *_):
    f = _timerfd(proc, fd)
    proc.aspace.write(cur, f.expiry.packed(f._now()))
    return 0
