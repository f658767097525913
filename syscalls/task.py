"""Processes and threads (Linux's tasks): their state, the exceptions that end or stop them,
and the few helpers every handler uses. The Kernel (kernel.py) runs them; handlers receive a
Process and import this module, never the Kernel's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

from emutrace.record import field, record

from emutrace.kernel import jobctl
from emutrace.kernel.files import FdTable
from emutrace.linux.resource import (RLIMIT_AS, RLIMIT_CORE, RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_STACK,
                                     RLIM_INFINITY)

if TYPE_CHECKING:                     # (annotation only: the Kernel imports every handler)
    from emutrace.kernel.kernel import Kernel



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
    call: object = field(default=None, repr=False)  # (nr, sc, args, state) while a handler runs (kernel.current_call)
    insns: int = 0                     # guest instructions it retired in slices that ended (docs/time.md)
    sched_policy: int = 0              # SCHED_OTHER, or what sched_setscheduler set (schedpolicy.py)


class Process:
    def __init__(self, kernel: "Kernel", pid: int, ppid: int, machine, aspace, fds: FdTable, cwd: str):
        self.kernel = kernel
        self.pid, self.ppid = pid, ppid
        self.machine = machine
        self.aspace = aspace
        self.fds = fds
        self.cwd = cwd
        self.umask = 0o022
        self.cpu_insns = 0                  # instructions its threads retired in ended slices
        self.posix_timers = None            # timer_create's timers by id (posix_timers.py), on first use
        self.next_timer_id = 0
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
        self.modules = []                   # emutrace.loader.modules.Module, in load order
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
        self.stopped = 0                          # the stop signal it is stopped by (jobctl.py)
        self.job_report = None                    # (CLD_STOPPED or CLD_CONTINUED, signal) for wait
        self.comm: Optional[str] = None           # prctl(PR_SET_NAME); None: the program's file name
        self.execfn = ""                          # AT_EXECFN: the name as given to execve (loader/exec.py)
        self.vvar: Optional[int] = None            # the vDSO's data page (kernel/vvar.py), if mapped
        self.service_page: Optional[int] = None   # emutrace's page for calls into the guest (loader/callguest.py)

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
        jobctl.on_send(self, signo)                 # SIGCONT continues now; stops drop SIGCONT
        target = thread.pending if thread else self.pending
        if signo < 32 and any(i["si_signo"] == signo for i in target):
            return          # standard signals do not queue
        target.append(info)
        self.stop_requested = True

    def deliverable(self) -> bool:
        mask = self.thread.sigmask
        return any(not (mask >> (i["si_signo"] - 1)) & 1 for i in self.thread.pending + self.pending)
