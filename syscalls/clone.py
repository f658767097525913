"""Processes and threads: clone, clone3, fork and vfork; a thread's exit; a process's end
(zombie, SIGCHLD to its parent, orphans); wait4 and waitid; kill and tgkill between processes.

A thread (CLONE_VM|CLONE_THREAD) joins its process and shares its Unicorn engine: it starts
with the caller's registers (rax 0, its own stack and TLS). A new process gets its own
Process: with CLONE_VM (vfork, posix_spawn) it runs on its parent's engine and address space
while the parent waits; without it (fork) it gets a new engine and a copy of every private
mapping, bytes and permissions (no copy-on-write; pages still zero are not copied), while
every MAP_SHARED mapping is mapped onto the same host memory as the parent's (shared, not
copied). Its fd table is a
copy sharing the open file descriptions (CLONE_FILES shares the table itself).
"""
from __future__ import annotations

import struct

from emutrace.machine.cpu import FORK_TCG_BUFFER
from emutrace.machine.budget import OutOfMemory
from emutrace.machine.guestaccess import GuestFault

from emutrace.kernel import errno as E
from emutrace.kernel import jobctl
from emutrace.kernel.anonfd import install as install_fd
from emutrace.kernel.layouts import CLONE_ARGS, RUSAGE, SIGINFO
from emutrace.kernel.pidfd import PidFd, pidfd_of
from emutrace.kernel.posix_timers import drop_timers
from emutrace.kernel.sched import Block, Wait
from emutrace.kernel.task import NORETURN, ProcessExit, Process, SigAction, Thread
from emutrace.linux.fcntl import O_NONBLOCK
from emutrace.linux.resource import RLIMIT_NPROC
from emutrace.linux.sched import (CLONE_CHILD_CLEARTID, CLONE_CHILD_SETTID, CLONE_CLEAR_SIGHAND, CLONE_DETACHED, CLONE_FILES, CLONE_FS,
                                  CLONE_INTO_CGROUP, CLONE_IO, CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID,
                                  CLONE_NEWUSER, CLONE_NEWUTS, CLONE_PARENT, CLONE_PARENT_SETTID, CLONE_PIDFD, CLONE_PTRACE, CLONE_SETTLS,
                                  CLONE_SIGHAND, CLONE_SYSVSEM, CLONE_THREAD, CLONE_UNTRACED, CLONE_VFORK, CLONE_VM, P_ALL, P_PGID,
                                  P_PID, P_PIDFD, WCONTINUED, WEXITED, WNOHANG, WNOWAIT, WSTOPPED, WUNTRACED)
from emutrace.linux.signal import (CLD_DUMPED, CLD_EXITED, CLD_KILLED, NSIG, SA_NOCLDWAIT, SIGCHLD, SIGKILL, SIG_IGN)

CSIGNAL = 0x000000FF
NAMESPACES = (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID
              | CLONE_NEWNET)
CLONE_ARGS_SIZE_VER0 = 64

__WNOTHREAD, __WALL, __WCLONE = 0x20000000, 0x40000000, 0x80000000


# ---------------------------------------------------------------- creation

def sys_clone(proc, flags, stack, ptid, ctid, tls, *_):
    # x86-64 argument order: flags, stack, parent_tid, child_tid, tls
    if flags & CLONE_PIDFD and flags & CLONE_PARENT_SETTID:
        return -E.EINVAL                     # clone() has one pointer for both: the pidfd takes it
    return do_clone(proc, flags & ~CSIGNAL & 0xFFFFFFFF, flags & CSIGNAL, stack, ptid, ctid, tls,
                    pidfd_at=ptid)


CLONE_ARGS_SIZE_VER2 = 88     # with set_tid and cgroup: all the fields this kernel knows


def _tail_not_zero(proc, addr: int, n: int) -> bool:
    """Linux's check_zeroed_user: the bytes a newer caller added, read a word at a time until
    one is not zero (E2BIG then, even when later bytes cannot be read); a fault before that is
    EFAULT (GuestFault, raised)."""
    end = addr + max(0, n)
    while addr < end:
        step = min(8 - (addr & 7), end - addr)
        if any(proc.aspace.read(addr, step)):
            return True
        addr += step
    return False


