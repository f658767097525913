"""A Run runs one program inside the emulator and reports what happens to observers (the core of
a session: the Python API's emutrace.Session drives one, as the command line does).

It builds the World, the VFS and the Kernel, execs the program as the kernel would, installs
the two hooks every run needs (the `syscall` instruction and invalid memory / CPU exceptions),
and runs the loop that turns faults into signals and ends in an exit status. The CLI and the
Python API both drive this class; it never prints a trace itself.
"""
from __future__ import annotations

import time as _time
from collections import Counter
from typing import List, Optional, Tuple

from unicorn import UcError, UC_HOOK_INTR
from unicorn import unicorn_const as UCC

from emutrace.kernel import errno as E
from emutrace.kernel import procfs
from emutrace.kernel.binfmt import ExecError
from emutrace.kernel.guestlocale import default_lang
from emutrace.kernel.files import FdTable, HostStream
from emutrace.kernel.kernel import Kernel
from emutrace.kernel.limits import BY_NAME, KernelLimits
from emutrace.kernel.signals import deliver_pending, force_signal
from emutrace.kernel.task import GuestDeadlock, Process, ProcessExit
from emutrace.kernel.vfs import Vfs, VfsError
from emutrace.loader.elf import ElfError, memoized, read_elf
from emutrace.loader.exec import exec_into
from emutrace.loader.modules import Module, module_at

from emutrace.kernel.world import World
from emutrace.errors import EmutraceError
from emutrace.machine.faultaddr import exact_address
from emutrace.machine.phases import Hooks
from emutrace.record import field, record
from emutrace.tsc import TscObserver
from emutrace.linux.fcntl import O_RDONLY, O_WRONLY, S_IFREG
from emutrace.linux.signal import (FPE_INTDIV, ILL_ILLOPN, SEGV_ACCERR, SEGV_MAPERR, SIGBUS, SIGFPE, SIGILL, SIGKILL, SIGSEGV, SIGTRAP,
                                   SI_KERNEL, TRAP_BRKPT)

DEFAULT_MAX_MEM = 4 << 30
# the x86-64 level the CPU model offers (machine/cpu.py's CPUID): Unicorn 2.1 has no AVX
CPU_LEVEL = "x86-64-v2"

_UNMAPPED = {UCC.UC_ERR_READ_UNMAPPED, UCC.UC_ERR_WRITE_UNMAPPED, UCC.UC_ERR_FETCH_UNMAPPED}
_PROT = {UCC.UC_ERR_READ_PROT, UCC.UC_ERR_WRITE_PROT, UCC.UC_ERR_FETCH_PROT}


class LimitReached(EmutraceError):
    """--timeout, --max-insns or a deadlock ended the run."""


class StartLimit(LimitReached):
    """--max-mem is too small for the program to start."""


@record
class Options:
    root: str = "/"
    rw: Tuple[Tuple[str, str], ...] = ()
    cwd: Optional[str] = None
    loader: str = "auto"                  # auto | interp | builtin
    max_mem: int = DEFAULT_MAX_MEM
    max_procs: Optional[int] = None       # None: a bound on host memory (kernel.default_max_procs)
    max_disk: int = BY_NAME["disk"].default    # the overlay's quota (--max-disk)
    limits: Tuple[Tuple[str, int], ...] = ()   # --limit NAME=N: other rows of emutrace.kernel.limits.BOUNDS
    timeout: float = 0.0                  # wall seconds, 0 = none
    max_insns: int = 0                    # 0 = none
    net: bool = False
    vdso: bool = True                     # map emutrace's vDSO (--no-vdso: off)
    host_fds: Tuple[int, ...] = ()        # host descriptors (>= 3) the guest gets at the same numbers


@record
class Result:
    """How the run ended; through the Python API (emutrace.api, which re-exports it) also what
    it printed (with capture_output) and what it called."""
    status: int = 0                       # exit status (0-255) when the program exited
    signal: int = 0                       # the Linux signal that killed it, else 0
    core: bool = False
    stdout: Optional[bytes] = None        # the guest's fd 1, with capture_output=True
    stderr: Optional[bytes] = None        # the guest's fd 2, with capture_output=True
    calls: Counter = field(default_factory=Counter)      # library function name → calls traced
    syscalls: Counter = field(default_factory=Counter)   # syscall name → times made
    events: int = 0                       # trace events produced

    @property
    def exit_code(self) -> int:
        """What a shell would report: the status, or 128 + signal."""
        return 128 + self.signal if self.signal else self.status

    @property
    def ok(self) -> bool:
        return self.status == 0 and not self.signal


