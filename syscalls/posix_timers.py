"""POSIX per-process timers: timer_create/settime/gettime/getoverrun/delete.

A timer notifies by queueing a signal (SIGEV_SIGNAL, and glibc's SIGEV_THREAD, which the
kernel sees as a signal too), by queueing it to one thread of the process (SIGEV_THREAD_ID),
or not at all (SIGEV_NONE: the program polls timer_gettime). While its signal is still
queued, further expirations only count as the overrun (si_overrun, timer_getoverrun), as on
Linux. Timers fire on the virtual clock (ktimers): sleeping until a timer's signal costs no
real time. Ids are per process, handed out 0, 1, 2... and not inherited by fork or exec.
"""
from __future__ import annotations

from typing import Dict, Optional

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.ktimers import Expiry, read_itimerspec, timers_of, to_monotonic
from emutrace.kernel.layouts import ITIMERSPEC, SIGEVENT
from emutrace.linux.resource import TIMER_ABSTIME
from emutrace.linux.signal import (NSIG, SIGALRM, SIGEV_NONE, SIGEV_SIGNAL, SIGEV_THREAD, SIGEV_THREAD_ID, SI_TIMER)

# CLOCK_REALTIME, MONOTONIC, PROCESS_CPUTIME_ID, THREAD_CPUTIME_ID, MONOTONIC_RAW is refused,
# BOOTTIME, REALTIME_ALARM, BOOTTIME_ALARM, TAI
TIMER_CLOCKS = frozenset({0, 1, 2, 3, 7, 8, 9, 11})
# Linux preallocates a sigqueue entry per timer, charged to RLIMIT_SIGPENDING: past it, EAGAIN
RLIMIT_SIGPENDING = 11
DEFAULT_SIGPENDING = 96363               # what this machine's Linux gives a user (ulimit -i)


class PosixTimer:
    def __init__(self, proc, timer_id: int, clock_id: int, notify: int, signo: int, value: int, thread):
        # every timer of every process counts against the kernel's "timers" bound (EAGAIN)
        self.held = proc.kernel.limits.hold(self, "timers")
        self.proc = proc
        self.id = timer_id
        self.clock_id = clock_id
        self.notify = notify
        self.signo = signo
        self.value = value
        self.thread = thread                    # SIGEV_THREAD_ID's target, else None
        self.expiry = Expiry()
        self.queued: Optional[dict] = None      # the siginfo last queued (its overrun grows while queued)
        self.overrun_last = 0

    def _still_queued(self) -> bool:
        info = self.queued
        if info is None:
            return False
        queue = self.thread.pending if self.thread is not None else self.proc.pending
        if any(i is info for i in queue) or any(i is info for t in self.proc.threads for i in t.pending):
            return True
        self.overrun_last = info.get("si_overrun", 0)      # delivered (or taken by sigwait/signalfd)
        self.queued = None
        return False

    # the kernel timer protocol (ktimers.KernelTimers)
    def wake_at(self, now: int):
        self.expiry.catch_up(now)
        if self.notify == SIGEV_NONE or not self.expiry.next_ns or self._still_queued():
            return None
        return self.expiry.next_ns

    def fire(self, now: int) -> None:
        if self.proc.exit is not None:
            timers_of(self.proc.kernel).disarm(self)
            return
        e = self.expiry
        e.catch_up(now)
        if not e.ticks:
            return
        ticks, e.ticks = e.ticks, 0
        if not e.next_ns:
            timers_of(self.proc.kernel).disarm(self)
        if self.notify == SIGEV_NONE:
            return
        if self._still_queued():
            self.queued["si_overrun"] += ticks
            return
        info = {"si_signo": self.signo, "si_code": SI_TIMER, "si_timerid": self.id,
                "si_overrun": ticks - 1, "si_value": self.value}
        thread = self.thread if self.thread is not None and self.thread.alive else None
        self.proc.queue_signal(info, thread=thread)
        self.queued = info


def timers_of_process(proc) -> Dict[int, PosixTimer]:
    if proc.posix_timers is None:
        proc.posix_timers = {}
        proc.next_timer_id = 0
    return proc.posix_timers