def sys_clone3(proc, uargs, size, *_):
    if size < CLONE_ARGS_SIZE_VER0:
        return -E.EINVAL
    if size > 4096:
        return -E.E2BIG
    raw = proc.aspace.read(uargs, min(size, CLONE_ARGS_SIZE_VER2))
    a = CLONE_ARGS.unpack(raw[:CLONE_ARGS.size])
    if _tail_not_zero(proc, uargs + CLONE_ARGS_SIZE_VER2, size - CLONE_ARGS_SIZE_VER2):
        return -E.E2BIG                                   # fields this kernel does not know
    set_tid, set_tid_size = struct.unpack_from("<QQ", raw, 64) if size >= 80 else (0, 0)
    flags = a["flags"]
    # copy_clone_args_from_user: a set_tid array needs its size and the other way round (both
    # EINVAL), and more than one pid is deeper than the sandbox's one pid namespace (EINVAL);
    # asking for one given pid is not supported here (EINVAL as well, where Linux may give it)
    if set_tid or set_tid_size or flags & (CLONE_INTO_CGROUP | CSIGNAL | CLONE_DETACHED):
        return -E.EINVAL
    if a["exit_signal"] > 64 or (flags & CLONE_THREAD and a["exit_signal"]):
        return -E.EINVAL
    stack, stack_size = a["stack"], a["stack_size"]
    if bool(stack) != bool(stack_size):
        return -E.EINVAL
    sp = stack + stack_size if stack else 0
    return do_clone(proc, flags, a["exit_signal"], sp, a["parent_tid"], a["child_tid"], a["tls"],
                    pidfd_at=a["pidfd"])


def sys_fork(proc, *_):
    return do_clone(proc, 0, SIGCHLD, 0, 0, 0, 0)


def sys_vfork(proc, *_):
    return do_clone(proc, CLONE_VM | CLONE_VFORK, SIGCHLD, 0, 0, 0, 0)


def _put_tid(aspace, addr: int, tid: int) -> None:
    """CLONE_PARENT_SETTID / CLONE_CHILD_SETTID: Linux's put_user, whose failure it ignores (the
    clone succeeds with a bad or NULL address; only CLONE_PIDFD's fails with EFAULT)."""
    try:
        aspace.write_u32(addr, tid)
    except GuestFault:
        pass


