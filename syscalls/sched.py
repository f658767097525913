"""The scheduler: every emulated process and thread, which one runs, and blocking and waking.

One thread runs at a time, and the same inputs always give the same interleaving:

- Threads are kept in creation order (`Scheduler.tasks`). The session's run loop asks `pick()`
  for the thread to run next: the running thread again after a stop that is not a switch
  (a signal to deliver, rt_sigreturn, execve), else the next runnable thread after it in
  that order (round robin).
- A switch happens when the running thread blocks (futex, pipe, wait4, poll, sleep, pause,
  vfork), yields, exits, or uses up its budget. The budget is counted in retired instructions
  by the engine's one instruction counter (Machine.counter, emutrace/machine/workcount.py:
  `stop_at`, in C or in Python on the pure path, both stopping at the same block), the count
  that drives the virtual clock (docs/time.md): QUANTUM instructions, or SYSCALL_QUANTUM system
  calls, while another thread is runnable, so a thread spinning without system calls cannot
  starve the others. A slice also ends when the clock reaches the next deadline anyone waits
  for (a sleeping thread's, an alarm, a timer), so a thread spinning against an alarm or a
  sleeper sees it fire as natively. A slice ends at the start of a block, which has not run
  yet: the thread resumes there. When a system call of a thread running alone makes another
  thread runnable (a futex wake, a pipe write, a new thread), the switch happens right there.
- A blocking handler raises Block(Wait) (through the kernel's wait_* hooks below). The
  thread sleeps until the Wait says it can go on: woken by a futex wake or a vfork child,
  its condition became true (a pipe has data, a child is a zombie), its deadline on the
  virtual clock passed, or a signal it must handle arrived. It then finishes its system call
  with a fixed result, or runs the handler again (which sees the new state).
- Threads of one process share one Unicorn engine; switching between them saves and restores
  the CPU state (Unicorn's context: general registers, fs/gs base, x87/SSE). Each process has
  its own engine, except a vfork child (CLONE_VM), which runs on its parent's while the
  parent waits.
- When no thread can run, the virtual clock jumps to the nearest deadline (a timed wait, a
  sleep, an alarm, a timerfd or POSIX timer expiry that wakes someone: ktimers.py); when there
  is none, every thread waits for something that nothing can
  provide and the run ends with GuestDeadlock, naming what each thread waits for.
"""
from __future__ import annotations

import struct
import time as _t
from typing import Dict, List, Optional

from emutrace.machine.guestaccess import GuestFault
from emutrace.machine.words import s32

from emutrace.kernel import errno as E
from emutrace.kernel import jobctl
from emutrace.kernel.poll import _poll_once
from emutrace.kernel.ktimers import timers_of
from emutrace.kernel.layouts import POLLFD
from emutrace.kernel.signals import _action, bit, default_action
from emutrace.kernel.task import GuestDeadlock, NORETURN
from emutrace.kernel.time import check_alarm
from emutrace.kernel.wait import RESTART_ERRNO, Block, Wait
from emutrace.linux.futex import FUTEX_OWNER_DIED, FUTEX_PRIVATE_FLAG, FUTEX_TID_MASK, FUTEX_WAITERS
from emutrace.linux.poll import POLLIN, POLLOUT
from emutrace.linux.signal import SA_RESTART, SIGKILL, SIG_DFL, SIG_IGN

QUANTUM = 100_000            # instructions per slice while another thread is runnable (100 µs of the clock)
SYSCALL_QUANTUM = 64         # ... or this many system calls


def _u32(proc, addr: int) -> int:
    return struct.unpack("<I", proc.aspace.read(addr, 4))[0]


