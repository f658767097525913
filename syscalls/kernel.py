"""The emulated kernel: processes, their state, and the syscall entry point.

A Process owns one Unicorn machine, its address space, fd table, cwd, signal state and
limits. The Kernel owns what all processes share: the World, the VFS, the options, the
observer that turns syscalls into trace events, and the once-only "not implemented" notes.
"""
from __future__ import annotations

import sys
from typing import Callable, Dict, List, Optional

from emutrace.record import field, record

from . import errno as E
from .dispatch import load_all, s64
from .files import FdTable
from emutrace.memory import GuestFault, OutOfMemory
from .sched import Block
from .table import BY_NR, Syscall
from .vfs import Vfs, VfsError

RLIM_INFINITY = 0xFFFFFFFFFFFFFFFF
RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_CORE = 0, 1, 2, 3, 4
RLIMIT_NOFILE, RLIMIT_AS, RLIMIT_NPROC = 7, 9, 6


class ProcessExit(Exception):
    """The process ended: exit_group, or killed by a signal."""

    def __init__(self, status: int = 0, signal: int = 0, core: bool = False):
        super().__init__(f"exit {status} signal {signal}")
        self.status, self.signal, self.core = status, signal, core


class GuestDeadlock(Exception):
    """Every thread waits for something nothing can provide: the run ends with this message."""


class NoReturn:
    """Marker result: the syscall did not return to the caller in the normal way."""


NORETURN = NoReturn()


@record
class SigAction:
    handler: int = 0          # SIG_DFL
    flags: int = 0
    restorer: int = 0
    mask: int = 0


@record(eq=False)              # a thread is itself: compared and hashed by identity
class Thread:
    tid: int
    sigmask: int = 0
    clear_child_tid: int = 0
    robust_list: int = 0
    robust_len: int = 0
    altstack_sp: int = 0
    altstack_size: int = 0
    altstack_flags: int = 2   # SS_DISABLE
    saved_mask: Optional[int] = None   # rt_sigsuspend's mask to restore after the handler
    pending: List[dict] = field(default_factory=list)
    # scheduling (syscalls/sched.py)
    proc: Optional["Process"] = field(default=None, repr=False)   # the thread group it belongs to
    alive: bool = True
    seq: int = 0                       # creation order: the round-robin order
    ctx: object = field(default=None, repr=False)   # saved CPU state while another thread is loaded
    wait: object = field(default=None, repr=False)  # sched.Wait while blocked in a system call
    resumed: object = field(default=None, repr=False)  # the Wait it woke from, while its handler reruns


class Process:
    def __init__(self, kernel: "Kernel", pid: int, ppid: int, machine, aspace, fds: FdTable, cwd: str):
        self.kernel = kernel
        self.pid, self.ppid = pid, ppid
        self.machine = machine
        self.aspace = aspace
        self.mem = aspace
        self.fds = fds
        self.cwd = cwd
        self.umask = 0o022
        self.exe = ""                       # guest path of the running program
        self.argv: List[str] = []
        self.sigactions: Dict[int, SigAction] = {}
        self.pending: List[dict] = []       # process-directed signals (siginfo dicts)
        self.thread = Thread(pid)
        self.threads = [self.thread]
        self.rlimits = {
            RLIMIT_STACK: [8 << 20, RLIM_INFINITY], RLIMIT_NOFILE: [1024, 1048576],
            RLIMIT_CORE: [0, RLIM_INFINITY], RLIMIT_NPROC: [kernel.max_procs, kernel.max_procs],
            RLIMIT_AS: [RLIM_INFINITY, RLIM_INFINITY], RLIMIT_DATA: [RLIM_INFINITY, RLIM_INFINITY],
        }
        self.modules = []                   # loader.modules.Module, in load order
        self.resume_at: Optional[int] = None   # set by handlers that change rip (execve, signals)
        self.stop_requested = False
        self.exit: Optional[ProcessExit] = None
        self.alarm_at_ns = 0
        self.itimers: Dict[int, List[int]] = {}
        # process tree (syscalls/clone.py)
        self.parent: Optional["Process"] = None    # None: the host, or reparented to init
        self.children: List["Process"] = []        # live children and zombies not yet reaped
        self.pgid = pid
        self.sid = pid
        self.exit_signal = 17                     # SIGCHLD: sent to the parent at exit
        self.wait_status = 0                      # the wait4 status word, once it exited
        self.reaped = False
        self.vfork_done = True                    # False while a vfork parent waits for us
        self.traced = True                        # observers see it (the first process; -f: all)

    # -- helpers handlers use -------------------------------------------------
    def rlimit(self, res: int) -> int:
        return self.rlimits.get(res, [RLIM_INFINITY, RLIM_INFINITY])[0]

    def request_stop(self, resume_at: Optional[int] = None) -> None:
        """Leave emu_start after this syscall; resume at `resume_at` if given."""
        if resume_at is not None:
            self.resume_at = resume_at
        self.stop_requested = True

    def queue_signal(self, info: dict, thread: Optional[Thread] = None) -> None:
        signo = info["si_signo"]
        target = thread.pending if thread else self.pending
        if signo < 32 and any(i["si_signo"] == signo for i in target):
            return          # standard signals do not queue
        target.append(info)
        self.stop_requested = True

    def deliverable(self) -> bool:
        mask = self.thread.sigmask
        return any(not (mask >> (i["si_signo"] - 1)) & 1 for i in self.thread.pending + self.pending)