def do_clone(proc, flags: int, exit_signal: int, stack: int, ptid: int, ctid: int, tls: int,
             pidfd_at: int = 0):
    if flags & CLONE_THREAD and not flags & CLONE_SIGHAND:
        return -E.EINVAL
    if flags & CLONE_SIGHAND and not flags & CLONE_VM:
        return -E.EINVAL
    if flags & CLONE_CLEAR_SIGHAND and flags & CLONE_SIGHAND:
        return -E.EINVAL
    if flags & NAMESPACES:
        return -E.EPERM                      # no namespaces in here
    if flags & CLONE_PIDFD:
        if flags & (CLONE_THREAD | CLONE_DETACHED):
            return -E.EINVAL                 # a pidfd names a process (Linux 6.1)
        proc.aspace.check(pidfd_at, 4, 2)       # EFAULT and EMFILE before there is a child
        if len(proc.fds.fds) >= min(proc.rlimit(7), 1 << 20):
            return -E.EMFILE
    kernel = proc.kernel
    sched = kernel.sched
    if sched.thread_count() >= kernel.limits.max["threads"]:    # kernel.threads-max
        return -E.EAGAIN
    if not flags & CLONE_THREAD:
        live = sum(1 for p in sched.procs if not p.reaped)
        if live >= min(proc.rlimit(RLIMIT_NPROC), kernel.max_procs):
            return -E.EAGAIN                 # RLIMIT_NPROC / --max-procs: a fork bomb ends here
    m = proc.machine
    parent_thread = proc.thread
    # in the syscall hook rip is still at the `syscall` instruction; the child starts after it
    regs = {"rax": 0, "rip": m.reg("rip") + 2}
    if stack:
        regs["rsp"] = stack
    if flags & CLONE_SETTLS:
        regs["fs_base"] = tls
    if not flags & (CLONE_THREAD | CLONE_VM):
        copied = _copy_memory(proc)          # (OutOfMemory here: ENOMEM, and no child, no pid used)
    tid = kernel.world.new_pid()
    child_thread = Thread(tid, sigmask=parent_thread.sigmask)
    if flags & CLONE_CHILD_CLEARTID:
        child_thread.clear_child_tid = ctid
    if flags & CLONE_VM and not flags & CLONE_VFORK:
        child_thread.altstack_sp, child_thread.altstack_size, child_thread.altstack_flags = 0, 0, 2
    else:
        child_thread.altstack_sp = parent_thread.altstack_sp
        child_thread.altstack_size = parent_thread.altstack_size
        child_thread.altstack_flags = parent_thread.altstack_flags

    if flags & CLONE_THREAD:
        child_thread.ctx = _derived_context(m, regs)
        proc.threads.append(child_thread)
        sched.admit(child_thread, proc)
        if flags & CLONE_PARENT_SETTID:
            _put_tid(proc.aspace, ptid, tid)
        if flags & CLONE_CHILD_SETTID:
            _put_tid(proc.aspace, ctid, tid)
        return tid

    child = Process(kernel, tid, proc.pid, None, None, None, proc.cwd)
    child.thread = child_thread
    child.threads = [child_thread]
    if flags & CLONE_FILES:
        child.fds = proc.fds
        proc.fds.users = getattr(proc.fds, "users", 1) + 1
    else:
        child.fds = proc.fds.fork()
    child.umask = proc.umask
    child.exe, child.argv = proc.exe, list(proc.argv)
    child.comm = proc.comm
    if flags & CLONE_SIGHAND:
        child.sigactions = proc.sigactions
    elif flags & CLONE_CLEAR_SIGHAND:
        child.sigactions = {s: SigAction(handler=SIG_IGN) for s, a in proc.sigactions.items() if a.handler == SIG_IGN}
    else:
        child.sigactions = {s: SigAction(a.handler, a.flags, a.restorer, a.mask) for s, a in proc.sigactions.items()}
    child.rlimits = {k: list(v) for k, v in proc.rlimits.items()}
    parent = proc.parent if flags & CLONE_PARENT else proc
    child.parent = parent
    child.ppid = parent.pid if parent is not None else proc.ppid
    child.pgid, child.sid = proc.pgid, proc.sid
    child.exit_signal = exit_signal
    child.traced = proc.traced and bool(kernel.follow)
    if flags & CLONE_VM:
        # runs on the parent's engine and memory (vfork, posix_spawn): the parent waits
        child.machine, child.aspace = m, proc.aspace
        proc.aspace.adopt()
        child.modules = proc.modules
        child.service_page = proc.service_page
        child.vvar = proc.vvar
        child_thread.ctx = _derived_context(m, regs)
    else:
        _fork_machine(proc, child, regs, *copied)
    if parent is not None:
        parent.children.append(child)
    sched.admit_process(child)
    if flags & CLONE_PIDFD:
        # in the caller's table, after the child's was copied (shared with CLONE_FILES, as Linux)
        proc.aspace.write_u32(pidfd_at, install_fd(proc, PidFd(kernel, child, 0), True))
    if flags & CLONE_PARENT_SETTID:
        _put_tid(proc.aspace, ptid, tid)
    if flags & CLONE_CHILD_SETTID:
        _put_tid(child.aspace, ctid, tid)
    kernel.hooks.fire("fork", proc, child)
    if flags & CLONE_VFORK:
        child.vfork_done = False
        raise Block(Wait("vfork", f"vfork child {tid} to exec or exit", parent_thread,
                         ready=lambda: child.vfork_done, result=tid, restart="none"))
    return tid


def _derived_context(m, regs: dict):
    """The CPU state of a child on the same engine: the caller's, with `regs` changed."""
    uc = m.uc
    saved = uc.context_save()
    for r, v in regs.items():
        m.set_reg(r, v)
    ctx = uc.context_save()
    uc.context_restore(saved)
    return ctx