class Run:
    """One program's run: its World, VFS, Kernel and processes, and the loop that runs them. (Its
    objects are called `session` where they are used: they are the core of a tracing session.)"""

    def __init__(self, argv: List[str], world: Optional[World] = None, options: Optional[Options] = None,
                 program: Optional[str] = None):
        self.argv = list(argv)
        self.program = program or argv[0]
        self.world = world or World()
        self.opts = options or Options()
        self.observers: list = []
        self.limits = KernelLimits(dict(self.opts.limits))
        self.limits.set("disk", self.opts.max_disk)
        self.vfs = Vfs(self.opts.root, self.opts.rw, clock_ns=self.world.realtime_ns,
                       uid=self.world.uid, gid=self.world.gid, limits=self.limits)
        if self.world.auto_locale and "LANG" in self.world.env:
            self.world.env["LANG"] = default_lang(self.vfs)
        self.hooks = Hooks()                  # the one registry of hook phases (machine/phases.py)
        # (--net: Internet sockets reach the host; --no-vdso: execve maps none)
        self.kernel = Kernel(self.world, self.vfs, max_procs=self.opts.max_procs, hooks=self.hooks,
                             max_mem=self.opts.max_mem, net=self.opts.net, vdso=self.opts.vdso)
        self.hooks.on("new_machine", self._attach)
        self.hooks.on("mmap", self._on_mmap)
        self.hooks.on("exec", self._on_exec)
        self.hooks.on("fork", self._on_fork)
        self.hooks.serve("binfmt", exec_into)            # execve reaches the loader through it
        procfs.install(self.vfs, self.kernel)
        self.observers.append(TscObserver(self.world, self.kernel))     # RDTSC from the virtual clock
        self.processes: List[Process] = []     # every process of the run, in creation order
        self.follow: Optional[bool] = None     # trace children too (-f); None: ask the observers
        self._main_result: Optional[Result] = None
        self._fault = None
        self.started = False
        self.illegal: List[dict] = []     # instructions the CPU model lacks that the guest ran

    # -- set-up ---------------------------------------------------------------
    def add_observer(self, obs) -> None:
        self.observers.append(obs)

    def _initial_process(self) -> Process:
        fds = FdTable(limits=self.limits)
        born = self.world.realtime_ns()
        fds.install(HostStream("/dev/stdin", O_RDONLY, 0, born))
        fds.install(HostStream("/dev/stdout", O_WRONLY, 1, born))
        fds.install(HostStream("/dev/stderr", O_WRONLY, 2, born))
        cwd = self.opts.cwd or "/"
        proc = Process(self.kernel, self.world.pid, self.world.ppid, None, None, fds, cwd)
        self.processes.append(proc)
        self.kernel.switch_to(proc)
        if self.opts.host_fds:
            self._pass_host_fds(proc, born)
        return proc

    def _pass_host_fds(self, proc: Process, born: int) -> None:
        """The shell's extra descriptors (3<file, 9>>/dev/full) at their numbers (kernel/hostfds)."""
        from emutrace.kernel import hostfds     # deferred: only a command started with extra fds
        from emutrace.kernel.fs import open_node

        def open_device(name: str, flags: int):
            path = f"/dev/{name}"
            try:
                real, node = self.vfs.resolve(path)
                return open_node(proc, real, node, flags, 0)
            except VfsError:
                return None
        for fd in self.opts.host_fds:
            f = hostfds.guest_file(fd, open_device, born)
            if f is not None:
                try:
                    proc.fds.install(f, at=fd)
                except VfsError:
                    pass                # (past the guest's RLIMIT_NOFILE: as if never opened)

    def _attach(self, proc: Process) -> None:
        """Install the hooks on a process's (new) machine (exec, fork).

        The hooks act for `kernel.current`, the process running: a vfork child runs on its
        parent's machine, whose hooks were installed for the parent."""
        self.kernel.sched.load_new_machine(proc)
        proc.machine.hook_syscall(self.kernel.on_syscall)
        self.kernel.answer_from(proc.machine)
        proc.machine.hook_add(UC_HOOK_INTR, self._on_interrupt, proc)
        for obs in self._observers_of(proc):
            attach = getattr(obs, "attach", None)
            if attach is not None:
                attach(proc)

    def _observers_of(self, proc: Process) -> list:
        """The observers that hook this process: all of them for a traced process; for one that is
        not traced (a child without -f) all but the tracer, whose events it would not report
        (the others, such as the RDTSC observer, make the run what it is). An observer says which
        it is by a true `traced_only` attribute."""
        if proc.traced:
            return self.observers
        return [o for o in self.observers if not getattr(o, "traced_only", False)]

    def _on_fork(self, parent: Process, child: Process) -> None:
        """A forked child of a followed process: its copied modules get the observers' hooks."""
        self.processes.append(child)
        if child.machine is parent.machine:
            return
        if not child.traced:
            # the observers that report events get none from it, but machinery of theirs in its
            # copied memory must go on working there (the guest call log's trampolines)
            for obs in self.observers:
                hook = getattr(obs, "forked_untraced", None) if getattr(obs, "traced_only", False) else None
                if hook is not None:
                    hook(parent, child)
        for obs in self._observers_of(child):
            hook = getattr(obs, "forked", None)
            if hook is not None:
                hook(parent, child)
                continue
            hook = getattr(obs, "module_loaded", None)
            if hook is not None:
                for module in list(child.modules):
                    hook(child, module)

    def _on_exec(self, proc: Process, image) -> None:
        """After a successful execve (not the first exec: start() reports that one)."""
        if not self.started:
            return
        self.kernel.life.exec_done(proc)
        for obs in self._observers_of(proc):
            hook = getattr(obs, "execed", None)
            if hook is not None:
                hook(proc)
                continue
            hook = getattr(obs, "module_loaded", None)      # the new program and its interpreter
            if hook is not None:
                for module in list(proc.modules):
                    hook(proc, module)

    def start(self) -> Process:
        """Exec the program; raises EmutraceError (126/127) if it cannot start."""
        proc = self._initial_process()
        env = [f"{k}={v}" for k, v in self.world.env.items()]
        try:
            exec_into(proc, self.find_program(self.program), self.argv, env, proc.cwd, self.opts.loader)
        except ExecError as e:
            if e.errno == E.ENOMEM:
                # the run's memory limit is too small to start it: a limit reached (124)
                mem = self.opts.max_mem
                size = f"{mem >> 20} MiB" if mem >= 1 << 20 else f"{mem} bytes"
                raise StartLimit(f"--max-mem {size} is too small to start "
                                 f"{self.program} ({e})", 124) from None
            status = 127 if e.errno == E.ENOENT else 126
            raise EmutraceError(str(e), status) from None
        self.started = True
        for obs in self.observers:
            hook = getattr(obs, "started", None)
            if hook is not None:
                hook(proc)
        return proc

    def find_program(self, name: str) -> str:
        """A name without a slash is looked up in the guest's PATH, inside the guest's root (as execvp)."""
        if "/" in name:
            return name
        for d in self.world.env.get("PATH", "/usr/bin:/bin").split(":"):
            cand = (d.rstrip("/") or "") + "/" + name
            try:
                node = self.vfs.lookup(cand, self.opts.cwd or "/")
            except VfsError:
                continue
            if node.stat.type == S_IFREG and node.stat.mode & 0o111:
                return cand
        return name

    # -- hooks -------------------------------------------------------------------
    def _on_mmap(self, proc: Process, start: int, size: int, prot: int, f, offset: int) -> None:
        """A file mapped at offset 0 that is an ELF file starts a module (ld.so maps libraries so)."""
        if offset != 0 or any(m.path == f.path for m in proc.modules):
            return
        head = f.pread(4, 0)
        if head != b"\x7fELF":
            return
        try:
            version = f.version()               # (before reading: see DirTree.read_versioned)
            elf = memoized(f.path, version) or read_elf(f.path, f.pread(f.size(), 0), version)
        except ElfError:
            return
        lo, _ = elf.span()
        module = Module(f.path, elf, start - lo)
        proc.modules.append(module)
        for obs in self._observers_of(proc):
            hook = getattr(obs, "module_loaded", None)
            if hook is not None:
                hook(proc, module)

    def position(self) -> Tuple[int, int]:
        """The run's position now (docs/time.md): (guest instructions retired in the whole run,
        rip of the running thread). Inside a hook it is exact: the block the hook runs in is
        counted up to rip."""
        world = self.world
        proc = self.kernel.current
        m = proc.machine if proc is not None else None
        if m is None:
            return world.work, 0
        rip = m.reg("rip")
        c = world._counter
        if c is not None and c is m.counter:
            return world.work_base + c.exact(rip) - world._mark, rip
        return world.work, rip

    def _on_interrupt(self, uc, intno, proc):
        self._fault = ("intr", intno)
        uc.emu_stop()

    # -- the run loop ---------------------------------------------------------------
    def run(self) -> Result:
        """Run every process until all have ended; the result is the first process's.

        Each turn: the scheduler picks a thread (syscalls/sched.py), it is loaded on its
        machine, a system call it was blocked in ends (or it stays blocked), pending signals
        are delivered, and it runs until it blocks, stops, faults or uses up its budget."""
        if not self.started:
            self.start()
        sched = self.kernel.sched
        main = self._main = self.processes[0]
        if self.follow is None:
            self.follow = any(_follows(o) for o in self.observers)
        sched.admit_process(main)
        deadline = _time.monotonic() + self.opts.timeout if self.opts.timeout else 0
        self.kernel.begin_run(self.follow, deadline)    # (host-socket waits stop there too)
        fanout = self._signal_observer()
        idle = 0                              # wake-ups in a row that ended blocked again
        engines = self.kernel.engines
        resuming = self.hooks.listeners("resume")    # (a debugger's: see machine/phases.py)
        if resuming:
            engines.pooling = False           # (a debugger keeps every engine of the run)
        try:
            while True:
                if engines.retired:           # (between slices: no engine is running)
                    engines.close_retired(keep=main.aspace)
                try:
                    t = sched.pick()
                except GuestDeadlock:
                    if main.exit is None:
                        raise
                    self._end_orphans()       # what is left after the first process waits forever
                    break
                if t is None:
                    break
                proc = t.proc
                sched.switch_to(t)
                try:
                    if t.wait is not None and not sched.resume(t):
                        idle += 1
                        if idle > 100_000:            # a wait whose condition lies: never wakes
                            raise GuestDeadlock(sched.deadlock_message())
                        continue
                    idle = 0
                    self._apply_resume(proc)
                    if resuming:
                        self.hooks.fire("resume", proc, t)
                    deliver_pending(proc, fanout)
                    self._apply_resume(proc)
                    if t.alive and t.wait is None and not proc.stopped:
                        self._slice(proc, t, deadline)
                        self._apply_resume(proc)
                except ProcessExit as e:
                    self._process_exit(proc, e)
        except GuestDeadlock as e:
            raise LimitReached(f"the program cannot continue: {e}", 125) from None
        finally:
            engines.close_pool()              # (no engine runs here)
        return self._main_result or Result()

    def _slice(self, proc: Process, t, deadline) -> None:
        """Run thread t on its machine until it blocks, stops, faults or its budget ends.

        The world's clock follows the engine's instruction counter while it runs (docs/time.md);
        the slice's instructions go to the thread and its process when it ends."""
        sched = self.kernel.sched
        world = self.world
        m = proc.machine
        counter = m.counter
        count = sched.budget(t)
        limited = False
        if self.opts.max_insns:
            left = self.opts.max_insns - world.work
            if left <= 0:
                raise LimitReached(f"instruction limit of {self.opts.max_insns} reached", 124)
            if not count or left < count:
                count, limited = left, True
        proc.stop_requested = False
        self._fault = None
        proc.aspace.denied = None
        timeout_us = 0
        if deadline:
            left = deadline - _time.monotonic()
            if left <= 0:
                raise LimitReached(f"time limit of {self.opts.timeout:g} s reached", 124)
            timeout_us = max(1, int(left * 1e6))
        if m.syscall_answers is not None:
            # answers remembered in another slice may be another thread's (gettid) or changed
            # since by another process (getpgrp after its setpgid): each slice starts afresh
            m.syscall_answers.forget()
        counter.overshoot = True             # (a slice always makes progress: ends at a block's start)
        counter.stop_at = counter.total + count if count else -1
        world.running(counter)
        try:
            m.emu_start(m.reg("rip"), 0, timeout=timeout_us)
        except UcError as e:
            counter.stop_at = -1
            self._slice_ended(proc, t)
            if m.own_code and self.hooks.first("guest_code_fault", proc, m.reg("rip")):
                return                           # a string copy of the call log hit a bad pointer
            denied = proc.aspace.denied       # (error, address): a page access emutrace/machine/tlb.py refused
            self._flush_log(proc, m)
            self._guest_fault(proc, e.errno, denied)
            return
        except BaseException:
            self._slice_ended(proc, t)
            raise
        ran_out = counter.ran_out
        counter.stop_at = -1            # (off while the slice's end steps out of guest code)
        self._slice_ended(proc, t)
        self._flush_log(proc, m)
        if self._fault and self._fault[0] == "intr":
            self._cpu_exception(proc, self._fault[1])
        elif proc.stop_requested or proc.machine is not m or proc.resume_at is not None \
                or not t.alive or t.wait is not None:
            return
        elif deadline and _time.monotonic() >= deadline:
            raise LimitReached(f"time limit of {self.opts.timeout:g} s reached", 124)
        elif ran_out and limited and world.work >= self.opts.max_insns:
            raise LimitReached(f"instruction limit of {self.opts.max_insns} reached", 124)
        elif ran_out:
            sched.slice_used_up(t)          # (a `hlt` here cannot be told apart: it goes on)
        else:
            self._stopped_by_itself(proc, m, deadline)

    def _slice_ended(self, proc: Process, t) -> None:
        """The slice's instructions go to its thread and process (their CPU clocks)."""
        n = self.world.stopped()
        t.insns += n
        proc.cpu_insns += n

    def _flush_log(self, proc: Process, m) -> None:
        """At the end of a slice: a thread stopped inside emutrace's guest code (its budget ran
        out there) is stepped out of it, then the calls it logged are reported."""
        if not m.own_code or proc.machine is not m:
            return
        inside = m.in_own_code
        while inside(m.reg("rip")):
            try:
                m.emu_start(m.reg("rip"), 0, count=1)
            except UcError:
                if not self.hooks.first("guest_code_fault", proc, m.reg("rip")):
                    break
        self.hooks.fire("guest_log_flush", proc, None)

    @staticmethod
    def _apply_resume(proc: Process) -> None:
        """A handler or a signal frame moved the thread: its rip goes into the CPU state."""
        if proc.resume_at is not None and proc.machine is not None:
            proc.machine.set_reg("rip", proc.resume_at)
            proc.resume_at = None

    def _process_exit(self, proc: Process, e: ProcessExit) -> None:
        self.kernel.life.end_process(proc, e)
        result = Result(status=e.status, signal=e.signal, core=e.core)
        if proc is self._main:
            self._main_result = result
        for obs in self._observers_of(proc):
            hook = getattr(obs, "exited", None)
            if hook is not None:
                hook(proc, result)
        if proc is not self._main:              # (the first one stays inspectable after the run)
            self.kernel.life.release_process(proc)

    def interrupted(self, sig: int) -> None:
        """The host interrupted the run (Ctrl-C): every process still alive is reported killed by
        `sig`, as strace and ltrace end a trace whose tracee the terminal's signal killed. The
        processes are left as they are: the run ends here."""
        for p in list(self.kernel.sched.procs):
            if p.exit is not None:
                continue
            for obs in self._observers_of(p):
                hook = getattr(obs, "exited", None)
                if hook is not None:
                    hook(p, Result(signal=sig))

    def _end_orphans(self) -> None:
        """The first process has ended and the rest wait forever: they are killed."""
        for p in list(self.kernel.sched.procs):
            if p.exit is None:
                self._process_exit(p, ProcessExit(0, signal=9))

    def _signal_observer(self):
        """What hears of each delivered signal: the observers of its process (_observers_of), so
        the report sees the signals of processes that are not traced too."""
        class _Fanout:
            def signal(s, proc, info):
                for o in self._observers_of(proc):
                    h = getattr(o, "signal", None)
                    if h is not None:
                        h(proc, info)

            def stopped(s, proc, sig):
                for o in self._observers_of(proc):
                    h = getattr(o, "stopped", None)
                    if h is not None:
                        h(proc, sig)
        return _Fanout() if self.observers else None

    def _stopped_by_itself(self, proc, m, deadline):
        """emu_start returned with nobody asking: a timeout, or a `hlt` (privileged: SIGSEGV)."""
        if deadline and _time.monotonic() >= deadline:
            raise LimitReached(f"time limit of {self.opts.timeout:g} s reached", 124)
        force_signal(proc, {"si_signo": SIGSEGV, "si_code": SI_KERNEL, "si_addr": 0, "_trapno": 13})

    def _guest_fault(self, proc, err: int, denied=None):
        """emu_start stopped with Unicorn error `err`. A page access the guest's mappings do not
        allow stops it with UC_ERR_EXCEPTION, `denied` saying which (emutrace/machine/tlb.py)."""
        rip = proc.machine.reg("rip")
        fault = self._fault
        addr = rip
        if err == UCC.UC_ERR_EXCEPTION and denied and not (fault and fault[0] == "intr"):
            err, addr = denied
            if proc.aspace.over_budget == addr & ~0xFFF:
                self._oom_kill(proc, addr)
                return
            addr = exact_address(proc.machine, err, addr)
        if err in _UNMAPPED or err in _PROT:
            code = SEGV_MAPERR if err in _UNMAPPED else SEGV_ACCERR
            if err in _PROT and proc.aspace.find(addr) is None:
                code = SEGV_MAPERR
            force_signal(proc, {"si_signo": SIGSEGV, "si_code": code, "si_addr": addr, "_trapno": 14,
                                "_err": 4 | (2 if err in (UCC.UC_ERR_WRITE_UNMAPPED, UCC.UC_ERR_WRITE_PROT) else 0)})
        elif err == UCC.UC_ERR_INSN_INVALID:
            self._note_illegal(proc, rip)
            force_signal(proc, {"si_signo": SIGILL, "si_code": ILL_ILLOPN, "si_addr": rip, "_trapno": 6})
        elif err == UCC.UC_ERR_EXCEPTION and fault and fault[0] == "intr":
            self._cpu_exception(proc, fault[1])
        elif err in (UCC.UC_ERR_READ_UNALIGNED, UCC.UC_ERR_WRITE_UNALIGNED, UCC.UC_ERR_FETCH_UNALIGNED):
            force_signal(proc, {"si_signo": SIGBUS, "si_code": 1, "si_addr": rip})
        else:
            force_signal(proc, {"si_signo": SIGSEGV, "si_code": SI_KERNEL, "si_addr": 0, "_trapno": 13})
        proc.resume_at = rip

    def _oom_kill(self, proc, addr: int) -> None:
        """A page the guest may write (MAP_NORESERVE: committed by use, not by mmap) has no room
        under --max-mem: Linux's OOM killer ends the process with SIGKILL, which no handler sees
        (the guest got no ENOMEM to act on: its mmap succeeded)."""
        proc.aspace.over_budget = None
        self.hooks.fire("oom_kill", proc, addr)
        force_signal(proc, {"si_signo": SIGKILL, "si_code": SI_KERNEL, "si_addr": 0})
        proc.resume_at = proc.machine.reg("rip")
    def _note_illegal(self, proc, rip: int) -> None:
        """An instruction the CPU model does not execute: kept (`illegal`) for the CLI's line and
        the report. Most are instructions past the modelled level (AVX, AVX2: a program built
        with -march=x86-64-v3), which Unicorn 2.1 cannot run."""
        code = proc.machine.read(rip, 15) or b""
        text = "(unreadable)"
        if code:
            import capstone     # deferred: only an illegal instruction is disassembled
            md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
            got = next(md.disasm_lite(code, rip, 1), None)
            text = f"{got[2]} {got[3]}".strip() if got else "(undecodable) " + code[:8].hex(" ")
        m = module_at(proc.modules, rip)
        where = f"{m.path}+{rip - m.base:#x}" if m else "no module"
        self.illegal.append({"pid": proc.pid, "address": rip, "instruction": text, "module": where,
                             "cpu": CPU_LEVEL})

    def _cpu_exception(self, proc, intno: int):
        rip = proc.machine.reg("rip")
        table = {
            0: (SIGFPE, FPE_INTDIV, rip), 1: (SIGTRAP, 2, rip), 3: (SIGTRAP, SI_KERNEL, 0),
            4: (SIGSEGV, SI_KERNEL, 0), 5: (SIGSEGV, SI_KERNEL, 0), 6: (SIGILL, ILL_ILLOPN, rip),
            7: (SIGFPE, 0, rip), 13: (SIGSEGV, SI_KERNEL, 0), 16: (SIGFPE, 0, rip), 17: (SIGBUS, 2, 0),
            19: (SIGFPE, 0, rip),
        }
        sig, code, addr = table.get(intno, (SIGSEGV, SI_KERNEL, 0))
        force_signal(proc, {"si_signo": sig, "si_code": code, "si_addr": addr, "_trapno": intno})
        proc.resume_at = rip


def _follows(observer) -> bool:
    """Does this observer want child processes and threads traced (-f)? An observer says so with
    a `follow` attribute; the CLI's Tracer says it through its formatters' configuration."""
    f = getattr(observer, "follow", None)
    if f is not None:
        return bool(f)
    return any(getattr(getattr(s, "cfg", None), "follow", False) for s in getattr(observer, "sinks", ()))

