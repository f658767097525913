"""The emulated kernel: what all processes share, and the syscall entry point.

A Process (task.py) owns one Unicorn machine, its address space, fd table, cwd, signal state
and limits. The Kernel owns what all processes share: the World, the VFS, the options, the
observer that turns syscalls into trace events, and the once-only "not implemented" notes.
"""
from __future__ import annotations

import sys
from typing import Callable, Dict, List, Optional

from emutrace.machine.budget import MemoryBudget, OutOfMemory
from emutrace.machine.guestaccess import GuestFault
from emutrace.machine.phases import Hooks

from emutrace.kernel import clone
from emutrace.kernel.engines import Engines
from emutrace.kernel import errno as E
from emutrace.kernel.handlers import load_all
from emutrace.kernel.sched import Block, Scheduler
from emutrace.kernel.table import BY_NR, Syscall, by_class
from emutrace.kernel.task import NORETURN, Process, ProcessExit
from emutrace.kernel.time import check_alarm
from emutrace.kernel.vfs import Vfs, VfsError
from emutrace.kernel.vvar import wall_clock_stepped


# The default process limit: one per 8 MiB of --max-mem (a live small C process costs the host
# ~5.2 MiB, bins/forkstorm). The host memory itself is bounded by the run's MemoryBudget, which
# charges each engine's cost (emutrace/machine/cpu.py) with its address space; this count is
# RLIMIT_NPROC's part, so a fork bomb of small processes ends with EAGAIN, as on Linux.
PROCESS_HOST_COST = 8 << 20
MIN_MAX_PROCS = 64