def _copy_memory(proc):
    """A new engine and a copy of the parent's memory for a forked child, or OutOfMemory
    (ENOMEM, before the child exists) when --max-mem cannot hold the copy and its engine."""
    engines = proc.kernel.engines
    cm, cas = engines.new(FORK_TCG_BUFFER)
    if proc.kernel.hooks.wants("code_unpacked"):
        cas.watch_code(proc.kernel.hooks)
    try:
        copy_address_space(proc.aspace, cas)
    except OutOfMemory:
        engines.discard(cas)                     # (gives back what the partial copy holds)
        raise
    return cm, cas


def _fork_machine(proc, child, regs: dict, cm, cas) -> None:
    """The child runs on its own engine and copied memory, with the parent's registers."""
    kernel = proc.kernel
    pm = proc.machine
    gprs = pm.save_gprs()
    gprs.update(regs)
    cm.load_gprs(gprs)
    cm.set_fp_state(pm.fp_state())
    child.machine, child.aspace = cm, cas
    child.modules = list(proc.modules)
    child.service_page = proc.service_page
    child.vvar = proc.vvar
    if not kernel.hooks.fire("new_machine", child):
        kernel.sched.load_new_machine(child)


def copy_address_space(src, dst) -> None:
    """Every mapping of src into dst: a private one with its permissions and the pages src has
    touched, a shared one onto the same memory (emutrace/memory.py)."""
    dst.copy_from(src)


# ---------------------------------------------------------------- ends

def exit_thread(proc, status: int):
    """exit() of one thread while others remain: its robust futexes and clear_child_tid are
    released (that is what pthread_join waits for) and it leaves the run queue."""
    kernel = proc.kernel
    t = proc.thread
    kernel.sched.futex.thread_died(proc, t)
    if t in proc.threads:
        proc.threads.remove(t)
    kernel.sched.remove(t)
    proc.request_stop()
    return NORETURN


def wait_status(exc: ProcessExit) -> int:
    if exc.signal:
        return (exc.signal & 0x7F) | (0x80 if exc.core else 0)
    return (exc.status & 0xFF) << 8


def end_process(proc, exc: ProcessExit) -> None:
    """The process ended (exit_group, a fatal signal, its last thread's exit): every thread
    goes, its files close, its vfork parent goes on, its children are orphaned, and it becomes
    a zombie its parent is told about with SIGCHLD (or is reaped at once)."""
    if proc.exit is not None:
        return
    kernel = proc.kernel
    sched = kernel.sched
    # keep the status, not the traceback: its frames hold the process's machine
    exc = ProcessExit(exc.status, exc.signal, exc.core)
    proc.exit = exc
    proc.wait_status = wait_status(exc)
    shared = any(p is not proc and p.exit is None and p.machine is proc.machine for p in sched.procs)
    # robust mutexes in MAP_SHARED memory outlive the process: their waiters must hear of its death
    shared = shared or (proc.aspace is not None and bool(proc.aspace.shared()))
    for t in list(proc.threads):
        if shared and proc.machine is not None:
            sched.futex.thread_died(proc, t)       # the memory lives on: clear_child_tid matters
        sched.remove(t)
    kernel.engines.leave(proc.aspace)              # (its memory goes back to --max-mem)
    fds = proc.fds
    if fds is not None:
        fds.users = getattr(fds, "users", 1) - 1
        if fds.users <= 0:
            fds.close_all()
    proc.vfork_done = True
    proc.alarm_at_ns = 0
    drop_timers(proc)
    proc.pending.clear()
    for c in list(proc.children):
        c.parent = None
        c.ppid = 1                               # reparented to init, which reaps zombies
        if c.exit is not None:
            reap(c)
    proc.children = []
    parent = proc.parent
    if parent is None or parent.exit is not None:
        reap(proc)
        return
    sig = proc.exit_signal
    act = parent.sigactions.get(SIGCHLD)
    if sig == SIGCHLD and act is not None and (act.handler == SIG_IGN or act.flags & SA_NOCLDWAIT):
        reap(proc)                               # the parent said it will not wait
    if sig:
        code = CLD_DUMPED if exc.core else CLD_KILLED if exc.signal else CLD_EXITED
        parent.queue_signal({"si_signo": sig, "si_code": code, "si_pid": proc.pid,
                             "si_uid": kernel.world.uid, "si_status": exc.signal or exc.status,
                             "si_utime": 0, "si_stime": 0})


