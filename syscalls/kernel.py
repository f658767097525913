"""The emulated kernel: processes, their state, and the syscall entry point.

A Process owns one Unicorn machine, its address space, fd table, cwd, signal state and
limits. The Kernel owns what all processes share: the World, the VFS, the options, the
observer that turns syscalls into trace events, and the once-only "not implemented" notes.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from . import errno as E
from .dispatch import load_all, s64
from .files import FdTable
from emutrace.memory import GuestFault, OutOfMemory
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


@dataclass
class SigAction:
    handler: int = 0          # SIG_DFL
    flags: int = 0
    restorer: int = 0
    mask: int = 0


@dataclass
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


class Kernel:
    def __init__(self, world, vfs: Vfs, max_procs: int = 64, notify: Callable[[str], None] = None):
        self.world = world
        self.vfs = vfs
        self.max_procs = max_procs
        self.handlers = load_all()
        self.observer = None                # receives syscall_enter/syscall_exit
        self.on_new_machine = None          # called when exec gives a process a fresh machine
        self.on_mmap = None                 # called for each file-backed mmap (module discovery)
        self.on_exec = None
        self.max_mem = 4 << 30
        self.notify = notify or (lambda msg: print(f"emutrace: {msg}", file=sys.stderr, flush=True))
        self.unimplemented_seen: set = set()
        self.counts: Dict[str, int] = {}

    def syscall(self, proc: Process, nr: int, args: tuple):
        """Run one system call; returns the raw result or NORETURN."""
        self.world.tick()
        sc: Optional[Syscall] = BY_NR.get(nr)
        obs = self.observer
        state = obs.syscall_enter(proc, nr, sc, args) if obs is not None else None
        handler = self.handlers.get(sc.name) if sc is not None else None
        if handler is None:
            name = sc.name if sc is not None else f"syscall_{nr:#x}"
            if name not in self.unimplemented_seen:
                self.unimplemented_seen.add(name)
                self.notify(f"system call {name} ({nr}) is not implemented; the program gets ENOSYS")
            ret = -E.ENOSYS
        else:
            try:
                ret = handler(proc, *args)
            except VfsError as e:
                ret = -e.errno
            except GuestFault:
                ret = -E.EFAULT
            except OutOfMemory:
                ret = -E.ENOMEM
            except ProcessExit as e:
                if obs is not None:
                    obs.syscall_noreturn(proc, state)
                raise
        if obs is not None:
            obs.syscall_exit(proc, state, ret)
        return ret


def errno_result(fn):
    """Decorator for helpers that return -errno on VfsError (used outside dispatch)."""
    def wrapped(*a, **kw):
        try:
            return fn(*a, **kw)
        except VfsError as e:
            return -e.errno
    return wrapped


__all__ = ["Kernel", "Process", "Thread", "SigAction", "ProcessExit", "NORETURN", "s64"]
