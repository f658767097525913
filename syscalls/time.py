"""Time system calls, all answered from the World's virtual clock (sleeps cost no real time).

The CPU-time clocks count the calling thread's (CLOCK_THREAD_CPUTIME_ID) or process's
(CLOCK_PROCESS_CPUTIME_ID) retired instructions at the nominal rate (docs/time.md)."""
from __future__ import annotations


from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.layouts import ITIMERVAL, TIMESPEC, TIMEVAL, TMS
from emutrace.linux.resource import ITIMER_REAL, TIMER_ABSTIME

CLOCK_IDS = set(range(12))


def _ts(ns: int) -> bytes:
    return TIMESPEC.pack(tv_sec=ns // 10**9, tv_nsec=ns % 10**9)


def read_timespec(proc, addr: int) -> int:
    ts = TIMESPEC.unpack(proc.aspace.read(addr, 16))
    if ts["tv_sec"] < 0 or not 0 <= ts["tv_nsec"] < 10**9:
        raise ValueError
    return ts["tv_sec"] * 10**9 + ts["tv_nsec"]


def _clock_ok(clk: int) -> bool:
    clk = s32(clk)
    return clk in CLOCK_IDS or clk < 0        # negative ids name process/thread CPU clocks


def cpu_ns(proc, thread: bool) -> int:
    """The CPU time of proc's running thread (thread) or of proc: its instructions retired, the
    running slice's included, at the nominal rate."""
    w = proc.kernel.world
    live = w.work - w.work_base if proc.kernel.current is proc else 0
    done = proc.thread.insns if thread else proc.cpu_insns
    return (done + live) * w.ns_per_insn


def clock_ns(proc, clk: int) -> int:
    """The clock clk (a clock id, or a negative CPU clock id) as proc's thread reads it."""
    clk = s32(clk)
    if clk in (2, 3) or clk < 0:
        # a negative id (clock_getcpuclockid) names a process's CPU clock, or with
        # CPUCLOCK_PERTHREAD_MASK (4) a thread's (pthread_getcpuclockid): the caller's here
        return cpu_ns(proc, clk == 3 or (clk < 0 and bool(clk & 4)))
    return proc.kernel.world.clock_ns(clk)


def sys_clock_gettime(proc, clk, tp, *_):
    if not _clock_ok(clk):
        return -E.EINVAL
    proc.aspace.write(tp, _ts(clock_ns(proc, clk)))
    return 0


def sys_clock_getres(proc, clk, res, *_):
    if not _clock_ok(clk):
        return -E.EINVAL
    if res:
        coarse = s32(clk) in (5, 6)
        proc.aspace.write(res, _ts(4_000_000 if coarse else 1))
    return 0


def sys_gettimeofday(proc, tv, tz, *_):
    ns = proc.kernel.world.realtime_ns()
    if tv:
        proc.aspace.write(tv, TIMEVAL.pack(tv_sec=ns // 10**9, tv_usec=ns % 10**9 // 1000))
    if tz:
        proc.aspace.write(tz, bytes(8))
    return 0


def sys_time(proc, tloc, *_):
    t = proc.kernel.world.realtime_ns() // 10**9
    if tloc:
        proc.aspace.write_u64(tloc, t)
    return t


def _sleep(proc, ns: int) -> int:
    return proc.kernel.sched.sleep(proc, ns)


def sys_nanosleep(proc, req, rem, *_):
    try:
        ns = read_timespec(proc, req)
    except ValueError:
        return -E.EINVAL
    return _sleep(proc, ns)


def sys_clock_nanosleep(proc, clk, flags, req, rem, *_):
    if not _clock_ok(clk):
        return -E.EINVAL           # the system call returns -errno; glibc's wrapper turns it positive
    try:
        ns = read_timespec(proc, req)
    except ValueError:
        return -E.EINVAL
    if flags & TIMER_ABSTIME:
        ns = max(0, ns - proc.kernel.world.clock_ns(s32(clk)))
    return _sleep(proc, ns)


def sys_times(proc, buf, *_):
    ticks = cpu_ns(proc, False) // 10_000_000
    if buf:
        proc.aspace.write(buf, TMS.pack(tms_utime=ticks))
    return proc.kernel.world.monotonic_ns() // 10_000_000


def sys_alarm(proc, seconds, *_):
    w = proc.kernel.world
    now = w.monotonic_ns()
    left = max(0, proc.alarm_at_ns - now) if proc.alarm_at_ns else 0
    proc.alarm_at_ns = now + (seconds & 0xFFFFFFFF) * 10**9 if seconds else 0
    proc.itimers[ITIMER_REAL] = [0, proc.alarm_at_ns]
    return (left + 999_999_999) // 10**9 if left else 0


def sys_setitimer(proc, which, new, old, *_):
    if which != ITIMER_REAL:
        return -E.EINVAL if which > 2 else 0
    now = proc.kernel.world.monotonic_ns()
    if old:
        proc.aspace.write(old, _itimerval(proc, now))
    if new:
        v = ITIMERVAL.unpack(proc.aspace.read(new, 32))
        interval = v["it_interval_sec"] * 10**9 + v["it_interval_usec"] * 1000
        value = v["it_value_sec"] * 10**9 + v["it_value_usec"] * 1000
        proc.alarm_at_ns = now + value if value else 0
        proc.itimers[ITIMER_REAL] = [interval, proc.alarm_at_ns]
    return 0


def _itimerval(proc, now) -> bytes:
    interval, at = proc.itimers.get(ITIMER_REAL, [0, 0])
    left = max(0, at - now) if at else 0
    return ITIMERVAL.pack(it_interval_sec=interval // 10**9, it_interval_usec=interval % 10**9 // 1000,
                          it_value_sec=left // 10**9, it_value_usec=left % 10**9 // 1000)


def sys_getitimer(proc, which, cur, *_):
    if which > 2:
        return -E.EINVAL
    proc.aspace.write(cur, _itimerval(proc, proc.kernel.world.monotonic_ns()) if which == ITIMER_REAL else bytes(32))
    return 0


def check_alarm(proc) -> None:
    """Queue SIGALRM when the virtual clock passed the ITIMER_REAL deadline; fire the POSIX
    timers that are due (ktimers)."""
    timers = proc.kernel.timers
    if timers is not None and timers.armed:
        timers.run_due()
    at = proc.alarm_at_ns
    if at and proc.kernel.world.monotonic_ns() >= at:
        interval = proc.itimers.get(ITIMER_REAL, [0, 0])[0]
        proc.alarm_at_ns = at + interval if interval else 0
        proc.itimers[ITIMER_REAL] = [interval, proc.alarm_at_ns]
        proc.queue_signal({"si_signo": 14, "si_code": 0x80})      # SI_KERNEL