def reap(proc) -> None:
    proc.reaped = True
    sched = proc.kernel.sched
    if proc in sched.procs:
        sched.procs.remove(proc)
    parent = proc.parent
    if parent is not None and proc in parent.children:
        parent.children.remove(proc)
        _forget_reaped(proc)


# What a reaped process keeps: its ids, program, arguments, directory and end (what the run's
# record of it shows: the report, session.processes). The rest only a live process or a zombie
# needs; dropped, so a run of thousands of processes keeps ~1.5 KB for each, not ~4 KB.
_REAPED_EMPTY = {"rlimits": dict, "sigactions": dict, "itimers": dict, "pending": list, "modules": list,
                 "children": list}


def _forget_reaped(proc) -> None:
    """A process its parent reaped (the first process, reaped by nobody, stays inspectable)."""
    for name, empty in _REAPED_EMPTY.items():
        setattr(proc, name, empty())
    proc.fds = None


def release_process(proc) -> None:
    """Drop an ended process's engine and memory (the engine is freed with its last user)."""
    m, a = proc.machine, proc.aspace

    def holds(v):
        if isinstance(v, (tuple, list)):
            return any(holds(x) for x in v)
        return v is not None and (v is m or v is a or getattr(v, "aspace", None) is a)
    for k, v in list(vars(proc).items()):
        if k != "modules" and holds(v):
            setattr(proc, k, None)


def exec_done(proc) -> None:
    """After a successful execve: other threads end, the caller takes the leader's id, and a
    vfork parent goes on."""
    sched = proc.kernel.sched
    t = proc.thread
    for o in list(proc.threads):
        if o is not t:
            sched.remove(o)
    proc.threads = [t]
    t.tid = proc.pid
    t.robust_list = 0
    t.clear_child_tid = 0
    proc.vfork_done = True
    drop_timers(proc)                      # exec ends the POSIX timers (not alarm(), as Linux)
    sched.load_new_machine(proc)


# ---------------------------------------------------------------- wait4 / waitid

def _matches(proc, c, pid: int, options: int) -> bool:
    if pid > 0:
        ok = c.pid == pid
    elif pid == 0:
        ok = c.pgid == proc.pgid
    elif pid == -1:
        ok = True
    else:
        ok = c.pgid == -pid
    if not ok:
        return False
    if options & __WALL:
        return True
    return (c.exit_signal != SIGCHLD) == bool(options & __WCLONE)


def _find(proc, pid: int, options: int, exited: bool = True, stopped: bool = False,
          continued: bool = False):
    """(matching children, the first of them with something to report or None, and what: None
    for its exit, else its job_report)."""
    kids = [c for c in proc.children if _matches(proc, c, pid, options)]
    for c in kids:
        if c.exit is not None and exited:
            return kids, c, None
        report = jobctl.reportable(c, stopped, continued)
        if report is not None:
            return kids, c, report
    return kids, None, None


def _wait_block(proc, kids, what: str, exited: bool = True, stopped: bool = False,
                continued: bool = False):
    def ready():
        return any((c.exit is not None and exited) or c.reaped
                   or jobctl.reportable(c, stopped, continued) is not None for c in kids)
    raise Block(Wait("child", what, proc.thread, ready=ready, restart="sys"))


def wait_child(proc, pid: int, status: int, options: int, rusage: int) -> int:
    options &= 0xFFFFFFFF
    if options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE):
        return -E.EINVAL
    stopped, continued = bool(options & WUNTRACED), bool(options & WCONTINUED)
    kids, z, report = _find(proc, pid, options, True, stopped, continued)
    if not kids:
        return -E.ECHILD
    if z is None:
        if options & WNOHANG:
            return 0
        _wait_block(proc, kids, "a child to exit" if pid == -1 else f"child {pid} to exit" if pid > 0
                    else "a child of its process group to exit", True, stopped, continued)
    if status:
        proc.aspace.write_u32(status, z.wait_status if report is None else jobctl.wait_status(report))
    if rusage:
        proc.aspace.write(rusage, RUSAGE.pack())
    if report is not None:
        z.job_report = None                 # (reported once; the child lives on)
        return z.pid
    reap(z)
    return z.pid