def drop_timers(proc) -> None:
    """exec and exit end every timer of the process."""
    table = proc.posix_timers
    if table:
        kt = timers_of(proc.kernel)
        for t in table.values():
            kt.disarm(t)
        table.clear()


def _timer(proc, timerid) -> Optional[PosixTimer]:
    return timers_of_process(proc).get(s32(timerid))


def _read_sigevent(proc, raw: bytes):
    """(notify, signo, value, thread) of a sigevent, or None for one Linux refuses (EINVAL)."""
    ev = SIGEVENT.unpack(raw)
    notify, signo = ev["sigev_notify"], ev["sigev_signo"]
    thread = None
    if notify == SIGEV_THREAD_ID | SIGEV_SIGNAL:
        tid = ev["sigev_notify_thread_id"]
        thread = next((t for t in proc.threads if t.tid == tid and t.alive), None)
        if thread is None:
            return None
    elif notify not in (SIGEV_SIGNAL, SIGEV_THREAD, SIGEV_NONE):
        return None
    if notify != SIGEV_NONE and not 1 <= signo <= NSIG:
        return None
    return notify, signo, ev["sigev_value"], thread


def sys_timer_create(proc, clockid, sevp, timerid, *_):
    clockid = s32(clockid)
    if clockid not in TIMER_CLOCKS and clockid >= 0:
        return -E.EINVAL
    table = timers_of_process(proc)
    raw = proc.aspace.read(sevp, SIGEVENT.size) if sevp else None      # EFAULT: no id is used
    limit = proc.rlimits.get(RLIMIT_SIGPENDING, [DEFAULT_SIGPENDING])[0]
    if len(table) >= limit:
        return -E.EAGAIN
    # as Linux, the id is taken before the sigevent is checked: a refused one uses up an id
    tid = proc.next_timer_id
    proc.next_timer_id = (tid + 1) & 0x7FFFFFFF
    if raw is not None:
        ev = _read_sigevent(proc, raw)
        if ev is None:
            return -E.EINVAL
        notify, signo, value, thread = ev
    else:
        notify, signo, value, thread = SIGEV_SIGNAL, SIGALRM, None, None
    # a CPU-time clock (negative ids name another process's or thread's) runs as the virtual clock
    t = PosixTimer(proc, tid, clockid if clockid >= 0 else 2, notify, signo,
                   tid if value is None else value, thread)
    proc.aspace.write_u32(timerid, tid)
    table[tid] = t
    return 0


def sys_timer_settime(proc, timerid, flags, new, old, *_):
    t = _timer(proc, timerid)
    if t is None or not new:
        return -E.EINVAL
    try:
        value, interval = read_itimerspec(proc, new)
    except ValueError:
        return -E.EINVAL
    world = proc.kernel.world
    now = world.monotonic_ns()
    if old:
        proc.aspace.check(old, ITIMERSPEC.size, 2)
        proc.aspace.write(old, t.expiry.packed(now))
    t.queued, t.overrun_last = None, 0
    at = to_monotonic(world, t.clock_id, value, bool(flags & TIMER_ABSTIME))
    kt = timers_of(proc.kernel)
    t.expiry.set(at, interval, now)
    if at:
        kt.arm(t)
        t.fire(now)                              # an absolute time already past expires at once
    else:
        kt.disarm(t)
    return 0


def sys_timer_gettime(proc, timerid, cur, *_):
    t = _timer(proc, timerid)
    if t is None:
        return -E.EINVAL
    proc.aspace.write(cur, t.expiry.packed(proc.kernel.world.monotonic_ns()))
    return 0


def sys_timer_getoverrun(proc, timerid, *_):
    t = _timer(proc, timerid)
    if t is None:
        return -E.EINVAL
    t._still_queued()
    return min(t.overrun_last, 0x7FFFFFFF)       # DELAYTIMER_MAX


def sys_timer_delete(proc, timerid, *_):
    table = timers_of_process(proc)
    t = table.pop(s32(timerid), None)
    if t is None:
        return -E.EINVAL
    timers_of(proc.kernel).disarm(t)
    return 0