# What one more emulated process costs the host beyond its guest pages: its Unicorn engine,
# TLB and tables (measured: 5.2 MiB per live small C process, bins/forkstorm). The default
# process limit keeps that within the same budget as one guest's memory (--max-mem), so a
# fork bomb ends at a bound on host memory rather than at a count below what programs fork.
PROCESS_HOST_COST = 8 << 20
MIN_MAX_PROCS = 64


def default_max_procs(max_mem: int) -> int:
    return max(MIN_MAX_PROCS, max_mem // PROCESS_HOST_COST)


class Kernel:
    def __init__(self, world, vfs: Vfs, max_procs: Optional[int] = None, notify: Callable[[str], None] = None):
        self.world = world
        self.vfs = vfs
        self.chosen_max_procs = max_procs   # --max-procs, or None: default_max_procs(max_mem)
        self.handlers = load_all()
        self.observer = None                # receives syscall_enter/syscall_exit
        self.intercept = None               # the API's hook: enter() may fake a result, exit() may change it
        self.on_new_machine = None          # called when exec gives a process a fresh machine
        self.on_mmap = None                 # called for each file-backed mmap (module discovery)
        self.on_exec = None
        self.max_mem = 4 << 30
        self.notify = notify or (lambda msg: print(f"emutrace: {msg}", file=sys.stderr, flush=True))
        self.unimplemented_seen: set = set()
        self._calls: Dict[int, tuple] = {}     # id(thread) → the call its handler is running
        self.follow = False                 # -f: child processes are traced too
        from .sched import Scheduler
        self.sched = Scheduler(self)
        from . import clone
        clone.install(self)
        self.counts: Dict[str, int] = {}


    @property
    def max_procs(self) -> int:
        return self.chosen_max_procs or default_max_procs(self.max_mem)

    def syscall(self, proc: Process, nr: int, args: tuple):
        """Run one system call; returns the raw result or NORETURN.

        A handler that must wait raises sched.Block; the Block leaves here carrying the call
        (`wait.call`), and the scheduler later ends the call with `finish` or runs the handler
        again with `rerun`, so the trace shows each call once, when it returns."""
        self.world.tick()
        sc: Optional[Syscall] = BY_NR.get(nr)
        obs = self.observer_for(proc)
        state = obs.syscall_enter(proc, nr, sc, args) if obs is not None else None
        call = (nr, sc, args, state)
        ic = self.intercept
        faked = ic.enter(proc, nr, sc, args) if ic is not None else None
        if faked is not None:               # denied or faked: the handler does not run
            ret = faked
        else:
            ret = self._handle(proc, call)
        return self.finish(proc, call, ret)

    def observer_for(self, proc: Process):
        """The syscall observer, if this process is traced (without -f: the first one only)."""
        return self.observer if proc.traced else None

    def rerun(self, proc: Process, call):
        """Run a blocked call's handler again (its thread was woken); may raise Block again."""
        return self.finish(proc, call, self._handle(proc, call))

    def current_call(self, proc: Process):
        """(nr, sc, args, trace state) of the system call proc's thread is in, or None."""
        return self._calls.get(id(proc.thread))

    def current_call_name(self, proc: Process) -> str:
        call = self._calls.get(id(proc.thread))
        return call[1].name if call is not None and call[1] is not None else ""

    def _handle(self, proc: Process, call):
        nr, sc, args, state = call
        handler = self.handlers.get(sc.name) if sc is not None else None
        key = id(proc.thread)
        calls = self._calls
        calls[key] = call
        try:
            if handler is not None:
                return handler(proc, *args)
            return self._unimplemented(nr, sc)
        except Block as b:
            b.wait.call = call
            raise
        except VfsError as e:
            return -e.errno
        except GuestFault:
            return -E.EFAULT
        except OutOfMemory:
            return -E.ENOMEM
        except ProcessExit:
            obs = self.observer_for(proc)
            if obs is not None:
                obs.syscall_noreturn(proc, state)
            raise
        finally:
            calls.pop(key, None)

    def _unimplemented(self, nr: int, sc: Optional[Syscall]) -> int:
        name = sc.name if sc is not None else f"syscall_{nr:#x}"
        if name not in self.unimplemented_seen:
            self.unimplemented_seen.add(name)
            self.notify(f"system call {name} ({nr}) is not implemented; the program gets ENOSYS")
        return -E.ENOSYS

    def finish(self, proc: Process, call, ret):
        """A call's result reaches the API's intercept and the trace; returns the (final) result."""
        if call is None:
            return ret
        nr, sc, args, state = call
        ic = self.intercept
        if ic is not None and ret is not NORETURN:
            ret = ic.exit(proc, nr, sc, args, ret)
        obs = self.observer_for(proc)
        if obs is not None:
            obs.syscall_exit(proc, state, ret)
        return ret


__all__ = ["Kernel", "Process", "Thread", "SigAction", "ProcessExit", "NORETURN", "s64"]