def waitid_child(proc, idtype: int, id_: int, infop: int, options: int) -> int:
    options &= 0xFFFFFFFF
    idtype &= 0xFFFFFFFF
    if options & ~(WNOHANG | WSTOPPED | WEXITED | WCONTINUED | WNOWAIT | __WNOTHREAD | __WALL | __WCLONE):
        return -E.EINVAL
    if not options & (WEXITED | WSTOPPED | WCONTINUED):
        return -E.EINVAL
    nonblocking = False
    if idtype == P_ALL:
        pid = -1
    elif idtype == P_PID:
        if id_ <= 0:
            return -E.EINVAL
        pid = id_
    elif idtype == P_PGID:
        if id_ < 0:
            return -E.EINVAL
        pid = -id_ if id_ else 0
    elif idtype == P_PIDFD:
        pidfd = pidfd_of(proc, id_)                # EBADF for an fd that is no pidfd
        pid = pidfd.target.pid
        nonblocking = bool(pidfd.flags & O_NONBLOCK)
    else:
        return -E.EINVAL
    exited, stopped, continued = bool(options & WEXITED), bool(options & WSTOPPED), bool(options & WCONTINUED)
    kids, z, report = _find(proc, pid, options, exited, stopped, continued)
    if not kids:
        return -E.ECHILD
    if z is None:
        if nonblocking and not options & WNOHANG:
            return -E.EAGAIN                      # a non-blocking pidfd of a running child
        if options & WNOHANG:
            if infop:
                proc.aspace.write(infop, SIGINFO.pack())
            return 0
        _wait_block(proc, kids, "a child to exit" if exited else "a child to stop or continue",
                    exited, stopped, continued)
    if report is not None:                        # stopped or continued: it lives on
        if infop:
            proc.aspace.write(infop, SIGINFO.pack(si_signo=SIGCHLD, si_code=report[0], si_pid=z.pid,
                                               si_uid=proc.kernel.world.uid, si_status=report[1]))
        if not options & WNOWAIT:
            z.job_report = None
        return 0
    if infop:
        exc = z.exit
        code = CLD_DUMPED if exc.core else CLD_KILLED if exc.signal else CLD_EXITED
        proc.aspace.write(infop, SIGINFO.pack(si_signo=SIGCHLD, si_code=code, si_pid=z.pid,
                                           si_uid=proc.kernel.world.uid,
                                           si_status=exc.signal or exc.status))
    if not options & WNOWAIT:
        reap(z)
    return 0


# ---------------------------------------------------------------- kill between processes

def _sig_info(proc, sig: int, code: int = 0) -> dict:
    return {"si_signo": sig, "si_code": code, "si_pid": proc.pid, "si_uid": proc.kernel.world.uid}


def kill_process(proc, pid: int, sig: int) -> int:
    """kill(2): pid > 0 one process, 0 the caller's group, -1 everyone but init, < -1 a group."""
    if not 0 <= sig <= NSIG:
        return -E.EINVAL
    procs = [p for p in proc.kernel.sched.procs if not p.reaped]
    if pid > 0:
        targets = [p for p in procs if p.pid == pid]
    elif pid == 0:
        targets = [p for p in procs if p.pgid == proc.pgid]
    elif pid == -1:
        targets = [p for p in procs if p is not proc]     # all but the caller (and init)
    else:
        targets = [p for p in procs if p.pgid == -pid]
    if not targets:
        return -E.ESRCH
    if sig:
        for p in targets:
            if p.exit is None:
                p.queue_signal(_sig_info(proc, sig))
    return 0


def kill_thread(proc, tgid, tid: int, sig: int) -> int:
    """tgkill/tkill to a thread of any process."""
    if not 0 <= sig <= NSIG or tid <= 0:
        return -E.EINVAL
    t = proc.kernel.sched.find_thread(tid)
    if t is None or (tgid is not None and t.proc.pid != tgid):
        return -E.ESRCH
    if sig:
        t.proc.queue_signal(_sig_info(proc, sig, -6), thread=t)      # SI_TKILL
    return 0