def default_max_procs(max_mem: int) -> int:
    return max(MIN_MAX_PROCS, max_mem // PROCESS_HOST_COST)


NO_ROUTE = (None, None)         # a number the table does not list: ENOSYS, named syscall_0x...

# The calls whose answer a compiled syscall hook may repeat (Machine.syscall_answers): the table's
# %pure class (strace's: no arguments, never fail - getpid, gettid, getppid, getuid, getgid,
# geteuid, getegid, getpgrp). Their answers change only through calls of other numbers (setpgid,
# a parent's exit, ...), by another thread or process (which runs in another slice), or never;
# the hook forgets at every other number and the session at every slice.
PURE_NUMBERS = frozenset(row.nr for row in by_class("%pure"))


def routes_by_number(handlers: Dict[str, Callable]) -> Dict[int, tuple]:
    """nr → (the table's row, its handler or None): the one table joined with the handlers by
    name once, so that dispatch is one dict lookup by number."""
    return {nr: (sc, handlers.get(sc.name)) for nr, sc in BY_NR.items()}


# What a handler's exception becomes for the guest: the one mapping the three places that run a
# handler share (on_syscall's untraced path, syscall(), _handle), which write the call out for speed
HANDLER_ERRORS = (VfsError, GuestFault, OutOfMemory)
# A call a signal interrupts ends with its restart code, which the trace shows (strace's
# "= ? ERESTARTNOHAND"); delivering the signal to its handler turns it into EINTR, as Linux's
# handle_signal does (a call that restarts never gets here: the scheduler runs it again).
_TO_EINTR = frozenset((-E.ERESTARTSYS, -E.ERESTARTNOHAND, -E.ERESTART_RESTARTBLOCK))


def handler_error(e: Exception) -> int:
    if isinstance(e, VfsError):
        return -e.errno
    return -E.EFAULT if isinstance(e, GuestFault) else -E.ENOMEM


class Kernel:
    def __init__(self, world, vfs: Vfs, max_procs: Optional[int] = None, notify: Callable[[str], None] = None,
                 hooks: Optional[Hooks] = None, max_mem: int = 4 << 30, net: bool = False, vdso: bool = True):
        self.world = world
        # the session's registry (phases.py): its phases, and its roles the kernel reads, which
        # the layers above fill: hooks.observer (the syscall trace), hooks.intercept (the API's
        # hooks, injection, the report: they may replace a result), hooks.binfmt (the loader)
        self.hooks = hooks if hooks is not None else Hooks()
        self._on_enter = self.hooks.listeners("syscall_enter")   # (live lists: on_syscall tests them)
        self._on_exit = self.hooks.listeners("syscall_exit")
        self._log_flush = self.hooks.listeners("guest_log_flush")
        self.vfs = vfs
        self.chosen_max_procs = max_procs   # --max-procs, or None: default_max_procs(max_mem)
        self.limits = vfs.limits            # every bound on what the guest makes the host hold (limits.py)
        self.handlers = load_all()          # (its setter makes the routes by number: see below)
        self.current: Optional[Process] = None   # the process running (its syscalls, /proc/self)
        self.net = net                      # --net: Internet sockets reach the host
        self.loopnet = None                 # the guest's own loopback network (inet.LoopNet), on first use
        self.objects = None                 # live anonymous-inode objects by kind (anonfd.KernelObjects)
        self.timers = None                  # every armed timer of the run (ktimers.KernelTimers)
        self.inotify = None                 # inotify instances and watches (inotify.InotifyHub)
        self.wall_deadline = 0              # host time.monotonic() at which --timeout ends the run; 0: none
        self.memory = MemoryBudget(max_mem)  # --max-mem: what all processes' address spaces hold together
        self.engines = Engines(self.memory)  # every process's engine: made, charged, retired, closed
        self.notify = notify or (lambda msg: print(f"emutrace: {msg}", file=sys.stderr, flush=True))
        self.unimplemented_seen: set = set()
        self.follow = False                 # -f: child processes are traced too
        self.sched = Scheduler(self)
        # the process life cycle (clone.py: exit, wait, kill, release), which handlers reach through
        # the kernel rather than by import, since clone.py imports the handler modules; the
        # scheduler's waits are reached as kernel.sched.*
        self.life = clone
        # what all processes share of an area, made by its handlers on first use
        self.sysv_ipc = None                # SysV message queues, semaphores, shared memory (sysvipc.Ipc)
        self.mqueues: Optional[dict] = None  # POSIX message queues by name (mqueue.py)
        self.lockbook = None                # record and file locks (locks.LockBook)
        self.unix_listeners: Optional[dict] = None   # listening AF_UNIX sockets by path (net.py)
        self.counts: Dict[str, int] = {}
        self.vdso = vdso                    # execve maps emutrace's vDSO (--no-vdso: off)
        self.vvar_step = 0                  # the wall-clock step the vDSO data pages show


    @property
    def handlers(self) -> Dict[str, Callable]:
        """The handlers by name. Setting it (inotify wraps some on first use) remakes the routes."""
        return self._handlers

    @handlers.setter
    def handlers(self, handlers: Dict[str, Callable]) -> None:
        self._handlers = handlers
        self.routes = routes_by_number(handlers)

    @property
    def observer(self):
        """The syscall observer (the hooks' role), or None."""
        return self.hooks.observer

    @property
    def intercept(self):
        """The syscall intercept, or its chain (the hooks' role), or None."""
        return self.hooks.intercept

    def begin_run(self, follow: bool, wall_deadline: float) -> None:
        """The run starts: -f (children traced too) and the host time at which --timeout ends it
        (0: none; host-socket waits stop there too)."""
        self.follow = follow
        self.wall_deadline = wall_deadline

    def switch_to(self, proc: Process) -> None:
        """proc is the process running (its system calls, /proc/self)."""
        self.current = proc

    @property
    def max_mem(self) -> int:
        return self.memory.limit

    @max_mem.setter
    def max_mem(self, limit: int) -> None:
        self.memory.limit = limit

    @property
    def max_procs(self) -> int:
        return self.chosen_max_procs or default_max_procs(self.max_mem)

    def answer_from(self, machine) -> None:
        """Let machine's compiled syscall hook repeat the answers to PURE_NUMBERS (on_syscall
        hands them over), ticking this kernel's clock as on_syscall does. Nothing on the pure path."""
        answers = machine.syscall_answers
        if answers is not None:
            answers.answer_with(self.world, "extra_ns", "tick_ns", PURE_NUMBERS)

    def on_syscall(self, nr, a0, a1, a2, a3, a4, a5):
        """The machine's `syscall` hook (the session registers it), called with rax, rdi, rsi,
        rdx, r10, r8 and r9; returns the value for rax, or None to leave the registers as they are.

        Everything an untraced system call costs in Python is here, in one frame: the guest's
        logged library calls first, the clock's tick, the handler found by number, then the
        checks at the call's return (a due alarm or timer, a thread that must make room), each
        made only when it has something to check. A traced call runs here too, between the
        observer's enter and exit (syscall() written out: a frame fewer per traced call); an
        intercepted one takes syscall()."""
        proc = self.current
        m = proc.machine
        if m.own_code:                           # library calls logged by guest code come first
            for fn in self._log_flush:
                fn(proc, nr)
        hooks = self.hooks
        try:
            if hooks.intercept is None:
                # (syscall(), written out for the calls no intercept sees, traced or not)
                obs = hooks.observer
                if obs is not None and not proc.traced:
                    obs = None
                try:
                    sc, handler = self.routes[nr]        # (a subscript costs less than get())
                except KeyError:
                    sc = handler = None
                args = (a0, a1, a2, a3, a4, a5)
                if self._on_enter:
                    hooks.fire("syscall_enter", proc, nr, args)
                state = obs.syscall_enter(proc, nr, sc, args) if obs is not None else None
                thread = proc.thread
                call = thread.call = (nr, sc, args, state)
                try:                             # (_handle, written out)
                    ret = handler(proc, a0, a1, a2, a3, a4, a5) if handler is not None else self._unimplemented(nr, sc)
                except Block as b:
                    b.wait.call = call
                    raise
                except HANDLER_ERRORS as e:
                    ret = handler_error(e)
                except ProcessExit:
                    if obs is not None and proc.traced:
                        obs.syscall_noreturn(proc, state)
                    raise
                finally:
                    thread.call = None
                # the call's modelled cost passes while it runs: between its entry and its exit
                world = self.world
                world.extra_ns += world.tick_ns                  # (world.tick(), inlined)
                if obs is not None:
                    obs.syscall_exit(proc, state, ret)
                if self._on_exit and ret is not NORETURN:
                    hooks.fire("syscall_exit", proc, nr, args, ret)
                if ret in _TO_EINTR:                 # (finish's last step)
                    ret = -E.EINTR
            else:
                ret = self.syscall(proc, nr, (a0, a1, a2, a3, a4, a5))
        except Block as b:                       # the thread sleeps; another one runs
            self.sched.block(proc.thread, b.wait)
            proc.stop_requested = True
            m.uc.emu_stop()
            return None
        if ret is NORETURN or proc.machine is not m:      # (after execve: a new machine)
            ret = None
        if self.world.realtime_step_ns != self.vvar_step:
            wall_clock_stepped(self)             # the vDSO's data pages follow the wall clock
        timers = self.timers                     # check_alarm's and should_stop's own conditions
        sched = self.sched
        if proc.alarm_at_ns or (timers is not None and timers.armed):
            check_alarm(proc)
            sched.budget_to_deadline(m)      # (an alarm armed in this slice ends it when due)
        if proc.stop_requested or proc.machine is not m or (len(sched.tasks) >= 2 and sched.should_stop(proc.thread)):
            proc.stop_requested = True
            m.uc.emu_stop()
        elif nr in PURE_NUMBERS and ret is not None and m.syscall_answers is not None and not m.own_code \
                and len(sched.tasks) < 2 and not proc.alarm_at_ns and (timers is None or not timers.armed) \
                and hooks.intercept is None and (hooks.observer is None or not proc.traced):
            # the next such call repeats this answer in C, with nothing to do after it: no
            # trace, no intercept, no logged calls to flush, no alarm or timer to check, no other
            # thread to make room for (what changes any of these is a call of another number)
            m.syscall_answers.remember(nr, ret)
        return ret

    def syscall(self, proc: Process, nr: int, args: tuple):
        """Run one system call an intercept sees (on_syscall runs every other call itself);
        returns the raw result or NORETURN.

        A handler that must wait raises sched.Block; the Block leaves here carrying the call
        (`wait.call`), and the scheduler later ends the call with `finish` or runs the handler
        again with `rerun`, so the trace shows each call once, when it returns."""
        sc, _ = self.routes.get(nr, NO_ROUTE)
        hooks = self.hooks
        obs = hooks.observer if proc.traced else None         # (observer_for, without a call)
        if self._on_enter:
            hooks.fire("syscall_enter", proc, nr, args)
        state = obs.syscall_enter(proc, nr, sc, args) if obs is not None else None
        call = (nr, sc, args, state)
        faked = hooks.intercept.enter(proc, nr, sc, args)
        if faked is not None:               # denied or faked: the handler does not run
            ret = faked
        else:
            ret = self._handle(proc, call)
        return self.finish(proc, call, ret)

    def pids(self) -> List[int]:
        """The pids of the live processes, in the scheduler's order (for /proc)."""
        return [p.pid for p in self.sched.procs]

    def process(self, pid: int) -> Optional[Process]:
        """The process with this pid, or None."""
        return next((p for p in self.sched.procs if p.pid == pid), None)

    def observer_for(self, proc: Process):
        """The syscall observer, if this process is traced (without -f: the first one only)."""
        return self.hooks.observer if proc.traced else None

    def rerun(self, proc: Process, call):
        """Run a blocked call's handler again (its thread was woken); may raise Block again."""
        return self.finish(proc, call, self._handle(proc, call))

    def current_call(self, proc: Process):
        """(nr, sc, args, trace state) of the system call proc's thread is in, or None."""
        return proc.thread.call

    def current_call_name(self, proc: Process) -> str:
        call = proc.thread.call
        return call[1].name if call is not None and call[1] is not None else ""

    def _handle(self, proc: Process, call):
        nr, sc, args, state = call
        handler = self.routes.get(nr, NO_ROUTE)[1]
        thread = proc.thread
        thread.call = call
        try:
            if handler is not None:
                return handler(proc, *args)
            return self._unimplemented(nr, sc)
        except Block as b:
            b.wait.call = call
            raise
        except HANDLER_ERRORS as e:
            return handler_error(e)
        except ProcessExit:
            obs = self.observer_for(proc)
            if obs is not None:
                obs.syscall_noreturn(proc, state)
            raise
        finally:
            thread.call = None

    def _unimplemented(self, nr: int, sc: Optional[Syscall]) -> int:
        name = sc.name if sc is not None else f"syscall_{nr:#x}"
        if name not in self.unimplemented_seen:
            self.unimplemented_seen.add(name)
            self.notify(f"system call {name} ({nr}) is not implemented; the program gets ENOSYS")
        return -E.ENOSYS

    def finish(self, proc: Process, call, ret):
        """A call's result reaches the API's intercept and the trace; returns the (final) result.
        Its modelled cost (world.tick_ns) passes here, between its entry and its exit."""
        if call is None:
            return ret
        self.world.extra_ns += self.world.tick_ns
        if self.world.realtime_step_ns != self.vvar_step:
            wall_clock_stepped(self)
        nr, sc, args, state = call
        ic = self.hooks.intercept
        if ic is not None and ret is not NORETURN:
            ret = ic.exit(proc, nr, sc, args, ret)
        obs = self.observer_for(proc)
        if obs is not None:
            obs.syscall_exit(proc, state, ret)
        if self._on_exit and ret is not NORETURN:
            self.hooks.fire("syscall_exit", proc, nr, args, ret)
        if ret in _TO_EINTR:
            return -E.EINTR                 # a handler is about to run: it sees EINTR
        return ret