class Scheduler:
    def __init__(self, kernel):
        self.kernel = kernel
        self.procs: list = []             # every process not yet reaped (the session's list)
        self.tasks: list = []             # every live thread, in creation order
        self.current = None               # the thread running (or last run)
        self.rotate = False               # the next pick goes on to the next thread
        self.counting = False             # the running slice has a budget
        self.syscalls = 0                 # system calls made in the running slice
        self.woke = False                 # the running system call woke a thread (futex)
        self._seq = 0
        self.futex = Futexes(self)

    # -- bookkeeping -----------------------------------------------------------
    def admit(self, thread, proc) -> None:
        """A new thread (of a new or existing process) joins the run queue."""
        thread.proc = proc
        thread.alive = True
        self._seq += 1
        thread.seq = self._seq
        self.tasks.append(thread)

    def admit_process(self, proc) -> None:
        if proc not in self.procs:
            self.procs.append(proc)
        for t in proc.threads:
            if t.seq == 0:
                self.admit(t, proc)

    def remove(self, thread) -> None:
        """A thread ended: it leaves the run queue and whatever it waited on."""
        thread.alive = False
        w = thread.wait
        if w is not None and w.cancel is not None:
            w.cancel()
        thread.wait = None
        if thread in self.tasks:
            self.tasks.remove(thread)
        if self.current is thread:
            self.rotate = True

    def thread_count(self) -> int:
        return len(self.tasks)

    def find_thread(self, tid: int):
        for t in self.tasks:
            if t.tid == tid:
                return t
        return None

    def now(self) -> int:
        return self.kernel.world.monotonic_ns()

    # -- switching -----------------------------------------------------------------
    def switch_to(self, t) -> None:
        """Make t the running thread: its process is `kernel.current`, its CPU state is loaded."""
        proc = t.proc
        m = proc.machine
        loaded = m.loaded
        if loaded is not t:
            if loaded is not None and loaded.alive and loaded.proc is not None and loaded.proc.machine is m:
                loaded.ctx = m.uc.context_save()
            if t.ctx is not None:
                m.uc.context_restore(t.ctx)
                t.ctx = None
            if m.own_code:                          # per-thread guest state of the tracer
                self.kernel.hooks.fire("thread_switch", m, loaded, t)
            m.hold(t)
        proc.thread = t
        self.kernel.current = proc
        self.current = t

    def load_new_machine(self, proc) -> None:
        """exec (or fork) gave proc a fresh machine whose CPU state is its current thread's."""
        m = proc.machine
        m.hold(proc.thread)

    # -- who can run -----------------------------------------------------------------
    def runnable(self, t) -> bool:
        if t.proc.stopped and not jobctl.may_run(t.proc):
            return False                    # stopped by a signal until SIGCONT (or SIGKILL)
        w = t.wait
        if w is None:
            return True
        return self._wake_reason(t, w) is not None

    def _wake_reason(self, t, w) -> Optional[str]:
        if w.done:
            return "ready"
        if w.ready is not None and w.ready():
            return "ready"
        if w.deadline is not None and self.now() >= w.deadline:
            return "timeout"
        if self.signal_for(t, interruptible=w.restart != "none") is not None:
            return "signal"
        return None

    def signal_for(self, t, interruptible: bool = True):
        """The pending signal that should wake thread t (one it will handle or die of), or None."""
        proc = t.proc
        if not t.pending and not proc.pending:
            return None
        mask = t.sigmask
        for info in t.pending:
            sig = info["si_signo"]
            if sig == SIGKILL or (interruptible and not mask & bit(sig) and not _ignored(proc, sig)):
                return info
        for info in proc.pending:
            sig = info["si_signo"]
            if sig == SIGKILL:
                return info
            if not interruptible or mask & bit(sig) or _ignored(proc, sig):
                continue
            # a process-directed signal goes to the first thread that does not block it
            target = next((o for o in proc.threads if o.alive and not o.sigmask & bit(sig)
                           and (o.wait is None or o.wait.restart != "none")), None)
            if target is t:
                return info
        return None

    def others_runnable(self, t) -> bool:
        if len(self.tasks) < 2:
            return False
        for o in self.tasks:
            if o is not t and self.runnable(o):
                return True
        return False

    def should_stop(self, t) -> bool:
        """After a system call: must the running thread make room for another?

        A thread running alone (no budget) stops at the system call that made another thread
        runnable, which gets to run at once; a thread with a budget stops at a futex wake (the
        woken thread goes first, as a wake-up preemption), and after SYSCALL_QUANTUM system
        calls (its instruction count does not see the time they take)."""
        if len(self.tasks) < 2:
            return False
        woke, self.woke = self.woke, False
        if self.counting:
            self.syscalls += 1
            if self.syscalls < SYSCALL_QUANTUM and not woke:
                return False
        if self.others_runnable(t):
            self.rotate = True
            return True
        return False

    def pick(self):
        """The next thread to run (rotating when asked), None when every process has ended.

        Advances the virtual clock when nobody can run; raises GuestDeadlock when nothing can
        ever make a thread runnable again."""
        while True:
            tasks = self.tasks
            if not tasks:
                return None
            self.check_alarms()
            n = len(tasks)
            start = 0
            cur = self.current
            if cur is not None:
                seq = cur.seq
                start = next((i for i, o in enumerate(tasks)
                              if o.seq > seq or (o.seq == seq and not self.rotate)), 0)
            for i in range(n):
                t = tasks[(start + i) % n]
                if self.runnable(t):
                    self.rotate = False
                    return t
            if not self._advance_clock():
                raise GuestDeadlock(self.deadlock_message())

    def _advance_clock(self) -> bool:
        """Nobody can run: jump the virtual clock to the nearest deadline or alarm.

        With host sockets open (--net), a thread may be waiting for the network, which the
        virtual clock knows nothing of: first wait for them in real time, for as long as the
        virtual clock would jump (or, with no deadline at all, for as long as it takes)."""
        now = self.now()
        cands = [t.wait.deadline for t in self.tasks if t.wait is not None and t.wait.deadline is not None]
        # an alarm helps only if its SIGALRM is not already pending (undelivered, so blocked)
        cands += [p.alarm_at_ns for p in self.procs if p.exit is None and p.alarm_at_ns
                  and not any(i["si_signo"] == 14 for i in p.pending)]
        timer = timers_of(self.kernel).next_wake()      # timerfd and POSIX timers
        if timer is not None:
            cands.append(timer)
        nxt = min(cands) if cands else None
        if self._wait_for_host(None if nxt is None else max(0, nxt - now)):
            return True
        if nxt is None:
            return False
        if nxt > now:
            self.kernel.world.tick(nxt - now)
        return True

    def _wait_for_host(self, span_ns: Optional[int]) -> bool:
        """Wait (real time) up to span_ns (None: no limit but the run's) for a host socket to
        be ready; True when that made a thread runnable."""
        import select     # deferred: only a run with a --net host socket waits on one
        socks = {id(f): f.sock for p in self.procs if p.exit is None and getattr(p, "fds", None) is not None
                 for f in p.fds.fds.values() if getattr(f, "sock", None) is not None}
        socks = [s for s in socks.values() if s.fileno() >= 0]
        if not socks:
            return False
        wall = self.kernel.wall_deadline
        end = _t.monotonic() + span_ns / 1e9 if span_ns is not None else None
        while socks:
            left = [x for x in (end, wall or None) if x is not None]
            wait = min(left) - _t.monotonic() if left else 0.5
            if wait <= 0:
                return False
            try:
                r, _, x = select.select(socks, [], socks, min(wait, 0.5))
            except (OSError, ValueError):
                return False
            if r or x:
                if any(self.runnable(t) for t in self.tasks):
                    return True
                socks = [s for s in socks if s not in r and s not in x]     # ready for nobody
        return False

    def check_alarms(self) -> None:
        for p in self.procs:
            if p.exit is None and p.alarm_at_ns:
                check_alarm(p)
        timers_of(self.kernel).run_due()

    def deadlock_message(self) -> str:
        parts = []
        for t in self.tasks:
            what = t.wait.what if t.wait is not None else "nothing"
            who = f"process {t.proc.pid}" if t.tid == t.proc.pid else f"thread {t.tid} of process {t.proc.pid}"
            if t.proc.stopped:
                parts.append(f"{who} is stopped by {jobctl.STOP_NAMES[t.proc.stopped]}")
                continue
            parts.append(f"{who} waits for {what}")
        if len(parts) == 1:
            return parts[0] + ", and nothing else can run"
        return "every thread is blocked: " + "; ".join(parts)

    # -- budgets -------------------------------------------------------------------------
    def budget(self, t) -> int:
        """The instructions t's next slice may retire (0: no limit): QUANTUM while another thread
        is runnable, and no further than the clock's next deadline."""
        self.syscalls = 0
        self.counting = self.others_runnable(t)
        n = QUANTUM if self.counting else 0
        nxt = self.next_deadline()
        if nxt is not None:
            until = self.kernel.world.insns_until(nxt - self.now() + self.kernel.world.elapsed_ns)
            n = min(n, until) if n else until
        return n

    def budget_to_deadline(self, m) -> None:
        """The running slice on engine m ends no later than the next deadline (one armed during
        the slice, after its budget was set): a thread spinning alone meets its alarm."""
        nxt = self.next_deadline()
        if nxt is None:
            return
        c = m.counter
        w = self.kernel.world
        stop = c.total + w.insns_until(nxt - self.now() + w.elapsed_ns)
        if c.stop_at < 0 or stop < c.stop_at:
            c.overshoot = True
            c.stop_at = stop

    def next_deadline(self) -> Optional[int]:
        """The earliest time (monotonic ns) a thread waits for, an alarm or a timer fires."""
        cands = [t.wait.deadline for t in self.tasks if t.wait is not None and t.wait.deadline is not None]
        cands += [p.alarm_at_ns for p in self.procs if p.exit is None and p.alarm_at_ns]
        timers = self.kernel.timers
        if timers is not None and timers.armed:
            timer = timers.next_wake()
            if timer is not None:
                cands.append(timer)
        return min(cands) if cands else None

    def slice_used_up(self, t) -> None:
        """The running thread used its whole budget (its quantum, or the clock reached a
        deadline): due alarms and timers fire, and the next thread runs."""
        self.check_alarms()
        self.rotate = True

    # -- blocking ------------------------------------------------------------------------
    def block(self, t, w: Wait) -> None:
        t.wait = w
        self.rotate = True

    def resume(self, t) -> bool:
        """t (now loaded) was blocked: end its system call if it can. True when it may run on."""
        w = t.wait
        reason = self._wake_reason(t, w)
        if reason is None:
            return False
        proc = t.proc
        kernel = self.kernel
        m = proc.machine
        t.wait = None
        if reason == "signal":
            if w.cancel is not None:
                w.cancel()
            ret = self._interrupted(proc, t, w)
            if ret is None:                 # restart: the syscall instruction runs again
                nr = w.call[0] if w.call else m.reg("rax")
                m.set_reg("rip", m.reg("rip") - 2)
                kernel.finish(proc, w.call, -E.ERESTARTSYS)
                m.set_reg("rax", nr)
                return True
            if w.on_eintr is not None:
                w.on_eintr()
        elif reason == "timeout" and w.timeout_result is not None:
            if w.cancel is not None:
                w.cancel()
            ret = w.timeout_result
        elif reason == "ready" and w.result is not None:
            ret = w.result
        else:
            if w.cancel is not None:
                w.cancel()
            t.resumed = w
            try:
                ret = kernel.rerun(proc, w.call)
            except Block as b:
                if b.wait.deadline is None and w.deadline is not None:
                    b.wait.deadline = w.deadline
                self.block(t, b.wait)
                return False
            finally:
                t.resumed = None
            if ret is not NORETURN:
                m.set_reg("rax", ret)
            return True
        ret = kernel.finish(proc, w.call, ret)
        if ret is not NORETURN:
            m.set_reg("rax", ret)
        return True

    def _interrupted(self, proc, t, w):
        """The result of a call a signal interrupted, or None to restart it."""
        info = self.signal_for(t, interruptible=True) or self.signal_for(t, interruptible=False)
        if w.restart == "always":
            return None
        if info is None:
            return -E.EINTR
        act = _action(proc, info["si_signo"])
        if w.restart == "sys" and act.handler != SIG_DFL and act.flags & SA_RESTART:
            return None
        if act.handler == SIG_DFL and default_action(info["si_signo"]) == "stop":
            return None                     # no handler runs: restarted when it continues
        return -RESTART_ERRNO.get(w.restart, E.EINTR)

    def previous_wait(self, t) -> Optional[Wait]:
        """When a handler runs again after its thread was woken: the Wait it slept on."""
        return t.resumed

    # -- the kernel's wait hooks (looked up by the handlers in fs.py, time.py, signals.py) ----
    def wait_for_io(self, proc, f) -> bool:
        """read/write on a blocking fd would block: sleep until it is ready."""
        t = proc.thread
        want = 1 if f.readable and not f.writable else 4 if f.writable and not f.readable else 5
        op = self.kernel.current_call_name(proc)
        if f.readable and f.writable and op:
            want = 4 if "write" in op or "send" in op else 1
        what = f"{'write to' if want == 4 else 'read from'} {f.path}"
        raise Block(Wait("io", what, t, ready=lambda: bool(f.ready() & want), restart="sys"))

    def wait_for_poll(self, proc, timeout_ns: int) -> None:
        """poll/select found nothing ready: sleep until an fd may be, or the timeout."""
        t = proc.thread
        prev = self.previous_wait(t)
        if prev is not None and prev.deadline is not None and self.now() >= prev.deadline:
            return                                  # the timeout passed: the caller reports 0
        deadline = prev.deadline if prev is not None and prev.deadline is not None else \
            (self.now() + timeout_ns if timeout_ns >= 0 else None)
        call = self.kernel.current_call(proc)
        ready = _poll_ready(proc, call) if call is not None else None
        name = call[1].name if call is not None and call[1] is not None else "poll"
        raise Block(Wait("poll", f"{name} on its file descriptors", t, deadline=deadline, ready=ready,
                         restart="nohand"))

    def sleep(self, proc, ns: int) -> int:
        t = proc.thread
        if ns <= 0:
            self.yield_thread(proc)
            return 0
        call = self.kernel.current_call(proc)
        name = call[1].name if call is not None and call[1] is not None else ""
        relative = name == "nanosleep" or (name == "clock_nanosleep" and not call[2][1] & 1)
        w = Wait("sleep", f"a sleep of {ns / 1e9:g} s", t, deadline=self.now() + ns,
                 timeout_result=0, restart="block" if relative else "nohand")
        rem = call[2][1] if name == "nanosleep" else \
            call[2][3] if name == "clock_nanosleep" and not call[2][1] & 1 else 0     # TIMER_ABSTIME
        if rem:
            def write_rem():
                left = max(0, w.deadline - self.now())
                try:
                    proc.aspace.write(rem, struct.pack("<qq", left // 10**9, left % 10**9))
                except GuestFault:
                    pass
            w.on_eintr = write_rem
        raise Block(w)

    def wait_signal(self, proc) -> None:
        """pause / rt_sigsuspend: sleep until a signal that is handled (or fatal) arrives."""
        t = proc.thread
        if self.signal_for(t) is not None:
            return
        raise Block(Wait("signal", "a signal", t, restart="nohand"))

    def yield_thread(self, proc) -> None:
        if self.others_runnable(proc.thread):
            self.rotate = True
            proc.request_stop()


def _ignored(proc, sig: int) -> bool:
    act = _action(proc, sig)
    return act.handler == SIG_IGN or (act.handler == SIG_DFL and default_action(sig) == "ignore")


def _poll_ready(proc, call):
    """A readiness test for a blocked poll/ppoll/select/pselect6 (re-reads its fd sets)."""
    nr, sc, args, _ = call
    name = sc.name if sc is not None else ""
    try:
        if name in ("poll", "ppoll"):
            addr, nfds = args[0], args[1]
            raw = proc.aspace.read(addr, 8 * nfds) if nfds else b""
            entries = []
            for i in range(nfds):
                p = POLLFD.unpack(raw[8 * i:8 * i + 8])
                entries.append((p["fd"], p["events"] & 0xFFFF))
        elif name in ("epoll_wait", "epoll_pwait", "epoll_pwait2"):
            ep = proc.fds.fds.get(args[0] & 0xFFFFFFFF)
            if ep is None or not hasattr(ep, "ready_events"):
                return None
            return lambda: bool(ep.ready_events(proc))
        elif name in ("select", "pselect6"):
            nfds = args[0] & 0xFFFFFFFF
            nbytes = ((nfds + 63) // 64) * 8
            sets = [int.from_bytes(proc.aspace.read(a, nbytes), "little") if a else 0 for a in args[1:4]]
            entries = []
            for fd in range(nfds):
                ev = (POLLIN if sets[0] >> fd & 1 else 0) | (POLLOUT if sets[1] >> fd & 1 else 0)
                if ev:
                    entries.append((fd, ev))
        else:
            return None
    except Exception:
        return None
    return lambda: _poll_once(proc, entries)[0] > 0


# ---------------------------------------------------------------------- futexes



class Futexes:
    """Wait queues, woken in FIFO order, keyed as Linux keys futexes: by (address space,
    address), except a shared futex (an operation without FUTEX_PRIVATE_FLAG) on a MAP_SHARED
    mapping, keyed by (its SharedMemory, offset in it), so processes that map the memory at
    any address wake each other. The kernel's own wakes (clear_child_tid, robust lists) are
    shared ones."""

    def __init__(self, sched: Scheduler):
        self.sched = sched
        self.queues: Dict[tuple, List[Wait]] = {}
        self.pi_queues: Dict[tuple, List[Wait]] = {}
        # PI key → (a waiter's process, its address of the word, the owner's tid): the kernel's
        # idea of who owns a contended PI futex, whatever the word says later
        self.pi_words: Dict[tuple, tuple] = {}

    def _key(self, proc, uaddr: int) -> tuple:
        call = self.sched.kernel.current_call(proc)
        if call is not None and call[1] is not None and call[1].name == "futex" \
                and call[2][1] & FUTEX_PRIVATE_FLAG:
            return (id(proc.aspace), uaddr)
        v = proc.aspace.find(uaddr)
        if v is not None and v.shm is not None:
            return (v.shm, v.shm_off + (uaddr - v.start))
        return (id(proc.aspace), uaddr)

    def _enqueue(self, table, key, w: Wait) -> None:
        w.key = key
        table.setdefault(key, []).append(w)

        def cancel():
            q = table.get(w.key)
            if q is not None and w in q:
                q.remove(w)
                if not q:
                    del table[w.key]
        w.cancel = cancel

    def wait(self, proc, uaddr: int, ns: int, bitset: int) -> int:
        if ns == 0:
            return -E.ETIMEDOUT
        s = self.sched
        t = proc.thread
        w = Wait("futex", f"a futex wake at {uaddr:#x}", t, result=0,
                 deadline=s.now() + ns if ns > 0 else None,
                 timeout_result=-E.ETIMEDOUT, restart="sys" if ns < 0 else "nohand")
        w.bitset = bitset & 0xFFFFFFFF
        self._enqueue(self.queues, self._key(proc, uaddr), w)
        raise Block(w)

    def _wake_key(self, key, n: int, bitset: int) -> int:
        q = self.queues.get(key)
        if not q:
            return 0
        woken = 0
        for w in list(q):
            if not w.bitset & bitset:
                continue
            q.remove(w)
            w.done = True
            self.sched.woke = True
            woken += 1
            if woken >= n:
                break
        if not q:
            del self.queues[key]
        return woken

    def wake(self, proc, uaddr: int, n: int, bitset: int) -> int:
        # as Linux: the count is checked after each wake, so 0 (or less) still wakes one
        return self._wake_key(self._key(proc, uaddr), max(s32(n), 1), bitset & 0xFFFFFFFF)

    def requeue(self, proc, uaddr: int, uaddr2: int, nwake: int, nreq: int) -> int:
        nwake, nreq = s32(nwake), s32(nreq)
        if nwake < 0 or nreq < 0:
            return -E.EINVAL
        key, key2 = self._key(proc, uaddr), self._key(proc, uaddr2)
        woken = self._wake_key(key, nwake, 0xFFFFFFFF) if nwake else 0
        moved = 0
        q = self.queues.get(key)
        if q and key != key2:
            while q and moved < nreq:
                w = q.pop(0)
                w.key = key2
                self.queues.setdefault(key2, []).append(w)
                moved += 1
            if not q:
                del self.queues[key]
        return woken + moved

    def lock_pi(self, proc, uaddr: int, ns: int) -> int:
        s = self.sched
        t = proc.thread
        word = _u32(proc, uaddr)
        owner = word & FUTEX_TID_MASK
        if s.find_thread(owner) is None:
            return -E.ESRCH
        proc.aspace.write_u32(uaddr, word | FUTEX_WAITERS)
        if ns == 0:
            return -E.ETIMEDOUT
        w = Wait("futex_pi", f"PI futex {uaddr:#x} held by thread {owner}", t, result=0,
                 deadline=s.now() + ns if ns > 0 else None, timeout_result=-E.ETIMEDOUT, restart="always")
        key = self._key(proc, uaddr)
        self._enqueue(self.pi_queues, key, w)
        self.pi_words[key] = (proc, uaddr, owner)
        raise Block(w)

    def unlock_pi(self, proc, uaddr: int) -> int:
        self._hand_over(proc, uaddr, 0)
        return 0

    def _hand_over(self, proc, uaddr: int, flags: int, key=None) -> None:
        """Give a PI futex to its first waiter (or leave it free), keeping `flags` (OWNER_DIED)."""
        key = key if key is not None else self._key(proc, uaddr)
        q = self.pi_queues.get(key)
        if q:
            w = q.pop(0)
            if not q:
                del self.pi_queues[key]
            proc.aspace.write_u32(uaddr, w.thread.tid | flags | (FUTEX_WAITERS if q else 0))
            if key in self.pi_words:
                self.pi_words[key] = self.pi_words[key][:2] + (w.thread.tid,)
            w.done = True
            self.sched.woke = True
        else:
            proc.aspace.write_u32(uaddr, flags)

    # -- a thread's death ---------------------------------------------------------------
    def thread_died(self, proc, t) -> None:
        """Robust futexes the thread held are marked OWNER_DIED and a waiter woken; then
        clear_child_tid is zeroed and woken (pthread_join)."""
        if t.robust_list:
            try:
                self._robust(proc, t)
            except GuestFault:
                pass
        self._exit_pi_state(t)
        if t.clear_child_tid:
            try:
                proc.aspace.write_u32(t.clear_child_tid, 0)
                self._wake_key(self._key(proc, t.clear_child_tid), 1, 0xFFFFFFFF)
            except Exception:
                pass

    def _robust(self, proc, t) -> None:
        head = t.robust_list
        mem = proc.aspace
        nxt, offset, pending = struct.unpack("<QqQ", mem.read(head, 24))
        entry, seen = nxt, 0
        while entry != head and seen < 2048:            # ROBUST_LIST_LIMIT
            following = mem.read_u64(entry & ~1)
            if entry != pending:
                self._death(proc, t, (entry & ~1) + offset, entry & 1)
            entry = following
            seen += 1
        if pending:
            self._death(proc, t, (pending & ~1) + offset, pending & 1)

    def _exit_pi_state(self, t) -> None:
        """PI futexes the dead thread still owns go to their first waiter, as Linux's
        exit_pi_state_list does whether or not they were on the robust list: musl releases its
        robust mutexes itself at thread exit (word = OWNER_DIED, FUTEX_WAKE), which does not
        reach PI waiters; a plain PI mutex is on no list."""
        for key, (wproc, uaddr, owner) in list(self.pi_words.items()):
            if not self.pi_queues.get(key):
                del self.pi_words[key]
                continue
            try:
                word = _u32(wproc, uaddr)
                if owner == t.tid or word & FUTEX_TID_MASK == t.tid:
                    self._hand_over(wproc, uaddr, word & FUTEX_OWNER_DIED, key=key)
            except GuestFault:
                pass

    def _death(self, proc, t, uaddr: int, pi: int) -> None:
        word = _u32(proc, uaddr)
        if word & FUTEX_TID_MASK != t.tid:
            return
        if self.pi_queues.get(self._key(proc, uaddr)):      # PI waiters, flagged in the list or not
            self._hand_over(proc, uaddr, FUTEX_OWNER_DIED)
            return
        proc.aspace.write_u32(uaddr, (word & FUTEX_WAITERS) | FUTEX_OWNER_DIED)
        if word & FUTEX_WAITERS:
            self._wake_key(self._key(proc, uaddr), 1, 0xFFFFFFFF)
