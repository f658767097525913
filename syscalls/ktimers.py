"""The kernel's armed timers (timerfd and POSIX timers) on the virtual clock.

A timer keeps its next expiry in monotonic nanoseconds of the World's clock. Two things need
the list of them:
- the scheduler, when no thread can run, jumps the clock to the nearest event: a timer's next
  expiry is such an event only while that expiry changes something a thread may wait for (a
  timerfd with no unread expiration becomes readable; a POSIX timer queues its signal). An
  expiry that changes nothing (a periodic timerfd nobody reads, a timer whose signal is still
  pending) is not: otherwise a deadlocked program with a periodic timer would spin the clock
  forever instead of being reported;
- the syscall exit path and the scheduler fire what is due (POSIX timers queue signals);
  timerfds count their expirations lazily from the clock and need no firing.

Since timers fire on virtual time, a program looping on a 10 ms periodic timer costs no real
time. A timer is an object with `wake_at(now) -> Optional[int]` and `fire(now) -> None`.
"""
from __future__ import annotations

from typing import List, Optional

from emutrace.kernel.layouts import ITIMERSPEC

NS = 1_000_000_000
REALTIME_CLOCKS = frozenset({0, 5, 8, 11})      # REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI


class KernelTimers:
    def __init__(self, world):
        self.world = world
        self.armed: List[object] = []           # in arming order: the same firing order every run

    def arm(self, timer) -> None:
        if timer not in self.armed:
            self.armed.append(timer)

    def disarm(self, timer) -> None:
        if timer in self.armed:
            self.armed.remove(timer)

    def next_wake(self) -> Optional[int]:
        """The nearest expiry that would change what a waiting thread sees, or None."""
        now = self.world.monotonic_ns()
        cands = [w for w in (t.wake_at(now) for t in self.armed) if w is not None]
        return min(cands) if cands else None

    def run_due(self) -> None:
        """Fire every timer whose expiry the clock has passed (called after each system call)."""
        if not self.armed:
            return
        now = self.world.monotonic_ns()
        for t in list(self.armed):
            t.fire(now)


def timers_of(kernel) -> KernelTimers:
    if kernel.timers is None:
        kernel.timers = KernelTimers(kernel.world)
    return kernel.timers


class Expiry:
    """One timer's schedule: next expiry (monotonic ns, 0 = disarmed), interval, and the
    expirations that passed since they were last taken (timerfd's read, a timer's overrun)."""

    __slots__ = ("next_ns", "interval_ns", "ticks")

    def __init__(self):
        self.next_ns = 0
        self.interval_ns = 0
        self.ticks = 0

    def catch_up(self, now: int) -> None:
        nxt = self.next_ns
        if not nxt or now < nxt:
            return
        if self.interval_ns:
            k = 1 + (now - nxt) // self.interval_ns
            self.ticks += k
            self.next_ns = nxt + k * self.interval_ns
        else:
            self.ticks += 1
            self.next_ns = 0

    def set(self, value_ns: int, interval_ns: int, now: int) -> None:
        """Arm to expire at monotonic `value_ns` (0: disarm), then every `interval_ns`."""
        self.next_ns = value_ns if value_ns else 0
        self.interval_ns = interval_ns if value_ns else 0
        self.ticks = 0
        if self.next_ns and self.next_ns <= now:
            self.catch_up(now)

    def packed(self, now: int) -> bytes:
        """The itimerspec Linux reports: time left to the next expiry, and the interval."""
        self.catch_up(now)
        left = max(0, self.next_ns - now) if self.next_ns else 0
        if self.next_ns and left == 0:
            left = 1                          # an armed timer never reports 0 (that means disarmed)
        return pack_itimerspec(left, self.interval_ns)


def pack_itimerspec(value_ns: int, interval_ns: int) -> bytes:
    return ITIMERSPEC.pack(it_interval_sec=interval_ns // NS, it_interval_nsec=interval_ns % NS,
                           it_value_sec=value_ns // NS, it_value_nsec=value_ns % NS)


def read_itimerspec(proc, addr: int):
    """(value ns, interval ns) of a guest itimerspec; ValueError when a field is out of range
    (negative, or nanoseconds not below a second), which Linux answers with EINVAL."""
    v = ITIMERSPEC.unpack(proc.aspace.read(addr, ITIMERSPEC.size))
    for sec, nsec in (("it_value_sec", "it_value_nsec"), ("it_interval_sec", "it_interval_nsec")):
        if v[sec] < 0 or not 0 <= v[nsec] < NS:
            raise ValueError
    return v["it_value_sec"] * NS + v["it_value_nsec"], v["it_interval_sec"] * NS + v["it_interval_nsec"]


def to_monotonic(world, clock_id: int, value_ns: int, absolute: bool) -> int:
    """The monotonic time at which a timer set to `value_ns` on `clock_id` expires (0: disarm)."""
    if not value_ns:
        return 0
    now = world.monotonic_ns()
    if not absolute:
        return now + value_ns
    at = value_ns - world.clock_ns(clock_id) + now
    return max(at, 1)
